"""The suite's tiers: one table assigns every test file, CI runs the fast tier first and stops on
its failure, and the README's test commands are exactly the ones CI runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import TIERS

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci" / "run"


def test_every_test_file_has_exactly_one_tier() -> None:
    files = {p.name.removeprefix("test_").removesuffix(".py")
             for p in (ROOT / "tests").glob("test_*.py")}
    listed = [name for names in TIERS.values() for name in names]
    assert sorted(files - set(listed)) == [], "give each new test file its tier in tests/conftest.py"
    assert len(listed) == len(set(listed)), "a test file is in two tiers"
    assert set(TIERS) == {"unit", "graph", "integration", "worlds"}


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Development", 1)[1]
    block = re.search(r"```bash[^\n]*\n(.*?)```", section, re.S)
    assert block is not None, "README's Development section lost its test commands"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def _ci_commands() -> list[str]:
    return [line.removeprefix("tier ").strip() for line in CI.read_text(encoding="utf-8").splitlines()
            if line.startswith("tier ")]


def test_the_readme_runs_the_tests_as_ci_does() -> None:
    assert _readme_commands() == _ci_commands()
    assert _ci_commands()[0] == ".venv/bin/python -m pytest -m unit -x"  # the fast tier first


def _run_tiers(tmp_path: Path, exits: list[int]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The tier part of .ci/run, verbatim, with a ``.venv/bin/python`` that exits as told."""
    script = CI.read_text(encoding="utf-8")
    tiers = script[script.index("tier() {"):]
    log = tmp_path / "calls"
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    codes = " ".join(map(str, exits))
    python.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\nn=$(wc -l < {log})\n'
                      f'codes=({codes})\nexit "${{codes[$((n-1))]}}"\n')
    python.chmod(0o755)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", tiers], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("exits", "rc", "ran"), [
    ([0, 0], 0, 2),
    ([1, 0], 1, 1),  # a failing fast tier: nothing slower runs
    ([5, 0], 1, 1),  # no test collected is a failure too
    ([0, 1], 1, 2),
    ([0, 5], 1, 2),
])
def test_ci_stops_at_the_fast_tiers_failure(tmp_path: Path, exits: list[int], rc: int, ran: int) -> None:
    done, calls = _run_tiers(tmp_path, exits)
    assert done.returncode == rc, done.stderr
    assert len(calls) == ran
    assert calls[0] == "-m pytest -m unit -x"
    if 5 in exits[:ran]:
        assert "collected no tests" in done.stderr
