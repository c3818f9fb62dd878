"""Builders for replay scripts and a one-call driver of the whole graph on the demo data.

Where a run keeps its rows and checkpoints is the test's :class:`Backend` (the ``backend``
fixture of ``conftest.py`` sets :data:`BACKEND`): SQLite files under the home, or one PostgreSQL
database, each with the real checkpointer
:func:`diagnosis_harness.session.checkpointer.open_checkpointer` opens for the CLI. Without one,
a run keeps the SQLite run store under the home and an in-memory checkpointer.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any
from unittest import mock

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from stub_openai import StubOpenAI

import diagnosis_harness.graph.builder
from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.control.settings import Settings, load_settings
from diagnosis_harness.providers.replay import ROLES, ReplayChatModel, ReplayScript
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.session import runner
from diagnosis_harness.session.hooked import session_graph as build_graph
from diagnosis_harness.session.run_session import RunSession
from diagnosis_harness.session.runner import new_context, open_checkpointer, run_turn
from diagnosis_harness.session.services import Services

USAGE = {"input_tokens": 100, "output_tokens": 20}

TRUTH = json.loads((Path(__file__).resolve().parents[1] / "tools" / "demo_data" / "truth.json")
                   .read_text(encoding="utf-8"))
INC = TRUTH["incidents"][0]
"""INC-1 of the demo dataset: pool exhaustion on payment-service for M1001."""
EV = INC["evidence"]
"""Tool args that return evidence for INC-1: logs (config reloaded), config_changes, pool_metrics."""
EMPTY_LOGS = {"service": "payment-service", "start": "2020-01-01T00:00:00Z",
              "end": "2020-01-01T00:10:00Z"}
"""A scope with no log events at all: READY + NO_EVIDENCE."""
EMPTY_SQL = {"sql": "SELECT deploy_id FROM deploys WHERE 1 = 0"}
EMPTY_KB = {"query": "zzzqqq"}
EVIDENCE_ID = re.compile(r"\bE\d+\.\d+\b")


def router(intent: str = "DIAGNOSIS", service: str | None = "payment-service",
           merchant: str | None = None, start: str | None = None,
           end: str | None = None) -> dict[str, Any]:
    body = {"intent": intent, "service": service, "merchant": merchant, "start": start, "end": end}
    return {"content": json.dumps(body), "usage": USAGE}


def call(name: str, args: dict[str, Any], call_id: str, prev: str | None = None,
         gain: str = "GAINED") -> dict[str, Any]:
    a = dict(args)
    if prev is not None:
        a["previous_observation"] = {"tool_call_id": prev, "gain": gain, "note": "t"}
    return {"content": "", "tool_calls": [{"name": name, "args": a, "id": call_id}],
            "usage": USAGE}


def draft(root_cause: str | None, claims: list[tuple[str, list[str]]] | None = None,
          next_steps: list[str] | None = None, fence: bool = False) -> dict[str, Any]:
    conclusion = None if root_cause is None else {
        "root_cause": root_cause,
        "claims": [{"statement": s, "evidence_ids": ids} for s, ids in (claims or [])]}
    text = json.dumps({"conclusion": conclusion, "next_steps": next_steps or ["check again"]})
    return {"content": f"```json\n{text}\n```" if fence else text, "usage": USAGE}


def text(content: str) -> dict[str, Any]:
    return {"content": content, "usage": USAGE}


def judge(verdict: str = "SUPPORTED") -> dict[str, Any]:
    return {"content": json.dumps({"verdict": verdict, "reasons": ["r"]}), "usage": USAGE}


def judge_claims(claims: list[str], root: str = "SUPPORTED", verdict: str | None = None,
                 indexes: list[int] | None = None) -> dict[str, Any]:
    """A per-claim judge answer: ``claims[i]`` is the verdict of claim index i (docs/design.md §10).

    ``verdict`` defaults to the root cause's; ``indexes`` overrides the claim indexes given.
    """
    body = {"verdict": verdict or root,
            "claims": [{"index": n, "verdict": v, "reason": f"claim {n + 1} {v.lower()}"}
                       for n, v in zip(indexes or range(len(claims)), claims, strict=True)],
            "root_cause": {"verdict": root, "reason": f"root cause {root.lower()}"},
            "reasons": ["r"]}
    return {"content": json.dumps(body), "usage": USAGE}


class _RecordingReplay(ReplayChatModel):
    """A replay model that also keeps every message list it was called with."""

    sink: Any
    """The list the calls of this role are appended to."""
    seam: Any
    """The RecordingSeam, whose ``on_call`` hook runs before each answer."""

    def _see(self, messages: list[BaseMessage]) -> None:
        self.sink.append(list(messages))
        if self.seam.on_call is not None:
            self.seam.on_call(self.role, len(self.sink))

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self._see(messages)
        return await super()._agenerate(messages, *args, **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self._see(messages)
        return super()._generate(messages, *args, **kwargs)


class RecordingSeam(ModelSeam):
    """The replay seam, recording what each role saw: ``seen[role][i]`` is the i-th call's input."""

    def __init__(self, settings: Settings, script: ReplayScript) -> None:
        super().__init__(settings, replay_script=script)
        self.seen: dict[str, list[list[BaseMessage]]] = {role: [] for role in ROLES}
        self.on_call: Callable[[str, int], None] | None = None
        """Called as ``on_call(role, n)`` when the n-th call of ``role`` starts (tests hook in)."""

    def chat_model(self, role: Role) -> Any:
        assert self.replay_script is not None
        return _RecordingReplay(script=self.replay_script, role=role.value,
                                sink=self.seen[role.value], seam=self)


