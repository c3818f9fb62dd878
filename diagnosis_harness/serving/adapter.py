"""The serving adapter: what ``langgraph.json`` loads for ``langgraph dev``, the SDK and Studio.

``langgraph.json`` names two things here, and nothing is built when this module is imported:

- :func:`make_graph`, the graph factory the server calls for each request;
- :func:`checkpointer`, which the server enters at start-up (once per event loop). It builds the
  process's :class:`ServingAdapter` (off the event loop: a broken setting or dataset stops the
  server at start, not at its first run) and opens the checkpointer ``HARNESS_DATABASE_URL``
  selects (:func:`diagnosis_harness.session.checkpointer.open_checkpointer`: SQLite in the home, or the shared
  PostgreSQL).

A server that brings its own checkpointer (``langgraph.server.json``: LangGraph's own server
with its Postgres) needs only :func:`make_graph`. Nothing here assumes one process: a run's
context is made from its config and the shared run store, so any replica can serve any run.

:class:`ServingAdapter` is everything the server's runs share: one
:class:`~diagnosis_harness.session.services.Services` (settings from the environment and ``.env``, model
seam, tool
backends, dataset, run store), the trace writer, and the graph compiled on them. The server's
API sends JSON, so it cannot pass a :class:`~diagnosis_harness.run.context.RunContext`: the run
session resolves one per server run through :meth:`ServingAdapter.open_run`. A new turn's
harness run id is the run id the server writes into the run's config (the id ``runs.stream`` returns and
``runs.cancel`` takes); a continuation of a paused run is a new server run that goes on with
the same harness run, and a re-run from an earlier checkpoint a new, forked harness run
(:mod:`diagnosis_harness.continuations`, docs/design.md §14). The caller's ``context`` is read only as the
run
options the server offers (:class:`ApiContext`).
The context lives exactly as long as the run's stream; a run that ends without release, in a
node or between two nodes, is settled by the graph's run session
(:mod:`diagnosis_harness.session.hooked`, :mod:`diagnosis_harness.session.run_session`).

The dev server forbids blocking I/O on its event loop, so the events' copy in the run store's
trace is written by one background thread, in emission order; it lands a few milliseconds after
the client has the event.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

from diagnosis_harness.checkpoints.savers import HarnessCheckpointer
from diagnosis_harness.continuations.starts import StreamStart
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.session.hooked import SessionGraph, session_graph
from diagnosis_harness.session.runner import open_checkpointer
from diagnosis_harness.session.services import Services

if TYPE_CHECKING:
    from diagnosis_harness.session.options import RunOptions

log = logging.getLogger(__name__)


class ApiContext(TypedDict, total=False):
    """What an API caller may pass as ``context``: run options (docs/design.md §14), checked.

    Studio draws these as the assistant's configuration. A model or dataset the server
    declares, lower budgets; nothing here can raise a budget, name a file, URL or database, or
    change a guard (:mod:`diagnosis_harness.session.options`). The adapter builds the run context itself: a
    dataclass context schema would make LangGraph build RunContext(**api_json) and fail.
    """

    model: str
    """One of the model specs the server offers (``HARNESS_SERVE_MODELS``)."""
    dataset: str
    """``default`` or a dataset the server declares (``HARNESS_SERVE_DATASETS``)."""
    max_model_calls: int
    """Lower the run's model-call budget."""
    max_tool_calls: int
    """Lower the run's tool-call budget."""
    max_tokens: int
    """Lower the run's token budget."""
    max_run_bytes: int
    """Lower the run's byte budget."""
    deadline_s: float
    """Lower the run's deadline (seconds of run time)."""


def _report(future: Future[Any]) -> None:
    if (exc := future.exception()) is not None:
        log.error("could not record an event in the run store: %s", exc)


