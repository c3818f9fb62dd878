"""``scripts/smoke_local_model.py`` against a scripted OpenAI-compatible server (no real model).

The stub answers by the schema each request asks for, as llama.cpp's server would decode under
it, so the script's detection line, its table and its summary are checked on a dataset folder
with a truth file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from graphkit import EV, INC, TRUTH
from stub_openai import StubOpenAI

from diagnosis_harness.tools.dataset.build import demo_dataset_dir

pytestmark = pytest.mark.slow

def test_the_smoke_script_tabulates_a_dataset_with_its_truth(tmp_path: Path) -> None:
    """One SUCCESS with the truth's key terms, one expected FALLBACK: the table and summary."""
    def respond(body: dict) -> dict:
        schema = (body.get("response_format") or {}).get("schema") or {}
        props = schema.get("properties", {})
        if body.get("max_tokens") == 1:
            return {"content": "{"}
        if "intent" in props:
            question = body["messages"][-1]["content"]
            window = (INC["start"], INC["end"]) if "M1001" in question else (
                "2026-11-05T02:00:00+00:00", "2026-11-05T02:10:00+00:00")
            return {"content": json.dumps({"intent": "DIAGNOSIS", "service": "payment-service",
                                           "merchant": None, "start": window[0],
                                           "end": window[1]})}
        if "verdict" in props:
            return {"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["ok"]})}
        text = "\n".join(m["content"] for m in body["messages"])
        if "M1001" in text and "Result of tool_call_id" not in text:
            return {"content": json.dumps({"type": "tool_call", "tool": "query_logs",
                                           "args": EV[0]["args"]})}
        conclusion = {"root_cause": "payment-db pool exhausted after config change CHG-2041",
                      "claims": [{"statement": "config reloaded with db.pool.max_size=10",
                                  "evidence_ids": ["E1.2"]}]} if "M1001" in text else None
        return {"content": json.dumps({"type": "final", "draft": {"conclusion": conclusion,
                                                                   "next_steps": ["x"]}})}

    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"incidents": [TRUTH["incidents"][0]],
                                 "no_evidence": TRUTH["no_evidence"]}))
    script = Path(__file__).resolve().parents[1] / "scripts" / "smoke_local_model.py"
    with StubOpenAI(responder=respond, refuse={"json_schema": 500}) as stub:
        proc = subprocess.run(
            [sys.executable, str(script), "--data", str(demo_dataset_dir()), "--truth",
             str(truth), "--url", stub.base_url, "--transcripts", str(tmp_path / "tr")],
            capture_output=True, text=True, timeout=300,
            cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "structured output: json_object_schema (detected (json_schema refused: HTTP 500))" \
        in lines[0]
    assert lines[1].split("\t")[:5] == ["id", "expected", "outcome", "verdict", "cause"]
    inc, noev = (line.split("\t") for line in lines[2:4])
    assert inc[:5] == ["INC-1", "SUCCESS", "SUCCESS", "ok", "yes"]
    assert noev[:4] == ["NOEV-1", "FALLBACK", "FALLBACK/INSUFFICIENT_EVIDENCE", "ok"]
    # The run's conversation is read back whole (its checkpoint keeps messages as deltas):
    # the context estimate of the agent's calls, and the transcript with the tool call made.
    assert re.fullmatch(r"\d+>=\d+", inc[10]), inc
    kept = json.loads((tmp_path / "tr" / "INC-1.json").read_text())
    assert kept["result"]["release_outcome"] == "SUCCESS"
    assert [c["name"] for m in kept["messages"] for c in m.get("tool_calls", [])] == ["query_logs"]
    assert lines[4].startswith("2 runs: wrong SUCCESS 0; expected fallbacks ended FALLBACK 1/1; "
                               "SUCCESS with the right cause 1/1; protocol violations/run 0.00")
