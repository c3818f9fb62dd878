"""A failing dependency that its callers name ranks before them (issue 41, docs/design.md §16.2).

An on-call engineer reads the suspects first. A server that is down often logs nothing; what
shows is its callers' errors ("redis: i/o timeout", "publish blocked by broker", "dial tcp …:
i/o timeout (profile-kv:7000)"), and ranked by their own strength the callers came first and
the dependency third or nowhere. Each test builds a small dataset in the canon's real formats
(tests/canon: logback, zap JSON, nginx access lines, a metrics table), runs the offline
default through ``harness eval`` and reads the run's suspects as the report ranks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnosis_harness import evaluate
from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.eval.scoring import CaseResult, rank_of_cause
from diagnosis_harness.nodes._triage import digest_lines, suspects
from diagnosis_harness.runstore.store import open_run_store
from tests.canon.cases import _case
from tests.canon.engine import build_case


def _run(tmp_path: Path, spec: dict[str, Any]) -> tuple[CaseResult, list[dict[str, Any]]]:
    """The case's result and its run's suspects, ranked as the report ranks them."""
    data = build_case(_case(spec), tmp_path / "data")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.run is not None and case.run_id, case
    records = [ToolRecord.model_validate(r) if isinstance(r, dict) else r
               for r in open_run_store(tmp_path / "home" / "runs.sqlite").tool_records(case.run_id)]
    return case, suspects(records)


def _spec(case_id: str, cause: str, services: list[list[str]], lines: list[dict[str, Any]],
          **more: Any) -> dict[str, Any]:
    return {"id": case_id, "klass": "dependency-down", "title": case_id, "day": "2026-05-04",
            "question": f"{services[0][1]}: requests failing on {{date}} between 09:00 and 09:20 "
                        "UTC. What is the cause?",
            "window": ["09:00", "09:20"], "services": services, "expect": "FALLBACK",
            "cause_service": cause, "lines": lines, **more}


def test_a_dependency_its_callers_cannot_reach_ranks_before_them(tmp_path: Path) -> None:
    # redis logs nothing; cart says "redis …: i/o timeout" and the edge answers 503. redis's
    # only fact is its memory metric: it ranks first, cart (the loudest) after it.
    case, ranked = _run(tmp_path, _spec(
        "t-redis-timeout", "redis", [["go", "cart", "cart"], ["edge", "edge", "/v1/cart"]],
        [{"burst": ["08:58:10", "09:30", "cart", "cart {id}: redis GET cart:{id}: i/o timeout"],
          "every_s": 6},
         {"burst": ["08:58:12", "09:30", "edge", "POST /v1/cart 503 rt=0.051"], "every_s": 8}],
        metrics=[{"metric": ["redis", "used_memory_pct", 55], "after": 99, "at": "08:57",
                  "ramp_min": 1}]))
    order = [s["service"] for s in ranked]
    assert order.index("redis") < order.index("cart"), order
    assert rank_of_cause(case) is not None and rank_of_cause(case) <= 2, case.run.components


def test_the_one_broker_its_publishers_say_blocks_them_ranks_first(tmp_path: Path) -> None:
    # No publisher names rabbitmq: "AmqpTimeoutException: connection blocked by broker" and
    # "publish blocked by broker" say its kind, and the run knows one broker. Its own lines are
    # one disk-alarm WARN and routine INFO, weaker than the publishers' errors.
    case, ranked = _run(tmp_path, _spec(
        "t-broker-blocked", "rabbitmq",
        [["java", "booking", "booking"], ["go", "tracking", "scan"], ["gokit", "rabbitmq", "queue"]],
        [{"line": ["08:57:00", "rabbitmq", "disk resource limit alarm set on node rabbit@mq-1. "
                   "Publishers will be blocked until this alarm clears"], "level": "WARN"},
         {"burst": ["08:57:30", "09:30", "booking", "publish booking.created failed: "
                    "AmqpTimeoutException: connection blocked by broker (low on disk)"],
          "every_s": 5},
         {"burst": ["08:57:40", "09:30", "tracking", "publish blocked by broker exchange=scans"],
          "level": "WARN", "every_s": 7}]))
    assert ranked[0]["service"] == "rabbitmq", [s["service"] for s in ranked]
    assert rank_of_cause(case) == 1, case.run.components


def test_a_dependency_only_its_callers_name_is_a_suspect_before_them(tmp_path: Path) -> None:
    # profile-kv has no line, no metric, no change in the dataset: only stream-enricher's errors
    # name it, by its address. It is still the first suspect, citing the caller's fact.
    case, ranked = _run(tmp_path, _spec(
        "t-unseen-endpoint", "profile-kv", [["go", "stream-enricher", "event"],
                                            ["gokit", "dfs-sink", "file"]],
        [{"burst": ["08:58:00", "09:30", "stream-enricher", "profile lookup failed for {id}: "
                    "dial tcp 10.0.7.3:7000: i/o timeout (profile-kv:7000)"], "every_s": 4},
         {"burst": ["09:03:00", "09:30", "dfs-sink", "no records from events-enriched for 5m0s"],
          "level": "WARN", "every_s": 60}]))
    first = ranked[0]
    assert (first["service"], first["kind"]) == ("profile-kv", "named"), ranked[:3]
    line = digest_lines(ranked)[0]
    assert line.startswith("1. profile-kv: named by stream-enricher's failure") \
        and f"[{first['evidence_id']}]" in line, line
    # A published cause leads with the caller whose failure names the endpoint (its timed-out
    # connection is a mechanism); the endpoint then comes right after it.
    assert rank_of_cause(case) is not None and rank_of_cause(case) <= 2, case.run.components


def _metric(eid: str, entity: str, **data: Any) -> tuple[str, dict[str, Any]]:
    return eid, {"table": data.pop("table", "service_metrics"), "entity": entity,
                 "metric": data.pop("metric", "error_pct"), "direction": "up",
                 "first_out": "2026-05-04T09:00:00Z", "window_samples": 10, **data}


def _records(facts: list[tuple[str, dict[str, Any]]], anomalies: list[dict[str, Any]]
             ) -> list[ToolRecord]:
    def record(n: int, tool: str, kind: str, rows: list[dict[str, Any]]) -> ToolRecord:
        return ToolRecord(tool_call_id=f"c{n}", tool=tool, args={}, scope={},
                          invocation_status=InvocationStatus.READY,
                          evidence_status=EvidenceStatus.EVIDENCE_FOUND, ready_index=n,
                          returned_count=len(rows),
                          facts=[Fact(evidence_id=f"E{n}.{i}", kind=kind, text="t", data=d)
                                 for i, d in enumerate(rows, 1)])
    return [record(1, "onset_timeline", "onset", anomalies),
            record(2, "metric_shifts", "metric_shift", [d for _, d in facts])]


def test_a_metric_that_left_a_flat_baseline_is_a_suspect_and_alike_entities_are_one() -> None:
    # redis's error rate was 0 all baseline (no spread, so no z) and is 10 % in the window: a
    # shift, not nothing. Six regions' flagged readings rose at once: one suspect, not six that
    # push the components out of the top three.
    regions = [_metric("", r, table="meter_reads", metric="readings_flagged", z=400.0 - n,
                       samples_out=10) for n, r in enumerate(("N", "S", "E", "W", "NE", "SW"))]
    flat = _metric("", "redis", mad_zero=True, z=None, baseline_median=0.0,
                   window_median=10.2, samples_out=10)
    api = {"service": "api", "pattern": "GET /devices failed: upstream error", "level": "ERROR",
           "window_count": 30, "first_seen": "2026-05-04T09:01:00Z",
           "onset": "2026-05-04T09:01:00Z", "change": "new"}
    ingest = {**api, "service": "ingest", "pattern": "decoded profile unit=Wh", "level": "WARN"}
    ranked = suspects(_records([*regions, flat], [api, ingest]))
    services = [s["service"] for s in ranked]
    assert "redis" in services and ranked[services.index("redis")]["strength"] > 0, ranked
    assert sum(s in services for s in ("N", "S", "E", "W", "NE", "SW")) == 1, services
    assert services.index("ingest") < 3, services
    folded = next(s for s in ranked if s["service"] == "N")
    assert folded["alike"] == 5
    assert any("(and 5 more alike)" in line for line in digest_lines(ranked)), digest_lines(ranked)


def test_an_instance_a_server_that_turns_clients_away_and_a_client_s_name_are_read_right() -> None:
    # cart's "connection refused (redis-cart:6379)" names redis: its metric is located at
    # redis-cart (logged_by). rabbitmq's own INFO line says it blocks prepaid, which fails.
    # A database's "shadow@shadow FATAL" and a server's "rejected … caller=rules" name clients.
    def row(service: str, pattern: str, level: str = "ERROR", onset: str = "09:01:00",
            count: int = 30) -> dict[str, Any]:
        return {"service": service, "pattern": pattern, "level": level, "window_count": count,
                "first_seen": f"2026-05-04T{onset}Z", "onset": f"2026-05-04T{onset}Z",
                "change": "new"}
    mem = _metric("", "redis-cart", logged_by="redis", metric="used_memory_mb", z=3.0,
                  samples_out=3)
    ranked = suspects(_records([mem], [
        row("cart", "cart {id}: redis HGETALL cart:<id>: dial tcp <ip>:<n>: connect: "
                    "connection refused (redis-cart:6379)"),
        row("prepaid", "RECONNECT for meter=<id> not confirmed within <n> ms", onset="09:02:00"),
        row("rabbitmq", "connection <<n>> (<ip>:<n> -> <ip>:<n> - prepaid) is blocked: resource "
                        "alarm (memory)", level="INFO", onset="09:01:30", count=8),
        row("shadow", "request rejected status=<n> caller=rules reason=unknown kid",
            level="WARN", onset="09:00:30", count=40),
        row("rules", "automation <id> failed: shadow returned UNAUTHENTICATED", onset="09:03:00")]))
    order = [s["service"] for s in ranked]
    assert order.index("redis") < order.index("cart"), order
    assert order.index("rabbitmq") < order.index("prepaid"), order
    # shadow's line names rules as the caller it rejected: rules is not shadow's dependency.
    assert order.index("shadow") < order.index("rules"), order
