"""Windows are read as written, and every reading the question did not write is said (issue 38).

"between 20:00 on 2008-11-10 and 02:00 on 2008-11-11" once became the whole of 10 November,
"from … to …" with a day on each end 30 minutes and "No end time given", and a time with no
date was put on the data's last day in silence. The SDK example of docs/serving.md landed on
the demo's last day and missed its incident.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from offline_runs import diagnose, nginx_502s, offline_services

from diagnosis_harness.providers.offline.router import route_question

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 20, 23, 59, tzinfo=UTC)  # the data's latest event


@pytest.mark.parametrize(("question", "start", "end"), [
    ("nginx errors between 20:00 on 2008-11-10 and 02:00 on 2008-11-11, why?",
     "2008-11-10T20:00:00+00:00", "2008-11-11T02:00:00+00:00"),
    ("nginx errors from 20:00 on 2008-11-10 to 02:00 on 2008-11-11, why?",
     "2008-11-10T20:00:00+00:00", "2008-11-11T02:00:00+00:00"),
    ("nginx errors from 10 Nov 2008 20:00 to 11 Nov 2008 02:00, why?",
     "2008-11-10T20:00:00+00:00", "2008-11-11T02:00:00+00:00"),
    ("nginx errors between 20:00 and 02:00 on 2008-11-10, why?",
     "2008-11-10T20:00:00+00:00", "2008-11-11T02:00:00+00:00"),
    ("nginx errors since 09:00 on 2026-11-20, why?",
     "2026-11-20T09:00:00+00:00", NOW.isoformat()),
    # A "since" days back names the incident's start: the look-back's length from there.
    ("nginx errors since 14:00 on 2026-11-14, why?", "2026-11-14T14:00:00+00:00", None),
    ("nginx errors since 14:00, why?", "2026-11-20T14:00:00+00:00", NOW.isoformat()),
])
def test_a_window_is_read_as_written(question: str, start: str, end: str) -> None:
    answer = route_question(question, ["nginx"], NOW)
    assert (answer["start"], answer["end"]) == (start, end)


@pytest.mark.parametrize(("question", "notes"), [
    ("nginx 502s between 14:00 and 14:30, why?",
     ["No date given: read as 2026-11-20, the data's last day."]),
    ("nginx 502s between 22:00 and 01:00, why?",
     # the end is read on the next day, then ended at the latest data, and the note says both
     ["No date given: read as 2026-11-20, the data's last day.",
      "The window's end read from the question (2026-11-21T01:00:00+00:00) is after the "
      "latest data (2026-11-20T23:59:00+00:00): ended there."]),
    ("nginx 502s on Nov 19 between 14:00 and 14:30, why?", ["No year given: read as 2026."]),
    ("nginx 502s since 14:00 on 2026-11-20, why?",
     ["\"Since\" read up to the data's latest event (2026-11-20T23:59:00+00:00)."]),
    ("nginx 502s between 14:00 and 14:30 on 2026-11-19, why?", []),
])
def test_the_report_says_each_reading_the_question_did_not_write(
        tmp_path: Path, question: str, notes: list[str]) -> None:
    out = diagnose(offline_services(nginx_502s(tmp_path), tmp_path / "home"), question)
    for note in notes:
        assert note in out["content"]
    if not notes:
        assert "read as" not in out["content"]


def test_the_sdk_example_lands_on_the_demo_incident(tmp_path: Path) -> None:
    serving = (ROOT / "docs" / "serving.md").read_text(encoding="utf-8")
    questions = re.findall(r'question"?\s*[:=]\s*"([^"]*10:00 and 10:10[^"]*)"', serving)
    assert len(questions) == 2  # the SDK example and the curl example
    demo = ROOT / "diagnosis_harness" / "tools" / "demo_data"
    for question in questions:
        answer = route_question(question, ["payment-service"], datetime(2026, 11, 6, 17, 58,
                                                                        tzinfo=UTC))
        assert (answer["start"], answer["end"]) == ("2026-11-02T10:00:00+00:00",
                                                    "2026-11-02T10:10:00+00:00")
    out = diagnose(offline_services(demo, tmp_path / "home"), questions[0])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "pool" in out["content"].lower() and "CHG-2041" in out["content"]
