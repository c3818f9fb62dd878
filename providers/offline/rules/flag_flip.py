"""Rule: a feature flag of the failing service flipped minutes before its new errors began.

Needs: a flag change (class look-back, ``evidence.changes``: a feature-flag table's row, or a
change log's row of a flag kind, ``lexicon.FLAG``) of a service, at most :data:`LEAD` before a
new failure of that same service at ERROR or worse, and no other flag of it in that time. A
flag switches a code path and its key says which: that is its link, as timing is a rollout's.
Concludes: "<service>: <failure> from <onset> (on <dependency its words name>), after <table>
row <flag> (key: old -> new)", citing the failure and the flag's row: a flag sends traffic
somewhere, and where it failed is half the answer.
Failure class: a feature flag turned on (or raised) that sends traffic down a broken path or
onto an overloaded dependency.
Canon cases: flag-tax-engine, flag-semantic-ranking; traps it must leave open:
trap-change-after-onset (a change after the failure), trap-noisy-service (an everyday error).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import FLAG

LEAD = timedelta(minutes=10)
"""How long before its service's new errors a flag flip is their trigger."""


def _is_flag(change: dict[str, Any]) -> bool:
    kind = " ".join(str(v) for k, v in change["row"].items() if str(k).lower() in ("kind", "type"))
    return bool(FLAG.search(str(change.get("table", ""))) or FLAG.search(kind))


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one flag flip of a service minutes before its new errors, if there is one."""
    failures = [f for f in evidence.causes(inv) if f.get("change", "new") == "new"]
    found = []
    for flag in filter(_is_flag, evidence.changes(inv)):
        at = moment(flag.get("time"))
        failure = next((f for f in failures if f["service"] == flag.get("service")
                        and at <= moment(f["onset"]) <= at + LEAD), None)
        if failure is not None:
            found.append((failure, flag))
    if len(found) != 1:
        return None  # none, or two flags of the failing services: which one is not shown
    failure, flag = found[0]
    return draft.conclusion(failure, [flag], None, f"turn the flag back on {flag['service']}",
                               evidence.services(inv))
