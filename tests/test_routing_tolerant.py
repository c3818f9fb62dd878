"""Tolerant routing: a wrong optional field of the router's answer is dropped with a note.

A window that ends before it starts, a window bound in the far future or a merchant that is no
id no longer fails routing: the run goes on with the default lookback (up to the dataset's
latest event), and the published report says what was ignored. Only an unusable answer (not
JSON, a missing key, a time that is not ISO-8601 with an offset) still fails it, after retries.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from graphkit import consumed, draft, go, outcome, router, seen
from langchain_core.messages import SystemMessage

from diagnosis_harness.providers.messages import prompt_of

Q = "payment failures on payment-service, why?"
NULL_DRAFT = draft(None)


def agent_window(services: Any) -> dict[str, Any]:
    """The scope values the agent's first call was given (its system prompt's values)."""
    system = next(m for m in seen(services)[0] if isinstance(m, SystemMessage))
    prompt = prompt_of(system)
    assert prompt is not None
    return dict(prompt.values)


def span_minutes(values: dict[str, Any]) -> float:
    start, end = (datetime.fromisoformat(values[k]) for k in ("start", "end"))
    return (end - start) / timedelta(minutes=1)


INVERTED = ("2026-11-02T10:10:00+00:00", "2026-11-02T10:00:00+00:00")
FUTURE = ("2099-01-01T10:00:00+00:00", "2099-01-01T10:10:00+00:00")
IGNORED_WINDOW = "Using the last 30 minutes up to the dataset's latest event instead."
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "inverted window": ({"start": INVERTED[0], "end": INVERTED[1]},
                        ["ends before it starts: ignored.", IGNORED_WINDOW]),
    "equal bounds": ({"start": INVERTED[1], "end": INVERTED[1]},
                     ["ends before it starts: ignored.", IGNORED_WINDOW]),
    "far-future window": ({"start": FUTURE[0], "end": FUTURE[1]},
                          ["window start read from the question (2099-01-01T10:00:00+00:00) is "
                           "in the future: ignored.", "window end read from the question",
                           IGNORED_WINDOW]),
    "window in year 9999": ({"start": "9999-12-31T10:00:00+00:00", "end": None},
                            ["is in the future: ignored.", IGNORED_WINDOW]),
    "odd merchant, sentence": ({"merchant": "merchant M1001 and friends", "start": None},
                               ["The merchant read from the question is not an id"]),
    "odd merchant, slash": ({"merchant": "n/a"}, ["is not an id"]),
    "inverted window and odd merchant": ({"start": INVERTED[0], "end": INVERTED[1],
                                          "merchant": "M1001?"},
                                         ["ends before it starts", "is not an id",
                                          IGNORED_WINDOW]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_wrong_optional_field_is_dropped_and_the_run_goes_on(case: str) -> None:
    fields, notes = CASES[case]
    answer = router(**{"merchant": None, "start": None, "end": None, **fields})
    services, out = go({"router": [answer], "agent": [NULL_DRAFT]}, Q)
    # Routing succeeded on the first answer and the agent investigated.
    assert consumed(services) == {"router": 1, "agent": 1}
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    values = agent_window(services)
    if "window" in case or "bounds" in case:
        assert span_minutes(values) == 30  # the default lookback …
        assert values["end"].startswith("2026-11-06")  # … up to the dataset's latest event
    if "merchant" in case:
        assert values["merchant"] == "(not given)"
    for note in notes:  # the agent is told, and the published report says so
        assert note in values["window_note"]
        assert note in out["content"]
    assert "Note: " in out["content"]


def test_a_far_future_end_keeps_the_start_and_uses_the_lookback_from_it() -> None:
    answer = router(start="2026-11-02T10:00:00+00:00", end="2099-01-01T00:00:00+00:00")
    services, out = go({"router": [answer], "agent": [NULL_DRAFT]}, Q)
    values = agent_window(services)
    assert (values["start"], values["end"]) == ("2026-11-02T10:00:00+00:00",
                                                "2026-11-02T10:30:00+00:00")
    assert "window end read from the question (2099-01-01T00:00:00+00:00) is in the future" \
        in out["content"]
    assert "No usable end time: using 30 minutes from the start." in out["content"]


def test_a_good_answer_keeps_its_window_and_merchant_without_notes() -> None:
    answer = router(merchant="M1001", start=INVERTED[1], end=INVERTED[0])
    services, out = go({"router": [answer], "agent": [NULL_DRAFT]}, Q)
    values = agent_window(services)
    assert (values["merchant"], values["start"], values["end"]) == ("M1001", *INVERTED[::-1])
    assert values["window_note"] == ""
    assert "Note: " not in out["content"]


@pytest.mark.parametrize(("fields", "missing"), [
    ({"start": INVERTED[0], "end": INVERTED[1]}, "window"),
    ({"merchant": "the big shop"}, "merchant"),
])
def test_a_dropped_field_that_is_required_is_missing_context(fields: dict[str, Any],
                                                             missing: str) -> None:
    answer = router(**{"merchant": "M1001", "start": INVERTED[1], "end": INVERTED[0], **fields})
    services, out = go({"router": [answer], "agent": [NULL_DRAFT]}, Q,
                       settings={"required_context": ["service", "merchant", "window"]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "MISSING_REQUIRED_CONTEXT", None)
    assert consumed(services) == {"router": 1}  # no evidence was collected
    assert {"window": "when it happened", "merchant": "which merchant"}[missing] in out["content"]


@pytest.mark.parametrize("answer", [
    router(start="10:00", end="10:10"),  # not ISO-8601
    router(start="2026-11-02T10:00:00", end=None),  # no offset
    router(service=None) | {"content": '{"intent": "DIAGNOSIS"}'},  # keys missing
])
def test_an_unusable_answer_still_fails_routing_after_its_retries(answer: dict[str, Any]) -> None:
    services, out = go({"router": [answer, answer], "agent": [NULL_DRAFT]}, Q)
    assert outcome(out) == ("FAILED", "FAILED", None, "ROUTING_UNAVAILABLE")
    assert consumed(services) == {"router": 2}
