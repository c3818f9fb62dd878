"""Turning one foreign log record (flattened to dotted keys) into a dataset event.

Field names are looked up in the order common tools write them (ECS, OpenTelemetry, zap,
logrus, bunyan/pino, Serilog, structlog, GELF, journald, Docker…). Well-known attributes get
short names the model can filter on (``pod``, ``namespace``, ``host``, ``trace_id``…); every
other field is kept in ``attrs`` under its dotted name. What had to be assumed is counted in
:class:`SourceStats`, which becomes the import summary.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from diagnosis_harness.tools.dataset.format import ORIGINAL_LEVEL_ATTR, map_level
from diagnosis_harness.tools.timeutil import AmbiguousTimeError, TimeReader, TimestampError

TS_KEYS = ("@timestamp", "timestamp", "Timestamp", "ts", "time", "t", "@t", "datetime", "date",
           "eventTime", "event_time", "timeUnixNano", "TimeUnixNano", "observedTimeUnixNano",
           "ObservedTimestamp", "__REALTIME_TIMESTAMP", "_time", "asctime", "logdate",
           "time_local", "created")
LEVEL_KEYS = ("log.level", "level", "severityText", "SeverityText", "severity_text", "severity",
              "lvl", "loglevel", "log_level", "levelname", "@l", "syslog.severity_label",
              "severityNumber", "SeverityNumber", "levelno", "PRIORITY", "priority")
MESSAGE_KEYS = ("message", "msg", "@m", "@mt", "body", "Body", "log", "MESSAGE", "text", "event",
                "short_message", "full_message")
SERVICE_KEYS = ("service.name", "service", "serviceName", "service_name", "ServiceName", "app",
                "application", "app_name", "appname", "kubernetes.labels.app",
                "kubernetes.labels.app_kubernetes_io/name", "k8s.deployment.name",
                "SYSLOG_IDENTIFIER", "_SYSTEMD_UNIT", "kubernetes.container.name",
                "k8s.container.name", "container_name", "container", "job")
ALIASES = {
    "pod": ("kubernetes.pod.name", "k8s.pod.name", "kubernetes.pod_name", "pod", "pod_name"),
    "namespace": ("kubernetes.namespace", "kubernetes.namespace_name", "kubernetes.namespace.name",
                  "k8s.namespace.name", "namespace"),
    "container": ("kubernetes.container.name", "k8s.container.name", "container.name",
                  "container_name", "container"),
    "node": ("kubernetes.node.name", "k8s.node.name", "kubernetes.host"),
    "host": ("host.name", "host.hostname", "hostname", "host", "_HOSTNAME", "agent.hostname"),
    "trace_id": ("trace.id", "trace_id", "traceId", "traceID", "TraceId", "otelTraceID",
                 "dd.trace_id", "trace-id"),
    "span_id": ("span.id", "span_id", "spanId", "spanID", "SpanId", "otelSpanID", "dd.span_id"),
    "logger": ("log.logger", "logger", "logger_name", "loggerName"),
    "stack_trace": ("error.stack_trace", "stacktrace", "stack_trace", "stack", "exception.stacktrace",
                    "exc_info"),
}
"""Short attribute names for fields every tool spells differently."""
DROP_KEYS = re.compile(r"(_index|_id|_score|_type|@version|ecs\.version|v|agent\..*|input\.type|"
                       r"log\.offset|sort|data_stream\..*|event\.ingested|kubernetes\.pod\.uid|"
                       r"kubernetes\.labels\.pod-template-hash|__CURSOR|__MONOTONIC_TIMESTAMP|_BOOT_ID|"
                       r"_MACHINE_ID)\Z")
"""Shipper bookkeeping (Filebeat, Elasticsearch, journald) that says nothing about the event."""
_LEVEL_TOKEN = re.compile(r"(?<![\w-])\[?(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|SEVERE|"
                          r"CRITICAL|CRIT|FATAL|PANIC|EMERG|ALERT)\]?(?![\w-])"
                          r"|\[(trace|debug|info|notice|warn|warning|error|crit|alert|emerg)\]"
                          r"|\blevel=(\w+)")
_SYSLOG_LEVELS = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")
_BUNYAN_LEVELS = {10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL"}
_PYTHON_LEVELS = {10: "DEBUG", 20: "INFO", 30: "WARNING", 40: "ERROR", 50: "CRITICAL"}
_MAX_VALUE_CHARS = 4000
_MAX_ATTRS = 60


class RecordError(ValueError):
    """One record cannot become an event (no time, no message…)."""


@dataclass(frozen=True)
class Event:
    """One event in the dataset's own form."""

    ts: datetime
    service: str
    level: str
    message: str
    attrs: dict[str, Any]

    def to_json(self, ts_text: str) -> str:
        """The ``logs.jsonl`` line of this event."""
        line: dict[str, Any] = {"ts": ts_text, "service": self.service, "level": self.level,
                                "message": self.message}
        if self.attrs:
            line["attrs"] = self.attrs
        return json.dumps(line, ensure_ascii=False)


