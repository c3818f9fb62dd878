"""The run store's database: one engine per store, the shared lock-wait policy, classified errors.

SQLite (a file path or ``sqlite:///…``): ONE connection for the life of the store, used under a
lock by every thread, in WAL mode with ``synchronous=NORMAL`` (a commit does not wait for the disk;
a power loss may drop the last commits but never corrupts the file, and an application crash
loses nothing). Writes begin ``IMMEDIATE`` so a writer waits for the lock up to
:data:`LOCK_WAIT_S` instead of failing on a read-to-write upgrade. If the file is removed or
replaced under a running store, the next operation opens the path again (as a fresh connection
per call would), so a store never writes into a deleted file.

PostgreSQL (``postgresql+psycopg://…``, the ``postgres`` extra): a small connection pool checked
with a ping on checkout, so a restarted server is reconnected; ``lock_timeout`` is the same
:data:`LOCK_WAIT_S`.

The statements every run makes (its trace rows, its row, its lease, the readers a run uses) are
:class:`Prepared`: compiled by SQLAlchemy once per dialect and run by :meth:`Database.run_driver`
on the driver's own cursor, in the same transactions, under the same lock and retries. The
SQL is SQLAlchemy's, only its per-statement bookkeeping is skipped (a transaction through
:class:`~sqlalchemy.engine.Connection` cost ~0.1 ms of CPU before any SQL ran; a run makes ~50).

Every failure becomes :class:`RunPersistenceError`. Transient ones (a lock held too long, a lost
connection, a serialisation failure) are retried with backoff within :data:`RETRY_WINDOW_S`;
an attempt begun inside the window may still wait :data:`LOCK_WAIT_S` for its lock, so one
operation gives up after RETRY_WINDOW_S + LOCK_WAIT_S at most.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import Connection, Engine, Table, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL, Dialect, make_url
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool
from sqlalchemy.sql import ClauseElement

from diagnosis_harness.runstore.errors import RunPersistenceError, describe, is_transient
from diagnosis_harness.runstore.schema import SchemaTooNew, migrate

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql

T = TypeVar("T")

LOCK_WAIT_S = 15.0
"""How long one statement waits for a lock held by another connection, for every SQLite
connection of a home (run store and checkpointer alike) and as Postgres ``lock_timeout``."""

RETRY_WINDOW_S = 15.0
"""How long a write that failed transiently is retried before RunPersistenceError."""

PG_CONNECT_TIMEOUT_S = 5
"""How long opening one Postgres connection may take (a server that does not answer)."""


def sqlite_pragmas() -> tuple[str, ...]:
    """The statements that give a SQLite connection the home's durability and lock-wait policy."""
    return (
        # Freed pages go back to the file system when pruning asks (``incremental_vacuum``);
        # it takes effect on a file that has no tables yet, a no-op on an older one.
        "PRAGMA auto_vacuum=INCREMENTAL",
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=NORMAL",
        f"PRAGMA busy_timeout={int(LOCK_WAIT_S * 1000)}",
        # A WAL reset by a checkpoint is cut back to this size, not left at its largest.
        f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}",
    )


WAL_LIMIT_BYTES = 65_536
"""The most a SQLite file's ``-wal`` keeps once checkpointed; a clean close empties it."""

CLOSE_PRAGMAS = ("PRAGMA wal_checkpoint(TRUNCATE)",)
"""Run on a SQLite connection before a clean close: no write-ahead log is left behind."""

SHRINK_PRAGMAS = ("PRAGMA incremental_vacuum",)
"""Run after deleting rows: the pages they held are given back to the file system. It must run
to its end (``executescript``): it frees one page per step of the statement, and Python's
``execute`` takes one step of a statement that returns no columns, so it gives back one page
and leaves the rest free inside the file."""

CONVERT_PRAGMAS = ("PRAGMA auto_vacuum=INCREMENTAL", "VACUUM")
"""For a file made before the home set ``auto_vacuum`` (its mode NONE, where incremental_vacuum
does nothing): rewrite it once, compact and in incremental mode. Only ``harness prune`` does this
(a VACUUM rewrites the whole file and waits for every other writer); after it, pruning is
incremental."""


