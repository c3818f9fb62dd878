"""The log statistics' pieces of a window — whole hours, whole minutes, partial minutes — against
a brute-force aggregation of the events (docs/design.md §16.1), on a real build.

Dense data (an event every few seconds, odd milliseconds, three services, several patterns and
levels) over seven hours, so every piece of each window below holds events: a window's counts
come out right only if no hour is counted twice (once as an hour, once as its minutes) and no
edge stretch is dropped.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.layout import BUILD_MANIFEST, LOGS_DB, SCHEMA_VERSION
from diagnosis_harness.tools.stats.common import Counted, Span, parts_sql, pattern_counts
from diagnosis_harness.tools.timeutil import parse_ts, to_epoch_ms

from diagnosis_harness import write_dataset

START = datetime(2026, 9, 14, 6, 0, tzinfo=UTC)
HOURS = 7
MESSAGES = [("INFO", "GET /orders/{k} 200 in {n} ms"), ("INFO", "cache hit for key k{k}"),
            ("WARN", "slow upstream response {n} ms"), ("ERROR", "timeout after {n}ms calling db"),
            ("DEBUG", "retry {n} for client c{k}")]


def _logs() -> list[dict[str, str]]:
    rng = random.Random(11)
    out, t, k = [], START, 0
    while t < START + timedelta(hours=HOURS):
        level, text = rng.choice(MESSAGES)
        out.append({"ts": t.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    "service": rng.choice(("web", "payments", "ledger-db")), "level": level,
                    "message": text.format(k=k, n=rng.randrange(10, 5000))})
        t += timedelta(milliseconds=rng.randrange(200, 4000))
        k += 1
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hours")
    return load_dataset(write_dataset(root / "src", logs=_logs(), name="hours"),
                        root / "built").dest


@pytest.fixture(scope="module")
def backends(built: Path) -> Iterator[Backends]:
    with Backends.open(built) as opened:
        yield opened


def span(start: str, end: str) -> Span:
    return Span(to_epoch_ms(parse_ts(start)), to_epoch_ms(parse_ts(end)))


def brute_force(backends: Backends, s: Span, service: str | None) -> dict[tuple, Counted]:
    where, args = "ts_ms BETWEEN ? AND ?", [s.lo, s.hi]
    if service is not None:
        where, args = where + " AND service = ?", [*args, service]
    rows = backends.logs.execute(
        "SELECT service, pattern_id, level, count(*), min(ts_ms), max(ts_ms), min(id) "
        f"FROM events WHERE {where} GROUP BY 1, 2, 3", args).fetchall()
    return {(sv, p, lv): Counted(n, lo, hi, i) for sv, p, lv, n, lo, hi, i in rows}


def events_between(backends: Backends, lo: int, hi: int) -> int:
    return backends.logs.execute("SELECT count(*) FROM events WHERE ts_ms BETWEEN ? AND ?",
                                 (lo, hi)).fetchone()[0]


WINDOWS = [
    # mid-minute and mid-hour at both ends, several whole hours between
    ("2026-09-14T06:17:23.456Z", "2026-09-14T11:42:08.789Z"),
    # whole minutes on both sides of the hours, no partial minute at the start
    ("2026-09-14T06:59:00Z", "2026-09-14T09:00:59.999Z"),
    # exactly whole hours (no minute or event pieces), and one more millisecond at each end
    ("2026-09-14T07:00:00Z", "2026-09-14T09:59:59.999Z"),
    ("2026-09-14T06:59:59.999Z", "2026-09-14T10:00:00Z"),
    # one whole hour only, ragged edges
    ("2026-09-14T07:59:30.500Z", "2026-09-14T09:00:45.250Z"),
    # no whole hour: minutes and edges; no whole minute: events alone
    ("2026-09-14T08:10:10.100Z", "2026-09-14T09:05:05.050Z"),
    ("2026-09-14T08:10:10.100Z", "2026-09-14T08:10:50.900Z"),
    # the whole log and more
    ("2026-09-14T05:30:00.001Z", "2026-09-14T13:30:00Z"),
]


@pytest.mark.parametrize("service", [None, "payments"])
@pytest.mark.parametrize("window", WINDOWS)
def test_the_pieces_of_a_window_count_exactly_what_the_events_say(
        backends: Backends, window: tuple[str, str], service: str | None) -> None:
    s = span(*window)
    expected = brute_force(backends, s, service)
    assert expected  # the window holds events
    assert pattern_counts(backends, s, service) == expected


def test_long_windows_read_whole_hours_and_their_edges_are_not_empty(backends: Backends) -> None:
    # The comparison above proves something only if hours are read and every edge holds events.
    s = span(*WINDOWS[0])
    sql, args = parts_sql(s, None)
    assert "pattern_hours" in sql and sql.count("FROM pattern_minutes") == 2
    assert sql.count("FROM events") == 2
    hour_rows = backends.logs.execute(
        "SELECT count(*), sum(n) FROM pattern_hours WHERE hour BETWEEN ? AND ?",
        (s.lo // 3_600_000 + 1, (s.hi + 1) // 3_600_000 - 1)).fetchone()
    assert hour_rows[0] > 0 and hour_rows[1] > 1000
    minute = 60_000
    for lo, hi in [(s.lo, -(-s.lo // minute) * minute - 1),  # partial minute at the start
                   ((s.hi + 1) // minute * minute, s.hi),  # partial minute at the end
                   (-(-s.lo // minute) * minute, -(-s.lo // 3_600_000) * 3_600_000 - 1),
                   ((s.hi + 1) // 3_600_000 * 3_600_000, (s.hi + 1) // minute * minute - 1)]:
        assert hi > lo and events_between(backends, lo, hi) > 0, (lo, hi)
    # the pieces are disjoint: their counts add up to the window's events, no more
    total = backends.logs.execute(f"SELECT sum(n) FROM ({sql})", args).fetchone()[0]
    assert total == events_between(backends, s.lo, s.hi)


def test_the_summaries_agree_with_the_events(backends: Backends) -> None:
    def per(sql: str) -> list[tuple]:
        return backends.logs.execute(sql).fetchall()

    by_hour = ("SELECT {h}, service, pattern_id, level, {n}, {first}, {last}, {id} FROM {t} "
               "GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4")
    assert per(by_hour.format(h="ts_ms / 3600000", n="count(*)", first="min(ts_ms)",
                              last="max(ts_ms)", id="min(id)", t="events")) == \
        per("SELECT * FROM pattern_hours ORDER BY 1, 2, 3, 4")
    assert per(by_hour.format(h="minute / 60", n="sum(n)", first="min(first_ms)",
                              last="max(last_ms)", id="min(first_id)", t="pattern_minutes")) == \
        per("SELECT * FROM pattern_hours ORDER BY 1, 2, 3, 4")


def test_per_minute_rows_for_the_take_off_never_come_from_hours(backends: Backends) -> None:
    s = span(*WINDOWS[0])
    sql, args = parts_sql(s, None, hours=False)
    assert "pattern_hours" not in sql
    got = backends.logs.execute(
        f"SELECT minute, service, pattern_id, level, sum(n), min(first_ms), min(first_id) "
        f"FROM ({sql}) GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4", args).fetchall()
    assert got == backends.logs.execute(
        "SELECT ts_ms / 60000, service, pattern_id, level, count(*), min(ts_ms), min(id) "
        "FROM events WHERE ts_ms BETWEEN ? AND ? GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
        (s.lo, s.hi)).fetchall()


def test_a_build_of_the_previous_layout_is_refused_then_rebuilt(tmp_path: Path) -> None:
    src = write_dataset(tmp_path / "src", logs=_logs()[:50], name="old")
    dest = load_dataset(src, tmp_path / "built").dest
    manifest = json.loads((dest / BUILD_MANIFEST).read_text())
    (dest / BUILD_MANIFEST).write_text(json.dumps({**manifest,
                                                   "schema_version": SCHEMA_VERSION - 1}))
    with pytest.raises(BackendUnavailable):  # never read with the new queries
        Backends.open(dest)
    assert load_dataset(src, dest).rebuilt
    with sqlite3.connect(f"file:{dest / LOGS_DB}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT sum(n) FROM pattern_hours").fetchone() == (50,)
    with Backends.open(dest) as opened:
        assert opened.info.events == 50
