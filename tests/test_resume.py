"""Interrupted runs, in process (docs/design.md §6, §9): run time, idempotent tool calls, leases.

A run's deadline counts its run time, carried across processes in the checkpoint; a node
re-executed on resume reuses the tool calls the run store kept; ``resume_run`` continues a run
from its checkpoint, refuses one it must not touch and settles one with nothing to continue
from; once release has decided, a checkpoint that cannot be written changes nothing reported.
The same through real processes that are killed: ``tests/test_resume_processes.py``.
"""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import time
from types import SimpleNamespace
from typing import Any

import pytest
from graphkit import (
    EV,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    THREE_CALL_RUN,
    ManualClock,
    consumed,
    demo_home,
    draft,
    kinds,
    seen,
    services_for,
    task_message,
)
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from sqlalchemy import create_engine, inspect, text

import diagnosis_harness.graph.builder
import diagnosis_harness.nodes.tool_gate
import diagnosis_harness.session.end
import diagnosis_harness.session.hooked
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.runstore.worker import Heartbeat, is_stale, owner_dead, worker_id
from diagnosis_harness.session.run_session import RunSession
from diagnosis_harness.session.runner import ResumeRefused, new_context, resume_run, run_turn

Q = INC["question"]


async def _stream(compiled: Any, payload: Any, thread: str, ctx: Any) -> dict[str, Any]:
    final: dict[str, Any] = {}
    async for chunk in RunSession(compiled).stream(payload, {"configurable": {"thread_id": thread}},
                                            context=ctx, stream_mode="values"):
        final = chunk
    return final


# --- run time, not wall time ------------------------------------------------------------------


@pytest.mark.parametrize(("after_pause_s", "expected"), [(30, "SUCCESS"), (50, "TIMED_OUT")])
def test_a_resumed_run_keeps_its_remaining_deadline(after_pause_s: float, expected: str) -> None:
    """60 s of run time, a pause of a day, a new process, then ``after_pause_s`` more seconds.

    The deadline is 100 s: 60 + 30 fits, 60 + 50 does not. A deadline reset by the new process
    would let both pass; one counting wall time would fail both.
    """
    services = services_for(demo_home(), THREE_CALL_RUN, deadline_s=100)
    saver = InMemorySaver()
    compiled = diagnosis_harness.session.hooked.session_graph(saver)
    paused = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                               interrupt_after=["tool_gate"])
    thread = f"run-time-{after_pause_s}"
    first_clock, second_clock = ManualClock(), ManualClock()
    second_clock.advance(86_400)  # another process, a day later: its own monotonic clock
    first = new_context(services, thread_id=thread)
    first.lifecycle = RunLifecycle(deadline_s=100, clock=first_clock)
    agent_calls = seen(services)

    def on_call(role: str, n: int) -> None:
        if role == "agent" and n == 1:
            first_clock.advance(60)
        if role == "agent" and n == 2:
            second_clock.advance(after_pause_s)

    services.seam.on_call = on_call  # type: ignore[attr-defined]

    async def scenario() -> dict[str, Any]:
        await _stream(paused, {"question": Q}, thread, first)  # stops after the first tool call
        state = (await compiled.aget_state({"configurable": {"thread_id": thread}})).values
        assert 60 <= state["elapsed_s"] < 61  # the run time is in the checkpoint
        second = new_context(services, thread_id=thread, run_id=first.run_id)
        second.lifecycle = RunLifecycle(deadline_s=100, clock=second_clock)
        return await _stream(compiled, None, thread, second)

    final = asyncio.run(scenario())
    assert len(agent_calls) >= 2
    if expected == "SUCCESS":
        assert (final["run_state"], final["release_outcome"]) == ("SUCCESS", "SUCCESS")
        assert 90 <= final["elapsed_s"] < 91  # 60 before the pause + 30 after, not the pause
    else:
        assert (final["run_state"], final["failure_code"]) == ("TIMED_OUT", "RUN_TIMED_OUT")
        assert consumed(services).get("judge") is None  # nothing asked after the deadline


