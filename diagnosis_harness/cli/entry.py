"""The ``harness`` console script: signal handling first, then the CLI (docs/cli.md).

A SIGTERM in the first seconds of a process (while Python imports the CLI, LangGraph, the
settings and the services) used to kill it by the default handler: exit -15 and, for
``diagnose``, the request lost without a word. So this module imports nothing heavy, installs
the handling of :mod:`diagnosis_harness.cli.signals` before anything else, and only then
imports the CLI. A signal at any moment ends the process with 143 (130 for Ctrl-C) and one
line; a ``diagnose`` cancelled before its run row existed says that nothing was recorded.
"""

from __future__ import annotations

# Before the handler that raises: a Rust extension imported later (pydantic-core…) takes
# datetime's C API, and a KeyboardInterrupt raised while that imports ``datetime`` made pyo3
# panic ("failed to import `datetime` C API") with a Rust traceback instead of the one line.
# Imported here, the capsule is only looked up then, and runs no Python a signal could stop.
import datetime  # noqa: F401
import sys
from typing import NoReturn

from diagnosis_harness.cli import signals


def main(argv: list[str] | None = None) -> NoReturn:
    """Install the signal handling, then run the CLI (``diagnosis_harness.cli.main``)."""
    signals.install()
    args = sys.argv[1:] if argv is None else argv
    try:
        from diagnosis_harness.cli.main import main as cli

        cli(args)
    except KeyboardInterrupt:  # a signal before any command took it over
        sys.exit(signals.stop_line(signals.before_start(args)))
    except Exception as exc:  # the same signal, wrapped by a library it interrupted
        if not signals.interrupted(exc):
            raise
        sys.exit(signals.stop_line(signals.before_start(args)))
    except SystemExit:
        signals.hold()  # the exit code is decided: a signal while Python shuts down keeps it
        raise
