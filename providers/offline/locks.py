"""A lock holder: the database session every waiter waits on, and the statement it ran.

A database that logs its lock waits (PostgreSQL's ``log_lock_waits``: "process 72411 still
waiting for RowExclusiveLock on relation 16502 … after 1000.6 ms", then "DETAIL: Process
holding the lock: 47002. Wait queue: …") says in so many words who holds what the others wait
for. When the timeline abstains on lock timeouts or a pool drained by waiting sessions
(``rules/saturated_dependency.SLOW``: the waiter is no cause), this is the evidence that closes it
(docs/design.md §16.3, rule 9): one process holds the lock in (nearly) every wait line, and
the same server logged that process running a statement that takes a heavy lock (a
``CREATE INDEX`` without ``CONCURRENTLY``, ``VACUUM FULL``, ``ALTER TABLE``…) before the
first wait. Anything less — two holders, an ordinary statement, no statement logged — leaves
the cause open.

The draft is built from the events' own values: the holder's id, the statement line (its
computed parts only: the SQL keywords and names, never a free-text comment) and times.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.causal import Symptom, change_problem
from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    SAME_MOMENT,
    Failures,
    flagged,
    level_of,
    moment,
    names,
)
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import change_label
from diagnosis_harness.providers.offline.text import utc

WAITS = re.compile(r"still waiting for \w*Lock\b|lock (?:wait )?time[ds]? ?out|could not obtain "
                   r"lock|lock not available", re.I)
"""A row that says sessions wait on a lock (the server's wait line, or a client's timeout)."""
HOLDER = re.compile(r"\bProcess holding the lock: (\d{1,10})\b")
HEAVY = re.compile(r"\bstatement: *(?:CREATE (?:UNIQUE )?INDEX (?!CONCURRENTLY)|VACUUM \(?FULL\b"
                   r"|CLUSTER\b|REINDEX (?!.*\bCONCURRENTLY\b)|ALTER TABLE\b|LOCK (?:TABLE )?\w"
                   r"|TRUNCATE\b|REFRESH MATERIALIZED VIEW (?!CONCURRENTLY))", re.I)
"""A statement that takes a lock ordinary writes wait on, as the server logs it."""
HOLDER_QUERY = "process holding lock"
"""The full-text words of a server's "Process holding the lock" lines (``query_logs``)."""
_USER = re.compile(r"(?<![\w@.-])([A-Za-z_][\w-]{0,62})@[A-Za-z_][\w-]*\s+(?:LOG|STATEMENT):")
"""The session's user in a server's ``user@database LOG:`` line prefix."""
MIN_WAITS = 3
"""Wait lines that must name the holder: one or two waits are a server doing its job."""
ONE_HOLDER = 0.8
"""The share of the wait lines that must name the same holder: two holders, two stories."""
STATEMENT_LOOK_BACK = timedelta(hours=4)
"""How long before the first wait the holder's statement is looked for."""
MAX_STATEMENT_CHARS = 160
"""The statement is quoted up to this length, whole words only."""


def _clipped(text: str) -> str:
    out: list[str] = []
    for word in text.split():
        if len(" ".join([*out, word])) > MAX_STATEMENT_CHARS:
            break
        out.append(word)
    return " ".join(out)


@dataclass(frozen=True)
class Holder:
    """The one session the wait lines of one server name."""

    service: str
    pid: str
    waits: list[dict[str, Any]]
    """The wait lines naming it (``query_logs`` events), earliest first."""

    @property
    def first_wait(self) -> str:
        """When the first session was seen waiting on it."""
        return str(self.waits[0]["ts"])


def waiting(inv: Investigation) -> bool:
    """Whether the timeline shows lock waits (any level: a server logs them as LOG/INFO)."""
    return any(WAITS.search(str(r.get("pattern", ""))) for r in inv.items("onset_timeline")
               if r.get("kind") == "onset")