def test_a_new_turn_starts_its_run_time_at_zero() -> None:
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = InMemorySaver()
    clock = ManualClock()
    services.seam.on_call = lambda role, n: clock.advance(5)  # type: ignore[attr-defined]
    out = asyncio.run(run_turn(services, Q, thread_id="run-time-turns", checkpointer=saver))
    assert out["release_outcome"] == "SUCCESS"
    compiled = diagnosis_harness.session.hooked.session_graph(saver)
    config = {"configurable": {"thread_id": "run-time-turns"}}
    first = asyncio.run(compiled.aget_state(config)).values["elapsed_s"]
    services = services_for(demo_home(), {"router": [INC_ROUTER], "agent": [draft(None)]})
    asyncio.run(run_turn(services, Q, thread_id="run-time-turns", checkpointer=saver))
    second = asyncio.run(compiled.aget_state(config)).values["elapsed_s"]
    assert 0 <= second < 5 and first >= 0  # not the first turn's time plus the second's


# --- tool calls are idempotent per tool-call id -----------------------------------------------


def test_a_re_executed_tool_gate_reuses_the_calls_the_store_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process died after the tool ran and its record was stored, before the node's
    checkpoint: the node runs again from the same state and must not call the backend again."""
    executed: list[str] = []
    real = diagnosis_harness.nodes.tool_gate.execute_tool

    def counting(name: str, args: dict[str, Any], **kw: Any) -> Any:
        executed.append(kw["tool_call_id"])
        return real(name, args, **kw)

    monkeypatch.setattr(diagnosis_harness.nodes.tool_gate, "execute_tool", counting)
    services = services_for(demo_home(), {})
    reply = AIMessage("", tool_calls=[
        {"name": "query_logs", "args": EV[0]["args"], "id": "c1", "type": "tool_call"},
        {"name": "query_mysql", "args": {**EV[1]["args"], "previous_observation": {
            "tool_call_id": "c1", "gain": "GAINED"}}, "id": "c2", "type": "tool_call"}])
    state = {"messages": [reply], "records": [], "usage": {"model_calls": 2, "bytes": 100}}

    def run_node() -> dict[str, Any]:
        ctx = new_context(services, thread_id="idem", run_id="idempotent-gate")
        services.store.start_run(ctx.run_id, "idem", "q", "replay:inline")
        return asyncio.run(diagnosis_harness.nodes.tool_gate.tool_gate(state, SimpleNamespace(context=ctx)))

    first = run_node()
    again = run_node()  # a new process's run context: only the run store remembers
    assert executed == ["c1", "c2"]
    assert again["records"] == first["records"]
    assert [m.content for m in again["messages"]] == [m.content for m in first["messages"]]
    assert again["usage"] == first["usage"]  # charged as the boundary charged it the first time
    assert first["usage"]["tool_calls"] == 2 and first["usage"]["bytes"] > 100
    stored = services.store.trace("idempotent-gate")["tool_records"]
    assert [r["tool_call_id"] for r in stored] == ["c1", "c2"]  # stored once each


# --- resume_run --------------------------------------------------------------------------------


def _interrupted(services: Any, saver: Any, thread: str, after: str) -> str:
    """Run until ``after`` (checkpointed), then stop as a killed worker would: no row end."""
    compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver, interrupt_after=[after])
    ctx = new_context(services, thread_id=thread)
    services.store.start_run(ctx.run_id, thread, Q, services.seam.label)
    assert services.store.claim_run(ctx.run_id, "elsewhere:1:1", 0.01)  # a lease that expired

    async def killed_worker() -> None:  # the graph alone: no run session gives the lease up
        config: Any = {"configurable": {"thread_id": thread}}
        async for _ in compiled.astream({"question": Q}, config, context=ctx):
            pass

    asyncio.run(killed_worker())
    return ctx.run_id


def test_resume_run_continues_from_the_checkpoint_with_one_event_stream() -> None:
    reference_services = services_for(demo_home(), THREE_CALL_RUN)
    reference = asyncio.run(run_turn(reference_services, Q, checkpointer=InMemorySaver()))
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = InMemorySaver()
    run_id = _interrupted(services, saver, "resume-run", "tool_gate")
    before = services.store.events(run_id)
    time.sleep(0.02)
    out = asyncio.run(resume_run(services, run_id, checkpointer=saver))
    assert (out["run_id"], out["release_outcome"]) == (run_id, "SUCCESS")
    assert out["content"] == reference["content"] and out["usage"] == reference["usage"]
    assert out["events"][:len(before)] == before  # numbering goes on from what was recorded
    assert kinds(out) == ["metadata", "status*", "content", "done"]
    assert services.store.events(run_id) == out["events"]
    trace = services.store.trace(run_id)
    assert [r["tool_call_id"] for r in trace["tool_records"]] == ["c1", "c2", "c3"]
    assert services.store.get_run(run_id)["release_outcome"] == "SUCCESS"
    assert services.store.unfinished_runs(run_id=run_id) == []


def test_resume_run_refuses_unknown_finished_and_live_runs() -> None:
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = InMemorySaver()
    with pytest.raises(ResumeRefused, match="no run nope"):
        asyncio.run(resume_run(services, "nope", checkpointer=saver))
    done = asyncio.run(run_turn(services, Q, checkpointer=saver))
    with pytest.raises(ResumeRefused, match="already finished: SUCCESS"):
        asyncio.run(resume_run(services, done["run_id"], checkpointer=saver))
    services.store.start_run("live", "t-live", Q, "replay:inline")
    assert services.store.claim_run("live", "otherhost:42:7", 60)
    with pytest.raises(ResumeRefused, match="running in worker otherhost:42:7"):
        asyncio.run(resume_run(services, "live", checkpointer=saver))
    assert services.store.get_run("live")["finished_at"] is None  # left alone


def test_a_run_with_nothing_to_continue_from_is_settled_abandoned() -> None:
    services = services_for(demo_home(), {})
    services.store.start_run("orphan", "t-orphan", Q, "replay:inline")
    services.store.record_event("orphan", 1, {"event": "metadata", "run_id": "orphan",
                                              "thread_id": "t-orphan", "model": "replay:inline"})
    assert services.store.claim_run("orphan", "elsewhere:1:1", 0.01)
    time.sleep(0.02)
    out = asyncio.run(resume_run(services, "orphan", checkpointer=InMemorySaver()))
    assert (out["run_state"], out["release_outcome"], out["failure_code"]) == (
        "FAILED", "FAILED", "RUN_ABANDONED")
    assert kinds(out) == ["metadata", "failure", "done"]
    row = services.store.get_run("orphan")
    assert (row["status"], row["failure_code"]) == ("FAILED", "RUN_ABANDONED")
    assert services.store.events("orphan") == out["events"]


def test_a_stale_run_is_continued_by_the_next_turn_on_its_thread() -> None:
    services = services_for(demo_home(), {**THREE_CALL_RUN, "router": [INC_ROUTER, INC_ROUTER],
                                          "agent": [*THREE_CALL_RUN["agent"], draft(None)]})
    saver = InMemorySaver()
    stale = _interrupted(services, saver, "stale-thread", "model")
    time.sleep(0.02)
    out = asyncio.run(run_turn(services, "and after 10:10?", thread_id="stale-thread",
                               checkpointer=saver))
    rows = services.store.runs_for_thread("stale-thread")
    assert [r["run_id"] for r in rows] == [stale, out["run_id"]]
    assert rows[0]["release_outcome"] == "SUCCESS"  # continued, not thrown away
    assert [r["tool_call_id"] for r in services.store.trace(stale)["tool_records"]] == [
        "c1", "c2", "c3"]
    # The next turn sees the continued run's verified diagnosis.
    assert ROOT_CAUSE in task_message(seen(services)[-1])


def test_a_served_turn_settles_the_stale_runs_of_its_thread() -> None:
    """A worker that cannot continue a stale run itself (a served graph) settles it."""
    services = services_for(demo_home(), {"router": [INC_ROUTER], "agent": [draft(None)]})
    services.store.start_run("stale-served", "t-served", Q, "replay:inline")
    assert services.store.claim_run("stale-served", "elsewhere:1:1", 0.01)
    time.sleep(0.02)
    compiled = diagnosis_harness.session.hooked.session_graph(InMemorySaver())
    asyncio.run(_stream(compiled, {"question": Q}, "t-served",
                        new_context(services, thread_id="t-served")))
    row = services.store.get_run("stale-served")
    assert (row["release_outcome"], row["failure_code"]) == ("FAILED", "RUN_ABANDONED")


# --- after release nothing changes what is reported ------------------------------------------


class FlakySaver(InMemorySaver):
    """Refuses to store release's result (its writes or a checkpoint holding it) ``failures`` times."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    def _refuse(self) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise sqlite3.OperationalError("database is locked")

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if checkpoint["channel_values"].get("release_outcome"):
            self._refuse()
        return await super().aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if any(channel == "release_outcome" and value for channel, value in writes):
            self._refuse()  # release's result, not route's reset of it (None)
        await super().aput_writes(config, writes, task_id, task_path)


