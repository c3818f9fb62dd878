"""The wiring: the diagnosis StateGraph of DESIGN §2, one node per file in ``nodes/``.

``graph`` (compiled without a checkpointer) is what ``langgraph.json`` exposes: the dev server
brings its own. The CLI and scripted runs compile :func:`build_graph` with a SQLite saver.
No node has a retry policy: every attempt is the harness's own, budgeted and recorded.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graph.context import RunContext
from graph.routing import (
    after_draft_parse,
    after_evidence_guard,
    after_model,
    after_repair,
    after_route,
    after_tool_gate,
)
from graph.state import DiagnosisState, InputState, OutputState
from nodes.draft_parse import draft_parse
from nodes.evidence_guard import evidence_guard
from nodes.evidence_repair import evidence_repair
from nodes.model import model
from nodes.release import release
from nodes.route import route
from nodes.saturation_check import saturation_check
from nodes.semantic_guard import semantic_guard
from nodes.tool_gate import tool_gate


def builder() -> StateGraph:
    """The uncompiled graph: nodes, and the conditional edges that keep every path visible."""
    g: StateGraph = StateGraph(DiagnosisState, context_schema=RunContext,
                               input_schema=InputState, output_schema=OutputState)
    g.add_node("route", route)
    g.add_node("model", model)
    g.add_node("tool_gate", tool_gate)
    g.add_node("saturation_check", saturation_check)
    g.add_node("draft_parse", draft_parse)
    g.add_node("evidence_guard", evidence_guard)
    g.add_node("evidence_repair", evidence_repair)
    g.add_node("semantic_guard", semantic_guard)
    g.add_node("release", release)
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
