"""tool_gate's gates run in one declared order; the stop gate comes before every other.

Through the whole graph with ``HARNESS_AGENT_PROTOCOL=json``: once STOP_REQUIRED was delivered,
a reply that is no envelope at all (or names no evidence tool) is a tool call after the stop,
and ends the run with the controlled stop at once — it must not be answered as a protocol
violation again and again until the model-call budget is spent.
"""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, replace
from typing import Any

import pytest
from graphkit import (
    EMPTY_KB,
    EMPTY_LOGS,
    EMPTY_SQL,
    INC,
    ROOT_CAUSE,
    assert_stored,
    consumed,
    go,
    outcome,
    router,
    seen,
)

from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from diagnosis_harness.guards.envelope import INVALID_ENVELOPE
from diagnosis_harness.nodes.tool_gate import GATES, GateCall, GateState, Halt, Pass, Skip, run_gates
from diagnosis_harness.run.state import Stop

ROUTER = router(service=INC["service"], merchant=INC["merchant"], start=INC["start"],
                end=INC["end"])
LOGS = {"service": INC["service"], "start": INC["start"], "end": INC["end"]}
THRESHOLD = 3


def env_call(tool: str, args: dict[str, Any], prev: str | None = None,
             gain: str = "GAINED") -> dict[str, Any]:
    a = dict(args)
    if prev:
        a["previous_observation"] = {"tool_call_id": prev, "gain": gain, "note": "n"}
    return {"content": json.dumps({"type": "tool_call", "tool": tool, "args": a}),
            "usage": {"input_tokens": 10, "output_tokens": 5}}


MALFORMED = [{"content": "I will now stop and summarise."}, {"content": '{"type": "tool_call"}'},
             {"content": "```\nnot json\n```"}, {"content": ""}]
"""Replies that are no envelope at all; more than the run's model-call budget of them follow."""

INFORMATION = [env_call("query_logs", LOGS),  # c1 found evidence the agent judges NO_GAIN,
               env_call("query_logs", EMPTY_LOGS, prev="call_1", gain="NO_GAIN"),  # then two
               env_call("query_mysql", EMPTY_SQL, prev="call_2", gain="NO_GAIN"),  # empty
               env_call("lookup_knowledge", EMPTY_KB, prev="call_3", gain="NO_GAIN")]  # scopes
UNKNOWN_TOOL = [env_call("delete_everything", {}, prev="call_4")] * 20