def shrink_pragmas(auto_vacuum: int, *, convert: bool) -> tuple[str, ...]:
    """What gives a SQLite file's free pages back, by its ``PRAGMA auto_vacuum`` (0, 1, 2).

    INCREMENTAL (2): ``incremental_vacuum``; NONE (0): the one-time conversion if ``convert``,
    else nothing; FULL (1) gives pages back at every commit by itself.
    """
    if auto_vacuum == 2:
        return SHRINK_PRAGMAS
    return CONVERT_PRAGMAS if auto_vacuum == 0 and convert else ()


class Prepared:
    """A statement compiled once per dialect, for :meth:`Driver.execute`: its SQL and parameters.

    ``statement`` names its parameters with ``bindparam``; the literals SQLAlchemy binds itself
    (``coalesce(max(seq), 0) + 1``) are filled in from the compiled statement. A statement whose
    parameters would need SQLAlchemy's own processing (bind processors, expanding ``IN``) is
    refused when it is compiled: it belongs on :meth:`Database.run`.
    """

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[str, tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}

    def compiled(self, dialect: Dialect) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
        """SQL text, parameter names in order (positional styles; None: by name), bound literals."""
        found = self._compiled.get(dialect.name)
        if found is None:
            compiled: Any = self.statement.compile(dialect=dialect)
            processed = any(bind.type.dialect_impl(dialect).bind_processor(dialect) is not None
                            for bind in compiled.bind_names)
            if processed or "POSTCOMPILE" in compiled.string:
                raise TypeError(f"not a plain statement for the driver: {compiled.string}")
            literals = {name: bind.value for bind, name in compiled.bind_names.items()
                        if not bind.required}
            names = tuple(compiled.positiontup) if compiled.positional else None
            found = self._compiled[dialect.name] = (compiled.string, names, literals)
        return found


