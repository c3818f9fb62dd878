"""Node functions called directly on hand-built state with a real run context (no graph).

Each test feeds a node the state the graph would give it and checks the update it returns:
what the agent will see next, what is recorded, and which stop (if any) goes to release.
Updates are applied through the compiled graph's own channels, so the reducers under test are
the real ones (``add_messages``, the records reducer, ``Overwrite``), not a copy of them.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest
from graphkit import EMPTY_LOGS, EMPTY_SQL, EV, INC, INC_ROUTER, demo_home, services_for
from langchain_core.messages import AIMessage, ToolMessage

import diagnosis_harness.graph.builder
from diagnosis_harness.nodes.draft_parse import draft_parse
from diagnosis_harness.nodes.route import route
from diagnosis_harness.nodes.saturation_check import saturation_check
from diagnosis_harness.nodes.tool_gate import tool_gate
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.session.runner import new_context

CHANNELS = diagnosis_harness.graph.builder.builder().channels
"""The graph's own state channels: each field's reducer (or last-write-wins) as LangGraph runs it."""


def runtime(script: dict[str, list[Any]] | None = None, **settings: Any) -> Any:
    ctx = new_context(services_for(demo_home(), script or {}, **settings), thread_id="unit")
    return SimpleNamespace(context=ctx)


def ctx_of(rt: Any) -> RunContext:
    return rt.context  # type: ignore[no-any-return]


def turn(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"}
                                     for n, a, i in calls])


def envelope(prev: str, gain: str = "GAINED") -> dict[str, Any]:
    return {"previous_observation": {"tool_call_id": prev, "gain": gain, "note": "n"}}


def apply(state: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The state after LangGraph applied one node's ``update`` through the graph's channels."""
    new = dict(state)
    for key, value in update.items():
        channel = CHANNELS[key].from_checkpoint(state[key]) if key in state else CHANNELS[key].copy()
        channel.update([value])
        new[key] = channel.get()
    return new


def gate(rt: Any, state: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """Run tool_gate for the agent's ``reply``; return the state after it."""
    before = apply(state, {"messages": [reply]})
    return apply(before, asyncio.run(tool_gate(before, rt)))


def observation(state: dict[str, Any], call_id: str) -> dict[str, Any]:
    [msg] = [m for m in state["messages"] if isinstance(m, ToolMessage)
             and m.tool_call_id == call_id]
    return json.loads(msg.content)  # type: ignore[no-any-return]


# --- the state's channels ------------------------------------------------------------------


def test_records_and_messages_accumulate_other_fields_are_replaced() -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    state = gate(rt, state, turn(("query_mysql", {**EV[1]["args"], **envelope("c1")}, "c2")))
    assert [r["tool_call_id"] for r in state["records"]] == ["c1", "c2"]
    assert [type(m).__name__ for m in state["messages"]] == ["AIMessage", "ToolMessage"] * 2
    assert state["last_evidence_call"] == "c2" and state["usage"]["tool_calls"] == 2


def test_route_starts_a_new_run_clean_and_keeps_the_threads_last_success() -> None:
    rt = runtime({"router": [INC_ROUTER]})
    previous = gate(runtime(), {}, turn(("query_logs", EV[0]["args"], "c1")))
    previous = {**previous, "question": INC["question"], "last_success": "the verified cause",
                "no_gain_streak": 2, "stop": {"kind": "controlled"}, "content": "old report"}
    state = apply(previous, asyncio.run(route(previous, rt)))
    assert previous["records"] and state["records"] == []  # Overwrite([]) bypassed the reducer
    assert [type(m).__name__ for m in state["messages"]] == ["SystemMessage", "HumanMessage"]
    assert (state["stop"], state["content"], state["no_gain_streak"]) == (None, None, 0)
    assert state["previous_turn"] == state["last_success"] == "the verified cause"
    state = gate(rt, state, turn(("query_logs", EV[0]["args"], "c1")))
    assert [r["tool_call_id"] for r in state["records"]] == ["c1"]  # and then accumulates


# --- tool_gate -----------------------------------------------------------------------------


def test_tool_gate_runs_the_turns_calls_in_order_and_numbers_their_evidence() -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1"),
                              ("query_mysql", {**EV[1]["args"], **envelope("c1")}, "c2")))
    assert [r["tool_call_id"] for r in state["records"]] == ["c1", "c2"]
    assert [r["ready_index"] for r in state["records"]] == [1, 2]
    assert [i["evidence_id"] for i in observation(state, "c2")["items"]] == ["E2.1"]
    assert state["usage"]["tool_calls"] == 2
    assert state["last_evidence_call"] == "c2" and state["no_gain_streak"] == 0
    stored = ctx_of(rt).store.trace(ctx_of(rt).run_id)["tool_records"]
    assert [r["tool_call_id"] for r in stored] == ["c1", "c2"]


