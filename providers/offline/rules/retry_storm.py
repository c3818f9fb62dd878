"""Rule: a client's retries, changed just before, multiplied the load on the callee they hit.

Needs: a failure of a service S that retries (``lexicon.RETRIES``) and names the callee D it
fails on; D's own failure saying it turns requests away (``lexicon.SHEDS``); a request-rate
metric of D (``lexicon.RATE``) up from before S's failure; and the changes of S at most
:data:`LEAD` before it, made at one moment (a deploy, a config change of retries and timeout):
what changed how S retries.
Concludes: "<S>: <retrying failure> from <onset>, after <table> row <change>, with <D's rate>",
citing the failure, the change(s) and the metric.
Failure class: a retry storm (retries without backoff, a client timeout below the callee's
latency).
Canon cases: retry-storm-no-backoff, retry-storm-client-timeout (which the lowered-limit rule
concludes first, on its timeout); traps it must leave open: trap-generic-error (a client
giving up after retries, nothing changed).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import RATE, RETRIES, SHEDS

LEAD = timedelta(minutes=15)
"""How long before the retries a change of the client is their trigger."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The change of a retrying client whose callee then shed a surge of requests."""
    failures = evidence.failures(inv)
    for failure in failures:
        if not RETRIES.search(evidence.text(failure)):
            continue
        onset, client = moment(failure["onset"]), failure["service"]
        callees = [f for f in failures if f["service"] != client
                   and evidence.says(evidence.text(failure), f["service"])
                   and SHEDS.search(evidence.text(f))]
        changes = [c for c in evidence.changes(inv) if c.get("service") == client
                   and c["table"] != "log" and onset - LEAD <= evidence.began(c) <= onset]
        if not callees or not changes or len({evidence.began(c) for c in changes}) != 1:
            continue
        callee = callees[0]["service"]
        surge = evidence.shifted(inv, callee, RATE, evidence.began(changes[0]),
                                 onset)
        if surge is not None:
            return draft.conclusion(failure, changes, surge,
                                       f"roll back {client}'s retry change; add backoff")
    return None
