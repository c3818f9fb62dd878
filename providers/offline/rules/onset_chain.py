"""Locate rule: with the asked service failing, the cause is where its failures lead.

Needs: the asked service among the timeline's failing services, and who names whom
(``Failures.chain``: its rows' own words first, the dependency table only where the words name
no failing service; time breaks a loop that only one side started).
Concludes: the one failing service the asked service's failures lead to, one unambiguous step
at a time (it may be the asked service itself), with the failing services that lead to it —
or abstain: two ends or a loop with none leave the cause open, and a "cause" that starts
failing more than ``SAME_MOMENT`` after the asked service is a consequence.
Failure class: any failure of a dependency the asked service names (a database, a broker, DNS,
a callee) or of the asked service itself.
Canon cases: none abstains on the canon; it locates the root of every case whose asked service
fails (52 of 59), which the rules after it judge — every conclusion of ``localized_failure``
among them.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.failures import SAME_MOMENT, Failures, reaches
from diagnosis_harness.providers.offline.localize import Abstain, Root


def decide(failures: Failures, service: str | None, root: Root | None) -> Root | Abstain | None:
    """Where the asked service's failures lead, or abstain; None when it does not fail."""
    if root is not None or not service or service not in failures.failing:
        return None
    end = failures.chain(service)
    if end is None:
        return Abstain("the asked service's failures lead to two components, or round a loop")
    if failures.first(end) - failures.first(service) > SAME_MOMENT:
        return Abstain("the component they lead to starts failing after the asked service: a "
                       "consequence, not the cause")
    return Root(end, [s for s in failures.failing - {end} if reaches(failures.graph, s, end)])
