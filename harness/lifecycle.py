"""Run lifecycle: first terminal state wins, a monotonic deadline, and a cooperative cancel.

Nodes call :meth:`RunLifecycle.check_active` before and after anything that costs time or money;
it raises :class:`RunAborted`, a classified abort the node turns into stop data for ``release``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.contracts import FailureClass, FailureCode, RunState

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
    _state: RunState = RunState.RUNNING

    def __post_init__(self) -> None:
        if self.started_at is None:
            self.started_at = self.clock()

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
        """Seconds since the run started, on the monotonic clock."""
        assert self.started_at is not None
        return self.clock() - self.started_at

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
