"""The run store's lineage table: what happens to a run between and around its streams (docs/design.md §14).

A run is not always one stream. A run paused at a breakpoint or an ``interrupt()`` is continued
by later streams (on the dev server each one is a new server run); a run re-run from an earlier
checkpoint is a new run forked from its parent; a thread's state may be edited between streams;
a verified report may wait for a human's approval. This module owns the two tables of migration 3
that keep that story, and is their only reader and writer:

- ``run_lineage``, one row per run: parent run and fork point, what it inherited (usage,
  records, verdicts), its segments (each stream that ran it: how it started, who started it, how
  it ended), the state edits it ran with, its approval, its run time so far and its options;
- ``state_edits``, one row per ``update_state`` of a thread: which keys, as which node, by whom.

Its API is small: the store's lineage methods (:class:`LineageStore`, a part of the one
:class:`~diagnosis_harness.runstore.sql.RunStore` class) and the readers of one decoded lineage
row (:func:`paused`, :func:`paused_at`, :func:`approval_of`, :func:`options_of`), so no caller
digs in its JSON. What a continuation *does* with it is :mod:`diagnosis_harness.continuations`.
Writes run on the calling thread, like ``start_run``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import BigInteger, Connection, RowMapping, Text, bindparam, select, update

from diagnosis_harness.runstore.db import Driver, Prepared
from diagnosis_harness.runstore.part import StorePart
from diagnosis_harness.runstore.schema import run_lineage, runs, state_edits
from diagnosis_harness.runstore.values import clamp_count, now_iso, to_json

APPROVAL_STATES = ("PENDING", "APPROVED", "REJECTED", "CANCELLED")
"""An approval waits (PENDING) until it is decided once: APPROVED, REJECTED or CANCELLED."""

_JSON_COLUMNS = ("inherited", "segments", "edits", "approval", "options")

Lineage = dict[str, Any]
"""One run's lineage row, JSON decoded (:meth:`~diagnosis_harness.runstore.sql.RunStore.lineage`)."""


# --- reading one lineage row ----------------------------------------------------------------------

def _last_segment(lineage: Lineage | None) -> dict[str, Any]:
    segments = (lineage or {}).get("segments") or []
    return dict(segments[-1]) if segments else {}


def paused(lineage: Lineage | None) -> bool:
    """Whether the run's latest stream left it paused (a breakpoint or awaiting approval)."""
    return _last_segment(lineage).get("ended") == "paused"


def paused_at(lineage: Lineage | None) -> str | None:
    """The checkpoint the run's latest stream paused at, or None (not paused, or not recorded)."""
    found = _last_segment(lineage).get("checkpoint_id")
    return str(found) if found else None


def approval_of(lineage: Lineage | None) -> dict[str, Any]:
    """The run's approval (``state`` PENDING, APPROVED, REJECTED, CANCELLED), or ``{}``."""
    return dict((lineage or {}).get("approval") or {})


def options_of(lineage: Lineage | None) -> dict[str, Any]:
    """The run options a client chose for the run (its continuations keep them), or ``{}``."""
    return dict((lineage or {}).get("options") or {})


def _decode(row: RowMapping) -> Lineage:
    out = dict(row)
    for key in _JSON_COLUMNS:
        if key in out:
            out[key] = json.loads(out[key]) if out[key] is not None else None
    return out


_KEY = bindparam("key", type_=Text)
_STORY = Prepared(select(run_lineage.c.segments, run_lineage.c.edits).where(run_lineage.c.run_id == _KEY))
_THREAD_OF = Prepared(select(runs.c.thread_id).where(runs.c.run_id == _KEY))
_ORIGIN = Prepared(update(run_lineage).where(run_lineage.c.run_id == _KEY).values(
    parent_run_id=bindparam("v_parent", type_=Text),
    fork_checkpoint_id=bindparam("v_fork", type_=Text),
    inherited=bindparam("v_inherited", type_=Text), options=bindparam("v_options", type_=Text)))
_SEGMENTS = Prepared(update(run_lineage).where(run_lineage.c.run_id == _KEY).values(
    segments=bindparam("v_segments", type_=Text), edits=bindparam("v_edits", type_=Text),
    updated_at=bindparam("v_updated_at", type_=Text)))
_ENDED = Prepared(update(run_lineage).where(run_lineage.c.run_id == _KEY).values(
    segments=bindparam("v_segments", type_=Text),
    run_time_ms=bindparam("v_run_time_ms", type_=BigInteger),
    updated_at=bindparam("v_updated_at", type_=Text)))
