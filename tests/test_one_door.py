"""A run enters through one door (docs/design.md §9): its input is validated once, its thread's
dead runs are swept once and its row is created and claimed once — for the CLI's runner, the
Python SDK's graph and the served graph alike.

Counted through the run store the services are given (a RunStore that counts its calls) and the
one validator the door calls; ``route`` only routes.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from graphkit import CLAIMS, COLLECT, INC, INC_ROUTER, ROOT_CAUSE, demo_home, draft, judge, run, services_for
from langgraph.checkpoint.memory import InMemorySaver

import diagnosis_harness
from diagnosis_harness.continuations import starts
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.serving.adapter import ServingAdapter
from diagnosis_harness.session import run_session
from diagnosis_harness.session.runner import new_context
from diagnosis_harness.session.services import Services

Q = INC["question"]
TURN = {"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)], "judge": [judge()]}


class CountingStore(RunStore):
    """The SQLite run store, counting the calls that start, claim and sweep runs."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.starts: Counter[str] = Counter()
        self.claims: Counter[str] = Counter()
        self.sweeps: Counter[str] = Counter()

    def start_run(self, run_id: str, thread_id: str, question: str, model_spec: str) -> bool:
        self.starts[run_id] += 1
        return super().start_run(run_id, thread_id, question, model_spec)

    def claim_run(self, run_id: str, owner: str, lease_s: float, *,
                  take_over_from: str | None = None) -> bool:
        self.claims[run_id] += 1
        return super().claim_run(run_id, owner, lease_s, take_over_from=take_over_from)

    def unfinished_runs(self, thread_id: str | None = None,
                        run_id: str | None = None) -> list[dict[str, Any]]:
        if thread_id is not None:  # what a sweep of a thread's dead runs reads
            self.sweeps[thread_id] += 1
        return super().unfinished_runs(thread_id, run_id)


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every input the door validates (through the one public validator)."""
    seen: list[object] = []

    def counting(value: object, max_bytes: int) -> str | None:
        seen.append(value)
        return starts.turn_problem(value, max_bytes)

    monkeypatch.setattr(run_session, "turn_problem", counting)
    return seen


def _services(tmp_path: Path, turns: int = 1) -> Services:
    script = {role: answers * turns for role, answers in TURN.items()}
    services = services_for(demo_home(), script)
    return dataclasses.replace(services, store=CountingStore(tmp_path / "runs.sqlite"))


def _store(services: Services) -> CountingStore:
    assert isinstance(services.store, CountingStore)
    return services.store


def test_a_cli_turn_is_validated_swept_and_started_once(tmp_path: Path,
                                                       validations: list[object]) -> None:
    services = _services(tmp_path, turns=2)
    store = _store(services)
    saver = InMemorySaver()
    first = run(services, Q, thread_id="cli-thread", checkpointer=saver)
    second = run(services, Q, thread_id="cli-thread", checkpointer=saver)

    assert (first["release_outcome"], second["release_outcome"]) == ("SUCCESS", "SUCCESS")
    assert len(validations) == 2  # one per run
    for out in (first, second):
        assert store.starts[out["run_id"]] == 1
        assert store.claims[out["run_id"]] >= 1  # the first claim; the heartbeat renews it
    assert store.sweeps["cli-thread"] == 2  # once per turn


def test_a_refused_question_is_refused_once_with_one_row(tmp_path: Path,
                                                         validations: list[object]) -> None:
    services = _services(tmp_path)
    store = _store(services)
    out = run(services, "   ", thread_id="empty-thread", checkpointer=InMemorySaver())

    assert (out["release_outcome"], out["failure_code"]) == ("FAILED", "INVALID_INPUT")
    assert validations == [{"question": "   "}]
    assert store.starts[out["run_id"]] == 1
    assert store.get_run(out["run_id"])["release_outcome"] == "FAILED"
    assert [e["event"] for e in out["events"]].count("failure") == 1
    assert services.seam.replay_script is not None
    assert services.seam.replay_script.consumed("router") == 0  # no model saw it


def test_an_sdk_run_is_validated_swept_and_started_once(tmp_path: Path,
                                                       validations: list[object]) -> None:
    services = _services(tmp_path)
    store = _store(services)
    graph = diagnosis_harness.build_graph(InMemorySaver())  # the public graph, as a script uses it
    ctx = new_context(services, thread_id="sdk-thread")
    out = asyncio.run(graph.ainvoke({"question": Q}, {"configurable": {"thread_id": "sdk-thread"}},
                                    context=ctx))

    assert out["release_outcome"] == "SUCCESS"
    assert len(validations) == 1
    assert store.starts[ctx.run_id] == 1
    assert store.sweeps["sdk-thread"] == 1


def test_a_served_run_is_validated_swept_and_started_once(tmp_path: Path,
                                                         validations: list[object]) -> None:
    services = _services(tmp_path)
    store = _store(services)
    adapter = ServingAdapter(services)
    config = {"configurable": {"thread_id": "served-thread"}, "metadata": {"run_id": "served-1"}}

    async def scenario() -> dict[str, Any]:
        final: dict[str, Any] = {}
        async for chunk in adapter.graph.astream({"question": Q}, config, stream_mode="values"):
            final = chunk
        return final

    try:
        final = asyncio.run(scenario())
    finally:
        adapter.close()
    assert final["release_outcome"] == "SUCCESS"
    assert len(validations) == 1
    assert store.starts["served-1"] == 1
    assert store.sweeps["served-thread"] == 1
