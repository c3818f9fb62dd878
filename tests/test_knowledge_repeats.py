"""A runbook passage already returned is not sent again in full (issue 40).

A capable model asked ``lookup_knowledge`` again and again and got the same passage back each
time, in full, each time paid for on every later turn, with nothing telling it the runbooks had
no more. A repeat is now sent as ``same_as`` its first id (the record keeps the passage), and a
result with no new passage says so. The agent is a real OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphkit import DemoRoles, demo_home, investigate_over_http

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import Services

QUERIES = ["connection pool exhausted", "payment pool exhausted timeout"]
"""Two scopes (not a duplicate) whose best passages are the same three of one runbook."""


class Asker(DemoRoles):
    """The agent asks the runbooks each of ``QUERIES`` in its own turn, then drafts nothing."""

    def agent(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        if n > len(QUERIES) or body.get("tool_choice") == "none":
            return {"content": json.dumps({"conclusion": None, "next_steps": ["check pools"]})}
        args: dict[str, Any] = {"query": QUERIES[n - 1]}
        results = [m for m in body["messages"] if m["role"] == "tool"]
        if results:
            args["previous_observation"] = {"tool_call_id": results[-1]["tool_call_id"],
                                            "gain": "NO_GAIN", "note": "runbook read"}
        return {"tool_calls": [{"id": f"call_{n}", "name": "lookup_knowledge", "args": args}]}


def test_a_repeated_passage_is_named_not_sent_again_and_the_record_keeps_it(
        tmp_path: Path) -> None:
    agent = Asker()
    services, out = investigate_over_http(tmp_path, agent)
    assert out["usage"]["tool_calls"] == 2
    first, second = [str(m["content"]) for m in agent.agent_requests[2]["messages"]
                     if m["role"] == "tool"]
    # The first result shows the passages; the second names them and shows none again.
    assert first.count("passage") >= 3 and "same as" not in first
    assert "same as E1.1" in second or "same_as=E1.1" in second, second
    assert "Symptoms" not in second and "already returned" in second, second
    assert len(second) < len(first) / 3
    # The record keeps every passage in full: the evidence ids stay citable, the judge reads it.
    stored = services.store.tool_record(out["run_id"], "call_2")
    assert stored is not None and "Symptoms" in json.dumps(stored["record"])
    assert "same_as" in json.dumps(stored["observation"])  # what was sent, as it was sent


def test_an_unrelated_query_gets_no_generic_passage(tmp_path: Path) -> None:
    """The relevance floor: no overview passage stands in for a runbook nobody wrote."""
    from diagnosis_harness.tools.lookup_knowledge import lookup_knowledge
    settings = load_settings(home=demo_home(), model="offline")
    services = Services.from_settings(settings, store=RunStore(tmp_path / "runs.sqlite"))
    for query in ("kafka consumer lag", "service overview", "what is wrong with checkout service",
                  "redis cache eviction"):
        result = lookup_knowledge(services.backends, settings, query=query)
        assert not result.items, (query, [i.text[:80] for i in result.items])
