"""The failure as the cited evidence computes it: the report's second line.

The report's first line is the root cause the judge accepted, as the draft wrote it. This line
follows it and is labelled as computed: the component, its failure mode (the computed log
pattern, count and onset), the change behind it (its id, service, time and key/values — from
``recent_changes`` or a change-log row of ``query_mysql`` alike) and the runbook that describes
it, each taken from a fact the shown claims cite, never from the model's prose (docs/design.md
§16.2). It is the triage digest (``_triage.suspects``) run over the cited facts only, so the
report and a fallback rank the same way. A flagged fact lends no free text (a row lends its
one-token values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis_harness.control.contracts import Claim, Fact, ToolRecord
from diagnosis_harness.nodes._triage import _TIME_KEY, _tier, _token, _values, suspects

_FRACTION = re.compile(r"(\d{2}:\d{2}:\d{2})\.\d+")


def to_second(text: str) -> str:
    """Times to the second, zone kept: ``09:31:10.030Z`` → ``09:31:10Z``."""
    return _FRACTION.sub(r"\1", text)


def _change_phrase(row: Mapping[str, Any]) -> str:
    ident = next(((k, t) for k, v in row.items() if str(k).lower().endswith("_id")
                  and (t := _token(v))), None)
    label = f"{ident[0][:-3].replace('_', ' ')} {ident[1]}" if ident else "a change"
    service = _token(row.get("service") or row.get("component"))
    when = next((t for k, v in row.items() if _TIME_KEY.search(str(k).lower())
                 and (t := _token(v))), None)
    skip = {ident[0] if ident else "", "service", "component"}
    details = [f"{str(k).replace('_', ' ')} {t}" for k, v in row.items()
               if k not in skip and not _TIME_KEY.search(str(k).lower())
               and not str(k).lower().endswith(("_by", "_at")) and (t := _token(v))][:4]
    phrase = label + (f" on {service}" if service else "") + (f" at {to_second(when)}"
                                                               if when else "")
    return phrase + (f" ({', '.join(details)})" if details else "")


def _cited_records(claims: Sequence[Claim], index: Mapping[str, tuple[ToolRecord, Fact]]
                   ) -> list[ToolRecord]:
    """The records the claims cite, each holding only its cited facts (in record order)."""
    cited = {e for c in claims for e in c.evidence_ids}
    by_call: dict[str, ToolRecord] = {}
    for eid, (record, _) in index.items():  # the index's order: deterministic
        if eid in cited:
            by_call.setdefault(record.tool_call_id, record)
    return [r.model_copy(update={"facts": [f for f in r.facts if f.evidence_id in cited]})
            for r in by_call.values()]


def failure_line(claims: Sequence[Claim], index: Mapping[str, tuple[ToolRecord, Fact]]
                 ) -> str | None:
    """One sentence: component, failure mode, onset, the change and runbook behind it.

    None when the claims cite no anomaly, metric or change: there is nothing to compute.
    """
    records = _cited_records(claims, index)
    ranked = suspects(records)
    anomaly = next((s for s in ranked if s["kind"] == "anomaly"), None)
    metric = next((s for s in ranked if s["kind"] == "metric"), None)
    # A change is its component's line, or rides on the line of the component it changed.
    change = next((s for s in ranked if s["kind"] == "change"), None) \
        or next((s["after_change"] for s in ranked if s.get("after_change")), None)
    parts = []
    if anomaly is not None:
        what = f"'{anomaly['pattern']}'" if anomaly.get("pattern") else "a flagged pattern"
        verb = "logged" if _tier(anomaly) == 2 else "failed with"
        parts.append(f"{anomaly.get('service') or 'the service'} {verb} {what} "
                     f"({anomaly.get('count')} events from {to_second(anomaly.get('onset') or '?')})")
    elif metric is not None:
        parts.append(f"{metric.get('service') or 'a metric'} moved from "
                     f"{to_second(metric.get('onset') or '?')} ({metric.get('summary')})")
    if change is not None:
        row = _values(index[change["evidence_id"]][1])
        parts.append(("after " if parts else "") + _change_phrase(row))
    doc = next((t for r in records for f in r.facts if f.kind == "passage"
                and (t := _token(f.data.get("doc_id")))), None)
    if not parts:
        return None
    return ", ".join(parts) + (f", as runbook {doc} describes" if doc else "") + "."
