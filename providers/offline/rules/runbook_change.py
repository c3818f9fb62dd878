"""Rule: a change on the failing service that a runbook's symptom and the causal test explain.

Needs: the dominant error pattern of the window (``query_logs``), a runbook passage that
matches it (``lookup_knowledge``), and a row of a change table (config, deploy, job,
certificate…) before the onset that passes the causal test (``causal.change_problem``): on the
affected service or linked to it by an observed item, before the onset, speaking of the
symptom through its own key and values — two words of its own, its exact key in the failure or
a runbook, its key in words in a runbook, or the limit it lowered used up at the value it set.
Concludes: "<service>: <failure>, after <change row>, as runbook <doc> describes", citing the
log pattern, the change row, a corroborating measurement and the runbook.
Failure classes: a config change behind a failure (pool size, timeout, flag), a batch job
overloading a dependency, a rate limit reached by a job's burst.
Canon cases: pool-config-reload, ratelimit-upstream-backfill; traps it must leave open:
trap-unrelated-change-shared-words, trap-unrelated-deploy-shared-words, trap-change-after-onset.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.conclusion import draft
from diagnosis_harness.providers.offline.investigation import Investigation


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The runbook-and-change draft, if a change passes the causal test."""
    return draft(inv, symptom, runbook)
