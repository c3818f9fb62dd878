"""The closed vocabularies of docs/design.md §3 and §10: the ``StrEnum`` codes every layer shares.

Run states, stop reasons, outcomes and fallbacks, failure codes and classes, tool statuses, the
router's intents, the judge's verdicts, the model roles. ``StrEnum`` so they serialise by their
names (``"release_outcome": "FALLBACK"``). The strict models that carry them are
:mod:`diagnosis_harness.control.contracts` (which re-exports these, its historical home).
"""

from __future__ import annotations

from enum import StrEnum


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
    FOLLOW_UP_UNSUPPORTED = "FOLLOW_UP_UNSUPPORTED"
    """A follow-up question on a thread that the offline router cannot read as an incident: the
    offline investigator answers none, and says so with what the thread verified (§4)."""
    MODEL_UNREACHABLE = "MODEL_UNREACHABLE"
    """The model endpoint could not be reached (connection refused, or a 5xx after the
    harness's own attempts): the offline investigator gathered this run's facts and the report
    is their triage digest, never a root cause (docs/design.md §4)."""


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
    EVIDENCE_RECHECK_UNAVAILABLE = "EVIDENCE_RECHECK_UNAVAILABLE"
    """Release could not re-compute a statistic to confirm it (its backend timed out, was
    unreachable, or the limit overflowed): nothing is published, but nothing was tampered with
    either (docs/design.md §16.1)."""


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
