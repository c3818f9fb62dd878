"""An alert on the real ``langgraph dev`` server while the model endpoint is down.

``harness serve`` with an OpenAI-compatible model on a closed 127.0.0.1 port, the alert routes,
a Slack receiver and ``HARNESS_PUBLIC_URL`` pointing at the server itself: the alert's run ends
FALLBACK / MODEL_UNREACHABLE with the triage digest, the Slack post says so in a few lines and
links the run, and the link (``GET /runs/{run_id}``) serves the run's page behind the server's
token.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from devserver import DevServer, free_port
from test_alert_intake import am_payload
from test_alert_posts import Recorder
from test_alerts_served import eventually, post

from diagnosis_harness.runstore.store import RunStore

pytestmark = pytest.mark.slow
TOKEN = "server-" + uuid.uuid4().hex[:12]
ALERTS = "alerts-" + uuid.uuid4().hex[:12]


def get(url: str, auth: str | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers={"Authorization": auth} if auth else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read().decode(), _lower(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), _lower(exc.headers)


def _lower(headers: object) -> dict[str, str]:
    return {k.lower(): v for k, v in dict(headers).items()}  # type: ignore[call-overload]


def send(url: str, auth: str) -> int:
    request = urllib.request.Request(url, data=b"{}", method="POST", headers={
        "Authorization": auth, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_an_alert_with_the_model_down_posts_the_triage_and_links_its_page(tmp_path: Path) -> None:
    home = tmp_path / "home"
    slack = Recorder()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(home), HARNESS_MODEL="openai:stub-model",
               OPENAI_BASE_URL=f"http://127.0.0.1:{free_port()}/v1", OPENAI_API_KEY="x",
               HARNESS_SERVER_TOKEN=TOKEN, HARNESS_ALERTS_TOKEN=ALERTS,
               HARNESS_SLACK_WEBHOOK_URL=f"{slack.url}/slack", NO_PROXY="127.0.0.1,localhost")
    server = DevServer(tmp_path / "cwd", env)
    server.env["HARNESS_PUBLIC_URL"] = server.url + "/"
    try:
        with server:
            doc = am_payload(key=f'{{}}:{{alertname="PaymentErrors",t="{uuid.uuid4().hex}"}}')
            status, answer = post(f"{server.url}/alerts/alertmanager", json.dumps(doc).encode(),
                                  auth=f"Bearer {ALERTS}")
            assert status == 202 and answer["action"] == "started", answer
            run_id = answer["run_id"]
            store = RunStore(home / "runs.sqlite")
            run = eventually(lambda: (r := store.get_run(run_id)) and r["finished_at"] and r, 120)
            assert (run["release_outcome"], run["fallback_type"]) == ("FALLBACK",
                                                                      "MODEL_UNREACHABLE")
            assert "Suspects (ranked" in run["content"]
            (sent,) = eventually(lambda: [r for r in slack.requests
                                          if r["headers"]["Idempotency-Key"] == f"{run_id}:slack"])
            lines = sent["body"]["text"].splitlines()
            assert lines[0] == ("[FALLBACK / MODEL_UNREACHABLE] no verified root cause: the model "
                                "endpoint was unreachable; this is the offline triage only")
            assert lines[1].startswith("Top suspect (ranked from verified facts; not a verified "
                                       "cause): ")
            link = f"{server.url}/runs/{run_id}"
            assert lines[-1] == f"Run: {link}" and 3 <= len(lines) <= 6

            refused, _, headers = get(link)  # a browser asks for the token as a password
            assert refused == 401 and headers.get("www-authenticate", "").startswith("Basic ")
            basic = "Basic " + base64.b64encode(f"oncall:{TOKEN}".encode()).decode()
            assert get(link, auth=basic)[0] == 200
            assert get(link, auth="Bearer wrong")[0] == 401
            assert get(link, auth=f"Bearer {ALERTS}")[0] == 401  # the alerts token opens no page
            code, page, headers = get(link, auth=f"Bearer {TOKEN}")
            assert code == 200 and headers["content-type"].startswith("text/html"), page[:300]
            assert run_id in page and "MODEL_UNREACHABLE" in page
            assert "default-src 'none'" in headers["content-security-policy"]
            assert get(f"{server.url}/runs/{uuid.uuid4()}", auth=f"Bearer {TOKEN}")[0] == 404
            # the API's own POST /runs/… routes still answer: the page's GET does not shadow them
            assert send(f"{server.url}/runs/cancel", auth=f"Bearer {TOKEN}") not in (404, 405)
            store.close()
    finally:
        slack.close()
    assert "Traceback" not in server.log()
