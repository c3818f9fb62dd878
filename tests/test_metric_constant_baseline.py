"""A baseline that never varies has no z-score (issue 40's frictions).

Players read metric_shifts rows with "z": 858000000000.0: a flat baseline's spread is floored at
1e-9, and the window's value divided by it is no score. The shift is still found; its z is null
and the row says ``mad_zero: true`` with its ``baseline_outliers`` counted; a varying baseline
keeps its z. A player read ``baseline_constant`` on a baseline of zeros holding 661 and 387: a
MAD of 0 says only that most samples are equal, and the row now says so.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from diagnosis_harness import write_dataset
from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import load_dataset

T0 = datetime(2026, 9, 14, 9, 30, tzinfo=UTC)
SETTINGS = Settings(_env_file=None)


def _rows() -> list[dict[str, Any]]:
    rows = []
    for minute in range(60):  # 09:30 .. 10:29; the window is 10:00 .. 10:15
        at = T0 + timedelta(minutes=minute)
        late = at >= datetime(2026, 9, 14, 10, 4, tzinfo=UTC)
        rows.append({"sampled_at": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "host": "ledger-db",
                     "queue_errors": 7 if late else 0,            # 0 for ever, then 7
                     "conn_active": 100 if late else 30 + minute % 5,  # varies, then jumps
                     # zeros with two spikes in the baseline (09:45 .. 09:59), then 50
                     "retries": 50 if late else {20: 661, 25: 387}.get(minute, 0)})
    return rows


def _shifts(tmp_path: Path) -> tuple[dict[str, dict[str, Any]], str]:
    src = write_dataset(tmp_path / "src", logs=[{"ts": "2026-09-14T10:00:00Z", "service": "ledger-db",
                                                 "level": "INFO", "message": "started"}],
                        tables={"host_metrics": _rows()})
    with Backends.open(load_dataset(src, tmp_path / "built").dest) as backends:
        outcome = execute_tool("metric_shifts", {"start": "2026-09-14T10:00:00Z",
                                                 "end": "2026-09-14T10:15:00Z"},
                               tool_call_id="m1", backends=backends,
                               budget=Budget(BudgetLimits.from_settings(SETTINGS)),
                               settings=SETTINGS, ready_count=0)
    assert outcome.record.invocation_status is InvocationStatus.READY, outcome.record.error
    shifts = {f.data["metric"]: f.data for f in outcome.record.facts if f.kind == "metric_shift"}
    return shifts, json.dumps(outcome.observation, default=str)


def test_a_flat_baseline_shift_is_reported_without_a_z(tmp_path: Path) -> None:
    shifts, observation = _shifts(tmp_path)
    flat = shifts["queue_errors"]
    assert flat["first_out"] == "2026-09-14T10:04:00Z" and flat["direction"] == "up"
    assert flat["baseline_median"] == 0 and flat["window_median"] == 7
    assert flat["z"] is None and flat["mad_zero"] is True and flat["baseline_outliers"] == 0
    assert "baseline_constant" not in flat
    # What the model reads carries no absurd number.
    assert not any(len(n) > 9 for n in re.findall(r"\d+", observation)), observation
    varying = shifts["conn_active"]
    assert varying["z"] is not None and 4 <= varying["z"] < 1000
    assert "mad_zero" not in varying and "baseline_outliers" not in varying


def test_a_zero_mad_baseline_with_outliers_is_not_called_constant(tmp_path: Path) -> None:
    shifts, observation = _shifts(tmp_path)
    spiky = shifts["retries"]
    assert spiky["baseline_mad"] == 0 and spiky["z"] is None
    assert spiky["mad_zero"] is True and spiky["baseline_outliers"] == 2  # 661 and 387
    assert "constant" not in json.dumps(spiky)
    assert '"baseline_outliers": 2' in observation  # what the model reads
