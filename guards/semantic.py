"""Semantic guard (docs/design.md §8): what the independent judge sees, and how its answer is parsed.

The judge must compare the conclusion with the evidence as the harness stored it. The agent's
claim statements are what is being judged, so they never stand in for the evidence: each cited
id is resolved to the canonical record's fact (text, data, tool, scope).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis_harness.control.contracts import Conclusion, JudgeAnswer, ToolRecord, Verdict
from diagnosis_harness.guards.evidence import facts_by_id
from diagnosis_harness.guards.parsing import AnswerParse, parse_answer

UNTRUSTED_KEY = "untrusted_instructions"
"""Evidence-item key of the judge payload: why the item's content reads like instructions."""
FLAGGED_KEY = "flagged_evidence_ids"
"""Payload (and recorded verdict) key: the cited ids whose content was flagged."""


def judge_payload(conclusion: Conclusion, records: Sequence[ToolRecord]) -> dict[str, Any]:
    """Build the judge's input: the conclusion plus each cited id's stored evidence.

    Shape (plain JSON types)::

        {"root_cause": str,
         "claims": [{"index": int, "statement": str, "evidence_ids": [str]}],
         "evidence": [{"evidence_id", "tool", "scope", "kind", "text", "data"}]}

    ``index`` is the claim's 0-based position, the one the judge's per-claim verdicts name.
    ``evidence`` lists each cited id once, in order of first citation. An item whose content
    reads like instructions to an AI carries its flags under ``"untrusted_instructions"``, and
    the payload lists those ids under ``"flagged_evidence_ids"`` (both keys appear only then):
    the judge always sees what the harness flagged. The semantic guard runs only after the
    evidence guard passed, so an id missing from ``records`` is a wiring error: ValueError.
    """
    index = facts_by_id(records)
    evidence: list[dict[str, Any]] = []
    flagged: list[str] = []
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
            item = {
                "evidence_id": eid,
                "tool": record.tool,
                "scope": record.model_dump(mode="json", include={"scope"})["scope"],
                "kind": stored["kind"],
                **measured_view(stored["text"], stored["data"]),
            }
            if fact.flags:
                item[UNTRUSTED_KEY] = stored["flags"]
                flagged.append(eid)
            evidence.append(item)
    body = conclusion.model_dump(mode="json")
    claims = [{"index": n, **claim} for n, claim in enumerate(body["claims"])]
    payload = {"root_cause": body["root_cause"], "claims": claims, "evidence": evidence}
    if flagged:
        payload[FLAGGED_KEY] = flagged
    return payload


def wire_payload(payload: Mapping[str, Any]) -> str:
    """The judge payload as the judge model reads it: compact JSON, each tool call's scope once.

    Items of one tool call share its tool and scope, which an indented payload repeated for every
    item (a third of a judge request). Here ``"calls"`` maps a short key (the evidence ids'
    prefix, ``E2`` for ``E2.1``) to each distinct ``{"tool", "scope"}`` and an item names its
    call under ``"call"``; :func:`read_wire` gives back
    the payload :func:`judge_payload` built. The recorded verdict keeps the full payload.
    """
    calls: dict[str, dict[str, Any]] = {}
    keys: dict[str, str] = {}
    evidence: list[dict[str, Any]] = []
    for item in payload.get("evidence", []):
        shown = {k: v for k, v in item.items() if k not in ("tool", "scope")}
        call = {"tool": item.get("tool"), "scope": item.get("scope")}
        digest = json.dumps(call, sort_keys=True)
        if digest not in keys:  # "E2" for E2.1, E2.2 …: the call's key is its ids' prefix
            prefix = str(item.get("evidence_id", "")).split(".", 1)[0]
            keys[digest] = prefix if prefix and prefix not in calls else f"C{len(keys) + 1}"
            calls[keys[digest]] = call
        evidence.append({"evidence_id": shown.pop("evidence_id"), "call": keys[digest], **shown})
    wire = {**{k: v for k, v in payload.items() if k != "evidence"}, "calls": calls,
            "evidence": evidence}
    return json.dumps(wire, ensure_ascii=False, separators=(",", ":"))


def read_wire(text: str) -> dict[str, Any]:
    """The payload :func:`wire_payload` wrote, or a payload as built (each item its own scope).

    ValueError, KeyError or TypeError if it is neither.
    """
    wire = json.loads(text)
    if isinstance(wire, dict) and "calls" not in wire:
        return wire  # every item with its own tool and scope: the payload as judge_payload built it
    calls = wire.pop("calls")
    evidence = []
    for item in wire["evidence"]:
        call = calls[item.pop("call")]
        evidence.append({"evidence_id": item.pop("evidence_id"), "tool": call["tool"],
                         "scope": call["scope"], **item})
    return {**wire, "evidence": evidence}


def measured_view(text: str, data: dict[str, Any]) -> dict[str, Any]:
    """A fact's text and data as the judge sees them: words the query computed are left out.

    A tool marks under ``computed`` what its query wrote rather than read: columns of a row
    (``query_mysql``: a CASE label, an expression) or keys of the data (``query_metrics``:
    ``query_labels``, the labels no stored series has, and the numbers of a query that is more
    than one selector). Computed *text* is shown as null — the marker stays, so the judge knows it
    exists and is not evidence — and a row's text, which repeats it, is rebuilt from what is
    left; computed numbers stay visible with their marker (a count is computed, and still the
    data's).
    """
    computed = data.get("computed")
    if not isinstance(computed, list) or not computed:
        return {"text": text, "data": data}
    row = data.get("row")
    if isinstance(row, dict):
        kept = {k: (None if k in computed and isinstance(v, str) else v) for k, v in row.items()}
        shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in kept.items())
        return {"text": shown, "data": {**data, "row": kept}}
    return {"text": text, "data": {**data, "query_labels": None} if "query_labels" in data
            else data}


