"""The outcome matrix of docs/design.md §4, one test per row, each driving the whole graph.

Every test runs the compiled graph on the demo dataset with a replay model, once per backend
(run store and checkpointer on SQLite, then on PostgreSQL: the ``backend`` fixture), and checks
the four views a run is explained by: RunState, ReleaseOutcome (+ fallback or failure code), the
stored run row, and the exact event stream the client received.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from graphkit import (
    CLAIMS,
    COLLECT,
    EMPTY_KB,
    EMPTY_LOGS,
    EMPTY_SQL,
    EV,
    FULL_RUN,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    ManualClock,
    assert_stored,
    call,
    cited,
    consumed,
    demo_home,
    draft,
    go,
    judge,
    judge_claims,
    kinds,
    outcome,
    phases,
    ready_facts,
    router,
    run,
    seen,
    services_for,
    text,
    thread_values,
    tool_messages,
    without_proposal,
)

from diagnosis_harness.control.lifecycle import CancelSignal
from diagnosis_harness.nodes.release import CAPABILITY_REPLY
from diagnosis_harness.session.runner import Services

pytestmark = pytest.mark.usefixtures("backend")

Q = INC["question"]
ROUTER = INC_ROUTER
PUBLISHED = ["metadata", "status*", "content", "done"]
FAILED = ["metadata", "status*", "failure", "done"]
SPARE_AGENT = draft(ROOT_CAUSE, CLAIMS)
"""An agent entry a script keeps in reserve: it must stay unconsumed once the run has ended."""


def event(out: dict[str, Any], kind: str) -> dict[str, Any]:
    [found] = [e for e in out["events"] if e["event"] == kind]
    return found


def assert_published(out: dict[str, Any]) -> None:
    """The content event carries exactly the published text; done carries the outcome."""
    assert kinds(out) == PUBLISHED
    assert event(out, "content")["text"] == out["content"]
    assert event(out, "done")["release_outcome"] == out["release_outcome"]


def assert_failed(out: dict[str, Any], code: str, sequence: list[str] = FAILED) -> dict[str, Any]:
    assert kinds(out) == sequence
    assert out["content"] is None
    failure = event(out, "failure")
    assert failure["failure_code"] == code
    assert event(out, "done")["release_outcome"] == "FAILED"
    return failure


def assert_fallback_facts_only(services: Services, out: dict[str, Any]) -> None:
    """A fallback shows facts of READY records, verbatim; the agent's prose only in its proposal,
    labelled NOT VERIFIED, and never as a root cause."""
    facts = ready_facts(services.store.trace(out["run_id"]))
    content = without_proposal(out["content"])
    ids = cited(content)
    assert ids, "a fallback after observed facts lists them"
    assert ids <= set(facts)
    for eid in ids:
        assert f"[{eid}] {facts[eid]}" in content
    assert ROOT_CAUSE not in content
    assert "Root cause" not in out["content"]


# --- row 1 ------------------------------------------------------------------------------


def test_row1_both_guards_pass_publishes_the_report() -> None:
    services, out = go(FULL_RUN)
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert_published(out)
    assert phases(out) == ["routing", "investigating", "collecting evidence", "investigating",
                           "collecting evidence", "investigating", "checking evidence", "judging"]
    facts = ready_facts(services.store.trace(out["run_id"]))
    assert out["content"].startswith(f"Root cause: {ROOT_CAUSE}")
    assert cited(out["content"]) == {"E1.2", "E2.1"}
    assert f"E1.2: {facts['E1.2']}" in out["content"]
    assert f"E2.1: {facts['E2.1']}" in out["content"]
    assert "db.pool.max_size=10 (was 50)" in facts["E1.2"] and "CHG-2041" in facts["E2.1"]
    assert consumed(services) == {"router": 1, "agent": 3, "judge": 1}
    assert out["usage"]["model_calls"] == 5 and out["usage"]["tool_calls"] == 2
    assert assert_stored(services, out)["status"] == "SUCCESS"


# --- row 2 ------------------------------------------------------------------------------


@pytest.mark.parametrize(("required", "answer", "hint"), [
    (["service"], router(service=None, merchant="M1001"), "which service is affected"),
    (["service", "merchant", "window"],
     router(service="payment-service", merchant=None, start=INC["start"], end=INC["end"]),
     "which merchant is affected"),
    (["window"], router(service="payment-service"), "when it happened"),
])
def test_row2_missing_context_falls_back_before_any_investigation(
        required: list[str], answer: dict[str, Any], hint: str) -> None:
    services, out = go({"router": [answer], "agent": [SPARE_AGENT]},
                       settings={"required_context": required})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "MISSING_REQUIRED_CONTEXT", None)
    assert_published(out)
    assert phases(out) == ["routing"]
    assert hint in out["content"]
    assert cited(out["content"]) == set()
    assert consumed(services) == {"router": 1}
    assert out["usage"]["tool_calls"] == 0
    assert assert_stored(services, out)["status"] == "SUCCESS"


# --- row 3 ------------------------------------------------------------------------------


def test_row3_null_conclusion_after_facts_is_an_insufficient_evidence_fallback() -> None:
    services, out = go({"router": [ROUTER], "agent": [*COLLECT, draft(None)],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert_published(out)
    assert "checking evidence" not in phases(out) and "judging" not in phases(out)
    assert_fallback_facts_only(services, out)
    assert cited(out["content"]) >= {"E1.1", "E1.2", "E2.1"}
    assert consumed(services) == {"router": 1, "agent": 3}  # no judge for a null conclusion
    assert out["stop_reason"] is None
    assert assert_stored(services, out)["status"] == "SUCCESS"


# --- row 4 ------------------------------------------------------------------------------

# Three ways to reach 3 consecutive NO_GAIN after a first found result (c1):
SATURATING = {
    # empty scoped results the agent judges NO_GAIN (an empty result alone is no NO_GAIN:
    # "nothing found" can be news; the first NO_GAIN is the agent's verdict on c1)
    "empty-results": ([call("query_logs", EMPTY_LOGS, "c2", prev="c1", gain="NO_GAIN"),
                       call("query_mysql", EMPTY_SQL, "c3", prev="c2", gain="NO_GAIN"),
                       call("lookup_knowledge", EMPTY_KB, "c4", prev="c3", gain="NO_GAIN")],
                      ["c1", "c2", "c3", "c4"]),
    # the same scope again: DUPLICATE_SCOPE, not executed
    "duplicates": ([call("query_logs", EV[0]["args"], "c2", prev="c1", gain="NO_GAIN"),
                    call("query_logs", EV[0]["args"], "c3", prev="c2", gain="NO_GAIN")],
                   ["c1"]),
    # found results the agent itself judges NO_GAIN
    "agent-no-gain": ([call("query_mysql", EV[1]["args"], "c2", prev="c1", gain="NO_GAIN"),
                       call("query_mysql", EV[2]["args"], "c3", prev="c2", gain="NO_GAIN"),
                       call("lookup_knowledge", {"query": INC["runbook_query"]}, "c4",
                            prev="c3", gain="NO_GAIN")],
                      ["c1", "c2", "c3", "c4"]),
}


@pytest.mark.parametrize("how", list(SATURATING))
def test_row4_saturation_delivers_stop_once_then_a_tool_call_is_a_controlled_stop(how: str) -> None:
    calls, executed = SATURATING[how]
    last = f"c{len(calls) + 1}"
    after_stop = call("lookup_knowledge", EMPTY_KB, "cX", prev=last, gain="NO_GAIN")
    services, out = go({"router": [ROUTER],
                        "agent": [COLLECT[0], *calls, after_stop, SPARE_AGENT]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert out["stop_reason"] == "INFORMATION_SATURATED"
    assert_published(out)
    assert "evidence collection stopped: INFORMATION_SATURATED" in out["content"]
    assert_fallback_facts_only(services, out)
    # The agent's last call saw STOP_REQUIRED exactly once: in the newest observation.
    observations = tool_messages(seen(services)[-1])
    flagged = [m for m in observations if "stop_required" in m.content]
    assert [m.tool_call_id for m in flagged] == [last]
    body = json.loads(flagged[0].content)
    assert body["stop_required"] is True and body["stop_reason"] == "INFORMATION_SATURATED"
    assert all("stop_required" not in m.content for m in tool_messages(seen(services)[-2]))
    # The call after STOP_REQUIRED was not executed, and the spare draft was never asked for.
    trace = services.store.trace(out["run_id"])
    assert [r["tool_call_id"] for r in trace["tool_records"]] == executed
    assert consumed(services) == {"router": 1, "agent": len(calls) + 2}
    assert assert_stored(services, out)["stop_reason"] == "INFORMATION_SATURATED"


def test_row4_after_stop_required_the_agent_may_still_write_its_draft() -> None:
    calls, _ = SATURATING["empty-results"]
    services, out = go({"router": [ROUTER],
                        "agent": [COLLECT[0], *calls, draft(ROOT_CAUSE, CLAIMS[:1])],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert out["stop_reason"] == "INFORMATION_SATURATED"
    assert cited(out["content"]) == {"E1.2"}
    assert_published(out)


# --- row 5 ------------------------------------------------------------------------------


def test_row5_progress_protocol_violations_stop_collection() -> None:
    violations = [call("query_mysql", EV[1]["args"], "c2"),  # no previous_observation
                  call("query_mysql", EV[1]["args"], "c3"),
                  call("query_mysql", EV[1]["args"], "c4", prev="c3")]  # names the wrong call
    after_stop = call("query_mysql", EV[1]["args"], "c5", prev="c1")
    services, out = go({"router": [ROUTER],
                        "agent": [COLLECT[0], *violations, after_stop, SPARE_AGENT]},
                       settings={"protocol_violation_threshold": 3})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert out["stop_reason"] == "PROGRESS_PROTOCOL_VIOLATED"
    assert_published(out)
    assert_fallback_facts_only(services, out)
    assert cited(out["content"]) == {"E1.1", "E1.2"}
    observations = tool_messages(seen(services)[-1])
    assert [m.tool_call_id for m in observations] == ["c1", "c2", "c3", "c4"]
    assert all("progress protocol violation" in m.content for m in observations[1:])
    assert [m.tool_call_id for m in observations if "stop_required" in m.content] == ["c4"]
    trace = services.store.trace(out["run_id"])
    assert [r["tool_call_id"] for r in trace["tool_records"]] == ["c1"]  # violations not run
    assert consumed(services) == {"router": 1, "agent": 5}
    assert_stored(services, out)


# --- row 6 ------------------------------------------------------------------------------

BAD_DRAFT = draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2", "E9.9"])])
REPAIRS_THAT_FAIL = {
    "still-cites-a-bad-id": draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E9.9"])]),
    "rewrites-the-root-cause": draft("a different root cause", [(CLAIMS[0][0], ["E1.2"])]),
    "adds-a-claim": draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2"]), ("new claim", ["E2.1"])]),
    "not-json": text("I fixed it, the cause is the pool"),
    "transport-error": {"raise": "transport"},
}


@pytest.mark.parametrize("repair", list(REPAIRS_THAT_FAIL))
def test_row6_evidence_guard_fails_after_its_one_repair(repair: str) -> None:
    services, out = go({"router": [ROUTER], "agent": [*COLLECT, BAD_DRAFT],
                        "repair": [REPAIRS_THAT_FAIL[repair], draft(ROOT_CAUSE, CLAIMS)],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "EVIDENCE_VALIDATION_FAILED", None)
    assert_published(out)
    assert phases(out)[-3:] == ["checking evidence", "repairing citations", "checking evidence"]
    # The invented id is named only as the reason the labelled proposal is not published.
    assert "E9.9" not in without_proposal(out["content"])
    assert "- claim 1 cites E9.9: UNKNOWN_ID" in out["content"]
    assert "a different root cause" not in out["content"]  # the rejected repair shows nowhere
    assert_fallback_facts_only(services, out)
    assert consumed(services) == {"router": 1, "agent": 3, "repair": 1}  # one repair, no judge
    verdicts = services.store.trace(out["run_id"])["verdicts"]
    assert [(v["guard"], v["verdict"].get("passed", v["verdict"].get("repaired")))
            for v in verdicts] == [("evidence", False), ("repair", False), ("evidence", False)]
    assert_stored(services, out)


def test_row6_a_repair_that_recites_a_valid_id_passes_both_guards() -> None:
    services, out = go({"router": [ROUTER], "agent": [*COLLECT, BAD_DRAFT],
                        "repair": [draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2"])])],
                        "judge": [judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert_published(out)
    assert cited(out["content"]) == {"E1.2"}
    assert consumed(services) == {"router": 1, "agent": 3, "repair": 1, "judge": 1}
    # The judge saw the repaired citation with the stored fact, not the bad id.
    [judge_input] = seen(services, "judge")
    prompt = judge_input[-1].content
    assert "E1.2" in prompt and "E9.9" not in prompt
    assert_stored(services, out)


# --- row 7 ------------------------------------------------------------------------------


def test_row7_unsupported_verdict_is_revised_once_then_falls_back_without_a_retry() -> None:
    # The refusal goes back to the agent once; its revised draft is refused again: final.
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS),
                                  SPARE_AGENT],
                        "judge": [judge("UNSUPPORTED"), judge("UNSUPPORTED"), judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNSUPPORTED", None)
    assert_published(out)
    assert_fallback_facts_only(services, out)
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 2}
    assert phases(out)[-5:] == ["judging", "revising", "investigating", "checking evidence",
                                "judging"]
    receipts = [r for r in services.store.trace(out["run_id"])["receipts"] if r["role"] == "judge"]
    assert [(r["attempt"], r["outcome"]) for r in receipts] == [(1, "ok"), (1, "ok")]
    assert_stored(services, out)


# --- row 8 ------------------------------------------------------------------------------


def test_row8_judge_unavailable_after_its_two_attempts() -> None:
    services, out = go({"router": [ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                        "judge": [{"raise": "transport"}, {"raise": "transport"}, judge()]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNAVAILABLE", None)
    assert_published(out)
    assert_fallback_facts_only(services, out)
    assert consumed(services)["judge"] == 2
    trace = services.store.trace(out["run_id"])
    receipts = [r for r in trace["receipts"] if r["role"] == "judge"]
    assert [(r["attempt"], r["outcome"], r["failure_class"]) for r in receipts] == [
        (1, "failed", "TRANSPORT"), (2, "failed", "TRANSPORT")]
    judge_calls = [c for c in trace["model_calls"] if c["role"] == "judge"]
    assert [(c["failure_class"], c["input_tokens"]) for c in judge_calls] == [("TRANSPORT", 0)] * 2
    assert_stored(services, out)


# --- rows 9 and 10 ----------------------------------------------------------------------


# A budget that ends collection still leaves the final draft turn (its model call, its tokens
# and the judge's): the draft goes through the guards like any other. Rows 9 and 10 are the runs
# where even that turn finds its budget spent: one call used more tokens than the reserve
# allowed for (here: no reserve at all), or the router, judge or repair spent it.
OVERRUN = {"max_tokens": 240, "final_reserve_tokens": 0}


@pytest.mark.parametrize("limit", [{"max_model_calls": 4}, {"max_tokens": 800,
                                                             "final_reserve_tokens": 100}])
def test_a_budget_that_ends_collection_leaves_the_final_draft_turn(limit: dict[str, int]) -> None:
    services, out = go({"router": [ROUTER], "agent": [COLLECT[0], draft(ROOT_CAUSE, CLAIMS[:1])],
                        "judge": [judge()]}, settings=limit)
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert out["stop_reason"] == "BUDGET_LIMIT_REACHED"
    assert_published(out)
    assert cited(out["content"]) == {"E1.2"}
    # The final turn was told, inside the newest observation, that collection is over.
    [observation] = tool_messages(seen(services)[-1])
    assert json.loads(observation.content)["stop_reason"] == "BUDGET_LIMIT_REACHED"
    assert consumed(services) == {"router": 1, "agent": 2, "judge": 1}
    assert_stored(services, out)


def test_row9_budget_exhausted_after_a_fact_falls_back_with_it() -> None:
    services, out = go({"router": [ROUTER], "agent": [COLLECT[0], SPARE_AGENT]}, settings=OVERRUN)
    assert outcome(out) == ("BUDGET_EXHAUSTED", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert_published(out)
    assert_fallback_facts_only(services, out)
    assert cited(out["content"]) == {"E1.1", "E1.2"}
    assert "tokens budget exhausted" in out["content"]
    assert consumed(services) == {"router": 1, "agent": 1}
    assert out["usage"]["model_calls"] == 2
    assert assert_stored(services, out)["status"] == "SUCCESS"


def test_row10_budget_exhausted_before_any_fact_fails() -> None:
    services, out = go({"router": [ROUTER],
                        "agent": [call("query_logs", EMPTY_LOGS, "c1"), SPARE_AGENT]},
                       settings=OVERRUN)
    assert outcome(out) == ("BUDGET_EXHAUSTED", "FAILED", None, "BUDGET_EXHAUSTED")
    assert_failed(out, "BUDGET_EXHAUSTED")
    assert consumed(services) == {"router": 1, "agent": 1}
    assert assert_stored(services, out)["status"] == "FAILED"


# --- rows 11 and 12 ---------------------------------------------------------------------

INVALID_DRAFTS = {
    "EMPTY_DRAFT": text(""),
    "INVALID_JSON": text("The pool was exhausted [E1.2]."),
    "SCHEMA_INVALID": text(json.dumps({"conclusion": None})),  # next_steps missing
}


@pytest.mark.parametrize("error", list(INVALID_DRAFTS))
def test_row11_invalid_draft_after_facts_falls_back(error: str) -> None:
    # invalid, sent back once with its parse error, invalid again: final
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, INVALID_DRAFTS[error], INVALID_DRAFTS[error]],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert_published(out)
    assert f"not a valid draft ({error})" in out["content"]
    assert "The pool was exhausted" not in out["content"]
    assert_fallback_facts_only(services, out)
    assert consumed(services) == {"router": 1, "agent": 4}
    assert_stored(services, out)


def test_an_invalid_draft_goes_back_once_and_its_retry_publishes() -> None:
    # A capable model wrote one brace too few: asked once more, its draft passes both guards.
    good = draft(ROOT_CAUSE, CLAIMS)
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, text(good["content"][:-1]), good],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 1}
    retry = [v for v in services.store.trace(out["run_id"])["verdicts"]
             if v["guard"] == "draft_retry"]
    assert [r["verdict"]["verdict"] for r in retry] == ["SENT_BACK"]
    assert "INVALID_JSON" in retry[0]["verdict"]["reasons"][0]


def test_row11_unknown_draft_key_is_schema_invalid() -> None:
    bad = text(json.dumps({"conclusion": None, "next_steps": [], "confidence": 0.9}))
    _, out = go({"router": [ROUTER], "agent": [*COLLECT, bad, bad]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert "not a valid draft (SCHEMA_INVALID)" in out["content"]


@pytest.mark.parametrize("error", list(INVALID_DRAFTS))
def test_row12_invalid_draft_without_facts_fails(error: str) -> None:
    services, out = go({"router": [ROUTER],
                        "agent": [call("query_logs", EMPTY_LOGS, "c1"), INVALID_DRAFTS[error],
                                  INVALID_DRAFTS[error]]})
    assert outcome(out) == ("FAILED", "FAILED", None, "INTERNAL_FAILURE")
    failure = assert_failed(out, "INTERNAL_FAILURE")
    assert f"not a valid draft ({error})" in failure["message"]
    assert assert_stored(services, out)["status"] == "FAILED"


# --- row 13 -----------------------------------------------------------------------------


def test_row13_deadline_passing_while_collecting_times_the_run_out() -> None:
    clock = ManualClock()

    def on_event(ev: dict[str, Any]) -> None:
        if ev.get("phase") == "collecting evidence":
            clock.advance(61)

    services, out = go({"router": [ROUTER], "agent": [*COLLECT, SPARE_AGENT]},
                       settings={"deadline_s": 60}, clock=clock, on_event=on_event)
    assert outcome(out) == ("TIMED_OUT", "FAILED", None, "RUN_TIMED_OUT")
    assert_failed(out, "RUN_TIMED_OUT")
    assert phases(out) == ["routing", "investigating", "collecting evidence"]
    assert consumed(services) == {"router": 1, "agent": 1}
    assert assert_stored(services, out)["status"] == "FAILED"


LATE_ANSWERS = {
    "router": ({"router": [router(intent="GENERAL", service=None)]}, "what can you do?"),
    "judge": ({"router": [ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
               "judge": [judge(), judge()]}, Q),
    "repair": ({"router": [ROUTER], "agent": [*COLLECT, BAD_DRAFT],
                "repair": [REPAIRS_THAT_FAIL["still-cites-a-bad-id"]]}, Q),
}


@pytest.mark.parametrize("role", list(LATE_ANSWERS))
def test_row13_an_answer_that_arrives_after_the_deadline_is_dropped(role: str) -> None:
    script, question = LATE_ANSWERS[role]
    _, in_time = go(script, question, settings={"deadline_s": 60}, clock=ManualClock())
    assert in_time["release_outcome"] in ("SUCCESS", "FALLBACK")  # control: in time it publishes
    clock = ManualClock()
    services = services_for(demo_home(), script, deadline_s=60)
    # The model call itself passes the deadline: its answer must not be used or published.
    services.seam.on_call = lambda r, n: clock.advance(61) if r == role else None
    out = run(services, question, clock=clock)
    assert outcome(out) == ("TIMED_OUT", "FAILED", None, "RUN_TIMED_OUT")
    assert_failed(out, "RUN_TIMED_OUT")
    assert consumed(services)[role] == 1
    assert_stored(services, out)


# --- row 14 -----------------------------------------------------------------------------


def test_row14_cancel_mid_run_publishes_nothing_more() -> None:
    signal = CancelSignal()
    received: list[dict[str, Any]] = []

    def on_event(ev: dict[str, Any]) -> None:
        assert not signal.cancelled, f"event after cancel: {ev}"
        received.append(ev)
        if ev.get("phase") == "collecting evidence":
            signal.cancel()

    services, out = go({"router": [ROUTER], "agent": [*COLLECT, SPARE_AGENT],
                        "judge": [judge()]}, cancel=signal, on_event=on_event)
    assert (out["run_state"], out["release_outcome"]) == ("CANCELLED", "CANCELLED")
    assert out["content"] is None
    assert kinds(out) == ["metadata", "status*"]  # no content, no failure, no done
    assert received == out["events"]
    assert consumed(services) == {"router": 1, "agent": 1}
    row = assert_stored(services, out)
    assert (row["status"], row["run_state"]) == ("CANCELLED", "CANCELLED")


# --- row 15 -----------------------------------------------------------------------------

ROUTER_FAILURES = {
    "transport": [{"raise": "transport"}, {"raise": "transport"}],
    "garbage": [text("DIAGNOSIS please"), text('{"intent": "MAYBE"}')],
    "timeout-then-bad-json": [{"raise": "timeout"}, text("{'intent': 'DIAGNOSIS'}")],
    "bad-time-window": [router(start="10:00", end="10:10"), router(start="yesterday")],
}


@pytest.mark.parametrize("how", list(ROUTER_FAILURES))
def test_row15_router_unavailable_after_its_two_attempts(how: str) -> None:
    services, out = go({"router": [*ROUTER_FAILURES[how], ROUTER], "agent": [SPARE_AGENT]})
    assert outcome(out) == ("FAILED", "FAILED", None, "ROUTING_UNAVAILABLE")
    assert_failed(out, "ROUTING_UNAVAILABLE")
    assert phases(out) == ["routing"]
    assert consumed(services) == {"router": 2}
    receipts = services.store.trace(out["run_id"])["receipts"]
    assert [(r["role"], r["attempt"], r["outcome"]) for r in receipts] == [
        ("router", 1, "failed"), ("router", 2, "failed")]
    assert out["intent"] is None
    assert assert_stored(services, out)["status"] == "FAILED"


# --- row 16 -----------------------------------------------------------------------------


@pytest.mark.parametrize("before", [[], [COLLECT[0]]], ids=["first-call", "after-a-fact"])
def test_row16_unclassified_crash_in_the_agent_call_fails(before: list[dict[str, Any]]) -> None:
    services, out = go({"router": [ROUTER], "agent": [*before, {"raise": "error"}, SPARE_AGENT]})
    assert outcome(out) == ("FAILED", "FAILED", None, "INTERNAL_FAILURE")
    failure = assert_failed(out, "INTERNAL_FAILURE")
    assert "UNKNOWN" in failure["message"]
    assert consumed(services) == {"router": 1, "agent": len(before) + 1}
    agent_calls = [c for c in services.store.trace(out["run_id"])["model_calls"]
                   if c["role"] == "agent"]
    assert agent_calls[-1]["failure_class"] == "UNKNOWN" and agent_calls[-1]["input_tokens"] == 0
    assert assert_stored(services, out)["status"] == "FAILED"


# --- row 17 -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad_sql", ["DROP TABLE payments", "SELECT * FROM no_such_table"])
def test_row17_a_tool_error_stays_an_observation_and_the_agent_recovers(bad_sql: str) -> None:
    agent = [call("query_mysql", {"sql": bad_sql}, "c1"),
             call("query_logs", EV[0]["args"], "c2", prev="c1", gain="NO_GAIN"),
             draft(ROOT_CAUSE, CLAIMS[:1])]
    services, out = go({"router": [ROUTER], "agent": agent, "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert_published(out)
    trace = services.store.trace(out["run_id"])
    error, found = trace["tool_records"]
    assert (error["invocation_status"], error["evidence_status"]) == ("ERROR", "ERROR")
    assert error["facts"] == [] and error["error"].startswith("rejected_sql")
    # The error took no evidence index: the next READY call is E1.
    assert found["ready_index"] == 1 and cited(out["content"]) == {"E1.2"}
    # The model saw the error as an observation it could react to, with no evidence ids.
    failed_obs = tool_messages(seen(services)[1])[0]
    assert "rejected_sql" in failed_obs.content and not cited(failed_obs.content)
    assert_stored(services, out)


def test_row17_citing_the_failed_call_is_never_accepted() -> None:
    agent = [call("query_mysql", {"sql": "DROP TABLE payments"}, "c1"),
             call("query_logs", EV[0]["args"], "c2", prev="c1", gain="NO_GAIN"),
             draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E1.2", "E2.1"])])]
    services, out = go({"router": [ROUTER], "agent": agent,
                        "repair": [draft(ROOT_CAUSE, [(CLAIMS[0][0], ["E2.1"])])]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "EVIDENCE_VALIDATION_FAILED", None)
    assert "E2.1" not in without_proposal(out["content"])
    assert "- claim 1 cites E2.1: UNKNOWN_ID" in out["content"]  # why it is not published
    assert_fallback_facts_only(services, out)


# --- GENERAL and invalid input ----------------------------------------------------------


def test_general_question_gets_the_fixed_capability_reply() -> None:
    services, out = go({"router": [router(intent="GENERAL", service=None)],
                        "agent": [SPARE_AGENT]}, "what can you do?")
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert out["intent"] == "GENERAL"
    assert out["content"] == CAPABILITY_REPLY
    assert_published(out)
    assert consumed(services) == {"router": 1}
    assert assert_stored(services, out)["intent"] == "GENERAL"


@pytest.mark.parametrize(("question", "says"), [
    ("", "empty"), ("   \n\t", "empty"), ("x" * 4097, "4097 bytes"),
    ("é" * 2049, "4098 bytes"), (42, "must be text"), (None, "must be text"),
])
def test_invalid_input_fails_before_any_model_call(question: Any, says: str) -> None:
    services, out = go({"router": [ROUTER], "agent": [SPARE_AGENT]}, question)
    assert outcome(out) == ("FAILED", "FAILED", None, "INVALID_INPUT")
    failure = assert_failed(out, "INVALID_INPUT", ["metadata", "failure", "done"])
    assert says in failure["message"]
    assert consumed(services) == {}
    assert out["usage"]["model_calls"] == 0
    assert assert_stored(services, out)["status"] == "FAILED"


def test_question_of_exactly_the_limit_is_accepted() -> None:
    services, out = go({"router": [router(intent="GENERAL", service=None)]}, "x" * 4096)
    assert out["release_outcome"] == "SUCCESS"
    assert consumed(services) == {"router": 1}


# --- rows 18 to 20: a verdict per claim, one revision (docs/design.md §8) -------------------

SIDE_CLAIM = ("every checkout request calls payment-db through this pool", ["E1.1"])
"""An overreaching side claim (nothing cited shows every request): the judge refuses it."""


def test_row18_a_refused_side_claim_is_dropped_and_the_rest_publishes() -> None:
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, [*CLAIMS, SIDE_CLAIM]), SPARE_AGENT],
                        "judge": [judge_claims(["SUPPORTED", "SUPPORTED", "UNSUPPORTED"])]},
                       thread_id="row18")
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert_published(out)
    assert consumed(services) == {"router": 1, "agent": 3, "judge": 1}  # no revision asked
    # The report shows the supported claims with their evidence, and no trace of the refused
    # one: neither its words nor E1.1, which only it cited.
    assert out["content"].startswith(f"Root cause: {ROOT_CAUSE}")
    assert cited(out["content"]) == {"E1.2", "E2.1"}
    assert SIDE_CLAIM[0] not in out["content"] and "every checkout" not in out["content"]
    # The record keeps it: the draft in state and the verdict row, with the judge's reason.
    kept = thread_values(services, "row18")["draft"]["conclusion"]["claims"]
    assert [c["statement"] for c in kept][-1] == SIDE_CLAIM[0]
    [row] = [v["verdict"] for v in services.store.trace(out["run_id"])["verdicts"]
             if v["guard"] == "semantic"]
    assert row["verdict"] == "SUPPORTED"
    assert [(c["index"], c["verdict"]) for c in row["claims"]] == [
        (0, "SUPPORTED"), (1, "SUPPORTED"), (2, "UNSUPPORTED")]
    assert assert_stored(services, out)["status"] == "SUCCESS"


def test_row19_judge_refuses_and_a_revision_that_narrows_the_claims_publishes() -> None:
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, [SIDE_CLAIM, *CLAIMS]),
                                  draft(ROOT_CAUSE, CLAIMS), SPARE_AGENT],
                        "judge": [judge_claims(["UNSUPPORTED", "SUPPORTED", "SUPPORTED"],
                                               root="UNSUPPORTED"),
                                  judge_claims(["SUPPORTED", "SUPPORTED"])]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert_published(out)
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 2}
    assert phases(out)[-5:] == ["judging", "revising", "investigating", "checking evidence",
                                "judging"]
    # The agent's revision turn was given the judge's verdict on each claim, once.
    revision = seen(services)[-1][-1]
    assert "claim 1" in revision.content and "UNSUPPORTED" in revision.content
    assert SIDE_CLAIM[0] in revision.content
    assert "up to 8 more tool call(s)" in revision.content  # the truth about its budget
    assert cited(out["content"]) == {"E1.2", "E2.1"} and SIDE_CLAIM[0] not in out["content"]
    trace = services.store.trace(out["run_id"])
    [kept] = [v["verdict"] for v in trace["verdicts"] if v["guard"] == "revision"]
    assert kept["refused_draft"]["conclusion"]["claims"][0]["statement"] == SIDE_CLAIM[0]
    assert [c["role"] for c in trace["model_calls"]].count("agent") == 4
    assert out["usage"]["model_calls"] == 7  # router, 4 agent turns, 2 judgements
    assert_stored(services, out)


def test_row20_judge_refuses_and_the_revision_withdraws() -> None:
    services, out = go({"router": [ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(None), SPARE_AGENT],
                        "judge": [judge("UNSUPPORTED"), judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert_published(out)
    assert_fallback_facts_only(services, out)
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 1}
    assert_stored(services, out)
