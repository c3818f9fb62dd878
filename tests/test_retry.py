from __future__ import annotations

import asyncio

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import FailureClass
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.control.retry import AttemptError, RetryPolicy, execute_with_retry
from diagnosis_harness.control.settings import load_settings


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def budget(calls: int = 10) -> Budget:
    return Budget(BudgetLimits(max_model_calls=calls, max_tool_calls=5, max_tokens=10_000,
                               max_bytes=10_000))


def run(coro):  # noqa: ANN001
    return asyncio.run(coro)


def test_remaining_timeout_arithmetic_on_a_fake_clock() -> None:
    clock = FakeClock()
    life = RunLifecycle(deadline_s=1000, clock=clock)
    seen: list[float] = []

    async def op(timeout: float) -> str:
        seen.append(timeout)
        clock.now += timeout  # each attempt burns its whole allowance
        raise AttemptError(FailureClass.TIMEOUT, "slow")

    policy = RetryPolicy(max_attempts=4, per_attempt_timeout_s=10, total_timeout_s=25)
    result = run(execute_with_retry(op, role="router", policy=policy, lifecycle=life,
                                    budget=budget()))
    assert seen == [10, 10, 5]  # min(per-attempt, total - elapsed) from one fixed start
    assert result.failure_class is FailureClass.TIMEOUT
    assert [r.outcome for r in result.receipts] == ["failed", "failed", "failed", "not_started"]
    assert result.receipts[-1].failure_class is FailureClass.TIMEOUT
    assert [r.started_s for r in result.receipts] == [0, 10, 20, 25]


def test_attempt_timeout_never_exceeds_the_run_deadline() -> None:
    clock = FakeClock()
    life = RunLifecycle(deadline_s=7, clock=clock)
    seen: list[float] = []

    async def op(timeout: float) -> str:
        seen.append(timeout)
        return "ok"

    policy = RetryPolicy(max_attempts=2, per_attempt_timeout_s=10, total_timeout_s=25)
    result = run(execute_with_retry(op, role="router", policy=policy, lifecycle=life,
                                    budget=budget()))
    assert result.ok and result.value == "ok" and seen == [7]


def test_success_after_a_retryable_failure_leaves_two_receipts() -> None:
    life = RunLifecycle(deadline_s=100)
    calls: list[int] = []

    async def op(timeout: float) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise AttemptError(FailureClass.SCHEMA_INVALID, "bad shape")
        return "answer"

    b = budget()
    result = run(execute_with_retry(op, role="judge", policy=RetryPolicy(2, 5, 10),
                                    lifecycle=life, budget=b))
    assert result.value == "answer"
    assert [(r.attempt, r.outcome, r.failure_class) for r in result.receipts] == [
        (1, "failed", FailureClass.SCHEMA_INVALID), (2, "ok", None)]
    assert b.usage.model_calls == 2  # each attempt reserved its own model call


@pytest.mark.parametrize("cls", [FailureClass.NO_EVIDENCE, FailureClass.BUSINESS_REJECTION,
                                 FailureClass.BUDGET_EXHAUSTED, FailureClass.CANCELLED,
                                 FailureClass.UNKNOWN])
def test_final_classes_are_never_retried(cls: FailureClass) -> None:
    calls: list[int] = []

    async def op(timeout: float) -> str:
        calls.append(1)
        raise AttemptError(cls, "final")

    result = run(execute_with_retry(op, role="judge", policy=RetryPolicy(3, 5, 10),
                                    lifecycle=RunLifecycle(deadline_s=100), budget=budget()))
    assert len(calls) == 1 and result.failure_class is cls and len(result.receipts) == 1


def test_a_policy_cannot_make_final_classes_retryable() -> None:
    with pytest.raises(ValueError, match="never retried"):
        RetryPolicy(2, 5, 10, retryable=frozenset({FailureClass.NO_EVIDENCE}))


def test_no_retry_after_cancel() -> None:
    life = RunLifecycle(deadline_s=100)
    calls: list[int] = []

    async def op(timeout: float) -> str:
        calls.append(1)
        life.cancel_signal.cancel()  # the client goes away during the first attempt
        raise AttemptError(FailureClass.TRANSPORT, "connection reset")

    result = run(execute_with_retry(op, role="router", policy=RetryPolicy(3, 5, 10),
                                    lifecycle=life, budget=budget()))
    assert len(calls) == 1
    assert result.abort is not None and result.failure_class is FailureClass.CANCELLED
    assert result.receipts[-1].outcome == "not_started"


def test_no_retry_after_budget_exhaustion() -> None:
    calls: list[int] = []

    async def op(timeout: float) -> str:
        calls.append(1)
        raise AttemptError(FailureClass.TRANSPORT, "502")

    b = budget(calls=1)
    result = run(execute_with_retry(op, role="router", policy=RetryPolicy(3, 5, 10),
                                    lifecycle=RunLifecycle(deadline_s=100), budget=b))
    assert len(calls) == 1
    assert result.failure_class is FailureClass.BUDGET_EXHAUSTED and result.budget_exhausted
    assert [r.outcome for r in result.receipts] == ["failed", "not_started"]


def test_real_timeout_is_enforced_and_classified() -> None:
    async def op(timeout: float) -> str:
        await asyncio.sleep(5)
        return "late"

    result = run(execute_with_retry(op, role="judge", policy=RetryPolicy(2, 0.05, 0.08),
                                    lifecycle=RunLifecycle(deadline_s=100), budget=budget()))
    assert result.failure_class is FailureClass.TIMEOUT
    assert result.value is None
    assert 1 <= len(result.receipts) <= 2  # second attempt gets only what the total has left


def test_receipts_reach_the_trace_callback_as_they_happen() -> None:
    got: list[dict] = []

    async def op(timeout: float) -> str:
        raise ValueError("garbage")  # unclassified: UNKNOWN, never retried

    run(execute_with_retry(op, role="repair", policy=RetryPolicy(1, 5, 5),
                           lifecycle=RunLifecycle(deadline_s=100), budget=budget(),
                           on_receipt=lambda r: got.append(r.to_dict())))
    assert got == [dict(got[0], role="repair", attempt=1, outcome="failed",
                        failure_class="UNKNOWN")]
    assert "garbage" in got[0]["detail"]


def test_cancellation_propagates_through_the_executor() -> None:
    async def main() -> None:
        async def op(timeout: float) -> str:
            await asyncio.sleep(10)
            return "never"

        task = asyncio.create_task(execute_with_retry(
            op, role="router", policy=RetryPolicy(2, 20, 25),
            lifecycle=RunLifecycle(deadline_s=100), budget=budget()))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())


def test_design_default_policies() -> None:
    s = load_settings()
    assert RetryPolicy.for_role("router", s) == RetryPolicy(2, 10, 25)
    assert RetryPolicy.for_role("judge", s) == RetryPolicy(2, 20, 45)
    assert RetryPolicy.for_role("repair", s).max_attempts == 1
    with pytest.raises(ValueError):
        RetryPolicy.for_role("agent", s)