CASES = {
    # (the run up to STOP_REQUIRED, what follows it, the stop reason, evidence calls executed)
    "information-then-malformed": (INFORMATION, MALFORMED * 5, "INFORMATION_SATURATED", 4),
    # three replies that are no envelope: the protocol stop is delivered in the third answer
    "protocol-then-malformed": ([env_call("query_logs", LOGS), *MALFORMED[:THRESHOLD]],
                                MALFORMED * 5, "PROGRESS_PROTOCOL_VIOLATED", 1),
    # a tool name that does not exist is a tool call after STOP_REQUIRED too
    "information-then-unknown-tool": (INFORMATION, UNKNOWN_TOOL, "INFORMATION_SATURATED", 4),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_envelopes_after_stop_required_end_in_the_controlled_stop(case: str) -> None:
    before, after, reason, executed = CASES[case]
    assert len(after) > 16  # more replies than the run's model-call budget
    services, out = go({"router": [ROUTER], "agent": [*before, *after]},
                       settings={"agent_protocol": "json",
                                 "protocol_violation_threshold": THRESHOLD})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert out["stop_reason"] == reason
    assert "a tool was called after STOP_REQUIRED" in out["content"]
    assert "[E1." in out["content"]  # the fallback reports what was verified
    # STOP_REQUIRED was shown once; the very next reply ended the run (within the threshold)
    # (json protocol: observations reach the model as plain user turns)
    flagged = [m for m in seen(services)[-1] if '"stop_required": true' in str(m.content)]
    assert len(flagged) == 1
    used_after_stop = consumed(services)["agent"] - len(before)
    assert used_after_stop == 1 <= THRESHOLD
    assert out["usage"]["model_calls"] == 1 + len(before) + 1  # not the whole budget
    assert out["usage"]["tool_calls"] == executed
    assert assert_stored(services, out)["stop_reason"] == reason
    assert ROOT_CAUSE not in out["content"]


# --- the gates themselves: pure functions over a frozen GateState, in the declared order -----

FOUND = ToolRecord(tool_call_id="c1", tool="query_logs", args=LOGS, scope={"service": "s"},
                   invocation_status=InvocationStatus.READY,
                   evidence_status=EvidenceStatus.EVIDENCE_FOUND, ready_index=1)
SATURATED = GateState(collection="SATURATED", stop_delivered=True,
                      stop_reason="INFORMATION_SATURATED", last_call="c1", records=(FOUND,))
TIMED_OUT = Stop(kind="timed_out", run_state="TIMED_OUT", failure_code="RUN_TIMED_OUT",
                 message="run is no longer active (TIMED_OUT)")
ENVELOPE = {"tool_call_id": "c1", "gain": "NO_GAIN", "note": "n"}


def gate_call(name: str, envelope: Any = None, scope: dict[str, Any] | None = None,
              **args: Any) -> GateCall:
    return GateCall(id="c2", name=name, args=args, envelope=envelope,
                    scope_of=lambda _name, _args: scope)


def test_the_gates_are_declared_in_order_of_precedence() -> None:
    assert [g.__name__ for g in GATES] == ["stop_required_delivered", "well_formed_envelope",
                                           "evidence_tool", "progress_envelope", "run_active",
                                           "new_scope"]


# Each case is a call that two gates would both act on; the earlier gate in GATES decides.
BOTH_ACT = {
    "stop-required before invalid envelope": (
        SATURATED, gate_call(INVALID_ENVELOPE, problem="not json"),
        "stop_required_delivered", "well_formed_envelope"),
    "stop-required before unknown tool": (
        SATURATED, gate_call("delete_logs"), "stop_required_delivered", "evidence_tool"),
    "stop-required before a missing envelope": (
        SATURATED, gate_call("query_logs"), "stop_required_delivered", "progress_envelope"),
    "stop-required before the deadline": (
        replace(SATURATED, ended=TIMED_OUT), gate_call("query_logs", ENVELOPE),
        "stop_required_delivered", "run_active"),
    "invalid envelope before unknown tool": (
        GateState(last_call="c1"), gate_call(INVALID_ENVELOPE, problem="not json"),
        "well_formed_envelope", "evidence_tool"),
    "missing envelope before the deadline": (
        GateState(last_call="c1", ended=TIMED_OUT), gate_call("query_logs"),
        "progress_envelope", "run_active"),
    "missing envelope before a duplicate scope": (
        GateState(last_call="c1", records=(FOUND,)),
        gate_call("query_logs", scope={"service": "s"}), "progress_envelope", "new_scope"),
    "deadline before a duplicate scope": (
        GateState(last_call="c1", records=(FOUND,), ended=TIMED_OUT),
        gate_call("query_logs", ENVELOPE, scope={"service": "s"}), "run_active", "new_scope"),
}
GATE = {g.__name__: g for g in GATES}


@pytest.mark.parametrize("case", list(BOTH_ACT))
def test_when_two_gates_would_act_the_earlier_one_decides(case: str) -> None:
    gs, call, first, second = BOTH_ACT[case]
    assert [g.__name__ for g in GATES].index(first) < [g.__name__ for g in GATES].index(second)
    # Each of the two, alone, acts on this call ...
    assert not isinstance(GATE[first](gs, call), Pass)
    assert not isinstance(GATE[second](gs, call), Pass)
    # ... and the declared order gives the earlier one's verdict; the reversed order would not.
    assert run_gates(gs, call) == GATE[first](gs, call)
    assert run_gates(gs, call, (GATE[second], GATE[first])) == GATE[second](gs, call)
    assert run_gates(gs, call) != GATE[second](gs, call)


def test_after_stop_required_a_malformed_envelope_is_the_controlled_stop() -> None:
    verdict = run_gates(SATURATED, gate_call(INVALID_ENVELOPE, problem="not json"))
    assert isinstance(verdict, Halt)
    assert (verdict.stop["kind"], verdict.stop["run_state"]) == ("controlled", "SUCCESS")


def test_before_stop_required_a_malformed_envelope_is_a_counted_violation() -> None:
    gs = GateState(last_call="c1", violations=2, violation_threshold=3)
    verdict = run_gates(gs, gate_call(INVALID_ENVELOPE, problem="not json"))
    assert isinstance(verdict, Skip) and "protocol violation: not json" in verdict.observation["error"]
    assert (verdict.state.violations, verdict.state.collection, verdict.state.stop_reason) == (
        3, "SATURATED", "PROGRESS_PROTOCOL_VIOLATED")
    assert gs.violations == 2  # the snapshot the gate read is unchanged


def test_a_valid_call_passes_every_gate_with_its_gain_counted() -> None:
    gs = GateState(last_call="c1", violations=1, no_gain=1, records=(FOUND,))
    verdict = run_gates(gs, gate_call("query_mysql", ENVELOPE, scope={"sql": "x"}))
    assert isinstance(verdict, Pass)
    assert (verdict.state.violations, verdict.state.no_gain) == (0, 2)  # c1 judged NO_GAIN
    with pytest.raises(FrozenInstanceError):
        gs.no_gain = 0


def test_a_call_stopped_by_an_earlier_gate_is_never_normalised() -> None:
    def explode(name: str, args: dict[str, Any]) -> None:
        raise AssertionError("scope normalised for a call that was already stopped")

    call = GateCall(id="c2", name="query_mysql", args={"sql": "SELECT 1"}, scope_of=explode)
    assert isinstance(run_gates(SATURATED, call), Halt)
    assert isinstance(run_gates(GateState(last_call="c1"), call), Skip)  # no envelope


def _failed(code: str) -> ToolRecord:
    return ToolRecord(tool_call_id="c1", tool="query_mysql", args={"sql": "x"},
                      scope={"sql": "x"}, invocation_status=InvocationStatus.ERROR,
                      evidence_status=EvidenceStatus.ERROR, error=f"{code}: it failed")


@pytest.mark.parametrize(("code", "skipped"), [
    ("rejected_sql", True), ("invalid_input", True), ("result_too_large", True),
    # another attempt may not meet these: the repeat is sent
    ("timeout", False), ("backend_error", False), ("budget_exhausted", False)])
def test_only_a_refusal_for_good_makes_a_verbatim_repeat_a_duplicate(code: str,
                                                                    skipped: bool) -> None:
    gs = GateState(last_call="c1", records=(_failed(code),))
    verdict = run_gates(gs, gate_call("query_mysql", ENVELOPE, scope={"sql": "x"}))
    assert isinstance(verdict, Skip if skipped else Pass)
    if skipped:
        assert isinstance(verdict, Skip) and verdict.observation["same_as"] == "c1"
        assert verdict.state.no_gain == 1 and verdict.state.collection == "COLLECTING"
    # Another scope is never a duplicate of it.
    assert isinstance(run_gates(gs, gate_call("query_mysql", ENVELOPE, scope={"sql": "y"})),
                      Pass)
