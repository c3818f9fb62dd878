"""Rule: a network change cut the failing service off from what it calls, just before.

Needs: a failure at ERROR or worse of a service that cannot reach an endpoint (a connect
timing out or refused, ``lexicon.UNREACHABLE``) naming its port; and the one change (class
look-back, ``evidence.changes``) of a network table (``lexicon.NETWORK``; never a rollout)
whose values close a path — a security group, an egress policy, a deny rule
(``lexicon.CUTS``) — at most :data:`LEAD`
before the failure, whose values name the failing service (a namespace) or that port
(``tcp/5432``).
Concludes: "<service>: <failure> from <onset>, after <table> row <change> (what it changed)",
citing both; the row's short plain values (resource, change, kind, name) are quoted.
Failure class: a network partition or a blocked path (a security group revoked, an egress
policy).
Canon cases: network-sg-zone-b, network-policy-egress; traps it must leave open:
trap-unrelated-change-shared-words (a change of another service, a timeout it names nothing of).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import CAUSE_LEVELS, level_of, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import CUTS, NETWORK, UNREACHABLE

LEAD = timedelta(minutes=15)
"""How long before the failure a network change is its cause: a path closes at once."""
_PORT = re.compile(r"(?:\b\d{1,3}(?:\.\d{1,3}){3}|\b[a-z][\w.-]*[a-z]):(\d{2,5})\b", re.I)
"""An endpoint's port, after its IP or host name (never a time's minutes)."""
_ROLLOUT = re.compile(r"deploy|release|rollout", re.I)


def _links(row: dict[str, Any], service: str, ports: set[str]) -> bool:
    said = " ".join(str(v) for v in row.values())
    return evidence.says(said, service) or any(
        re.search(rf"(?<![\d.]){p}(?![\d.])", said) for p in ports)


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The network change the failing connects follow, when it is the one naming them."""
    for failure in evidence.failures(inv):
        text = evidence.text(failure)
        ports = set(_PORT.findall(str(failure.get("example", ""))))
        if level_of(failure) not in CAUSE_LEVELS or not UNREACHABLE.search(text) or not ports:
            continue
        onset = moment(failure["onset"])
        cuts = [c for c in evidence.changes(inv) if c["table"] != "log"
                and not _ROLLOUT.search(str(c["table"]))
                and onset - LEAD <= moment(c.get("time")) <= onset
                and NETWORK.search(str(c["table"]))
                and CUTS.search(" ".join(str(v) for v in c["row"].values()))
                and _links(c["row"], failure["service"], ports)]
        if len(cuts) == 1:
            return draft.conclusion(failure, cuts, None, "revert the network change",
                                       quote=True)
        return None  # the first failure to reach something decides
    return None
