"""Explain rule: a resource metric of the failing component that left its baseline just before.

Needs: a localized failure logging warnings only ("log flush took 1800 ms") that no change
explains, and the ``metric_shifts`` rows of one instance of that component (the service or
``broker-2``): a resource metric (``RESOURCE``: disk, await, iops, cpu, memory, heap, gc, fd…)
shifted at most ``METRIC_LEAD`` before the failure and no later than a minute after it. Two
instances, or none, leave it open (``warnings_unexplained`` abstains first).
Concludes: the failure "…, with <entity> <metric> <direction> from <time> (median a -> b)",
citing the metric row.
Failure class: a component's own resource giving out (a slow disk, CPU or memory pressure).
Canon cases: none (the canon's warnings are explained by a change or a job: the class rules);
it serves the worlds' slow flushes and stalls on one instance's disk or CPU.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Explained, Localized
from diagnosis_harness.providers.offline.text import utc

RESOURCE = re.compile(r"disk|await|iops|io_|cpu|mem|heap|gc_|swap|load|fd|inode", re.I)
"""Metrics that say a component's own resource gave out (not its traffic or its errors)."""
METRIC_LEAD = timedelta(minutes=10)
"""How long before a warning-only failure its component's resource metric may have shifted."""


def decide(inv: Investigation, found: Localized) -> Explained | None:
    """The resource shift behind a warning-only failure (None for a failure at ERROR)."""
    metric = shift(inv, found) if found.warning_only else None
    return Explained(metric=metric) if metric is not None else None


def shift(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The earliest resource shift of the one instance of the component near the onset."""
    try:
        onset = utc(found.onset)
    except ValueError:
        return None
    near = []
    for item in inv.items("metric_shifts"):
        if item.get("kind") != "metric_shift" or "warning" in item \
                or not _owned_by(item.get("entity"), found.service) \
                or not RESOURCE.search(str(item.get("metric", ""))):
            continue
        try:
            moved = utc(str(item.get("first_out")))
        except ValueError:
            continue
        if onset - METRIC_LEAD <= moved <= onset + timedelta(minutes=1):
            near.append(item)
    if len({str(i.get("entity")) for i in near}) != 1:
        return None
    return min(near, key=lambda i: str(i.get("first_out")))


def _owned_by(entity: object, service: str) -> bool:
    """Whether a metric's entity is the service or one of its instances (``broker-2``)."""
    name, svc = str(entity or "").lower(), service.lower()
    return name == svc or re.fullmatch(rf"{re.escape(svc)}-[a-z0-9]{{1,8}}", name) is not None
