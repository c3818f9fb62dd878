"""What a run leaves on disk: a clean ``harness diagnose`` exit keeps no write-ahead log, and
``harness prune`` gives freed pages back to the file system (the files shrink).

Real processes on a real home: the CLI as users run it (offline model, demo data), then the
home's files as ``ls`` would show them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

QUESTION = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
            "on 2026-11-02 — why?")
WAL_LIMIT = 64 * 1024


def _harness(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(home), HARNESS_MODEL="offline")
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], env=env,
                          capture_output=True, text=True, timeout=180, cwd=home.parent)


def _sizes(home: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in home.iterdir() if ".sqlite" in p.name}


def test_a_clean_diagnose_leaves_no_large_wal_and_prune_shrinks_the_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for _ in range(2):
        done = _harness(home, "diagnose", QUESTION)
        assert done.returncode == 0, done.stderr
        wals = {name: size for name, size in _sizes(home).items() if name.endswith("-wal")}
        assert all(size <= WAL_LIMIT for size in wals.values()), wals
    before = _sizes(home)
    assert {"runs.sqlite", "checkpoints.sqlite"} <= before.keys()
    time.sleep(1.2)  # both runs are now older than the cutoff below
    pruned = _harness(home, "prune", "--older-than", "1s")
    assert pruned.returncode == 0, pruned.stderr
    after = _sizes(home)
    for name in ("runs.sqlite", "checkpoints.sqlite"):
        assert after[name] < before[name], (name, before, after)
    assert sum(after.values()) < sum(before.values())
    assert all(size <= WAL_LIMIT for name, size in after.items() if name.endswith("-wal")), after
