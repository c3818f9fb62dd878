"""``kill -9`` of ``harness serve`` still takes its server down (issue 37; docs/design.md §12).

SIGKILL cannot be caught, so ``harness serve`` cannot forward it: the watchdog it started
(diagnosis_harness/cli/serve_process.py) sees its pipe close and ends the server's group. Only
the PID ``harness serve`` has is killed, as a user's ``kill -9 PID`` does; afterwards the port is
free within a few seconds and no process it started — the watchdog included — is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from devserver import free_port
from test_serve_signals import alive, descendants, port_free

pytestmark = pytest.mark.slow

FEW_SECONDS = 8.0
"""The watchdog's grace (3 s) for a clean stop, then SIGKILL, with room for a loaded machine."""


@pytest.mark.parametrize("reload", [False, True])
def test_kill_9_of_harness_serve_frees_the_port_and_leaves_nothing(
        tmp_path: Path, reload: bool) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="offline")
    log = open(tmp_path / "serve.log", "wb")
    argv = [sys.executable, "-m", "diagnosis_harness", "serve", "--port", str(port),
            *(["--reload"] if reload else [])]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, "the server did not come up"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/ok", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        children = descendants(proc.pid)
        assert children  # the server (and, with the fix, its watchdog)
        os.kill(proc.pid, signal.SIGKILL)  # `kill -9 PID`: this process only, uncatchable
        proc.wait(timeout=10)
        killed_at = time.monotonic()
        while (not port_free(port) or any(alive(pid) for pid in children)) \
                and time.monotonic() - killed_at < 30:
            time.sleep(0.1)
        took = time.monotonic() - killed_at
        print(f"port free {took:.2f} s after kill -9 (reload={reload})")
        assert [pid for pid in children if alive(pid)] == []
        assert port_free(port)
        assert took < FEW_SECONDS, f"the port was free {took:.1f} s after kill -9"
    finally:
        log.close()
        for pid in [proc.pid, *children]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