class ServingAdapter:
    """The serving adapter of one process: its services, its trace writer, its graph."""

    def __init__(self, services: Services) -> None:
        from diagnosis_harness.session.starts import (  # importing builds nothing
            RunResolver,
            ServicesByOptions,
        )

        self.services = services
        # One writer thread for all runs: FIFO keeps each run's events in emission order.
        self._trace = ThreadPoolExecutor(max_workers=1, thread_name_prefix="harness-trace")
        self._by_options = ServicesByOptions(services)
        self._resolve = RunResolver(self.services_for, services, record_event=self._record_event,
                                    drain=self._drain, actor="api")
        self.graph: SessionGraph = session_graph(context_schema=ApiContext,
                                                 resolve_context=self.open_run,
                                                 edit_log=services.store)
        """The served graph (no checkpointer of its own: the server brings one)."""

    @classmethod
    def from_settings(cls) -> ServingAdapter:
        """Build from settings (environment, ``.env``), as ``harness diagnose`` does.

        Every model and dataset the server offers is checked here: a broken one stops the
        server at its start, not at a client's run.
        """
        from diagnosis_harness.session.options import DEFAULT_DATASET, RunOptions, offered_models

        adapter = cls(Services.from_settings(load_settings()))
        settings = adapter.services.settings
        for model in offered_models(settings):
            for dataset in [DEFAULT_DATASET, *settings.serve_datasets]:
                adapter.services_for(RunOptions(model=model, dataset=dataset))
        return adapter

    def services_for(self, options: RunOptions) -> Services:
        """The services of a run with a model and dataset the server offers (built once). Blocking."""
        return self._by_options(options)

    def open_run(self, config: RunnableConfig, start: StreamStart, client: object = None) -> RunContext:
        """The run context of the server run ``config`` belongs to. Blocking: reads the store.

        A continuation goes on with its harness run: the events it already emitted (same
        numbering, same grammar), its budget, its run time (:mod:`diagnosis_harness.continuations.resolve`).
        """
        return self._resolve(config, start, client)

    def _drain(self) -> None:
        """Wait until every event handed to the trace writer so far is in the store."""
        try:
            self._trace.submit(lambda: None).result()
        except RuntimeError:  # closed: the server is stopping
            pass

    def _record_event(self, run_id: str, seq: int, event: dict[str, Any]) -> None:
        try:
            future = self._trace.submit(self.services.store.record_event, run_id, seq, event)
        except RuntimeError as exc:  # closed: the server is stopping while a run still emits
            log.error("event %s of run %s not recorded: %s", seq, run_id, exc)
            return
        future.add_done_callback(_report)

    def close(self) -> None:
        """Write every event handed to the trace writer, then stop it. Blocking."""
        self._trace.shutdown(wait=True)


_building = threading.Lock()
_open_checkpointers = 0  # how many event loops of this process hold a checkpointer (below)


@functools.cache
def _build() -> ServingAdapter:
    return ServingAdapter.from_settings()


def adapter() -> ServingAdapter:
    """The process's serving adapter, built on first use (once, whoever asks first)."""
    with _building:
        return _build()


async def make_graph() -> SessionGraph:
    """The graph ``langgraph.json`` serves: the process's, the same compiled graph every call.

    The server calls it for every run and read. The first call builds the adapter off the event
    loop (a server that brings its own checkpointer never entered :func:`checkpointer`, which
    otherwise built it at start-up); later calls return at once.
    """
    if _build.cache_info().currsize:  # built: no lock taken on the loop, nothing waits
        return _build().graph
    return (await asyncio.to_thread(adapter)).graph


def _enter() -> ServingAdapter:
    global _open_checkpointers
    with _building:
        served = _build()
        _open_checkpointers += 1
    return served


def _leave(served: ServingAdapter) -> None:
    global _open_checkpointers
    with _building:
        _open_checkpointers -= 1
        last = _open_checkpointers == 0
    if last:  # the trace writer is the process's: other event loops may still be serving runs
        served.close()


@asynccontextmanager
async def checkpointer() -> AsyncIterator[HarnessCheckpointer]:
    """The server's checkpointer: :func:`~diagnosis_harness.session.checkpointer.open_checkpointer`'s.

    The server enters it at start-up, once per event loop, before it loads the graph: the
    adapter is built here, off the event loop. Unless ``HARNESS_CHECKPOINT_RETENTION`` is set,
    the server keeps every checkpoint (``all``): Studio's time travel needs the history.
    When the last one exits, it waits for the trace
    writer to finish.
    """
    served = await asyncio.to_thread(_enter)
    settings = served.services.settings
    if "checkpoint_retention" not in settings.model_fields_set:
        # The server is where Studio time-travels and forks (docs/design.md §14): it keeps a
        # thread's history unless told otherwise; `harness prune --older-than` bounds it.
        settings = settings.model_copy(update={"checkpoint_retention": "all"})
    try:
        async with open_checkpointer(settings) as saver:
            yield saver
    finally:
        await asyncio.to_thread(_leave, served)
