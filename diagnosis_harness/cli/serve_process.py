"""``harness serve``'s child: ``langgraph dev`` in a process group of its own, ended as a whole."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def serve_child(argv: list[str], env: dict[str, str]) -> int:
    """Run ``langgraph dev`` in a process group of its own; SIGTERM/SIGINT end all of it.

    ``langgraph dev`` runs the server in processes of its own: a SIGTERM to this process alone
    (``kill PID``) left one serving the port. So the signal is forwarded to the child's whole
    group and this process waits for the group to end (SIGKILL after a grace period): when
    ``harness serve`` has exited, the port is free and nothing of it runs (docs/design.md §12).
    """
    child = subprocess.Popen(argv, env=env, start_new_session=True)
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
    while _group_alive(child.pid) and time.monotonic() < deadline:
        if stopping:
            os.killpg(child.pid, signal.SIGTERM)
        time.sleep(0.1)
    if _group_alive(child.pid):
        os.killpg(child.pid, signal.SIGKILL)
    if stopping:
        return 128 + stopping[0]
    return code if code >= 0 else 128 - code


SERVE_GRACE_S = 10.0
"""How long the server's processes get to stop after ``harness serve`` is signalled."""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
