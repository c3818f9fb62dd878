"""The human approval gate of ``release`` (docs/design.md §14), with ``HARNESS_APPROVAL=before_publish``.

Only a verified root cause waits: release has decided SUCCESS, checked the state against the run
store and rendered the report. It then records the request (PENDING) and pauses with LangGraph's
``interrupt()``, carrying the draft, the cited evidence, the judge's verdict and the report. A
``Command(resume={"approve": true|false, "note": "…"})`` continues it (Studio, the SDK, or
``harness runs approve``): LangGraph runs ``release`` again from its start, every check again,
and ``interrupt()`` then returns the answer. The first decision recorded in the run store wins;
a later or concurrent one follows it. The decision binds to the report it was shown: a report
that changed while it waited (an edit) is never published on an earlier approval.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from langgraph.types import interrupt

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.guards.evidence import facts_by_id
from diagnosis_harness.guards.release_check import parse_decision
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.runstore.lineage import approval_of


def report_digest(report: str) -> str:
    """What an approval is bound to: the exact report text it was shown."""
    return hashlib.sha256(report.encode("utf-8")).hexdigest()


def approval_request(ctx: RunContext, state: DiagnosisState, records: list[ToolRecord],
                     report: str) -> dict[str, Any]:
    """The ``interrupt()`` payload: what a reviewer needs to decide, and how to answer."""
    draft = DiagnosisDraft.model_validate(state["draft"])
    index = facts_by_id(records)
    evidence = [{"evidence_id": eid, "tool": index[eid][0].tool, "text": index[eid][1].text}
                for eid in draft.cited_ids() if eid in index]
    return {"kind": "approval", "run_id": ctx.run_id, "thread_id": ctx.thread_id,
            "question": state.get("question"), "draft": state.get("draft"), "evidence": evidence,
            "verdict": state.get("semantic_verdict"), "report": report,
            "answer_with": {"approve": "true to publish, false to reject", "note": "optional text"}}


async def await_approval(ctx: RunContext, state: DiagnosisState, records: list[ToolRecord],
                         report: str) -> dict[str, Any]:
    """The run's approval once decided: ``state`` APPROVED, REJECTED, CANCELLED or CHANGED.

    Pauses the run (``interrupt()``) while the recorded approval is PENDING. CHANGED: the report
    is not the one the reviewer was asked about.
    """
    digest = report_digest(report)
    # The report is kept with the request: ``harness runs show`` shows the approver what
    # approving publishes (the digest binds the decision to exactly this text).
    stored = await asyncio.to_thread(ctx.store.request_approval, ctx.run_id,
                           {"digest": digest, "report": report})
    if stored.get("state") == "PENDING":
        answer = interrupt(approval_request(ctx, state, records, report))
        parsed = parse_decision(answer)
        approve, note = parsed if parsed is not None else (False, "the answer was not "
                                                           '{"approve": true|false, "note": "…"}')
        decision = {"state": "APPROVED" if approve else "REJECTED", "note": note,
                    "decided_by": ctx.actor or "unknown"}
        if await asyncio.to_thread(ctx.store.decide_approval, ctx.run_id, decision):
            stored = {**stored, **decision}
        else:  # decided meanwhile by someone else: the first decision stands
            lineage = await asyncio.to_thread(ctx.store.lineage, ctx.run_id)
            stored = approval_of(lineage) or {**stored, "state": "CANCELLED"}
    if stored.get("digest") != digest:
        return {**stored, "state": "CHANGED"}
    return stored
