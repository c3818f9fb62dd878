"""Explain rule: the asked service's own failure, naming nothing else, is the symptom again.

Needs: the localized failure on the very service the question asks about, naming no
dependency (no ``host:port``, no other service of the timeline), and no change explaining it
(the change rules before this one did not decide).
Concludes: abstain — the user already knows that service fails; its failure line restated
says nothing they did not ask.
Failure class: none of its own; it guards the answer from echoing the question.
Canon cases: it leaves the failure to the class rules after it in cache-ttl-shortened
(``lowered_limit``), clock-skew-ntp (``clock_skew``), credential-api-key-expired
(``expired_credential``), flag-tax-engine (``flag_flip``), fd-leak-after-deploy,
oom-leak-after-deploy (``leak_after_rollout``), network-sg-zone-b, network-policy-egress
(``network_change``), queue-poison-message (``poison_message``), schema-column-dropped
(``schema_drift``), quota-daily-translate (``quota_exhausted``), pool-config-reload
(``runbook_change``, first); open: clock-skew-s3, dependency-redis-upgrade; traps:
trap-unrelated-deploy-shared-words, trap-generic-error, trap-change-after-onset,
trap-mitigation-after-onset.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain, Localized


def decide(inv: Investigation, found: Localized) -> Abstain | None:
    """Abstain on the asked service's own failure that names nothing else."""
    if found.service == inv.scope.service and found.dependency is None:
        return Abstain("the asked service's own failure, naming nothing else: the symptom again")
    return None
