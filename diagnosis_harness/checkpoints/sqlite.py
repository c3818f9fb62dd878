"""LangGraph's async SQLite saver, its two writes each done in two trips to the database thread.

``aiosqlite`` runs every statement on the connection's own thread; each ``await`` on it is a
trip there and back through the event loop. The library saver spends four trips on a node's
writes (cursor, insert, commit, close) and three on a checkpoint (insert, close, commit). The
harness saves each checkpoint before the next node starts (durability ``sync``, three per
evidence step), so those trips were on every step's path. Here each write is the library's own
statement and rows through aiosqlite's public API: one ``executemany`` and one ``commit`` (a
rollback if either fails), so same tables, same bytes, same transaction boundaries.
``scripts/bench_checkpoints.py`` measures it against the library saver.
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


class TwoTripSqliteSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` whose ``aput`` and ``aput_writes`` each take two database trips."""

    async def _write_rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Run ``sql`` for each row and commit: one transaction, rolled back if it fails.

        ``setup`` only when the saver is not set up yet: the library's ``setup`` takes the
        saver's lock just to see ``is_setup`` and return, and with a server's runs sharing the
        connection that lock is mostly held by another write: every write waited for it twice.
        """
        if not self.is_setup:
            await self.setup()
        async with self.lock:
            try:
                await self.conn.executemany(sql, rows)
                await self.conn.commit()
            except BaseException:
                await asyncio.shield(self.conn.rollback())
                raise

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
