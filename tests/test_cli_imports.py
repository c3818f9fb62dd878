"""What each ``harness`` command imports: only what it uses (docs/cli.md, start-up latency).

An on-call engineer's ``harness alerts test FILE`` or ``harness runs show RUN_ID`` answers in a
few tenths of a second when it does not load LangGraph, the LangSmith schemas LangChain brings,
the server or the run store's SQLAlchemy; a test that spawns such commands pays the same. Each
command runs in a fresh interpreter here and the heavy libraries it loaded are compared with
the ones it needs. ``alerts test`` loaded the whole intake (``serving.alerts``: Starlette, the
LangGraph SDK, LangChain, SQLAlchemy; ~0.6 s) for two parsers and one question.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis_harness.cli import alerts as cli_alerts
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.serving import alerts as serving_alerts

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("langgraph", "langgraph_sdk", "langchain_core", "langsmith", "sqlalchemy", "sqlglot",
         "starlette", "diagnosis_harness.serving.alerts", "diagnosis_harness.graph.builder")

_PROBE = (
    "import sys\n"
    "from diagnosis_harness.cli.entry import main\n"
    "code = 0\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
    "print('##', code, ','.join(heavy), file=sys.stderr)\n"
)


def _loaded(home: Path, *args: str, **extra: str) -> tuple[int, set[str], str]:
    """Exit code, the heavy modules loaded, and stdout of one command in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=str(REPO), **extra)
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                          env=env, cwd=home.parent, timeout=60)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("## "))
    _, code, heavy = (line.split(" ", 2) + [""])[:3]
    return int(code), set(filter(None, heavy.strip().split(","))), proc.stdout


def _notification(tmp_path: Path) -> Path:
    body = {"version": "4", "status": "firing", "receiver": "harness",
            "groupKey": '{}:{alertname="PaymentErrors"}',
            "groupLabels": {"alertname": "PaymentErrors"},
            "commonLabels": {"alertname": "PaymentErrors", "service": "payment-service"},
            "commonAnnotations": {"summary": "5xx above 5 %"},
            "alerts": [{"status": "firing", "fingerprint": "f1", "startsAt": "2026-11-02T10:00:00Z",
                        # an end in the past: the question's window is then fixed, not "now"
                        # (the command and this test read the clock a second apart)
                        "endsAt": "2026-11-02T10:30:00Z",
                        "labels": {"alertname": "PaymentErrors", "service": "payment-service"},
                        "annotations": {"summary": "5xx above 5 %"}}]}
    path = tmp_path / "am.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def test_alerts_test_loads_no_server_graph_or_database(tmp_path: Path) -> None:
    file = _notification(tmp_path)
    code, heavy, out = _loaded(tmp_path / "home", "alerts", "test", str(file),
                               HARNESS_NOTIFY_URL="http://127.0.0.1:9/hook")
    assert code == 0
    assert heavy == set()
    # ...and still says what the route would: the intake's own question and targets
    printed = json.loads(out)
    settings = load_settings()
    group = serving_alerts.PARSERS["alertmanager"](file.read_bytes())
    intake = serving_alerts.Intake(settings, None, None, None)  # type: ignore[arg-type]
    assert printed["question"] == intake.question(group)
    assert printed["post_to"][0].startswith("json:")


def test_alerts_test_parses_with_the_routes_own_parsers() -> None:
    assert cli_alerts.routes() == serving_alerts.PARSERS


@pytest.mark.parametrize("args", [("--help",), ("runs", "--help"), ("alerts", "--help"),
                                  ("prune", "--help"), ("eval", "--help"), ("diagnose", "--help")])
def test_help_loads_no_heavy_library(tmp_path: Path, args: tuple[str, ...]) -> None:
    code, heavy, out = _loaded(tmp_path / "home", *args)
    assert code == 0 and "Usage" in out
    assert heavy == set()


def test_runs_list_loads_the_run_store_but_no_graph(tmp_path: Path) -> None:
    from diagnosis_harness.runstore.store import open_run_store

    home = tmp_path / "home"
    open_run_store(home / "runs.sqlite").close()
    code, heavy, out = _loaded(home, "runs", "list")
    assert code == 0, out
    assert heavy == {"sqlalchemy"}  # the run store's; no LangGraph, LangChain or server
