"""Events at the edge of the calendar never break a diagnosis (a corrupt or skewed stamp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnosis_harness import diagnose, write_dataset

ERROR = {"ts": "2026-03-01T14:02:00+00:00", "service": "checkout", "level": "ERROR",
         "message": "upstream payments-api:8443 timed out"}
SKEWED = {"ts": "9999-12-31T23:59:00+00:00", "service": "checkout", "level": "INFO",
          "message": "clock skew"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.mark.parametrize("question", [
    "checkout errors between 14:00 and 14:10 on 2026-03-01, why?",
    "checkout errors, why?",  # no window: the last hour up to the latest (real) event
])
def test_an_event_in_year_9999_does_not_take_over_now(home: Path, question: str) -> None:
    data = write_dataset(home / "ds", logs=[ERROR, SKEWED])
    result = diagnose(question, data=data)
    assert result.release_outcome != "FAILED", (result.failure_code, result.content)
    # The window investigated holds the real error, not the year 9999.
    assert any("timed out" in fact.text for fact in result.fallback.facts)


@pytest.mark.parametrize("zone", ["UTC", "+08:00", "-05:00"])
def test_a_dataset_dated_at_the_end_of_the_calendar_is_investigated(home: Path, zone: str) -> None:
    data = write_dataset(home / "ds", logs=[{**SKEWED, "level": "ERROR", "message": "disk full"}])
    result = diagnose("checkout errors, why?", data=data, settings={"timezone": zone})
    assert result.release_outcome == "FALLBACK", (result.failure_code, result.content)
