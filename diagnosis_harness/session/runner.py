"""Run one turn of the graph for the CLI and scripts, and resume a run that was interrupted.

The run context (models, backends, store, lifecycle, event emitter) is made here per run and
passed to the graph as LangGraph ``context``; the checkpointer keeps the thread's state. Every
checkpointer of the harness is opened by :func:`~diagnosis_harness.session.checkpointer.open_checkpointer`
(the CLI's and the server's). Each stream is a :class:`~diagnosis_harness.session.run_session.RunSession`.
A crash outside the nodes' own handling is still recorded (FAILED, INTERNAL_FAILURE) and a
cancellation (task cancel, Ctrl-C, SIGTERM) still leaves a CANCELLED row, never a
half-published run; once release has decided, nothing after it changes the result
(:mod:`diagnosis_harness.session.end`).

A run whose worker died (docs/design.md §9) is continued from its last checkpoint by
:func:`resume_run` (``harness runs resume``) or by the next turn on its thread
(:func:`continue_stale_runs`): same run id and row, its events and usage go on, its finished
tool calls are reused. One that cannot be continued is settled FAILED / RUN_ABANDONED.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import FailureCode, RunState
from diagnosis_harness.control.events import EventEmitter
from diagnosis_harness.control.lifecycle import CancelSignal, RunLifecycle
from diagnosis_harness.graph.builder import NodeFunctions, build_graph
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.lineage import approval_of
from diagnosis_harness.runstore.settle import failure_code_of, settle_abandoned, settle_unreleased
from diagnosis_harness.runstore.worker import is_stale, worker_id
from diagnosis_harness.session.checkpointer import CHECKPOINT_FILE, CheckpointStoreError, open_checkpointer
from diagnosis_harness.session.end import OUTPUT_KEYS, crashed, describe_error, keep_final_checkpoint, output
from diagnosis_harness.session.run_session import RunSession, Sweep, settle_stale
from diagnosis_harness.session.services import Services

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.pregel import Pregel
    from langgraph.types import StateSnapshot

__all__ = ["CHECKPOINT_FILE", "OUTPUT_KEYS", "CheckpointStoreError", "ResumeRefused",
           "continue_stale_runs", "new_context", "open_checkpointer", "resume_run", "run_turn"]

log = logging.getLogger(__name__)

RecordEvent = Callable[[str, int, dict[str, Any]], object]
"""Writes one event of a run to its trace: ``(run_id, seq, event)``."""


class ResumeRefused(Exception):
    """A run that cannot be resumed as asked: unknown, already finished, or running elsewhere."""


def new_context(services: Services, *, thread_id: str | None, run_id: str | None = None,
                cancel: CancelSignal | None = None,
                record_event: RecordEvent | None = None) -> RunContext:
    """A fresh run context: own run id, lifecycle (deadline from now) and event emitter.

    Events go to the run store's trace through ``record_event`` (default: written at once).
    A resumed run's lifecycle takes over the run time its checkpoint says it spent (its first
    node does that, :mod:`diagnosis_harness.graph.builder`).
    """
    rid = run_id or uuid.uuid4().hex
    store = services.store
    record = record_event or store.record_event
    # A run resumed from its checkpoint keeps its event stream: same numbering, same grammar.
    prior = store.events(rid) if run_id else []
    return RunContext(
        run_id=rid, thread_id=thread_id, settings=services.settings, seam=services.seam,
        backends=services.backends, dataset=services.dataset, store=store,
        lifecycle=RunLifecycle(deadline_s=services.settings.deadline_s,
                               cancel_signal=cancel or CancelSignal()),
        emitter=EventEmitter(sink=lambda seq, ev: record(rid, seq, ev), prior=prior),
        mcp_tools=services.mcp_tools,
    )


def _as_input(question: Any) -> Any:
    """The question as the graph takes it: text that is not UTF-8 goes in as bytes.

    A shell passes a byte that is not UTF-8 through as a lone surrogate, which no checkpoint
    can store; as bytes it reaches the run's door, which refuses it (INVALID_INPUT) with a row.
    """
    if not isinstance(question, str):
        return question
    try:
        question.encode("utf-8")
    except UnicodeEncodeError:
        return question.encode("utf-8", "surrogateescape" if all(
            not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in question)
            else "backslashreplace")
    return question


async def run_turn(services: Services, question: Any, *, thread_id: str | None = None,
                   checkpointer: BaseCheckpointSaver | None = None, cancel: CancelSignal | None = None,
                   on_event: Callable[[dict[str, Any]], None] | None = None,
                   run_id: str | None = None,
                   on_state: Callable[[dict[str, Any]], None] | None = None,
                   nodes: NodeFunctions | None = None) -> dict[str, Any]:
    """Run one turn and return the CLI's ``--json`` fields of the run.

    ``nodes`` replaces node functions of the graph by name
    (:func:`~diagnosis_harness.graph.builder.build_graph`): a test's crashing node.

    ``on_state`` gets every full graph state the run streams (``values``), the last one after
    release: the draft and the records behind the published text, for scripted callers that
    assert on them (the returned fields stay exactly the CLI's).

    A run of the thread left running by a dead worker is continued first (or settled, without
    a checkpointer): the run session's sweep, at the run's one door, where its input is
    validated and its row claimed (:meth:`RunSession.begin`). The graph settles a run that
    ends without release (its nodes and its stream); the settle here is the last net for an
    end outside both, and a no-op after theirs.
    """
    thread_id = thread_id or uuid.uuid4().hex
    ctx = new_context(services, thread_id=thread_id, run_id=run_id, cancel=cancel)

    async def continue_stale(_: RunContext, thread: str) -> list[dict[str, Any]]:
        return await continue_stale_runs(services, thread, checkpointer)

    sweep = continue_stale if checkpointer is not None else settle_stale
    return await _drive(services, ctx, {"question": _as_input(question)}, checkpointer, on_event,
                        on_state, sweep=sweep, nodes=nodes)


async def _drive(services: Services, ctx: RunContext, graph_input: Any,
                 checkpointer: BaseCheckpointSaver | None,
                 on_event: Callable[[dict[str, Any]], None] | None,
                 on_state: Callable[[dict[str, Any]], None] | None = None, *,
                 sweep: Sweep = settle_stale,
                 nodes: NodeFunctions | None = None) -> dict[str, Any]:
    """Stream the run (``graph_input`` None: go on from the checkpoint) and report its end."""
    graph = build_graph(checkpointer, nodes=nodes)
    config: RunnableConfig = {"configurable": {"thread_id": ctx.thread_id}}
    final: dict[str, Any] = {}
    released: dict[str, Any] | None = None  # release's own update: the decided result
    try:
        # The run session saves each node's checkpoint before the next node starts, so a
        # worker that dies loses at most the node it was in.
        async for mode, chunk in RunSession(graph, sweep=sweep).stream(
                graph_input, config, context=ctx, stream_mode=["custom", "updates", "values"]):
            if mode == "custom" and on_event is not None:
                on_event(chunk)
            elif mode == "updates" and isinstance(chunk, dict) and "release" in chunk:
                released = chunk["release"]
            elif mode == "values":
                final = chunk
                if on_state is not None:
                    on_state(chunk)
    except (asyncio.CancelledError, KeyboardInterrupt) as exc:
        if released is None:
            await settle_unreleased(ctx, exc)
            raise
        # Too late to cancel: release has decided and published. Report what it published.
        final = await _released(graph, config, ctx, final, released, checkpointer)
    except Exception as exc:  # noqa: BLE001 — an unclassified crash still ends explainably
        if released is None:
            await settle_unreleased(ctx, exc)
            where = Path(services.settings.home) / CHECKPOINT_FILE \
                if isinstance(checkpointer, AsyncSqliteSaver) else None
            final = await crashed(ctx, final, describe_error(exc, where), failure_code_of(exc))
            log.error("run %s failed: %s", ctx.run_id, final["error"])
            log.debug("run %s failed", ctx.run_id, exc_info=exc)
        else:
            final = await _released(graph, config, ctx, final, released, checkpointer)
    else:
        if released is not None:  # a final checkpoint that failed may end the stream silently
            final = await _released(graph, config, ctx, final, released, checkpointer)
    out = output(services, ctx, final)
    if "error" not in out and not ctx.emitter.closed and ctx.lifecycle.state is RunState.RUNNING:
        # Paused (the approval gate, docs/design.md §14): not released yet, nothing decided.
        out.update(paused=True, run_state=RunState.RUNNING.value, release_outcome=None)
        # What approving would publish, so the approver reads it (content stays unpublished).
        approval = approval_of(await asyncio.to_thread(services.store.lineage, ctx.run_id))
        if approval.get("state") == "PENDING":
            out["awaiting_approval"] = {"report": approval.get("report"),
                                        "digest": approval.get("digest")}
    return out


async def _released(graph: Pregel, config: RunnableConfig, ctx: RunContext, final: dict[str, Any],
                    released: dict[str, Any],
                    checkpointer: BaseCheckpointSaver | None) -> dict[str, Any]:
    """The released result, kept whatever failed after release; the final checkpoint retried."""
    kept = {**final, **released} if final.get("run_id") == ctx.run_id else dict(released)
    kept.setdefault("intent", final.get("intent"))
    if checkpointer is not None:
        problem = await keep_final_checkpoint(graph, config, ctx, released)
        if problem:
            log.error("run %s: %s", ctx.run_id, problem)
            kept["checkpoint_error"] = problem
    return kept


async def resume_run(services: Services, run_id: str, *,
                     checkpointer: BaseCheckpointSaver | None,
                     on_event: Callable[[dict[str, Any]], None] | None = None,
                     cancel: CancelSignal | None = None) -> dict[str, Any]:
    """Continue an unfinished run from its last checkpoint; the ``--json`` fields of its end.

    Raises :class:`ResumeRefused` for a run that is unknown, already finished, or owned by a
    worker that is still alive. A run with nothing to continue from is settled FAILED /
    RUN_ABANDONED. Tool calls it already made are reused, not run again (``tool_gate``).
    """
    store = services.store
    found = await asyncio.to_thread(store.unfinished_runs, None, run_id)
    if not found:
        row = await asyncio.to_thread(store.get_run, run_id)
        if row is None:
            where = getattr(store, "where", "this home")
            raise ResumeRefused(f"no run {run_id} in the run store at {where}")
        raise ResumeRefused(f"run {run_id} already finished: {row['release_outcome']}")
    lease = found[0]
    owner, me = lease["lease_owner"], worker_id()
    if owner and owner != me and not is_stale(lease):
        raise ResumeRefused(f"run {run_id} is running in worker {owner}; its lease is renewed "
                            f"while it runs (HARNESS_LEASE_S={services.settings.lease_s:g})")
    if not await asyncio.to_thread(store.claim_run, run_id, me, services.settings.lease_s,
                                   take_over_from=owner):
        raise ResumeRefused(f"run {run_id} was taken up by another worker meanwhile")
    thread_id = lease["thread_id"]
    graph = build_graph(checkpointer)
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    values = snapshot.values or {}
    ours = values.get("run_id") == run_id
    if snapshot.next and (ours or await _input_pending(services, lease, snapshot)):
        # Its events go on; if none was recorded (lost with the dead worker), the stream's
        # first node opens them with the run's metadata event.
        ctx = new_context(services, thread_id=thread_id, run_id=run_id, cancel=cancel)
        return await _drive(services, ctx, None, checkpointer, on_event)
    usage = values.get("usage") if ours else None
    events = await asyncio.to_thread(
        settle_abandoned, store, run_id, thread_id=thread_id, model=services.seam.label,
        message="the run's worker stopped and no checkpoint of it is left to continue from",
        intent=values.get("intent") if ours else None, usage=usage)
    return {**dict.fromkeys(OUTPUT_KEYS), "run_id": run_id, "thread_id": thread_id,
            "run_state": "FAILED", "release_outcome": "FAILED",
            "failure_code": FailureCode.RUN_ABANDONED.value, "events": events,
            "usage": usage or BudgetUsage().model_dump(), "model": services.seam.label}


async def _input_pending(services: Services, lease: dict[str, Any],
                         snapshot: StateSnapshot) -> bool:
    """Whether the thread's checkpoint is this run's input, saved before its first node ended."""
    if tuple(snapshot.next) != ("route",) or snapshot.values.get("question") != lease["question"]:
        return False
    runs = await asyncio.to_thread(services.store.runs_for_thread, lease["thread_id"])
    return bool(runs) and runs[-1]["run_id"] == lease["run_id"]


async def continue_stale_runs(services: Services, thread_id: str,
                              checkpointer: BaseCheckpointSaver | None
                              ) -> list[dict[str, Any]]:
    """Take over the thread's runs whose worker died (docs/design.md §9); their end fields.

    A stale run started with this worker's model is continued; with another model it is
    settled FAILED / RUN_ABANDONED (no worker should answer it with a different model).
    """
    ended: list[dict[str, Any]] = []
    for lease in await asyncio.to_thread(services.store.unfinished_runs, thread_id):
        if not is_stale(lease):
            continue
        run_id = lease["run_id"]
        row = await asyncio.to_thread(services.store.get_run, run_id)
        try:
            if row is not None and row["model_spec"] != services.seam.label:
                await asyncio.to_thread(
                    settle_abandoned, services.store, run_id, thread_id=thread_id,
                    model=row["model_spec"],
                    message=f"the run's worker stopped; this worker runs {services.seam.label}, "
                            f"not the run's {row['model_spec']}")
                continue
            out = await resume_run(services, run_id, checkpointer=checkpointer)
        except ResumeRefused:
            continue  # another worker took it up first
        log.warning("run %s of thread %s was left running by a stopped worker (%s); continued: "
                    "%s", run_id, thread_id, lease["lease_owner"], out["release_outcome"])
        ended.append(out)
    return ended
