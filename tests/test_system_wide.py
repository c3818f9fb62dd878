"""System-wide questions: a window without a service is investigated, an incident question is
never answered with the capability text, and a service named with ``_`` can be asked about."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from graphkit import CLAIMS, ROOT_CAUSE, draft, go, router
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.control.settings import Settings, load_settings
from diagnosis_harness.nodes._release_text import CAPABILITY_REPLY
from diagnosis_harness.providers.offline import route_question
from diagnosis_harness.session.runner import Services, run_turn
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.query_logs import query_logs

SPARE_AGENT = draft(ROOT_CAUSE, CLAIMS)
SHOP = "Something broke in the shop between 14:00 and 14:20 — what is the root cause?"


def diagnose(services: Services, question: str) -> dict[str, Any]:
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_the_shop_broke_is_a_diagnosis_not_the_capability_reply(tmp_path: Path,
                                                                protocol: str) -> None:
    services = Services.from_settings(load_settings(model="offline", home=tmp_path,
                                                    agent_protocol=protocol))
    out = diagnose(services, SHOP)
    assert out["intent"] == "DIAGNOSIS"
    assert out["content"] != CAPABILITY_REPLY and "I diagnose production incidents" not in out[
        "content"]
    assert out["fallback_type"] != "MISSING_REQUIRED_CONTEXT", out["content"]
    assert out["usage"]["tool_calls"] > 0


def test_a_router_that_calls_an_incident_question_general_is_overruled() -> None:
    services, out = go({"router": [router(intent="GENERAL", service=None)],
                        "agent": [SPARE_AGENT]}, SHOP)
    assert out["intent"] == "DIAGNOSIS"
    assert "I diagnose production incidents" not in out["content"]
    # The router read no window: nothing to scope by, so it asks rather than guesses.
    assert out["fallback_type"] == "MISSING_REQUIRED_CONTEXT"


def test_a_router_naming_the_shop_as_service_gives_a_system_wide_scope() -> None:
    services, out = go({"router": [router(service="the shop", start="2026-11-02T10:00:00+00:00",
                                          end="2026-11-02T10:10:00+00:00")],
                        "agent": [SPARE_AGENT]}, SHOP)
    assert out["fallback_type"] != "MISSING_REQUIRED_CONTEXT"
    assert "names the system" in out["content"]


def test_a_service_named_with_an_underscore_is_routed() -> None:
    now = datetime(2026, 9, 5, 12, 0, tzinfo=UTC)
    for spelling in ("apache_2k", "Apache_2k", "apache 2k"):
        answer = route_question(f"why the errors on {spelling}?", ["apache_2k", "web"], now)
        assert answer["service"] == "apache_2k", spelling


def test_apache_2k_can_be_asked_about_end_to_end(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "dataset.json").write_text(json.dumps({"name": "apache", "description": "t"}))
    lines = [{"ts": f"2026-09-05T11:{m:02d}:00Z", "service": "apache_2k",
              "level": "ERROR" if m % 3 else "INFO",
              "message": f"mod_jk child workerEnv in error state {m % 7}"} for m in range(40)]
    (data / "logs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    services = Services.from_settings(load_settings(model="offline", home=tmp_path / "h",
                                                    data_dir=data))
    out = diagnose(services, "why so many errors on apache_2k?")
    assert out["fallback_type"] != "MISSING_REQUIRED_CONTEXT", out["content"]
    scopes = [r["scope"] for r in services.store.trace(out["run_id"])["tool_records"]
              if r["tool"] == "query_logs"]
    assert scopes and scopes[0]["service"] == "apache_2k"


def test_query_logs_without_a_service_finds_every_services_events(tmp_path: Path) -> None:
    built = load_dataset(demo_dataset_dir(), tmp_path / "b").dest
    window = {"start": "2026-11-02T09:50:00+00:00", "end": "2026-11-02T10:10:00+00:00"}
    with Backends.open(built) as backends:
        everything = query_logs(backends, Settings(_env_file=None), **window)
        one = query_logs(backends, Settings(_env_file=None), service="payment-service", **window)
    total = everything.items[0].data["matched_events"]
    assert total > one.items[0].data["matched_events"] > 0
    services = {i.data.get("service") for i in everything.items if i.kind == "log_event"}
    assert len(services) > 1
    assert all(i.data["service"] for i in everything.items if i.kind == "error_pattern")
