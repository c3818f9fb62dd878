"""What the Studio workflow tests share: a stub investigator with a real judge, SDK streaming, the CLI.

The investigator is the one of ``servekit`` (every run investigates its own "incident #N"),
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer
from langgraph_sdk import get_client
from servekit import investigator, message_text, stub_env
from stub_openai import StubOpenAI

from diagnosis_harness.runstore.store import RunStore

SUPPORTED_CAUSE = "connection pool exhaustion"


def studio_investigator(body: dict[str, Any]) -> dict[str, Any]:
    """``servekit.investigator`` with a judge that reads, and cosmic drafts on request."""
    texts = [message_text(m) for m in body.get("messages", [])]
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
        env = stub_env(home, stub.base_url, **settings)
        with DevServer(work / "cwd", env) as server:
            yield Studio(server, stub, RunStore(home / "runs.sqlite"), env)


def studio_fixture(name: str, **settings: str) -> Any:
    """A module-scoped ``studio`` fixture: one :func:`studio_server` in a folder named ``name``."""
    @pytest.fixture(scope="module")
    def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
        with studio_server(tmp_path_factory.mktemp(name), **settings) as served:
            yield served
    return studio


async def state(url: str, thread_id: str) -> dict[str, Any]:
    return dict(await get_client(url=url).threads.get_state(thread_id))


def usage(values: dict[str, Any]) -> dict[str, int]:
    return dict(values["usage"])


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

