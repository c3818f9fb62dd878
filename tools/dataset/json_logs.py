"""JSON log exports as flat records: Elasticsearch/ECS, Loki, OpenTelemetry, generic JSON lines.

Each function turns one parsed JSON value (a line, or a whole exported document) into
``(flat record, time, message)`` triples for :func:`diagnosis_harness.tools.dataset.records.build_event`; a
time
or message of None means "look it up in the record's fields".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from diagnosis_harness.tools.dataset.k8s_events import event_records
from diagnosis_harness.tools.dataset.records import flatten, text_value
from diagnosis_harness.tools.dataset.sniff import LOGFMT_PAIR

Record = tuple[dict[str, Any], Any, str | None]


def records(obj: object, fmt: str) -> Iterator[Record]:
    """The records in one JSON value of a source in format ``fmt``."""
    if isinstance(obj, list):
        for item in obj:
            yield from records(item, fmt)
        return
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    if fmt == "ecs":
        yield from _ecs(obj)
    elif fmt == "k8s-events":
        yield from event_records(obj)
    elif fmt == "loki":
        yield from _loki(obj)
    elif fmt == "otel":
        yield from _otel(obj)
    elif fmt == "native":
        flat = {k: v for k, v in obj.items() if k != "attrs"}
        attrs = obj.get("attrs")
        if isinstance(attrs, dict):
            flat.update({k: v for k, v in attrs.items() if k not in flat})
        yield flat, None, None
    else:
        yield _generic(obj), None, None


def _generic(obj: dict[str, Any]) -> dict[str, Any]:
    flat = flatten(obj)
    if {"name", "hostname", "pid"} <= set(flat) and "service" not in flat:
        flat["service"] = flat.pop("name")  # bunyan and pino name the application "name"
    for key in ("log", "message", "msg", "line"):  # Docker's "log", or JSON inside a message
        inner = _inner_json(flat.get(key))
        if inner is not None:
            del flat[key]
            flat = {**flat, **{k: v for k, v in flatten(inner).items()
                               if k not in flat or k in ("message", "msg", "level")}}
            break
    return flat


def _inner_json(value: object) -> dict[str, Any] | None:
    if not isinstance(value, str) or not value.lstrip().startswith("{"):
        return None
    try:
        inner = json.loads(value)
    except json.JSONDecodeError:
        return None
    return inner if isinstance(inner, dict) else None


def _ecs(obj: dict[str, Any]) -> Iterator[Record]:
    hits = obj.get("hits")
    if isinstance(hits, dict):  # a saved search response: {"hits": {"hits": [{"_source": …}]}}
        for hit in hits.get("hits") or []:
            if isinstance(hit, dict) and isinstance(hit.get("_source"), dict):
                yield _generic(hit["_source"]), None, None
        return
    source = obj.get("_source")
    yield _generic(source if isinstance(source, dict) else obj), None, None


def _loki(obj: dict[str, Any]) -> Iterator[Record]:
    if "line" in obj:  # logcli --output=jsonl
        labels = obj.get("labels") or obj.get("stream") or {}
        yield _loki_entry(labels, obj.get("timestamp"), obj["line"])
        return
    data = obj.get("data")
    streams = data.get("result") if isinstance(data, dict) else obj.get("streams")
    if streams is None and "values" in obj:
        streams = [obj]
    for stream in streams or []:
        labels = stream.get("stream") or stream.get("labels") or {}
        for entry in stream.get("values") or []:
            if isinstance(entry, list) and len(entry) >= 2:
                yield _loki_entry(labels, entry[0], entry[1])


def _loki_entry(labels: dict[str, Any], ts: object, line: object) -> Record:
    text = text_value(line)
    flat = dict(labels) if isinstance(labels, dict) else {}
    inner = _inner_json(text)
    if inner is not None:
        fields = _generic(inner)
    else:
        pairs = {m.group(1): _unquote(m.group(2)) for m in LOGFMT_PAIR.finditer(text)}
        fields = pairs if len(pairs) >= 2 and pairs.keys() & {"msg", "message", "level"} else {}
    flat.update({k: v for k, v in fields.items() if k not in flat or k in ("level", "msg")})
    has_message = any(k in fields for k in ("message", "msg", "@m", "body", "log"))
    return flat, ts, None if has_message else text


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except json.JSONDecodeError:
            return value[1:-1]
    return value


def logfmt(line: str) -> dict[str, Any]:
    """The ``key=value`` pairs of a logfmt line (quoted values unquoted)."""
    return {m.group(1): _unquote(m.group(2)) for m in LOGFMT_PAIR.finditer(line)}


def any_value(value: object) -> object:
    """An OTLP ``AnyValue`` (``{"stringValue": …}``, ``{"kvlistValue": …}``…) as plain JSON."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in value:
        return value["bytesValue"]
    return value


def attributes(value: Any) -> dict[str, Any]:  # Any: OTLP attributes, a map, or junk: read defensively
    """OTLP attributes (``[{"key": …, "value": AnyValue}]``) or a plain map, as a dict."""
    if isinstance(value, dict):
        return dict(value)
    out: dict[str, Any] = {}
    for item in value or []:
        if isinstance(item, dict) and "key" in item:
            out[str(item["key"])] = any_value(item.get("value"))
    return out


def _otel(obj: dict[str, Any]) -> Iterator[Record]:
    if "resourceLogs" not in obj:  # one flat record (ClickHouse exporter, log data model)
        flat: dict[str, Any] = {}
        for key in ("ResourceAttributes", "resource", "Resource", "LogAttributes", "attributes",
                    "Attributes"):
            if key in obj:
                flat.update(attributes(obj[key]))
        flat.update({k: v for k, v in obj.items() if not isinstance(v, dict | list)})
        body = obj.get("Body", obj.get("body"))
        message = text_value(any_value(body)) if body is not None else None
        flat.pop("Body", None)
        flat.pop("body", None)
        yield flat, None, message
        return
    for resource_logs in obj.get("resourceLogs") or []:
        resource = attributes((resource_logs.get("resource") or {}).get("attributes"))
        scopes = resource_logs.get("scopeLogs") or resource_logs.get("instrumentationLibraryLogs")
        for scope_logs in scopes or []:
            scope = (scope_logs.get("scope") or scope_logs.get("instrumentationLibrary") or {})
            for record in scope_logs.get("logRecords") or []:
                yield _otlp_record(resource, scope, record)


def _otlp_record(resource: dict[str, Any], scope: dict[str, Any], record: dict[str, Any]) -> Record:
    flat = dict(resource)
    if scope.get("name"):
        flat["scope"] = scope["name"]
    flat.update(attributes(record.get("attributes")))
    for key in ("severityText", "severityNumber", "traceId", "spanId"):
        if record.get(key) not in (None, "", 0):
            flat[key] = record[key]
    ts = record.get("timeUnixNano")
    if ts in (None, "", "0", 0):
        ts = record.get("observedTimeUnixNano")  # the SDK may leave the event time unset
    body = record.get("body")
    message = text_value(any_value(body)) if body is not None else ""
    return flat, ts, message
