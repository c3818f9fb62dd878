"""Stops are data: a node that must end the loop returns ``{"stop": ...}`` built here.

The routing function then sends the run to ``release``, which alone decides what the user sees.
"""

from __future__ import annotations

from typing import Any

from diagnosis.context import RunContext
from harness.budget import BudgetExhausted
from harness.contracts import FailureCode, RunState
from harness.lifecycle import RunAborted


def stop(kind: str, run_state: RunState, failure_code: FailureCode | None, message: str,
         **extra: Any) -> dict[str, Any]:
    """Build the stop signal a node writes into state for ``release``."""
    return {"kind": kind, "run_state": run_state.value,
            "failure_code": failure_code.value if failure_code else None,
            "message": message, **extra}


def stop_from_abort(abort: RunAborted) -> dict[str, Any]:
    """The stop of a run that can no longer execute (cancel, deadline, or already ended)."""
    kind = {RunState.CANCELLED: "cancelled", RunState.TIMED_OUT: "timed_out",
            RunState.BUDGET_EXHAUSTED: "budget"}.get(abort.run_state, "crash")
    return stop(kind, abort.run_state, abort.failure_code, str(abort))


def stop_if_inactive(ctx: RunContext) -> dict[str, Any] | None:
    """The stop of a run that ended (deadline, cancel) while a model answered; None if active.

    docs/design.md §6: after a model call, check active again. The retry executor checks only before
    each attempt, so a router/judge/repair answer that arrived after the deadline was used and
    could even be published; the agent's model node already drops such a reply.
    """
    try:
        ctx.lifecycle.check_active()
    except RunAborted as abort:
        return stop_from_abort(abort)
    return None


def stop_from_budget(exc: BudgetExhausted) -> dict[str, Any]:
    """The stop of a run whose budget is spent."""
    return stop("budget", RunState.BUDGET_EXHAUSTED, FailureCode.BUDGET_EXHAUSTED, str(exc))
