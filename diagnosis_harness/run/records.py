"""The tool records of a run: a compact index in the graph's state, the facts in the run store.

A canonical record (:class:`~diagnosis_harness.control.contracts.ToolRecord`) is stored once, in the run
store,
append-only, before any checkpoint names it (``record_tool`` writes before it returns); the model saw
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

from pydantic import ValidationError

from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.store import RunPersistenceError, RunStore

__all__ = ["RecordRef", "backs", "error_code", "index_entry", "records_of", "refs", "resolve", "run_records"]


def index_entry(record: ToolRecord) -> dict[str, Any]:
    """The index entry of one record, as the state keeps it (plain JSON, no facts' content)."""
    scope = record.model_dump(mode="json", include={"scope"})["scope"]  # JSON: as read back
    entry = {"tool_call_id": record.tool_call_id, "tool": record.tool, "scope": scope,
             "invocation_status": record.invocation_status.value,
             "evidence_status": record.evidence_status.value, "ready_index": record.ready_index,
             "returned_count": record.returned_count,
             "evidence_ids": [fact.evidence_id for fact in record.facts]}
    if (code := error_code(record)) is not None:
        entry["error_code"] = code
    return entry


def error_code(record: ToolRecord) -> str | None:
    """The boundary's code of a failed call (``rejected_sql``, ``timeout``…), None for a READY one.

    A failed record's ``error`` is ``"<code>: <message>"`` (``diagnosis_harness.tools.boundary``).
    """
    if record.invocation_status is not InvocationStatus.ERROR or not record.error:
        return None
    code, sep, _ = record.error.partition(": ")
    return code if sep and code.replace("_", "").isalnum() else None


@dataclass(frozen=True)
class RecordRef:
    """One index entry as the tool gate reads it: the attributes of a ToolRecord it decides on."""

    tool_call_id: str
    tool: str
    scope: Mapping[str, Any]
    invocation_status: InvocationStatus
    evidence_status: EvidenceStatus
    ready_index: int | None = None
    error_code: str | None = None
    """A failed call's code (:func:`error_code`); None for READY, and in entries written before it."""

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> RecordRef:
        """The reference of an index entry."""
        return cls(tool_call_id=entry["tool_call_id"], tool=entry["tool"],
                   scope=entry.get("scope") or {},
                   invocation_status=InvocationStatus(entry["invocation_status"]),
                   evidence_status=EvidenceStatus(entry["evidence_status"]),
                   ready_index=entry.get("ready_index"), error_code=entry.get("error_code"))


def refs(index: Sequence[Mapping[str, Any]] | None) -> tuple[RecordRef, ...]:
    """The references of a state's ``records`` index, in call order."""
    return tuple(RecordRef.of(entry) for entry in index or ())


def backs(entry: object, record: ToolRecord) -> bool:
    """Whether ``record`` is what the state's ``entry`` names: its index entry, exactly.

    A whole canonical record in state (a checkpoint written before the index) backs too if it
    is exactly the stored one. Anything else — an edited status, scope or evidence id, a fact
    pasted into the entry — is not what the tool returned.
    """
    expected = index_entry(record)
    if isinstance(entry, Mapping) and "error_code" not in entry:
        expected.pop("error_code", None)  # an entry checkpointed before failed calls had codes
    return entry == expected or entry == record.model_dump(mode="json")


def resolve(index: Sequence[Any], rows: Sequence[Mapping[str, Any]]) -> tuple[list[ToolRecord], list[str]]:
    """The stored records an index names, in index order, and one problem per entry none backs.

    ``rows`` are the run's stored records (:meth:`~diagnosis_harness.runstore.store.RunStore.tool_records`).
    A call stored twice (a model that repeats an id; a gate re-run on resume before the store
    kept observations) resolves to its latest row that backs the entry.
    """
    kept: dict[str, list[ToolRecord]] = {}
    for row in rows:
        try:
            record = ToolRecord.model_validate(row)
        except ValidationError:
            continue  # the store writes only canonical records; anything else backs nothing
        kept.setdefault(record.tool_call_id, []).append(record)
    records: list[ToolRecord] = []
    problems: list[str] = []
    for i, entry in enumerate(index):
        call = entry.get("tool_call_id") if isinstance(entry, Mapping) else None
        found = [r for r in kept.get(str(call), []) if backs(entry, r)]
        if found:
            records.append(found[-1])
        else:
            tool = entry.get("tool") if isinstance(entry, Mapping) else None
            problems.append(f"record {call if call else f'#{i + 1}'} ({tool}) is not what the "
                            "tool returned in this run")
    return records, problems


def run_records(store: RunStore, run_id: str,
                index: Sequence[Mapping[str, Any]] | None) -> list[ToolRecord]:
    """The canonical records ``index`` names, read from the run store, in index order.

    An entry no stored record backs (:func:`resolve`) is a RunPersistenceError: facts that
    cannot be read back are never guessed. Release checks the same way and calls such state
    tampered (docs/design.md §14).
    """
    if not index:
        return []
    records, problems = resolve(index, store.tool_records(run_id))
    if problems:
        raise RunPersistenceError(f"run {run_id}: " + "; ".join(problems[:5]))
    return records


def records_of(ctx: RunContext, state: Mapping[str, Any]) -> list[ToolRecord]:
    """The canonical records of the run of ``ctx`` that ``state``'s index names and the store backs.

    For the loop's guards: an entry no stored record backs (an edited state) is left out, never
    guessed — the guards judge only what the store holds, and release, which checks every
    entry (:func:`resolve`), calls such a run EVIDENCE_TAMPERED.
    """
    index = state.get("records")
    return resolve(index, ctx.store.tool_records(ctx.run_id))[0] if index else []
