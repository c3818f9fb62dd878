"""One error mapping for the CLI and the server start: every known problem is one line.

Settings, model specs, replay files, datasets, backends, the run store, the checkpoint store,
the home folder and the filesystem each raise their own classified error whose message names
the file or the setting; :func:`problem` turns any of them into that one line (the CLI prints
``harness: <line>`` and exits 64). Anything else is not mapped (None): the caller reports it
as an internal error, one line too, with the traceback only at debug level (:func:`setup_logging`).

Imports are done inside the functions: ``harness --help`` must stay fast.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from diagnosis_harness.cli.exits import Exit
from diagnosis_harness.control.terminal_text import printable

if TYPE_CHECKING:
    from diagnosis_harness.control.settings import Settings

"""Exit code of bad usage: options, settings, model spec, replay file, dataset, stores."""

LOG_LEVEL_ENV = "HARNESS_LOG_LEVEL"
"""Log level of the CLI (default WARNING); DEBUG (or ``--debug``) adds tracebacks."""


class _OneLine(logging.Formatter):
    """``harness: message`` on one line; a traceback only when the level is DEBUG."""

    def __init__(self, debug: bool) -> None:
        super().__init__("harness: %(message)s")
        self.debug = debug

    def format(self, record: logging.LogRecord) -> str:
        if self.debug:
            return super().format(record)
        saved = record.exc_info, record.exc_text, record.stack_info
        record.exc_info = record.exc_text = record.stack_info = None
        try:
            return printable(" ".join(super().format(record).split()))
        finally:
            record.exc_info, record.exc_text, record.stack_info = saved


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record is emitted.

    Never a stream kept from set-up: a caller that swapped stderr for a while and closed it
    (a test runner, an embedding application) must not break logging.
    """

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def setup_logging(debug: bool = False) -> bool:
    """Log to stderr, one line per record; True when at debug level (tracebacks shown)."""
    name = os.environ.get(LOG_LEVEL_ENV, "").strip().upper()
    level = logging.DEBUG if debug else getattr(logging, name, None)
    if not isinstance(level, int):
        level = logging.WARNING
    debugging = level <= logging.DEBUG
    handler = _CurrentStderr()
    handler.setFormatter(_OneLine(debugging))
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_harness", False):
            root.removeHandler(old)
    handler._harness = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    return debugging


def _os_problem(exc: OSError, home: Path | None) -> str:
    where = exc.filename or home or "file"
    reason = exc.strerror or str(exc)
    if home is not None and exc.filename and Path(exc.filename).is_relative_to(home):
        return f"HARNESS_HOME {home}: {where}: {reason}"
    return f"{where}: {reason}"


def problem(exc: BaseException, settings: Settings | None = None) -> str | None:
    """The one-line message of a known problem, or None if ``exc`` is not one.

    SQLite reports a full disk as an I/O error at times; a home on a full device says so too.
    """
    line = _problem(exc, settings)
    said = (line or "").lower()
    if line is not None and settings is not None and "disk is full" not in said \
            and "no space" not in said:
        try:
            full = shutil.disk_usage(Path(settings.home)).free < _NEARLY_FULL
        except OSError:
            full = False
        if full:
            line += f" (no space left on the device of HARNESS_HOME {settings.home})"
    return line


_NEARLY_FULL = 1 << 20  # bytes free below which a write failure is blamed on space


def _problem(exc: BaseException, settings: Settings | None) -> str | None:
    from diagnosis_harness.control.settings import SettingsError
    from diagnosis_harness.providers.replay import ReplayFileError
    from diagnosis_harness.providers.seam import ModelSpecError
    from diagnosis_harness.runstore.store import RunPersistenceError
    from diagnosis_harness.session.runner import CheckpointStoreError, ResumeRefused
    from diagnosis_harness.tools.backends import BackendUnavailable
    from diagnosis_harness.tools.dataset.format import DatasetError

    home = Path(settings.home) if settings is not None else None
    if isinstance(exc, (SettingsError, ModelSpecError, ReplayFileError, DatasetError,
                        BackendUnavailable, RunPersistenceError, CheckpointStoreError,
                        ResumeRefused)):
        lines = str(exc).splitlines()
        head = lines[0] if lines else type(exc).__name__
        # A dataset lists every bad line; the first one (which names the file) stands for all.
        if isinstance(exc, DatasetError) and exc.problems:
            more = len(exc.problems) - 1
            head = f"{exc.problems[0].strip()}" + (f" (and {more} more problems)" if more else "")
        return " ".join(head.split())
    if isinstance(exc, UnicodeDecodeError):
        return f"a settings or data file is not valid UTF-8: {exc.reason} at byte {exc.start}"
    if isinstance(exc, OSError):
        return _os_problem(exc, home)
    if isinstance(exc, sqlite3.Error) and home is not None:
        return f"a database under HARNESS_HOME {home} cannot be used: {exc}"
    if isinstance(exc, RecursionError):
        return "input nested too deeply to read (JSON in a replay file or dataset?)"
    return None


def check_home(settings: Settings) -> str | None:
    """Why ``HARNESS_HOME`` cannot hold the harness's files, or None (creates it if missing)."""
    home = Path(settings.home)
    if home.exists() and not home.is_dir():
        return f"HARNESS_HOME {home} is not a directory"
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"HARNESS_HOME {home}: cannot create it: {exc.strerror or exc}"
    return None


def dotenv_problem() -> str | None:
    """Why the working directory's ``.env`` cannot be read as settings, or None."""
    path = Path(".env")
    try:
        if not path.exists():
            return None
        if not path.is_file():
            return f"settings file {path.resolve()} is not a file"
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"settings file {path.resolve()} is not valid UTF-8 "
                f"(byte 0x{exc.object[exc.start]:02x} at offset {exc.start})")
    except OSError as exc:
        return f"settings file {path.resolve()}: {exc.strerror or exc}"
    return None


def usage_error(message: str) -> NoReturn:
    """Print ``harness: message`` on stderr and exit 64 (bad usage)."""
    import typer

    typer.echo(printable(f"harness: {message}"), err=True)  # it may quote a file's line
    raise typer.Exit(Exit.USAGE)


def load_cli_settings(**overrides: object) -> Settings:
    """Settings from the environment, ``.env`` and the command's options, or a usage error."""
    from diagnosis_harness.control.settings import SettingsError, load_settings

    if (bad := dotenv_problem()) is not None:
        usage_error(bad)
    try:
        return load_settings(**{k: v for k, v in overrides.items() if v is not None})
    except SettingsError as exc:
        usage_error(str(exc))
