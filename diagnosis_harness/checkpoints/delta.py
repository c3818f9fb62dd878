"""Pruning a thread whose state has DeltaChannels: the kept checkpoint must stand on its own.

``messages`` and ``records`` are LangGraph ``DeltaChannel`` channels (``diagnosis_harness/run/state.py``): a
checkpoint stores only each step's writes, and a channel's value is rebuilt by walking the
checkpoint's ancestors back to the nearest snapshot. Keeping only a thread's latest checkpoint
would cut that walk: the kept state would read back with no messages and no records (the
SQLite saver's rows were simply deleted; the Postgres saver's own ``keep_latest`` refuses such
threads). So before its ancestors go, the checkpoint that is kept gets a snapshot of every
delta channel — the value LangGraph rebuilds, stored as the channel's plain value, a blob form
``DeltaChannel.from_checkpoint`` restores directly and where the saver's history walk stops — and
only checkpoints *older than it* are deleted: one a run saves meanwhile is newer,
and its walk stops at the snapshot.
"""

from __future__ import annotations

import typing
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver

from diagnosis_harness.run.state import DiagnosisState


def delta_channels() -> dict[str, DeltaChannel[Any]]:
    """The state's DeltaChannel fields, as the graph declares them."""
    hints = typing.get_type_hints(DiagnosisState, include_extras=True)
    return {name: spec for name, hint in hints.items()
            for spec in getattr(hint, "__metadata__", ()) if isinstance(spec, DeltaChannel)}


_DELTAS = delta_channels()


async def snapshot_head(saver: BaseCheckpointSaver, base: type[BaseCheckpointSaver],  # type: ignore[type-arg]
                        thread_id: str) -> str | None:
    """Give the thread's latest root checkpoint a snapshot of each delta channel; its id.

    ``base`` is the library saver whose ``aput`` writes the checkpoint again (the harness's own
    ``aput`` would prune once more). None: the thread has no checkpoint.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    head = await saver.aget_tuple(config)
    if head is None:
        return None
    checkpoint = head.checkpoint
    head_id = str(checkpoint["id"])
    values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
    missing = [name for name in _DELTAS if name in versions and name not in values]
    if not missing:
        return head_id  # never written, or a snapshot (or a plain value) is there already
    history = await saver.aget_delta_channel_history(config=head.config, channels=missing)
    rebuilt = {}
    for name in missing:  # exactly as LangGraph rebuilds a value on read
        channel = _DELTAS[name].from_checkpoint(history[name].get("seed"))
        channel.replay_writes(history[name]["writes"])
        # Written as the plain value, which ``DeltaChannel.from_checkpoint`` restores directly
        # (its documented blob form besides LangGraph's own snapshot type, which is private).
        rebuilt[name] = channel.get()
    parent = head.parent_config or {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    await base.aput(saver, parent, {**checkpoint, "channel_values": {**values, **rebuilt}},
                    head.metadata, {name: versions[name] for name in missing})
    return head_id
