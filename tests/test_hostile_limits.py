"""Hostile text and hostile numbers cannot break a run's deadline, its row or its trace.

Found by an adversarial pass: an 80 KB ``a-a-a-…`` log line made a run take 107 s against a
10 s deadline (a quadratic regex in log templating, and a tool thread without a time limit); a
reply of a fence plus 60,000 newlines blocked the event loop; usage of 2**64 tokens lost the run
row; a year-1 timestamp with an offset crashed the run. Each is checked through the graph.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import sqlite3
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from graphkit import (
    COLLECT,
    INC,
    INC_ROUTER,
    assert_stored,
    call,
    demo_home,
    draft,
    go,
    kinds,
    router,
    run,
    services_for,
    text,
)
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from stub_openai import StubOpenAI

from diagnosis_harness.control.budget import MAX_USAGE_COUNT, Budget, BudgetLimits, usage_count
from diagnosis_harness.control.settings import Settings, SettingsError, load_settings
from diagnosis_harness.guards.parsing import parse_draft, strip_code_fence
from diagnosis_harness.nodes.draft_parse import draft_parse
from diagnosis_harness.providers.seam import ModelSeam, ModelSpecError
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import Services, new_context, run_turn
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.bounded import ToolTimedOut, run_bounded
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.log_templates import _NUMBER
from diagnosis_harness.tools.query_logs import message_template

HOSTILE_LINE = "a-" * 40_000  # 80 KB: the line that took 107 s
ADVERSARIAL = [HOSTILE_LINE, "a." * 40_000, "1.-" * 27_000, "-1" * 40_000, "a1-" * 27_000,
               "0x" * 40_000, "1.1.1.1:" + "9" * 80_000 + "a", "x" * 80_000]
OLD_ID_RULE = re.compile(r"\b[\w-]*\d[\w-]*(?:\.[\w-]+)*\b")
OLD_FENCE = re.compile(r"\A\s*```(?:json)?[ \t]*\r?\n?(?P<body>.*?)\s*```\s*\Z", re.S | re.I)


# --- the regexes stay fast, and mean what they meant ---------------------------------------


@pytest.mark.parametrize("line", ADVERSARIAL, ids=lambda s: repr(s[:6]))
def test_log_templating_is_linear_on_adversarial_lines(line: str) -> None:
    began = time.perf_counter()
    message_template(line)
    assert time.perf_counter() - began < 0.5


def test_log_templating_finds_exactly_what_the_old_regex_found() -> None:
    def old(t: str) -> str:
        t = OLD_ID_RULE.sub(lambda m: "<n>" if _NUMBER.fullmatch(m.group(0)) else "<id>", t)
        return " ".join(t.split())

    rng = random.Random(11)
    alphabet = ["a", "Z", "1", "9", "-", ".", "_", " ", "é", "٣", ":", "="]
    for _ in range(20_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(14)))
        assert message_template(line) == old(line), line


@pytest.mark.parametrize("reply", ["```" + "\n" * 60_000, "```json" + " \n" * 40_000 + "x",
                                   "`" * 60_000, "```" + "\n" * 60_000 + "```"])
def test_fence_stripping_is_linear(reply: str) -> None:
    began = time.perf_counter()
    parse_draft(reply, max_bytes=1 << 20)
    assert time.perf_counter() - began < 0.2


def test_fence_stripping_finds_exactly_what_the_old_regex_found() -> None:
    rng = random.Random(12)
    parts = ["`", "``", "```", "json", "JSON", " ", "\t", "\r", "\n", "\u00a0", "{}", "a"]
    for _ in range(20_000):
        reply = "".join(rng.choice(parts) for _ in range(rng.randrange(10)))
        match = OLD_FENCE.match(reply)
        assert strip_code_fence(reply) == (match.group("body") if match else reply), reply


def test_a_runaway_call_is_stopped_when_its_time_is_up(tmp_path: Path) -> None:
    built = load_dataset(demo_dataset_dir(), tmp_path / "b").dest
    runaway = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
               "SELECT count(*) FROM c")
    with Backends.open(built) as backends:
        began = time.monotonic()
        with pytest.raises(ToolTimedOut, match="did not finish within 0.3 s"):
            run_bounded(lambda: backends.logs.execute(runaway).fetchall(), backends, 0.3, "probe")
        assert time.monotonic() - began < 1
        # The abandoned thread was interrupted: it releases the connections at once.
        assert backends.lock.acquire(timeout=2)
        backends.lock.release()
        assert backends.logs.execute("SELECT count(*) FROM events").fetchone()[0] > 0
        with pytest.raises(ToolTimedOut, match="no time left"):
            run_bounded(lambda: 1, backends, 0, "late")
        assert run_bounded(lambda: 7, backends, 5, "quick") == 7
        with pytest.raises(sqlite3.OperationalError):  # the call's own errors reach the caller
            run_bounded(lambda: backends.logs.execute("SELECT nope"), backends, 5, "bad")


# --- through the graph: the deadline holds ------------------------------------------------


def hostile_dataset(root: Path) -> Path:
    """A one-service dataset whose incident window holds the 80 KB line, many times over."""
    root.mkdir(parents=True)
    events = [{"ts": f"2026-11-02T10:0{i % 10}:{i % 60:02d}Z", "service": "payment-service",
               "level": "ERROR", "message": f"{HOSTILE_LINE} {i}" if i % 5 else HOSTILE_LINE}
              for i in range(40)]
    events.append({"ts": "2026-11-02T10:05:00Z", "service": "payment-service",
                   "level": "ERROR", "message": "pool exhausted after 5000 ms"})
    (root / "logs.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (root / "tables").mkdir()
    (root / "tables" / "deploys.csv").write_text("deploy_id,service,started_at\n"
                                                 "D1,payment-service,2026-11-02T09:59:00Z\n")
    (root / "knowledge").mkdir()
    (root / "knowledge" / "pool.md").write_text("# Pool\n\n## Symptoms\nPool exhausted.\n")
    return root


LOGS = {"service": "payment-service", "start": "2026-11-02T10:00:00Z",
        "end": "2026-11-02T10:10:00Z"}
QUESTION = "payment errors on payment-service between 10:00 and 10:10 on 2026-11-02, why?"
ROUTE = router(start=LOGS["start"], end=LOGS["end"])


def timed(script: dict[str, list[Any]], **settings: Any) -> tuple[Services, dict[str, Any], float]:
    services = services_for(settings.pop("home"), script, **settings)
    began = time.monotonic()
    out = run(services, QUESTION)
    return services, out, time.monotonic() - began


def test_an_80kb_log_line_stays_within_the_deadline(tmp_path: Path) -> None:
    data = hostile_dataset(tmp_path / "data")
    services, out, took = timed(
        {"router": [ROUTE], "agent": [call("query_logs", LOGS, "c1"), draft(None)]},
        home=tmp_path / "home", data_dir=data, deadline_s=3)
    assert took < 3 + 1
    assert out["release_outcome"] == "FALLBACK"
    (record,) = services.store.trace(out["run_id"])["tool_records"]
    assert record["invocation_status"] == "READY"
    patterns = [f for f in record["facts"] if f["kind"] == "error_pattern"]
    assert patterns and all(len(p["data"]["template"]) <= 500 for p in patterns)
    assert_stored(services, out)


def test_a_fence_and_60000_newlines_stay_within_the_deadline(tmp_path: Path) -> None:
    services, out, took = timed(
        {"router": [INC_ROUTER], "agent": [COLLECT[0], text("```" + "\n" * 60_000),
                                           text("```" + "\n" * 60_000)]},  # and its one retry
        home=tmp_path / "home", deadline_s=3)
    assert took < 3 + 1
    assert out["release_outcome"] == "FALLBACK"  # EMPTY_DRAFT with facts: an honest fallback
    assert kinds(out)[-2:] == ["content", "done"]
    assert_stored(services, out)


def test_a_slow_query_is_cut_at_the_run_deadline_not_at_its_own_limit(tmp_path: Path) -> None:
    slow = {"sql": "SELECT count(*) AS n FROM payments a, payments b, payments c, payments d"}
    services, out, took = timed(
        {"router": [INC_ROUTER], "agent": [COLLECT[0], call("query_mysql", slow, "c2", "c1"),
                                           draft(None)]},
        home=tmp_path / "home", deadline_s=2, sql_timeout_s=60)
    assert took < 2 + 1
    assert out["run_state"] == "TIMED_OUT"
    records = services.store.trace(out["run_id"])["tool_records"]
    assert records[-1]["invocation_status"] == "ERROR"
    assert records[-1]["error"].startswith("timeout:")
    assert_stored(services, out)


def test_draft_parse_checks_the_deadline_before_parsing_anything() -> None:
    ctx = new_context(services_for(demo_home(), {}), thread_id="late")
    ctx.lifecycle.deadline_s = 0  # the deadline passed while the reply was checkpointed
    update = asyncio.run(draft_parse({"messages": [AIMessage(json.dumps(
        {"conclusion": None, "next_steps": ["x"]}))]}, SimpleNamespace(context=ctx)))
    assert update == {"stop": update["stop"]}  # no draft, no error, no bytes counted
    assert (update["stop"]["kind"], update["stop"]["run_state"]) == ("timed_out", "TIMED_OUT")


# --- hostile arguments and numbers ---------------------------------------------------------


@pytest.mark.parametrize("start", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"])
def test_an_unrepresentable_timestamp_is_an_error_observation(start: str) -> None:
    args = {"service": "payment-service", "start": start, "end": "2026-11-02T10:10:00Z"}
    services, out = go({"router": [INC_ROUTER],
                        "agent": [call("query_logs", args, "c1"), *COLLECT[:1], draft(None)]})
    assert out["release_outcome"] == "FALLBACK"
    first = services.store.trace(out["run_id"])["tool_records"][0]
    assert first["invocation_status"] == "ERROR" and "out of range" in first["error"]


def test_a_handled_tool_error_logs_one_line(tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(_env_file=None)
    built = load_dataset(demo_dataset_dir(), tmp_path / "b").dest
    with Backends.open(built) as backends:
        backends.ops.close()  # the operational database went away under the run
        with caplog.at_level(logging.DEBUG, logger="diagnosis_harness.tools.boundary"):
            outcome = execute_tool(
                "query_mysql", {"sql": "SELECT count(*) AS n FROM payments"}, tool_call_id="t",
                backends=backends, budget=Budget(BudgetLimits.from_settings(settings)),
                settings=settings, ready_count=0, timeout_s=5)
    assert outcome.observation["error"]["code"] == "backend_error"
    warning, debug = caplog.records
    assert warning.levelno == logging.WARNING and warning.exc_info is None
    assert "closed database" in warning.getMessage() and "\n" not in warning.getMessage()
    assert debug.levelno == logging.DEBUG and debug.exc_info  # the traceback, for debugging


@pytest.mark.parametrize(("value", "counted"), [
    (5, 5), (5.0, 5), (True, 0), (False, 0), (-3, 0), (None, 0), ("12", 0), (float("nan"), 0),
    (float("inf"), MAX_USAGE_COUNT), (2**64, MAX_USAGE_COUNT), (10**30 * 1.0, MAX_USAGE_COUNT),
])
def test_usage_numbers_are_validated_once(value: Any, counted: int) -> None:
    assert usage_count(value) == counted


def test_boolean_and_huge_usage_agree_in_budget_and_trace() -> None:
    services, out = go({"router": [{**INC_ROUTER, "usage": {"input_tokens": True,
                                                            "output_tokens": 7}}],
                        "agent": [{**draft(None), "usage": {"input_tokens": 2**64,
                                                            "output_tokens": False}}]})
    assert out["release_outcome"] == "FALLBACK"
    calls = services.store.trace(out["run_id"])["model_calls"]
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == \
        [(0, 7), (MAX_USAGE_COUNT, 0)]
    row = assert_stored(services, out)
    assert row["usage"]["input_tokens"] == out["usage"]["input_tokens"] == MAX_USAGE_COUNT
    assert row["usage"]["output_tokens"] == out["usage"]["output_tokens"] == 7


@pytest.mark.parametrize("role", ["router", "agent"])
def test_usage_of_2_to_the_64_from_a_real_http_server_keeps_the_run_row(
        tmp_path: Path, role: str) -> None:
    huge = {"prompt_tokens": 2**64, "completion_tokens": 2**64}
    route = {"content": INC_ROUTER["content"], **({"usage": huge} if role == "router" else {})}
    answer = {"content": draft(None)["content"], "usage": huge}
    with StubOpenAI([route, answer]) as stub:
        settings = load_settings(model="openai:stub", OPENAI_API_KEY="k",
                                 OPENAI_BASE_URL=stub.base_url, home=tmp_path)
        services = Services.from_settings(settings,
                                          store=RunStore(tmp_path / "runs.sqlite"))
        out = asyncio.run(run_turn(services, INC["question"], checkpointer=InMemorySaver()))
    if role == "router":  # the next model call finds the token budget spent
        assert (out["run_state"], out["release_outcome"], out["failure_code"]) == \
            ("BUDGET_EXHAUSTED", "FAILED", "BUDGET_EXHAUSTED")
        assert kinds(out)[-2:] == ["failure", "done"]
    else:  # the agent's null conclusion is released; the reply is checkpointed clamped
        assert (out["release_outcome"], out["fallback_type"]) == \
            ("FALLBACK", "INSUFFICIENT_EVIDENCE")
        assert kinds(out)[-2:] == ["content", "done"]
    assert "error" not in out
    row = assert_stored(services, out)
    calls = services.store.trace(out["run_id"])["model_calls"]
    assert calls[-1]["role"] == role
    assert calls[-1]["input_tokens"] == calls[-1]["output_tokens"] == MAX_USAGE_COUNT
    assert row["usage"] == out["usage"]
    assert row["usage"]["input_tokens"] == sum(c["input_tokens"] for c in calls)
    assert row["usage"]["output_tokens"] == sum(c["output_tokens"] for c in calls)


# --- settings refused where they are read ---------------------------------------------------


@pytest.mark.parametrize("minutes", [0, -5, 30 * 24 * 60 + 1, 10**12])
def test_absurd_lookback_names_the_variable(minutes: int) -> None:
    with pytest.raises(SettingsError, match="HARNESS_LOOKBACK_MINUTES"):
        load_settings(lookback_minutes=minutes)


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_api_key_is_refused_naming_the_variable(key: str) -> None:
    with pytest.raises(ModelSpecError, match="OPENAI_API_KEY"):
        ModelSeam(load_settings(model="openai:gpt-4o-mini", OPENAI_API_KEY=key))
