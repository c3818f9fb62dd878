"""`harness eval`: the demo suite, wrong published causes failing the gate, broken suites, determinism.

Each kind of answer (a scorecard, a failed gate, a broken suite) comes from a real ``harness``
process once; the commands that only read what a run stored (``runs show``, ``runs list``) and
the second answer of a kind run the same CLI in this process (tests/clikit.py), ~2 s less each.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from clikit import cli_here
from evalkit import Q1, ROOT, harness, replay_suite, scorecard

from diagnosis_harness.eval.suite import SuiteError, json_schema, load_suite


class Here:
    """evalkit's ``harness(*args, home=…, env=…)`` in this process: the same home and folder."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.monkeypatch, self.capsys = monkeypatch, capsys

    def __call__(self, *args: str, home: Path,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        home.mkdir(parents=True, exist_ok=True)
        return cli_here(self.monkeypatch, self.capsys, *args, cwd=home,
                        env={"HARNESS_HOME": str(home), **(env or {})})


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Here:
    return Here(monkeypatch, capsys)


def test_the_demo_suite_is_seven_of_seven_with_precision_one(tmp_path: Path, here: Here) -> None:
    proc = harness("eval", "demo", "--json", "--out", str(tmp_path / "out"), home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    card = scorecard(proc)
    s = card["summary"]
    assert (s["cases"], s["as_expected"], s["right"], s["honest"], s["wrong"]) == (7, 7, 4, 3, 0)
    assert s["precision"] == 1.0 and s["coverage"] == 1.0
    assert s["cost_total"] == 0.0  # offline costs nothing
    assert [c["verdict"] for c in card["cases"]] == ["RIGHT"] * 4 + ["HONEST"] * 3
    # Each case is an ordinary run: `harness runs show` opens it.
    run_id = card["cases"][0]["run_id"]
    shown = here("runs", "show", run_id, "--json", home=tmp_path)
    assert shown.returncode == 0 and json.loads(shown.stdout)["run"]["release_outcome"] == "SUCCESS"
    assert (tmp_path / "out" / "scorecard.json").is_file()


def test_wrong_drafts_judged_supported_are_wrong_successes_and_fail_the_gate(tmp_path: Path,
                                                                           here: Here) -> None:
    suite = replay_suite(tmp_path / "suite", wrong=2)
    proc = harness("eval", str(suite), "--json", home=tmp_path)
    assert proc.returncode == 4, proc.stderr  # --max-wrong defaults to 0
    out = json.loads(proc.stdout)
    card = out["scorecard"]
    verdicts = {c["id"]: (c["outcome"], c["verdict"]) for c in card["cases"]}
    assert verdicts == {"right": ("SUCCESS", "RIGHT"), "wrong-1": ("SUCCESS", "WRONG"),
                        "wrong-2": ("SUCCESS", "WRONG")}
    assert card["summary"]["precision"] == pytest.approx(1 / 3, abs=1e-3)
    assert out["gates"]["failures"] == ["2 wrong published root cause(s), at most 0 allowed (--max-wrong)"]
    assert "does not name pool" in next(c["why"] for c in card["cases"] if c["id"] == "wrong-1")
    # Tokens come from the run rows: 5 scripted calls of 120 tokens each per case.
    assert [c["usage"]["input_tokens"] + c["usage"]["output_tokens"] for c in card["cases"]] == [600] * 3
    # The gate can be loosened explicitly, and a precision floor fails on its own.
    assert here("eval", str(suite), "--max-wrong", "2", home=tmp_path).returncode == 0
    floor = here("eval", str(suite), "--max-wrong", "2", "--min-precision", "0.5", home=tmp_path)
    assert floor.returncode == 4 and "precision 0.333 < 0.5" in floor.stdout


def test_a_broken_suite_is_one_line_naming_case_and_field_before_any_run(tmp_path: Path,
                                                                        here: Here) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"name": "broken", "cases": [
        {"id": "ok", "question": Q1, "expect": {"outcome": "FALLBACK"}},
        {"id": "bad-1", "question": Q1, "expect": {"outcome": "SUCCES"}}]}), encoding="utf-8")
    proc = harness("eval", str(suite), home=tmp_path)
    assert proc.returncode == 64
    assert proc.stderr.strip().splitlines() == [
        f"harness: suite {suite}: case bad-1: expect.outcome: 'SUCCES' is not SUCCESS, "
        "FALLBACK[/TYPE] or FAILED[/CODE]"]
    assert not (tmp_path / "runs.sqlite").exists()  # nothing ran
    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps({"id": "m", "question": Q1, "dataset": "nowhere",
                                   "expect": {"outcome": "FALLBACK"}}) + "\n", encoding="utf-8")
    proc = here("eval", str(missing), home=tmp_path)
    assert proc.returncode == 64 and "case m: dataset:" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "runs.sqlite").exists()


