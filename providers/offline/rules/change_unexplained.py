"""Explain rule: a rollout or a job on the failing component that does not explain it leaves it open.

Needs: the ``recent_changes`` rows before the localized failure, and none that explains it
(the change rules before this one did not decide): a row on the failing component that is not
a config change (``explain.is_config``: a deploy, a release, a job run).
Concludes: abstain — something changed on the failing component just before it failed, and
its logs do not say whether that is why: from logs alone the cause is open (publishing the
failure with the change beside it left out the cause). A config change says what it changed:
one the failure's words do not name is not why, and leaves nothing open.
Failure class: a deploy or a job whose effect the logs do not show.
Canon cases: none (the canon's rollouts either explain their component's failure or fall
on a component the class rules judge); it serves the worlds' failures just after a deploy or a
job whose logs do not tie them to it.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.explain import is_config
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain, Localized


def decide(inv: Investigation, found: Localized) -> Abstain | None:
    """Abstain when a rollout or job of the failing component does not explain its failure."""
    if any(item.get("kind") == "change" and item.get("service") == found.service
           and not is_config(item)
           for item in inv.items("recent_changes", lookback_minutes=None)):
        return Abstain("a change on the failing component that its logs do not tie to the "
                       "failure: the cause is open")
    return None
