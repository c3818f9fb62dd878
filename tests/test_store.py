import shutil
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.budget import BudgetUsage
from harness.contracts import (
    EvidenceStatus,
    Fact,
    FailureClass,
    FailureCode,
    FallbackType,
    Intent,
    InvocationStatus,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)
from harness.runstore import RunPersistenceError, RunStore, SqliteRunStore


@pytest.fixture
def store(tmp_path):
    return SqliteRunStore(tmp_path / "nested" / "runs.sqlite")


def finish(store, run_id, outcome=ReleaseOutcome.FALLBACK, *, content="report", calls=1):
    return store.finish_run(
        run_id,
        status=StoredRunStatus.from_outcome(outcome),
        run_state=RunState.SUCCESS,
        release_outcome=outcome,
        fallback_type=FallbackType.INSUFFICIENT_EVIDENCE if outcome is ReleaseOutcome.FALLBACK else None,
        failure_code=FailureCode.INTERNAL_FAILURE if outcome is ReleaseOutcome.FAILED else None,
        stop_reason=StopReason.INFORMATION_SATURATED,
        intent=Intent.DIAGNOSIS,
        content=content,
        usage=BudgetUsage(model_calls=calls, tool_calls=2, input_tokens=30, output_tokens=4, bytes=99),
    )


def test_is_a_run_store(store):
    assert isinstance(store, RunStore)


def test_run_row_round_trip(store):
    assert store.start_run("r1", "t1", "why?", "offline")
    assert store.get_run("r1")["usage"] is None
    assert finish(store, "r1")
    row = store.get_run("r1")
    assert row["thread_id"] == "t1" and row["question"] == "why?" and row["model_spec"] == "offline"
    assert (row["status"], row["release_outcome"], row["fallback_type"]) == (
        "SUCCESS",
        "FALLBACK",
        "INSUFFICIENT_EVIDENCE",
    )
    assert (row["run_state"], row["stop_reason"], row["intent"], row["failure_code"]) == (
        "SUCCESS",
        "INFORMATION_SATURATED",
        "DIAGNOSIS",
        None,
    )
    assert row["content"] == "report"
    assert row["usage"] == {
        "model_calls": 1,
        "tool_calls": 2,
        "input_tokens": 30,
        "output_tokens": 4,
        "bytes": 99,
    }
    assert row["finished_at"] is not None
    assert store.get_run("missing") is None


def test_second_start_changes_nothing(store):
    assert store.start_run("r1", "t1", "first", "offline")
    assert not store.start_run("r1", "t2", "second", "openai:x")
    assert store.get_run("r1")["question"] == "first"


def test_first_finish_wins(store):
    store.start_run("r1", "t1", "q", "offline")
    assert finish(store, "r1", ReleaseOutcome.SUCCESS, content="first")
    assert not finish(store, "r1", ReleaseOutcome.FAILED, content=None)
    row = store.get_run("r1")
    assert (row["release_outcome"], row["status"], row["content"]) == ("SUCCESS", "SUCCESS", "first")


def test_concurrent_finishes_write_exactly_one_row(store):
    store.start_run("r1", "t1", "q", "offline")
    barrier = threading.Barrier(20)

    def attempt(i):
        barrier.wait()
        return finish(store, "r1", content=f"from {i}", calls=i)

    with ThreadPoolExecutor(20) as pool:
        wrote = list(pool.map(attempt, range(20)))
    assert wrote.count(True) == 1
    winner = wrote.index(True)
    row = store.get_run("r1")
    assert row["content"] == f"from {winner}" and row["usage"]["model_calls"] == winner
    assert [r["run_id"] for r in store.runs_for_thread("t1")] == ["r1"]


def test_concurrent_runs_do_not_interfere(store):
    def run(i):
        rid = f"r{i}"
        store.start_run(rid, "t", "q", "offline")
        for seq in range(1, 6):
            store.record_event(rid, seq, {"event": "status", "n": seq})
        store.record_model_call(
            rid, "agent", attempt=1, input_tokens=i, output_tokens=1, duration_ms=5, failure_class=None
        )
        return finish(store, rid)

    with ThreadPoolExecutor(16) as pool:
        assert all(pool.map(run, range(16)))
    assert len(store.runs_for_thread("t")) == 16
    for i in range(16):
        assert [e["n"] for e in store.events(f"r{i}")] == [1, 2, 3, 4, 5]
        assert store.trace(f"r{i}")["model_calls"][0]["input_tokens"] == i