class Driver:
    """One transaction on the driver's cursor: :class:`Prepared` statements with plain values."""

    def __init__(self, cursor: Any, dialect: Dialect) -> None:
        self.cursor = cursor
        self._dialect = dialect

    def _params(self, prepared: Prepared, params: dict[str, Any]) -> tuple[str, Any]:
        sql, names, literals = prepared.compiled(self._dialect)
        values = {**literals, **params} if literals else params
        return sql, values if names is None else tuple(values[name] for name in names)

    def execute(self, prepared: Prepared, params: dict[str, Any] | None = None) -> Any:
        """Run one statement; the cursor (``rowcount``, ``fetchall``)."""
        sql, values = self._params(prepared, params or {})
        self.cursor.execute(sql, values)
        return self.cursor

    def rows(self, prepared: Prepared, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Every row of a query."""
        return list(self.execute(prepared, params).fetchall())

    def executemany(self, prepared: Prepared, rows: list[dict[str, Any]]) -> None:
        """Run one statement once per row, in order."""
        sql, _names, _literals = prepared.compiled(self._dialect)
        self.cursor.executemany(sql, [self._params(prepared, row)[1] for row in rows])


class Database:
    """One database of a run store: engine, schema migration at open, retried transactions."""

    def __init__(self, url_or_path: str | Path, *, retry_s: float = RETRY_WINDOW_S) -> None:
        self.retry_s = retry_s
        self.path: Path | None = None
        self._lock = threading.RLock()
        self._engine: Engine | None = None
        self._sqlite: sqlite3.Connection | None = None
        """The SQLite engine's one DB-API connection, for :meth:`run_driver`."""
        self._identity: tuple[int, int] | None = None
        self._url = self._parse(url_or_path)
        self.is_sqlite = self._url.get_backend_name() == "sqlite"
        self.where = str(self.path) if self.path else self._url.render_as_string(hide_password=True)
        self.broken: str | None = None
        """The last failure if it was not transient and nothing has worked since, else None."""

    def _parse(self, url_or_path: str | Path) -> URL:
        text = str(url_or_path)
        if isinstance(url_or_path, Path) or "://" not in text:
            self.path = Path(text)
            return make_url("sqlite://").set(database=text)
        try:
            url = make_url(text)
        except sa_exc.ArgumentError as exc:
            raise RunPersistenceError(f"run store URL is not valid: {exc}") from exc
        backend, driver = url.get_backend_name(), url.get_driver_name()
        if backend == "sqlite":
            self.path = Path(url.database) if url.database not in (None, "", ":memory:") else None
            return url
        if backend in ("postgresql", "postgres") and driver in ("psycopg", "psycopg2", ""):
            # Only psycopg 3 is installed by the postgres extra; the bare scheme means it too.
            try:
                import psycopg  # noqa: F401
            except ImportError as exc:
                raise RunPersistenceError(
                    "a PostgreSQL run store needs the postgres extra: "
                    "pip install -e '.[postgres]' in the harness's repository"
                ) from exc
            return url.set(drivername="postgresql+psycopg")
        raise RunPersistenceError(
            f"run store URL {url.render_as_string(hide_password=True)}: unsupported database "
            "(use a SQLite path or postgresql+psycopg://…)"
        )

    # --- engine ---------------------------------------------------------------------------------

    def _create_engine(self) -> Engine:
        if not self.is_sqlite:
            return create_engine(
                self._url, pool_size=4, max_overflow=4, pool_timeout=LOCK_WAIT_S, pool_pre_ping=True,
                connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S, "application_name": "harness",
                              "options": f"-c lock_timeout={int(LOCK_WAIT_S * 1000)}"},
            )
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            self._url, poolclass=StaticPool,
            connect_args={"check_same_thread": False, "timeout": LOCK_WAIT_S},
        )

        @event.listens_for(engine, "connect")
        def _configure(dbapi_conn: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
            # Transactions are ours (BEGIN below), not pysqlite's implicit ones.
            dbapi_conn.isolation_level = None
            for pragma in sqlite_pragmas():
                dbapi_conn.execute(pragma)

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            write = conn.get_execution_options().get("harness_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine

    def _file_identity(self) -> tuple[int, int] | None:
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def _ensure_open(self) -> Engine:
        """The engine, (re)opened and migrated when there is none or the SQLite file changed."""
        if self._engine is not None and (self.path is None or self._file_identity() == self._identity):
            return self._engine
        self.close()
        engine = self._create_engine()
        try:
            with engine.connect() as conn:
                conn = conn.execution_options(harness_write=True)
                with conn.begin():
                    migrate(conn)
        except BaseException:
            engine.dispose()
            raise
        self._engine, self._identity = engine, self._file_identity()
        return engine

    def close(self) -> None:
        """Close the connection(s), leaving no write-ahead log; the next operation opens them again."""
        with self._lock:
            if self._engine is not None:
                if self.is_sqlite:
                    self.run_pragmas(CLOSE_PRAGMAS)
                self._engine.dispose()
            self._engine = self._sqlite = None

    def shrink(self, *, convert: bool = False) -> None:
        """Give the file's free pages back (best effort), converting an older file if ``convert``."""
        mode = self.run_pragmas(("PRAGMA auto_vacuum",), rows=True)
        if mode:
            self.run_pragmas(shrink_pragmas(int(mode[0][0]), convert=convert))

    def run_pragmas(self, pragmas: tuple[str, ...], *, rows: bool = False) -> list[Any]:
        """Run maintenance pragmas on a SQLite store, each to its end (see :data:`SHRINK_PRAGMAS`).

        ``rows``: return the last one's rows instead (a pragma that reads a value). Best effort:
        a file another process keeps busy is left as it is, and no rows are returned.
        """
        if self._engine is None or not self.is_sqlite:
            return []
        out: list[Any] = []
        try:  # the DB-API connection: autocommit (set at connect), so no BEGIN around the pragma
            with self._lock:
                raw = self._engine.raw_connection()
                try:
                    for pragma in pragmas:
                        cursor = raw.cursor()
                        if rows:
                            out = cursor.execute(pragma).fetchall()
                        else:
                            cursor.executescript(pragma)
                finally:
                    raw.close()
        except (sa_exc.SQLAlchemyError, sqlite3.Error):
            return []  # another process holds the file: it truncates the log when it closes
        return out

    def insert(self, table: Table) -> sqlite_dialect.Insert | postgresql.Insert:
        """The dialect's INSERT (it has ``on_conflict_do_nothing``)."""
        if self.is_sqlite:
            return sqlite_dialect.insert(table)
        from sqlalchemy.dialects import postgresql  # ~0.03 CPU-s: a PostgreSQL store only

        return postgresql.insert(table)

    # --- transactions ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _driver(self, write: bool) -> Iterator[Driver]:
        # The same connection, lock and BEGIN as _connection's, without SQLAlchemy's Connection.
        if not self.is_sqlite:
            with self._pg_driver() as driver:
                yield driver
            return
        with self._lock:
            engine = self._ensure_open()
            conn = self._sqlite
            if conn is None:  # the pool's one connection, kept: a checkout per call cost more
                pooled = engine.raw_connection()
                conn = self._sqlite = cast("sqlite3.Connection", pooled.dbapi_connection)
                pooled.close()
            cursor = conn.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield Driver(cursor, engine.dialect)
                conn.commit()
            except BaseException as exc:
                with contextlib.suppress(Exception):
                    conn.rollback()
                if isinstance(exc, sqlite3.ProgrammingError):  # closed under us: fetch it again
                    self._sqlite = None
                raise
            finally:
                cursor.close()

    @contextlib.contextmanager
    def _pg_driver(self) -> Iterator[Driver]:
        with self._lock:
            engine = self._ensure_open()
        raw = engine.raw_connection()  # pooled, pinged on checkout
        broken = False
        try:
            cursor = raw.cursor()
            try:
                yield Driver(cursor, engine.dialect)
                raw.commit()
            except BaseException:
                try:
                    raw.rollback()
                except Exception:  # noqa: BLE001 — the connection is gone: not pooled again
                    broken = True
                raise
            finally:
                with contextlib.suppress(Exception):
                    cursor.close()
        finally:
            if broken or getattr(raw.dbapi_connection, "broken", False):  # psycopg: lost
                raw.invalidate()
            raw.close()

    @contextlib.contextmanager
    def _connection(self, write: bool) -> Iterator[Connection]:
        # SQLite: one connection, so one user at a time. Postgres: the pool hands out its own.
        with self._lock if self.is_sqlite else contextlib.nullcontext():
            with self._lock:
                engine = self._ensure_open()
            with engine.connect() as conn:
                if write:
                    conn = conn.execution_options(harness_write=True)
                with conn.begin():
                    yield conn

    def run(self, fn: Callable[[Connection], T], what: str, *, write: bool = True,
            deadline: float | None = None) -> T:
        """``fn`` in one transaction; transient failures retried until ``deadline``.

        At least one attempt is made even when the deadline has passed. Any failure becomes
        RunPersistenceError naming ``what`` and the database.
        """
        def attempt() -> T:
            with self._connection(write) as conn:
                return fn(conn)

        return self._retried(attempt, what, deadline)

    def run_driver(self, fn: Callable[[Driver], T], what: str, *, write: bool = True,
                   deadline: float | None = None) -> T:
        """:meth:`run` for :class:`Prepared` statements: ``fn`` gets the driver's cursor."""
        def attempt() -> T:
            with self._driver(write) as driver:
                return fn(driver)

        return self._retried(attempt, what, deadline)

    def _retried(self, attempt: Callable[[], T], what: str, deadline: float | None) -> T:
        deadline = time.monotonic() + self.retry_s if deadline is None else deadline
        delay = 0.02
        while True:
            try:
                result = attempt()
            except Exception as exc:  # noqa: BLE001 — every database failure is classified here
                transient = not isinstance(exc, SchemaTooNew) and is_transient(exc)
                if transient and time.monotonic() + delay < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
                    continue
                reason = describe(exc)
                if not transient:
                    self.broken = reason
                raise RunPersistenceError(f"run store at {self.where}: cannot {what}: {reason}",
                                          transient=transient) from exc
            self.broken = None
            return result
