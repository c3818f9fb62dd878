"""Rule: a disk full after a change of what its component writes to it, or of what frees it.

Needs: a failure at ERROR or worse saying its disk is full (``lexicon.FULL_DISK``), the
first of its kind in the window; and the one change (class look-back, ``evidence.changes``:
hours before, a disk fills slowly) of that failing component, before the failure, whose key
or summary speaks of what it writes or frees (``lexicon.FILLS``: a log level, statement
logging, WAL archiving, retention). "No space left on device" alone says *that* the disk is
full, not why: without that change the failure stays a suspect.
Concludes: "<service>: <failure> from <onset>, after <table> row <change>", citing both.
Failure class: a full disk after a log level or logging change, or after archiving broke.
Canon cases: disk-postgres-log-statement, disk-debug-logging, disk-wal-archive-failing;
traps it must leave open: trap-quiet-after-change (a change, no failure).
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence, limits
from diagnosis_harness.providers.offline.rules.lexicon import FILLS, FULL_DISK


def _what(change: dict[str, Any]) -> str:
    """A change's key (or its summary's), the words that say what it changed."""
    found = limits.setting(change["row"])
    return found[0] if found else ""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one change of the full disk's component that speaks of what fills it."""
    failure = next(iter(evidence.causes(inv, FULL_DISK)), None)
    if failure is None:
        return None
    onset = moment(failure["onset"])
    fills = [c for c in evidence.changes(inv) if c.get("service") == failure["service"]
             and moment(c.get("time")) <= onset and FILLS.search(_what(c))]
    if len(fills) != 1:
        return None  # nothing says why the disk filled, or two changes might
    return draft.conclusion(failure, fills, None,
                               f"free space on {failure['service']} and undo {_what(fills[0])}")
