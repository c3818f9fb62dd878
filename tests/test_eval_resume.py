"""`harness eval --resume` after `kill -9` mid-eval: finished cases are reused, not run again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from evalkit import harness, scorecard
from graphkit import INC
from stub_openai import StubOpenAI
from test_eval_models import _env, respond
from test_resume_processes import at_a_terminal

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import open_run_store

pytestmark = pytest.mark.slow
CASES = 5


def _suite(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A suite of CASES copies of INC-1, an empty home and where the eval writes: (suite, home, out)."""
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(json.dumps({
        "id": f"inc-{n}", "question": INC["question"],
        "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool"]}}}) + "\n"
        for n in range(CASES)), encoding="utf-8")
    home, out = tmp_path / "home", tmp_path / "out"
    home.mkdir()
    return suite, home, out


def test_resume_after_kill_9_runs_only_the_unfinished_cases(tmp_path: Path) -> None:
    suite, home, out = _suite(tmp_path)
    manifest = out / "cases.jsonl"
    args = ["eval", str(suite), "--model", "openai:stub-model", "--workers", "1", "--out", str(out)]
    with StubOpenAI(responder=lambda body: {**respond(body), "delay": 0.15}) as stub:
        env = {**os.environ, "HARNESS_HOME": str(home), **_env(stub, tmp_path)}
        proc = subprocess.Popen([sys.executable, "-m", "diagnosis_harness", *args], env=env,
                                cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if manifest.is_file() and len(manifest.read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the eval ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]
        assert 2 <= len(before) < CASES
        kept = {b["result"]["id"]: b["result"]["run_id"] for b in before}

        resumed = harness(*args, "--resume", "--json", home=home, env=_env(stub, tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    card = scorecard(resumed)
    assert [c["id"] for c in card["cases"]] == [f"inc-{n}" for n in range(CASES)]
    assert all(c["verdict"] == "RIGHT" for c in card["cases"])
    for case in card["cases"]:
        if case["id"] in kept:
            assert case["run_id"] == kept[case["id"]]  # reused, not run again
    # The store holds exactly one released run per case: nothing finished was run twice.
    store = open_run_store(load_settings(home=home).home / "runs.sqlite")
    released = [r for r in store.list_runs(limit=100) if r["release_outcome"] == "SUCCESS"]
    assert len(released) == CASES
    assert {r["run_id"] for r in released} == {c["run_id"] for c in card["cases"]}

    # Another model is another eval: nothing is reused.
    offline = harness("eval", str(suite), "--model", "offline", "--out", str(out), "--resume",
                      "--json", home=home)
    assert {c["run_id"] for c in scorecard(offline)["cases"]}.isdisjoint(kept.values())


def test_ctrl_c_mid_eval_exits_130_keeping_finished_cases(tmp_path: Path) -> None:
    suite, home, out = _suite(tmp_path)
    with StubOpenAI(responder=lambda body: {**respond(body), "delay": 0.15}) as stub:
        env = {**os.environ, "HARNESS_HOME": str(home), **_env(stub, tmp_path)}
        proc = subprocess.Popen([sys.executable, "-m", "diagnosis_harness", "eval", str(suite),
                                 "--model", "openai:stub-model", "--workers", "1", "--out", str(out)],
                                env=env, cwd=home, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=at_a_terminal)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out / "cases.jsonl").is_file():
            time.sleep(0.05)
        time.sleep(0.3)  # inside the next case's run
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted: finished cases are kept (--resume continues)" in stderr
    assert "Traceback" not in stderr
    store = open_run_store(home / "runs.sqlite")
    states = sorted(r["release_outcome"] or "RUNNING" for r in store.list_runs(limit=100))
    assert "CANCELLED" in states and "RUNNING" not in states  # the run in progress ended cleanly
    assert len(states) < CASES
