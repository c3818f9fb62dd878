"""What a language model reads of a tool result: one compact line per item (issue 40).

An observation stays in the agent's context for every later turn of its run, so each field it
repeats is paid for again on every call. The harness keeps the observation as structured JSON
(state, run store, checkpoints; the offline investigator and the json protocol read that); a
model that reads text is sent this rendering of it instead (``nodes/_model_call.py``):

- a header line: the tool, the one UTC day all its times fall on (each time then shows only
  the time of day), and its scope — without long text the call sent verbatim (its SQL);
- one line per item: ``E2.3 kind: key=value, …: free text`` — the evidence id first, a log
  event as a log line (``E1.5 10:00:04.100 ERROR: pool=db: message``), a row's columns and an
  event's attributes inline, the item's message / example / passage last and unquoted (its
  whitespace runs made one space, so no text can start a line of its own);
- before the first item of a kind that has three or more, the fields all of them share, once:
  ``every log_event: namespace=prod, pod=api-0`` (a live model's log results repeated a pod's
  labels on every event line), left out of their lines;
- the note (truncation and paging with its ``offset``) and STOP_REQUIRED, as they were.

Left out, as a model can use none of it: what the scope already says (a summary's window, a
pattern's service), fields only the harness reads (a store's row id, thresholds the tool's spec
states), the masked template next to its example, a pattern's example when it is an event the
result shows (``example=E1.5``), a last-seen equal to the first-seen (or to an onset row's
onset), a change row's time also in the row, log attributes the message already holds, and
headers repeated on each item of a run: a runbook's id and title, a table and its time,
entity and metric columns, the columns a query computed. Evidence ids, values, times, the
``empty`` item and notes are never left out. The verification reads the recorded facts, never
this text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["model_text"]

_ISO = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)Z")
_BARE = re.compile(r"[\w.:/@+<>%()-]+")
"""A value shown without quotes: one token of plain characters (no space, comma, quote, =)."""
_SPACE = re.compile(r"\s+")
_ID = re.compile(r"E\d+\.\d+")
INTERNAL_KEYS = frozenset({"example_event_id", "thresholds"})
"""Item fields no model can use: a store's row id; thresholds the tool's spec states."""
LEADING_KEYS = ("ts", "level")
"""A log event's fields shown bare, as a log line starts: ``E1.5 10:00:04.100 ERROR``."""
SELF_EVIDENT_KINDS = frozenset({"log_event"})
"""Kinds a line shows without naming: a log event's line reads as one (id, time, level);
anything else names every field (a row's ``ts`` column stays ``ts=…``)."""
INLINE_KEYS = ("row", "attrs")
"""Nested fields shown as the item's own ``key=value`` pairs (a row's columns, an event's
attributes), unless a name would clash."""
TEXT_KEYS = ("message", "example", "text")
"""The item's free text, shown last on its line (the first of these it has)."""
REPEATED_HEADERS = ("doc_id", "title", "table", "time_column", "entity_column", "metric_column",
                    "computed", "renamed")
"""Fields that head a run of items (a runbook, a table and its columns, the columns a query
computed): shown on the first item of each run of equal values."""
SCOPE_KEYS = frozenset({"service", "start", "end", "baseline_start", "baseline_end", "since",
                        "before", "table"})
"""Item fields that mean what the same scope field means (not ``level``: the scope's is a
minimum), left out of an item when equal to it."""
_LONG_ARG = 40
"""A scope value the call sent verbatim and longer than this (its SQL) is not echoed back."""
_STOP_KEYS = ("stop_required", "stop_reason", "instruction")
_COMMON_MIN = 3
"""Items of one kind from which the fields they all share are stated once (``every …:``)."""


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _one_day(*values: object) -> str | None:
    """The UTC date every exact ISO timestamp (``…Z``) in ``values`` falls on, if just one."""
    days = {m.group(1) for v in values for s in _strings(v) if (m := _ISO.fullmatch(s))}
    return next(iter(days)) if len(days) == 1 else None


def _on_day(value: Any, day: str | None) -> Any:  # Any: the JSON value, its times shortened
    if day is None:
        return value
    if isinstance(value, str):
        m = _ISO.fullmatch(value)
        return m.group(2) if m and m.group(1) == day else value
    if isinstance(value, Mapping):
        return {k: _on_day(v, day) for k, v in value.items()}
    if isinstance(value, list):
        return [_on_day(v, day) for v in value]
    return value


def _key(key: object) -> str:
    """A field's name as shown: quoted unless plain (a name from data may hold anything)."""
    return key if isinstance(key, str) and _BARE.fullmatch(key) else json.dumps(
        str(key), ensure_ascii=False)


def _value(value: object) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)}: {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, str) and _BARE.fullmatch(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def _pairs(fields: Mapping[str, Any]) -> str:
    return ", ".join(f"{_key(k)}={_value(v)}" for k, v in fields.items())


def _says(message: str, value: str) -> bool:
    """Whether ``value`` stands in ``message`` as a whole token (``pool payment-db``, ``v=2.1``)."""
    return bool(value) and re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w.-])",
                                     message) is not None


def _events(items: list[Mapping[str, Any]], scope: Mapping[str, Any]) -> dict[tuple, str]:
    """The id of the first event item with each (service, level, message)."""
    found: dict[tuple, str] = {}
    for item in items:
        if item.get("kind") == "log_event" and isinstance(item.get("message"), str):
            key = (item.get("service") or scope.get("service"), item.get("level"), item["message"])
            found.setdefault(key, str(item.get("evidence_id")))
    return found


