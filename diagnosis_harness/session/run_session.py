"""A run session: what one stream of a harness run is around the graph (docs/design.md §9, §14).

:mod:`diagnosis_harness.graph.builder` is wiring and routing: a plain compiled graph. What makes a
stream of it a *harness run* is here, in one place, through the graph's public API only
(``astream``, ``aget_state``, ``abulk_update_state``):

- the run context: the caller's RunContext, or one a resolver makes from what the stream starts
  from (:func:`~diagnosis_harness.continuations.starts.describe_start`; the served graph and
  ``harness runs approve``, whose callers cannot pass one); nodes never look anywhere else;
- the run's one door, :meth:`RunSession.begin`, for every caller (CLI, SDK, server, eval,
  alerts): a new turn's input is validated there once, the thread's dead runs are swept there
  once, and a new run's row (a turn's or a fork's) is created and claimed there once; ``route``
  only routes;
- durability ``sync`` whenever there is a checkpointer: a store that fails stops the run before
  the next node (FAILED / RUN_PERSISTENCE_FAILED) rather than after a release that published;
- the run's lease on its row, renewed while the stream runs (a paused run is nobody's);
- a new turn supersedes its thread's paused run;
- the run's lineage: the segment this stream begins and how it ends (paused, ended, stopped);
- an end without release that no node settled (a crash between two nodes, the engine's
  recursion limit, a cancel while a checkpoint is written): settled, and its ``failure`` and
  ``done`` yielded as the ``custom`` chunks the caller asked for, before the error is re-raised
  (once the graph's own stream has raised, events a node writes reach no client).

The ``metadata`` event that opens a run's events has one owner: the first node the stream runs
(:func:`diagnosis_harness.graph.builder._run_controlled`), where the client's stream writer is.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.errors import GraphBubbleUp
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel

from diagnosis_harness.continuations.lineage import end_segment, note_segment, supersede_paused
from diagnosis_harness.continuations.starts import StreamStart, describe_start, stream_labels, turn_problem
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.settle import is_cancellation, settle_stale_runs, settle_unreleased
from diagnosis_harness.runstore.worker import Heartbeat, worker_id

ResolveContext = Callable[[RunnableConfig, StreamStart, Any], RunContext]
"""Makes the run context of a stream whose caller could not pass one (the server's API sends JSON).

Called once per stream, before its first node, in a worker thread (it may read and write the
run store), with the stream's config (the server's run id and thread id are in it), what the
stream starts from and the caller's JSON ``context`` (run options to validate, never trusted).
It decides whether the stream continues a harness run or begins one (docs/design.md §14) and
may refuse it (ContinuationRefused)."""

RawStream = Callable[..., AsyncIterator[Any]]
"""The graph's own stream: ``(input, config, *, context, **kwargs)`` as ``Pregel.astream``."""

Sweep = Callable[[RunContext, str], Awaitable[Sequence[object]]]
"""What a new turn does, once, with its thread's runs whose worker died: ``(ctx, thread_id)``;
returns what it ended (empty: nothing was stale).

The default settles them FAILED / RUN_ABANDONED (a served turn cannot continue them in its own
request); the CLI's runner continues them from their checkpoints instead (docs/design.md §9)."""


async def settle_stale(ctx: RunContext, thread_id: str) -> Sequence[object]:
    """The default sweep: the thread's dead runs settled FAILED / RUN_ABANDONED."""
    return await asyncio.to_thread(settle_stale_runs, ctx.store, thread_id, model=ctx.seam.label,
                                   exclude=ctx.run_id)


