"""Rule: a server crashed and restarts, and its clients quote its own reply.

Needs: a failure at ERROR or worse of a server component that says it crashed or is
restarting (``lexicon.CRASHED``: "the database system is in recovery mode", terminated by a
signal), beginning no later than :data:`SAME_MOMENT` after a client's failure that quotes the
server's very words (the server's line, without its process prefix, in the client's). The
client's failure is the server's reply passed on: the server is where it began, and its line
names the mechanism. Or, where the server logs no failure of its own (it restarted, and says
only that it is loading): a client's failure quoting that reply, and a host's line at most
:data:`SAME_MOMENT` before it saying the server's process was killed or crashed
(``lexicon.KILLED``, the process named by a word of the client's failure: ``redis-server``).
Concludes: "<server>: <failure> from <onset>", citing the server's rows and the client's; or
"<client>: <failure> from <onset>, after <host> ERROR '<process killed>'".
Failure class: a dependency down (a database in crash recovery after its process was killed, a
cache loading its dataset after the kernel killed it).
Canon cases: dependency-postgres-recovery, dependency-redis-loading (dependency-redis-upgrade is
left open: its client says only "connection refused" to an address); traps it must leave
open: trap-edge-502-nothing-behind (a proxy's status, no server line), trap-generic-error.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import CRASHED, KILLED

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
    return next(filter(None, (_killed(inv, f) for f in failures if CRASHED.search(
        evidence.text(f)))), None)


def _killed(inv: Investigation, client: dict[str, Any]) -> dict[str, Any] | None:
    """The first line, just before a client quotes a restarting server, saying it was killed.

    Every such line must name the same process (the kernel's kill, then systemd's exit).
    """
    onset, words = moment(client["onset"]), evidence.text(client)
    killed = [(i, found) for i in inv.items("onset_timeline") if i.get("kind") == "onset"
              and (found := KILLED.search(str(i.get("pattern", ""))))
              and i.get("service") != client["service"] and not flagged(i)
              and onset - SAME_MOMENT <= moment(i.get("onset")) <= onset]
    named = {re.split(r"[-_.]", next(g for g in f.groups() if g))[0].lower() for _, f in killed}
    if len(named) != 1 or not evidence.says(words, next(iter(named))):
        return None
    line = min((i for i, _ in killed), key=lambda i: moment(i.get("onset")))
    said = {"evidence_id": line["evidence_id"], "table": "log", "service": line["service"],
            "pattern": line["pattern"], "time": line["onset"], "row": {},
            "level": line.get("level")}
    return draft.conclusion(client, [said], None, "check why the dependency's process was killed")
