"""The offline investigator reads data, not wording: it gives the same outcomes under both agent
protocols, and with every prompt reworded."""

from __future__ import annotations

import asyncio
import codecs
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from graphkit import demo_home, outcome
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness import prompts
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn
from diagnosis_harness.tools.dataset.build import demo_dataset_dir

TRUTH = json.loads((demo_dataset_dir() / "truth.json").read_text())
INCIDENTS = TRUTH["incidents"] + TRUTH["no_evidence"]


@cache
def services(protocol: str) -> Services:
    return Services.from_settings(load_settings(model="offline", home=demo_home(),
                                                agent_protocol=protocol))


def diagnose(protocol: str, question: str) -> dict[str, Any]:
    return asyncio.run(run_turn(services(protocol), question, checkpointer=InMemorySaver()))


@cache
def baseline(protocol: str, question: str) -> dict[str, Any]:
    """A run with the prompts as shipped (shared by the tests of this module)."""
    return diagnose(protocol, question)


def expected(incident: dict[str, Any]) -> tuple[Any, ...]:
    """(run_state, release_outcome, fallback_type, failure_code) the truth file implies."""
    return "SUCCESS", incident["expected_outcome"], incident["fallback_type"], None


@pytest.mark.parametrize("incident", INCIDENTS, ids=lambda i: i["id"])
def test_json_protocol_gives_the_same_outcome_as_native_tools(incident: dict[str, Any]) -> None:
    native = baseline("tools", incident["question"])
    envelopes = baseline("json", incident["question"])
    assert outcome(native) == expected(incident), native["content"]
    assert outcome(envelopes) == outcome(native), envelopes["content"]
    # The same investigation, spoken in envelopes: same tool calls, same published text.
    assert envelopes["usage"] == native["usage"]
    assert envelopes["usage"]["tool_calls"] > 0
    assert envelopes["content"] == native["content"]
    # …and spoken in envelopes indeed: the json wrapper numbers the calls it parsed.
    calls = [r["tool_call_id"] for r in services("json").store.trace(
        envelopes["run_id"])["tool_records"]]
    assert calls == [f"call_{n}" for n in range(1, len(calls) + 1)]


_KEEP = re.compile(r"(\{\{|\}\}|\{[A-Za-z_][A-Za-z0-9_]*\})")
"""What a reworded prompt must keep: its placeholders and its escaped braces."""


def reworded(text: Callable[[str], str]) -> Callable[[str], str]:
    """A prompt loader whose every sentence is prefixed and whose every word is rewritten."""
    def load(name: str) -> str:
        parts = _KEEP.split(text(name))
        return "Reworded for a test. " + "".join(
            p if _KEEP.fullmatch(p) else codecs.encode(p, "rot13") for p in parts)
    return load


def facts(out: dict[str, Any]) -> tuple[Any, ...]:
    """What a run decided and published, and what it spent."""
    return (*outcome(out), out["intent"], out["content"], out["usage"])


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_rewording_every_prompt_changes_no_offline_outcome(
        protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = {i["id"]: facts(baseline(protocol, i["question"])) for i in INCIDENTS}
    monkeypatch.setattr(prompts, "_text", reworded(prompts._text))
    router = prompts.render("router", **dict.fromkeys(prompts.fields("router"), "v"))
    assert "Now the real question to route" not in router and "question" not in router
    for incident in INCIDENTS:
        out = diagnose(protocol, incident["question"])
        assert outcome(out) == expected(incident), (incident["id"], out["content"])
        assert facts(out) == before[incident["id"]], incident["id"]
