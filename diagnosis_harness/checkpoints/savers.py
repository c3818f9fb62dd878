"""The checkpointers of the harness: a thread's state between nodes and turns, SQLite or PostgreSQL.

:func:`diagnosis_harness.session.checkpointer.open_checkpointer` picks one from the settings
(``HARNESS_DATABASE_URL``) for
the CLI, scripts and the server alike; this module has the two savers and how they are opened:

- :class:`SqliteCheckpointer`: LangGraph's SQLite saver on ``checkpoints.sqlite`` under the home,
  with the lock-wait policy every SQLite connection of a home shares;
- :class:`PostgresCheckpointer`: LangGraph's Postgres saver on a ``psycopg_pool`` connection pool
  (autocommit, ``prepare_threshold=0``, ``dict_row``: what the saver requires), each connection
  checked on checkout so that a restarted server is reconnected.

Both add what the LangGraph server asks of a checkpointer beyond reading and writing
(``aprune``, ``adelete_for_runs``; ``adelete_thread`` the libraries have) and keep storage
bounded: when a run ends, its thread is pruned to its latest checkpoint (retention ``latest``,
the default; ``all`` keeps every checkpoint), which first gets a snapshot of the state's delta
channels (:mod:`diagnosis_harness.checkpoints.delta`). A run that has not ended — paused at an interrupt,
stopped between two nodes — keeps its history until it does.

A database failure becomes :class:`~diagnosis_harness.runstore.store.RunPersistenceError`, as in the run
store,
so a run that cannot save its checkpoint ends FAILED / RUN_PERSISTENCE_FAILED.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.base.id import UUID as UUID6

from diagnosis_harness.checkpoints.delta import snapshot_head
from diagnosis_harness.checkpoints.sqlite import TwoTripSqliteSaver
from diagnosis_harness.runstore.db import CLOSE_PRAGMAS, shrink_pragmas
from diagnosis_harness.runstore.errors import describe, is_transient
from diagnosis_harness.runstore.store import LOCK_WAIT_S, RunPersistenceError, sqlite_pragmas

log = logging.getLogger(__name__)

RETENTIONS = ("latest", "all")
"""What is kept of a thread once a run ends: its latest checkpoint, or every checkpoint."""

CONNECTION_WAIT_S = LOCK_WAIT_S
"""How long a Postgres checkpoint operation waits for a pooled connection (the server is down)."""



def _db_errors() -> tuple[type[BaseException], ...]:
    """The database failures a saver classifies: psycopg's only once the Postgres saver loaded it.

    No psycopg error can exist before psycopg is imported, so a SQLite-only process (every
    CLI run without ``HARNESS_DATABASE_URL``) never pays for importing it (~0.1 s).
    """
    psycopg = sys.modules.get("psycopg")
    return (sqlite3.Error, OSError) if psycopg is None else (sqlite3.Error, OSError, psycopg.Error)


def run_ended(checkpoint: Checkpoint, metadata: CheckpointMetadata) -> bool:
    """Whether ``checkpoint`` is the last one of a run: no node is left to run after it.

    In a StateGraph every node runs because an edge wrote its ``branch:to:<node>`` channel (or
    the input wrote ``__start__``, or a Send ``__pregel_tasks``); a step of the loop that wrote
    none of them leaves nothing to do. An interrupted run's checkpoint still has its next node.
    """
    updated = checkpoint.get("updated_channels")
    if metadata.get("source") != "loop" or updated is None:
        return False
    return not any(c.startswith("branch:to:") or c in ("__start__", "__pregel_tasks") for c in updated)


def checkpoint_id_at(moment: datetime) -> str:
    """The smallest checkpoint id LangGraph can make at ``moment`` (ids are time-ordered UUIDv6)."""
    timestamp = int(moment.timestamp() * 10_000_000) + 0x01B21DD213814000  # 100 ns since 1582
    value = ((timestamp >> 12) & 0xFFFFFFFFFFFF) << 80 | (timestamp & 0x0FFF) << 64
    return str(UUID6(int=value, version=6))


class HarnessCheckpointer(BaseCheckpointSaver):  # type: ignore[type-arg]
    """What both savers add: classified failures, pruning, deleting a run's checkpoints."""

    retention: str = "latest"
    """``latest``: prune a thread to its latest checkpoint when a run ends; ``all``: keep all."""
    where: str = ""
    """The database, for messages (a path, or a URL without its password)."""

    def _failed(self, what: str, exc: BaseException) -> RunPersistenceError:
        return RunPersistenceError(f"checkpointer at {self.where}: cannot {what}: {describe(exc)}",
                                   transient=is_transient(exc))

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint ``config`` names (or the thread's latest); failures classified."""
        try:
            return await super().aget_tuple(config)
        except _db_errors() as exc:
            raise self._failed("read a checkpoint", exc) from exc

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None,
                    limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        """The checkpoints ``config`` selects, newest first; failures classified."""
        try:
            async for item in super().alist(config, filter=filter, before=before, limit=limit):
                yield item
        except _db_errors() as exc:
            raise self._failed("list checkpoints", exc) from exc

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        """Save a checkpoint; the last one of a run prunes its thread (retention ``latest``)."""
        try:
            saved = await super().aput(config, checkpoint, metadata, new_versions)
        except _db_errors() as exc:
            raise self._failed("save a checkpoint", exc) from exc
        configurable = config.get("configurable") or {}
        if (self.retention == "latest" and not configurable.get("checkpoint_ns")
                and run_ended(checkpoint, metadata)):
            thread_id = str(configurable["thread_id"])
            try:  # storage upkeep: a failure here must not fail a run that has ended well
                await self.aprune([thread_id], strategy="keep_latest")
            except Exception as exc:  # noqa: BLE001
                log.warning("checkpoints of thread %s not pruned (the next run's end will): %s",
                            thread_id, exc)
        return saved

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]],
                          task_id: str, task_path: str = "") -> None:
        """Save a node's pending writes; failures classified."""
        try:
            await super().aput_writes(config, writes, task_id, task_path)
        except _db_errors() as exc:
            raise self._failed("save a node's writes", exc) from exc

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of a thread."""
        try:
            await super().adelete_thread(thread_id)
        except _db_errors() as exc:
            raise self._failed(f"delete thread {thread_id}", exc) from exc

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune threads by ``strategy``: ``keep_latest`` or ``delete`` (also ``delete_all``).

        ``keep_latest`` keeps each thread's latest checkpoint and its pending writes; ``delete``
        removes the threads' checkpoints altogether.
        """
        if isinstance(thread_ids, str):
            raise TypeError("thread_ids must be a sequence of thread ids, not a str")
        if strategy not in ("keep_latest", "delete", "delete_all"):
            raise ValueError(f"unknown prune strategy {strategy!r}")
        try:
            await self._prune([str(t) for t in thread_ids], keep_latest=strategy == "keep_latest")
        except _db_errors() as exc:
            raise self._failed("prune checkpoints", exc) from exc

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints the given runs wrote, with their writes (a rolled-back run)."""
        try:
            await self._delete_runs([str(r) for r in run_ids])
        except _db_errors() as exc:
            raise self._failed("delete the checkpoints of runs", exc) from exc

    async def delete_threads_before(self, moment: datetime) -> int:
        """Delete every thread whose latest checkpoint is older than ``moment``; how many."""
        try:
            return await self._delete_old_threads(checkpoint_id_at(moment))
        except _db_errors() as exc:
            raise self._failed("delete old threads", exc) from exc

    async def _prune(self, thread_ids: list[str], *, keep_latest: bool) -> None:
        raise NotImplementedError

    async def _delete_runs(self, run_ids: list[str]) -> None:
        raise NotImplementedError

    async def _delete_old_threads(self, before_id: str) -> int:
        raise NotImplementedError


_SQLITE_UNKEPT = """
SELECT checkpoint_ns, checkpoint_id FROM checkpoints
WHERE thread_id = :thread AND CASE WHEN checkpoint_ns = '' THEN checkpoint_id < :head
    ELSE checkpoint_id < (
        SELECT max(k.checkpoint_id) FROM checkpoints k
        WHERE k.thread_id = checkpoints.thread_id AND k.checkpoint_ns = checkpoints.checkpoint_ns)
    END
