"""Run one tool call under a time limit, and make sure it stops using the data when it expires.

A Python thread cannot be killed, so a call that overruns is *abandoned*: the caller gets
:class:`ToolTimedOut` at the limit, and the thread is stopped at its next SQLite step — a
progress handler on the log and runbook connections returns "interrupt" once the call is
abandoned or its limit has passed (the operational database has its own per-query limit, which
the boundary caps the same way). The only Python work left in such a thread is bounded by
input size (the regexes on data text are linear, see
``diagnosis_harness.tools.log_templates.message_template``).
"""

from __future__ import annotations

import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from diagnosis_harness.tools.backends import Backends

T = TypeVar("T")

_PROGRESS_STEPS = 10_000
"""SQLite virtual-machine steps between two checks of the limit (well under a millisecond)."""


class ToolTimedOut(TimeoutError):
    """The call did not finish within its limit; its thread was told to stop."""


_MAX_IDLE = 4
"""Idle worker threads kept for the next calls (more than one: a call may be abandoned)."""


class _Worker:
    """A daemon thread that runs tool calls one after another, kept while idle.

    Starting a thread for every call cost a run about a millisecond per tool call on a busy
    machine; handing the call to an idle one costs a few microseconds. A worker whose call was
    abandoned goes on with it until it stops (see :func:`run_bounded`) and only then is idle
    again; meanwhile the next call gets another worker.
    """

    _idle: list[_Worker] = []
    _lock = threading.Lock()

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="tool-call", daemon=True).start()

    @classmethod
    def run(cls, job: Callable[[], None]) -> None:
        """Start ``job`` on an idle worker (or a new one); it must not raise."""
        with cls._lock:
            worker = cls._idle.pop() if cls._idle else None
        (worker or cls())._jobs.put(job)

    def _loop(self) -> None:
        while True:
            self._jobs.get()()
            with self._lock:
                if len(self._idle) >= _MAX_IDLE:
                    return  # enough idle workers already
                self._idle.append(self)


def _connections(backends: Backends | None) -> list[sqlite3.Connection]:
    found = [getattr(backends, name, None) for name in ("logs", "knowledge")]
    return [c for c in found if isinstance(c, sqlite3.Connection)]


def run_bounded(fn: Callable[[], T], backends: Backends | None, timeout_s: float, what: str) -> T:
    """Return ``fn()``, or raise ToolTimedOut after ``timeout_s`` seconds.

    ``fn`` runs in a daemon thread (a kept one: :class:`_Worker`) holding ``backends.lock``
    (an RLock the tools take again; a call that uses no backends, e.g. an MCP tool, holds none),
    so a thread left over from an abandoned call is never using a connection at the same time
    as the next call. Exceptions of ``fn`` are re-raised here.
    """
    if timeout_s <= 0:
        raise ToolTimedOut(f"{what}: no time left before the run's deadline")
    deadline = time.monotonic() + timeout_s
    abandoned = threading.Event()
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def stop_now() -> int:
        return int(abandoned.is_set() or time.monotonic() > deadline)

    def work() -> None:
        try:
            with getattr(backends, "lock", None) or contextlib.nullcontext():
                if abandoned.is_set():
                    return  # waited for a previous, abandoned call: nothing to do any more
                connections = _connections(backends)
                for conn in connections:
                    conn.set_progress_handler(stop_now, _PROGRESS_STEPS)
                try:
                    outcome["value"] = fn()
                finally:
                    for conn in connections:
                        conn.set_progress_handler(None, 0)
        except BaseException as exc:  # handed to the caller, who classifies it
            outcome["error"] = exc
        finally:
            finished.set()

    _Worker.run(work)
    if not finished.wait(timeout_s):
        abandoned.set()
        raise ToolTimedOut(f"{what} did not finish within {timeout_s:.3g} s (the run's "
                           "remaining time); it was stopped")
    error = outcome.get("error")
    if isinstance(error, sqlite3.OperationalError) and "interrupt" in str(error):
        raise ToolTimedOut(f"{what} did not finish within {timeout_s:.3g} s; it was stopped")
    if error is not None:
        raise error
    return outcome["value"]  # type: ignore[no-any-return]
