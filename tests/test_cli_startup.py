"""The CLI's start-up window with the cyclic collector paused (diagnosis_harness/cli/startup.py).

What a user gets from it is CPU (benchmarks/startup.py measures it); what must hold for that to
be safe is asserted here: the collector is back on after the window however it ends, a
collector the process had turned off stays off, nested windows end once, and what exists at the
end is frozen (never walked again), while garbage made afterwards is still collected.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from diagnosis_harness.cli.startup import gc_paused


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_paused_inside_and_resumes_after() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner window ends nothing
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_an_error_or_exit_in_the_window_still_resumes_the_collector() -> None:
    gc.enable()
    with pytest.raises(SystemExit), gc_paused():
        raise SystemExit(64)  # a usage error during start-up
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_garbage_made_after_the_window_is_still_collected() -> None:
    gc.enable()
    with gc_paused():
        kept = _Cycle()  # start-up state: frozen, alive
    cycle = _Cycle()
    ref = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert ref() is None  # a run's cyclic garbage goes as before
    assert kept.me is kept
