"""``query_logs``: events of one service (or of all) in a time window, plus aggregated patterns.

A pattern groups one service's warning and error events of one level by message template
(:mod:`diagnosis_harness.tools.log_templates`).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from pydantic import Field, field_validator, model_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.format import LEVELS, normalise_level
from diagnosis_harness.tools.log_templates import MAX_TEMPLATE_CHARS, message_template
from diagnosis_harness.tools.results import (
    Item,
    ToolArgs,
    ToolInputError,
    ToolResult,
    clip,
    clip_middle,
)
from diagnosis_harness.tools.text import fts_and_query, search_terms
from diagnosis_harness.tools.timeutil import format_epoch_ms, format_utc, parse_ts, to_epoch_ms

__all__ = ["MAX_PATTERNS", "MAX_TEMPLATE_CHARS", "QueryLogsArgs", "message_template", "query_logs"]

MAX_PATTERNS = 10
"""Error patterns shown per call (most frequent first); the summary counts all of them."""
MAX_MESSAGE_CHARS = 500
MESSAGE_TAIL = 150
"""Characters of a long message's end kept (its start too): a Java chain's deepest cause and an
error code come last."""
MAX_ATTR_FILTERS = 5
_PATTERN_LEVELS = ("WARN", "ERROR", "FATAL")


class QueryLogsArgs(ToolArgs):
    """Arguments of ``query_logs`` (normalised on validation)."""

    service: str | None = Field(
        default=None, max_length=100,
        description="As it logs (listed below); omit for every service.",
    )
    start: str = Field(description="Window start.")
    end: str = Field(description="Window end (inclusive).")
    pattern: str | None = Field(
        default=None, max_length=200,
        description="Words all in the message (word* for a prefix).",
    )
    level: str | None = Field(
        default=None,
        description=f"Minimum level: {', '.join(LEVELS)}.",
    )
    limit: int | None = Field(
        default=None, ge=1, le=200,
        description="Maximum events.",
    )
    offset: int | None = Field(
        default=None, ge=0, le=1_000_000,
        description="Skip this many oldest matches (the next page).",
    )
    attrs: dict[str, str] | None = Field(
        default=None, max_length=MAX_ATTR_FILTERS,
        description="Exact attribute values.",
    )

    @field_validator("service")
    @classmethod
    def _service(cls, value: str | None) -> str | None:
        # Blank means every service, as for pattern: a system-wide question names none.
        return value.strip().lower() or None if value is not None else None

    @field_validator("start", "end")
    @classmethod
    def _timestamp(cls, value: str) -> str:
        return format_utc(parse_ts(value))

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        terms = search_terms(value, keep_prefix=True)
        if not terms:
            raise ValueError("has no searchable words (letters or digits)")
        return " ".join(terms)

    @field_validator("level")
    @classmethod
    def _level(cls, value: str | None) -> str | None:
        if value is None or not value.strip():  # as for pattern: blank means no filter
            return None
        level = normalise_level(value)
        if level is None:
            raise ValueError(f"unknown level {value!r}; use one of {', '.join(LEVELS)}")
        return level

    @field_validator("attrs", mode="before")
    @classmethod
    def _attrs(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        out = {}
        for key, item in value.items():
            if not isinstance(key, str) or not key.strip() or len(key) > 100 or '"' in key:
                raise ValueError(f"attribute name {key!r} is not usable")
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise ValueError(f"attribute {key!r}: give a single text or number value")
            text = str(item).strip()
            if not text or len(text) > 300:
                raise ValueError(f"attribute {key!r}: value must be 1..300 characters")
            out[key.strip()] = text
        return out or None

    @model_validator(mode="after")
    def _window(self) -> QueryLogsArgs:
        if parse_ts(self.end) <= parse_ts(self.start):
            raise ValueError(f"end ({self.end}) must be after start ({self.start})")
        return self

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope (what the tool gate compares for duplicates)."""
        scope: dict[str, Any] = {
            "service": self.service, "start": self.start, "end": self.end,
            "pattern": self.pattern, "level": self.level,
            "limit": self.limit or settings.log_events_default_limit,
        }
        if self.attrs:
            scope["attrs"] = dict(sorted(self.attrs.items()))
        if self.offset:
            scope["offset"] = self.offset
        return scope


