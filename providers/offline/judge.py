"""The offline judge: checks claims word by word against the evidence they cite.

SUPPORTED only if every term and number of each claim appears in the evidence it cites, and
those of the root cause in the evidence cited at all. Words of a row's computed or renamed
columns (marked by ``query_mysql``) were written by the query and count for nothing.
"""

from __future__ import annotations

import json
from typing import Any

from diagnosis_harness.providers.offline.text import FRAMING, WORD, numbers, stem


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
    if not isinstance(row, dict) or not (computed or renamed):
        return f"{item.get('text', '')} {json.dumps(data)}"
    kept = {k: v for k, v in row.items() if k not in computed}
    return " ".join(f"{'' if k in renamed else k} {json.dumps(v)}" for k, v in kept.items())


def _unsupported(statement: str, evidence_text: str) -> set[str]:
    have_terms = {stem(w) for w in WORD.findall(evidence_text.replace("_", " ").replace(".", " "))
                  if not w[0].isdigit()}
    have_numbers = numbers(evidence_text)
    words = {stem(w) for w in WORD.findall(statement.replace("_", " ").replace(".", " "))
             if not w[0].isdigit() and w.lower() not in FRAMING and len(w) >= 2}
    missing = {w for w in words if w not in have_terms and w.lower() not in FRAMING}
    missing |= {n for n in numbers(statement) if n not in have_numbers}
    return missing
