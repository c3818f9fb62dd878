"""``harness ARGV`` in the test's own process: the CLI's ``main`` with a process's environment.

A ``harness`` process spends ~2 s importing (LangGraph, the settings, the run store) before it
reads its first argument. Tests that check what the CLI answers to bad input — exit code, the
one line on stderr, the JSON it prints — keep one real process per kind of answer (the process's
promise: its exit code, no traceback) and run the others here, through the same
:func:`diagnosis_harness.cli.main.main` the console script calls once its signal handling is in
(:mod:`diagnosis_harness.cli.entry`, which is left out: it would take this process's signals).
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest


def cli_here(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str,
             cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """What ``harness ARGV`` run in ``cwd`` with this environment would answer, in-process.

    The environment is the one a test gives its subprocess: every ``HARNESS_``/``OPENAI_``
    variable of this process is dropped and ``env``'s are set, so no setting leaks in or out.
    The root logger the CLI sets up (its level, its stderr handler; ``--debug`` makes it DEBUG)
    is put back as it was: the next test file on this worker logs as before.
    """
    for key in [k for k in os.environ if k.startswith(("HARNESS_", "OPENAI_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    from diagnosis_harness.cli.main import main

    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        with pytest.raises(SystemExit) as done:
            main(list(argv))
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
    captured = capsys.readouterr()
    code = done.value.code  # as Python exits: None is 0, a message 1
    return subprocess.CompletedProcess(
        list(argv), 0 if code is None else code if isinstance(code, int) else 1,
        captured.out, captured.err)
