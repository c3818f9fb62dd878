"""The run store on both backends: SQLite (a file under the home) and a real PostgreSQL server.

Every test here runs on both (parametrised, not copied) except the two that are about one
backend: four OS processes sharing one SQLite home, and a PostgreSQL server stopped mid-run.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

import diagnosis_harness.runstore.db
from diagnosis_harness.control.budget import MAX_USAGE_COUNT, BudgetUsage
from diagnosis_harness.control.contracts import (
    EvidenceStatus,
    FailureClass,
    FallbackType,
    Intent,
    InvocationStatus,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)
from diagnosis_harness.runstore.store import (
    MAX_COUNT,
    SCHEMA_VERSION,
    RunPersistenceError,
    RunStore,
    open_run_store,
)

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Backend:
    name: str
    target: str  # what open_run_store takes: a SQLite path or a PostgreSQL URL

    def open(self, **kw: float) -> RunStore:
        return open_run_store(self.target, **kw)

    def sql(self, statement: str) -> list[tuple]:
        """Run one statement on the database directly (not through the store)."""
        engine = create_engine(self.target if "://" in self.target else f"sqlite:///{self.target}")
        try:
            with engine.begin() as conn:
                result = conn.execute(text(statement))
                return [tuple(r) for r in result] if result.returns_rows else []
        finally:
            engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "home" / "runs.sqlite"))
    return Backend("postgres", request.getfixturevalue("pg_url"))


@pytest.fixture
def store(backend: Backend) -> Iterator[RunStore]:
    opened = backend.open()
    yield opened
    opened.close()


def finish(store: RunStore, run_id: str, *, content: str = "report",
           usage: BudgetUsage | None = None, outcome: ReleaseOutcome = ReleaseOutcome.SUCCESS) -> bool:
    return store.finish_run(
        run_id, status=StoredRunStatus.from_outcome(outcome), run_state=RunState.SUCCESS,
        release_outcome=outcome,
        fallback_type=FallbackType.INSUFFICIENT_EVIDENCE if outcome is ReleaseOutcome.FALLBACK else None,
        failure_code=None, stop_reason=StopReason.INFORMATION_SATURATED, intent=Intent.DIAGNOSIS,
        content=content, usage=usage or BudgetUsage(model_calls=1, tool_calls=1))


def tool_record(n: int) -> ToolRecord:
    return ToolRecord(tool_call_id=f"c{n}", tool="query_logs", args={"service": "p", "n": n},
                      scope={"service": "p"}, invocation_status=InvocationStatus.READY,
                      evidence_status=EvidenceStatus.NO_EVIDENCE, ready_index=n)


# --- rows ------------------------------------------------------------------------------------


def test_one_row_per_run(store: RunStore) -> None:
    assert isinstance(store, RunStore)
    assert store.start_run("r1", "t1", "why is checkout slow?", "offline")
    assert not store.start_run("r1", "t2", "another question", "openai:x")
    assert store.start_run("r2", "t1", "and now?", "offline")
    assert finish(store, "r1")
    assert not finish(store, "r1", content="second", outcome=ReleaseOutcome.FALLBACK)
    rows = store.runs_for_thread("t1")
    assert [r["run_id"] for r in rows] == ["r1", "r2"]
    assert (rows[0]["question"], rows[0]["content"], rows[0]["release_outcome"]) == (
        "why is checkout slow?", "report", "SUCCESS")
    assert rows[1]["finished_at"] is None and rows[1]["usage"] is None
    assert store.runs_for_thread("t2") == []
    with pytest.raises(RunPersistenceError, match="never started"):
        finish(store, "ghost")


def test_first_finish_wins_under_eight_racing_threads(store: RunStore) -> None:
    store.start_run("r1", "t1", "q", "offline")
    for seq in range(1, 4):
        store.record_event("r1", seq, {"event": "status", "n": seq})
    barrier = threading.Barrier(8)

    def attempt(i: int) -> bool:
        barrier.wait()
        return finish(store, "r1", content=f"from {i}", usage=BudgetUsage(model_calls=i))

    with ThreadPoolExecutor(8) as pool:
        wrote = list(pool.map(attempt, range(8)))
    assert wrote.count(True) == 1
    winner = wrote.index(True)
    row = store.get_run("r1")
    assert row is not None
    assert (row["content"], row["usage"]["model_calls"]) == (f"from {winner}", winner)
    assert len(store.events("r1")) == 3


# --- events and trace ------------------------------------------------------------------------


def test_events_in_seq_order_and_a_repeated_seq_is_refused(backend: Backend, store: RunStore) -> None:
    store.start_run("r1", "t1", "q", "offline")
    for seq in (2, 1, 3):
        assert store.record_event("r1", seq, {"event": "status", "seq": seq})
    assert not store.record_event("r1", 2, {"event": "content", "seq": 2})
    assert store.events("r1") == [{"event": "status", "seq": s} for s in (1, 2, 3)]
    store.close()
    # Another store (a resumed run in a new process): what it read is known, and the database
    # keeps the first write of a seq even for a store that never read it.
    resumed = backend.open()
    assert [e["seq"] for e in resumed.events("r1")] == [1, 2, 3]
    assert not resumed.record_event("r1", 3, {"event": "done"})
    fresh = backend.open()
    fresh.record_event("r1", 1, {"event": "metadata"})
    assert fresh.record_event("r1", 4, {"event": "done"})
    assert [e["event"] for e in fresh.events("r1")] == ["status", "status", "status", "done"]
    resumed.close()
    fresh.close()


def test_trace_keeps_every_kind_in_recording_order(store: RunStore) -> None:
    store.start_run("r1", "t1", "q", "offline")
    for n in range(1, 11):
        store.record_event("r1", 2 * n - 1, {"event": "status", "n": 2 * n - 1})
        store.record_tool("r1", tool_record(n))
        store.record_model_call("r1", "agent", attempt=n, input_tokens=10 * n, output_tokens=n,
                                duration_ms=n, failure_class=FailureClass.TIMEOUT if n == 3 else None)
        store.record_event("r1", 2 * n, {"event": "status", "n": 2 * n})
        store.record_receipt("r1", {"role": "agent", "attempt": n})
        store.record_verdict("r1", "evidence", {"passed": n % 2 == 0, "n": n})
    store.record_tool("r2", tool_record(99))  # another run's trace stays apart
    trace = store.trace("r1")
    assert [ToolRecord.model_validate(r).ready_index for r in trace["tool_records"]] == list(range(1, 11))
    assert [c["attempt"] for c in trace["model_calls"]] == list(range(1, 11))
    assert trace["model_calls"][2] == {"role": "agent", "attempt": 3, "input_tokens": 30,
                                       "output_tokens": 3, "duration_ms": 3, "failure_class": "TIMEOUT"}
    assert [r["attempt"] for r in trace["receipts"]] == list(range(1, 11))
    assert [v["verdict"]["n"] for v in trace["verdicts"]] == list(range(1, 11))
    assert [e["n"] for e in trace["events"]] == list(range(1, 21))
    assert [r["tool_call_id"] for r in store.trace("r2")["tool_records"]] == ["c99"]


def test_reads_see_writes_still_queued(backend: Backend, store: RunStore) -> None:
    store.start_run("r1", "t1", "q", "offline")
    for seq in range(1, 301):
        store.record_event("r1", seq, {"event": "status", "n": seq})
        store.record_receipt("r1", {"n": seq})
    assert len(store.trace("r1")["receipts"]) == 300  # no sleep: the read flushed the queue
    assert [e["n"] for e in store.events("r1")] == list(range(1, 301))
    store.record_event("r1", 301, {"event": "done"})
    assert finish(store, "r1")
    # finish_run wrote the queue first: another reader (another process) sees the whole run.
    other = backend.open()
    assert other.events("r1")[-1] == {"event": "done"}
    assert backend.sql("SELECT COUNT(*) FROM events WHERE run_id = 'r1'") == [(301,)]
    other.close()


# --- values ----------------------------------------------------------------------------------


def test_usage_is_persisted_and_huge_or_odd_values_are_clamped(store: RunStore) -> None:
    store.start_run("r1", "t1", "q", "offline")
    store.start_run("r2", "t1", "q", "offline")
    assert finish(store, "r1", usage=BudgetUsage(model_calls=3, tool_calls=2, input_tokens=1234,
                                                 output_tokens=56, bytes=7890))
    odd = BudgetUsage.model_construct(model_calls=2**63, tool_calls=True, input_tokens=10**30,
                                      output_tokens=-5, bytes=float("nan"))
    assert finish(store, "r2", usage=odd)
    store.record_model_call("r2", "agent", attempt=True, input_tokens=2**64, output_tokens=-1,
                            duration_ms=float("inf"), failure_class=None)
    assert store.get_run("r1")["usage"] == {"model_calls": 3, "tool_calls": 2, "input_tokens": 1234,
                                            "output_tokens": 56, "bytes": 7890}
    assert store.get_run("r2")["usage"] == {"model_calls": MAX_COUNT, "tool_calls": 0,
                                            "input_tokens": MAX_COUNT, "output_tokens": 0, "bytes": 0}
    call = store.trace("r2")["model_calls"][0]
    # Token counts of a call are validated exactly as the budget validates them (one rule).
    assert (call["attempt"], call["input_tokens"], call["output_tokens"], call["duration_ms"]) == (
        0, MAX_USAGE_COUNT, 0, MAX_COUNT)


def test_odd_text_is_stored_not_an_unclassified_error(store: RunStore) -> None:
    question = "why\udcff is it slow\x00?"  # a surrogate-escaped byte and a NUL
    assert store.start_run("r1", "t1", question, "offline")
    store.record_event("r1", 1, {"event": "status", "message": "bad \udcff byte"})
    assert finish(store, "r1", content="report \ud800 with\x00nul")
    row = store.get_run("r1")
    assert row["question"].startswith("why") and row["question"].endswith("?")
    assert row["content"].startswith("report") and row["release_outcome"] == "SUCCESS"
    assert store.events("r1")[0]["message"].startswith("bad ")
    with pytest.raises(RunPersistenceError, match="JSON"):
        store.record_receipt("r1", {"x": float("nan")})


# --- schema ----------------------------------------------------------------------------------


def test_migrates_an_empty_database_and_reopens_at_the_current_version(backend: Backend) -> None:
    first = backend.open()
    assert backend.sql("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    first.start_run("r1", "t1", "q", "offline")
    first.record_event("r1", 1, {"event": "metadata"})
    first.close()
    again = backend.open()
    assert backend.sql("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    assert again.get_run("r1")["question"] == "q"
    assert again.events("r1") == [{"event": "metadata"}]
    assert finish(again, "r1")
    again.close()


def test_a_newer_schema_version_is_refused(backend: Backend) -> None:
    backend.open().close()
    newer = SCHEMA_VERSION + 1
    backend.sql(f"INSERT INTO schema_version (version, applied_at) VALUES ({newer}, 'later')")
    with pytest.raises(RunPersistenceError, match=f"schema version is {newer}, newer than"):
        backend.open()


def test_a_store_made_before_versioning_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with sqlite3.connect(path) as conn:  # the unversioned schema of earlier harness releases
        conn.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, "
                     "thread_seq INTEGER NOT NULL, question TEXT NOT NULL, model_spec TEXT NOT NULL, "
                     "started_at TEXT NOT NULL, finished_at TEXT, status TEXT, run_state TEXT, "
                     "release_outcome TEXT, fallback_type TEXT, failure_code TEXT, stop_reason TEXT, "
                     "intent TEXT, content TEXT, model_calls INTEGER, tool_calls INTEGER, "
                     "input_tokens INTEGER, output_tokens INTEGER, bytes INTEGER)")
        conn.execute("INSERT INTO runs (run_id, thread_id, thread_seq, question, model_spec, started_at) "
                     "VALUES ('old', 't', 1, 'q', 'offline', '2025-01-01T00:00:00+00:00')")
    conn.close()
    store = open_run_store(path)
    assert store.get_run("old")["question"] == "q"
    assert finish(store, "old")
    store.start_run("new", "t", "q2", "offline")
    assert [r["run_id"] for r in store.runs_for_thread("t")] == ["old", "new"]
    store.close()


# --- locks and outages -----------------------------------------------------------------------


def _hold_write_lock(backend: Backend, release: threading.Event) -> threading.Event:
    """Another connection takes the write lock of the runs table until ``release`` is set."""
    held = threading.Event()

    def hold() -> None:
        engine = create_engine(backend.target if "://" in backend.target else f"sqlite:///{backend.target}")
        with engine.connect() as conn:
            if backend.name == "sqlite":
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.exec_driver_sql("LOCK TABLE runs IN EXCLUSIVE MODE")
            held.set()
            release.wait(30)
            conn.rollback()
        engine.dispose()

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(10)
    return held


def test_finish_waits_out_a_passing_lock_and_fails_classified_on_a_stuck_one(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnosis_harness.runstore.db, "LOCK_WAIT_S", 0.2)  # the home's one lock-wait policy
    store = backend.open(retry_s=1.5)
    store.start_run("r1", "t1", "q", "offline")
    store.start_run("r2", "t1", "q", "offline")
    release = threading.Event()
    _hold_write_lock(backend, release)
    threading.Timer(0.6, release.set).start()
    assert finish(store, "r1")  # retried past the lock wait until the lock went away
    stuck = threading.Event()
    _hold_write_lock(backend, stuck)
    began = time.monotonic()
    with pytest.raises(RunPersistenceError, match="finish run r2") as caught:
        finish(store, "r2")
    elapsed = time.monotonic() - began
    stuck.set()
    assert caught.value.transient and 1.0 < elapsed < 4.0
    assert finish(store, "r2")  # the lock is gone: the same finish now writes
    store.close()


WORKER = textwrap.dedent("""
    import sys
    from diagnosis_harness.control.budget import MAX_USAGE_COUNT, BudgetUsage
    from diagnosis_harness.control.contracts import ReleaseOutcome, RunState, StoredRunStatus, ToolRecord
    from diagnosis_harness.control.contracts import InvocationStatus, EvidenceStatus
    from diagnosis_harness.runstore.store import RunStore

    home, worker = sys.argv[1], sys.argv[2]
    store = RunStore(home + "/runs.sqlite")
    for n in range(10):
        rid = f"w{worker}-{n}"
        store.start_run(rid, f"thread-{worker}", "q", "offline")
        for seq in range(1, 21):
            store.record_event(rid, seq, {"event": "status", "n": seq})
        for i in range(5):
            store.record_tool(rid, ToolRecord(tool_call_id=f"c{i}", tool="query_logs", args={},
                scope={}, invocation_status=InvocationStatus.READY,
                evidence_status=EvidenceStatus.NO_EVIDENCE, ready_index=i + 1))
            store.record_model_call(rid, "agent", attempt=1, input_tokens=i, output_tokens=1,
                duration_ms=1, failure_class=None)
        assert store.finish_run(rid, status=StoredRunStatus.SUCCESS, run_state=RunState.SUCCESS,
            release_outcome=ReleaseOutcome.SUCCESS, fallback_type=None, failure_code=None,
            stop_reason=None, intent=None, content="ok", usage=BudgetUsage(model_calls=5))
        store.record_event(rid, 21, {"event": "done"})
