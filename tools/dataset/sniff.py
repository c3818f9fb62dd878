"""What a source file is: its kind (logs, table, runbook), its log format, its text lines.

Detection reads only the first lines of a file. A JSON log line is told apart by its field
names (``_source`` / ``@timestamp`` for Elasticsearch/ECS, ``line`` + ``labels`` for Loki,
``severityText`` / ``resourceLogs`` for OpenTelemetry, ``involvedObject`` for Kubernetes events,
``ts`` + ``service`` + ``level`` + ``message`` for the dataset's own format, anything else with a
time and a message for generic JSON logs: zap, logrus, bunyan, pino, structlog, Serilog…); a text
line by its shape (syslog, access log, nginx or Apache error log, logfmt, ``kubectl logs
--timestamps`` of any of these, or a leading timestamp).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple, cast

from diagnosis_harness.tools.dataset.k8s_events import is_event

JSON_FORMATS = ("native", "ecs", "loki", "otel", "k8s-events", "json")
TEXT_FORMATS = ("kubectl", "syslog", "access", "nginx-error", "apache-error", "logfmt", "text")
FORMAT_ALIASES = {"elasticsearch": "ecs", "elastic": "ecs", "es": "ecs", "opentelemetry": "otel",
                  "otlp": "otel", "zap": "json", "logrus": "json", "bunyan": "json", "pino": "json",
                  "jsonl": "json", "nginx": "access", "apache": "access", "java": "text",
                  "plain": "text", "kubernetes-events": "k8s-events", "events": "k8s-events",
                  "kubectl-events": "k8s-events", "kubectl-logs": "kubectl", "k8s-logs": "kubectl"}
"""Names a user may give ``--format`` for the formats above (``nginx``/``apache`` mean their
access logs; their error logs are ``nginx-error`` / ``apache-error``)."""
_SAMPLE_LINES = 200
_SNIFF_CHARS = 4096
"""Characters of each sampled text line the shape regexes look at: a line of a megabyte of one
character class would make a scan from every position (``LOGFMT_PAIR.finditer``) quadratic."""
MIB = 1 << 20
GIB = 1 << 30
SAMPLE_READ_LINES = 10_000
"""Most lines a format sample reads, blank ones included (each costs microseconds: a gzip of
100 MB of newlines took 110 s to sample when only non-blank lines counted)."""
_OTEL_KEYS = {"severityText", "severity_text", "SeverityText", "severityNumber", "SeverityNumber",
              "timeUnixNano", "TimeUnixNano", "observedTimeUnixNano"}
_NATIVE_KEYS = {"ts", "service", "level", "message"}

SYSLOG_3164 = re.compile(r"(?:<(\d{1,3})>)?([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\S+)"
                         r" (\S+) ([^\s:\[]+)(?: (\d[\w.-]*))?(?:\[(\d+)\])?: ?(.*)\Z")
"""PRI, time, host, tag (``postfix/smtpd``, ``org.gnome.Shell``), the version old sysklogd writes
after a space (``syslogd 1.4.1:``), pid, message."""
SYSLOG_UNTAGGED = re.compile(r"(?:<(\d{1,3})>)?([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}) (\S+) (.+)\Z")
"""A line of a syslog file with no tag: ``-- MARK --``, ``last message repeated 3 times``."""
KUBECTL_PREFIX = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) "
                            r"(.*)\Z")
"""The RFC 3339 time ``kubectl logs --timestamps`` puts before every line of a container."""
SYSLOG_5424 = re.compile(r"<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|(?:\[.*?\])+) ?(.*)\Z")
ACCESS = re.compile(r'((?:[\w.:%-]+, )*\S+) (\S+) (\S+) \[([^\]]+)\] "((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-)'
                    r'(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)\Z')
NGINX_ERROR = re.compile(r"(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \[(\w+)\] (\d+)#(\d+): "
                         r"(?:\*(\d+) )?(.*)\Z")
APACHE_ERROR = re.compile(r"\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d [\d:.]+ \d{4})\] "
                          r"\[(?:([\w-]+):)?(\w+)\] (?:\[pid (\d+)(?::tid (\d+))?\] )?"
                          r"(?:\[client ([^\]]+)\] )?(.*)\Z")
LOGFMT_PAIR = re.compile(r'(?<![\w.@-])([\w.@-]+)=("(?:[^"\\]|\\.)*"|\S*)')
"""A ``key=value`` pair; a key starts where no key character precedes it, so a long run of them
with no ``=`` is scanned once, not once from each of its positions."""
LEADING_TS = re.compile(
    r"\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?"
    r"|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}[ T]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}(?: [+-]\d{4})?"
    r"|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}"
    r"|\d{6}[ T-]\d{6}(?:[.,]\d+)?"  # HDFS's 081109 203615 (refused unless --time-format)
    r"|\d{10}(?:\.\d+)?|\d{13})\]?(?=[\s|,;\]-]|\Z)"
)
CONTINUATION = re.compile(r"\s|at |Caused by|\.\.\. \d+ more|[\w$.]+(Exception|Error)\b|Traceback|}")


def canonical_format(name: str) -> str:
    """The format a ``--format`` name stands for; ValueError for an unknown one."""
    key = name.strip().lower()
    key = FORMAT_ALIASES.get(key, key)
    if key not in JSON_FORMATS + TEXT_FORMATS:
        known = ", ".join(JSON_FORMATS + TEXT_FORMATS + tuple(FORMAT_ALIASES))
        raise ValueError(f"unknown log format {name!r} (known: {known})")
    return key


def open_binary(path: Path) -> IO[bytes]:
    """Open a data file for reading bytes, transparently un-gzipping (by magic, not by name)."""
    with path.open("rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def decode(raw: bytes) -> tuple[str, bool]:
    """A line's text without BOM and line break, and whether it was valid UTF-8."""
    try:
        text, ok = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        text, ok = raw.decode("latin-1"), False  # never fails: every byte is a character
    return text.removeprefix("\ufeff").rstrip("\r\n"), ok


