"""The offline investigator's conclusion rules, run in order (docs/design.md §16, the index).

One rule a module, each a pure function of the investigation so far (the observations, the
symptom the logs show, the runbook passages that match it) returning a draft that concludes,
or None. The first rule that concludes decides, so the order of :data:`RULES` is the order of
precedence; when none does, the draft concludes nothing and says what to check next. Each
module's docstring says what evidence its rule needs, what it concludes, its failure class and
the canon cases (tests/canon) that serve it.

Every conclusion is held to the same bar, whatever rule wrote it: a mechanism and its trigger
or origin. A restated generic error is a suspect, not a root cause (:mod:`..mechanism`).

Four modules here are no rules: :mod:`.evidence` (what the failure-class rules read: the
class look-back's changes, failures, metric shifts), :mod:`.draft` (the draft they write),
:mod:`.lexicon` (each failure class's words) and :mod:`.limits` (a change row's numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diagnosis_harness.providers.offline.conclusion import NEXT_STEPS
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import (
    clock_skew,
    ddl_lock,
    dependency_down,
    disk_filled,
    expired_credential,
    flag_flip,
    job_overload,
    leak_after_rollout,
    localized_failure,
    lock_holder,
    lowered_limit,
    network_change,
    poison_message,
    quota_exhausted,
    retry_storm,
    rollout_behaviour,
    runbook_change,
    schema_drift,
)

Rule = Callable[[Investigation, dict[str, Any] | None, list[dict[str, Any]]],
                dict[str, Any] | None]
"""A rule: (investigation, symptom, matching runbook passages) → a concluding draft or None."""

RULES: tuple[Rule, ...] = (runbook_change.conclude, localized_failure.conclude,
                           lock_holder.conclude, lowered_limit.conclude, job_overload.conclude,
                           expired_credential.conclude, flag_flip.conclude,
                           quota_exhausted.conclude, disk_filled.conclude, schema_drift.conclude,
                           leak_after_rollout.conclude, network_change.conclude,
                           retry_storm.conclude, ddl_lock.conclude, rollout_behaviour.conclude,
                           poison_message.conclude, dependency_down.conclude, clock_skew.conclude)
"""The rules in order of precedence: the first that concludes decides (module docstring)."""


def run_rules(inv: Investigation, symptom: dict[str, Any] | None,
              runbook: list[dict[str, Any]], rules: tuple[Rule, ...] = RULES) -> dict[str, Any]:
    """The draft of the first rule in ``rules`` that concludes, else one that concludes nothing."""
    for rule in rules:
        found = rule(inv, symptom, runbook)
        if found is not None and found.get("conclusion") is not None:
            return found
    return {"conclusion": None, "next_steps": NEXT_STEPS}
