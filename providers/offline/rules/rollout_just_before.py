"""Explain rule: the one code rollout of the failing component minutes before its own failure.

Needs: a localized failure at ERROR or worse (warnings only were measured: a rollout just
before rejections or start timeouts was not their cause, twice) naming no dependency — no
``host:port``, no other service, no URL's host, no object store's error code, no address a
connect names even masked (``explain.names_endpoint``): whether the release is why, or the
endpoint, timing cannot say; and the one code rollout (``explain.is_rollout``: a deploy,
release or migration table, or a version-like column) of that component at most
``JUST_BEFORE`` minutes before the failure began. Two leave it open. "What changed just
before?" is the first question of every on-call engineer, and it holds where the failure is
the component's own: a new exception, a crash loop.
Concludes: the failure "…, after change <rollout row>", citing the row.
Failure class: a bad deploy (a crash of its own code, a new exception).
Canon cases: deploy-npe, deploy-go-panic, schema-code-before-migration,
asked-cliff-since-deploy (a system-wide "what is going on?").
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.explain import changes, is_rollout, names_endpoint
from diagnosis_harness.providers.offline.failures import dependency_of
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Explained, Localized

JUST_BEFORE = 10.0
"""Minutes before its component's own failure a rollout explains it by timing alone."""


def decide(inv: Investigation, found: Localized) -> Explained | None:
    """The one rollout of the component at most ``JUST_BEFORE`` minutes before it failed."""
    if found.warning_only or found.dependency is not None:
        return None  # a warning is a symptom more often than a fault; a dependency is named
    rows = [found.row, *([found.first] if found.first is not None else [])]
    if any(dependency_of(r, set()) or names_endpoint(r) for r in rows):
        return None
    near = [item for item in changes(inv) if item.get("service") == found.service
            and describe_row(item["row"]) and is_rollout(item)
            and 0 <= float(item.get("minutes_before") or 0) <= JUST_BEFORE]
    return Explained(change=near[0]) if len(near) == 1 else None