def query_logs(
    backends: Backends, settings: Settings, *, start: str, end: str, service: str | None = None,
    pattern: str | None = None, level: str | None = None, limit: int | None = None,
    attrs: dict[str, str] | None = None, offset: int | None = None,
) -> ToolResult:
    """Search one service's logs (every service's, without one) in a time window.

    Returns a summary (event counts by level), the most frequent warning/error message
    patterns (digits and ids replaced by <n>/<id>, with count, first and last seen, and one
    example message, per service) and the matching events in time order: when more match than
    ``limit``, the window's first and last ones (its onset and its latest: neither end is cut),
    or with ``offset`` the page that starts there. Times are UTC. An empty result means nothing
    matched this exact service, window and filter, not that nothing happened elsewhere.
    """
    args = QueryLogsArgs(
        service=service, start=start, end=end, pattern=pattern, level=level, limit=limit,
        attrs=attrs, offset=offset,
    )
    scope = args.scope(settings)
    lo, hi = parse_ts(args.start), parse_ts(args.end)
    if hi - lo > timedelta(minutes=settings.max_log_window_minutes):
        raise ToolInputError(
            f"window {args.start} .. {args.end} is longer than the allowed "
            f"{settings.max_log_window_minutes} minutes; query a shorter window"
        )
    where, params = _where(args, to_epoch_ms(lo), to_epoch_ms(hi), backends)
    with backends.lock:
        counts = dict(backends.logs.execute(
            f"SELECT level, count(*) FROM events e WHERE {where} GROUP BY level", params
        ).fetchall())
        if not counts:
            return ToolResult(scope=scope, note=_empty_note(args, backends))
        total = sum(counts.values())
        limit = scope["limit"]
        select = f"SELECT ts_ms, level, message, attrs, service FROM events e WHERE {where} "
        if args.offset is not None or total <= limit:
            skip = args.offset or 0
            events = backends.logs.execute(select + "ORDER BY ts_ms, id LIMIT ? OFFSET ?",
                                           (*params, limit, skip)).fetchall()
            positions = list(range(skip, skip + len(events)))
        else:  # both ends of the window: its onset and its latest events
            first, last = (limit + 1) // 2, limit // 2
            events = backends.logs.execute(select + "ORDER BY ts_ms, id LIMIT ?",
                                           (*params, first)).fetchall()
            events += backends.logs.execute(select + "ORDER BY ts_ms DESC, id DESC LIMIT ?",
                                            (*params, last)).fetchall()[::-1] if last else []
            positions = [*range(first), *range(total - last, total)]
        severe = backends.logs.execute(
            f"SELECT ts_ms, level, message, service FROM events e WHERE {where} AND level IN "
            f"({', '.join('?' * len(_PATTERN_LEVELS))}) ORDER BY ts_ms, id",
            (*params, *_PATTERN_LEVELS),
        ).fetchall()
    patterns = _patterns(severe)
    items = [_summary_item(args, counts, total, len(patterns))]
    items += patterns[:MAX_PATTERNS]
    clipped = False
    for ts_ms, lvl, message, stored_attrs, event_service in events:
        item, was_clipped = _event_item(ts_ms, lvl, message, stored_attrs,
                                        None if args.service else event_service)
        items.append(item)
        clipped |= was_clipped
    partial = len(events) < total
    return ToolResult(scope=scope, items=items, truncated=clipped or partial
                      or len(patterns) > MAX_PATTERNS, note=page_note(positions, total) if partial
                      else None, rows_kind="log_event", row_positions=tuple(positions))


def page_note(positions: list[int], total: int) -> str:
    """What part of ``total`` matching events ``positions`` shows, and how to page to the rest.

    ``positions`` are 0-based, in time order; the offset named is the first one left out.
    """
    seen = set(positions)
    missing = next((p for p in range(total) if p not in seen), None)
    runs: list[list[int]] = []
    for p in positions:
        if runs and runs[-1][1] == p - 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    shown = ", ".join(f"{a + 1}-{b + 1}" if b > a else f"{a + 1}" for a, b in runs) or "none"
    note = f"events {shown} of {total} matching (in time order) shown"
    if missing is not None:
        note += f"; call again with offset={missing} to page through the rest"
    return note


