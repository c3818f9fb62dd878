"""draft_parse: the agent's final message parsed strictly into a DiagnosisDraft (docs/design.md §10)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.budget import BudgetExhausted
from diagnosis_harness.guards.parsing import parse_draft
from diagnosis_harness.nodes._model_call import text_of
from diagnosis_harness.nodes._stops import stop_from_budget, while_active
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState


@while_active
async def draft_parse(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Parse the final message; an invalid draft is recorded with its class, not raised."""
    ctx = run_context(runtime)
    text = text_of(state["messages"][-1])
    budget = ctx.budget(state.get("usage"))
    try:
        budget.reserve_bytes(len(text.encode("utf-8")))
    except BudgetExhausted as exc:
        return {"stop": stop_from_budget(exc)}
    parsed = parse_draft(text, max_bytes=ctx.settings.max_draft_bytes)
    if parsed.draft is None:
        assert parsed.error is not None
        return {"draft": None, "usage": budget.usage.model_dump(),
                "draft_error": {"error": parsed.error.value, "detail": parsed.detail}}
    return {"draft": parsed.draft.model_dump(mode="json"), "draft_error": None,
            "usage": budget.usage.model_dump()}
