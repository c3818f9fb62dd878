"""Semantic guard (docs/design.md §8): what the independent judge sees, and how its answer is parsed.

The judge must compare the conclusion with the evidence as the harness stored it. The agent's
claim statements are what is being judged, so they never stand in for the evidence: each cited
id is resolved to the canonical record's fact (text, data, tool, scope).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guards.evidence import facts_by_id
from guards.parsing import AnswerParse, parse_answer
from harness.contracts import Conclusion, JudgeAnswer, ToolRecord


def judge_payload(conclusion: Conclusion, records: Sequence[ToolRecord]) -> dict[str, Any]:
    """Build the judge's input: the conclusion plus each cited id's stored evidence.

    Shape (plain JSON types)::

        {"root_cause": str,
         "claims": [{"statement": str, "evidence_ids": [str]}],
         "evidence": [{"evidence_id", "tool", "scope", "kind", "text", "data"}]}

    ``evidence`` lists each cited id once, in order of first citation. The semantic guard runs
    only after the evidence guard passed, so an id missing from ``records`` is a wiring error:
    ValueError.
    """
    index = facts_by_id(records)
    evidence: list[dict[str, Any]] = []
    seen: set[str] = set()
    for claim in conclusion.claims:
        for eid in claim.evidence_ids:
            if eid in seen:
                continue
            seen.add(eid)
            if eid not in index:
                raise ValueError(
                    f"cited id {eid!r} is not in this run's records; run the evidence guard first"
                )
            record, fact = index[eid]
            # model_dump copies: the payload is handed to prompts and traces, and must not
            # alias the dicts inside the canonical record.
            stored = fact.model_dump(mode="json")
            evidence.append(
                {
                    "evidence_id": eid,
                    "tool": record.tool,
                    "scope": record.model_dump(mode="json", include={"scope"})["scope"],
                    "kind": stored["kind"],
                    "text": stored["text"],
                    "data": stored["data"],
                }
            )
    body = conclusion.model_dump(mode="json")
    return {"root_cause": body["root_cause"], "claims": body["claims"], "evidence": evidence}


def parse_judge(text: str | None) -> AnswerParse[JudgeAnswer]:
    """Parse the judge's answer strictly (retryable failure classes, docs/design.md §6)."""
    return parse_answer(text, JudgeAnswer)
