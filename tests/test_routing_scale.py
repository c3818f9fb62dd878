"""Routing on 20,000 services within a second (issue 38): an index, not a scan.

A dataset with a service per pod (common on Kubernetes) failed every diagnosis with
ROUTING_UNAVAILABLE: the offline router compiled a regular expression per service per question
and timed out. The index must find exactly what the scan found.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from offline_runs import diagnose

from diagnosis_harness import write_dataset
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services
from providers.offline import router
from providers.offline.router import route_question

NOW = datetime(2026, 11, 20, 23, 0, tzinfo=UTC)
PODS = [f"checkout-{i:05d}-x7k2q" for i in range(20_000)]


def _scan(question: str, known: list[str]) -> str | None:
    """The service matching of before the index, as a reference."""
    q = question.lower()
    start = len(q) - len(q.lstrip(" \t\"'*-"))
    found = []
    for name in known:
        words = [re.escape(w) for w in re.split(r"[\s_-]+", name.lower()) if w]
        if not words:
            continue
        for m in re.finditer(r"(?<![a-z0-9])" + r"[\s_-]+".join(words) + r"(?![a-z0-9])", q):
            labelled = m.start() == start and q[m.end():m.end() + 1] == ":"
            scoped = router._SCOPED.match(q, m.end()) is not None
            found.append((not labelled, not scoped, m.start(), -len(name), name))
    return min(found)[4] if found else None


def test_twenty_thousand_services_route_within_a_second() -> None:
    router._service_index.cache_clear()  # cold: the index is built inside the measured time
    known = [*PODS, "payment-gw"]
    started = time.perf_counter()
    answer = route_question("checkout 01234 x7k2q returns 502s between 14:00 and 14:20 on "
                            "2026-11-20, why?", known, NOW)
    cold = time.perf_counter() - started
    assert answer["service"] == "checkout-01234-x7k2q"
    assert cold < 1.0, f"{cold:.2f} s"
    started = time.perf_counter()
    for i in range(0, 20_000, 2000):
        assert route_question(f"checkout-{i:05d}-x7k2q is failing since 14:00", known,
                              NOW)["service"] == f"checkout-{i:05d}-x7k2q"
    assert (time.perf_counter() - started) / 10 < 0.1


NAMES = ["payment", "payment-service", "payment_service", "api.v2", "café-api", "edge gw",
         "lobby", "telemetry", "ocpp-gateway", "edge-gw", "apache_2k", "---", "m2001", "db-01",
         "02", "x", "checkout-api", "checkout"]


@pytest.mark.parametrize("question", [
    "payment service timeouts between 10:00 and 10:10",
    "lobby: invites fail … telemetry is throwing errors again too",
    "edge-gw returns 504s, ocpp-gateway has been spitting errors all morning",
    "api.v2 and café-api fail; payment_service too",
    "Apache 2k errors at 14:00", "checkout, 14:00 to 14:20: checkout-api 500s",
    "db-01 down since 02:00; m2001 and x are fine", "nothing named here",
    "\"edge gw\": 502s", "EDGE_GW 14:00-14:10",
])
def test_the_index_finds_what_the_scan_found(question: str) -> None:
    assert router._asked_service(question, NAMES) == _scan(question, NAMES)


def test_a_dataset_of_twenty_thousand_services_is_diagnosed_not_refused(tmp_path: Path) -> None:
    logs = [{"ts": f"2026-11-20T13:{i % 60:02d}:00Z", "service": pod, "level": "INFO",
             "message": "GET /healthz 200"} for i, pod in enumerate(PODS)]
    logs += [{"ts": f"2026-11-20T14:0{k}:00Z", "service": "checkout-01234-x7k2q",
              "level": "ERROR", "message": "upstream timed out (110: Connection timed out)"}
             for k in range(5)]
    data = write_dataset(tmp_path / "data", logs=logs)
    # The router's attempt must end within a second (its default allows 10 s).
    services = Services.from_settings(load_settings(
        model="offline", home=tmp_path / "home", data_dir=data, router_attempt_timeout_s=1.0))
    out = diagnose(services,
                   "checkout-01234-x7k2q errors between 14:00 and 14:10 on 2026-11-20, why?")
    assert out["failure_code"] != "ROUTING_UNAVAILABLE", out["content"]
    assert out["release_outcome"] in ("SUCCESS", "FALLBACK")
    assert "checkout-01234-x7k2q" in (out["content"] or "")
