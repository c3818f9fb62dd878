"""Rule: a job run that started just before the failure and loads the store the failure waits on.

Needs: a row of a job table (class look-back, ``evidence.changes``: ``job_runs``, batch or cron
runs) that started at most :data:`LEAD` before a failure and was still running when it began;
the job's service or target is the failing service, a component its failure names, or a
component of the failing service's own (``orders-db`` of ``orders``); the failure says how it
waits (``lexicon.WAITS``: a lock, a replica's lag, slowness, a timeout); and a load metric of that
component or of the failing service (``lexicon.LOAD``) left its baseline between the job's start
and the failure. One such job: two leave it open.
Concludes: "<service>: <failure> from <onset>, after job_runs row <run> (its target), with
<metric>", citing the failure, the run and the metric — and the change of the job's service
that moved its schedule (a cron's timezone), when the look-back holds one.
Failure classes: a batch job overloading a database, lock contention from a long transaction,
replica lag from a bulk write on the primary.
Canon cases: lock-manual-job, replica-lag-backfill, batch-report-on-primary,
batch-backup-moved-to-peak; traps it must leave open: trap-quiet-window,
trap-noisy-service (a job run with no failure after it, or an everyday failure).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import LOAD, WAITS

LEAD = timedelta(minutes=15)
"""How long before the failure a job's start is its trigger (a job loads a store at once)."""
_JOB_TABLE = re.compile(r"job|batch|cron|task", re.I)
_PLACES = re.compile(r"^(service|target|database|db|host|table)(_name)?$", re.I)
_SCHEDULE = re.compile(r"cron|schedule|timezone|\btz\b", re.I)
"""A change that moves when a job runs: why it ran at this hour is part of its cause."""
_END = re.compile(r"^(finished|ended|end|completed|stopped)(_at|_time)?$", re.I)


def _places(row: dict[str, Any]) -> set[str]:
    """The components a job row says it ran on or against (its first word: ``orders-db``)."""
    return {str(v).split()[0].lower() for k, v in row.items()
            if _PLACES.match(str(k)) and isinstance(v, str) and v.strip()}


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The job run whose start the failure and a load metric follow, when it is the one."""
    found: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []
    for job in evidence.changes(inv):
        if not _JOB_TABLE.search(str(job.get("table", ""))):
            continue
        row, started = job["row"], evidence.began(job)
        ended = next((moment(v) for k, v in row.items() if _END.match(str(k)) and v), None)
        for failure in evidence.failures(inv):
            onset, text, service = moment(failure["onset"]), evidence.text(failure), failure["service"]
            if not started <= onset <= started + LEAD or (ended is not None and ended < onset) \
                    or not WAITS.search(text):
                continue
            places = {p for p in _places(row) if p == service.lower() or evidence.says(text, p)
                      or p.startswith(f"{service.lower()}-")}
            metric = next((m for p in sorted(places | {service})
                           if (m := evidence.shifted(inv, p, LOAD, started, onset)) is not None),
                          None)
            if places and metric is not None:
                found.append((failure, job, metric))
                break
    if len({id(j) for _, j, _ in found}) != 1:
        return None
    failure, job, metric = found[0]
    owner = {str(v).lower() for k, v in job["row"].items() if str(k).lower() == "service"}
    moved = [c for c in evidence.changes(inv) if _SCHEDULE.search(" ".join(map(str, c["row"].values())))
             and str(c.get("service") or "").lower() in owner
             and moment(c.get("time")) <= moment(failure["onset"])]
    return draft.conclusion(failure, [job, *moved[:1]], metric,
                               f"stop or reschedule {job.get('service') or 'the job'}")
