"""The harness side: the ONE module of the benchmark that knows how the harness is driven.

It runs the graph in-process through the entry points the CLI uses
(``diagnosis_harness.session.runner.run_turn``, and
``diagnosis_harness.session.checkpointer.open_checkpointer``, the durable SQLite checkpointer the
CLI sets up), with the
harness's replay model (``replay:FILE``) answering from the scripted workload. When the
runner or the CLI's checkpointer set-up changes, this is the file to adapt; nothing else in
``benchmarks/`` imports the harness's packages.

Each run gets a fresh home (a fresh checkpoint file and run store on the regular file system,
as a user's ``.harness/`` would be); the demo dataset is indexed once per process.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver

from benchmarks.workload import (
    FINAL_ANSWER,
    QUESTION,
    STEPS,
    RunResult,
    estimate_usage,
    sqlite_bytes,
    stubborn_step,
)
from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers.replay import ReplayChatModel
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import Services, open_checkpointer, run_turn
from diagnosis_harness.tools.registry import TOOLS, tool_schemas

ROUTER_ANSWER = {"intent": "DIAGNOSIS", "service": "payment-service", "merchant": "M1001",
                 "start": "2026-11-02T10:00:00+00:00", "end": "2026-11-02T10:10:00+00:00"}
DEFAULT_LIMITS = {"model_calls": Settings.model_fields["max_model_calls"].default,
                  "tool_calls": Settings.model_fields["max_tool_calls"].default}
"""The harness's default run limits; the stubborn case runs both sides at these."""
_NO_USAGE = {"input_tokens": 0, "output_tokens": 0}  # replaced by the estimate at call time


class _EstimatingReplay(ReplayChatModel):
    """The replay model, with usage estimated from what it was sent (as the peer's model)."""

    seam: Any

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # noqa: D102
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> Any:
        if self.role == Role.AGENT.value and self.seam.first_agent_call is None:
            self.seam.first_agent_call = list(messages)
            self.seam.schema_chars = len(json.dumps(kwargs.get("tools") or []))
        result = await super()._agenerate(messages, stop, run_manager, **kwargs)
        reply = result.generations[0].message
        assert isinstance(reply, AIMessage)
        reply.usage_metadata = estimate_usage(messages, kwargs.get("tools"), reply)  # type: ignore[assignment]
        return result


class _EstimatingSeam(ModelSeam):
    """The ``replay:FILE`` seam, serving the estimating replay model to every role."""

    first_agent_call: list[BaseMessage] | None = None
    schema_chars = 0
    """Characters of the tool schemas sent with the agent's first call."""

    def chat_model(self, role: Role) -> Any:  # noqa: D102 — the seam builds and keeps it
        assert self.replay_script is not None
        return _EstimatingReplay(script=self.replay_script, role=role.value, seam=self)


