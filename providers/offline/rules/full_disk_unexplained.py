"""Explain rule: a full disk with no change that explains it is an intermediate cause.

Needs: the localized failure's rows saying its disk is full (``FULL_DISK``: "No space left on
device", ENOSPC, "disk full"), no change that explains it (the change rules before this one
did not decide).
Concludes: abstain — a component whose disk is full fails because something filled it (a
replication slot no one consumes, a job's output, logs): that is the cause, and only a change
may say it (``disk_filled``, a failure-class rule after this family, reads the class
look-back's changes of what the component writes).
Failure class: a full disk.
Canon cases: disk-wal-archive-failing (then ``disk_filled`` concludes on the archiving
change).
"""

from __future__ import annotations

import re

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain, Localized

FULL_DISK = re.compile(r"no space left on device|\bENOSPC\b|disk (?:is )?full"
                       r"|filesystem (?:is )?full", re.I)
"""A failure saying the disk or filesystem it writes to is full."""


def decide(inv: Investigation, found: Localized) -> Abstain | None:
    """Abstain on a full disk that no change explains."""
    if any(FULL_DISK.search(str(r.get("pattern", "")))
           for r in (found.row, found.first) if r is not None):
        return Abstain("a full disk: what filled it is the cause, and only a change may say")
    return None
