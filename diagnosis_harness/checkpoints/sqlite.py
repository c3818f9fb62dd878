"""LangGraph's async SQLite saver, its two writes each done in one trip to the database thread.

``aiosqlite`` runs every statement on the connection's own thread; each ``await`` on it is a
trip there and back through the event loop. The library saver spends four trips on a node's
writes (cursor, insert, commit, close) and three on a checkpoint (insert, close, commit). The
harness saves each checkpoint before the next node starts (durability ``sync``, three per
evidence step), so those trips were on every step's path. Here each write is the library's own
statement and rows, executed and committed in one trip: same tables, same bytes, same
transaction boundaries.
"""

from __future__ import annotations

import json
import sqlite3
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


def _commit_rows(conn: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """Run ``sql`` for each row and commit (on the connection's own thread)."""
    try:
        conn.executemany(sql, rows)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


class OneTripSqliteSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` whose ``aput`` and ``aput_writes`` each take one database trip."""

    async def _one_trip(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        await self.setup()
        async with self.lock:
            # aiosqlite's way of running a function on its thread (what every await uses).
            await self.conn._execute(lambda: _commit_rows(self.conn._conn, sql, rows))

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint,
                   metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        """Save a checkpoint, as the library saver does."""
        thread_id = config["configurable"]["thread_id"]
        checkpoint_ns = config["configurable"]["checkpoint_ns"]
        type_, serialized = self.serde.dumps_typed(checkpoint)
        meta = json.dumps(get_checkpoint_metadata(config, metadata),
                          ensure_ascii=False).encode("utf-8", "ignore")
        await self._one_trip(_PUT, [(str(thread_id), checkpoint_ns, checkpoint["id"],
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
        await self._one_trip(verb + _WRITES, rows)
