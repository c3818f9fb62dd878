r"""Per-file import options: a small TOML mapping from file-name patterns to options.

A folder of real logs mixes shapes (a Proxifier file needs a pattern and a year-less time format,
an nginx file needs none); one ``--format`` or ``--year`` for all of them cannot fit. The file
``harness data import --file-options FILE`` reads::

    ["Proxifier*.log"]
    pattern = '\\[(?P<ts>[^\\]]+)\\] (?P<service>\\S+) - (?P<message>.*)'
    time_format = "%m.%d %H:%M:%S"
    year = 2025

    ["web/*.access"]
    format = "nginx"

Each table's name is a glob matched against a file's path relative to the source folder it was
found in (or its name, for a file given directly), first match in file order; its keys override
the command line's for that file. Unknown keys, wrong types and invalid values are refused with
the table named.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import tomllib
from pathlib import Path
from typing import Any

from diagnosis_harness.tools.dataset.log_import import ImportOptions
from diagnosis_harness.tools.dataset.sniff import canonical_format
from diagnosis_harness.tools.dataset.text_logs import compile_pattern
from diagnosis_harness.tools.time_format import TimeFormat

_KEYS: dict[str, type] = {"format": str, "pattern": str, "time_format": str, "year": int,
                          "service": str}
"""The options a file may set, and their TOML types."""
MAX_RULES = 200

FileRules = tuple[tuple[str, dict[str, Any]], ...]
"""(glob, options) in the file's order."""


def read_file_options(path: Path) -> FileRules:
    """The rules of a per-file options file; ValueError naming what is wrong."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read --file-options {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"--file-options {path} is not valid TOML: {exc}") from None
    if len(raw) > MAX_RULES:
        raise ValueError(f"--file-options {path}: {len(raw)} tables; at most {MAX_RULES}")
    rules = []
    for glob, table in raw.items():
        where = f"--file-options {path} [{glob!r}]"
        if not isinstance(table, dict):
            raise ValueError(f"{where}: must be a table of options (format, pattern, "
                             "time_format, year, service)")
        for key, value in table.items():
            kind = _KEYS.get(key)
            if kind is None:
                raise ValueError(f"{where}: unknown option {key!r}; use {', '.join(_KEYS)}")
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"{where}: {key} must be {'an integer' if kind is int else 'text'}")
        try:
            if "format" in table:
                canonical_format(table["format"])
            if "pattern" in table:
                compile_pattern(table["pattern"])
            if "time_format" in table:
                TimeFormat.parse(table["time_format"])
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if "year" in table and not 1 <= table["year"] <= 9999:
            raise ValueError(f"{where}: year {table['year']} is no year")
        rules.append((glob, dict(table)))
    return tuple(rules)


def options_for(relative: str, options: ImportOptions, rules: FileRules) -> ImportOptions:
    """``options`` with the first rule matching ``relative`` (a POSIX path) applied."""
    for glob, table in rules:
        if fnmatch.fnmatchcase(relative, glob) or fnmatch.fnmatchcase(Path(relative).name, glob):
            if "format" in table and "pattern" not in table:  # the file's format, not a pattern
                table = {**table, "pattern": None}
            return dataclasses.replace(options, **table)
    return options
