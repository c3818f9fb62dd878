"""Routing functions: pure, synchronous, typed with the exact edges they can take.

A stop written into state by any node sends the run to ``release``; so does every path that
ends the loop. The drawn graph (Studio, ``draw_mermaid``) shows exactly these edges.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage

from diagnosis_harness.run.state import DiagnosisState


def after_route(state: DiagnosisState) -> Literal["model", "release"]:
    """Investigate only a complete diagnosis request; everything else goes to release."""
    if state.get("stop") or state.get("intent") != "DIAGNOSIS":
        return "release"
    if (state.get("scope") or {}).get("missing"):
        return "release"
    return "model"


def after_model(state: DiagnosisState) -> Literal["tool_gate", "draft_parse", "release"]:
    """Tool calls go through the gate, a final text to the draft parser, stops to release."""
    if state.get("stop"):
        return "release"
    last = state["messages"][-1]
    if isinstance(last, AIMessage) and last.tool_calls:
        return "tool_gate"
    return "draft_parse"


def after_tool_gate(state: DiagnosisState) -> Literal["saturation_check", "release"]:
    """A controlled stop (tool asked after STOP_REQUIRED) ends the loop."""
    return "release" if state.get("stop") else "saturation_check"


def after_draft_parse(state: DiagnosisState) -> Literal["evidence_guard", "revise", "release"]:
    """A valid draft with a conclusion is checked; a null one is released.

    An invalid draft goes back to the agent once with its parse error (``revise``); a second
    invalid draft is released.
    """
    if state.get("stop"):
        return "release"
    if state.get("draft_error"):
        return "release" if state.get("draft_retry_used") else "revise"
    draft = state.get("draft") or {}
    return "evidence_guard" if draft.get("conclusion") is not None else "release"


def after_evidence_guard(state: DiagnosisState) -> Literal["semantic_guard", "evidence_repair",
                                                           "release"]:
    """Pass → judge; fail with the repair unused → repair; fail after it (or a revision) → release."""
    verdict = state.get("evidence_verdict")
    if verdict is not None and verdict["passed"]:
        return "semantic_guard"
    # A revised draft gets no repair: the revision was the agent's one answer to a refusal.
    if state.get("repair_used") or state.get("revision_used"):
        return "release"
    return "evidence_repair"


def after_repair(state: DiagnosisState) -> Literal["evidence_guard", "release"]:
    """A repaired (or unrepaired) draft is checked again, unless the run stopped."""
    return "release" if state.get("stop") else "evidence_guard"


def after_semantic_guard(state: DiagnosisState) -> Literal["revise", "release"]:
    """A refusal goes back to the agent once (``revise``); anything else is released."""
    if state.get("stop") or state.get("revision_used"):
        return "release"
    verdict = state.get("semantic_verdict") or {}
    return "revise" if verdict.get("verdict") == "UNSUPPORTED" else "release"


def after_revise(state: DiagnosisState) -> Literal["model", "release"]:
    """The agent answers the refusal, unless ``revise`` kept the draft (no budget) or a stop.

    ``revise`` clears the draft (or the draft error) exactly when it hands the refusal (or the
    parse error) to the agent.
    """
    if state.get("stop") or state.get("draft") is not None or state.get("draft_error"):
        return "release"
    return "model"
