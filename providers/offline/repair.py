"""The offline evidence repair: keep only citations from the available list."""

from __future__ import annotations

import json
import re
from typing import Any

_EVIDENCE_LINE = re.compile(r"^(E\d+\.\d+):", re.M)
"""An entry of the repair prompt's ``available_evidence`` value: ``E1.2: <what it shows>``."""


def repair(draft_text: str, available_evidence: str) -> dict[str, Any] | None:
    """The draft with unavailable citations dropped, and claims left with none dropped.

    ``draft_text`` and ``available_evidence`` are the repair prompt's values. A draft that
    cannot be read gives None; one where no claim can be kept comes back unchanged (the
    evidence guard decides).
    """
    try:
        draft = json.loads(draft_text)
    except ValueError:
        return None
    if not isinstance(draft, dict):
        return None
    available = set(_EVIDENCE_LINE.findall(available_evidence))
    conclusion = draft.get("conclusion")
    if not isinstance(conclusion, dict):
        return draft
    claims = []
    for claim in conclusion.get("claims", []):
        ids = [e for e in claim.get("evidence_ids", []) if e in available]
        if ids:
            claims.append({**claim, "evidence_ids": ids})
    if not claims:
        return draft
    return {**draft, "conclusion": {**conclusion, "claims": claims}}
