"""tool_gate: the five gates every evidence tool call passes, one call after another (DESIGN §7).

(1) evidence tool? (2) saturated and STOP_REQUIRED delivered → controlled stop; (3) progress
envelope on every call after the first; (4) same tool + same normalised scope → DUPLICATE_SCOPE,
not executed; (5) the tool boundary. Tool trouble becomes an error observation, never a crash.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import ValidationError

from diagnosis.context import RunContext, run_context
from diagnosis.state import DiagnosisState
from guards.envelope import INVALID_ENVELOPE
from harness.contracts import (
    CollectionState,
    EvidenceStatus,
    Gain,
    InvocationStatus,
    PreviousObservation,
    RunState,
    StopReason,
    ToolRecord,
)
from nodes._model_call import offload
from nodes._stops import stop, stop_if_inactive
from tools.boundary import execute_tool, render_observation, scope_of
from tools.registry import TOOLS


def _observation(call_id: str, body: dict[str, Any]) -> ToolMessage:
    return ToolMessage(content=render_observation(body), tool_call_id=call_id)


def _envelope_problem(raw: Any, expected_id: str) -> str | None:
    if raw is None:
        return "previous_observation is missing"
    try:
        envelope = PreviousObservation.model_validate(raw)
    except ValidationError as exc:
        return f"previous_observation is malformed: {exc.errors()[0]['msg']}"
    if envelope.tool_call_id != expected_id:
        return f"previous_observation.tool_call_id must be {expected_id!r}"
    return None


async def tool_gate(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Gate and run the tool calls of the agent's last turn, serially."""
    ctx = run_context(runtime)
    reply = state["messages"][-1]
    assert isinstance(reply, AIMessage)
    budget = ctx.budget(state.get("usage"))
    records = [ToolRecord.model_validate(r) for r in state.get("records", [])]
    new_records: list[ToolRecord] = []
    messages: list[ToolMessage] = []
    no_gain = state.get("no_gain_streak", 0)
    violations = state.get("violation_streak", 0)
    last_call = state.get("last_evidence_call")
    collection = state.get("collection_state", CollectionState.COLLECTING.value)
    stop_reason = state.get("stop_reason")
    ctx.emitter.emit("status", phase="collecting evidence")

    def update(**extra: Any) -> dict[str, Any]:
        return {"records": [r.model_dump(mode="json") for r in new_records],
                "messages": messages, "no_gain_streak": no_gain, "violation_streak": violations,
                "last_evidence_call": last_call, "collection_state": collection,
                "stop_reason": stop_reason, "usage": budget.usage.model_dump(), **extra}

    def violation(call_id: str, message: str) -> None:
        """A repairable protocol error; N in a row saturate collection (DESIGN §7 gate 3)."""
        nonlocal violations, collection, stop_reason
        violations += 1
        if violations >= ctx.settings.protocol_violation_threshold:
            collection = CollectionState.SATURATED.value
            stop_reason = stop_reason or StopReason.PROGRESS_PROTOCOL_VIOLATED.value
        messages.append(_observation(call_id, {"error": message}))

    for call in reply.tool_calls:
        call_id, name = call.get("id") or "", call["name"]
        args = dict(call.get("args") or {})
        if name == INVALID_ENVELOPE:  # json protocol: a reply that was no envelope at all
            violation(call_id, f"protocol violation: {args.get('problem')}. Reply with exactly "
                               "one JSON envelope: a tool_call or a final draft.")
            continue
        if name not in TOOLS:  # gate 1
            messages.append(_observation(call_id, {
                "error": f"unknown tool {name!r}; the evidence tools are {sorted(TOOLS)}"}))
            continue
        if collection == CollectionState.SATURATED.value and state.get("stop_delivered"):  # gate 2
            return update(stop=stop("controlled", RunState.SUCCESS, None,
                                    "evidence tool called after STOP_REQUIRED was delivered"))
        envelope = args.pop("previous_observation", None)
        if last_call is not None:  # gate 3
            problem = _envelope_problem(envelope, last_call)
            if problem:
                violation(call_id, f"progress protocol violation: {problem}. Call again with "
                                   f"previous_observation {{tool_call_id: {last_call!r}, gain: "
                                   "GAINED|NO_GAIN, note}; the call was not executed.")
                continue
            violations = 0
            previous = next((r for r in [*records, *new_records] if r.tool_call_id == last_call),
                            None)
            if previous and previous.evidence_status is EvidenceStatus.EVIDENCE_FOUND:
                # Only a found result's gain is the agent's to judge; empty/error/duplicate
                # results were already counted NO_GAIN when they happened.
                gain = envelope["gain"] if isinstance(envelope, dict) else Gain.NO_GAIN
                no_gain = 0 if gain == Gain.GAINED.value else no_gain + 1
        scope = scope_of(name, args, ctx.settings)
        if (late := stop_if_inactive(ctx)) is not None:
            # Serial calls of one turn: a run cancelled or timed out while an earlier call ran
            # queries nothing more (lifecycle: check active before anything that costs time).
            return update(stop=late)
        if scope is not None and any(  # gate 4
            r.tool == name and r.scope == scope and r.invocation_status is InvocationStatus.READY
            for r in [*records, *new_records]
        ):
            no_gain += 1
            last_call = call_id
            messages.append(_observation(call_id, {
                "status": "DUPLICATE_SCOPE", "tool": name, "scope": scope,
                "note": "this exact scope was already queried in this run; not executed"}))
            continue
        ready = sum(r.invocation_status is InvocationStatus.READY for r in [*records, *new_records])
        outcome = await offload(execute_tool, name, args, tool_call_id=call_id,  # gate 5
                                backends=ctx.backends, budget=budget, settings=ctx.settings,
                                ready_count=ready, timeout_s=ctx.lifecycle.remaining())
        await offload(ctx.store.record_tool, ctx.run_id, outcome.record)
        new_records.append(outcome.record)
        messages.append(_observation(call_id, outcome.observation))
        if outcome.record.evidence_status is not EvidenceStatus.EVIDENCE_FOUND:
            no_gain += 1
        last_call = call_id
    return update()
