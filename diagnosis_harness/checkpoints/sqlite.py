"""LangGraph's async SQLite saver, its writes committed together when they wait together.

``aiosqlite`` runs every statement on the connection's own thread; each ``await`` on it is a
trip there and back through the event loop (~0.08 ms of CPU, two thread hand-offs). The library
saver spends four trips on a node's writes (cursor, insert, commit, close) and three on a
checkpoint (insert, close, commit). The harness saves each checkpoint before the next node
starts (durability ``sync``, three per evidence step), so those trips were on every step's path.
Here each write is the library's own statement and rows through aiosqlite's public API: one
``executemany`` and one ``commit`` (a rollback if either fails), so same tables, same bytes.

A server's runs share one connection and the saver's lock, so their writes queue for it. A
write that finds others queued with it is committed with them (group commit): whoever gets the
lock runs every queued write's statements in order (consecutive rows of one statement in one
``executemany``) and commits once. 20 concurrent runs' writes cost ~0.14 ms of CPU each that
way instead of ~0.40 (``scripts/bench_checkpoints.py`` and docs/benchmarks.md). What a write
promises is unchanged: when its ``await`` returns it is committed, all of its rows or none; a
batch that fails is rolled back and its writes are retried one transaction each, so a write
fails only by its own fault, as it did alone. A write cancelled before a batch took it is never
made; one that is alone when it gets the connection is rolled back if cancelled, as always; one
that a batch took completes with it (as a write cancelled during its own commit always did).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

_PUT = ("INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
        "parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)")
_WRITES = ("INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, "
           "channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")


class _Write:
    """One write waiting for the connection: its statement, rows and outcome."""

    __slots__ = ("done", "rows", "sql")

    def __init__(self, sql: str, rows: list[tuple[Any, ...]], done: asyncio.Future[None]) -> None:
        self.sql, self.rows, self.done = sql, rows, done


class TwoTripSqliteSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` whose writes take two database trips, or share them (group commit)."""

    _queued: list[_Write] | None = None

    async def _write_rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Run ``sql`` for each row and commit: one transaction, rolled back if it fails.

        Writes queued for the lock together are committed in one transaction (module doc).
        ``setup`` only when the saver is not set up yet: the library's ``setup`` takes the
        saver's lock just to see ``is_setup`` and return, and with a server's runs sharing the
        connection that lock is mostly held by another write: every write waited for it twice.
        """
        if not self.is_setup:
            await self.setup()
        if self._queued is None:
            self._queued = []
        write = _Write(sql, rows, asyncio.get_running_loop().create_future())
        self._queued.append(write)
        try:
            async with self.lock:
                if not write.done.done():  # no batch took it while it waited: it leads one
                    batch, self._queued = self._queued, []
                    if len(batch) == 1:  # alone (a CLI run, a quiet server): as it always was
                        await self._alone(write)
                        return
                    await _uncancelled(asyncio.ensure_future(self._commit(batch)))
        except asyncio.CancelledError:
            if write in self._queued:  # not taken by a batch: never made
                self._queued.remove(write)
            raise
        write.done.result()  # raises what made this write fail

    async def _alone(self, write: _Write) -> None:
        """One write, one transaction: rolled back if it fails or is cancelled."""
        try:
            await self.conn.executemany(write.sql, write.rows)
            await self.conn.commit()
        except BaseException:
            await asyncio.shield(self.conn.rollback())
            raise

    async def _commit(self, batch: list[_Write]) -> None:
        """Commit ``batch`` in one transaction; if it fails, each write in its own."""
        try:
            try:
                await self._run(batch)
            except BaseException as exc:
                await self.conn.rollback()
                if len(batch) == 1:
                    _settle(batch[0], exc)
                    return
                for write in batch:  # alone, as it would have been: only a faulty write fails
                    try:
                        await self._run([write])
                    except BaseException as alone:
                        await self.conn.rollback()
                        _settle(write, alone)
                    else:
                        _settle(write, None)
                return
            for write in batch:
                _settle(write, None)
        except BaseException as exc:  # a rollback that failed: no write of the batch is known made
            for write in batch:
                _settle(write, exc)
            raise

    async def _run(self, batch: list[_Write]) -> None:
        """The batch's statements, in order (rows of consecutive equal statements together); commit."""
        start = 0
        while start < len(batch):
            end, rows = start, []
            while end < len(batch) and batch[end].sql == batch[start].sql:
                rows += batch[end].rows
                end += 1
            await self.conn.executemany(batch[start].sql, rows)
            start = end
        await self.conn.commit()

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint,
                   metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        """Save a checkpoint, as the library saver does."""
        thread_id = config["configurable"]["thread_id"]
        checkpoint_ns = config["configurable"]["checkpoint_ns"]
        type_, serialized = self.serde.dumps_typed(checkpoint)
        meta = json.dumps(get_checkpoint_metadata(config, metadata),
                          ensure_ascii=False).encode("utf-8", "ignore")
        await self._write_rows(_PUT, [(str(thread_id), checkpoint_ns, checkpoint["id"],
                                     config["configurable"].get("checkpoint_id"), type_,
                                     serialized, meta)])
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint["id"]}}

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]],
                          task_id: str, task_path: str = "") -> None:
        """Save a node's writes, as the library saver does (special channels replace)."""
        verb = "INSERT OR REPLACE " if all(w[0] in WRITES_IDX_MAP for w in writes) else "INSERT OR IGNORE "
        configurable = config["configurable"]
        rows = [(str(configurable["thread_id"]), str(configurable["checkpoint_ns"]),
                 str(configurable["checkpoint_id"]), task_id, task_path,
                 WRITES_IDX_MAP.get(channel, idx), channel, *self.serde.dumps_typed(value))
                for idx, (channel, value) in enumerate(writes)]
        await self._write_rows(verb + _WRITES, rows)


def _settle(write: _Write, exc: BaseException | None) -> None:
    if not write.done.done():
        if exc is None:
            write.done.set_result(None)
        else:
            write.done.set_exception(exc)


async def _uncancelled(task: asyncio.Future[None]) -> None:
    """Wait for ``task`` to the end, even if cancelled meanwhile (then re-raise the cancel).

    The batch carries other runs' writes and holds the connection's transaction open: the lock
    is kept until it is committed or rolled back.
    """
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                break
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError

