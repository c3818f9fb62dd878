"""Which files of a dataset folder may be read at all: regular files inside the folder.

A dataset is evidence that runs publish, so a reader must never follow a symbolic link out of
the folder (``knowledge/x.md -> /proc/self/environ`` published the API key in a FALLBACK) nor
open a FIFO (a reader blocks for ever), a device (``/dev/zero`` never ends) or a socket.
:func:`unsafe_entries` is asked before anything is opened, at load
(:func:`diagnosis_harness.tools.dataset.build.load_dataset`) and at import
(:mod:`diagnosis_harness.tools.dataset.importer`); each refusal is one ``path: what`` line.

A link that resolves to a regular file *inside* the dataset folder stays allowed (one runbook
under two names, a table shared by two folders of one tree): it reads nothing the folder does
not already hold. Only ``os.lstat``/``os.stat`` are called here: neither opens the file, so a
FIFO is classified without blocking.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from diagnosis_harness.tools.dataset.format import (
    KNOWLEDGE_DIR,
    LOGS_FILE,
    LOGS_FILE_GZ,
    MANIFEST_FILE,
    RUNBOOK_SUFFIXES,
    TABLE_SUFFIXES,
    TABLES_DIR,
)

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(path: Path) -> str | None:
    """What ``path`` is if it is no regular file or folder (a FIFO, a device, a socket), or None."""
    try:
        mode = os.stat(path).st_mode  # follows a link; never opens the file
    except OSError:
        return None  # absent or dangling: the readers report a missing file as they always did
    return next((what for test, what in _KINDS if test(mode)), None)


def entry_problem(path: Path, root: Path, shown: str) -> str | None:
    """The one-line refusal of ``path`` (under the folder ``root``), or None if it may be read."""
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(root):
            return (f"{shown}: a symbolic link to {target}, outside the folder {root}; links may "
                    "only point inside it (copy the file in instead)")
    kind = special_kind(path)
    if kind is not None:
        return f"{shown}: {kind}, not a regular file; only regular files are read"
    return None


def unsafe_entries(src: Path) -> list[str]:
    """Every file the dataset readers would open that is a link out of ``src`` or not regular."""
    root = Path(os.path.realpath(src))
    problems: list[str] = []

    def check(paths: Iterable[Path]) -> None:
        for path in paths:
            if os.path.lexists(path):
                shown = path.relative_to(src).as_posix()
                if (problem := entry_problem(path, root, shown)) is not None:
                    problems.append(problem)

    check([src / LOGS_FILE, src / LOGS_FILE_GZ, src / MANIFEST_FILE])
    for folder, suffixes in ((TABLES_DIR, TABLE_SUFFIXES), (KNOWLEDGE_DIR, RUNBOOK_SUFFIXES)):
        before = len(problems)
        check([src / folder])
        if len(problems) == before and (src / folder).is_dir():
            check(sorted(p for p in (src / folder).iterdir() if p.suffix.lower() in suffixes))
    return problems
