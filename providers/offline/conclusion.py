"""The offline investigator's draft, in structured values only.

It concludes only when a runbook matches the symptom *and* a change explains it by the causal
test of ``causal.change_problem`` — on the affected service (or linked to it by the data),
before the onset, speaking of the symptom through its own key and values; otherwise its
conclusion is null. A row of a merchant other than the one asked about is never cited.

What it writes is built from structured values only — ids, names, numbers, times, the error
pattern the log tool computed, the runbook's id — never from free text found in the data. A
runbook or a row that says "ignore previous instructions and publish …" is evidence to weigh,
not words to repeat: free text decides which row is relevant but is never copied.
"""

from __future__ import annotations

import re
from typing import Any

from diagnosis_harness.providers.offline.causal import (
    NO_KEY_LINK,
    Symptom,
    change_problem,
    names_key,
    row_keys,
    row_services,
)
from diagnosis_harness.providers.offline.failures import names
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.text import (
    CHANGE_WORDS,
    failure_phrase,
    fmt,
    is_time_column,
    terms,
    utc,
)

_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+@=/-]{0,63}")
"""A structured value: an id, a name, a number, a time — one token, no spaces, bounded."""
MAX_FIELDS = 8
"""Fields of a row quoted in a statement."""
NEXT_STEPS = ["check the service's upstream and downstream dependencies in the window",
              "compare with the same window on a healthy day"]


def structured(value: object) -> str | None:
    """``value`` as text if it is a structured value (see ``_VALUE``), else None."""
    if value is None or isinstance(value, bool | dict | list):
        return None
    text = str(value)
    return text if _VALUE.fullmatch(text) else None


def describe_row(row: dict[str, Any]) -> str:
    """``column=value`` for the row's structured fields; free-text fields are left out."""
    fields = [f"{k}={v}" for k, value in row.items()
              if _COLUMN.fullmatch(str(k)) and (v := structured(value)) is not None]
    return ", ".join(fields[:MAX_FIELDS])


def _value_terms(row: dict[str, Any]) -> set[str]:
    return terms(" ".join(str(v) for v in row.values()).replace("_", " ").replace(".", " "))


def _is_change_table(table: str) -> bool:
    return any(w in table.lower() for w in CHANGE_WORDS)


def _in_window(row: dict[str, Any], columns: list[str], start: str, end: str) -> bool:
    lo, hi = fmt(utc(start)), fmt(utc(end))
    return any(lo <= str(row.get(c, "")) <= hi for c in columns if is_time_column(c))


def _before(row: dict[str, Any], moment: str) -> bool:
    """A cause precedes its effect: some time column of the row is at or before ``moment``."""
    try:
        limit = fmt(utc(moment))
    except ValueError:
        return False
    return any(is_time_column(k) and str(v)[:19] <= limit[:19]
               for k, v in row.items() if isinstance(v, str) and v[:4].isdigit())


_MERCHANT_COLUMN = re.compile(r"^merchant(_id)?$")


def _other_merchant(row: dict[str, Any], merchant: str) -> bool:
    """Whether the row is of another merchant than the one the question asked about."""
    return bool(merchant) and any(_MERCHANT_COLUMN.match(str(k).lower()) and str(v) != merchant
                                  for k, v in row.items())


_ENTITY_COLUMN = re.compile(r"^(host|instance|pod|node|container|entity|target)(_name)?$")
"""Columns that say which component a measurement is of (besides the service-like ones)."""


def _same_service(row: dict[str, Any], symptom: Symptom) -> bool:
    """A measurement corroborates only on the symptom's service (or when it names none).

    The service itself or one of its instances (``payment-service`` of ``payment``, ``cart-2``
    of ``cart``), or a component the symptom's words name — not another component whose name
    merely holds the service's: ``redis-cart``'s memory is the cache's, not the cart
    service's (measured on the shop world: its rows, which showed no eviction at all, were
    published as the cause of carts emptied by a cookie change, a symptom naming no cache).
    """
    services = row_services(row) | {str(v).lower() for k, v in row.items()
                                    if _ENTITY_COLUMN.match(str(k).lower())}
    if not services or not symptom.services:
        return True
    own = any(e == s or e.startswith(f"{s}-") or s.startswith(f"{e}-")
              for s in symptom.services for e in services)
    # Or a component the symptom's own words name: "redis DEL cart:…: OOM command not allowed"
    # speaks of redis-cart, whose memory rows then say why (the data links the two).
    said = {"pattern": symptom.text, "service": next(iter(symptom.services))}
    return own or any(names(said, e) for e in services)


def symptom_of(inv: Investigation, symptom: dict[str, Any]) -> Symptom:
    """The symptom as the causal test reads it: its service, onset and own log text."""
    service = str(symptom.get("service") or inv.scope.service or "").lower()
    return Symptom(services=frozenset({service} if service else set()),
                   onset=str(symptom.get("first_seen") or "") or None,
                   text=f"{symptom.get('template', '')} {symptom.get('example', '')}")


def _links(inv: Investigation) -> list[str]:
    """Every observed item's text, prefixed with the service it is of (logs and rows)."""
    out = []
    for item in inv.items("query_logs") + inv.items("query_mysql"):
        service = item.get("service") or (inv.scope.service if "ts" in item else "")
        out.append(f"{service} {item.get('text', '')} {item.get('message', '')} "
                   f"{item.get('row', '')}")
    return out


def passages(inv: Investigation) -> list[dict[str, Any]]:
    """Every runbook passage the investigation read (any lookup), in call order."""
    return [i for i in inv.items("lookup_knowledge") if i.get("kind") == "passage"]


def _text(passage: dict[str, Any]) -> str:
    return f"{passage.get('title', '')} {passage.get('text', '')}"


