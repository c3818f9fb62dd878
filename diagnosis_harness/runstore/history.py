"""What ``harness runs list`` and ``harness runs show`` read: runs newest first, one run's timeline.

A part of the one :class:`~diagnosis_harness.runstore.sql.RunStore` class (split by concern, like
:mod:`diagnosis_harness.runstore.lineage`): the run rows joined with their lineage summary, and
every trace row of one run merged into one timeline in recording order. Readers only.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Table, desc, select

from diagnosis_harness.runstore.lineage import paused
from diagnosis_harness.runstore.part import StorePart
from diagnosis_harness.runstore.schema import (
    events,
    model_calls,
    receipts,
    run_lineage,
    runs,
    tool_records,
    verdicts,
)


class RunHistory(StorePart):
    """Run listing and timelines: a part of RunStore, not a store of its own."""

    def list_runs(self, *, thread_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Run rows newest first (a thread's oldest first), each with its lineage summary."""
        columns = [runs.c.run_id, runs.c.thread_id, runs.c.question, runs.c.model_spec,
                   runs.c.started_at, runs.c.finished_at, runs.c.status, runs.c.release_outcome,
                   runs.c.fallback_type, runs.c.failure_code, runs.c.intent,
                   run_lineage.c.parent_run_id, run_lineage.c.approval_state, run_lineage.c.segments]
        stmt = select(*columns).select_from(
            runs.outerjoin(run_lineage, run_lineage.c.run_id == runs.c.run_id))
        if thread_id is not None:
            stmt = stmt.where(runs.c.thread_id == self._text(thread_id)).order_by(runs.c.thread_seq)
        else:
            stmt = stmt.order_by(desc(runs.c.started_at))
        stmt = stmt.limit(max(1, min(int(limit), 10_000)))
        rows = self._read(lambda conn: list(conn.execute(stmt).mappings()), "list runs")
        out = []
        for row in rows:
            item = dict(row)
            segments = json.loads(item.pop("segments")) if item.get("segments") else []
            item["segments"] = len(segments)
            item["paused"] = item["finished_at"] is None and paused({"segments": segments})
            out.append(item)
        return out

    def timeline(self, run_id: str) -> list[dict[str, Any]]:
        """Everything the store recorded for one run, one entry per row, in recording order.

        Each entry: ``at`` (ISO-8601 UTC), ``kind`` (event, model_call, receipt, tool_record,
        verdict), ``seq`` (the row's number within its kind) and the row's content.
        """
        key = self._text(run_id)
        kinds: list[tuple[str, Table, tuple[str, ...]]] = [
            ("event", events, ("event",)),
            ("model_call", model_calls, ("role", "attempt", "input_tokens", "output_tokens",
                                         "duration_ms", "failure_class")),
            ("receipt", receipts, ("receipt",)),
            ("tool_record", tool_records, ("record",)),
            ("verdict", verdicts, ("guard", "verdict")),
        ]

        def read(conn: Connection) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for order, (kind, table, cols) in enumerate(kinds):
                stmt = (select(table.c.seq, table.c.recorded_at, *(table.c[c] for c in cols))
                        .where(table.c.run_id == key).order_by(table.c.seq))
                for row in conn.execute(stmt).mappings():
                    entry: dict[str, Any] = {"at": row["recorded_at"], "kind": kind, "seq": row["seq"]}
                    for col in cols:
                        value = row[col]
                        entry[col] = json.loads(value) if col in ("event", "receipt", "record",
                                                                  "verdict") else value
                    entry["_order"] = order
                    out.append(entry)
            out.sort(key=lambda e: (e["at"], e["_order"], e["seq"]))
            for entry in out:
                del entry["_order"]
            return out

        return self._read(read, f"read the timeline of run {run_id}")
