"""One credential on every route of the served app (issue 37; docs/security.md, the server).

A real ``langgraph dev`` (``harness serve``) with ``HARNESS_SERVER_TOKEN``: a client without it
cannot list or read threads, start, approve (resume) or cancel a run — not even by claiming to
be Studio — and a run paused for approval stays unpublished; the same calls with the token
work. The alert routes take the token as before, and an alert group's thread id cannot be
computed from its group key. ``harness serve`` refuses to listen beyond loopback without a
token. One server for the module.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer
from graphkit import INC
from langgraph_sdk import get_client

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.serving.alert_payload import THREAD_SECRET_FILE, thread_secret
from diagnosis_harness.serving.auth import admits, is_loopback, serve_problem

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
TOKEN = "server-token-" + "x" * 24
ALERTS_TOKEN = "alerts-token-" + "y" * 24
BEARER = {"Authorization": f"Bearer {TOKEN}"}


class Served:
    def __init__(self, server: DevServer, home: Path) -> None:
        self.server, self.home = server, home
        self.url = server.url
        self.store = RunStore(home / "runs.sqlite")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("auth")
    home = work / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(home), HARNESS_MODEL="offline", HARNESS_APPROVAL="before_publish",
               HARNESS_SERVER_TOKEN=TOKEN, HARNESS_ALERTS_TOKEN=ALERTS_TOKEN,
               NO_PROXY="127.0.0.1,localhost")
    with DevServer(work / "cwd", env) as server:
        yield Served(server, home)


def call(url: str, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """One HTTP request; (status, parsed JSON body or text)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, json.loads(raw or b"null")
    except ValueError:
        return status, raw.decode(errors="replace")


def client(url: str) -> Any:
    return get_client(url=url, headers=BEARER)


async def paused_run(url: str) -> tuple[str, str]:
    """A thread whose run (offline investigator, demo incident) awaits approval; (thread, run)."""
    sdk = client(url)
    thread = (await sdk.threads.create())["thread_id"]
    run = await sdk.runs.create(thread, "diagnosis", input={"question": INC["question"]})
    await sdk.runs.join(thread, run["run_id"])
    return str(thread), str(run["run_id"])


# Anonymous, with a wrong token, with only the alerts token, or claiming to be Studio.
NOT_THE_TOKEN = [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {ALERTS_TOKEN}"},
                 {"x-auth-scheme": "langsmith"},
                 {"Authorization": "Basic " + base64.b64encode(b"op:wrong").decode()}]


def test_without_the_token_nothing_of_the_api_answers_and_a_paused_run_stays_unpublished(
        served: Served) -> None:
    thread, run_id = asyncio.run(paused_run(served.url))
    assert served.store.lineage(run_id)["approval"]["state"] == "PENDING"
    resume = {"assistant_id": "diagnosis", "command": {"resume": {"approve": True, "note": "anon"}}}
    start = {"assistant_id": "diagnosis", "input": {"question": INC["question"]}}
    attempts = [("POST", "/threads/search", {}), ("GET", f"/threads/{thread}/state", None),
                ("GET", f"/threads/{thread}/history", None),
                ("POST", f"/threads/{thread}/runs", resume),  # approve
                ("POST", f"/threads/{thread}/runs/wait", resume),
                ("POST", f"/threads/{thread}/runs/{run_id}/cancel", None),
                ("POST", f"/threads/{thread}/state", {"values": {"previous_turn": "x"}}),
                ("POST", "/threads", {}), ("POST", "/runs/wait", start),
                ("POST", f"/threads/{thread}/runs", start), ("POST", "/assistants/search", {})]
    for headers in NOT_THE_TOKEN:
        for method, path, body in attempts:
            status, answer = call(served.url, method, path, body, headers)
            assert status == 401, (headers, method, path, status, answer)
            assert thread not in json.dumps(answer)
    time.sleep(1.0)  # a run an anonymous call had started would have reached release by now
    row = served.store.get_run(run_id)
    assert (row["finished_at"], row["content"]) == (None, None)
    assert served.store.lineage(run_id)["approval"]["state"] == "PENDING"
    assert [r["run_id"] for r in served.store.runs_for_thread(thread)] == [run_id]

    # With the token (bearer or basic auth's password) the same calls work.
    basic = {"Authorization": "Basic " + base64.b64encode(f"op:{TOKEN}".encode()).decode()}
    status, found = call(served.url, "POST", "/threads/search", {"limit": 100}, basic)
    assert status == 200 and thread in [t["thread_id"] for t in found]
    status, done = call(served.url, "POST", f"/threads/{thread}/runs/wait",
                        {**resume, "command": {"resume": {"approve": True, "note": "ok"}}}, BEARER)
    assert status == 200 and done["release_outcome"] == "SUCCESS", done
    assert done["content"].startswith("Root cause:")
    approval = served.store.lineage(run_id)["approval"]
    assert (approval["state"], approval["decided_by"]) == ("APPROVED", "user:operator")


