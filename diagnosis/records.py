"""The tool records of a run: a compact index in the graph's state, the facts in the run store.

A canonical record (:class:`~harness.contracts.ToolRecord`) is stored once, in the run store,
append-only, before any checkpoint names it (the tool gate flushes the store); the model saw
its facts once, in its observation. The state keeps only an *index* of each record: what the
loop decides on (call id, tool, scope, statuses, the evidence ids), so a checkpoint never
carries the facts again. Whoever needs the facts — the guards, release's report and fallback,
the public API, tests — reads them through :func:`run_records` (or :func:`records_of`), the one
place that turns the index back into canonical records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diagnosis.context import RunContext
from harness.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from harness.runstore import RunPersistenceError, RunStore

__all__ = ["RecordRef", "index_entry", "records_of", "refs", "run_records"]


def index_entry(record: ToolRecord) -> dict[str, Any]:
    """The index entry of one record, as the state keeps it (plain JSON, no facts' content)."""
    return {"tool_call_id": record.tool_call_id, "tool": record.tool, "scope": record.scope,
            "invocation_status": record.invocation_status.value,
            "evidence_status": record.evidence_status.value, "ready_index": record.ready_index,
            "returned_count": record.returned_count,
            "evidence_ids": [fact.evidence_id for fact in record.facts]}


@dataclass(frozen=True)
class RecordRef:
    """One index entry as the tool gate reads it: the attributes of a ToolRecord it decides on."""

    tool_call_id: str
    tool: str
    scope: Mapping[str, Any]
    invocation_status: InvocationStatus
    evidence_status: EvidenceStatus
    ready_index: int | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> RecordRef:
        """The reference of an index entry."""
        return cls(tool_call_id=entry["tool_call_id"], tool=entry["tool"],
                   scope=entry.get("scope") or {},
                   invocation_status=InvocationStatus(entry["invocation_status"]),
                   evidence_status=EvidenceStatus(entry["evidence_status"]),
                   ready_index=entry.get("ready_index"))


def refs(index: Sequence[Mapping[str, Any]] | None) -> tuple[RecordRef, ...]:
    """The references of a state's ``records`` index, in call order."""
    return tuple(RecordRef.of(entry) for entry in index or ())


def run_records(store: RunStore, run_id: str,
                index: Sequence[Mapping[str, Any]] | None) -> list[ToolRecord]:
    """The canonical records ``index`` names, read from the run store, in index order.

    A call stored twice (a run resumed from a checkpoint written before its tool gate ended
    re-runs that gate) is the later row: the one the checkpoint's index was made from. A record
    the index names but the store lacks, or one that disagrees with its entry, is a
    RunPersistenceError: facts that cannot be read back are never guessed.
    """
    if not index:
        return []
    stored = {str(raw.get("tool_call_id")): raw for raw in store.tool_records(run_id)}
    records = []
    for entry in index:
        found = stored.get(entry["tool_call_id"])
        if found is None or (found.get("tool"), found.get("ready_index")) != (
                entry["tool"], entry.get("ready_index")):
            raise RunPersistenceError(
                f"the tool record {entry['tool_call_id']!r} of run {run_id} is "
                f"{'missing from' if found is None else 'not the one indexed in'} the run store")
        records.append(ToolRecord.model_validate(found))
    return records


def records_of(ctx: RunContext, state: Mapping[str, Any]) -> list[ToolRecord]:
    """The canonical records of the run of ``ctx`` as ``state`` indexes them."""
    return run_records(ctx.store, ctx.run_id, state.get("records"))
