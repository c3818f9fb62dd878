"""The run store's writer lets the rows of one step share a transaction, and never delays a flush.

A commit per row cost every run step about a millisecond of CPU; the writer now lingers a moment
after a batch's first row. The linger is stretched here to make the timing plain.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import diagnosis_harness.runstore.writer
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from diagnosis_harness.runstore.store import RunStore


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    write = diagnosis_harness.runstore.writer.BatchWriter._write

    def counted(self: object, batch: list[object]) -> None:
        sizes.append(len(batch))
        write(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(diagnosis_harness.runstore.writer.BatchWriter, "_write", counted)
    monkeypatch.setattr(diagnosis_harness.runstore.writer, "LINGER_S", 0.5)
    return sizes


def _record(call_id: str) -> ToolRecord:
    return ToolRecord(tool_call_id=call_id, tool="query_logs", args={}, scope={},
                      invocation_status=InvocationStatus.READY,
                      evidence_status=EvidenceStatus.NO_EVIDENCE)


def test_rows_that_come_close_together_share_one_transaction(tmp_path: Path,
                                                             batches: list[int]) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.start_run("r1", "t", "q", "m")
    store.record_event("r1", 0, {"event": "status", "phase": "investigating"})
    threading.Event().wait(0.05)  # the model answers
    store.record_model_call("r1", "agent", attempt=1, input_tokens=1, output_tokens=1,
                            duration_ms=50, failure_class=None)
    store.record_event("r1", 1, {"event": "status", "phase": "collecting evidence"})
    writer = store._writer
    deadline = time.monotonic() + 10
    while writer._settled < 3 and time.monotonic() < deadline:  # no flush: the writer's own pace
        threading.Event().wait(0.01)
    assert batches == [3]
    assert [e["phase"] for e in store.events("r1")] == ["investigating", "collecting evidence"]


def test_a_flush_does_not_wait_for_the_linger(tmp_path: Path, batches: list[int]) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.start_run("r1", "t", "q", "m")
    store.record_event("r1", 0, {"event": "status", "phase": "collecting evidence"})
    began = time.monotonic()
    store.record_tool("r1", _record("c1"))  # written before it returns: the state may name it
    assert time.monotonic() - began < 0.4
    assert sum(batches) == 2 and len(batches) <= 2
    other = RunStore(tmp_path / "runs.sqlite")  # another connection sees it
    try:
        assert [r["tool_call_id"] for r in other.tool_records("r1")] == ["c1"]
    finally:
        other.close()
