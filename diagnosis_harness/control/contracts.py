"""The wire contracts of docs/design.md §3 and §10: enums and strict models shared by every layer.

Enums are ``StrEnum`` so they serialise by their names (``"release_outcome": "FALLBACK"``).
Every model forbids unknown keys: a contract that silently accepts extra fields is not a contract.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class RunState(StrEnum):
    """Core layer: can this run still execute? First terminal wins."""

    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    TIMED_OUT = "TIMED_OUT"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"

    @property
    def terminal(self) -> bool:
        """True for every state except RUNNING."""
        return self is not RunState.RUNNING


class CollectionState(StrEnum):
    """Progress layer: whether evidence collection still pays off."""

    COLLECTING = "COLLECTING"
    SATURATED = "SATURATED"


class StopReason(StrEnum):
    """Progress layer: why evidence collection stopped."""

    INFORMATION_SATURATED = "INFORMATION_SATURATED"
    PROGRESS_PROTOCOL_VIOLATED = "PROGRESS_PROTOCOL_VIOLATED"
    BUDGET_LIMIT_REACHED = "BUDGET_LIMIT_REACHED"


class ReleaseOutcome(StrEnum):
    """Release layer: what the user sees."""

    SUCCESS = "SUCCESS"
    FALLBACK = "FALLBACK"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class FallbackType(StrEnum):
    """Release layer: which honest fallback was published."""

    MISSING_REQUIRED_CONTEXT = "MISSING_REQUIRED_CONTEXT"
    INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"
    EVIDENCE_VALIDATION_FAILED = "EVIDENCE_VALIDATION_FAILED"
    SEMANTIC_UNSUPPORTED = "SEMANTIC_UNSUPPORTED"
    SEMANTIC_UNAVAILABLE = "SEMANTIC_UNAVAILABLE"
    APPROVAL_REJECTED = "APPROVAL_REJECTED"
    """A reviewer rejected the verified report at the approval gate (docs/design.md §14)."""


class FailureCode(StrEnum):
    """Coarse reason carried by a ``failure`` event."""

    INVALID_INPUT = "INVALID_INPUT"
    RUN_CANCELLED = "RUN_CANCELLED"
    RUN_TIMED_OUT = "RUN_TIMED_OUT"
    ROUTING_UNAVAILABLE = "ROUTING_UNAVAILABLE"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    RUN_PERSISTENCE_FAILED = "RUN_PERSISTENCE_FAILED"
    RUN_ABANDONED = "RUN_ABANDONED"
    INTERNAL_FAILURE = "INTERNAL_FAILURE"
    EVIDENCE_TAMPERED = "EVIDENCE_TAMPERED"
    """The run's state disagrees with what the run store recorded when the tools and guards ran:
    an edited record, or a verdict the judge never gave for this draft (docs/design.md §14)."""


class StoredRunStatus(StrEnum):
    """Status of the stored run row (docs/design.md §3 mapping from ReleaseOutcome)."""

    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    @classmethod
    def from_outcome(cls, outcome: ReleaseOutcome) -> StoredRunStatus:
        """SUCCESS and FALLBACK both mean the request was handled safely."""
        return {
            ReleaseOutcome.SUCCESS: cls.SUCCESS,
            ReleaseOutcome.FALLBACK: cls.SUCCESS,
            ReleaseOutcome.FAILED: cls.FAILED,
            ReleaseOutcome.CANCELLED: cls.CANCELLED,
        }[outcome]


class InvocationStatus(StrEnum):
    """Whether the tool invocation itself ran to completion."""

    READY = "READY"
    ERROR = "ERROR"


class EvidenceStatus(StrEnum):
    """What a READY invocation found (ERROR when the invocation failed)."""

    EVIDENCE_FOUND = "EVIDENCE_FOUND"
    NO_EVIDENCE = "NO_EVIDENCE"
    ERROR = "ERROR"


class FailureClass(StrEnum):
    """Classification of one failed attempt; decides whether the retry executor may try again."""

    TIMEOUT = "TIMEOUT"
    TRANSPORT = "TRANSPORT"
    INVALID_OUTPUT = "INVALID_OUTPUT"
    PARSE_ERROR = "PARSE_ERROR"
    SCHEMA_INVALID = "SCHEMA_INVALID"
    NO_EVIDENCE = "NO_EVIDENCE"
    BUSINESS_REJECTION = "BUSINESS_REJECTION"
    CANCELLED = "CANCELLED"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    UNKNOWN = "UNKNOWN"


RETRYABLE_BY_DEFAULT: frozenset[FailureClass] = frozenset(
    {
        FailureClass.TIMEOUT,
        FailureClass.TRANSPORT,
        FailureClass.INVALID_OUTPUT,
        FailureClass.PARSE_ERROR,
        FailureClass.SCHEMA_INVALID,
    }
)
"""The only classes docs/design.md §6 allows a policy to retry; the rest are final by construction."""


class DraftError(StrEnum):
    """Why the agent's final message is not a valid draft."""

    EMPTY_DRAFT = "EMPTY_DRAFT"
    INVALID_JSON = "INVALID_JSON"
    SCHEMA_INVALID = "SCHEMA_INVALID"


class Gain(StrEnum):
    """The agent's (or the harness's) verdict on what one observation added."""

    GAINED = "GAINED"
    NO_GAIN = "NO_GAIN"


class Intent(StrEnum):
    """What the router decided the question is."""

    DIAGNOSIS = "DIAGNOSIS"
    GENERAL = "GENERAL"


class Verdict(StrEnum):
    """The semantic judge's answer."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class Role(StrEnum):
    """Which model call a chat model serves; the model seam builds one per role."""

    ROUTER = "router"
    AGENT = "agent"
    JUDGE = "judge"
    REPAIR = "repair"


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


class JudgeAnswer(_Strict):
    """The semantic judge's strict answer (docs/design.md §10).

    Verdict first, on purpose: a grammar-decoding server writes keys in schema order, and the
    1.5B local judge asked for its reasons first wrote a plausible reason and then SUPPORTED
    for every draft, wrong ones included (three wrong publications in four runs); asked for
    the verdict first it refuses them. A judge that cannot tell must fail closed.
    """

    verdict: Verdict
    reasons: list[str]


class PreviousObservation(_Strict):
    """Progress envelope every evidence call after the first must carry (docs/design.md §10)."""

    tool_call_id: str
    gain: Gain
    note: str = ""


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