@pytest.mark.parametrize("failures", [1, 1000])
def test_a_final_checkpoint_that_fails_never_turns_a_published_success_into_failed(
        failures: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnosis_harness.session.end, "FINAL_CHECKPOINT_MAX_S", 0.5)  # retried this long
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = FlakySaver(failures)
    out = asyncio.run(run_turn(services, Q, thread_id=f"flaky-{failures}", checkpointer=saver))
    assert (out["release_outcome"], out["run_state"]) == ("SUCCESS", "SUCCESS")
    assert out["content"] and kinds(out) == ["metadata", "status*", "content", "done"]
    assert "error" not in out
    assert services.store.get_run(out["run_id"])["release_outcome"] == "SUCCESS"
    state = asyncio.run(diagnosis_harness.session.hooked.session_graph(saver).aget_state(
        {"configurable": {"thread_id": f"flaky-{failures}"}})).values
    if failures == 1:  # written again: the next turn gets its previous_turn
        assert "checkpoint_error" not in out
        assert (state["run_id"], state["release_outcome"]) == (out["run_id"], "SUCCESS")
        assert ROOT_CAUSE in state["last_success"]
    else:
        assert out["checkpoint_error"].startswith("the thread's final checkpoint could not be")
        assert "database is locked" in out["checkpoint_error"]


