"""What the failure-class rules read: failures, changes and metric shifts, as plain rows.

Not a rule: the helpers the class rules share (docs/design.md §16, "The registry"). The
changes are those of the class look-back (:data:`LOOKBACK_MINUTES` before the window's end, of
every service: a cache's limit, a job on a database, a certificate of a callee), asked once
(:func:`step`); the failures are the onset timeline's rows at a failure level and the asked
service's own error patterns; the shifts are ``metric_shifts``' rows.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    FAILURE_LEVELS,
    MIN_EVENTS,
    flagged,
    level_of,
    moment,
)
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules.lexicon import CLOCK, HOST, SKEWED

LOOKBACK_MINUTES = 2880
"""How far before the window's end the class rules look for changes: a disk fills for hours,
a job's schedule moves the day before."""


def step(inv: Investigation, start: str, reserve: int = 0) -> dict[str, Any] | None:
    """The class look-back's ``recent_changes``, then ``metric_shifts`` from ``start``, once.

    A class's own look back comes first: the time daemons' logs over the hour before a failure
    saying clocks disagree (:func:`_clock_step`). Only while ``reserve`` calls of the budget
    are left after it.
    """
    if not inv.end or len(inv.calls) >= inv.scope.max_calls - reserve:
        return None
    def bound(tool: str) -> bool:  # a tool the run does not bind is never asked for
        return not inv.tools or tool in inv.tools

    if bound("query_logs") and (looked := _clock_step(inv)) is not None:
        return looked
    if bound("recent_changes") and not inv.called("recent_changes",
                                                  lookback_minutes=LOOKBACK_MINUTES):
        return {"tool": "recent_changes", "args": {"before": inv.end,
                                                   "lookback_minutes": LOOKBACK_MINUTES}}
    if bound("metric_shifts") and not inv.called("metric_shifts") and inv.tables:
        return {"tool": "metric_shifts", "args": {"start": start, "end": inv.end}}
    return None


CLOCK_LEAD = timedelta(minutes=60)
"""How long before a skew failure a clock's line may say it went wrong: a clock drifts first."""


def skewed(inv: Investigation) -> tuple[dict[str, Any], str] | None:
    """The first failure saying two clocks disagree on the host it names, and that host."""
    for failure in failures(inv):
        host = HOST.search(str(failure.get("example", "")))
        if host is not None and SKEWED.search(text(failure)):
            return failure, host.group(1)
    return None


def clock_lines(inv: Investigation, failure: dict[str, Any],
                lead: timedelta = CLOCK_LEAD) -> list[dict[str, Any]]:
    """Lines about a clock (timeline onsets, time daemons' patterns) at most ``lead`` before."""
    onset = moment(failure["onset"])
    seen = [{**i, "onset": i.get("onset") or i.get("first_seen"),
             "pattern": i.get("pattern") or i.get("template")}
            for i in (*inv.items("onset_timeline"), *inv.items("query_logs"))
            if i.get("kind") in ("onset", "error_pattern") and not flagged(i)]
    return [i for i in seen if i.get("service") != failure["service"]
            and CLOCK.search(f"{i.get('service')} {i.get('pattern')}")
            and onset - lead <= moment(i.get("onset")) <= onset]


def _clock_step(inv: Investigation) -> dict[str, Any] | None:
    """``query_logs`` of a time daemon over the hour before a skew failure no clock line explains."""
    found = skewed(inv)
    if found is None or clock_lines(inv, found[0]):
        return None
    onset = moment(found[0]["onset"])
    start, end = (onset - CLOCK_LEAD).isoformat(), onset.isoformat()
    daemons = sorted(s for s in services(inv) if CLOCK.search(s))
    return next(({"tool": "query_logs", "args": {"service": s, "start": start, "end": end}}
                 for s in daemons if not inv.called("query_logs", service=s, start=start)), None)


def changes(inv: Investigation) -> list[dict[str, Any]]:
    """The changes the class rules weigh: the look-back's rows, then settings logs say changed.

    Each with its table, service, time and row; a service's own new INFO line stating a
    setting it reloaded is one too (:func:`logged`).
    """
    rows = [i for i in inv.items("recent_changes", lookback_minutes=LOOKBACK_MINUTES)
            if i.get("kind") == "change" and "warning" not in i and isinstance(i.get("row"), dict)
            and describe_row(i["row"])]
    return rows + logged(inv)


_RELOADED = re.compile(r"\bkey=([A-Za-z][\w.-]*) old=(\S+) new=(\S+)"
                       r"|\b([A-Za-z][\w-]*\.[\w.-]+)=(\S+) \(was (\S+)\)")
