"""Several tool calls in one turn, over the real OpenAI-compatible protocol (issue 40).

A capable model makes several native tool calls in one turn. It cannot know the ids the protocol
will give its own calls, and it has seen none of their results: a call after another of the same
turn needs no ``previous_observation``, and any it sends (a guessed id, a guessed gain) is not
counted. The agent is a real HTTP server on 127.0.0.1 (tests/stub_openai.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphkit import CLAIMS, EV, ROOT_CAUSE, DemoRoles, assert_stored, investigate_over_http

DRAFT = {"conclusion": {"root_cause": ROOT_CAUSE, "claims": [
    {"statement": s, "evidence_ids": ids} for s, ids in CLAIMS]}, "next_steps": ["raise the pool"]}


class OneTurn(DemoRoles):
    """The agent's first turn makes ``calls`` at once, then it drafts."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        super().__init__()
        self.calls = calls

    def agent(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        if n == 1:
            # Ids as a provider gives them: the model never chose them, and could not guess them.
            return {"tool_calls": [dict(c, id=f"call_8f3a_{k}") for k, c in enumerate(self.calls)]}
        return {"content": json.dumps(DRAFT)}


investigate = investigate_over_http


def results_seen(agent: OneTurn) -> list[str]:
    """The tool results the agent's second request carried, one per call of its first turn."""
    return [str(m["content"]) for m in agent.agent_requests[1]["messages"] if m["role"] == "tool"]


def test_two_calls_of_one_turn_both_run_without_naming_each_other(tmp_path: Path) -> None:
    agent = OneTurn([{"name": "query_logs", "args": EV[0]["args"]},
                     {"name": "query_mysql", "args": EV[1]["args"]}])
    services, out = investigate(tmp_path, agent)
    logs, sql = results_seen(agent)
    assert "E2.1" in sql and "previous_observation" not in sql, sql  # not "… is missing"
    assert out["usage"]["tool_calls"] == 2
    assert (out["run_state"], out["release_outcome"]) == ("SUCCESS", "SUCCESS"), out["content"]
    assert ROOT_CAUSE in out["content"]
    assert_stored(services, out)


def test_a_guessed_envelope_in_the_same_turn_runs_and_its_gain_is_not_counted(
        tmp_path: Path) -> None:
    """A guessed id is no violation; guessed NO_GAINs on unseen results saturate nothing."""
    guess = {"tool_call_id": "call_1", "gain": "NO_GAIN", "note": "not seen yet"}
    agent = OneTurn([{"name": "query_logs", "args": EV[0]["args"]},
                     *[{"name": "lookup_knowledge",
                        "args": {"query": f"{w} connection pool", "previous_observation": guess}}
                       for w in ("timeout", "exhausted", "payment")]])
    _, out = investigate(tmp_path, agent, saturation_threshold=3)
    seen = results_seen(agent)
    assert len(seen) == 4 and not any("violation" in r for r in seen), seen
    assert out["usage"]["tool_calls"] == 4
    # Three NO_GAINs the model could not have judged did not end collection.
    assert not any("stop_required" in r for r in seen), seen
    assert out["stop_reason"] != "INFORMATION_SATURATED"
    assert (out["run_state"], out["release_outcome"]) == ("SUCCESS", "SUCCESS"), out["content"]
