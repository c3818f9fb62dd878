"""The ``harness`` exit codes (docs/design.md §12), in one place.

In the bottom layer so that every command's code — the CLI's, the eval gate's — names its exit
code from here (:mod:`diagnosis_harness.cli.exits` re-exports it); imports only :mod:`enum`, so
the signal handling of the entry point can use it before any heavy import.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """What a ``harness`` process's exit code says."""

    OK = 0
    """Released SUCCESS or FALLBACK; or a command that did what it was asked."""
    INTERNAL = 1
    """A bug: one line; ``--debug`` shows the traceback."""
    FAILED = 2
    """The run was released FAILED (a classified failure)."""
    PAUSED = 3
    """The verified report awaits a human's approval."""
    GATE_FAILED = 4
    """``harness eval``: a gate failed (``--max-wrong``, ``--min-precision``…)."""
    USAGE = 64
    """Bad usage: settings, model spec, dataset, replay file, store or home that cannot be used."""
    CANCELLED = 130
    """Cancelled by Ctrl-C (SIGINT)."""
    TERMINATED = 143
    """Cancelled by SIGTERM (``kill PID``)."""


def for_outcome(release_outcome: str | None) -> Exit:
    """The exit code of a run that ended with this release outcome (FAILED when unknown)."""
    return {"SUCCESS": Exit.OK, "FALLBACK": Exit.OK, "CANCELLED": Exit.CANCELLED}.get(
        release_outcome or "FAILED", Exit.FAILED)
