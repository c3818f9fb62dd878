"""The SQLite saver commits writes that wait together in one transaction, each as it was alone.

A server's runs share the checkpointer's connection; their writes queue for it and whoever gets
it commits every queued write at once (diagnosis_harness/checkpoints/sqlite.py). What a write
promises must not change: committed when its ``await`` returns, all of its rows or none, failing
only by its own fault, and never made if it is cancelled before a batch took it.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.base.id import uuid6

from diagnosis_harness.checkpoints.savers import SqliteCheckpointer, sqlite_checkpointer
from diagnosis_harness.runstore.store import RunPersistenceError


def _config(thread_id: str) -> dict[str, dict[str, str]]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


async def _put(saver: SqliteCheckpointer, thread_id: str, step: int) -> str:
    checkpoint = {**empty_checkpoint(), "id": str(uuid6()),
                  "channel_values": {"count": step}}
    out = await saver.aput(_config(thread_id), checkpoint, {"source": "loop", "step": step,
                                                            "parents": {}}, {})
    await saver.aput_writes(out, [("count", step), ("note", f"step {step}")], f"task-{step}")
    return str(checkpoint["id"])


def test_concurrent_writes_are_all_committed_and_read_back(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, int]:
        async with sqlite_checkpointer(tmp_path / "c.sqlite", retention="all") as saver:
            threads = [str(uuid.uuid4()) for _ in range(20)]

            async def run(thread_id: str) -> list[str]:
                return [await _put(saver, thread_id, step) for step in range(5)]

            ids = await asyncio.gather(*(run(t) for t in threads))
            found = 0
            for thread_id, written in zip(threads, ids, strict=True):
                latest = await saver.aget_tuple(_config(thread_id))
                assert latest is not None and latest.checkpoint["id"] == written[-1]
                assert latest.checkpoint["channel_values"] == {"count": 4}
                assert [(t, c, v) for t, c, v in latest.pending_writes] == [
                    ("task-4", "count", 4), ("task-4", "note", "step 4")]
                found += len([c async for c in saver.alist(_config(thread_id))])
            async with saver.conn.execute("SELECT count(*) FROM writes") as cur:
                writes = (await cur.fetchone())[0]
            return found, writes, len(threads)

    found, writes, threads = asyncio.run(scenario())
    assert found == threads * 5
    assert writes == threads * 5 * 2


def test_a_faulty_write_fails_alone_and_its_batch_is_committed(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[object], int]:
        async with sqlite_checkpointer(tmp_path / "c.sqlite", retention="all") as saver:
            async def good(i: int) -> str:
                return await _put(saver, f"thread-{i}", 0)

            async def faulty() -> None:  # a statement that cannot run, queued among good ones
                await saver._write_rows("INSERT INTO no_such_table VALUES (?)", [(1,)])

            outcomes = await asyncio.gather(good(0), good(1), faulty(), good(2), good(3),
                                            return_exceptions=True)
            async with saver.conn.execute("SELECT count(*) FROM checkpoints") as cur:
                saved = (await cur.fetchone())[0]
            return outcomes, saved

    outcomes, saved = asyncio.run(scenario())
    assert [isinstance(o, str) for o in outcomes] == [True, True, False, True, True]
    assert "no_such_table" in str(outcomes[2])
    assert saved == 4


def test_a_write_cancelled_while_queued_is_never_made(tmp_path: Path) -> None:
    async def scenario() -> int:
        async with sqlite_checkpointer(tmp_path / "c.sqlite", retention="all") as saver:
            async with saver.lock:  # the connection is busy: the write queues for it
                queued = asyncio.ensure_future(_put(saver, "cancelled", 0))
                await asyncio.sleep(0.01)
                queued.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await queued
            await _put(saver, "after", 0)  # the next write's batch does not carry it
            async with saver.conn.execute(
                    "SELECT count(*) FROM checkpoints WHERE thread_id = 'cancelled'") as cur:
                return (await cur.fetchone())[0]

    assert asyncio.run(scenario()) == 0


def test_a_failing_database_still_fails_every_write_classified(tmp_path: Path) -> None:
    async def scenario() -> list[object]:
        async with sqlite_checkpointer(tmp_path / "c.sqlite", retention="all") as saver:
            await saver.conn.execute("DROP TABLE checkpoints")
            return await asyncio.gather(*(_put(saver, f"t{i}", 0) for i in range(3)),
                                        return_exceptions=True)

    outcomes = asyncio.run(scenario())
    assert all(isinstance(o, RunPersistenceError) for o in outcomes)
