"""The wiring: the diagnosis StateGraph of docs/design.md §2, one node per file in ``nodes/``.

:func:`build_graph` returns a plain compiled graph: nodes, edges and routing. What makes a stream
of it a harness run (its context, lease, lineage, settling an end between two nodes) is the run
session's (:mod:`diagnosis_harness.session.run_session`). No node has a retry policy: every
attempt is the harness's own, budgeted and recorded. A run that ends inside a node without
release still ends explainably: every node is wrapped by :func:`_run_controlled`, which settles
it with :func:`diagnosis_harness.runstore.settle.settle_unreleased`; the first node a stream runs
opens the run's events with its ``metadata`` event (its one owner).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Hashable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from langchain_core.runnables import RunnableLambda
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.graph.routing import (
    after_draft_parse,
    after_evidence_guard,
    after_model,
    after_repair,
    after_revise,
    after_route,
    after_semantic_guard,
    after_tool_gate,
)
from diagnosis_harness.nodes.draft_parse import draft_parse
from diagnosis_harness.nodes.evidence_guard import evidence_guard
from diagnosis_harness.nodes.evidence_repair import evidence_repair
from diagnosis_harness.nodes.model import model
from diagnosis_harness.nodes.release import release
from diagnosis_harness.nodes.revise import revise
from diagnosis_harness.nodes.route import route
from diagnosis_harness.nodes.saturation_check import saturation_check
from diagnosis_harness.nodes.semantic_guard import semantic_guard
from diagnosis_harness.nodes.tool_gate import tool_gate
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState, InputState, OutputState
from diagnosis_harness.runstore.settle import settle_unreleased

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.runtime import Runtime

Node = TypeVar("Node", bound=Callable[..., Awaitable[dict[str, Any]]])
Route = TypeVar("Route", bound=Callable[[DiagnosisState], str])


def _on_loop(route: Route) -> Route:
    """A routing function as LangGraph calls it on the event loop (same name, types and edges).

    LangGraph runs a plain function of a conditional edge through a worker thread
    (``run_in_executor``) when the graph is streamed: a future, a thread hand-off and a loop
    wake-up, ~0.1 ms of CPU, for a pure function of the state that takes microseconds, ~23 times
    a run. The coroutine calls it directly; its return annotation (the drawn edges) and input
    type are the function's, through ``functools.wraps``. The function itself stays the sync
    form: a synchronous ``update_state(…, as_node=…)`` routes through it (a coroutine alone
    cannot be called there).
    """
    @functools.wraps(route)
    async def on_loop(state: DiagnosisState) -> str:
        return route(state)

    # Public API only (tests/test_public_langgraph.py): LangGraph's own RunnableCallable would
    # cost ~4 times less per call, but it is a private module that may change in any release.
    return cast(Route, RunnableLambda(route, afunc=on_loop, name=route.__name__))


def _run_controlled(fn: Node) -> Node:
    """Wrap a node so that a run ending inside it is still recorded and never half-published.

    Cancellation (``runs.cancel`` on the dev server, a cancelled CLI task) reaches the running
    node as ``CancelledError``: the run becomes CANCELLED, the client gets nothing more (no
    ``content``, no ``done``) and the run row says CANCELLED. An unclassified crash becomes
    FAILED / INTERNAL_FAILURE with a ``failure`` and ``done`` event. Both re-raise, so the caller
    (server or CLI runner) still sees how the run ended. Settled here rather than by the run
    session because here the node's state (intent, usage so far) is at hand.
    """

    @functools.wraps(fn)
    async def node(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = run_context(runtime)
        if not ctx.emitter.started:  # the stream's first node opens the run's events
            ctx.emitter.emit("metadata", run_id=ctx.run_id, thread_id=ctx.thread_id,
                             model=ctx.seam.label)
        lifecycle = _lifecycle(state, runtime)
        try:
            update = await fn(state, runtime)
            if lifecycle is not None and isinstance(update, dict):
                # Run time, checkpointed with the node's usage: a resumed run goes on from it.
                update = {**update, "elapsed_s": round(lifecycle.elapsed(), 3)}
            return update
        except GraphBubbleUp:
            raise  # LangGraph's control flow (an interrupt), not an end of the run
        except BaseException as exc:
            await settle_unreleased(run_context(runtime), exc, intent=state.get("intent"),
                                    usage=state.get("usage"))
            raise

    return cast(Node, node)


def _lifecycle(state: DiagnosisState, runtime: Runtime[RunContext]) -> RunLifecycle | None:
    """The run's lifecycle, carrying the run time its checkpoint says was spent already.

    The first node of a run in this process hands over the checkpoint's ``elapsed_s`` if the
    checkpoint is this run's (a resumed run), else 0 (a new run: the thread's last turn).
    """
    ctx = getattr(runtime, "context", None)
    if not isinstance(ctx, RunContext):
        return None  # the node itself says what is missing
    lifecycle = ctx.lifecycle
    if not lifecycle.carried:
        lifecycle.carry(state.get("elapsed_s") if state.get("run_id") == ctx.run_id else 0.0)
    return lifecycle


NODES: Mapping[str, Callable[..., Awaitable[dict[str, Any]]]] = MappingProxyType({
    "route": route, "model": model, "tool_gate": tool_gate, "saturation_check": saturation_check,
    "draft_parse": draft_parse, "evidence_guard": evidence_guard,
    "evidence_repair": evidence_repair, "semantic_guard": semantic_guard, "revise": revise,
    "release": release})
"""The graph's nodes by name: what :func:`build_graph`'s ``nodes`` may replace."""

NodeFunctions = Mapping[str, Callable[..., Awaitable[dict[str, Any]]]]
"""Node functions by node name (a subset of :data:`NODES`' names)."""


def builder(*, context_schema: type[Any] = RunContext,
            nodes: NodeFunctions | None = None) -> StateGraph:
    """The uncompiled graph: nodes, and the conditional edges that keep every path visible.

    ``context_schema`` is what a caller may pass as ``context``: a RunContext in-process, the
    API's JSON schema on the server (whose run contexts the run session resolves). ``nodes``
    replaces node functions by name (a test's crashing node); the wiring stays the same.
    """
    unknown = sorted(set(nodes or {}) - set(NODES))
    if unknown:
        raise ValueError(f"no node named {', '.join(unknown)}: the graph's nodes are "
                         f"{', '.join(NODES)}")
    fn = {**NODES, **(nodes or {})}
    g: StateGraph[Any, Any, Any, Any] = StateGraph(
        DiagnosisState, context_schema=context_schema, input_schema=InputState,
        output_schema=OutputState)
    for name in NODES:
        g.add_node(name, _run_controlled(fn[name]))
    g.add_edge(START, "route")
    g.add_conditional_edges("route", _on_loop(after_route))
    g.add_conditional_edges("model", _on_loop(after_model))
    g.add_conditional_edges("tool_gate", _on_loop(after_tool_gate))
    g.add_edge("saturation_check", "model")
    g.add_conditional_edges("draft_parse", _on_loop(after_draft_parse))
    g.add_conditional_edges("evidence_guard", _on_loop(after_evidence_guard))
    g.add_conditional_edges("evidence_repair", _on_loop(after_repair))
    g.add_conditional_edges("semantic_guard", _on_loop(after_semantic_guard))
    g.add_conditional_edges("revise", _on_loop(after_revise))
    g.add_edge("release", END)
    return g


Graph = CompiledStateGraph[Any, Any, Any, Any]
"""The compiled diagnosis graph (a plain LangGraph compiled graph)."""


def build_graph(checkpointer: BaseCheckpointSaver | None = None, *,
                context_schema: type[Any] = RunContext,
                nodes: NodeFunctions | None = None) -> Graph:
    """The compiled graph, optionally with a checkpointer and with some node functions replaced.

    With the graph's own nodes it is compiled once per process (per context schema) and each
    call gets ``Pregel.copy`` of that graph with its own checkpointer (a compile costs every run
    15–30 ms). ``nodes`` (by name, :data:`NODES`) compiles a graph of its own with those
    functions: the seam a test uses to make a node crash, with the same wiring.
    """
    if nodes:
        return builder(context_schema=context_schema, nodes=nodes).compile(
            checkpointer=checkpointer, name="diagnosis")
    return compiled_graph(context_schema).copy(update={"checkpointer": checkpointer})


def compiled_graph(context_schema: type[Any] = RunContext) -> Graph:
    """The process's compiled graph for ``context_schema`` (no checkpointer): copy it to use it."""
    return _compiled(cast("Hashable", context_schema))  # mypy does not hold a class Hashable


@functools.cache
def _compiled(context_schema: Any) -> Graph:
    return builder(context_schema=context_schema).compile(name="diagnosis")


graph = build_graph()
"""The graph without checkpointer: for drawing (tests, README) and scripts."""
