"""Start and stop a real ``langgraph dev`` server (through ``harness serve``) for integration tests.

The server runs in its own session on a free 127.0.0.1 port, in a working folder of the test's
(where ``.langgraph_api/`` and the server log go). :meth:`DevServer.stop` signals exactly the
process group it started, by that group's id, and fails if anything of it is left behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from diagnosis_harness.cli.group_watchdog import group_alive


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DevServer:
    """``with DevServer(workdir, env) as server:`` then ``server.url``; ``server.log()`` to read."""

    def __init__(self, workdir: Path, env: dict[str, str], *, ready_timeout_s: float = 90.0,
                 args: tuple[str, ...] = ()) -> None:
        self.workdir = workdir
        self.env = env
        self.args = args  # more ``harness serve`` options (``--config FILE``)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "server.log"
        self.ready_timeout_s = ready_timeout_s
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> DevServer:
        """Start ``harness serve`` and wait until ``GET /ok`` answers; raise with the log if not."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "diagnosis_harness", "serve", "--port", str(self.port),
                 "--log-level", "INFO", *self.args],
                cwd=self.workdir, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)  # its own process group, so stop() can signal all of it
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server not ready after {self.ready_timeout_s} s:\n{self.log()[-4000:]}")

    def stop(self, timeout_s: float = 20.0) -> None:
        """Stop the process group this object started; assert no process of it is left."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        pgid = proc.pid  # start_new_session: the leader's pid is the group id
        if proc.poll() is None:
            os.killpg(pgid, signal.SIGTERM)
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(pgid, signal.SIGKILL)
                proc.wait(timeout=5)
        deadline = time.monotonic() + timeout_s
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
            raise AssertionError(f"processes of the server's group {pgid} were left behind")

    def log(self) -> str:
        """Everything the server wrote so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace") \
            if self.log_path.exists() else ""

    def __enter__(self) -> DevServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
