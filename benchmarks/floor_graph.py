"""The floor for :mod:`benchmarks.served`: a trivial graph of 21 super-steps, served the same way.

Each node adds one to a counter and nothing else, so what a served run of it costs is the
server's own per-run and per-step work (queueing, streaming, checkpointing each super-step) —
what no harness change can remove. 21 steps: about as many as an offline demo diagnosis takes.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

STEPS = 21


class FloorState(TypedDict, total=False):
    """The input a diagnosis takes (so one client call serves both) and the step counter."""

    question: str
    count: int


def _step(state: FloorState) -> FloorState:
    return {"count": state.get("count", 0) + 1}


def make_graph():  # type: ignore[no-untyped-def]  # a compiled graph, as langgraph.json expects
    """The graph the server loads (no checkpointer: the server brings its own, as for diagnosis)."""
    builder = StateGraph(FloorState)
    names = [f"step_{i}" for i in range(STEPS)]
    for name in names:
        builder.add_node(name, _step)
    builder.add_edge(START, names[0])
    for first, then in zip(names, names[1:], strict=False):
        builder.add_edge(first, then)
    builder.add_edge(names[-1], END)
    return builder.compile()
