"""``metric_shifts``: which entity/metric of an operational table left its baseline, and when.

Robust statistics (docs/design.md §16.1), per (table, entity, metric): the baseline's median
``m`` and MAD (median absolute deviation), its spread ``s = 1.4826·MAD`` (the standard
deviation of normal data), floored at ``5 % of |m|`` and at ``1e-9`` so a flat baseline still
has one; each window sample's robust z-score ``(x − m) / s``. Where the MAD is 0 the z of a
shift is a quotient by that floor, not a score: it is reported as null, with
``mad_zero: true`` and ``baseline_outliers``, the baseline samples off its median (a MAD of 0
only says that more than half of them are equal: "constant" misled a reader of 661 and 387
among zeros). A metric *shifted* when at
least :data:`MIN_OUT` window samples (and at least a tenth of them) have ``|z| ≥``
:data:`Z_OUT`, all on the same side; ``first_out`` is the first such sample. At least
:data:`MIN_BASELINE` baseline samples are needed to judge. The rows are read through the
same validated, read-only path as ``query_mysql``, capped at :data:`MAX_SAMPLES` per table
(the latest samples: the window whole, then the baseline's end).

A *long* table (one row per time, entity and metric name, ``schema.TableKind.metric_column``)
has a series per (entity, metric name): its ``metric`` is the name the row gives
(``cpu_usage``), or ``name.column`` where it has more than one value column. A wide table
without an entity column whose columns are named after services (``cartservice_cpu``) gives
each such column's service as its entity, the rest of the name as its metric, and the column.
"""

from __future__ import annotations

import math
import statistics
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, field_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.results import Item, ToolArgs, ToolInputError, ToolResult
from diagnosis_harness.tools.stats.common import (
    MAX_ROWS,
    Span,
    Timestamp,
    quiet_baseline,
    span_text,
    windows,
)
from diagnosis_harness.tools.stats.schema import (
    TableKind,
    is_number,
    layout,
    literal,
    quote,
    run_select,
)
from diagnosis_harness.tools.timeutil import format_utc, parse_ts, to_epoch_ms

Z_OUT = 4.0
MIN_OUT = 2
MIN_BASELINE = 3
MAX_SAMPLES = 50_000
MAX_TABLES = 10


