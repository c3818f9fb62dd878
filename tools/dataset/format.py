"""Reading and validating an incident dataset folder (docs/design.md §11).

Layout: ``logs.jsonl``, ``tables/<name>.csv``, ``knowledge/<id>.md``, optional ``dataset.json``.
Every bad row is collected as a ``path:line: what`` problem; nothing is silently dropped. The
loader builds nothing unless the whole folder is clean, so a dataset is never half-loaded.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.timeutil import TimestampError, format_utc, parse_ts, to_epoch_ms

LOGS_FILE = "logs.jsonl"
TABLES_DIR = "tables"
KNOWLEDGE_DIR = "knowledge"
MANIFEST_FILE = "dataset.json"

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
"""Log levels by increasing severity; aliases below map common spellings onto them."""
LEVEL_ALIASES = {"WARNING": "WARN", "CRITICAL": "FATAL", "ERR": "ERROR", "TRACE": "DEBUG"}

_LOG_KEYS = {"ts", "service", "level", "message", "attrs"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DOC_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_REAL = re.compile(r"-?(0|[1-9][0-9]*)?\.[0-9]+([eE][-+]?[0-9]+)?\Z")
_DATEISH = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
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


@dataclass
class Problems:
    """Collects ``path:line: what`` messages while a folder is read."""

    root: Path
    items: list[str] = field(default_factory=list)

    def add(self, path: Path, line: int, what: str) -> None:
        """Record one problem at ``path:line``."""
        self.items.append(f"{path.relative_to(self.root).as_posix()}:{line}: {what}")


@dataclass(frozen=True)
class LogEvent:
    """One validated log line, time already in epoch milliseconds (UTC)."""

    ts_ms: int
    service: str
    level: str
    message: str
    attrs: str | None
    line: int


@dataclass(frozen=True)
class Table:
    """One validated CSV table with inferred SQLite column types."""

    name: str
    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]


@dataclass(frozen=True)
class Passage:
    """One runbook passage: the intro or one ``## `` section of a knowledge document."""

    doc_id: str
    title: str
    section: str
    body: str
    line: int


def source_files(src: Path) -> list[Path]:
    """The files that make up a dataset (and its fingerprint), in a stable order."""
    files = [src / LOGS_FILE, src / MANIFEST_FILE]
    files += sorted((src / TABLES_DIR).glob("*.csv")) if (src / TABLES_DIR).is_dir() else []
    files += sorted((src / KNOWLEDGE_DIR).glob("*.md")) if (src / KNOWLEDGE_DIR).is_dir() else []
    return [f for f in files if f.is_file()]


def read_manifest(src: Path, problems: Problems) -> dict[str, str]:
    """``dataset.json``: an object with optional string ``name`` and ``description``."""
    path = src / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        problems.add(path, getattr(exc, "lineno", 1), f"invalid JSON: {exc}")
        return {}
    if not isinstance(data, dict):
        problems.add(path, 1, "must be a JSON object with optional 'name' and 'description'")
        return {}
    out: dict[str, str] = {}
    for key, value in data.items():
        if key not in ("name", "description"):
            problems.add(path, 1, f"unknown key {key!r} (allowed: name, description)")
        elif not isinstance(value, str):
            problems.add(path, 1, f"{key!r} must be a string")
        else:
            out[key] = value
    return out


def iter_log_events(src: Path, problems: Problems) -> Iterator[LogEvent]:
    """Stream ``logs.jsonl``, yielding valid events and recording every bad line."""
    path = src / LOGS_FILE
    if not path.is_file():
        problems.add(path, 1, f"missing: a dataset needs {LOGS_FILE} (one JSON event per line)")
        return
    with path.open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                problems.add(path, lineno, "not valid UTF-8")
                continue
            if not text.strip():
                continue  # blank lines separate nothing in JSONL; they carry no row to lose
            event = _parse_log_line(text, lineno, path, problems)
            if event is not None:
                yield event


def _parse_log_line(text: str, lineno: int, path: Path, problems: Problems) -> LogEvent | None:
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
    level = normalise_level(obj["level"])
    if level is None:
        problems.add(path, lineno, f"unknown level {obj['level']!r} (use one of {', '.join(LEVELS)})")
        return None
    attrs = obj.get("attrs")
    if attrs is not None and not isinstance(attrs, dict):
        problems.add(path, lineno, "'attrs' must be a JSON object")
        return None
    return LogEvent(
        ts_ms=ts_ms,
        service=obj["service"].strip().lower(),
        level=level,
        message=obj["message"],
        attrs=json.dumps(attrs, sort_keys=True, ensure_ascii=False) if attrs else None,
        line=lineno,
    )


