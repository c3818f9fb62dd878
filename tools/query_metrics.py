"""``query_metrics``: one PromQL query on the configured Prometheus, as citable series records.

Enabled only when ``HARNESS_PROMETHEUS_URL`` is set (docs/design.md §17). The model gives the
PromQL and the times, never a URL: the request goes through
:class:`~diagnosis_harness.tools.backends.prometheus.Prometheus`, which can only read. Bounded
three ways — at most :data:`MAX_SERIES` series are read (the rest of the answer is never
fetched), at most :data:`MAX_STEPS` points per series (the step is raised to fit) and at most
``max_tool_result_bytes`` of the answer — and deadline-aware (the request's timeout is the
smaller of ``prometheus_timeout_s`` and the run's remaining time, passed to Prometheus as its
own evaluation ``timeout`` too).

A range query also reads its baseline (by default the window's own length just before it, as
for ``metric_shifts``) and judges each series with the same robust z-score rule
(:func:`diagnosis_harness.tools.stats.metrics.judge`): the first point out of the baseline is
the series' first change. The end of a query is never later than :data:`SETTLE_S` before the
call, and the resolved times are the record's scope, so the release check asks the same
question again and gets the same numbers (docs/design.md §16.1).

A fact carries only what Prometheus measured (docs/security.md, forged metrics): the query is
checked before and after it runs (:mod:`diagnosis_harness.tools.promql_provenance`,
:mod:`diagnosis_harness.tools.promql_tsdb`), its text stays in the record's scope and is never
quoted in a fact, labels no stored series has are moved out of the citable labels into
``query_labels``, and ``computed`` names the keys of a fact's data that the query computed
(``query_labels``; the numbers when the query is more than one selector: a rate, a sum,
``x * 0 + 6666``) — the same marker ``query_mysql`` sets on a row, which the judges take no
words from.
"""

from __future__ import annotations

import math
import re
import time as clock
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.backends.prometheus import Prometheus, PrometheusError
from diagnosis_harness.tools.promql_provenance import PromqlRejected, Provenance, read
from diagnosis_harness.tools.promql_tsdb import refuse_unknown_names, unbacked_labels
from diagnosis_harness.tools.results import Item, ToolArgs, ToolInputError, ToolResult, clip
from diagnosis_harness.tools.stats.common import canonical
from diagnosis_harness.tools.stats.metrics import judge, z_text
from diagnosis_harness.tools.timeutil import format_utc, parse_ts

if TYPE_CHECKING:
    from diagnosis_harness.tools.backends.prometheus_answers import Streamed

MAX_SERIES = 50
"""Series read per query; a query matching more is cut here and marked truncated."""
MAX_STEPS = 240
"""Points per series over baseline and window; a smaller step is raised to fit."""
SHOWN_POINTS = 12
"""Points per series shown as values (evenly spread, first and last included)."""
SETTLE_S = 5
"""A query ends at least this long before the call: later samples may still be arriving."""
MAX_PROMQL = 2000
_STEP = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)?\Z")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
COMPUTED_VALUES = ("min", "max", "first", "last", "values", "shift", "first_out")
"""The keys of a series fact that hold its numbers (or what was judged from them)."""


