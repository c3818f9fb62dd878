"""The gates of ``tool_gate`` (docs/design.md, tool gate): pure checks every tool call passes, in order.

A gate is a pure function of a frozen :class:`GateState` (what the gates read, snapshotted before
each call) and the :class:`GateCall`; it returns :class:`Pass` (go on, maybe with updated
counters), :class:`Skip` (answer the call with an observation, run nothing) or :class:`Halt`
(end the run with a stop). The first gate that does not pass decides, so the order of
:data:`GATES` is the order of precedence:

1. after STOP_REQUIRED was delivered, *any* tool call is the controlled stop — a malformed
   envelope or an unknown tool name too, or the run would answer it until its budget is spent;
2. a json-protocol reply that was no envelope at all is a protocol violation;
3. only evidence tools exist;
4. every evidence call after the first carries a valid progress envelope (violations count),
   except one after another call of the same turn, which has seen no result yet;
5. a run cancelled or past its deadline queries nothing more;
6. the same tool with the same normalised scope is DUPLICATE_SCOPE, not executed (and the
   call the agent has just called GAINED, asked again, saturates collection at once); so is
   a repeat of a call the tool refused for good (rejected SQL, invalid input, too large).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from langchain_core.messages import ToolCall
from pydantic import ValidationError

from diagnosis_harness.control.contracts import (
    CollectionState,
    Gain,
    InvocationStatus,
    PreviousObservation,
    StopReason,
    ToolRecord,
)
from diagnosis_harness.guards.envelope import INVALID_ENVELOPE
from diagnosis_harness.nodes._stops import controlled_stop
from diagnosis_harness.run.records import RecordRef, error_code
from diagnosis_harness.run.state import Stop
from diagnosis_harness.tools.registry import TOOLS


@dataclass(frozen=True)
class GateState:
    """What the gates read: the loop's counters, snapshotted before each call, never mutated."""

    collection: str = CollectionState.COLLECTING.value
    stop_delivered: bool = False
    stop_reason: str | None = None
    last_call: str | None = None
    """The previous evidence call, which this call's progress envelope must name."""
    unseen: bool = False
    """``last_call`` is an earlier call of this same turn: the model has not seen its result."""
    no_gain: int = 0
    violations: int = 0
    violation_threshold: int = 3
    records: tuple[RecordRef | ToolRecord, ...] = ()
    """This run's records so far, this turn's included (their index, or whole records)."""
    ended: Stop | None = None
    """The lifecycle's stop if the run was cancelled or passed its deadline before this call."""
    tools: frozenset[str] = frozenset(TOOLS)
    """The evidence tools of this run: the built-in ones and its MCP tools."""

    @property
    def stop_required_delivered(self) -> bool:
        """Collection is saturated and the agent was told to stop."""
        return self.collection == CollectionState.SATURATED.value and self.stop_delivered


ScopeOf = Callable[[str, dict[str, Any]], Mapping[str, Any] | None]
"""How a call's scope is normalised: ``diagnosis_harness.tools.boundary.scope_of`` with the run's settings."""


