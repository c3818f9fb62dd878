"""How a ``harness`` process ends on SIGTERM or Ctrl-C, from its first line to its exit.

Three phases, one handler (docs/cli.md, "Cancelling"):

- **before a run** (imports, settings, services, the run store; every other command): SIGTERM
  raises :class:`KeyboardInterrupt` where the process is, as Ctrl-C does, and the command ends
  with exit 143 (130 for Ctrl-C) and one line. :func:`install` puts this in place; the entry
  point calls it before it imports anything heavy (:mod:`diagnosis_harness.cli.entry`).
- **during a run** (:func:`cancelling`): the first SIGTERM or SIGINT cancels the run's task, so
  the runner settles its row CANCELLED; signals after it change nothing (the cancel is already
  settling the row, and a second one must not cut that short).
- **after a run** has ended (:func:`cancelling` left): signals are noted and change nothing —
  the run's end is printed and its exit code stands (a run released before the signal is not
  turned into a cancel).

Kept cheap to import (``signal`` and ``sys`` only): it runs before the CLI's own imports.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from diagnosis_harness.control.exits import Exit

BEFORE_RUN = "cancelled before the run started; nothing was recorded"
"""The line of a ``diagnose`` cancelled before its run row existed."""

_received: list[int] = []
"""The signals this process got, in order (SIGINT only once a run or :func:`hold` owns it)."""


class _Phase:
    """What the handler does now: raise (the default), cancel a run once, or hold."""

    cancel: Callable[[], None] | None = None
    holding: bool = False
    installed: bool = False
    announced: bool = False


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    if _Phase.holding:
        return
    if _Phase.cancel is not None:
        cancel, _Phase.cancel = _Phase.cancel, None
        _Phase.holding = True  # one cancel; the row it settles is not cut short by another
        cancel()
        return
    raise KeyboardInterrupt


def _late_worker_error(args: threading.ExceptHookArgs) -> None:
    """A worker thread's late answer to an event loop the signal already closed stays quiet.

    A signal while the run store opens ends ``asyncio.run`` with its loop closed; aiosqlite's
    connection thread then hands its result to that loop and dies of ``RuntimeError: Event
    loop is closed``, which Python printed as a thread traceback after the one stop line.
    Only that error, and only once this process was signalled; anything else is printed.
    """
    if ((_received or _Phase.announced) and isinstance(args.exc_value, RuntimeError)
            and str(args.exc_value) == "Event loop is closed"):
        return
    _default_excepthook(args)


_default_excepthook = threading.excepthook


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is a signal's :class:`KeyboardInterrupt` that a library wrapped.

    pydantic-core builds a model's validators in Rust; a SIGTERM raised while it does surfaces
    as ``SchemaError: … KeyboardInterrupt`` (CI caught one while a module defined ``Settings``),
    and ``except KeyboardInterrupt`` missed it. It is the signal when this process received one
    or the error's chain or text names the interrupt.
    """
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return bool(_received) or "KeyboardInterrupt" in str(exc)


def install() -> None:
    """Make SIGTERM end the process as Ctrl-C does (:class:`KeyboardInterrupt`), exit 143.

    SIGINT keeps Python's own handler (it raises KeyboardInterrupt already), so that
    ``asyncio.run`` in the other commands still turns a Ctrl-C into a cancel of its task.
    """
    signal.signal(signal.SIGTERM, _on_signal)
    threading.excepthook = _late_worker_error
    _Phase.installed = True


def start() -> None:
    """A command starts: nothing received or said yet (the CLI may run many times in-process)."""
    _received.clear()
    _Phase.cancel, _Phase.holding, _Phase.announced = None, False, False


def exit_code() -> int:
    """143 if the process was told to stop by SIGTERM, else 130 (Ctrl-C)."""
    return Exit.TERMINATED if signal.SIGTERM in _received else Exit.CANCELLED


def hold() -> None:
    """From now on a signal changes nothing (the process is already ending as it should).

    In a process of the entry point the two signals are also blocked: Python puts the default
    handlers back while it shuts down, and a SIGTERM then would still end the process -15
    after it printed its result. (Nothing is started after this, so no child inherits the mask.)
    """
    _Phase.cancel, _Phase.holding = None, True
    if _Phase.installed and threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, _on_signal)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})


def announced() -> bool:
    """Whether :func:`stop_line` has said how the process ends."""
    return _Phase.announced


def before_start(args: list[str]) -> str:
    """What a process cancelled before its command took the signal over had done (``args``)."""
    command = next((a for a in args if not a.startswith("-")), None)
    return BEFORE_RUN if command == "diagnose" else "cancelled"


def stop_line(message: str) -> int:
    """Print ``harness: MESSAGE`` on stderr, hold further signals; the exit code to end with."""
    hold()
    _Phase.announced = True
    try:
        sys.stderr.write(f"harness: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: the exit code still says it
        pass
    return exit_code()


@contextmanager
def cancelling(cancel: Callable[[], None]) -> Iterator[None]:
    """While inside: the first SIGTERM or SIGINT calls ``cancel`` (from the main thread).

    On leaving, a process started by the entry point holds every later signal (the run has
    ended; its end is printed and its exit code stands); one that called the CLI in-process
    (a test, a script) gets its own handlers back. Off the main thread it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before: dict[int, Any] = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    _Phase.cancel, _Phase.holding = cancel, False
    for signum in before:
        signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        _Phase.cancel = None
        if _Phase.installed:
            _Phase.holding = True
        else:
            _Phase.holding = False
            for signum, handler in before.items():
                signal.signal(signum, handler)
