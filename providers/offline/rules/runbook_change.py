"""Rule: a change on the failing service that a runbook's symptom and the causal test explain.

Needs: the dominant error pattern of the window (``query_logs``), a runbook passage matching it
(``lookup_knowledge``), a change row (config, deploy, job, certificate…) before the onset that
passes the causal test (``causal.change_problem``: on the affected service or linked to it,
speaking of the symptom through its own key and values), and no dependency the service calls or
reads from that failed first (:mod:`.upstream`: its own new ERROR, or a metric of it leaving
its baseline, a minute or more before the symptom), nor another writer of what it reads (a
client of the same dependency, failing within 30 minutes before) — else it abstains with that
reason (:func:`abstains`); so too when another service failed first and the table's rows went
unread (calls ran out). A TTL of minutes is no cause of data that stopped coming.
Concludes: "<service>: <failure>, after <change row>, as runbook <doc> describes", citing
the log pattern, the change row, a measurement and the runbook.
Failure classes: a config change behind a failure (pool size, timeout, flag, a cache TTL), a
batch job overloading a dependency, a rate limit reached by a job's burst.
Canon cases: pool-config-reload, ratelimit-upstream-backfill, cache-ttl-raised-stale-boards;
traps it leaves open: trap-unrelated-change-shared-words, trap-unrelated-deploy-shared-words,
trap-change-after-onset, and an upstream failing first: trap-upstream-rebalance-ttl-raised,
trap-upstream-metric-max-age-raised, trap-upstream-no-window-stock-ttl,
trap-upstream-asked-late-ttl, trap-upstream-topology-with-infra-ttl,
trap-upstream-cowriter-warn-page-ttl.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import draft
from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import MAX_WINDOW, Abstain
from diagnosis_harness.providers.offline.rules import upstream
from diagnosis_harness.providers.offline.text import utc

SINCE = timedelta(minutes=90)
"""How far before the window the check looks: the changes this rule weighs are at most an hour
before it (the investigator's look-around), and their onsets 30 minutes before those."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The runbook-and-change draft, if a change passes the causal test and nothing failed first."""
    found = draft(inv, symptom, runbook)
    return None if found.get("conclusion") is not None and abstains(inv, symptom) else found


def abstains(inv: Investigation, symptom: dict[str, Any] | None,
             checked: bool = True) -> Abstain | None:
    """Why the change is no cause: a dependency (or its writer) failed first; rows unread."""
    service = str((symptom or {}).get("service") or inv.scope.service or "")
    why = upstream.failed_first(inv, service, symptom or {}) if service else None
    if why is None and checked and upstream.rows_query(inv, service) \
            and upstream.others_failed_first(inv, service, symptom or {}):
        why = f"the dependency table's rows for {service} were not read within the run's calls"
    return Abstain(why, rule="runbook_change") if why else None


def step(inv: Investigation, symptom: dict[str, Any] | None,
         runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Before concluding, what :func:`abstains` reads that this run lacks, from ``SINCE`` before.

    The onsets (a question with no time has none; one asked late has both failures in its
    look-back's baseline, where nothing is new), the dependency table's rows, the shifts.
    """
    service = inv.scope.service
    if len(inv.calls) >= inv.scope.max_calls or not upstream.TOKEN.fullmatch(service) \
            or not inv.tables or draft(inv, symptom, runbook).get("conclusion") is None \
            or abstains(inv, symptom, checked=False):
        return None
    try:
        early = max(utc(inv.start) - SINCE, utc(inv.end) - MAX_WINDOW)
    except ValueError:  # no readable window: nothing to ask
        return None
    asked = {c["name"] for c in inv.calls if moment((c.get("args") or {}).get("start")) <= early}
    window, edges = {"start": early.isoformat(), "end": inv.end}, upstream.table(inv)
    if (not inv.called("onset_timeline") or edges and "onset_timeline" not in asked) \
            and (not inv.tools or "onset_timeline" in inv.tools):
        return {"tool": "onset_timeline", "args": window}
    if sql := upstream.rows_query(inv, service):
        return {"tool": "query_mysql", "args": {"sql": sql}}
    return {"tool": "metric_shifts", "args": window} if "metric_shifts" not in asked \
        and upstream.dependencies(inv, service) else None