def _no_scope(name: str, args: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class GateCall:
    """One tool call as the gates see it: ``args`` without the progress envelope."""

    id: str
    name: str
    args: Mapping[str, Any]
    envelope: object = None
    """The call's ``previous_observation`` argument, as the model sent it (None if absent)."""
    scope_of: ScopeOf = field(default=_no_scope, compare=False, repr=False)

    @cached_property
    def scope(self) -> Mapping[str, Any] | None:
        """The normalised scope the call would query (None: no evidence tool, or invalid args).

        Computed once, and only if a gate asks: a call stopped by an earlier gate is never
        parsed further.
        """
        return self.scope_of(self.name, dict(self.args))  # None for an unknown tool

    @classmethod
    def of(cls, call: ToolCall, scope_of: ScopeOf) -> GateCall:
        """Split the model's tool call into business args and the progress envelope."""
        args = dict(call.get("args") or {})
        envelope = args.pop("previous_observation", None)
        return cls(id=call.get("id") or "", name=call["name"], args=args, envelope=envelope,
                   scope_of=scope_of)


@dataclass(frozen=True)
class Pass:
    """Go on to the next gate (with the counters this gate updated)."""

    state: GateState


@dataclass(frozen=True)
class Skip:
    """Answer the call with ``observation`` and run nothing; go on with the next call."""

    state: GateState
    observation: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Halt:
    """End the run: ``stop`` goes to release."""

    stop: Stop


Verdict = Pass | Skip | Halt
Gate = Callable[[GateState, GateCall], Verdict]


def _violation(gs: GateState, message: str) -> Skip:
    """A repairable protocol error; N in a row saturate collection (docs/design.md, gate 4)."""
    violations = gs.violations + 1
    if violations < gs.violation_threshold:
        return Skip(replace(gs, violations=violations), {"error": message})
    return Skip(replace(gs, violations=violations, collection=CollectionState.SATURATED.value,
                        stop_reason=gs.stop_reason or StopReason.PROGRESS_PROTOCOL_VIOLATED.value),
                {"error": message})


def stop_required_delivered(gs: GateState, call: GateCall) -> Verdict:
    """Any tool call after STOP_REQUIRED was delivered ends collection: the controlled stop."""
    if gs.stop_required_delivered:
        return Halt(controlled_stop("a tool was called after STOP_REQUIRED was delivered"))
    return Pass(gs)


def well_formed_envelope(gs: GateState, call: GateCall) -> Verdict:
    """Under the json protocol, a reply that was no envelope at all is a protocol violation."""
    if call.name == INVALID_ENVELOPE:
        return _violation(gs, f"protocol violation: {call.args.get('problem')}. Reply with "
                              "exactly one JSON envelope: a tool_call or a final draft.")
    return Pass(gs)


def evidence_tool(gs: GateState, call: GateCall) -> Verdict:
    """Only the evidence tools exist; any other name is answered, never run."""
    if call.name not in gs.tools:
        return Skip(gs, {"error": f"unknown tool {call.name!r}; the evidence tools are "
                                  f"{sorted(gs.tools)}"})
    return Pass(gs)


def _envelope_problem(raw: object, expected_id: str) -> str | None:
    if raw is None:
        return "previous_observation is missing"
    try:
        envelope = PreviousObservation.model_validate(raw)
    except ValidationError as exc:
        return f"previous_observation is malformed: {exc.errors()[0]['msg']}"
    if envelope.tool_call_id != expected_id:
        return f"previous_observation.tool_call_id must be {expected_id!r}"
    return None


def progress_envelope(gs: GateState, call: GateCall) -> Verdict:
    """Every call after the first names the previous one and says whether it gained anything.

    A call after another of the same turn was written before that call's result existed (under
    native tool calls the model cannot even know its id): it needs no envelope, and any it sends
    is not counted — its gain cannot be known, and guessing GAINED or NO_GAIN would move the
    NO_GAIN streak on nothing. The next turn's first call judges the turn's last result.
    """
    if gs.last_call is None:
        return Pass(gs)
    if gs.unseen:
        return Pass(replace(gs, violations=0))
    problem = _envelope_problem(call.envelope, gs.last_call)
    if problem:
        return _violation(gs, f"progress protocol violation: {problem}. Call again with "
                              f"previous_observation {{tool_call_id: {gs.last_call!r}, gain: "
                              "GAINED|NO_GAIN, note}; the call was not executed.")
    no_gain = gs.no_gain
    previous = next((r for r in gs.records if r.tool_call_id == gs.last_call), None)
    if previous and previous.invocation_status is InvocationStatus.READY:
        # A READY result's gain (found or empty: "nothing there" can be news) is the agent's
        # to judge; error and duplicate answers were already counted NO_GAIN when they happened.
        gain = call.envelope["gain"] if isinstance(call.envelope, dict) else Gain.NO_GAIN
        no_gain = 0 if gain == Gain.GAINED.value else no_gain + 1
    return Pass(replace(gs, violations=0, no_gain=no_gain))


def run_active(gs: GateState, call: GateCall) -> Verdict:
    """A run cancelled or timed out (e.g. while an earlier call of this turn ran) stops here."""
    return Halt(gs.ended) if gs.ended is not None else Pass(gs)


def new_scope(gs: GateState, call: GateCall) -> Verdict:
    """The same tool and normalised scope already READY in this run is not queried again.

    If it is the very call the agent has just said GAINED (its previous one, asked again), that
    verdict is contradicted by what the agent does: it is not following up anything new, it is
    looping, and its gain reports no longer tell progress apart. Collection saturates at once
    (INFORMATION_SATURATED: STOP_REQUIRED goes with this answer) instead of after N NO_GAINs.
    """
    same = [r for r in gs.records if r.tool == call.name and r.scope == call.scope
            and r.invocation_status is InvocationStatus.READY] if call.scope is not None else []
    if not same:
        return _refused_again(gs, call)
    answered = replace(gs, no_gain=gs.no_gain + 1, last_call=call.id)
    gained = not gs.unseen and isinstance(call.envelope, dict) \
        and call.envelope.get("gain") == Gain.GAINED.value
    if gained and any(r.tool_call_id == gs.last_call for r in same) \
            and gs.collection == CollectionState.COLLECTING.value:
        answered = replace(answered, collection=CollectionState.SATURATED.value,
                           stop_reason=gs.stop_reason or StopReason.INFORMATION_SATURATED.value)
    # The earlier call's observation (in the model's context) shows the scope and its result.
    return Skip(answered, {"status": "DUPLICATE_SCOPE", "tool": call.name,
                           "same_as": same[-1].tool_call_id,
                           "note": "this exact scope was already queried in this run (same_as); "
                                   "not executed"})


REFUSED_FOR_GOOD = frozenset({"rejected_sql", "invalid_input", "result_too_large"})
"""Error codes a verbatim repeat of the call gets again (the tool refused what was asked, not a
timeout or a backend's trouble, which another attempt may not meet)."""


def _refused_again(gs: GateState, call: GateCall) -> Verdict:
    """The same tool and scope the tool already refused for good is not sent again.

    A small model repeated a refused SELECT verbatim until collection saturated, each repeat a
    model call and a tool call spent on the same refusal.
    """
    if call.scope is None:
        return Pass(gs)
    refused = [(r, code) for r in gs.records if r.tool == call.name and r.scope == call.scope
               and (code := _error_code(r)) in REFUSED_FOR_GOOD]
    if not refused:
        return Pass(gs)
    earlier, code = refused[-1]
    return Skip(replace(gs, no_gain=gs.no_gain + 1, last_call=call.id), {
        "status": "DUPLICATE_SCOPE", "tool": call.name, "same_as": earlier.tool_call_id,
        "note": f"this exact call was already refused ({code}, same_as) and would be again: "
                "change it as that error says, or use another tool; not executed"})


def _error_code(record: RecordRef | ToolRecord) -> str | None:
    return record.error_code if isinstance(record, RecordRef) else error_code(record)


GATES: tuple[Gate, ...] = (stop_required_delivered, well_formed_envelope, evidence_tool,
                           progress_envelope, run_active, new_scope)
"""The gates in order of precedence: the first that does not pass decides (module docstring)."""


def run_gates(gs: GateState, call: GateCall, gates: tuple[Gate, ...] = GATES) -> Verdict:
    """Pass ``call`` through ``gates`` in order; the first Skip or Halt is the verdict."""
    for gate in gates:
        verdict = gate(gs, call)
        if not isinstance(verdict, Pass):
            return verdict
        gs = verdict.state
    return Pass(gs)
