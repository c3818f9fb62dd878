"""Builders for replay scripts and a one-call driver of the whole graph on the demo data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph.runner import Services, run_turn
from harness.models import ModelSeam
from harness.replay import ReplayScript
from harness.settings import load_settings
from harness.store import SqliteRunStore

USAGE = {"input_tokens": 100, "output_tokens": 20}


def router(intent: str = "DIAGNOSIS", service: str | None = "payment-service",
           merchant: str | None = None, start: str | None = None,
           end: str | None = None) -> dict[str, Any]:
    body = {"intent": intent, "service": service, "merchant": merchant, "start": start, "end": end}
    return {"content": json.dumps(body), "usage": USAGE}


def call(name: str, args: dict[str, Any], call_id: str, prev: str | None = None,
         gain: str = "GAINED") -> dict[str, Any]:
    a = dict(args)
    if prev is not None:
        a["previous_observation"] = {"tool_call_id": prev, "gain": gain, "note": "t"}
    return {"content": "", "tool_calls": [{"name": name, "args": a, "id": call_id}],
            "usage": USAGE}


def draft(root_cause: str | None, claims: list[tuple[str, list[str]]] | None = None,
          next_steps: list[str] | None = None, fence: bool = False) -> dict[str, Any]:
    conclusion = None if root_cause is None else {
        "root_cause": root_cause,
        "claims": [{"statement": s, "evidence_ids": ids} for s, ids in (claims or [])]}
    text = json.dumps({"conclusion": conclusion, "next_steps": next_steps or ["check again"]})
    return {"content": f"```json\n{text}\n```" if fence else text, "usage": USAGE}


def text(content: str) -> dict[str, Any]:
    return {"content": content, "usage": USAGE}


def judge(verdict: str = "SUPPORTED") -> dict[str, Any]:
    return {"content": json.dumps({"verdict": verdict, "reasons": ["r"]}), "usage": USAGE}


def services_for(home: Path, script: dict[str, list[Any]], **overrides: Any) -> Services:
    settings = load_settings(model="replay:inline", home=home, **overrides)
    seam = ModelSeam(settings, replay_script=ReplayScript(script))
    return Services.from_settings(settings, seam=seam,
                                  store=SqliteRunStore(home / "runs.sqlite"))


def run(services: Services, question: Any, *, checkpointer: Any = None,
        thread_id: str | None = None, **kw: Any) -> dict[str, Any]:
    return asyncio.run(run_turn(services, question, thread_id=thread_id,
                                checkpointer=checkpointer or InMemorySaver(), **kw))


def kinds(out: dict[str, Any]) -> list[str]:
    """The event types in order, with consecutive status events folded into one 'status*'."""
    seq: list[str] = []
    for e in out["events"]:
        k = "status*" if e["event"] == "status" else e["event"]
        if not (seq and seq[-1] == k == "status*"):
            seq.append(k)
    return seq
