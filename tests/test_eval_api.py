"""`diagnosis_harness.evaluate` and the pytest helper, used as a user's project would."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from evalkit import replay_suite

from diagnosis_harness import ConfigurationError, Gates, Scorecard, Verdict, evaluate


def test_evaluate_returns_the_typed_scorecard_of_the_cli(tmp_path: Path) -> None:
    card = evaluate("demo", model="offline", home=tmp_path, workers=3)
    assert isinstance(card, Scorecard)
    assert (card.summary.as_expected, card.summary.precision) == (7, 1.0)
    assert card.cases[0].verdict is Verdict.RIGHT and card.cases[0].run is not None
    assert card.cases[0].run.root_cause and "pool" in card.cases[0].run.root_cause
    assert Gates(min_coverage=1.0).failures(card.summary) == []
    wrong = evaluate(replay_suite(tmp_path / "s", wrong=1), home=tmp_path)
    assert Gates().failures(wrong.summary) == [
        "1 wrong published root cause(s), at most 0 allowed (--max-wrong)"]


def test_a_broken_suite_is_a_configuration_error(tmp_path: Path) -> None:
    bad = tmp_path / "s.yaml"
    bad.write_text("name: x\ncases: []\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"s.yaml: cases: Tuple should have at least 1 item"):
        evaluate(bad, home=tmp_path)


USER_TESTS = '''
from pathlib import Path

from diagnosis_harness.pytest_plugin import eval_suite_tests

TestIncidents = eval_suite_tests(Path(__file__).parent / "suite" / "suite.yaml")
TestDemo = eval_suite_tests("demo", model="offline", min_precision=1.0, min_coverage=1.0)
'''


def test_the_pytest_helper_makes_one_test_per_case_and_gates(tmp_path: Path) -> None:
    project = tmp_path / "project"
    replay_suite(project / "tests" / "suite", wrong=1)
    (project / "tests" / "test_incidents.py").write_text(textwrap.dedent(USER_TESTS), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env["HARNESS_HOME"] = str(tmp_path / "home")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--junitxml", str(tmp_path / "r.xml"), "tests"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[-3000:]
    outcomes = {}
    for case in ET.parse(tmp_path / "r.xml").getroot().iter("testcase"):
        failed = case.find("failure") is not None
        outcomes[f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"] = failed
    assert outcomes == {
        "TestIncidents::test_case[right]": False, "TestIncidents::test_case[wrong-1]": True,
        "TestIncidents::test_gates": True,
        **{f"TestDemo::test_case[{i}]": False for i in
           ("INC-1", "INC-2", "INC-3", "INC-4", "INC-5", "INC-6", "NOEV-1")},
        "TestDemo::test_gates": False}
    assert "wrong-1: wrong root cause published: root cause does not name pool" in proc.stdout