def test_after_a_crash_the_output_reports_the_usage_the_row_recorded() -> None:
    async def crashes(state: Any, runtime: Any) -> Any:
        raise RuntimeError("unexpected bug in a node")

    services = services_for(demo_home(), THREE_CALL_RUN)
    out = asyncio.run(run_turn(services, Q, checkpointer=InMemorySaver(),
                               nodes={"saturation_check": crashes}))
    row = services.store.get_run(out["run_id"])
    assert (out["release_outcome"], out["failure_code"]) == ("FAILED", "INTERNAL_FAILURE")
    assert out["usage"] == row["usage"] and out["usage"]["model_calls"] == 2
    assert out["usage"]["tool_calls"] == 1


# --- leases ------------------------------------------------------------------------------------


def test_a_heartbeat_keeps_the_lease_and_gives_it_up_when_the_run_pauses(tmp_path: Any) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    beat = Heartbeat(store, "r1", lease_s=0.3, owner="me:1:1").start()
    time.sleep(0.15)
    assert not beat.held  # no row yet: nothing to own
    store.start_run("r1", "t1", "q", "offline")
    time.sleep(0.5)
    lease = store.unfinished_runs(run_id="r1")[0]
    assert beat.held and lease["lease_owner"] == "me:1:1" and not is_stale(lease)
    time.sleep(0.4)  # longer than the lease: renewed meanwhile
    assert not is_stale(store.unfinished_runs(run_id="r1")[0])
    assert not store.claim_run("r1", "other:2:2", 10)  # a live owner's run is not taken
    beat.stop()
    assert store.unfinished_runs(run_id="r1")[0]["lease_owner"] is None  # paused: nobody's
    store.close()