def holder_step(inv: Investigation, start: str, end: str) -> dict[str, Any] | None:
    """The next call that finds the holder and its statement, or None (done, or no waits)."""
    if not waiting(inv):
        return None
    if not inv.called("query_logs", pattern=HOLDER_QUERY):
        return {"tool": "query_logs", "args": {"pattern": HOLDER_QUERY, "start": start,
                                               "end": end, "limit": 200}}
    found = holder(inv)
    if found is None:
        return None
    words = f"{found.pid} statement"
    if inv.called("query_logs", pattern=words):
        ran = statement(inv, found)
        if ran is None or inv.called("recent_changes", lookback_minutes=None):
            return None
        # The change that ran it, if a change log has one (a migration, a job).
        services = [s for s in (inv.scope.service, found.service) if s]
        return {"tool": "recent_changes", "args": {"before": found.first_wait,
                                                   "services": services}}
    began = (utc(found.first_wait) - STATEMENT_LOOK_BACK).isoformat()
    return {"tool": "query_logs", "args": {"service": found.service, "pattern": words,
                                           "start": began, "end": found.first_wait,
                                           "limit": 20}}


def holder(inv: Investigation) -> Holder | None:
    """The one process that (nearly) every wait line of one server names, or None."""
    lines = [e for e in inv.items("query_logs", pattern=HOLDER_QUERY)
             if e.get("kind") == "log_event"]
    named = [(str(e.get("service") or ""), m.group(1), e) for e in lines
             if (m := HOLDER.search(str(e.get("message", "")))) is not None]
    if not named or any(flagged(e) for e in lines):
        return None
    (service, pid), count = Counter((s, p) for s, p, _ in named).most_common(1)[0]
    if count < MIN_WAITS or count < ONE_HOLDER * len(named) or not service:
        return None
    waits = sorted((e for s, p, e in named if (s, p) == (service, pid)),
                   key=lambda e: moment(e.get("ts")))
    return Holder(service=service, pid=pid, waits=waits)


def statement(inv: Investigation, found: Holder) -> dict[str, Any] | None:
    """The holder's heavy-lock statement, logged by the same server before the first wait."""
    for e in inv.items("query_logs", pattern=f"{found.pid} statement"):
        text = str(e.get("message", ""))
        if e.get("kind") == "log_event" and not flagged(e) \
                and re.search(rf"[\[\s]{found.pid}[\]\s]", text) and HEAVY.search(text) \
                and moment(e.get("ts")) <= moment(found.first_wait):
            return e
    return None


def _linked(failures: Failures, service: str, found: Holder) -> bool:
    """Whether the asked service's failure is the waiting (the data ties the two).

    Its failure rows speak of a lock wait or name the server, or its failures lead to the
    server (``Failures.chain``), or the wait lines are its sessions (``booking@reservations``,
    a server's user@database prefix, the user named after the service).
    """
    if service not in failures.failing:
        return False
    own = failures.rows[service]
    if any(WAITS.search(str(r.get("pattern", ""))) or names(r, found.service) for r in own):
        return True
    if failures.chain(service) == found.service:
        return True
    user = re.compile(rf"(?<![\w@.-]){re.escape(service)}(?:_\w+)?@\w", re.I)
    return any(user.search(str(w.get("message", ""))) for w in found.waits)


def _change(inv: Investigation, found: Holder, ran: dict[str, Any]) -> dict[str, Any] | None:
    """The most recent change that ran the holder's statement, by the causal test.

    The row names the database user the statement's line says ran it (a server's
    ``user@database`` prefix: ``ledger_migrator@ledger``), its own words name what the
    statement locks (``V212__holds_merchant_idx.sql`` for ``CREATE INDEX
    idx_holds_merchant_created ON holds``), and it passes the causal test (it precedes the
    statement). A migration that merely touched the same table before, by another user, is
    not the one that ran it (a DBA's ``VACUUM FULL`` from psql).
    """
    user = _USER.search(str(ran["message"]))
    if user is None:
        return None  # who ran it is not said: any change of the table's name would do
    symptom = Symptom(services=frozenset({found.service.lower(), inv.scope.service.lower()}),
                      onset=str(ran["ts"]), text=str(ran["message"]))
    for item in inv.items("recent_changes", lookback_minutes=None):
        row = item.get("row")
        if item.get("kind") != "change" or not isinstance(row, dict) or "warning" in item:
            continue
        row = {**row, "service": item.get("service") or row.get("service")}
        ran_it = any(str(v).strip().lower() == user.group(1).lower() for v in row.values())
        if ran_it and describe_row(row) and change_problem(row, symptom, [], []) is None:
            return item
    return None


