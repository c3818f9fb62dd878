"""Rule: the one component the onset timeline's failures lead to, and what explains it.

Needs: an ``onset_timeline`` of the window and its look-back in which one component fails
first and unambiguously (``localize.localize``: it starts before what it explains, logs at a
cause level, names no other failing component, says no dependency of its is saturated or
slow), and then one of: a change on it the failure's words name or that passes the causal
test, a certificate of its that expired just before, one code rollout of it minutes before its
own new ERROR, a resource metric of its that left its baseline just before warnings — or a
failure line that names its own mechanism (``mechanism.MECHANISM``: expired, no space left,
out of memory, NXDOMAIN, connection refused to a named endpoint, a crash of its own code).
Concludes: "<service>: <failure> from <onset>, after <change>" citing the onset rows, the
consistent downstream failures, the change or metric, and its one new INFO line just before.
Failure classes: a bad deploy, OOM or file descriptors after a lowered limit, an expired
certificate or credential, DNS failure, connection refused after a host or port change, a
schema change the code runs ahead of.
Canon cases: deploy-npe, deploy-go-panic, oom-heap-lowered, fd-limit-lowered,
cert-client-expired, dns-record-deleted, dns-typo-config, refused-caller-port,
schema-code-before-migration; traps it must leave open: trap-generic-error,
trap-edge-502-nothing-behind, trap-noisy-service, trap-noisy-service-after-deploy.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.explain import localized_draft
from diagnosis_harness.providers.offline.investigation import Investigation


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The localized draft, if the timeline localizes a failure and something explains it."""
    return localized_draft(inv)