@pytest.mark.parametrize(("case", "problem"), [
    ({"question": Q1, "expect": {"outcome": "FALLBACK"}}, "case #1: id: Field required"),
    ({"id": "a", "question": Q1, "expect": {"outcome": "SUCCESS"}},
     "case a: expect: a SUCCESS needs root_cause (all, any or regex)"),
    ({"id": "a", "question": Q1, "expect": {"outcome": "SUCCESS", "root_cause": {"regex": "("}}},
     "case a: expect.root_cause.regex: not a valid regular expression"),
    ({"id": "a", "question": Q1, "expect": {"outcome": "FAILED/NOPE"}}, "case a: expect.outcome:"),
    ({"id": "a", "question": Q1, "expect": {"outcome": "FALLBACK"}, "colour": 1},
     "case a: colour: Extra inputs are not permitted"),
])
def test_each_broken_field_is_named(tmp_path: Path, case: dict[str, object], problem: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert problem in str(err.value) and "\n" not in str(err.value)


def test_a_rerun_gives_a_byte_identical_scorecard_apart_from_timings(tmp_path: Path) -> None:
    suite = replay_suite(tmp_path / "suite", wrong=1)
    first = harness("eval", str(suite), "--json", "--max-wrong", "1", home=tmp_path / "h1")
    second = harness("eval", str(suite), "--json", "--max-wrong", "1", home=tmp_path / "h2")
    demo = [harness("eval", "demo", "--json", home=tmp_path / f"d{n}") for n in (1, 2)]
    from diagnosis_harness.eval.scoring import Scorecard

    for a, b in ((first, second), tuple(demo)):
        cards = [Scorecard.model_validate(scorecard(p)) for p in (a, b)]
        dumped = [json.dumps(c.stable_json(), sort_keys=True) for c in cards]
        assert dumped[0] == dumped[1]
        assert cards[0].cases[0].run_id != cards[1].cases[0].run_id  # they really ran twice


def test_a_truth_file_is_a_suite_and_the_schema_matches_the_models(tmp_path: Path) -> None:
    world = tmp_path / "world"
    shutil.copytree(ROOT / "tools" / "demo_data", world)
    suite = load_suite(world / "truth.json")
    assert [c.id for c in suite.cases] == [c.id for c in load_suite("demo").cases]
    assert suite.dataset_dir(suite.cases[0]) == world.resolve()
    assert suite.cases[0].expect.root_cause is not None
    assert suite.cases[0].expect.root_cause.all == ("pool", "config")
    written = json.loads((ROOT / "docs" / "eval-suite.schema.json").read_text(encoding="utf-8"))
    assert written == json_schema(), "run scripts/write_eval_schema.py"
    doc = yaml.safe_load(replay_suite(tmp_path / "s").read_text(encoding="utf-8"))
    jsonschema.validate(doc, written)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "x", "cases": [{"id": "a", "question": "q",
                                                     "expect": {"outcome": 1}}]}, written)


@pytest.mark.slow
def test_an_eval_on_postgresql_records_its_runs_there(tmp_path: Path, pg_url: str,
                                                      here: Here) -> None:
    env = {"HARNESS_DATABASE_URL": pg_url}
    proc = harness("eval", "demo", "--json", "--workers", "3", home=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    card = scorecard(proc)
    assert card["summary"]["as_expected"] == 7 and card["summary"]["precision"] == 1.0
    assert not (tmp_path / "runs.sqlite").exists()  # the shared database holds the runs
    shown = here("runs", "show", card["cases"][3]["run_id"], "--json", home=tmp_path, env=env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["run"]["release_outcome"] == "SUCCESS"


def test_a_case_with_earlier_turns_runs_them_first_on_its_thread(tmp_path: Path,
                                                                 here: Here) -> None:
    suite = tmp_path / "thread.yaml"
    suite.write_text(yaml.safe_dump({"name": "thread", "cases": [
        {"id": "follow-up", "thread": [Q1], "question": "what should we do about it?",
         "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool"]}}}]}), encoding="utf-8")
    proc = harness("eval", str(suite), "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr  # an unanswered follow-up is no wrong published cause
    [case] = scorecard(proc)["cases"]
    # the offline model answers no follow-up, and says so (never the help text as a SUCCESS)
    assert (case["outcome"], case["verdict"]) == ("FALLBACK/FOLLOW_UP_UNSUPPORTED", "MISSED")
    runs = json.loads(here("runs", "list", "--thread", case["thread_id"], "--json",
                           home=tmp_path).stdout)
    assert [(r["question"], r["intent"]) for r in runs] == [
        (Q1, "DIAGNOSIS"), ("what should we do about it?", "GENERAL")]
    assert runs[-1]["run_id"] == case["run_id"]


def test_each_case_runs_with_its_own_deadline(tmp_path: Path) -> None:
    suite = tmp_path / "deadlines.jsonl"
    suite.write_text("".join(json.dumps(c) + "\n" for c in [
        {"id": "late", "question": Q1, "deadline_s": 0.05, "expect": {"outcome": "FAILED/RUN_TIMED_OUT"}},
        {"id": "on-time", "question": Q1, "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool"]}}},
    ]), encoding="utf-8")
    proc = harness("eval", str(suite), "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [(c["outcome"], c["verdict"]) for c in scorecard(proc)["cases"]] == [
        ("FAILED/RUN_TIMED_OUT", "HONEST"), ("SUCCESS", "RIGHT")]