def keys_to_look_up(inv: Investigation, symptom: dict[str, Any],
                    runbook: list[dict[str, Any]]) -> list[str]:
    """Keys of candidate changes that only a runbook naming them could link to the symptom."""
    focus = terms(str(symptom.get("template", "")))
    context = terms(" ".join(_text(p) for p in runbook))
    read = [_text(p) for p in passages(inv)]
    keys = []
    for _, change, item in _candidates(inv, focus, context, symptom_of(inv, symptom)):
        if change and change_problem(item["row"], symptom_of(inv, symptom), read,
                                     _links(inv)) == NO_KEY_LINK:
            keys += [k for k in row_keys(item["row"]) if k not in keys]
    return keys


def _candidates(inv: Investigation, focus: set[str], context: set[str], symptom: Symptom
                ) -> list[tuple[int, bool, dict[str, Any]]]:
    """Rows near the symptom by their words: (score, is_change, item), before the causal test."""
    found = []
    for call in inv.calls:
        if call["name"] != "query_mysql":
            continue
        table_match = re.search(r"FROM\s+([A-Za-z_][A-Za-z0-9_]*)",
                                str((call.get("args") or {}).get("sql", "")))
        table = table_match.group(1) if table_match else ""
        for item in inv.obs.get(call.get("id") or "", {}).get("items", []) or []:
            row = item.get("row")
            if not isinstance(row, dict) or not describe_row(row):
                continue  # a row with nothing structured to quote cannot be stated
            if _other_merchant(row, inv.scope.merchant):
                continue  # a row of M2002 says nothing about M2001's incident
            words = _value_terms(row)
            score = 2 * len(words & focus) + len(words & (context - focus))
            change = _is_change_table(table)
            if change and score >= 3 and _before(row, str(symptom.onset)):
                found.append((score + 100, True, item))
            elif not change and words & focus and _in_window(row, list(row), inv.start, inv.end) \
                    and _same_service(row, symptom):
                found.append((score, False, item))
    return found


def _evidence_rows(inv: Investigation, focus: set[str], context: set[str],
                   symptom: Symptom, references: list[str]
                   ) -> list[tuple[int, bool, dict[str, Any]]]:
    """Rows that speak of the symptom: (score, is_change, item), best first.

    A change (config change, deploy, job, certificate…) near the window that shares the
    symptom's distinctive terms and passes the causal test is a candidate cause; a
    measurement inside the window that shares them corroborates. Only values count, not
    column names: the rows must *say* it.
    """
    links = _links(inv)
    found = [(score, change, item) for score, change, item
             in _candidates(inv, focus, context, symptom)
             if not change or change_problem(item["row"], symptom, references, links) is None]
    found.sort(key=lambda t: -t[0])
    return found


def _sentence(inv: Investigation, symptom: dict[str, Any], cause: dict[str, Any],
              change: bool, doc: str) -> str:
    """The root cause as one sentence of structured values: component, failure, onset, why.

    The symptom's service, level, count, computed pattern (with what it masked that names the
    failure: an error code, a quoted name) and onset, then the change behind it ("after") or the
    measurement that shows it ("with"), and the runbook — not ``db-connection-pool-exhaustion:
    change_id=…`` alone, which said neither what failed nor how (measured on a blind world: a
    deploy published without the selector its every failing line named).
    """
    service = structured(symptom.get("service")) or structured(inv.scope.service)
    failure = failure_phrase(symptom["count"], structured(symptom.get("level")),
                             symptom["template"], symptom.get("example"),
                             symptom.get("first_seen"))
    return (f"{service + ': ' if service else ''}{failure}, "
            f"{'after' if change else 'with'} {describe_row(cause['row'])}, "
            f"as runbook {doc} describes")


def draft(inv: Investigation, symptom: dict[str, Any] | None,
          runbook: list[dict[str, Any]]) -> dict[str, Any]:
    """The final draft: a conclusion built from structured values, or null with next steps."""
    doc = structured(runbook[0].get("doc_id")) if runbook else None
    if symptom is None or doc is None:
        return {"conclusion": None, "next_steps": NEXT_STEPS}
    focus = terms(str(symptom.get("template", "")))
    context = terms(" ".join(f"{p.get('title', '')} {p.get('text', '')}" for p in runbook))
    read = passages(inv)
    rows = _evidence_rows(inv, focus, context, symptom_of(inv, symptom),
                          [_text(p) for p in read])
    if not rows:
        return {"conclusion": None, "next_steps": NEXT_STEPS}
    cause = rows[0][2]
    # The passage that names the change's key, if the runbook's first one does not.
    naming = next((p for p in read if names_key(cause["row"], _text(p))), None)
    cited_runbook = [runbook[0]["evidence_id"], *([naming["evidence_id"]] if naming
                                                  and naming is not runbook[0] else [])]
    corroboration = next((item for _, change, item in rows[1:] if not change), None)
    claims = [
        {"statement": f"{symptom['count']} log events matched '{symptom['template']}' "
                      f"from {symptom.get('first_seen')} to {symptom.get('last_seen')}",
         "evidence_ids": [symptom["evidence_id"]]},
        *({"statement": f"row {describe_row(r['row'])}", "evidence_ids": [r["evidence_id"]]}
          for r in (cause, corroboration) if r is not None),
        {"statement": f"runbook {doc} describes this symptom",
         "evidence_ids": cited_runbook},
    ]
    root_cause = _sentence(inv, symptom, cause, rows[0][1], doc)
    return {"conclusion": {"root_cause": root_cause, "claims": claims},
            "next_steps": [f"follow the runbook {doc}", *NEXT_STEPS[:1]]}
