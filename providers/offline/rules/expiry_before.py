"""Explain rule: the one certificate or credential of the failing component that just expired.

Needs: a localized failure at ERROR or worse saying something expired (``EXPIRED``:
"…_CREDENTIAL_EXPIRED", "certificate has expired", "not after"), and the ``recent_changes``
rows of that component's own inventory (certificates, keys, tokens) whose expiry column
(``EXPIRY_COLUMN``: ``not_after``, ``valid_until``, ``expires_at``…) falls at most
``EXPIRY_LEAD`` before the failure and no later than a minute after it, passing the causal
test (its own words in the failure's: the certificate's name or kind). Two leave it open.
Concludes: the failure "…, after change <certificate row>", citing the row.
Failure class: an expired certificate or credential.
Canon cases: cert-client-expired.
"""

from __future__ import annotations

import re
from datetime import timedelta

from diagnosis_harness.providers.offline.causal import change_problem
from diagnosis_harness.providers.offline.explain import changes, links_of, symptom_of
from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Explained, Localized
from diagnosis_harness.providers.offline.text import utc

EXPIRY_COLUMN = re.compile(r"^(not_?after|valid_(?:to|until)|expires?(?:_at|_on)?"
                           r"|expir(?:y|ation)(?:_at|_date|_time)?)$", re.I)
"""A column holding when a certificate, key or token stops being valid."""
EXPIRED = re.compile(r"expir|not ?after|no longer valid", re.I)
EXPIRY_LEAD = timedelta(minutes=60)
"""How long before the failure the expiry may fall."""


def decide(inv: Investigation, found: Localized) -> Explained | None:
    """The one inventory row of the component that expired just before its failure."""
    symptom, links = symptom_of(found), links_of(found)
    if found.warning_only or not EXPIRED.search(symptom.text):
        return None
    try:
        onset = utc(found.onset)
    except ValueError:
        return None
    near = [item for item in changes(inv) if item.get("service") == found.service
            and any(onset - EXPIRY_LEAD <= moment(v) <= onset + timedelta(minutes=1)
                    for k, v in item["row"].items() if EXPIRY_COLUMN.match(str(k)))
            and change_problem({**item["row"], "service": found.service}, symptom, [],
                               links) is None]
    return Explained(change=near[0]) if len(near) == 1 else None