def test_finishing_a_run_never_started_is_an_error(store):
    with pytest.raises(RunPersistenceError, match="never started"):
        finish(store, "ghost")


def test_events_in_seq_order_and_first_write_of_a_seq_wins(store):
    store.start_run("r1", "t1", "q", "offline")
    for seq in (3, 1, 2):
        assert store.record_event("r1", seq, {"event": "status", "seq": seq})
    assert not store.record_event("r1", 2, {"event": "content", "seq": 2})
    assert store.events("r1") == [{"event": "status", "seq": s} for s in (1, 2, 3)]
    assert store.events("other") == []


def test_trace_keeps_every_kind_in_recording_order(store):
    store.start_run("r1", "t1", "q", "offline")
    rec = ToolRecord(
        tool_call_id="c1",
        tool="query_logs",
        args={"service": "p"},
        scope={"service": "p"},
        invocation_status=InvocationStatus.READY,
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        ready_index=1,
        facts=[Fact(evidence_id="E1.1", kind="log", text="boom", data={"n": 1})],
    )
    store.record_tool("r1", rec)
    store.record_model_call(
        "r1",
        "router",
        attempt=1,
        input_tokens=10,
        output_tokens=2,
        duration_ms=12,
        failure_class=FailureClass.TIMEOUT,
    )
    store.record_model_call(
        "r1", "router", attempt=2, input_tokens=11, output_tokens=3, duration_ms=8, failure_class=None
    )
    store.record_receipt("r1", {"role": "router", "attempt": 1, "failure": "TIMEOUT"})
    store.record_verdict("r1", "evidence", {"passed": True, "problems": []})
    store.record_event("r1", 1, {"event": "metadata"})
    store.record_tool("r2", rec)  # another run's trace stays apart

    trace = store.trace("r1")
    assert [ToolRecord.model_validate(r) for r in trace["tool_records"]] == [rec]
    assert [(c["attempt"], c["failure_class"], c["input_tokens"]) for c in trace["model_calls"]] == [
        (1, "TIMEOUT", 10),
        (2, None, 11),
    ]
    assert trace["receipts"] == [{"role": "router", "attempt": 1, "failure": "TIMEOUT"}]
    assert trace["verdicts"] == [{"guard": "evidence", "verdict": {"passed": True, "problems": []}}]
    assert trace["events"] == [{"event": "metadata"}]


def test_runs_for_thread_oldest_first(store):
    for rid in ("b", "a", "c"):
        store.start_run(rid, "t1", "q", "offline")
    store.start_run("x", "t2", "q", "offline")
    assert [r["run_id"] for r in store.runs_for_thread("t1")] == ["b", "a", "c"]


def test_reopening_keeps_data_and_schema_is_idempotent(tmp_path):
    path = tmp_path / "runs.sqlite"
    SqliteRunStore(path).start_run("r1", "t1", "q", "offline")
    again = SqliteRunStore(path)
    assert again.get_run("r1")["question"] == "q"
    assert finish(again, "r1")


def test_directory_path_raises_persistence_error(tmp_path):
    with pytest.raises(RunPersistenceError, match="open the run store"):
        SqliteRunStore(tmp_path)


def test_write_failure_after_open_raises_persistence_error(tmp_path):
    path = tmp_path / "runs.sqlite"
    store = SqliteRunStore(path)
    store.start_run("r1", "t1", "q", "offline")
    for leftover in tmp_path.iterdir():
        leftover.unlink()
    path.mkdir()  # the database file is gone and its path is now a directory
    with pytest.raises(RunPersistenceError, match="finish run r1"):
        finish(store, "r1")
    with pytest.raises(RunPersistenceError):
        store.record_event("r1", 1, {"event": "done"})
    shutil.rmtree(path)


def test_unserialisable_payload_raises_persistence_error(store):
    store.start_run("r1", "t1", "q", "offline")
    with pytest.raises(RunPersistenceError, match="JSON"):
        store.record_receipt("r1", {"at": object()})
    with pytest.raises(RunPersistenceError, match="JSON"):
        store.record_event("r1", 1, {"x": float("nan")})
    assert store.trace("r1")["receipts"] == [] and store.events("r1") == []
