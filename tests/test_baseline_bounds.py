"""A baseline that ends exactly where the window starts does not overlap it (issue 40).

A player's onset_timeline call with a baseline ending at the window's start was refused ("the
baseline overlaps the window"), and the refused call still counted. Windows are read half-open
at the edge they share: the shared instant is the window's, so the baseline only touches it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import stats_world
from test_tools_statistics import call, rows

from diagnosis_harness.control.contracts import InvocationStatus
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset

W0, W1 = stats_world.WINDOW  # 10:00 .. 10:15
TOOLS = ("compare_windows", "onset_timeline", "metric_shifts")


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backends]:
    root = tmp_path_factory.mktemp("stats-world")
    with Backends.open(load_dataset(stats_world.write(root / "src"), root / "built").dest) as b:
        yield b


def _facts(record: Any) -> list[tuple[str, Any]]:
    return [(f.kind, f.data) for f in record.facts]


@pytest.mark.parametrize("name", TOOLS)
def test_a_baseline_ending_at_the_window_start_is_the_default_one(backends: Backends,
                                                                  name: str) -> None:
    touching = call(backends, name, start=W0, end=W1, baseline_start="2026-09-14T09:45:00Z",
                    baseline_end=W0)
    assert touching.invocation_status is InvocationStatus.READY, touching.error
    # The same baseline as the default (the window's length just before it), the same numbers.
    assert touching.scope["baseline_end"] == "2026-09-14T09:59:59.999Z"
    default = call(backends, name, start=W0, end=W1)
    assert _facts(touching) == _facts(default)


@pytest.mark.parametrize("name", TOOLS)
def test_a_baseline_starting_at_the_window_end_is_accepted(backends: Backends, name: str) -> None:
    after = call(backends, name, start="2026-09-14T09:30:00Z", end="2026-09-14T09:45:00Z",
                 baseline_start="2026-09-14T09:45:00Z", baseline_end=W0)
    assert after.invocation_status is InvocationStatus.READY, after.error
    assert after.scope["baseline_start"] == "2026-09-14T09:45:00.001Z"


@pytest.mark.parametrize("name", TOOLS)
def test_a_baseline_one_millisecond_into_the_window_still_overlaps(backends: Backends,
                                                                   name: str) -> None:
    inside = call(backends, name, start=W0, end=W1, baseline_start="2026-09-14T09:45:00Z",
                  baseline_end="2026-09-14T10:00:00.001Z")
    assert inside.invocation_status is InvocationStatus.ERROR
    assert "overlaps" in inside.error
    assert rows(inside, "onset") == []
