"""Run one turn of the graph for the CLI and scripts: build the run context, stream, collect.

The run context (models, backends, store, lifecycle, event emitter) is made here per run and
passed to the graph as LangGraph ``context``; the checkpointer keeps the thread's state.
A crash outside the nodes' own handling is still recorded (FAILED, INTERNAL_FAILURE) and a
cancellation (task cancel or Ctrl-C) still leaves a CANCELLED row, never a half-published run.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis.context import RunContext
from graph.builder import build_graph
from harness.budget import BudgetUsage
from harness.contracts import FailureCode, ReleaseOutcome, RunState
from harness.events import EventEmitter
from harness.lifecycle import CancelSignal, RunLifecycle
from harness.runstore import RunStore, SqliteRunStore
from harness.settings import Settings
from providers.seam import ModelSeam

OUTPUT_KEYS = ("run_id", "thread_id", "intent", "run_state", "release_outcome", "fallback_type",
               "failure_code", "stop_reason", "content", "events", "usage")


@dataclass
class Services:
    """What runs share within one process: settings, models, backends, dataset, store."""

    settings: Settings
    seam: ModelSeam
    backends: Any
    dataset: Any
    store: RunStore

    @classmethod
    def from_settings(cls, settings: Settings, *, seam: ModelSeam | None = None,
                      store: RunStore | None = None) -> Services:
        """Open everything a run needs; errors are the classified ones of each piece."""
        from tools.backends import Backends
        from tools.dataset.build import ensure_dataset

        seam = seam or ModelSeam(settings)
        ensure_dataset(settings)  # build (or reuse) first: opening backends never builds
        backends = Backends.from_settings(settings)  # honours ops_db_url / ops_tables
        Path(settings.home).mkdir(parents=True, exist_ok=True)
        return cls(settings=settings, seam=seam, backends=backends, dataset=backends.info,
                   store=store or SqliteRunStore(Path(settings.home) / "runs.sqlite"))


def new_context(services: Services, *, thread_id: str | None, run_id: str | None = None,
                cancel: CancelSignal | None = None) -> RunContext:
    """A fresh run context: own run id, lifecycle (deadline from now) and event emitter."""
    rid = run_id or uuid.uuid4().hex
    store = services.store
    # A run resumed from its checkpoint keeps its event stream: same numbering, same grammar.
    prior = store.events(rid) if run_id else []
    return RunContext(
        run_id=rid, thread_id=thread_id, settings=services.settings, seam=services.seam,
        backends=services.backends, dataset=services.dataset, store=store,
        lifecycle=RunLifecycle(deadline_s=services.settings.deadline_s,
                               cancel_signal=cancel or CancelSignal()),
        emitter=EventEmitter(sink=lambda seq, ev: store.record_event(rid, seq, ev), prior=prior),
    )


async def run_turn(services: Services, question: Any, *, thread_id: str | None = None,
                   checkpointer: Any = None, cancel: CancelSignal | None = None,
                   on_event: Callable[[dict[str, Any]], None] | None = None,
                   run_id: str | None = None) -> dict[str, Any]:
    """Run one turn and return the CLI's ``--json`` fields of the run."""
    thread_id = thread_id or uuid.uuid4().hex
    ctx = new_context(services, thread_id=thread_id, run_id=run_id, cancel=cancel)
    graph = build_graph(checkpointer)
    config = {"configurable": {"thread_id": thread_id}}
    final: dict[str, Any] = {}
    try:
        async for mode, chunk in graph.astream({"question": question}, config, context=ctx,
                                               stream_mode=["custom", "values"]):
            if mode == "custom" and on_event is not None:
                on_event(chunk)
            elif mode == "values":
                final = chunk
    except (asyncio.CancelledError, KeyboardInterrupt):
        ctx.emitter.close()
        if ctx.lifecycle.terminate(RunState.CANCELLED):
            await asyncio.shield(asyncio.to_thread(ctx.write_unreleased_row))
        raise
    except Exception as exc:  # noqa: BLE001 — an unclassified crash still ends explainably
        if ctx.lifecycle.terminate(RunState.FAILED):
            await asyncio.to_thread(ctx.write_unreleased_row)
            ctx.publish_unreleased_end(f"internal failure: {type(exc).__name__}")
        final = {"run_state": RunState.FAILED.value,
                 "release_outcome": ReleaseOutcome.FAILED.value,
                 "failure_code": FailureCode.INTERNAL_FAILURE.value, "content": None,
                 "error": f"{type(exc).__name__}: {exc}"}
    out = {key: final.get(key) for key in OUTPUT_KEYS}
    out.update(run_id=ctx.run_id, thread_id=thread_id, events=ctx.emitter.events,
               usage=final.get("usage") or BudgetUsage().model_dump(),
               model=str(services.seam.spec))
    if final.get("error"):
        out["error"] = final["error"]
    return out