@pytest.mark.parametrize(("bad", "problem"), [
    ({}, "previous_observation is missing"),
    (envelope("c9"), "tool_call_id must be 'c1'"),
    ({"previous_observation": {"tool_call_id": "c1", "gain": "MAYBE"}}, "malformed"),
    ({"previous_observation": "c1"}, "malformed"),
])
def test_tool_gate_refuses_a_call_without_a_valid_progress_envelope(
        bad: dict[str, Any], problem: str) -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    state = gate(rt, state, turn(("query_mysql", {**EV[1]["args"], **bad}, "c2")))
    body = observation(state, "c2")
    assert "progress protocol violation" in body["error"] and problem in body["error"]
    assert "items" not in body  # not executed: no evidence, no record, no budget spent
    assert [r["tool_call_id"] for r in state["records"]] == ["c1"]
    assert state["usage"]["tool_calls"] == 1
    assert state["violation_streak"] == 1
    assert state["last_evidence_call"] == "c1"  # the next call must still name c1


def test_tool_gate_protocol_violations_saturate_at_the_threshold_and_a_valid_call_resets() -> None:
    rt = runtime(protocol_violation_threshold=2)
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    state = gate(rt, state, turn(("query_mysql", EV[1]["args"], "c2")))
    assert state["collection_state"] == "COLLECTING"
    state = gate(rt, state, turn(("query_mysql", {**EV[1]["args"], **envelope("c1")}, "c3")))
    assert state["violation_streak"] == 0  # a valid envelope resets the streak
    state = gate(rt, state, turn(("query_mysql", EV[2]["args"], "c4"),
                                 ("query_mysql", EV[2]["args"], "c5")))
    assert state["violation_streak"] == 2
    assert (state["collection_state"], state["stop_reason"]) == ("SATURATED",
                                                                 "PROGRESS_PROTOCOL_VIOLATED")
    assert "stop" not in state  # the stop itself is delivered by saturation_check, once


def test_tool_gate_does_not_execute_the_same_normalised_scope_twice() -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    args = EV[0]["args"]
    respelled = {**args, "service": args["service"].upper(),
                 "start": args["start"].replace("+00:00", "Z"), "end": args["end"],
                 "limit": ctx_of(rt).settings.log_events_default_limit}
    state = gate(rt, state, turn(("query_logs", {**respelled, **envelope("c1")}, "c2")))
    body = observation(state, "c2")
    assert body["status"] == "DUPLICATE_SCOPE" and "items" not in body
    assert [r["tool_call_id"] for r in state["records"]] == ["c1"]
    assert state["usage"]["tool_calls"] == 1
    # c1 found evidence and the agent said GAINED (0); the duplicate is NO_GAIN (1).
    assert state["no_gain_streak"] == 1
    assert state["last_evidence_call"] == "c2"  # the agent answers for the duplicate next


def test_tool_gate_does_not_resend_a_scope_the_tool_refused() -> None:
    # A refusal is the same whatever the moment (rejected SQL): the repeat is a duplicate.
    # A timeout or a backend's trouble is sent again (test_gate_order: only a refusal for good).
    rt = runtime()
    bad = {"sql": "SELECT * FROM no_such_table"}
    state = gate(rt, {}, turn(("query_mysql", bad, "c1")))
    state = gate(rt, state, turn(("query_mysql", {**bad, **envelope("c1", "NO_GAIN")}, "c2")))
    assert [r["invocation_status"] for r in state["records"]] == ["ERROR"]
    assert state["records"][0]["error_code"] == "rejected_sql"
    assert state["no_gain_streak"] == 2 and state["usage"]["tool_calls"] == 1
    body = observation(state, "c2")
    assert body["status"] == "DUPLICATE_SCOPE" and body["same_as"] == "c1"


