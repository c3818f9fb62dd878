"""Evidence guard (docs/design.md §8): a cited id must be a fact of this run's READY, EVIDENCE_FOUND records.

Or the one ``empty`` fact of a READY, NO_EVIDENCE record ("checked, found nothing"): evidence of
absence only. A conclusion whose claims cite nothing else rests on nothing observed, and fails.

The guard only approves or rejects. It never rewrites the conclusion; the one repair attempt is
a model call whose answer :func:`repair_allowed` checks before the guard runs again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from diagnosis_harness.control.contracts import (
    EMPTY_KIND,
    DiagnosisDraft,
    EvidenceStatus,
    Fact,
    InvocationStatus,
    ToolRecord,
)


class EvidenceProblemKind(StrEnum):
    """Why one cited id cannot support a claim."""

    UNKNOWN_ID = "UNKNOWN_ID"
    """No fact with this id among this run's records (invented, mistyped or from another run)."""
    NOT_READY = "NOT_READY"
    """The id belongs to a record whose invocation failed (InvocationStatus.ERROR)."""
    NO_EVIDENCE = "NO_EVIDENCE"
    """The id belongs to a READY record that did not find evidence."""
    ABSENCE_ONLY = "ABSENCE_ONLY"
    """Every id the conclusion cites says "found nothing": the root cause rests on no fact
    that observed something (reported for each such id)."""


class EvidenceProblem(BaseModel):
    """One cited id of one claim that the guard rejects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence_id: str
    claim_index: int
    """0-based position of the claim in ``conclusion.claims``."""
    problem: EvidenceProblemKind


class EvidenceVerdict(BaseModel):
    """The evidence guard's verdict; serialisable for the checkpoint and the trace."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    problems: list[EvidenceProblem]

    def to_dict(self) -> dict:
        """The verdict as plain JSON types (enum values by name)."""
        return self.model_dump(mode="json")


def facts_by_id(records: Sequence[ToolRecord]) -> dict[str, tuple[ToolRecord, Fact]]:
    """Index every fact of ``records`` by its evidence id, with the record it came from.

    Evidence ids are unique within a run by construction (docs/design.md §10); two different facts
    under one id would make any citation ambiguous, so that raises ValueError rather than
    letting either one win.
    """
    index: dict[str, tuple[ToolRecord, Fact]] = {}
    for record in records:
        for fact in record.facts:
            seen = index.get(fact.evidence_id)
            if seen is not None and seen != (record, fact):
                raise ValueError(
                    f"evidence id {fact.evidence_id!r} appears in two different records "
                    f"({seen[0].tool_call_id} and {record.tool_call_id}); the run's records "
                    "are inconsistent"
                )
            index[fact.evidence_id] = (record, fact)
    return index


def shown_text(fact: Fact) -> str:
    """A fact's text as a published report shows it: flagged content carries its warning."""
    if not fact.flags:
        return fact.text
    return f"{fact.text} [WARNING: {'; '.join(fact.flags)} — untrusted data, not an instruction]"


def _citable(record: ToolRecord, fact: Fact) -> bool:
    if record.invocation_status is not InvocationStatus.READY:
        return False
    if record.evidence_status is EvidenceStatus.EVIDENCE_FOUND:
        return True
    return record.evidence_status is EvidenceStatus.NO_EVIDENCE and fact.kind == EMPTY_KIND


def citable_ids(records: Sequence[ToolRecord]) -> list[str]:
    """Ids a claim may cite, in record order.

    Facts of READY + EVIDENCE_FOUND records, and the ``empty`` fact of a READY + NO_EVIDENCE one.
    """
    return [eid for eid, (record, fact) in facts_by_id(records).items() if _citable(record, fact)]


def is_absence(fact: Fact) -> bool:
    """Whether ``fact`` says only that a scope matched nothing (evidence of absence)."""
    return fact.kind == EMPTY_KIND


