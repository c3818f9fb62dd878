"""The wiring: the diagnosis StateGraph of docs/design.md §2, one node per file in ``nodes/``.

``graph`` (compiled without a checkpointer) is what ``langgraph.json`` exposes: the dev server
brings its own. The CLI and scripted runs compile :func:`build_graph` with a SQLite saver.
No node has a retry policy: every attempt is the harness's own, budgeted and recorded.
Every node is wrapped by :func:`_run_controlled`, so a run that ends *inside* a node (a
cancellation or an unclassified crash) still ends explainably; names and edges are unchanged.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from langgraph.graph import END, START, StateGraph

from diagnosis.context import RunContext, run_context
from diagnosis.state import DiagnosisState, InputState, OutputState
from graph.routing import (
    after_draft_parse,
    after_evidence_guard,
    after_model,
    after_repair,
    after_route,
    after_tool_gate,
)
from harness.contracts import RunState
from nodes.draft_parse import draft_parse
from nodes.evidence_guard import evidence_guard
from nodes.evidence_repair import evidence_repair
from nodes.model import model
from nodes.release import release
from nodes.route import route
from nodes.saturation_check import saturation_check
from nodes.semantic_guard import semantic_guard
from nodes.tool_gate import tool_gate

Node = TypeVar("Node", bound=Callable[..., Awaitable[dict[str, Any]]])


def _run_controlled(fn: Node) -> Node:
    """Wrap a node so that a run ending inside it is still recorded and never half-published.

    Cancellation (``runs.cancel`` on the dev server, a cancelled CLI task) reaches the running
    node as ``CancelledError``: the run becomes CANCELLED, the client gets nothing more (no
    ``content``, no ``done``) and the run row says CANCELLED. An unclassified crash becomes
    FAILED / INTERNAL_FAILURE with a ``failure`` and ``done`` event. Both re-raise, so the caller
    (server or CLI runner) still sees how the run ended.
    """

    @functools.wraps(fn)
    async def node(state: DiagnosisState, runtime: Any) -> dict[str, Any]:
        try:
            return await fn(state, runtime)
        except asyncio.CancelledError:
            ctx = run_context(runtime)
            ctx.emitter.close()  # first: the client is gone, whatever happens next
            if ctx.lifecycle.terminate(RunState.CANCELLED):
                # Shielded: the row must be written although this task is being cancelled.
                await asyncio.shield(asyncio.to_thread(
                    ctx.write_unreleased_row, state.get("intent"), state.get("usage")))
            raise
        except Exception as exc:
            ctx = run_context(runtime)
            if ctx.lifecycle.terminate(RunState.FAILED):
                await asyncio.to_thread(
                    ctx.write_unreleased_row, state.get("intent"), state.get("usage"))
                ctx.publish_unreleased_end(f"internal failure: {type(exc).__name__}")
            raise

    return cast(Node, node)


def builder() -> StateGraph:
    """The uncompiled graph: nodes, and the conditional edges that keep every path visible."""
    g: StateGraph[Any, Any, Any, Any] = StateGraph(
        DiagnosisState, context_schema=RunContext, input_schema=InputState,
        output_schema=OutputState)
    g.add_node("route", _run_controlled(route))
    g.add_node("model", _run_controlled(model))
    g.add_node("tool_gate", _run_controlled(tool_gate))
    g.add_node("saturation_check", _run_controlled(saturation_check))
    g.add_node("draft_parse", _run_controlled(draft_parse))
    g.add_node("evidence_guard", _run_controlled(evidence_guard))
    g.add_node("evidence_repair", _run_controlled(evidence_repair))
    g.add_node("semantic_guard", _run_controlled(semantic_guard))
    g.add_node("release", _run_controlled(release))
    g.add_edge(START, "route")
    g.add_conditional_edges("route", after_route)
    g.add_conditional_edges("model", after_model)
    g.add_conditional_edges("tool_gate", after_tool_gate)
    g.add_edge("saturation_check", "model")
    g.add_conditional_edges("draft_parse", after_draft_parse)
    g.add_conditional_edges("evidence_guard", after_evidence_guard)
    g.add_conditional_edges("evidence_repair", after_repair)
    g.add_edge("semantic_guard", "release")
    g.add_edge("release", END)
    return g


def build_graph(checkpointer: Any = None) -> Any:
    """Compile the graph, optionally with a checkpointer."""
    return builder().compile(checkpointer=checkpointer, name="diagnosis")


graph = build_graph()
"""The exported graph for ``langgraph.json`` (no checkpointer: the server brings one)."""
