"""A small orders world of our own: lock waits in PostgreSQL's own words, one case a day.

``orders`` (the app) writes to ``postgres``, which logs its lock waits as ``log_lock_waits``
does ("process N still waiting for RowExclusiveLock … after 1000.4 ms", then "DETAIL: Process
holding the lock: H. Wait queue: …") and its DDL as ``log_statement = 'ddl'`` does; the app
logs its lock timeouts. ``schema_migrations`` is flyway's history. Days (+00:00):

- INDEX (day 1): the migrator's ``CREATE INDEX orders_customer_idx`` (migration V31, run by
  ``migrator``) holds the lock from 10:02; every insert waits: SUCCESS, naming the statement
  and V31 — not V30, an earlier migration of the same table.
- TWO (day 2): the waits name two holders (a ``VACUUM FULL`` and an ``ALTER TABLE``): FALLBACK.
- PLAIN (day 3): the one holder ran an ordinary ``UPDATE`` (a long transaction: why it stayed
  open is not in the logs): FALLBACK.
- MIGRATION (day 4): the migrator's ``CREATE INDEX orders_state_idx`` holds the lock, and its
  migration (V32) is in the history only from when it ended, after the window: which migration
  ran it is not in the evidence, so FALLBACK.
- MANUAL (day 5): a DBA's ``VACUUM FULL`` by hand, no change row of it: SUCCESS (a person's
  statement is its own origin).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from datasetkit import write_dataset

CASES = {
    "INDEX": "orders: order inserts failing between 10:05 and 10:25 on 2026-10-01 — root cause?",
    "TWO": "orders: order inserts failing between 10:05 and 10:25 on 2026-10-02 — root cause?",
    "PLAIN": "orders: order inserts failing between 10:05 and 10:25 on 2026-10-03 — root cause?",
    "MIGRATION": "orders: order inserts failing between 10:05 and 10:25 on 2026-10-04 — root "
                 "cause?",
    "MANUAL": "orders: order inserts failing between 10:05 and 10:25 on 2026-10-05 — root cause?",
}
HOLDERS = {1: [("4100", "migrator", "CREATE INDEX orders_customer_idx ON public.orders "
                                    "USING btree (customer_id);")],
           2: [("4200", "dba_ana", "VACUUM FULL VERBOSE public.orders;"),
               ("4300", "migrator", "ALTER TABLE public.orders ADD COLUMN channel text;")],
           3: [("4400", "orders_app", "UPDATE public.orders SET state = 'archived' WHERE "
                                      "created < now() - interval '90 days';")],
           4: [("4500", "migrator", "CREATE INDEX orders_state_idx ON public.orders "
                                    "USING btree (state);")],
           5: [("4600", "dba_ana", "VACUUM FULL VERBOSE public.orders;")]}


def _t(day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(2026, 10, day, hour, minute, second, tzinfo=UTC)


def _line(at: datetime, service: str, level: str, message: str) -> dict[str, Any]:
    return {"ts": at.isoformat(), "service": service, "level": level, "message": message}


def _logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for day in sorted(HOLDERS):
        for minute in range(8 * 60, 12 * 60, 2):
            at = _t(day, 0, 0) + timedelta(minutes=minute)
            out += [_line(at, "orders", "INFO", f"order created in {12 + minute % 7} ms"),
                    _line(at, "postgres", "INFO", f"[{900 + minute % 5}] LOG:  checkpoint "
                          f"complete: wrote {30 + minute % 11} buffers")]
        holders = HOLDERS[day]
        for n, (pid, user, sql) in enumerate(holders):
            out.append(_line(_t(day, 10, 2, 10 + n), "postgres", "INFO",
                             f"[{pid}] {user}@orders LOG:  statement: {sql}"))
        for i in range(60):
            at = _t(day, 10, 2, 40) + timedelta(seconds=20 * i)
            waiter = 7000 + 10 * i
            pid = holders[i % len(holders)][0]
            out += [_line(at, "postgres", "INFO", f"[{waiter}] orders_app@orders LOG:  process "
                          f"{waiter} still waiting for RowExclusiveLock on relation 16400 of "
                          f"database 16384 after 1000.{i % 9} ms"),
                    _line(at, "postgres", "INFO", f"[{waiter}] orders_app@orders DETAIL:  "
                          f"Process holding the lock: {pid}. Wait queue: {waiter}."),
                    _line(at + timedelta(seconds=1), "orders", "ERROR",
                          f"insert order ord_{day}{i:03d} failed: ERROR: canceling statement "
                          "due to lock timeout")]
    return sorted(out, key=lambda e: e["ts"])


MIGRATIONS = [
    ["installed_rank", "version", "description", "script", "installed_by", "installed_on",
     "execution_time", "success"],
    [30, 30, "orders customer column", "V30__orders_customer.sql", "migrator",
     "2026-09-20T09:00:00+00:00", 420, 1],
    [31, 31, "orders customer idx", "V31__orders_customer_idx.sql", "migrator",
     "2026-10-01T10:02:00+00:00", 1500000, 1],
    # flyway writes a migration's row when it ends: V32 ran from 10:02:10 to 10:41.
    [32, 32, "orders state idx", "V32__orders_state_idx.sql", "migrator",
     "2026-10-04T10:41:00+00:00", 2330000, 1],
]


def write_lock_dataset(root: Path) -> Path:
    """Write the dataset folder under ``root`` and return it."""
    return write_dataset(root, "orders-locks", "lock waits", _logs(),
                         tables={"schema_migrations": MIGRATIONS})
