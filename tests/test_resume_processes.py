"""Real ``harness`` processes that are killed, terminated, resumed and run side by side.

docs/design.md §9 and §12: a ``harness diagnose`` killed with SIGKILL is continued by
``harness runs resume RUN_ID`` (or by the next turn on its thread) without running a finished
tool call again, with its usage and its event numbering going on and exactly one terminal row;
SIGTERM is a cancel (CANCELLED row, exit 143, no ``done``); ten processes on one home each get
the outcome that their row, their events and their thread's final checkpoint say.

The killed processes run ``tests/slow_harness.py``: the real CLI with slow evidence tools that
count, in a file, every execution the backends really made.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from graphkit import INC, kinds

from app.runner import open_checkpointer
from graph.builder import build_graph
from harness.runstore import SqliteRunStore
from harness.settings import load_settings
from tools.dataset.build import ensure_dataset

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SLOW = REPO / "tests" / "slow_harness.py"
Q = INC["question"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the demo dataset indexed once; each test runs on its own copy."""
    home = tmp_path_factory.mktemp("template") / "home"
    ensure_dataset(load_settings(home=home))
    return home


@pytest.fixture()
def home(template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "home"
    shutil.copytree(template, dest)
    return dest


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=str(REPO))
    return env


def harness(home: Path, log: Path, *args: str, delay: float = 0.0,
            after: float = 0.0) -> subprocess.Popen[str]:
    """Start the CLI (with slow, counted tools) on ``home``."""
    return subprocess.Popen([sys.executable, str(SLOW), str(log), str(delay), str(after), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(home), cwd=home.parent)


def finish(proc: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


def executions(log: Path) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """How often each tool call id was started and finished by a backend, over every process."""
    lines = log.read_text(encoding="utf-8").split() if log.exists() else []
    pairs = list(zip(lines[::2], lines[1::2], strict=True))
    return (collections.Counter(i for kind, i in pairs if kind == "start"),
            collections.Counter(i for kind, i in pairs if kind == "end"))


def wait_for(condition: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if found := condition():
            return found
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def reference(template: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same question run without interruption: what every resumed run must end with."""
    home = tmp_path_factory.mktemp("reference") / "home"
    shutil.copytree(template, home)
    code, out, _ = finish(harness(home, home.parent / "count.log", "diagnose", Q, "--json"))
    assert code == 0
    result = json.loads(out)
    store = SqliteRunStore(home / "runs.sqlite")
    result["tool_call_ids"] = [r["tool_call_id"]
                               for r in store.trace(result["run_id"])["tool_records"]]
    store.close()
    assert len(result["tool_call_ids"]) >= 6 and result["release_outcome"] == "SUCCESS"
    return result


def _kill_during(home: Path, log: Path, k: int, where: str, *args: str) -> tuple[str, list[str]]:
    """Run ``diagnose`` and SIGKILL it at the kill point; the run id and the calls it stored.

    ``after-record``: right after the k-th tool record was stored, before the node's checkpoint
    (the gate sleeps there); ``mid-tool``: while the (k+1)-th tool call runs, k stored.
    """
    delay, after = (0.05, 0.8) if where == "after-record" else (0.8, 0.0)
    proc = harness(home, log, "diagnose", Q, "--json", *args, delay=delay, after=after)
    store = SqliteRunStore(home / "runs.sqlite")
    try:
        run_id = wait_for(lambda: next((r["run_id"] for r in store.unfinished_runs()), None),
                          what="the run row")

        def stored() -> list[str]:
            return [r["tool_call_id"] for r in store.trace(run_id)["tool_records"]]

        if where == "after-record":
            wait_for(lambda: len(stored()) >= k, what=f"tool record {k}")
        else:
            wait_for(lambda: executions(log)[0][f"offline_{k + 1}"] >= 1,
                     what=f"tool call {k + 1} running")
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        kept = stored()
        assert len(kept) == k, kept  # the kill landed where it was meant to
        assert store.get_run(run_id)["finished_at"] is None  # left RUNNING by a dead worker
        return run_id, kept
    finally:
        store.close()


def _check_continued(home: Path, log: Path, run_id: str, kept: list[str],
                     events_before: list[dict[str, Any]], reference: dict[str, Any]) -> None:
    store = SqliteRunStore(home / "runs.sqlite")
    row = store.get_run(run_id)
    trace = store.trace(run_id)
    started, ended = executions(log)
    assert row["release_outcome"] == reference["release_outcome"]
    assert row["content"] == reference["content"]
    assert row["usage"] == reference["usage"]  # usage went on from what the checkpoint held
    ids = [r["tool_call_id"] for r in trace["tool_records"]]
    assert ids == reference["tool_call_ids"]  # each call stored once, in order
    assert all(ended[i] == 1 for i in ids)  # no tool call finished twice
    assert all(started[i] == 1 for i in kept)  # what was stored before the kill never re-ran
    events = store.events(run_id)
    assert events[:len(events_before)] == events_before  # numbering went on
    assert kinds({"events": events}) == ["metadata", "status*", "content", "done"]
    assert sum(e["event"] == "done" for e in events) == 1
    assert store.unfinished_runs(row["thread_id"]) == []
    store.close()


KILL_POINTS = [(1, "after-record"), (2, "after-record"), (4, "after-record"), (2, "mid-tool")]


@pytest.mark.parametrize(("k", "where"), KILL_POINTS, ids=[f"{w}-{k}" for k, w in KILL_POINTS])
def test_a_killed_run_is_resumed_without_running_a_finished_tool_call_again(
        home: Path, reference: dict[str, Any], k: int, where: str) -> None:
    log = home.parent / "count.log"
    run_id, kept = _kill_during(home, log, k, where)
    store = SqliteRunStore(home / "runs.sqlite")
    events_before = store.events(run_id)
    store.close()
    code, out, err = finish(harness(home, log, "runs", "resume", run_id, "--json"))
    assert code == 0, err
    result = json.loads(out)
    assert (result["run_id"], result["release_outcome"]) == (run_id, "SUCCESS")
    assert result["usage"] == reference["usage"]
    _check_continued(home, log, run_id, kept, events_before, reference)
    assert len(SqliteRunStore(home / "runs.sqlite").runs_for_thread(result["thread_id"])) == 1
    if k > 1:
        return
    # A second resume finds it finished: one line, exit 64.
    code, out, err = finish(harness(home, log, "runs", "resume", run_id))
    assert (code, out) == (64, "")
    assert err.strip().splitlines() == [f"harness: run {run_id} already finished: SUCCESS"]


def test_a_run_left_running_by_a_dead_process_is_continued_by_the_next_turn_on_its_thread(
        home: Path, reference: dict[str, Any]) -> None:
    log = home.parent / "count.log"
    run_id, kept = _kill_during(home, log, 2, "after-record", "--thread", "T")
    store = SqliteRunStore(home / "runs.sqlite")
    events_before = store.events(run_id)
    store.close()
    code, out, err = finish(harness(home, log, "diagnose", "and what about M1002?", "--json",
                                    "--thread", "T"))
    assert code == 0, err
    assert f"run {run_id} of thread T was left running" in err
    _check_continued(home, log, run_id, kept, events_before, reference)
    rows = SqliteRunStore(home / "runs.sqlite").runs_for_thread("T")
    assert [r["run_id"] for r in rows] == [run_id, json.loads(out)["run_id"]]
    assert all(r["finished_at"] for r in rows)


def test_sigterm_cancels_a_running_diagnosis(home: Path) -> None:
    log = home.parent / "count.log"
    proc = harness(home, log, "diagnose", Q, "--json", delay=1.5)
    wait_for(lambda: executions(log)[0]["offline_1"], what="the first tool call")
    proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc, timeout=60)
    assert code == 143 and out == ""
    with sqlite3.connect(home / "runs.sqlite") as conn:
        run_ids = [run_id for (run_id,) in conn.execute("SELECT run_id FROM runs")]
    assert len(run_ids) == 1
    store = SqliteRunStore(home / "runs.sqlite")
    row = store.get_run(run_ids[0])
    assert (row["status"], row["run_state"], row["release_outcome"]) == (
        "CANCELLED", "CANCELLED", "CANCELLED")
    events = [e["event"] for e in store.events(row["run_id"])]
    assert events[0] == "metadata" and "done" not in events and "content" not in events
    assert executions(log)[0]["offline_2"] == 0  # nothing was queried after the cancel
    store.close()


def test_ten_processes_on_one_home_agree_on_every_run(home: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-m", "app", "diagnose", Q, "--json",
                               "--thread", f"T{i}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=_env(home), cwd=home.parent)
             for i in range(10)]
    results = [finish(p, timeout=300) for p in procs]
    store = SqliteRunStore(home / "runs.sqlite")

    async def checkpoints() -> dict[str, dict[str, Any]]:
        async with open_checkpointer(load_settings(home=home)) as saver:
            graph = build_graph(saver)
            return {f"T{i}": (await graph.aget_state({"configurable": {"thread_id": f"T{i}"}})).values
                    for i in range(10)}

    saved = asyncio.run(checkpoints())
    for i, (code, out, err) in enumerate(results):
        assert "locked" not in err, err
        result = json.loads(out)
        assert code == {"SUCCESS": 0, "FALLBACK": 0}.get(result["release_outcome"], 2), err
        assert result["release_outcome"] == "SUCCESS" and "checkpoint_error" not in result
        row = store.get_run(result["run_id"])
        for key in ("run_state", "release_outcome", "fallback_type", "failure_code", "content",
                    "usage"):
            assert row[key] == result[key], key
        assert store.events(result["run_id"]) == result["events"]
        state = saved[f"T{i}"]
        assert (state["run_id"], state["release_outcome"], state["content"]) == (
            result["run_id"], result["release_outcome"], result["content"])
    store.close()
