"""``harness data import``: users' own exports into a dataset folder, without hand conversion.

Sources are files or folders. Log files (plain or gzip, with or without a UTF-8 BOM) are
converted into ``logs.jsonl`` by their detected or given format; tables are copied into
``tables/`` under safe names and runbooks into ``knowledge/`` (the loader reads both as they are:
:mod:`diagnosis_harness.tools.dataset.tables`, :mod:`diagnosis_harness.tools.dataset.runbooks`). What had to
be assumed (a zone, a
year, a service name, a level spelling) is reported per source. The folder is written aside and
moved into place once every source was read. A source with a problem (bad lines, unless the
user chose to skip them; a format no one can tell) is left out, named with its ``file:line``
problems in :attr:`ImportReport.left_out`, and every good source is imported all the same; only
when no source is good does the import fail. Per-file options come from a small mapping file
(:mod:`diagnosis_harness.tools.dataset.file_options`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis_harness.tools.dataset.entries import entry_problem, special_kind
from diagnosis_harness.tools.dataset.file_options import FileRules, options_for
from diagnosis_harness.tools.dataset.format import (
    KNOWLEDGE_DIR,
    LOGS_FILE,
    MANIFEST_FILE,
    TABLES_DIR,
    DatasetError,
)
from diagnosis_harness.tools.dataset.log_import import ImportOptions, SourceReport, import_logs
from diagnosis_harness.tools.dataset.reading import ByteMeter, ReadLimits
from diagnosis_harness.tools.dataset.sniff import kind_of, open_binary
from diagnosis_harness.tools.dataset.swap import swap_into_place
from diagnosis_harness.tools.dataset.tables import safe_name

Progress = Callable[[int, int], None]
"""Called with (bytes read so far, total bytes of all sources)."""
_MAX_PROBLEMS = 200


@dataclass(frozen=True)
class ImportReport:
    """The result of :func:`import_sources`."""

    into: Path
    sources: list[SourceReport]
    left_out: list[str] = dataclasses.field(default_factory=list)
    """``file:line: problem`` of each source left out (its events are not in the dataset)."""

    @property
    def events(self) -> int:
        """Log events written."""
        return sum(s.stats.events for s in self.sources if not s.refused)


def expand(sources: list[Path]) -> list[Path]:
    """Files of the given sources (folders walked, hidden files and dataset.json skipped)."""
    return [path for path, _ in expand_named(sources)]


def expand_named(sources: list[Path]) -> list[tuple[Path, str]]:
    """:func:`expand`, each file with its path relative to the folder it was found in."""
    out: list[tuple[Path, str]] = []
    for src in sources:
        if (kind := special_kind(src)) is not None:
            raise DatasetError(src, [f"{src}: {kind}, not a regular file; only regular files "
                                     "are read"])
        if src.is_dir():
            found = sorted(p for p in src.rglob("*") if p.name != MANIFEST_FILE and not any(
                part.startswith(".") for part in p.relative_to(src).parts))
            root = Path(os.path.realpath(src))
            # A folder's links may not lead out of it, and a FIFO or device in it is no file.
            unsafe = [problem for p in found
                      if (problem := entry_problem(p, root, str(p))) is not None]
            if unsafe:
                raise DatasetError(src, unsafe)
            out += [(p, p.relative_to(src).as_posix()) for p in found if p.is_file()]
        elif src.is_file():
            out.append((src, src.name))
        else:
            raise DatasetError(src, [f"{src}: no such file or folder"])
    return out


def import_sources(sources: list[Path], into: Path, options: ImportOptions,
                   progress: Progress | None = None, per_file: FileRules = ()) -> ImportReport:
    """Convert ``sources`` into the dataset folder ``into`` (see the module docstring)."""
    files = expand_named(sources)
    if not files:
        raise DatasetError(into, ["no source files given"])
    _check_target(into, options.replace)
    total = sum(f.stat().st_size for f, _ in files) or 1
    done = 0
    meter = ByteMeter(options.limits)
    problems: list[str] = []
    reports: list[SourceReport] = []
    good = 0
    into.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{into.name}.import-", dir=into.parent))
    try:
        (work / TABLES_DIR).mkdir()
        (work / KNOWLEDGE_DIR).mkdir()
        with (work / LOGS_FILE).open("w", encoding="utf-8", newline="\n") as out:
            for path, relative in files:
                report = SourceReport(path=path, kind=kind_of(path))

                def step(n: int, base: int = done) -> None:
                    if progress is not None:
                        progress(base + n, total)

                mine: list[str] = []
                kept = out.tell()
                if report.kind == "logs":
                    import_logs(path, out, report, options_for(relative, options, per_file), mine,
                                step, meter)
                else:
                    _copy(path, work, report, mine, meter)
                meter.finish()
                if mine:  # this source is left out; the others go on
                    out.seek(kept)
                    out.truncate()
                    report.refused = report.refused or mine[0]
                    problems += mine
                else:
                    good += 1
                done += path.stat().st_size
                if progress:
                    progress(done, total)
                reports.append(report)
        shown = problems[:_MAX_PROBLEMS]
        if len(problems) > _MAX_PROBLEMS:
            shown.append(f"… and {len(problems) - _MAX_PROBLEMS} more")
        if not good:
            raise DatasetError(", ".join(str(s) for s in sources), shown)
        _write_manifest(work, into, options, [r for r in reports if not r.refused])
        swap_into_place(work, into)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ImportReport(into=into, sources=reports, left_out=shown)


def _check_target(into: Path, replace: bool) -> None:
    if not into.exists() or (into.is_dir() and not any(into.iterdir())):
        return
    if replace and into.is_dir() and (into / MANIFEST_FILE).is_file():
        return
    raise DatasetError(into, [f"{into}: exists and is not empty; choose a new folder, or pass "
                              "--replace to overwrite a dataset folder"])


def _write_manifest(work: Path, into: Path, options: ImportOptions,
                    reports: list[SourceReport]) -> None:
    names = ", ".join(r.path.name for r in reports[:10]) + (" …" if len(reports) > 10 else "")
    manifest: dict[str, Any] = {"name": options.name or into.name,
                                "description": f"Imported by harness data import from {names}",
                                "timezone": options.timezone}
    if options.dayfirst is not None:
        manifest["dayfirst"] = options.dayfirst
    (work / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _copy(path: Path, work: Path, report: SourceReport, problems: list[str],
          meter: ByteMeter) -> None:
    stem = path.name.split(".")[0]
    if report.kind == "table":
        suffix = ".tsv" if ".tsv" in [s.lower() for s in path.suffixes] else ".csv"
        name = safe_name(stem, 1).lower()
        target = work / TABLES_DIR / f"{name if not name.startswith('sqlite_') else 't_' + name}{suffix}"
    else:
        target = work / KNOWLEDGE_DIR / (path.name[:-3] if path.suffix.lower() == ".gz" else path.name)
    if target.exists() or target.with_suffix(".csv" if target.suffix == ".tsv" else ".tsv").exists():
        problems.append(f"{path}: {report.kind} {target.stem!r} comes from two sources; rename one")
        return
    with open_binary(path) as src, target.open("wb") as dst:
        meter.copy(src, dst, path)
    report.target = target.relative_to(work).as_posix()


__all__ = ["ImportOptions", "ImportReport", "ReadLimits", "SourceReport", "expand", "import_sources"]
