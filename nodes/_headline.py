"""The root cause as one sentence a person reads at 3 a.m., from verified structured values.

Not ``db-connection-pool-exhaustion: change_id=CHG-2041, service=…`` (a runbook id and a raw
row), but: the component, its failure mode (the computed log pattern), the onset, and the change
or dependency behind it — each taken from a fact the draft cites, never from the model's prose
(docs/design.md §16.2). A flagged fact lends no free text (a row lends its one-token
values). A draft that cites no log pattern keeps
its own root cause line (it passed both guards).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from diagnosis_harness.control.contracts import Conclusion, Fact, ToolRecord
from diagnosis_harness.nodes._triage import _CHANGE_TABLE, _TABLE, _TIME_KEY, _token

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


def headline(conclusion: Conclusion, index: Mapping[str, tuple[ToolRecord, Fact]]) -> str:
    """One sentence: component, failure mode, onset, and the change or runbook behind it."""
    cited = [index[e] for c in conclusion.claims for e in c.evidence_ids if e in index]
    pattern = next(((r, f) for r, f in cited if f.kind == "error_pattern" and not f.flags), None)
    if pattern is None:
        return conclusion.root_cause
    record, fact = pattern
    service = _token(fact.data.get("service") or record.scope.get("service")) or "the service"
    onset = to_second(str(fact.data.get("first_seen", "")))
    sentence = (f"{service} failed with '{fact.data.get('template')}' "
                f"({fact.data.get('count')} events from {onset})")
    # A flagged row may still name its change: only one-token values are quoted from it.
    change = next((f for r, f in cited if f.kind == "row"
                   and (t := _TABLE.search(str(r.scope.get("sql", ""))))
                   and _CHANGE_TABLE.search(t.group(1))), None)
    row = change.data.get("row") if change is not None else None
    if isinstance(row, dict):
        sentence += f", after {_change_phrase(row)}"
    doc = next((_token(f.data.get("doc_id")) for _, f in cited if f.kind == "passage"), None)
    return sentence + (f", as runbook {doc} describes" if doc else "") + "."
