"""Never end without asking for the draft (issue 40): the final draft turn, over real HTTP.

The agent is a real OpenAI-compatible server on 127.0.0.1 (tests/stub_openai.py) playing a
thorough investigator: while tools may be called it calls one more, each with a new scope, and
it writes its draft only when a request lets it call none (``tool_choice: "none"``). The router
and the judge answer as a capable model would. Whatever budget ends collection — tool calls,
tokens, model calls — the run must still ask for the draft, within its budget, and publish a
draft both guards pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from graphkit import (
    CLAIMS,
    EV,
    INC_ROUTER,
    ROOT_CAUSE,
    DemoRoles,
    assert_stored,
    investigate_over_http,
)

PLAN = [("query_logs", EV[0]["args"]), ("query_mysql", EV[1]["args"]),
        ("query_mysql", EV[2]["args"]),
        *[("lookup_knowledge", {"query": f"{w} connection pool"}) for w in
          ("timeout", "exhausted", "waiting", "payment", "database", "config", "reload", "size",
           "merchant", "latency", "errors", "retries")]]
"""A long investigation: INC-1's evidence (E1.2 config reload, E2.1 CHG-2041), then more."""
DRAFT = {"conclusion": {"root_cause": ROOT_CAUSE, "claims": [
    {"statement": s, "evidence_ids": ids} for s, ids in CLAIMS]}, "next_steps": ["raise the pool"]}


class Investigator(DemoRoles):
    """The agent follows ``PLAN`` one call a turn, and drafts when the harness asks for it."""

    def __init__(self, step_tokens: int = 10, route: str = INC_ROUTER["content"]) -> None:
        super().__init__()
        self.step_tokens = step_tokens
        self.route = route

    def agent(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        # Each turn's prompt is a little longer than the last, as a real conversation grows.
        usage = {"prompt_tokens": 100 + n * self.step_tokens, "completion_tokens": 20}
        if body.get("tool_choice") == "none":
            return {"content": json.dumps(DRAFT), "usage": usage}
        name, args = PLAN[min(n - 1, len(PLAN) - 1)]
        results = [m for m in body["messages"] if m["role"] == "tool"]
        if results:
            args = {**args, "previous_observation": {
                "tool_call_id": results[-1]["tool_call_id"], "gain": "GAINED", "note": "more"}}
        return {"tool_calls": [{"id": f"call_{n}", "name": name, "args": args}], "usage": usage}


investigate = investigate_over_http


def final_requests(agent: Investigator) -> list[dict[str, Any]]:
    return [b for b in agent.agent_requests if b.get("tool_choice") == "none"]


@pytest.mark.parametrize(("limits", "calls"), [
    ({"max_tool_calls": 3}, 3),
    ({"max_tool_calls": 30, "max_tokens": 2600, "final_reserve_tokens": 400}, None),
    ({"max_tool_calls": 30, "max_model_calls": 7}, 4),
], ids=["tool-calls", "tokens", "model-calls"])
def test_a_spent_budget_still_gets_the_draft_turn_and_a_verified_draft_publishes(
        tmp_path: Path, limits: dict[str, Any], calls: int | None) -> None:
    agent = Investigator()
    services, out = investigate(tmp_path, agent, **limits)
    assert (out["run_state"], out["release_outcome"]) == ("SUCCESS", "SUCCESS"), out["content"]
    assert out["stop_reason"] == "BUDGET_LIMIT_REACHED"
    assert ROOT_CAUSE in out["content"]
    # Exactly one final turn, the last agent request, and it offered no tool to call.
    [final] = final_requests(agent)
    assert final is agent.agent_requests[-1]
    assert "stop_required" in json.dumps(final["messages"][-1])
    if calls is not None:
        assert out["usage"]["tool_calls"] == calls
    # Within every budget: the reserve left room for the draft and its judge.
    used = out["usage"]["input_tokens"] + out["usage"]["output_tokens"]
    assert used <= services.settings.max_tokens
    assert out["usage"]["model_calls"] <= services.settings.max_model_calls
    roles = [c["role"] for c in services.store.trace(out["run_id"])["model_calls"]]
    assert roles[-1] == "judge"
    assert_stored(services, out)


def test_the_final_turn_keeps_the_prompt_prefix_the_other_turns_had(tmp_path: Path) -> None:
    """Same system prompt and the same tool specs every turn: a provider can cache the prefix."""
    agent = Investigator()
    investigate(tmp_path, agent, max_tool_calls=3)
    first, *rest = agent.agent_requests
    for body in rest:
        assert body["tools"] == first["tools"]
        assert body["messages"][:2] == first["messages"][:2]


def test_a_final_turn_with_no_result_to_carry_it_says_so_in_its_own_turn() -> None:
    """Budget for nothing but the draft and its judge: the first agent turn is the final one.

    No observation can carry STOP_REQUIRED, so the instruction is a user turn of its own; under
    the json protocol that turn is the draft's (its own system prompt, no tools).
    """
    from graphkit import draft, go, seen

    from diagnosis_harness.providers.messages import prompt_of

    final = {"content": json.dumps({"type": "final", "draft": json.loads(
        draft(None)["content"])})}
    services, out = go({"router": [INC_ROUTER], "agent": [final]},
                       settings={"max_model_calls": 3, "agent_protocol": "json"})
    [turns] = seen(services)
    assert prompt_of(turns[0]).name == "agent_json_final"
    assert prompt_of(turns[-1]).name == "agent_final"
    assert "no tools are offered" in str(turns[-1].content).lower()
    assert out["stop_reason"] == "BUDGET_LIMIT_REACHED"
    assert out["usage"]["model_calls"] == 2 and out["usage"]["tool_calls"] == 0
