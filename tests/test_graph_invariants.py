"""Invariants that hold across the whole outcome matrix (docs/design.md §3–§8), on the compiled graph.

No model call after a terminal state; SUCCESS cites only ids both guards passed; a fallback
shows only facts of READY records; nothing is emitted after a cancel; usage is what the budget
recorded; a run resumed from its checkpoint keeps its tool calls and budget; only a released
SUCCESS diagnosis becomes the next turn's context; every run leaves exactly one run row. Each
holds on both backends (run store and checkpointer on SQLite, then on PostgreSQL).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from graphkit import (
    CLAIMS,
    COLLECT,
    EMPTY_LOGS,
    EV,
    FULL_RUN,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    SATURATING,
    THREE_CALL_RUN,
    ManualClock,
    assert_stored,
    call,
    checkpointer_for,
    cited,
    consumed,
    demo_home,
    draft,
    go,
    judge,
    kinds,
    outcome,
    ready_facts,
    router,
    seen,
    services_for,
    stream_values,
    task_message,
    text,
    thread_saver,
    thread_values,
    without_proposal,
)

import diagnosis_harness.graph.builder
from diagnosis_harness.control.lifecycle import CancelSignal
from diagnosis_harness.session.runner import Services, new_context

pytestmark = pytest.mark.usefixtures("backend")

Q = INC["question"]
SPARE = {"router": [INC_ROUTER], "agent": [draft(ROOT_CAUSE, CLAIMS)], "judge": [judge()],
         "repair": [draft(ROOT_CAUSE, CLAIMS)]}
"""One more entry per role than any run below may use: every one must stay unconsumed."""


def with_spares(script: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {role: [*script.get(role, []), *SPARE[role]] for role in SPARE}


def total_calls(services: Services) -> int:
    return sum(consumed(services).values())


# --- no model call after a terminal state ------------------------------------------------

def _cancel_at(phase: str) -> dict[str, Any]:
    signal = CancelSignal()

    def on_event(ev: dict[str, Any]) -> None:
        if ev.get("phase") == phase:
            signal.cancel()
    return {"cancel": signal, "on_event": on_event}


def _deadline_at(phase: str) -> dict[str, Any]:
    clock = ManualClock()

    def on_event(ev: dict[str, Any]) -> None:
        if ev.get("phase") == phase:
            clock.advance(10_000)
    return {"clock": clock, "on_event": on_event}


TERMINAL = {
    # name: (script, settings, run kwargs, calls each role may make, expected outcome)
    "invalid-input": ({}, {}, {"question": " "}, {}, "FAILED"),
    "router-unavailable": ({"router": [{"raise": "transport"}, text("no")]}, {}, {},
                           {"router": 2}, "FAILED"),
    "agent-crash": ({"router": [INC_ROUTER], "agent": [{"raise": "error"}]}, {}, {},
                    {"router": 1, "agent": 1}, "FAILED"),
    "budget": ({"router": [INC_ROUTER], "agent": [COLLECT[0]]}, {"max_model_calls": 2}, {},
               {"router": 1, "agent": 1}, "FALLBACK"),
    # The final draft turn keeps the judge's call; a repair can still spend it.
    "judge-budget": ({"router": [INC_ROUTER],
                      "agent": [COLLECT[0], draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2", "E9.9"])])],
                      "repair": [draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2"])])]},
                     {"max_model_calls": 4}, {}, {"router": 1, "agent": 2, "repair": 1},
                     "FALLBACK"),
    "deadline": ({"router": [INC_ROUTER], "agent": [COLLECT[0]]}, {}, _deadline_at,
                 {"router": 1, "agent": 1}, "FAILED"),
    "cancel": ({"router": [INC_ROUTER], "agent": [COLLECT[0]]}, {}, _cancel_at,
               {"router": 1, "agent": 1}, "CANCELLED"),
    "cancel-while-judging": ({"router": [INC_ROUTER],
                              "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                              "judge": [judge()]}, {}, _cancel_at,
                             {"router": 1, "agent": 3, "judge": 1}, "CANCELLED"),
    "controlled-stop": ({"router": [INC_ROUTER],
                         "agent": [*SATURATING, call("query_mysql", EV[1]["args"], "c5", prev="c4")]},
                        {}, {}, {"router": 1, "agent": 5}, "FALLBACK"),
    # refused, revised once (the same draft), refused again: final
    "unsupported": ({"router": [INC_ROUTER],
                     "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS)],
                     "judge": [judge("UNSUPPORTED"), judge("UNSUPPORTED")]}, {}, {},
                    {"router": 1, "agent": 4, "judge": 2}, "FALLBACK"),
    "repair-failed": ({"router": [INC_ROUTER],
                       "agent": [*COLLECT, draft(ROOT_CAUSE, [("x", ["E9.9"])])],
                       "repair": [draft(ROOT_CAUSE, [("x", ["E9.8"])])]}, {}, {},
                      {"router": 1, "agent": 3, "repair": 1}, "FALLBACK"),
}


@pytest.mark.parametrize("name", list(TERMINAL))
def test_no_model_call_after_a_terminal_state(name: str) -> None:
    script, settings, kw, expected, released = TERMINAL[name]
    if callable(kw):
        kw = kw("collecting evidence" if name in ("deadline", "cancel") else "judging")
    kw = dict(kw)  # TERMINAL is shared by both backends' runs of this test: never mutate it
    question = kw.pop("question", Q)
    services, out = go(with_spares(script), question, settings=settings, **kw)
    assert out["release_outcome"] == released
    assert consumed(services) == expected  # the spare entries of every role are untouched
    trace = services.store.trace(out["run_id"])
    assert len(trace["model_calls"]) == total_calls(services) == out["usage"]["model_calls"]


# --- what SUCCESS and fallbacks may publish ---------------------------------------------

SUCCESSES = {
    "row1": FULL_RUN,
    "after-repair": {"router": [INC_ROUTER],
                     "agent": [*COLLECT, draft(ROOT_CAUSE, [(CLAIMS[1][0], ["E2.1", "E7.1"])])],
                     "repair": [draft(ROOT_CAUSE, [(CLAIMS[1][0], ["E2.1"])])],
                     "judge": [judge()]},
    "after-a-tool-error": {"router": [INC_ROUTER],
                           "agent": [call("query_mysql", {"sql": "DELETE FROM payments"}, "c1"),
                                     call("query_mysql", EV[2]["args"], "c2", prev="c1"),
                                     draft(ROOT_CAUSE, [("pool at max", ["E1.1", "E1.3"])])],
                           "judge": [judge()]},
}


@pytest.mark.parametrize("name", list(SUCCESSES))
def test_success_cites_only_ids_that_passed_both_guards(name: str) -> None:
    services, out = go(SUCCESSES[name])
    assert out["release_outcome"] == "SUCCESS"
    trace = services.store.trace(out["run_id"])
    verdicts = trace["verdicts"]
    evidence = [v["verdict"] for v in verdicts if v["guard"] == "evidence"]
    semantic = [v["verdict"] for v in verdicts if v["guard"] == "semantic"]
    assert evidence[-1]["passed"] is True and semantic == [{"verdict": "SUPPORTED", "reasons": ["r"]}]
    facts = ready_facts(trace)
    ids = cited(out["content"])
    assert ids and ids <= set(facts)
    for eid in ids:
        assert f"{eid}: {facts[eid]}" in out["content"]
    # The judge was shown exactly the ids that are published, as stored in the records.
    [judge_input] = seen(services, "judge")
    payload = json.loads(judge_input[-1].content.split("Input:\n", 1)[1]
                         .split("\n\nAnswer with ONLY", 1)[0])
    assert {e["evidence_id"]: e["text"] for e in payload["evidence"]} == {
        eid: facts[eid] for eid in ids}


FALLBACKS = {
    "row3-null-conclusion": {"agent": [call("query_mysql", {"sql": "DROP TABLE payments"}, "c1"),
                                       call("query_logs", EMPTY_LOGS, "c2", prev="c1"),
                                       call("query_logs", EV[0]["args"], "c3", prev="c2"),
                                       draft(None)]},
    "row6-validation": {"agent": [*COLLECT, draft(ROOT_CAUSE, [("x", ["E3.1"])])],
                        "repair": [draft(ROOT_CAUSE, [("x", ["E3.1"])])]},
    "row7-unsupported": {"agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS)],
                         "judge": [judge("UNSUPPORTED"), judge("UNSUPPORTED")]},
    "row9-budget": {"agent": [*COLLECT]},
    "row11-invalid-draft": {"agent": [*COLLECT, text(f"Root cause: {ROOT_CAUSE} [E1.2] [E5.5]"),
                                      text(f"Root cause: {ROOT_CAUSE} [E1.2] [E5.5]")]},
}


@pytest.mark.parametrize("name", list(FALLBACKS))
def test_a_fallback_lists_only_facts_of_ready_records(name: str) -> None:
    services, out = go({"router": [INC_ROUTER], **FALLBACKS[name]},
                       settings={"max_model_calls": 3} if name == "row9-budget" else {})
    assert out["release_outcome"] == "FALLBACK"
    trace = services.store.trace(out["run_id"])
    facts = ready_facts(trace)
    content = without_proposal(out["content"])  # the refused draft, labelled NOT VERIFIED
    shown = cited(content)
    # Every fact the run observed is listed verbatim, and nothing else carries an id.
    assert shown == set(facts)
    for eid, fact_text in facts.items():
        assert f"[{eid}] {fact_text}" in content
    assert ROOT_CAUSE not in content and "Root cause" not in out["content"]
    errors = [r for r in trace["tool_records"] if r["invocation_status"] == "ERROR"]
    for record in errors:  # a failed call is a limitation, never a fact
        assert record["error"] not in out["content"]
    if errors:
        assert f"{len(errors)} tool call(s) failed" in out["content"]


# --- cancel ------------------------------------------------------------------------------

CANCEL_POINTS = ["routing", "investigating", "collecting evidence", "checking evidence",
                 "judging"]


@pytest.mark.parametrize("phase", CANCEL_POINTS)
def test_after_cancel_no_event_is_emitted(phase: str) -> None:
    signal = CancelSignal()
    received: list[dict[str, Any]] = []
    late: list[dict[str, Any]] = []

    def on_event(ev: dict[str, Any]) -> None:
        (late if signal.cancelled else received).append(ev)
        if ev.get("phase") == phase:
            signal.cancel()

    services, out = go(with_spares({"router": [INC_ROUTER],
                                    "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                                    "judge": [judge()]}),
                       cancel=signal, on_event=on_event)
    assert late == []
    assert received[-1]["phase"] == phase
    assert (out["run_state"], out["release_outcome"], out["content"]) == (
        "CANCELLED", "CANCELLED", None)
    assert kinds(out) == ["metadata", "status*"]
    assert out["events"] == received
    assert services.store.events(out["run_id"]) == received
    assert services.store.get_run(out["run_id"])["status"] == "CANCELLED"


def test_a_task_cancelled_from_outside_leaves_a_cancelled_row_and_no_done() -> None:
    """Ctrl-C / a disconnected client cancels the asyncio task instead of setting the signal."""
    services = services_for(demo_home(), with_spares({"router": [INC_ROUTER],
                                                      "agent": [*COLLECT]}))
    received: list[dict[str, Any]] = []
    run_id = "cancelled-from-outside"

    async def scenario() -> None:
        from diagnosis_harness.session.runner import run_turn

        task: asyncio.Task[Any] | None = None

        def on_event(ev: dict[str, Any]) -> None:
            received.append(ev)
            if ev.get("phase") == "collecting evidence" and task is not None:
                task.cancel()

        async with checkpointer_for(services) as saver:
            task = asyncio.create_task(run_turn(services, Q, checkpointer=saver,
                                                on_event=on_event, run_id=run_id))
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    row = services.store.get_run(run_id)
    assert (row["status"], row["run_state"], row["content"]) == ("CANCELLED", "CANCELLED", None)
    kinds_seen = [e["event"] for e in services.store.events(run_id)]
    assert "done" not in kinds_seen and "content" not in kinds_seen
    assert consumed(services)["agent"] == 1


# --- usage -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["row1", "after-repair", "after-a-tool-error"])
def test_usage_is_what_the_budget_recorded(name: str) -> None:
    services, out = go(SUCCESSES[name])
    trace = services.store.trace(out["run_id"])
    usage = out["usage"]
    assert usage == services.store.get_run(out["run_id"])["usage"]
    # model_calls counts router + agent + judge + repair, each once.
    assert usage["model_calls"] == total_calls(services) == len(trace["model_calls"])
    assert sorted({c["role"] for c in trace["model_calls"]}) == sorted(consumed(services))
    assert usage["tool_calls"] == len(trace["tool_records"])
    assert usage["input_tokens"] == sum(c["input_tokens"] for c in trace["model_calls"]) \
        == 100 * usage["model_calls"]
    assert usage["output_tokens"] == 20 * usage["model_calls"]
    assert usage["bytes"] >= sum(r["raw_bytes"] for r in trace["tool_records"]) > 0


def test_missing_or_negative_usage_counts_zero_and_failed_calls_count_no_tokens() -> None:
    services, out = go({"router": [INC_ROUTER],
                        "agent": [{**COLLECT[0], "usage": {}},
                                  {**call("query_mysql", EV[1]["args"], "c2", prev="c1"),
                                   "usage": {"input_tokens": -7, "output_tokens": 5}},
                                  {**draft(ROOT_CAUSE, CLAIMS), "usage": {"input_tokens": -40}}],
                        "judge": [{"raise": "timeout"}, judge()]})
    assert out["release_outcome"] == "SUCCESS"
    # router 100/20 + agent 0/0, 0/5, 0/0 + failed judge 0/0 + judge 100/20
    assert (out["usage"]["input_tokens"], out["usage"]["output_tokens"]) == (200, 45)
    assert out["usage"]["model_calls"] == 6


# --- resume after the process stopped between nodes ---------------------------------------



@pytest.mark.parametrize("stop_after", [["tool_gate"], ["model"],
                                        ["saturation_check", "evidence_guard"]])
@pytest.mark.parametrize("max_model_calls", [16, 5])
def test_a_resumed_run_keeps_its_tool_calls_and_its_budget(
        stop_after: list[str], max_model_calls: int) -> None:
    """The process stops after each ``stop_after`` node (its checkpoint saved) and a new one
    resumes the run with a fresh run context; the result must equal an uninterrupted run."""
    reference_services, reference = go(THREE_CALL_RUN, settings={"max_model_calls": max_model_calls})

    services = services_for(demo_home(), THREE_CALL_RUN, max_model_calls=max_model_calls)
    thread = f"resume-{'-'.join(stop_after)}-{max_model_calls}"
    config = {"configurable": {"thread_id": thread}}
    first = new_context(services, thread_id=thread)
    spent: list[dict[str, int]] = []

    async def scenario() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                       interrupt_after=stop_after)
            final = await stream_values(compiled, {"question": Q}, config, first)
            while (snapshot := await compiled.aget_state(config)).next:
                spent.append(snapshot.values["usage"])
                final = await stream_values(compiled, None, config,
                                      new_context(services, thread_id=thread, run_id=first.run_id))
            return final

    final = asyncio.run(scenario())
    assert len(spent) >= 2, "the run was not interrupted"
    for before, after in zip(spent, spent[1:], strict=False):  # usage never goes back
        assert all(after[k] >= before[k] for k in before)
    trace = services.store.trace(first.run_id)
    executed = [r["tool_call_id"] for r in trace["tool_records"]]
    assert executed == [r["tool_call_id"] for r in
                        reference_services.store.trace(reference["run_id"])["tool_records"]]
    assert [r["tool_call_id"] for r in final["records"]] == executed  # none ran twice
    assert consumed(services) == consumed(reference_services)  # no model asked twice
    assert final["usage"] == reference["usage"]  # the budget went on from where it was
    assert outcome(final) == outcome(reference)
    assert final["content"] == reference["content"]
    row = services.store.get_run(first.run_id)
    assert (row["release_outcome"], row["usage"]) == (reference["release_outcome"],
                                                      reference["usage"])
    if max_model_calls == 5:  # router + 2 investigating turns; the third is the final draft
        # turn (two calls kept: it and the judge), and its tool call is the controlled stop
        assert outcome(final) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
        assert final["stop_reason"] == "BUDGET_LIMIT_REACHED"
    else:
        assert outcome(final) == ("SUCCESS", "SUCCESS", None, None)


def test_a_resumed_run_records_one_complete_event_stream() -> None:
    services = services_for(demo_home(), SUCCESSES["row1"])
    config = {"configurable": {"thread_id": "resume-events"}}
    first = new_context(services, thread_id="resume-events")

    async def scenario() -> None:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                       interrupt_after=["tool_gate"])
            await stream_values(compiled, {"question": Q}, config, first)
            while (await compiled.aget_state(config)).next:
                await stream_values(compiled, None, config,
                              new_context(services, thread_id="resume-events", run_id=first.run_id))

    asyncio.run(scenario())
    stored = services.store.events(first.run_id)
    assert kinds({"events": stored}) == ["metadata", "status*", "content", "done"]
    assert [e["event"] for e in stored].count("status") == 8


# --- multi-turn: previous_turn only from a released SUCCESS diagnosis ---------------------


def _turn(script: dict[str, list[Any]], thread: str, saver: Any,
          question: str = Q) -> tuple[Services, dict[str, Any]]:
    return go(script, question, thread_id=thread, checkpointer=saver)


def _previous_turn_seen(services: Services) -> str:
    text_ = task_message(seen(services)[0])
    return text_.split("Previous turn of this conversation", 1)[1]


SUCCESS_TURN = SUCCESSES["row1"]
FOLLOW_UP = {"router": [INC_ROUTER], "agent": [draft(None)]}
NOT_SUCCESS_TURNS = {
    "unsupported-conclusion": {"router": [INC_ROUTER],
                               "agent": [*COLLECT, draft("a judged-unsupported cause", CLAIMS),
                                         draft("a judged-unsupported cause", CLAIMS)],
                               "judge": [judge("UNSUPPORTED"), judge("UNSUPPORTED")]},
    "validation-failed": {"router": [INC_ROUTER],
                          "agent": [*COLLECT, draft("a judged-unsupported cause",
                                                    [("x", ["E8.8"])])],
                          "repair": [text("no")]},
    "no-conclusion": {"router": [INC_ROUTER], "agent": [*COLLECT, draft(None)]},
    "general": {"router": [router(intent="GENERAL", service=None)]},
    "failed": {"router": [INC_ROUTER], "agent": [{"raise": "error"}]},
}


def test_a_success_diagnosis_becomes_the_next_turns_previous_turn() -> None:
    saver = thread_saver()
    _, first = _turn(SUCCESS_TURN, "mt-success", saver)
    assert first["release_outcome"] == "SUCCESS"
    services, second = _turn(FOLLOW_UP, "mt-success", saver, "and what about 10:10-10:20?")
    previous = _previous_turn_seen(services)
    assert f"Verified root cause: {ROOT_CAUSE}" in previous and Q in previous
    state = thread_values(services, "mt-success", saver)
    assert ROOT_CAUSE in state["previous_turn"]
    # The new turn starts clean: none of the first turn's records or messages carry over.
    assert [r["tool_call_id"] for r in state["records"]] == []
    assert second["release_outcome"] == "FALLBACK"


@pytest.mark.parametrize("name", list(NOT_SUCCESS_TURNS))
def test_a_turn_not_released_as_success_diagnosis_never_becomes_previous_turn(name: str) -> None:
    saver = thread_saver()
    thread = f"mt-{name}"
    _, first = _turn(NOT_SUCCESS_TURNS[name], thread, saver,
                     "hello, what can you do?" if name == "general" else Q)
    assert not (first["release_outcome"] == "SUCCESS" and first["intent"] == "DIAGNOSIS")
    services, _ = _turn(FOLLOW_UP, thread, saver)
    previous = _previous_turn_seen(services)
    assert previous.split("\n", 2)[1].strip() == "none"
    assert "judged-unsupported" not in previous


def test_a_fallback_after_a_success_does_not_replace_it() -> None:
    saver = thread_saver()
    _turn(SUCCESS_TURN, "mt-mixed", saver)
    _turn(NOT_SUCCESS_TURNS["unsupported-conclusion"], "mt-mixed", saver)
    services, _ = _turn(FOLLOW_UP, "mt-mixed", saver)
    previous = _previous_turn_seen(services)
    assert f"Verified root cause: {ROOT_CAUSE}" in previous
    assert "judged-unsupported" not in previous


# --- one run row per run ------------------------------------------------------------------


def test_every_run_leaves_exactly_one_run_row_with_the_design_status() -> None:
    saver = thread_saver()
    thread = "rows"
    outs = [
        _turn(SUCCESS_TURN, thread, saver)[1],
        _turn(NOT_SUCCESS_TURNS["unsupported-conclusion"], thread, saver)[1],
        _turn({}, thread, saver, "")[1],
        _turn({"router": [INC_ROUTER], "agent": [{"raise": "error"}]}, thread, saver)[1],
        go({"router": [INC_ROUTER], "agent": [*COLLECT]}, thread_id=thread, checkpointer=saver,
           **_cancel_at("collecting evidence"))[1],
    ]

    async def crashes(state: Any, runtime: Any) -> Any:
        raise RuntimeError("unexpected bug in a node")

    services, crashed = go({"router": [INC_ROUTER], "agent": [COLLECT[0]]}, thread_id=thread,
                           checkpointer=saver, nodes={"saturation_check": crashes})
    outs.append(crashed)
    assert outcome(crashed) == ("FAILED", "FAILED", None, "INTERNAL_FAILURE")
    assert kinds(crashed) == ["metadata", "status*", "failure", "done"]

    rows = services.store.runs_for_thread(thread)
    assert [r["run_id"] for r in rows] == [o["run_id"] for o in outs]
    assert [r["status"] for r in rows] == ["SUCCESS", "SUCCESS", "FAILED", "FAILED", "CANCELLED",
                                           "FAILED"]
    assert [r["release_outcome"] for r in rows] == ["SUCCESS", "FALLBACK", "FAILED", "FAILED",
                                                    "CANCELLED", "FAILED"]
    assert all(r["finished_at"] is not None for r in rows)
    for out in outs[:-1]:
        assert_stored(services, out)


# --- a stopped run queries nothing more -----------------------------------------------------

THREE_CALLS = {"content": "", "usage": {"input_tokens": 100, "output_tokens": 20},
               "tool_calls": [
                   {"name": "query_logs", "args": EV[0]["args"], "id": "c1"},
                   {"name": "query_mysql", "args": {**EV[1]["args"], "previous_observation": {
                       "tool_call_id": "c1", "gain": "GAINED"}}, "id": "c2"},
                   {"name": "query_mysql", "args": {**EV[2]["args"], "previous_observation": {
                       "tool_call_id": "c2", "gain": "GAINED"}}, "id": "c3"}]}


@pytest.mark.parametrize("stop", ["cancel", "deadline"])
def test_no_tool_runs_after_the_run_was_cancelled_or_timed_out(stop: str) -> None:
    """The agent asked for three tools in one turn; the run ends while the first one runs."""
    services, out = go(with_spares({"router": [INC_ROUTER], "agent": [THREE_CALLS]}),
                       **(_cancel_at if stop == "cancel" else _deadline_at)("collecting evidence"))
    assert out["run_state"] == {"cancel": "CANCELLED", "deadline": "TIMED_OUT"}[stop]
    executed = [r["tool_call_id"] for r in services.store.trace(out["run_id"])["tool_records"]]
    assert executed == ["c1"]
    assert out["usage"]["tool_calls"] == 1
