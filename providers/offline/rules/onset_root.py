"""Locate rule: system-wide, the one failing service every other failure leads to.

Needs: the timeline's failing services, their onsets and who names whom (``failures``), when
no asked service fails (a system-wide question, or the asked service is quiet).
Concludes: the one failing service that names no other, starts within ``SAME_MOMENT`` of the
first failure, and is named by every other failing service directly or through others — or
abstain: nothing failed, no root or two, or another failure the root does not explain. Beside
a failure at a cause level, warnings of a service that names no failing one and that none
names are background, not a second story; an edge failing only by access lines at the same
moment as a service failing on its own is where the failure shows, not a second root.
Failure class: any failure that spreads from one component to its callers.
Canon cases: trap-noisy-service, trap-quiet-window, trap-noisy-service-after-deploy (abstains);
it locates the root of refused-callee-port, oom-cgroup-limit, trap-quiet-after-change and
trap-edge-502-nothing-behind (a quiet asked service), which the rules after it judge.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    SAME_MOMENT,
    Failures,
    level_of,
    moment,
    names,
    reaches,
)
from diagnosis_harness.providers.offline.localize import Abstain, Root, reports_only


def decide(failures: Failures, service: str | None, root: Root | None) -> Root | Abstain | None:
    """The one root of a system-wide timeline, or abstain (None when one is already found)."""
    if root is not None:
        return None
    if not failures.failing:
        return Abstain("no new failure in the window: nothing started failing that was not "
                       "failing before")
    f = failures
    named = {t for s in f.failing for t in f.graph[s]}
    stories = {s for s in f.failing if f.graph[s] or s in named
               or any(level_of(r) in CAUSE_LEVELS for r in f.rows[s])}
    if not any(level_of(r) in CAUSE_LEVELS for s in stories for r in f.rows[s]):
        stories = f.failing  # warnings alone are the story: a change or a metric may explain
    earliest = min(_story_start(f, s) for s in stories)
    roots = [s for s in stories if not f.graph[s] and f.first(s) - earliest <= SAME_MOMENT]
    speaking = [s for s in roots if not reports_only(f.rows[s])]
    if len(roots) == 2 and len(speaking) == 1 and any(
            level_of(r) in CAUSE_LEVELS for r in f.rows[speaking[0]]):
        roots = speaking
    if len(roots) != 1:
        return Abstain("no one failing service starts first naming no other")
    explained = sorted(s for s in stories - {roots[0]} if not (
        reports_only(f.rows[s]) and f.first(s) >= f.first(roots[0]) - SAME_MOMENT))
    if not all(reaches(f.graph, s, roots[0]) for s in explained):
        return Abstain("another failure the cause does not explain")
    return Root(roots[0], explained)


def _story_start(failures: Failures, service: str) -> datetime:
    """When ``service``'s part in the story begins, for the root's "first failure" test.

    A service that names a failing one is failing because of it from its first row at a cause
    level or naming it; the warnings it logged before that, naming nothing, are its own
    background, not an earlier start of the incident. One that names none starts at its first
    strong row.
    """
    if not failures.graph[service]:
        return failures.first(service)
    lead = next((r for r in failures.rows[service] if level_of(r) in CAUSE_LEVELS
                 or any(names(r, t) for t in failures.graph[service])), None)
    return moment(lead["onset"]) if lead is not None else failures.first(service)