""")


def test_four_processes_on_one_sqlite_home_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(home), str(w)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err and "Traceback" not in err
    store = open_run_store(home / "runs.sqlite")
    for w in range(4):
        rows = store.runs_for_thread(f"thread-{w}")
        assert [r["run_id"] for r in rows] == [f"w{w}-{n}" for n in range(10)]
        assert all(r["release_outcome"] == "SUCCESS" for r in rows)
        for r in rows:
            trace = store.trace(r["run_id"])
            assert [e.get("n") for e in trace["events"]] == [*range(1, 21), None]  # `done` at exit
            assert len(trace["tool_records"]) == 5 and len(trace["model_calls"]) == 5
    store.close()


def test_postgres_down_mid_run_is_a_classified_error_and_the_next_run_works(
        pg_server: Callable, pg_url: str) -> None:
    store = open_run_store(pg_url, retry_s=1.5)
    store.start_run("r1", "t1", "q", "offline")
    store.record_event("r1", 1, {"event": "metadata"})
    assert store.events("r1") == [{"event": "metadata"}]
    pg_server.stop()
    try:
        store.record_event("r1", 2, {"event": "status"})  # queued: the event loop never waits
        store.record_tool("r1", tool_record(1))
        began = time.monotonic()
        with pytest.raises(RunPersistenceError, match="finish run r1"):
            finish(store, "r1")
        assert time.monotonic() - began < 10  # the bounded wait, not a hang
        with pytest.raises(RunPersistenceError):
            store.get_run("r1")
    finally:
        pg_server.start()
    assert store.start_run("r2", "t1", "q", "offline")
    store.record_event("r2", 1, {"event": "metadata"})
    store.record_tool("r2", tool_record(1))
    assert finish(store, "r2")
    assert store.events("r2") == [{"event": "metadata"}]
    assert len(store.trace("r2")["tool_records"]) == 1
    assert [r["run_id"] for r in store.runs_for_thread("t1")] == ["r1", "r2"]
    store.close()
