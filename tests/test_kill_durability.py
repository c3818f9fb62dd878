"""A ``kill -9`` of a real ``harness diagnose`` process between two steps loses nothing committed.

The process investigates with a model served by a real local HTTP stub; when the agent asks for
its third step the stub holds the request and the test kills the process (SIGKILL: no atexit, no
flush of queued rows). Then, on the same home: the run store and the checkpoints open without
error, the killed run is recorded as started and unfinished, every tool record the thread's last
checkpoint names is in the run store with its facts (the checkpoint never points at a record the
kill could lose), and the next ``harness diagnose`` — the same thread and a new one — releases.
That a checkpoint never names a lost record is also checked alone, on a slow run store: the
tool gate returns only once its record is readable from another connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from graphkit import EV, INC, demo_home, services_for
from langchain_core.messages import AIMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from stub_openai import StubOpenAI

import diagnosis_harness.runstore.writer
from diagnosis_harness.nodes.tool_gate import tool_gate
from diagnosis_harness.run.records import run_records
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.hooked import session_graph as build_graph
from diagnosis_harness.session.runner import CHECKPOINT_FILE, new_context
from diagnosis_harness.session.services import RUN_STORE_FILE

ROOT = Path(__file__).resolve().parents[1]
THREAD = "killed-thread"
ROUTER = {"intent": "DIAGNOSIS", "service": "payment-service", "merchant": "M1001",
          "start": INC["start"], "end": INC["end"]}
STEPS = [("query_logs", EV[0]["args"]), ("query_mysql", EV[1]["args"])]


class HeldAgent:
    """The stub's responder: router and evidence steps, then it holds the agent's next request."""

    def __init__(self) -> None:
        self.agent_calls = 0
        self.held = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):  # the router (JSON answers, no tools)
            return {"content": json.dumps(ROUTER)}
        with self._lock:
            k = self.agent_calls
            self.agent_calls += 1
        if k >= len(STEPS):
            self.held.set()
            self.release.wait(60)  # until the test has killed the process
            return {"content": "{}"}
        name, args = STEPS[k]
        args = dict(args)
        if k:
            args["previous_observation"] = {"tool_call_id": f"c{k}", "gain": "GAINED", "note": "n"}
        return {"content": "", "tool_calls": [{"id": f"c{k + 1}", "name": name, "args": args}]}


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), **extra)
    return env


def _diagnose(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", "diagnose", INC["question"], "--json",
                           *args],
                          cwd=home.parent, env=_env(home, **env), capture_output=True, text=True,
                          timeout=240, check=False)


async def _last_state(home: Path) -> dict[str, Any]:
    async with AsyncSqliteSaver.from_conn_string(str(home / CHECKPOINT_FILE)) as saver:
        snapshot = await build_graph(saver).aget_state({"configurable": {"thread_id": THREAD}})
        return dict(snapshot.values)


@pytest.mark.slow
def test_a_killed_diagnose_leaves_a_home_the_next_run_opens_and_uses(tmp_path: Path) -> None:
    home = tmp_path / "home"
    held = HeldAgent()
    with StubOpenAI(responder=held) as stub:
        proc = subprocess.Popen(
            [sys.executable, "-m", "diagnosis_harness", "diagnose", INC["question"], "--json",
             "--thread", THREAD],
            cwd=tmp_path, env=_env(home, HARNESS_MODEL="openai:stub", OPENAI_API_KEY="stub",
                                   OPENAI_BASE_URL=stub.base_url),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert held.held.wait(180), "the agent never asked for its third step"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
        finally:
            held.release.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)
    assert proc.returncode == -signal.SIGKILL

    # The home opens: the run store and the checkpoints, as the next process would open them.
    state = asyncio.run(_last_state(home))
    store = RunStore(home / RUN_STORE_FILE)
    try:
        row = store.get_run(state["run_id"])
        assert row is not None and row["thread_id"] == THREAD
        assert row["finished_at"] is None  # started, never finished: the kill is visible
        records = run_records(store, state["run_id"], state["records"])
    finally:
        store.close()
    assert [r.tool_call_id for r in records] == ["c1", "c2"]
    assert all(r.facts for r in records)  # the facts are readable, not only the index

    # The next runs on the same home release: a new turn of the killed thread, and a new thread.
    for args in (["--thread", THREAD], []):
        out = _diagnose(home, *args, HARNESS_MODEL="offline")
        assert out.returncode == 0, out.stderr[-2000:]
        result = json.loads(out.stdout)
        assert result["release_outcome"] in ("SUCCESS", "FALLBACK"), result


def test_the_tool_gate_returns_only_once_its_record_is_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    services = services_for(demo_home(), {})
    ctx = new_context(services, thread_id="slow-store")
    slow_write = diagnosis_harness.runstore.writer.BatchWriter._write

    def slowly(self: Any, batch: Any) -> None:
        threading.Event().wait(0.3)  # a slow disk: the writer lags behind the graph
        slow_write(self, batch)

    monkeypatch.setattr(diagnosis_harness.runstore.writer.BatchWriter, "_write", slowly)
    reply = AIMessage("", tool_calls=[{"name": "query_logs", "args": EV[0]["args"], "id": "c1",
                                       "type": "tool_call"}])
    runtime = type("Runtime", (), {"context": ctx})()
    update = asyncio.run(tool_gate({"messages": [reply]}, runtime))
    # What the checkpoint of this step will hold is already in the store, for any reader.
    other = RunStore(services.store.path)
    try:
        records = run_records(other, ctx.run_id, update["records"])
    finally:
        other.close()
    assert [r.tool_call_id for r in records] == ["c1"] and records[0].facts
