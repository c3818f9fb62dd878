"""model: the agent's model call gate (docs/design.md §6) — check, reserve, call once, record, check.

Every investigation ends with a final draft turn: when collection is over (saturation, a
budget, STOP_REQUIRED) or another investigating turn would leave no room for the draft and its
judge, the agent is asked once more, tools bound but none offered, to write its draft from what
it has.

The agent's call is never retried by the harness. Budget, deadline and cancel become stop data;
a failed call records zero tokens and stops the run with its failure class. One path for both
agent protocols: under ``json`` the seam's model turns envelopes into tool calls and drafts.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from diagnosis_harness.control.budget import Budget, BudgetExhausted
from diagnosis_harness.control.contracts import (
    CollectionState,
    FailureClass,
    FailureCode,
    Role,
    RunState,
    StopReason,
)
from diagnosis_harness.control.lifecycle import RunAborted
from diagnosis_harness.nodes._model_call import (
    ModelUnreachable,
    call_model,
    offload,
    prompt_message,
)
from diagnosis_harness.nodes._stops import stop, stop_from_abort, stop_from_budget, with_stop_required
from diagnosis_harness.providers.seam import classify_exception
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.tools.registry import (
    cached_specs,
    extra_schemas,
    metrics_description,
    specs_key,
    tool_schemas,
)

_ENVELOPE: dict[str, Any] = {"type": "object", "description": "Progress rule."}
"""The progress envelope as every tool's spec offers it: the agent's system prompt states its
keys and its rule once (issue 40), as this schema is sent with each of the seven or more specs
on every call. What the gate accepts is PreviousObservation's strict model, as ever."""


def agent_tools(ctx: RunContext, metrics: str | None = None) -> list[dict[str, Any]]:
    """The evidence tools as the agent sees them, each with the progress envelope argument.

    Built once per process and data, in the registry's one spec cache (:func:`cached_specs`;
    the schemas are static, and building them is pydantic work the agent's every call paid
    for); each call gets its own copy. ``query_metrics`` is there
    when ``metrics`` (:func:`~diagnosis_harness.tools.registry.metrics_description`, read off the
    event loop: it may ask the server) is given. The run's MCP tools follow the built-in ones.
    """
    hint = ctx.backends.ops_schema()
    specs = cached_specs("agent", specs_key(hint, ctx.dataset, metrics, ctx.settings),
                         lambda: _with_envelope(tool_schemas(hint, ctx.dataset, metrics=metrics,
                                                             settings=ctx.settings)))
    return [*specs, *_with_envelope(extra_schemas(ctx.mcp_tools))] if ctx.mcp_tools else specs


