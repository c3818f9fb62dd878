"""evidence_guard: every cited id exists, is this run's, and comes from READY + EVIDENCE_FOUND."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.contracts import DiagnosisDraft
from diagnosis_harness.guards.evidence import check_evidence
from diagnosis_harness.nodes._model_call import offload
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.records import records_of
from diagnosis_harness.run.state import DiagnosisState


async def evidence_guard(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Check the draft's citations against this run's canonical records."""
    ctx = run_context(runtime)
    records = await offload(records_of, ctx, state)
    ctx.emitter.emit("status", phase="checking evidence")
    draft = DiagnosisDraft.model_validate(state["draft"])
    verdict = check_evidence(draft, records).to_dict()
    await offload(ctx.store.record_verdict, ctx.run_id, "evidence", verdict)
    return {"evidence_verdict": verdict}
