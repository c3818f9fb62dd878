"""Routers and the release decision on hand-built state (no graph, no models)."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from langchain_core.messages import AIMessage

from diagnosis_harness.control.contracts import FailureCode, FallbackType, ReleaseOutcome, RunState
from diagnosis_harness.graph import routing
from diagnosis_harness.nodes import _stops
from diagnosis_harness.nodes.release import decide
from diagnosis_harness.run.state import StopKind

DRAFT = {"conclusion": {"root_cause": "pool exhausted",
                        "claims": [{"statement": "s", "evidence_ids": ["E1.1"]}]},
         "next_steps": []}


def stop(kind: str, run_state: str = "FAILED", code: str | None = None) -> dict:
    return {"stop": {"kind": kind, "run_state": run_state, "failure_code": code, "message": "m"}}


def test_after_route() -> None:
    assert routing.after_route({"intent": "DIAGNOSIS", "scope": {"service": "x"}}) == "model"
    assert routing.after_route({"intent": "GENERAL"}) == "release"
    assert routing.after_route({"intent": "DIAGNOSIS", "scope": {"missing": ["service"]}}) == "release"
    assert routing.after_route({**stop("routing_unavailable"), "intent": "DIAGNOSIS"}) == "release"


def test_after_model() -> None:
    call = AIMessage("", tool_calls=[{"name": "query_logs", "args": {}, "id": "c1"}])
    assert routing.after_model({"messages": [call]}) == "tool_gate"
    assert routing.after_model({"messages": [AIMessage("{}")]}) == "draft_parse"
    assert routing.after_model({"messages": [call], **stop("budget")}) == "release"


def test_after_draft_parse_and_guards() -> None:
    assert routing.after_draft_parse({"draft": DRAFT}) == "evidence_guard"
    assert routing.after_draft_parse({"draft": {**DRAFT, "conclusion": None}}) == "release"
    # an invalid draft goes back to the agent once with its parse error, then is final
    assert routing.after_draft_parse({"draft_error": {"error": "INVALID_JSON"}}) == "revise"
    assert routing.after_draft_parse({"draft_error": {"error": "INVALID_JSON"},
                                      "draft_retry_used": True}) == "release"
    assert routing.after_evidence_guard({"evidence_verdict": {"passed": True}}) == "semantic_guard"
    assert routing.after_evidence_guard({"evidence_verdict": {"passed": False}}) == "evidence_repair"
    assert routing.after_evidence_guard({"evidence_verdict": {"passed": False},
                                         "repair_used": True}) == "release"
    assert routing.after_repair({"repair_used": True}) == "evidence_guard"
    assert routing.after_tool_gate(stop("controlled", "SUCCESS")) == "release"
    assert routing.after_tool_gate({}) == "saturation_check"


DIAG = {"intent": "DIAGNOSIS", "scope": {"service": "payment-service"}}


@pytest.mark.parametrize("state,facts,expected", [
    ({**DIAG, "draft": DRAFT, "evidence_verdict": {"passed": True},
      "semantic_verdict": {"verdict": "SUPPORTED"}}, True,
     (RunState.SUCCESS, ReleaseOutcome.SUCCESS, None, None)),
    ({"intent": "DIAGNOSIS", "scope": {"missing": ["service"]}}, False,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.MISSING_REQUIRED_CONTEXT, None)),
    ({**DIAG, "draft": {**DRAFT, "conclusion": None}}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.INSUFFICIENT_EVIDENCE, None)),
    ({**DIAG, **stop("controlled", "SUCCESS")}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.INSUFFICIENT_EVIDENCE, None)),
    ({**DIAG, "draft": DRAFT, "evidence_verdict": {"passed": False}, "repair_used": True}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.EVIDENCE_VALIDATION_FAILED, None)),
    ({**DIAG, "draft": DRAFT, "evidence_verdict": {"passed": True},
      "semantic_verdict": {"verdict": "UNSUPPORTED"}}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.SEMANTIC_UNSUPPORTED, None)),
    ({**DIAG, "draft": DRAFT, "evidence_verdict": {"passed": True},
      "semantic_verdict": {"verdict": "UNAVAILABLE"}}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.SEMANTIC_UNAVAILABLE, None)),
    ({**DIAG, **stop("budget", "BUDGET_EXHAUSTED", "BUDGET_EXHAUSTED")}, True,
     (RunState.BUDGET_EXHAUSTED, ReleaseOutcome.FALLBACK, FallbackType.INSUFFICIENT_EVIDENCE, None)),
    ({**DIAG, **stop("budget", "BUDGET_EXHAUSTED", "BUDGET_EXHAUSTED")}, False,
     (RunState.BUDGET_EXHAUSTED, ReleaseOutcome.FAILED, None, FailureCode.BUDGET_EXHAUSTED)),
    ({**DIAG, "draft_error": {"error": "INVALID_JSON", "detail": ""}}, True,
     (RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.INSUFFICIENT_EVIDENCE, None)),
    ({**DIAG, "draft_error": {"error": "EMPTY_DRAFT", "detail": ""}}, False,
     (RunState.FAILED, ReleaseOutcome.FAILED, None, FailureCode.INTERNAL_FAILURE)),
    ({**DIAG, **stop("timed_out", "TIMED_OUT", "RUN_TIMED_OUT")}, True,
     (RunState.TIMED_OUT, ReleaseOutcome.FAILED, None, FailureCode.RUN_TIMED_OUT)),
    ({**DIAG, **stop("cancelled", "CANCELLED", "RUN_CANCELLED")}, True,
     (RunState.CANCELLED, ReleaseOutcome.CANCELLED, None, None)),
    ({**stop("routing_unavailable", "FAILED", "ROUTING_UNAVAILABLE")}, False,
     (RunState.FAILED, ReleaseOutcome.FAILED, None, FailureCode.ROUTING_UNAVAILABLE)),
    ({**DIAG, **stop("crash", "FAILED", "INTERNAL_FAILURE")}, True,
     (RunState.FAILED, ReleaseOutcome.FAILED, None, FailureCode.INTERNAL_FAILURE)),
    ({**stop("invalid_input", "FAILED", "INVALID_INPUT")}, False,
     (RunState.FAILED, ReleaseOutcome.FAILED, None, FailureCode.INVALID_INPUT)),
])
def test_release_decision_matrix(state: dict, facts: bool, expected: tuple) -> None:
    d = decide(state, facts)
    assert (d.run_state, d.outcome, d.fallback, d.failure) == expected


@pytest.mark.parametrize("kind", get_args(StopKind))
def test_every_stop_kind_has_its_own_row_and_round_trips_as_plain_json(kind: str) -> None:
    built = _stops.stop(kind, RunState.FAILED, FailureCode.INTERNAL_FAILURE, "m",
                        failure_class="TIMEOUT")
    assert json.loads(json.dumps(built)) == built  # a plain dict: checkpoints hold it unchanged
    d = decide({**DIAG, "stop": built}, True)
    assert "unknown stop kind" not in d.message


def test_the_controlled_stop_builder_is_the_controlled_row() -> None:
    d = decide({**DIAG, "stop": _stops.controlled_stop("m")}, True)
    assert (d.run_state, d.outcome, d.fallback) == (RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                                                    FallbackType.INSUFFICIENT_EVIDENCE)