def _with_envelope(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for spec in specs:
        spec["function"]["parameters"].setdefault("properties", {})["previous_observation"] = \
            dict(_ENVELOPE)
    return specs


def _inputs(messages: list[Any]) -> tuple[int, int]:
    """The input tokens of the agent's last call, and how much they grew over the call before."""
    sizes = [int((m.usage_metadata or {}).get("input_tokens") or 0)
             for m in messages if isinstance(m, AIMessage) and m.usage_metadata]
    last = sizes[-1] if sizes else 0
    growth = max(last - sizes[-2], 0) if len(sizes) > 1 else last
    return last, growth


def judge_reserve(ctx: RunContext, final_input: int) -> int:
    """Tokens kept past the final turn's input for the draft's answer and the judge's call.

    The judge reads the cited items of what the agent read: a share of the final turn's input,
    which grows with the investigation. A fixed reserve (``HARNESS_FINAL_RESERVE_TOKENS``) alone
    let a capable model's long investigation spend the tokens its revised draft's judge needed
    (118k of 120k used: the draft was never judged). The reserve is that setting plus half the
    final turn's input.
    """
    return ctx.settings.final_reserve_tokens + max(final_input, 0) // 2


def final_turn(state: DiagnosisState, ctx: RunContext, budget: Budget) -> tuple[str, str] | None:
    """Whether the agent's next turn is its final draft turn: (stop reason, why), else None.

    It is when collection is over (saturated, protocol violations, the tool or byte budget, a
    delivered STOP_REQUIRED), or when another investigating turn would leave no room for the
    final turn and the judge (:meth:`~diagnosis_harness.control.budget.Budget.collection_closed`:
    the next input is estimated as the last one plus its growth). docs/design.md §6.
    """
    if state.get("collection_state") == CollectionState.SATURATED.value:
        reason = state.get("stop_reason") or StopReason.INFORMATION_SATURATED.value
        return reason, f"evidence collection stopped: {reason}"
    last, growth = _inputs(state.get("messages", []))
    closed = budget.collection_closed(last + growth, last + 2 * growth,
                                      judge_reserve(ctx, last + 2 * growth))
    return None if closed is None else (StopReason.BUDGET_LIMIT_REACHED.value, closed)


def _final_messages(messages: list[Any], reason: str, why: str,
                    delivered: bool) -> tuple[list[Any], list[Any]]:
    """The conversation of the final turn, and the messages to write into state for it.

    STOP_REQUIRED goes inside the newest observation (as saturation delivers it), once; a run
    whose last message is no observation gets the final-turn instruction as a user turn.
    """
    if delivered:
        return messages, []
    last = messages[-1] if messages else None
    told = with_stop_required(last, reason) if isinstance(last, ToolMessage) \
        else prompt_message("agent_final", reason=why)
    sent = [*messages[:-1], told] if isinstance(last, ToolMessage) else [*messages, told]
    return sent, [told]


async def model(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask the agent for its next step: tool calls, or the draft (its final turn: no tools)."""
    ctx = run_context(runtime)
    budget = ctx.budget(state.get("usage"))
    final = final_turn(state, ctx, budget)
    try:
        ctx.lifecycle.check_active()
        budget.reserve_model_call()
    except RunAborted as abort:
        return {"stop": stop_from_abort(abort)}
    except BudgetExhausted as exc:
        return {"stop": stop_from_budget(exc), "usage": budget.usage.model_dump()}
    ctx.emitter.emit("status", phase="writing the draft" if final else "investigating")
    messages = list(state.get("messages", []))
    written: list[Any] = []
    ended: dict[str, Any] = {}
    if final is not None:
        reason, why = final
        messages, written = _final_messages(messages, reason, why,
                                            bool(state.get("stop_delivered")))
        # Tool calls of this turn meet the controlled stop at the gate (rows 4 and 5).
        ended = {"collection_state": CollectionState.SATURATED.value, "stop_reason": reason,
                 "stop_delivered": True}
    # The metrics the server has (None without Prometheus): cached per Backends, and read off
    # the event loop, as the first read of a process asks the server (a short, bounded call).
    # Without a Prometheus there is nothing to read: no trip to a worker thread.
    metrics = None if getattr(ctx.backends, "prometheus", None) is None \
        else await offload(metrics_description, ctx.backends)
    timeout = min(ctx.settings.agent_call_timeout_s, ctx.lifecycle.remaining())
    if state.get("model_unreachable"):  # the router could not reach it either: offline from here
        return await _offline_turn(ctx, str(state["model_unreachable"]), messages, budget, written,
                                   ended, metrics, final)
    try:
        # The final turn binds the same specs (a stable, cacheable prompt prefix) but offers
        # none of them: tool_choice "none".
        reply = await asyncio.wait_for(
            call_model(ctx, Role.AGENT, messages, budget, attempt=budget.usage.model_calls,
                       tools=agent_tools(ctx, metrics),
                       tool_choice="none" if final is not None else None),
            timeout)
    except ModelUnreachable as exc:
        try:
            ctx.lifecycle.check_active()
        except RunAborted as abort:
            return {"stop": stop_from_abort(abort), "usage": budget.usage.model_dump()}
        why = f"the model endpoint was unreachable: the agent's call failed ({exc})"[:300]
        return {"model_unreachable": why,
                **await _offline_turn(ctx, why, messages, budget, written, ended, metrics,
                                      final, reserve=True)}
    except Exception as exc:  # noqa: BLE001 — every failure becomes a classified stop
        usage = budget.usage.model_dump()
        try:
            ctx.lifecycle.check_active()
        except RunAborted as abort:
            return {"stop": stop_from_abort(abort), "usage": usage}
        cls = FailureClass.TIMEOUT if isinstance(exc, TimeoutError) else classify_exception(exc)
        message = f"the agent's model call failed ({cls.value}): {type(exc).__name__}: {exc}"[:300]
        if cls is FailureClass.BUDGET_EXHAUSTED:  # e.g. the model's context window is full
            return {"stop": stop("budget", RunState.BUDGET_EXHAUSTED, FailureCode.BUDGET_EXHAUSTED,
                                 message, failure_class=cls.value), "usage": usage}
        if cls is FailureClass.UNKNOWN:
            return {"stop": stop("crash", RunState.FAILED, FailureCode.INTERNAL_FAILURE, message,
                                 failure_class=cls.value), "usage": usage}
        return {"stop": stop("model_failure", RunState.FAILED, FailureCode.INTERNAL_FAILURE,
                             message, failure_class=cls.value), "usage": usage}
    usage = budget.usage.model_dump()
    try:
        ctx.lifecycle.check_active()  # a reply that arrives after cancel or deadline is dropped
    except RunAborted as abort:
        return {"stop": stop_from_abort(abort), "usage": usage}
    return {"messages": [*written, reply], "usage": usage, **ended}


async def _offline_turn(ctx: RunContext, why: str, messages: list[Any],
                        budget: Budget, written: list[Any], ended: dict[str, Any],
                        metrics: str | None, final: tuple[str, str] | None, *,
                        reserve: bool = False) -> dict[str, Any]:
    """The offline investigator's turn in place of an unreachable model (docs/design.md §4).

    Its tool calls go through the gate like any; its draft is not judged or published: the run
    stops, and release publishes FALLBACK / MODEL_UNREACHABLE with the triage digest of the
    facts gathered. A reserved model call is spent on each turn (its tokens are 0).
    """
    from diagnosis_harness.providers.offline import build_offline_model

    try:
        if reserve:  # the failed call spent this turn's reservation: the stand-in's is its own
            budget.reserve_model_call()
        reply = await call_model(ctx, Role.AGENT, messages, budget,
                                 attempt=budget.usage.model_calls,
                                 tools=agent_tools(ctx, metrics),
                                 tool_choice="none" if final is not None else None,
                                 chat=build_offline_model(Role.AGENT, ctx.settings),
                                 stand_in="offline stand-in")
    except BudgetExhausted as exc:
        return {"stop": stop_from_budget(exc), "usage": budget.usage.model_dump()}
    except Exception as exc:  # noqa: BLE001 — the stand-in failed too: the digest of what is known
        return {"stop": stop("model_unreachable", RunState.SUCCESS, None,
                             f"{why}; the offline investigator failed too: {exc}"[:300]),
                "usage": budget.usage.model_dump()}
    usage = budget.usage.model_dump()
    if not reply.tool_calls:  # its draft: unjudged, never published; the digest is the report
        return {"stop": stop("model_unreachable", RunState.SUCCESS, None, why), "usage": usage}
    return {"messages": [*written, reply], "usage": usage, **ended}
