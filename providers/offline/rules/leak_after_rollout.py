"""Rule: memory or file descriptors run out hours after a rollout of the component, none since.

Needs: a failure at ERROR or worse saying the component ran out of memory or file
descriptors (``lexicon.EXHAUSTED``), the first such failure of the window; no lowered limit
behind it (the lowered-limit rule's class); and the one rollout of that component (class
look-back, ``evidence.changes``: a deploys or releases row) in the :data:`SINCE` hours before,
with no other change of it after that rollout. A leak grows from the release that brought it:
the failure comes hours later, not minutes (the localized rule's "just before").
Concludes: "<service>: <failure> from <onset>, after <table> row <rollout>", citing both.
Failure classes: a memory leak or a file-descriptor leak brought by a deploy.
Canon cases: oom-leak-after-deploy, fd-leak-after-deploy; traps it must leave open:
trap-noisy-service-after-deploy (an everyday error, not exhaustion).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence, limits
from diagnosis_harness.providers.offline.rules.lexicon import EXHAUSTED

SINCE = timedelta(hours=12)
"""How long before the exhaustion its component's rollout may have brought the leak."""
_ROLLOUT = re.compile(r"deploy|release|rollout", re.I)


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one rollout of an exhausted component in the hours before, if nothing changed since."""
    failure = next(iter(evidence.causes(inv, EXHAUSTED)), None)
    if failure is None:
        return None
    onset = moment(failure["onset"])
    own = [c for c in evidence.changes(inv) if c.get("service") == failure["service"]
           and moment(c.get("time")) <= onset]
    if any(limits.lowered(c["row"]) for c in own):
        return None  # a limit lowered: that class's rule decides
    rollouts = [c for c in own if _ROLLOUT.search(str(c.get("table", "")))
                and moment(c.get("time")) >= onset - SINCE]
    if len(rollouts) != 1 or any(moment(c.get("time")) > moment(rollouts[0].get("time"))
                                 for c in own):
        return None  # none, two, or something changed on it since
    return draft.conclusion(failure, rollouts, None,
                               f"roll {failure['service']} back and take a heap or fd dump")
