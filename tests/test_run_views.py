"""The run views a person reads (issue 38): the HTML picture, short run ids, a paused run's draft.

``runs show --html`` drew an empty incident picture for any run not on the demo data (the
picture came from the settings' dataset, not the run's); the scorecard's 8-character run ids
were refused (``no run 6eece2c7``); and ``--json`` of a run awaiting approval had
``content: null`` and nothing else, so the approver could not read the draft.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from evalkit import harness
from test_eval_browser import RED, WINDOW, count, screenshot

from diagnosis_harness import write_dataset

DEMO_QUESTION = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
                 "on 2026-11-02, why?")
QUESTION = "nginx 502s between 14:00 and 14:30 on 2026-11-20, why?"


def _nginx(root: Path) -> Path:
    logs = [{"ts": f"2026-11-20T{clock}Z", "service": "nginx", "level": level,
             "message": f"POST /static/app.js HTTP/1.1 {status} 157"}
            for clock, level, status in (
                ("13:40:00", "INFO", 200), ("13:50:00", "INFO", 200), ("14:05:01", "ERROR", 502),
                ("14:06:10", "ERROR", 502), ("14:11:00", "ERROR", 502), ("14:20:45", "ERROR", 502),
                ("14:29:56", "ERROR", 502), ("23:59:00", "INFO", 200))]
    return write_dataset(root / "nginx-data", logs=logs)


def _diagnose(home: Path, data: Path, *extra: str, env: dict[str, str] | None = None) -> dict:
    proc = harness("diagnose", "--data", str(data), QUESTION, "--json", *extra, home=home, env=env)
    assert proc.returncode in (0, 3), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_the_html_view_draws_the_runs_own_picture_from_an_8_character_id(tmp_path: Path) -> None:
    out = _diagnose(tmp_path, _nginx(tmp_path))
    short = out["run_id"][:8]  # as the scorecard shows it
    shown = harness("runs", "show", short, "--html", home=tmp_path)  # no --data: the demo's
    assert shown.returncode == 0, shown.stderr
    page = tmp_path / "run.html"
    page.write_text(shown.stdout, encoding="utf-8")
    assert out["run_id"] in shown.stdout  # the whole id on the page
    assert re.search(r'<text[^>]*text-anchor="end">nginx</text>', shown.stdout)
    assert "nginx first error" in shown.stdout
    view = screenshot(page.as_uri(), tmp_path / "run.png")
    assert count(view, RED) > 500  # nginx's error bars in the window
    assert count(view, WINDOW, tolerance=2) > 5000  # the shaded incident window


def test_runs_show_takes_an_unambiguous_prefix_and_names_the_candidates_otherwise(
        tmp_path: Path) -> None:
    data = _nginx(tmp_path)
    first = _diagnose(tmp_path, data)["run_id"]
    second = _diagnose(tmp_path, data)["run_id"]
    for run_id in (first, second):
        shown = harness("runs", "show", run_id[:8], "--json", home=tmp_path)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["run"]["run_id"] == run_id
    common = next(i for i in range(32) if first[i] != second[i])
    if common >= 4:  # both start alike: the prefix is refused, naming both
        shown = harness("runs", "show", first[:common], home=tmp_path)
        assert shown.returncode == 64 and "ambiguous" in shown.stderr
        assert first in shown.stderr and second in shown.stderr
    unknown = harness("runs", "show", "ffff" if not first.startswith("ffff") else "eeee",
                      home=tmp_path)
    assert unknown.returncode == 64 and "no run" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_json_of_a_run_awaiting_approval_carries_the_draft(tmp_path: Path) -> None:
    proc = harness("diagnose", DEMO_QUESTION, "--json", home=tmp_path,
                   env={"HARNESS_APPROVAL": "before_publish"})
    assert proc.returncode == 3, proc.stderr  # paused: the verified report awaits approval
    out = json.loads(proc.stdout)
    assert out["paused"] is True and out["content"] is None  # nothing is published yet
    waiting = out["awaiting_approval"]
    assert "CHG-2041" in waiting["report"] and "[E" in waiting["report"]
    assert re.fullmatch(r"[0-9a-f]{64}", waiting["digest"])
