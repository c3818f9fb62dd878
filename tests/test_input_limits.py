"""Byte limits on what reaches the agent (docs/design.md §6): refused before any agent call."""

from __future__ import annotations

from graphkit import INC_ROUTER, draft, go, outcome


def test_agent_input_over_its_limit_is_refused_before_the_agent_runs() -> None:
    services, out = go({"router": [INC_ROUTER], "agent": [draft(None)]},
                       settings={"max_agent_input_bytes": 800})
    assert outcome(out) == ("FAILED", "FAILED", None, "INVALID_INPUT")
    failure = next(e for e in out["events"] if e["event"] == "failure")
    assert "limit is 800" in failure["message"]
    assert services.seam.replay_script.consumed("agent") == 0
    assert out["usage"]["model_calls"] == 1  # the router only


def test_the_question_counts_toward_the_run_byte_budget() -> None:
    from graphkit import INC

    _, out = go({"router": [INC_ROUTER], "agent": [draft(None)]})
    assert out["usage"]["bytes"] >= len(INC["question"].encode("utf-8"))
    _, tight = go({"router": [INC_ROUTER], "agent": [draft(None)]},
                  settings={"max_run_bytes": 10})
    assert tight["release_outcome"] == "FAILED" and tight["failure_code"] == "BUDGET_EXHAUSTED"
