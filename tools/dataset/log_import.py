"""Log files of ``harness data import``: one source, detected or given format, into events.

Each source is converted into a temporary part first: if dates that could be read either way
(``03/04/2026``) turn out to be day-first later in the file, the part is rewritten day-first; if
nothing settles their order, the source fails. The notes say everything that was assumed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from diagnosis_harness.control.settings import zone_of
from diagnosis_harness.tools.dataset import k8s_events, kubectl_logs
from diagnosis_harness.tools.dataset.json_logs import records
from diagnosis_harness.tools.dataset.reading import ByteMeter, ReadLimits
from diagnosis_harness.tools.dataset.records import RecordError, SourceStats, build_event
from diagnosis_harness.tools.dataset.sniff import (
    JSON_FORMATS,
    SAMPLE_READ_LINES,
    canonical_format,
    decode,
    detect_format,
    open_binary,
    sample,
    sample_lines,
    whole_document,
)
from diagnosis_harness.tools.dataset.text_logs import compile_pattern, join_events
from diagnosis_harness.tools.time_format import TimeFormat
from diagnosis_harness.tools.timeutil import AmbiguousTimeError, TimeReader, format_utc

if TYPE_CHECKING:
    import re

_GENERIC_STEMS = {"access", "error", "access_log", "error_log", "syslog", "messages", "app",
                  "application", "log", "logs", "output", "stdout", "stderr", "current", "server",
                  "out", "export", "events", "data", "query", "result", "results", "download"}
_FORMAT_NOTES = {"access": "levels from the HTTP status: 5xx ERROR, 4xx WARN, others INFO",
                 "k8s-events": k8s_events.SERVICE_NOTE}


@dataclass(frozen=True)
class ImportOptions:
    """What the user told ``harness data import`` (None: detect or infer)."""

    format: str | None = None
    pattern: str | None = None
    timezone: str = "UTC"
    dayfirst: bool | None = None
    time_format: str | None = None
    """strptime-style; finds the time at the start of a text line and reads every time."""
    year: int | None = None
    service: str | None = None
    name: str | None = None
    skip_bad: bool = False
    replace: bool = False
    limits: ReadLimits = ReadLimits()
    """Longest line, decompressed bytes, largest JSON document (``HARNESS_IMPORT_MAX_*``)."""


@dataclass
class SourceReport:
    """One source in the import summary."""

    path: Path
    kind: str
    format: str = ""
    stats: SourceStats = field(default_factory=SourceStats)
    notes: list[str] = field(default_factory=list)
    target: str = ""
    refused: str = ""
    """Why the whole source was refused (a two-digit-year date without --time-format)."""
    imported_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    future: int = 0
    """Events dated after :attr:`imported_at` (a wrong year or zone, most often)."""
    first_future: str | None = None

    def summary(self) -> str:
        """One line (plus notes) describing what this source gave."""
        if self.kind != "logs":
            return f"{self.path}: {self.kind} → {self.target}"
        s = self.stats
        span = f", {format_utc(s.first)} .. {format_utc(s.last)}" if s.first and s.last else ""
        services = ", ".join(f"{n} ({c})" for n, c in s.services.most_common(5))
        more = f" and {len(s.services) - 5} more" if len(s.services) > 5 else ""
        head = f"{self.path}: {self.format} logs, {s.events} events{span}; services {services}{more}"
        return "\n".join([head, *(f"  - {n}" for n in self.notes)])


def fallback_service(path: Path, options: ImportOptions) -> tuple[str, str]:
    """The service of events that name none, and where it came from (for the summary)."""
    if options.service:
        return options.service.strip().lower(), "--service"
    stem = path.name.split(".")[0].lower()
    if stem and stem not in _GENERIC_STEMS:
        return stem, "the file name"
    parent = path.resolve().parent.name.lower()
    if parent and parent not in _GENERIC_STEMS | {"log", "tmp"}:
        return parent, "the folder name"
    return "unknown", "nothing (pass --service)"


def import_logs(path: Path, out: IO[str], report: SourceReport, options: ImportOptions,
                problems: list[str], progress: Callable[[int], Any], meter: ByteMeter) -> None:
    """Convert one log file into ``out`` (its ``logs.jsonl`` lines); problems name the file.

    DatasetError at once when the file passes ``options.limits`` (a line too long, too many
    bytes): no limit is a matter of one line to skip.
    """
    first, _, blank = sample(path, line_bytes=options.limits.line_bytes)
    if blank:
        problems.append(f"{path}: only blank lines in its first {SAMPLE_READ_LINES:,} lines: "
                        "not a log file; leave it out")
        return
    if not first:
        report.format = "empty"
        report.notes.append("empty file: nothing to import")
        return
    time_format = TimeFormat.parse(options.time_format) if options.time_format else None
    fmt = "pattern" if options.pattern else (
        canonical_format(options.format) if options.format
        else detect_format(first, time_format.regex if time_format else None))
    if fmt is None:
        problems.append(f"{path}: cannot tell the log format from its first lines; pass --format "
                        "(ecs, loki, otel, k8s-events, json, kubectl, syslog, nginx, nginx-error, "
                        "apache-error, logfmt, text) or --pattern (or --time-format if the lines "
                        "start with a time), or leave the file out")
        return
    report.format = fmt
    service, origin = fallback_service(path, options)
    year = options.year if options.year is not None else _file_year(path)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as part:

        def again(year: int, dayfirst: bool | None) -> TimeReader:
            part.seek(0)
            part.truncate()
            report.stats, report.notes[:] = SourceStats(), []
            report.future, report.first_future = 0, None
            return _convert(path, fmt, options, service, report, part, progress, meter,
                            year, dayfirst)

        reader = _convert(path, fmt, options, service, report, part, progress, meter, year)
        if report.refused:
            pass  # nothing is kept: the refusal is the source's one problem
        elif reader.needs_rerun:  # early ambiguous dates were read month-first; the file is day-first
            reader = again(year, True)
        if not report.refused and _too_late(reader, options, path):
            # The file's last year-less time would lie after the file was written: a year earlier.
            reader = again(year - 1, reader.dayfirst)
        if report.refused:
            pass
        elif reader.unresolved:
            report.notes.append(f"dates like {reader.first_ambiguous!r} could be day-first or "
                                "month-first: pass --dayfirst or --monthfirst")
        else:
            part.seek(0)
            shutil.copyfileobj(part, out)
    _notes(report, reader, options, service, origin, problems)


def _file_time(path: Path) -> datetime:
    """When the file was last written, or now if that is later (a clock set wrong)."""
    return min(datetime.fromtimestamp(path.stat().st_mtime, tz=UTC), datetime.now(UTC))


def _file_year(path: Path) -> int:
    return _file_time(path).year


def _too_late(reader: TimeReader, options: ImportOptions, path: Path) -> bool:
    """Whether year-less times read in the file's year end after the file was written."""
    last = reader.last_yearless
    if options.year is not None or not reader.assumed_year or last is None:
        return False
    if last.tzinfo is None:
        last = last.replace(tzinfo=reader.tz)
    return last > _file_time(path) + timedelta(days=1)