@cache
def demo_home() -> Path:
    """One settings home per test process, so the demo dataset is indexed once for all tests."""
    shm = Path("/dev/shm")  # SQLite commits (run store, trace) cost a disk flush elsewhere
    home = Path(tempfile.mkdtemp(prefix="harness-graph-tests-",
                                 dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else None))
    atexit.register(shutil.rmtree, home, True)
    return home


@dataclass(frozen=True)
class Backend:
    """Where the graph tests keep run rows and checkpoints."""

    name: str
    """``sqlite`` (files under the home) or ``postgres``."""
    database_url: str | None = None
    """HARNESS_DATABASE_URL of the run (None: SQLite under the home)."""


BACKEND: Backend | None = None
"""The current test's backend (set by the ``backend`` fixture); None: SQLite store, in-memory
checkpointer."""

_STORES: dict[str, RunStore] = {}


def _store(settings: Settings) -> RunStore:
    url = settings.database_url.get_secret_value() if settings.database_url else None
    if url is None:
        return RunStore(Path(settings.home) / "runs.sqlite")
    if url not in _STORES:  # one engine per database for the whole session, as a process has
        _STORES[url] = open_run_store(url)
    return _STORES[url]


def services_for(home: Path, script: dict[str, list[Any]], **overrides: Any) -> Services:
    if BACKEND is not None and BACKEND.database_url is not None:
        overrides.setdefault("database_url", BACKEND.database_url)
    settings = load_settings(model="replay:inline", home=home, **overrides)
    seam = RecordingSeam(settings, ReplayScript(script))
    return Services.from_settings(settings, seam=seam, store=_store(settings))


@asynccontextmanager
async def checkpointer_for(services: Services) -> AsyncIterator[Any]:
    """The backend's checkpointer for these services' settings (the CLI's), or a new in-memory one."""
    if BACKEND is None:
        yield InMemorySaver()
        return
    async with open_checkpointer(services.settings) as saver:
        yield saver


def thread_saver() -> Any:
    """What a test that runs several turns on one thread passes as ``checkpointer``: the
    backend's, opened per turn (None), or one in-memory saver for all the turns."""
    return None if BACKEND is not None else InMemorySaver()


def thread_values(services: Services, thread_id: str, checkpointer: Any = None) -> dict[str, Any]:
    """The thread's latest state, as the graph reads it from the checkpointer."""
    config: Any = {"configurable": {"thread_id": thread_id}}

    async def read() -> dict[str, Any]:
        if checkpointer is not None:
            return (await build_graph(checkpointer).aget_state(config)).values
        async with checkpointer_for(services) as saver:
            return (await build_graph(saver).aget_state(config)).values

    return asyncio.run(read())


