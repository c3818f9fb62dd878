"""query_logs over the demo log store: windows, filters, error patterns, input errors."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.query_logs import message_template, query_logs
from diagnosis_harness.tools.results import ToolInputError
from diagnosis_harness.tools.timeutil import parse_ts

S = Settings(_env_file=None)
INC1 = {"service": "payment-service", "start": "2026-11-02T10:00:00+00:00",
        "end": "2026-11-02T10:10:00+00:00"}


@pytest.fixture(scope="module")
def backends(tmp_path_factory):
    built = load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest
    with Backends.open(built) as opened:
        yield opened


def demo_lines(service, start, end):
    lo, hi = parse_ts(start), parse_ts(end)
    with (demo_dataset_dir() / "logs.jsonl").open() as handle:
        for raw in handle:
            line = json.loads(raw)
            if line["service"] == service and lo <= parse_ts(line["ts"]) <= hi:
                yield line


def by_kind(result, kind):
    return [i.data for i in result.items if i.kind == kind]


def test_template_replaces_numbers_and_ids_but_keeps_words():
    assert message_template("payment pay_000328 failed: timed out after 5000 ms merchant=M1003") \
        == "payment <id> failed: timed out after <n> ms merchant=<id>"
    assert message_template("req 123e4567-e89b-12d3-a456-426614174000 from 10.0.0.12:8080 at "
                            "2026-11-02T10:00:00Z") == "req <uuid> from <ip> at <ts>"
    assert message_template("pool payment-db (active=10, max=10)") == \
        "pool payment-db (active=<n>, max=<n>)"


def test_patterns_aggregate_the_window_with_counts_and_first_last_seen(backends):
    result = query_logs(backends, S, **INC1)
    summary = by_kind(result, "log_summary")[0]
    expected = list(demo_lines(**INC1))
    assert summary["matched_events"] == len(expected)
    patterns = {p["template"]: p for p in by_kind(result, "error_pattern")}
    pool = patterns["Timeout waiting for connection from pool payment-db after <n> ms "
                    "(active=<n>, idle=<n>, max=<n>, waiting=<n>)"]
    pool_lines = [ln for ln in expected if ln["message"].startswith("Timeout waiting")]
    assert pool["count"] == len(pool_lines)
    assert parse_ts(pool["first_seen"]) == parse_ts(pool_lines[0]["ts"])
    assert parse_ts(pool["last_seen"]) == parse_ts(pool_lines[-1]["ts"])
    assert "max=10" in pool["example"]
    # Most frequent first; the known-noise exporter error is there but ranked below.
    counts = [p["count"] for p in by_kind(result, "error_pattern")]
    assert counts == sorted(counts, reverse=True)


def test_events_are_in_time_order_and_limited(backends):
    result = query_logs(backends, S, **INC1, limit=5)
    events = by_kind(result, "log_event")
    assert len(events) == 5
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    assert result.truncated  # more events matched than were returned


def test_pattern_requires_every_word_and_supports_prefixes(backends):
    window = {**INC1, "start": "2026-11-02T09:00:00Z", "end": "2026-11-02T11:00:00Z"}
    exact = by_kind(query_logs(backends, S, **window, pattern="config reloaded"), "log_event")
    assert [e["attrs"]["change"] for e in exact] == ["CHG-2041", "CHG-2042"]
    prefix = by_kind(query_logs(backends, S, **window, pattern="reload*"), "log_event")
    assert len(prefix) == 2
    none = query_logs(backends, S, **window, pattern="config exploded")
    assert none.items == []


def test_level_is_a_minimum_severity(backends):
    window = {**INC1, "start": "2026-11-02T09:50:00Z"}
    result = query_logs(backends, S, **window, level="warning")
    assert result.scope["level"] == "WARN"
    levels = set(by_kind(result, "log_summary")[0]["by_level"])
    assert levels == {"WARN", "ERROR"}


def test_unknown_service_is_empty_with_a_hint_listing_real_services(backends):
    result = query_logs(backends, S, **{**INC1, "service": "payments"})
    assert result.items == []
    assert "payment-service" in result.note and "ledger-service" in result.note


def test_window_end_is_inclusive_and_offsets_are_normalised(backends):
    # The "config reloaded" line is at 09:52:04Z exactly; the window ends on it.
    result = query_logs(backends, S, service="payment-service", pattern="config reloaded",
                        start="2026-11-02T11:52:00+02:00", end="2026-11-02T09:52:04Z")
    assert result.scope["start"] == "2026-11-02T09:52:00Z"
    events = by_kind(result, "log_event")
    assert [e["ts"] for e in events] == ["2026-11-02T09:52:04Z"]


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("2026-11-02T10:00:00", "2026-11-02T10:10:00Z", "no UTC offset"),
        ("ten o'clock", "2026-11-02T10:10:00Z", "not an ISO-8601 timestamp"),
        ("2026-11-02T10:10:00Z", "2026-11-02T10:00:00Z", "must be after start"),
        ("2026-11-02T10:00:00Z", "2026-11-02T10:00:00Z", "must be after start"),
    ],
)
def test_bad_windows_are_input_errors(backends, start, end, message):
    with pytest.raises(ValidationError, match=message):
        query_logs(backends, S, service="payment-service", start=start, end=end)


def test_window_longer_than_the_setting_is_refused(backends):
    short = Settings(_env_file=None, max_log_window_minutes=30)
    with pytest.raises(ToolInputError, match="longer than the allowed 30 minutes"):
        query_logs(backends, short, service="payment-service",
                   start="2026-11-02T10:00:00Z", end="2026-11-02T11:00:00Z")


def test_unknown_level_and_wordless_pattern_are_refused(backends):
    with pytest.raises(ValidationError, match="unknown level"):
        query_logs(backends, S, **INC1, level="LOUD")
    with pytest.raises(ValidationError, match="no searchable words"):
        query_logs(backends, S, **INC1, pattern="***")


def test_blank_filters_mean_no_filter(backends):
    # A small model asked for "no pattern or level" sends them as "": the same query as none.
    plain = query_logs(backends, S, **INC1)
    blank = query_logs(backends, S, **INC1, pattern=" ", level="")
    assert (blank.scope["pattern"], blank.scope["level"]) == (None, None)
    assert [i.data for i in blank.items] == [i.data for i in plain.items]
