"""Rule: a certificate or credential that reached its expiry, then every call that uses it fails.

Needs: a failure at ERROR or worse that speaks of TLS or a credential (``lexicon.TLS``), and either
an inventory row (certificates, secrets, keys — class look-back, ``evidence.changes``) whose
expiry column fell at most :data:`LEAD` before the failure (and no later than a minute after),
of the failing service or of a component the failure names (``ledger.internal`` for
``CN=ledger.internal``); or, with no such row, the failure's own words saying a credential
expired (``lexicon.SAYS_EXPIRED``) as the first failure of the window at a cause level.
Concludes: "<service>: <failure> from <onset>, after <table> row <certificate>" (or the
failure alone when it names the expiry itself), citing both.
Failure class: an expired certificate or credential (a client's or a server's certificate, an
API key, a token).
Canon cases: cert-server-expired, credential-api-key-expired (and cert-client-expired, which
the localized rule concludes first); traps it must leave open: trap-generic-error.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import CAUSE_LEVELS, level_of, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import SAYS_EXPIRED, TLS
from diagnosis_harness.providers.offline.text import EXPIRED_SAID

LEAD = timedelta(minutes=60)
_EXPIRY = re.compile(r"^(not_?after|valid_(?:to|until)|expires?(?:_at|_on)?"
                     r"|expir(?:y|ation)(?:_at|_date|_time)?)$", re.I)


def _names(failure: dict[str, Any], row: dict[str, Any], owner: str) -> bool:
    """Whether the row is the failing service's, or names a host or service the failure names."""
    text = evidence.text(failure)
    hosts = {str(v).split("=")[-1] for v in row.values() if isinstance(v, str) and " " not in v}
    return failure["service"] == owner or evidence.says(text, owner) or any(
        "." in h and evidence.says(text, h) for h in hosts)


def _said_expired(inv: Investigation, failure: dict[str, Any]) -> str:
    """The words saying it expired, where the timeline clipped them out of the example.

    The same events as ``query_logs`` grouped them (service, level and count) still say it.
    """
    if EXPIRED_SAID.search(evidence.text(failure)):
        return ""  # the pattern says it, or text.failure_phrase quotes it from the example
    same = [f for f in evidence.failures(inv) if f.get("service") == failure["service"]
            and f.get("level") == failure.get("level")
            and str(f.get("window_count")) == str(failure.get("window_count"))]
    said = next((m for f in same if (m := EXPIRED_SAID.search(evidence.text(f)))), None)
    return said.group(0) if said and len(said.group(0)) <= 60 else ""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The credential that expired just before the failure, or the failure that says it."""
    failures = evidence.causes(inv, TLS)
    if not failures:
        return None
    found = []
    for item in evidence.changes(inv):
        row = item["row"]
        expiries = [moment(v) for k, v in row.items() if _EXPIRY.match(str(k))]
        for failure in failures:
            onset = moment(failure["onset"])
            if any(onset - LEAD <= e <= onset + timedelta(minutes=1) for e in expiries) \
                    and _names(failure, row, str(item.get("service") or "")):
                found.append((failure, item))
                break
    if len({id(i) for _, i in found}) == 1:
        failure, item = found[0]
        return draft.conclusion(failure, [item], None, f"renew {item.get('table')} "
                                                          f"{item.get('service')}",
                                detail=_said_expired(inv, failure))
    first = evidence.failures(inv)
    earliest = next((f for f in first if level_of(f) in CAUSE_LEVELS), None)
    if found or earliest is None or earliest not in failures \
            or not SAYS_EXPIRED.search(evidence.text(earliest)):
        return None
    return draft.conclusion(earliest, [], None, f"renew the credential of {earliest['service']}")