def test_with_the_token_a_paused_run_can_be_cancelled_and_a_run_started(served: Served) -> None:
    thread, run_id = asyncio.run(paused_run(served.url))
    status, _ = call(served.url, "POST", f"/threads/{thread}/runs/{run_id}/cancel", None)
    assert status == 401 and served.store.get_run(run_id)["finished_at"] is None
    status, answer = call(served.url, "POST", f"/threads/{thread}/runs/{run_id}/cancel", None, BEARER)
    assert status not in (401, 403), answer  # admitted (the server run itself ended at the pause)
    # A paused run is not a live server run: cancelling it is `harness runs cancel` or a new
    # turn, which supersedes it — with the token, a new run starts and the paused one ends.
    status, done = call(served.url, "POST", f"/threads/{thread}/runs/wait",
                        {"assistant_id": "diagnosis", "input": {"question": INC["question"]}}, BEARER)
    assert status == 200, done
    row = served.store.get_run(run_id)
    assert (row["release_outcome"], row["content"]) == ("CANCELLED", None)
    assert len(served.store.runs_for_thread(thread)) == 2


def test_alerts_take_their_token_and_their_thread_is_not_derivable_from_the_group_key(
        served: Served) -> None:
    alert = {"group": "checkout-errors-auth", "name": "PaymentErrors", "starts_at": "2026-11-02T10:05:00Z",
             "labels": {"service": "payment-service"}, "id": "a1"}
    status, _ = call(served.url, "POST", "/alerts/generic", alert)
    assert status == 401
    status, first = call(served.url, "POST", "/alerts/generic", alert,
                         {"Authorization": f"Bearer {ALERTS_TOKEN}"})
    assert status == 202 and first["action"] == "started", first
    status, again = call(served.url, "POST", "/alerts/generic", alert, BEARER)  # the one credential
    assert status == 202 and (again["action"], again["thread_id"]) == ("duplicate", first["thread_id"])
    public = uuid.UUID("5b0d7a52-4c1e-4d8e-9a53-1f6f3c8e2a11")
    guesses = {str(uuid.uuid5(public, f"{s}:{k}")) for s in ("generic", "alertmanager")
               for k in ("checkout-errors-auth", ":checkout-errors-auth")}
    assert first["thread_id"] not in guesses
    secret = served.home / THREAD_SECRET_FILE
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert first["thread_id"] == str(uuid.uuid5(
        public, f"{secret.read_text().strip()}:generic:checkout-errors-auth"))
    status, _ = call(served.url, "GET", f"/threads/{first['thread_id']}", None)
    assert status == 401


def test_serve_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "diagnosis_harness", "serve", "--host", "0.0.0.0",
                           "--port", "9"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 64 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "HARNESS_SERVER_TOKEN" in proc.stderr, proc.stderr
    assert not (tmp_path / "home").exists()  # refused before anything was opened
    settings = load_settings(home=tmp_path)
    assert serve_problem(settings, "127.0.0.1") is None and serve_problem(settings, "::1") is None
    assert serve_problem(settings, "10.1.2.3") is not None
    assert serve_problem(load_settings(home=tmp_path, server_token=TOKEN), "0.0.0.0") is None


def test_who_is_admitted_with_and_without_a_token(tmp_path: Path) -> None:
    open_ = load_settings(home=tmp_path)
    assert admits(open_, None, "127.0.0.1") is None and admits(open_, None, "::1") is None
    assert admits(open_, None, "10.0.0.7") == 403 and admits(open_, None, None) == 403
    guarded = load_settings(home=tmp_path, server_token=TOKEN)
    assert admits(guarded, None, "127.0.0.1") == 401  # loopback too, once a token is set
    assert admits(guarded, f"Bearer {TOKEN}", "10.0.0.7") is None
    assert admits(guarded, f"Bearer {TOKEN}x", "127.0.0.1") == 401
    assert is_loopback("localhost") and is_loopback("[::1]") and not is_loopback("0.0.0.0")


def _secret_of(home: str) -> str:
    return thread_secret(Path(home))


def test_the_thread_secret_is_made_once_whoever_asks_first(tmp_path: Path) -> None:
    with get_context("spawn").Pool(4) as pool:
        secrets = pool.map(_secret_of, [str(tmp_path)] * 8)
    assert len(set(secrets)) == 1 and len(secrets[0]) == 64
    assert thread_secret(tmp_path) == secrets[0]  # kept: a restart keeps every group's thread
    assert [p.name for p in tmp_path.iterdir()] == [THREAD_SECRET_FILE]
