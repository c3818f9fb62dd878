"""Operational tables of a dataset: ``tables/<name>.csv`` (or ``.tsv``) into typed SQL columns.

Spreadsheet exports come in many shapes, so the reader sniffs the delimiter (``,`` ``;`` tab
``|``) and whether the first row is a header, turns headers into safe column names (keeping the
original for display), and finds every time-like column: one named like a time (``*_at``,
``ts``, ``date``…) or mostly holding timestamps. Such a column is parsed in whatever form it
comes (ISO with or without zone, ``14/03/2026 09:49``, epoch seconds…) and stored in the one
canonical UTC spelling the tools compare as text, or the load fails naming the column, row and
value. A time column that SQL cannot compare would silently hide the rows that explain an
incident ("checked and found nothing"); this module never produces one.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis_harness.control.settings import zone_of
from diagnosis_harness.tools.dataset.format import TABLE_SUFFIXES, TABLES_DIR, Problems
from diagnosis_harness.tools.timeutil import (
    AmbiguousTimeError,
    TimeReader,
    TimestampError,
    epoch_to_datetime,
    format_utc,
    looks_like_time,
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_REAL = re.compile(r"-?(0|[1-9][0-9]*)?\.[0-9]+([eE][-+]?[0-9]+)?\Z")
_TIME_NAME = re.compile(r"(^|_)(ts|time|timestamp|date|datetime|at|on|when)$"
                        r"|^(ts|time|timestamp|date|datetime|when)_")
_NULLS = {"", "null", "none", "n/a", "na", "-", "nan", "nat"}
_DELIMITERS = (",", ";", "\t", "|")
_MAX_PROBLEMS_PER_COLUMN = 5
MAX_COLUMNS = 1000
"""Columns one table may have: SQLite refuses more than 2,000, and no evidence needs that many."""


@dataclass(frozen=True)
class Table:
    """One validated table: safe column names, their original headers, SQLite types, rows."""

    name: str
    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]
    labels: dict[str, str]
    """Original header of every column whose name had to be made safe (column → header)."""


@dataclass(frozen=True)
class TableOptions:
    """How to read times that do not say everything (from ``dataset.json``)."""

    timezone: str = "UTC"
    dayfirst: bool | None = None


def table_files(src: Path) -> list[Path]:
    """The table files of a dataset folder, in a stable order."""
    folder = src / TABLES_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in TABLE_SUFFIXES)


def safe_name(header: str, position: int) -> str:
    """A SQL-safe name for a header: kept if it is an identifier, else ``started_at`` style."""
    text = header.strip()
    if _IDENT.match(text):
        return text
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    name = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    if not name:
        return f"column_{position}"
    return f"c_{name}" if name[0].isdigit() else name


def read_tables(src: Path, problems: Problems, options: TableOptions | None = None) -> list[Table]:
    """Every table file: sniffed, header-normalised, typed, time columns in canonical UTC."""
    options = options or TableOptions()
    tables: list[Table] = []
    seen: dict[str, Path] = {}
    for path in table_files(src):
        name = path.stem.lower()
        if not _IDENT.match(name) or name.startswith("sqlite_"):
            problems.add(path, 1, "file name must be a SQL identifier (letters, digits, _); "
                                  "`harness data import` renames it for you")
            continue
        if name in seen:
            problems.add(path, 1, f"table {name!r} already defined by {seen[name].name}")
            continue
        seen[name] = path
        table = read_table(path, name, problems, options)
        if table is not None:
            tables.append(table)
    return tables


def sniff_delimiter(sample: str) -> str:
    """The delimiter that splits the sample's rows into the same number (> 1) of fields."""
    rows_by: dict[str, list[int]] = {}
    for delimiter in _DELIMITERS:
        rows = list(csv.reader(io.StringIO(sample), delimiter=delimiter))[:-1] or \
            list(csv.reader(io.StringIO(sample), delimiter=delimiter))
        rows_by[delimiter] = [len(r) for r in rows if r]
    best, best_key = ",", (False, 0)
    for delimiter, widths in rows_by.items():
        if not widths:
            continue
        key = (len(set(widths)) == 1 and widths[0] > 1, min(widths))
        if key > best_key:
            best, best_key = delimiter, key
    return best


