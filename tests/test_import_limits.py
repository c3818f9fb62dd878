"""``harness data import`` on hostile files: a classified ``file:line`` refusal, never a crash.

Found from outside (issue 37, item 7): ``"ts": 1e30`` in an import was an internal error
(exit 1, an OverflowError), NaN and infinity another (a StopIteration).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _harness(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(cwd / "home"), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


@pytest.mark.parametrize("ts", ["1e30", "-1e30", "NaN", "Infinity", "-Infinity", "1e400",
                                "1" + "0" * 400, "99999999999999999999"],
                         ids=["1e30", "-1e30", "nan", "inf", "-inf", "1e400", "10^400", "1e20-1"])
def test_an_absurd_epoch_time_is_a_file_line_error(tmp_path: Path, ts: str) -> None:
    good = '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "ok"}'
    bad = f'{{"ts": {ts}, "level": "ERROR", "service": "api", "message": "boom"}}'
    (tmp_path / "api.jsonl").write_text(f"{good}\n{bad}\n", encoding="utf-8")
    proc = _harness(tmp_path, "data", "import", "api.jsonl", "--into", "out", "--no-load")
    assert proc.returncode == 64, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "api.jsonl: 1 unreadable line(s): line 2: bad time: " in proc.stderr
    assert "not a plausible epoch time" in proc.stderr
    assert not (tmp_path / "out").exists()  # nothing half-written
    skipped = _harness(tmp_path, "data", "import", "api.jsonl", "--into", "out", "--no-load",
                       "--skip-bad")
    assert skipped.returncode == 0, skipped.stderr
    assert "1 events" in skipped.stdout and "1 unreadable line(s) skipped" in skipped.stdout


def test_an_absurd_epoch_time_in_a_table_is_a_file_line_problem(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "tables").mkdir(parents=True)
    (data / "logs.jsonl").write_text(
        '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "ok"}\n',
        encoding="utf-8")
    (data / "tables" / "deploys.csv").write_text(
        "deploy_id,service,deployed_at\nD1,api,1762077600\nD2,api,99999999999999999999999\n",
        encoding="utf-8")
    proc = _harness(tmp_path, "data", "load", str(data))
    assert proc.returncode == 64, proc.stderr
    assert "internal error" not in proc.stderr
    assert "tables/deploys.csv:3: column 'deployed_at'" in proc.stderr
