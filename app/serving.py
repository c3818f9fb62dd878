"""The serving adapter: what ``langgraph.json`` loads for ``langgraph dev``, the SDK and Studio.

The server's API sends JSON, so it cannot pass a :class:`~diagnosis.context.RunContext`. This module
installs the context provider that supplies one instead:

- one :class:`~app.runner.Services` per process (settings from the environment and ``.env``,
  model seam, tool backends, dataset, run store), opened off the event loop when the server
  enters :func:`checkpointer` at start-up;
- one RunContext per server run, keyed by the run id the server writes into the run's config
  metadata (the id ``runs.stream`` returns and ``runs.cancel`` takes; it is also the harness run
  id of the stored row). It is made off the event loop when the run starts, found by every node
  of the run, and dropped when the run is released (``done``), cancelled, or ends otherwise.

The dev server forbids blocking I/O on its event loop, so the events' copy in the run store's
trace is written by one background thread, in emission order; it lands a few milliseconds after
the client has the event. The served graph is :mod:`graph.builder`'s with a JSON context schema.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.config import get_config
from typing_extensions import TypedDict

from app.runner import Services, new_context
from diagnosis.context import RunContext, set_context_provider
from graph.builder import builder
from harness.contracts import RunState
from harness.events import EventEmitter
from harness.runstore import RunStore
from harness.settings import load_settings

CHECKPOINT_FILE = "checkpoints.sqlite"
"""The checkpointer's file under the settings' home (the same one the CLI uses)."""

log = logging.getLogger(__name__)

_lock = threading.Lock()
_services: list[Services] = []
_runs: dict[str, RunContext] = {}
_trace_writer: list[ThreadPoolExecutor] = []


# --- process-wide services -------------------------------------------------------------------


def services() -> Services:
    """The process-wide services, built from settings (environment, ``.env``) on first use."""
    with _lock:
        if not _services:
            _services.append(Services.from_settings(load_settings()))
        return _services[0]


def use_services(svc: Services | None) -> None:
    """Serve with these services instead of building them from settings; None forgets them."""
    with _lock:
        _services[:] = [svc] if svc is not None else []


def active_runs() -> list[str]:
    """Server run ids that hold a run context now (released and cancelled runs do not)."""
    with _lock:
        return list(_runs)


# --- per-run contexts ------------------------------------------------------------------------


def _writer() -> ThreadPoolExecutor:
    with _lock:
        if not _trace_writer:
            _trace_writer.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="harness-trace"))
        return _trace_writer[0]


def _report(future: Future[Any]) -> None:
    if (exc := future.exception()) is not None:
        log.error("could not record an event in the run store: %s", exc)


def _forget(run_id: str) -> RunContext | None:
    with _lock:
        return _runs.pop(run_id, None)


class _ServedEmitter(EventEmitter):
    """A run's events on the server: streamed as usual, traced off the event loop, in order."""

    def __init__(self, run_id: str, store: RunStore, prior: list[dict[str, Any]]) -> None:
        super().__init__(sink=self._trace, prior=prior)
        self._run_id = run_id
        self._store = store

    def _trace(self, seq: int, event: dict[str, Any]) -> None:
        # One writer thread for all runs: FIFO keeps each run's events in emission order.
        _writer().submit(self._store.record_event, self._run_id, seq, event).add_done_callback(_report)

    def emit(self, event: str, **fields: Any) -> bool:
        """Emit as the CLI does; after ``done`` the run is released and its context dropped."""
        accepted = super().emit(event, **fields)
        if self.closed:
            _forget(self._run_id)
        return accepted

    def close(self) -> None:
        """The client is gone (cancel): accept nothing more and drop the run's context."""
        super().close()
        _forget(self._run_id)


def _open_run(run_id: str, thread_id: str | None) -> RunContext:
    """Make (or find) the run context of a server run. Blocking: reads what the run emitted."""
    with _lock:
        if (ctx := _runs.get(run_id)) is not None:
            return ctx
    svc = services()
    ctx = new_context(svc, thread_id=thread_id, run_id=run_id)  # a retried run keeps its events
    ctx = dataclasses.replace(ctx, emitter=_ServedEmitter(run_id, svc.store, ctx.emitter.events))
    with _lock:
        return _runs.setdefault(run_id, ctx)


