"""What a run session records of a run's story in the run store (docs/design.md §14).

Each stream that runs a harness run is one *segment* of it: how it began (a new turn, a
continuation of a paused run, a fork), who began it, from which checkpoint, with which state
edits; and how it ended (released, paused before a node or awaiting approval, cancelled,
failed) with the run time spent so far. Edits of a thread's state are recorded when they are
made. A new turn on a thread whose latest run is paused ends that run CANCELLED, whoever runs
the turn (server or CLI). Blocking I/O: called in worker threads. A store that cannot write the
story does not stop the run (its release, which must write the row, fails it if the store is
really gone).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig

from diagnosis_harness.continuations.starts import StreamStart
from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import Intent, ReleaseOutcome, RunState, StoredRunStatus
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.lineage import paused
from diagnosis_harness.runstore.store import RunPersistenceError, RunStore

if TYPE_CHECKING:
    from langgraph.types import StateUpdate

log = logging.getLogger(__name__)


def actor_of(config: RunnableConfig, default: str = "local") -> str:
    """Who is behind a server request: its auth user, ``api`` without auth; else ``default``."""
    configurable = config.get("configurable") or {}
    user = configurable.get("langgraph_auth_user_id")
    if isinstance(user, str) and user:
        return f"user:{user}"
    return "api" if configurable.get("graph_id") else default


def note_segment(ctx: RunContext, start: StreamStart) -> None:
    """Record that this stream begins (or goes on with) the run of ``ctx``."""
    begun = ctx.start.get("kind") or ("start" if start.input_kind == "turn" else "continue")
    ctx.start["kind"] = begun
    if begun == "idle":
        return
    segment = {"kind": begun, "by": ctx.actor or "local",
               "server_run_id": ctx.start.get("server_run_id"),
               "from_checkpoint": None if begun == "start" else start.checkpoint_id}
    try:
        ctx.store.note_segment(
            ctx.run_id, ctx.thread_id or "", segment, parent_run_id=ctx.start.get("parent_run_id"),
            fork_checkpoint_id=ctx.start.get("fork_checkpoint_id"),
            inherited=ctx.start.get("inherited"), options=ctx.start.get("options"),
            edits=ctx.start.get("edits") or ())
    except RunPersistenceError as exc:
        log.error("run %s: its segment could not be recorded: %s", ctx.run_id, exc)


def end_segment(ctx: RunContext, waiting: dict[str, Any] | None) -> None:
    """Record how this stream left the run: paused (``waiting``) or ended, and its run time."""
    if ctx.start.get("kind") == "idle":
        return
    if waiting is not None:
        ended: dict[str, Any] = {"ended": "paused", **waiting}
    elif ctx.lifecycle.state.terminal:
        ended = {"ended": ctx.lifecycle.state.value}
    else:
        ended = {"ended": "stopped"}
    try:
        ctx.store.end_segment(ctx.run_id, ended, run_time_ms=int(ctx.lifecycle.elapsed() * 1000))
    except RunPersistenceError as exc:
        log.error("run %s: the end of its segment could not be recorded: %s", ctx.run_id, exc)


def record_edit(store: RunStore, config: RunnableConfig, made: RunnableConfig,
                supersteps: Sequence[Sequence[StateUpdate]]) -> None:
    """Record one ``update_state``: the checkpoint it made, its keys, its node, who made it."""
    configurable, made_conf = config.get("configurable") or {}, made.get("configurable") or {}
    thread_id, checkpoint_id = made_conf.get("thread_id"), made_conf.get("checkpoint_id")
    if not thread_id or not checkpoint_id:
        return
    updates = [u for step in supersteps for u in step]
    keys = sorted({k for u in updates if isinstance(u.values, dict) for k in u.values})
    nodes = sorted({u.as_node for u in updates if u.as_node})
    try:
        store.record_state_edit(str(thread_id), str(checkpoint_id),
                                parent_checkpoint_id=configurable.get("checkpoint_id"),
                                as_node=",".join(nodes) or None, keys=keys,
                                edited_by=actor_of(config))
    except RunPersistenceError as exc:
        log.error("an edit of thread %s could not be recorded: %s", thread_id, exc)


def cancel_paused(store: RunStore, run_id: str, *, by: str, why: str,
                  usage: dict[str, Any] | None) -> bool:
    """End a paused run CANCELLED (nothing more is published); True if this call ended it.

    A pending approval is decided CANCELLED first, so an approval racing the cancel loses, and
    any later resume of the run is refused.
    """
    store.decide_approval(run_id, {"state": "CANCELLED", "decided_by": by, "note": why})
    row = store.get_run(run_id)
    intent = row.get("intent") if row else None
    return store.finish_run(
        run_id, status=StoredRunStatus.CANCELLED, run_state=RunState.CANCELLED,
        release_outcome=ReleaseOutcome.CANCELLED, fallback_type=None, failure_code=None,
        stop_reason=None, intent=Intent(intent) if intent else None, content=None,
        usage=BudgetUsage.model_validate(usage or {}))


def supersede_paused(ctx: RunContext, start: StreamStart) -> None:
    """A new turn on a thread whose latest run is paused ends that run CANCELLED.

    Only a *paused* run: one still running in another stream ends by itself.
    """
    owner = start.owner_run_id
    if start.input_kind != "turn" or not owner or owner == ctx.run_id:
        return
    try:
        row = ctx.store.get_run(owner)
        if row is None or row["finished_at"] is not None or not paused(ctx.store.lineage(owner)):
            return
        cancel_paused(ctx.store, owner, by=ctx.actor or "local",
                      why="a new turn was started on its thread",
                      usage=start.values.get("usage") if start.owns_state else None)
    except RunPersistenceError as exc:
        log.error("run %s: paused and superseded, but it could not be ended: %s", owner, exc)
