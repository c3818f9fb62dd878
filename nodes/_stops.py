"""Stops are data: a node that must end the loop returns ``{"stop": ...}`` built here.

The routing function then sends the run to ``release``, which alone decides what the user sees.
Every builder returns a typed :class:`~diagnosis_harness.run.state.Stop` whose ``kind`` is a
:data:`~diagnosis_harness.run.state.StopKind`: a misspelt kind is a type error, not a run that ends as
INTERNAL_FAILURE. A stop is a plain dict of JSON values, so checkpoints hold it unchanged.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from diagnosis_harness import prompts
from diagnosis_harness.control.budget import BudgetExhausted
from diagnosis_harness.control.contracts import FailureCode, RunState
from diagnosis_harness.control.lifecycle import RunAborted
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState, Stop, StopKind

__all__ = ["Stop", "controlled_stop", "stop", "stop_from_abort", "stop_from_budget",
           "stop_if_inactive", "while_active", "with_stop_required"]

Node = Callable[[DiagnosisState, Runtime[RunContext]], Awaitable[dict[str, Any]]]


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


def while_active(node: Node) -> Node:
    """``node``, which a run that has ended (deadline, cancel) skips with its stop.

    For the nodes that act on a model's answer: a run cancelled or out of time since the last
    check parses, judges and publishes nothing more (docs/design.md §5).
    """
    @functools.wraps(node)
    async def active_only(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if (late := stop_if_inactive(run_context(runtime))) is not None:
            return {"stop": late}
        return await node(state, runtime)

    return active_only


def stop_from_budget(exc: BudgetExhausted) -> Stop:
    """The stop of a run whose budget is spent."""
    return stop("budget", RunState.BUDGET_EXHAUSTED, FailureCode.BUDGET_EXHAUSTED, str(exc))


def with_stop_required(message: ToolMessage, reason: str) -> ToolMessage:
    """``message`` (same id: it replaces the original) carrying STOP_REQUIRED and its reason.

    How the agent is told that collection is over (docs/design.md §7): inside the newest
    observation, once, with the instruction to write the draft now.
    """
    try:
        body = json.loads(message.content) if isinstance(message.content, str) else {}
    except json.JSONDecodeError:
        body = {"observation": message.content}
    body = body if isinstance(body, dict) else {"observation": body}
    body.update(stop_required=True, stop_reason=reason,
                instruction=prompts.phrase("stop_required"))
    return ToolMessage(content=json.dumps(body, ensure_ascii=False, default=str),
                       tool_call_id=message.tool_call_id, id=message.id)