def flags_shown(payload: dict[str, Any]) -> dict[str, Any]:
    """What the recorded semantic verdict keeps of the flags the judge was shown (may be {})."""
    return {FLAGGED_KEY: list(payload[FLAGGED_KEY])} if payload.get(FLAGGED_KEY) else {}


def parse_judge(text: str | None) -> AnswerParse[JudgeAnswer]:
    """Parse the judge's answer strictly (retryable failure classes, docs/design.md §6)."""
    return parse_answer(text, JudgeAnswer)


RUNBOOK_KIND = "passage"
"""The fact kind of a runbook passage: what can happen, not what happened."""


def observes_nothing(payload: dict[str, Any]) -> str | None:
    """Why a conclusion cannot be judged supported whatever a judge says (None: it can be).

    A conclusion whose cited evidence is only runbook passages rests on no observation of this
    incident: the 1.5B local model published one (a runbook's symptoms as the cause, in a
    window with no events) and its judge agreed.
    """
    kinds = {item.get("kind") for item in payload.get("evidence", [])}
    if kinds and kinds <= {RUNBOOK_KIND}:
        return ("the conclusion cites only runbook passages: they say what can happen, not what "
                "happened; cite a log, a row or a metric of this incident")
    return None


def claim_verdict_problem(answer: JudgeAnswer, claims: int) -> str | None:
    """Why per-claim verdicts do not match a draft of ``claims`` claims (None: they do).

    Each claim 0..``claims``-1 must have exactly one verdict and no other index may appear: a
    verdict for a claim that does not exist, or a claim left unjudged, makes the answer
    invalid (SCHEMA_INVALID, retried under the judge policy), never a partial publication.
    """
    if answer.claims is None:
        return None
    given = sorted(c.index for c in answer.claims)
    if given == list(range(claims)):
        return None
    unknown = sorted(set(given) - set(range(claims)))
    missing = sorted(set(range(claims)) - set(given))
    parts = ([f"verdicts for claims that do not exist: {unknown}"] if unknown else []) + \
        ([f"claims without a verdict: {missing}"] if missing else [])
    return f"the answer must judge claims 0..{claims - 1} once each: " + "; ".join(parts)


def ruling(answer: JudgeAnswer, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The semantic verdict the harness records from a valid judge answer (docs/design.md §8).

    The judge says what holds; the harness decides what that allows. With per-claim verdicts
    the verdict is SUPPORTED only if the judge's own verdict and its root-cause verdict are
    SUPPORTED and at least one SUPPORTED claim cites an item that observes this incident (not
    only runbook passages). Anything else is UNSUPPORTED, and the reasons say why when the
    harness overruled a SUPPORTED. The judge's per-claim verdicts are kept as given.
    """
    recorded = answer.model_dump(mode="json", exclude_none=True)
    if answer.claims is None or answer.root_cause is None:
        return recorded
    kinds = {item.get("evidence_id"): item.get("kind") for item in payload.get("evidence", [])}
    cited = {c.get("index"): c.get("evidence_ids", []) for c in payload.get("claims", [])}
    supported = [c.index for c in answer.claims if c.verdict is Verdict.SUPPORTED]
    why = None
    if answer.root_cause.verdict is not Verdict.SUPPORTED:
        why = "the root cause does not follow from the supported claims"
    elif not any(kinds.get(eid) != RUNBOOK_KIND for n in supported for eid in cited.get(n, [])):
        why = ("no supported claim cites a log, a row or a metric of this incident: runbook "
               "passages say what can happen, not what happened")
    if why is not None:
        if answer.verdict is Verdict.SUPPORTED:
            recorded["reasons"] = [*recorded["reasons"], f"harness: {why}"]
        recorded["verdict"] = Verdict.UNSUPPORTED.value
    return recorded


def publishes(verdict: Mapping[str, Any] | None) -> bool:
    """Whether a recorded semantic verdict lets the draft be published (pure; release's rule).

    SUPPORTED, and with per-claim verdicts also a SUPPORTED root cause and a SUPPORTED claim:
    a verdict that says SUPPORTED over claims that all failed publishes nothing.
    """
    if not verdict or verdict.get("verdict") != Verdict.SUPPORTED.value:
        return False
    claims = verdict.get("claims")
    if claims is None:
        return True
    root = verdict.get("root_cause") or {}
    return root.get("verdict") == Verdict.SUPPORTED.value and bool(supported_claims(verdict))


def supported_claims(verdict: Mapping[str, Any] | None) -> list[int] | None:
    """The 0-based indexes of the claims a verdict found SUPPORTED (None: no per-claim verdicts)."""
    claims = (verdict or {}).get("claims")
    if not isinstance(claims, list):
        return None
    return sorted(c["index"] for c in claims
                  if isinstance(c, dict) and c.get("verdict") == Verdict.SUPPORTED.value
                  and isinstance(c.get("index"), int))