class QueryMetricsError(ToolInputError):
    """Prometheus could not answer the query (its ``code`` says why)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class QueryMetricsArgs(ToolArgs):
    """Arguments of ``query_metrics`` (normalised on validation)."""

    promql: str = Field(min_length=1, max_length=MAX_PROMQL, description=(
        "The PromQL expression, e.g. rate(http_requests_total{job=\"api\"}[5m])."))
    start: str | None = Field(default=None, description=(
        "Range start, ISO-8601 with offset; with end: a range query. Omit both: an instant "
        "query."))
    end: str | None = Field(default=None, description="Range end, ISO-8601 with offset.")
    step: str | None = Field(default=None, max_length=20, description=(
        "Optional range step, e.g. 30s or 1m (default: about 60 points per window)."))
    time: str | None = Field(default=None, description=(
        "Optional time of an instant query (default: now)."))
    baseline_start: str | None = Field(default=None, description=(
        "Optional baseline start (default: the window's length just before it)."))
    baseline_end: str | None = Field(default=None, description="Optional baseline end.")

    @field_validator("start", "end", "time", "baseline_start", "baseline_end")
    @classmethod
    def _timestamp(cls, value: str | None) -> str | None:
        return None if value is None else canonical(value)

    @field_validator("promql")
    @classmethod
    def _promql(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("give a PromQL expression")
        return value.strip()

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope (the resolved times are filled in by the call)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def query_metrics(
    backends: Backends, settings: Settings, *, promql: str, start: str | None = None,
    end: str | None = None, step: str | None = None, time: str | None = None,
    baseline_start: str | None = None, baseline_end: str | None = None,
) -> ToolResult:
    """One PromQL query (range or instant) on Prometheus: per series its labels and points."""
    client: Prometheus | None = getattr(backends, "prometheus", None)
    if client is None:
        raise QueryMetricsError("not_configured", "query_metrics needs HARNESS_PROMETHEUS_URL")
    args = QueryMetricsArgs(promql=promql, start=start, end=end, step=step, time=time,
                            baseline_start=baseline_start, baseline_end=baseline_end)
    found = read(args.promql)  # refuses what could write its own evidence, before it runs
    latest = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=SETTLE_S)
    timeout = min(settings.prometheus_timeout_s, client.timeout_s)
    # One deadline for the query and the checks after it: the call's limit is the limit.
    checks = _Checks(client, found, clock.monotonic() + timeout, settings)
    if args.start is None and args.end is None:
        return _instant(client, args, latest, timeout, settings, checks)
    return _range(client, args, latest, timeout, settings, checks)


@dataclass(frozen=True)
class _Checks:
    """The provenance checks a query's answer gets, within the call's deadline."""

    client: Prometheus
    found: Provenance
    deadline: float
    settings: Settings

    def vet(self, series: list[dict[str, Any]]) -> list[bool]:
        """Refuse names the TSDB does not have; per series, whether its label set is unbacked."""
        if not self.found.understood:
            raise PromqlRejected("the query could not be checked for words of its own (it is "
                                 "not plain PromQL as this tool reads it): write it without them")
        cap = self.settings.max_tool_result_bytes
        try:
            refuse_unknown_names(self.client, self.found, self._left(), cap)
            return unbacked_labels(self.client, [_labels(s) for s in series], self._left(), cap,
                                   self.found.metric_names())
        except PrometheusError as exc:
            raise QueryMetricsError(exc.code, str(exc)) from None

    def _left(self) -> float:
        left = self.deadline - clock.monotonic()
        if left <= 0:
            raise PrometheusError("timeout", "the query's checks did not finish within the "
                                  "call's timeout")
        return left


def _labels(series: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in (series.get("metric") or {}).items()}


def _fetch(client: Prometheus, key: str, params: dict[str, str], timeout: float,
           settings: Settings) -> Streamed:
    # Prometheus stops evaluating at its own timeout too: the work ends with the call.
    params = {**params, "timeout": f"{max(int(timeout * 1000), 1)}ms"}
    try:
        return client.series(key, params, timeout_s=timeout, max_series=MAX_SERIES,
                             max_bytes=settings.max_tool_result_bytes)
    except PrometheusError as exc:
        raise QueryMetricsError(exc.code, str(exc)) from None


def _instant(client: Prometheus, args: QueryMetricsArgs, latest: datetime, timeout: float,
             settings: Settings, checks: _Checks) -> ToolResult:
    if args.baseline_start or args.baseline_end or args.step:
        raise ToolInputError("step and a baseline need a range query: give start and end")
    at = min(parse_ts(args.time), latest) if args.time else latest
    scope = {"promql": args.promql, "time": format_utc(at)}
    got = _fetch(client, "query", {"query": args.promql, "time": f"{at.timestamp():.3f}"},
                 timeout, settings)
    items = []
    ordered = sorted(got.series, key=_label_key)
    point = _point(got.scalar) if got.result_type == "scalar" and isinstance(got.scalar, list) \
        else None
    unbacked = checks.vet(ordered) if ordered or point else []
    if point is not None:
        items.append(Item(kind="metric_value", text=f"value {point[1]} at {point[0]}",
                          data={"value": point[1], "at": point[0],
                                **({"computed": ["value"]} if checks.found.computed_values
                                   else {})}))
    for series, written in zip(ordered, unbacked, strict=True):
        raw = series.get("values") if "values" in series else [series.get("value")]
        points = [p for p in (_point(v) for v in raw or []) if p is not None]
        items.append(_series_item(series, points, [], written, checks.found.computed_values))
    return _result(scope, got, items)


def _range(client: Prometheus, args: QueryMetricsArgs, latest: datetime, timeout: float,
           settings: Settings, checks: _Checks) -> ToolResult:
    if args.start is None or args.end is None:
        raise ToolInputError("a range query needs both start and end (or neither: instant)")
    lo, hi = parse_ts(args.start), min(parse_ts(args.end), latest)
    if hi <= lo:
        raise ToolInputError(f"the window {args.start} .. {args.end} must end after it starts "
                             f"and start before {format_utc(latest)} (the latest settled time)")
    if hi - lo > timedelta(minutes=settings.max_log_window_minutes):
        raise ToolInputError(f"the window is longer than the allowed "
                             f"{settings.max_log_window_minutes} minutes; use a shorter one")
    if (args.baseline_start is None) != (args.baseline_end is None):
        raise ToolInputError("give both baseline_start and baseline_end, or neither")
    if args.baseline_start and args.baseline_end:
        b_lo, b_hi = parse_ts(args.baseline_start), parse_ts(args.baseline_end)
        if b_hi == lo > b_lo:  # ends where the window starts: touches it, the instant is the window's
            b_hi = lo - timedelta(milliseconds=1)
        if b_hi <= b_lo or b_hi >= lo:
            raise ToolInputError("the baseline must be a window that ends before start")
    else:
        b_lo, b_hi = lo - (hi - lo), lo - timedelta(milliseconds=1)
    window_s = (hi - lo).total_seconds()
    asked = _step_seconds(args.step) if args.step else float(max(math.ceil(window_s / 60), 1))
    span_s = (hi - b_lo).total_seconds()
    step_s = max(asked, math.ceil(span_s / MAX_STEPS), 0.001)
    scope = {"promql": args.promql, "start": format_utc(lo), "end": format_utc(hi),
             "step": _step_text(step_s), "baseline_start": format_utc(b_lo),
             "baseline_end": format_utc(b_hi)}
    # The evaluation times count back from the end: the latest settled point is always one.
    first = hi - timedelta(seconds=step_s * math.floor((hi - b_lo).total_seconds() / step_s))
    got = _fetch(client, "query_range", {"query": args.promql, "start": f"{first.timestamp():.3f}",
                                         "end": f"{hi.timestamp():.3f}", "step": scope["step"]},
                 timeout, settings)
    items = []
    ordered = sorted(got.series, key=_label_key)
    unbacked = checks.vet(ordered) if ordered else []
    for series, written in zip(ordered, unbacked, strict=True):
        points = [p for p in (_point(v) for v in series.get("values") or []) if p is not None]
        base = [v for ts, v in points if ts <= scope["baseline_end"] and v is not None]
        window = [(ts, v) for ts, v in points if ts >= scope["start"]]
        items.append(_series_item(series, window, base, written, checks.found.computed_values))
    return _result(scope, got, items)


def _result(scope: dict[str, Any], got: Streamed, items: list[Item]) -> ToolResult:
    truncated = got.truncated is not None
    why = {"series": f"more than {MAX_SERIES} series matched: only the first {MAX_SERIES} were "
                     "read; aggregate (sum by, topk) or add label matchers",
           "bytes": "the answer exceeded the byte limit: only its first series were read; "
                    "aggregate or narrow the query"}.get(got.truncated or "")
    if not items:
        return ToolResult(scope=scope, note="no series matched this query and time")
    # The query is the record's scope, never the fact's words: text in it is not measured.
    shown = {k: v for k, v in scope.items() if k != "promql"}
    overview = Item(kind="metrics_overview", text=(
        f"{len(items)} series" + (f" (truncated: {got.truncated} limit)" if truncated else "")),
        data={**shown, "result_type": got.result_type, "series": len(items),
              "complete": not truncated, "stopped_at": got.truncated,
              "thresholds": {"max_series": MAX_SERIES, "max_steps": MAX_STEPS}})
    return ToolResult(scope=scope, items=[overview, *items], truncated=truncated, note=why)


def _series_item(series: dict[str, Any], points: list[tuple[str, float | None]],
                 base: list[float], written: bool, computed_values: bool) -> Item:
    every = {str(k): clip(str(v), 200)[0] for k, v in (series.get("metric") or {}).items()}
    # A label set no stored series has was put together by the query: none of it is cited.
    labels, query_labels = ({}, every) if written else (every, {})
    name = labels.get("__name__", "")
    selector = name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())
                                      if k != "__name__") + "}"
    numbers = [(ts, v) for ts, v in points if v is not None]
    values = [v for _, v in numbers]
    shift = judge(base, numbers) if base else None
    data: dict[str, Any] = {
        "series": clip(selector, 400)[0], "metric": name or selector, "labels": labels,
        "service": labels.get("service") or labels.get("job"),
        "points": len(points), "min": _r(min(values)) if values else None,
        "max": _r(max(values)) if values else None,
        "first": _r(values[0]) if values else None, "first_at": numbers[0][0] if numbers else None,
        "last": _r(values[-1]) if values else None, "last_at": numbers[-1][0] if numbers else None,
        "baseline_points": len(base),
        "shift": shift, "first_out": shift["first_out"] if shift else None,
        "values": [[ts, None if v is None else _r(v)] for ts, v in _spread(points)],
    }
    computed = (["query_labels"] if query_labels else []) + \
        (list(COMPUTED_VALUES) if computed_values else [])
    if query_labels:
        data["query_labels"] = query_labels
    if computed:
        data["computed"] = computed
    if not values:
        text = f"{data['series']}: {len(points)} points, none a number"
    else:
        text = (f"{data['series']}: {len(points)} points {data['first_at']}..{data['last_at']}, "
                f"min {data['min']:g} max {data['max']:g} first {data['first']:g} last "
                f"{data['last']:g}")
        if shift:
            text += (f"; {shift['direction']} from {shift['first_out']} (baseline median "
                     f"{shift['baseline_median']:g}, {z_text(shift)})")
    return Item(kind="metric_series", text=text, data=data)


def _spread(points: list[Any]) -> list[Any]:
    if len(points) <= SHOWN_POINTS:
        return points
    last = len(points) - 1
    picks = sorted({round(i * last / (SHOWN_POINTS - 1)) for i in range(SHOWN_POINTS)})
    return [points[i] for i in picks]


def _point(raw: object) -> tuple[str, float | None] | None:
    if not isinstance(raw, list) or len(raw) != 2:
        return None
    try:
        at = format_utc(datetime.fromtimestamp(float(raw[0]), tz=UTC))
        value = float(raw[1])
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    return at, value if math.isfinite(value) else None


def _label_key(series: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((str(k), str(v)) for k, v in (series.get("metric") or {}).items())


def _step_seconds(text: str) -> float:
    m = _STEP.match(text.strip())
    if not m or float(m.group(1)) <= 0:
        raise ToolInputError(f"step {text!r} is not a duration like 30s, 1m or 1h")
    return float(m.group(1)) * _UNIT_S[m.group(2)]


def _step_text(seconds: float) -> str:
    # Prometheus reads "15s" or "1500ms", not "1.5s".
    return f"{int(seconds)}s" if seconds == int(seconds) else f"{max(round(seconds * 1000), 1)}ms"


def _r(value: float) -> float:
    return round(value, 6)


def metrics_hint(client: Prometheus, limit: int = 40) -> str:
    """What the tool's description appends: the metrics this server has, bounded.

    Names only (with their type): a metric name cannot carry instructions (it is checked
    against Prometheus's name grammar), a HELP text could.
    """
    found = client.metric_names(limit)
    if found.error is not None:
        return (f"\n\nThe list of metrics could not be read ({clip(found.error, 200)[0]}); "
                "query {__name__=~\"...\"} or up to see what exists.")
    listed = ", ".join(f"{n} ({k})" if k else n for n, k in found.names)
    more = f" (+{found.total - len(found.names)} more)" if found.total > len(found.names) else ""
    return f"\n\nMetrics on this Prometheus: {listed or '(none)'}{more}."
