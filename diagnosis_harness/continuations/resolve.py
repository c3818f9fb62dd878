"""Which harness run a stream runs: the rules (docs/design.md §14).

From what the stream starts from (:class:`~diagnosis_harness.continuations.starts.StreamStart`)
and the run store's lineage table, :func:`plan_start` decides:

- ``start``: a new turn (input ``{"question": …}``) begins a new run (a run of the thread still
  *paused* at the head is superseded by the run session: it ends CANCELLED);
- ``idle``: nothing to run (an empty thread, or one whose last run went to its end, continued
  with no input): no row, no events;
- ``continue``: no input or a ``Command(resume=…)`` at the thread's latest checkpoint, whose
  run is still unfinished and paused there (under edits made since), **continues that run**:
  same run id and row, its events, its budget, its run time, its options;
- ``fork``: anywhere else — an earlier checkpoint (time travel), or a checkpoint whose run is
  finished — **a new run** forked from the run that wrote the checkpoint; :func:`inherit`
  copies what its state inherits into its trace.

A ``Command(resume=…)`` with nothing waiting, on a decided or cancelled run, or with an answer
that is not ``{"approve": bool, "note"?: str}`` is refused before anything runs
(:class:`~diagnosis_harness.continuations.starts.ContinuationRefused`). The run context each
plan gets (services, options) is built by :mod:`diagnosis_harness.session.starts`. Blocking:
reads and writes the run store on the calling thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from diagnosis_harness.continuations.edits import awaiting_approval
from diagnosis_harness.continuations.starts import ContinuationRefused, StreamStart
from diagnosis_harness.guards.release_check import GUARD_VERDICTS, JUDGED_DRAFT, parse_decision
from diagnosis_harness.run.records import resolve
from diagnosis_harness.runstore.lineage import Lineage, approval_of, paused, paused_at
from diagnosis_harness.runstore.store import RunStore

StartKind = Literal["start", "idle", "continue", "fork"]


@dataclass(frozen=True)
class StartPlan:
    """What a stream does with the harness run: begin one, nothing, continue one, fork one."""

    kind: StartKind
    owner_run_id: str | None = None
    """The run that wrote the checkpoint the stream starts from (continued, or the fork's parent)."""
    lineage: Lineage | None = None
    """That run's lineage row (its options, its segments), or None."""


def plan_start(store: RunStore, start: StreamStart) -> StartPlan:
    """Decide what the stream ``start`` describes does; raises ContinuationRefused before anything runs."""
    if start.input_kind == "turn":
        return StartPlan("start")
    if start.checkpoint_id is None or not start.next:
        if start.input_kind == "resume":
            owner = start.owner_run_id
            row = store.get_run(owner) if owner else None
            if row is not None and row["finished_at"] is not None:
                raise ContinuationRefused(decided(row, store.lineage(row["run_id"])))
            raise ContinuationRefused(f"nothing waits for an answer on thread {start.thread_id}: "
                                      "its last run has ended")
        return StartPlan("idle")
    owner = start.owner_run_id
    row = store.get_run(owner) if owner else None
    lineage = store.lineage(owner) if owner else None
    if start.input_kind == "resume":
        _check_answer(start, row, lineage)
    # Unfinished: no final row yet — or no row at all, when it paused before its ``route``.
    unfinished = row["finished_at"] is None if row is not None else lineage is not None
    if start.from_head and unfinished and _where_it_paused(lineage, start):
        return StartPlan("continue", owner, lineage)
    return StartPlan("fork", owner, lineage)


def decided(row: dict[str, Any], lineage: Lineage | None) -> str:
    """Why a finished run takes no answer: how it was decided."""
    approval = approval_of(lineage)
    state = approval.get("state")
    how = (f"{state} by {approval.get('decided_by')} at {approval.get('decided_at')}"
           if state and state != "PENDING" else f"it ended {row['release_outcome']}")
    return f"run {row['run_id']} was already decided: {how}; a decision is final"


def _where_it_paused(lineage: Lineage | None, start: StreamStart) -> bool:
    """Whether the stream starts where the run paused (under edits made since), not earlier.

    An edit of an earlier checkpoint of a paused run makes a new head too; going on from it
    is a re-run from that checkpoint — a fork — or the run would get back budget it spent.
    """
    at = paused_at(lineage)
    return at is None or at == start.base_checkpoint_id


def _check_answer(start: StreamStart, row: dict[str, Any] | None, lineage: Lineage | None) -> None:
    """Refuse a resume with nothing to answer, of a decided run, or with a malformed answer."""
    if not start.interrupts:
        raise ContinuationRefused("nothing waits for an answer at this checkpoint "
                                  "(a breakpoint is continued with no input)")
    if row is not None and row["finished_at"] is not None:
        raise ContinuationRefused(decided(row, lineage))
    if awaiting_approval(start.interrupts) and parse_decision(start.resume) is None:
        raise ContinuationRefused('answer the approval with {"approve": true|false, "note": "…"}')


def inherit(store: RunStore, run_id: str, parent: str, start: StreamStart) -> tuple[int, int]:
    """Copy into a fork's trace what its state inherits and the parent's store backs.

    Returns how many tool records and judgements were copied.
    """
    if not start.owns_state:
        return 0, 0  # forked before the parent's route: the state is the previous turn's
    trace = store.trace(parent)
    backed, _ = resolve(start.values.get("records") or [], trace["tool_records"])
    for record in backed:
        store.record_tool(run_id, record)
    judgements = [v["verdict"] for v in trace["verdicts"] if v["guard"] == JUDGED_DRAFT]
    for judgement in judgements:  # bound to a draft's digest: valid only for that draft
        store.record_verdict(run_id, JUDGED_DRAFT, judgement)
    for guard in GUARD_VERDICTS:  # the guards' verdicts the state holds, as the parent recorded
        held = start.values.get(GUARD_VERDICTS[guard])
        if held is not None and any(v["guard"] == guard and v["verdict"] == held
                                    for v in trace["verdicts"]):
            store.record_verdict(run_id, guard, held)
    return len(backed), len(judgements)


def edits_since(store: RunStore, start: StreamStart) -> list[dict[str, Any]]:
    """The state edits made since the owner's last checkpoint, as its lineage records them."""
    out = []
    for checkpoint_id in start.edits:
        edit = store.state_edit(start.thread_id or "", checkpoint_id) if start.thread_id else None
        out.append({"checkpoint_id": checkpoint_id,
                    "as_node": edit.get("as_node") if edit else None,
                    "keys": edit.get("keys") if edit else None,
                    "edited_by": edit.get("edited_by") if edit else None,
                    "edited_at": edit.get("edited_at") if edit else None})
    return out


def paused_run(store: RunStore, run_id: str) -> tuple[dict[str, Any], Lineage]:
    """The row and lineage of a run that is paused now; ContinuationRefused otherwise (why not)."""
    row = store.get_run(run_id)
    if row is None:
        raise ContinuationRefused(f"no run {run_id} in the run store")
    lineage = store.lineage(run_id) or {}
    approval = approval_of(lineage)
    if row["finished_at"] is not None:
        how = f" ({approval['state']} by {approval.get('decided_by')})" \
            if approval.get("state") not in (None, "PENDING") else ""
        raise ContinuationRefused(f"run {run_id} was already decided: it ended "
                                  f"{row['release_outcome']}{how}; a decision is final")
    if not paused(lineage):
        raise ContinuationRefused(f"run {run_id} is not paused (it is running, or its stream ended "
                                  "without a pause)")
    return row, lineage
