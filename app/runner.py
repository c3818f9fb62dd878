"""Run one turn of the graph for the CLI and scripts: build the run context, stream, collect.

The run context (models, backends, store, lifecycle, event emitter) is made here per run and
passed to the graph as LangGraph ``context``; the checkpointer keeps the thread's state. Every
checkpointer of the harness is opened by :func:`open_checkpointer` (the CLI's and the server's).
A crash outside the nodes' own handling is still recorded (FAILED, INTERNAL_FAILURE) and a
cancellation (task cancel or Ctrl-C) still leaves a CANCELLED row, never a half-published run.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from app.checkpoints import HarnessCheckpointer, sqlite_checkpointer
from app.services import Services, database_url
from diagnosis.context import RunContext
from graph.builder import build_graph
from harness.budget import BudgetUsage
from harness.contracts import ReleaseOutcome, RunState
from harness.events import EventEmitter
from harness.lifecycle import CancelSignal, RunLifecycle
from harness.runstore import RunPersistenceError
from harness.settings import Settings
from harness.settle import failure_code_of, settle_unreleased

OUTPUT_KEYS = ("run_id", "thread_id", "intent", "run_state", "release_outcome", "fallback_type",
               "failure_code", "stop_reason", "content", "events", "usage")
CHECKPOINT_FILE = "checkpoints.sqlite"
"""The checkpointer's file under the settings' home (the CLI and the server share it)."""

RecordEvent = Callable[[str, int, dict[str, Any]], object]
"""Writes one event of a run to its trace: ``(run_id, seq, event)``."""


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[HarnessCheckpointer]:
    """The thread checkpointer the settings select, for the CLI, scripts and the server alike.

    ``HARNESS_DATABASE_URL`` unset: SQLite at ``$HARNESS_HOME/checkpoints.sqlite`` (WAL,
    synchronous=NORMAL, the home's lock wait); a ``postgresql://`` URL: the Postgres saver on a
    connection pool, in the same database as the run store. Checkpoints are pruned when a run
    ends as ``HARNESS_CHECKPOINT_RETENTION`` says (:mod:`app.checkpoints`). A database that
    cannot be opened raises RunPersistenceError with a one-line message.
    """
    url = database_url(settings)
    opened: AbstractAsyncContextManager[HarnessCheckpointer]
    if url is not None:
        try:
            from app.checkpoints_postgres import postgres_checkpointer
        except ImportError as exc:  # the postgres extra is not installed
            raise RunPersistenceError("a PostgreSQL checkpointer needs the postgres extra: "
                                      "pip install 'diagnosis-harness[postgres]'") from exc
        opened = postgres_checkpointer(url, retention=settings.checkpoint_retention)
    else:
        opened = sqlite_checkpointer(Path(settings.home) / CHECKPOINT_FILE,
                                     retention=settings.checkpoint_retention)
    async with opened as saver:
        yield saver


def new_context(services: Services, *, thread_id: str | None, run_id: str | None = None,
                cancel: CancelSignal | None = None,
                record_event: RecordEvent | None = None) -> RunContext:
    """A fresh run context: own run id, lifecycle (deadline from now) and event emitter.

    Events go to the run store's trace through ``record_event`` (default: written at once).
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
    )


async def run_turn(services: Services, question: Any, *, thread_id: str | None = None,
                   checkpointer: Any = None, cancel: CancelSignal | None = None,
                   on_event: Callable[[dict[str, Any]], None] | None = None,
                   run_id: str | None = None) -> dict[str, Any]:
    """Run one turn and return the CLI's ``--json`` fields of the run.

    The graph settles a run that ends without release (its nodes and its stream); the settle
    here is the last net for an end outside both, and a no-op after theirs.
    """
    thread_id = thread_id or uuid.uuid4().hex
    ctx = new_context(services, thread_id=thread_id, run_id=run_id, cancel=cancel)
    graph = build_graph(checkpointer)
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    final: dict[str, Any] = {}
    try:
        async for mode, chunk in graph.astream({"question": question}, config, context=ctx,
                                               stream_mode=["custom", "values"]):
            if mode == "custom" and on_event is not None:
                on_event(chunk)
            elif mode == "values":
                final = chunk
    except (asyncio.CancelledError, KeyboardInterrupt) as exc:
        await settle_unreleased(ctx, exc)
        raise
    except Exception as exc:  # noqa: BLE001 — an unclassified crash still ends explainably
        await settle_unreleased(ctx, exc)
        own = final.get("run_id") == ctx.run_id  # not the values of the thread's last turn
        final = {"intent": final.get("intent") if own else None,
                 "usage": final.get("usage") if own else None,
                 "run_state": RunState.FAILED.value,
                 "release_outcome": ReleaseOutcome.FAILED.value,
                 "failure_code": failure_code_of(exc).value, "content": None,
                 "error": f"{type(exc).__name__}: {exc}"}
    out = {key: final.get(key) for key in OUTPUT_KEYS}
    out.update(run_id=ctx.run_id, thread_id=thread_id, events=ctx.emitter.events,
               usage=final.get("usage") or BudgetUsage().model_dump(),
               model=str(services.seam.spec))
    if final.get("error"):
        out["error"] = final["error"]
    return out
