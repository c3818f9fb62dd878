"""The served graph on a real ``langgraph dev`` server, driven with the SDK as users drive it.

One server for the module (started by ``harness serve`` on a free 127.0.0.1 port, its home in a
tmp folder) talks to one OpenAI-compatible stub that answers by reading each request: the router
prompt, the agent (native tools) or the judge. Every run investigates its own "incident #N", whose
time window — and therefore whose evidence text — is unique, so runs can be told apart even when
twenty of them share the server.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from devserver import DevServer, free_port
from graphkit import call, demo_home, draft, judge, router, services_for
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_sdk import get_client
from servekit import (
    SLOW_AGENT_DELAY_S,
    Streamed,
    assert_grammar,
    eventually,
    investigator,
    message_text,
    new_thread,
    stream,
    stub_env,
    window,
)
from stub_openai import StubOpenAI

from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.serving.adapter import ServingAdapter

pytestmark = pytest.mark.slow

NODES = {"route", "model", "tool_gate", "saturation_check", "draft_parse", "evidence_guard",
         "evidence_repair", "semantic_guard", "revise", "release"}


# --- fixtures and helpers --------------------------------------------------------------------


@dataclass
class Served:
    server: DevServer
    stub: StubOpenAI
    store: RunStore


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("serving")
    home = work / "home"
    with StubOpenAI(responder=investigator) as stub, \
            DevServer(work / "cwd", stub_env(home, stub.base_url)) as server:
        yield Served(server, stub, RunStore(home / "runs.sqlite"))


async def diagnose(url: str, thread_id: str, question: str, into: Streamed | None = None,
                   **stream_kw: Any) -> Streamed:
    """One turn through ``runs.stream`` with custom and values modes, as a client sees it."""
    return await stream(url, thread_id, {"question": question}, into=into,
                        stream_mode=("custom", "values"), **stream_kw)


def cited_lines(content: str) -> dict[str, str]:
    """The report's evidence lines: id → the fact text it quotes."""
    return dict(re.findall(r"^\s+(E\d+\.\d+): (.*)$", content, flags=re.M))


# --- tests -----------------------------------------------------------------------------------


def test_a_streamed_diagnosis_follows_the_event_grammar(served: Served) -> None:
    url = served.server.url

    async def scenario() -> tuple[str, Streamed]:
        thread = await new_thread(url)
        return thread, await diagnose(url, thread, "payment timeouts, incident #1: why?")

    thread, run = asyncio.run(scenario())
    assert run.errors == []
    assert_grammar(run.events)
    assert run.events[0] == {"event": "metadata", "run_id": run.server_run_id, "thread_id": thread,
                             "model": "openai:stub-model"}
    content = run.events[-2]
    assert content["event"] == "content" and content["release_outcome"] == "SUCCESS"
    assert run.events[-1] == {"event": "done", "release_outcome": "SUCCESS", "run_state": "SUCCESS"}
    final = run.final
    assert (final["run_state"], final["release_outcome"], final["fallback_type"]) == \
        ("SUCCESS", "SUCCESS", None)
    assert final["run_id"] == run.server_run_id  # the harness run is the server's run
    assert final["content"] == content["text"]
    assert final["events"] == run.events
    row = served.store.get_run(run.server_run_id)
    assert row is not None
    assert (row["thread_id"], row["status"], row["release_outcome"]) == (thread, "SUCCESS", "SUCCESS")
    # The trace holds exactly what the client received, in the same order.
    assert eventually(lambda: (e := served.store.events(run.server_run_id)) and e[-1]["event"] == "done"
                      and e) == run.events


def test_a_second_turn_sees_the_first_turns_verified_diagnosis(served: Served) -> None:
    url = served.server.url

    async def scenario() -> tuple[str, Streamed, dict[str, Any], Streamed, dict[str, Any]]:
        client = get_client(url=url)
        thread = await new_thread(url)
        first = await diagnose(url, thread, "payment timeouts, incident #2: why?")
        after_first = (await client.threads.get_state(thread))["values"]
        second = await diagnose(url, thread, "and is incident #3 the same thing?")
        after_second = (await client.threads.get_state(thread))["values"]
        return thread, first, after_first, second, after_second

    thread, first, after_first, second, after_second = asyncio.run(scenario())
    assert first.final["release_outcome"] == second.final["release_outcome"] == "SUCCESS"
    summary = after_first["last_success"]
    assert "Verified root cause: connection pool exhaustion (incident #2)" in summary
    assert after_first["previous_turn"] is None
    assert after_second["previous_turn"] == summary
    # ... and the agent of the second turn was shown it.
    agent_prompts = ["\n".join(message_text(m) for m in r["body"]["messages"])
                     for r in served.stub.requests if r["body"].get("tools")]
    assert any("incident #3" in p and summary in p for p in agent_prompts)
    rows = served.store.runs_for_thread(thread)
    assert [(r["run_id"], r["status"]) for r in rows] == [(first.server_run_id, "SUCCESS"),
                                                          (second.server_run_id, "SUCCESS")]


