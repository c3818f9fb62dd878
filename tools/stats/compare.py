"""``compare_windows``: a log window against its baseline, per service (docs/design.md §16.1)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.results import Item, ToolArgs, ToolResult
from diagnosis_harness.tools.stats.common import (
    MAX_ROWS,
    MIN_EVENTS,
    MIN_RATIO,
    Anomaly,
    Counted,
    Key,
    Span,
    Timestamp,
    anomalies,
    examples,
    known_service,
    located,
    pattern_counts,
    pattern_texts,
    quiet_baseline,
    service_name,
    severity,
    silent_note,
    span_text,
    windows,
)
from diagnosis_harness.tools.timeutil import format_epoch_ms

MAX_SERVICES = 10
"""Per-service level rows shown (services with anomalies first, then the busiest)."""


class WindowArgs(ToolArgs):
    """A window, an optional baseline and an optional service (normalised)."""

    start: Timestamp
    end: Timestamp
    baseline_start: Timestamp | None = Field(
        default=None, description="Default: the window's length just before it.")
    baseline_end: Timestamp | None = None
    service: str | None = Field(
        default=None, max_length=100,
        description="One service (as it logs); default all.")

    @field_validator("service")
    @classmethod
    def _service(cls, value: str | None) -> str | None:
        return service_name(value)

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope, the default baseline spelled out (the gate compares it)."""
        window, baseline = windows(self.start, self.end, self.baseline_start,
                                   self.baseline_end, settings)
        b_lo, b_hi = span_text(baseline)
        return {"start": self.start, "end": self.end, "baseline_start": b_lo,
                "baseline_end": b_hi, "service": self.service}

    @classmethod
    def read(cls, settings: Settings, **fields: str | None) -> Windowed:
        """The tool's arguments checked, with their scope, the window and its baseline."""
        args = cls(**fields)  # type: ignore[arg-type]  # the tool's own keyword arguments
        scope = args.scope(settings)
        window, baseline = windows(args.start, args.end, args.baseline_start,
                                   args.baseline_end, settings)
        return Windowed(args, scope, window, baseline)


@dataclass(frozen=True)
class Windowed:
    """What a window tool (``compare_windows``, ``onset_timeline``) starts from."""

    args: WindowArgs
    scope: dict[str, Any]
    window: Span
    baseline: Span

    def counts(self, backends: Backends) -> tuple[dict[Key, Counted], dict[Key, Counted]]:
        """The service checked, then each pattern's counts in the window and in its baseline.

        Call it under ``backends.lock``, with the queries that read on from these counts.
        """
        known_service(backends, self.args.service)
        return (pattern_counts(backends, self.window, self.args.service),
                pattern_counts(backends, self.baseline, self.args.service))

    def baseline_onset(self, backends: Backends, before: dict[Key, Counted]) -> str | None:
        """Whether the default baseline itself holds the start of the trouble, as a note.

        The default baseline is the window's length just before it: when the failure began
        earlier, it is in the baseline, and the window shows it neither new nor risen. Its
        warnings and errors that are new or risen against the same length before it (of
        services that logged then) say so. None for a given baseline, or a quiet one. Call it
        under ``backends.lock``, after :meth:`counts`.
        """
        if self.args.baseline_start is not None:
            return None
        span = self.baseline
        earlier = Span(span.lo - (span.hi - span.lo + 1), span.lo - 1)
        prior = pattern_counts(backends, earlier, self.args.service)
        logged = {key[0] for key in prior}
        rising = [a for a in anomalies(before, prior, span, earlier)
                  if severity(a.key[2]) >= WARN_SEVERITY and a.key[0] in logged
                  and a.window.count >= MIN_EVENTS]
        if not rising:
            return None
        first = min(rising, key=lambda a: (a.window.first_ms, a.key))
        lo, hi = span_text(span)
        services = ", ".join(sorted({a.key[0] for a in rising})[:5])
        return (f"the default baseline {lo}..{hi} already holds new or risen warnings or errors "
                f"({services}; the first at {format_epoch_ms(first.window.first_ms)}): the "
                "trouble may have begun before the window, so those patterns can look unchanged "
                f"here; {quiet_baseline(first.window.first_ms, span)}")


def compare_windows(
    backends: Backends, settings: Settings, *, start: str, end: str,
    baseline_start: str | None = None, baseline_end: str | None = None,
    service: str | None = None,
) -> ToolResult:
    """Compare a log window with its baseline, per service (all services, or one)."""
    w = WindowArgs.read(settings, start=start, end=end, baseline_start=baseline_start,
                        baseline_end=baseline_end, service=service)
    scope = w.scope
    with backends.lock:
        now, before = w.counts(backends)
        early = w.baseline_onset(backends, before)
        found = ranked(anomalies(now, before, w.window, w.baseline))
        shown = found[:MAX_ROWS]
        texts = pattern_texts(backends, {a.key[1] for a in shown})
        sample = examples(backends, {a.window.first_id for a in shown})
        where = {a.key: located(backends, a.key, w.window, texts.get(a.key[1], "")) for a in shown}
    per_service = _levels(now, before, found)
    services = sorted(per_service, key=lambda s: (-per_service[s]["anomalies"],
                                                  -per_service[s]["window_events"], s))
    items = [_overview(scope, now, before, found, len(shown), services)]
    items += [_service_item(s, per_service[s]) for s in services[:MAX_SERVICES]]
    items += [pattern_item(a, texts, sample, extra={"located": where[a.key]}) for a in shown]
    if not now and not before:
        return ToolResult(scope=scope, note="no log events in the window or its baseline")
    return ToolResult(scope=scope, items=items,
                      truncated=len(found) > len(shown) or len(services) > MAX_SERVICES,
                      note=join_notes(silent_note(backends, found, before, w.baseline), early))


