"""The statistics tools on 1,000,000 log events: bounded output, the deadline held.

The data is written once for the module, directly in the log store's schema
(``scripts/bench_statistics.py``'s ``build``: fast inserts, each event's pattern computed as the
build computes it), with one incident on svc-03 among twelve services.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool

pytestmark = pytest.mark.slow

_SPEC = importlib.util.spec_from_file_location(
    "bench_statistics", Path(__file__).resolve().parents[1] / "scripts" / "bench_statistics.py")
assert _SPEC and _SPEC.loader
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)

SETTINGS = Settings(_env_file=None)
WINDOW = {"start": "2026-03-03T06:00:00Z", "end": "2026-03-03T06:30:00Z"}


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backends]:
    dest = bench.build(tmp_path_factory.mktemp("million") / "built", 1_000_000,
                       random.Random(3))
    with Backends.open(dest) as opened:
        assert opened.info.events == 1_000_000
        yield opened


def call(backends: Backends, name: str, args: dict[str, Any],
         timeout_s: float | None = None) -> Any:
    return execute_tool(name, args, tool_call_id=f"t-{name}", backends=backends,
                        budget=Budget(BudgetLimits.from_settings(SETTINGS)), settings=SETTINGS,
                        ready_count=0, timeout_s=timeout_s)


def test_the_incident_is_found_among_a_million_events_and_the_output_stays_bounded(
        backends: Backends) -> None:
    outcome = call(backends, "onset_timeline", WINDOW)
    onsets = [f.data for f in outcome.record.facts if f.kind == "onset"]
    first = onsets[0]
    assert (first["service"], first["onset"], first["change"]) == \
        ("svc-03", "2026-03-03T06:07:00.768Z", "new")  # its first event from 06:07
    assert "ledger-db:5432" in first["pattern"]
    # a whole day (the longest window) of every service: still a few rows and a count of the rest
    day = call(backends, "compare_windows", {"start": "2026-03-02T12:00:00Z",
                                             "end": "2026-03-03T12:00:00Z"})
    record = day.record
    assert record.invocation_status is InvocationStatus.READY
    overview = record.facts[0].data
    assert overview["window_events"] == 500_001  # an event every 172.8 ms, both ends inclusive
    assert len([f for f in record.facts if f.kind == "window_pattern"]) <= 20
    assert overview["shown_patterns"] + overview["more_patterns"] == \
        overview["new_patterns"] + overview["rose_patterns"]
    assert record.shown_bytes <= SETTINGS.max_observation_bytes


def test_the_deadline_is_held_on_a_million_events(backends: Backends) -> None:
    # Two whole days, window and baseline: slower than the limit below when not stopped.
    args = {"start": "2026-03-02T00:00:00Z", "end": "2026-03-03T00:00:00Z",
            "baseline_start": "2026-03-03T00:00:01Z", "baseline_end": "2026-03-03T23:59:59Z"}
    limit = 0.003
    began = time.monotonic()
    assert call(backends, "onset_timeline", args).record.invocation_status is \
        InvocationStatus.READY
    assert time.monotonic() - began > 3 * limit  # the limit below really cuts the call short
    began = time.monotonic()
    outcome = call(backends, "onset_timeline", args, timeout_s=limit)
    elapsed = time.monotonic() - began
    assert outcome.record.invocation_status is InvocationStatus.ERROR
    assert outcome.record.error.startswith("timeout")
    assert elapsed < 0.3
    again = call(backends, "compare_windows", WINDOW, timeout_s=5)  # the store is usable after
    assert again.record.invocation_status is InvocationStatus.READY
