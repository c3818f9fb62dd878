"""SQLite, read-only and hardened: the pieces every backend shares, and the embedded ops database.

Every connection is opened with ``mode=ro``; an ops connection is further locked down
(``query_only``, an authorizer that allows only reads of the allowed tables, length limits, a
time limit per query), so even a statement that slipped past the SQL validator could not write,
attach or read the schema. :mod:`diagnosis_harness.tools.backends.sqlalchemy` reuses the hardening, the
deadline
and the capped fetch for a SQLite URL; nothing here imports it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from diagnosis_harness.tools.results import ResultTooLarge
from diagnosis_harness.tools.sql_safety import is_denied_function


class BackendUnavailable(RuntimeError):
    """The backends cannot be opened; the message says what to run or configure."""


@dataclass(frozen=True)
class OpsResult:
    """Columns and (capped) rows of one ops query; ``more`` when rows were left unread."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    more: bool


class OpsBackend(Protocol):
    """The operational database as ``query_mysql`` sees it."""

    dialect: str
    """sqlglot dialect used to validate and regenerate SQL for this database."""

    def schema(self) -> dict[str, list[str]]:
        """Allowed tables and their columns (the SQL allow-list)."""
        ...

    def execute(
        self, sql: str, *, max_rows: int, row_bytes: Callable[[tuple[Any, ...]], int],
        max_bytes: int, timeout_s: float,
    ) -> OpsResult:
        """Run an already-validated SELECT; stop at ``max_rows`` rows."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


def ro_uri(path: Path) -> str:
    """A ``file:`` URI that opens ``path`` read-only."""
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def open_readonly(path: Path) -> sqlite3.Connection:
    """Open a SQLite file read-only (it must exist)."""
    if not path.is_file():
        raise BackendUnavailable(f"{path} is missing: run `harness data load DIR` to build it")
    # Several graph nodes may run on different threads; Backends serialises access with a lock.
    return sqlite3.connect(ro_uri(path), uri=True, check_same_thread=False)


# Authorizer action codes that a plain SELECT needs; everything else is denied.
_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                 getattr(sqlite3, "SQLITE_RECURSIVE", 33)}


def harden_sqlite(conn: sqlite3.Connection, allowed_tables: set[str]) -> None:
    """Lock a SQLite connection down to reads of ``allowed_tables`` (defence in depth)."""
    conn.execute("PRAGMA query_only = ON")
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000)  # no giant blobs or strings
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 100_000)
    allowed = {t.lower() for t in allowed_tables}

    def authorize(action: int, arg1: str | None, arg2: str | None, db: str | None,
                  source: str | None) -> int:
        if action not in _READ_ACTIONS:
            return sqlite3.SQLITE_DENY
        # A READ without a database name is a CTE or subquery column, not a stored table.
        if action == sqlite3.SQLITE_READ and db is not None and (arg1 or "").lower() not in allowed:
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and is_denied_function(arg2 or ""):
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    conn.set_authorizer(authorize)
    if hasattr(conn, "enable_load_extension"):  # absent when Python was built without it
        conn.enable_load_extension(False)


@contextmanager
def sqlite_deadline(conn: sqlite3.Connection, timeout_s: float) -> Iterator[None]:
    """Interrupt whatever ``conn`` runs inside the block once ``timeout_s`` has passed.

    SQLite calls the progress handler every 10,000 VM steps and aborts the statement when it
    returns non-zero. The abort surfaces as ``TimeoutError`` with advice for the model, also
    when a driver (SQLAlchemy) wrapped SQLite's "interrupted" error in its own exception type.
    The handler is removed afterwards, so the connection stays usable.
    """
    deadline = time.monotonic() + timeout_s
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        yield
    except Exception as exc:
        if "interrupted" in str(exc) and time.monotonic() > deadline:
            raise TimeoutError(f"query exceeded {timeout_s:g} s; narrow it down") from None
        raise
    finally:
        conn.set_progress_handler(None, 0)


class Fetching(Protocol):
    """A cursor or result read in batches: sqlite3's cursor, SQLAlchemy's result."""

    def fetchmany(self, size: int) -> Sequence[Any]: ...  # noqa: D102


def fetch_capped(
    cursor: Fetching, max_rows: int, row_bytes: Callable[[tuple[Any, ...]], int], max_bytes: int
) -> tuple[list[tuple[Any, ...]], bool]:
    """Read at most ``max_rows`` rows; raise ResultTooLarge past ``max_bytes``."""
    rows: list[tuple[Any, ...]] = []
    size = 0
    while batch := cursor.fetchmany(min(FETCH_BATCH, max_rows - len(rows) + 1)):
        for fetched in batch:
            if len(rows) == max_rows:
                return rows, True
            row = tuple(fetched)
            size += row_bytes(row)
            if size > max_bytes:
                raise ResultTooLarge(
                    f"result exceeds {max_bytes} bytes; select fewer columns or add a LIMIT"
                )
            rows.append(row)
    return rows, False


FETCH_BATCH = 500
"""Rows read from the driver at a time (one more than the cap at most: it says "more")."""


def _sqlite_schema(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    )]
    return {n: [r[1] for r in conn.execute(f'PRAGMA table_info("{n}")')] for n in names}


class SqliteOps:
    """The embedded operational database (``ops.sqlite``), read-only and hardened."""

    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self._conn = open_readonly(path)
        self._schema = _sqlite_schema(self._conn)  # read before the authorizer hides the schema
        harden_sqlite(self._conn, set(self._schema))

    def schema(self) -> dict[str, list[str]]:
        """Every table of the file: the dataset's CSV tables and nothing else."""
        return dict(self._schema)

    def execute(
        self, sql: str, *, max_rows: int, row_bytes: Callable[[tuple[Any, ...]], int],
        max_bytes: int, timeout_s: float,
    ) -> OpsResult:
        """Run a validated SELECT under a wall-clock limit (SQLite interrupts past it)."""
        with sqlite_deadline(self._conn, timeout_s):
            cursor = self._conn.execute(sql)
            columns = [d[0] for d in cursor.description or ()]
            rows, more = fetch_capped(cursor, max_rows, row_bytes, max_bytes)
            cursor.close()
        return OpsResult(columns, rows, more)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
