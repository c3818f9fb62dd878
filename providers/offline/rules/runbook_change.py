"""Rule: a change on the failing service that a runbook's symptom and the causal test explain.

Needs: the dominant error pattern of the window (``query_logs``), a runbook passage that
matches it (``lookup_knowledge``), and a row of a change table (config, deploy, job,
certificate…) before the onset that passes the causal test (``causal.change_problem``): on the
affected service or linked to it by an observed item, before the onset, speaking of the
symptom through its own key and values — two words of its own, its exact key in the failure or
a runbook, its key in words in a runbook, or the limit it lowered used up at the value it set.
And, where the data has a dependency table, no dependency the service calls or reads from that
failed first (:mod:`.upstream`: its own new failure, or a metric of it leaving its baseline, a
minute or more before the symptom began): then the change is abstained from, with that reason
(:func:`abstains`) — a TTL of minutes is no cause of data that stopped coming. Before it
concludes, :func:`step` asks what that check lacks (the onsets, the table's rows, the shifts).
Concludes: "<service>: <failure>, after <change row>, as runbook <doc> describes", citing the
log pattern, the change row, a corroborating measurement and the runbook.
Failure classes: a config change behind a failure (pool size, timeout, flag, a cache TTL), a
batch job overloading a dependency, a rate limit reached by a job's burst.
Canon cases: pool-config-reload, ratelimit-upstream-backfill, cache-ttl-raised-stale-boards;
traps it must leave open: trap-unrelated-change-shared-words, trap-unrelated-deploy-shared-words,
trap-change-after-onset, trap-upstream-rebalance-ttl-raised, trap-upstream-metric-max-age-raised,
trap-upstream-no-window-stock-ttl (an upstream failing first: its log, its metrics, no time asked).
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.conclusion import draft
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain
from diagnosis_harness.providers.offline.rules import upstream


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The runbook-and-change draft, if a change passes the causal test and nothing failed first."""
    found = draft(inv, symptom, runbook)
    return None if found.get("conclusion") is not None and abstains(inv, symptom) else found


def abstains(inv: Investigation, symptom: dict[str, Any] | None) -> Abstain | None:
    """Why the change is no cause: a dependency of the service failed before its symptom."""
    service = str((symptom or {}).get("service") or inv.scope.service or "")
    why = upstream.failed_first(inv, service, symptom or {}) if service else None
    return Abstain(why, rule="runbook_change") if why else None


def step(inv: Investigation, symptom: dict[str, Any] | None,
         runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Before concluding: the evidence :func:`abstains` reads that this run has not asked for."""
    if draft(inv, symptom, runbook).get("conclusion") is None or abstains(inv, symptom):
        return None
    return upstream.step(inv)