"""A log line stating a setting it changed: ``key=db.max_conns old=20 new=2``, ``x.y=5 (was 50)``."""


def logged(inv: Investigation) -> list[dict[str, Any]]:
    """Settings changed as a service's own new INFO lines say (a reload no change table holds)."""
    out = []
    for item in inv.items("onset_timeline"):
        found = _RELOADED.search(str(item.get("example", "")))
        if item.get("kind") != "onset" or item.get("level") != "INFO" or flagged(item) \
                or item.get("change") != "new" or found is None:
            continue
        key, old, new = found.group(1, 2, 3) if found.group(1) else found.group(4, 6, 5)
        out.append({"evidence_id": item["evidence_id"], "table": "log", "time": item.get("onset"),
                    "service": item.get("service"), "pattern": item.get("pattern"),
                    "row": {"key": key, "old": old.rstrip(",;"), "new": new.rstrip(",;)")}})
    return out


def began(change: dict[str, Any]) -> datetime:
    """When a change began: a rollout's start (``started_at``), not the time it finished."""
    starts = [moment(v) for k, v in change["row"].items() if str(k).lower().startswith("start")]
    return min([*starts, moment(change.get("time"))])


def failures(inv: Investigation) -> list[dict[str, Any]]:
    """Failure rows, earliest first: the timeline's, then the asked service's own patterns."""
    rows = [i for i in inv.items("onset_timeline") if i.get("kind") == "onset"
            and str(i.get("level", "")).upper() in FAILURE_LEVELS and not flagged(i)
            and int(i.get("window_count") or 0) >= MIN_EVENTS and i.get("change") != "gone"]
    asked = inv.items("query_logs", service=inv.scope.service)  # not another service's look
    for p in asked + (inv.items("query_logs", service=None) if inv.scope.service else []):
        if p.get("kind") == "error_pattern" and int(p.get("count") or 0) >= MIN_EVENTS \
                and inv.scope.service:
            rows.append({"evidence_id": p["evidence_id"], "service": inv.scope.service,
                         "pattern": p.get("template"), "example": p.get("example"),
                         "level": p.get("level"), "window_count": p.get("count"),
                         "onset": p.get("first_seen")})
    return sorted(rows, key=lambda r: moment(r.get("onset")))


def causes(inv: Investigation, says_: re.Pattern[str] | None = None) -> list[dict[str, Any]]:
    """The failures at a level that can be a cause, earliest first.

    With ``says_``, only those whose text matches it (a class's mechanism: a full disk, a lock
    timeout).
    """
    return [f for f in failures(inv) if level_of(f) in CAUSE_LEVELS
            and (says_ is None or says_.search(text(f)))]


def services(inv: Investigation) -> set[str]:
    """The services of the logs: those ``query_logs`` lists and those the timeline shows."""
    return set(inv.services) | {str(i.get("service")) for i in inv.items("onset_timeline")
                                if i.get("kind") == "onset"}


def shifts(inv: Investigation) -> list[dict[str, Any]]:
    """The metric shifts observed (``metric_shifts``), each a row of its entity and metric."""
    return [i for i in inv.items("metric_shifts") if i.get("kind") == "metric_shift"
            and "warning" not in i]


def text(row: dict[str, Any]) -> str:
    """A failure row's words: its pattern and its example line."""
    return f"{row.get('pattern', '')} {row.get('example', '')}"


def says(text_: str, name: str) -> bool:
    """Whether ``text_`` names the component ``name`` as a whole word."""
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text_, re.I) is not None


def between(stamp: object, lo: datetime, hi: datetime) -> bool:
    """Whether ``stamp`` lies in ``[lo, hi]`` (an unreadable stamp never does)."""
    when = moment(stamp)
    return when != datetime.max.replace(tzinfo=when.tzinfo) and lo <= when <= hi


def shifted(inv: Investigation, entity: str, metric: re.Pattern[str], lo: datetime,
            hi: datetime) -> dict[str, Any] | None:
    """The first shift of a ``metric`` of ``entity`` (or its instances) between lo and hi."""
    found = [s for s in shifts(inv) if metric.search(str(s.get("metric", "")))
             and (str(s.get("entity", "")).lower() == entity.lower()
                  or str(s.get("entity", "")).lower().startswith(f"{entity.lower()}-"))
             and between(s.get("first_out"), lo, hi + timedelta(minutes=2))]
    return min(found, key=lambda s: str(s.get("first_out"))) if found else None