def _content(item: Mapping[str, Any], scope: Mapping[str, Any], previous: Mapping[str, Any],
             events: Mapping[tuple, str]) -> dict[str, Any]:
    """One item's fields a model can use (see the module docstring)."""
    content = {k: v for k, v in item.items()
               if k not in ("evidence_id", "kind") and v is not None and k not in INTERNAL_KEYS
               and not (k in SCOPE_KEYS and scope.get(k) == v)}
    if content.get("example"):
        content.pop("template", None)
        content.pop("pattern", None)
        shown = events.get((item.get("service") or scope.get("service"), item.get("level"),
                            content["example"]))
        if shown is not None:  # the example is an event shown below: name it, once
            content["example"] = shown
    if "last_seen" in content and content.get("last_seen") == content.get("first_seen"):
        del content["last_seen"]
    if "onset" in content and content.get("first_seen") == content.get("onset"):
        del content["first_seen"]  # an onset row: its onset is its first event
    row = content.get("row")
    if isinstance(row, Mapping):
        if content.get("time") is not None and content.get("time") == row.get(
                content.get("time_column")):
            del content["time"]
        if "service" in content and content["service"] in row.values():
            del content["service"]
    attrs, message = content.get("attrs"), content.get("message")
    if isinstance(attrs, Mapping) and isinstance(message, str):
        own = {k: v for k, v in attrs.items() if not _says(message, str(v))}
        if own:
            content["attrs"] = own
        else:
            del content["attrs"]
    for key in REPEATED_HEADERS:
        if key in content and previous.get(key) == item.get(key):
            del content[key]
    return content


def _parts(item: Mapping[str, Any], content: dict[str, Any]) -> tuple[str, dict[str, Any],
                                                                     str | None]:
    """An item's line start (id, kind or a log line's time and level), its fields, its text."""
    warning = content.pop("warning", None)
    text = next((content.pop(k) for k in TEXT_KEYS if isinstance(content.get(k), str)
                 and not _ID.fullmatch(content[k])), None)
    for key in INLINE_KEYS:
        nested = content.get(key)
        if isinstance(nested, Mapping) and not set(nested) & (set(content) - {key} | {"warning"}):
            content = {**{k: v for k, v in content.items() if k != key}, **nested}
    lead = [content.pop(k) for k in LEADING_KEYS if item.get("kind") in SELF_EVIDENT_KINDS
            and isinstance(content.get(k), str) and _BARE.fullmatch(content[k])]
    fields = {"warning": warning, **content} if warning else content
    kind = [] if item.get("kind") in SELF_EVIDENT_KINDS and lead else [str(item.get("kind"))]
    return " ".join([str(item.get("evidence_id")), *kind, *lead]), fields, text


def _line(start: str, fields: Mapping[str, Any], text: str | None) -> str:
    line = start
    if fields:
        line += ": " + _pairs(fields)
    if text is not None:
        line += ": " + _SPACE.sub(" ", text).strip()
    return line


def _common(kinds: list[str], fields: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind of at least ``_COMMON_MIN`` items: the fields every one of them has, equal."""
    out = {}
    for kind in dict.fromkeys(kinds):
        group = [f for k, f in zip(kinds, fields, strict=True) if k == kind]
        if len(group) < _COMMON_MIN:
            continue
        same = {k: v for k, v in group[0].items() if k != "warning"
                and all(k in f and f[k] == v for f in group[1:])}
        if same:
            out[kind] = same
    return out


def _render(body: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    given = body.get("scope")
    scope: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    items = [i for i in body["items"] if isinstance(i, Mapping)]
    day = _one_day(scope, *items)
    shown_scope = {k: v for k, v in scope.items() if v is not None and not (
        isinstance(v, str) and len(v) > _LONG_ARG and args.get(k) == v)}
    head = _key(body.get("tool", "result")) + (f" on {day} (UTC)" if day else "")
    lines = [head + (": " + _pairs(_on_day(shown_scope, day)) if shown_scope else "")]
    previous: Mapping[str, Any] = {}
    events = _events(items, scope)
    parts = []
    for item in items:
        parts.append(_parts(item, _on_day(_content(item, scope, previous, events), day)))
        previous = item
    kinds = [str(item.get("kind")) for item in items]
    common = _common(kinds, [fields for _, fields, _ in parts])
    stated: set[str] = set()
    for kind, (start, fields, text) in zip(kinds, parts, strict=True):
        same = common.get(kind, {})
        if same and kind not in stated:  # stated once, before the first item of its kind
            lines.append(f"every {_key(kind)}: {_pairs(same)}")
            stated.add(kind)
        lines.append(_line(start, {k: v for k, v in fields.items() if k not in same}, text))
    if body.get("note"):
        lines.append(f"note: {_SPACE.sub(' ', str(body['note'])).strip()}")
    if body.get("stop_required"):
        stop = {k: body[k] for k in _STOP_KEYS if k in body}
        lines.append(json.dumps(stop, ensure_ascii=False))
    return "\n".join(lines)


@functools.lru_cache(maxsize=1024)
def _cached(text: str, args_json: str) -> str:
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text
    if not isinstance(body, dict) or not isinstance(body.get("items"), list) \
            or set(body) - {"tool", "scope", "items", "note", *_STOP_KEYS}:
        return text  # an error, a gate's answer, anything else: as the harness wrote it
    return _render(body, json.loads(args_json))


def model_text(observation: str, args: Mapping[str, Any] | None = None) -> str:
    """The text a model reads for ``observation`` (a tool message's JSON), ``args`` its call's.

    Anything that is not a READY result (an error, the gate's answer, free text) is returned
    as it is. Remembered by text: every agent turn sends the run's observations again.
    """
    try:
        key = json.dumps(dict(args or {}), sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        key = "{}"
    return _cached(observation, key)