async def slow_run_in_flight(served: Served, incident: int, **stream_kw: Any
                             ) -> tuple[str, Streamed, asyncio.Task[Streamed]]:
    """Start a run of a "slow" incident; return once its agent's draft call is in flight."""
    url = served.server.url

    def agent_is_drafting() -> bool:
        return any(r["body"].get("tools") and f"incident #{incident} " in json.dumps(r["body"])
                   and any(m.get("role") == "tool" for m in r["body"]["messages"])
                   for r in list(served.stub.requests))

    thread = await new_thread(url)
    run = Streamed()
    stream = asyncio.create_task(
        diagnose(url, thread, f"payment timeouts, incident #{incident} (slow): why?", into=run,
                 **stream_kw))
    deadline = time.monotonic() + 30
    while not (run.server_run_id and agent_is_drafting()):
        assert time.monotonic() < deadline and not stream.done(), "the run never got going"
        await asyncio.sleep(0.05)
    return thread, run, stream


def finished_row(served: Served, run_id: str) -> dict[str, Any]:
    return eventually(lambda: (r := served.store.get_run(run_id)) and r["finished_at"] and r)


def assert_cancelled_quietly(served: Served, run: Streamed, row: dict[str, Any]) -> None:
    """docs/design.md §4 row 14: CANCELLED everywhere, and nothing published — not even ``done``."""
    assert (row["status"], row["run_state"], row["release_outcome"]) == \
        ("CANCELLED", "CANCELLED", "CANCELLED")
    assert row["content"] is None
    received = [e["event"] for e in run.events]
    assert received[:1] == ["metadata"] and not {"content", "failure", "done"} & set(received)
    time.sleep(0.5)  # give a late event every chance to reach the trace
    traced = [e["event"] for e in served.store.events(run.server_run_id)]
    assert traced[:len(received)] == received
    assert not {"content", "failure", "done"} & set(traced)


def test_cancelling_a_run_mid_investigation_publishes_nothing_and_records_cancelled(
        served: Served) -> None:
    url = served.server.url

    async def scenario() -> tuple[Streamed, float, dict[str, Any], Streamed, dict[str, Any]]:
        client = get_client(url=url)
        thread, run, stream = await slow_run_in_flight(served, 4)
        began = time.monotonic()
        await client.runs.cancel(thread, run.server_run_id)
        await asyncio.wait_for(stream, 30)
        row = await asyncio.to_thread(finished_row, served, run.server_run_id)
        elapsed = time.monotonic() - began
        server_run = await client.runs.get(thread, run.server_run_id)
        # The thread goes on: a cancelled turn is nobody's previous turn.
        after = await diagnose(url, thread, "payment timeouts, incident #6: why?")
        state = (await client.threads.get_state(thread))["values"]
        return run, elapsed, {"row": row, "server_run": server_run}, after, state

    run, elapsed, seen, after, state = asyncio.run(scenario())
    assert_cancelled_quietly(served, run, seen["row"])
    assert elapsed < SLOW_AGENT_DELAY_S, "the node ran on instead of being cancelled"
    assert seen["server_run"]["status"] == "interrupted"
    assert after.final["release_outcome"] == "SUCCESS"
    assert state["previous_turn"] is None


def test_a_client_that_disconnects_cancels_its_run(served: Served) -> None:
    async def scenario() -> Streamed:
        _, run, stream = await slow_run_in_flight(served, 5, on_disconnect="cancel")
        stream.cancel()  # the client goes away mid-stream
        with pytest.raises(asyncio.CancelledError):
            await stream
        return run

    run = asyncio.run(scenario())
    began = time.monotonic()
    row = finished_row(served, run.server_run_id)
    assert time.monotonic() - began < SLOW_AGENT_DELAY_S
    assert_cancelled_quietly(served, run, row)


ROW_FIELDS = ("status", "run_state", "release_outcome", "fallback_type", "failure_code",
              "stop_reason", "intent", "content", "usage")


