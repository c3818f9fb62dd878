"""The peer: LangChain 1.x ``create_agent`` with the model-call and tool-call limit middlewares.

It runs on the same tool functions, descriptions and argument models as the harness, opened
with the same system prompt and task message the harness's agent got.

Its model is a minimal scripted chat model that supports ``bind_tools`` (LangChain's
``GenericFakeChatModel`` does not) and estimates usage exactly as the harness side does.
The middlewares run with their default exit behaviours: the model-call limit ends the run
with an AI message, the tool-call limit blocks further calls with an error observation.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ModelCallLimitMiddleware, ToolCallLimitMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from pydantic import ConfigDict

from benchmarks.workload import FINAL_ANSWER, STEPS, RunResult, estimate_usage, sqlite_bytes, stubborn_step


class Turns:
    """The scripted model's answers, one per call, and what the calls cost."""

    def __init__(self, make: Callable[[int], AIMessage]) -> None:
        self.make = make
        self.calls = 0
        self.tokens = 0
        self.schema_chars = 0
        """Characters of the tool schemas sent with the first call."""

    def answer(self, messages: list[BaseMessage], tools: list[Any] | None) -> AIMessage:
        """The next answer, with its estimated usage."""
        if not self.calls:
            self.schema_chars = len(json.dumps(tools or []))
        reply = self.make(self.calls)
        self.calls += 1
        usage = estimate_usage(messages, tools, reply)
        reply.usage_metadata = usage  # type: ignore[assignment]
        self.tokens += usage["total_tokens"]
        return reply


def _tool_call(k: int, name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": dict(args), "id": f"c{k + 1}",
                                              "type": "tool_call"}])


def steps_turns(n: int) -> Turns:
    """N evidence calls, then the final answer; a further call is a broken benchmark."""
    def make(k: int) -> AIMessage:
        if k < n:
            return _tool_call(k, *STEPS[k])
        if k == n:
            return AIMessage(content=FINAL_ANSWER)
        raise RuntimeError(f"the peer's model was called {k + 1} times for {n} steps")
    return Turns(make)


def stubborn_turns(kind: str) -> Turns:
    """A model that calls a tool on every turn, forever."""
    return Turns(lambda k: _tool_call(k, *stubborn_step(kind, k)))


class ScriptedToolModel(BaseChatModel):
    """A chat model that answers from :class:`Turns` and accepts bound tools."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    turns: Turns

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None,  # noqa: D102
                   **kwargs: Any) -> Any:
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        reply = self.turns.answer(messages, kwargs.get("tools"))
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)


def _structured(tool: Any) -> StructuredTool:
    def run(**args: Any) -> str:
        return json.dumps(tool.run(args), ensure_ascii=False, separators=(",", ":"))
    return StructuredTool.from_function(func=run, name=tool.name, description=tool.description,
                                        args_schema=tool.args_model)


class PeerSide:
    """Runs the peer agent; one instance per benchmark process."""

    name = "peer"

    def __init__(self, evidence_tools: Sequence[Any], system_prompt: str, task: str,
                 workdir: Path) -> None:
        self.tools = [_structured(t) for t in evidence_tools]
        self.system_prompt = system_prompt
        self.task = task
        self.workdir = workdir

    async def run_steps(self, n: int, mode: str) -> RunResult:
        """One investigation of N evidence steps, limits raised so that none of them binds."""
        return await self._run(steps_turns(n), mode, n, model_calls=n + 8, tool_calls=n + 2)

    async def run_stubborn(self, kind: str, *, model_calls: int, tool_calls: int,
                           mode: str = "memory") -> RunResult:
        """The stubborn model at the given limits."""
        return await self._run(stubborn_turns(kind), mode, 0, model_calls=model_calls,
                               tool_calls=tool_calls)

    async def _run(self, turns: Turns, mode: str, n: int, *, model_calls: int,
                   tool_calls: int) -> RunResult:
        path = self.workdir / f"peer-{uuid.uuid4().hex}.sqlite"
        try:
            began = time.perf_counter()
            if mode == "sqlite":  # the same durability the harness's CLI sets: WAL, NORMAL
                async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
                    await saver.conn.execute("PRAGMA journal_mode=WAL")
                    await saver.conn.execute("PRAGMA synchronous=NORMAL")
                    state = await self._invoke(turns, saver, model_calls, tool_calls)
            else:
                memory = InMemorySaver() if mode == "memory" else None
                state = await self._invoke(turns, memory, model_calls, tool_calls)
            ms = (time.perf_counter() - began) * 1000
            size = sqlite_bytes(str(path)) if mode == "sqlite" else None
        finally:
            for p in path.parent.glob(path.name + "*"):
                p.unlink()
        return self._result(state, turns, mode, n, ms, size)

    async def _invoke(self, turns: Turns, saver: Any, model_calls: int,
                      tool_calls: int) -> dict[str, Any]:
        middleware: list[Any] = [ModelCallLimitMiddleware(run_limit=model_calls),
                                 ToolCallLimitMiddleware(run_limit=tool_calls)]
        agent: Any = create_agent(ScriptedToolModel(turns=turns), self.tools,
                                  system_prompt=self.system_prompt, middleware=middleware,
                                  checkpointer=saver)
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        return await agent.ainvoke({"messages": [HumanMessage(self.task)]}, config)  # type: ignore[no-any-return]

    def _result(self, state: dict[str, Any], turns: Turns, mode: str, n: int, ms: float,
                size: int | None) -> RunResult:
        messages = state["messages"]
        found = 0
        for m in messages:
            if isinstance(m, ToolMessage) and m.status != "error":
                try:
                    found += bool(json.loads(str(m.content)).get("items"))
                except (json.JSONDecodeError, AttributeError):
                    pass
        last = messages[-1]
        final = isinstance(last, AIMessage) and last.content == FINAL_ANSWER
        outcome = "final answer" if final else f"ended: {str(last.content)[:120]!r}"
        return RunResult(side=self.name, mode=mode, n=n, ms=ms, steps=found,
                         model_calls=turns.calls, tokens=turns.tokens, outcome=outcome,
                         checkpoint_bytes=size,
                         detail={"released": final,
                                 "tool_calls": sum(isinstance(m, ToolMessage) and m.status != "error"
                                                   for m in messages),
                                 "blocked_tool_calls": sum(isinstance(m, ToolMessage)
                                                           and m.status == "error" for m in messages),
                                 "content": str(last.content)[:300],
                                 "schema_chars": turns.schema_chars})