def _problem_of(evidence_id: str, index: dict[str, tuple[ToolRecord, Fact]]) -> EvidenceProblemKind | None:
    found = index.get(evidence_id)
    if found is None:
        return EvidenceProblemKind.UNKNOWN_ID
    record, fact = found
    if record.invocation_status is not InvocationStatus.READY:
        return EvidenceProblemKind.NOT_READY
    if not _citable(record, fact):
        return EvidenceProblemKind.NO_EVIDENCE
    return None


def check_evidence(draft: DiagnosisDraft, records: Sequence[ToolRecord]) -> EvidenceVerdict:
    """Check every id cited by the draft's conclusion against this run's canonical records.

    One problem is reported per (claim, cited id) pair that fails, in claim order. A draft
    without a conclusion has nothing to check and never reaches this guard (the graph sends it
    to release), so passing one is a wiring error: ValueError.
    """
    if draft.conclusion is None:
        raise ValueError("check_evidence needs a draft with a conclusion; null goes to release")
    index = facts_by_id(records)
    problems = [
        EvidenceProblem(evidence_id=eid, claim_index=i, problem=kind)
        for i, claim in enumerate(draft.conclusion.claims)
        for eid in claim.evidence_ids
        if (kind := _problem_of(eid, index)) is not None
    ]
    cited = [(i, eid) for i, claim in enumerate(draft.conclusion.claims)
             for eid in claim.evidence_ids]
    if not problems and cited and all(is_absence(index[eid][1]) for _, eid in cited):
        problems = [EvidenceProblem(evidence_id=eid, claim_index=i,
                                    problem=EvidenceProblemKind.ABSENCE_ONLY)
                    for i, eid in cited]
    return EvidenceVerdict(passed=not problems, problems=problems)


@dataclass(frozen=True)
class RepairCheck:
    """Whether a repaired draft stays within what a repair may change; truthy when allowed."""

    allowed: bool
    reason: str

    def __bool__(self) -> bool:
        """Allow ``if repair_allowed(...):``."""
        return self.allowed


def _norm(text: str) -> str:
    # Only surrounding whitespace is forgiven; any change inside the text is a rewrite.
    return text.strip()


def repair_allowed(
    original: DiagnosisDraft, repaired: DiagnosisDraft, records: Sequence[ToolRecord]
) -> RepairCheck:
    """Decide whether ``repaired`` is a legal repair of ``original`` (it rewrites nothing).

    Allowed iff all of:

    - the repaired draft still has a conclusion, with the same ``root_cause`` text (compared
      after stripping surrounding whitespace);
    - every repaired claim's statement is one of the original statements, each used at most
      once — so claims may be dropped or reordered, never added, reworded or duplicated;
    - every id the repaired conclusion cites is citable: a fact of a READY + EVIDENCE_FOUND
      record of this run (re-citing is the only other change a repair may make);
    - ``next_steps`` only drops items of the original, it adds none.

    Raises ValueError if ``original`` has no conclusion: such a draft is never repaired.
    """
    if original.conclusion is None:
        raise ValueError("only a draft with a conclusion can be repaired")
    if repaired.conclusion is None:
        return RepairCheck(False, "the repair removed the conclusion")
    if _norm(repaired.conclusion.root_cause) != _norm(original.conclusion.root_cause):
        return RepairCheck(False, "the repair changed root_cause")

    remaining = [_norm(c.statement) for c in original.conclusion.claims]
    for i, claim in enumerate(repaired.conclusion.claims):
        statement = _norm(claim.statement)
        if statement not in remaining:
            return RepairCheck(False, f"claim {i} is not one of the original claim statements")
        remaining.remove(statement)

    citable = set(citable_ids(records))
    bad = [eid for eid in repaired.cited_ids() if eid not in citable]
    if bad:
        return RepairCheck(False, f"the repair cites ids that are not citable: {', '.join(bad)}")

    original_steps = [_norm(s) for s in original.next_steps]
    for step in repaired.next_steps:
        if _norm(step) not in original_steps:
            return RepairCheck(False, "the repair added a next step")
    return RepairCheck(True, "ok")
