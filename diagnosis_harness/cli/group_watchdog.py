"""The watchdog of ``harness serve``'s server group, and the one test of whether a group lives.

Run as a script by :mod:`diagnosis_harness.cli.serve_process` (``python -I FILE PGID GRACE_S``,
in a session of its own): it reads its stdin to the end. ``done`` means ``harness serve`` ended
the group itself; end-of-file means ``harness serve`` died (even by SIGKILL: the kernel closes
the pipe), and the watchdog ends the group — SIGTERM, then SIGKILL after ``GRACE_S``.
Standard library only: it runs by path, without the package.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def group_alive(pgid: int) -> bool:
    """True while a process of group ``pgid`` runs (one this user may not signal counts too)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch(pgid: int, grace_s: float) -> None:
    if sys.stdin.buffer.read() == b"done":
        return  # harness serve ended its group itself
    if group_alive(pgid):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if group_alive(pgid):
        os.killpg(pgid, signal.SIGKILL)


if __name__ == "__main__":
    _watch(int(sys.argv[1]), float(sys.argv[2]))
