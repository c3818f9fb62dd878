"""The ``json`` agent protocol: envelopes in message content, turned into the same tool calls
and drafts as native tools, so every gate, guard and release rule behaves identically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphkit import judge, router, run, seen, services_for
from langgraph.checkpoint.memory import InMemorySaver
from stub_openai import StubOpenAI

from diagnosis_harness import prompts
from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.guards.envelope import Envelope, parse_envelope
from diagnosis_harness.providers.json_protocol import JsonProtocolChatModel
from diagnosis_harness.providers.messages import prompt_of
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import Services
from diagnosis_harness.tools.dataset.build import demo_dataset_dir
from diagnosis_harness.tools.registry import TOOLS

INC = json.loads((demo_dataset_dir() / "truth.json").read_text())["incidents"][0]
LOGS = {"service": INC["service"], "start": INC["start"], "end": INC["end"]}
SQL = {"sql": INC["evidence"][1]["args"]["sql"]}


def env_call(tool: str, args: dict, prev: str | None = None, fence: bool = False) -> dict:
    a = dict(args)
    if prev:
        a["previous_observation"] = {"tool_call_id": prev, "gain": "GAINED", "note": "n"}
    text = json.dumps({"type": "tool_call", "tool": tool, "args": a})
    return {"content": f"```json\n{text}\n```" if fence else text}


def env_final(conclusion: dict | None) -> dict:
    return {"content": json.dumps({"type": "final", "draft": {"conclusion": conclusion,
                                                               "next_steps": ["x"]}})}


CONCLUSION = {"root_cause": "pool exhausted after CHG-2041",
              "claims": [{"statement": "CHG-2041 lowered the pool", "evidence_ids": ["E2.1"]}]}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_parse_envelope_accepts_exactly_the_two_shapes() -> None:
    assert parse_envelope('{"type": "tool_call", "tool": "query_logs", "args": {}}') == \
        Envelope("tool_call", tool="query_logs", args={})
    fenced = parse_envelope('```json\n{"type": "final", "draft": {"conclusion": null}}\n```')
    assert isinstance(fenced, Envelope) and json.loads(fenced.draft_text) == {"conclusion": None}
    for bad in ("", "call query_logs please", '{"type": "tool_call", "tool": "x"}',
                '{"type": "tool_call", "tool": "x", "args": {}, "why": 1}',
                '{"type": "answer", "draft": {}}', '{"type": "final", "draft": {}} trailing',
                '[{"type": "final", "draft": {}}]'):
        assert isinstance(parse_envelope(bad), str), bad


def test_envelopes_with_and_without_fences_reach_a_verified_success(home: Path) -> None:
    script = {"router": [router(merchant="M1001", start=INC["start"], end=INC["end"])],
              "agent": [env_call("query_logs", LOGS, fence=True),
                        env_call("query_mysql", SQL, prev="call_1"), env_final(CONCLUSION)],
              "judge": [judge()]}
    out = run(services_for(home, script, agent_protocol="json"), INC["question"])
    assert (out["run_state"], out["release_outcome"]) == ("SUCCESS", "SUCCESS")
    assert "CHG-2041" in out["content"] and "[E2.1]" in out["content"]
    assert out["usage"]["tool_calls"] == 2


def test_malformed_envelopes_are_protocol_violations_not_crashes(home: Path) -> None:
    script = {"router": [router(merchant="M1001", start=INC["start"], end=INC["end"])],
              "agent": [env_call("query_logs", LOGS), {"content": "I think I should look at logs"},
                        {"content": '{"type": "tool_call"}'}, {"content": "```\nnot json\n```"},
                        env_call("lookup_knowledge", {"query": "pool"}, prev="call_1")],
              "judge": []}
    services = services_for(home, script, agent_protocol="json")
    out = run(services, INC["question"])
    # three consecutive violations saturate collection; the next evidence call is a controlled stop
    assert (out["run_state"], out["release_outcome"], out["fallback_type"], out["stop_reason"]) == (
        "SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", "PROGRESS_PROTOCOL_VIOLATED")
    assert out["usage"]["tool_calls"] == 1  # nothing but the first envelope executed
    assert "[E1." in out["content"]  # the fallback still reports what was verified


def test_final_envelope_with_an_invalid_draft_is_an_invalid_draft(home: Path) -> None:
    script = {"router": [router(merchant="M1001", start=INC["start"], end=INC["end"])],
              "agent": [env_call("query_logs", LOGS),
                        # invalid, sent back once with its parse error, invalid again: final
                        {"content": json.dumps({"type": "final", "draft": {"conclusion": None}})},
                        {"content": json.dumps({"type": "final", "draft": {"conclusion": None}})}],
              "judge": []}
    out = run(services_for(home, script, agent_protocol="json"), INC["question"])
    assert (out["run_state"], out["release_outcome"], out["fallback_type"]) == (
        "SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE")
    assert "not a valid draft (SCHEMA_INVALID)" in out["content"]


def test_json_protocol_over_http_sends_plain_turns_and_asks_for_json(tmp_path: Path) -> None:
    answers = [router(merchant="M1001", start=INC["start"], end=INC["end"]),
               env_call("query_logs", LOGS), env_call("query_mysql", SQL, prev="call_1"),
               env_final(CONCLUSION), judge()]
    with StubOpenAI([{"content": a["content"]} for a in answers]) as stub:
        settings = load_settings(model="openai:local", agent_protocol="json", home=tmp_path / "h",
                                 OPENAI_API_KEY="k", OPENAI_BASE_URL=stub.base_url)
        services = Services.from_settings(settings, seam=ModelSeam(settings),
                                          store=RunStore(tmp_path / "runs.sqlite"))
        out = run(services, INC["question"], checkpointer=InMemorySaver())
        bodies = [r["body"] for r in stub.requests]
    assert out["release_outcome"] == "SUCCESS"
    assert len(bodies) == 5
    for body in bodies:
        assert body.get("response_format") == {"type": "json_object"}
        assert "tools" not in body  # no native tool calling asked of the server
        assert all(m["role"] in ("system", "user", "assistant") for m in body["messages"])
    last_agent = bodies[3]["messages"]
    assert any("Result of tool_call_id call_2" in m["content"] for m in last_agent)


def test_agent_context_overflow_ends_as_budget_exhausted_with_an_honest_fallback(
        tmp_path: Path) -> None:
    too_long = {"status": 400, "message": "This model's maximum context length is 4096 tokens."}
    answers = [{"content": router(merchant="M1001", start=INC["start"], end=INC["end"])["content"]},
               {"content": env_call("query_logs", LOGS)["content"]}, too_long]
    with StubOpenAI(answers) as stub:
        settings = load_settings(model="openai:local", agent_protocol="json", home=tmp_path / "h",
                                 OPENAI_API_KEY="k", OPENAI_BASE_URL=stub.base_url)
        services = Services.from_settings(settings, seam=ModelSeam(settings),
                                          store=RunStore(tmp_path / "runs.sqlite"))
        out = run(services, INC["question"], checkpointer=InMemorySaver())
        assert len(stub.requests) == 3  # the overflow is not retried
    assert (out["run_state"], out["release_outcome"], out["fallback_type"]) == (
        "BUDGET_EXHAUSTED", "FALLBACK", "INSUFFICIENT_EVIDENCE")
    assert "[E1." in out["content"]


def test_the_protocol_renders_its_own_prompt_from_the_bound_tools(home: Path) -> None:
    script = {"router": [router(merchant="M1001", start=INC["start"], end=INC["end"])],
              "agent": [env_call("query_logs", LOGS), env_final(None)], "judge": []}
    services = services_for(home, script, agent_protocol="json")
    out = run(services, INC["question"])
    assert out["release_outcome"] == "FALLBACK"
    first, second = seen(services)
    system = first[0]
    # The node wrote its one agent prompt; the model got the protocol's, with the same values
    # and the tools the model node bound (their progress argument included), and plain turns.
    assert prompt_of(system) is not None and prompt_of(system).name == "agent_json"
    assert '{"type": "tool_call"' in system.content
    # The incident is in the first user turn, not the system prompt (a cacheable prefix).
    assert INC["start"] in first[1].content and INC["start"] not in system.content
    specs = json.loads(prompt_of(system).values["tool_schemas"])
    assert sorted(s["function"]["name"] for s in specs) == sorted(TOOLS)
    assert all("previous_observation" in s["function"]["parameters"]["properties"] for s in specs)
    assert [type(m).__name__ for m in second] == ["SystemMessage", "HumanMessage", "AIMessage",
                                                  "HumanMessage"]
    assert second[-1].content.startswith("Result of tool_call_id call_1 (untrusted data")


def test_a_plain_seam_speaks_the_json_protocol_with_the_strict_prompts(tmp_path: Path) -> None:
    # Providers sit above the prompts (import-linter's layers): the seam renders them itself,
    # nobody hands it a renderer.
    settings = load_settings(model="offline", agent_protocol="json", home=tmp_path / "h")
    agent = ModelSeam(settings).for_role(Role.AGENT)
    assert isinstance(agent, JsonProtocolChatModel)
    assert agent.render_prompt is prompts.render


def test_the_drafts_turn_trades_the_tools_instructions_for_the_findings(home: Path) -> None:
    # Collection saturates after two NO_GAIN reports; the turn that may only send the draft gets
    # the draft's own system prompt (no tool list, no investigation order) and the model's
    # earlier calls without their progress envelopes, so a small context holds the findings.
    script = {"router": [router(merchant="M1001", start=INC["start"], end=INC["end"])],
              "agent": [env_call("query_logs", LOGS),
                        env_call("query_mysql", SQL, prev="call_1"),
                        env_call("lookup_knowledge", {"query": "pool exhausted"}, prev="call_2"),
                        env_final(None)], "judge": []}
    for turn in script["agent"][1:3]:
        turn["content"] = turn["content"].replace('"GAINED"', '"NO_GAIN"')
    services = services_for(home, script, agent_protocol="json", saturation_threshold=2)
    out = run(services, INC["question"])
    assert out["stop_reason"] == "INFORMATION_SATURATED"
    prompts_seen = seen(services)
    *tool_turns, last = prompts_seen
    assert all(prompt_of(t[0]).name == "agent_json" for t in tool_turns)
    assert prompt_of(last[0]).name == "agent_json_final"
    assert "query_mysql(sql)" not in last[0].content and "How to investigate" not in last[0].content
    assert '{"type": "final"' in last[0].content and INC["start"] in last[1].content
    own = [m.content for m in last if type(m).__name__ == "AIMessage"]
    assert own and not any("previous_observation" in c for c in own)
    assert '"sql": ' in own[1]  # the calls themselves are still shown
    assert last[-1].content.rstrip().endswith("Next: the final draft.")
    assert "stop_required" in last[-1].content
    # While tools are offered, only the latest call keeps its envelope (the next one's pattern).
    before = [m.content for m in tool_turns[-1] if type(m).__name__ == "AIMessage"]
    assert ["previous_observation" in c for c in before] == [False, True]
