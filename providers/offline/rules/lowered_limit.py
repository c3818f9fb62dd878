"""Rule: a limit lowered by a change, then the very resource it limits runs out.

Needs: a change row (class look-back, ``evidence.changes``) that lowered a number — a pool's
size, a memory or CPU limit, a replica count, a rate, a cache's TTL or size, a timeout — on the
failing component or on one its failure names, at most :data:`LEAD` before a failure that
shows the resource its key limits running out (``lexicon.LIMITED``: the failure's own words, or a
metric of the changed component that moved between the change and the failure). A timeout's
failure must quote the value the change set.
Concludes: "<service>: <failure> from <onset>, after <table> row <change>, with <metric>",
citing the failure, the change (and its siblings: the same component's rows of that moment)
and the metric.
Failure classes: pool exhaustion after a config change, OOM after a lowered memory limit, CPU
throttling after a lowered CPU limit, a queue backlog after consumers were scaled down, a rate
limit lowered below the traffic, a cache whose TTL or memory was cut, a retry storm after a
client timeout was cut below the callee's latency.
Canon cases: pool-hikari-single-table, cpu-limit-lowered, oom-cgroup-limit, cache-ttl-shortened,
cache-maxmemory-evictions, queue-consumers-scaled-down, ratelimit-edge-lowered,
retry-storm-client-timeout; traps it must leave open: trap-mitigation-after-onset (a limit
raised after the onset), trap-quiet-after-change (no failure).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence, limits
from diagnosis_harness.providers.offline.rules.lexicon import LIMITED, TIMEOUT_KEY

LEAD = timedelta(minutes=30)
"""How long before the failure a lowered limit is its cause: the resource runs out at once."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The lowered limit the failure used up, when one change and one resource say so."""
    failures = evidence.failures(inv)
    found: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]] = []
    for change in evidence.changes(inv):
        row, at = change["row"], moment(change.get("time"))
        found_setting = limits.lowered(row)
        if found_setting is None:
            continue
        key, _, value = found_setting
        owner = str(change.get("service") or "")
        for failure in failures:
            text = evidence.text(failure)
            if not evidence.between(failure.get("onset"), at, at + LEAD) or not (
                    failure["service"] == owner or evidence.says(text, owner)):
                continue
            if TIMEOUT_KEY.search(key) and limits.quotes(text, value):
                found.append((failure, change, None))
                break
            for limited, ran_out, shows in LIMITED:
                if not limited.search(key):
                    continue
                shown = evidence.shifted(inv, owner, shows, at, moment(failure["onset"]))
                if ran_out.search(text) or shown is not None:
                    found.append((failure, change, shown))
                    break
            else:
                continue
            break
    if len({id(c) for _, c, _ in found}) != 1:
        return None  # none, or two limits lowered: which one ran out is not shown
    failure, change, metric = found[0]
    siblings = [c for c in evidence.changes(inv) if c["evidence_id"] != change["evidence_id"]
                and c.get("service") == change.get("service") and c.get("time") == change.get("time")]
    key = (limits.setting(change["row"]) or ("the setting",))[0]
    return draft.conclusion(failure, [change, *siblings], metric,
                               f"restore {key} on {change.get('service')}")
