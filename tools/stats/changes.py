"""``recent_changes``: rows of the change-log tables in a look-back before a time.

A change table is recognised by :mod:`.schema` (a time column, and a change-log name or
columns). A row is in the look-back when any of its time columns lies in
``[before − lookback_minutes, before]``, or when it was still running at ``before``: a change
that lasts (a migration, a job, a deploy: a start column and an end column such as
``finished_at``) started before it and had not ended by then (no end yet, or a later one),
however long ago it started — marked ``still_running``; with ``services`` given, only rows whose service-like
column (the table's entity column) names one of them, plus the rows of tables that have no
such column (a change that names no service may concern any). Most recent first.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from pydantic import Field, field_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.query_mysql import _json_value
from diagnosis_harness.tools.results import Item, ToolArgs, ToolResult
from diagnosis_harness.tools.stats.common import MAX_ROWS, Timestamp, service_name
from diagnosis_harness.tools.stats.metrics import time_text
from diagnosis_harness.tools.stats.schema import TableKind, layout, literal, quote, run_select
from diagnosis_harness.tools.timeutil import format_utc, parse_ts

MAX_LOOKBACK_MINUTES = 7 * 24 * 60
_END = re.compile(r"(?:^|_)(?:finish|end|complet|done|stop)", re.IGNORECASE)
"""A time column that says when a lasting change ended (``finished_at``, ``ended_at``…)."""
MAX_SERVICES = 20
_PER_TABLE = 200


class ChangeArgs(ToolArgs):
    """Arguments of ``recent_changes`` (normalised on validation)."""

    before: Timestamp = Field(description="The time to look back from (the onset).")
    lookback_minutes: int = Field(default=60, ge=1, le=MAX_LOOKBACK_MINUTES,
                                  description="Minutes.")
    services: list[str] | None = Field(default=None, max_length=MAX_SERVICES, description=(
        "Only changes of these services (and those that name none)."))

    @field_validator("services")
    @classmethod
    def _services(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = sorted({n for v in value if (n := service_name(v)) and len(n) <= 100})
        return names or None

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope, the look-back's start spelled out."""
        since = format_utc(parse_ts(self.before) - timedelta(minutes=self.lookback_minutes))
        return {"before": self.before, "lookback_minutes": self.lookback_minutes,
                "since": since, "services": self.services}


def recent_changes(backends: Backends, settings: Settings, *, before: str,
                   lookback_minutes: int = 60, services: list[str] | None = None) -> ToolResult:
    """Change-log rows (deploys, config, jobs, certificates…) in a look-back before a time."""
    args = ChangeArgs(before=before, lookback_minutes=lookback_minutes, services=services)
    scope = args.scope(settings)
    rows: list[dict[str, Any]] = []
    more = False
    with backends.lock:
        kinds = [k for _, k in sorted(layout(backends, settings.sql_timeout_s).tables.items())
                 if k.is_change_log]
        for kind in kinds:
            found, capped = _changes(backends, settings, kind, scope)
            rows += found
            more |= capped
    if not kinds:
        return ToolResult(scope=scope, note="no operational table looks like a change log")
    rows.sort(key=lambda r: (r["time"], r["table"], json.dumps(r["row"], sort_keys=True,
                                                               default=str)), reverse=True)
    shown = rows[:MAX_ROWS]
    overview = Item(kind="changes_overview", text=(
        f"{len(rows)} change(s) in {scope['since']}..{scope['before']} in "
        f"{', '.join(k.name for k in kinds)}"),
        data={**scope, "tables": [k.name for k in kinds], "changes": len(rows),
              "shown": len(shown), "more": len(rows) - len(shown)})
    if not rows:
        return ToolResult(scope=scope, note=f"no change rows in {scope['since']}.."
                          f"{scope['before']} in {', '.join(k.name for k in kinds)}")
    items = [overview] + [_item(r) for r in shown]
    return ToolResult(scope=scope, items=items, truncated=more or len(rows) > len(shown))


def _changes(backends: Backends, settings: Settings, kind: TableKind,
             scope: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    q = backends.ops.dialect
    lo, hi = literal(scope["since"]), literal(scope["before"])
    times = " OR ".join(f"({quote(c, q)} >= {lo} AND {quote(c, q)} <= {hi})"
                        for c in kind.time_columns)
    span = _span(kind)
    if span is not None:  # still running at `before`, however long ago it started
        start, end = (quote(c, q) for c in span)
        times += f" OR ({start} <= {hi} AND ({end} IS NULL OR {end} > {hi}))"
    where = f"({times})"
    entity = kind.entity_column
    if scope["services"] and entity is not None:
        names = ", ".join(literal(s) for s in scope["services"])
        where += f" AND lower({quote(entity, q)}) IN ({names})"
    # Most recent first, every column breaking ties: the capped rows are the same every time.
    order = [f"{quote(kind.time_columns[0], q)} DESC",
             *(quote(c, q) for c in kind.columns if c != kind.time_columns[0])]
    sql = (f"SELECT {', '.join(quote(c, q) for c in kind.columns)} FROM {quote(kind.name, q)} "
           f"WHERE {where} ORDER BY {', '.join(order)}")
    columns, found, more = run_select(backends, sql, max_rows=_PER_TABLE,
                                      timeout_s=settings.sql_timeout_s,
                                      max_bytes=settings.max_tool_result_bytes)
    before = parse_ts(scope["before"])
    out = []
    for raw in found:
        values = dict(zip(columns, raw, strict=True))
        stamps = [(c, time_text(values[c])) for c in kind.time_columns if values[c] is not None]
        inside = [(c, t) for c, t in stamps if scope["since"] <= t <= scope["before"]]
        running = span is not None and values[span[0]] is not None and (
            values[span[1]] is None or time_text(values[span[1]]) > scope["before"])
        if span is not None and running and not inside:  # begun before the look-back
            inside = [(span[0], time_text(values[span[0]]))]  # dated by its start
        column, when = max(inside or stamps, key=lambda ct: ct[1])
        minutes = round((before - parse_ts(when)).total_seconds() / 60, 2)
        row = {c: _json_value(time_text(v) if c in kind.time_columns and v is not None
                              else v)[0] for c, v in values.items()}
        out.append({"table": kind.name, "time": when, "time_column": column,
                    "minutes_before": minutes,
                    "service": row.get(entity) if entity else None, "row": row,
                    **({"still_running": True} if running else {})})
    return out, more


def _span(kind: TableKind) -> tuple[str, str] | None:
    """(start column, end column) of a table of lasting changes, or None."""
    ends = [c for c in kind.time_columns[1:] if _END.search(c)]
    starts = [c for c in kind.time_columns if c not in ends]
    return (starts[0], ends[0]) if ends and starts else None


def _item(r: dict[str, Any]) -> Item:
    values = ", ".join(f"{c}={json.dumps(v, ensure_ascii=False)}" for c, v in r["row"].items())
    running = " still running" if r.get("still_running") else ""
    text = f"{r['table']} {r['time']} ({r['minutes_before']:g} min before{running}): {values}"
    return Item(kind="change", text=text, data=r)