def _convert(path: Path, fmt: str, options: ImportOptions, service: str, report: SourceReport,
             out: IO[str], progress: Callable[[int], Any], meter: ByteMeter, year: int,
             dayfirst: bool | None = None) -> TimeReader:
    time_format = TimeFormat.parse(options.time_format) if options.time_format else None
    reader = TimeReader(tz=zone_of(options.timezone),
                        dayfirst=options.dayfirst if dayfirst is None else dayfirst, year=year,
                        time_format=time_format)
    pattern = compile_pattern(options.pattern) if options.pattern else None
    stats = report.stats
    leading = time_format.regex if time_format else None
    meter.start()  # a second pass over the file counts once
    for where, item in _items(path, fmt, pattern, leading, stats, progress, meter):
        try:
            if isinstance(item, RecordError):
                raise item
            fields, ts, message = item
            event = build_event(fields, reader, stats, service, ts_value=ts, message=message)
        except AmbiguousTimeError as exc:
            at = f"{path}:{where}" if isinstance(where, int) else f"{path} ({where})"
            report.refused = (f"{at}: {exc}; an import never guesses: pass --time-format with "
                              f"the right one, e.g. --time-format '{exc.formats[0][0]}'"
                              if exc.formats else f"{at}: {exc}")
            break
        except RecordError as exc:
            stats.bad_lines += 1
            if stats.bad_lines <= 20:
                report.notes.append(f"line {where}: {exc}")
            continue
        stats.count(event)
        if event.ts > report.imported_at:
            report.future += 1
            report.first_future = report.first_future or f"{path}:{where}"
        out.write(event.to_json(format_utc(event.ts)) + "\n")
    return reader


def _items(path: Path, fmt: str, pattern: re.Pattern[str] | None, leading: re.Pattern[str] | None,
           stats: SourceStats, progress: Callable[[int], Any], meter: ByteMeter
           ) -> Iterator[tuple[int | str, Any]]:
    with path.open("rb") as raw, open_binary(path) as handle:
        if fmt in JSON_FORMATS and _one_document(path, meter.limits):
            try:
                document = json.loads(decode(meter.document(handle, path))[0])
            except json.JSONDecodeError as exc:
                yield exc.lineno, RecordError(f"invalid JSON: {exc.msg}")
                return
            except RecursionError:  # deeper than any parser goes: no log export
                yield 1, RecordError("invalid JSON: nested too deeply")
                return
            for n, item in enumerate(records(document, fmt), start=1):
                yield f"record {n}", item
            return
        numbered = _numbered(meter.lines(handle, path), handle, raw, stats, progress)
        if fmt in JSON_FORMATS:
            for lineno, text in numbered:
                if not text.strip():
                    continue
                try:
                    for item in records(json.loads(text), fmt):
                        yield lineno, item
                except (json.JSONDecodeError, ValueError, AttributeError, TypeError) as exc:
                    yield lineno, RecordError(f"not a {fmt} JSON record: {exc}")
                except RecursionError:
                    yield lineno, RecordError(f"not a {fmt} JSON record: nested too deeply")
            return
        events = (kubectl_logs.kubectl_events(numbered, kubectl_logs.inner_format(
                      sample_lines(path, line_bytes=meter.limits.line_bytes)))
                  if fmt == "kubectl" else join_events(numbered, fmt, pattern, leading))
        for first, event, joined in events:
            stats.joined_lines += joined
            yield first, event


