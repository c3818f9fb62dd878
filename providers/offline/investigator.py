"""The offline agent's next move, decided from data only.

Generic SRE practice: logs of the window → the onset timeline (localize: which component failed
first, docs/design.md §16.3) and the changes before it → where a Prometheus is configured, the
service's own live metrics → the dominant error pattern → runbooks matching it → when none
does, the class look-back (every change of the two days before, which metrics moved: what the
failure-class rules read) → time-stamped operational rows (changes, deploys, jobs, metrics…)
near the window.

Everything it decides on is data: the incident scope (the values its instructions were
rendered with), the tables listed in the bound ``query_mysql`` spec, and the JSON bodies of
the observations. It knows nothing about any particular incident.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import keys_to_look_up
from diagnosis_harness.providers.offline.conversation import Conversation
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import bounded_window, look_back
from diagnosis_harness.providers.offline.locks import holder_step
from diagnosis_harness.providers.offline.rules import (
    evidence,
    explaining_change,
    localized,
    run_rules,
    runbook_change,
)
from diagnosis_harness.providers.offline.text import CHANGE_WORDS, fmt, is_time_column, terms, utc

LOOKAROUND = timedelta(minutes=60)
"""How far before the window the investigator looks for changes that could explain it."""


def _gain(inv: Investigation, call_id: str, focus: set[str]) -> str:
    items = inv.obs.get(call_id, {}).get("items") or []
    if not items:
        return "NO_GAIN"
    if not focus:
        return "GAINED"
    return "GAINED" if terms(json.dumps(items, ensure_ascii=False)) & focus else "NO_GAIN"


def _ranked_tables(inv: Investigation, focus: set[str]) -> list[tuple[str, list[str]]]:
    scored = []
    for name, columns in inv.tables.items():
        if not any(is_time_column(c) for c in columns):
            continue
        words = terms(name.replace("_", " ") + " " + " ".join(columns).replace("_", " "))
        score = 2 * len(words & focus) + sum(w in name.lower() for w in CHANGE_WORDS)
        scored.append((score, name, columns))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(name, cols) for _, name, cols in scored]


def _sql(table: str, columns: list[str], start: str, end: str, merchant: str) -> str:
    """Rows of the look-around; only the merchant asked about where the table has merchants.

    The merchant is the router's value, already checked to be one token without quotes
    (nodes/route.py); the SQL guard checks the statement again.
    """
    lo, hi = fmt(utc(start) - LOOKAROUND), fmt(utc(end))
    cond = " OR ".join(f"{c} BETWEEN '{lo}' AND '{hi}'" for c in columns if is_time_column(c))
    merchant_col = next((c for c in columns if c.lower() in ("merchant_id", "merchant")), None)
    if merchant and merchant_col and re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", merchant):
        cond = f"({cond}) AND {merchant_col} = '{merchant}'"
    return f"SELECT * FROM {table} WHERE {cond} LIMIT 20"


def _localizing_step(inv: Investigation) -> dict[str, Any] | None:
    """Localize, then explain (docs/design.md §16.3): the onsets, then changes before the first."""
    if len(inv.calls) >= inv.scope.max_calls - 2 or not inv.scope.window_given \
            or not bounded_window(inv.start, inv.end):
        return None
    if not inv.called("onset_timeline"):
        # Not scoped to the asked service: its failure may be another component's symptom.
        return {"tool": "onset_timeline", "args": {"start": look_back(inv.start, inv.end), "end": inv.end}}
    found = localized(inv)
    if found is None:
        # Lock timeouts, or a pool drained by waiting sessions: who holds the lock?
        return holder_step(inv, look_back(inv.start, inv.end), inv.end)
    if not inv.called("recent_changes", lookback_minutes=None):
        return {"tool": "recent_changes", "args": {"before": found.onset,
                                                   "services": [found.service]}}
    if found.warning_only and explaining_change(inv, found) is None \
            and not inv.called("metric_shifts"):
        # Warnings only, no change behind them: did the component's own resources give out?
        return {"tool": "metric_shifts", "args": {"start": look_back(inv.start, inv.end),
                                                  "end": inv.end}}
    return None


_GENERIC = frozenset({"service", "svc", "api", "app", "server", "backend", "frontend", "prod"})
MAX_METRICS = 3
"""Metric names one ``query_metrics`` call of the offline investigator reads, at most."""


def _metrics_step(inv: Investigation) -> dict[str, Any] | None:
    """One range query of the metrics that name the asked service (docs/design.md §17).

    Only where the run has a Prometheus and the question names a service: the advertised
    metrics whose name has a word of the service's name (``payment_errors`` for
    ``payment-service``), up to :data:`MAX_METRICS`, over the question's window. Its series
    are facts of the report and suspects of the digest; no conclusion rests on them alone.
    """
    if inv.metrics is None or not inv.scope.service or inv.called("query_metrics") \
            or len(inv.calls) >= inv.scope.max_calls - 2:
        return None
    words = {w for w in re.split(r"[^a-z0-9]+", inv.scope.service.lower())
             if len(w) >= 3 and w not in _GENERIC}
    names = [n for n in inv.metrics if words & set(re.split(r"[_:]+", n.lower()))]
    if not names:
        return None
    promql = "{__name__=~\"" + "|".join(sorted(names)[:MAX_METRICS]) + "\"}"
    return {"tool": "query_metrics", "args": {"promql": promql, "start": inv.start,
                                              "end": inv.end}}


def _triage_metrics_step(inv: Investigation, final: Callable[[], dict[str, Any]]
                         ) -> dict[str, Any] | None:
    """Before abstaining: which metrics moved, for the triage digest (docs/design.md §16.2).

    Only when the draft concludes nothing, the question gives a bounded window, the run has
    operational tables and one call of the budget is left. Its rows conclude nothing here; they
    are the suspects an on-call engineer reads first when the logs alone do not say (a
    replica's lag, a node's memory).
    """
    if inv.called("metric_shifts") or not inv.tables or not inv.scope.window_given \
            or not bounded_window(inv.start, inv.end) \
            or len(inv.calls) >= inv.scope.max_calls - 1 or final().get("conclusion") is not None:
        return None  # (the draft last: it is the one costly check, asked only when due)
    return {"tool": "metric_shifts", "args": {"start": look_back(inv.start, inv.end),
                                              "end": inv.end}}


def _localizable(inv: Investigation) -> bool:
    """Whether the question gives a window precise enough to look for what changed before it."""
    return inv.scope.window_given and bounded_window(inv.start, inv.end)


def _final(inv: Investigation, symptom: dict[str, Any] | None,
           runbook: list[dict[str, Any]]) -> dict[str, Any]:
    """The draft of the first rule of the registry that concludes, else one concluding nothing."""
    return run_rules(inv, symptom, runbook)


def next_step(conversation: Conversation, tool_specs: Sequence[Any]) -> dict[str, Any]:
    """The agent's next move: ``{"tool": name, "args": {...}}`` or ``{"draft": {...}}``."""
    inv = Investigation(conversation, tool_specs)
    symptom = inv.symptom()
    focus = terms(str(symptom.get("template", ""))) if symptom else set()
    runbook = inv.runbook(symptom) if symptom else []
    focus_all = focus | terms(" ".join(str(p.get("text", "")) for p in runbook))
    if inv.stop_required or len(inv.calls) >= inv.scope.max_calls or not inv.start:
        return {"draft": _final(inv, symptom, runbook)}
    step: dict[str, Any] | None = None
    if not inv.called("query_logs"):
        # No service: a system-wide question reads every service's events of the window.
        service = {"service": inv.scope.service} if inv.scope.service else {}
        step = {"tool": "query_logs", "args": {**service, "start": inv.start, "end": inv.end}}
    elif (localizing := _localizing_step(inv)) is not None:
        step = localizing
    elif (metrics := _metrics_step(inv)) is not None:
        step = metrics
    elif symptom and not inv.called("lookup_knowledge"):
        query = re.sub(r"<[a-z]+>|[^A-Za-z0-9_ .-]", " ", str(symptom.get("template", "")))
        step = {"tool": "lookup_knowledge", "args": {"query": " ".join(query.split())}}
    elif not runbook and _localizable(inv) and (
            classes := evidence.step(inv, look_back(inv.start, inv.end), reserve=2)) is not None:
        # No runbook speaks of the symptom: the failure-class rules are what may conclude, and
        # they read the changes of hours before and which metrics moved (docs/design.md §16).
        step = classes
    elif not runbook and (triage := _triage_metrics_step(
            inv, lambda: _final(inv, symptom, runbook))):
        # No runbook speaks of the symptom, so no row of a table can conclude (§16.2): which
        # metrics moved comes before raw rows, or five tables' rows use the budget up first
        # (measured on a blind world: a host's cpu_steal_pct, the answer, was never asked for).
        step = triage
    else:
        for table, cols in _ranked_tables(inv, focus_all)[:5]:
            sql = _sql(table, cols, inv.start, inv.end, inv.scope.merchant)
            if not inv.called("query_mysql", sql=sql) and len(inv.calls) < inv.scope.max_calls - 1:
                step = {"tool": "query_mysql", "args": {"sql": sql}}
                break
    if step is None and symptom and runbook and len(inv.calls) < inv.scope.max_calls - 1:
        # A change on the affected service, before the onset, that shares fewer than two words of its own
        # with the symptom: does a runbook name its key? (One lookup per key, bounded.)
        key = next((k for k in keys_to_look_up(inv, symptom, runbook)[:2]
                    if not inv.called("lookup_knowledge", query=k)), None)
        if key is not None:
            step = {"tool": "lookup_knowledge", "args": {"query": key}}
    if step is None and symptom and runbook:
        # A runbook-named change about to conclude: did a dependency of the service fail first?
        step = runbook_change.step(inv, symptom, runbook)
    if step is None:
        final = _final(inv, symptom, runbook)
        step = _triage_metrics_step(inv, lambda: final)
        if step is None and final.get("conclusion") is None and _localizable(inv):
            # Nothing concludes yet: what the failure-class rules read, with what is left.
            step = evidence.step(inv, look_back(inv.start, inv.end))
        if step is None:
            return {"draft": final}
    if inv.calls:
        prev = inv.calls[-1].get("id") or ""
        gain = _gain(inv, prev, focus_all)
        step["args"]["previous_observation"] = {
            "tool_call_id": prev, "gain": gain,
            "note": "found items about the symptom" if gain == "GAINED" else "nothing new"}
    return step