def test_an_owner_is_dead_when_its_process_is_gone_even_before_its_lease_expires() -> None:
    me = worker_id()
    host, pid, token = me.split(":")
    assert host == socket.gethostname() and int(pid) > 0
    assert not owner_dead(me)
    assert owner_dead(f"{host}:{pid}:{token}9")  # the same pid, started at another time
    assert owner_dead(f"{host}:999999999:1")
    assert not owner_dead("otherhost:1:1")  # another host: only its lease can tell
    assert is_stale({"lease_owner": f"{host}:999999999:1", "lease_expires_ms": 2**62})
    assert not is_stale({"lease_owner": None, "lease_expires_ms": 0})  # paused, not stale


def test_migration_2_adds_leases_and_observations_to_a_version_1_store(tmp_path: Any) -> None:
    path = tmp_path / "runs.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    from diagnosis_harness.runstore.schema import (
        SCHEMA_VERSION,
        _v1_initial,
        runs,
        schema_version,
        tool_records,
    )

    with engine.begin() as conn:  # a store as migration 1 left it, before leases existed
        _v1_initial(conn)
        schema_version.create(conn)
        conn.execute(text("INSERT INTO schema_version VALUES (1, 'then')"))
        for table, column in ((runs, "lease_owner"), (runs, "lease_expires_ms"),
                              (tool_records, "observation")):
            conn.execute(text(f"ALTER TABLE {table.name} DROP COLUMN {column}"))
        conn.execute(text("INSERT INTO runs (run_id, thread_id, thread_seq, question, model_spec, "
                          "started_at) VALUES ('old', 't', 1, 'q', 'offline', 'then')"))
    store = open_run_store(path)
    assert store.claim_run("old", "me:1:1", 30)
    assert store.unfinished_runs("t")[0]["lease_owner"] == "me:1:1"
    columns = {c["name"] for c in inspect(engine).get_columns("tool_records")}
    assert "observation" in columns
    with engine.connect() as conn:
        assert [v for (v,) in conn.execute(text("SELECT version FROM schema_version"))] == list(
            range(1, SCHEMA_VERSION + 1))
    store.close()
    engine.dispose()


def test_a_run_killed_in_its_first_node_is_continued_from_its_input() -> None:
    """Only the input was checkpointed (the worker died while routing): resume starts there."""
    services = services_for(demo_home(), THREE_CALL_RUN)
    saver = InMemorySaver()
    compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                                 interrupt_before=["route"])
    ctx = new_context(services, thread_id="killed-routing")
    services.store.start_run(ctx.run_id, "killed-routing", Q, services.seam.label)
    assert services.store.claim_run(ctx.run_id, "elsewhere:1:1", 0.01)
    asyncio.run(_stream(compiled, {"question": Q}, "killed-routing", ctx))
    time.sleep(0.02)
    out = asyncio.run(resume_run(services, ctx.run_id, checkpointer=saver))
    assert (out["run_id"], out["release_outcome"]) == (ctx.run_id, "SUCCESS")
    assert kinds(out) == ["metadata", "status*", "content", "done"]
    assert len(services.store.runs_for_thread("killed-routing")) == 1