@dataclass
class SourceStats:
    """What one source gave and what reading it assumed (the import summary of that file)."""

    events: int = 0
    services: Counter[str] = field(default_factory=Counter)
    levels: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(original spelling, level) for every level that had to be mapped."""
    no_level: int = 0
    service_fallback: int = 0
    joined_lines: int = 0
    bad_lines: int = 0
    latin1_lines: int = 0
    first: datetime | None = None
    last: datetime | None = None

    def count(self, event: Event) -> None:
        """Account for one written event."""
        self.events += 1
        self.services[event.service] += 1
        self.first = event.ts if self.first is None else min(self.first, event.ts)
        self.last = event.ts if self.last is None else max(self.last, event.ts)


def flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects as one level of dotted keys (``{"log": {"level": "x"}}`` → ``log.level``)."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def level_of(value: object, key: str) -> tuple[str, str | None]:
    """``(level, original spelling or None)`` of a level field, numbers read by their scheme."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RecordError(f"level {value!r} is not a level")
    if isinstance(value, int | float):
        number = int(value)
        if key in ("severityNumber", "SeverityNumber"):  # OpenTelemetry: 1-4 TRACE … 21-24 FATAL
            names = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
            name = names[min(max((number - 1) // 4, 0), 5)]
        elif key == "levelno":
            name = _PYTHON_LEVELS.get(number, "INFO")
        elif number in _BUNYAN_LEVELS and key not in ("PRIORITY", "priority"):
            name = _BUNYAN_LEVELS[number]
        elif 0 <= number <= 7:
            name = _SYSLOG_LEVELS[number]
        else:
            raise RecordError(f"level {value!r} is no known level number")
        value = name
    cleaned = re.sub(r"\d+\Z", "", value.strip()) or value  # apache's trace1..trace8
    level, _ = map_level(cleaned)
    return level, (None if value.strip().upper() == level else value)


def level_in_text(text: str) -> tuple[str, str] | None:
    """A level named near the start of a free-text message (``ERROR``, ``[warn]``, ``level=e``)."""
    match = _LEVEL_TOKEN.search(text[:120])
    if not match:
        return None
    word = next(g for g in match.groups() if g)
    level, original = level_of(word, "level")
    return level, original or word


def text_value(value: object) -> str:
    """A field as message text (objects and arrays as compact JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _attr_value(value: object) -> str | bool | int | float | None:
    if isinstance(value, str):
        return value[:_MAX_VALUE_CHARS]
    if value is None or isinstance(value, bool | int | float):
        return value
    return text_value(value)[:_MAX_VALUE_CHARS]


def build_event(flat: dict[str, Any], reader: TimeReader, stats: SourceStats, fallback_service: str,
                *, ts_value: object = None, message: str | None = None) -> Event:
    """The event of one flattened record; RecordError if it has no usable time or message.

    AmbiguousTimeError if its time has a two-digit year: the caller refuses the whole source.
    """
    used: set[str] = set()

    def pick(keys: tuple[str, ...]) -> tuple[str, Any] | None:
        for key in keys:
            value = flat.get(key)
            if value is not None and value != "" and key not in used:
                used.add(key)
                return key, value
        return None

    if ts_value is None:
        found = pick(TS_KEYS)
        if found is None:
            raise RecordError(f"no time field (looked for {', '.join(TS_KEYS[:6])}…)")
        ts_value = found[1]
    try:
        ts = reader.read(ts_value)
    except AmbiguousTimeError:
        raise  # not a bad line: the whole source needs --time-format
    except TimestampError as exc:
        raise RecordError(f"bad time: {exc}") from None
    if message is None:
        found = pick(MESSAGE_KEYS)
        if found is None:
            raise RecordError(f"no message field (looked for {', '.join(MESSAGE_KEYS[:6])}…)")
        message = text_value(found[1]).rstrip("\n")
    level_field = pick(LEVEL_KEYS)
    used.update(k for k in LEVEL_KEYS if k in flat)  # severityNumber next to severityText…
    attrs: dict[str, Any] = {}
    if level_field is not None:
        level, original = level_of(level_field[1], level_field[0])
    elif (in_text := level_in_text(message)) is not None:
        level, original = in_text
    else:
        level, original = "INFO", None
        stats.no_level += 1
    if original is not None:
        attrs[ORIGINAL_LEVEL_ATTR] = original
        stats.levels[(original, level)] += 1
    service_field = pick(SERVICE_KEYS)
    if service_field is not None and str(service_field[1]).strip():
        service = str(service_field[1]).strip().lower()
    else:
        service = fallback_service
        stats.service_fallback += 1
    for short, keys in ALIASES.items():
        found = pick(keys)
        if found is not None and not isinstance(found[1], list | dict):
            attrs[short] = _attr_value(found[1])
    for key in sorted(flat):
        if key in used or DROP_KEYS.match(key) or flat[key] in (None, "", [], {}):
            continue
        if len(attrs) >= _MAX_ATTRS:
            break
        attrs.setdefault(key, _attr_value(flat[key]))
    return Event(ts=ts, service=service, level=level, message=message or "(empty message)",
                 attrs=attrs)
