"""Metrics as monitoring exports them, and the digest an on-call engineer reads when the logs do
not say: long tables read one series per (entity, metric name), the series that moved shown in
the triage digest (tests/long_metrics_world.py; SQLite and real PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import long_metrics_world as world
import pytest
from offline_runs import diagnose, offline_services
from test_tools_statistics import call, open_backends, rows

from diagnosis_harness import write_dataset
from diagnosis_harness.providers.offline.text import is_time_column
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.stats.schema import classify, layout

W0, W1 = world.WINDOW


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return world.write(tmp_path_factory.mktemp("long-metrics") / "src")


@pytest.fixture(scope="module")
def built(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_dataset(source, tmp_path_factory.mktemp("long-built") / "b").dest


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def backends(request: pytest.FixtureRequest, built: Path) -> Iterator[Backends]:
    yield from open_backends(request, built)


def test_long_tables_are_read_as_entity_and_metric_name(backends: Backends) -> None:
    kinds = layout(backends, 10.0).tables
    container = kinds["metric_container"]
    assert (container.entity_column, container.metric_column) == ("cmdb_id", "kpi_name")
    assert container.numeric_columns == ("value",) and container.time_columns == ("timestamp",)
    assert (kinds["pod_metrics"].entity_column, kinds["pod_metrics"].metric_column) == \
        ("pod", "metric")
    assert kinds["queue_metrics"].entity_column == "queue"  # a series table's one text column


def test_the_one_series_that_moved_is_named_by_container_and_kpi(backends: Backends) -> None:
    shifts = rows(call(backends, "metric_shifts", start=W0, end=W1), "metric_shift")
    assert [(s["table"], s["entity"], s["metric"]) for s in shifts] == \
        [("metric_container", "cart-0", "mem_usage")]
    shift = shifts[0]
    assert shift["metric_column"] == "kpi_name" and shift["direction"] == "up"
    assert shift["first_out"] == "2026-09-20T10:05:00Z"
    assert shift["baseline_median"] == 42 and shift["window_median"] == 85


def test_a_capped_read_keeps_the_window(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    # Fewer samples than the window and its baseline hold: the latest are read, so the window is
    # whole and the baseline is its end, and the shift is still found (and the cap is said).
    from diagnosis_harness.tools.stats import metrics
    monkeypatch.setattr(metrics, "MAX_SAMPLES", 250)
    record = call(backends, "metric_shifts", start=W0, end=W1, table="metric_container")
    assert [(s["entity"], s["metric"]) for s in rows(record, "metric_shift")] == \
        [("cart-0", "mem_usage")]
    assert record.truncated


def test_a_change_table_keeps_no_entity_column_it_did_not_have() -> None:
    # Only a table of time series takes its one text column as its entity: a change log's
    # author column is no service, and filtering changes by it would hide every row.
    kind = classify("cluster_changes", ["changed_at", "author", "replicas"],
                    [("2026-09-20T10:00:00Z", "ana", 3)], set())
    assert kind.is_change_log and kind.entity_column is None


def test_measurements_named_like_times_are_not_compared_with_times() -> None:
    for column in ("starts_5m", "start_fail_pct", "end_to_end_s", "started_per_min", "changed_by"):
        assert not is_time_column(column), column
    for column in ("started_at", "ts", "timestamp", "start_time", "changed_at", "not_after"):
        assert is_time_column(column), column


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_the_digest_shows_the_metric_that_moved_when_the_logs_do_not_say(
        source: Path, tmp_path: Path, protocol: str) -> None:
    services = offline_services(source, tmp_path / "home", protocol)
    out = diagnose(services, world.QUESTION)
    # Both services wait on something slow: no cause is published from the logs alone.
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["fallback_type"] == "INSUFFICIENT_EVIDENCE"
    tools = [r["tool"] for r in services.store.trace(out["run_id"])["tool_records"]]
    assert "metric_shifts" in tools
    shown = out["content"].split("Suspects")[1].split("What was checked")[0]
    assert "metric moved on cart-0 at 2026-09-20T10:05:00Z: metric=mem_usage, direction=up" \
        in shown, shown
    suspects: list[dict[str, Any]] = out["suspects"]
    moved = [s for s in suspects if s["kind"] == "metric"]
    assert [s["service"] for s in moved] == ["cart-0"] and moved[0]["share_out"] == 0.31
    assert moved[0]["rank"] <= 5
    json.dumps(out["suspects"])  # the --json object carries it as plain data


def test_which_metrics_moved_is_asked_before_raw_rows_use_the_budget_up(tmp_path: Path) -> None:
    # Six change logs beside the metrics and no runbook: no table row can conclude, and their
    # raw rows used to take every call left, so the digest never showed cart-0's memory.
    source = world.write(tmp_path / "src", change_logs=True)
    services = offline_services(source, tmp_path / "home")
    out = diagnose(services, "checkout: cart lookups failing between 10:00 and 10:20 UTC on "
                             "2026-09-20 — why?")
    assert out["release_outcome"] == "FALLBACK", out["content"]
    tools = [r["tool"] for r in services.store.trace(out["run_id"])["tool_records"]]
    assert "metric_shifts" in tools and "lookup_knowledge" in tools, tools
    moved = [s for s in out["suspects"] if s["kind"] == "metric"]
    assert moved and moved[0]["service"] == "cart-0" and moved[0]["rank"] <= 5, out["suspects"]


def test_a_wide_tables_columns_named_after_services_are_their_metrics(tmp_path: Path) -> None:
    # One time column and a column per service and metric (cart_p99_ms, web_p99_ms), as a
    # flattened export comes: cart's p99 is cart's, not a metric of no one.
    logs = [{"ts": world.iso(world.at(h, m)), "service": svc, "level": "INFO", "message": "ok"}
            for h in (9, 10) for m in range(0, 60, 5) for svc in ("cart", "web")]
    samples = [{"ts": world.iso(world.at(h, m)),
                "cart_p99_ms": 900 if (h, m) >= (10, 5) else 40 + m % 3, "web_p99_ms": 55 + m % 4}
               for h in (9, 10) for m in range(60)]
    source = write_dataset(tmp_path / "src", logs=logs, tables={"latency": samples}, name="wide")
    with Backends.open(load_dataset(source, tmp_path / "b").dest) as backends:
        kind = layout(backends, 10.0).tables["latency"]
        assert kind.column_entities == (("cart_p99_ms", "cart", "p99_ms"),
                                        ("web_p99_ms", "web", "p99_ms"))
        shifts = rows(call(backends, "metric_shifts", start=W0, end=W1), "metric_shift")
    assert [(s["entity"], s["metric"], s["column"]) for s in shifts] == \
        [("cart", "p99_ms", "cart_p99_ms")]
    assert shifts[0]["first_out"] == "2026-09-20T10:05:00Z"
