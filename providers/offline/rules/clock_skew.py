"""Rule: a host's clock went wrong, and what it signs or checks is rejected as skewed.

Needs: a failure (WARN or worse, :data:`MIN_EVENTS` events: a rejected login is often logged
as a warning) saying two clocks disagree (``lexicon.SKEWED``: a token "used before issued" or
"not valid yet", a request "too skewed", Kerberos' "Clock skew too great") that names the host
it is about (``lexicon.HOST``: ``host=api-7``); and a line about a clock or its
synchronisation (``lexicon.CLOCK``: "System clock wrong by 94 seconds", NTP sources lost or
not answering) at most :data:`LEAD` before the failure. A clock drifts for a while before
anything fails, so where the onset timeline holds no such line, the class look-back
(``evidence.step``) reads the logs of the time daemons (a service whose name is one:
``chronyd``, ``systemd-timesyncd``) over the hour before. A failure naming no host leaves
the cause open: whose clock is wrong is the answer, and the clock line is what says it is this
host's, not the other side's.
Concludes: "<service>: <failure> from <onset> (host=H), after <clock line>", citing both.
Failure class: clock skew (NTP lost or disabled on a host).
Canon cases: clock-skew-ntp, clock-skew-kerberos, clock-skew-jwt-nbf (clock-skew-s3 is left
open: its failure names no host, only a restore table does); traps it must leave open:
trap-generic-error, trap-quiet-window.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence

LEAD = evidence.CLOCK_LEAD
"""How long before the rejections a clock's line may say it went wrong."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The clock line before a failure that says clocks disagree on the host it names."""
    found = evidence.skewed(inv)
    if found is None or not (lines := evidence.clock_lines(inv, found[0], LEAD)):
        return None
    failure, host = found
    line = max(lines, key=lambda i: moment(i.get("onset")))
    said = {"evidence_id": line["evidence_id"], "table": "log", "service": line["service"],
            "pattern": line["pattern"], "time": line["onset"], "row": {},
            "level": line.get("level")}
    return draft.conclusion(failure, [said], None, f"resync the clock of {host}",
                            detail=f"host={host}")
