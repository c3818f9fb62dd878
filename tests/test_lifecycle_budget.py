from __future__ import annotations

import pytest

from diagnosis_harness.control.budget import Budget, BudgetExhausted, BudgetLimits, BudgetUsage
from diagnosis_harness.control.contracts import FailureClass, FailureCode, RunState
from diagnosis_harness.control.lifecycle import RunAborted, RunLifecycle


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def limits(**kw: int) -> BudgetLimits:
    base = dict(max_model_calls=3, max_tool_calls=2, max_tokens=100, max_bytes=1000)
    base.update(kw)
    return BudgetLimits(**base)


def test_first_terminal_state_is_never_overwritten() -> None:
    life = RunLifecycle(deadline_s=10, clock=FakeClock())
    assert life.terminate(RunState.CANCELLED) is True
    assert life.terminate(RunState.SUCCESS) is False
    assert life.terminate(RunState.TIMED_OUT) is False
    assert life.state is RunState.CANCELLED
    with pytest.raises(ValueError):
        life.terminate(RunState.RUNNING)


def test_check_active_classifies_cancel_before_deadline() -> None:
    clock = FakeClock()
    life = RunLifecycle(deadline_s=5, clock=clock)
    life.check_active()  # still running: no exception
    clock.now += 6
    life.cancel_signal.cancel()
    with pytest.raises(RunAborted) as info:
        life.check_active()
    assert info.value.run_state is RunState.CANCELLED
    assert info.value.failure_class is FailureClass.CANCELLED
    assert info.value.failure_code is FailureCode.RUN_CANCELLED
    assert life.state is RunState.CANCELLED


def test_deadline_on_monotonic_clock_times_the_run_out() -> None:
    clock = FakeClock()
    life = RunLifecycle(deadline_s=5, clock=clock)
    clock.now += 4.9
    life.check_active()
    assert life.remaining() == pytest.approx(0.1)
    clock.now += 0.1
    with pytest.raises(RunAborted) as info:
        life.check_active()
    assert info.value.run_state is RunState.TIMED_OUT
    assert info.value.failure_code is FailureCode.RUN_TIMED_OUT


def test_a_run_that_already_ended_is_not_active() -> None:
    life = RunLifecycle(deadline_s=5, clock=FakeClock())
    life.terminate(RunState.BUDGET_EXHAUSTED)
    with pytest.raises(RunAborted) as info:
        life.check_active()
    assert info.value.failure_code is FailureCode.BUDGET_EXHAUSTED


@pytest.mark.parametrize("tin,tout", [(None, None), (-5, -1), ("7", 3.5), (True, None)])
def test_missing_or_negative_usage_counts_zero(tin, tout) -> None:
    budget = Budget(limits())
    budget.record_tokens(tin, tout)
    expected_out = 3 if tout == 3.5 else 0
    assert budget.usage.input_tokens == 0
    assert budget.usage.output_tokens == expected_out


def test_usage_metadata_of_a_response_is_recorded() -> None:
    budget = Budget(limits())
    budget.record_usage_metadata({"input_tokens": 40, "output_tokens": 2})
    budget.record_usage_metadata(None)
    assert budget.usage.tokens == 42


def test_model_call_budget_and_token_budget_stop_reservations() -> None:
    budget = Budget(limits(max_model_calls=2, max_tokens=50))
    budget.reserve_model_call()
    budget.record_tokens(30, 25)  # over the token ceiling after this call
    with pytest.raises(BudgetExhausted) as info:
        budget.reserve_model_call()
    assert info.value.resource == "tokens"
    assert budget.usage.model_calls == 1


def test_tool_and_byte_budgets() -> None:
    budget = Budget(limits(max_tool_calls=1, max_bytes=10))
    budget.reserve_tool_call()
    with pytest.raises(BudgetExhausted):
        budget.reserve_tool_call()
    budget.reserve_bytes(10)
    with pytest.raises(BudgetExhausted):
        budget.reserve_bytes(1)
    assert budget.usage.tool_calls == 1 and budget.usage.bytes == 10


def test_resumed_run_keeps_its_spent_budget() -> None:
    first = Budget(limits(max_model_calls=2))
    first.reserve_model_call()
    first.reserve_model_call()
    stored = first.usage.model_dump_json()  # what the checkpoint keeps
    resumed = Budget(limits(max_model_calls=2), BudgetUsage.model_validate_json(stored))
    with pytest.raises(BudgetExhausted):
        resumed.reserve_model_call()


def test_budget_never_mutates_the_usage_it_was_given() -> None:
    usage = BudgetUsage(model_calls=1)
    budget = Budget(limits(), usage)
    budget.reserve_model_call()
    assert usage.model_calls == 1 and budget.usage.model_calls == 2
