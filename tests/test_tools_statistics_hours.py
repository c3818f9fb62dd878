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

from diagnosis_harness import write_dataset
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.layout import BUILD_MANIFEST, LOGS_DB, SCHEMA_VERSION
from diagnosis_harness.tools.stats.common import (
    Counted,
    Span,
    parts_sql,
    pattern_counts,
    whole_hours,
)
from diagnosis_harness.tools.timeutil import format_epoch_ms, parse_ts, to_epoch_ms

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
    # "batch": one event every 5 minutes, and bursts placed in each piece of WINDOWS[0]
    stamps = [START + timedelta(minutes=5 * i, seconds=33) for i in range(HOURS * 12)]
    for at, count, step_ms in BURSTS:
        stamps += [datetime.fromisoformat(at) + timedelta(milliseconds=step_ms * i)
                   for i in range(count)]
    out += [{"ts": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
             "service": "batch", "level": "INFO", "message": f"batch step {i} done"}
            for i, moment in enumerate(stamps)]
    return out


BURSTS = [  # (first, count, ms apart); the background adds one at :33 of every fifth minute
    ("2026-09-14T06:17:05+00:00", 3, 1000),  # the minute WINDOWS[0] starts in, before its start
    ("2026-09-14T06:17:24+00:00", 5, 1000),  # … and inside it: 5 of that minute's 8
    ("2026-09-14T08:30:10+00:00", 8, 1000),  # a whole hour (9 in the minute)
    ("2026-09-14T11:30:05+00:00", 12, 1000),  # a whole minute after the last whole hour (13)
    ("2026-09-14T11:42:00+00:00", 40, 200),  # the minute WINDOWS[0] ends in, inside it
    ("2026-09-14T11:42:09+00:00", 5, 1000),  # … and after its end (45 in the minute)
]


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

    hours = per("SELECT hour, service, pattern_id, level, n, first_ms, last_ms, first_id, peak "
                "FROM pattern_hours ORDER BY 1, 2, 3, 4")
    peaks: dict[tuple, int] = {}
    for h, sv, p, lv, n in per("SELECT ts_ms / 3600000, service, pattern_id, level, count(*) "
                               "FROM events GROUP BY ts_ms / 60000, 2, 3, 4"):
        peaks[h, sv, p, lv] = max(peaks.get((h, sv, p, lv), 0), n)
    assert [(*row, peaks[row[:4]]) for row in per(
        "SELECT ts_ms / 3600000, service, pattern_id, level, count(*), min(ts_ms), max(ts_ms), "
        "min(id) FROM events GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4")] == hours
    assert per("SELECT minute / 60, service, pattern_id, level, sum(n), min(first_ms), "
               "max(last_ms), min(first_id), max(n) FROM pattern_minutes "
               "GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4") == hours


def brute_take_off(backends: Backends, s: Span, need: dict[tuple, int]) -> dict[tuple, tuple]:
    rows = backends.logs.execute(
        "SELECT service, pattern_id, level, ts_ms / 60000, count(*), min(ts_ms), min(id) "
        "FROM events WHERE ts_ms BETWEEN ? AND ? GROUP BY 1, 2, 3, 4 ORDER BY 4",
        (s.lo, s.hi)).fetchall()
    out: dict[tuple, tuple] = {}
    for sv, p, lv, _, n, first, i in rows:
        if (sv, p, lv) in need and (sv, p, lv) not in out and n >= need[sv, p, lv]:
            out[sv, p, lv] = (first, i)
    return out


@pytest.mark.parametrize("window", WINDOWS)
def test_onset_take_off_is_the_first_minute_reaching_the_need(
        backends: Backends, window: tuple[str, str]) -> None:
    # onset_timeline's risen patterns: the first minute with at least `need` events, found
    # through the hours' peaks, is the one a minute-by-minute scan of the events finds.
    from diagnosis_harness.tools.stats.onset import _take_off

    s = span(*window)
    keys = sorted(brute_force(backends, s, None))
    later_hours = 0
    for needs in ([1], [2, 3, 4, 5, 6, 50], [3, 4, 5], [6, 7, 8, 9]):
        need = {k: needs[i % len(needs)] for i, k in enumerate(keys)}
        expected = brute_take_off(backends, s, need)
        assert _take_off(backends, s, need) == expected
        assert expected or needs[0] > 1
        if 50 in needs and len(keys) > 5:
            assert len(expected) < len(need)  # no minute has 50 events: those keep their first
        h_lo, h_hi = whole_hours(s)
        later_hours += sum(h_lo < ms // 3_600_000 <= h_hi for ms, _ in expected.values())
    if window == WINDOWS[0]:
        assert later_hours > 0  # some take-off found past the first whole hour's peak check
        batch = next(k for k in keys if k[0] == "batch")
        got = {n: format_epoch_ms(_take_off(backends, s, {batch: n})[batch][0])
               for n in (1, 5, 6, 9, 10, 13, 14, 40)}
        assert got == {1: "2026-09-14T06:17:24Z", 5: "2026-09-14T06:17:24Z",
                       6: "2026-09-14T08:30:10Z", 9: "2026-09-14T08:30:10Z",
                       10: "2026-09-14T11:30:05Z", 13: "2026-09-14T11:30:05Z",
                       14: "2026-09-14T11:42:00Z", 40: "2026-09-14T11:42:00Z"}
        assert _take_off(backends, s, {batch: 41}) == {}  # 40 of the last minute inside


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