"""The statements of a stream's start and end (every run makes them): driver statements."""


class LineageStore(StorePart):
    """Lineage, segments, edits and approvals of runs: a part of RunStore, not a store of its own.

    What the run session, the nodes and the CLI need of the lineage table; thread-safe.
    """

    # --- writers --------------------------------------------------------------------------------

    def _ensure_lineage(self, conn: Connection, key: str, thread_id: str | None = None) -> None:
        """Create the run's lineage row (empty story) if it has none; thread from its run row."""
        if thread_id is None:
            thread_id = conn.execute(select(runs.c.thread_id).where(runs.c.run_id == key)).scalar()
        conn.execute(self._db.insert(run_lineage).values(
            run_id=key, thread_id=self._text(thread_id or ""), segments=to_json([], "segments"),
            edits=to_json([], "edits"), run_time_ms=0, updated_at=now_iso(),
        ).on_conflict_do_nothing(index_elements=[run_lineage.c.run_id]))

    @functools.cached_property
    def _new_lineage(self) -> Prepared:
        """:meth:`_ensure_lineage`'s INSERT with the thread given, as a driver statement."""
        return Prepared(self._db.insert(run_lineage).values(
            run_id=bindparam("v_run_id", type_=Text), thread_id=bindparam("v_thread_id", type_=Text),
            segments=bindparam("v_segments", type_=Text), edits=bindparam("v_edits", type_=Text),
            run_time_ms=0, updated_at=bindparam("v_updated_at", type_=Text),
        ).on_conflict_do_nothing(index_elements=[run_lineage.c.run_id]))

    def note_segment(self, run_id: str, thread_id: str, segment: dict[str, Any], *,
                     parent_run_id: str | None = None, fork_checkpoint_id: str | None = None,
                     inherited: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                     edits: Sequence[dict[str, Any]] = ()) -> None:
        """Record that a stream started running the run (creating its lineage row if needed).

        The lineage fields (parent, fork point, inherited, options) are set once, at creation.
        """
        key = self._text(run_id)
        segment = {**segment, "started_at": now_iso()}
        stamped = [dict(e, run_segment=None) for e in edits]

        def write(driver: Driver) -> None:
            found = next(iter(driver.rows(_STORY, {"key": key})), None)
            segments: list[dict[str, Any]] = json.loads(found[0]) if found else []
            known: list[dict[str, Any]] = json.loads(found[1]) if found else []
            if found is None:
                thread = thread_id if thread_id is not None else next(
                    (row[0] for row in driver.rows(_THREAD_OF, {"key": key})), None)
                driver.execute(self._new_lineage, {
                    "v_run_id": key, "v_thread_id": self._text(thread or ""),
                    "v_segments": to_json([], "segments"), "v_edits": to_json([], "edits"),
                    "v_updated_at": now_iso()})
                driver.execute(_ORIGIN, {
                    "key": key, "v_parent": parent_run_id, "v_fork": fork_checkpoint_id,
                    "v_inherited": to_json(inherited, "inherited") if inherited is not None else None,
                    "v_options": to_json(options, "options") if options else None})
            segments.append(segment)
            for edit in stamped:
                edit["run_segment"] = len(segments)
            driver.execute(_SEGMENTS, {"key": key, "v_segments": to_json(segments, "segments"),
                                       "v_edits": to_json([*known, *stamped], "edits"),
                                       "v_updated_at": now_iso()})

        self._db.run_driver(write, f"record a segment of run {run_id}")

    def end_segment(self, run_id: str, ended: dict[str, Any], *, run_time_ms: int) -> None:
        """Record how the run's latest stream ended (paused, released…) and its run time so far."""
        key = self._text(run_id)

        def write(driver: Driver) -> None:
            found = next(iter(driver.rows(_STORY, {"key": key})), None)
            if found is None:
                return  # a run that never noted a segment (nothing ran)
            segments = json.loads(found[0])
            if segments:
                segments[-1] = {**segments[-1], **ended, "ended_at": now_iso()}
            driver.execute(_ENDED, {"key": key, "v_segments": to_json(segments, "segments"),
                                    "v_run_time_ms": clamp_count(run_time_ms),
                                    "v_updated_at": now_iso()})

        self._db.run_driver(write, f"record the end of a segment of run {run_id}")

    def request_approval(self, run_id: str, request: dict[str, Any]) -> dict[str, Any]:
        """Mark the run PENDING approval unless it has one already; return the approval as stored.

        Idempotent: ``release`` runs again when it is resumed and asks again; the first request
        (its time, its digest) stays.
        """
        key = self._text(run_id)
        pending = {**request, "state": "PENDING", "requested_at": now_iso()}

        def write(conn: Connection) -> dict[str, Any]:
            self._ensure_lineage(conn, key)
            conn.execute(update(run_lineage).where(
                run_lineage.c.run_id == key, run_lineage.c.approval_state.is_(None)).values(
                approval_state="PENDING", approval=to_json(pending, "approval"),
                updated_at=now_iso()))
            found = conn.execute(select(run_lineage.c.approval)
                                 .where(run_lineage.c.run_id == key)).first()
            assert found is not None and found[0] is not None
            return dict(json.loads(found[0]))

        return self._db.run(write, f"request the approval of run {run_id}")

    def decide_approval(self, run_id: str, decision: dict[str, Any]) -> bool:
        """Decide a PENDING approval (``decision["state"]``: APPROVED, REJECTED or CANCELLED).

        The guard is in the UPDATE (``approval_state = 'PENDING'``): of two concurrent
        decisions exactly one writes; the other gets False and must follow the stored one.
        """
        state = decision.get("state")
        if state not in APPROVAL_STATES[1:]:
            raise ValueError(f"an approval is decided as APPROVED, REJECTED or CANCELLED, not {state!r}")
        key = self._text(run_id)

        def write(conn: Connection) -> bool:
            found = conn.execute(select(run_lineage.c.approval).where(
                run_lineage.c.run_id == key, run_lineage.c.approval_state == "PENDING")).first()
            if found is None:
                return False
            decided = {**json.loads(found[0]), **decision, "decided_at": now_iso()}
            done = conn.execute(update(run_lineage).where(
                run_lineage.c.run_id == key, run_lineage.c.approval_state == "PENDING").values(
                approval_state=state, approval=to_json(decided, "approval"), updated_at=now_iso()))
            return bool(done.rowcount == 1)

        return self._db.run(write, f"decide the approval of run {run_id}")

    def record_state_edit(self, thread_id: str, checkpoint_id: str, *,
                          parent_checkpoint_id: str | None, as_node: str | None,
                          keys: Sequence[str], edited_by: str | None) -> None:
        """Record one edit of a thread's state (a second record of the same checkpoint is ignored)."""
        stmt = self._db.insert(state_edits).values(
            thread_id=self._text(thread_id), checkpoint_id=self._text(checkpoint_id),
            parent_checkpoint_id=parent_checkpoint_id, as_node=as_node,
            edit_keys=to_json(sorted(keys), "edited keys"), edited_by=self._text(edited_by),
            edited_at=now_iso(),
        ).on_conflict_do_nothing(index_elements=[state_edits.c.thread_id, state_edits.c.checkpoint_id])
        self._db.run(lambda conn: conn.execute(stmt), f"record an edit of thread {thread_id}")

    # --- readers --------------------------------------------------------------------------------

    def lineage(self, run_id: str) -> Lineage | None:
        """The run's lineage row, JSON decoded, or None (a run that never paused or forked)."""
        stmt = select(run_lineage).where(run_lineage.c.run_id == self._text(run_id))
        row = self._read(lambda conn: conn.execute(stmt).mappings().first(), f"read lineage of {run_id}")
        return None if row is None else _decode(row)

    def children(self, run_id: str) -> list[str]:
        """Runs forked from ``run_id``, oldest first."""
        stmt = (select(run_lineage.c.run_id).where(run_lineage.c.parent_run_id == self._text(run_id))
                .order_by(run_lineage.c.updated_at))
        return [r[0] for r in self._read(lambda conn: conn.execute(stmt).all(),
                                         f"read the forks of run {run_id}")]

    def state_edit(self, thread_id: str, checkpoint_id: str) -> dict[str, Any] | None:
        """The edit that made ``checkpoint_id`` of ``thread_id``, or None."""
        stmt = select(state_edits).where(state_edits.c.thread_id == self._text(thread_id),
                                         state_edits.c.checkpoint_id == self._text(checkpoint_id))
        row = self._read(lambda conn: conn.execute(stmt).mappings().first(),
                         f"read an edit of thread {thread_id}")
        if row is None:
            return None
        out = dict(row)
        out["keys"] = json.loads(out.pop("edit_keys"))
        return out
