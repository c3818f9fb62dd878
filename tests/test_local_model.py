"""Opt-in smoke test with a real local LLM (scripts/local-model.sh start).

Skipped unless ``HARNESS_LOCAL_MODEL_URL`` names an OpenAI-compatible server (model alias
``local``). It asserts structure and honesty only — a small model may well not find the cause:
every run ends in a terminal state with a valid event sequence, nothing unverified is
published, and usage is recorded. Expect ~20 s per model call on 2 cores.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from graphkit import kinds, run

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services
from diagnosis_harness.tools.dataset.build import demo_dataset_dir

URL = os.environ.get("HARNESS_LOCAL_MODEL_URL")
pytestmark = [pytest.mark.local_model,
              pytest.mark.skipif(not URL, reason="set HARNESS_LOCAL_MODEL_URL to run")]
TRUTH = json.loads((demo_dataset_dir() / "truth.json").read_text())
CASES = TRUTH["incidents"][:3] + TRUTH["no_evidence"][:1]

LOCAL_SETTINGS = dict(
    model="openai:local", agent_protocol="json", OPENAI_API_KEY="local",
    # Generous: a call runs on at the server after a client gives up on it (llama.cpp's
    # server does not stop), so a short timeout only wastes the next call's time on a busy CPU.
    router_attempt_timeout_s=300, router_total_timeout_s=600, judge_attempt_timeout_s=300,
    judge_total_timeout_s=600, repair_attempt_timeout_s=300, repair_total_timeout_s=300,
    agent_call_timeout_s=600, deadline_s=3600, max_model_calls=12, max_tool_calls=6,
    # The 1.5B model's gain reports are noise (NO_GAIN on the result that showed the config
    # change, whatever its note said): five in a row, not three, before collection saturates,
    # so the tool budget rather than a rote verdict ends a run that keeps finding evidence.
    saturation_threshold=5,
    # The server runs with a 4,096-token context: keep each observation to ~1k tokens, and let
    # the harness track the context so a run ends as a classified fallback, never a 400.
    max_observation_bytes=3000, log_events_default_limit=5, model_context_tokens=4096,
    # llama.cpp's server takes json_object + schema (and refuses json_schema): auto finds it.
    structured_output="auto", structured_probe_timeout_s=300,
)


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Services:
    home = tmp_path_factory.mktemp("local")
    return Services.from_settings(load_settings(home=home, OPENAI_BASE_URL=URL, **LOCAL_SETTINGS))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_real_model_runs_end_honestly(services: Services, case: dict, tmp_path: Path) -> None:
    out = run(services, case["question"])
    assert out["run_state"] != "RUNNING"
    grammar = kinds(out)
    assert grammar[0] == "metadata" and grammar[-1] == "done"
    assert grammar[-2] in ("content", "failure")
    assert out["usage"]["model_calls"] > 0 and out["usage"]["input_tokens"] > 0
    trace = services.store.trace(out["run_id"])
    assert len(trace["model_calls"]) == out["usage"]["model_calls"]
    if out["release_outcome"] == "SUCCESS" and out["intent"] == "DIAGNOSIS":
        verdicts = {v["guard"]: v["verdict"] for v in trace["verdicts"]}
        assert verdicts["evidence"]["passed"] and verdicts["semantic"]["verdict"] == "SUPPORTED"
        found = {f["evidence_id"] for r in trace["tool_records"]
                 if r["invocation_status"] == "READY" and r["evidence_status"] == "EVIDENCE_FOUND"
                 for f in r["facts"]}
        assert set(re.findall(r"E\d+\.\d+", out["content"])) <= found

