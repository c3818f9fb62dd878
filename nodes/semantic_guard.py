"""semantic_guard: an independent judge sees the conclusion and the evidence as stored.

Through the retry executor: bad output and transport trouble are retried; a clear UNSUPPORTED
is an answer, not a failure, and is never retried. Unavailable after its attempts is recorded.
Per-claim verdicts must judge exactly the draft's claims (else the answer is invalid and
retried); the recorded verdict is the harness's ruling on them (``guards.semantic.ruling``).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.contracts import DiagnosisDraft, FailureClass, JudgeAnswer, Role
from diagnosis_harness.control.retry import AttemptError
from diagnosis_harness.guards.evidence import check_evidence
from diagnosis_harness.guards.release_check import JUDGED_DRAFT, judged
from diagnosis_harness.guards.semantic import (
    claim_verdict_problem,
    flags_shown,
    judge_payload,
    observes_nothing,
    parse_judge,
    ruling,
    supported_claims,
    wire_payload,
)
from diagnosis_harness.nodes._model_call import ask_with_retry, offload, prompt_message, under_review
from diagnosis_harness.nodes._stops import while_active
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState


def _citation_problem(draft: DiagnosisDraft, records: list[Any]) -> str | None:
    """Why the draft's citations do not hold on this run's records, or None."""
    try:
        checked = check_evidence(draft, records)
    except ValueError as exc:
        return str(exc)
    if checked.passed:
        return None
    return "the draft cites evidence this run's records do not hold: " + ", ".join(
        sorted({p.evidence_id for p in checked.problems}))


@while_active
async def semantic_guard(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask the judge whether the cited evidence supports the conclusion."""
    ctx = run_context(runtime)
    draft, records = await under_review(ctx, state, phase="judging")
    assert draft.conclusion is not None
    claims = len(draft.conclusion.claims)
    # The evidence guard's verdict in state may be for another draft (an edit as
    # ``evidence_guard``): the citations are checked again before a judge reads them.
    why = _citation_problem(draft, records)
    payload = judge_payload(draft.conclusion, records) if why is None else {}
    if why is not None or (why := observes_nothing(payload)) is not None:  # no judge can make this supported
        refused = {"verdict": "UNSUPPORTED", "reasons": [why], "checked_by": "harness"}
        await offload(ctx.store.record_verdict, ctx.run_id, "semantic", refused)
        return {"semantic_verdict": refused}
    prompt = prompt_message("judge", payload=wire_payload(payload))
    budget = ctx.budget(state.get("usage"))

    def parse(text: str) -> JudgeAnswer:
        parsed = parse_judge(text)
        if parsed.value is None:
            raise AttemptError(parsed.failure or FailureClass.INVALID_OUTPUT, parsed.detail)
        if (wrong := claim_verdict_problem(parsed.value, claims)):
            raise AttemptError(FailureClass.SCHEMA_INVALID, wrong)
        return parsed.value

    result, late = await ask_with_retry(ctx, Role.JUDGE, prompt, budget, parse)
    update: dict[str, Any] = {"usage": budget.usage.model_dump()}
    if late is not None:
        return {**update, "stop": late}
    if result.value is None:
        verdict = {"verdict": "UNAVAILABLE",
                   "failure_class": result.failure_class.value if result.failure_class else None,
                   "attempts": len(result.receipts), "budget_exhausted": result.budget_exhausted}
    else:  # the judge's answer, with the harness's rule applied (docs/design.md §8)
        verdict = {**ruling(result.value, payload), **flags_shown(payload)}
    await offload(ctx.store.record_verdict, ctx.run_id, "semantic", verdict)
    if result.value is not None:  # what release checks: this answer was for exactly this draft
        await offload(ctx.store.record_verdict, ctx.run_id, JUDGED_DRAFT,
                      judged(draft, records, str(verdict["verdict"]), supported_claims(verdict)))
    return {**update, "semantic_verdict": verdict}
