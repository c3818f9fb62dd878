"""A thread's ``records`` start empty each turn through LangGraph's ``Overwrite``, also across
the real SQLite checkpointer and a resume in a new process (a new saver on the same file)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from graphkit import (
    CLAIMS,
    COLLECT,
    EV,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    call,
    demo_home,
    draft,
    judge,
    services_for,
    stream_values,
)
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Overwrite

import diagnosis_harness.graph.builder
from diagnosis_harness.session.runner import new_context

SCRIPT = {"router": [INC_ROUTER, INC_ROUTER],
          "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS),  # turn 1: c1, c2 and a verified cause
                    call("query_mysql", EV[2]["args"], "t2"), draft(None)],  # turn 2: t2 only
          "judge": [judge()]}


def test_each_turn_starts_with_no_records_across_sqlite_checkpoints_and_a_resume(
        tmp_path: Path) -> None:
    services = services_for(demo_home(), SCRIPT)
    path = str(tmp_path / "checkpoints.sqlite")
    config = {"configurable": {"thread_id": "records"}}

    async def scenario() -> tuple[dict[str, Any], list[Any], list[Any], dict[str, Any]]:
        async with AsyncSqliteSaver.from_conn_string(path) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver)
            first = await stream_values(compiled, {"question": INC["question"]}, config,
                                  new_context(services, thread_id="records"))
            # Turn 2 stops right after route: its checkpoint is written to the file.
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                       interrupt_after=["route"])
            ctx = new_context(services, thread_id="records")
            await stream_values(compiled, {"question": INC["question"]}, config, ctx)
            after_route = (await compiled.aget_state(config)).values["records"]
            writes = [w for t in [t async for t in saver.alist(config)]
                      for w in t.pending_writes or [] if w[1] == "records"]
        # A new process: a new saver on the same file resumes turn 2.
        async with AsyncSqliteSaver.from_conn_string(path) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver)
            final = await stream_values(compiled, None, config,
                                  new_context(services, thread_id="records", run_id=ctx.run_id))
        return first, after_route, writes, final

    first, after_route, writes, final = asyncio.run(scenario())
    assert [r["tool_call_id"] for r in first["records"]] == ["c1", "c2"]
    assert first["release_outcome"] == "SUCCESS"
    assert after_route == []  # the first turn's records are gone once the second has routed
    # route's write went through the checkpointer's serialiser and came back as an Overwrite
    assert any(isinstance(value, Overwrite) and value.value == [] for _, _, value in writes)
    assert [r["tool_call_id"] for r in final["records"]] == ["t2"]
    assert final["release_outcome"] == "FALLBACK"
    assert ROOT_CAUSE in final["previous_turn"]  # what a turn keeps is kept
