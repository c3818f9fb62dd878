"""What the tests of the served graph share: a stub investigator, a clean server env, SDK streaming.

The stub investigator answers an OpenAI-compatible request by reading it: the router prompt, the
agent (native tools) or the judge. Every run investigates its own "incident #N", whose time
window — and therefore whose evidence text — is unique, so runs can be told apart even when
twenty of them share one server.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from langgraph_sdk import get_client

T = TypeVar("T")

SLOW_AGENT_DELAY_S = 6.0
"""How long the stub holds the agent's draft for a "slow" incident (the cancel tests)."""


def message_text(message: dict[str, Any]) -> str:
    """A chat message's text, whether its content is a string or a list of parts."""
    content = message.get("content") or ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def window(incident: int) -> tuple[str, str]:
    """The incident's own ten-minute window on the demo data's busiest day."""
    start = datetime(2026, 11, 2, 10, 0, tzinfo=UTC) + timedelta(minutes=incident % 50)
    return start.isoformat(), (start + timedelta(minutes=10)).isoformat()


def investigator(body: dict[str, Any]) -> dict[str, Any]:
    """Answer one chat-completion request the way a competent model would, deterministically."""
    messages = body.get("messages", [])
    texts = [message_text(m) for m in messages]
    found = re.search(r"incident #(\d+)", "\n".join(texts))
    if not found:
        return {"status": 400}
    incident = int(found.group(1))
    start, end = window(incident)
    if texts[0].startswith("You route questions"):
        return {"content": json.dumps({"intent": "DIAGNOSIS", "service": "payment-service",
                                       "merchant": None, "start": start, "end": end})}
    if texts[0].startswith("You are an independent reviewer"):
        return {"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["counts match"]})}
    if body.get("tools"):
        if not any(m.get("role") == "tool" for m in messages):
            return {"tool_calls": [{"name": "query_logs", "id": f"call_{incident}", "args": {
                "service": "payment-service", "start": start, "end": end, "limit": 3}}]}
        draft = {"conclusion": {"root_cause": f"connection pool exhaustion (incident #{incident})",
                                "claims": [{"statement": "the service logged errors in the window",
                                            "evidence_ids": ["E1.1"]}]},
                 "next_steps": ["raise the pool size"]}
        slow = re.search(r"incident #\d+ \(slow\)", "\n".join(texts)) is not None
        return {"content": json.dumps(draft), "delay": SLOW_AGENT_DELAY_S if slow else 0}
    return {"status": 400}


def eventually(probe: Callable[[], T | None], timeout_s: float = 60.0) -> T:
    """Poll until ``probe`` returns something truthy: what a server stores lands after it answers.

    Run rows, trace events and notifications are written after the stream (or the alert's 202)
    has reached the client. The wait is long for a loaded machine; only a failure waits it out.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value or time.monotonic() > deadline:
            assert value, f"condition not reached in {timeout_s:g} s"
            return value
        time.sleep(0.05)


def server_env(home: Path, **settings: str) -> dict[str, str]:
    """This process's environment without any harness, OpenAI or LangSmith setting, plus the
    server's home, ``NO_PROXY`` for 127.0.0.1 and ``settings``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(home), NO_PROXY="127.0.0.1,localhost", **settings)
    return env


def stub_env(home: Path, base_url: str, **settings: str) -> dict[str, str]:
    """:func:`server_env` for a model served by an OpenAI-compatible stub at ``base_url``."""
    return server_env(home, HARNESS_MODEL="openai:stub-model", OPENAI_BASE_URL=base_url,
                      OPENAI_API_KEY="test-key", **settings)


@dataclass
class Streamed:
    """What a client saw of one server run."""

    server_run_id: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    errors: list[Any] = field(default_factory=list)
    interrupts: list[Any] = field(default_factory=list)


async def stream(url: str, thread_id: str, input: Any, *, into: Streamed | None = None,
                 stream_mode: tuple[str, ...] = ("custom", "values", "updates"), **kw: Any) -> Streamed:
    """One server run through ``runs.stream``: custom events, values, interrupts, errors.

    ``into``: a Streamed to fill as the parts arrive (a test that watches a run in flight).
    """
    out = into or Streamed()
    async for part in get_client(url=url).runs.stream(
            thread_id, "diagnosis", input=input, stream_mode=list(stream_mode), **kw):
        if part.event == "metadata":
            out.server_run_id = part.data["run_id"]
        elif part.event == "custom":
            out.events.append(part.data)
        elif part.event == "values":
            out.final = part.data
        elif part.event == "updates" and "__interrupt__" in (part.data or {}):
            out.interrupts.extend(i.get("value") for i in part.data["__interrupt__"])
        elif part.event == "error":
            out.errors.append(part.data)
    return out


async def new_thread(url: str) -> str:
    return str((await get_client(url=url).threads.create())["thread_id"])


def assert_grammar(events: list[dict[str, Any]]) -> None:
    """docs/design.md §5: metadata → status* → (content | failure) → done."""
    kinds = [e["event"] for e in events]
    assert kinds[:1] == ["metadata"], kinds
    rest = kinds[1:]
    while rest and rest[0] == "status":
        rest = rest[1:]
    assert rest in (["content", "done"], ["failure", "done"]), kinds