class MetricArgs(ToolArgs):
    """Arguments of ``metric_shifts`` (normalised on validation)."""

    start: Timestamp
    end: Timestamp
    table: str | None = Field(default=None, max_length=100, description=(
        "One table; default all with a time column and numbers."))
    baseline_start: Timestamp | None = Field(
        default=None, description="Default: the window's length just before it.")
    baseline_end: Timestamp | None = None

    @field_validator("table")
    @classmethod
    def _table(cls, value: str | None) -> str | None:
        return value.strip() if value and value.strip() else None

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope, the default baseline spelled out."""
        _, baseline = windows(self.start, self.end, self.baseline_start, self.baseline_end,
                              settings)
        b_lo, b_hi = span_text(baseline)
        return {"start": self.start, "end": self.end, "table": self.table,
                "baseline_start": b_lo, "baseline_end": b_hi}


def metric_shifts(
    backends: Backends, settings: Settings, *, start: str, end: str, table: str | None = None,
    baseline_start: str | None = None, baseline_end: str | None = None,
) -> ToolResult:
    """Time-series shifts of numeric columns in the operational tables (robust z-scores)."""
    args = MetricArgs(start=start, end=end, table=table, baseline_start=baseline_start,
                      baseline_end=baseline_end)
    scope = args.scope(settings)
    with backends.lock:
        kinds = _series_tables(backends, settings, args.table)
        shifts: list[dict[str, Any]] = []
        capped = False
        for kind in kinds[:MAX_TABLES]:
            found, more = _table_shifts(backends, settings, kind, scope)
            shifts += found
            capped |= more
        early = None if args.baseline_start is not None \
            else _baseline_shifted(backends, settings, kinds[:MAX_TABLES], scope)
    if not kinds:
        return ToolResult(scope=scope, note="no operational table has a time column and "
                          "numeric columns")
    shifts.sort(key=lambda r: (r["first_out"], -abs(r["z"] if r["z"] is not None else math.inf),
                               r["table"], str(r["entity"]),
                               r["metric"]))
    shown = shifts[:MAX_ROWS]
    with backends.lock:
        owners = logged_by(backends, {str(r["entity"]) for r in shown if r["entity"] is not None},
                           scope)
    shown = [{**r, "logged_by": owners[str(r["entity"])]} if str(r["entity"]) in owners else r
             for r in shown]
    overview = Item(kind="metric_overview", text=(
        f"{len(shifts)} metric shift(s) in {', '.join(k.name for k in kinds[:MAX_TABLES])} "
        f"{scope['start']}..{scope['end']} vs {scope['baseline_start']}..{scope['baseline_end']}"),
        data={**scope, "tables": [k.name for k in kinds[:MAX_TABLES]], "shifts": len(shifts),
              "shown": len(shown), "more": len(shifts) - len(shown),
              "thresholds": {"z": Z_OUT, "min_samples_out": MIN_OUT,
                             "min_baseline_samples": MIN_BASELINE}})
    items = [overview] + [_item(r) for r in shown]
    note = f"a table had more than {MAX_SAMPLES} samples in the window and baseline: only " \
        "the latest were used (the window, then the baseline's end); narrow the window" \
        if capped else None
    note = "; ".join(n for n in (note, early) if n) or None
    return ToolResult(scope=scope, items=items, note=note,
                      truncated=capped or len(shifts) > len(shown) or len(kinds) > MAX_TABLES)


def _baseline_shifted(backends: Backends, settings: Settings, kinds: list[TableKind],
                      scope: dict[str, Any]) -> str | None:
    """Whether the default baseline itself left the same length before it, as a note.

    The default baseline is the window's length just before it: a shift that began earlier is
    in it, and the window then looks unchanged. Its own shifts against the span before it say
    so (the same robust z-scores). Call it under ``backends.lock``.
    """
    lo, hi = parse_ts(scope["baseline_start"]), parse_ts(scope["baseline_end"])
    earlier = Span(to_epoch_ms(lo) - (to_epoch_ms(hi) - to_epoch_ms(lo) + 1), to_epoch_ms(lo) - 1)
    e_lo, e_hi = span_text(earlier)
    inner = {**scope, "start": scope["baseline_start"], "end": scope["baseline_end"],
             "baseline_start": e_lo, "baseline_end": e_hi}
    found = [r for kind in kinds for r in _table_shifts(backends, settings, kind, inner)[0]]
    if not found:
        return None
    first = min(found, key=lambda r: (r["first_out"], str(r["entity"]), r["metric"]))
    named = ", ".join(dict.fromkeys(f"{r['entity']} {r['metric']}" if r["entity"] is not None
                                    else str(r["metric"]) for r in found[:5]))
    return (f"the default baseline {scope['baseline_start']}..{scope['baseline_end']} already "
            f"left the span before it ({named}; the first from {first['first_out']}): the shift "
            "may have begun before the window, where it can look unchanged; "
            + quiet_baseline(to_epoch_ms(parse_ts(first["first_out"])),
                             Span(to_epoch_ms(lo), to_epoch_ms(hi))))


def logged_by(backends: Backends, entities: set[str], scope: dict[str, Any]) -> dict[str, str]:
    """The log service each entity is a host, pod, node or instance of, where the logs say so.

    A metric table names a database by its host (``pg-ledger``) where the logs name it by its
    service (``postgres``, ``"pod": "pg-ledger-0"``): an entity is the service's whose window
    and baseline events carry it as an attribute value, exactly or with an ordinal suffix
    (``-0``), when one service holds at least nine in ten of those events; failing that, the
    same for the entity without its last word (a replica ``pg-mdm-ro`` is its primary's
    ``pg-mdm``). An entity that is itself a log service is left alone.
    """
    lo, hi = to_epoch_ms(parse_ts(scope["baseline_start"])), to_epoch_ms(parse_ts(scope["end"]))
    services = {s for (s,) in backends.logs.execute("SELECT DISTINCT service FROM events "
                                                    "WHERE ts_ms BETWEEN ? AND ?", (lo, hi))}
    out = {}
    for entity in sorted(entities - services)[:MAX_ROWS]:
        # pg-mdm-ro, a replica no log names, is the service of its primary pg-mdm.
        for name in (entity, entity.rsplit("-", 1)[0]) if "-" in entity else (entity,):
            rows = backends.logs.execute(
                "SELECT service, count(*) FROM events WHERE ts_ms BETWEEN ? AND ? AND "
                "(instr(attrs, ?) > 0 OR attrs GLOB ?) GROUP BY service ORDER BY 2 DESC",
                (lo, hi, f'"{name}"', f'*"{_glob(name)}-[0-9]*')).fetchall()
            total = sum(n for _, n in rows)
            if rows and rows[0][1] >= 0.9 * total:
                out[entity] = str(rows[0][0])
                break
    return out


def _glob(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)


def _series_tables(backends: Backends, settings: Settings, table: str | None) -> list[TableKind]:
    tables = layout(backends, settings.sql_timeout_s).tables
    series = [k for _, k in sorted(tables.items()) if k.time_columns and k.numeric_columns]
    if table is None:
        return series
    match = next((k for k in series if k.name.lower() == table.lower()), None)
    if match is None:
        listed = ", ".join(k.name for k in series) or "(none)"
        raise ToolInputError(f"table {table!r} has no time column with numeric columns; "
                             f"tables that do: {listed}")
    return [match]


def _table_shifts(backends: Backends, settings: Settings, kind: TableKind,
                  scope: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    q = backends.ops.dialect
    time_col = kind.time_columns[0]
    keys = [c for c in (kind.entity_column, kind.metric_column) if c]
    cols = [time_col, *keys, *kind.numeric_columns]
    t = quote(time_col, q)
    # Latest first, so that a capped read keeps the whole window and the baseline's end; read
    # back in time order (every column descending, reversed: the same order as ascending).
    sql = (f"SELECT {', '.join(quote(c, q) for c in cols)} FROM {quote(kind.name, q)} "
           f"WHERE {t} >= {literal(scope['baseline_start'])} AND {t} <= {literal(scope['end'])} "
           f"ORDER BY {', '.join(quote(c, q) + ' DESC' for c in cols)}")  # ties: deterministic
    _, rows, more = run_select(backends, sql, max_rows=MAX_SAMPLES,
                               timeout_s=settings.sql_timeout_s,
                               max_bytes=settings.max_tool_result_bytes * 100)
    rows.reverse()
    w_lo, w_hi = scope["start"], scope["end"]
    b_hi = scope["baseline_end"]
    # Series by series: the rows of each (entity, metric name) split once into baseline and
    # window, then each value column read over them (a day's samples are tens of thousands).
    times = [time_text(row[0]) for row in rows]
    by_series: dict[tuple[Any, Any], tuple[list[int], list[int]]] = {}
    entity_at = 1 if kind.entity_column else None
    name_at = len(keys) if kind.metric_column else None
    for i, ts in enumerate(times):
        key = (rows[i][entity_at] if entity_at else None,
               rows[i][name_at] if name_at else None)
        base_rows, win_rows = by_series.setdefault(key, ([], []))
        if ts <= b_hi:
            base_rows.append(i)
        elif w_lo <= ts <= w_hi:
            win_rows.append(i)
    series: dict[tuple[Any, str], tuple[list[float], list[tuple[str, float]]]] = {}
    one_value = len(kind.numeric_columns) == 1
    for j, column in enumerate(kind.numeric_columns, start=1 + len(keys)):
        for (entity, name), (base_rows, win_rows) in by_series.items():
            metric = column if name_at is None else str(name) if one_value \
                else f"{name}.{column}"
            base = [float(v) for i in base_rows if _number(v := rows[i][j])]
            win = [(times[i], float(v)) for i in win_rows if _number(v := rows[i][j])]
            if base or win:
                series[(entity, metric)] = (base, win)
    long = {"metric_column": kind.metric_column} if kind.metric_column else {}
    named = {column: (service, metric) for column, service, metric in kind.column_entities}
    out = []
    for (entity, metric), (base, win) in sorted(series.items(), key=lambda kv: (str(kv[0][0]),
                                                                                 kv[0][1])):
        shift = judge(base, win)
        if shift is None:
            continue
        # A column named after a service (``cartservice_cpu``) is that service's metric.
        split = {"entity": named[metric][0], "metric": named[metric][1], "column": metric} \
            if metric in named else {"entity": entity, "metric": metric}
        out.append({"table": kind.name, "time_column": time_col,
                    "entity_column": kind.entity_column, **split, **long, **shift})
    return out, more


def _number(value: object) -> bool:
    return type(value) is float or type(value) is int or (value is not None and is_number(value))


def time_text(value: object) -> str:
    """A stored time in the canonical spelling (a real database's naive time is UTC)."""
    if isinstance(value, datetime):
        return format_utc(value if value.tzinfo else value.replace(tzinfo=UTC))
    return str(value)


def judge(base: list[float], win: list[tuple[str, float]]) -> dict[str, Any] | None:
    """The shift of one series (module docstring), or None if it stayed or cannot be judged."""
    if len(base) < MIN_BASELINE or not win:
        return None
    median = statistics.median(base)
    mad = statistics.median(abs(x - median) for x in base)
    spread = max(1.4826 * mad, 0.05 * abs(median), 1e-9)
    scored = [(ts, x, (x - median) / spread) for ts, x in win]
    up = [s for s in scored if s[2] >= Z_OUT]
    down = [s for s in scored if s[2] <= -Z_OUT]
    out = up if len(up) >= len(down) else down
    if len(out) < max(MIN_OUT, len(win) / 10) or (up and down and len(up) == len(down)):
        return None
    peak = max(out, key=lambda s: abs(s[2]))
    window_median = statistics.median(x for _, x in win)
    return {"direction": "up" if out is up else "down",
            "baseline_median": _r(median), "baseline_mad": _r(mad),
            "baseline_samples": len(base), "window_median": _r(window_median),
            # A baseline whose MAD is 0 has no spread: its z would be a quotient by the floor
            # (858000000000.0 from a constant 0); the shift stands, its z is null.
            "peak": _r(peak[1]), "peak_at": peak[0], "z": None if mad == 0 else _r(peak[2]),
            **({"mad_zero": True, "baseline_outliers": sum(x != median for x in base)}
               if mad == 0 else {}),
            "ratio": _r(window_median / median) if median else None,
            "samples_out": len(out), "window_samples": len(win), "first_out": out[0][0]}


def z_text(shift: dict[str, Any]) -> str:
    """A shift's z as its text says it: "z 6.2", else why it has none ("MAD 0, 2 outliers")."""
    if shift.get("z") is not None:
        return f"z {shift['z']:g}"
    outliers = shift.get("baseline_outliers") or 0
    return f"MAD 0, {outliers} baseline outlier(s)" if outliers else "MAD 0, baseline constant"


def _r(value: float) -> float:
    return round(value, 4)


def _item(r: dict[str, Any]) -> Item:
    who = f"{r['entity']} " if r["entity"] is not None else ""
    text = (f"{r['table']} {who}{r['metric']} {r['direction']} from {r['first_out']}: median "
            f"{r['baseline_median']:g} -> {r['window_median']:g}, peak {r['peak']:g} "
            f"({z_text(r)}), {r['samples_out']}/{r['window_samples']} samples out")
    return Item(kind="metric_shift", text=text, data=r)
