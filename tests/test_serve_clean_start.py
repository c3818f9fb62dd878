"""``harness serve`` starts clean (issue 38): no YAML traceback, and the alert route is documented.

langgraph-api reads every custom route's docstring as YAML into the server's OpenAPI schema at
start-up; the alert route's docstring was no YAML there, so every start printed a 30-line
traceback a person had to learn to ignore. A real ``harness serve`` (``langgraph dev``) here.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

from devserver import DevServer


def test_harness_serve_starts_without_a_traceback_and_documents_the_alert_route(
        tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="offline",
               HARNESS_ALERTS_TOKEN="alerts-secret-for-the-test", NO_PROXY="127.0.0.1,localhost")
    with DevServer(tmp_path / "cwd", env) as server:
        with urllib.request.urlopen(f"{server.url}/openapi.json", timeout=30) as answer:
            spec = json.load(answer)
        log = server.log()
    assert "Traceback" not in log and "ScannerError" not in log, log[-3000:]
    operation = spec["paths"]["/alerts/{source}"]["post"]
    assert operation["summary"].startswith("Receive an alert notification")
