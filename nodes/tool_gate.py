"""tool_gate: every tool call of the agent's turn passes :data:`GATES`, in order, one call after another.

The gates — pure checks of a frozen :class:`GateState` and the :class:`GateCall`, each passing,
skipping (an observation, nothing run) or halting the run, the first that does not pass
deciding — are :mod:`diagnosis_harness.nodes._gates`, with their order of precedence.

A call that passes them all runs at the tool boundary; tool trouble there becomes an error
observation, never a crash. Its canonical record is stored in the run store before the state's
record index names it (:mod:`diagnosis_harness.run.records`). A call this run already made (its record is
in the run store: the node is re-executed on resume) is reused, never run twice. See
docs/design.md (tool gate).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from diagnosis_harness.control.contracts import CollectionState, InvocationStatus
from diagnosis_harness.nodes._gates import (
    GATES,
    Gate,
    GateCall,
    GateState,
    Halt,
    Pass,
    ScopeOf,
    Skip,
    Verdict,
    run_gates,
)
from diagnosis_harness.nodes._model_call import offload
from diagnosis_harness.nodes._stops import stop_if_inactive
from diagnosis_harness.nodes._tool_calls import stored_call
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.tools.boundary import ToolOutcome, execute_tool, render_observation, scope_of
from diagnosis_harness.tools.projection import known_passages, mark_repeats, remember_passages
from diagnosis_harness.tools.registry import enabled_tools

if TYPE_CHECKING:
    from diagnosis_harness.control.budget import Budget
from diagnosis_harness.run.records import RecordRef, index_entry, refs
from diagnosis_harness.run.state import DiagnosisState

__all__ = ["GATES", "Gate", "GateCall", "GateState", "Halt", "Pass", "ScopeOf", "Skip", "Verdict",
           "run_gates", "tool_gate"]


def _observation(call_id: str, body: dict[str, Any]) -> ToolMessage:
    return ToolMessage(content=render_observation(body), tool_call_id=call_id)


def _run_and_store(ctx: RunContext, call: GateCall, budget: Budget, ready: int,
                   known: dict[str, str]) -> ToolOutcome:
    """Run one call at the boundary and store its record (blocking: one worker thread for both).

    The record is written before the state's index names it: a checkpoint never points at a
    record the run store could lose (a process killed with rows still queued). A passage the
    model was already shown in this run (``known``) is stored and sent as ``same_as`` its
    first id (:func:`~diagnosis_harness.tools.projection.mark_repeats`); the record keeps it.
    """
    outcome = execute_tool(call.name, dict(call.args), tool_call_id=call.id,
                           backends=ctx.backends, budget=budget, settings=ctx.settings,
                           ready_count=ready, extra_tools=ctx.mcp_tools,
                           timeout_s=ctx.lifecycle.remaining())
    outcome = replace(outcome, observation=mark_repeats(outcome.observation, known))
    ctx.store.record_tool(ctx.run_id, outcome.record, outcome.observation)  # written on return
    if ctx.stored_calls is not None:
        ctx.stored_calls.add(call.id)
    return outcome


async def tool_gate(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Gate and run the tool calls of the agent's last turn, serially."""
    ctx = run_context(runtime)
    reply = state["messages"][-1]
    assert isinstance(reply, AIMessage)
    budget = ctx.budget(state.get("usage"))
    gs = GateState(
        collection=state.get("collection_state", CollectionState.COLLECTING.value),
        stop_delivered=bool(state.get("stop_delivered")), stop_reason=state.get("stop_reason"),
        last_call=state.get("last_evidence_call"), no_gain=state.get("no_gain_streak", 0),
        violations=state.get("violation_streak", 0),
        violation_threshold=ctx.settings.protocol_violation_threshold,
        records=refs(state.get("records")),
        tools=enabled_tools(ctx.backends) | frozenset(ctx.mcp_tools))
    new_records: list[dict[str, Any]] = []
    messages: list[ToolMessage] = []
    known = known_passages([m.content for m in state["messages"]
                            if isinstance(m, ToolMessage) and isinstance(m.content, str)])
    ctx.emitter.emit("status", phase="collecting evidence")

    def update(**extra: object) -> dict[str, Any]:
        return {"records": new_records,
                "messages": messages, "no_gain_streak": gs.no_gain,
                "violation_streak": gs.violations, "last_evidence_call": gs.last_call,
                "collection_state": gs.collection, "stop_reason": gs.stop_reason,
                "usage": budget.usage.model_dump(), **extra}

    def scope_for(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        return scope_of(name, args, ctx.settings, ctx.mcp_tools)

    for raw in reply.tool_calls:
        call = GateCall.of(raw, scope_for)
        # Serial calls of one turn: the lifecycle is asked again before each (cancel, deadline).
        # A call after another of this turn was written before that one's result existed.
        unseen = gs.last_call != state.get("last_evidence_call")
        verdict = run_gates(replace(gs, ended=stop_if_inactive(ctx), unseen=unseen), call)
        if isinstance(verdict, Halt):
            return update(stop=verdict.stop)
        gs = replace(verdict.state, ended=None)
        if isinstance(verdict, Skip):
            messages.append(_observation(call.id, verdict.observation))
            continue
        ran = await stored_call(ctx, call.id, gs.records, budget)
        if ran is None:  # not run before: the tool boundary runs it, and the store keeps it
            ready = sum(r.invocation_status is InvocationStatus.READY for r in gs.records)
            outcome = await offload(_run_and_store, ctx, call, budget, ready, known)
            ran = outcome.record, outcome.observation
        record, observation = ran
        remember_passages(observation, known)
        entry = index_entry(record)
        new_records.append(entry)
        messages.append(_observation(call.id, observation))
        # An error gains nothing; a READY result, found or empty ("checked, nothing there"), is
        # the agent's to judge with its next call's gain. An empty result alone never saturates.
        ready = record.invocation_status is InvocationStatus.READY
        gs = replace(gs, records=(*gs.records, RecordRef.of(entry)), last_call=call.id,
                     no_gain=gs.no_gain if ready else gs.no_gain + 1)
    return update()
