"""The pytest plugin as a user's project meets it: its own test package, run by pytest in a
subprocess, with no conftest — the fixtures come from the installed package's entry point.

Also runs the test module of docs/scripting.md the same way, so it cannot rot.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

USER_TESTS = '''
import os
from pathlib import Path

import pytest

from diagnosis_harness import ConfigurationError, ScriptIncomplete, diagnose

DATA = Path(__file__).parent / "data" / "orders"
WINDOW = {"start": "2026-05-04T09:00:00+00:00", "end": "2026-05-04T09:30:00+00:00"}
QUESTION = "orders time out on orders-api between 09:00 and 09:30 on 2026-05-04, why?"


def logs_call(script):
    return script.route(service="orders-api", **WINDOW).call(
        "query_logs", {"service": "orders-api", **WINDOW, "level": "WARN"})


def test_the_home_is_fresh_and_is_where_runs_go(harness_home, replay_script, harness_assert):
    assert os.environ["HARNESS_HOME"] == str(harness_home)
    assert list(harness_home.iterdir()) == []
    result = diagnose(QUESTION, model=logs_call(replay_script).draft(None), data=DATA)
    harness_assert(result, "FALLBACK", fallback_type="INSUFFICIENT_EVIDENCE")
    assert (harness_home / "runs.sqlite").is_file()
    assert result.stored_run()["question"] == QUESTION


def test_a_dataset_folder_of_the_project(harness_home, harness_dataset, replay_script,
                                         harness_assert):
    data = harness_dataset(DATA)
    script = logs_call(replay_script).draft(
        "the inventory lock is contended", {"lock wait timeouts on orders-api": ["E1.2"]}
    ).judge("SUPPORTED")
    result = diagnose(QUESTION, model=script, data=data)
    harness_assert(result, "SUCCESS", run_state="SUCCESS")
    assert "lock wait timeout" in result.claims[0].evidence[0].text


def test_an_inline_dataset_and_a_missing_context_fallback(harness_home, harness_dataset,
                                                          replay_script, harness_assert):
    data = harness_dataset(logs=[{"ts": "2026-05-04T09:01:00+00:00", "service": "orders-api",
                                  "level": "ERROR", "message": "boom"}], name="inline")
    result = diagnose(QUESTION, model=replay_script.route(service=None), data=data)
    harness_assert(result, "FALLBACK", fallback_type="MISSING_REQUIRED_CONTEXT")
    assert result.fallback.missing_context == ("service",)
    assert result.usage.tool_calls == 0


def test_a_broken_inline_dataset_names_its_line(harness_dataset):
    with pytest.raises(ConfigurationError, match="logs.jsonl:2"):
        harness_dataset(logs=[{"ts": "2026-05-04T09:01:00+00:00", "service": "orders-api",
                               "level": "ERROR", "message": "ok"},
                              {"ts": "yesterday", "service": "orders-api", "level": "ERROR",
                               "message": "bad time"}])


def test_the_assertion_helper_sees_a_view_that_disagrees(harness_home, replay_script,
                                                         harness_assert):
    result = diagnose(QUESTION, model=logs_call(replay_script).draft(None), data=DATA)
    tampered = result.model_copy(update={"content": "a root cause nobody verified"})
    with pytest.raises(AssertionError) as raised:
        harness_assert(tampered)
    assert "stored content" in str(raised.value)
    assert "content event" in str(raised.value)


def test_expected_to_fail_wrong_outcome(harness_home, replay_script, harness_assert):
    result = diagnose(QUESTION, model=logs_call(replay_script).draft(None), data=DATA)
    harness_assert(result, "SUCCESS")


def test_expected_to_fail_incomplete_script(harness_home, replay_script):
    diagnose(QUESTION, model=logs_call(replay_script), data=DATA)
'''

ORDERS_LOGS = "\n".join([
    '{"ts": "2026-05-04T09:02:00+00:00", "service": "orders-api", "level": "WARN", '
    '"message": "inventory: lock wait timeout exceeded on sku_stock"}',
    '{"ts": "2026-05-04T09:04:00+00:00", "service": "orders-api", "level": "WARN", '
    '"message": "inventory: lock wait timeout exceeded on sku_stock"}',
    '{"ts": "2026-05-04T09:05:00+00:00", "service": "orders-api", "level": "INFO", '
    '"message": "order created order_id=o-1"}',
]) + "\n"


def _user_project(root: Path, tests: str) -> Path:
    """A project of its own: pytest config, a test module, a dataset folder; no conftest."""
    (root / "tests" / "data" / "orders" / "knowledge").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                                         encoding="utf-8")
    (root / "tests" / "test_incidents.py").write_text(tests, encoding="utf-8")
    data = root / "tests" / "data" / "orders"
    (data / "logs.jsonl").write_text(ORDERS_LOGS, encoding="utf-8")
    (data / "knowledge" / "locks.md").write_text(
        "# Lock contention\n\n## Symptoms\n\nlock wait timeout exceeded\n", encoding="utf-8")
    return root


def _pytest(root: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, str | None]]:
    """Run pytest in ``root`` as its user would; returns the run and test name → failure."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "PYTEST_"))}
    report = root / "report.xml"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          f"--junitxml={report}"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=300)
    outcomes: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        outcomes[case.attrib["name"]] = None if failure is None else failure.attrib["message"]
    return run, outcomes


def test_the_fixtures_work_in_a_users_own_test_package(tmp_path: Path) -> None:
    root = _user_project(tmp_path / "user-project", USER_TESTS)
    run, outcomes = _pytest(root)
    assert not list(root.rglob("conftest.py"))  # the fixtures can only come from the plugin
    expected_failures = {name for name in outcomes if "expected_to_fail" in name}
    assert {n: m for n, m in outcomes.items() if n not in expected_failures} == \
        {name: None for name in outcomes if name not in expected_failures}, run.stdout
    assert len(outcomes) == 7 and len(expected_failures) == 2
    wrong = outcomes["test_expected_to_fail_wrong_outcome"] or ""
    assert "FALLBACK" in wrong and "expected release_outcome 'SUCCESS'" in wrong
    incomplete = outcomes["test_expected_to_fail_incomplete_script"] or ""
    assert "ScriptIncomplete" in incomplete and "agent call #2" in incomplete
    assert run.returncode == 1  # exactly the two deliberate failures


def _readme_example() -> str:
    """The test module of docs/scripting.md (its ```python pytest block)."""
    text = (REPO / "docs" / "scripting.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python pytest[^\n]*\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "the page has one example test module"
    return blocks[0]


def test_the_readme_example_runs_as_a_users_test_module(tmp_path: Path) -> None:
    example = _readme_example()
    assert "import diagnosis_harness." not in example and "from app" not in example
    root = tmp_path / "readme-project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (root / "test_readme_example.py").write_text(textwrap.dedent(example), encoding="utf-8")
    run, outcomes = _pytest(root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(outcomes) >= 3 and set(outcomes.values()) == {None}