MIGRATION_TOOL = re.compile(r"flyway|liquibase|migrat|alembic|sqitch|dbmate|goose|knex|prisma"
                            r"|schema_?change|ddl_?deploy", re.I)
"""A database account named for the tool that runs schema migrations (``flyway_booking``,
``ledger_migrator``)."""


def run_by_migration(inv: Investigation, ran: dict[str, Any]) -> bool:
    """Whether the holder's statement was run by a migration, not by hand.

    Its session's user is a migration tool's account: named so (:data:`MIGRATION_TOOL`), or an
    installer the change log names (``installed_by``). The migration is then the origin the
    cause must name — which one, and from which release — and the statement alone is its
    mechanism, half the answer (a migration tool writes its row when the migration ends, so
    the row that ran a lock still held is often not in the change log yet).
    """
    user = _USER.search(str(ran["message"]))
    if user is None:
        return False
    name = user.group(1).lower()
    if MIGRATION_TOOL.search(name):
        return True
    return any(str(v).strip().lower() == name
               for item in inv.items("recent_changes")
               if isinstance(item.get("row"), dict) for v in item["row"].values())


def lock_draft(inv: Investigation) -> dict[str, Any] | None:
    """The draft naming the lock holder's statement as the cause, or None (abstain)."""
    found = holder(inv)
    ran = statement(inv, found) if found is not None else None
    if found is None or ran is None:
        return None
    failures = Failures.of(inv.items("onset_timeline"))
    service = inv.scope.service
    if not service or not _linked(failures, service, found):
        return None  # a system-wide question, or waits nothing ties to the asked service
    symptom = next((r for r in failures.rows[service] if level_of(r) in CAUSE_LEVELS),
                   failures.rows[service][0])
    if moment(found.first_wait) - failures.first(service) > SAME_MOMENT:
        return None  # the waits began after the asked service failed: another story
    shown = _clipped(str(ran["message"]).split("statement:", 1)[1])
    first = found.waits[0]
    claims = [
        # The statement's event carries no service (its query was scoped to the server).
        {"statement": f"{found.pid} statement: {shown} at {ran['ts']}",
         "evidence_ids": [ran["evidence_id"]]},
        {"statement": f"{found.service} Process holding the lock: {found.pid} at "
                      f"{first['ts']}", "evidence_ids": [first["evidence_id"]]},
        {"statement": f"then {service} {symptom['level']} from {symptom['onset']}: "
                      f"'{symptom['pattern']}'", "evidence_ids": [symptom["evidence_id"]]},
    ]
    change = _change(inv, found, ran)
    if change is None and run_by_migration(inv, ran):
        return None  # a migration's statement, and not which migration: the origin is open
    if change is not None:
        claims.append({"statement": f"row {describe_row(change['row'])}",
                       "evidence_ids": [change["evidence_id"]]})
    # Only the evidence's own words and numbers: the judge finds each of them in what is cited.
    cause = (f"{found.service}: process {found.pid} statement: {shown} from {ran['ts']}, then "
             f"Process holding the lock: {found.pid} from {found.first_wait}; then {service} "
             f"{symptom['level']} from {symptom['onset']}: '{symptom['pattern']}'")
    if change is not None:
        cause += f", after change {change_label(change)}"
    return {"conclusion": {"root_cause": cause, "claims": claims},
            "next_steps": [f"check {found.service} process {found.pid} first",
                           "check whether the statement can run without the lock "
                           "(CONCURRENTLY, a maintenance window)"]}
