"""Release checks the deadline and the cancel signal before it decides: nothing is published late.

A run whose deadline passed on its way to release ends TIMED_OUT / FAILED / RUN_TIMED_OUT, the
matrix row of a deadline passing while collecting; a cancelled one ends CANCELLED with nothing
more emitted. Found as "a FALLBACK was published after the deadline": the paths below reach
release through nodes that call no model, so no earlier node checked the lifecycle.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from graphkit import (
    COLLECT,
    EMPTY_SQL,
    INC_ROUTER,
    ROOT_CAUSE,
    SATURATING,
    ManualClock,
    assert_stored,
    call,
    demo_home,
    draft,
    go,
    kinds,
    outcome,
    services_for,
)

from diagnosis_harness.control.contracts import FailureCode, FallbackType, ReleaseOutcome, RunState
from diagnosis_harness.control.lifecycle import CancelSignal, RunLifecycle
from diagnosis_harness.nodes._stops import controlled_stop, stop
from diagnosis_harness.nodes.release import decide, release
from diagnosis_harness.session.runner import new_context

AFTER_STOP = call("query_mysql", EMPTY_SQL, "c5", prev="c4", gain="NO_GAIN")
PATHS = {
    # (script, the status phase after which release comes with no model call between, its count)
    # (empty results the agent judges NO_GAIN saturate; the final draft turn calls a tool)
    "controlled-stop": ({"router": [INC_ROUTER], "agent": [*SATURATING, AFTER_STOP]},
                        "collecting evidence", 5),
    "evidence-failed-after-repair": ({"router": [INC_ROUTER],
                                      "agent": [*COLLECT, draft(ROOT_CAUSE, [("x", ["E9.9"])])],
                                      "repair": [draft(ROOT_CAUSE, [("x", ["E9.8"])])]},
                                     "checking evidence", 2),
}


def _at(phase: str, nth: int, act: Any) -> Any:
    seen = {"n": 0}

    def on_event(ev: dict[str, Any]) -> None:
        if ev.get("phase") == phase:
            seen["n"] += 1
            if seen["n"] == nth:
                act()
    return on_event


@pytest.mark.parametrize("path", list(PATHS))
def test_without_a_late_deadline_these_paths_publish_a_fallback(path: str) -> None:
    script, _, _ = PATHS[path]
    _, out = go(script, clock=ManualClock(), settings={"deadline_s": 60})
    assert out["release_outcome"] == "FALLBACK" and out["content"]


@pytest.mark.parametrize("path", list(PATHS))
def test_a_deadline_passed_before_release_times_the_run_out(path: str) -> None:
    script, phase, nth = PATHS[path]
    clock = ManualClock()
    services, out = go(script, clock=clock, settings={"deadline_s": 60},
                       on_event=_at(phase, nth, lambda: clock.advance(61)))
    assert outcome(out) == ("TIMED_OUT", "FAILED", None, "RUN_TIMED_OUT")
    assert out["content"] is None
    assert kinds(out) == ["metadata", "status*", "failure", "done"]
    failure = next(e for e in out["events"] if e["event"] == "failure")
    assert failure["failure_code"] == "RUN_TIMED_OUT"
    assert assert_stored(services, out)["status"] == "FAILED"


@pytest.mark.parametrize("path", list(PATHS))
def test_a_cancel_before_release_publishes_nothing(path: str) -> None:
    script, phase, nth = PATHS[path]
    signal = CancelSignal()
    services, out = go(script, cancel=signal, on_event=_at(phase, nth, signal.cancel))
    assert (out["run_state"], out["release_outcome"], out["content"]) == (
        "CANCELLED", "CANCELLED", None)
    assert "content" not in kinds(out) and "done" not in kinds(out)
    assert services.store.get_run(out["run_id"])["status"] == "CANCELLED"


# --- the node and the pure decision ---------------------------------------------------------


def test_release_node_called_after_the_deadline_writes_a_timed_out_row() -> None:
    services = services_for(demo_home(), {})
    clock = ManualClock()
    ctx = new_context(services, thread_id="late")
    ctx.lifecycle = RunLifecycle(deadline_s=60, clock=clock)
    services.store.start_run(ctx.run_id, "late", "q", "replay:inline")
    clock.advance(61)
    state = {"intent": "DIAGNOSIS", "scope": {"service": "payment-service"},
             "stop": controlled_stop("a tool was called after STOP_REQUIRED was delivered"),
             "records": []}
    out = asyncio.run(release(state, SimpleNamespace(context=ctx)))
    assert (out["run_state"], out["release_outcome"], out["failure_code"]) == (
        "TIMED_OUT", "FAILED", "RUN_TIMED_OUT")
    assert out["content"] is None
    assert services.store.get_run(ctx.run_id)["run_state"] == "TIMED_OUT"
    assert ctx.lifecycle.state is RunState.TIMED_OUT


DRAFT = {"conclusion": {"root_cause": "r", "claims": [{"statement": "s", "evidence_ids": ["E1.1"]}]},
         "next_steps": []}
WOULD_PUBLISH = {
    "success": {"intent": "DIAGNOSIS", "draft": DRAFT, "evidence_verdict": {"passed": True, "problems": []},
                "semantic_verdict": {"verdict": "SUPPORTED", "reasons": []}},
    "controlled": {"intent": "DIAGNOSIS", "stop": controlled_stop("m")},
    "general": {"intent": "GENERAL"},
    "budget": {"intent": "DIAGNOSIS",
               "stop": stop("budget", RunState.BUDGET_EXHAUSTED, FailureCode.BUDGET_EXHAUSTED, "m")},
}
ENDED = {
    "timed_out": (stop("timed_out", RunState.TIMED_OUT, FailureCode.RUN_TIMED_OUT, "late"),
                  (RunState.TIMED_OUT, ReleaseOutcome.FAILED, None, FailureCode.RUN_TIMED_OUT)),
    "cancelled": (stop("cancelled", RunState.CANCELLED, FailureCode.RUN_CANCELLED, "gone"),
                  (RunState.CANCELLED, ReleaseOutcome.CANCELLED, None, None)),
}


@pytest.mark.parametrize("shape", list(WOULD_PUBLISH))
@pytest.mark.parametrize("ended", list(ENDED))
def test_the_lifecycles_end_outranks_what_the_run_would_publish(shape: str, ended: str) -> None:
    state = WOULD_PUBLISH[shape]
    assert decide(state, True).outcome in (ReleaseOutcome.SUCCESS, ReleaseOutcome.FALLBACK)
    stop_, expected = ENDED[ended]
    d = decide(state, True, ended=stop_)
    assert (d.run_state, d.outcome, d.fallback, d.failure) == expected


def test_a_stop_of_a_kind_no_stopkind_names_fails_closed() -> None:
    d = decide({"stop": {"kind": "controled", "run_state": "SUCCESS", "failure_code": None,
                         "message": "m"}}, True)
    assert (d.run_state, d.outcome, d.failure) == (RunState.FAILED, ReleaseOutcome.FAILED,
                                                   FailureCode.INTERNAL_FAILURE)
    assert d.fallback is not FallbackType.INSUFFICIENT_EVIDENCE and "controled" in d.message
