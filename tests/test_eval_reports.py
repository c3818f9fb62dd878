"""`harness eval`'s reports: JUnit XML read by a real JUnit parser, the Markdown comment (golden),
`--baseline` regressions and fixes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml
from evalkit import harness, replay_suite
from junitparser import Failure, JUnitXml

GOLDEN = Path(__file__).parent / "data" / "eval" / "report.md"


def _suite_with_right_case(suite: Path) -> Path:
    """The same suite with wrong-1 scripted right: the 'before' of a regression."""
    doc = yaml.safe_load(suite.read_text(encoding="utf-8"))
    for case in doc["cases"]:
        if case["id"] == "wrong-1":
            case["model"] = "replay:right.json"
    before = suite.with_name("before.yaml")
    before.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return before


def test_junit_markdown_and_baseline(tmp_path: Path) -> None:
    suite = replay_suite(tmp_path / "suite", wrong=2)
    before = harness("eval", str(_suite_with_right_case(suite)), "--json", home=tmp_path)
    assert before.returncode == 4  # wrong-2 is wrong already
    baseline = tmp_path / "baseline.json"
    baseline.write_text(before.stdout, encoding="utf-8")

    out = tmp_path / "out"
    proc = harness("eval", str(suite), "--out", str(out), "--baseline", str(baseline), home=tmp_path)
    assert proc.returncode == 4
    assert "regression wrong-1: RIGHT → WRONG" in proc.stdout

    # JUnit: one testcase per case; the wrong successes are failures naming why.
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    [suite_xml] = list(xml)
    cases = {case.name: case for case in suite_xml}
    assert set(cases) == {"right", "wrong-1", "wrong-2"}
    assert suite_xml.tests == 3 and suite_xml.failures == 2
    assert cases["right"].is_passed
    for name in ("wrong-1", "wrong-2"):
        [failure] = cases[name].result
        assert isinstance(failure, Failure) and failure.type == "WRONG"
        assert failure.message.startswith("wrong root cause published: root cause does not name pool")
    assert "run " in (cases["right"].system_out or "")

    # Markdown: the PR comment, golden apart from the code version.
    scorecard = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    text = (out / "report.md").read_text(encoding="utf-8")
    text = text.replace(scorecard["scorecard"]["code_version"], "<code version>")
    text = text.replace(str(baseline), "<baseline>")
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    comparison = scorecard["comparison"]
    assert [c["id"] for c in comparison["regressions"]] == ["wrong-1"]
    assert comparison["fixes"] == [] and comparison["deltas"]["wrong"] == 1


def test_a_baseline_that_is_not_a_scorecard_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    proc = harness("eval", "demo", "--baseline", str(bad), home=tmp_path)
    assert proc.returncode == 64 and proc.stderr.startswith(f"harness: baseline {bad}: not a")
