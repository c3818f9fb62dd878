"""The wiring: the diagnosis StateGraph of docs/design.md §2, one node per file in ``nodes/``.

:func:`build_graph` is the one factory: the CLI runner compiles it with a SQLite saver, the
serving adapter with the JSON context schema of the server's API and a ``resolve_context``
that makes each server run's context (the dev server brings its own checkpointer). No node has
a retry policy: every attempt is the harness's own, budgeted and recorded. A run that ends
without release still ends explainably, wherever it ends: inside a node (every node is wrapped
by :func:`_run_controlled`) or between two nodes (:class:`DiagnosisGraph`'s stream); both settle
it with :func:`diagnosis_harness.runstore.settle.settle_unreleased`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar, cast

from diagnosis_harness.graph.continuation import (
    StreamStart,
    describe_start,
    stream_labels,
)
from diagnosis_harness.graph.edits import awaiting_approval, edit_problem
from diagnosis_harness.graph.lineage import end_segment, note_segment, record_edit, supersede_paused
from diagnosis_harness.graph.routing import (
    after_draft_parse,
    after_evidence_guard,
    after_model,
    after_repair,
    after_route,
    after_tool_gate,
)
from diagnosis_harness.nodes.draft_parse import draft_parse
from diagnosis_harness.nodes.evidence_guard import evidence_guard
from diagnosis_harness.nodes.evidence_repair import evidence_repair
from diagnosis_harness.nodes.model import model
from diagnosis_harness.nodes.release import release
from diagnosis_harness.nodes.route import route
from diagnosis_harness.nodes.saturation_check import saturation_check
from diagnosis_harness.nodes.semantic_guard import semantic_guard
from diagnosis_harness.nodes.tool_gate import tool_gate
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.errors import GraphBubbleUp, InvalidUpdateError
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateUpdate

from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState, InputState, OutputState
from diagnosis_harness.runstore.lineage import LineageRecords
from diagnosis_harness.runstore.settle import is_cancellation, settle_stale_runs, settle_unreleased
from diagnosis_harness.runstore.worker import Heartbeat

_MISFIT = (TypeError, KeyError, AttributeError, IndexError)
"""What a routing function raises on an edited state that passed the type checks but that the
graph cannot go on from: the edit is refused (HTTP 400), never a server error."""

Node = TypeVar("Node", bound=Callable[..., Awaitable[dict[str, Any]]])


ResolveContext = Callable[[RunnableConfig, StreamStart, Any], RunContext]
"""Makes the run context of a stream whose caller could not pass one (the server's API sends JSON).

Called once per stream, before its first node, in a worker thread (it may read and write the
run store), with the stream's config (the server's run id and thread id are in it), what the
stream starts from (:func:`diagnosis_harness.graph.continuation.describe_start`) and the caller's JSON
``context`` (run options to validate, never trusted). It decides whether the stream continues
a harness run or begins one (docs/design.md §14) and may refuse it (ContinuationRefused)."""


def _run_controlled(fn: Node) -> Node:
    """Wrap a node so that a run ending inside it is still recorded and never half-published.

    Cancellation (``runs.cancel`` on the dev server, a cancelled CLI task) reaches the running
    node as ``CancelledError``: the run becomes CANCELLED, the client gets nothing more (no
    ``content``, no ``done``) and the run row says CANCELLED. An unclassified crash becomes
    FAILED / INTERNAL_FAILURE with a ``failure`` and ``done`` event. Both re-raise, so the caller
    (server or CLI runner) still sees how the run ended. Settled here rather than by the graph's
    stream because here the node's state (intent, usage so far) is at hand.
    """

    @functools.wraps(fn)
    async def node(state: DiagnosisState, runtime: Any) -> dict[str, Any]:
        ctx = run_context(runtime)
        if not ctx.emitter.events:  # a run forked past ``route`` opens its stream here
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


def _lifecycle(state: DiagnosisState, runtime: Any) -> RunLifecycle | None:
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


def builder(*, context_schema: type[Any] = RunContext) -> StateGraph:
    """The uncompiled graph: nodes, and the conditional edges that keep every path visible.

    ``context_schema`` is what a caller may pass as ``context``: a RunContext in-process, the
    API's JSON schema on the server (whose run contexts the graph resolves itself).
    """
    g: StateGraph[Any, Any, Any, Any] = StateGraph(
        DiagnosisState, context_schema=context_schema, input_schema=InputState,
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


class DiagnosisGraph(CompiledStateGraph):  # type: ignore[type-arg]
    """The compiled graph, whose stream gives every run its context and settles every end.

    Before the run: the caller's RunContext, or one made by ``resolve_context`` (the served
    graph), becomes the run's ``runtime.context``; nodes never look anywhere else.
    After an end without release that no node settled (a crash between two nodes, the engine's
    recursion limit, a cancel while a checkpoint is written): :func:`settle_unreleased`, and its
    ``failure`` and ``done`` are yielded as ``custom`` chunks before the error is re-raised.
    They must be yielded here: once the graph's own stream has raised, events a node or a
    callback writes reach no client. The dev server streams runs through this method too.
    """

    def __init__(self, *, resolve_context: ResolveContext | None = None,
                 edit_log: LineageRecords | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Attributes, so that Pregel.copy() passes them back.
        self.resolve_context = resolve_context
        self.edit_log = edit_log
        """Where state edits are recorded (the served graph's run store), if anywhere."""

    async def astream(self, input: Any, config: RunnableConfig | None = None, *,
                      context: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        """Stream one run as :meth:`Pregel.astream` does, with its run context and its end."""
        run_config = merge_configs(self.config, config)
        start = await describe_start(self, input, run_config)
        if isinstance(context, RunContext):
            ctx = context
            ctx.input_problem = ctx.input_problem or start.input_problem
        elif self.resolve_context is not None:  # a caller's JSON ``context`` never reaches a node
            ctx = await asyncio.to_thread(self.resolve_context, run_config, start, context)
        else:
            raise RuntimeError("no run context: pass context=RunContext(...) or build the graph "
                               "with resolve_context")
        if self.checkpointer:
            # Each step's checkpoint is saved before the next node starts, whatever the caller
            # asked: a store that fails stops the run there (FAILED / RUN_PERSISTENCE_FAILED)
            # rather than after a release that already published.
            kwargs.pop("checkpoint_during", None)
            kwargs["durability"] = "sync"
        # The run's lease on its row, renewed while it executes (docs/design.md §9).
        heartbeat = Heartbeat(ctx.store, ctx.run_id, ctx.settings.lease_s).start()
        try:
            thread_id = (run_config.get("configurable") or {}).get("thread_id")
            if input is not None and thread_id:  # a new turn: runs its thread's dead workers left
                await asyncio.to_thread(settle_stale_runs, ctx.store, str(thread_id),
                                        model=ctx.seam.label, exclude=ctx.run_id)
            await asyncio.to_thread(supersede_paused, ctx, start)
            await asyncio.to_thread(note_segment, ctx, start)
            config = merge_configs(config, stream_labels(ctx, start))
            stream = super().astream(start.input, config, context=ctx,  # type: ignore[call-overload]
                                     **kwargs)
            try:
                async with aclosing(stream):
                    async for chunk in stream:
                        yield chunk
            except BaseException as exc:
                if isinstance(exc, GraphBubbleUp):
                    raise
                if is_cancellation(exc):
                    # Nothing may be awaited before the settle (a second cancel would skip it),
                    # and nothing is published after a cancel.
                    await settle_unreleased(ctx, exc)
                    await asyncio.shield(asyncio.to_thread(end_segment, ctx, None))
                    raise
                ended = await settle_unreleased(ctx, exc, **await self._progress(run_config, ctx))
                await asyncio.shield(asyncio.to_thread(end_segment, ctx, None))
                for event in ended:
                    if (chunk := _custom_chunk(event, kwargs, self.stream_mode)) is not None:
                        yield chunk
                raise
            await asyncio.to_thread(end_segment, ctx, await self._waiting(run_config, ctx))
        finally:
            # Given up if the run paused (no terminal row): a paused run is nobody's.
            await asyncio.shield(asyncio.to_thread(heartbeat.stop))

    async def _waiting(self, config: RunnableConfig, ctx: RunContext) -> dict[str, Any] | None:
        """What a run that ended its stream unreleased waits for (a pause), or None."""
        thread_id = (config.get("configurable") or {}).get("thread_id")
        if ctx.emitter.closed or ctx.lifecycle.state.terminal or self.checkpointer is None \
                or thread_id is None:
            return None
        snapshot = await self.aget_state({"configurable": {"thread_id": thread_id}})
        if not snapshot.next:
            return None
        return {"next": list(snapshot.next),
                "waiting": "approval" if snapshot.interrupts else "breakpoint",
                "checkpoint_id": (snapshot.config.get("configurable") or {}).get("checkpoint_id")}

    async def abulk_update_state(self, config: RunnableConfig, supersteps: Any) -> RunnableConfig:
        """Edit the thread's state (Studio, ``threads.update_state``): checked, then recorded.

        docs/design.md §14: run control cannot be edited; every edit is recorded with its keys,
        the node it was made as, and who made it, so the run that goes on from it says so.
        """
        self._check_edits(supersteps)
        if self.checkpointer is not None:
            snapshot = await self.aget_state(config)
            self._check_pending(snapshot.interrupts)
        try:
            done = await super().abulk_update_state(config, supersteps)
        except _MISFIT as exc:
            raise InvalidUpdateError(f"state edit refused: the graph cannot go on from the edited "
                                     f"state ({type(exc).__name__}: {exc})") from exc
        if self.edit_log is not None:
            await asyncio.to_thread(record_edit, self.edit_log, config, done, supersteps)
        return done

    async def awrite_released(self, config: RunnableConfig, released: dict[str, Any]) -> RunnableConfig:
        """The harness's own write of release's update as the thread's final checkpoint.

        Not a client's edit: it is neither checked nor recorded as one (the runner retries the
        final checkpoint with it when LangGraph could not write it, docs/design.md §9).
        """
        return await super().abulk_update_state(config, [[StateUpdate(released, "release")]])

    def bulk_update_state(self, config: RunnableConfig, supersteps: Any) -> RunnableConfig:
        """The synchronous form of :meth:`abulk_update_state`, with the same checks."""
        self._check_edits(supersteps)
        if self.checkpointer is not None:
            self._check_pending(self.get_state(config).interrupts)
        try:
            done = super().bulk_update_state(config, supersteps)
        except _MISFIT as exc:
            raise InvalidUpdateError(f"state edit refused: the graph cannot go on from the edited "
                                     f"state ({type(exc).__name__}: {exc})") from exc
        if self.edit_log is not None:
            record_edit(self.edit_log, config, done, supersteps)
        return done

    @staticmethod
    def _check_edits(supersteps: Any) -> None:
        for superstep in supersteps:
            for update in superstep:
                if (problem := edit_problem(update.values)) is not None:
                    raise InvalidUpdateError(f"state edit refused: {problem}")

    @staticmethod
    def _check_pending(interrupts: Any) -> None:
        """A run that awaits approval can only be decided (docs/design.md §14)."""
        if awaiting_approval(interrupts):
            raise InvalidUpdateError("state edit refused: the run awaits approval and can only be "
                                     "decided: approve or reject it (Command(resume=…), "
                                     "harness runs approve), or cancel it")

    async def _progress(self, config: RunnableConfig, ctx: RunContext) -> dict[str, Any]:
        """The run's intent and usage as last checkpointed (what a node would have passed)."""
        thread_id = (config.get("configurable") or {}).get("thread_id")
        if self.checkpointer is None or thread_id is None:
            return {}
        try:
            values = (await self.aget_state({"configurable": {"thread_id": thread_id}})).values
        except Exception:  # noqa: BLE001 — a broken checkpointer may be why the run ended
            return {}
        if values.get("run_id") not in (ctx.run_id, ctx.start.get("parent_run_id")):
            return {}  # this run's route never finished (a fork carries its parent's state)
        return {"intent": values.get("intent"), "usage": values.get("usage")}


def _custom_chunk(event: dict[str, Any], kwargs: dict[str, Any], default_mode: Any) -> Any:
    """``event`` shaped as Pregel.astream yields a ``custom`` chunk for these arguments, or None."""
    mode = kwargs.get("stream_mode") or default_mode
    modes = [mode] if isinstance(mode, str) else list(mode)
    if "custom" not in modes:
        return None
    if kwargs.get("version") == "v2":
        return {"type": "custom", "ns": (), "data": event}
    if kwargs.get("subgraphs"):
        return ((), "custom", event) if isinstance(mode, list) else ((), event)
    return ("custom", event) if isinstance(mode, list) else event


_compiled: dict[tuple[Any, ...], DiagnosisGraph] = {}
"""Graphs compiled without checkpointer or resolver, by context schema and node functions."""


def build_graph(checkpointer: Any = None, *, context_schema: type[Any] = RunContext,
                resolve_context: ResolveContext | None = None,
                edit_log: LineageRecords | None = None) -> DiagnosisGraph:
    """The graph, optionally with a checkpointer, a run-context resolver and an edit log.

    Compiled once per process (per context schema): each call gets a copy of that graph with
    its own checkpointer, resolver and edit log, as ``Pregel.copy`` makes one (a compile cost
    every run 15–30 ms). The node functions are part of the key, so a test that replaces one
    in this module gets a graph with its replacement.
    """
    key = (context_schema, *(globals()[name] for name in _NODE_NAMES))
    base = _compiled.get(key)
    if base is None:
        compiled = builder(context_schema=context_schema).compile(name="diagnosis")
        # Re-made as the subclass the way Pregel.copy() re-makes a graph: from its attributes.
        attrs = {k: v for k, v in compiled.__dict__.items() if k != "__orig_class__"}
        base = _compiled[key] = DiagnosisGraph(**attrs)
    return base.copy(update={"checkpointer": checkpointer, "resolve_context": resolve_context,
                             "edit_log": edit_log})


_NODE_NAMES = ("route", "model", "tool_gate", "saturation_check", "draft_parse", "evidence_guard",
               "evidence_repair", "semantic_guard", "release", "after_route", "after_model",
               "after_tool_gate", "after_draft_parse", "after_evidence_guard", "after_repair")


graph = build_graph()
"""The graph without checkpointer or resolver: for drawing (tests, README) and scripts."""
