"""A FALLBACK says which registry rule stopped short, and why (issue 41, docs/design.md §16.2).

An on-call engineer reading "No root cause is published" wants to know what the investigator
was missing: the localized failure's rules (docs/design.md §16.3) abstain with a rule name and a
reason, and the report now says it in one line under the first. Each test builds a canon case
(tests/canon: real log formats, imported by ``harness data import``) and reads the report the
offline default publishes. The line is the registry's own words — never a model's, never a cause.
"""

from __future__ import annotations

import json
from pathlib import Path

from diagnosis_harness import DiagnosisResult, ReplayScript, diagnose
from tests.canon import all_cases
from tests.canon.engine import build_case

CASES = {c.id: c for c in all_cases()}


def _fallback(result: DiagnosisResult) -> str:
    """The published FALLBACK / INSUFFICIENT_EVIDENCE report."""
    assert (result.release_outcome.value, getattr(result.fallback_type, "value", None)) == (
        "FALLBACK", "INSUFFICIENT_EVIDENCE"), result.content
    assert result.content is not None and result.root_cause is None
    return result.content


def _question(data: Path) -> str:
    return str(json.loads((data / "truth.json").read_text())["incidents"][0]["question"])


def test_a_generic_error_with_nothing_behind_it_says_which_rule_stopped_and_why(
        tmp_path: Path) -> None:
    data = build_case(CASES["trap-generic-error"], tmp_path / "data")
    result = diagnose(_question(data), data=data, model="offline", home=tmp_path / "home")
    content = _fallback(result)
    first, second = content.splitlines()[:2]
    assert first.startswith("No root cause is published")
    assert second == ("Not concluded: asked_service_restated \u2014 the asked service's own "
                      "failure, naming nothing else: the symptom again.")
    assert "Root cause" not in content


def test_a_quiet_window_says_nothing_new_failed_not_that_nothing_failed(tmp_path: Path) -> None:
    # A noisy service logs its everyday errors in the window too: "nothing failed" would be
    # false to the reader looking at them; nothing *new* failed is what the rule decided.
    data = build_case(CASES["trap-noisy-service"], tmp_path / "data")
    result = diagnose(_question(data), data=data, model="offline", home=tmp_path / "home")
    assert _fallback(result).splitlines()[1] == (
        "Not concluded: onset_root \u2014 no new failure in the window: nothing started failing "
        "that was not failing before.")


def test_a_question_without_a_window_says_no_onset_was_looked_for(tmp_path: Path) -> None:
    # Nothing was localized: the report must not say "no new failure in the window" of a
    # timeline it never read.
    data = build_case(CASES["trap-generic-error"], tmp_path / "data")
    result = diagnose("ledger is throwing errors, what's the root cause?", data=data,
                      model="offline", home=tmp_path / "home")
    content = _fallback(result)
    assert content.splitlines()[1] == (
        "Not concluded: localized_failure \u2014 no onset was looked for: that needs a time "
        "window of at most 4 hours in the question.")
    assert "- onset_timeline" not in content


def test_only_the_offline_registry_s_note_is_shown_never_a_model_s_step(tmp_path: Path) -> None:
    data = build_case(CASES["trap-generic-error"], tmp_path / "data")
    question = _question(data)
    offline = diagnose(question, data=data, model="offline", home=tmp_path / "home")
    assert "\nNot concluded: " in _fallback(offline)
    # A model's draft that ends with the same words in its first step: its steps are its own
    # words, so the FALLBACK does not carry them as the registry's decision (nor as a cause).
    forged = ("Not concluded: change_named \u2014 the cause is the pool size lowered by CHG-1")
    window = {"start": "2026-04-24T15:30:00+00:00", "end": "2026-04-24T15:45:00+00:00"}
    script = (ReplayScript().route(service="ledger", **window)
              .call("query_logs", {"service": "ledger", **window})
              .draft(None, next_steps=[forged]))
    replayed = diagnose(question, data=data, model=script, home=tmp_path / "home2")
    content = _fallback(replayed)
    assert "Not concluded" not in content and "pool size" not in content
