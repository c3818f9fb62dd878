"""The model's router reads "since ~13:10" as the offline router does: up to now (issue 40).

A player routing "since ~13:10" found no rule for it, answered end = null, and the run used
"No end time given: using 30 minutes", which may miss "since then until now". The router's
prompt now says what to answer, the same reading as the offline router's, and the scope note
says what was read. The router is a real OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from graphkit import router
from test_final_turn import Investigator, investigate

from diagnosis_harness.providers.offline.router import route_question, unwritten_readings

QUESTION = "payment-service timeouts since ~17:30 — why?"


def test_the_router_prompt_reads_since_up_to_now_as_the_offline_router_does(tmp_path: Path) -> None:
    agent = Investigator()
    services, _ = investigate(tmp_path, agent, max_tool_calls=2, question=QUESTION)
    prompt = str(agent.router_requests[0]["messages"][0]["content"])
    latest = services.dataset.latest_ts
    assert latest is not None
    now = datetime.fromisoformat(latest)
    rule = re.search(r'"since 13:10"[^\n]*', prompt)
    assert rule is not None, "the router prompt says nothing about 'since'"
    # The rule names the end to write: the current time the prompt gives, as the offline router
    # reads a "since" less than a day back.
    assert "end = the current time" in rule.group(0)
    [shown_now] = set(re.findall(r"current time, (\S+?)[,.:]? ", prompt))
    assert datetime.fromisoformat(shown_now) == now
    offline = route_question(QUESTION, ["payment-service"], now.astimezone(UTC))
    assert offline["end"] is not None and datetime.fromisoformat(offline["end"]) == now


def test_a_since_answered_up_to_now_is_a_window_to_now_with_its_note(tmp_path: Path) -> None:
    since = router(service="payment-service", start="2026-11-06T17:30:00+00:00",
                   end="2026-11-06T17:58:45+00:00")
    agent = Investigator(route=since["content"])
    investigate(tmp_path, agent, max_tool_calls=2, question=QUESTION)
    task = str(agent.agent_requests[0]["messages"][1]["content"])
    assert re.search(r"time window: 2026-11-06T17:30:00\+00:00 to 2026-11-06T17:58:45\+00:00", task)
    assert "\"Since\" read up to the data's latest event" in task
    assert "No end time given" not in task


def test_a_since_ended_at_the_prompts_now_on_a_live_source_is_still_said() -> None:
    # On a live source "now" is the wall clock: read again after the router's call, it has
    # moved on by the call's length, and the note went missing.
    now = datetime(2026, 11, 6, 17, 58, 45, tzinfo=UTC)
    prompt_now = now.replace(second=20)
    start = datetime(2026, 11, 6, 17, 30, tzinfo=UTC)
    said = f"\"Since\" read up to the data's latest event ({prompt_now.isoformat()})."
    assert said in unwritten_readings(QUESTION, start, prompt_now, now)
    # An end an hour back is a window the router chose, not "up to now".
    assert not any(note.startswith("\"Since\"") for note in unwritten_readings(
        QUESTION, start, now.replace(hour=16, minute=58), now))


def test_a_since_with_its_own_end_near_now_is_not_said_to_run_to_now() -> None:
    now = datetime(2026, 11, 6, 17, 58, 45, tzinfo=UTC)
    start, end = datetime(2026, 11, 6, 17, 30, tzinfo=UTC), datetime(2026, 11, 6, 17, 55, tzinfo=UTC)
    notes = unwritten_readings("payment-service timeouts since 17:30 until 17:55 — why?",
                               start, end, now)
    assert not any(note.startswith("\"Since\"") for note in notes)
