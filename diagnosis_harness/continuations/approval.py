"""The human approval gate of ``release`` (docs/design.md §14), with ``HARNESS_APPROVAL=before_publish``.

Whether a run goes through the gate comes from the run's own record, not only from the settings
of the process that happens to release it: a run that recorded an approval request is gated
however the approver's shell is configured (:func:`gated`).

Only a verified root cause waits: release has decided SUCCESS, checked the state against the
run store and rendered the report. It then records the request (PENDING) and pauses with LangGraph's
``interrupt()``, carrying the draft, the cited evidence, the judge's verdict and the report. A
``Command(resume={"approve": true|false, "note": "…"})`` continues it (Studio, the SDK, or
``harness runs approve``): LangGraph runs ``release`` again from its start, every check again,
and ``interrupt()`` then returns the answer. The first decision recorded in the run store wins;
a later or concurrent one follows it. The decision binds to the report it was shown: a report
that changed while it waited (an edit) is never published on an earlier approval. A run that
ends any other way while its approval is PENDING settles the approval CANCELLED
(:func:`settle_undecided`), so the record never shows a finished run still awaiting a decision.
The request also names the dataset the report was verified on (:func:`dataset_of`): an approver
whose data differs is refused before anything runs (``harness runs approve``).
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.types import interrupt

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.guards.evidence import facts_by_id
from diagnosis_harness.guards.release_check import parse_decision
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.runstore.lineage import approval_of

if TYPE_CHECKING:
    from diagnosis_harness.runstore.store import RunStore


def report_digest(report: str) -> str:
    """What an approval is bound to: the exact report text it was shown."""
    return hashlib.sha256(report.encode("utf-8")).hexdigest()


async def gated(ctx: RunContext) -> bool:
    """Whether this run's verified report must await a decision.

    The settings ask for it, or the run's record already holds an approval (requested, or
    decided): a run paused for approval stays gated when an approver whose environment has no
    ``HARNESS_APPROVAL`` releases it (issue 37). So is a fork of such a run (its parent's
    record), which a server without the setting would otherwise publish unreviewed.
    """
    if ctx.settings.approval == "before_publish":
        return True
    return await asyncio.to_thread(_recorded, ctx.store, ctx.run_id)


def _recorded(store: RunStore, run_id: str) -> bool:
    lineage = store.lineage(run_id) or {}
    if approval_of(lineage):
        return True
    parent = lineage.get("parent_run_id")
    return bool(parent) and bool(approval_of(store.lineage(str(parent))))


async def settle_undecided(ctx: RunContext, outcome: str) -> None:
    """A PENDING approval of a run that ends without the gate's decision is settled CANCELLED."""
    await asyncio.to_thread(ctx.store.decide_approval, ctx.run_id, {
        "state": "CANCELLED", "decided_by": "release",
        "note": f"the run ended {outcome} before a decision was applied"})


def dataset_of(ctx: RunContext) -> dict[str, Any]:
    """The dataset a report was verified on, as its approval request records it."""
    data_dir = ctx.settings.data_dir
    return {"data_dir": str(Path(data_dir).resolve()) if data_dir is not None else None,
            "fingerprint": ctx.dataset.fingerprint}


def other_data(recorded: dict[str, Any], fingerprint: str) -> str | None:
    """Why a release on data with this fingerprint would not be on the data the report was verified on."""
    wanted = (recorded.get("dataset") or {}).get("fingerprint")
    if not wanted or wanted == fingerprint:
        return None
    return (f"its report was verified on other data (dataset fingerprint {wanted[:12]}, not "
            f"{fingerprint[:12]}): pass --data with the dataset folder it was investigated on")


def record_decision(store: RunStore, run_id: str, *, approve: bool, note: str,
                    by: str) -> str | None:
    """Record a reviewer's decision of a PENDING approval before the run is released.

    None when this call recorded it; otherwise the one line that says why it was refused (the
    approval was decided meanwhile, by whom). The run's release then applies the recorded
    decision: it is applied exactly once, whichever process releases the run.
    """
    decision = {"state": "APPROVED" if approve else "REJECTED", "note": note, "decided_by": by}
    if store.decide_approval(run_id, decision):
        return None
    found = approval_of(store.lineage(run_id))
    return (f"run {run_id} was already decided: {found.get('state', 'no approval')} by "
            f"{found.get('decided_by') or 'unknown'}; a decision is final")


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
    stored = await asyncio.to_thread(ctx.store.request_approval, ctx.run_id, {
        "digest": digest, "report": report, "dataset": dataset_of(ctx)})
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
