"""release: the only place that decides and publishes how a run ends (DESIGN §4, §8).

It reads the execution shape — a stop, a missing context, a general question, an invalid draft,
a null conclusion, or a conclusion with its guard verdicts — decides RunState, ReleaseOutcome
and FallbackType, renders the report or a deterministic SafeFallback from the ProgressSnapshot,
writes the run row, and emits the final events. No model is called here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.runtime import Runtime

from diagnosis.context import RunContext, run_context
from diagnosis.state import DiagnosisState
from guards.evidence import facts_by_id, shown_text
from guards.progress import build_snapshot, facts_observed
from harness.budget import BudgetUsage
from harness.contracts import (
    DiagnosisDraft,
    FailureCode,
    FallbackType,
    Intent,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)
from harness.runstore import RunPersistenceError
from nodes._model_call import offload

CAPABILITY_REPLY = (
    "I diagnose production incidents. Ask about a symptom on a service in a time window, for "
    "example: \"payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
    "— why?\". I investigate logs, the operational database and runbooks, and publish a root "
    "cause only when every claim cites evidence from this run and an independent check agrees; "
    "otherwise I report what I verified and what to check next."
)

_LIMITATION = {
    FallbackType.MISSING_REQUIRED_CONTEXT: "the question lacks context the investigation needs",
    FallbackType.INSUFFICIENT_EVIDENCE: "the evidence collected does not single out a root cause",
    FallbackType.EVIDENCE_VALIDATION_FAILED:
        "the proposed conclusion cited evidence that does not exist or does not hold, "
        "even after one repair",
    FallbackType.SEMANTIC_UNSUPPORTED:
        "an independent check found the cited evidence does not support the proposed conclusion",
    FallbackType.SEMANTIC_UNAVAILABLE:
        "the independent check of the proposed conclusion could not be completed",
}
_CONTEXT_HINT = {"service": "which service is affected (e.g. payment-service)",
                 "merchant": "which merchant is affected (e.g. M1001)",
                 "window": "when it happened (e.g. between 10:00 and 10:10 today)"}


@dataclass(frozen=True)
class Decision:
    """The release decision of one run."""

    run_state: RunState
    outcome: ReleaseOutcome
    fallback: FallbackType | None = None
    failure: FailureCode | None = None
    message: str = ""


def _with_facts(run_state: RunState, has_facts: bool, failure: FailureCode, message: str) -> Decision:
    """A stopped run publishes an honest fallback only if it observed facts; else it fails."""
    if has_facts:
        return Decision(run_state, ReleaseOutcome.FALLBACK, FallbackType.INSUFFICIENT_EVIDENCE,
                        message=message)
    return Decision(run_state, ReleaseOutcome.FAILED, failure=failure, message=message)


def decide(state: DiagnosisState, has_facts: bool) -> Decision:
    """Map the execution shape to the outcome matrix of DESIGN §4 (pure; unit-tested)."""
    s = state.get("stop")
    if s:
        kind, message = s["kind"], s.get("message", "")
        if kind == "cancelled":
            return Decision(RunState.CANCELLED, ReleaseOutcome.CANCELLED)
        if kind == "controlled":
            return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                            FallbackType.INSUFFICIENT_EVIDENCE, message=message)
        if kind == "budget":
            return _with_facts(RunState.BUDGET_EXHAUSTED, has_facts,
                               FailureCode.BUDGET_EXHAUSTED, message)
        if kind == "model_failure":
            return _with_facts(RunState.FAILED, has_facts, FailureCode.INTERNAL_FAILURE, message)
        code = FailureCode(s["failure_code"]) if s.get("failure_code") else \
            FailureCode.INTERNAL_FAILURE
        return Decision(RunState(s["run_state"]), ReleaseOutcome.FAILED, failure=code,
                        message=message)
    if state.get("intent") == Intent.GENERAL.value:
        return Decision(RunState.SUCCESS, ReleaseOutcome.SUCCESS)
    if (state.get("scope") or {}).get("missing"):
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.MISSING_REQUIRED_CONTEXT)
    if state.get("draft_error"):
        return _with_facts(RunState.SUCCESS if has_facts else RunState.FAILED, has_facts,
                           FailureCode.INTERNAL_FAILURE,
                           f"the agent's final answer was not a valid draft "
                           f"({(state.get('draft_error') or {}).get('error')})")
    draft = state.get("draft")
    if not draft or draft.get("conclusion") is None:
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.INSUFFICIENT_EVIDENCE)
    if not (state.get("evidence_verdict") or {}).get("passed"):
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.EVIDENCE_VALIDATION_FAILED)
    verdict = state.get("semantic_verdict") or {}
    if verdict.get("verdict") == "SUPPORTED":
        return Decision(RunState.SUCCESS, ReleaseOutcome.SUCCESS)
    if verdict.get("verdict") == "UNSUPPORTED":
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.SEMANTIC_UNSUPPORTED)
    if verdict.get("budget_exhausted"):
        return _with_facts(RunState.BUDGET_EXHAUSTED, has_facts, FailureCode.BUDGET_EXHAUSTED,
                           "budget spent before the independent check")
    return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.SEMANTIC_UNAVAILABLE)


def _scope_line(scope: dict[str, Any]) -> str:
    parts = [f"{k}={scope[k]}" for k in ("service", "merchant", "pattern", "sql", "query")
             if scope.get(k)]
    if scope.get("start") or scope.get("end"):
        parts.append(f"window {scope.get('start')} → {scope.get('end')}")
    return ", ".join(parts) or "(no scope)"


def render_report(state: DiagnosisState, records: list[ToolRecord]) -> str:
    """The published diagnosis: root cause, each claim with the stored evidence it cites."""
    draft = DiagnosisDraft.model_validate(state["draft"])
    assert draft.conclusion is not None
    index = facts_by_id(records)
    scope = state.get("scope") or {}
    lines = [f"Root cause: {draft.conclusion.root_cause}", "",
             f"Scope: {_scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    lines += ["", "Evidence (every id checked against this run's records and by an independent "
                  "judge):"]
    for claim in draft.conclusion.claims:
        lines.append(f"- {claim.statement} [{', '.join(claim.evidence_ids)}]")
        lines += [f"    {eid}: {shown_text(index[eid][1])}" for eid in claim.evidence_ids]
    if draft.next_steps:
        lines += ["", "Next steps:", *[f"- {step}" for step in draft.next_steps]]
    return "\n".join(lines)


def render_fallback(state: DiagnosisState, decision: Decision, snapshot: dict[str, Any]) -> str:
    """The SafeFallback: only what this run verified, plus its limitations and next checks."""
    assert decision.fallback is not None
    scope = state.get("scope") or {}
    lines = [f"No root cause is published: {_LIMITATION[decision.fallback]}."]
    if decision.fallback is FallbackType.MISSING_REQUIRED_CONTEXT:
        lines += ["", "Please ask again and include:",
                  *[f"- {_CONTEXT_HINT.get(m, m)}" for m in scope.get("missing", [])]]
        return "\n".join(lines)
    lines += ["", f"Scope: {_scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    if snapshot["checked"]:
        lines += ["", "What was checked:"]
        lines += [f"- {c['tool']}: {_scope_line(c['scope'])} → {c['status']} ({c['returned']} items)"
                  for c in snapshot["checked"]]
    if snapshot["facts"]:
        lines += ["", "Observed facts (verified tool results of this run):"]
        lines += [f"- [{f['evidence_id']}] {f['text']}" for f in snapshot["facts"][:30]]
        if len(snapshot["facts"]) > 30:
            lines.append(f"- … and {len(snapshot['facts']) - 30} more")
    if snapshot["empty_scopes"]:
        lines += ["", "Checked and found nothing:"]
        lines += [f"- {e['tool']}: {_scope_line(e['scope'])}" for e in snapshot["empty_scopes"]]
    limitations = [decision.message] if decision.message else []
    if state.get("stop_reason"):
        limitations.append(f"evidence collection stopped: {state['stop_reason']}")
    if snapshot["errors"]:
        limitations.append(f"{len(snapshot['errors'])} tool call(s) failed")
    if limitations:
        lines += ["", "Limitations:", *[f"- {x}" for x in limitations]]
    lines += ["", "Suggested next checks:", *[f"- {x}" for x in _next_checks(snapshot, state)]]
    return "\n".join(lines)


def _next_checks(snapshot: dict[str, Any], state: DiagnosisState) -> list[str]:
    used = {c["tool"] for c in snapshot["checked"]}
    checks = []
    if "query_logs" not in used:
        checks.append("query the service's logs for the window (errors and their patterns)")
    if "query_mysql" not in used:
        checks.append("look for config changes and deploys in the window in the operational DB")
    if "lookup_knowledge" not in used:
        checks.append("search the runbooks for the dominant error message")
    if snapshot["empty_scopes"] and not snapshot["facts"]:
        checks.append("widen the time window or check the upstream and downstream services")
    checks.append("compare with the same window on a healthy day")
    return checks


def _turn_summary(state: DiagnosisState) -> str:
    draft = DiagnosisDraft.model_validate(state["draft"])
    assert draft.conclusion is not None
    claims = "; ".join(c.statement for c in draft.conclusion.claims)
    return (f"Question: {state.get('question')}\nScope: {_scope_line(state.get('scope') or {})}\n"
            f"Verified root cause: {draft.conclusion.root_cause}\nClaims: {claims}")


async def release(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Decide, render, persist and publish the outcome of this run."""
    ctx = run_context(runtime)
    records = [ToolRecord.model_validate(r) for r in state.get("records", [])]
    snapshot = build_snapshot(records)
    if ctx.lifecycle.cancel_signal.cancelled and not state.get("stop"):
        state = {**state, "stop": {"kind": "cancelled", "run_state": RunState.CANCELLED.value}}
    decision = decide(state, facts_observed(snapshot))
    if not ctx.lifecycle.terminate(decision.run_state) and ctx.lifecycle.state is RunState.CANCELLED:
        decision = Decision(RunState.CANCELLED, ReleaseOutcome.CANCELLED)  # first terminal wins
    content: str | None = None
    if decision.outcome is ReleaseOutcome.SUCCESS:
        content = CAPABILITY_REPLY if state.get("intent") == Intent.GENERAL.value \
            else render_report(state, records)
    elif decision.outcome is ReleaseOutcome.FALLBACK:
        content = render_fallback(state, decision, snapshot)
    usage = BudgetUsage.model_validate(state.get("usage") or {})
    stop_reason = state.get("stop_reason")
    try:
        await offload(
            ctx.store.finish_run, ctx.run_id,
            status=StoredRunStatus.from_outcome(decision.outcome), run_state=decision.run_state,
            release_outcome=decision.outcome, fallback_type=decision.fallback,
            failure_code=decision.failure,
            stop_reason=StopReason(stop_reason) if stop_reason else None,
            intent=Intent(intent) if (intent := state.get("intent")) else None,
            content=content, usage=usage)
    except RunPersistenceError as exc:
        if decision.outcome is not ReleaseOutcome.CANCELLED:
            decision = Decision(decision.run_state, ReleaseOutcome.FAILED,
                                failure=FailureCode.RUN_PERSISTENCE_FAILED,
                                message=f"the run could not be recorded: {exc}")
            content = None
    _publish(ctx, decision, content)
    out: dict[str, Any] = {
        "run_state": decision.run_state.value, "release_outcome": decision.outcome.value,
        "fallback_type": decision.fallback.value if decision.fallback else None,
        "failure_code": decision.failure.value if decision.failure else None,
        "stop_reason": stop_reason, "content": content, "progress": snapshot,
        "events": ctx.emitter.events, "usage": usage.model_dump(),
    }
    if decision.outcome is ReleaseOutcome.SUCCESS and state.get("intent") == Intent.DIAGNOSIS.value:
        out["last_success"] = _turn_summary(state)
    return out


def _publish(ctx: RunContext, decision: Decision, content: str | None) -> None:
    if decision.outcome is ReleaseOutcome.CANCELLED:
        ctx.emitter.close()  # the client is gone: no content, no done
        return
    if content is not None:
        ctx.emitter.emit("content", release_outcome=decision.outcome.value,
                         fallback_type=decision.fallback.value if decision.fallback else None,
                         text=content)
    else:
        ctx.emitter.emit("failure", failure_code=(decision.failure or FailureCode.INTERNAL_FAILURE).value,
                         message=decision.message or "the run failed")
    ctx.emitter.emit("done", release_outcome=decision.outcome.value,
                     run_state=decision.run_state.value)
