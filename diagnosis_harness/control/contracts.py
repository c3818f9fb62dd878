"""The wire contracts of docs/design.md §3 and §10: the strict models shared by every layer.

Every model forbids unknown keys: a contract that silently accepts extra fields is not a contract.
The enums they carry live in :mod:`diagnosis_harness.control.vocabulary` and are importable
from here too.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from diagnosis_harness.control.vocabulary import (
    RETRYABLE_BY_DEFAULT,
    CollectionState,
    DraftError,
    EvidenceStatus,
    FailureClass,
    FailureCode,
    FallbackType,
    Gain,
    Intent,
    InvocationStatus,
    ReleaseOutcome,
    Role,
    RunState,
    StopReason,
    StoredRunStatus,
    Verdict,
)

__all__ = [
    "EMPTY_KIND",
    "Claim",
    "ClaimVerdict",
    "CollectionState",
    "Conclusion",
    "DiagnosisDraft",
    "DraftError",
    "EvidenceStatus",
    "Fact",
    "FailureClass",
    "FailureCode",
    "FallbackType",
    "Gain",
    "Intent",
    "InvocationStatus",
    "JudgeAnswer",
    "PreviousObservation",
    "RETRYABLE_BY_DEFAULT",
    "ReleaseOutcome",
    "Role",
    "RootCauseVerdict",
    "RouterAnswer",
    "RunState",
    "StopReason",
    "StoredRunStatus",
    "ToolRecord",
    "Verdict",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_PLACEHOLDER = re.compile(r"\s*<[^<>]*>[\s.]*")
"""A whole text that is one ``<…>`` slot, as the prompts' examples write them."""


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _stated(value: str) -> str:
    """A root cause or claim: not blank, and not an example's placeholder copied verbatim.

    The 1.5B local model once answered ``"<one sentence that follows from the claims>"`` and
    its judge called it SUPPORTED; only the contract stands between that and a publication.
    """
    _non_blank(value)
    if _PLACEHOLDER.fullmatch(value):
        raise ValueError(f"{value.strip()[:60]!r} is a template placeholder, not a statement")
    return value


class Claim(_Strict):
    """One statement of a conclusion and the evidence ids that support it."""

    statement: str
    evidence_ids: list[str] = Field(min_length=1)

    _statement = field_validator("statement")(_stated)


class Conclusion(_Strict):
    """A root cause and the claims it rests on (at least one)."""

    root_cause: str
    claims: list[Claim] = Field(min_length=1)

    _root_cause = field_validator("root_cause")(_stated)


class DiagnosisDraft(_Strict):
    """The agent's final message (docs/design.md §10). ``conclusion`` may be null."""

    conclusion: Conclusion | None
    next_steps: list[str]

    def cited_ids(self) -> list[str]:
        """Every evidence id the conclusion cites, in order, without repeats."""
        if self.conclusion is None:
            return []
        seen: dict[str, None] = {}
        for claim in self.conclusion.claims:
            for eid in claim.evidence_ids:
                seen.setdefault(eid, None)
        return list(seen)


class RouterAnswer(_Strict):
    """The router's strict answer (docs/design.md §10)."""

    intent: Intent
    service: str | None
    merchant: str | None
    start: str | None
    end: str | None


class ClaimVerdict(_Strict):
    """The judge's verdict on one claim of the draft: whether the items it cites show it."""

    index: int = Field(ge=0)
    """The claim's 0-based position in the draft (the payload shows it)."""
    verdict: Verdict
    reason: str


class RootCauseVerdict(_Strict):
    """The judge's verdict on the root cause: whether it follows from the supported claims alone."""

    verdict: Verdict
    reason: str


class JudgeAnswer(_Strict):
    """The semantic judge's strict answer (docs/design.md §10).

    Verdict first, on purpose: a grammar-decoding server writes keys in schema order, and the
    1.5B local judge asked for its reasons first wrote a plausible reason and then SUPPORTED
    for every draft, wrong ones included (three wrong publications in four runs); asked for
    the verdict first it refuses them. A judge that cannot tell must fail closed.

    Per claim (docs/design.md §8): a capable judge refused right drafts for one overreaching
    side claim among 6–12, so it says which claims hold and whether the root cause follows
    from those alone; the harness publishes the draft minus the refused claims. Without
    ``claims`` the verdict is for the whole draft, all or nothing.
    """

    verdict: Verdict
    claims: list[ClaimVerdict] | None = None
    """One verdict per claim of the draft, by its 0-based index (None: the whole-draft form)."""
    root_cause: RootCauseVerdict | None = None
    """Whether the root cause follows from the SUPPORTED claims alone (with ``claims`` only)."""
    reasons: list[str]

    @model_validator(mode="after")
    def _consistent(self) -> JudgeAnswer:
        """Per-claim verdicts come whole and never contradict themselves (fail closed).

        ``claims`` and ``root_cause`` come together or not at all; a claim is judged once; a
        root cause that follows from no supported claim cannot be SUPPORTED. Whether every
        claim of the judged draft has its verdict is checked against the draft
        (``guards.semantic.claim_verdict_problem``): the contract does not know the draft.
        """
        if (self.claims is None) != (self.root_cause is None):
            raise ValueError("claims and root_cause are given together or not at all")
        if self.claims is None or self.root_cause is None:
            return self
        indexes = [c.index for c in self.claims]
        if len(set(indexes)) != len(indexes):
            raise ValueError(f"a claim is judged twice: indexes {indexes}")
        if self.root_cause.verdict is Verdict.SUPPORTED and not any(
                c.verdict is Verdict.SUPPORTED for c in self.claims):
            raise ValueError("the root cause cannot be SUPPORTED when no claim is")
        return self


class PreviousObservation(_Strict):
    """Progress envelope every evidence call after the first must carry (docs/design.md §10)."""

    tool_call_id: str
    gain: Gain
    note: str = ""


EMPTY_KIND = "empty"
"""The kind of the one fact of an empty READY result: "checked, found nothing" for its scope.

Citable as evidence of absence only (docs/design.md §8): a claim may say that nothing matched
this scope, and a conclusion needs at least one fact that observed something.
"""


class Fact(_Strict):
    """One evidence item of a READY record, addressable by its deterministic id ``E<k>.<i>``."""

    evidence_id: str
    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)
    """Why this fact's content is suspect (e.g. instruction-like text); shown, never evidence."""


class ToolRecord(_Strict):
    """The canonical record of one evidence tool call, as the harness stores and checks it."""

    tool_call_id: str
    tool: str
    args: dict[str, Any]
    scope: dict[str, Any]
    invocation_status: InvocationStatus
    evidence_status: EvidenceStatus
    ready_index: int | None = None
    """k of ``E<k>.<i>``: this record's rank among the run's READY invocations (None if ERROR)."""
    facts: list[Fact] = Field(default_factory=list)
    error: str | None = None
    returned_count: int = 0
    relevance: str | None = None
    raw_bytes: int = 0
    shown_bytes: int = 0
    truncated: bool = False
