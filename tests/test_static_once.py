"""What every run would otherwise rebuild is built once per process: graph, tool specs, models.

And the agent's tool specs are lean (they are sent with every agent call) without losing what
the model needs: the progress envelope on every tool, the tables, services and attributes of
the data.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest
from graphkit import demo_home, services_for
from langgraph.checkpoint.memory import InMemorySaver

import graph.builder
import nodes.model
import tools.registry
from harness.contracts import Role
from harness.settings import load_settings
from providers.seam import ModelSeam


def _ctx() -> Any:
    services = services_for(demo_home(), {})
    return SimpleNamespace(backends=services.backends, dataset=services.dataset, mcp_tools={})


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_the_agents_tool_specs_are_lean_and_keep_what_the_model_needs() -> None:
    specs = {s["function"]["name"]: s["function"] for s in nodes.model.agent_tools(_ctx())}
    assert set(specs) == set(tools.registry.TOOLS)
    for spec in specs.values():
        envelope = spec["parameters"]["properties"]["previous_observation"]
        assert envelope["properties"]["gain"]["enum"] == ["GAINED", "NO_GAIN"]
        assert envelope["required"] == ["tool_call_id", "gain"]
        assert "progress rule" in envelope["description"]  # the system prompt states it in full
    assert "Tables: " in specs["query_mysql"]["description"]
    assert "config_changes(change_id" in specs["query_mysql"]["description"]
    logs = specs["query_logs"]["description"]
    assert "Services in these logs: " in logs and "payment-service" in logs
    assert "Attributes you can filter on with attrs: " in logs and "merchant (e.g. 'M1001')" in logs
    # No schema noise: titles, $defs, null alternatives of optional arguments.
    assert not {"title", "$defs", "$ref", "anyOf"} & _keys(list(specs.values()))
    assert "limit" not in specs["query_logs"]["parameters"]["required"]
    assert specs["query_logs"]["parameters"]["properties"]["limit"]["type"] == "integer"
    assert len(json.dumps(list(specs.values()))) < 5000  # 6,800 before they were made lean


def test_the_tool_specs_are_built_once_and_every_caller_gets_its_own_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools.registry, "_built", {})
    monkeypatch.setattr(nodes.model, "_agent_tools", {})
    built: list[Any] = []
    build = tools.registry._build
    monkeypatch.setattr(tools.registry, "_build", lambda *a: built.append(a) or build(*a))
    ctx = _ctx()
    first = nodes.model.agent_tools(ctx)
    first[0]["function"]["description"] = "changed by a caller"
    again = [nodes.model.agent_tools(ctx) for _ in range(3)]
    assert len(built) == 1
    assert all(specs == again[0] for specs in again)
    assert again[0][0]["function"]["description"] != "changed by a caller"


def test_the_seam_builds_each_roles_model_once() -> None:
    seam = services_for(demo_home(), {}).seam
    assert seam.for_role(Role.AGENT) is seam.for_role(Role.AGENT)
    assert seam.for_role(Role.JUDGE) is not seam.for_role(Role.AGENT)
    offline = ModelSeam(load_settings(model="offline", home=demo_home()))
    assert offline.for_role(Role.ROUTER) is offline.for_role(Role.ROUTER)


def test_an_openai_model_is_kept_per_event_loop() -> None:
    seam = ModelSeam(load_settings(model="openai:m", openai_api_key="k", home=demo_home()))

    async def twice() -> tuple[Any, Any]:
        return seam.for_role(Role.AGENT), seam.for_role(Role.AGENT)

    a, b = asyncio.run(twice())
    c, _ = asyncio.run(twice())
    assert a is b and a is not c  # a new loop gets a model with that loop's client


def test_the_graph_is_compiled_once_and_each_caller_gets_its_checkpointer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph.builder, "_compiled", {})
    compiled: list[Any] = []
    make = graph.builder.builder
    monkeypatch.setattr(graph.builder, "builder", lambda **kw: compiled.append(kw) or make(**kw))
    savers = [InMemorySaver(), InMemorySaver()]
    graphs = [graph.builder.build_graph(s) for s in savers]
    assert len(compiled) == 1
    assert [g.checkpointer for g in graphs] == savers
    assert isinstance(graphs[0], graph.builder.DiagnosisGraph)
    assert graph.builder.build_graph().checkpointer is None and len(compiled) == 1