class RunSession:
    """One stream of a harness run over a compiled graph: context, lease, lineage, settling."""

    def __init__(self, graph: CompiledStateGraph[Any, Any, Any, Any], *,
                 resolve_context: ResolveContext | None = None,
                 raw_stream: RawStream | None = None, sweep: Sweep = settle_stale) -> None:
        self.graph = graph
        self.resolve_context = resolve_context
        self.sweep = sweep
        # Pregel's own stream, not an override's: a SessionGraph's astream is a run session.
        self._raw = raw_stream or functools.partial(Pregel.astream, graph)

    async def open(self, start: StreamStart, config: RunnableConfig, context: Any) -> RunContext:
        """The stream's run context: the caller's RunContext, or the resolver's."""
        if isinstance(context, RunContext):
            return context
        if self.resolve_context is not None:  # a caller's JSON ``context`` never reaches a node
            return await asyncio.to_thread(self.resolve_context, config, start, context)
        raise RuntimeError("no run context: pass context=RunContext(...) or give the run session "
                           "a resolve_context")

    async def stream(self, input: Any, config: RunnableConfig | None = None, *,
                     context: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        """Stream one run as ``Pregel.astream`` does, with its run context and its end."""
        run_config = merge_configs(self.graph.config, config)
        start = await describe_start(self.graph, input, run_config)
        ctx = await self.open(start, run_config, context)
        start, graph_input = await self.begin(ctx, start, run_config)
        if self.graph.checkpointer:
            # Each step's checkpoint is saved before the next node starts, whatever the caller
            # asked (the server's API asks for "async" by default).
            kwargs.pop("checkpoint_during", None)
            kwargs["durability"] = "sync"
        heartbeat = Heartbeat(ctx.store, ctx.run_id, ctx.settings.lease_s).start()
        try:
            await asyncio.to_thread(supersede_paused, ctx, start)
            await asyncio.to_thread(note_segment, ctx, start)
            stream = self._raw(graph_input, merge_configs(config, stream_labels(ctx, start)),
                               context=ctx, **kwargs)
            try:
                async with aclosing(stream):  # type: ignore[type-var]
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
                    if (chunk := custom_chunk(event, kwargs, self.graph.stream_mode)) is not None:
                        yield chunk
                raise
            await asyncio.to_thread(end_segment, ctx, await self._waiting(run_config, ctx))
        finally:
            # Given up if the run paused (no terminal row): a paused run is nobody's.
            await asyncio.shield(asyncio.to_thread(heartbeat.stop))

    async def begin(self, ctx: RunContext, start: StreamStart,
                    config: RunnableConfig) -> tuple[StreamStart, Any]:
        """The run's one door: what the stream starts from and runs with, once the run may start.

        A new turn's input is validated (:func:`turn_problem`, once; a problem the resolver
        found in the run options counts too), its thread's dead runs are swept (once), and the
        row of a new run — a turn's, or a fork's — is created and claimed by this worker (once).
        A refused input still makes a run: ``route`` reads ``ctx.input_problem`` and ends it
        FAILED / INVALID_INPUT with its row and events, and the bad input is stored as the
        question, so the thread's previous question never runs again. A continuation (no input,
        or ``Command(resume=…)``) has its row already and passes straight through. A sweep that
        ended a run (a continued one moved the thread on) has the start read again.
        """
        if start.input_kind == "turn":
            ctx.input_problem = ctx.input_problem or turn_problem(
                start.input, ctx.settings.max_question_bytes)
            graph_input = start.input
            if not (isinstance(graph_input, dict) and set(graph_input) == {"question"}):
                graph_input = {"question": graph_input}
            if start.thread_id and await self.sweep(ctx, start.thread_id):
                start = await describe_start(self.graph, start.input, config)
                # The run's time starts at its door, not before the runs the sweep continued.
                ctx.lifecycle.started_at = ctx.lifecycle.clock()
            await claim_row(ctx, graph_input["question"])
            return start, graph_input
        if ctx.start.get("kind") == "fork":
            await claim_row(ctx, start.values.get("question"))
        return start, start.input

    async def _waiting(self, config: RunnableConfig, ctx: RunContext) -> dict[str, Any] | None:
        """What a run that ended its stream unreleased waits for (a pause), or None."""
        thread_id = (config.get("configurable") or {}).get("thread_id")
        if ctx.emitter.closed or ctx.lifecycle.state.terminal or self.graph.checkpointer is None \
                or thread_id is None:
            return None
        snapshot = await self.graph.aget_state({"configurable": {"thread_id": thread_id}})
        if not snapshot.next:
            return None
        return {"next": list(snapshot.next),
                "waiting": "approval" if snapshot.interrupts else "breakpoint",
                "checkpoint_id": (snapshot.config.get("configurable") or {}).get("checkpoint_id")}

    async def _progress(self, config: RunnableConfig, ctx: RunContext) -> dict[str, Any]:
        """The run's intent and usage as last checkpointed (what a node would have passed)."""
        thread_id = (config.get("configurable") or {}).get("thread_id")
        if self.graph.checkpointer is None or thread_id is None:
            return {}
        try:
            values = (await self.graph.aget_state({"configurable": {"thread_id": thread_id}})).values
        except Exception:  # noqa: BLE001 — a broken checkpointer may be why the run ended
            return {}
        if values.get("run_id") not in (ctx.run_id, ctx.start.get("parent_run_id")):
            return {}  # this run's route never finished (a fork carries its parent's state)
        return {"intent": values.get("intent"), "usage": values.get("usage")}


def _own_row(ctx: RunContext, question: Any) -> None:
    """Create the run row and take its lease for this worker (blocking).

    A process killed at any point after this leaves a row whose lease expires, so the run is
    found and taken over (docs/design.md §9).
    """
    text = question if isinstance(question, str) else repr(question)[:200]
    ctx.store.start_run(ctx.run_id, ctx.thread_id or "", text, ctx.seam.label)
    ctx.store.claim_run(ctx.run_id, worker_id(), ctx.settings.lease_s)


async def claim_row(ctx: RunContext, question: Any) -> None:
    """:func:`_own_row` in a thread; a cancel meanwhile still leaves the row settled CANCELLED.

    A cancel does not stop the thread: the row it is writing would be left RUNNING (and later
    taken over as if its worker had died). So the write is waited for, then settled.
    """
    owning = asyncio.ensure_future(asyncio.to_thread(_own_row, ctx, question))
    try:
        await asyncio.shield(owning)
    except asyncio.CancelledError as cancel:
        try:
            await owning
        except Exception:  # noqa: BLE001 — no row was made: nothing to settle
            raise cancel from None
        await settle_unreleased(ctx, cancel)
        raise


def custom_chunk(event: dict[str, Any], kwargs: dict[str, Any], default_mode: Any) -> Any:
    """``event`` shaped as ``Pregel.astream`` yields a ``custom`` chunk for these arguments, or None.

    The shapes are LangGraph's documented stream output: a bare chunk for one mode, ``(mode,
    chunk)`` for a list of modes, the namespace first with ``subgraphs``, a dict with ``v2``.
    """
    mode = kwargs.get("stream_mode") or default_mode
    modes = [mode] if isinstance(mode, str) else list(mode)
    if "custom" not in modes:
        return None
    if kwargs.get("version") == "v2":
        return {"type": "custom", "ns": (), "data": event}
    if kwargs.get("subgraphs"):
        return ((), "custom", event) if isinstance(mode, list) else ((), event)
    return ("custom", event) if isinstance(mode, list) else event
