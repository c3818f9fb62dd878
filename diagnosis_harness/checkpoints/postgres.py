"""The PostgreSQL checkpointer (the ``postgres`` extra): LangGraph's Postgres saver on a pool.

See :mod:`diagnosis_harness.checkpoints.savers` for what every checkpointer of the harness adds. Opening one
checks
the server at once (one connection, a one-line error if it does not answer), applies the
saver's migrations if some are missing, under an advisory lock (workers that start together do
not race on ``CREATE TABLE``), then serves from a small ``psycopg_pool`` pool whose connections are checked
on checkout, so a server that restarted is reconnected instead of failing the next run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from sqlalchemy.engine import make_url

from diagnosis_harness.checkpoints import savers as checkpoints
from diagnosis_harness.checkpoints.delta import snapshot_head
from diagnosis_harness.checkpoints.savers import HarnessCheckpointer
from diagnosis_harness.runstore.db import PG_CONNECT_TIMEOUT_S
from diagnosis_harness.runstore.errors import describe
from diagnosis_harness.runstore.store import RunPersistenceError

if TYPE_CHECKING:  # psycopg is the postgres extra's: imported where a PostgreSQL saver opens
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow
    from psycopg_pool import AsyncConnectionPool

POOL_MAX = 4
"""Connections of one process's checkpointer at most (the saver runs one statement at a time)."""

_SETUP_LOCK = 0x48434B50  # any constant every harness process shares ("HCKP")
SETUP_WAIT_S = 60.0
"""How long a worker waits for another one migrating the checkpointer's tables."""

_DELETE_RUNS = (
    # The checkpoints the runs wrote, their writes, then blobs no remaining checkpoint uses.
    """
    WITH gone AS (
        DELETE FROM checkpoints WHERE metadata ->> 'run_id' = ANY(%(runs)s)
        RETURNING thread_id, checkpoint_ns, checkpoint_id)
    DELETE FROM checkpoint_writes w USING gone
    WHERE w.thread_id = gone.thread_id AND w.checkpoint_ns = gone.checkpoint_ns
      AND w.checkpoint_id = gone.checkpoint_id
    RETURNING w.thread_id
    """,
    """
    DELETE FROM checkpoint_blobs b
    WHERE b.thread_id = ANY(%(threads)s) AND NOT EXISTS (
        SELECT 1 FROM checkpoints c
        WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
          AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)
    """,
)

_KEEP_FROM = (
    # Root checkpoints older than the kept one go, with their writes; the kept one forgets its
    # parent (as the library's own prune does); the blob versions only they used go too.
    "DELETE FROM checkpoint_writes WHERE thread_id = %(thread)s AND checkpoint_ns = '' "
    "AND checkpoint_id < %(head)s",
    """
    WITH gone AS (
        DELETE FROM checkpoints WHERE thread_id = %(thread)s AND checkpoint_ns = ''
            AND checkpoint_id < %(head)s
        RETURNING checkpoint -> 'channel_versions' AS versions)
    DELETE FROM checkpoint_blobs b
    USING (SELECT DISTINCT v.key, v.value FROM gone, jsonb_each_text(gone.versions) AS v) f
    WHERE b.thread_id = %(thread)s AND b.checkpoint_ns = '' AND b.channel = f.key
      AND b.version = f.value AND NOT EXISTS (
        SELECT 1 FROM checkpoints c  -- the statement's snapshot still has the deleted rows
        WHERE c.thread_id = %(thread)s AND c.checkpoint_ns = '' AND c.checkpoint_id >= %(head)s
          AND c.checkpoint -> 'channel_versions' ->> f.key = f.value)
    """,
    "UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = %(thread)s "
    "AND checkpoint_ns = '' AND checkpoint_id = %(head)s",
)
"""``keep_latest`` from a kept root checkpoint ``head`` whose delta channels have a snapshot."""

_OLD_THREADS = ("SELECT thread_id FROM checkpoints GROUP BY thread_id "
                "HAVING max(checkpoint_id) < %s")


def libpq_url(url: str) -> str:
    """A ``postgresql+psycopg://`` (SQLAlchemy) or ``postgresql://`` URL as libpq reads it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def shown(url: str) -> str:
    """The URL for messages: without its password."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=True)