def _where(args: QueryLogsArgs, lo: int, hi: int, backends: Backends) -> tuple[str, tuple]:
    clauses = ["e.ts_ms BETWEEN ? AND ?"]
    params: list[Any] = [lo, hi]
    if args.service:
        clauses.insert(0, "e.service = ?")
        params.insert(0, args.service)
    if args.level:
        allowed = LEVELS[LEVELS.index(args.level):]
        clauses.append(f"e.level IN ({', '.join('?' * len(allowed))})")
        params += allowed
    for key, value in (args.attrs or {}).items():
        clauses.append("CAST(json_extract(e.attrs, ?) AS TEXT) = ?")
        params += [f'$."{_attribute(key, backends)}"', value]
    if args.pattern:
        # Ids ascend with time (see diagnosis_harness.tools.dataset.layout), so the window bounds the
        # full-text scan too.
        with backends.lock:
            first = backends.logs.execute(
                "SELECT min(id), max(id) FROM events WHERE ts_ms BETWEEN ? AND ?", (lo, hi)
            ).fetchone()
        first_id, last_id = first if first and first[0] is not None else (0, -1)
        clauses.append(
            "e.id IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ? "
            "AND rowid BETWEEN ? AND ?)"
        )
        params += [fts_and_query(args.pattern), first_id, last_id]
    return " AND ".join(clauses), tuple(params)


def _attribute(key: str, backends: Backends) -> str:
    """The dataset's spelling of attribute ``key``; ToolInputError naming the known ones."""
    known = getattr(backends.info, "attributes", ())
    if key in known:
        return key
    match = next((k for k in known if k.lower() == key.lower()), None)
    if match is None:
        listed = ", ".join(known) or "(none: these logs carry no attributes)"
        raise ToolInputError(f"no log attribute {key!r} in this dataset; attributes: {listed}")
    return match


def _empty_note(args: QueryLogsArgs, backends: Backends) -> str:
    if args.service is None:
        return "no log events of any service matched this window and filter"
    if args.service not in backends.info.services:
        known = ", ".join(backends.info.services) or "(none)"
        return f"no service named {args.service!r} in the log store; services present: {known}"
    return "no log events matched this service, window and filter"


def _patterns(rows: list[tuple[int, str, str, str]]) -> list[Item]:
    """Warning/error patterns, grouped per service, level and template (a pattern is one service's).

    The level is part of the key: a pattern's count and first/last seen are exactly those of
    the events its line names (a WARN 404 never counts into, or starts, an ERROR pattern).
    """
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for ts_ms, level, message, service in rows:  # in time order
        key = (service, level, message_template(message))
        g = groups.get(key)
        if g is None:
            groups[key] = {"count": 1, "first": ts_ms, "last": ts_ms, "level": level,
                           "example": message}
            continue
        g["count"] += 1
        g["last"] = ts_ms
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[1]["first"], kv[0]))
    items = []
    for (service, _level, template), g in ordered:
        first, last = format_epoch_ms(g["first"]), format_epoch_ms(g["last"])
        example = clip_middle(g["example"], MAX_MESSAGE_CHARS, MESSAGE_TAIL)
        items.append(Item(
            kind="error_pattern",
            text=f"{service} {g['level']} x{g['count']} {first}..{last}: {template}",
            data={"service": service, "level": g["level"],
                  "template": clip(template, MAX_MESSAGE_CHARS)[0],
                  "count": g["count"], "first_seen": first, "last_seen": last,
                  "example": example},
        ))
    return items


def _summary_item(args: QueryLogsArgs, counts: dict[str, int], total: int,
                  n_patterns: int) -> Item:
    by_level = {lvl: counts[lvl] for lvl in reversed(LEVELS) if lvl in counts}
    levels = ", ".join(f"{k} {v}" for k, v in by_level.items())
    return Item(
        kind="log_summary",
        text=f"{args.service or 'all services'} {args.start}..{args.end}: {total} events "
        f"({levels}); "
        f"{n_patterns} warning/error pattern(s)",
        data={"service": args.service, "start": args.start, "end": args.end,
              "matched_events": total, "by_level": by_level, "error_patterns": n_patterns},
    )


def _event_item(ts_ms: int, level: str, message: str, attrs: str | None,
                service: str | None) -> tuple[Item, bool]:
    """One event; ``service`` is named when the query spanned every service."""
    ts = format_epoch_ms(ts_ms)
    shown = clip_middle(message, MAX_MESSAGE_CHARS, MESSAGE_TAIL)
    clipped = shown != message
    data: dict[str, Any] = {"ts": ts, "level": level, "message": shown}
    if service is not None:
        data["service"] = service
    if attrs:
        data["attrs"] = json.loads(attrs)
    return Item(kind="log_event", text=f"{ts} {level} {shown}", data=data), clipped
