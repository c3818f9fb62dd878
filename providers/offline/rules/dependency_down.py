"""Rule: a server crashed and restarts, and its clients quote its own reply.

Needs: a failure at ERROR or worse of a server component that says it crashed or is
restarting (``lexicon.CRASHED``: "the database system is in recovery mode", terminated by a
signal), beginning no later than :data:`SAME_MOMENT` after a client's failure that quotes the
server's very words (the server's line, without its process prefix, in the client's). The
client's failure is the server's reply passed on: the server is where it began, and its line
names the mechanism.
Concludes: "<server>: <failure> from <onset>", citing the server's rows and the client's.
Failure class: a dependency down (a database in crash recovery after its process was killed).
Canon cases: dependency-postgres-recovery (dependency-redis-upgrade is left open: its client
says only "connection refused" to an address); traps it must leave open:
trap-edge-502-nothing-behind (a proxy's status, no server line), trap-generic-error.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import CRASHED

SAME_MOMENT = timedelta(minutes=1)
MIN_QUOTED = 20
"""Characters of the server's line a client must quote for it to be the server's reply."""
_PREFIX = re.compile(r"^\s*(?:\[\d+\]\s*:?\s*)?(?:LOG|ERROR|FATAL|PANIC)?:?\s*")


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The crashed server whose own reply its clients' failures quote."""
    failures = evidence.causes(inv)
    for server in failures:
        said = _PREFIX.sub("", str(server.get("example", ""))).strip()
        if len(said) < MIN_QUOTED or not CRASHED.search(said):
            continue
        clients = [f for f in failures if f["service"] != server["service"]
                   and said.lower() in str(f.get("example", "")).lower()
                   and moment(server["onset"]) <= moment(f["onset"]) + SAME_MOMENT]
        if clients:
            return draft.conclusion(server, [], None, f"check {server['service']}'s crash",
                                       cited=[c["evidence_id"] for c in clients[:2]])
    return None
