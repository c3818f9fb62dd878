"""What the Studio workflow tests share: a stub investigator with a real judge, SDK streaming, the CLI.

The investigator is the one of ``test_serving`` (every run investigates its own "incident #N"),
with two changes: a question that says "(cosmic)" gets a draft blaming a cosmic ray, and the
judge supports a conclusion only if it names connection pool exhaustion — which the evidence
(error logs) is about. So an edited or cosmic draft is UNSUPPORTED by a judge that reads it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer
from langgraph_sdk import get_client
from stub_openai import StubOpenAI
from test_serving import _text, investigator

from diagnosis_harness.runstore.store import RunStore

SUPPORTED_CAUSE = "connection pool exhaustion"


def studio_investigator(body: dict[str, Any]) -> dict[str, Any]:
    """``test_serving.investigator`` with a judge that reads, and cosmic drafts on request."""
    texts = [_text(m) for m in body.get("messages", [])]
    if texts and texts[0].startswith("You are an independent reviewer"):
        supported = SUPPORTED_CAUSE in "\n".join(texts)
        return {"content": json.dumps({"verdict": "SUPPORTED" if supported else "UNSUPPORTED",
                                       "reasons": ["the logs show pool waits" if supported
                                                   else "nothing in the evidence is about that"]})}
    answer = investigator(body)
    if body.get("tools") and "(cosmic)" in "\n".join(texts) and answer.get("content"):
        draft = json.loads(answer["content"])
        draft["conclusion"]["root_cause"] = cosmic_cause(draft["conclusion"]["root_cause"])
        answer = {**answer, "content": json.dumps(draft)}
    return answer


def cosmic_cause(cause: str) -> str:
    """An unsupported root cause for the incident ``cause`` names."""
    found = re.search(r"incident #\d+", cause)
    return f"a cosmic ray flipped a bit ({found.group(0) if found else 'incident'})"


@dataclass
class Studio:
    server: DevServer
    stub: StubOpenAI
    store: RunStore
    env: dict[str, str]

    @property
    def url(self) -> str:
        return self.server.url


@contextmanager
def studio_server(work: Path, **settings: str) -> Iterator[Studio]:
    """A dev server (``harness serve``) on the stub, with extra ``HARNESS_…`` settings."""
    home = work / "home"
    with StubOpenAI(responder=studio_investigator) as stub:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
        env.update(HARNESS_HOME=str(home), HARNESS_MODEL="openai:stub-model",
                   OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="test-key",
                   NO_PROXY="127.0.0.1,localhost", **settings)
        with DevServer(work / "cwd", env) as server:
            yield Studio(server, stub, RunStore(home / "runs.sqlite"), env)


@dataclass
class Streamed:
    server_run_id: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    errors: list[Any] = field(default_factory=list)
    interrupts: list[Any] = field(default_factory=list)


async def stream(url: str, thread_id: str, input: Any, **kw: Any) -> Streamed:
    """One server run through ``runs.stream``: custom events, values, interrupts, errors."""
    out = Streamed()
    async for part in get_client(url=url).runs.stream(
            thread_id, "diagnosis", input=input, stream_mode=["custom", "values", "updates"], **kw):
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


async def state(url: str, thread_id: str) -> dict[str, Any]:
    return dict(await get_client(url=url).threads.get_state(thread_id))


def usage(values: dict[str, Any]) -> dict[str, int]:
    return dict(values["usage"])


def assert_grammar(events: list[dict[str, Any]]) -> None:
    """docs/design.md §5: metadata → status* → (content | failure) → done."""
    kinds = [e["event"] for e in events]
    assert kinds[:1] == ["metadata"], kinds
    rest = kinds[1:]
    while rest and rest[0] == "status":
        rest = rest[1:]
    assert rest in (["content", "done"], ["failure", "done"]), kinds


def harness_cli(studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                *argv: str) -> tuple[int, str, str]:
    """``harness ARGV`` in this process, on the server's home and settings: (exit, out, err)."""
    from diagnosis_harness.cli.main import main

    for key in [k for k in os.environ if k.startswith(("HARNESS_", "OPENAI_"))]:
        monkeypatch.delenv(key)
    for key, value in studio.env.items():
        if key.startswith(("HARNESS_", "OPENAI_")):
            monkeypatch.setenv(key, value)
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    out = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 0), out.out, out.err

