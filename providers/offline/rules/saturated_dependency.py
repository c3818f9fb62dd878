"""Locate rule: a root that says what it waits on is saturated or slow is not the cause.

Needs: the root's failure rows (its computed patterns).
Concludes: abstain when one says a dependency is saturated (``OVERLOAD``: 429, rate limited,
throttled, a full queue, rejected executions, an object store's "SlowDown") or slow (``SLOW``:
statement, read or request timeouts, lock waits, deadlocks): why it is saturated or slow — a
burst, a disk, a lock's holder, a noisy neighbour — is the cause, and it is not in the
failure's words. (A refused connection or a dial timeout says the endpoint is unreachable:
that one is named, and this rule lets it through.) The failure-class rules after the
localized one may still say why (a job, a lowered limit, a DDL's lock).
Failure class: a rate limit or throttle, lock contention, a slow dependency.
Canon cases: it leaves the failure to the class rules after it in batch-report-on-primary,
batch-backup-moved-to-peak, lock-manual-job (``job_overload``), cpu-limit-lowered,
pool-hikari-single-table, pool-pgx-logs-only (``lowered_limit``), lock-migration-alter
(``ddl_lock``), deploy-slow-query, refused-callee-port (``rollout_behaviour``),
disk-postgres-log-statement, disk-debug-logging (``disk_filled``), flag-semantic-ranking
(``flag_flip``), dependency-postgres-recovery (``dependency_down``) and
ratelimit-upstream-backfill (``runbook_change``, first); open: cpu-noisy-neighbour; trap:
trap-unrelated-change-shared-words.
"""

from __future__ import annotations

import re

from diagnosis_harness.providers.offline.failures import Failures
from diagnosis_harness.providers.offline.localize import Abstain, Root

OVERLOAD = re.compile(r"too many requests|\b429\b|rate.?limit|throttl|queue (?:is )?full"
                      r"|rejected_execution|overload|\bSlowDown\b|reduce your request rate", re.I)
"""A failure saying its dependency is saturated: what saturates it is not in the evidence."""
SLOW = re.compile(r"statement timeout|deadline exceeded|read time[ds]? ?out|request time[ds]? ?out"
                  r"|\bslow\b|lock (?:wait )?time[ds]? ?out|could not obtain lock|acquirelock"
                  r"|lock not available|deadlock", re.I)
"""A failure saying something it waits on is slow (not down or refusing), or that another
session holds the lock it waits for."""


def decide(failures: Failures, service: str | None, root: Root | None) -> Abstain | None:
    """Abstain when a failure row of the root says a dependency is saturated or slow."""
    if root is not None and any(OVERLOAD.search(str(r.get("pattern", "")))
                                or SLOW.search(str(r.get("pattern", "")))
                                for r in failures.rows[root.service]):
        return Abstain("a saturated or slow dependency: why it is saturated or slow is the "
                       "cause, and it is not shown")
    return None