WARN_SEVERITY = severity("WARN")


def join_notes(*notes: str | None) -> str | None:
    """The notes that apply, as one."""
    return "; ".join(n for n in notes if n) or None


def ranked(found: list[Anomaly]) -> list[Anomaly]:
    """Most severe level first, then the most events, then the earliest; ties by key."""
    return sorted(found, key=lambda a: (-severity(a.key[2]), -a.window.count,
                                        a.window.first_ms, a.key))


def _levels(now: dict[Key, Counted], before: dict[Key, Counted],
            found: list[Anomaly]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def entry(service: str) -> dict[str, Any]:
        return out.setdefault(service, {"window": Counter(), "baseline": Counter(),
                                        "new": 0, "rose": 0, "anomalies": 0,
                                        "window_events": 0})

    for (service, _, level), c in now.items():
        entry(service)["window"][level] += c.count
        entry(service)["window_events"] += c.count
    for (service, _, level), c in before.items():
        entry(service)["baseline"][level] += c.count
    for a in found:
        e = entry(a.key[0])
        e[a.change] += 1
        e["anomalies"] += 1
    return out


def _by_level(counts: Counter[str]) -> dict[str, int]:
    return {lvl: counts[lvl] for lvl in sorted(counts, key=severity, reverse=True)}


def _overview(scope: dict[str, Any], now: dict[Key, Counted], before: dict[Key, Counted],
              found: list[Anomaly], shown: int, services: list[str]) -> Item:
    w = sum(c.count for c in now.values())
    b = sum(c.count for c in before.values())
    new = sum(a.change == "new" for a in found)
    data = {"start": scope["start"], "end": scope["end"],
            "baseline_start": scope["baseline_start"], "baseline_end": scope["baseline_end"],
            "service": scope["service"], "window_events": w, "baseline_events": b,
            "services": len(services), "new_patterns": new, "rose_patterns": len(found) - new,
            "shown_patterns": shown, "more_patterns": len(found) - shown,
            "more_services": max(len(services) - MAX_SERVICES, 0),
            "thresholds": {"rose_min_events": MIN_EVENTS, "rose_min_ratio": MIN_RATIO}}
    more = f" (and {len(found) - shown} more)" if len(found) > shown else ""
    text = (f"{scope['start']}..{scope['end']} vs {scope['baseline_start']}.."
            f"{scope['baseline_end']}: {w} events vs {b}; {new} new and {len(found) - new} "
            f"risen pattern(s){more}")
    return Item(kind="window_overview", text=text, data=data)


def _service_item(service: str, e: dict[str, Any]) -> Item:
    data = {"service": service, "window_events": e["window_events"],
            "baseline_events": sum(e["baseline"].values()),
            "window_by_level": _by_level(e["window"]),
            "baseline_by_level": _by_level(e["baseline"]),
            "new_patterns": e["new"], "rose_patterns": e["rose"]}
    levels = ", ".join(f"{k} {v}" for k, v in data["window_by_level"].items()) or "none"
    text = (f"{service}: {data['window_events']} events in the window ({levels}) vs "
            f"{data['baseline_events']} before; {e['new']} new, {e['rose']} risen pattern(s)")
    return Item(kind="service_levels", text=text, data=data)


def pattern_item(a: Anomaly, texts: dict[int, str], sample: dict[int, str],
                 kind: str = "window_pattern", extra: dict[str, Any] | None = None) -> Item:
    """The row of one anomaly (also the base of an onset row)."""
    service, pattern_id, level = a.key
    pattern = texts.get(pattern_id, "")
    first, last = format_epoch_ms(a.window.first_ms), format_epoch_ms(a.window.last_ms)
    data: dict[str, Any] = {
        "service": service, "pattern": pattern, "level": level, "change": a.change,
        "window_count": a.window.count, "baseline_count": a.baseline_count, "ratio": a.ratio,
        "ratio_from": a.ratio_from,
        "first_seen": first, "last_seen": last, "example_event_id": a.window.first_id,
        "example": sample.get(a.window.first_id, ""), **(extra or {})}
    how = "new" if a.change == "new" else f"rose x{a.ratio:g} = {a.ratio_from}"
    text = f"{service} {level} {how}: x{a.window.count} {first}..{last}: {pattern}"
    return Item(kind=kind, text=text, data=data)
