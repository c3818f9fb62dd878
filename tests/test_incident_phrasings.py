"""Incident questions asked the way a channel asks them are diagnoses, not the help text (issue 41).

"bid volume fell off a cliff on every exchange since ~13:20, what is going on?" names no
service, no "why" and no error word: the offline router read it as a GENERAL question and the
capability reply was the answer. A question that describes a symptom — a drop, a spike,
errors, slowness, something down, stale or frozen — or asks what is going on is an incident;
a question about the harness itself stays general.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from diagnosis_harness.guards.incident import is_incident_question
from diagnosis_harness.providers.offline.investigation import Scope
from diagnosis_harness.providers.offline.router import route_question, unwritten_readings

NOW = datetime(2026, 6, 5, 14, 30, tzinfo=UTC)  # the data's latest event
KNOWN = ["bidder", "exchange-gw", "ads-api", "edge"]

INCIDENTS = [
    "bid volume fell off a cliff on every exchange since ~13:20, what is going on?",
    "signups dropped to zero around 13:40",
    "what's happening with the checkout page?",
    "What is going on with payouts right now?",
    "anyone know why the dashboards look frozen?",
    "conversion rate tanked after lunch",
    "orders plummeted since about 13:05",
    "traffic spiked at 13:10 and never came back",
    "dashboards stale since 13:00 — anyone?",
    "search results lagging behind by half an hour",
    "emails arriving late today",
    "consumers stopped picking up events",
]
GENERAL = [
    "what can you do?",
    "hello, what can you do?",
    "how do I use this?",
    "what is the harness?",
    "what tools do you have?",
    "how does the judge decide?",
    # Follow-ups on a thread stay general (the offline router does not read conversations).
    "who made that change?",
    "what should we do about it?",
]


@pytest.mark.parametrize("question", INCIDENTS)
def test_a_symptom_in_plain_words_is_an_incident_question(question: str) -> None:
    assert is_incident_question(question), question
    assert route_question(question, KNOWN, NOW)["intent"] == "DIAGNOSIS", question


@pytest.mark.parametrize("question", GENERAL)
def test_a_question_about_the_harness_stays_general(question: str) -> None:
    assert not is_incident_question(question), question
    assert route_question(question, KNOWN, NOW)["intent"] == "GENERAL", question


def test_a_since_with_a_tilde_is_the_question_s_own_window_up_to_the_latest_event() -> None:
    # The window starts at the time written and runs up to the data's latest event, and the
    # investigator localizes in it: the note saying so is no router-chosen look-back.
    question = INCIDENTS[0]
    routed = route_question(question, KNOWN, NOW)
    start, end = datetime.fromisoformat(routed["start"]), datetime.fromisoformat(routed["end"])
    assert (start, end) == (NOW.replace(hour=13, minute=20), NOW)
    note = " ".join(unwritten_readings(question, start, end, NOW))
    assert "\"Since\" read up to the data's latest event" in note
    assert Scope.of({"start": routed["start"], "end": routed["end"], "window_note": note}).window_given
    chosen = "The question names no time window: using the last 60 minutes up to the dataset's " \
             "latest event."
    assert not Scope.of({"start": routed["start"], "end": routed["end"],
                         "window_note": chosen}).window_given
