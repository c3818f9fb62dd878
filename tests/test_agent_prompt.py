"""Tell the model the truth (issue 40): the tools it is offered, their limits, a stable prefix.

The agent is a real OpenAI-compatible server on 127.0.0.1 (tests/stub_openai.py, the
investigator of tests/test_final_turn.py): what the harness tells the model is what it sends.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from graphkit import router
from test_final_turn import Investigator, investigate


def system_text(body: dict[str, Any]) -> str:
    [system] = [m for m in body["messages"] if m["role"] == "system"]
    return str(system["content"])


def offered(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body["tools"]]


def test_the_system_prompt_names_exactly_the_tools_offered(tmp_path: Path) -> None:
    agent = Investigator()
    investigate(tmp_path, agent, max_tool_calls=2)
    body = agent.agent_requests[0]
    listed = re.findall(r"^- (\w+): ", system_text(body), re.M)
    assert listed == offered(body)
    assert len(listed) == 7  # every built-in tool of a run without Prometheus or MCP


def test_each_tool_spec_states_its_real_limits(tmp_path: Path) -> None:
    agent = Investigator()
    investigate(tmp_path, agent, max_tool_calls=2, max_log_window_minutes=720, max_sql_rows=40)
    specs = {t["function"]["name"]: t["function"]["description"]
             for t in agent.agent_requests[0]["tools"]}
    for windowed in ("query_logs", "compare_windows", "onset_timeline", "metric_shifts"):
        assert "at most 720 minutes" in specs[windowed], windowed
    assert "At most 40 rows" in specs["query_mysql"]
    assert "group_concat" in specs["query_mysql"]  # the result-column rules, before any refusal
    # The quoting rule too: a double-quoted time is read as a column and refused (a spent call).
    assert "single quotes (double quotes name columns)" in specs["query_mysql"]
    assert specs["query_mysql"].rstrip().split("\n")[-1].startswith("Tables: ")
    assert "offset" in specs["query_logs"] and "both ends" in specs["query_logs"]
    # Whether a refused call costs a call is said once, in the system prompt.
    assert "a refused one too" in system_text(agent.agent_requests[0])


def test_the_prompt_prefix_is_the_same_for_every_run_on_the_same_data(tmp_path: Path) -> None:
    """System prompt and tool specs do not carry the incident: a provider can cache them."""
    other = router(service="checkout-service", merchant="M2002",
                   start="2026-11-02T11:00:00+00:00", end="2026-11-02T11:20:00+00:00")
    first, second = Investigator(), Investigator(route=other["content"])
    investigate(tmp_path / "a", first, max_tool_calls=2)
    investigate(tmp_path / "b", second, max_tool_calls=2,
                question="checkout errors for merchant M2002 between 11:00 and 11:20 — why?")
    a, b = first.agent_requests[0], second.agent_requests[0]
    assert a["tools"] == b["tools"]
    assert system_text(a) == system_text(b)
    assert a["messages"][1] != b["messages"][1]  # the incident is in the first user turn


def test_the_routers_example_names_a_service_of_its_own_list(tmp_path: Path) -> None:
    agent = Investigator()
    services, _ = investigate(tmp_path, agent, max_tool_calls=2)
    router_prompt = str(agent.router_requests[0]["messages"][0]["content"])
    listed = re.search(r"as written in this list when it matches one: (.*?)\. null", router_prompt)
    assert listed is not None
    named = re.search(r'Question: "why did (\S+) return', router_prompt)
    assert named is not None and named.group(1) in listed.group(1).split(", ")
    assert "around 13:45" in router_prompt  # a time without a window can be said


def test_a_window_read_past_now_ends_at_the_latest_data(tmp_path: Path) -> None:
    """A window read in another zone (UTC+8) ended hours after "now": nothing is logged there."""
    # The demo data ends at 2026-11-06T17:58:45Z ("now"); 17:45 to 18:30 read as UTC+8 would be
    # right, read as UTC it ends half an hour after now.
    late = router(service="payment-service", start="2026-11-06T17:45:00+00:00",
                  end="2026-11-06T18:30:00+00:00")
    agent = Investigator(route=late["content"])
    services, out = investigate(tmp_path, agent, max_tool_calls=2)
    latest = services.dataset.latest_ts
    assert latest is not None
    task = str(agent.agent_requests[0]["messages"][1]["content"])
    window = re.search(r"time window: (\S+) to (\S+)", task)
    assert window is not None
    assert datetime.fromisoformat(window.group(2)) <= datetime.fromisoformat(latest)
    assert "after the latest data" in task


def test_a_question_without_a_time_is_told_the_data_span_and_its_onsets(tmp_path: Path) -> None:
    untimed = router(service="payment-service")
    agent = Investigator(route=untimed["content"])
    services, _ = investigate(tmp_path, agent, max_tool_calls=2,
                              question="why is payment-service failing?")
    task = str(agent.agent_requests[0]["messages"][1]["content"])
    assert f"The data spans {services.dataset.first_ts} to {services.dataset.latest_ts}" in task
    assert "not evidence: call onset_timeline to cite them" in task
    assert re.search(r"[\w-]+ (WARN|ERROR|FATAL|INFO) from 2026-", task)


def test_the_progress_envelope_is_stated_once_not_in_every_spec(tmp_path: Path) -> None:
    """Its schema was ~300 characters in each of the 7 specs, sent with every call (issue 40)."""
    agent = Investigator()
    _, out = investigate(tmp_path, agent, max_tool_calls=3)
    assert out["release_outcome"] == "SUCCESS"  # the calls carrying it were run: the gate took it
    first = agent.agent_requests[0]
    for spec in first["tools"]:
        envelope = spec["function"]["parameters"]["properties"]["previous_observation"]
        assert envelope.get("type") == "object" and len(json.dumps(envelope)) <= 60
    text = system_text(first)
    assert all(key in text for key in ('"tool_call_id"', '"gain"', '"GAINED"', '"NO_GAIN"',
                                       '"note"'))
    # The prefix every call sends (system prompt and specs, the same for every run on this
    # data) at the size measured by benchmarks/llm_tokens.py after the cut (~4,000 tokens by
    # its estimate; it was ~4,700).
    prefix = json.dumps([first["tools"], first["messages"][0]], separators=(",", ":"))
    assert len(prefix) <= 9_400, len(prefix)
