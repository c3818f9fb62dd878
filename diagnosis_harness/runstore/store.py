"""Run store and trace (docs/design.md §9): run rows, tool records, model calls, receipts, events.

:class:`RunStore` is the one run-store class, on SQLAlchemy Core for SQLite (the default:
``runs.sqlite`` under ``HARNESS_HOME``) and PostgreSQL (``postgresql+psycopg://…``, the
``postgres`` extra); everybody annotates with it. Open one with :func:`open_run_store` or
``RunStore(path_or_url)``. It is defined in :mod:`diagnosis_harness.runstore.sql`, its methods
split by concern over a few modules (one class, see there). The schema and its migrations are in
:mod:`diagnosis_harness.runstore.schema`, the connections and the lock-wait policy shared by
every SQLite connection of a home in :mod:`diagnosis_harness.runstore.db` (:data:`LOCK_WAIT_S`,
:func:`sqlite_pragmas`), the background writer in :mod:`diagnosis_harness.runstore.writer`.

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

from diagnosis_harness.runstore.db import LOCK_WAIT_S, RETRY_WINDOW_S, sqlite_pragmas
from diagnosis_harness.runstore.errors import RunPersistenceError
from diagnosis_harness.runstore.schema import SCHEMA_VERSION
from diagnosis_harness.runstore.sql import RunStore
from diagnosis_harness.runstore.values import MAX_COUNT

__all__ = [
    "LOCK_WAIT_S", "MAX_COUNT", "RETRY_WINDOW_S", "SCHEMA_VERSION", "RunPersistenceError", "RunStore",
    "open_run_store", "sqlite_pragmas",
]


def open_run_store(url_or_path: str | Path, *, retry_s: float = RETRY_WINDOW_S) -> RunStore:
    """A run store on a SQLite path (or ``sqlite:///…``) or a ``postgresql+psycopg://…`` URL."""
    return RunStore(url_or_path, retry_s=retry_s)