def bounded_lines(handle: IO[bytes], limit: int) -> Iterator[tuple[bytes, bool]]:
    r"""Each line of ``handle`` and whether it was cut at ``limit`` bytes (then the last one).

    The limit counts a line's bytes without its line break (``\n`` or ``\r\n``). Never holds
    more than ``limit + 2`` bytes of a line, however long the line is.
    """
    while raw := handle.readline(limit + 2):
        body = len(raw) - (2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0)
        if body > limit:
            yield raw[:limit], True
            return
        yield raw, False


class Sample(NamedTuple):
    """The first non-blank lines of a file, as :func:`sample` read them."""

    lines: list[str]
    cut: bool
    """The last line was longer than the line limit and is cut there."""
    blank: bool
    """Only blank lines in the first :data:`SAMPLE_READ_LINES` lines (and the file goes on)."""


def sample(path: Path, n: int = _SAMPLE_LINES, line_bytes: int = MIB) -> Sample:
    """The first ``n`` non-blank lines of a (possibly gzipped) file.

    A line longer than ``line_bytes`` is cut there and ends the sample: enough to tell a format,
    and the import refuses that line later, with its number. At most :data:`SAMPLE_READ_LINES`
    lines are read, blank ones included (a gzip of gigabytes of newlines is no log to sniff).
    """
    out: list[str] = []
    with open_binary(path) as handle:
        for read, (raw, cut) in enumerate(bounded_lines(handle, line_bytes), start=1):
            text, _ = decode(raw)
            if text.strip():
                out.append(text)
            if cut:
                return Sample(out, True, False)
            if len(out) >= n or read >= SAMPLE_READ_LINES:
                break
        else:
            return Sample(out, False, False)
    return Sample(out, False, not out)


def sample_lines(path: Path, n: int = _SAMPLE_LINES, line_bytes: int = MIB) -> list[str]:
    """The first ``n`` non-blank lines of a (possibly gzipped) file, each at most ``line_bytes``."""
    return sample(path, n, line_bytes).lines