def _one_document(path: Path, limits: ReadLimits) -> bool:
    """The file is one JSON document (read whole), not JSON lines.

    A first line cut at the line limit that opens an object is taken for a JSON line (refused
    as too long), not a document: a pretty-printed document's first line is short.
    """
    lines, cut, _ = sample(path, 5, limits.line_bytes)
    return whole_document(lines) and not (cut and len(lines) == 1
                                          and lines[0].lstrip().startswith("{"))


def _numbered(lines: Iterator[tuple[int, bytes]], handle: IO[bytes], raw: IO[bytes],
              stats: SourceStats, progress: Callable[[int], Any]) -> Iterator[tuple[int, str]]:
    for lineno, line in lines:
        text, ok = decode(line)
        stats.latin1_lines += not ok
        if lineno % 20_000 == 0:
            progress(raw.tell() if raw is not handle else handle.tell())
        yield lineno, text


def _year_note(reader: TimeReader, options: ImportOptions, path: Path) -> str:
    """The years given to times written without one, and why (docs/data.md)."""
    first = reader.year or 0
    years = f"{first}" if not reader.rollovers else f"{first}..{first + reader.rollovers}"
    why = ("the year given: --year or --file-options" if options.year is not None else
           f"the latest year that puts them before the file was written, "
           f"{_file_time(path).date().isoformat()}; pass --year for another")
    rolled = "".join(f"; {text!r} starts {first + i + 1} (the months jump back)"
                     for i, text in enumerate(reader.rolled_at[:3]))
    return f"{reader.assumed_year} time(s) without a year read as {years} ({why}){rolled}"


def _notes(report: SourceReport, reader: TimeReader, options: ImportOptions, service: str,
           origin: str, problems: list[str]) -> None:
    s, notes = report.stats, report.notes
    if report.refused:
        problems.append(report.refused)
        return
    if report.format in _FORMAT_NOTES:
        notes.append(_FORMAT_NOTES[report.format])
    if report.format == "kubectl":
        inner = kubectl_logs.inner_format(sample_lines(report.path,
                                                       line_bytes=options.limits.line_bytes))
        notes.append(kubectl_logs.NOTE.format(inner=f"{inner} lines" if inner != "plain"
                                              else "plain text (level from the text)"))
    if options.time_format:
        notes.append(f"times read with --time-format {options.time_format!r}")
    if reader.assumed_zone:
        notes.append(f"{reader.assumed_zone} time(s) without a zone read as {options.timezone} "
                     "(--tz)")
    if reader.assumed_year:
        notes.append(_year_note(reader, options, report.path))
    if report.future:
        notes.append(f"WARNING: {report.future} time(s) after the import time "
                     f"({format_utc(report.imported_at)}), the first at {report.first_future}: "
                     "check the year (--year) and the zone (--tz)")
    if reader.inferred is not None and options.dayfirst is None:
        notes.append(f"dates read {'day' if reader.inferred else 'month'}-first, as "
                     f"{reader.evidence!r} shows")
    for (original, level), count in sorted(s.levels.items()):
        notes.append(f"level {original!r} → {level} in {count} event(s) (original kept in "
                     "attrs.level_original)")
    if s.no_level:
        notes.append(f"{s.no_level} event(s) without a level: INFO assumed")
    if s.service_fallback:
        notes.append(f"{s.service_fallback} event(s) name no service: {service!r}, from {origin}")
    if s.joined_lines:
        notes.append(f"{s.joined_lines} continuation line(s) (stack traces) joined to the event "
                     "they follow")
    if s.latin1_lines:
        notes.append(f"{s.latin1_lines} line(s) were not UTF-8 and were read as Latin-1")
    if reader.unresolved:
        problems.append(f"{report.path}: ambiguous dates: "
                        + "; ".join(n for n in notes if n.startswith("dates like")))
    elif s.bad_lines and not options.skip_bad:
        # file:line of each (up to 20), so an editor jumps to it
        problems += [f"{report.path}:{n.removeprefix('line ')}" for n in notes
                     if n.startswith("line ")]
        more = s.bad_lines - sum(n.startswith("line ") for n in notes)
        problems.append(f"{report.path}: {s.bad_lines} unreadable line(s)"
                        + (f" ({more} more not shown)" if more > 0 else "")
                        + ": fix them, or pass --skip-bad")
    elif s.bad_lines:
        notes.append(f"{s.bad_lines} unreadable line(s) skipped (--skip-bad)")
