"""Degrade, don't fail: a dead model endpoint ends the run FALLBACK / MODEL_UNREACHABLE.

Through the CLI (``python -m diagnosis_harness diagnose``) against a real closed port on
127.0.0.1 and a real HTTP server answering 503, on the demo data: the run ends with the offline
investigator's triage digest, says the model was unreachable (the report, ``--json``,
``runs show``), makes only the harness's own attempts (no SDK retry) and never publishes a root
cause. A judge that cannot be reached never lets a draft through either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from devserver import free_port
from stub_openai import StubOpenAI

from diagnosis_harness.control.contracts import FallbackType, ReleaseOutcome, RunState
from diagnosis_harness.nodes._stops import stop
from diagnosis_harness.nodes.release import decide

QUESTION = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on "
            "2026-11-02 — why?")
ROUTED = json.dumps({"intent": "DIAGNOSIS", "service": "payment-service", "merchant": "M1001",
                     "start": "2026-11-02T10:00:00+00:00", "end": "2026-11-02T10:10:00+00:00"})


def harness(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    base.update(HARNESS_HOME=str(tmp_path / "home"), NO_PROXY="127.0.0.1,localhost", **env)
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], cwd=tmp_path,
                          env=base, capture_output=True, text=True, timeout=300)


def openai_at(url: str) -> dict[str, str]:
    return {"HARNESS_MODEL": "openai:stub-model", "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "x"}


def diagnose(tmp_path: Path, **env: str) -> dict[str, Any]:
    done = harness(tmp_path, "diagnose", "--json", QUESTION, **env)
    assert done.returncode == 0, done.stderr  # a FALLBACK is a handled request, not a failure
    assert "Traceback" not in done.stderr
    return dict(json.loads(done.stdout))


def assert_triage(out: dict[str, Any]) -> None:
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "MODEL_UNREACHABLE")
    content = out["content"]
    assert content.startswith("No root cause is published: the model endpoint was unreachable")
    assert "Root cause:" not in content  # never a cause, whatever the stand-in concluded
    assert "Suspects (ranked, from verified facts of this run):" in content
    assert "db.pool.max_size" in content  # the digest names the change behind the pool errors
    assert "the model endpoint was unreachable:" in content.split("Limitations:")[1]


def test_a_closed_port_ends_fallback_with_the_offline_triage_and_runs_show_names_it(
        tmp_path: Path) -> None:
    out = diagnose(tmp_path, **openai_at(f"http://127.0.0.1:{free_port()}/v1"))
    assert_triage(out)
    assert "offline router read the question" in out["content"]
    shown = harness(tmp_path, "runs", "show", out["run_id"])
    assert shown.returncode == 0, shown.stderr
    assert "outcome: FALLBACK / MODEL_UNREACHABLE" in shown.stdout
    assert "router attempt 2: failed (TRANSPORT)" in shown.stdout
    assert "agent (offline stand-in) call" in shown.stdout  # the trace says who answered


def test_a_server_answering_503_gets_only_the_harness_own_attempts(tmp_path: Path) -> None:
    with StubOpenAI([{"status": 503, "message": "upstream overloaded"}]) as stub:
        out = diagnose(tmp_path, **openai_at(stub.base_url))
    assert_triage(out)
    assert len(stub.requests) == 2  # the router's two budgeted attempts; no SDK retry, no agent


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_an_agent_call_answered_503_after_routing_degrades_mid_run(tmp_path: Path,
                                                                   protocol: str) -> None:
    with StubOpenAI([{"content": ROUTED}, {"status": 503}]) as stub:  # routes, then 503s
        out = diagnose(tmp_path, **openai_at(stub.base_url), HARNESS_AGENT_PROTOCOL=protocol)
    assert_triage(out)
    assert "the agent's call failed" in out["content"]
    assert len(stub.requests) == 2  # the router's answer and one agent call: never retried


def test_a_judge_that_cannot_be_reached_publishes_no_root_cause(tmp_path: Path) -> None:
    out = diagnose(tmp_path, HARNESS_MODEL="offline", HARNESS_JUDGE_MODEL="openai:judge",
                   HARNESS_JUDGE_BASE_URL=f"http://127.0.0.1:{free_port()}/v1",
                   HARNESS_JUDGE_API_KEY="x")
    assert out["release_outcome"] == "FALLBACK" and out["fallback_type"] == "SEMANTIC_UNAVAILABLE"
    assert "Root cause:" not in out["content"]
    assert "NOT VERIFIED" in out["content"]  # the unjudged proposal is shown as such, not published


@pytest.mark.parametrize("kind", ["model_unreachable", "controlled", "budget", "model_failure",
                                  "follow_up"])
def test_every_end_of_a_degraded_run_is_the_triage(kind: Any) -> None:
    state: Any = {"intent": "DIAGNOSIS", "model_unreachable": "the model endpoint was unreachable",
                  "stop": stop(kind, RunState.FAILED, None, "m")}
    d = decide(state, has_facts=True)
    assert (d.run_state, d.outcome, d.fallback) == (RunState.SUCCESS, ReleaseOutcome.FALLBACK,
                                                    FallbackType.MODEL_UNREACHABLE)


@pytest.mark.parametrize("kind", ["cancelled", "timed_out"])
def test_a_cancel_or_deadline_outranks_the_degraded_triage(kind: Any) -> None:
    state: Any = {"intent": "DIAGNOSIS", "model_unreachable": "unreachable",
                  "stop": stop(kind, RunState.CANCELLED, None, "m")}
    assert decide(state, has_facts=True).fallback is None
