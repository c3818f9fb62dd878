"""A pattern's facts are its events' facts (issue 38): count, first and last seen, level.

On real nginx access lines a report once said ``nginx ERROR x3054 14:00:12..`` for a pattern that
merged status 200, 404 and 502 lines: the count held WARN 404s and the first time was a 404's.
Here a small nginx access log in the real combined format shows each status class as its own
pattern, and on every incident world (and the demo) every pattern fact the tools show is
recounted from the store's events.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import worlds

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources
from diagnosis_harness.tools.dataset.patterns import pattern_of
from diagnosis_harness.tools.log_templates import message_template
from diagnosis_harness.tools.query_logs import query_logs
from diagnosis_harness.tools.results import clip
from diagnosis_harness.tools.stats.common import Span, pattern_counts
from diagnosis_harness.tools.timeutil import format_epoch_ms, parse_ts, to_epoch_ms

ROOT = Path(__file__).resolve().parent.parent
WORLDS = worlds.names()
SOURCES = {**{w: worlds.folder(w) for w in WORLDS},
           "demo": ROOT / "diagnosis_harness" / "tools" / "demo_data"}
SETTINGS = Settings(_env_file=None)


def _line(ts: str, status: int, size: int, path: str = "/static/app.js") -> str:
    return (f'203.0.113.{status % 50} - - [20/Nov/2026:{ts} +0000] "POST {path} HTTP/1.1" {status} '
            f'{size} "-" "Mozilla/5.0 (X11; Linux x86_64)"\n')


NGINX = "".join([
    _line("14:00:03", 200, 5120), _line("14:00:12", 404, 153), _line("14:01:40", 200, 5120),
    _line("14:02:09", 404, 153), _line("14:05:01", 502, 157), _line("14:06:30", 200, 5120),
    _line("14:11:17", 502, 157), _line("14:20:45", 502, 157), _line("14:29:56", 502, 157),
])


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Backends]:
    source = tmp_path / "src" / "nginx.log"
    source.parent.mkdir()
    source.write_text(NGINX, encoding="utf-8")
    import_sources([source], tmp_path / "dataset", ImportOptions())
    built = load_dataset(tmp_path / "dataset", tmp_path / "built").dest
    with Backends.open(built) as backends:
        yield backends


def test_200_404_and_502_lines_are_three_patterns_with_their_own_facts(nginx: Backends) -> None:
    result = query_logs(nginx, SETTINGS, start="2026-11-20T14:00:00Z", end="2026-11-20T14:30:00Z")
    shown = {(i.data["level"], i.data["template"]): i.data for i in result.items
             if i.kind == "error_pattern"}
    assert set(shown) == {("ERROR", "POST /static/app.js HTTP/<n> 5xx <n>"),
                          ("WARN", "POST /static/app.js HTTP/<n> 4xx <n>")}
    error = shown["ERROR", "POST /static/app.js HTTP/<n> 5xx <n>"]
    assert (error["count"], error["first_seen"], error["last_seen"]) == (
        4, "2026-11-20T14:05:01Z", "2026-11-20T14:29:56Z")
    warn = shown["WARN", "POST /static/app.js HTTP/<n> 4xx <n>"]
    assert (warn["count"], warn["first_seen"], warn["last_seen"]) == (
        2, "2026-11-20T14:00:12Z", "2026-11-20T14:02:09Z")
    with nginx.lock:
        stored = nginx.logs.execute(
            "SELECT p.text, e.level, count(*) FROM events e JOIN patterns p ON p.id = e.pattern_id "
            "GROUP BY p.text, e.level ORDER BY p.text").fetchall()
    assert stored == [("POST /static/app.js HTTP/<n> 2xx <n>", "INFO", 3),
                      ("POST /static/app.js HTTP/<n> 4xx <n>", "WARN", 2),
                      ("POST /static/app.js HTTP/<n> 5xx <n>", "ERROR", 4)]


@pytest.fixture(scope="module", params=sorted(SOURCES))
def world(request: pytest.FixtureRequest) -> Iterator[Backends]:
    built = worlds.loaded(SOURCES[request.param]).dest
    with Backends.open(built) as backends:
        yield backends


def _events(backends: Backends) -> list[tuple[int, str, str, str, int, str]]:
    with backends.lock:
        return backends.logs.execute(
            "SELECT e.ts_ms, e.service, e.level, e.message, e.pattern_id, p.text FROM events e "
            "JOIN patterns p ON p.id = e.pattern_id ORDER BY e.ts_ms, e.id").fetchall()


def test_every_stored_pattern_fact_recounts_from_its_events(world: Backends) -> None:
    events = _events(world)
    assert events
    recount: dict[tuple[str, int, str], list[int]] = {}
    for ts_ms, service, level, message, pattern_id, text in events:
        assert pattern_of(message) == text  # each event's pattern is its message's
        facts = recount.setdefault((service, pattern_id, level), [0, ts_ms, ts_ms])
        facts[0] += 1
        facts[2] = ts_ms
    whole = Span(events[0][0], events[-1][0])
    counted = pattern_counts(world, whole, None)  # the tools' hour/minute roll-ups
    assert {k: [c.count, c.first_ms, c.last_ms] for k, c in counted.items()} == recount
    classes: dict[int, set[str]] = defaultdict(set)  # an access pattern holds one status class
    for *_rest, message, pattern_id, text in events:
        if " 5xx " in text or " 4xx " in text or " 2xx " in text or " 3xx " in text:
            classes[pattern_id].add(message.split()[3 if " HTTP/" in message else 2][0])
    assert all(len(found) == 1 for found in classes.values())


def test_every_query_logs_pattern_fact_recounts_from_the_store(world: Backends) -> None:
    events = _events(world)
    severe = [e for e in events if e[2] in ("WARN", "ERROR", "FATAL")]
    if not severe:
        pytest.skip("no warning or error events")
    # The hour around the busiest minute of warnings and errors: where a report's facts come from.
    minutes: dict[int, int] = defaultdict(int)
    for e in severe:
        minutes[e[0] // 60_000] += 1
    busiest = max(minutes, key=lambda m: (minutes[m], -m)) * 60_000
    start = format_epoch_ms(busiest - 30 * 60_000)
    end = format_epoch_ms(busiest + 30 * 60_000)
    lo, hi = to_epoch_ms(parse_ts(start)), to_epoch_ms(parse_ts(end))
    assert parse_ts(end) - parse_ts(start) == timedelta(hours=1)
    recount: dict[tuple[str, str, str], list[int]] = {}
    for ts_ms, service, level, message, _pid, _text in severe:
        if lo <= ts_ms <= hi:
            facts = recount.setdefault((service, level, clip(message_template(message), 500)[0]),
                                       [0, ts_ms, ts_ms])
            facts[0] += 1
            facts[2] = ts_ms
    result = query_logs(world, SETTINGS, start=start, end=end)
    summary = next(i for i in result.items if i.kind == "log_summary")
    assert summary.data["error_patterns"] == len(recount)
    shown = [i.data for i in result.items if i.kind == "error_pattern"]
    assert shown
    for p in shown:
        count, first, last = recount[p["service"], p["level"], p["template"]]
        assert (p["count"], p["first_seen"], p["last_seen"]) == (
            count, format_epoch_ms(first), format_epoch_ms(last)), p
