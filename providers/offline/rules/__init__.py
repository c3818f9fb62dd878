"""The offline investigator's conclusion rules, run in order (docs/design.md §16.3, the index).

One rule a module, each a pure function of the investigation so far returning what it
decides, or None; the first rule that decides wins, so the order of each tuple is the order of
precedence. Each module's docstring says what evidence its rule needs, what it concludes, its
failure class and the canon cases (tests/canon) that serve it.

- :data:`RULES`: (investigation, symptom, matching runbook passages) → a concluding draft or
  None. When none concludes, the draft concludes nothing and says what to check next, first
  which rule stopped short and why (:func:`stopped_short`).
- :data:`LOCATE`: the rules of ``localized_failure`` that find the one component the onset
  timeline's failures lead to — a :class:`~..localize.Root` — or abstain, saying why.
- :data:`EXPLAIN`: the rules that say what explains that component's failure (a change, an
  expiry, a rollout, a metric, its own words) or abstain, saying why. :data:`CHANGES`, its first
  three, are the change rules the investigator asks about before reading metrics.

An abstention (:class:`~..localize.Abstain`) ends the localized rule's family with its reason
(``localized_outcome``); the failure-class rules after it in :data:`RULES` still run.

Every conclusion is held to the same bar, whatever rule wrote it: a mechanism and its trigger
or origin. A restated generic error is a suspect, not a root cause (:mod:`..mechanism`).
:data:`HELPERS` are the modules here that are no rules: :mod:`.evidence` (what the failure-class
rules read), :mod:`.draft` (the draft they write), :mod:`.lexicon` (each failure class's
words), :mod:`.limits` (a change row's numbers) and :mod:`.upstream` (a dependency that failed
before the asked service's symptom).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from diagnosis_harness.providers.offline.conclusion import NEXT_STEPS
from diagnosis_harness.providers.offline.failures import Failures
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import (
    MAX_QUESTION_WINDOW,
    Abstain,
    Explained,
    Localized,
    Root,
    bounded_window,
    candidate,
)
from diagnosis_harness.providers.offline.rules import (
    asked_service_restated,
    change_named,
    change_unexplained,
    clock_skew,
    ddl_lock,
    dependency_down,
    disk_filled,
    expired_credential,
    expiry_before,
    failing_dependency_named,
    flag_flip,
    full_disk_unexplained,
    full_server_reply,
    job_overload,
    leak_after_rollout,
    localized_failure,
    lock_holder,
    lowered_limit,
    mechanism_line,
    network_change,
    onset_chain,
    onset_root,
    poison_message,
    quota_exhausted,
    resource_shift,
    retry_storm,
    rollout_behaviour,
    rollout_just_before,
    runbook_change,
    saturated_dependency,
    schema_drift,
    unlinked_root,
    untrusted_text,
    warnings_unexplained,
)

Rule = Callable[[Investigation, dict[str, Any] | None, list[dict[str, Any]]],
                dict[str, Any] | None]
"""A rule: (investigation, symptom, matching runbook passages) → a concluding draft or None."""
LocateRule = Callable[[Failures, str | None, Root | None], Root | Abstain | None]
"""A locate rule: (the timeline's failures, the asked service, the root so far) → a root, an
abstention, or None (not its case)."""
ExplainRule = Callable[[Investigation, Localized], Explained | Abstain | None]
"""An explain rule: (investigation, the localized failure) → what explains it, an abstention,
or None (not its case)."""

RULES: tuple[Rule, ...] = (runbook_change.conclude, localized_failure.conclude,
                           lock_holder.conclude, lowered_limit.conclude, job_overload.conclude,
                           expired_credential.conclude, flag_flip.conclude,
                           quota_exhausted.conclude, disk_filled.conclude, schema_drift.conclude,
                           leak_after_rollout.conclude, network_change.conclude,
                           retry_storm.conclude, ddl_lock.conclude, rollout_behaviour.conclude,
                           poison_message.conclude, dependency_down.conclude, clock_skew.conclude)
"""The rules in order of precedence: the first that concludes decides (module docstring)."""

LOCATE: tuple[LocateRule, ...] = (
    untrusted_text.decide, onset_chain.decide, onset_root.decide, unlinked_root.decide,
    saturated_dependency.decide, full_server_reply.decide, failing_dependency_named.decide)
"""Finding the root (the first two that return one), then the vetoes on it, in order."""

CHANGES: tuple[ExplainRule, ...] = (change_named.decide, expiry_before.decide,
                                    rollout_just_before.decide)
"""The change rules: a change row that explains the localized failure, in order."""

EXPLAIN: tuple[ExplainRule, ...] = (
    *CHANGES, warnings_unexplained.decide, full_disk_unexplained.decide,
    asked_service_restated.decide, change_unexplained.decide, resource_shift.decide,
    mechanism_line.decide)
"""What explains the localized failure, or why nothing does: the first that decides wins."""

HELPERS = frozenset({"draft", "evidence", "lexicon", "limits", "upstream"})
"""The modules of this package that are no rules (module docstring)."""


def _named(found: Abstain, rule: Callable[..., object]) -> Abstain:
    return replace(found, rule=rule.__module__.rsplit(".", 1)[-1])


def locate(items: list[dict[str, Any]], service: str | None = None) -> Localized | Abstain:
    """The one component an onset timeline's failures lead to, or the locate rule's abstention."""
    failures, root = Failures.of(items), None
    for rule in LOCATE:
        found = rule(failures, service, root)
        if isinstance(found, Abstain):
            return _named(found, rule)
        root = found or root
    if root is None:  # (every timeline is decided by onset_chain or onset_root)
        return Abstain("no rule located a failure", rule="locate")
    return candidate(failures, root, items)


def localize(items: list[dict[str, Any]], service: str | None = None) -> Localized | None:
    """The component :func:`locate` finds, or None when a locate rule abstains."""
    found = locate(items, service)
    return None if isinstance(found, Abstain) else found


def localized(inv: Investigation) -> Localized | None:
    """The investigation's localized failure, if its onset timeline localizes one."""
    return localize(inv.items("onset_timeline"), inv.scope.service or None)


def explain(inv: Investigation, found: Localized,
            rules: tuple[ExplainRule, ...] = EXPLAIN) -> Explained | Abstain | None:
    """What the first of ``rules`` that decides says of ``found`` (None: none decides)."""
    for rule in rules:
        why = rule(inv, found)
        if why is not None:
            return _named(why, rule) if isinstance(why, Abstain) else why
    return None


def explaining_change(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The change row the change rules (:data:`CHANGES`) find behind ``found``, if any."""
    why = explain(inv, found, CHANGES)
    return why.change if isinstance(why, Explained) else None


def localized_outcome(inv: Investigation) -> tuple[Localized, Explained] | Abstain:
    """The localized family's decision: the failure and what explains it, or an abstention."""
    found = locate(inv.items("onset_timeline"), inv.scope.service or None)
    if isinstance(found, Abstain):
        return found
    why = explain(inv, found)
    if why is None:  # (mechanism_line, last, always decides)
        return Abstain("no rule explained the failure", rule="explain")
    return why if isinstance(why, Abstain) else (found, why)


def run_rules(inv: Investigation, symptom: dict[str, Any] | None,
              runbook: list[dict[str, Any]], rules: tuple[Rule, ...] = RULES) -> dict[str, Any]:
    """The draft of the first rule in ``rules`` that concludes, else one that concludes nothing."""
    for rule in rules:
        found = rule(inv, symptom, runbook)
        if found is not None and found.get("conclusion") is not None:
            return found
    return {"conclusion": None, "next_steps": [*stopped_short(inv), *NEXT_STEPS]}


NOT_CONCLUDED = "Not concluded: "
"""How a null draft's first step says which rule stopped short and why (the FALLBACK shows it)."""


def stopped_short(inv: Investigation) -> list[str]:
    """The localized family's abstention, ``Not concluded: <rule> — <reason>``, if it abstained.

    Only the registry's own words (a rule module's name, its reason): never a cause, nothing of
    the data. Where no onset timeline was read, the family decided nothing: it says why (no
    window to localize in), or nothing.
    """
    if not inv.called("onset_timeline"):
        return [] if inv.scope.window_given and bounded_window(inv.start, inv.end) else [
            f"{NOT_CONCLUDED}localized_failure \u2014 no onset was looked for: that needs a time "
            f"window of at most {MAX_QUESTION_WINDOW.total_seconds() / 3600:g} hours in the question"]
    found = localized_outcome(inv)
    return [f"{NOT_CONCLUDED}{found.rule} \u2014 {found.reason}"] if isinstance(found, Abstain) \
        else []
