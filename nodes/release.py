"""release: the only place that decides and publishes how a run ends (docs/design.md).

It reads the execution shape — a stop, a missing context, a general question, an invalid draft,
a null conclusion, or a conclusion with its guard verdicts — decides RunState, ReleaseOutcome
and FallbackType (:func:`decide`, pure), renders the report or a deterministic SafeFallback
(``diagnosis_harness.nodes._release_text``), writes the run row, and emits the final events. No model is
called
here. A run whose deadline passed (or that was cancelled) before release publishes nothing.

Before it publishes, it checks the state against what the run store recorded when the tools and
the judge ran (``diagnosis_harness.guards.release_check``): state that disagrees is EVIDENCE_TAMPERED, nothing
published. With ``HARNESS_APPROVAL=before_publish`` (or when the run's record already holds an
approval) a verified report then waits for a human's decision
(``diagnosis_harness.continuations.approval``). docs/design.md §14.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Never

from langgraph.runtime import Runtime

from diagnosis_harness.continuations.approval import await_approval, gated, settle_undecided
from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
    FailureCode,
    FallbackType,
    Intent,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)
from diagnosis_harness.guards.progress import build_snapshot, facts_observed
from diagnosis_harness.guards.release_check import check_publication, check_verdicts
from diagnosis_harness.guards.semantic import publishes, supported_claims
from diagnosis_harness.nodes._model_call import label_outcome, offload
from diagnosis_harness.nodes._release_text import (
    CAPABILITY_REPLY,
    render_fallback,
    render_report,
    turn_summary,
)
from diagnosis_harness.nodes._stops import stop_if_inactive
from diagnosis_harness.nodes._triage import suspects
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.records import resolve
from diagnosis_harness.run.state import DiagnosisState, Stop
from diagnosis_harness.runstore.store import RunPersistenceError
from diagnosis_harness.tools.recompute import recheck

if TYPE_CHECKING:
    from diagnosis_harness.tools.dataset.layout import DatasetInfo

__all__ = ["CAPABILITY_REPLY", "Decision", "decide", "release"]


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


def _failed(run_state: RunState, failure: FailureCode, message: str) -> Decision:
    return Decision(run_state, ReleaseOutcome.FAILED, failure=failure, message=message)


def _unknown_stop(kind: Never, message: str) -> Decision:
    """A stop of a kind that no StopKind names: a failure.

    Type-checked code cannot get here: ``kind`` is ``Never`` only when every kind was matched,
    so a kind missing from the match (or misspelt in it) is a mypy error at this call. At run
    time it catches a stop from a foreign checkpoint.
    """
    return _failed(RunState.FAILED, FailureCode.INTERNAL_FAILURE,
                   f"unknown stop kind {kind!r}: {message}")


def _decide_stop(stop: Stop, has_facts: bool) -> Decision:
    kind, message = stop["kind"], stop.get("message") or ""
    match kind:
        case "cancelled":
            return Decision(RunState.CANCELLED, ReleaseOutcome.CANCELLED)
        case "timed_out":
            return _failed(RunState.TIMED_OUT, FailureCode.RUN_TIMED_OUT, message)
        case "controlled":
            return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                            FallbackType.INSUFFICIENT_EVIDENCE, message=message)
        case "budget":
            return _with_facts(RunState.BUDGET_EXHAUSTED, has_facts,
                               FailureCode.BUDGET_EXHAUSTED, message)
        case "model_failure":
            return _with_facts(RunState.FAILED, has_facts, FailureCode.INTERNAL_FAILURE, message)
        case "crash":
            return _failed(RunState.FAILED, FailureCode.INTERNAL_FAILURE, message)
        case "invalid_input":
            return _failed(RunState.FAILED, FailureCode.INVALID_INPUT, message)
        case "routing_unavailable":
            return _failed(RunState.FAILED, FailureCode.ROUTING_UNAVAILABLE, message)
        case "model_unreachable":
            return _degraded(message)
        case "follow_up":
            return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                            FallbackType.FOLLOW_UP_UNSUPPORTED, message=message)
    return _unknown_stop(kind, message)


_DEGRADED_ENDS = frozenset({"model_unreachable", "controlled", "budget", "model_failure",
                            "follow_up"})
"""Stops that end a run the offline investigator stood in for as its triage (MODEL_UNREACHABLE:
the unreachable endpoint is the first thing said, also of a follow-up the offline router could
not read); a cancel, a deadline, bad input, a router that could not route and a crash keep
their rows."""


def _degraded(message: str) -> Decision:
    """The model endpoint was unreachable: the offline triage digest, never a root cause."""
    return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.MODEL_UNREACHABLE,
                    message=message)


def decide(state: DiagnosisState, has_facts: bool, ended: Stop | None = None) -> Decision:
    """Map the execution shape to the outcome matrix of docs/design.md (pure; unit-tested).

    ``ended`` is the lifecycle's stop when the run was cancelled or passed its deadline before
    release: it outranks whatever the loop ended with, so nothing is published late.
    """
    stop = ended or state.get("stop")
    unreachable = state.get("model_unreachable")
    if unreachable and (not stop or stop["kind"] in _DEGRADED_ENDS):
        return _degraded(unreachable)  # whatever the stand-in did, it is never published
    if stop:
        return _decide_stop(stop, has_facts)
    if state.get("intent") == Intent.GENERAL.value:
        return Decision(RunState.SUCCESS, ReleaseOutcome.SUCCESS)
    if (state.get("scope") or {}).get("missing"):
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.MISSING_REQUIRED_CONTEXT)
    draft_error = state.get("draft_error")
    if draft_error:
        return _with_facts(RunState.SUCCESS if has_facts else RunState.FAILED, has_facts,
                           FailureCode.INTERNAL_FAILURE,
                           f"the agent's final answer was not a valid draft ({draft_error['error']})")
    draft = state.get("draft")
    if not draft or draft.get("conclusion") is None:
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.INSUFFICIENT_EVIDENCE)
    evidence = state.get("evidence_verdict")
    if not (evidence and evidence["passed"]):
        return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                        FallbackType.EVIDENCE_VALIDATION_FAILED)
    judged = state.get("semantic_verdict")
    match judged.get("verdict") if judged else None:
        case "SUPPORTED" if publishes(judged):  # the root cause holds on the supported claims
            return Decision(RunState.SUCCESS, ReleaseOutcome.SUCCESS)
        case "SUPPORTED" | "UNSUPPORTED":
            return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                            FallbackType.SEMANTIC_UNSUPPORTED)
    if judged and judged.get("budget_exhausted"):
        return _with_facts(RunState.BUDGET_EXHAUSTED, has_facts, FailureCode.BUDGET_EXHAUSTED,
                           "budget spent before the independent check")
    return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.SEMANTIC_UNAVAILABLE)


def _tampered(problems: list[str]) -> Decision:
    return _failed(RunState.FAILED, FailureCode.EVIDENCE_TAMPERED,
                   "nothing is published: the run's state does not match what the run store "
                   "recorded when its tools and guards ran — " + "; ".join(problems[:5]))


def _unconfirmed(problems: list[str]) -> Decision:
    """A statistic could not be re-computed now: not confirmed, so not published — not tampered."""
    return _failed(RunState.FAILED, FailureCode.EVIDENCE_RECHECK_UNAVAILABLE,
                   "nothing is published: the run's statistics could not be re-checked against "
                   "the data at release (a backend did not answer in time, or the limit is not "
                   "usable); ask again when it answers — " + "; ".join(problems[:5]))


async def _checked(ctx: RunContext, state: DiagnosisState,
                   ended: Stop | None) -> tuple[Decision, list[ToolRecord], dict[str, Any]]:
    """The decision, the records and the progress snapshot, from what the run store backs.

    The state holds a record index; the facts are read from the store. Records come first: an
    index entry that no record the store kept for this run backs unchanged (an edited status,
    scope or evidence id, a record the run never made) makes the run EVIDENCE_TAMPERED before
    anything is built from it. A SUCCESS then also needs its draft to hold on those records and
    a SUPPORTED judgement recorded for exactly this draft (docs/design.md §14).
    """
    stored: dict[str, list[dict[str, Any]]] = {"tool_records": [], "verdicts": []}
    records: list[ToolRecord] = []
    if ended is None:  # a cancelled or timed-out run publishes nothing: nothing to check
        try:
            stored = await offload(ctx.store.trace, ctx.run_id)
        except RunPersistenceError as exc:
            return _failed(RunState.FAILED, FailureCode.RUN_PERSISTENCE_FAILED,
                           f"the run's records could not be read to check them: {exc}"), \
                [], build_snapshot([])
        records, problems = resolve(state.get("records") or [], stored["tool_records"])
        problems += check_verdicts(state, stored["verdicts"])
        if not problems:  # a statistic must also come out the same from the data (§16.1)
            checked = await offload(recheck, records, ctx.backends, ctx.settings,
                                    max(ctx.lifecycle.remaining(), ctx.settings.sql_timeout_s))
            problems = checked.tampered
            if not problems and checked.unavailable:
                return _unconfirmed(checked.unavailable), [], build_snapshot([])
        if problems:
            return _tampered(problems), [], build_snapshot([])
    snapshot = build_snapshot(records)
    decision = decide(state, facts_observed(snapshot), ended=ended)
    if decision.outcome is ReleaseOutcome.SUCCESS and state.get("intent") != Intent.GENERAL.value:
        if (problems := check_publication(state.get("draft"), records, stored["verdicts"],
                                          supported_claims(state.get("semantic_verdict")))):
            return _tampered(problems), records, snapshot
    return decision, records, snapshot


def _content(state: DiagnosisState, decision: Decision, records: list[ToolRecord],
             snapshot: dict[str, Any], dataset: DatasetInfo | None = None,
             draft_editors: Sequence[str] | None = (), offline: bool = False) -> str | None:
    if decision.outcome is ReleaseOutcome.SUCCESS:
        return CAPABILITY_REPLY if state.get("intent") == Intent.GENERAL.value \
            else render_report(state, records)
    if decision.outcome is ReleaseOutcome.FALLBACK:
        assert decision.fallback is not None
        return render_fallback(state, decision.fallback, decision.message, snapshot, dataset,
                               records, draft_editors=draft_editors, rules_note=offline)
    return None


async def _draft_editors(ctx: RunContext, state: DiagnosisState,
                         decision: Decision) -> list[str] | None:
    """Who edited the draft a fallback quotes or takes a note from ([] nobody, None unknown).

    A fallback shows a proposed conclusion as the agent's (docs/design.md §8); a draft edited
    in the run's state (§14) is labelled with its editors, and one whose origin the store
    cannot tell is not shown. The note is a null draft's first step, the offline registry's
    (``_release_text.stopped_short``): shown only when nobody edited the draft.
    """
    if decision.outcome is not ReleaseOutcome.FALLBACK or not state.get("draft"):
        return []  # (a null draft too: its first step may be the offline registry's note)
    try:
        lineage = await offload(ctx.store.lineage, ctx.run_id)
    except RunPersistenceError:
        return None
    return sorted({str(e.get("edited_by") or "someone") for e in (lineage or {}).get("edits") or []
                   if "draft" in (e.get("keys") or [])})


async def _approved(ctx: RunContext, state: DiagnosisState, records: list[ToolRecord],
                    decision: Decision, report: str, snapshot: dict[str, Any]) -> Decision:
    """The decision after a human's (may pause the run: docs/design.md §14)."""
    approval = await await_approval(ctx, state, records, report)
    match approval.get("state"):
        case "APPROVED":
            return decision
        case "REJECTED":
            note = approval.get("note") or "(no note)"
            return Decision(RunState.SUCCESS, ReleaseOutcome.FALLBACK, FallbackType.APPROVAL_REJECTED,
                            message=f"{approval.get('decided_by') or 'a reviewer'} rejected the "
                                    f"report: \u201c{note}\u201d")
        case "CANCELLED":
            return Decision(RunState.CANCELLED, ReleaseOutcome.CANCELLED)
    return _tampered(["the report changed while it awaited approval"])


