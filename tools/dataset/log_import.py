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
from datetime import UTC, datetime
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
    with tempfile.TemporaryFile("w+", encoding="utf-8") as part:
        reader = _convert(path, fmt, options, service, report, part, progress, meter)
        if report.refused:
            pass  # nothing is kept: the refusal is the source's one problem
        elif reader.needs_rerun:  # early ambiguous dates were read month-first; the file is day-first
            part.seek(0)
            part.truncate()
            report.stats = SourceStats()
            reader = _convert(path, fmt, options, service, report, part, progress, meter,
                              dayfirst=True)
        if report.refused:
            pass
        elif reader.unresolved:
            report.notes.append(f"dates like {reader.first_ambiguous!r} could be day-first or "
                                "month-first: pass --dayfirst or --monthfirst")
        else:
            part.seek(0)
            shutil.copyfileobj(part, out)
    _notes(report, reader, options, service, origin, problems)


def _file_year(path: Path) -> int:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).year


def _convert(path: Path, fmt: str, options: ImportOptions, service: str, report: SourceReport,
             out: IO[str], progress: Callable[[int], Any], meter: ByteMeter,
             dayfirst: bool | None = None) -> TimeReader:
    year = options.year if options.year is not None else _file_year(path)
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
        notes.append(f"{reader.assumed_year} time(s) without a year read as {reader.year} "
                     "(--year)")
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
    if reader.unresolved or (s.bad_lines and not options.skip_bad):
        problems.append(f"{report.path}: {s.bad_lines or 'ambiguous'} "
                        f"{'unreadable line(s)' if s.bad_lines else 'dates'}: "
                        + "; ".join(n for n in notes if n.startswith(("line ", "dates like")))
                        + ("" if reader.unresolved else " (fix them, or pass --skip-bad)"))
    elif s.bad_lines:
        notes.append(f"{s.bad_lines} unreadable line(s) skipped (--skip-bad)")
