"""What a run leaves on disk: a clean ``harness diagnose`` exit keeps no write-ahead log, and
``harness prune`` gives freed pages back to the file system (the files shrink).

Real processes on a real home: the CLI as users run it (offline model, demo data), then the
home's files as ``ls`` would show them.
"""

from __future__ import annotations

import os
import sqlite3
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


def _pragmas(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {name: int(conn.execute(f"PRAGMA {name}").fetchone()[0])
                for name in ("auto_vacuum", "freelist_count", "page_count")}
    finally:
        conn.close()


def _diagnose(home: Path, runs: int) -> None:
    for _ in range(runs):
        done = _harness(home, "diagnose", QUESTION)
        assert done.returncode == 0, done.stderr


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
        assert _pragmas(home / name)["freelist_count"] == 0, name  # every freed page given back
    assert sum(after.values()) < sum(before.values())
    assert all(size <= WAL_LIMIT for name, size in after.items() if name.endswith("-wal")), after


def test_a_run_end_prune_gives_the_pages_back(tmp_path: Path) -> None:
    # Each run's end prunes its thread to the latest checkpoint; the pages of the ones deleted
    # go back to the file system then, not only at `harness prune`: after three runs the
    # checkpoint file holds (nearly) only its three kept checkpoints.
    home = tmp_path / "home"
    _diagnose(home, 3)
    checkpoints = _pragmas(home / "checkpoints.sqlite")
    assert checkpoints["auto_vacuum"] == 2  # INCREMENTAL, set before the first table
    assert checkpoints["freelist_count"] == 0, checkpoints
    conn = sqlite3.connect(home / "checkpoints.sqlite")
    try:
        kept, live = conn.execute("SELECT count(*), sum(length(checkpoint) + length(metadata)) "
                                  "FROM checkpoints").fetchone()
    finally:
        conn.close()
    assert kept == 3
    # the file: the live rows plus the b-trees' own pages and slack, not the runs' whole history
    assert (home / "checkpoints.sqlite").stat().st_size < 2 * live + 64 * 1024, (live, checkpoints)


def test_prune_compacts_a_home_made_before_auto_vacuum(tmp_path: Path) -> None:
    # A home whose files were created without auto_vacuum (an older harness): incremental
    # vacuum does nothing there, so `harness prune` rewrites each file once (VACUUM) in
    # incremental mode, and it shrinks like a new home's.
    home = tmp_path / "home"
    _diagnose(home, 2)
    for name in ("runs.sqlite", "checkpoints.sqlite"):
        conn = sqlite3.connect(home / name, isolation_level=None)
        conn.execute("PRAGMA auto_vacuum=NONE")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        assert _pragmas(home / name)["auto_vacuum"] == 0
    _diagnose(home, 1)  # a run on the older home: pages freed at its end stay in the file
    assert _pragmas(home / "checkpoints.sqlite")["freelist_count"] > 0
    before = _sizes(home)
    time.sleep(1.2)
    pruned = _harness(home, "prune", "--older-than", "1s")
    assert pruned.returncode == 0, pruned.stderr
    after = _sizes(home)
    for name in ("runs.sqlite", "checkpoints.sqlite"):
        state = _pragmas(home / name)
        assert state["auto_vacuum"] == 2 and state["freelist_count"] == 0, (name, state)
        assert after[name] < before[name], (name, before, after)
    assert all(size <= WAL_LIMIT for name, size in after.items() if name.endswith("-wal")), after