def test_a_crash_between_two_nodes_fails_the_run_as_the_cli_does(served: Served,
                                                                  tmp_path: Any) -> None:
    """LangGraph's recursion limit stops a run after ``model``, before ``tool_gate`` starts.

    The GraphRecursionError comes from the engine between two nodes, where no node can settle
    the run. A server client sets the limit per run; the CLI gets the same limit from
    LangGraph's LANGGRAPH_DEFAULT_RECURSION_LIMIT.
    """
    url = served.server.url

    async def scenario() -> Streamed:
        thread = await new_thread(url)
        return await diagnose(url, thread, "payment timeouts, incident #30: why?",
                              config={"recursion_limit": 2})

    run = asyncio.run(scenario())
    assert [e["event"] for e in run.events] == ["metadata", "status", "status", "failure", "done"]
    assert [e["phase"] for e in run.events[1:3]] == ["routing", "investigating"]
    failure, done = run.events[-2:]
    assert failure == {"event": "failure", "failure_code": "INTERNAL_FAILURE",
                       "message": "internal failure: GraphRecursionError"}
    assert done == {"event": "done", "release_outcome": "FAILED", "run_state": "FAILED"}
    assert "GraphRecursionError" in json.dumps(run.errors)  # the server saw the run fail
    served_row = finished_row(served, run.server_run_id)
    assert eventually(lambda: (e := served.store.events(run.server_run_id)) and e[-1]["event"] == "done"
                      and e) == run.events

    env = dict(served.server.env, LANGGRAPH_DEFAULT_RECURSION_LIMIT="2")
    cli = subprocess.run([sys.executable, "-m", "diagnosis_harness", "diagnose", "--json",
                          "payment timeouts, incident #31: why?"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2, cli.stderr
    out = json.loads(cli.stdout)
    assert [e["event"] for e in out["events"]] == [e["event"] for e in run.events]
    assert out["events"][1:] == run.events[1:]
    assert (out["release_outcome"], out["failure_code"]) == ("FAILED", "INTERNAL_FAILURE")
    cli_row = served.store.get_run(out["run_id"])
    assert {k: cli_row[k] for k in ROW_FIELDS} == {k: served_row[k] for k in ROW_FIELDS}
    assert (served_row["status"], served_row["failure_code"], served_row["intent"]) == \
        ("FAILED", "INTERNAL_FAILURE", "DIAGNOSIS")
    assert served_row["usage"]["model_calls"] == 2  # the router's call and the agent's


def test_twenty_concurrent_diagnoses_keep_their_runs_and_evidence_apart(served: Served) -> None:
    url = served.server.url
    incidents = list(range(100, 120))

    async def one(incident: int) -> tuple[int, str, Streamed]:
        thread = await new_thread(url)
        return incident, thread, await diagnose(url, thread, f"errors, incident #{incident}: why?")

    async def scenario() -> list[tuple[int, str, Streamed]]:
        return list(await asyncio.gather(*(one(i) for i in incidents)))

    results = asyncio.run(scenario())
    assert len({run.server_run_id for _, _, run in results}) == len(incidents)
    for incident, thread, run in results:
        assert run.errors == []
        assert_grammar(run.events)
        assert run.final["release_outcome"] == "SUCCESS", run.final
        rows = served.store.runs_for_thread(thread)
        assert [(r["run_id"], r["status"]) for r in rows] == [(run.server_run_id, "SUCCESS")]
        records = served.store.trace(run.server_run_id)["tool_records"]
        own_facts = {f["evidence_id"]: f["text"] for r in records for f in r["facts"]}
        cited = cited_lines(run.final["content"])
        assert cited and set(cited) <= set(own_facts)
        start = window(incident)[0].replace("+00:00", "Z")
        for eid, text in cited.items():
            assert text == own_facts[eid] and start in text  # this run's evidence, nobody else's
        assert eventually(lambda rid=run.server_run_id: (e := served.store.events(rid))
                          and e[-1]["event"] == "done" and e) == run.events


def test_studio_draws_every_node_and_conditional_edge(served: Served) -> None:
    from diagnosis_harness.session.hooked import session_graph as build_graph

    async def scenario() -> dict[str, Any]:
        client = get_client(url=served.server.url)
        assistants = await client.assistants.search(graph_id="diagnosis")
        return dict(await client.assistants.get_graph(assistants[0]["assistant_id"]))

    drawn = asyncio.run(scenario())
    assert {n["id"] for n in drawn["nodes"]} == NODES | {"__start__", "__end__"}
    edges = {(e["source"], e["target"], bool(e.get("conditional"))) for e in drawn["edges"]}
    local = build_graph().get_graph()
    assert edges == {(e.source, e.target, e.conditional) for e in local.edges}
    for source, target in [("route", "model"), ("route", "release"), ("model", "tool_gate"),
                           ("model", "draft_parse"), ("model", "release"),
                           ("tool_gate", "saturation_check"), ("tool_gate", "release"),
                           ("draft_parse", "evidence_guard"), ("draft_parse", "release"),
                           ("evidence_guard", "semantic_guard"),
                           ("evidence_guard", "evidence_repair"), ("evidence_guard", "release"),
                           ("evidence_repair", "evidence_guard"), ("semantic_guard", "revise"),
                           ("semantic_guard", "release"), ("revise", "model"),
                           ("revise", "release")]:
        assert (source, target, True) in edges
    for source, target in [("__start__", "route"), ("saturation_check", "model"),
                           ("release", "__end__")]:
        assert (source, target, False) in edges


# --- the adapter in-process: run contexts are dropped however a run ends -------------------


class RecordingResolver:
    """Wraps a served graph's resolver: keeps a weak reference to every run context it made."""

    def __init__(self, adapter: ServingAdapter) -> None:
        self.resolve = adapter.graph.resolve_context
        self.made: list[weakref.ref[Any]] = []

    def __call__(self, config: Any, *args: Any) -> Any:
        ctx = self.resolve(config, *args)
        self.made.append(weakref.ref(ctx))
        return ctx


def test_a_served_run_keeps_one_context_and_drops_it_when_released() -> None:
    start, end = window(7)
    args = {"service": "payment-service", "start": start, "end": end, "limit": 3}
    services = services_for(demo_home(), {
        "router": [router(start=start, end=end)],
        "agent": [call("query_logs", args, "c1"), draft("pool", [("errors", ["E1.1"])])],
        "judge": [judge()]})
    adapter = ServingAdapter(services)
    resolver = adapter.graph.resolve_context = RecordingResolver(adapter)
    config = {"configurable": {"thread_id": "thread-7"}, "metadata": {"run_id": "server-run-7"}}

    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        events, final = [], {}
        async for mode, chunk in adapter.graph.astream({"question": "incident #7"}, config,
                                                       stream_mode=["custom", "values"]):
            if mode == "custom":
                events.append(chunk)
            else:
                final = chunk
        return events, final

    events, final = asyncio.run(scenario())
    adapter.close()
    assert (final["run_id"], final["thread_id"]) == ("server-run-7", "thread-7")
    assert final["release_outcome"] == "SUCCESS"
    gc.collect()
    assert len(resolver.made) == 1 and resolver.made[0]() is None  # one context, now gone
    assert services.store.events("server-run-7") == events


class PausingSaver(InMemorySaver):
    """A checkpointer that never finishes writing the checkpoint of step ``pause_at``."""

    def __init__(self, pause_at: int) -> None:
        super().__init__()
        self.pause_at = pause_at
        self.paused = asyncio.Event()

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if metadata.get("step") == self.pause_at:
            self.paused.set()
            await asyncio.Event().wait()  # until cancelled
        return await super().aput(config, checkpoint, metadata, new_versions)


def test_a_run_cancelled_between_nodes_still_gets_a_cancelled_row() -> None:
    services = services_for(demo_home(), {"router": [router()]})
    adapter = ServingAdapter(services)
    resolver = adapter.graph.resolve_context = RecordingResolver(adapter)
    saver = PausingSaver(pause_at=1)  # the checkpoint after ``route``, before ``model`` starts
    graph = adapter.graph.copy({"checkpointer": saver})  # as the dev server gives it its own
    config = {"configurable": {"thread_id": "thread-8"}, "metadata": {"run_id": "server-run-8"}}
    received: list[dict[str, Any]] = []

    async def scenario() -> None:
        async def consume() -> None:
            # durability="sync": the run waits for each checkpoint before its next node.
            async for chunk in graph.astream({"question": "incident #8"}, config,
                                             stream_mode="custom", durability="sync"):
                received.append(chunk)

        task = asyncio.create_task(consume())
        await asyncio.wait_for(saver.paused.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    adapter.close()
    row = services.store.get_run("server-run-8")
    assert (row["status"], row["run_state"], row["release_outcome"]) == \
        ("CANCELLED", "CANCELLED", "CANCELLED")
    assert [e["event"] for e in received] == ["metadata", "status"]  # route's, then nothing
    assert services.store.events("server-run-8") == received
    gc.collect()
    assert resolver.made[0]() is None


def test_serve_refuses_a_busy_port_instead_of_moving(capsys: pytest.CaptureFixture[str]) -> None:
    from diagnosis_harness.cli.main import EXIT_USAGE, main

    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        with pytest.raises(SystemExit) as exit_:
            main(["serve", "--port", str(port)])
    assert exit_.value.code == EXIT_USAGE
    assert f"port {port} on 127.0.0.1 is not available" in capsys.readouterr().err


def test_no_node_blocked_the_servers_event_loop(served: Served) -> None:
    log = served.server.log()
    assert "Application started up" in log or "Starting" in log  # the log is the server's
    assert "Blocking call" not in log and "BlockingError" not in log


def test_the_server_stops_by_its_own_pid_and_leaves_nothing_behind(served: Served) -> None:
    server = served.server
    served.server.stop()  # asserts that no process of its group is left
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{server.url}/ok", timeout=2)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", server.port))  # the port is free again
