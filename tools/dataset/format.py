"""The on-disk dataset format and its validation (docs/design.md §11).

Layout: ``logs.jsonl`` (or ``logs.jsonl.gz``), ``tables/<name>.csv``, ``knowledge/*.md``, optional
``dataset.json``. Every bad row is collected as a ``path:line: what`` problem; nothing is silently
dropped. What had to be assumed or mapped (a level spelled ``notice``, a zone for naive table
times) is collected as a note and shown by ``harness data load``. The loader builds nothing unless
the whole folder is clean, so a dataset is never half-loaded. Tables live in
:mod:`diagnosis_harness.tools.dataset.tables`, runbooks in :mod:`diagnosis_harness.tools.dataset.runbooks`;
logs in any other shape
are converted by ``harness data import`` (:mod:`diagnosis_harness.tools.dataset.importer`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnosis_harness.control.settings import zone_of
from diagnosis_harness.tools.dataset.sniff import detect_json_format, open_binary
from diagnosis_harness.tools.timeutil import TimestampError, parse_ts, to_epoch_ms

LOGS_FILE = "logs.jsonl"
LOGS_FILE_GZ = "logs.jsonl.gz"
TABLES_DIR = "tables"
KNOWLEDGE_DIR = "knowledge"
MANIFEST_FILE = "dataset.json"
TABLE_SUFFIXES = (".csv", ".tsv")
RUNBOOK_SUFFIXES = (".md", ".markdown")

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
"""Log levels by increasing severity; every other spelling is mapped onto one of them."""
LEVEL_ALIASES = {
    **dict.fromkeys(("WARNING", "W"), "WARN"),
    **dict.fromkeys(("ERR", "E", "SEVERE", "FAIL", "FAILURE", "FAILED"), "ERROR"),
    **dict.fromkeys(("CRITICAL", "CRIT", "EMERG", "EMERGENCY", "ALERT", "PANIC", "DPANIC", "F",
                     "C"), "FATAL"),
    **dict.fromkeys(("TRACE", "FINE", "FINER", "FINEST", "VERBOSE", "DBG", "D", "V", "T"),
                    "DEBUG"),
    **dict.fromkeys(("INFORMATION", "INFORMATIONAL", "NOTICE", "CONFIG", "I", "N", "HTTP",
                     "RETRY", "LOG", "DEFAULT", "OK", "SUCCESS"), "INFO"),
}
"""Common spellings (syslog, java.util.logging, zap, Serilog, npm…) by severity."""
ORIGINAL_LEVEL_ATTR = "level_original"
"""Where a level that had to be mapped keeps its original spelling (in ``attrs``)."""

_LOG_KEYS = {"ts", "service", "level", "message", "attrs"}
_MAX_LISTED = 50


class DatasetError(ValueError):
    """A dataset folder cannot be loaded; ``problems`` lists every ``path:line: what``."""

    def __init__(self, source: Path | str, problems: list[str]) -> None:
        self.source = str(source)
        self.problems = list(problems)
        shown = self.problems[:_MAX_LISTED]
        more = len(self.problems) - len(shown)
        lines = [f"dataset {self.source} has {len(self.problems)} problem(s); nothing was loaded:"]
        lines += [f"  {p}" for p in shown]
        if more:
            lines.append(f"  … and {more} more problem(s) (see DatasetError.problems)")
        super().__init__("\n".join(lines))


def normalise_level(value: str) -> str | None:
    """Canonical level name for ``value`` (case-insensitive, common aliases), or None."""
    upper = value.strip().upper()
    upper = LEVEL_ALIASES.get(upper, upper)
    return upper if upper in LEVELS else None


def map_level(value: str) -> tuple[str, bool]:
    """``(canonical level, known)``: an unknown spelling is INFO, so it never rejects a dataset."""
    level = normalise_level(value)
    return (level, True) if level is not None else ("INFO", False)


@dataclass
class Problems:
    """Collects ``path:line: what`` problems and the notes on what was assumed while reading."""

    root: Path
    items: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, path: Path, line: int, what: str) -> None:
        """Record one problem at ``path:line``."""
        self.items.append(f"{self.rel(path)}:{line}: {what}")

    def note(self, path: Path, what: str) -> None:
        """Record something that was assumed or mapped (not a problem)."""
        self.notes.append(f"{self.rel(path)}: {what}")

    def rel(self, path: Path) -> str:
        """``path`` relative to the dataset folder."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class LogEvent:
    """One validated log line, time already in epoch milliseconds (UTC)."""

    ts_ms: int
    service: str
    level: str
    message: str
    attrs: str | None
    line: int


def logs_path(src: Path) -> Path:
    """The log file of a dataset folder: ``logs.jsonl`` or, if only that exists, the gzip one."""
    plain, packed = src / LOGS_FILE, src / LOGS_FILE_GZ
    return packed if packed.is_file() and not plain.is_file() else plain


def source_files(src: Path) -> list[Path]:
    """The files that make up a dataset (and its fingerprint), in a stable order."""
    files = [src / LOGS_FILE, src / LOGS_FILE_GZ, src / MANIFEST_FILE]
    for folder, suffixes in ((TABLES_DIR, TABLE_SUFFIXES), (KNOWLEDGE_DIR, RUNBOOK_SUFFIXES)):
        if (src / folder).is_dir():
            files += sorted(p for p in (src / folder).iterdir() if p.suffix.lower() in suffixes)
    return [f for f in files if f.is_file()]


