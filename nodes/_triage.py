"""The triage digest of an abstention: ranked suspects, from this run's verified facts only.

What an on-call engineer reads first when no root cause is published (docs/design.md §16.2):
the earliest anomalies with their onset and counts, the changes before them, the metrics that
moved — each with its evidence id. Built from canonical records (READY, EVIDENCE_FOUND) and
from their structured values only: a suspect's words are a service name, a computed pattern,
a key, an id, a number or a time; a flagged fact keeps its warning and lends no words.

Records of the statistics tools (rows with ``service``, ``pattern``, ``first_seen``, ``count``
…) rank before the plain tools' records: their numbers were computed over the whole window.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord

PLAIN_TOOLS = frozenset({"query_logs", "query_mysql", "lookup_knowledge"})
"""The precise-follow-up tools; any other evidence tool's rows are computed statistics."""
ODD = 3
"""Events below which an anomaly is an odd line: it ranks after the failures of its level (one
known-noise delivery report before an outage is not the first suspect)."""
SHOWN = 5
"""Suspects listed in the report; the rest are counted ("and N more")."""
_CHANGE_TABLE = re.compile(r"change|config|deploy|release|job|cert|migration|flag|rollout",
                           re.IGNORECASE)
_TABLE = re.compile(r"\bFROM\s+\"?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+@=/-]{0,63}")
_TIME_KEY = re.compile(r"(^ts$|_at$|^changed_at$|^started|time$|^first_seen$)")


def _values(fact: Fact) -> Mapping[str, Any]:
    row = fact.data.get("row")
    return row if isinstance(row, dict) else fact.data


def _token(value: object) -> str | None:
    text = "" if value is None or isinstance(value, bool | dict | list) else str(value)
    return text if _TOKEN.fullmatch(text) else None


