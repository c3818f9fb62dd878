"""evidence_repair: one model attempt that may only re-cite existing ids or drop claims.

A repair that rewrites the conclusion is rejected (guards never rewrite), and the original
draft goes back to the evidence guard, which then fails for good.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.contracts import DiagnosisDraft, FailureClass, Role
from diagnosis_harness.control.retry import AttemptError
from diagnosis_harness.guards.evidence import citable_ids, facts_by_id, repair_allowed
from diagnosis_harness.guards.parsing import parse_draft
from diagnosis_harness.nodes._model_call import ask_with_retry, offload, prompt_message, under_review
from diagnosis_harness.nodes._stops import while_active
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState


@while_active
async def evidence_repair(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Spend the one repair on the draft's citations."""
    ctx = run_context(runtime)
    draft, records = await under_review(ctx, state, phase="repairing citations")
    index = facts_by_id(records)
    available = "\n".join(f"{eid}: {index[eid][1].text}" for eid in citable_ids(records)) or "(none)"
    prompt = prompt_message(
        "repair", draft=json.dumps(state["draft"], ensure_ascii=False),
        problems=json.dumps((state.get("evidence_verdict") or {"problems": []})["problems"]),
        available_evidence=available)
    budget = ctx.budget(state.get("usage"))

    def parse(text: str) -> DiagnosisDraft:
        parsed = parse_draft(text, max_bytes=ctx.settings.max_draft_bytes)
        if parsed.draft is None:
            raise AttemptError(FailureClass.SCHEMA_INVALID if parsed.error else
                               FailureClass.INVALID_OUTPUT, parsed.detail)
        check = repair_allowed(draft, parsed.draft, records)
        if not check:
            raise AttemptError(FailureClass.BUSINESS_REJECTION, f"repair rejected: {check.reason}")
        return parsed.draft

    result, late = await ask_with_retry(ctx, Role.REPAIR, prompt, budget, parse)
    update: dict[str, Any] = {"repair_used": True, "usage": budget.usage.model_dump()}
    await offload(ctx.store.record_verdict, ctx.run_id, "repair", {
        "repaired": result.ok,
        "failure_class": result.failure_class.value if result.failure_class else None})
    if late is not None:
        return {**update, "stop": late}
    if result.value is not None:
        update["draft"] = result.value.model_dump(mode="json")
    return update
