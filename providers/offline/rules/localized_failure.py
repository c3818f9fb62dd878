"""Rule: the one component the onset timeline's failures lead to, and what explains it.

Needs: an ``onset_timeline`` of the window and its look-back, which the :data:`~.LOCATE` rules
localize to one component (it starts before what it explains, logs at a cause level, names no
other failing component, says no dependency of its is saturated or slow), and then one of the
:data:`~.EXPLAIN` rules concluding: a change on it the failure's words name, a certificate of
its that expired just before, one code rollout of it minutes before its own new ERROR, a
resource metric of its that left its baseline just before warnings — or a failure line that
names its own mechanism. Any of those rules may abstain instead, with its reason
(``localized_outcome``): then this rule concludes nothing and the later rules run.
Concludes: "<service>: <failure> from <onset>, after <change>" citing the onset rows, the
consistent downstream failures, the change or metric, and its one new INFO line just before.
Failure classes: those of its locate and explain rules (the index, docs/design.md §16.3).
Canon cases: those its explain rules conclude — dns-record-deleted, dns-typo-config,
fd-limit-lowered (``change_named``), cert-client-expired (``expiry_before``), deploy-npe,
deploy-go-panic, schema-code-before-migration (``rollout_just_before``), refused-caller-port
(``mechanism_line``); and every trap stays open through its locate and explain rules.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline import rules as registry
from diagnosis_harness.providers.offline.explain import draft
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The localized draft, if the timeline localizes a failure and something explains it."""
    return localized_draft(inv)


def localized_draft(inv: Investigation) -> dict[str, Any] | None:
    """The draft concluding on the localized failure, or None when a rule abstains."""
    outcome = registry.localized_outcome(inv)
    if isinstance(outcome, Abstain):
        return None
    return draft(inv, *outcome)