def _anomaly(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    data = _values(fact)
    count = data.get("count", data.get("window_count"))  # query_logs / compare_windows, onset
    if "first_seen" not in data or count is None:
        return None
    service = _token(data.get("service") or record.scope.get("service"))
    pattern = data.get("pattern") or data.get("template")
    shown = None if fact.flags or not isinstance(pattern, str) else pattern[:160]
    return {"kind": "anomaly", "evidence_id": fact.evidence_id, "service": service,
            "onset": _token(data.get("first_seen")), "count": count, "level": _level(data),
            "pattern": shown, "computed": record.tool not in PLAIN_TOOLS,
            "where": None if fact.flags or shown is None else _where(shown, data.get("example"))}


_LOCATING = (re.compile(r"\b(?:host|node|pod|instance|peer|addr|server)=([A-Za-z0-9][\w.:-]{0,62})"),
             re.compile(r"HTTP/\d(?:\.\d)?\"?\s+([1-5]\d\d)\b|\bstatus[=: ]+([1-5]\d\d)\b"),
             re.compile(r"\b((?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?)\b"))
"""The values that locate a failure, in order of preference — a host, node or pod, an HTTP
status, an IP — as an example line states them and its pattern masks them."""


def _where(pattern: str, example: object) -> str | None:
    """The first locating value the example states where the pattern masked one (one token)."""
    if not isinstance(example, str) or not re.search(r"<(?:ip|n|id|hex|str)>", pattern):
        return None
    for locating in _LOCATING:
        found = locating.search(example)
        value = next((g for g in found.groups() if g), None) if found else None
        if value and value not in pattern:
            return _token(value)
    return None


_QUIET = frozenset({"INFO", "DEBUG", "TRACE", "NOTICE"})
_SOFT = frozenset({"WARN", "WARNING"})


def _level(data: Mapping[str, Any]) -> str | None:
    level = _token(data.get("level"))
    return level.upper() if level else None


def _tier(suspect: Mapping[str, Any]) -> int:
    """0 an error or worse, 1 a warning (or a query_logs error pattern, WARN and up), 2 info."""
    level = suspect.get("level")
    return 2 if level in _QUIET else 1 if level is None or level in _SOFT else 0


def _change(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    table = _TABLE.search(str(record.scope.get("sql", "")))
    computed = fact.kind == "change" and isinstance(fact.data.get("row"), dict)  # recent_changes
    if not computed and (not table or not _CHANGE_TABLE.search(table.group(1))
                         or fact.kind != "row"):
        return None
    row = _values(fact)
    when = _token(fact.data.get("time")) if computed else next(
        (_token(v) for k, v in row.items() if _TIME_KEY.search(str(k).lower()) and _token(v)),
        None)
    fields = [f"{k}={t}" for k, v in row.items() if (t := _token(v)) is not None
              and not _TIME_KEY.search(str(k).lower())][:5]
    return {"kind": "change", "evidence_id": fact.evidence_id,
            "service": _token(fact.data.get("service") if computed else None)
            or _token(row.get("service") or row.get("component")), "onset": when,
            "summary": ", ".join(fields), "computed": record.tool not in PLAIN_TOOLS}


_METRIC_FIELDS = ("metric", "direction", "baseline_median", "window_median", "peak", "z")


def _metric(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    data = _values(fact)
    if record.tool in PLAIN_TOOLS or "metric" not in data:
        return None
    if fact.kind == "metric_series" and not data.get("first_out"):
        return None  # a query_metrics series that stayed in its baseline moved nothing
    # What moved and by how much first; the table's bookkeeping columns last.
    keys = [k for k in _METRIC_FIELDS if k in data] + [k for k in data if k not in _METRIC_FIELDS]
    fields = [f"{k}={t}" for k in keys if (t := _token(data[k])) is not None][:6]
    return {"kind": "metric", "evidence_id": fact.evidence_id,
            "service": _token(data.get("entity") or data.get("service")),
            "onset": _token(data.get("first_out") or data.get("first_seen")),
            "summary": ", ".join(fields), "computed": True, "share_out": _share_out(data)}


def _share_out(data: Mapping[str, Any]) -> float:
    """The share of the window's samples that left the baseline (metric_shifts' counts).

    A replica's lag that stays up explains more than a queue's one-minute spike: both are
    shifts, the one out for more of the window ranks first.
    """
    try:
        return round(float(data["samples_out"]) / float(data["window_samples"]), 2)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0.0


def suspects(records: Sequence[ToolRecord]) -> list[dict[str, Any]]:
    """Every suspect of the run, ranked, each with its evidence id.

    Anomalies (errors, then warnings, then the rest; in each, odd lines of fewer than ``ODD``
    events after the others, then earliest first), changes before
    the earliest failure's onset (latest first), moved metrics (out for the largest share of
    the window first, then the earliest); within each, computed statistics before plain rows.
    The best change and the best metric (two metrics where there is no change) are moved up
    into the last places of the ``SHOWN`` when the anomalies would fill them. A busy system's
    new INFO lines start earlier than any failure: they rank after the failures and do not
    move the onset changes must precede.
    """
    anomalies, changes, metrics = [], [], []
    for record in records:
        if record.invocation_status is not InvocationStatus.READY \
                or record.evidence_status is not EvidenceStatus.EVIDENCE_FOUND:
            continue
        for fact in record.facts:
            if (a := _anomaly(record, fact)) is not None:
                anomalies.append(a)
            elif (c := _change(record, fact)) is not None:
                changes.append(c)
            elif (m := _metric(record, fact)) is not None:
                metrics.append(m)
    named = _named(anomalies)
    anomalies.sort(key=lambda s: (not s["computed"], _tier(s), _int(s["count"]) < ODD,
                                  _ACCESS.search(s["pattern"] or "") is not None,
                                  s["service"] not in named, s["onset"] or "~",
                                  -_int(s["count"])))
    failing = [a["onset"] for a in anomalies if a["onset"] and _tier(a) < 2]
    onset = min(failing or [a["onset"] for a in anomalies if a["onset"]], default=None)
    changes = [c for c in changes if onset is None or (c["onset"] or "") <= onset]
    changes.sort(key=lambda s: (not s["computed"], _desc(s["onset"])))
    metrics.sort(key=lambda s: (-s["share_out"], s["onset"] or "~"))
    changes = _distinct(changes, ("summary",))
    ranked = _distinct(anomalies, ("service", "pattern")) + changes + metrics
    # The shown few hold the best change and the best metric (two metrics where there is no
    # change): a long list of log anomalies would otherwise push both off the page (a replica's
    # lag, a node's memory, seen only in metrics, is often the story).
    kept = changes[:1] + metrics[:1 if changes else 2]
    for slot, best in enumerate(kept, SHOWN - len(kept)):
        if best not in ranked[:SHOWN]:
            ranked.remove(best)
            ranked.insert(slot, best)
    return [{"rank": n, **s} for n, s in enumerate(ranked, 1)]


_ACCESS = re.compile(r"(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* HTTP/")
"""An access line: a proxy reporting what its upstreams answered, after the upstreams."""


def _named(anomalies: Sequence[Mapping[str, Any]]) -> set[str]:
    """The anomalies' services that another service's failure pattern names in so many words.

    The direction of a dependency: a caller's "ledger post failed: …" points at ``ledger``,
    the component it waits on, which ranks before the caller at the same tier.
    """
    out = set()
    for a in anomalies:
        for b in anomalies:
            sb = b["service"]
            if sb and sb != a["service"] and _tier(a) < 2 and re.search(
                    rf"(?<![\w-]){re.escape(sb)}(?![\w-])", a["pattern"] or "", re.I):
                out.add(sb)
    return out


def _distinct(ranked: list[dict[str, Any]], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The first (best-ranked) suspect of each fact shown twice.

    A pattern that both ``onset_timeline`` and ``query_logs`` showed, a change that both
    ``recent_changes`` and ``query_mysql`` returned, is one suspect: the computed row (ranked
    first) is kept.
    """
    seen: set[tuple[Any, ...]] = set()
    out = []
    for suspect in ranked:
        key = tuple(suspect.get(f) for f in fields)
        if None in key or key not in seen:
            out.append(suspect)
            seen.add(key)
    return out


def _int(value: Any) -> int:  # Any: whatever int() takes; anything else counts 0
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _desc(moment: str | None) -> tuple[int, ...]:
    return tuple(-ord(c) for c in (moment or ""))


def digest_lines(ranked: Sequence[Mapping[str, Any]]) -> list[str]:
    """The report's "Suspects" block: the top few, then "and N more"."""
    lines = []
    for s in ranked[:SHOWN]:
        where = s.get("service") or "?"
        if s["kind"] == "anomaly":
            what = f"'{s['pattern']}'" if s.get("pattern") else "a flagged pattern"
            what += f" at {s['where']}" if s.get("where") else ""
            lines.append(f"{s['rank']}. {where}: {s.get('count')} × {what}, onset "
                         f"{s.get('onset')} [{s['evidence_id']}]")
        else:
            label = "change" if s["kind"] == "change" else "metric moved"
            lines.append(f"{s['rank']}. {label} on {where} at {s.get('onset')}: "
                         f"{s.get('summary')} [{s['evidence_id']}]")
    if len(ranked) > SHOWN:
        lines.append(f"… and {len(ranked) - SHOWN} more")
    return lines