def _call(k: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The agent's k-th (1-based) tool call, with the progress envelope the harness requires."""
    a = dict(args)
    if k > 1:
        a["previous_observation"] = {"tool_call_id": f"c{k - 1}", "gain": "GAINED",
                                     "note": "new evidence"}
    return {"content": "", "tool_calls": [{"name": name, "args": a, "id": f"c{k}"}],
            "usage": _NO_USAGE}


def _script(agent: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {"router": [{"content": json.dumps(ROUTER_ANSWER), "usage": _NO_USAGE}],
            "agent": agent,
            "judge": [{"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["cited"]}),
                       "usage": _NO_USAGE}],
            "repair": []}


def steps_script(n: int) -> dict[str, list[Any]]:
    """Router, N evidence calls, the final draft, the judge's SUPPORTED."""
    calls = [_call(k, *STEPS[k - 1]) for k in range(1, n + 1)]
    return _script([*calls, {"content": FINAL_ANSWER, "usage": _NO_USAGE}])


def stubborn_script(kind: str, turns: int = 64) -> dict[str, list[Any]]:
    """Router, then an agent that calls a tool on every turn (more turns than any limit)."""
    return _script([_call(k, *stubborn_step(kind, k - 1)) for k in range(1, turns + 1)])


@dataclasses.dataclass(frozen=True)
class EvidenceTool:
    """One evidence tool as the peer gets it: the same function, description and arguments."""

    name: str
    description: str
    args_model: Any
    run: Callable[[dict[str, Any]], dict[str, Any]]
    """Validated args → the tool's result: scope, items (kind + content) and any note."""


class HarnessSide:
    """Drives the harness graph in-process; one instance per benchmark process."""

    name = "harness"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        base = Settings(_env_file=None, home=workdir / "harness-home")  # type: ignore[call-arg]
        self.services = Services.from_settings(base)  # indexes the demo dataset once
        self.opening: tuple[str, str] | None = None
        """(system, task) texts the harness's agent was opened with; set by the first run."""

    def evidence_tools(self) -> list[EvidenceTool]:
        """The evidence tools over this process's demo backends, for the peer."""
        backends, settings = self.services.backends, self.services.settings
        described = {s["function"]["name"]: s["function"]["description"]
                     for s in tool_schemas(backends.ops_schema())}

        def runner(spec: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
            def run(args: dict[str, Any]) -> dict[str, Any]:
                params = spec.args_model.model_validate(args)
                result = spec.run(backends, settings, **params.model_dump())
                out = {"tool": spec.name, "scope": result.scope,
                       "items": [{"kind": i.kind, **i.data} for i in result.items]}
                return {**out, "note": result.note} if result.note else out
            return run

        return [EvidenceTool(name, described[name], spec.args_model, runner(spec))
                for name, spec in TOOLS.items()]

    async def run_steps(self, n: int, mode: str) -> RunResult:
        """One investigation of N evidence steps, limits raised so that none of them binds."""
        return await self._run(steps_script(n), mode, n, model_calls=n + 8, tool_calls=n + 2,
                               max_tokens=10**9, max_run_bytes=10**9)

    async def run_stubborn(self, kind: str, mode: str = "memory") -> RunResult:
        """The stubborn model at the harness's default limits."""
        return await self._run(stubborn_script(kind), mode, 0, **DEFAULT_LIMITS)

    async def _run(self, script: dict[str, Any], mode: str, n: int, *, model_calls: int,
                   tool_calls: int, **limits: Any) -> RunResult:
        home = Path(tempfile.mkdtemp(prefix="run-", dir=self.workdir))
        try:
            path = home / "script.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            settings = self.services.settings.model_copy(update={
                "home": home, "model": f"replay:{path}", "max_model_calls": model_calls,
                "max_tool_calls": tool_calls, **limits})
            seam = _EstimatingSeam(settings)
            services = dataclasses.replace(self.services, settings=settings, seam=seam,
                                           store=RunStore(home / "runs.sqlite"))
            began = time.perf_counter()
            written = None
            if mode == "sqlite":  # the CLI's own checkpointer set-up, on home/checkpoints.sqlite
                out, written, ms = await self._durable(services, settings, began)
            else:
                saver = InMemorySaver() if mode == "memory" else None
                out = await run_turn(services, QUESTION, checkpointer=saver)
                ms = (time.perf_counter() - began) * 1000
            if self.opening is None and seam.first_agent_call:
                system, task = seam.first_agent_call[:2]
                self.opening = (str(system.content), str(task.content))
            result = self._result(out, services, mode, n, ms, home, written)
            result.detail["schema_chars"] = seam.schema_chars
            if mode == "sqlite":  # what the run leaves in its home after a clean exit
                services.store.close()
                files = {str(f.relative_to(home)): f.stat().st_size
                         for f in home.rglob("*") if f.is_file() and f != path}
                result.detail["home_files"] = files
                result.detail["home_bytes"] = sum(files.values())
            return result
        finally:
            shutil.rmtree(home, ignore_errors=True)

    @staticmethod
    async def _durable(services: Services, settings: Settings,
                       began: float) -> tuple[dict[str, Any], int, float]:
        """One run on the CLI's durable checkpointer: its output, the bytes it wrote, its ms.

        The CLI's default retention prunes a finished run's thread to its latest checkpoint as
        the run ends; the peer keeps every checkpoint. So the run keeps them all (retention
        ``all``), every checkpoint it wrote is counted, and then the thread is pruned as the
        default would have: the time is the run's plus that prune's, never the counting's.
        """
        keep_all = settings.model_copy(update={"checkpoint_retention": "all"})
        async with open_checkpointer(keep_all) as durable:
            out = await run_turn(services, QUESTION, checkpointer=durable)
            ran = time.perf_counter()
            written = sqlite_bytes(str(Path(settings.home) / "checkpoints.sqlite"))
            pruning = time.perf_counter()
            await durable.aprune([out["thread_id"]], strategy="keep_latest")
            pruned = time.perf_counter()
        ms = ((ran - began) + (pruned - pruning)) * 1000
        return out, written, ms

    def _result(self, out: dict[str, Any], services: Services, mode: str, n: int, ms: float,
                home: Path, written: int | None = None) -> RunResult:
        records = services.store.trace(out["run_id"])["tool_records"]
        found = sum(r["invocation_status"] == "READY" and r["evidence_status"] == "EVIDENCE_FOUND"
                    for r in records)
        usage = out.get("usage") or {}
        ended = out.get("fallback_type") or out.get("failure_code")
        outcome = f"{out.get('release_outcome')}{'/' + ended if ended else ''}"
        if out.get("stop_reason"):
            outcome += f" ({out['stop_reason']})"
        checkpoints = home / "checkpoints.sqlite"
        return RunResult(
            side=self.name, mode=mode, n=n, ms=ms, steps=found,
            model_calls=int(usage.get("model_calls", 0)),
            tokens=int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0)),
            outcome=outcome,
            checkpoint_bytes=written,
            detail={"released": out.get("release_outcome") == "SUCCESS",
                    "kept_checkpoint_bytes": sqlite_bytes(str(checkpoints)) if mode == "sqlite" else None,
                    "tool_calls": int(usage.get("tool_calls", 0)),
                    "content": (out.get("content") or "")[:300]})

    def diagnose_process(self, runs: int) -> list[float]:
        """Wall ms of whole ``harness diagnose --json`` processes on the demo, after one warm-up.

        Offline model, its own fresh home (indexed by the warm-up run) and a working directory
        with no ``.env``; each process must exit 0 with a released outcome.
        """
        exe = Path(sys.executable).with_name("harness")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "diagnosis_harness"]
        cmd += ["diagnose", QUESTION, "--json"]
        cwd = Path(tempfile.mkdtemp(prefix="diagnose-", dir=self.workdir))
        env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
        env.update(HARNESS_HOME=str(cwd / "home"), HARNESS_MODEL="offline")
        times = []
        for i in range(runs + 1):
            began = time.perf_counter()
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
            elapsed = (time.perf_counter() - began) * 1000
            if proc.returncode != 0:
                raise RuntimeError(f"harness diagnose exited {proc.returncode}: "
                                   f"{proc.stderr[-500:]}")
            if json.loads(proc.stdout)["release_outcome"] not in ("SUCCESS", "FALLBACK"):
                raise RuntimeError(f"harness diagnose released nothing: {proc.stdout[:500]}")
            if i:  # the first run indexes the dataset and warms the page cache
                times.append(elapsed)
        shutil.rmtree(cwd, ignore_errors=True)
        return times
