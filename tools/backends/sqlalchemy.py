"""``query_mysql`` over a real database given by ``HARNESS_OPS_DB_URL`` (SQLAlchemy URL).

The same validator runs first (with the URL's SQL dialect); then every connection is put in a
read-only session, every query runs in its own read-only transaction that is always rolled back,
with a server-side time limit (the caller's ``timeout_s``), and rows are read through a
server-side cursor so the row and byte caps hold however large the table is. Point the URL at a
user whose grants allow SELECT only: the grants are the final word, these layers are defence in
depth. Tested against SQLite URLs and a real PostgreSQL server (``tests/test_ops_postgres.py``);
the MySQL/MariaDB session statements follow those servers' documentation
(``SET SESSION TRANSACTION READ ONLY``, ``MAX_EXECUTION_TIME``, ``max_statement_time``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError

from diagnosis_harness.tools.backends.sqlite import (
    BackendUnavailable,
    OpsResult,
    fetch_capped,
    harden_sqlite,
    sqlite_deadline,
)

if TYPE_CHECKING:
    from sqlalchemy.pool import ConnectionPoolEntry

SQLGLOT_DIALECT = {"sqlite": "sqlite", "mysql": "mysql", "mariadb": "mysql",
                   "postgresql": "postgres"}
"""SQLAlchemy backend name → the sqlglot dialect the SQL validator reads and writes."""
_READ_ONLY_SESSION = {
    "mysql": "SET SESSION TRANSACTION READ ONLY",
    "mariadb": "SET SESSION TRANSACTION READ ONLY",
    "postgresql": "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
}
_CONNECT_TIMEOUT_S = 10
"""Seconds to wait for a database server (at start and for each new pooled connection)."""
_TIMEOUT_CODES = {3024, 1969}
"""MySQL's ER_QUERY_TIMEOUT and MariaDB's ER_STATEMENT_TIMEOUT."""


def check_ops_db_url(url: str) -> None:
    """Refuse, in one line and without the password, a URL that cannot name a usable database.

    A ``sqlite:`` URL must name an existing file: SQLite would silently create an empty one, and
    every query would then find nothing.
    """
    try:
        parsed = make_url(url)
    except Exception:  # noqa: BLE001 — any parse failure is the same user error
        raise BackendUnavailable("HARNESS_OPS_DB_URL is not a database URL (expected e.g. "
                                 "postgresql+psycopg://user@host/db or sqlite:////path/ops.db)"
                                 ) from None
    if parsed.get_backend_name() != "sqlite":
        return
    database = parsed.database or ""
    if database.startswith("file:"):
        database = database[5:].split("?", 1)[0]
    if not database or database == ":memory:":
        raise BackendUnavailable("HARNESS_OPS_DB_URL: a sqlite URL must name a database file")
    if not Path(database).is_file():
        raise BackendUnavailable(f"HARNESS_OPS_DB_URL: SQLite file {database} does not exist "
                                 "(it is never created: check the path)")


def _one_line(exc: BaseException, url: str) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    try:
        parsed = make_url(url)
        if parsed.password:
            text = text.replace(str(parsed.password), "***")
    except Exception:  # noqa: BLE001 — already checked; this is only redaction
        pass
    return text


def sqlglot_dialect(backend: str) -> str:
    """The sqlglot dialect of a SQLAlchemy backend name; BackendUnavailable if unsupported."""
    try:
        return SQLGLOT_DIALECT[backend]
    except KeyError:
        raise BackendUnavailable(
            f"ops_db_url: unsupported database {backend!r} "
            f"(supported: {', '.join(sorted(SQLGLOT_DIALECT))})"
        ) from None


def url_dialect(url: str) -> str:
    """The sqlglot dialect of a SQLAlchemy URL (``postgresql+psycopg://…`` → ``postgres``)."""
    return sqlglot_dialect(url.split(":", 1)[0].split("+", 1)[0].lower())


class SqlAlchemyOps:
    """An operational database reached through SQLAlchemy, read-only."""

    def __init__(self, url: str, tables: Sequence[str] | None = None) -> None:
        check_ops_db_url(url)
        parsed = make_url(url)
        connect_args: dict[str, Any] = {}
        if parsed.get_backend_name() != "sqlite" and "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = _CONNECT_TIMEOUT_S  # an unreachable host fails fast
        try:
            engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args)
            backend = engine.dialect.name
            dialect = sqlglot_dialect(backend)
            inspector = inspect(engine)
            names = sorted(inspector.get_table_names())
            self._schema = {n: [c["name"] for c in inspector.get_columns(n)] for n in names}
        except BackendUnavailable:
            raise
        except Exception as exc:  # driver missing, host down, bad URL: say which setting
            raise BackendUnavailable(
                f"ops_db_url: cannot open the database: {_one_line(exc, url)}") from None
        if tables:
            wanted = {t.strip().lower() for t in tables if t.strip()}
            missing = wanted - {n.lower() for n in self._schema}
            if missing:
                raise BackendUnavailable(f"ops_tables: no such tables: {', '.join(sorted(missing))}")
            self._schema = {n: c for n, c in self._schema.items() if n.lower() in wanted}
        engine.dispose()  # drop the inspection connection: every pooled one must be hardened
        self._backend = backend
        self.dialect = dialect
        event.listen(engine, "connect", self._on_connect)
        self._engine: Engine = engine

    def _on_connect(self, dbapi_conn: Any, _record: ConnectionPoolEntry) -> None:  # Any: a DB-API driver's
        if self._backend == "sqlite":
            harden_sqlite(dbapi_conn, set(self._schema))
            return
        cursor = dbapi_conn.cursor()
        cursor.execute(_READ_ONLY_SESSION[self._backend])
        cursor.close()

    def schema(self) -> dict[str, list[str]]:
        """The allowed tables and their columns."""
        return dict(self._schema)

    def execute(
        self, sql: str, *, max_rows: int, row_bytes: Callable[[tuple[Any, ...]], int],
        max_bytes: int, timeout_s: float,
    ) -> OpsResult:
        """Run a validated SELECT in a read-only transaction that is always rolled back.

        ``timeout_s`` becomes the server-side limit of the statement; past it the query is
        cancelled by the server and ``TimeoutError`` is raised.
        """
        ms = max(int(timeout_s * 1000), 1)
        with self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None  # a checked-out pool connection always has one
            limit: AbstractContextManager[None] = nullcontext()
            if self._backend == "sqlite":
                limit = sqlite_deadline(cast(sqlite3.Connection, raw), timeout_s)  # the driver's own
            elif self._backend == "postgresql":
                # The transaction's first statement: read-only even if a query managed to change
                # the session's default, and a limit that ends with the transaction.
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                conn.exec_driver_sql(f"SET LOCAL statement_timeout = {ms}")
                # A server-side cursor: rows arrive in batches, so the caps bound what is read.
                conn.execution_options(stream_results=True, max_row_buffer=max_rows + 1)
            elif getattr(conn.dialect, "is_mariadb", False):
                conn.exec_driver_sql(f"SET SESSION max_statement_time = {ms / 1000:.3f}")
            else:
                conn.exec_driver_sql(f"SET SESSION MAX_EXECUTION_TIME = {ms}")
            if conn.dialect.paramstyle in ("format", "pyformat"):
                sql = sql.replace("%", "%%")  # no parameters are passed: '%' is literal text
            try:
                with limit:
                    result = conn.exec_driver_sql(sql)
                    columns = list(result.keys())
                    rows, more = fetch_capped(result, max_rows, row_bytes, max_bytes)
                    result.close()
            except DBAPIError as exc:
                if _server_timeout(exc):
                    raise TimeoutError(f"query exceeded {timeout_s:g} s; narrow it down") from None
                raise
            finally:
                conn.rollback()
        return OpsResult(columns, rows, more)

    def close(self) -> None:
        """Dispose of the connection pool."""
        self._engine.dispose()


def _server_timeout(exc: DBAPIError) -> bool:
    """Whether the server cancelled the statement for its time limit."""
    orig = exc.orig
    if getattr(orig, "sqlstate", None) == "57014":  # PostgreSQL query_canceled
        return True
    args: tuple[Any, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in _TIMEOUT_CODES
