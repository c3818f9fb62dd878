"""A day-first numeric date with its year is a written year (issue 40's frictions).

Players asked about "10.11.2026" and "12.11.2026" and the report said "No year given: read as
2026." — through the offline router and through a model's router answer alike, since both scope
notes come from ``unwritten_readings``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from graphkit import COLLECT, INC, INC_ROUTER, draft, go, judge
from offline_runs import diagnose, nginx_502s, offline_services

from diagnosis_harness.providers.offline.router import route_question, unwritten_readings

NOW = datetime(2026, 11, 20, 23, 59, tzinfo=UTC)


@pytest.mark.parametrize("day", ["19.11.2026", "19/11/2026", "2026/11/19", "19.11.2026."])
def test_a_numeric_date_with_its_year_needs_no_year_note(day: str) -> None:
    question = f"nginx 502s on {day} between 14:00 and 14:30, why?"
    answer = route_question(question, ["nginx"], NOW)
    start, end = (datetime.fromisoformat(answer[k]) for k in ("start", "end"))
    assert (start, end) == (datetime(2026, 11, 19, 14, tzinfo=UTC),
                            datetime(2026, 11, 19, 14, 30, tzinfo=UTC))
    assert unwritten_readings(question, start, end, NOW) == []


def test_a_dotted_day_without_its_year_is_still_said() -> None:
    question = "nginx 502s am 19.11. zwischen 14:00 und 14:30, warum?"
    answer = route_question(question, ["nginx"], NOW)
    start, end = (datetime.fromisoformat(answer[k]) for k in ("start", "end"))
    assert unwritten_readings(question, start, end, NOW) == ["No year given: read as 2026."]


def test_the_offline_report_does_not_claim_the_year_was_missing(tmp_path: Path) -> None:
    out = diagnose(offline_services(nginx_502s(tmp_path), tmp_path / "home"),
                   "nginx 502s on 19.11.2026 between 14:00 and 14:30, why?")
    assert "2026-11-19T14:00" in out["content"]
    assert "No year given" not in out["content"], out["content"]


def test_a_model_routers_window_on_a_dotted_date_gets_no_year_note() -> None:
    question = INC["question"].replace("2026-11-02", "02.11.2026")
    assert "02.11.2026" in question
    _, out = go({"router": [INC_ROUTER], "agent": [*COLLECT, draft(None)],
                 "judge": [judge("SUPPORTED")]}, question)
    assert "No year given" not in out["content"], out["content"]
