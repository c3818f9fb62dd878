"""Poison notifications are refused at the door (4xx, ``alerts test`` exit 64), never accepted
and then failed: a deeply nested body, a year-1 ``startsAt``, annotations too long for a question.
The served routes' answers are in ``test_alerts_served.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_alert_intake import am_payload

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.serving.alert_payload import AlertPayloadError, parse_alertmanager
from diagnosis_harness.serving.alerts import Intake

NESTED = b'{"version": "4", "groupKey": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
"""A 400 KB body, under a raised body limit: json.loads alone raises RecursionError on it."""


def year_one() -> bytes:
    doc = am_payload()
    doc["alerts"][0]["startsAt"] = "0001-06-01T00:00:00Z"
    return json.dumps(doc).encode()


def long_annotations(n: int = 8, size: int = 500) -> dict[str, str]:
    return {f"note_{i}": f"{i} " + "x" * (size - 2) for i in range(n)}


@pytest.mark.parametrize("body", [NESTED, year_one()], ids=["nested", "year-1"])
def test_poison_bodies_are_a_payload_error_not_a_crash(body: bytes) -> None:
    with pytest.raises(AlertPayloadError):
        group = parse_alertmanager(body)
        Intake(load_settings(), None, None, None).question(group)  # type: ignore[arg-type]


def test_long_annotations_are_clipped_longest_first_to_fit_the_question_limit() -> None:
    settings = load_settings()
    notes = {**long_annotations(), "summary": "5xx above 5 %"}
    group = parse_alertmanager(json.dumps(am_payload(**notes)).encode())
    question = Intake(settings, None, None, None).question(group)  # type: ignore[arg-type]
    assert len(question.encode()) <= settings.max_question_bytes
    assert "[clipped: the longest annotations were cut to" in question
    assert "- summary: 5xx above 5 %" in question  # a short one is kept whole
    assert all(f"- note_{i}: {i} xxx" in question for i in range(8))  # each long one, clipped


def test_annotations_that_cannot_fit_are_refused_not_started() -> None:
    settings = load_settings(max_question_bytes=600)
    group = parse_alertmanager(json.dumps(am_payload(**long_annotations(40))).encode())
    with pytest.raises(AlertPayloadError, match="does not fit the question limit"):
        Intake(settings, None, None, None).question(group)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["nested", "year-1", "too-long"])
def test_harness_alerts_test_exits_64_on_poison(tmp_path: Path, name: str) -> None:
    file = tmp_path / "alert.json"
    file.write_bytes({"nested": NESTED, "year-1": year_one(),
                      "too-long": json.dumps(am_payload(**long_annotations(40))).encode()}[name])
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_ALERTS_MAX_BODY_BYTES="1000000",
               HARNESS_MAX_QUESTION_BYTES="1000")
    ran = subprocess.run([sys.executable, "-m", "diagnosis_harness", "alerts", "test", str(file)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert ran.returncode == 64, (ran.returncode, ran.stderr[-2000:])
    assert "Traceback" not in ran.stderr and not ran.stdout
    assert "4xx" in ran.stderr and len(ran.stderr.splitlines()) == 1
