"""A separate judge model (``HARNESS_JUDGE_MODEL``): the judge's call, and only it, goes there.

Two real OpenAI-compatible stubs on 127.0.0.1: the run's model serves the router, the agent
and the repair; the judge's server answers the verdict the run is released on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from graphkit import judge
from stub_openai import StubOpenAI
from test_structured_output import FULL_RUN, REPAIRED, diagnose, envelope, serve, served_run

RUN_WITHOUT_JUDGE = FULL_RUN[:-1]
"""Router, three agent turns, repair: everything but the judge's answer."""


def judges(body: dict[str, Any]) -> bool:
    """Whether a request asks for the judge's answer (its schema has a verdict)."""
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    return "verdict" in schema.get("properties", {})


@pytest.mark.parametrize(("verdict", "outcome"), [
    ("SUPPORTED", ("SUCCESS", None)),
    ("UNSUPPORTED", ("FALLBACK", "SEMANTIC_UNSUPPORTED")),
])
def test_the_judge_server_alone_answers_the_judge_and_its_verdict_releases(
        tmp_path: Path, verdict: str, outcome: tuple[str, str | None]) -> None:
    # The run's own model would say the opposite, were it asked.
    opposite = "UNSUPPORTED" if verdict == "SUPPORTED" else "SUPPORTED"
    # A refusal goes back to the agent once (docs/design.md §8): it sends the draft again and
    # the judge's server refuses it again.
    revision = [envelope(None, draft=REPAIRED)] if verdict == "UNSUPPORTED" else []
    with StubOpenAI([judge(verdict)] * (1 + len(revision))) as judge_stub:
        main, services, out = served_run(
            tmp_path, [*RUN_WITHOUT_JUDGE, *revision, judge(opposite)],
            structured_output="json_object_schema", judge_model="openai:big-judge",
            judge_base_url=judge_stub.base_url, judge_api_key="judge-key",
            judge_context_tokens=8192)
    assert (out["release_outcome"], out["fallback_type"]) == outcome
    asked, *again = judge_stub.requests
    assert len(again) == len(revision)
    assert asked["body"]["model"] == "big-judge" and asked["auth"] == "Bearer judge-key"
    assert judges(asked["body"]) and asked["body"]["response_format"]["type"] == "json_object"
    # The judge's context window bounds its answer; the run's model has none set.
    assert 150 <= asked["body"]["max_tokens"] <= 400
    bodies = [r["body"] for r in main.requests]
    assert len(bodies) == len(RUN_WITHOUT_JUDGE) + len(revision)
    assert not any(judges(b) for b in bodies)
    assert {b["model"] for b in bodies} == {"local"} and "max_tokens" not in bodies[0]
    assert {r["auth"] for r in main.requests} == {"Bearer k"}
    # The run's record names both models (a resumed run must find the same pair).
    assert services.store.get_run(out["run_id"])["model_spec"] == (
        "openai:local, judge openai:big-judge")


def test_auto_probes_the_judges_server_on_its_own(tmp_path: Path) -> None:
    # A llama.cpp-style server for the run's model (json_schema refused), a json_schema judge.
    probed = {"content": "{}"}  # each server's probe takes an answer of its script
    with StubOpenAI([probed, judge("SUPPORTED")]) as judge_stub:
        main, services = serve(tmp_path, [probed, *RUN_WITHOUT_JUDGE], refuse={"json_schema": 500},
                               structured_output="auto", judge_model="openai:big-judge",
                               judge_base_url=judge_stub.base_url)
        try:
            out = diagnose(services)
        finally:
            main.__exit__()
    assert out["release_outcome"] == "SUCCESS"
    probe, asked = judge_stub.requests  # one probe, once per process, then the judge's call
    assert probe["body"]["max_tokens"] == 1
    assert probe["body"]["response_format"]["type"] == "json_schema"
    rf = asked["body"]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["name"] == "judge_answer"
    router_body = next(r["body"] for r in main.requests
                       if r["body"].get("max_tokens") != 1 and "response_format" in r["body"]
                       and r["body"]["response_format"].get("schema"))
    assert router_body["response_format"]["type"] == "json_object"


def test_an_offline_judge_keeps_the_verdict_off_the_model_server(tmp_path: Path) -> None:
    # The model's server would approve; the offline judge checks the claim's facts itself.
    main, services, out = served_run(tmp_path, [*RUN_WITHOUT_JUDGE, judge("SUPPORTED")],
                                     structured_output="json_object_schema",
                                     judge_model="offline")
    assert len(main.requests) == len(RUN_WITHOUT_JUDGE)
    assert not any(judges(r["body"]) for r in main.requests)
    [row] = [v["verdict"] for v in services.store.trace(out["run_id"])["verdicts"]
             if v["guard"] == "semantic"]
    # Its own per-claim verdicts: CHG-2041 is in E2.1, whose values went 50 → 10 ("lowered").
    assert [(c["index"], c["verdict"]) for c in row["claims"]] == [(0, "SUPPORTED")]
    assert (out["release_outcome"], row["root_cause"]["verdict"]) == ("SUCCESS", "SUPPORTED")


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("HARNESS_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True, text=True,
                          env={**clean, **env}, timeout=120)


def test_a_bad_judge_setting_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    diagnose = ["diagnose", "payment timeouts on payment-service between 10:00 and 10:10"]
    for env, args, says in (
            ({"HARNESS_JUDGE_MODEL": "gpt-4o"}, ["config"], "unknown model spec"),
            ({"HARNESS_JUDGE_MODEL": "gpt-4o"}, diagnose, "unknown model spec"),
            # no key for the judge's server: refused before any run starts
            ({"HARNESS_JUDGE_MODEL": "openai:big-judge"}, diagnose, "HARNESS_JUDGE_API_KEY")):
        proc = _cli(*args, HARNESS_HOME=home, **env)
        assert proc.returncode == 64, (env, args, proc.stderr)
        assert "HARNESS_JUDGE_MODEL" in proc.stderr and says in proc.stderr
        assert "Traceback" not in proc.stderr + proc.stdout


def test_harness_config_shows_the_judge_and_masks_its_key(tmp_path: Path) -> None:
    with StubOpenAI([{"content": "{}"}], refuse={"json_schema": 500}) as judge_stub:
        proc = _cli("config", HARNESS_HOME=str(tmp_path / "h"),
                    HARNESS_JUDGE_MODEL="openai:big-judge", HARNESS_STRUCTURED_OUTPUT="auto",
                    HARNESS_JUDGE_BASE_URL=judge_stub.base_url, HARNESS_JUDGE_API_KEY="s3cret")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert "s3cret" not in proc.stdout and shown["judge_api_key"] == "***"
    assert shown["judge_model"] == "openai:big-judge"
    assert shown["judge_base_url_effective"] == judge_stub.base_url
    assert shown["judge_structured_output_detected"] == (
        "json_object_schema (detected (json_schema refused: HTTP 500))")
    assert shown["structured_output_detected"].startswith("n/a")  # the run's model is offline