async def stream_values(compiled: Any, payload: Any, config: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """Stream one segment of a run through a RunSession, as the runner does; its last state."""
    final: dict[str, Any] = {}
    async for chunk in RunSession(compiled).stream(payload, config, context=ctx, stream_mode="values"):
        final = chunk
    return final


def edited_run(services: Services, thread: str, *, before: str, as_node: str,
               edit: Callable[[Any, dict[str, Any]], dict[str, Any] | None]) -> tuple[Any, dict[str, Any]]:
    """Run INC-1's question until just before node ``before``, apply ``edit(first_context,
    values)`` to the checkpoint as ``as_node`` (None: no update), and resume the run in a new
    context, as Studio's edit-and-continue does. Returns (the first context, the final state)."""
    config: Any = {"configurable": {"thread_id": thread}}
    first = new_context(services, thread_id=thread)

    async def scenario() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(
                checkpointer=saver, interrupt_before=[before])
            await stream_values(compiled, {"question": INC["question"]}, config, first)
            update = edit(first, (await compiled.aget_state(config)).values)
            if update:
                await compiled.aupdate_state(config, update, as_node=as_node)
            return await stream_values(compiled, None, config,
                                       new_context(services, thread_id=thread, run_id=first.run_id))

    return first, asyncio.run(scenario())


class ManualClock:
    """A monotonic clock that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def run(services: Services, question: Any, *, checkpointer: Any = None,
        thread_id: str | None = None, clock: ManualClock | None = None,
        **kw: Any) -> dict[str, Any]:
    """Run one turn through the real runner; ``clock`` becomes the run lifecycle's clock.

    ``checkpointer`` None: the backend's, opened for this turn as the CLI opens it.
    """
    async def with_backend() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            return await run_turn(services, question, thread_id=thread_id, checkpointer=saver, **kw)

    turn = with_backend() if checkpointer is None else run_turn(
        services, question, thread_id=thread_id, checkpointer=checkpointer, **kw)
    if clock is None:
        return asyncio.run(turn)
    with mock.patch.object(runner, "RunLifecycle", partial(RunLifecycle, clock=clock)):
        return asyncio.run(turn)


def kinds(out: dict[str, Any]) -> list[str]:
    """The event types in order, with consecutive status events folded into one 'status*'."""
    seq: list[str] = []
    for e in out["events"]:
        k = "status*" if e["event"] == "status" else e["event"]
        if not (seq and seq[-1] == k == "status*"):
            seq.append(k)
    return seq


def consumed(services: Services) -> dict[str, int]:
    """How many entries each role of the replay script used (only roles that used any)."""
    script = services.seam.replay_script
    assert script is not None
    return {role: script.consumed(role) for role in ROLES if script.consumed(role)}


def seen(services: Services, role: str = "agent") -> list[list[BaseMessage]]:
    """What each call of ``role`` was given, in call order."""
    assert isinstance(services.seam, RecordingSeam)
    return services.seam.seen[role]


def tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def task_message(messages: list[BaseMessage]) -> str:
    """The agent's opening human message (question and previous turn)."""
    human = [m for m in messages if isinstance(m, HumanMessage)]
    assert human, "the agent got no human message"
    return str(human[0].content)


def cited(content: str | None) -> set[str]:
    """Every evidence id (E<k>.<i>) a published text mentions."""
    return set(EVIDENCE_ID.findall(content or ""))


def without_proposal(content: str) -> str:
    """A fallback without its "Proposed diagnosis…, NOT VERIFIED" block (a blank-line paragraph):
    the agent's refused proposal, quoted and labelled, is the only place its prose may appear."""
    start = content.find("\n\nProposed diagnosis")
    if start < 0:
        return content
    end = content.find("\n\n", start + 2)
    return content[:start] + (content[end:] if end >= 0 else "")


def ready_facts(trace: dict[str, Any]) -> dict[str, str]:
    """evidence id → fact text, over the READY + EVIDENCE_FOUND records the store kept."""
    return {f["evidence_id"]: f["text"] for r in trace["tool_records"]
            if r["invocation_status"] == "READY" and r["evidence_status"] == "EVIDENCE_FOUND"
            for f in r["facts"]}


def phases(out: dict[str, Any]) -> list[str]:
    """The phases of the status events, in order."""
    return [e["phase"] for e in out["events"] if e["event"] == "status"]


STORED_STATUS = {"SUCCESS": "SUCCESS", "FALLBACK": "SUCCESS", "FAILED": "FAILED",
                 "CANCELLED": "CANCELLED"}
"""docs/design.md §3: the stored run status of each ReleaseOutcome."""


def assert_stored(services: Services, out: dict[str, Any]) -> dict[str, Any]:
    """The run row and the recorded events tell the same story as the output; returns the row."""
    row = services.store.get_run(out["run_id"])
    assert row is not None, "the run left no run row"
    assert row["status"] == STORED_STATUS[out["release_outcome"]]
    for key in ("run_state", "release_outcome", "fallback_type", "failure_code", "content"):
        assert row[key] == out[key], key
    assert services.store.events(out["run_id"]) == out["events"]
    return row


# --- INC-1 scripts shared by the graph tests -------------------------------------------------

INC_ROUTER = router(service=INC["service"], merchant=INC["merchant"], start=INC["start"],
                    end=INC["end"])
"""The router's answer for INC-1's question."""
ROOT_CAUSE = "payment-db pool exhausted after CHG-2041 lowered db.pool.max_size to 10"
CLAIMS = [("config reloaded with db.pool.max_size=10 (was 50)", ["E1.2"]),
          ("CHG-2041 changed db.pool.max_size from 50 to 10", ["E2.1"])]
"""Claims citing INC-1's evidence: E1.2 (config reload log line), E2.1 (the config change row)."""
COLLECT = [call("query_logs", EV[0]["args"], "c1"),
           call("query_mysql", EV[1]["args"], "c2", prev="c1")]
"""The agent's usual investigation: E1.1 (log summary), E1.2 (config reload), E2.1 (CHG-2041)."""
FULL_RUN = {"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)], "judge": [judge()]}
"""One full diagnosis: router, two tool calls, a draft, the judge (13 checkpoints when kept)."""
THREE_CALL_RUN = {"router": [INC_ROUTER],
                  "agent": [*COLLECT, call("query_mysql", EV[2]["args"], "c3", prev="c2"),
                            draft(ROOT_CAUSE, CLAIMS)],
                  "judge": [judge()]}
"""Router, three tool calls (c1, c2, c3), a draft and the judge: a SUCCESS."""
SATURATING = [COLLECT[0],
              call("query_logs", EMPTY_LOGS, "c2", prev="c1", gain="NO_GAIN"),
              call("query_mysql", EMPTY_SQL, "c3", prev="c2", gain="NO_GAIN"),
              call("lookup_knowledge", EMPTY_KB, "c4", prev="c3", gain="NO_GAIN")]
"""Agent turns that saturate: one finding, then three empty results the agent judges NO_GAIN;
the agent's next call (c5) is the controlled stop."""


def go(script: dict[str, list[Any]], question: Any = INC["question"], *,
       settings: dict[str, Any] | None = None, **kw: Any) -> tuple[Services, dict[str, Any]]:
    """Run one turn on the shared demo home with ``script`` and settings overrides."""
    services = services_for(demo_home(), script, **(settings or {}))
    return services, run(services, question, **kw)


def outcome(out: dict[str, Any]) -> tuple[Any, ...]:
    """(run_state, release_outcome, fallback_type, failure_code)."""
    return out["run_state"], out["release_outcome"], out["fallback_type"], out["failure_code"]


def tool_outcome(backends: Any, name: str, **args: Any) -> Any:
    """One evidence tool's call ``c1`` on ``backends`` with default settings and a fresh budget,
    as the tool boundary answers it (``.record`` and ``.observation``)."""
    from diagnosis_harness.control.budget import Budget, BudgetLimits
    from diagnosis_harness.tools.boundary import execute_tool

    s = Settings(_env_file=None)
    return execute_tool(name, args, tool_call_id="c1", backends=backends,
                        budget=Budget(BudgetLimits.from_settings(s)), settings=s, ready_count=0)


def tool_observation(backends: Any, name: str, **args: Any) -> dict[str, Any]:
    """One evidence tool's observation on ``backends``, as the tool boundary returns it."""
    return dict(tool_outcome(backends, name, **args).observation)


class DemoRoles:
    """A stub endpoint's responder for the demo incident over real HTTP (tests/stub_openai.py).

    The router's request routes INC-1 (``route``), the judge's accepts, and each agent request is
    kept in ``agent_requests`` and answered by :meth:`agent` with its 1-based number.
    """

    route = INC_ROUTER["content"]

    def __init__(self) -> None:
        self.agent_requests: list[dict[str, Any]] = []
        self.router_requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        first = str(body["messages"][0].get("content") or "")
        if first.startswith("You route questions"):
            self.router_requests.append(body)
            return {"content": self.route}
        if first.startswith("You are an independent reviewer"):
            return {"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["shown"]})}
        with self._lock:
            self.agent_requests.append(body)
            n = len(self.agent_requests)
        return self.agent(body, n)

    def agent(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        raise NotImplementedError


def investigate_over_http(tmp_path: Path, responder: DemoRoles, question: str = INC["question"],
                          **limits: Any) -> tuple[Services, dict[str, Any]]:
    """One turn on the demo data with ``responder`` as the model's endpoint; its services and output."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    with StubOpenAI(responder=responder) as stub:
        settings = load_settings(model="openai:stub", OPENAI_API_KEY="k",
                                 OPENAI_BASE_URL=stub.base_url, home=demo_home(), **limits)
        services = Services.from_settings(settings, store=RunStore(tmp_path / "runs.sqlite"))
        out = asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))
    return services, out
