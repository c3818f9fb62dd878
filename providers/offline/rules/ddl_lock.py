"""Rule: a DDL statement took a table's lock, and every query behind it timed out waiting.

Needs: a failure at ERROR or worse saying a statement gave up waiting for a lock
(``lexicon.LOCK_TIMEOUT``); and the one new INFO line (the onset timeline) of another
component — the database — at most :data:`LEAD` before it, logging a statement that takes a
table's strongest lock (``lexicon.DDL``: ``ALTER TABLE``, ``CREATE INDEX``, ``VACUUM FULL``).
Where the database names the lock's holder by process id, the lock-holder rule concludes first.
Where the statement's line says a migration tool's account ran it (``migrator@orders LOG:``),
the migration is the origin the cause must name, and this rule, which finds none, abstains
(``locks.run_by_migration``).
Concludes: "<service>: <lock timeouts> from <onset>, after <database> INFO '<statement>'",
citing both.
Failure class: lock contention behind a migration's DDL.
Canon cases: lock-migration-alter, lock-alter-type-rewrite (a console's statement, PostgreSQL's
plain prefix, the change only in a change log); lock-index-by-hand names its holder by process
id, the lock-holder rule's; lock-manual-job is a job's long transaction, the job rule's. Traps it
must leave open: trap-migration-lock-no-row (the migration account's statement, no migration
row), trap-noisy-service, trap-generic-error.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.locks import run_by_migration
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import DDL, LOCK_TIMEOUT

LEAD = timedelta(minutes=10)
"""How long before the lock timeouts the statement holding the lock began."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one DDL statement logged just before a service's lock timeouts began."""
    failure = next(iter(evidence.causes(inv, LOCK_TIMEOUT)), None)
    if failure is None:
        return None
    onset = moment(failure["onset"])
    ddl = [i for i in inv.items("onset_timeline") if i.get("kind") == "onset"
           and i.get("level") == "INFO" and i.get("change") == "new" and not flagged(i)
           and i.get("service") != failure["service"] and DDL.search(str(i.get("pattern", "")))
           and onset - LEAD <= moment(i.get("onset")) <= onset]
    if len(ddl) != 1:
        return None
    line = ddl[0]
    if run_by_migration(inv, {"message": line["pattern"]}):
        return None  # a migration's statement, and not which migration: the origin is open
    held = {"evidence_id": line["evidence_id"], "table": "log", "service": line["service"],
            "pattern": line["pattern"], "time": line["onset"], "row": {}}
    return draft.conclusion(failure, [held], None,
                               f"end or reschedule the DDL on {line['service']}")
