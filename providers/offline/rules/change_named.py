"""Explain rule: a change the localized failure's own words name, or whose limit it ran out of.

Needs: the localized failure (``LOCATE``) and the ``recent_changes`` rows before its onset on
its component; a row whose key the failure's text names (``causal.names_key``) or whose
lowered limit the failure says ran out (``causal.lowered_limit_ran_out``), and that passes the
causal test (``causal.change_problem``: on the component, before the onset). From logs alone a
shared word is too little ("query logging verbosity" is no cause of "no space left"): the
failure must name the change's key. The most recent such row decides.
Concludes: the failure "…, after change <row>", citing the change row.
Failure class: a config change behind a failure (a limit lowered and used up, a path or a
setting the failure names).
Canon cases: dns-record-deleted, dns-typo-config, fd-limit-lowered (oom-heap-lowered: ``runbook_change``
concludes first).
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.causal import (
    change_problem,
    lowered_limit_ran_out,
    names_key,
)
from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.explain import changes, links_of, symptom_of
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Explained, Localized


def decide(inv: Investigation, found: Localized) -> Explained | None:
    """The first change row (most recent first) the failure names that passes the causal test."""
    symptom, links = symptom_of(found), links_of(found)
    for item in changes(inv):
        row = {**item["row"], "service": item.get("service") or item["row"].get("service")}
        if describe_row(row) and (names_key(row, symptom.text)
                                  or lowered_limit_ran_out(row, symptom.text)) \
                and change_problem(row, symptom, [], links) is None:
            return Explained(change=item)
    return None
