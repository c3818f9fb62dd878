"""Rule: a quota used up — by name in the failure, or after the change that began the spending.

Needs: a failure at WARN or worse that says a quota is used up (``lexicon.QUOTA``); then
either the one change (class look-back, ``evidence.changes``) of that service since the start
of the failure's day (a daily quota's period) and before it — a flag or a config that began
the spending — or, with none, the failure naming its quota (``lexicon.NAMED_QUOTA``: a
namespace's ResourceQuota, ``team-media-quota``).
Concludes: "<service>: <failure> from <onset>, after <table> row <change>", or the failure
naming its quota alone, citing them.
Failure class: a quota — a provider's daily allowance, a Kubernetes ResourceQuota.
Canon cases: quota-daily-translate, quota-k8s-resourcequota; traps it must leave open:
trap-generic-error (no quota named), trap-quiet-window.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import NAMED_QUOTA, QUOTA


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The change that began a quota's spending, or the quota the failure names."""
    failure = next((f for f in evidence.failures(inv) if QUOTA.search(evidence.text(f))), None)
    if failure is None:
        return None
    onset = moment(failure["onset"])
    day = onset.replace(hour=0, minute=0, second=0, microsecond=0)
    began = [c for c in evidence.changes(inv) if c.get("service") == failure["service"]
             and day <= moment(c.get("time")) <= onset]
    if len(began) == 1:
        return draft.conclusion(failure, began, None,
                                   f"raise the quota or undo the change on {failure['service']}")
    if began or not NAMED_QUOTA.search(str(failure.get("pattern", ""))):
        return None  # two changes that day, or a quota the failure does not name
    return draft.conclusion(failure, [], None, f"raise the quota of {failure['service']}")
