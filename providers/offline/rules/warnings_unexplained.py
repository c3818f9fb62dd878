"""Explain rule: warnings only, with no change and no resource metric behind them, conclude nothing.

Needs: a localized failure logging no ERROR or worse (``Localized.warning_only``) that no
change explains (the change rules before this one did not decide), and the component's
``metric_shifts`` (``resource_shift.shift``).
Concludes: abstain when no resource metric of the component shifted just before either — a
warning is a symptom more often than a fault (a soft quota, a slow flush, a decline), and
nothing says why it was logged.
Failure class: none of its own; it guards every conclusion on warnings.
Canon cases: it leaves the failure to the class rules after it in cache-maxmemory-evictions,
queue-consumers-scaled-down, retry-storm-client-timeout, ratelimit-edge-lowered
(``lowered_limit``), cert-server-expired (``expired_credential``), replica-lag-backfill
(``job_overload``), quota-k8s-resourcequota (``quota_exhausted``); open: replica-lag-purge-job.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain, Localized
from diagnosis_harness.providers.offline.rules import resource_shift


def decide(inv: Investigation, found: Localized) -> Abstain | None:
    """Abstain on warnings that neither a change nor a resource metric explains."""
    if found.warning_only and resource_shift.shift(inv, found) is None:
        return Abstain("warnings only, and nothing explains them: no cause to publish")
    return None
