"""The offline judge: checks claims word by word against the evidence they cite.

SUPPORTED only if every term and number of each claim appears in the evidence it cites, and
those of the root cause in the evidence cited at all — and, beyond the words, if every cited
change passes the causal test (``causal.change_problem``): on the affected service or linked
to it by a cited item, before the onset, speaking of the symptom through its own key/values.
Words of a row's computed or renamed columns (marked by ``query_mysql``), and of the data keys a
metric fact marks computed (``query_metrics``: labels the query wrote, numbers it made), were
written by the query and count for nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from diagnosis_harness.providers.offline.causal import Symptom, change_problem
from diagnosis_harness.providers.offline.text import CHANGE_WORDS, FRAMING, WORD, numbers, stem

_TABLE = re.compile(r"\bFROM\s+\"?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def judge(payload_text: str) -> dict[str, Any]:
    """The verdict on the judge prompt's ``payload`` value (root cause, claims, evidence)."""
    try:
        payload = json.loads(payload_text)
        evidence = {e["evidence_id"]: _words_of(e) for e in payload["evidence"]}
        claims = payload["claims"]
        root_cause = str(payload["root_cause"])
    except (ValueError, KeyError, TypeError):
        return {"verdict": "UNSUPPORTED", "reasons": ["the input could not be read"]}
    reasons = []
    for n, claim in enumerate(claims, 1):
        cited = " ".join(evidence.get(e, "") for e in claim.get("evidence_ids", []))
        missing = _unsupported(str(claim.get("statement", "")), cited)
        if missing:
            reasons.append(f"claim {n}: not in its cited evidence: {', '.join(sorted(missing))}")
    missing = _unsupported(root_cause, " ".join(evidence.values()))
    if missing:
        reasons.append(f"root cause: not in the cited evidence: {', '.join(sorted(missing))}")
    reasons += _causal_reasons(payload["evidence"])
    if reasons:
        return {"verdict": "UNSUPPORTED", "reasons": reasons}
    return {"verdict": "SUPPORTED", "reasons": ["every term and number of each claim appears "
                                                "in the evidence it cites"]}


def _words_of(item: dict[str, Any]) -> str:
    """The text an item's words may come from: all of it, except what a query wrote.

    A row marks the columns its query computed (``computed``: name and value) or renamed
    (``renamed``: the name); their words are the query's, so they support nothing.
    """
    data = item.get("data") or {}
    row = data.get("row") if isinstance(data, dict) else None
    computed, renamed = (set(data.get(k) or ()) if isinstance(data, dict) else set()
                         for k in ("computed", "renamed"))
    if not isinstance(row, dict) and computed and isinstance(data, dict):
        return _measured_words(data, computed)
    if not isinstance(row, dict) or not (computed or renamed):
        return f"{item.get('text', '')} {json.dumps(data)}"
    kept = {k: v for k, v in row.items() if k not in computed}
    return " ".join(f"{'' if k in renamed else k} {json.dumps(v)}" for k, v in kept.items())


def _measured_words(data: dict[str, Any], computed: set[str]) -> str:
    """The words of a fact that is no row (a metric series) and marks computed keys.

    ``computed`` names the keys of its data the query computed (labels no stored series has, the
    numbers of a query that is more than one selector); its text repeats them, so only the other
    keys are words.
    """
    return json.dumps({k: v for k, v in data.items() if k not in computed and k != "computed"})


def _unsupported(statement: str, evidence_text: str) -> set[str]:
    have_terms = {stem(w) for w in WORD.findall(evidence_text.replace("_", " ").replace(".", " "))
                  if not w[0].isdigit()}
    have_numbers = numbers(evidence_text)
    words = {stem(w) for w in WORD.findall(statement.replace("_", " ").replace(".", " "))
             if not w[0].isdigit() and w.lower() not in FRAMING and len(w) >= 2}
    missing = {w for w in words if w not in have_terms and w.lower() not in FRAMING}
    missing |= {n for n in numbers(statement) if n not in have_numbers}
    return missing


def _causal_reasons(items: list[dict[str, Any]]) -> list[str]:
    """Why a cited change does not explain the cited symptom (none: each does, or none cited)."""
    logs = [i for i in items if i.get("tool") == "query_logs"]
    if not logs:
        return []  # no symptom cited: the words check above is all there is to check
    services, onsets, texts = set(), [], []
    for item in logs:
        data = item.get("data") or {}
        service = data.get("service") or (item.get("scope") or {}).get("service")
        if service:
            services.add(str(service).lower())
        if (moment := data.get("first_seen") or data.get("ts")) is not None:
            onsets.append(str(moment))
        texts.append(f"{item.get('text', '')} {data.get('example', '')}")
    symptom = Symptom(frozenset(services), min(onsets) if onsets else None, " ".join(texts))
    references = [str(i.get("text", "")) for i in items if i.get("kind") == "passage"]
    reasons = []
    for item in items:
        row = (item.get("data") or {}).get("row")
        table = _TABLE.search(str((item.get("scope") or {}).get("sql", "")))
        if not isinstance(row, dict) or not table \
                or not any(w in table.group(1).lower() for w in CHANGE_WORDS):
            continue
        links = [f"{(i.get('data') or {}).get('service') or (i.get('scope') or {}).get('service') or ''}"
                 f" {i.get('text', '')}" for i in items if i is not item]
        if (why := change_problem(row, symptom, references, links)) is not None:
            reasons.append(f"{item.get('evidence_id')}: {why}")
    return reasons
