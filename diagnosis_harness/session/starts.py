"""Which harness run a stream runs (docs/design.md §14): the resolver of the served graph and the CLI.

A stream is a server run (or a CLI resume). :class:`RunResolver` maps it onto a harness run from
what the stream starts from (:class:`diagnosis_harness.graph.continuation.StreamStart`) and the run store:

- a new turn (input ``{"question": …}``) begins a new run whose id is the server's run id (a run
  of the thread still *paused* at the head is superseded by the run session: it ends CANCELLED);
- no input or a ``Command(resume=…)`` at the thread's latest checkpoint, whose run is still
  unfinished, **continues that run**: same run id and row, the events it emitted (numbering and
  grammar go on), the budget in its state, its run time (the deadline counts run time, not the
  time it spent paused), the options it started with;
- anywhere else — an earlier checkpoint (time travel, a fork), or a checkpoint whose run is
  finished — it is **a new run** forked from the run that wrote the checkpoint: its own row, its
  parent and fork point recorded, the usage of the checkpoint's state carried over (no fresh
  budget), and the parent's records and judgements it inherits copied into its own trace;
- a ``Command(resume=…)`` with nothing waiting, on a decided or cancelled run, or with an
  answer that is not ``{"approve": bool, "note"?: str}`` is refused before anything runs.

Every start records the state edits made since the run's last checkpoint. Blocking: runs in a
worker thread (the run session calls it through ``asyncio.to_thread``).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.graph.continuation import ContinuationRefused, StreamStart
from diagnosis_harness.graph.lineage import actor_of
from diagnosis_harness.guards.release_check import GUARD_VERDICTS, JUDGED_DRAFT, parse_decision
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.records import resolve
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


def _decided(row: dict[str, Any], lineage: dict[str, Any] | None) -> str:
    """Why a finished run takes no answer: how it was decided."""
    approval = (lineage or {}).get("approval") or {}
    decided = approval.get("state")
    how = (f"{decided} by {approval.get('decided_by')} at {approval.get('decided_at')}"
           if decided and decided != "PENDING" else f"it ended {row['release_outcome']}")
    return f"run {row['run_id']} was already decided: {how}; a decision is final"


def _where_it_paused(lineage: dict[str, Any] | None, start: StreamStart) -> bool:
    """Whether the stream starts where the run paused (under edits made since), not earlier.

    An edit of an earlier checkpoint of a paused run makes a new head too; going on from it
    is a re-run from that checkpoint — a fork — or the run would get back budget it spent.
    """
    segments = (lineage or {}).get("segments") or []
    paused_at = segments[-1].get("checkpoint_id") if segments else None
    return paused_at is None or paused_at == start.base_checkpoint_id


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
            ctx.input_problem = start.input_problem or problem
            ctx.start = {"kind": "start", "server_run_id": server_run, "options": options.chosen()}
            return ctx
        if start.checkpoint_id is None or not start.next:
            if start.input_kind == "resume":
                owner = start.owner_run_id
                row = self.store.get_run(owner) if owner else None
                if row is not None and row["finished_at"] is not None:
                    raise ContinuationRefused(_decided(row, self.store.lineage(row["run_id"])))
                raise ContinuationRefused(f"nothing waits for an answer on thread {start.thread_id}: "
                                          "its last run has ended")
            ctx = self._context(RunOptions(), start, run_id=uuid.uuid4().hex, actor=actor)
            ctx.start = {"kind": "idle"}  # nothing will run: no row, no events
            return ctx
        owner = start.owner_run_id
        row = self.store.get_run(owner) if owner else None
        lineage = self.store.lineage(owner) if owner else None
        if start.input_kind == "resume":
            self._check_answer(start, owner, row, lineage)
        if problem is not None:
            raise ContinuationRefused(problem)
        # Unfinished: no final row yet — or no row at all, when it paused before its ``route``.
        unfinished = row["finished_at"] is None if row is not None else lineage is not None
        if start.from_head and unfinished and _where_it_paused(lineage, start):
            return self._continue(config, start, options, lineage, actor, server_run)
        return self._fork(start, options, lineage, actor, server_run)

    # --- the three kinds of start ---------------------------------------------------------------

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

    def _continue(self, config: RunnableConfig, start: StreamStart, options: RunOptions,
                  lineage: dict[str, Any] | None, actor: str, server_run: Any) -> RunContext:
        assert start.owner_run_id is not None
        recorded = RunOptions.model_validate((lineage or {}).get("options") or {})
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
        ctx.start = {"kind": "continue", "server_run_id": server_run, "edits": self._edits(start)}
        return ctx

    def _fork(self, start: StreamStart, options: RunOptions, lineage: dict[str, Any] | None,
              actor: str, server_run: Any) -> RunContext:
        parent = start.owner_run_id
        if not options.chosen():
            options = RunOptions.model_validate((lineage or {}).get("options") or {})
        run_id = str(server_run) if server_run else uuid.uuid4().hex
        ctx = self._context(options, start, run_id=run_id, actor=actor)
        question = start.values.get("question")
        self.store.start_run(run_id, start.thread_id or "",
                             question if isinstance(question, str) else repr(question)[:200],
                             ctx.seam.label)
        usage = (start.values.get("usage") or {}) if start.owns_state else {}
        records, verdicts = self._inherit(run_id, parent, start) if parent else (0, 0)
        ctx.start = {"kind": "fork", "server_run_id": server_run, "parent_run_id": parent,
                     "fork_checkpoint_id": start.checkpoint_id, "options": options.chosen(),
                     "inherited": {"usage": BudgetUsage.model_validate(usage).model_dump(),
                                   "records": records, "judgements": verdicts},
                     "edits": self._edits(start)}
        return ctx

    # --- helpers --------------------------------------------------------------------------------

    def _inherit(self, run_id: str, parent: str, start: StreamStart) -> tuple[int, int]:
        """Copy into the fork's trace what its state inherits and the parent's store backs."""
        if not start.owns_state:
            return 0, 0  # forked before the parent's route: the state is the previous turn's
        trace = self.store.trace(parent)
        backed, _ = resolve(start.values.get("records") or [], trace["tool_records"])
        for record in backed:
            self.store.record_tool(run_id, record)
        judgements = [v["verdict"] for v in trace["verdicts"] if v["guard"] == JUDGED_DRAFT]
        for judgement in judgements:  # bound to a draft's digest: valid only for that draft
            self.store.record_verdict(run_id, JUDGED_DRAFT, judgement)
        for guard in GUARD_VERDICTS:  # the guards' verdicts the state holds, as the parent recorded
            held = start.values.get(GUARD_VERDICTS[guard])
            if held is not None and any(v["guard"] == guard and v["verdict"] == held
                                        for v in trace["verdicts"]):
                self.store.record_verdict(run_id, guard, held)
        return len(backed), len(judgements)

    def _edits(self, start: StreamStart) -> list[dict[str, Any]]:
        out = []
        for checkpoint_id in start.edits:
            edit = self.store.state_edit(start.thread_id or "", checkpoint_id) if start.thread_id else None
            out.append({"checkpoint_id": checkpoint_id,
                        "as_node": edit.get("as_node") if edit else None,
                        "keys": edit.get("keys") if edit else None,
                        "edited_by": edit.get("edited_by") if edit else None,
                        "edited_at": edit.get("edited_at") if edit else None})
        return out

    def _check_answer(self, start: StreamStart, owner: str | None, row: dict[str, Any] | None,
                      lineage: dict[str, Any] | None) -> None:
        """Refuse a resume with nothing to answer, of a decided run, or with a malformed answer."""
        if not start.interrupts:
            raise ContinuationRefused("nothing waits for an answer at this checkpoint "
                                      "(a breakpoint is continued with no input)")
        if row is not None and row["finished_at"] is not None:
            raise ContinuationRefused(_decided(row, lineage))
        waits_for_approval = any(isinstance(v, dict) and v.get("kind") == "approval"
                                 for v in start.interrupts)
        if waits_for_approval and parse_decision(start.resume) is None:
            raise ContinuationRefused('answer the approval with {"approve": true|false, "note": "…"}')
