"""Benchmark the run store's writes for a run's worth of work on SQLite (not a test).

One run = 1 start, 30 events, 10 tool records, 10 model calls, 4 receipts, 4 verdicts, finish
(60 writes, interleaved as a run makes them). Two ways, same SQL and the same file settings
(WAL, synchronous=NORMAL):

- before: a connection opened, written, committed and closed per write (the store until the
  SQLAlchemy rewrite);
- after: :class:`diagnosis_harness.runstore.store.RunStore` (one kept connection, events and
  trace queued for one writer thread, ``finish_run`` writes the queue first).

Prints, per way: the caller's time per write call (p50/p95/max, ms), the time of ``finish_run``
(which includes the flush), and the whole run's wall time per write (total / writes).

    .venv/bin/python scripts/bench_runstore.py [--runs 40] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
    EvidenceStatus,
    InvocationStatus,
    ReleaseOutcome,
    RunState,
    StoredRunStatus,
    ToolRecord,
)
from diagnosis_harness.runstore.store import RunStore

RECORD = ToolRecord(tool_call_id="c1", tool="query_logs", args={"service": "checkout"},
                    scope={"service": "checkout"}, invocation_status=InvocationStatus.READY,
                    evidence_status=EvidenceStatus.NO_EVIDENCE, ready_index=1)


class PerWriteConnection:
    """The old way: every write opens, commits and closes its own connection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._tx() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
        store = RunStore(path)  # same schema, made by the store
        store.close()

    def _tx(self) -> Any:
        class Tx:
            def __enter__(tx) -> sqlite3.Connection:  # noqa: N805
                tx.conn = closing(sqlite3.connect(self.path, timeout=15)).__enter__()
                tx.conn.execute("PRAGMA synchronous=NORMAL")
                return tx.conn

            def __exit__(tx, *exc: object) -> None:  # noqa: N805
                if exc[0] is None:
                    tx.conn.commit()
                tx.conn.close()

        return Tx()

    def _append(self, table: str, run_id: str, values: dict[str, Any]) -> None:
        names, marks = ", ".join(values), ", ".join("?" for _ in values)
        with self._tx() as conn:
            conn.execute(f"INSERT INTO {table} (run_id, seq, {names}, recorded_at) SELECT ?, "
                         f"COALESCE(MAX(seq), 0) + 1, {marks}, 'now' FROM {table} WHERE run_id = ?",
                         (run_id, *values.values(), run_id))

    def start_run(self, run_id: str, thread_id: str, question: str, model_spec: str) -> bool:
        with self._tx() as conn:
            conn.execute("INSERT INTO runs (run_id, thread_id, thread_seq, question, model_spec, "
                         "started_at) SELECT ?, ?, COALESCE(MAX(thread_seq), 0) + 1, ?, ?, 'now' "
                         "FROM runs WHERE thread_id = ? ON CONFLICT (run_id) DO NOTHING",
                         (run_id, thread_id, question, model_spec, thread_id))
        return True

    def record_event(self, run_id: str, seq: int, event: dict[str, Any]) -> bool:
        with self._tx() as conn:
            conn.execute("INSERT INTO events VALUES (?, ?, ?, 'now') ON CONFLICT DO NOTHING",
                         (run_id, seq, json.dumps(event)))
        return True

    def record_tool(self, run_id: str, record: ToolRecord) -> None:
        self._append("tool_records", run_id, {
            "tool_call_id": record.tool_call_id, "tool": record.tool, "invocation_status": "READY",
            "evidence_status": "NO_EVIDENCE", "record": json.dumps(record.model_dump(mode="json"))})

    def record_model_call(self, run_id: str, role: str, **kw: Any) -> None:
        self._append("model_calls", run_id, {"role": role, **kw})

    def record_receipt(self, run_id: str, receipt: dict[str, Any]) -> None:
        self._append("receipts", run_id, {"receipt": json.dumps(receipt)})

    def record_verdict(self, run_id: str, guard: str, verdict: dict[str, Any]) -> None:
        self._append("verdicts", run_id, {"guard": guard, "verdict": json.dumps(verdict)})

    def finish_run(self, run_id: str, **kw: Any) -> bool:
        with self._tx() as conn:
            conn.execute("UPDATE runs SET finished_at = 'now', status = 'SUCCESS', content = ? "
                         "WHERE run_id = ? AND finished_at IS NULL", (kw["content"], run_id))
        return True


def one_run(store: Any, run_id: str, calls: list[float]) -> float:
    """Make one run's writes; append each call's ms to ``calls``; return finish_run's ms."""
    def timed(fn: Callable[..., Any], *args: Any, **kw: Any) -> None:
        began = time.perf_counter()
        fn(*args, **kw)
        calls.append((time.perf_counter() - began) * 1000)

    timed(store.start_run, run_id, "thread", "why is checkout slow?", "offline")
    seq = 0
    for step in range(10):
        for _ in range(3):
            seq += 1
            timed(store.record_event, run_id, seq, {"event": "status", "message": f"step {step}"})
        timed(store.record_model_call, run_id, "agent", attempt=1, input_tokens=900,
              output_tokens=60, duration_ms=400, failure_class=None)
        timed(store.record_tool, run_id, RECORD)
        if step % 3 == 0:
            timed(store.record_receipt, run_id, {"role": "agent", "attempt": 1, "failure": None})
    for guard in ("evidence", "semantic", "evidence", "semantic"):
        timed(store.record_verdict, run_id, guard, {"passed": True, "problems": []})
    began = time.perf_counter()
    store.finish_run(run_id, status=StoredRunStatus.SUCCESS, run_state=RunState.SUCCESS,
                     release_outcome=ReleaseOutcome.SUCCESS, fallback_type=None, failure_code=None,
                     stop_reason=None, intent=None, content="report", usage=BudgetUsage())
    finish_ms = (time.perf_counter() - began) * 1000
    calls.append(finish_ms)
    return finish_ms


def bench(name: str, store: Any, runs: int) -> dict[str, float]:
    calls: list[float] = []
    finishes: list[float] = []
    began = time.perf_counter()
    for n in range(runs):
        finishes.append(one_run(store, f"{name}-{n}", calls))
    total_ms = (time.perf_counter() - began) * 1000
    q = statistics.quantiles(calls, n=20)
    return {"writes": len(calls) / runs, "p50": statistics.median(calls), "p95": q[18],
            "max": max(calls), "finish_p50": statistics.median(finishes),
            "run_ms": total_ms / runs, "per_write": total_ms / len(calls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--dir", type=Path, default=None, help="where the SQLite files go")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        before = PerWriteConnection(Path(tmp) / "before.sqlite")
        after = RunStore(Path(tmp) / "after.sqlite")
        bench("warm-b", before, 2)
        bench("warm-a", after, 2)
        results = {"before": bench("before", before, args.runs), "after": bench("after", after, args.runs)}
        after.close()
    print(f"run store writes on SQLite, {args.runs} runs of {results['after']['writes']:.0f} writes")
    print(f"{'':8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'finish':>8} {'run ms':>8} {'ms/write':>9}")
    for name, r in results.items():
        print(f"{name:8} {r['p50']:8.3f} {r['p95']:8.3f} {r['max']:8.2f} {r['finish_p50']:8.2f} "
              f"{r['run_ms']:8.1f} {r['per_write']:9.3f}")
    b, a = results["before"], results["after"]
    print(f"after/before: p50 {a['p50'] / b['p50']:.3f}x, p95 {a['p95'] / b['p95']:.3f}x, "
          f"whole run {a['run_ms'] / b['run_ms']:.3f}x")


if __name__ == "__main__":
    main()
