"""A checkpoint holds plain values only: no harness type a future LangGraph would refuse to load.

LangGraph warns today ("Deserializing unregistered type … FailureClass") and will block such
types; a run whose judge or repair failed put the failure's enum into its state, so resuming
it warned. Every value checkpointed must come back as the JSON types it was written as.
"""

from __future__ import annotations

import asyncio
import enum
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness import ReplayScript, build_graph, make_context

Q = "payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on 2026-11-02 — why?"
SCOPE = {"service": "payment-service", "merchant": "M1001", "start": "2026-11-02T10:00:00+00:00",
         "end": "2026-11-02T10:10:00+00:00"}
LOGS = {"service": "payment-service", "start": "2026-11-02T09:50:00+00:00",
        "end": "2026-11-02T10:10:00+00:00", "pattern": "config reloaded"}


def _custom_types(value: Any, path: str = "") -> list[str]:
    if isinstance(value, enum.Enum):
        return [f"{path}: {type(value).__module__}.{type(value).__qualname__}"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _custom_types(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _custom_types(v, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize("failing", ["judge", "repair"])
def test_a_failed_attempt_leaves_only_plain_values_in_every_checkpoint(tmp_path: Path,
                                                                       failing: str) -> None:
    script = ReplayScript().route(**SCOPE).call("query_logs", LOGS)
    if failing == "judge":
        script = script.draft("pool exhausted", {"config reloaded": ["E1.1"]}).fail("judge", "timeout")
        script = script.fail("judge", "timeout")
    else:  # a draft citing an id nobody returned goes to repair, which fails
        script = script.draft("pool exhausted", {"config reloaded": ["E9.9"]}).fail("repair", "timeout")
    saver = InMemorySaver()
    graph = build_graph(saver)
    ctx = make_context(model=script, home=tmp_path / "home")
    config = {"configurable": {"thread_id": ctx.thread_id}}

    async def run() -> list[Any]:
        await graph.ainvoke({"question": Q}, config, context=ctx)
        return [snapshot async for snapshot in graph.aget_state_history(config)]

    history = asyncio.run(run())
    assert history and history[0].values["release_outcome"] == "FALLBACK"
    found = [p for snapshot in history for p in _custom_types(snapshot.values)]
    assert found == []
