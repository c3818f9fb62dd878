"""The incident's picture: log events per service over the run's window and its baseline.

Read from the case's dataset (the built log index) over the router's scope: the window
``[start, end]`` and the baseline, the same length just before it, in equal buckets; the
onsets (each service's first ERROR or worse in the window) and the changes the run cited (a
timestamp in a cited table row, e.g. a config change's ``changed_at``) are marked. Computed
once, when the case runs, so the scorecard carries it and the HTML needs no dataset.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime

from pydantic import BaseModel, ConfigDict

BUCKETS = 24
"""Buckets over baseline plus window (half each)."""
MAX_SERVICES = 6
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})")
_ERRORS = ("ERROR", "FATAL")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ServiceSeries(_Frozen):
    """One service's event counts (all levels, and ERROR or worse) per bucket."""

    service: str
    counts: tuple[int, ...]
    errors: tuple[int, ...]


class Mark(_Frozen):
    """A point in time on the picture: an onset or a cited change."""

    kind: str
    """``onset`` or ``change``."""
    label: str
    ts_ms: int


class Timeline(_Frozen):
    """Baseline then window, ``BUCKETS`` buckets of ``bucket_ms``, from ``start_ms``."""

    start_ms: int
    window_start_ms: int
    end_ms: int
    bucket_ms: int
    series: tuple[ServiceSeries, ...]
    marks: tuple[Mark, ...]


def _ms(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


LOG_TOOLS = frozenset({"query_logs", "compare_windows", "onset_timeline"})
"""Tools whose records are log lines or log statistics: their times are the picture's own
series and onsets, not changes to mark."""


def marked(cited: Iterable[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """``(evidence id, text)`` of the cited ``(tool, evidence id, text)`` that are no log rows."""
    return [(evidence_id, text) for tool, evidence_id, text in cited if tool not in LOG_TOOLS]


def timeline(logs: sqlite3.Connection, scope: Mapping[str, str | None] | None,
             cited: Iterable[tuple[str, str]]) -> Timeline | None:
    """The picture of a run's scope from the dataset's log index (None without a window).

    ``cited``: ``(evidence id, text)`` of the cited records other than log lines (table rows,
    runbook passages); each timestamp in them inside the picture becomes a change mark.
    """
    start, end = _ms((scope or {}).get("start")), _ms((scope or {}).get("end"))
    if start is None or end is None or end <= start:
        return None
    first = start - (end - start)
    bucket = max(1, -(-(end - first) // BUCKETS))
    rows = logs.execute(
        "SELECT service, (ts_ms - ?) / ?, count(*), sum(level IN ('ERROR', 'FATAL')) FROM events "
        "WHERE ts_ms >= ? AND ts_ms < ? GROUP BY 1, 2", (first, bucket, first, end)).fetchall()
    per: dict[str, tuple[list[int], list[int]]] = {}
    for service, index, count, errors in rows:
        counts, errs = per.setdefault(service, ([0] * BUCKETS, [0] * BUCKETS))
        counts[min(int(index), BUCKETS - 1)] += int(count)
        errs[min(int(index), BUCKETS - 1)] += int(errors or 0)
    named = (scope or {}).get("service")
    ranked = sorted(per, key=lambda s: (s != named, -sum(per[s][1]), -sum(per[s][0]), s))[:MAX_SERVICES]
    marks = [Mark(kind="onset", label=f"{service} first error", ts_ms=int(ts))
             for service, ts in logs.execute(
                 "SELECT service, min(ts_ms) FROM events WHERE ts_ms >= ? AND ts_ms < ? AND level IN "
                 f"({', '.join('?' * len(_ERRORS))}) GROUP BY service ORDER BY 2, 1",
                 (start, end, *_ERRORS)).fetchall() if service in ranked]
    for evidence_id, text in cited:
        for stamp in dict.fromkeys(_STAMP.findall(text)):
            ts = _ms(stamp)
            if ts is not None and first <= ts < end:
                marks.append(Mark(kind="change", label=f"{evidence_id} change", ts_ms=ts))
    return Timeline(start_ms=first, window_start_ms=start, end_ms=end, bucket_ms=bucket,
                    series=tuple(ServiceSeries(service=s, counts=tuple(per[s][0]),
                                               errors=tuple(per[s][1])) for s in ranked),
                    marks=tuple(sorted(set(marks), key=lambda m: (m.ts_ms, m.kind, m.label))))