class PostgresCheckpointer(HarnessCheckpointer, AsyncPostgresSaver):
    """LangGraph's Postgres saver with run deletion, age pruning and the harness's failure classes."""

    async def _prune(self, thread_ids: list[str], *, keep_latest: bool) -> None:
        if not keep_latest:
            await AsyncPostgresSaver.aprune(self, thread_ids, strategy="delete")
            return
        # Not the library's keep_latest: it refuses threads with DeltaChannels, whose latest
        # checkpoint needs its snapshot first (diagnosis_harness.checkpoints.delta). Only root checkpoints
        # older than the kept one are deleted, so one a run saves meanwhile is kept. (The
        # diagnosis graph has no subgraphs: the root namespace is all there is.)
        for thread_id in thread_ids:
            head = await snapshot_head(self, AsyncPostgresSaver, thread_id)
            if head is None:
                continue
            async with self._cursor() as cur, cur.connection.transaction():
                for statement in _KEEP_FROM:
                    await cur.execute(statement, {"thread": thread_id, "head": head})

    async def _delete_runs(self, run_ids: list[str]) -> None:
        if not run_ids:
            return
        async with self._cursor() as cur, cur.connection.transaction():
            await cur.execute("SELECT DISTINCT thread_id FROM checkpoints "
                              "WHERE metadata ->> 'run_id' = ANY(%s)", (run_ids,))
            threads = [row["thread_id"] for row in await cur.fetchall()]
            params: dict[str, Any] = {"runs": run_ids, "threads": threads}
            for statement in _DELETE_RUNS:
                await cur.execute(statement, params)

    async def _delete_old_threads(self, before_id: str) -> int:
        async with self._cursor() as cur:
            await cur.execute(_OLD_THREADS, (before_id,))
            threads = [row["thread_id"] for row in await cur.fetchall()]
        if threads:
            await self._prune(threads, keep_latest=False)
        return len(threads)


async def _migrated(conn: Any) -> bool:  # Any: psycopg's fetchone() is Optional, these rows always come
    """Whether the saver's migrations are all applied (the usual case: nothing to wait for)."""
    cur = await conn.execute("SELECT to_regclass('checkpoint_migrations') IS NOT NULL AS made")
    if not (await cur.fetchone())["made"]:
        return False
    cur = await conn.execute("SELECT max(v) AS v FROM checkpoint_migrations")
    return (await cur.fetchone())["v"] == len(AsyncPostgresSaver.MIGRATIONS) - 1


async def _migrate(conn: Any, where: str) -> None:  # Any: as _migrated's
    """Apply the saver's migrations, one worker at a time.

    The lock is polled, not waited for: a migration builds indexes ``CONCURRENTLY``, which waits
    for every open transaction, a blocked ``pg_advisory_lock`` call included (a deadlock).
    """
    if await _migrated(conn):
        return
    deadline = time.monotonic() + SETUP_WAIT_S
    while not (await (await conn.execute("SELECT pg_try_advisory_lock(%s) AS got",
                                         (_SETUP_LOCK,))).fetchone())["got"]:
        if time.monotonic() > deadline:
            raise RunPersistenceError(f"checkpointer at {where}: cannot open: another worker has "
                                      f"been migrating its tables for {SETUP_WAIT_S:.0f} s")
        await asyncio.sleep(0.1)
    # Session lock, released with the connection.
    await AsyncPostgresSaver(conn).setup()


@asynccontextmanager
async def postgres_checkpointer(url: str, *, retention: str) -> AsyncIterator[PostgresCheckpointer]:
    """The Postgres checkpointer on ``url``; RunPersistenceError (one line) if it cannot open."""
    try:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise RunPersistenceError("a PostgreSQL checkpointer needs the postgres extra: "
                                  "pip install -e '.[postgres]' in the harness's repository") from exc
    where, conninfo = shown(url), libpq_url(url)
    # What the saver requires of its connections (LangGraph's docs): autocommit, no prepared
    # statements (poolers), rows as dicts.
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                              "connect_timeout": PG_CONNECT_TIMEOUT_S,
                              "application_name": "harness-checkpoints"}
    try:
        async with await psycopg.AsyncConnection.connect(conninfo, **kwargs) as conn:
            await _migrate(conn, where)
    except psycopg.Error as exc:
        raise RunPersistenceError(f"checkpointer at {where}: cannot open: {describe(exc)}") from exc
    pool: AsyncConnectionPool[AsyncConnection[DictRow]] = AsyncConnectionPool(
        conninfo, min_size=1, max_size=POOL_MAX, timeout=checkpoints.CONNECTION_WAIT_S,
        kwargs=kwargs, check=AsyncConnectionPool.check_connection, open=False,
        name="harness-checkpoints")
    await pool.open()
    try:
        saver = PostgresCheckpointer(pool)
        saver.retention, saver.where = retention, where
        yield saver
    finally:
        await pool.close()
