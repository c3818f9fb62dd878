"""The run context of each stream (docs/design.md §14): the resolver of the served graph and the CLI.

A stream is a server run (or a CLI resume). :class:`RunResolver` asks the continuation rules
(:func:`diagnosis_harness.continuations.resolve.plan_start`) what the stream does — begin a run,
nothing, continue a paused run, fork one — and builds the run context for it: the services and
options of the run (a continuation keeps the options it started with; a fork may choose
others), its id (a new turn's is the server's run id), what a fork inherits, and the ``start``
record its lineage keeps (the state edits made since the run's last checkpoint included).
Blocking: runs in a worker thread (the run session calls it through ``asyncio.to_thread``).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis_harness.continuations.lineage import actor_of
from diagnosis_harness.continuations.resolve import edits_since, inherit, plan_start
from diagnosis_harness.continuations.starts import ContinuationRefused, StreamStart
from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.lineage import Lineage, options_of
from diagnosis_harness.session.options import DEFAULT_DATASET, RunOptions, read_options, run_settings
from diagnosis_harness.session.runner import RecordEvent, new_context
from diagnosis_harness.session.services import Services

ServicesFor = Callable[[RunOptions], Services]
"""The services of a run with these options (its model and dataset)."""


class ServicesByOptions:
    """The services of each model and dataset a run may choose, built once each (shared store)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._variants: dict[tuple[str, str], Services] = {}
        self._lock = threading.Lock()

    def __call__(self, options: RunOptions) -> Services:
        """The services of a run with ``options`` (a model and dataset the settings offer). Blocking."""
        settings = self.services.settings
        model, dataset = options.model or settings.model, options.dataset or DEFAULT_DATASET
        if (model, dataset) == (settings.model, DEFAULT_DATASET):
            return self.services
        with self._lock:
            if (model, dataset) not in self._variants:
                changes: dict[str, Any] = {"model": model}
                if dataset != DEFAULT_DATASET:
                    changes["data_dir"] = settings.serve_datasets[dataset]
                self._variants[(model, dataset)] = Services.from_settings(
                    settings.model_copy(update=changes), store=self.services.store)
            return self._variants[(model, dataset)]


class RunResolver:
    """Makes the run context of each stream (the graph's ``resolve_context``)."""

    def __init__(self, services_for: ServicesFor, default: Services, *,
                 record_event: RecordEvent | None = None,
                 drain: Callable[[], None] | None = None, actor: str = "local") -> None:
        self.services_for = services_for
        self.default = default
        self.store = default.store
        self.record_event = record_event
        self.drain = drain or (lambda: None)
        self.actor = actor
        """Who starts streams that no server request names (the CLI's user)."""

    def __call__(self, config: RunnableConfig, start: StreamStart, client: Any) -> RunContext:
        """The run context of the stream ``config`` belongs to."""
        metadata, configurable = config.get("metadata") or {}, config.get("configurable") or {}
        server_run = metadata.get("run_id") or configurable.get("run_id") or config.get("run_id")
        actor = actor_of(config, default=self.actor)
        options, problem = read_options(client, self.default.settings)
        if start.input_kind == "turn":
            if not server_run:
                raise RuntimeError("no run id in the run's config: serve the graph through langgraph dev")
            ctx = self._context(options if problem is None else RunOptions(), start,
                                run_id=str(server_run), actor=actor)
            ctx.input_problem = problem  # the input itself is checked at the run's door
            ctx.start = {"kind": "start", "server_run_id": server_run, "options": options.chosen()}
            return ctx
        plan = plan_start(self.store, start)
        if plan.kind == "idle":
            ctx = self._context(RunOptions(), start, run_id=uuid.uuid4().hex, actor=actor)
            ctx.start = {"kind": "idle"}  # nothing will run: no row, no events
            return ctx
        if problem is not None:
            raise ContinuationRefused(problem)
        if plan.kind == "continue":
            return self._continue(start, options, plan.lineage, actor, server_run)
        return self._fork(start, options, plan.lineage, actor, server_run)

    # --- the context of each kind of start ------------------------------------------------------

    def _context(self, options: RunOptions, start: StreamStart, *, run_id: str,
                 actor: str) -> RunContext:
        services = self.services_for(options)
        settings = run_settings(services.settings, options)
        ctx = new_context(services, thread_id=start.thread_id, run_id=run_id,
                          record_event=self.record_event)
        ctx.settings = settings
        ctx.lifecycle.deadline_s = settings.deadline_s
        ctx.actor = actor
        ctx.labels.update(harness_run_id=run_id, harness_thread_id=start.thread_id or "")
        if start.owns_state and start.values.get("intent"):
            ctx.labels["intent"] = str(start.values["intent"])
        return ctx

    def _continue(self, start: StreamStart, options: RunOptions,
                  lineage: Lineage | None, actor: str, server_run: Any) -> RunContext:
        assert start.owner_run_id is not None
        recorded = RunOptions.model_validate(options_of(lineage))
        if (gone := read_options(recorded.chosen(), self.default.settings)[1]) is not None:
            raise ContinuationRefused(f"run {start.owner_run_id} started with options this server "
                                      f"no longer offers: {gone}; fork it with other options")
        if options.chosen() and options != recorded:
            raise ContinuationRefused(
                f"run {start.owner_run_id} goes on with the options it started with "
                f"({recorded.chosen() or 'the defaults'}); fork it to change them")
        self.drain()  # every event its earlier streams emitted is in the store: numbering goes on
        ctx = self._context(recorded, start, run_id=start.owner_run_id, actor=actor)
        # The deadline counts run time, not the time spent paused: the first node carries the
        # checkpoint's ``elapsed_s`` into the lifecycle (diagnosis_harness.graph.builder, docs/design.md §6).
        ctx.start = {"kind": "continue", "server_run_id": server_run,
                     "edits": edits_since(self.store, start)}
        return ctx

    def _fork(self, start: StreamStart, options: RunOptions, lineage: Lineage | None,
              actor: str, server_run: Any) -> RunContext:
        parent = start.owner_run_id
        if not options.chosen():
            options = RunOptions.model_validate(options_of(lineage))
        run_id = str(server_run) if server_run else uuid.uuid4().hex
        ctx = self._context(options, start, run_id=run_id, actor=actor)
        # Its row is claimed at the run's door (RunSession.begin), as every run's is.
        usage = (start.values.get("usage") or {}) if start.owns_state else {}
        records, verdicts = inherit(self.store, run_id, parent, start) if parent else (0, 0)
        ctx.start = {"kind": "fork", "server_run_id": server_run, "parent_run_id": parent,
                     "fork_checkpoint_id": start.checkpoint_id, "options": options.chosen(),
                     "inherited": {"usage": BudgetUsage.model_validate(usage).model_dump(),
                                   "records": records, "judgements": verdicts},
                     "edits": edits_since(self.store, start)}
        return ctx
