"""`harness eval` against a real OpenAI-compatible server on 127.0.0.1: tokens and cost from the
price table, and a model that times out showing as FAILED cases, not a crashed eval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evalkit import harness, scorecard
from graphkit import EV, INC, TRUTH
from stub_openai import StubOpenAI

pytestmark = pytest.mark.slow

PRICE = {"input_per_million": 1000.0, "output_per_million": 3000.0}
USAGE = {"prompt_tokens": 400, "completion_tokens": 50}


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """Answer by the schema each request asks for, as a grammar-decoding server would."""
    props = ((body.get("response_format") or {}).get("schema") or {}).get("properties", {})
    if "intent" in props:
        question = body["messages"][-1]["content"]
        window = (INC["start"], INC["end"]) if "M1001" in question else (
            "2026-11-05T02:00:00+00:00", "2026-11-05T02:10:00+00:00")
        answer: dict[str, Any] = {"intent": "DIAGNOSIS", "service": "payment-service",
                                  "merchant": None, "start": window[0], "end": window[1]}
    elif "verdict" in props:
        answer = {"verdict": "SUPPORTED", "reasons": ["ok"]}
    else:
        text = "\n".join(str(m.get("content")) for m in body["messages"])
        if "M1001" in text and "Result of tool_call_id" not in text:
            answer = {"type": "tool_call", "tool": "query_logs", "args": EV[0]["args"]}
        else:
            conclusion = {"root_cause": "payment-db pool exhausted after config change CHG-2041",
                          "claims": [{"statement": "config reloaded with db.pool.max_size=10",
                                      "evidence_ids": ["E1.2"]}]} if "M1001" in text else None
            answer = {"type": "final", "draft": {"conclusion": conclusion, "next_steps": ["x"]}}
    return {"content": json.dumps(answer), "usage": USAGE}


def _suite(tmp_path: Path) -> Path:
    noev = TRUTH["no_evidence"][0]
    cases = [{"id": "INC-1", "question": INC["question"],
              "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool", "CHG-2041"]}}},
             {"id": "NOEV-1", "question": noev["question"],
              "expect": {"outcome": "FALLBACK/INSUFFICIENT_EVIDENCE"}}]
    path = tmp_path / "suite.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def _env(stub: StubOpenAI, tmp_path: Path) -> dict[str, str]:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"currency": "EUR", "models": {"stub-model": PRICE}}), encoding="utf-8")
    return {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "sk-test",
            "HARNESS_AGENT_PROTOCOL": "json", "HARNESS_STRUCTURED_OUTPUT": "json_object_schema",
            "HARNESS_PRICE_TABLE": str(prices)}


def test_tokens_and_cost_come_from_the_run_rows_and_the_price_table(tmp_path: Path) -> None:
    with StubOpenAI(responder=respond) as stub:
        proc = harness("eval", str(_suite(tmp_path)), "--model", "openai:stub-model", "--json",
                       home=tmp_path / "home", env=_env(stub, tmp_path))
        calls = len(stub.requests)
    assert proc.returncode == 0, proc.stderr
    card = scorecard(proc)
    assert [(c["id"], c["verdict"]) for c in card["cases"]] == [("INC-1", "RIGHT"), ("NOEV-1", "HONEST")]
    total = 0.0
    for case in card["cases"]:
        usage = case["usage"]
        assert usage["input_tokens"] == 400 * usage["model_calls"] > 0
        assert usage["output_tokens"] == 50 * usage["model_calls"]
        expected = (usage["input_tokens"] * 1000.0 + usage["output_tokens"] * 3000.0) / 1e6
        assert case["cost"] == pytest.approx(expected)
        total += expected
    assert sum(c["usage"]["model_calls"] for c in card["cases"]) == calls
    assert card["summary"]["cost_total"] == pytest.approx(total)
    assert card["summary"]["tokens_total"] == 450 * calls


def test_a_model_that_times_out_gives_failed_cases_not_a_crashed_eval(tmp_path: Path) -> None:
    env = {"HARNESS_ROUTER_ATTEMPT_TIMEOUT_S": "0.3", "HARNESS_ROUTER_TOTAL_TIMEOUT_S": "0.8"}
    with StubOpenAI(responder=lambda body: {**respond(body), "delay": 2.0}) as stub:
        proc = harness("eval", str(_suite(tmp_path)), "--model", "openai:stub-model", "--json",
                       home=tmp_path / "home", env={**_env(stub, tmp_path), **env})
    assert proc.returncode == 0, proc.stderr  # nothing wrong was published: the gate holds
    card = scorecard(proc)
    assert [(c["outcome"], c["verdict"]) for c in card["cases"]] == [
        ("FAILED/ROUTING_UNAVAILABLE", "MISSED"), ("FAILED/ROUTING_UNAVAILABLE", "UNEXPECTED")]
    assert card["summary"]["coverage"] == 0.0 and card["summary"]["wrong"] == 0
    assert all(c["run_id"] for c in card["cases"])  # real runs, recorded FAILED in the store