def provide_context(api_context: Any) -> RunContext:
    """The run context of the server run whose node is executing.

    Normally made when the run started (:class:`_ServerRuns`); a run that did not start through
    the served graph gets it here. ``api_context`` (the caller's ``context``) is ignored: nothing
    a caller sends may change budgets, models or stores.
    """
    config = get_config()
    metadata, configurable = config.get("metadata") or {}, config.get("configurable") or {}
    run_id = metadata.get("run_id") or configurable.get("run_id")
    if not run_id:
        raise RuntimeError("no run id in the run's config: serve the graph through langgraph dev")
    thread_id = configurable.get("thread_id") or metadata.get("thread_id")
    return _open_run(str(run_id), str(thread_id) if thread_id else None)


set_context_provider(provide_context)


def _record_unreleased(ctx: RunContext, error: BaseException) -> None:
    cancelled = isinstance(error, asyncio.CancelledError)
    ctx.lifecycle.terminate(RunState.CANCELLED if cancelled else RunState.FAILED)
    ctx.write_unreleased_row()


class _ServerRuns(AsyncCallbackHandler):
    """Opens each server run's context when the run starts and settles it however it ends.

    Start: the context is made in a worker thread (it reads the store), so no node blocks the
    event loop. End: a cancel or crash inside a node is recorded by the node wrapper
    (:mod:`graph.builder`), which also drops the context; one that lands between nodes (while a
    checkpoint is written, say) reaches no node, but the graph's root ``on_chain_error`` still
    sees it and the row is written here (first terminal wins: a written row never changes).
    """

    def __init__(self) -> None:
        self._roots: dict[UUID, str] = {}

    async def on_chain_start(self, serialized: dict[str, Any], inputs: Any, *, run_id: UUID,
                             parent_run_id: UUID | None = None,
                             metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """The graph run of a server run starts: open its context off the event loop."""
        if parent_run_id is not None or not metadata or not metadata.get("run_id"):
            return
        server_run = self._roots[run_id] = str(metadata["run_id"])
        thread_id = metadata.get("thread_id")
        await asyncio.to_thread(_open_run, server_run, str(thread_id) if thread_id else None)

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """The run ended normally (released, or paused at an interrupt): drop its context."""
        if (server_run := self._roots.pop(run_id, None)) is not None:
            _forget(server_run)

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """The run ended by error or cancel: if no node recorded it, record it now."""
        if (server_run := self._roots.pop(run_id, None)) is None:
            return
        if (ctx := _forget(server_run)) is not None:
            ctx.emitter.close()
            await asyncio.to_thread(_record_unreleased, ctx, error)


# --- what langgraph.json serves --------------------------------------------------------------


class ApiContext(TypedDict, total=False):
    """What an API caller may pass as ``context``: nothing; the adapter builds the run context."""


def _served_graph() -> Any:
    g = builder()
    # A dataclass context schema would make LangGraph build RunContext(**api_json) and fail;
    # the served graph declares the JSON the API accepts, the provider supplies the rest.
    g.context_schema = ApiContext  # type: ignore[assignment]  # StateGraph types it by RunContext
    return g.compile(name="diagnosis").with_config(callbacks=[_ServerRuns()])


graph = _served_graph()
"""The graph ``langgraph.json`` serves (no checkpointer of its own: the server brings one)."""


@asynccontextmanager
async def checkpointer() -> AsyncIterator[AsyncSqliteSaver]:
    """The server's checkpointer (SQLite in the settings' home, WAL, synchronous=NORMAL).

    The server enters it once at start-up, so it also opens the process's services off the event
    loop (a broken setting or dataset stops the server at start, not at its first run), and on
    exit waits for the trace writer to finish.
    """
    svc = await asyncio.to_thread(services)
    path = Path(svc.settings.home) / CHECKPOINT_FILE
    try:
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            await saver.conn.execute("PRAGMA journal_mode=WAL")
            await saver.conn.execute("PRAGMA synchronous=NORMAL")
            await saver.setup()
            yield saver
    finally:
        with _lock:
            writers = _trace_writer[:]
            _trace_writer.clear()
        for w in writers:
            await asyncio.to_thread(w.shutdown, wait=True)
