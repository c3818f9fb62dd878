"""The suspects of a FALLBACK as a ranking (issue 41): anomaly strength against the baseline,
dependency direction and the value that locates the failure, on real datasets built here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphkit import tool_outcome

from diagnosis_harness import evaluate, write_dataset
from diagnosis_harness.nodes._triage import suspects
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset
from tests.canon.cases._world import edge, java, noisy, postgres
from tests.canon.engine import build_case
from tests.canon.spec import Burst, Case

NOISY_DEPENDENCY = Case(
    id="rank-dependency-first", klass="ranking",
    title="orders-db starts rejecting statements; checkout fails after it; search is noisy",
    day="2026-05-04", window=("10:00", "10:30"),
    question="checkout failing between 10:00 and 10:30 UTC on {date}, what is going on?",
    services=(java("checkout", "order"), postgres("orders-db"), edge("edge", "/v1/checkout"),
              noisy(java("search", "query"), "index shard 3 slow, serving partial results",
                    every_s=4)),
    onset="10:02:00", cause_service="orders-db",
    lines=(
        # The dependency's own, new failure: a warning, from 10:02, at one host and port.
        Burst("10:02", "10:40", "orders-db", "could not accept connection from 10.4.0.17:5432: "
              "too many waiting backends", level="WARN", every_s=6),
        # Its caller's errors start later and are louder (more events, ERROR level).
        Burst("10:03", "10:40", "checkout", "order {id} could not be saved, giving up",
              level="ERROR", every_s=2),
        # A warning whose masked address differs from line to line: nothing it masks locates.
        Burst("10:05", "10:40", "checkout", "client {ip} dropped the connection", level="WARN",
              every_s=20),
    ),
    tables={"dependencies": ({"caller": "checkout", "callee": "orders-db"},
                             {"caller": "edge", "callee": "checkout"},
                             {"caller": "edge", "callee": "search"})},
    expect="FALLBACK", distractors=("search",))


def test_a_dependency_that_fails_first_outranks_its_louder_caller_and_noise_is_no_suspect(
        tmp_path: Path) -> None:
    data = build_case(NOISY_DEPENDENCY, tmp_path / "data")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.outcome.startswith("FALLBACK") and case.run is not None, case.outcome
    # One line per component: orders-db (the callee, first to fail) before checkout.
    assert case.run.components[:2] == ("orders-db", "checkout"), case.run.components
    # search logs its everyday error at the same rate as before: not a suspect at all.
    assert "search" not in case.run.components
    digest = [line for line in (case.run.content or "").splitlines() if line[:2] in ("1.", "2.")]
    assert digest[0].startswith("1. orders-db:"), digest
    # The value that locates it, the same in every event, stands next to its masked pattern.
    assert "at 10.4.0.17:5432" in digest[0], digest
    assert (card.summary.ac_at_1, card.summary.ac_at_3) == (1.0, 1.0)


def _half_hour_record(data: Path, tmp_path: Path, tool: str) -> Any:
    """``tool``'s record over 10:00-10:30 on the dataset folder ``data``, built under tmp_path."""
    with Backends.open(load_dataset(data, tmp_path / "built").dest) as backends:
        return tool_outcome(backends, tool, start="2026-05-04T10:00:00Z",
                            end="2026-05-04T10:30:00Z").record


def test_a_pattern_shows_the_values_all_its_events_share_and_none_that_vary(
        tmp_path: Path) -> None:
    data = build_case(NOISY_DEPENDENCY, tmp_path / "data")
    record = _half_hour_record(data, tmp_path, "onset_timeline")
    rows = {f.data["service"] + " " + f.data["level"]: f.data for f in record.facts
            if f.kind == "onset"}
    db = rows["orders-db WARN"]
    assert "<ip>" in db["pattern"] and db["located"] == ["10.4.0.17:5432"]
    varying = rows["checkout WARN"]
    assert "<ip>" in varying["pattern"] and varying["located"] == []
    assert rows["checkout ERROR"]["located"] == []  # the order ids differ: nothing to show


def test_a_database_s_metric_counts_for_the_service_that_logs_its_host(tmp_path: Path) -> None:
    # The metrics table names the database by its host (pg-orders) and a read replica that logs
    # nothing (pg-orders-ro); the logs name it postgres, on pod pg-orders-0.
    day = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
    logs, rows = [], []
    for minute in range(180):
        moment = day + timedelta(minutes=minute)
        logs.append({"ts": moment.isoformat(), "service": "postgres", "level": "INFO",
                     "message": f"checkpoint complete: wrote {minute} buffers",
                     "attrs": {"pod": "pg-orders-0"}})
        logs.append({"ts": moment.isoformat(), "service": "checkout", "level": "INFO",
                     "message": f"order o-{minute} created", "attrs": {"pod": "checkout-7c9d-x"}})
        busy = 124 <= minute < 150
        for entity, normal in (("pg-orders", 30), ("pg-orders-ro", 2), ("checkout", 5)):
            value = {"pg-orders": 100, "pg-orders-ro": 40, "checkout": 5}[entity] if busy \
                else normal + minute % 3
            rows.append({"ts": moment.isoformat(), "instance": entity, "active": value})
    data = write_dataset(tmp_path / "src", logs=logs, tables={"db_metrics": rows}, name="db-host")
    record = _half_hour_record(data, tmp_path, "metric_shifts")
    shifts = {f.data["entity"]: f.data for f in record.facts if f.kind == "metric_shift"}
    assert shifts["pg-orders"]["logged_by"] == "postgres"
    assert shifts["pg-orders-ro"]["logged_by"] == "postgres"  # its primary's service
    assert "checkout" not in shifts or "logged_by" not in shifts["checkout"]
    (line,) = [s for s in suspects([record]) if s["service"] == "postgres"]
    assert line["kind"] == "metric" and line["where"] in ("pg-orders", "pg-orders-ro")