def kind_of(path: Path) -> str:
    """``table``, ``runbook`` or ``logs``, by the file name (``.gz`` looked through)."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    last = suffixes[-1] if suffixes else ""
    if last in (".csv", ".tsv"):
        return "table"
    if last in (".md", ".markdown"):
        return "runbook"
    return "logs"


def detect_json_format(obj: dict[str, Any]) -> str | None:
    """The JSON log format one record (or whole exported document) is in, or None."""
    keys = set(obj)
    if is_event(obj):
        return "k8s-events"
    if isinstance(obj.get("_source"), dict) or isinstance(obj.get("hits"), dict):
        return "ecs"
    if "resourceLogs" in keys or keys & _OTEL_KEYS or {"Body", "Timestamp"} <= keys:
        return "otel"
    if "body" in keys and keys & {"resource", "attributes"}:
        return "otel"
    data = obj.get("data")
    if isinstance(data, dict) and "result" in data or "streams" in keys:
        return "loki"
    if "line" in keys and keys & {"labels", "timestamp", "stream"} or {"stream", "values"} <= keys:
        return "loki"
    if "@timestamp" in keys or isinstance(obj.get("ecs"), dict) or "ecs.version" in keys:
        return "ecs"
    if _NATIVE_KEYS <= keys and keys <= _NATIVE_KEYS | {"attrs"} and isinstance(obj["ts"], str):
        return "native"
    return "json"


def looks_like_json(line: str) -> bool:
    """True if a file's first line starts JSON (not a bracketed text log like Apache's)."""
    text = line.strip()
    if text in ("[", "{") or text.startswith(('{"', "[{", "[ {", '["')):
        return True
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    except RecursionError:
        pass  # nested deeper than the parser goes: JSON all the same, refused when read
    return text.startswith(("{", "["))


def whole_document(lines: list[str]) -> bool:
    """True if the file is one JSON document (pretty-printed, or an array), not JSON lines."""
    first = lines[0].strip() if lines else ""
    if not looks_like_json(first):
        return False
    if first.startswith("["):
        return True
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return True  # a '{' line that is not a whole object: a pretty-printed document
    except RecursionError:
        return False  # a whole line that is one (too deep) object: JSON lines
    return False


def detect_format(lines: list[str], leading: re.Pattern[str] | None = None) -> str | None:
    """The log format of a file from its first non-blank lines, or None if it is unclear.

    ``leading`` is the regex of the user's ``--time-format``: a line that starts with such a time
    is a ``text`` line.
    """
    if not lines:
        return None
    if looks_like_json(lines[0]):
        if whole_document(lines):
            return _document_format(lines)
        try:
            obj = json.loads(lines[0])
        except (json.JSONDecodeError, RecursionError):
            return None
        return detect_json_format(obj) if isinstance(obj, dict) else None
    lines = [ln[:_SNIFF_CHARS] for ln in lines]  # a text line's shape shows in its start
    starts = [ln for ln in lines if not CONTINUATION.match(ln)] or lines
    need = max(1, len(starts) // 2)
    scores = {
        "kubectl": len(starts) if _is_kubectl(lines) else 0,
        "syslog": sum(bool(SYSLOG_5424.match(ln) or SYSLOG_3164.match(ln)) for ln in starts),
        "access": sum(bool(ACCESS.match(ln)) for ln in starts),
        "nginx-error": sum(bool(NGINX_ERROR.match(ln)) for ln in starts),
        "apache-error": sum(bool(APACHE_ERROR.match(ln)) for ln in starts),
        "logfmt": sum(_is_logfmt(ln) for ln in starts),
        "text": sum(bool((leading or LEADING_TS).match(ln)) for ln in starts),
    }
    stamped = sum(bool(NGINX_ERROR.match(ln) or LEADING_TS.match(ln)) for ln in starts)
    for fmt in TEXT_FORMATS:  # in order: specific shapes before a bare leading timestamp
        # nginx writes a backend's multi-line output inside an event: only stamped lines count
        among = stamped if fmt == "nginx-error" and NGINX_ERROR.match(starts[0]) else len(starts)
        if scores[fmt] >= min(need, among) and scores[fmt] * 10 >= among * 6:
            return fmt
    return None


def _is_kubectl(lines: list[str]) -> bool:
    """Every line has kubectl's time and what follows is itself a log line (JSON, a known format).

    A plain line after an ISO time is just a ``text`` log.
    """
    stamped = [KUBECTL_PREFIX.match(ln) for ln in lines]
    rests = [m.group(2) for m in stamped if m is not None and m.group(2).strip()]
    return all(stamped) and bool(rests) and detect_format(rests) not in (None, "kubectl")


def _is_logfmt(line: str) -> bool:
    pairs: dict[str, str] = {m.group(1): m.group(2) for m in LOGFMT_PAIR.finditer(line)}
    return len(pairs) >= 3 and bool(pairs.keys() & {"ts", "time", "t", "timestamp", "@timestamp"})


def _document_format(lines: list[str]) -> str | None:
    head = "\n".join(lines[:50])
    for marker, fmt in (('"involvedObject"', "k8s-events"), ('"EventList"', "k8s-events"),
                        ('"_source"', "ecs"), ('"resourceLogs"', "otel"), ('"logRecords"', "otel"),
                        ('"streams"', "loki"), ('"resultType"', "loki"), ('"@timestamp"', "ecs")):
        if marker in head:
            return fmt
    return "json"

