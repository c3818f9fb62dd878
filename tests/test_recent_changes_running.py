"""recent_changes and a change that lasts (issue 40's frictions): one still running is named.

A capable model asked for the changes in the hour before an onset and was not told of the
schema migration that had started hours earlier and was still holding its lock. A lasting
change (a start and an end column) that began before the onset and had not ended by then is
in the answer, marked ``still_running``, however long ago it began; one that ended before the
look-back is not. On a real built dataset (SQLite ops file), through the tool boundary.
"""

from __future__ import annotations

from typing import Any

import pytest
from datasetkit import built_backends
from graphkit import tool_outcome

MIGRATIONS = """version,service,description,started_at,finished_at,status
V30,orders,add customer column,2026-10-01T04:00:00Z,2026-10-01T04:00:09Z,success
V31,orders,create index orders_customer_idx,2026-10-01T06:30:00Z,,running
V32,orders,backfill channel,2026-10-01T07:00:00Z,2026-10-01T10:40:00Z,success
V33,billing,add invoice index,2026-10-01T09:50:00Z,2026-10-01T09:51:00Z,success
"""
ONSET = "2026-10-01T10:05:00Z"


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Any:
    logs = [{"ts": f"2026-10-01T10:{m:02d}:00Z", "service": "orders", "level": "ERROR",
             "message": f"insert into orders timed out waiting for a lock ({m})"}
            for m in range(5, 25)]
    with built_backends(tmp_path_factory.mktemp("migrations"), "migrations", logs,
                        tables={"schema_migrations": MIGRATIONS},
                        knowledge={"locks.md": "# Locks\n\n## Symptoms\nInserts wait.\n"}) as opened:
        yield opened


def changes(backends: Any, **args: Any) -> list[dict[str, Any]]:
    record = tool_outcome(backends, "recent_changes", **args).record
    return [f.data for f in record.facts if f.kind == "change"]


def test_a_migration_still_running_at_the_onset_is_named_however_early_it_began(
        backends: Any) -> None:
    found = {c["row"]["version"]: c for c in changes(backends, before=ONSET)}
    # V33 ended inside the hour; V31 (no end yet) and V32 (ends after the onset) were running.
    assert sorted(found) == ["V31", "V32", "V33"]
    assert found["V31"]["still_running"] and found["V32"]["still_running"]
    assert "still_running" not in found["V33"]
    # Dated by its start, with how long before the onset it began.
    assert (found["V31"]["time_column"], found["V31"]["time"]) == ("started_at",
                                                                  "2026-10-01T06:30:00Z")
    assert found["V31"]["minutes_before"] == 215
    # V30 ended hours before the look-back: not running, not named.
    assert "V30" not in found


def test_a_change_that_began_after_the_time_asked_about_is_not_running_then(
        backends: Any) -> None:
    # At 06:00 V31 had not started; V30 had ended two hours before.
    assert changes(backends, before="2026-10-01T06:00:00Z") == []
