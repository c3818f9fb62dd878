"""model: the agent's model call gate (docs/design.md §6) — check, reserve, call once, record, check.

The agent's call is never retried by the harness. Budget, deadline and cancel become stop data;
a failed call records zero tokens and stops the run with its failure class. One path for both
agent protocols: under ``json`` the seam's model turns envelopes into tool calls and drafts.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.budget import BudgetExhausted
from diagnosis_harness.control.contracts import FailureClass, FailureCode, PreviousObservation, Role, RunState
from diagnosis_harness.control.lifecycle import RunAborted
from diagnosis_harness.nodes._model_call import call_model, offload
from diagnosis_harness.nodes._stops import stop, stop_from_abort, stop_from_budget
from diagnosis_harness.providers.seam import classify_exception
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.tools.registry import (
    extra_schemas,
    metrics_description,
    specs_key,
    tool_schemas,
)

_ENVELOPE_DESCRIPTION = "See the progress rule."
"""Short: the agent's system prompt states the rule in full (sent once per tool, every call)."""
_agent_tools: dict[str, str] = {}
"""The agent's tool specs as JSON text, per data (:func:`diagnosis_harness.tools.registry.specs_key`)."""


def _envelope() -> dict[str, Any]:
    """PreviousObservation's schema, lean: its enum inline, no titles, no ``$defs``."""
    schema = PreviousObservation.model_json_schema()
    gain = schema.pop("$defs")["Gain"]
    props = schema["properties"]
    props["gain"] = {"enum": gain["enum"]}
    for prop in props.values():
        prop.pop("title", None)
        prop.pop("default", None)
    return {"type": "object", "description": _ENVELOPE_DESCRIPTION, "properties": props,
            "required": schema["required"]}


def agent_tools(ctx: RunContext, metrics: str | None = None) -> list[dict[str, Any]]:
    """The evidence tools as the agent sees them, each with the progress envelope argument.

    Built once per process and data (the schemas are static; building them is pydantic work
    the agent's every call paid for); each call gets its own copy. ``query_metrics`` is there
    when ``metrics`` (:func:`~diagnosis_harness.tools.registry.metrics_description`, read off the
    event loop: it may ask the server) is given. The run's MCP tools follow the built-in ones.
    """
    hint = ctx.backends.ops_schema()
    key = specs_key(hint, ctx.dataset, metrics)
    text = _agent_tools.get(key)
    if text is None:
        text = json.dumps(_with_envelope(tool_schemas(hint, ctx.dataset, metrics=metrics)),
                          ensure_ascii=False)
        if len(_agent_tools) >= 64:
            _agent_tools.clear()  # many distinct datasets in one process (tests): start over
        _agent_tools[key] = text
    specs: list[dict[str, Any]] = json.loads(text)
    return [*specs, *_with_envelope(extra_schemas(ctx.mcp_tools))] if ctx.mcp_tools else specs


def _with_envelope(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    envelope = _envelope()
    for spec in specs:
        spec["function"]["parameters"].setdefault("properties", {})["previous_observation"] = envelope
    return specs


async def model(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask the agent for its next step: tool calls, or the final draft."""
    ctx = run_context(runtime)
    budget = ctx.budget(state.get("usage"))
    try:
        ctx.lifecycle.check_active()
        budget.reserve_model_call()
    except RunAborted as abort:
        return {"stop": stop_from_abort(abort)}
    except BudgetExhausted as exc:
        return {"stop": stop_from_budget(exc), "usage": budget.usage.model_dump()}
    ctx.emitter.emit("status", phase="investigating")
    # The metrics the server has (None without Prometheus): cached per Backends, and read off
    # the event loop, as the first read of a process asks the server (a short, bounded call).
    # Without a Prometheus there is nothing to read: no trip to a worker thread.
    metrics = None if getattr(ctx.backends, "prometheus", None) is None \
        else await offload(metrics_description, ctx.backends)
    timeout = min(ctx.settings.agent_call_timeout_s, ctx.lifecycle.remaining())
    try:
        reply = await asyncio.wait_for(
            call_model(ctx, Role.AGENT, state.get("messages", []), budget,
                       attempt=budget.usage.model_calls, tools=agent_tools(ctx, metrics)),
            timeout)
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
    return {"messages": [reply], "usage": usage}
