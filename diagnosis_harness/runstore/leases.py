"""Run leases (docs/design.md §9): which worker runs an unfinished run, and until when.

A worker owns a run while its lease holds: it claims the row when the run starts or resumes
and renews the claim by a heartbeat (:mod:`diagnosis_harness.runstore.worker`). A run whose
owner stopped renewing (its process died) is *stale*; the next worker that touches its thread,
or ``harness runs resume``, takes it over. A part of the one
:class:`~diagnosis_harness.runstore.sql.RunStore` class (split by concern).
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import BigInteger, Text, bindparam, or_, select, update

from diagnosis_harness.runstore.db import Prepared
from diagnosis_harness.runstore.part import StorePart
from diagnosis_harness.runstore.schema import LEASE_KEYS, runs

_KEY, _OWNER = bindparam("key", type_=Text), bindparam("owner", type_=Text)


def _claim(take_over: bool) -> Prepared:
    free = [runs.c.lease_owner.is_(None), runs.c.lease_owner == _OWNER,
            runs.c.lease_expires_ms < bindparam("now", type_=BigInteger)]
    if take_over:
        free.append(runs.c.lease_owner == bindparam("dead", type_=Text))
    return Prepared(update(runs).where(runs.c.run_id == _KEY, runs.c.finished_at.is_(None), or_(*free))
                    .values(lease_owner=_OWNER,
                            lease_expires_ms=bindparam("expires", type_=BigInteger)))


_CLAIMS = {False: _claim(False), True: _claim(True)}
_UNFINISHED_COLUMNS = ("run_id", "thread_id", "question", "started_at", *LEASE_KEYS)


def _unfinished(of_thread: bool, of_run: bool) -> Prepared:
    stmt = select(*(runs.c[c] for c in _UNFINISHED_COLUMNS)).where(runs.c.finished_at.is_(None))
    if of_thread:
        stmt = stmt.where(runs.c.thread_id == bindparam("thread", type_=Text))
    if of_run:
        stmt = stmt.where(runs.c.run_id == _KEY)
    return Prepared(stmt.order_by(runs.c.thread_id, runs.c.thread_seq))


_UNFINISHED = {(t, r): _unfinished(t, r) for t in (False, True) for r in (False, True)}
_RELEASE = Prepared(update(runs).where(runs.c.run_id == _KEY, runs.c.lease_owner == _OWNER,
                                       runs.c.finished_at.is_(None))  # a finished row keeps its last owner
                    .values(lease_owner=None, lease_expires_ms=None))


class RunLeases(StorePart):
    """The lease operations: a part of RunStore, not a store of its own."""

    def claim_run(self, run_id: str, owner: str, lease_s: float, *,
                  take_over_from: str | None = None) -> bool:
        """Own the unfinished run for ``lease_s`` seconds from now; False if it is not ours to own.

        Succeeds when the run is unowned, already ``owner``'s (a heartbeat), its lease expired,
        or it is owned by ``take_over_from`` (a worker known to be dead). One UPDATE, so of
        two workers claiming the same run exactly one wins. Wall-clock milliseconds: workers on
        several hosts need synchronised clocks.
        """
        now = int(time.time() * 1000)
        params = {"key": self._text(run_id), "owner": owner, "now": now,
                  "expires": now + max(int(lease_s * 1000), 1)}
        if take_over_from is not None:
            params["dead"] = self._text(take_over_from)
        stmt = _CLAIMS[take_over_from is not None]
        return bool(self._db.run_driver(lambda driver: driver.execute(stmt, params).rowcount == 1,
                                        f"claim run {run_id}"))

    def release_lease(self, run_id: str, owner: str) -> None:
        """Give up ``owner``'s lease (the run paused or ended); someone else's is left alone."""
        params = {"key": self._text(run_id), "owner": owner}
        self._db.run_driver(lambda driver: driver.execute(_RELEASE, params),
                            f"release the lease of run {run_id}")

    def unfinished_runs(self, thread_id: str | None = None,
                        run_id: str | None = None) -> list[dict[str, Any]]:
        """Runs without a terminal row (of a thread, or one run), oldest first, with their lease.

        Each is ``{run_id, thread_id, question, started_at, lease_owner, lease_expires_ms}``.
        """
        params = {}
        if thread_id is not None:
            params["thread"] = self._text(thread_id)
        if run_id is not None:
            params["key"] = self._text(run_id)
        stmt = _UNFINISHED[thread_id is not None, run_id is not None]
        rows = self._read_driver(lambda driver: driver.rows(stmt, params), "read unfinished runs")
        return [dict(zip(_UNFINISHED_COLUMNS, row, strict=True)) for row in rows]