def read_tables(src: Path, problems: Problems) -> list[Table]:
    """Every ``tables/<name>.csv``: header row, rows of matching width, inferred column types."""
    folder = src / TABLES_DIR
    if not folder.is_dir():
        return []
    tables: list[Table] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob("*.csv")):
        name = path.stem.lower()
        if not _IDENT.match(name) or name.startswith("sqlite_"):
            problems.add(path, 1, "file name must be a SQL identifier (letters, digits, _)")
            continue
        if name in seen:
            problems.add(path, 1, f"table {name!r} already defined by {seen[name].name}")
            continue
        seen[name] = path
        table = _read_csv(path, name, problems)
        if table is not None:
            tables.append(table)
    return tables


def _read_csv(path: Path, name: str, problems: Problems) -> Table | None:
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                problems.add(path, 1, "empty file: a header row is required")
                return None
            columns = [h.strip() for h in header]
            ok = _check_header(columns, path, problems)
            raw_rows: list[list[str]] = []
            for row in reader:
                if not row:
                    continue  # csv yields [] for a blank line; there is no row to lose
                if len(row) != len(columns):
                    problems.add(
                        path, reader.line_num, f"expected {len(columns)} fields, got {len(row)}"
                    )
                    ok = False
                    continue
                raw_rows.append(row)
    except UnicodeDecodeError:
        problems.add(path, 1, "not valid UTF-8")
        return None
    except csv.Error as exc:
        problems.add(path, 1, f"malformed CSV: {exc}")
        return None
    if not ok:
        return None
    types = [_infer_type([r[i] for r in raw_rows]) for i in range(len(columns))]
    rows = [tuple(_convert(v, t) for v, t in zip(r, types, strict=True)) for r in raw_rows]
    return Table(name=name, columns=columns, types=[t.split(":")[0] for t in types], rows=rows)


def _check_header(columns: list[str], path: Path, problems: Problems) -> bool:
    ok = True
    lowered: set[str] = set()
    for col in columns:
        if not _IDENT.match(col):
            problems.add(path, 1, f"column name {col!r} must be a SQL identifier")
            ok = False
        elif col.lower() in lowered:
            problems.add(path, 1, f"duplicate column {col!r}")
            ok = False
        lowered.add(col.lower())
    return ok


def _infer_type(values: list[str]) -> str:
    present = [v for v in values if v != ""]
    if not present:
        return "TEXT"
    if all(_INT.match(v) for v in present):
        return "INTEGER"
    if all(_INT.match(v) or _REAL.match(v) for v in present):
        return "REAL"
    if all(_DATEISH.match(v) for v in present):
        try:
            for v in present:
                parse_ts(v)
        except TimestampError:
            return "TEXT"
        # Timestamps are stored in the one canonical UTC spelling so SQL string compares work.
        return "TEXT:ts"
    return "TEXT"


def _convert(value: str, kind: str) -> Any:
    if value == "":
        return None
    if kind == "INTEGER":
        return int(value)
    if kind == "REAL":
        return float(value)
    if kind == "TEXT:ts":
        return format_utc(parse_ts(value))
    return value


def read_knowledge(src: Path, problems: Problems) -> list[Passage]:
    """Every ``knowledge/<id>.md`` split into passages: the intro and each ``## `` section."""
    folder = src / KNOWLEDGE_DIR
    if not folder.is_dir():
        return []
    passages: list[Passage] = []
    for path in sorted(folder.glob("*.md")):
        if not _DOC_ID.match(path.stem):
            problems.add(path, 1, "file name must be letters, digits, '.', '_' or '-'")
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            problems.add(path, 1, "not valid UTF-8")
            continue
        passages.extend(_split_markdown(path, text, problems))
    return passages


def _split_markdown(path: Path, text: str, problems: Problems) -> list[Passage]:
    lines = text.splitlines()
    title_at = next((i for i, ln in enumerate(lines) if ln.startswith("# ")), None)
    if title_at is None or not lines[title_at][2:].strip():
        problems.add(path, 1, "no title: the first heading must be '# Title'")
        return []
    title = lines[title_at][2:].strip()
    chunks: list[tuple[str, int, list[str]]] = [("", title_at + 2, [])]
    for i in range(title_at + 1, len(lines)):
        line = lines[i]
        if line.startswith("## "):
            chunks.append((line[3:].strip(), i + 1, []))
        else:
            chunks[-1][2].append(line)
    out = []
    for section, line_no, body_lines in chunks:
        body = "\n".join(body_lines).strip()
        if body:
            out.append(Passage(path.stem, title, section, body, line_no))
    if not out:
        problems.add(path, title_at + 1, "document has a title but no text")
    return out
