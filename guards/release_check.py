"""What release checks against the run store before it publishes (docs/design.md §14).

A thread's state can be edited between two streams (Studio, ``threads.update_state``) and a run
can be continued or forked from any checkpoint, so the state that reaches ``release`` is not
proof of anything by itself. The run store recorded, when they happened, every canonical record
a tool returned and every judgement of the semantic judge. Release publishes only what those
recordings back:

- every record the state names is one the store kept for this run, unchanged (same call id,
  same content) — :func:`check_records` for whole records; the state's record index is
  checked the same way by :func:`diagnosis_harness.run.records.resolve`, entry against stored record;
- a SUCCESS needs its cited ids to hold on those records *now* (the evidence guard recomputed,
  its verdict in state is not trusted) and a SUPPORTED judgement recorded for exactly this draft
  and exactly this evidence, letting through exactly the claims the state's verdict publishes —
  :func:`check_publication`, through :func:`draft_digest`.

Pure functions over plain data; the node reads the store and decides what a problem means
(EVIDENCE_TAMPERED, nothing published).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.guards.evidence import check_evidence
from diagnosis_harness.guards.semantic import judge_payload

MAX_NOTE_CHARS = 2000
"""A reviewer's note is kept (and quoted in a rejection) up to this length."""

JUDGED_DRAFT = "judged_draft"
"""The guard name of the trace row that binds a judge's answer to the draft and evidence judged."""


def draft_digest(draft: DiagnosisDraft, records: Sequence[ToolRecord]) -> str:
    """SHA-256 of the draft and of the stored evidence its conclusion cites (what the judge saw).

    The semantic guard records it next to the judge's answer; release recomputes it. A changed
    root cause, claim, citation, next step or cited fact gives another digest.
    """
    evidence = judge_payload(draft.conclusion, records)["evidence"] if draft.conclusion else []
    body = {"draft": draft.model_dump(mode="json"), "evidence": evidence}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def judged(draft: DiagnosisDraft, records: Sequence[ToolRecord], verdict: str,
           published: list[int] | None = None) -> dict[str, Any]:
    """The trace row (guard :data:`JUDGED_DRAFT`) that binds ``verdict`` to this draft.

    ``published``: the 0-based claims a per-claim verdict let through (None: all of them).
    """
    row: dict[str, Any] = {"verdict": verdict, "draft_sha256": draft_digest(draft, records)}
    if published is not None:
        row["published_claims"] = published
    return row


GUARD_VERDICTS = {"evidence": "evidence_verdict", "semantic": "semantic_verdict"}
"""The guards whose verdicts the state holds: the guard name of their trace rows, and the key."""


def check_verdicts(state: Mapping[str, Any], stored: Sequence[dict[str, Any]]) -> list[str]:
    """One problem per guard verdict in state that its guard never recorded in this run.

    Release decides the fallback from these verdicts (an edited UNSUPPORTED would publish a
    limitation no judge stated), so each must be one its guard wrote to the store.
    """
    problems = []
    for guard, key in GUARD_VERDICTS.items():
        held = state.get(key)
        if held is not None and not any(row.get("guard") == guard and row.get("verdict") == held
                                        for row in stored):
            problems.append(f"the {key} in state is not one the {guard} guard recorded in this run")
    return problems


def check_records(state: Sequence[ToolRecord], stored: Sequence[dict[str, Any]]) -> list[str]:
    """One problem per record in state that the store did not keep for this run, unchanged."""
    kept: dict[str, list[dict[str, Any]]] = {}
    for row in stored:
        try:
            record = ToolRecord.model_validate(row)
        except ValidationError:
            continue  # the store writes only canonical records; anything else backs nothing
        kept.setdefault(record.tool_call_id, []).append(record.model_dump(mode="json"))
    problems = []
    for record in state:
        if record.model_dump(mode="json") not in kept.get(record.tool_call_id, []):
            problems.append(f"record {record.tool_call_id} ({record.tool}) is not what the tool "
                            "returned in this run")
    return problems


def check_publication(draft_data: object, records: Sequence[ToolRecord],
                      stored_verdicts: Sequence[dict[str, Any]],
                      published: list[int] | None = None) -> list[str]:
    """Problems that forbid publishing ``draft_data`` as a verified root cause (none: publish).

    ``records`` must already have passed :func:`check_records`. The latest judgement the store
    holds for this draft's digest must be SUPPORTED; a judgement of another draft (the one before
    an edit) or a verdict that exists only in state counts for nothing.
    """
    try:
        draft = DiagnosisDraft.model_validate(draft_data)
    except ValidationError:
        return ["the draft in state is not a valid draft"]
    if draft.conclusion is None:
        return ["the draft has no conclusion"]
    try:
        evidence = check_evidence(draft, records)
    except ValueError as exc:
        return [str(exc)]
    if not evidence.passed:
        cited = ", ".join(sorted({p.evidence_id for p in evidence.problems}))
        return [f"the draft cites evidence that this run's records do not hold ({cited})"]
    digest = draft_digest(draft, records)
    answers = [row["verdict"] for row in stored_verdicts
               if row.get("guard") == JUDGED_DRAFT and isinstance(row.get("verdict"), dict)
               and row["verdict"].get("draft_sha256") == digest]
    if not answers:
        return ["the independent judge never judged this draft with this evidence"]
    if answers[-1].get("verdict") != "SUPPORTED":
        return [f"the independent judge answered {answers[-1].get('verdict')} for this draft"]
    if answers[-1].get("published_claims") != published:
        return ["the claims to publish are not the ones the independent judge found supported "
                "for this draft"]
    return []


def parse_decision(answer: object) -> tuple[bool, str] | None:
    """``(approve, note)`` from an approval answer ``{"approve": bool, "note"?: str}``; else None."""
    if not isinstance(answer, dict) or not set(answer) <= {"approve", "note"}:
        return None
    approve, note = answer.get("approve"), answer.get("note", "")
    if not isinstance(approve, bool) or not isinstance(note, str):
        return None
    return approve, note.strip()[:MAX_NOTE_CHARS]
