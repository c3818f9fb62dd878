"""``harness serve``'s child: ``langgraph dev`` in a process group of its own, ended as a whole.

Even when ``harness serve`` itself is killed with SIGKILL, which it cannot catch: a watchdog
process holds the read end of a pipe only ``harness serve`` writes to. The kernel closes that
pipe however ``harness serve`` ends, the watchdog reads end-of-file and ends the server's
whole group (SIGTERM, then SIGKILL after :data:`SERVE_GRACE_S`). Portable (no ``prctl``), and
it covers every process of the group, ``--reload``'s server process included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from diagnosis_harness.cli import group_watchdog
from diagnosis_harness.cli.group_watchdog import group_alive


def serve_child(argv: list[str], env: dict[str, str]) -> int:
    """Run ``langgraph dev`` in a process group of its own; SIGTERM/SIGINT end all of it.

    ``langgraph dev`` runs the server in processes of its own: a SIGTERM to this process alone
    (``kill PID``) left one serving the port. So the signal is forwarded to the child's whole
    group and this process waits for the group to end (SIGKILL after a grace period): when
    ``harness serve`` has exited, the port is free and nothing of it runs (docs/design.md §12).
    """
    child = subprocess.Popen(argv, env=env, start_new_session=True)
    watchdog = _watch(child.pid)
    stopping: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        stopping.append(signum)
        try:
            os.killpg(child.pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    code = child.wait()
    deadline = time.monotonic() + SERVE_GRACE_S
    while group_alive(child.pid) and time.monotonic() < deadline:
        if stopping:
            os.killpg(child.pid, signal.SIGTERM)
        time.sleep(0.1)
    if group_alive(child.pid):
        os.killpg(child.pid, signal.SIGKILL)
    _release(watchdog)
    if stopping:
        return 128 + stopping[0]
    return code if code >= 0 else 128 - code


SERVE_GRACE_S = 10.0
"""How long the server's processes get to stop after ``harness serve`` is signalled."""


def _watch(pgid: int) -> subprocess.Popen[bytes]:
    """A process that ends group ``pgid`` once this process is gone, however it ended.

    In a session of its own, so the terminal's Ctrl-C does not end it first; it exits by itself
    when it reads ``done`` (a clean end) or end-of-file (this process died).
    """
    # -I: by path, without the environment's PYTHON* variables or this folder on sys.path.
    return subprocess.Popen([sys.executable, "-I", group_watchdog.__file__, str(pgid),
                             str(SERVE_KILLED_GRACE_S)],
                            stdin=subprocess.PIPE, start_new_session=True, close_fds=True)


def _release(watchdog: subprocess.Popen[bytes]) -> None:
    """Tell the watchdog the group has ended here; it exits without touching anything."""
    try:
        assert watchdog.stdin is not None
        watchdog.stdin.write(b"done")
        watchdog.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    try:
        watchdog.wait(timeout=5)
    except subprocess.TimeoutExpired:
        watchdog.kill()


SERVE_KILLED_GRACE_S = 3.0
"""How long the server's processes get to stop after ``harness serve`` was killed (SIGKILL then)."""
