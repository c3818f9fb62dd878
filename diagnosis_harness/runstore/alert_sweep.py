"""Alert groups whose investigation was lost with its worker (docs/design.md §17).

A worker that dies (kill -9, a lost host) leaves its alert groups ACTIVE; nothing would ever
mark them DONE, and every later notification of them would be a ``duplicate``. A group's
investigation is *lost* when no live worker will finish it:

- the claim never got a run id, and its claimant is provably dead (same host) or the claim is
  older than ``STALE_CLAIM_S``;
- the run never got a row in ``runs``, and its claimant is provably dead or ``UNSTARTED_S``
  passed (a run waits in a busy server's queue before its first node writes the row);
- the run's row is unfinished and its lease holder is gone (lease expired, or the worker
  provably dead: :func:`~diagnosis_harness.runstore.worker.is_stale`).

A run that no worker holds on purpose (paused for approval) is not lost, nor a finished one.
A lost group is released (claimable again, its lost run's queued posts SKIPPED) by the next
notification's claim (:func:`release_if_lost`) or by the deliverer's periodic :func:`sweep`,
which also settles the lost run's row FAILED / RUN_ABANDONED.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.runstore.alerts import STALE_CLAIM_S, age_s
from diagnosis_harness.runstore.settle import settle_abandoned
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.runstore.worker import is_stale, owner_dead

UNSTARTED_S = 600.0
"""A claimed run that never got a row is given up after this when its claimant's death cannot be
seen (another host). Longer than a run should ever wait in a server's queue."""
SWEEP_LIMIT = 500
"""ACTIVE groups one sweep looks at."""


def lost_because(store: RunStore, group: dict[str, Any]) -> str | None:
    """Why an ACTIVE group's investigation is lost (module docstring), or None. Blocking I/O."""
    claimant = str(group.get("claim_id") or "").rpartition("/")[0]
    age = age_s(group["updated_at"])
    if group["run_id"] is None:
        if owner_dead(claimant) or age > STALE_CLAIM_S:
            return "its start died before the run had an id"
        return None
    leases = store.unfinished_runs(run_id=group["run_id"])
    if leases:
        if is_stale(leases[0]):
            return f"its run's worker ({leases[0]['lease_owner']}) stopped"
        return None
    if store.get_run(group["run_id"]) is not None:
        return None  # finished: the claim marks the group DONE
    if owner_dead(claimant) or age > UNSTARTED_S:
        return "its run never started (the worker that claimed it stopped)"
    return None


def release_if_lost(store: RunStore, group_key: str) -> bool:
    """Release the group if it is ACTIVE and its investigation is lost; whether it was."""
    group = store.alert_group(group_key)
    if group is None or group["state"] != "ACTIVE":
        return False
    why = lost_because(store, group)
    return why is not None and store.release_lost_alert_group(group, why)


def sweep(store: RunStore) -> list[str]:
    """Release every lost ACTIVE group and settle its lost run; the released group keys."""
    released = []
    for group in store.active_alert_groups(SWEEP_LIMIT):
        why = lost_because(store, group)
        if why is None or not store.release_lost_alert_group(group, why):
            continue
        released.append(group["group_key"])
        run_id = group["run_id"]
        if run_id and store.unfinished_runs(run_id=run_id):
            row = store.get_run(run_id) or {}
            settle_abandoned(store, run_id, thread_id=group["thread_id"],
                             model=str(row.get("model_spec") or "unknown"),
                             message=f"not continued: {why}; its alert group is investigated "
                                     "again at its next notification")
    return released
