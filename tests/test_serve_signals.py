"""``kill PID`` of ``harness serve`` stops the whole server (issue 25 item 8, docs/design.md §12).

The real ``langgraph dev`` is started through ``harness serve``; only the PID ``harness serve``
has is signalled (as a user's ``kill PID`` does), three times over: afterwards the port is free
and no process the server started is left, checked by PID.
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest
from devserver import DevServer
from servekit import server_env

pytestmark = pytest.mark.slow


def descendants(pid: int) -> set[int]:
    """Every process whose parent chain leads to ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for what matters here (it serves nothing)
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_sigterm_of_harness_serve_frees_the_port_and_leaves_no_child(
        tmp_path: Path, attempt: int) -> None:
    server = DevServer(tmp_path, server_env(tmp_path / "home", HARNESS_MODEL="offline"))
    proc, port = server.start().proc, server.port  # its own session, so the test can clean up
    assert proc is not None
    children: set[int] = set()
    try:
        children = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGTERM)  # the user's `kill PID`: this process only
        code = proc.wait(timeout=30)
        assert [pid for pid in children if alive(pid)] == []
        assert port_free(port)
        assert code == 143  # CANCELLED by SIGTERM's code, as for diagnose (§12)
    finally:
        for pid in [proc.pid, *children]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
