"""The ProgressSnapshot: what this run verifiably checked and found, from READY records only.

Fallbacks are rendered from it, so nothing the model merely *said* can reach a user as fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guards.evidence import shown_text
from harness.contracts import EvidenceStatus, InvocationStatus, ToolRecord


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


def facts_observed(snapshot: dict[str, Any]) -> bool:
    """docs/design.md §4: at least one observed fact from a READY record of this run."""
    return bool(snapshot.get("facts"))
