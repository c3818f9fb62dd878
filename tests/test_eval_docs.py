"""docs/eval.md's example, run as written: the suite, the command, what it prints, the Python."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from evalkit import ROOT, harness

DOC = (ROOT / "docs" / "eval.md").read_text(encoding="utf-8")


def test_the_documented_suite_runs_as_documented(tmp_path: Path) -> None:
    [suite] = re.findall(r"```yaml\n(.*?)```", DOC, re.S)
    (tmp_path / "payments.yaml").write_text(suite, encoding="utf-8")
    [shown] = re.findall(r"\$ harness eval payments.yaml --model offline --out eval-out\n(.*?) …\n", DOC)
    proc = harness("eval", "payments.yaml", "--model", "offline", "--out", "eval-out", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert shown in " ".join(proc.stdout.split())
    for name in ("scorecard.json", "junit.xml", "report.md", "report.html", "cases.jsonl"):
        assert (tmp_path / "eval-out" / name).is_file()
    python = re.findall(r"```python[^\n]*\n(.*?)```", DOC, re.S)[0]
    run = subprocess.run([sys.executable, "-c", python], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={"HARNESS_HOME": str(tmp_path), "PATH": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("1.0 [<Verdict.RIGHT: 'RIGHT'>, <Verdict.RIGHT: 'RIGHT'>, "
                                 "<Verdict.HONEST: 'HONEST'>]")


@pytest.mark.slow
def test_the_benchmark_script_runs_its_cases_and_every_one_is_as_expected() -> None:
    # The speed figure is the script's to print (docs/benchmarks.md), not a timed assertion;
    # two rounds of the demo's seven questions over two copies check what its default 100
    # cases over four copies would, at a fifth of the time.
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_eval.py"), "--cases",
                           "14", "--copies", "2"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"14 cases offline over 2 datasets, 2 workers: [\d.]+ s wall",
                     proc.stdout), proc.stdout
    assert "14/14 as expected" in proc.stdout, proc.stdout
