"""The statistics tools on a small hand-made world (tests/stats_world.py), through the boundary.

The log tools read the log store (SQLite); the ops tools read the operational database, here
once as the embedded SQLite file and once as a real PostgreSQL database holding the same
tables with real column types (``timestamptz`` for times): same rows, same numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import stats_world
from test_ops_postgres import copy_ops_tables

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.layout import OPS_DB
from diagnosis_harness.tools.dataset.patterns import pattern_of

W0, W1 = stats_world.WINDOW
SETTINGS = Settings(_env_file=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stats-world")
    return load_dataset(stats_world.write(root / "src"), root / "built").dest


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def backends(request: pytest.FixtureRequest, built: Path) -> Iterator[Backends]:
    yield from open_backends(request, built)


def open_backends(request: pytest.FixtureRequest, built: Path) -> Iterator[Backends]:
    """A built dataset's backends: its SQLite ops file, or (``request.param`` "postgres") a real
    PostgreSQL database holding the same tables with real column types."""
    if request.param == "sqlite":
        with Backends.open(built) as opened:
            yield opened
        return
    server = request.getfixturevalue("pg_server")
    with server.database() as url:
        copy_ops_tables(built / OPS_DB, url)
        with Backends.open(built, ops_db_url=url) as opened:
            assert opened.ops.dialect == "postgres"
            yield opened






def call(backends: Backends, name: str, **args: Any) -> Any:
    outcome = execute_tool(name, args, tool_call_id=f"t-{name}", backends=backends,
                           budget=Budget(BudgetLimits.from_settings(SETTINGS)),
                           settings=SETTINGS, ready_count=0)
    return outcome.record


def rows(record: Any, kind: str) -> list[dict[str, Any]]:
    return [f.data for f in record.facts if f.kind == kind]


def test_patterns_mask_variable_parts_and_keep_words_and_dependency_ports() -> None:
    assert pattern_of("timeout after 3000ms calling ledger-db:5432 for payment pay_9000") == \
        "timeout after <dur> calling ledger-db:5432 for payment <id>"
    assert pattern_of("client 10.0.4.7:40001 id=550e8400-e29b-41d4-a716-446655440000 "
                      "said 'no such table' at 2026-09-14T10:00:01Z") == \
        'client <ip>:<n> id=<uuid> said "<str>" at <ts>'
    assert pattern_of("can't open 0xdeadbeef") == "can't open <hex>"
    # A quoted snake_case or dotted name is what failed (a sequence, a topic), not a value.
    assert pattern_of('nextval: reached maximum value of sequence "billing_events_id_seq" '
                      '(2147483647)') == \
        'nextval: reached maximum value of sequence "billing_events_id_seq" (<n>)'
    assert pattern_of("lag on 'watch.events' for user 'alice'") == \
        "lag on 'watch.events' for user \"<str>\""
    assert pattern_of("x" * 5000 + " 12")[:5] == "xxxxx"  # bounded input, no failure


def test_a_long_example_keeps_its_start_and_its_end() -> None:
    # A line's reason or error code is often last: the example shows both ends of a long line.
    from diagnosis_harness.tools.stats.common import MAX_EXAMPLE_CHARS, clip_middle

    line = ("Replica SQL for channel '': Worker 1 failed executing transaction " + "x" * 400
            + " handler error HA_ERR_FOUND_DUPP_KEY, Error_code: MY-001062")
    shown = clip_middle(line, MAX_EXAMPLE_CHARS)
    assert len(shown) <= MAX_EXAMPLE_CHARS
    assert shown.startswith("Replica SQL for channel") and shown.endswith("Error_code: MY-001062")
    assert " … " in shown and clip_middle("short", MAX_EXAMPLE_CHARS) == "short"


def test_compare_windows_finds_new_patterns_and_the_risen_one_against_the_default_baseline(
        backends: Backends) -> None:
    record = call(backends, "compare_windows", start=W0, end=W1)
    assert record.invocation_status is InvocationStatus.READY
    overview = rows(record, "window_overview")[0]
    assert (overview["baseline_start"], overview["baseline_end"]) == \
        ("2026-09-14T09:45:00Z", "2026-09-14T09:59:59.999Z")
    patterns = {(r["service"], r["change"]): r for r in rows(record, "window_pattern")}
    assert set(patterns) == {("ledger-db", "new"), ("payments", "new"), ("web", "new"),
                             ("web", "rose")}
    ledger = patterns[("ledger-db", "new")]
    assert (ledger["level"], ledger["window_count"], ledger["baseline_count"]) == ("ERROR", 40, 0)
    assert ledger["first_seen"] == "2026-09-14T10:04:10Z"
    assert ledger["example"].startswith("too many connections (max_connections=100)")
    rose = patterns[("web", "rose")]
    # 15 baseline WARNs; 16 (both ends inclusive) + 45 in the window: (62/15) / (16/15) = 3.87
    assert (rose["window_count"], rose["baseline_count"], rose["ratio"]) == (61, 15, 3.87)
    levels = {r["service"]: r for r in rows(record, "service_levels")}
    assert levels["search"]["new_patterns"] == levels["search"]["rose_patterns"] == 0
    assert levels["ledger-db"]["window_by_level"] == {"ERROR": 40, "INFO": 31}
    assert overview["new_patterns"] == 3 and overview["rose_patterns"] == 1


def test_compare_windows_for_one_service_and_a_given_baseline(backends: Backends) -> None:
    record = call(backends, "compare_windows", start=W0, end=W1, service="Ledger-DB",
                  baseline_start="2026-09-14T08:00:00Z", baseline_end="2026-09-14T09:00:00Z")
    assert {r["service"] for r in rows(record, "window_pattern")} == {"ledger-db"}
    assert record.scope["baseline_start"] == "2026-09-14T08:00:00Z"
    quiet = call(backends, "compare_windows", start="2026-09-14T09:00:00Z",
                 end="2026-09-14T09:15:00Z")
    assert rows(quiet, "window_pattern") == []  # healthy traffic: nothing new, nothing rose
    unknown = call(backends, "compare_windows", start=W0, end=W1, service="nope")
    assert unknown.invocation_status is InvocationStatus.ERROR and "ledger-db" in unknown.error


def test_onset_timeline_orders_the_earliest_failure_first_with_dependency_direction(
        backends: Backends) -> None:
    record = call(backends, "onset_timeline", start=W0, end=W1)
    overview = rows(record, "onset_overview")[0]
    assert [s["service"] for s in overview["services_in_onset_order"]] == \
        ["ledger-db", "payments", "web"]
    assert overview["dependency_table"] == {"table": "service_calls", "caller": "caller",
                                            "callee": "callee"}
    onsets = rows(record, "onset")
    assert [r["rank"] for r in onsets] == list(range(1, len(onsets) + 1))
    assert [r["onset"] for r in onsets] == sorted(r["onset"] for r in onsets)
    first = onsets[0]
    assert (first["service"], first["onset"]) == ("ledger-db", "2026-09-14T10:04:10Z")
    by = {(r["service"], r["change"]): r for r in onsets}
    # payments calls ledger-db: ledger-db is upstream of payments, payments downstream of it
    assert first["anomalous_upstream"] == [] and first["anomalous_downstream"] == ["payments"]
    assert by[("payments", "new")]["anomalous_upstream"] == ["ledger-db"]
    assert by[("payments", "new")]["anomalous_downstream"] == ["web"]
    # search is not anomalous: not named
    assert by[("web", "new")]["anomalous_upstream"] == ["payments"]
    # the always-there WARN took off with the 502s, not at the window's start
    assert by[("web", "rose")]["onset"] == "2026-09-14T10:06:00Z"


def test_metric_shifts_name_the_entity_metric_and_when_it_left_its_baseline(
        backends: Backends) -> None:
    record = call(backends, "metric_shifts", start=W0, end=W1)
    shifts = rows(record, "metric_shift")
    assert [(s["table"], s["entity"], s["metric"]) for s in shifts] == \
        [("host_metrics", "ledger-db", "conn_active")]
    shift = shifts[0]
    assert shift["first_out"] == "2026-09-14T10:04:00Z" and shift["direction"] == "up"
    assert shift["baseline_median"] == 32 and shift["window_median"] == 100
    assert shift["samples_out"] == 12 and shift["window_samples"] == 16
    assert shift["z"] > 4
    one = call(backends, "metric_shifts", start=W0, end=W1, table="HOST_METRICS")
    assert rows(one, "metric_shift") == shifts
    wrong = call(backends, "metric_shifts", start=W0, end=W1, table="merchants")
    assert wrong.invocation_status is InvocationStatus.ERROR and "host_metrics" in wrong.error


def test_recent_changes_in_the_lookback_before_the_onset(backends: Backends) -> None:
    record = call(backends, "recent_changes", before="2026-09-14T10:04:10Z")
    changes = rows(record, "change")
    assert [(c["table"], c["service"], c["time"]) for c in changes] == \
        [("deploys", "ledger-db", "2026-09-14T09:58:00Z")]
    assert changes[0]["minutes_before"] == 6.17 and changes[0]["row"]["version"] == "14.2"
    wide = call(backends, "recent_changes", before="2026-09-14T10:04:10Z",
                lookback_minutes=180, services=["search", "web"])
    assert [c["service"] for c in rows(wide, "change")] == ["search"]  # web's is after
    none = call(backends, "recent_changes", before="2026-09-14T09:00:00Z", lookback_minutes=30)
    assert none.evidence_status is EvidenceStatus.NO_EVIDENCE


def test_the_same_arguments_give_the_same_numbers(backends: Backends) -> None:
    for name, args in (("compare_windows", {"start": W0, "end": W1}),
                       ("onset_timeline", {"start": W0, "end": W1}),
                       ("metric_shifts", {"start": W0, "end": W1}),
                       ("recent_changes", {"before": W1, "lookback_minutes": 600})):
        first, again = call(backends, name, **args), call(backends, name, **args)
        assert first.facts and [f.data for f in first.facts] == [f.data for f in again.facts]


SERVICES = {"web", "payments", "ledger-db"}


def test_dependency_tables_are_found_by_their_values_and_directed_by_their_names() -> None:
    from diagnosis_harness.tools.stats.schema import classify

    # Named the other way round in table order: the names say who depends on whom.
    named = classify("topology", ["target", "source"], [("payments", "web"),
                                                        ("ledger-db", "payments")], SERVICES)
    assert named.edge == ("source", "target")
    # Names that say nothing: the first column depends on the second.
    plain = classify("links", ["a", "b", "weight"], [("web", "payments", 1)], SERVICES)
    assert plain.edge == ("a", "b")
    # One column of services is an entity, not an edge; values that are not services are not.
    single = classify("owners", ["service", "team"], [("web", "shop"), ("payments", "money")],
                      SERVICES)
    assert single.edge is None and single.entity_column == "service"


def test_change_logs_and_series_are_recognised_by_columns_not_only_names() -> None:
    from datetime import UTC, datetime

    from diagnosis_harness.tools.stats.schema import classify

    audit = classify("audit", ["at", "service", "old_value", "new_value"],
                     [("2026-09-14T10:00:00Z", "web", "1", "2")], SERVICES)
    assert audit.is_change_log and audit.time_columns == ("at",)
    # A real database's datetime values are times; numbers and ids are told apart.
    samples = classify("samples", ["ts", "host_id", "latency_ms", "host"],
                       [(datetime(2026, 9, 14, tzinfo=UTC), 7, 12.5, "web")], SERVICES)
    assert samples.time_columns == ("ts",) and samples.numeric_columns == ("latency_ms",)
    assert not samples.is_change_log and samples.entity_column == "host"


@pytest.mark.parametrize("window", [("2026-09-14T10:04:20.500Z", "2026-09-14T10:09:40.250Z"),
                                    ("2026-09-14T10:05:10Z", "2026-09-14T10:05:50Z"),
                                    ("2026-09-14T10:00:00Z", "2026-09-14T10:59:59.999Z")])
def test_counts_over_whole_and_partial_minutes_equal_a_count_of_the_events(
        backends: Backends, window: tuple[str, str]) -> None:
    from diagnosis_harness.tools.timeutil import parse_ts

    lo, hi = (parse_ts(t) for t in window)
    expected: dict[tuple[str, str], int] = {}
    for event in stats_world.logs():
        if lo <= parse_ts(event["ts"]) <= hi:
            key = (event["service"], event["level"])
            expected[key] = expected.get(key, 0) + 1
    record = call(backends, "compare_windows", start=window[0], end=window[1])
    got = {(r["service"], level): n for r in rows(record, "service_levels")
           for level, n in r["window_by_level"].items()}
    assert got == expected


@pytest.mark.parametrize(("args", "says"), [
    ({"start": W1, "end": W0}, "must be after"),
    ({"start": "2026-09-10T00:00:00Z", "end": "2026-09-14T00:00:00Z"}, "longer than"),
    ({"start": W0, "end": W1, "baseline_start": W0}, "give both"),
    ({"start": W0, "end": W1, "baseline_start": "2026-09-14T10:10:00Z",
      "baseline_end": "2026-09-14T10:30:00Z"}, "overlaps"),
    ({"start": "10:00", "end": W1}, "ISO-8601"),
])
def test_unusable_windows_are_refused_in_one_clear_line(backends: Backends, args: dict[str, Any],
                                                        says: str) -> None:
    for name in ("compare_windows", "onset_timeline", "metric_shifts"):
        record = call(backends, name, **args)
        assert record.invocation_status is InvocationStatus.ERROR
        assert says in record.error and "\n" not in record.error


def test_a_logfmt_message_keeps_its_words_other_quoted_values_do_not() -> None:
    # msg="…" is the failure mode (Go and Kubernetes components log so); q="…" is a value.
    assert pattern_of('level=error msg="shedding load: inflight 512 over limit" path=/v1/a') \
        == 'level=error msg="shedding load: inflight <n> over limit" path=/<id>/a'
    assert pattern_of('GET /search?q="rain jacket" 200 err="dial tcp 10.0.0.1:53: i/o timeout"') \
        == 'GET /search?q="<str>" <n> err="dial tcp <ip>:<n>: i/o timeout"'


def test_a_json_message_keeps_its_keys_and_its_message_words() -> None:
    # An app logging JSON inside the collector's JSON: every quoted key was one "<str>", so
    # two different failures of one service had the same pattern and no words.
    pushed = pattern_of('{"level": 40, "msg": "apns rejected token", "device": "886a6ee7"}')
    crashed = pattern_of('{"level": 50, "msg": "consumer crashed", "partition": 7, '
                         '"offset": 88412931, "err": {"code": "E_PARSE"}}')
    assert pushed == 'level=<n> msg="apns rejected token" device="<str>"'
    assert crashed == 'level=<n> msg="consumer crashed" partition=<n> offset=<n> err=<obj>'
    assert pattern_of('{"msg": "apns rejected token", "device": "ffe01b22"}') \
        == pattern_of('{"msg": "apns rejected token", "device": "0c0ffee9"}')
    assert pattern_of("{not json: at all}") == "{not json: at all}"


def test_an_access_logs_request_line_keeps_its_method_and_path() -> None:
    line = ('[2026-03-11T01:27:52.028Z] "GET /v1/customers/me/profile HTTP/2" 503 - 702 118 '
            '"101.2.3.4"')
    assert pattern_of(line) == '[<ts>] "GET /<id>/customers/me/profile HTTP/<n>" <n> - <n> <n> ' \
        '"<str>"'
    # The query string's values vary per request: one pattern per endpoint.
    assert pattern_of('"POST /v2/sessions?cp=CP-1 HTTP/1.1" 502') \
        == pattern_of('"POST /v2/sessions?cp=CP-9&x=2 HTTP/1.1" 502') \
        == '"POST /<id>/sessions?<q> HTTP/<n>" <n>'
    assert pattern_of('said "GET out of here"') == 'said "<str>"'


def test_onset_timeline_shows_a_windows_failures_before_odd_new_info_lines(
        tmp_path: Path) -> None:
    # A busy system: 30 INFO lines of the window are "new" (each its own words, never seen in
    # the baseline), all before the one real failure. Earliest first, they would fill the rows
    # shown; the failure must be shown, and the rows stay in onset order.
    from diagnosis_harness import write_dataset

    day = stats_world.DAY
    logs = [{"ts": stats_world.iso(day.replace(hour=9, minute=30) + timedelta(seconds=20 * i)),
             "service": "api", "level": "INFO", "message": f"GET /healthz 200 req={i:05x}"}
            for i in range(135)]
    words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heath", "inlet",
             "juniper", "kelp", "larch", "maple", "nectar", "oak", "pine", "quartz", "reef",
             "sage", "tundra", "umber", "violet", "willow", "xenon", "yarrow", "zinnia", "aspen",
             "basalt", "coral", "dune"]
    logs += [{"ts": stats_world.iso(day.replace(hour=10, minute=1, second=n)), "service": "api",
              "level": "INFO", "message": f"warmed {word} catalogue"}
             for n, word in enumerate(words)]
    logs += [{"ts": stats_world.iso(day.replace(hour=10, minute=8, second=2 * n)),
              "service": "orders-db", "level": "ERROR",
              "message": f"could not write block {n}: no space left on device"} for n in range(10)]
    built = load_dataset(write_dataset(tmp_path / "src", logs=logs, name="busy"),
                         tmp_path / "built").dest
    with Backends.open(built) as opened:
        record = call(opened, "onset_timeline", start="2026-09-14T10:00:00Z",
                      end="2026-09-14T10:15:00Z")
    rows = [f.data for f in record.facts if f.kind == "onset"]
    overview = next(f.data for f in record.facts if f.kind == "onset_overview")
    assert overview["anomalies"] == 31 and overview["more"] == 11
    failures = [r for r in rows if r["level"] == "ERROR"]
    assert [r["service"] for r in failures] == ["orders-db"]
    assert failures[0]["window_count"] == 10
    onsets = [r["onset"] for r in rows]
    assert onsets == sorted(onsets) and [r["rank"] for r in rows] == list(range(1, 21))