"""
"""What ``keep_latest`` deletes: root checkpoints older than the one kept (given its delta
snapshots first), and in any other namespace all but the latest."""


class SqliteCheckpointer(HarnessCheckpointer, TwoTripSqliteSaver):
    """LangGraph's SQLite saver (two trips a write) with pruning and the harness's failure classes."""

    async def _delete(self, rows: list[tuple[str, str, str]]) -> None:
        """Delete (thread, namespace, id) checkpoints and their writes, in one transaction."""
        if rows:
            await self.conn.executemany("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? "
                                        "AND checkpoint_id = ?", rows)
            await self.conn.executemany("DELETE FROM checkpoints WHERE thread_id = ? AND "
                                        "checkpoint_ns = ? AND checkpoint_id = ?", rows)
        await self.conn.commit()
        if rows:
            await self._shrink()

    async def _shrink(self, *, convert: bool = False) -> None:
        """Give the pages of deleted checkpoints back to the file system (the file shrinks).

        ``convert``: a file made before the home set ``auto_vacuum`` is rewritten once
        (``harness prune`` asks for it; a run's end does not).
        """
        async with self.conn.execute("PRAGMA auto_vacuum") as cur:
            mode = await cur.fetchone()
        for pragma in shrink_pragmas(int(mode[0]) if mode else 0, convert=convert):
            await self.conn.executescript(pragma)  # to its end: one page per step (SHRINK_PRAGMAS)
        await self.conn.commit()

    async def _prune(self, thread_ids: list[str], *, keep_latest: bool) -> None:
        if not keep_latest:
            for thread_id in thread_ids:
                await self.adelete_thread(thread_id)
            return
        await self.setup()
        for thread_id in thread_ids:
            # Only checkpoints older than the one kept, as read now: one a run writes meanwhile
            # is newer, and kept (its delta channels' walk stops at the kept one's snapshot).
            head = await snapshot_head(self, TwoTripSqliteSaver, thread_id) or ""
            async with self.lock:
                async with self.conn.execute(_SQLITE_UNKEPT, {"thread": thread_id, "head": head}) as cur:
                    rows = [(thread_id, ns, cid) for ns, cid in await cur.fetchall()]
                await self._delete(rows)

    async def _delete_runs(self, run_ids: list[str]) -> None:
        if not run_ids:
            return
        await self.setup()
        marks = ", ".join("?" * len(run_ids))
        async with self.lock:
            async with self.conn.execute(
                    "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints WHERE "
                    f"json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})", run_ids) as cur:
                rows = [tuple(r) for r in await cur.fetchall()]
            await self._delete(rows)  # type: ignore[arg-type]

    async def _delete_old_threads(self, before_id: str) -> int:
        await self.setup()
        async with self.lock:
            async with self.conn.execute("SELECT thread_id FROM checkpoints GROUP BY thread_id "
                                         "HAVING max(checkpoint_id) < ?", (before_id,)) as cur:
                threads = [str(r[0]) for r in await cur.fetchall()]
        for thread_id in threads:
            await self.adelete_thread(thread_id)
        async with self.lock:  # harness prune: even an older file gives its pages back
            await self._shrink(convert=True)
        return len(threads)


@asynccontextmanager
async def sqlite_checkpointer(path: Path, *, retention: str) -> AsyncIterator[SqliteCheckpointer]:
    """The SQLite checkpointer on ``path``: WAL, synchronous=NORMAL, the home's lock wait."""
    where = str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(where)
    except _db_errors() as exc:
        raise RunPersistenceError(f"checkpointer at {where}: cannot open: {describe(exc)}") from exc
    try:
        try:
            for pragma in sqlite_pragmas():  # one lock-wait policy for every SQLite file of a home
                await conn.execute(pragma)
            saver = SqliteCheckpointer(conn)
            saver.retention, saver.where = retention, where
            await saver.setup()
        except _db_errors() as exc:
            raise RunPersistenceError(f"checkpointer at {where}: cannot open: {describe(exc)}") from exc
        yield saver
        with contextlib.suppress(*_db_errors()):  # a clean exit leaves no write-ahead log
            for pragma in CLOSE_PRAGMAS:
                await conn.execute(pragma)
    finally:
        await conn.close()
