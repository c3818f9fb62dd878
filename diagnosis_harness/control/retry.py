"""The explicit retry executor (docs/design.md §6): the only place anything is ever tried twice.

Used for the router, the semantic judge and evidence repair. The agent's model call and the
evidence tools never go through it. Every attempt — including one refused before it started —
leaves an :class:`AttemptReceipt`, so the trace explains where the time and money went.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, TypeVar

from diagnosis_harness.control.budget import Budget, BudgetExhausted
from diagnosis_harness.control.contracts import RETRYABLE_BY_DEFAULT, FailureClass
from diagnosis_harness.control.lifecycle import RunAborted, RunLifecycle
from diagnosis_harness.control.secrets import redact
from diagnosis_harness.control.settings import Settings

T = TypeVar("T")


class AttemptError(Exception):
    """A classified failure of one attempt (bad output, transport error, business rejection…)."""

    def __init__(self, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.failure_class = failure_class


@dataclass(frozen=True)
class RetryPolicy:
    """Max attempts, the per-attempt and total timeouts, and which failure classes may retry."""

    max_attempts: int
    per_attempt_timeout_s: float
    total_timeout_s: float
    retryable: frozenset[FailureClass] = RETRYABLE_BY_DEFAULT

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("a retry policy needs at least one attempt")
        forbidden = self.retryable - RETRYABLE_BY_DEFAULT
        if forbidden:
            names = ", ".join(sorted(c.value for c in forbidden))
            raise ValueError(f"these failure classes are never retried: {names}")

    @classmethod
    def for_role(cls, role: str, settings: Settings) -> RetryPolicy:
        """The design's policy for ``router``, ``judge`` or ``repair``, from settings."""
        if role not in ("router", "judge", "repair"):
            raise ValueError(f"no retry policy for role {role!r}: only router, judge, repair")
        return cls(
            max_attempts=getattr(settings, f"{role}_attempts"),
            per_attempt_timeout_s=getattr(settings, f"{role}_attempt_timeout_s"),
            total_timeout_s=getattr(settings, f"{role}_total_timeout_s"),
        )


@dataclass(frozen=True)
class AttemptReceipt:
    """What one attempt did: when, with which timeout, and how it ended."""

    role: str
    attempt: int
    outcome: str
    """``ok``, ``failed``, or ``not_started`` (refused before calling: inactive, no time, no budget)."""
    failure_class: FailureClass | None
    timeout_s: float
    started_s: float
    """Seconds since the executor's fixed start."""
    duration_s: float
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict for the trace."""
        data = asdict(self)
        data["failure_class"] = self.failure_class.value if self.failure_class else None
        return data


@dataclass(frozen=True)
class RetryResult(Generic[T]):
    """The value of the first successful attempt, or the last failure and why it was final."""

    value: T | None
    failure_class: FailureClass | None
    receipts: tuple[AttemptReceipt, ...]
    abort: RunAborted | None = field(default=None, compare=False)
    """Set when the run itself stopped (cancel, deadline, budget): the caller must stop too."""
    budget_exhausted: bool = False

    @property
    def ok(self) -> bool:
        """True when an attempt produced a value."""
        return self.failure_class is None


def _classify(exc: BaseException, classify: Callable[[BaseException], FailureClass] | None) -> FailureClass:
    if isinstance(exc, AttemptError):
        return exc.failure_class
    return classify(exc) if classify is not None else FailureClass.UNKNOWN


async def execute_with_retry(
    op: Callable[[float], Awaitable[T]],
    *,
    role: str,
    policy: RetryPolicy,
    lifecycle: RunLifecycle,
    budget: Budget,
    on_receipt: Callable[[AttemptReceipt], None] | None = None,
    classify: Callable[[BaseException], FailureClass] | None = None,
) -> RetryResult[T]:
    """Run ``op(timeout_s)`` under ``policy``; never raises for a classified failure.

    Before each attempt: the run must be active and a model call must fit the budget. Each
    attempt's timeout is ``min(per-attempt, total - elapsed, run deadline - elapsed)`` measured
    from one fixed start on the lifecycle's monotonic clock; with nothing left the attempt is a
    TIMEOUT and ``op`` is not called. ``asyncio.CancelledError`` always propagates.
    ``classify`` maps a provider's exceptions to failure classes (the model seam passes its own;
    run control knows no provider); without it an unknown exception is ``UNKNOWN``.
    """
    clock = lifecycle.clock
    start = clock()
    receipts: list[AttemptReceipt] = []

    def receipt(attempt: int, outcome: str, cls: FailureClass | None, timeout: float,
                began: float, detail: str = "") -> AttemptReceipt:
        # A provider's error text can echo the key it was sent: masked before it goes anywhere.
        r = AttemptReceipt(role, attempt, outcome, cls, timeout, began - start,
                           clock() - began, redact(detail))
        receipts.append(r)
        if on_receipt is not None:
            on_receipt(r)
        return r

    last: FailureClass = FailureClass.UNKNOWN
    for attempt in range(1, policy.max_attempts + 1):
        began = clock()
        try:
            lifecycle.check_active()
        except RunAborted as abort:
            receipt(attempt, "not_started", abort.failure_class, 0.0, began, str(abort))
            return RetryResult(None, abort.failure_class, tuple(receipts), abort=abort)
        timeout = min(policy.per_attempt_timeout_s,
                      policy.total_timeout_s - (began - start),
                      lifecycle.remaining())
        if timeout <= 0:
            receipt(attempt, "not_started", FailureClass.TIMEOUT, 0.0, began,
                    "no time left for another attempt")
            return RetryResult(None, FailureClass.TIMEOUT, tuple(receipts))
        try:
            budget.reserve_model_call()
        except BudgetExhausted as exc:
            receipt(attempt, "not_started", FailureClass.BUDGET_EXHAUSTED, timeout, began, str(exc))
            return RetryResult(None, FailureClass.BUDGET_EXHAUSTED, tuple(receipts),
                               budget_exhausted=True)
        try:
            value = await asyncio.wait_for(op(timeout), timeout)
        except asyncio.CancelledError:
            receipt(attempt, "failed", FailureClass.CANCELLED, timeout, began, "cancelled")
            raise
        except Exception as exc:  # noqa: BLE001 — every failure is classified, none escapes
            last = FailureClass.TIMEOUT if isinstance(exc, TimeoutError) else _classify(exc, classify)
            receipt(attempt, "failed", last, timeout, began, f"{type(exc).__name__}: {exc}"[:500])
            if last in policy.retryable:
                continue
            return RetryResult(None, last, tuple(receipts))
        receipt(attempt, "ok", None, timeout, began)
        return RetryResult(value, None, tuple(receipts))
    return RetryResult(None, last, tuple(receipts))