def read_manifest(src: Path, problems: Problems) -> dict[str, Any]:
    """``dataset.json``: optional ``name``, ``description``, ``timezone`` and ``dayfirst``.

    ``timezone`` (IANA name or ±HH:MM, default UTC) is the zone of table times written without
    one; ``dayfirst`` settles dates like ``03/04/2026`` that could be read either way.
    """
    path = src / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        problems.add(path, getattr(exc, "lineno", 1), f"invalid JSON: {exc}")
        return {}
    if not isinstance(data, dict):
        problems.add(path, 1, "must be a JSON object with optional 'name' and 'description'")
        return {}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "dayfirst":
            if isinstance(value, bool):
                out[key] = value
            else:
                problems.add(path, 1, "'dayfirst' must be true or false")
        elif key not in ("name", "description", "timezone"):
            problems.add(path, 1, f"unknown key {key!r} (allowed: name, description, timezone, "
                                  "dayfirst)")
        elif not isinstance(value, str):
            problems.add(path, 1, f"{key!r} must be a string")
        elif key == "timezone":
            try:
                zone_of(value)
                out[key] = value
            except ValueError as exc:
                problems.add(path, 1, f"'timezone': {exc}")
        else:
            out[key] = value
    return out


def iter_log_events(src: Path, problems: Problems) -> Iterator[LogEvent]:
    """Stream the log file, yielding valid events and recording every bad line."""
    path = logs_path(src)
    if (src / LOGS_FILE).is_file() and (src / LOGS_FILE_GZ).is_file():
        problems.add(src / LOGS_FILE_GZ, 1, f"both {LOGS_FILE} and {LOGS_FILE_GZ} exist; keep one")
    if not path.is_file():
        problems.add(path, 1, f"missing: a dataset needs {LOGS_FILE} (one JSON event per line)")
        return
    mapped: Counter[tuple[str, str]] = Counter()
    try:
        with open_binary(path) as handle:
            for lineno, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8").removeprefix("\ufeff")
                except UnicodeDecodeError:
                    problems.add(path, lineno, "not valid UTF-8")
                    continue
                if not text.strip():
                    continue  # blank lines separate nothing in JSONL; they carry no row to lose
                if lineno == 1 and _foreign_format(path, text, problems):
                    return
                event = _parse_log_line(text, lineno, path, problems, mapped)
                if event is not None:
                    yield event
    except (OSError, EOFError) as exc:  # a truncated or corrupt gzip file
        problems.add(path, 1, f"cannot read: {exc}")
    for (original, level), count in sorted(mapped.items()):
        problems.note(path, f"level {original!r} read as {level} in {count} event(s) "
                            f"(original kept in attrs.{ORIGINAL_LEVEL_ATTR})")


def _foreign_format(path: Path, text: str, problems: Problems) -> bool:
    # An export in another shape would give one problem per line (thousands): say what it is.
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # the line-by-line check names its problem
        return False
    if not isinstance(obj, dict) or {"ts", "message"} <= set(obj):
        return False  # close to the format: report its problems line by line
    fmt = detect_json_format(obj)
    kind = {"ecs": "an Elasticsearch/ECS", "loki": "a Loki", "otel": "an OpenTelemetry"}.get(
        fmt or "", "a JSON")
    problems.add(path, 1, f"this looks like {kind} log export, not the dataset's own format: "
                          f"convert it with `harness data import {path.name} --into DIR`")
    return True


def _parse_log_line(text: str, lineno: int, path: Path, problems: Problems,
                    mapped: Counter[tuple[str, str]]) -> LogEvent | None:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.add(path, lineno, f"invalid JSON: {exc.msg} (column {exc.colno})")
        return None
    except RecursionError:  # nesting deeper than the parser can go is not a log event
        problems.add(path, lineno, "invalid JSON: nested too deeply")
        return None
    if not isinstance(obj, dict):
        problems.add(path, lineno, "each line must be a JSON object")
        return None
    bad = False
    for key in sorted(set(obj) - _LOG_KEYS):
        problems.add(path, lineno, f"unknown key {key!r} (put extra fields in 'attrs')")
        bad = True
    for key in ("ts", "service", "level", "message"):
        if key not in obj:
            problems.add(path, lineno, f"missing key {key!r}")
            bad = True
        elif not isinstance(obj[key], str) or not obj[key].strip():
            problems.add(path, lineno, f"{key!r} must be a non-empty string")
            bad = True
    if bad:
        return None
    try:
        ts_ms = to_epoch_ms(parse_ts(obj["ts"]))
    except TimestampError as exc:
        problems.add(path, lineno, f"bad ts: {exc}")
        return None
    attrs = obj.get("attrs")
    if attrs is not None and not isinstance(attrs, dict):
        problems.add(path, lineno, "'attrs' must be a JSON object")
        return None
    level, known = map_level(obj["level"])
    if obj["level"].strip().upper() != level:
        attrs = {**(attrs or {}), ORIGINAL_LEVEL_ATTR: obj["level"]}
        mapped[(obj["level"], level if known else f"{level} (unknown level)")] += 1
    return LogEvent(
        ts_ms=ts_ms,
        service=obj["service"].strip().lower(),
        level=level,
        message=obj["message"],
        attrs=json.dumps(attrs, sort_keys=True, ensure_ascii=False) if attrs else None,
        line=lineno,
    )
