import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing

import pytest

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
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
from diagnosis_harness.runstore.store import RunPersistenceError, RunStore


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "nested" / "runs.sqlite")


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


def test_a_run_is_one_row_however_often_it_is_started_or_finished(store):
    for question in ("why?", "again?", "and again?"):
        store.start_run("r1", "t1", question, "offline")
    assert finish(store, "r1", ReleaseOutcome.SUCCESS)
    assert not finish(store, "r1", ReleaseOutcome.FAILED, content=None)
    with closing(sqlite3.connect(store.path)) as conn:
        assert conn.execute("SELECT count(*) FROM runs WHERE run_id = 'r1'").fetchone() == (1,)
    [row] = store.runs_for_thread("t1")
    assert (row["run_id"], row["question"], row["release_outcome"]) == ("r1", "why?", "SUCCESS")


def test_what_one_process_wrote_another_reads_back_whole(tmp_path):
    # The CLI, the dev server and a later `harness` run each open the file on their own.
    path = tmp_path / "runs.sqlite"
    writer = RunStore(path)
    writer.start_run("done", "t1", "q1", "openai:m")
    writer.record_event("done", 1, {"event": "metadata", "run_id": "done"})
    writer.record_event("done", 2, {"event": "done", "release_outcome": "FALLBACK"})
    assert finish(writer, "done", calls=7)
    writer.start_run("crashed", "t1", "q2", "openai:m")  # its process died before release

    reader = RunStore(path)
    done, crashed = reader.runs_for_thread("t1")
    assert done["usage"] == {"model_calls": 7, "tool_calls": 2, "input_tokens": 30,
                             "output_tokens": 4, "bytes": 99}
    assert (done["status"], done["stop_reason"], done["model_spec"]) == (
        "SUCCESS", "INFORMATION_SATURATED", "openai:m")
    assert [e["event"] for e in reader.events("done")] == ["metadata", "done"]
    # An unfinished run is visibly unfinished: no terminal fields, no usage, no finish time.
    assert crashed["run_id"] == "crashed" and crashed["finished_at"] is None
    assert (crashed["status"], crashed["release_outcome"], crashed["usage"]) == (None, None, None)


_FINISH_IN_A_PROCESS = """
import sys, time
from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import ReleaseOutcome, RunState, StoredRunStatus
from diagnosis_harness.runstore.store import RunStore

path, who, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3])
store = RunStore(path)
time.sleep(max(0.0, start_at - time.time()))  # all processes finish at the same moment
print(store.finish_run(
    "r1", status=StoredRunStatus.FAILED, run_state=RunState.FAILED,
    release_outcome=ReleaseOutcome.FAILED, fallback_type=None, failure_code=None,
    stop_reason=None, intent=None, content=who, usage=BudgetUsage(model_calls=int(who))))
"""


def test_first_finish_wins_across_processes(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore(path).start_run("r1", "t1", "q", "offline")
    start_at = time.time() + 2.0  # about when every interpreter has started and imported
    procs = [subprocess.Popen([sys.executable, "-c", _FINISH_IN_A_PROCESS, str(path), str(i),
                               str(start_at)], stdout=subprocess.PIPE, text=True)
             for i in range(4)]
    said = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(said) == ["False", "False", "False", "True"]
    row = RunStore(path).get_run("r1")
    assert row["content"] == str(said.index("True"))
    assert row["usage"]["model_calls"] == said.index("True")


def test_trace_order_is_the_order_of_recording_across_threads(tmp_path):
    # Nodes write from whichever worker thread runs them (asyncio.to_thread), through the one
    # store of the process; the trace is still one sequence in the order of recording.
    store = RunStore(tmp_path / "runs.sqlite")
    store.start_run("r1", "t1", "q", "offline")

    def record(n: int) -> None:
        store.record_model_call("r1", "agent", attempt=n, input_tokens=n, output_tokens=0,
                                duration_ms=1, failure_class=None)
        store.record_receipt("r1", {"n": n})

    for n in range(1, 6):
        worker = threading.Thread(target=record, args=(n,))
        worker.start()
        worker.join()
    trace = store.trace("r1")
    assert [c["attempt"] for c in trace["model_calls"]] == [1, 2, 3, 4, 5]
    assert trace["receipts"] == [{"n": n} for n in range(1, 6)]


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
    RunStore(path).start_run("r1", "t1", "q", "offline")
    again = RunStore(path)
    assert again.get_run("r1")["question"] == "q"
    assert finish(again, "r1")


def test_directory_path_raises_persistence_error(tmp_path):
    with pytest.raises(RunPersistenceError, match="open the run store"):
        RunStore(tmp_path)


def test_write_failure_after_open_raises_persistence_error(tmp_path):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
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