async def release(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Decide, check against the store, (await approval), render, persist and publish."""
    ctx = run_context(runtime)
    # Checked once, before deciding: a run cancelled or past its deadline publishes nothing
    # (no late fallback). Once decided, nothing after (the row write, a lock) changes it.
    decision, records, snapshot = await _checked(ctx, state, stop_if_inactive(ctx))
    # Gated by the settings or by the run's own record (an approver's shell may lack the setting).
    if state.get("intent") == Intent.DIAGNOSIS.value and await gated(ctx):
        if decision.outcome is ReleaseOutcome.SUCCESS:
            decision = await _approved(ctx, state, records, decision,
                                       render_report(state, records), snapshot)
        else:  # ended without the gate's decision: a PENDING approval must not outlive the run
            await settle_undecided(ctx, decision.outcome.value)
    if not ctx.lifecycle.terminate(decision.run_state) and ctx.lifecycle.state is RunState.CANCELLED:
        decision = Decision(RunState.CANCELLED, ReleaseOutcome.CANCELLED)  # first terminal wins
    editors = await _draft_editors(ctx, state, decision)
    content = _content(state, decision, records, snapshot, ctx.dataset, editors,
                       offline=ctx.seam.spec.provider == "offline" and editors == [])
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
    await label_outcome(ctx, decision.outcome.value, decision.fallback, decision.failure)
    out: dict[str, Any] = {
        "run_id": ctx.run_id, "thread_id": ctx.thread_id,  # a fork's state names the fork
        "run_state": decision.run_state.value, "release_outcome": decision.outcome.value,
        "fallback_type": decision.fallback.value if decision.fallback else None,
        "failure_code": decision.failure.value if decision.failure else None,
        "stop_reason": stop_reason, "content": content, "progress": snapshot,
        "events": ctx.emitter.events, "usage": usage.model_dump(),
        "suspects": suspects(records) if decision.outcome is ReleaseOutcome.FALLBACK else [],
    }
    if decision.outcome is ReleaseOutcome.SUCCESS and state.get("intent") == Intent.DIAGNOSIS.value:
        out["last_success"] = turn_summary(state)
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