def read_table(path: Path, name: str, problems: Problems, options: TableOptions) -> Table | None:
    """Read one table file (see the module docstring); None if it has problems."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        problems.add(path, 1, "not valid UTF-8 (save the file as UTF-8)")
        return None
    delimiter = "\t" if path.suffix.lower() == ".tsv" else sniff_delimiter(text[:20_000])
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        numbered = [(reader.line_num, row) for row in reader if row]
    except csv.Error as exc:
        problems.add(path, 1, f"malformed CSV: {exc}")
        return None
    if not numbered:
        problems.add(path, 1, "empty file: a header row is required")
        return None
    if delimiter != ",":
        problems.note(path, f"fields separated by {delimiter!r}")
    header = [h.strip() for h in numbered[0][1]]
    if len(numbered) > 1 and _looks_like_data(header):
        problems.note(path, f"no header row: columns named column_1..column_{len(header)}")
        header = [f"column_{i}" for i in range(1, len(header) + 1)]
    else:
        numbered = numbered[1:]
    columns = _columns(header, path, problems)
    ok = columns is not None
    raw_rows: list[tuple[int, list[str]]] = []
    for line, row in numbered:
        if len(row) != len(header):
            problems.add(path, line, f"expected {len(header)} fields, got {len(row)}")
            ok = False
        else:
            raw_rows.append((line, row))
    if not ok or columns is None:
        return None
    labels = {c: h for c, h in zip(columns, header, strict=True) if c != h}
    if labels:
        problems.note(path, "columns renamed: " + ", ".join(f"{h!r} → {c}" for c, h in labels.items()))
    converted = [_column(path, columns[i], header[i], [(ln, r[i]) for ln, r in raw_rows], problems,
                         options) for i in range(len(columns))]
    if any(c is None for c in converted):
        return None
    types = [c[0] for c in converted if c is not None]
    values = [c[1] for c in converted if c is not None]
    rows = list(zip(*values, strict=True)) if values and raw_rows else []
    return Table(name=name, columns=columns, types=types, rows=rows, labels=labels)


def _looks_like_data(first_row: list[str]) -> bool:
    data_like = sum(bool(_INT.match(v) or _REAL.match(v) or looks_like_time(v)) for v in first_row)
    return data_like >= max(1, (len(first_row) + 1) // 2)


def _columns(header: list[str], path: Path, problems: Problems) -> list[str] | None:
    if len(header) > MAX_COLUMNS:
        problems.add(path, 1, f"{len(header)} columns; a table may have at most {MAX_COLUMNS} "
                     "(split it, or keep the columns an investigation reads)")
        return None
    columns: list[str] = []
    lowered: dict[str, str] = {}
    ok = True
    for position, original in enumerate(header, start=1):
        column = safe_name(original, position)
        if column.lower() in lowered:
            problems.add(path, 1, f"duplicate column {original!r}"
                         + (f" (same as {lowered[column.lower()]!r})" if column != original else ""))
            ok = False
        lowered[column.lower()] = original
        columns.append(column)
    return columns if ok else None


def _column(path: Path, column: str, label: str, cells: list[tuple[int, str]], problems: Problems,
            options: TableOptions) -> tuple[str, list[Any]] | None:
    present = [v for _, v in cells if v != ""]
    named = bool(_TIME_NAME.search(column.lower()))
    if present and all(_INT.match(v) for v in present):
        kind = "INTEGER"
    elif present and all(_INT.match(v) or _REAL.match(v) for v in present):
        kind = "REAL"
    else:
        kind = "TEXT"
    if kind != "TEXT":
        if named and _mostly(present, _is_epoch):
            return _times(path, column, label, cells, problems, options)
        convert = int if kind == "INTEGER" else float
        return kind, [convert(v) if v != "" else None for _, v in cells]
    timeish = [v for v in present if v.strip().lower() not in _NULLS and looks_like_time(v)]
    if timeish and (named or len(timeish) * 2 >= len(present)):
        return _times(path, column, label, cells, problems, options)
    return "TEXT", [v if v != "" else None for _, v in cells]


def _mostly(values: list[str], test: Callable[[str], bool]) -> bool:
    return bool(values) and sum(map(test, values)) * 2 >= len(values)


def _is_epoch(value: str) -> bool:
    try:
        epoch_to_datetime(value)
    except (TimestampError, ValueError, OverflowError):
        return False
    return True


def _times(path: Path, column: str, label: str, cells: list[tuple[int, str]], problems: Problems,
           options: TableOptions, dayfirst: bool | None = None) -> tuple[str, list[Any]] | None:
    reader = TimeReader(tz=zone_of(options.timezone),
                        dayfirst=options.dayfirst if dayfirst is None else dayfirst)
    date_only = all(not re.search(r"\d:\d\d", v) and not _INT.match(v.strip()) for _, v in cells
                    if v.strip().lower() not in _NULLS)
    out: list[Any] = []
    failures = 0
    for line, value in cells:
        if value.strip().lower() in _NULLS:
            out.append(None)
            continue
        try:
            out.append(reader.read_date(value).isoformat() if date_only
                       else format_utc(reader.read(value)))
        except AmbiguousTimeError as exc:  # never guessed: the column stays as written
            problems.note(path, f"column {label!r} kept as text: {exc}")
            return "TEXT", [v if v != "" else None for _, v in cells]
        except TimestampError as exc:
            failures += 1
            if failures <= _MAX_PROBLEMS_PER_COLUMN:
                problems.add(path, line, f"column {label!r}: {exc}; every value of a time column "
                                         "must be a time (or empty)")
            out.append(None)
    if failures > _MAX_PROBLEMS_PER_COLUMN:
        problems.add(path, 1, f"column {label!r}: {failures - _MAX_PROBLEMS_PER_COLUMN} more "
                              "value(s) that are not times")
    if failures:
        return None
    if reader.needs_rerun:  # early ambiguous dates were read month-first; the column is day-first
        return _times(path, column, label, cells, problems, options, dayfirst=True)
    if reader.unresolved:
        problems.add(path, 1, f"column {label!r}: dates like {reader.first_ambiguous!r} could be "
                              "day-first or month-first; set \"dayfirst\": true or false in "
                              "dataset.json (or import with --dayfirst / --monthfirst)")
        return None
    how = "dates" if date_only else "UTC timestamps"
    details = []
    if reader.assumed_zone and not date_only:
        details.append(f"{reader.assumed_zone} value(s) without a zone read as {options.timezone}")
    if reader.inferred is not None and options.dayfirst is None and dayfirst is None:
        details.append(f"{'day' if reader.inferred else 'month'}-first, as {reader.evidence!r} shows")
    elif dayfirst:
        details.append("day-first")
    if details or any(o is not None and o != v.strip() for o, (_, v) in zip(out, cells, strict=True)):
        problems.note(path, f"time column {column} stored as {how}" +
                      (f" ({'; '.join(details)})" if details else ""))
    return "TEXT", out
