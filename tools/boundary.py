"""The tool boundary (docs/design.md §7 step 5): the only way the graph runs an evidence tool.

``execute_tool`` reserves budget, validates, executes, measures and caps bytes, numbers facts
``E<k>.<i>`` and projects two views: the model's observation (content only) and the control
view (statuses, counts, bytes) that stays in harness state (both made by
:mod:`diagnosis_harness.tools.projection`). Whatever goes wrong inside becomes
an ERROR record and an error observation with no evidence ids; nothing is raised.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from diagnosis_harness.control.budget import Budget, BudgetExhausted
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.bounded import run_bounded
from diagnosis_harness.tools.projection import (
    CONTROL_KEYS,
    CallView,
    ProjectionError,
    ToolOutcome,
    render_observation,
    size_of,
)
from diagnosis_harness.tools.registry import (
    OPTIONAL_TOOLS,
    TOOL_ARG_MODELS,
    TOOL_DESCRIPTIONS,
    TOOLS,
    ToolSpec,
    call_settings,
    enabled_tools,
    find_tool,
    tool_schemas,
)
from diagnosis_harness.tools.results import ToolInputError, clip

__all__ = [
    "CONTROL_KEYS", "TOOL_ARG_MODELS", "TOOL_DESCRIPTIONS", "Backends", "ToolOutcome",
    "execute_tool", "render_observation", "scope_of", "tool_schemas",
]

logger = logging.getLogger(__name__)

def scope_of(name: str, args: object, settings: Settings,
             extra_tools: Mapping[str, ToolSpec] | None = None) -> dict[str, Any] | None:
    """The normalised scope a call would have (for the gate's duplicate check); None if invalid."""
    spec = find_tool(name, extra_tools)
    if spec is None or not isinstance(args, dict):
        return None
    try:
        return spec.args_model.model_validate(args).scope(settings)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 — hostile arguments make no scope; the boundary says why
        return None


def execute_tool(
    name: str,
    args: dict[str, Any],
    *,
    tool_call_id: str,
    backends: Backends,
    budget: Budget,
    settings: Settings,
    ready_count: int,
    stop_required: str | None = None,
    extra_tools: Mapping[str, ToolSpec] | None = None,
    timeout_s: float | None = None,
) -> ToolOutcome:
    """Run one evidence tool call through the boundary; never raises for tool-side failures.

    ``args`` are the business arguments only; ``ready_count`` is how many READY records the
    run already has (a READY result here gets k = ready_count + 1); ``stop_required`` is the
    reason to show the model when the harness asks it to stop collecting. ``extra_tools`` are
    the run's MCP tools (one path for every tool: same checks, same records); ``timeout_s`` is
    the most the call may take (the run's remaining deadline), capping the tools' own limits.
    """
    call = CallView(name, args, tool_call_id, stop_required)
    try:
        budget.reserve_tool_call()
    except BudgetExhausted as exc:
        return call.error("budget_exhausted", f"{exc}; write your answer with the evidence so far")
    spec = find_tool(name, extra_tools)
    enabled = enabled_tools(backends)
    if spec is None or (name in OPTIONAL_TOOLS and name not in enabled):
        return call.error("unknown_tool", f"unknown tool {clip(name, 100)[0]!r}; available: "
                          f"{', '.join([*TOOLS, *sorted(enabled - set(TOOLS)), *(extra_tools or {})])}")
    try:
        params: BaseModel = spec.args_model.model_validate(args)
        call.scope = params.scope(settings)  # type: ignore[attr-defined]
    except ValidationError as exc:
        return call.error("invalid_arguments", _describe(exc))
    except Exception as exc:  # a hostile argument must reach the model as an error, not a crash
        _log_handled(name, "arguments", exc)
        return call.error("invalid_arguments", f"{type(exc).__name__}: {exc}")
    if timeout_s is not None:  # no statement may outlive the run's deadline
        settings = settings.model_copy(
            update={"sql_timeout_s": max(min(settings.sql_timeout_s, timeout_s), 0.001)})
    try:
        bounded = call_settings(settings, timeout_s)
        if timeout_s is None:
            result = spec.run(backends, bounded, **params.model_dump())
        else:
            result = run_bounded(lambda: spec.run(backends, bounded, **params.model_dump()),
                                 backends, timeout_s, name)
    except ValidationError as exc:
        return call.error("invalid_arguments", _describe(exc))
    except ToolInputError as exc:
        return call.error(exc.code, str(exc))
    except TimeoutError as exc:
        return call.error("timeout", str(exc))
    except Exception as exc:  # a backend fault must reach the model as an error, not a crash
        _log_handled(name, "call", exc)
        return call.error("backend_error", f"{type(exc).__name__}: {exc}")
    try:
        raw_bytes = size_of({"scope": result.scope,
                           "items": [[i.kind, i.text, i.data] for i in result.items]})
    except (TypeError, ValueError) as exc:
        return call.error("projection_failed", f"result is not serialisable: {exc}")
    call.raw_bytes = raw_bytes
    if raw_bytes > settings.max_tool_result_bytes:
        return call.error("result_too_large", f"result of {raw_bytes} bytes exceeds the "
                          f"{settings.max_tool_result_bytes}-byte limit; narrow the query")
    try:
        budget.reserve_bytes(raw_bytes)
    except BudgetExhausted as exc:
        return call.error("budget_exhausted", f"{exc}; write your answer with the evidence so far")
    try:
        return call.ready(result, ready_count + 1, settings.max_observation_bytes)
    except ProjectionError as exc:
        return call.error("projection_failed", str(exc))
    except Exception as exc:
        _log_handled(name, "projection", exc)
        return call.error("projection_failed", f"{type(exc).__name__}: {exc}")


def _log_handled(name: str, stage: str, exc: Exception) -> None:
    """A handled tool error is one log line; the traceback only at debug level."""
    logger.warning("tool %s: %s failed: %s: %s", name, stage, type(exc).__name__,
                   clip(str(exc), 300)[0])
    logger.debug("tool %s: %s failure", name, stage, exc_info=exc)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    return "invalid arguments: " + "; ".join(parts)
