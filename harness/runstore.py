"""Run store and trace (DESIGN §9): run rows, tool records, model calls, receipts, verdicts, events.

:class:`RunStore` is the interface nodes use; :class:`SqliteRunStore` is the default backend.
The SQL is kept portable so a PostgreSQL backend can reuse it: ``CREATE TABLE/INDEX IF NOT
EXISTS``, ``INSERT … ON CONFLICT (…) DO NOTHING``, ``COALESCE(MAX(seq), 0) + 1`` instead of
AUTOINCREMENT/SERIAL, TEXT timestamps (ISO-8601 UTC written by Python) and JSON as TEXT. Only
the ``PRAGMA`` statements and the ``?`` parameter style are SQLite's; a PostgreSQL driver
would translate ``?`` to ``%s``.

Every failure of the database (cannot open, cannot write, bad value) raises
:class:`RunPersistenceError`; the release node maps it to ``RUN_PERSISTENCE_FAILED``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.budget import BudgetUsage, usage_count
from harness.contracts import (
    FailureClass,
    FailureCode,
    FallbackType,
    Intent,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)


class RunPersistenceError(Exception):
    """The run store could not read or write; the message says which operation and why."""


@runtime_checkable
class RunStore(Protocol):
    """What the harness needs from a run store; every method is synchronous and thread-safe."""

    def start_run(self, run_id: str, thread_id: str, question: str, model_spec: str) -> bool:
        """Create the run row; a second start of the same run changes nothing (returns False)."""
        ...

    def finish_run(
        self,
        run_id: str,
        *,
        status: StoredRunStatus,
        run_state: RunState,
        release_outcome: ReleaseOutcome,
        fallback_type: FallbackType | None,
        failure_code: FailureCode | None,
        stop_reason: StopReason | None,
        intent: Intent | None,
        content: str | None,
        usage: BudgetUsage,
    ) -> bool:
        """Write the terminal fields once; True if this call wrote them (first terminal wins)."""
        ...

    def record_tool(self, run_id: str, record: ToolRecord) -> None:
        """Append one canonical tool record."""
        ...

    def record_model_call(
        self,
        run_id: str,
        role: str,
        *,
        attempt: int,
        input_tokens: int,
        output_tokens: int,
        duration_ms: int,
        failure_class: FailureClass | None,
    ) -> None:
        """Append one model call's usage and outcome."""
        ...

    def record_receipt(self, run_id: str, receipt: dict[str, Any]) -> None:
        """Append one retry-attempt receipt."""
        ...

    def record_verdict(self, run_id: str, guard: str, verdict: dict[str, Any]) -> None:
        """Append one guard verdict."""
        ...

    def record_event(self, run_id: str, seq: int, event: dict[str, Any]) -> bool:
        """Record the ``seq``-th emitted event; a repeated seq is ignored (returns False)."""
        ...

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The run row, or None."""
        ...

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's events in seq order."""
        ...

    def trace(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        """Everything recorded for the run, per kind, each in recording order."""
        ...

    def runs_for_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's run rows, oldest first."""
        ...


_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        thread_seq INTEGER NOT NULL,
        question TEXT NOT NULL,
        model_spec TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT,
        run_state TEXT,
        release_outcome TEXT,
        fallback_type TEXT,
        failure_code TEXT,
        stop_reason TEXT,
        intent TEXT,
        content TEXT,
        model_calls INTEGER,
        tool_calls INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        bytes INTEGER
    )""",
    "CREATE INDEX IF NOT EXISTS runs_by_thread ON runs (thread_id, thread_seq)",
    # Child rows carry a per-run seq (assigned by the INSERT) for a portable recording order.
    """CREATE TABLE IF NOT EXISTS tool_records (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        invocation_status TEXT NOT NULL,
        evidence_status TEXT NOT NULL,
        record TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS model_calls (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        failure_class TEXT,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS receipts (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        receipt TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS verdicts (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        guard TEXT NOT NULL,
        verdict TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
)

_RUN_COLUMNS = (
    "run_id, thread_id, question, model_spec, started_at, finished_at, status, run_state, "
    "release_outcome, fallback_type, failure_code, stop_reason, intent, content, "
    "model_calls, tool_calls, input_tokens, output_tokens, bytes"
)
_USAGE_KEYS = ("model_calls", "tool_calls", "input_tokens", "output_tokens", "bytes")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _name(value: Enum | str | None) -> str | None:
    if value is None:
        return None
    return value.value if isinstance(value, Enum) else str(value)


def _dumps(value: Any, what: str) -> str:
    try:
        # No default=str: a value that is not plain JSON is a bug to surface, not to stringify.
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RunPersistenceError(f"cannot store {what}: not JSON-serialisable ({exc})") from exc


def _run_row(row: sqlite3.Row) -> dict[str, Any]:
    out = {key: row[key] for key in row.keys() if key not in _USAGE_KEYS}
    out["usage"] = {key: row[key] for key in _USAGE_KEYS} if row["finished_at"] is not None else None
    return out


class SqliteRunStore:
    """The run store on one SQLite file (WAL); safe from several threads and processes.

    Each call opens its own short-lived connection, so no connection is shared between
    threads (e.g. concurrent runs calling through ``asyncio.to_thread``); SQLite's WAL and busy
    timeout serialise the writers. The schema is created on open and re-opening is harmless.
    """

    def __init__(self, path: Path | str, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self._timeout = busy_timeout_s
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunPersistenceError(f"cannot create run store folder {self.path.parent}: {exc}") from exc
        with self._tx("open the run store") as conn:
            # WAL is a property of the file and persists; set once here rather than per call.
            conn.execute("PRAGMA journal_mode=WAL")
            for statement in _SCHEMA:
                conn.execute(statement)

    @contextmanager
    def _tx(self, what: str) -> Iterator[sqlite3.Connection]:
        """One connection and one transaction; commit on success, any DB error → RunPersistenceError."""
        try:
            with closing(sqlite3.connect(self.path, timeout=self._timeout)) as conn:
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA synchronous=NORMAL")
                with conn:
                    yield conn
        except sqlite3.Error as exc:
            raise RunPersistenceError(f"run store at {self.path}: cannot {what}: {exc}") from exc

    def _append(self, table: str, run_id: str, columns: dict[str, Any], what: str) -> None:
        # seq = next number within the run, computed in the INSERT itself so the read and the
        # write are one statement; the (run_id, seq) key turns any race into an error.
        names = ", ".join(columns)
        marks = ", ".join("?" for _ in columns)
        sql = (
            f"INSERT INTO {table} (run_id, seq, {names}, recorded_at) "
            f"SELECT ?, COALESCE(MAX(seq), 0) + 1, {marks}, ? FROM {table} WHERE run_id = ?"
        )
        with self._tx(what) as conn:
            conn.execute(sql, (run_id, *columns.values(), _now(), run_id))

    # --- writers ------------------------------------------------------------------------------

    def start_run(self, run_id: str, thread_id: str, question: str, model_spec: str) -> bool:
        """Create the run row; a second start of the same run changes nothing (returns False)."""
        with self._tx(f"start run {run_id}") as conn:
            # thread_seq orders a thread's turns; timestamps can tie, insertion order cannot.
            cur = conn.execute(
                "INSERT INTO runs (run_id, thread_id, thread_seq, question, model_spec, started_at) "
                "SELECT ?, ?, COALESCE(MAX(thread_seq), 0) + 1, ?, ?, ? FROM runs "
                "WHERE thread_id = ? ON CONFLICT (run_id) DO NOTHING",
                (run_id, thread_id, question, model_spec, _now(), thread_id),
            )
            return cur.rowcount == 1

    def finish_run(
        self,
        run_id: str,
        *,
        status: StoredRunStatus,
        run_state: RunState,
        release_outcome: ReleaseOutcome,
        fallback_type: FallbackType | None,
        failure_code: FailureCode | None,
        stop_reason: StopReason | None,
        intent: Intent | None,
        content: str | None,
        usage: BudgetUsage,
    ) -> bool:
        """Write the terminal fields once; True if this call wrote them (first terminal wins).

        The guard is in the UPDATE itself (``finished_at IS NULL``), so of several concurrent
        finishes exactly one writes. Finishing a run that was never started raises
        RunPersistenceError: a row without thread and question would hide a wiring bug.
        """
        values = (
            _now(),
            _name(status),
            _name(run_state),
            _name(release_outcome),
            _name(fallback_type),
            _name(failure_code),
            _name(stop_reason),
            _name(intent),
            content,
            *(getattr(usage, key) for key in _USAGE_KEYS),
        )
        with self._tx(f"finish run {run_id}") as conn:
            cur = conn.execute(
                "UPDATE runs SET finished_at = ?, status = ?, run_state = ?, release_outcome = ?, "
                "fallback_type = ?, failure_code = ?, stop_reason = ?, intent = ?, content = ?, "
                "model_calls = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?, bytes = ? "
                "WHERE run_id = ? AND finished_at IS NULL",
                (*values, run_id),
            )
            if cur.rowcount == 1:
                return True
            exists = conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if exists is None:
            raise RunPersistenceError(f"cannot finish run {run_id}: it was never started")
        return False

    def record_tool(self, run_id: str, record: ToolRecord) -> None:
        """Append one canonical tool record (stored whole, as JSON)."""
        self._append(
            "tool_records",
            run_id,
            {
                "tool_call_id": record.tool_call_id,
                "tool": record.tool,
                "invocation_status": _name(record.invocation_status),
                "evidence_status": _name(record.evidence_status),
                "record": _dumps(record.model_dump(mode="json"), "tool record"),
            },
            f"record a tool call of run {run_id}",
        )

    def record_model_call(
        self,
        run_id: str,
        role: str,
        *,
        attempt: int,
        input_tokens: int,
        output_tokens: int,
        duration_ms: int,
        failure_class: FailureClass | None,
    ) -> None:
        """Append one model call's usage and outcome (``failure_class`` None when it succeeded)."""
        self._append(
            "model_calls",
            run_id,
            {
                "role": _name(role),
                "attempt": attempt,
                # Validated like the budget's: the trace and the run row always agree.
                "input_tokens": usage_count(input_tokens),
                "output_tokens": usage_count(output_tokens),
                "duration_ms": duration_ms,
                "failure_class": _name(failure_class),
            },
            f"record a model call of run {run_id}",
        )

    def record_receipt(self, run_id: str, receipt: dict[str, Any]) -> None:
        """Append one retry-attempt receipt."""
        self._append(
            "receipts",
            run_id,
            {"receipt": _dumps(receipt, "retry receipt")},
            f"record a retry receipt of run {run_id}",
        )

    def record_verdict(self, run_id: str, guard: str, verdict: dict[str, Any]) -> None:
        """Append one guard verdict (``guard`` names the guard, e.g. ``evidence``)."""
        self._append(
            "verdicts",
            run_id,
            {"guard": guard, "verdict": _dumps(verdict, "guard verdict")},
            f"record a verdict of run {run_id}",
        )

    def record_event(self, run_id: str, seq: int, event: dict[str, Any]) -> bool:
        """Record the ``seq``-th emitted event; a repeated seq is ignored (returns False).

        The first write of a seq wins, like the run row: a re-executed node (resume after a
        crash) must not duplicate or overwrite what the client already received.
        """
        with self._tx(f"record event {seq} of run {run_id}") as conn:
            cur = conn.execute(
                "INSERT INTO events (run_id, seq, event, recorded_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id, seq) DO NOTHING",
                (run_id, seq, _dumps(event, "event"), _now()),
            )
            return cur.rowcount == 1

    # --- readers ------------------------------------------------------------------------------

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The run row; ``usage`` is None until the run is finished."""
        with self._tx(f"read run {run_id}") as conn:
            row = conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else _run_row(row)

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's events in seq order."""
        with self._tx(f"read events of run {run_id}") as conn:
            rows = conn.execute(
                "SELECT event FROM events WHERE run_id = ? ORDER BY seq", (run_id,)
            ).fetchall()
        return [json.loads(row["event"]) for row in rows]

    def trace(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        """Everything recorded for the run, per kind, each in recording order.

        Keys: ``tool_records`` (the stored records), ``model_calls``, ``receipts``,
        ``verdicts`` (``{"guard", "verdict"}``) and ``events``.
        """
        with self._tx(f"read the trace of run {run_id}") as conn:

            def rows(sql: str) -> list[sqlite3.Row]:
                return conn.execute(sql, (run_id,)).fetchall()

            tools = rows("SELECT record FROM tool_records WHERE run_id = ? ORDER BY seq")
            calls = rows(
                "SELECT role, attempt, input_tokens, output_tokens, duration_ms, failure_class "
                "FROM model_calls WHERE run_id = ? ORDER BY seq"
            )
            receipts = rows("SELECT receipt FROM receipts WHERE run_id = ? ORDER BY seq")
            verdicts = rows("SELECT guard, verdict FROM verdicts WHERE run_id = ? ORDER BY seq")
            events = rows("SELECT event FROM events WHERE run_id = ? ORDER BY seq")
        return {
            "tool_records": [json.loads(r["record"]) for r in tools],
            "model_calls": [dict(r) for r in calls],
            "receipts": [json.loads(r["receipt"]) for r in receipts],
            "verdicts": [{"guard": r["guard"], "verdict": json.loads(r["verdict"])} for r in verdicts],
            "events": [json.loads(r["event"]) for r in events],
        }

    def runs_for_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's run rows, oldest first."""
        with self._tx(f"read runs of thread {thread_id}") as conn:
            rows = conn.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE thread_id = ? ORDER BY thread_seq",
                (thread_id,),
            ).fetchall()
        return [_run_row(row) for row in rows]