def test_tool_gate_counts_the_agents_gain_verdict_for_every_ready_result() -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    state = gate(rt, state, turn(("query_mysql", {**EV[1]["args"], **envelope("c1", "NO_GAIN")},
                                  "c2")))
    assert state["no_gain_streak"] == 1  # the agent judged c1's evidence NO_GAIN
    state = gate(rt, state, turn(("query_mysql", {**EV[2]["args"], **envelope("c2", "GAINED")},
                                  "c3")))
    assert state["no_gain_streak"] == 0  # GAINED on c2's evidence resets the streak
    state = gate(rt, state, turn(("query_logs", {**EMPTY_LOGS, **envelope("c3", "GAINED")},
                                  "c4")))
    # c4 found nothing: "nothing there" is an answer, not saturation by itself (issue 40: an
    # empty result ended a run's collection after 4 of 10 calls).
    assert state["no_gain_streak"] == 0
    state = gate(rt, state, turn(("query_mysql", {**EMPTY_SQL, **envelope("c4", "NO_GAIN")},
                                  "c5")))
    assert state["no_gain_streak"] == 1  # the agent's own verdict on the empty c4 counts
    state = gate(rt, state, turn(("query_mysql", {"sql": "DELETE FROM deploys",
                                                  **envelope("c5", "GAINED")}, "c6")))
    assert state["no_gain_streak"] == 1  # GAINED on the empty c5 resets, the refused c6 counts


def test_tool_gate_answers_an_unknown_tool_without_running_anything() -> None:
    rt = runtime()
    state = gate(rt, {}, turn(("delete_logs", {"service": "x"}, "c1")))
    assert "unknown tool 'delete_logs'" in observation(state, "c1")["error"]
    assert state["records"] == [] and state["usage"]["tool_calls"] == 0


def test_tool_gate_stops_a_call_after_stop_required_was_delivered() -> None:
    rt = runtime()
    state = {"collection_state": "SATURATED", "stop_delivered": True,
             "stop_reason": "INFORMATION_SATURATED", "last_evidence_call": "c1"}
    state = gate(rt, state, turn(("query_mysql", {**EV[1]["args"], **envelope("c1")}, "c2")))
    assert state["stop"]["kind"] == "controlled" and state["stop"]["run_state"] == "SUCCESS"
    assert state["records"] == [] and state.get("usage", {}).get("tool_calls", 0) == 0


def test_tool_gate_lets_the_call_that_saturates_run_until_the_stop_is_delivered() -> None:
    rt = runtime()
    state = {"collection_state": "SATURATED", "stop_delivered": False,
             "stop_reason": "INFORMATION_SATURATED"}
    state = gate(rt, state, turn(("query_logs", EV[0]["args"], "c1")))
    assert "stop" not in state and [r["tool_call_id"] for r in state["records"]] == ["c1"]


# --- saturation_check ----------------------------------------------------------------------


def _after_calls(rt: Any, no_gain: int, **extra: Any) -> dict[str, Any]:
    state = gate(rt, {}, turn(("query_logs", EV[0]["args"], "c1")))
    return {**state, "no_gain_streak": no_gain, **extra}


def test_saturation_check_below_the_threshold_keeps_collecting() -> None:
    rt = runtime(saturation_threshold=3)
    state = _after_calls(rt, 2)
    update = asyncio.run(saturation_check(state, rt))
    assert "messages" not in update and "collection_state" not in update
    assert [f["evidence_id"] for f in update["progress"]["facts"]] == ["E1.1", "E1.2"]


def test_saturation_check_delivers_stop_required_exactly_once() -> None:
    rt = runtime(saturation_threshold=3)
    state = _after_calls(rt, 3)
    update = asyncio.run(saturation_check(state, rt))
    assert (update["collection_state"], update["stop_reason"]) == ("SATURATED",
                                                                   "INFORMATION_SATURATED")
    assert update["stop_delivered"] is True
    [flagged] = update["messages"]
    last = state["messages"][-1]
    assert (flagged.id, flagged.tool_call_id) == (last.id, last.tool_call_id)  # replaces it
    body = json.loads(flagged.content)
    assert body["stop_required"] is True and body["stop_reason"] == "INFORMATION_SATURATED"
    assert body["items"] == json.loads(last.content)["items"]  # the evidence is still shown
    state = apply(state, update)
    assert sum("stop_required" in m.content for m in state["messages"]
               if isinstance(m, ToolMessage)) == 1
    # The agent keeps going (e.g. a duplicate): the stop is not shown a second time.
    state = gate(rt, state, turn(("query_logs", {**EMPTY_LOGS, **envelope("c1")}, "c2")))
    again = asyncio.run(saturation_check({**state, "stop": None}, rt))
    assert "messages" not in again and "stop_delivered" not in again


