"""Run lifecycle: first terminal state wins, a run-time deadline, and a cooperative cancel.

Nodes call :meth:`RunLifecycle.check_active` before and after anything that costs time or money;
it raises :class:`RunAborted`, a classified abort the node turns into stop data for ``release``.

The deadline counts the run's *run time*, not wall time: what it spent in earlier processes
(checkpointed as ``elapsed_s`` after every node and handed over by :meth:`RunLifecycle.carry`)
plus the monotonic time since this process took it up. A run resumed elsewhere keeps its
remaining deadline; the time it spent paused or waiting for a worker is not counted.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from diagnosis_harness.control.contracts import FailureClass, FailureCode, RunState

Clock = Callable[[], float]
"""A monotonic clock in seconds; tests pass a fake one."""


class CancelSignal:
    """A cooperative cancel flag shared by the caller and the run (thread-safe)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._event.is_set()


class RunAborted(Exception):
    """The run cannot go on; ``run_state`` is the terminal state it ends in."""

    def __init__(self, run_state: RunState, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.run_state = run_state
        self.failure_class = failure_class

    @property
    def failure_code(self) -> FailureCode:
        """The coarse failure code a ``failure`` event carries for this abort."""
        return {
            RunState.CANCELLED: FailureCode.RUN_CANCELLED,
            RunState.TIMED_OUT: FailureCode.RUN_TIMED_OUT,
            RunState.BUDGET_EXHAUSTED: FailureCode.BUDGET_EXHAUSTED,
        }.get(self.run_state, FailureCode.INTERNAL_FAILURE)


_CLASS_OF_STATE = {
    RunState.CANCELLED: FailureClass.CANCELLED,
    RunState.TIMED_OUT: FailureClass.TIMEOUT,
    RunState.BUDGET_EXHAUSTED: FailureClass.BUDGET_EXHAUSTED,
}


@dataclass
class RunLifecycle:
    """The core layer of one run: RUNNING until the first terminal state, which never changes."""

    deadline_s: float
    clock: Clock = time.monotonic
    cancel_signal: CancelSignal = field(default_factory=CancelSignal)
    started_at: float | None = None
    spent_s: float = 0.0
    """Run time spent before this process took the run up (a resumed run's checkpoint)."""
    _state: RunState = RunState.RUNNING
    _carried: bool = False

    def __post_init__(self) -> None:
        if self.started_at is None:
            self.started_at = self.clock()

    @property
    def carried(self) -> bool:
        """Whether the run time spent earlier was handed over (:meth:`carry`) already."""
        return self._carried

    def carry(self, spent_s: object) -> None:
        """Count ``spent_s`` seconds already spent by this run elsewhere; only the first call counts.

        Called before the run's first node in this process with the checkpoint's ``elapsed_s``
        (0 for a new run). Anything but a finite non-negative number counts as 0.
        """
        if self._carried:
            return
        self._carried = True
        if isinstance(spent_s, int | float) and not isinstance(spent_s, bool) \
                and math.isfinite(spent_s) and spent_s > 0:
            self.spent_s = float(spent_s)

    @property
    def state(self) -> RunState:
        """The current core state."""
        return self._state

    def terminate(self, state: RunState) -> bool:
        """Enter ``state`` if the run is still RUNNING; return whether this call decided it."""
        if not state.terminal:
            raise ValueError("terminate() takes a terminal state, not RUNNING")
        if self._state.terminal:
            return False
        self._state = state
        return True

    def elapsed(self) -> float:
        """The run's run time in seconds: what it spent before, plus monotonic time here."""
        assert self.started_at is not None
        return self.spent_s + self.clock() - self.started_at

    def remaining(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.deadline_s - self.elapsed()

    def check_active(self) -> None:
        """Raise RunAborted if the run was cancelled, passed its deadline, or already ended.

        Cancellation is checked first: a cancelled client must never get anything more.
        """
        if not self._state.terminal:
            if self.cancel_signal.cancelled:
                self.terminate(RunState.CANCELLED)
            elif self.remaining() <= 0:
                self.terminate(RunState.TIMED_OUT)
        if self._state.terminal:
            raise RunAborted(
                self._state,
                _CLASS_OF_STATE.get(self._state, FailureClass.UNKNOWN),
                f"run is no longer active ({self._state.value})",
            )
