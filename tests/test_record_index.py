"""The state's record index and the run store's facts: read back exactly, never guessed.

A checkpoint holds an index of each tool record (diagnosis_harness/run/records.py); the facts are in the run
store. An index entry edited in a checkpoint (Studio, ``update_state``) is backed by no stored
record: the guards leave it out and release publishes nothing (EVIDENCE_TAMPERED), wherever in
the run the edit was made. A model that repeats a tool-call id gets each of its calls back.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from graphkit import (
    CLAIMS,
    COLLECT,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    checkpointer_for,
    demo_home,
    draft,
    judge,
    services_for,
)

import diagnosis_harness.graph.builder
from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.run.records import backs, index_entry, resolve
from diagnosis_harness.session.run_session import RunSession
from diagnosis_harness.session.runner import new_context

ROW1 = {"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)], "judge": [judge()]}


async def _stream(compiled: Any, payload: Any, config: dict[str, Any], ctx: Any) -> dict[str, Any]:
    final: dict[str, Any] = {}
    async for chunk in RunSession(compiled).stream(payload, config, context=ctx, stream_mode="values"):
        final = chunk
    return final


def test_an_index_entry_edited_before_the_guards_publishes_nothing() -> None:
    services = services_for(demo_home(), ROW1)
    thread = "edited-index"
    config: Any = {"configurable": {"thread_id": thread}}
    first = new_context(services, thread_id=thread)

    async def scenario() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                       interrupt_before=["evidence_guard"])
            await _stream(compiled, {"question": INC["question"]}, config, first)
            values = (await compiled.aget_state(config)).values
            edited = copy.deepcopy(values["records"][1])
            edited["evidence_ids"] = [*edited["evidence_ids"], "E2.9"]  # a fact never returned
            await compiled.aupdate_state(config, {"records": [edited]}, as_node="draft_parse")
            return await _stream(compiled, None, config,
                                 new_context(services, thread_id=thread, run_id=first.run_id))

    final = asyncio.run(scenario())
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)
    failure = next(e for e in final["events"] if e["event"] == "failure")
    assert "record c2 (query_mysql) is not what the tool returned" in failure["message"]
    assert services.store.get_run(first.run_id)["release_outcome"] == "FAILED"


def _record(call_id: str, ready: int, text: str) -> ToolRecord:
    return ToolRecord(tool_call_id=call_id, tool="query_logs", args={}, scope={"q": text},
                      invocation_status=InvocationStatus.READY,
                      evidence_status=EvidenceStatus.EVIDENCE_FOUND, ready_index=ready,
                      facts=[Fact(evidence_id=f"E{ready}.1", kind="log_event", text=text)])


def test_a_repeated_call_id_resolves_to_each_call_and_a_pasted_fact_to_none() -> None:
    one, two = _record("c1", 1, "first"), _record("c1", 2, "second")
    rows = [r.model_dump(mode="json") for r in (one, two)]
    records, problems = resolve([index_entry(one), index_entry(two)], rows)
    assert [r.facts[0].text for r in records] == ["first", "second"] and problems == []
    pasted = {**index_entry(one), "facts": [{"evidence_id": "E1.1", "text": "edited"}]}
    records, problems = resolve([pasted], rows)
    assert records == [] and problems == ["record c1 (query_logs) is not what the tool returned "
                                          "in this run"]
    # A whole record in state (a checkpoint written before the index) counts if it is exact.
    assert resolve([rows[0]], rows) == ([one], [])


def test_a_failed_calls_entry_carries_its_code_and_older_entries_still_back() -> None:
    refused = ToolRecord(tool_call_id="c2", tool="query_mysql", args={"sql": "x"},
                         scope={"sql": "x"}, invocation_status=InvocationStatus.ERROR,
                         evidence_status=EvidenceStatus.ERROR,
                         error="rejected_sql: only SELECT queries are allowed")
    entry = index_entry(refused)
    assert entry["error_code"] == "rejected_sql"
    # A checkpoint written before entries had codes resumes: its entry still backs the record.
    older = {k: v for k, v in entry.items() if k != "error_code"}
    assert backs(older, refused) and backs(entry, refused)
    # An edited code is not what the tool returned.
    assert not backs({**entry, "error_code": "timeout"}, refused)
