"""Run store and trace (docs/design.md §9): run rows, tool records, model calls, receipts, events.

:class:`RunStore` is the interface nodes use; :class:`SqlRunStore` implements it on SQLAlchemy
Core for SQLite (the default: ``runs.sqlite`` under ``HARNESS_HOME``) and PostgreSQL
(``postgresql+psycopg://…``, the ``postgres`` extra). Open one with :func:`open_run_store`;
:class:`SqliteRunStore` takes a file path. The implementation is in :mod:`diagnosis_harness.runstore.sql`,
the schema and its migrations in :mod:`diagnosis_harness.runstore.schema`, the connections and the
lock-wait policy shared by every SQLite connection of a home in :mod:`diagnosis_harness.runstore.db`
(:data:`LOCK_WAIT_S`, :func:`sqlite_pragmas`), the background writer in
:mod:`diagnosis_harness.runstore.writer`.

A store keeps its connection (SQLite) or pool (PostgreSQL) for the life of the process.
``start_run``, ``finish_run`` and the readers run on the calling thread (nodes call them through
``asyncio.to_thread``); events and trace rows are queued and written by one thread, in order,
in batches, so emitting an event never waits for the disk. ``finish_run`` writes everything
queued first and refuses to finish a run whose trace rows were lost; the readers also write
what is queued first, so a caller always reads its own writes.

Durability on SQLite: WAL with ``synchronous=NORMAL``. A crash of the process loses nothing
committed; a power loss may lose the last commits but never corrupts the file. Queued rows not
yet written when the process is killed (``kill -9``) are lost; a normal exit writes them. Tool
records are the exception: ``record_tool`` returns once its row is written, because a resumed
run reuses them instead of calling the tool again. Run leases (``claim_run``) say which worker
runs an unfinished run (:mod:`diagnosis_harness.runstore.leases`).

Every failure of the database (cannot open, cannot write, bad value) raises
:class:`RunPersistenceError`; the release node maps it to ``RUN_PERSISTENCE_FAILED``. Lock waits
and transient failures are retried within a bounded time first (:data:`RETRY_WINDOW_S`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
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
from diagnosis_harness.runstore.db import LOCK_WAIT_S, RETRY_WINDOW_S, RunPersistenceError, sqlite_pragmas
from diagnosis_harness.runstore.lineage import LineageRecords
from diagnosis_harness.runstore.schema import SCHEMA_VERSION
from diagnosis_harness.runstore.sql import SqlRunStore
from diagnosis_harness.runstore.values import MAX_COUNT

__all__ = [
    "LOCK_WAIT_S", "MAX_COUNT", "RETRY_WINDOW_S", "SCHEMA_VERSION", "RunPersistenceError", "RunStore",
    "SqlRunStore", "SqliteRunStore", "open_run_store", "sqlite_pragmas",
]


@runtime_checkable
class RunStore(LineageRecords, Protocol):
    """What the harness needs from a run store; every method is thread-safe.

    The lineage methods (continuations, forks, edits, approvals: docs/design.md §14) are
    :class:`~diagnosis_harness.runstore.lineage.LineageRecords`'; run listing and timelines are
    :mod:`diagnosis_harness.runstore.history`.

    ``start_run``, ``finish_run`` and the readers are synchronous; the ``record_*`` writes may
    be queued, but ``finish_run`` and every reader see them.
    """

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

    def record_tool(self, run_id: str, record: ToolRecord,
                    observation: dict[str, Any] | None = None) -> None:
        """Append one canonical tool record and the observation shown; written before returning."""
        ...

    def tool_record(self, run_id: str, tool_call_id: str) -> dict[str, Any] | None:
        """The stored ``{"record", "observation"}`` of one tool call of the run, or None."""
        ...

    def claim_run(self, run_id: str, owner: str, lease_s: float, *,
                  take_over_from: str | None = None) -> bool:
        """Own (or keep owning) an unfinished run for ``lease_s`` seconds; False if not ours."""
        ...

    def release_lease(self, run_id: str, owner: str) -> None:
        """Give up ``owner``'s lease on the run."""
        ...

    def unfinished_runs(self, thread_id: str | None = None,
                        run_id: str | None = None) -> list[dict[str, Any]]:
        """Runs without a terminal row, with their lease (``lease_owner``, ``lease_expires_ms``)."""
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

    def tool_records(self, run_id: str) -> list[dict[str, Any]]:
        """The run's stored tool records, in recording order."""
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

    def list_runs(self, *, thread_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Run rows newest first (a thread's oldest first), each with its lineage summary."""
        ...

    def timeline(self, run_id: str) -> list[dict[str, Any]]:
        """Everything recorded for one run, one entry per row, in recording order."""
        ...

    def close(self) -> None:
        """Write what is queued and close the connection(s); a later call opens them again."""
        ...


class SqliteRunStore(SqlRunStore):
    """The run store on one SQLite file (WAL): the default, ``runs.sqlite`` under the home."""

    def __init__(self, path: Path | str, *, retry_s: float = RETRY_WINDOW_S) -> None:
        """Open (creating folder and file if needed) and migrate the file at ``path``."""
        super().__init__(Path(path), retry_s=retry_s)


def open_run_store(url_or_path: str | Path, *, retry_s: float = RETRY_WINDOW_S) -> SqlRunStore:
    """A run store on a SQLite path (or ``sqlite:///…``) or a ``postgresql+psycopg://…`` URL."""
    return SqlRunStore(url_or_path, retry_s=retry_s)
