"""The ProgressSnapshot: what this run verifiably checked and found, from READY records only.

Fallbacks are rendered from it, so nothing the model merely *said* can reach a user as fact.
:func:`build_snapshot` makes it from canonical records (release: facts with their text);
:func:`index_snapshot` from the state's record index while collecting (facts by id only: the
texts are in the run store, read once, at release).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from diagnosis_harness.guards.evidence import shown_text


def build_snapshot(records: Sequence[ToolRecord]) -> dict[str, Any]:
    """Summarise the run's canonical records: checks, observed facts, empty scopes, errors."""
    checked: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    empty: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for r in records:
        if r.invocation_status is InvocationStatus.ERROR:
            errors.append({"tool": r.tool, "tool_call_id": r.tool_call_id, "error": r.error})
            continue
        checked.append({"tool": r.tool, "scope": r.scope, "status": r.evidence_status.value,
                        "returned": r.returned_count})
        if r.evidence_status is EvidenceStatus.EVIDENCE_FOUND:
            facts.extend({"evidence_id": f.evidence_id, "text": shown_text(f)} for f in r.facts)
        elif r.evidence_status is EvidenceStatus.NO_EVIDENCE:
            empty.append({"tool": r.tool, "scope": r.scope})
    return {"checked": checked, "facts": facts, "empty_scopes": empty, "errors": errors}


def index_snapshot(index: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The snapshot of a record index (``diagnosis_harness.run.records.index_entry``): facts as ids only."""
    checked: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    empty: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for r in index:
        if r["invocation_status"] == InvocationStatus.ERROR.value:
            errors.append({"tool": r["tool"], "tool_call_id": r["tool_call_id"]})
            continue
        checked.append({"tool": r["tool"], "scope": r.get("scope") or {},
                        "status": r["evidence_status"], "returned": r.get("returned_count", 0)})
        if r["evidence_status"] == EvidenceStatus.EVIDENCE_FOUND.value:
            facts.extend({"evidence_id": eid} for eid in r.get("evidence_ids") or ())
        elif r["evidence_status"] == EvidenceStatus.NO_EVIDENCE.value:
            empty.append({"tool": r["tool"], "scope": r.get("scope") or {}})
    return {"checked": checked, "facts": facts, "empty_scopes": empty, "errors": errors}


def facts_observed(snapshot: dict[str, Any]) -> bool:
    """docs/design.md §4: at least one observed fact from a READY record of this run."""
    return bool(snapshot.get("facts"))
