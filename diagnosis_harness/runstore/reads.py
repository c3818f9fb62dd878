"""What the run store reads back: run rows, a run's stored tool records and its whole trace.

A part of the one :class:`~diagnosis_harness.runstore.sql.RunStore` class (split by concern, like
:mod:`~diagnosis_harness.runstore.lineage` and :mod:`~diagnosis_harness.runstore.history`).
Every reader first writes what is queued (``_read``), so a caller always reads its own writes.
The events reader stays with the store: it also tells the event writer which seqs exist.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import RowMapping, Table, Text, bindparam, select

from diagnosis_harness.runstore.db import Driver, Prepared
from diagnosis_harness.runstore.part import StorePart
from diagnosis_harness.runstore.schema import (
    LEASE_KEYS,
    USAGE_KEYS,
    model_calls,
    receipts,
    runs,
    tool_records,
    verdicts,
)
from diagnosis_harness.runstore.schema import events as events_table


def _run_row(row: RowMapping) -> dict[str, Any]:
    out = {key: row[key] for key in _RUN_COLUMNS if key not in USAGE_KEYS}
    out["usage"] = {key: row[key] for key in USAGE_KEYS} if row["finished_at"] is not None else None
    return out


_RUN_COLUMNS = [c.name for c in runs.columns if c.name != "thread_seq" and c.name not in LEASE_KEYS]


def _in_order(table: Table, *columns: str) -> Prepared:
    """A run's rows of one trace table, in recording order (``:key`` is the run)."""
    return Prepared(select(*(table.c[c] for c in columns))
                    .where(table.c.run_id == bindparam("key", type_=Text)).order_by(table.c.seq))


_MODEL_CALL_COLUMNS = ("role", "attempt", "input_tokens", "output_tokens", "duration_ms",
                       "failure_class")
_TRACE = {
    "tool_records": _in_order(tool_records, "record"),
    "model_calls": _in_order(model_calls, *_MODEL_CALL_COLUMNS),
    "receipts": _in_order(receipts, "receipt"),
    "verdicts": _in_order(verdicts, "guard", "verdict"),
    "events": _in_order(events_table, "event"),
}


class RunReads(StorePart):
    """Run rows, tool records and traces: a part of RunStore, not a store of its own."""

    def tool_record(self, run_id: str, tool_call_id: str) -> dict[str, Any] | None:
        """The run's stored record of tool call ``tool_call_id`` (its latest), or None.

        ``{"record": <ToolRecord as JSON>, "observation": <what the model was shown> | None}``;
        the observation is None for a record stored before migration 2.
        """
        stmt = (select(tool_records.c.record, tool_records.c.observation)
                .where(tool_records.c.run_id == self._text(run_id),
                       tool_records.c.tool_call_id == self._text(tool_call_id))
                .order_by(tool_records.c.seq.desc()).limit(1))
        row = self._read(lambda conn: conn.execute(stmt).first(),
                         f"read tool call {tool_call_id} of run {run_id}")
        if row is None:
            return None
        return {"record": json.loads(row.record),
                "observation": json.loads(row.observation) if row.observation else None}


    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The run row; ``usage`` is None until the run is finished."""
        stmt = select(*(runs.c[key] for key in _RUN_COLUMNS)).where(runs.c.run_id == self._text(run_id))
        row = self._read(lambda conn: conn.execute(stmt).mappings().first(), f"read run {run_id}")
        return None if row is None else _run_row(row)

    def run_ids_starting(self, prefix: str, limit: int = 10) -> list[str]:
        """Up to ``limit`` run ids that start with ``prefix`` (letters, digits and ``-`` only)."""
        if not prefix or not all(c.isalnum() or c == "-" for c in prefix):
            return []
        stmt = (select(runs.c.run_id).where(runs.c.run_id.startswith(self._text(prefix)))
                .order_by(runs.c.run_id).limit(max(1, limit)))
        return self._read(lambda conn: [row[0] for row in conn.execute(stmt)],
                          f"find runs starting {prefix}")

    def trace(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        """Everything recorded for the run, per kind, each in recording order.

        Keys: ``tool_records`` (the stored records), ``model_calls``, ``receipts``,
        ``verdicts`` (``{"guard", "verdict"}``) and ``events``.
        """
        key = self._text(run_id)

        def read(driver: Driver) -> dict[str, list[dict[str, Any]]]:
            rows = {kind: driver.rows(stmt, {"key": key}) for kind, stmt in _TRACE.items()}
            return {
                "tool_records": [json.loads(record) for record, in rows["tool_records"]],
                "model_calls": [dict(zip(_MODEL_CALL_COLUMNS, row, strict=True))
                                for row in rows["model_calls"]],
                "receipts": [json.loads(receipt) for receipt, in rows["receipts"]],
                "verdicts": [{"guard": guard, "verdict": json.loads(verdict)}
                             for guard, verdict in rows["verdicts"]],
                "events": [json.loads(event) for event, in rows["events"]],
            }

        return self._read_driver(read, f"read the trace of run {run_id}")

    def tool_records(self, run_id: str) -> list[dict[str, Any]]:
        """The run's stored tool records, in recording order (what ``trace`` has, alone)."""
        key = self._text(run_id)
        rows = self._read_driver(lambda driver: driver.rows(_TRACE["tool_records"], {"key": key}),
                                 f"read the tool records of run {run_id}")
        return [json.loads(record) for record, in rows]

    def runs_for_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's run rows, oldest first."""
        stmt = (select(*(runs.c[key] for key in _RUN_COLUMNS))
                .where(runs.c.thread_id == self._text(thread_id)).order_by(runs.c.thread_seq))
        rows = self._read(lambda conn: list(conn.execute(stmt).mappings()),
                          f"read runs of thread {thread_id}")
        return [_run_row(row) for row in rows]
