"""A headless Chromium for the tests: screenshots and the rendered DOM of a page or file.

Debian's ``chromium`` (installed by ``scripts/ci-os-packages.sh``) run once per call:
``chromium --headless --no-sandbox --disable-gpu ...`` with a temporary ``--user-data-dir``,
a timeout, and no proxy. The browser and the helpers it starts run in a session of their own,
stopped by that session's id (the browser's own PID) should the timeout strike.

- :func:`require_chromium` — skip the calling test, naming the script, without a chromium;
- :func:`screenshot` — a PNG of a URL or a local HTML file at a window size;
- :func:`dump_dom` — the serialized DOM after the page ran its scripts (assert on its text).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

INSTALL_HINT = "scripts/ci-os-packages.sh"
BINARY = "chromium"
_PROXY_VARS = {"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"}


def require_chromium() -> None:
    """Skip the calling test unless ``chromium`` is on PATH."""
    import pytest

    if shutil.which(BINARY) is None:
        pytest.skip(f"{BINARY} not installed: run {INSTALL_HINT} (Debian package chromium)")


def _target(url_or_file: str | os.PathLike[str]) -> str:
    text = os.fspath(url_or_file)
    if "://" in text or text.startswith(("about:", "data:")):
        return text
    return Path(text).resolve().as_uri()


def _run(args: Sequence[str], url_or_file: str | os.PathLike[str], timeout: float) -> str:
    """Run chromium headless on one page; its stdout, or RuntimeError with its stderr."""
    if shutil.which(BINARY) is None:
        raise RuntimeError(f"{BINARY} not installed: run {INSTALL_HINT}")
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARS}
    with tempfile.TemporaryDirectory(prefix="browserkit-") as profile:
        argv = [BINARY, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
                *args, _target(url_or_file)]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=profile, env=env, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:  # the session this call started: the browser (its PID) and its helpers
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
            raise RuntimeError(f"chromium timed out after {timeout}s on {_target(url_or_file)}; "
                               f"stderr:\n{err.decode(errors='replace')[-3000:]}") from None
        finally:
            _reap_session(proc.pid)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium exited {proc.returncode} on {_target(url_or_file)}; "
                           f"stderr:\n{err.decode(errors='replace')[-3000:]}")
    return out.decode(errors="replace")


def _reap_session(sid: int) -> None:
    """Kill what is left of the session this call started (helpers outliving the browser)."""
    try:
        os.killpg(sid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def screenshot(url_or_file: str | os.PathLike[str], png_path: str | os.PathLike[str],
               width: int = 1280, height: int = 800, *, timeout: float = 60.0,
               extra_args: Sequence[str] = ()) -> Path:
    """Save a PNG of the page (a URL, or a local file given by path) at ``width`` x ``height``."""
    png = Path(png_path).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    _run([f"--screenshot={png}", f"--window-size={width},{height}", *extra_args],
         url_or_file, timeout)
    if not png.exists() or png.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot to {png}")
    return png


def dump_dom(url_or_file: str | os.PathLike[str], *, timeout: float = 60.0,
             virtual_time_budget_ms: int | None = 2000, extra_args: Sequence[str] = ()) -> str:
    """The page's serialized DOM (``--dump-dom``) after its scripts ran.

    ``virtual_time_budget_ms`` lets timers and fetches of the page settle first (Chromium's
    virtual time: it does not make the call that much slower).
    """
    budget = [f"--virtual-time-budget={virtual_time_budget_ms}"] if virtual_time_budget_ms else []
    return _run(["--dump-dom", *budget, *extra_args], url_or_file, timeout)