def test_saturation_check_stops_collection_when_the_tool_budget_is_spent() -> None:
    rt = runtime(max_tool_calls=1)
    state = _after_calls(rt, 0)
    update = asyncio.run(saturation_check(state, rt))
    assert update["stop_reason"] == "BUDGET_LIMIT_REACHED" and update["stop_delivered"] is True
    assert json.loads(update["messages"][0].content)["stop_reason"] == "BUDGET_LIMIT_REACHED"


def test_saturation_check_delivers_a_protocol_stop_with_its_reason() -> None:
    rt = runtime()
    state = _after_calls(rt, 0, collection_state="SATURATED",
                         stop_reason="PROGRESS_PROTOCOL_VIOLATED")
    update = asyncio.run(saturation_check(state, rt))
    assert json.loads(update["messages"][0].content)["stop_reason"] == "PROGRESS_PROTOCOL_VIOLATED"
    assert "stop_reason" not in update or update["stop_reason"] == "PROGRESS_PROTOCOL_VIOLATED"


# --- draft_parse ---------------------------------------------------------------------------

VALID = {"conclusion": {"root_cause": "pool exhausted",
                        "claims": [{"statement": "s", "evidence_ids": ["E1.2"]}]},
         "next_steps": []}


@pytest.mark.parametrize(("content", "error"), [
    ("", "EMPTY_DRAFT"),
    ("  \n ", "EMPTY_DRAFT"),
    ("```json\n```", "EMPTY_DRAFT"),
    ("the pool is exhausted", "INVALID_JSON"),
    (json.dumps(VALID) + " thanks!", "INVALID_JSON"),
    (json.dumps([VALID]), "INVALID_JSON"),
    (json.dumps({"conclusion": None}), "SCHEMA_INVALID"),
    (json.dumps({**VALID, "confidence": 0.9}), "SCHEMA_INVALID"),
    (json.dumps({**VALID, "conclusion": {"root_cause": "x", "claims": []}}), "SCHEMA_INVALID"),
    (json.dumps({**VALID, "conclusion": {"root_cause": "x",
                                         "claims": [{"statement": "s", "evidence_ids": []}]}}),
     "SCHEMA_INVALID"),
])
def test_draft_parse_classifies_invalid_drafts(content: str, error: str) -> None:
    rt = runtime()
    update = asyncio.run(draft_parse({"messages": [AIMessage(content)]}, rt))
    assert update["draft"] is None and update["draft_error"]["error"] == error
    assert "stop" not in update


@pytest.mark.parametrize("content", [json.dumps(VALID), f"```json\n{json.dumps(VALID)}\n```",
                                     json.dumps({"conclusion": None, "next_steps": ["x"]})])
def test_draft_parse_accepts_a_valid_draft_and_counts_its_bytes(content: str) -> None:
    rt = runtime()
    update = asyncio.run(draft_parse({"messages": [AIMessage(content)],
                                      "usage": {"bytes": 10}}, rt))
    assert update["draft_error"] is None
    assert update["draft"]["conclusion"] == json.loads(content.strip("`json\n"))["conclusion"]
    assert update["usage"]["bytes"] == 10 + len(content.encode())


def test_draft_parse_refuses_an_oversize_draft_and_stops_when_the_run_bytes_are_spent() -> None:
    rt = runtime(max_draft_bytes=64)
    update = asyncio.run(draft_parse({"messages": [AIMessage(json.dumps(VALID))]}, rt))
    assert update["draft_error"]["error"] == "SCHEMA_INVALID"
    assert "too large" in update["draft_error"]["detail"]
    rt = runtime(max_run_bytes=100)
    update = asyncio.run(draft_parse({"messages": [AIMessage(json.dumps(VALID))],
                                      "usage": {"bytes": 90}}, rt))
    assert update["stop"]["kind"] == "budget"
    assert update["stop"]["failure_code"] == "BUDGET_EXHAUSTED"
