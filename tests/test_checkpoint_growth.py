"""What a thread's checkpoints hold, on the real SQLite checkpointer the CLI uses.

Checkpoints grow linearly with the steps of a run (messages and records are DeltaChannels,
records only an index), a fact's text is stored once (in the observation the model saw), and
time travel still works: every past checkpoint shows the state as it was, and a run forked
from one goes on to the same outcome.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from graphkit import CLAIMS, INC, INC_ROUTER, ROOT_CAUSE, TRUTH, call, demo_home, draft, judge, services_for
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from diagnosis_harness.run.records import run_records
from diagnosis_harness.session.hooked import session_graph as build_graph
from diagnosis_harness.session.runner import new_context, run_turn

EVIDENCE = [(e["tool"], e["args"]) for inc in TRUTH["incidents"] for e in inc["evidence"]]
"""Distinct evidence-finding calls on the demo data (INC-1's first: the claims cite them)."""


def steps(n: int) -> list[dict[str, Any]]:
    return [call(name, args, f"c{k + 1}", prev=f"c{k}" if k else None)
            for k, (name, args) in enumerate(EVIDENCE[:n])]


def script(n: int, extra: int = 0) -> dict[str, list[Any]]:
    """Router, n evidence steps, a draft citing INC-1's facts, the judge; ``extra`` spare turns."""
    tail = [*steps(n)[n - extra:], draft(ROOT_CAUSE, CLAIMS)] if extra else []
    return {"router": [INC_ROUTER], "agent": [*steps(n), draft(ROOT_CAUSE, CLAIMS), *tail],
            "judge": [judge(), judge()]}


async def _run(services: Any, path: Path, thread: str) -> dict[str, Any]:
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        return await run_turn(services, INC["question"], thread_id=thread, checkpointer=saver)


def test_checkpoint_bytes_grow_linearly_with_the_steps(tmp_path: Path) -> None:
    sizes = {}
    for n in (4, 8):
        path = tmp_path / f"n{n}.sqlite"
        out = asyncio.run(_run(services_for(demo_home(), script(n)), path, f"grow-{n}"))
        assert out["release_outcome"] == "SUCCESS" and out["usage"]["tool_calls"] == n
        sizes[n] = sum(len(b) for q in ("SELECT checkpoint FROM checkpoints",
                                        "SELECT metadata FROM checkpoints", "SELECT value FROM writes")
                       for b in _blobs(path, q))
    # Linear with a fixed part is under 2x for twice the steps; rewriting the accumulated
    # messages and records at every step made it ~3x.
    assert sizes[8] / sizes[4] < 2.0, sizes


def test_the_checkpoints_keep_no_copy_of_a_fact_beyond_what_the_model_saw(tmp_path: Path) -> None:
    path = tmp_path / "once.sqlite"
    services = services_for(demo_home(), script(6))
    out = asyncio.run(_run(services, path, "once"))
    assert out["release_outcome"] == "SUCCESS"
    records_writes = b"".join(_blobs(path, "SELECT value FROM writes WHERE channel = 'records'"))
    everything = b"".join(_blobs(path, "SELECT checkpoint FROM checkpoints")
                          + _blobs(path, "SELECT value FROM writes"))
    facts = [f["text"] for r in services.store.tool_records(out["run_id"]) for f in r["facts"]
             if f["evidence_id"] not in ("E1.2", "E2.1")]  # cited ones are also in the report
    assert len(facts) >= 5 and records_writes
    for text in facts:
        assert text.encode("utf-8") not in records_writes  # the records are an index
        # At most once (the observation the model saw may show it in another form): neither
        # the records nor the progress snapshot repeat it at every step any more.
        assert everything.count(text.encode("utf-8")) <= 1, text


def _blobs(path: Path, query: str) -> list[bytes]:
    conn = sqlite3.connect(path)
    try:
        return [bytes(b) for (b,) in conn.execute(query)]
    finally:
        conn.close()


def test_time_travel_shows_each_past_state_and_a_fork_reaches_the_same_outcome(tmp_path: Path) -> None:
    path = tmp_path / "travel.sqlite"
    services = services_for(demo_home(), script(3, extra=1))
    thread = "travel"
    config = {"configurable": {"thread_id": thread}}

    async def scenario() -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
        out = await _run(services, path, thread)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            graph = build_graph(saver)
            history = [s async for s in graph.aget_state_history(config)][::-1]  # oldest first
            # Fork from the checkpoint after the second tool gate: the third step runs again.
            fork = next(s for s in history if s.next == ("saturation_check",)
                        and len(s.values["records"]) == 2)
            ctx = new_context(services, thread_id=thread, run_id=out["run_id"])
            final: dict[str, Any] = {}
            async for chunk in graph.astream(None, fork.config, context=ctx, stream_mode="values"):
                final = chunk
        return out, history, final

    out, history, final = asyncio.run(scenario())
    assert out["release_outcome"] == "SUCCESS"
    calls = [[r["tool_call_id"] for r in s.values.get("records") or []] for s in history]
    assert calls[-1] == ["c1", "c2", "c3"]
    assert all(a == b[:len(a)] for a, b in zip(calls, calls[1:], strict=False))  # a growing prefix
    assert {len(c) for c in calls} == {0, 1, 2, 3}  # every step is a state of its own
    sizes = [len(s.values.get("messages") or []) for s in history]
    assert sizes == sorted(sizes) and sizes[-1] == 2 + 2 * 3 + 1  # opening, 3 x (call, result), draft
    # The fork went on from that past state to the same verified outcome.
    assert (final["release_outcome"], final["content"]) == (out["release_outcome"], out["content"])
    assert [r["tool_call_id"] for r in final["records"]] == ["c1", "c2", "c3"]
    records = run_records(services.store, out["run_id"], final["records"])
    assert [r.tool_call_id for r in records] == ["c1", "c2", "c3"]
