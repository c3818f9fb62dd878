"""Rule: lock waits of the asked service, concluded on the session that holds the lock.

Needs: lock timeouts or a pool drained by waiting sessions in the asked service's failures, a
database log line naming the holder ("Process holding the lock: P"), and the heavy-lock
statement P ran (``locks.holder`` / ``locks.statement``), its waits tied to the asked service
and starting with its failures.
Concludes: "<holder's statement> held the lock <service> waited on", citing the waits, the
holder line and the statement.
Failure class: lock contention (a migration's ``ALTER``/``CREATE INDEX``, a manual job, a
``VACUUM FULL``).
Canon cases: none (the canon's databases do not name the holder by process id: its
lock-migration-alter is the DDL rule's, lock-manual-job the job rule's); it serves the worlds
whose PostgreSQL logs ``log_lock_waits`` lines.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.locks import lock_draft


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The lock holder's draft, if the holder and its statement are in the evidence."""
    return lock_draft(inv)
