"""Rule: a host's clock went wrong, and what it signs or checks is rejected as skewed.

Needs: a failure at ERROR or worse saying two clocks disagree (``lexicon.SKEWED``: a token
"used before issued", a request "too skewed") that names the host it is about
(``lexicon.HOST``: ``host=api-7``); and a new line about a clock or its synchronisation
(``lexicon.CLOCK``: "System clock wrong by 94 seconds", NTP sources lost) at most
:data:`LEAD` before the failure. A failure naming no host leaves the cause open: whose clock
is wrong is the answer.
Concludes: "<service>: <failure> from <onset> (host=H), after <clock line>", citing both.
Failure class: clock skew (NTP lost or disabled on a host).
Canon cases: clock-skew-ntp (clock-skew-s3 is left open: its failure names no host, only a
restore table does); traps it must leave open: trap-generic-error, trap-quiet-window.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import CLOCK, HOST, SKEWED

LEAD = timedelta(minutes=60)
"""How long before the rejections a clock's line may say it went wrong."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The clock line before a failure that says clocks disagree on the host it names."""
    for failure in evidence.causes(inv):
        host = HOST.search(str(failure.get("example", "")))
        if host is None or not SKEWED.search(evidence.text(failure)):
            continue
        onset = moment(failure["onset"])
        lines = [i for i in inv.items("onset_timeline") if i.get("kind") == "onset"
                 and not flagged(i) and i.get("service") != failure["service"]
                 and CLOCK.search(f"{i.get('service')} {i.get('pattern')}")
                 and onset - LEAD <= moment(i.get("onset")) <= onset]
        if not lines:
            return None
        line = max(lines, key=lambda i: moment(i.get("onset")))
        said = {"evidence_id": line["evidence_id"], "table": "log", "service": line["service"],
                "pattern": line["pattern"], "time": line["onset"], "row": {},
                "level": line.get("level")}
        return draft.conclusion(failure, [said], None, f"resync the clock of {host.group(1)}",
                                   detail=f"host={host.group(1)}")
    return None
