"""What the statistics tools share: windows, thresholds, and the log store's pattern counts.

Definitions (docs/design.md §16.1): a window is ``[start, end]`` (UTC, both inclusive, as for
``query_logs``); the baseline is ``[baseline_start, baseline_end]``, by default the window's own
length just before it (ending a millisecond before ``start``). Rates are events per minute of
each window. A (service, pattern, level) is

- **new** when it occurs in the window and not once in the baseline;
- **rose** when it occurs in both, at least :data:`MIN_EVENTS` times in the window, and its
  rate ratio with add-one smoothing, ``((w + 1) / window minutes) / ((b + 1) / baseline
  minutes)``, is at least :data:`MIN_RATIO`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import AfterValidator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.format import LEVELS
from diagnosis_harness.tools.results import ToolInputError
from diagnosis_harness.tools.results import clip_middle as cut_middle
from diagnosis_harness.tools.timeutil import format_epoch_ms, format_utc, parse_ts, to_epoch_ms

MIN_EVENTS = 5
"""A pattern that was already there "rose" only with at least this many events in the window."""
MIN_RATIO = 3.0
"""… and a smoothed rate ratio (window / baseline) of at least this."""
MAX_ROWS = 20
"""Rows shown per call (the overview row counts the rest: "and N more")."""
MAX_EXAMPLE_CHARS = 300


@dataclass(frozen=True)
class Span:
    """A closed time interval in epoch milliseconds."""

    lo: int
    hi: int

    @property
    def minutes(self) -> float:
        """Its length in minutes (at least a millisecond, so a rate is always defined)."""
        return max(self.hi - self.lo + 1, 1) / 60_000


def canonical(value: str) -> str:
    """A timestamp argument in the one UTC spelling (validators use it)."""
    return format_utc(parse_ts(value))


Timestamp = Annotated[str, AfterValidator(canonical)]
"""A tool argument that is a time: parsed, and kept in the one UTC spelling."""


def service_name(value: str | None) -> str | None:
    """A service argument as the log store keys it (trimmed, lower case); blank is none."""
    if value is None or not value.strip():
        return None
    return value.strip().lower()


def windows(start: str, end: str, baseline_start: str | None, baseline_end: str | None,
            settings: Settings) -> tuple[Span, Span]:
    """The window and its baseline; ToolInputError for an unusable pair."""
    lo, hi = parse_ts(start), parse_ts(end)
    if hi <= lo:
        raise ToolInputError(f"end ({end}) must be after start ({start})")
    longest = timedelta(minutes=settings.max_log_window_minutes)
    if hi - lo > longest:
        raise ToolInputError(f"window {start} .. {end} is longer than the allowed "
                             f"{settings.max_log_window_minutes} minutes; use a shorter one")
    if (baseline_start is None) != (baseline_end is None):
        raise ToolInputError("give both baseline_start and baseline_end, or neither")
    if baseline_start is None or baseline_end is None:
        b_lo, b_hi = lo - (hi - lo), lo - timedelta(milliseconds=1)
    else:
        b_lo, b_hi = parse_ts(baseline_start), parse_ts(baseline_end)
        if b_hi <= b_lo:
            raise ToolInputError("baseline_end must be after baseline_start")
        if b_hi - b_lo > longest:
            raise ToolInputError(f"the baseline is longer than the allowed "
                                 f"{settings.max_log_window_minutes} minutes")
        # Half-open reading: a baseline that ends where the window starts (or starts where it
        # ends) only touches it; the shared instant is the window's, not an overlap.
        b_hi = b_hi - _MS if b_hi == lo else b_hi
        b_lo = b_lo + _MS if b_lo == hi else b_lo
        if b_lo <= hi and lo <= b_hi:
            raise ToolInputError("the baseline overlaps the window; give one before or after it")
    return _span(lo, hi), _span(b_lo, b_hi)


_MS = timedelta(milliseconds=1)


def _span(lo: datetime, hi: datetime) -> Span:
    return Span(to_epoch_ms(lo), to_epoch_ms(hi))


def span_text(span: Span) -> tuple[str, str]:
    """The span's bounds in the canonical spelling."""
    return format_epoch_ms(span.lo), format_epoch_ms(span.hi)


