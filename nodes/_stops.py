"""Stops are data: a node that must end the loop returns ``{"stop": ...}`` built here.

The routing function then sends the run to ``release``, which alone decides what the user sees.
Every builder returns a typed :class:`~diagnosis_harness.run.state.Stop` whose ``kind`` is a
:data:`~diagnosis_harness.run.state.StopKind`: a misspelt kind is a type error, not a run that ends as
INTERNAL_FAILURE. A stop is a plain dict of JSON values, so checkpoints hold it unchanged.
"""

from __future__ import annotations

from diagnosis_harness.control.budget import BudgetExhausted
from diagnosis_harness.control.contracts import FailureCode, RunState
from diagnosis_harness.control.lifecycle import RunAborted
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.state import Stop, StopKind

__all__ = ["Stop", "controlled_stop", "stop", "stop_from_abort", "stop_from_budget",
           "stop_if_inactive"]


def stop(kind: StopKind, run_state: RunState, failure_code: FailureCode | None, message: str,
         *, failure_class: str | None = None) -> Stop:
    """Build the stop signal a node writes into state for ``release``."""
    built = Stop(kind=kind, run_state=run_state.value,
                 failure_code=failure_code.value if failure_code else None, message=message)
    if failure_class is not None:
        built["failure_class"] = failure_class
    return built


def controlled_stop(message: str) -> Stop:
    """The agent called a tool after STOP_REQUIRED: an honest fallback from what it verified."""
    return stop("controlled", RunState.SUCCESS, None, message)


_KIND_OF_ABORT: dict[RunState, StopKind] = {
    RunState.CANCELLED: "cancelled", RunState.TIMED_OUT: "timed_out",
    RunState.BUDGET_EXHAUSTED: "budget"}


def stop_from_abort(abort: RunAborted) -> Stop:
    """The stop of a run that can no longer execute (cancel, deadline, or already ended)."""
    return stop(_KIND_OF_ABORT.get(abort.run_state, "crash"), abort.run_state,
                abort.failure_code, str(abort))


def stop_if_inactive(ctx: RunContext) -> Stop | None:
    """The stop of a run that ended (deadline, cancel) while a model answered; None if active.

    docs/design.md (lifecycle): after a model call, check active again. The retry executor
    checks only before each attempt, so a router/judge/repair answer that arrived after the
    deadline was used and could even be published; the agent's model node drops such a reply.
    """
    try:
        ctx.lifecycle.check_active()
    except RunAborted as abort:
        return stop_from_abort(abort)
    return None


def stop_from_budget(exc: BudgetExhausted) -> Stop:
    """The stop of a run whose budget is spent."""
    return stop("budget", RunState.BUDGET_EXHAUSTED, FailureCode.BUDGET_EXHAUSTED, str(exc))
