"""Alert groups and the notification outbox in the run store (docs/design.md §17).

*One investigation per alert group*, across any number of workers: every decision is one
conditional UPDATE of the group's row (``alert_groups``, keyed by Alertmanager's ``groupKey``),
so of several workers receiving the same notification exactly one wins the start — SQLite's
write lock or PostgreSQL's row lock decides, with the WHERE re-checked on the row it locked.

A group is ACTIVE from the winning claim until its run is seen finished in ``runs``, or its run
is found lost with its worker (:mod:`diagnosis_harness.runstore.alert_sweep` decides, and
:meth:`AlertRecords.release_lost_alert_group` releases it); DONE after; RESOLVED once
Alertmanager said so (a later firing starts a new investigation). A new start needs the group
not ACTIVE and a different set of firing fingerprints than the last one (a released group has
none, so its next notification starts one).

The outbox holds one row per (run, target); that primary key is the idempotency key: queued at
intake, posted once the run has finished, leased by one deliverer just before each post, retried with
backoff (``next_attempt_ms``) across restarts, SENT once. A part of the one
:class:`~diagnosis_harness.runstore.sql.RunStore` class (split by concern).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection, and_, or_, select, update

from diagnosis_harness.runstore.part import StorePart
from diagnosis_harness.runstore.schema import alert_groups, outbox, runs
from diagnosis_harness.runstore.values import now_iso

log = logging.getLogger(__name__)

STALE_CLAIM_S = 120.0
"""A claim whose run never got an id (its worker died while starting it) is given up after this."""


class AlertRecords(StorePart):
    """Alert-group claims and outbox rows: a part of RunStore, not a store of its own."""

    # --- alert groups ---------------------------------------------------------------------------

    def claim_alert_group(self, group_key: str, thread_id: str, firing: list[str],
                          claimant: str = "") -> tuple[str | None, dict[str, Any]]:
        """Claim the start of the group's investigation; (claim id or None, the group's row).

        None means: a duplicate (the group's run is active, or it already investigated exactly
        these firing alerts). Every notification is counted on the row. The claim id starts
        with ``claimant`` (the worker, ``host:pid:token``), so a claim whose worker died before
        its run had a row can be told lost (``runstore.alert_sweep``).
        """
        key, fired = self._text(group_key), json.dumps(sorted(firing))
        claim = f"{claimant}/{uuid.uuid4().hex}"
        stale_before = _iso_ago(STALE_CLAIM_S)

        def step(conn: Connection) -> tuple[str | None, dict[str, Any]]:
            conn.execute(self._db.insert(alert_groups).values(
                group_key=key, thread_id=self._text(thread_id), state="DONE", firing=None,
                claim_id=None, run_id=None, notifications=0, updated_at=now_iso(),
            ).on_conflict_do_nothing(index_elements=[alert_groups.c.group_key]))
            finished = select(runs.c.run_id).where(runs.c.run_id == alert_groups.c.run_id,
                                                   runs.c.finished_at.is_not(None)).exists()
            # An ACTIVE group whose run finished (or whose start died) is DONE: said once, here.
            conn.execute(update(alert_groups).where(
                alert_groups.c.group_key == key, alert_groups.c.state == "ACTIVE",
                or_(finished, and_(alert_groups.c.run_id.is_(None),
                                   alert_groups.c.updated_at < stale_before)),
            ).values(state="DONE"))
            won = conn.execute(update(alert_groups).where(
                alert_groups.c.group_key == key, alert_groups.c.state != "ACTIVE",
                or_(alert_groups.c.firing.is_(None), alert_groups.c.firing != fired),
            ).values(state="ACTIVE", firing=fired, claim_id=claim, run_id=None,
                     notifications=alert_groups.c.notifications + 1,
                     updated_at=now_iso())).rowcount == 1
            if not won:
                conn.execute(update(alert_groups).where(alert_groups.c.group_key == key).values(
                    notifications=alert_groups.c.notifications + 1))
            row = conn.execute(select(alert_groups).where(alert_groups.c.group_key == key)).one()
            return (claim if won else None), dict(row._mapping)

        return self._db.run(step, f"claim alert group {group_key}")

    def attach_alert_run(self, group_key: str, claim: str, run_id: str) -> bool:
        """Record the run a claim started; False if the claim is no longer the group's (resolved)."""
        stmt = update(alert_groups).where(
            alert_groups.c.group_key == self._text(group_key), alert_groups.c.claim_id == claim,
            alert_groups.c.state == "ACTIVE").values(run_id=self._text(run_id), updated_at=now_iso())
        return bool(self._db.run(lambda conn: conn.execute(stmt).rowcount == 1,
                                 f"record the run of alert group {group_key}"))

    def drop_alert_claim(self, group_key: str, claim: str) -> None:
        """Give a claim up (its run could not be started): the next notification may start one."""
        stmt = update(alert_groups).where(
            alert_groups.c.group_key == self._text(group_key), alert_groups.c.claim_id == claim,
            alert_groups.c.run_id.is_(None)).values(state="DONE", firing=None)
        self._db.run(lambda conn: conn.execute(stmt), f"drop the claim of alert group {group_key}")

    def resolve_alert_group(self, group_key: str, thread_id: str) -> dict[str, Any] | None:
        """Mark the group RESOLVED; the row as it was before (None: the group was never seen)."""
        key = self._text(group_key)

        def step(conn: Connection) -> dict[str, Any] | None:
            before = conn.execute(select(alert_groups).where(alert_groups.c.group_key == key)
                                  .with_for_update()).first()
            if before is None:
                conn.execute(self._db.insert(alert_groups).values(
                    group_key=key, thread_id=self._text(thread_id), state="RESOLVED", firing=None,
                    claim_id=None, run_id=None, notifications=1, updated_at=now_iso()
                ).on_conflict_do_nothing(index_elements=[alert_groups.c.group_key]))
                return None
            conn.execute(update(alert_groups).where(alert_groups.c.group_key == key).values(
                state="RESOLVED", firing=None, notifications=alert_groups.c.notifications + 1,
                updated_at=now_iso()))
            return dict(before._mapping)

        return self._db.run(step, f"resolve alert group {group_key}")

    def release_lost_alert_group(self, group: dict[str, Any], why: str) -> bool:
        """Give up an ACTIVE group's lost investigation; False if the group changed meanwhile.

        ACTIVE → DONE with no firing set (the next notification starts a new run), and the lost
        run's queued posts SKIPPED (its row will end FAILED, which is not the group's answer),
        in one transaction, on the condition that the group still has the claim ``group`` shows.
        """
        key, run_id = group["group_key"], group["run_id"]
        same_claim = (alert_groups.c.claim_id.is_(None) if group["claim_id"] is None
                      else alert_groups.c.claim_id == group["claim_id"])

        def step(conn: Connection) -> bool:
            released = conn.execute(update(alert_groups).where(
                alert_groups.c.group_key == key, alert_groups.c.state == "ACTIVE", same_claim,
            ).values(state="DONE", firing=None, updated_at=now_iso())).rowcount == 1
            if released and run_id is not None:
                conn.execute(update(outbox).where(
                    outbox.c.run_id == run_id, outbox.c.state == "WAITING",
                ).values(state="SKIPPED", lease_owner=None, lease_expires_ms=None,
                         last_error=f"not posted: {why}; the alert group is investigated again "
                                    "at its next notification", sent_at=now_iso()))
            return released

        released = bool(self._db.run(step, f"release the lost run of alert group {key}"))
        if released:
            log.warning("alert group %s: %s; claimable again", key, why)
        return released

    def active_alert_groups(self, limit: int = 500) -> list[dict[str, Any]]:
        """ACTIVE alert groups' rows, the longest unchanged first."""
        stmt = (select(alert_groups).where(alert_groups.c.state == "ACTIVE")
                .order_by(alert_groups.c.updated_at).limit(limit))
        return self._read(lambda conn: [dict(r._mapping) for r in conn.execute(stmt)],
                          "read active alert groups")

    def alert_group(self, group_key: str) -> dict[str, Any] | None:
        """The group's row, or None."""
        stmt = select(alert_groups).where(alert_groups.c.group_key == self._text(group_key))
        row = self._read(lambda conn: conn.execute(stmt).first(), "read an alert group")
        return None if row is None else dict(row._mapping)

    # --- outbox ---------------------------------------------------------------------------------

    def queue_posts(self, run_id: str, posts: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Queue (target, kind, context) posts of a run; a target queued before is left alone."""
        now_ms = int(time.time() * 1000)

        def step(conn: Connection) -> None:
            for target, kind, context in posts:
                conn.execute(self._db.insert(outbox).values(
                    run_id=self._text(run_id), target=self._text(target), kind=kind,
                    context=json.dumps(context, ensure_ascii=False), state="WAITING", attempts=0,
                    next_attempt_ms=now_ms, created_at=now_iso(),
                ).on_conflict_do_nothing(index_elements=[outbox.c.run_id, outbox.c.target]))

        self._db.run(step, f"queue the posts of run {run_id}")

    def due_posts(self, limit: int = 100, busy: Collection[str] = ()) -> list[tuple[str, str]]:
        """(run id, target) of due posts, oldest first; nothing is leased (:meth:`lease_post` is).

        Due: WAITING, its run finished, its next attempt due, no deliverer holding it. Targets
        in ``busy`` are left out (a deliverer's lane is still posting to them), so a slow
        receiver's backlog never fills the ``limit`` and hides the other targets' posts.
        """
        now_ms = int(time.time() * 1000)
        finished = select(runs.c.run_id).where(runs.c.run_id == outbox.c.run_id,
                                               runs.c.finished_at.is_not(None)).exists()
        due = select(outbox.c.run_id, outbox.c.target).where(
            outbox.c.state == "WAITING", outbox.c.next_attempt_ms <= now_ms, finished,
            or_(outbox.c.lease_expires_ms.is_(None), outbox.c.lease_expires_ms < now_ms),
        ).order_by(outbox.c.created_at).limit(limit)
        if busy:
            due = due.where(outbox.c.target.not_in([self._text(t) for t in busy]))
        rows = self._read(lambda conn: conn.execute(due).all(), "read due posts")
        return [(str(run_id), str(target)) for run_id, target in rows]

    def lease_post(self, run_id: str, target: str, owner: str, lease_s: float
                   ) -> dict[str, Any] | None:
        """Lease one due post for ``lease_s`` seconds; its row, or None if it is not ours to make.

        None: another deliverer has it, or it is no longer due. One UPDATE with the lease
        re-checked: of two deliverers, one gets it.

        A post is leased just before it is made, one at a time, for longer than the post's own
        deadline: the lease cannot run out while the post is in flight, so no second deliverer
        makes it again.
        """
        now_ms = int(time.time() * 1000)
        key = (outbox.c.run_id == self._text(run_id), outbox.c.target == self._text(target))

        def step(conn: Connection) -> dict[str, Any] | None:
            got = conn.execute(update(outbox).where(
                *key, outbox.c.state == "WAITING", outbox.c.next_attempt_ms <= now_ms,
                or_(outbox.c.lease_expires_ms.is_(None), outbox.c.lease_expires_ms < now_ms),
            ).values(lease_owner=owner, lease_expires_ms=now_ms + int(lease_s * 1000))).rowcount
            if got != 1:
                return None
            return dict(conn.execute(select(outbox).where(*key)).one()._mapping)

        return self._db.run(step, f"lease a post of run {run_id}")

    def settle_post(self, run_id: str, target: str, owner: str, *, state: str,
                    error: str | None = None, retry_in_s: float | None = None) -> None:
        """End an attempt: SENT or SKIPPED, or (``retry_in_s``) WAITING again with the error."""
        values: dict[str, Any] = {"lease_owner": None, "lease_expires_ms": None,
                                  "attempts": outbox.c.attempts + 1, "last_error": error}
        if retry_in_s is not None:
            values.update(state="WAITING",
                          next_attempt_ms=int((time.time() + retry_in_s) * 1000))
        else:
            values.update(state=state, sent_at=now_iso())
        stmt = update(outbox).where(outbox.c.run_id == self._text(run_id),
                                    outbox.c.target == self._text(target),
                                    outbox.c.lease_owner == owner).values(values)
        self._db.run(lambda conn: conn.execute(stmt), f"settle a post of run {run_id}")

    def posts(self, run_id: str) -> list[dict[str, Any]]:
        """A run's outbox rows (for ``harness runs show``), oldest first."""
        stmt = (select(outbox.c.target, outbox.c.kind, outbox.c.state, outbox.c.attempts,
                       outbox.c.last_error, outbox.c.sent_at)
                .where(outbox.c.run_id == self._text(run_id)).order_by(outbox.c.created_at))
        rows = self._read(lambda conn: list(conn.execute(stmt).mappings()), "read a run's posts")
        return [dict(row) for row in rows]


def age_s(iso: str) -> float:
    """Seconds since an ISO-8601 time the store wrote (0 if it cannot be read)."""
    from datetime import UTC, datetime

    try:
        stamp = datetime.fromisoformat(iso)
    except ValueError:
        return 0.0
    return (datetime.now(UTC) - (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC))
            ).total_seconds()


def _iso_ago(seconds: float) -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat()
