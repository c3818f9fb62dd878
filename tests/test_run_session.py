"""The run session is one layer around the graph, whichever graph it is given.

The CLI runner streams a plain compiled graph through a
:class:`~diagnosis_harness.session.run_session.RunSession`; the served graph and the public
``build_graph`` are :class:`~diagnosis_harness.session.hooked.SessionGraph`, whose own stream is
a run session. A run session given a SessionGraph (a script that hands the runner the public
graph) must not wrap the run twice: one ``metadata`` event, one recorded segment, the same
story as the plain graph tells.
"""

from __future__ import annotations

import asyncio
from typing import Any
from unittest import mock

import pytest
from graphkit import INC, THREE_CALL_RUN, demo_home, services_for
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.graph.builder import build_graph
from diagnosis_harness.session import runner
from diagnosis_harness.session.hooked import SessionGraph, session_graph


def _turn(make_graph: Any, thread: str) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = InMemorySaver()
    with mock.patch.object(runner, "build_graph", lambda checkpointer, nodes=None: make_graph(saver)):
        out = asyncio.run(runner.run_turn(services, INC["question"], thread_id=thread,
                                          checkpointer=saver))
    events = [e["event"] for e in services.store.events(out["run_id"])]
    return out, events, services.store.lineage(out["run_id"]) or {}


@pytest.mark.parametrize("make_graph", [build_graph, session_graph], ids=["plain", "session"])
def test_a_turn_is_one_run_story_whichever_graph_the_runner_streams(make_graph: Any) -> None:
    assert isinstance(make_graph(None), SessionGraph) is (make_graph is session_graph)
    out, events, lineage = _turn(make_graph, f"one-story-{make_graph.__name__}")
    assert out["release_outcome"] == "SUCCESS"
    assert events[0] == "metadata" and events.count("metadata") == 1
    assert events[-1] == "done" and events.count("done") == 1
    segments = lineage.get("segments") or []
    assert [(s["kind"], s["ended"]) for s in segments] == [("start", "SUCCESS")]