def quiet_baseline(first_ms: int, baseline: Span) -> str:
    """The advice of a note saying the default ``baseline`` holds trouble from ``first_ms`` on.

    A concrete baseline, the same length ending just before that first event, so the next call
    is right the first time (a player spent a call finding one).
    """
    lo, hi = span_text(Span(first_ms - 1 - (baseline.hi - baseline.lo), first_ms - 1))
    return f"a baseline before that time is baseline_start={lo}, baseline_end={hi}"


Key = tuple[str, int, str]
"""(service, pattern id, level)."""


@dataclass
class Counted:
    """One (service, pattern, level) in one span: count, first and last time, first event id."""

    count: int
    first_ms: int
    last_ms: int
    first_id: int


MINUTE_MS = 60_000
HOUR_MINUTES = 60
HOUR_MS = HOUR_MINUTES * MINUTE_MS

_EVENT_COLS = ("(ts_ms - ((ts_ms % 60000) + 60000) % 60000) / 60000 AS minute, service, "
               "pattern_id, level, 1 AS n, ts_ms AS first_ms, ts_ms AS last_ms, id AS first_id")
_SUMMARY_COLS = "service, pattern_id, level, n, first_ms, last_ms, first_id"


def whole_hours(span: Span) -> tuple[int, int]:
    """The first and last hour (``floor(ms / 3600000)``) wholly inside ``span``; lo > hi: none."""
    return -(-span.lo // HOUR_MS), (span.hi + 1) // HOUR_MS - 1


def parts_sql(span: Span, service: str | None, pattern_ids: list[int] | None = None, *,
              hours: bool = True) -> tuple[str, tuple[Any, ...]]:
    """SQL of the rows that make up ``span``: whole hours and minutes from summaries, edges from events.

    Each row is ``(minute, service, pattern_id, level, n, first_ms, last_ms, first_id)``. The
    span is cut into disjoint pieces that cover it exactly (docs/design.md §16.1): the whole
    hours inside it from the build's ``pattern_hours`` (one row per hour, service, pattern and
    level), the whole minutes before the first and after the last of those hours from
    ``pattern_minutes``, and the partial minutes at the two ends from the events themselves —
    so a day reads a row per hour and pattern, not one per minute or event. An hour row's
    ``minute`` is the hour's first minute: a caller that groups by minute passes
    ``hours=False`` and gets minute rows only.
    """
    m_lo = -(-span.lo // MINUTE_MS)  # the first minute that starts inside the span
    m_hi = (span.hi + 1) // MINUTE_MS - 1  # the last minute that ends inside it
    only: list[str] = []
    filters: list[Any] = []
    if service is not None:
        only.append("service = ?")
        filters.append(service)
    if pattern_ids is not None:
        only.append(f"pattern_id IN ({', '.join('?' * len(pattern_ids))})")
        filters += pattern_ids
    extra = "".join(f" AND {c}" for c in only)
    pieces: list[str] = []
    args: list[Any] = []

    def piece(sql: str, lo: int, hi: int) -> None:
        if lo <= hi:  # an empty stretch adds nothing
            pieces.append(sql + extra)
            args.extend((lo, hi, *filters))

    events = f"SELECT {_EVENT_COLS} FROM events WHERE ts_ms BETWEEN ? AND ?"
    minutes = f"SELECT minute, {_SUMMARY_COLS} FROM pattern_minutes WHERE minute BETWEEN ? AND ?"
    if m_lo > m_hi:  # no whole minute: the events alone
        piece(events, span.lo, span.hi)
    else:
        h_lo, h_hi = whole_hours(span)
        piece(events, span.lo, m_lo * MINUTE_MS - 1)
        if not hours or h_lo > h_hi:  # no whole hour (or not wanted): minutes between the edges
            piece(minutes, m_lo, m_hi)
        else:
            piece(minutes, m_lo, h_lo * HOUR_MINUTES - 1)
            piece(f"SELECT hour * {HOUR_MINUTES} AS minute, {_SUMMARY_COLS} FROM pattern_hours "
                  "WHERE hour BETWEEN ? AND ?", h_lo, h_hi)
            piece(minutes, (h_hi + 1) * HOUR_MINUTES, m_hi)
        piece(events, (m_hi + 1) * MINUTE_MS, span.hi)
    return " UNION ALL ".join(pieces), tuple(args)


def pattern_counts(backends: Backends, span: Span, service: str | None) -> dict[Key, Counted]:
    """Every (service, pattern, level) of ``span`` with its count: one aggregation in SQLite."""
    parts, args = parts_sql(span, service)
    rows = backends.logs.execute(
        "SELECT service, pattern_id, level, sum(n), min(first_ms), max(last_ms), min(first_id) "
        f"FROM ({parts}) GROUP BY service, pattern_id, level", args).fetchall()
    return {(s, p, lv): Counted(n, first, last, first_id)
            for s, p, lv, n, first, last, first_id in rows}


@dataclass(frozen=True)
class Anomaly:
    """One (service, pattern, level) that is new in the window or whose rate rose."""

    key: Key
    change: str
    """``new`` or ``rose``."""
    window: Counted
    baseline_count: int
    ratio: float
    ratio_from: str = ""
    """How ``ratio`` is computed from the counts (:func:`ratio_from`)."""


def ratio_of(window_count: int, baseline_count: int, window: Span, baseline: Span) -> float:
    """The smoothed rate ratio (module docstring), rounded to 2 decimals."""
    return round(((window_count + 1) / window.minutes) / ((baseline_count + 1) / baseline.minutes), 2)


def ratio_from(window_count: int, baseline_count: int, window: Span, baseline: Span) -> str:
    """The ratio's sum, shown beside it: "x4.4" for 65 events against 14 read as a mistake.

    ``(65+1)/(14+1)`` for spans of one length; else per minute, ``(65+1)/15m / (14+1)/30m``.
    """
    if abs(window.minutes - baseline.minutes) < 1 / 60_000 + 1e-9:
        return f"({window_count}+1)/({baseline_count}+1)"
    return (f"({window_count}+1)/{round(window.minutes, 2):g}m / "
            f"({baseline_count}+1)/{round(baseline.minutes, 2):g}m")


def anomalies(now: dict[Key, Counted], before: dict[Key, Counted], window: Span,
              baseline: Span) -> list[Anomaly]:
    """The new and risen patterns, unordered."""
    out = []
    for key, counted in now.items():
        b = before[key].count if key in before else 0
        ratio = ratio_of(counted.count, b, window, baseline)
        how = ratio_from(counted.count, b, window, baseline)
        if b == 0:
            out.append(Anomaly(key, "new", counted, 0, ratio, how))
        elif counted.count >= MIN_EVENTS and ratio >= MIN_RATIO:
            out.append(Anomaly(key, "rose", counted, b, ratio, how))
    return out


def silent_note(backends: Backends, found: list[Anomaly], before: dict[Key, Counted],
                baseline: Span) -> str | None:
    """What "new" means for services that logged nothing in the baseline, if any had a new row.

    Every pattern of a service silent in the baseline counts as new, whether the service began
    failing in the window or the data simply holds nothing of it then (logs that start later).
    """
    logged = {key[0] for key in before}
    silent = sorted({a.key[0] for a in found if a.change == "new" and a.key[0] not in logged})
    if not silent:
        return None
    lo, hi = span_text(baseline)
    first = getattr(backends.info, "first_ts", None)
    starts = (f"; the data begins at {format_utc(parse_ts(first))}"
              if first and to_epoch_ms(parse_ts(first)) > baseline.lo else "")
    named = ", ".join(silent[:10]) + (f" (+{len(silent) - 10} more)" if len(silent) > 10 else "")
    return (f"no events of {named} in the baseline {lo}..{hi}{starts}: their patterns count as "
            "new because nothing of them was logged then, not necessarily because they began in "
            "the window")


def severity(level: str) -> int:
    """Rank of a level (higher is more severe)."""
    return LEVELS.index(level) if level in LEVELS else 0


def pattern_texts(backends: Backends, ids: set[int]) -> dict[int, str]:
    """The text of the given pattern ids."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    return dict(backends.logs.execute(f"SELECT id, text FROM patterns WHERE id IN ({marks})",
                                      tuple(sorted(ids))).fetchall())


def examples(backends: Backends, ids: set[int]) -> dict[int, str]:
    """The (clipped) message of the given event ids."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = backends.logs.execute(f"SELECT id, message FROM events WHERE id IN ({marks})",
                                 tuple(sorted(ids))).fetchall()
    return {i: clip_middle(m, MAX_EXAMPLE_CHARS) for i, m in rows}


EXAMPLE_TAIL = 90
"""Characters of a long example's end that are kept: a line's reason or error code is often
last ("…; Duplicate entry '88-READY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY")."""


def clip_middle(text: str, limit: int, tail: int = EXAMPLE_TAIL) -> str:
    """``text`` within ``limit`` characters, cut between words (``tools/results.clip_middle``)."""
    return cut_middle(text, limit, tail)


def known_service(backends: Backends, service: str | None) -> None:
    """ToolInputError naming the services when ``service`` is not one of the log store's."""
    services = getattr(backends.info, "services", ())
    if service is not None and service not in services:
        listed = ", ".join(services[:25]) or "(none)"
        raise ToolInputError(f"no service named {service!r} in the log store; services: {listed}")


SLOT = re.compile(r"<ip>:<n>|<(?:ip|n|id|str|hex|uuid|dur|ts|q|obj)>|\b[1-5]xx\b")
LOCATING_SLOTS = frozenset({"<ip>:<n>", "<ip>", "<n>", "<id>", "<str>", "1xx", "2xx", "3xx", "4xx", "5xx"})
"""The masked slots whose value can locate a failure (a host, pod, IP, port, status, name); a
time, a duration, a hash or a UUID never stays the same across a failure's events."""
LOCATED_EVENTS = 50
"""Events of a pattern read to find the values it masks that every one of them shares."""


def _slot_rx(slot: str) -> str:
    return r"([1-5]\d\d)" if slot.endswith("xx") else "(.+?)"


def _word(message: str, span: tuple[int, int]) -> str:
    """The whitespace-delimited word holding a slot's value (``/data/3``, ``host=db-1``)."""
    lo, hi = span
    while lo > 0 and not message[lo - 1].isspace():
        lo -= 1
    while hi < len(message) and not message[hi].isspace():
        hi += 1
    return message[lo:hi].strip("\"'()[]{}<>,;:.")


def located(backends: Backends, key: Key, span: Span, pattern: str) -> list[str]:
    """The values the pattern masks that (nearly) all its window events share, in order.

    A pattern is ``upstream <ip>:<n> refused``; its events may all say ``10.0.3.7:5432``: the
    value that locates the failure. The first :data:`LOCATED_EVENTS` events of ``key`` in
    ``span`` are aligned with the pattern (its words literal, each slot any text); a slot's
    value — the whole word that holds it, so ``/data/3`` rather than ``3`` — counts when at
    least nine in ten of the aligned events (and at least two) hold it.
    """
    slots = SLOT.findall(pattern)
    if not slots or len(slots) > 12:
        return []
    parts = SLOT.split(pattern)
    body = "".join(re.sub(r"\\ ", r"\\s+", re.escape(p)) + (_slot_rx(slots[i]) if i < len(slots) else "")
                   for i, p in enumerate(parts))
    shape = re.compile(body + r"\s*")
    service, pattern_id, level = key
    rows = backends.logs.execute(
        "SELECT message FROM events WHERE service = ? AND pattern_id = ? AND level = ? "
        "AND ts_ms BETWEEN ? AND ? ORDER BY id LIMIT ?",
        (service, pattern_id, level, span.lo, span.hi, LOCATED_EVENTS)).fetchall()
    seen = [[_word(message, m.span(n + 1)) for n in range(len(slots))]
            for (message,) in rows if (m := shape.fullmatch(message[:2000]))]
    if len(seen) < 2:
        return []
    out: list[str] = []
    for n, slot in enumerate(slots):
        value, count = Counter(g[n] for g in seen).most_common(1)[0]
        if slot in LOCATING_SLOTS and count >= 0.9 * len(seen) and value and value not in out:
            out.append(value)
    return out[:3]
