"""The run store's classified errors: which failures may pass by themselves, and one line for each.

Shared by the run store (:mod:`.db`) and the checkpointers: a lock held too long, a lost
connection or a serialisation failure is *transient* (retried within the window); anything else
is not.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import exc as sa_exc

from diagnosis_harness.runstore.schema import SchemaTooNew


class RunPersistenceError(Exception):
    """The run store could not read or write; the message says which operation and why."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        """True when the cause may pass (lock, lost connection): the write may work later."""


_PG_TRANSIENT = {"40001", "40P01", "55P03", "57P01", "57P02", "57P03", "53300"}


def is_transient(exc: BaseException) -> bool:
    """Whether a database error may pass by itself (lock wait, lost connection, conflict)."""
    if isinstance(exc, sa_exc.TimeoutError):  # no free pooled connection in time
        return True
    orig: BaseException = exc
    if isinstance(exc, sa_exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        orig = exc.orig if isinstance(exc.orig, BaseException) else exc
    if isinstance(orig, sqlite3.Error):
        name = getattr(orig, "sqlite_errorname", "") or ""
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(orig)
    if type(orig).__module__.startswith("psycopg"):
        state = getattr(orig, "sqlstate", None)
        if state is None:  # could not connect, or the connection broke
            return type(orig).__name__ == "OperationalError"
        return state.startswith("08") or state in _PG_TRANSIENT
    return False


def describe(exc: BaseException) -> str:
    """One line for an error: the driver's message without SQLAlchemy's SQL echo."""
    orig = exc.orig if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None else exc
    if isinstance(exc, SchemaTooNew):
        return str(exc)
    text = " ".join(str(orig).split()) or type(orig).__name__
    return text if len(text) <= 300 else text[:297] + "..."
