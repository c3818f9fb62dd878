"""The texts ``release`` publishes: the verified report, the SafeFallback, the capability reply.

Pure rendering from state, records and the ProgressSnapshot: no decision is made here (that is
``release.decide``) and nothing is written or emitted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.contracts import (
    Claim,
    Conclusion,
    DiagnosisDraft,
    Fact,
    FallbackType,
    ToolRecord,
)
from diagnosis_harness.guards.evidence import facts_by_id, shown_text
from diagnosis_harness.nodes._headline import failure_line, to_second
from diagnosis_harness.nodes._triage import _token, digest_lines, suspects
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.tools.dataset.examples import context_hints

if TYPE_CHECKING:
    from diagnosis_harness.tools.dataset.layout import DatasetInfo

CAPABILITY_REPLY = (
    "I diagnose production incidents. Ask about a symptom on a service in a time window, for "
    "example: \"payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
    "— why?\". I investigate logs, the operational database and runbooks, and publish a root "
    "cause only when every claim cites evidence from this run and an independent check agrees; "
    "otherwise I report what I verified and what to check next."
)

_LIMITATION = {
    FallbackType.MISSING_REQUIRED_CONTEXT: "the question lacks context the investigation needs",
    FallbackType.INSUFFICIENT_EVIDENCE: "the evidence collected does not single out a root cause",
    FallbackType.EVIDENCE_VALIDATION_FAILED:
        "the proposed conclusion cited evidence that does not exist or does not hold, "
        "even after one repair",
    FallbackType.SEMANTIC_UNSUPPORTED:
        "an independent check found the cited evidence does not support the proposed conclusion",
    FallbackType.SEMANTIC_UNAVAILABLE:
        "the independent check of the proposed conclusion could not be completed",
    FallbackType.APPROVAL_REJECTED: "a reviewer did not approve the verified conclusion",
    FallbackType.FOLLOW_UP_UNSUPPORTED:
        "the offline investigator does not answer follow-up questions",
    FallbackType.MODEL_UNREACHABLE:
        "the model endpoint was unreachable, so this is the offline investigator's triage of "
        "this run's verified facts, not a diagnosis",
}


def scope_line(scope: dict[str, Any]) -> str:
    """One line naming a scope: service, merchant, pattern/sql/query/promql and the time window."""
    parts = [f"{k}={scope[k]}" for k in ("service", "merchant", "pattern", "sql", "query",
                                         "promql") if scope.get(k)]
    if scope.get("time"):  # an instant query
        parts.append(f"at {scope['time']}")
    if scope.get("services"):  # recent_changes: the services its look-back was about
        parts.append(f"services={','.join(map(str, scope['services']))}")
    if scope.get("start") or scope.get("end"):
        parts.append(f"window {scope.get('start')} → {scope.get('end')}")
    elif scope.get("since") and scope.get("before"):  # recent_changes' look-back
        parts.append(f"changes {scope['since']} → {scope['before']}")
    return to_second(", ".join(parts)) or "(no scope)"


MAX_FACTS = 12
"""Observed facts listed in a fallback; the rest are counted ("and N more")."""
MAX_QUOTE = 300
"""Characters of a runbook passage, a refused proposal's sentence or a reason shown."""
MAX_FIELDS = 6
"""Data fields shown on one evidence line."""
MAX_VALUE = 60
"""Characters of a field value: a longer one is not shown on an evidence line."""
MAX_PROPOSED = 12
"""Claims of a refused proposal listed; the rest are counted."""
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*")
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_STOP = frozenset({"the", "and", "for", "from", "with", "was", "were", "are", "its", "this",
                   "that", "than", "then", "into", "after", "before", "while", "which"})


def printable(text: str) -> str:
    """Model or data text on one report line: control and bidi characters shown escaped.

    A newline in a claim must not start a line of its own (it could read ``Root cause: …``),
    and an escape sequence or a right-to-left override must not reach a terminal.
    """
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _clip(text: str, limit: int = MAX_QUOTE) -> str:
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[:limit] + "…"


def shown_claims(conclusion: Conclusion, verdict: Mapping[str, Any] | None
                 ) -> tuple[list[Claim], int]:
    """The claims a report shows with their evidence, and how many it leaves out.

    With per-claim verdicts in the recorded semantic verdict (``claims``: ``{"index": i,
    "verdict": …}``, ``i`` the 0-based position in ``conclusion.claims``), only the SUPPORTED
    ones: a claim the judge did not support is never shown as evidence (a claim without a
    verdict is not supported). Without them (a judge that answers for the whole conclusion),
    every claim.
    """
    per_claim = (verdict or {}).get("claims")
    if not isinstance(per_claim, list) or not per_claim:
        return list(conclusion.claims), 0
    supported = {v.get("index") for v in per_claim
                 if isinstance(v, dict) and v.get("verdict") == "SUPPORTED"}
    shown = [c for i, c in enumerate(conclusion.claims) if i in supported]
    return shown, len(conclusion.claims) - len(shown)


def _terms(text: str) -> set[str]:
    """A statement's words, names and numbers, lower-cased; ``3600.0`` is ``3600``."""
    out = set()
    for term in _TERM.findall(text.lower()):
        for part in {term, *re.split(r"[._:/-]", term)}:
            part = part[:-2] if re.fullmatch(r"\d+\.0", part) else part
            if part and part not in _STOP and (len(part) >= 3 or part.isdigit()):
                out.add(part)
    return out


def _leaves(data: Mapping[str, Any], depth: int = 0) -> list[tuple[str, Any]]:
    """The scalar fields of a fact's data (nested objects flattened, leaf names kept)."""
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        if isinstance(value, dict) and depth < 2:
            out += _leaves(value, depth + 1)
        elif isinstance(value, str | int | float | bool) and not isinstance(value, bool):
            out.append((str(key), value))
    return out


def _value_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, str) or _token(value):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def relied_fields(fact: Fact, statement: str) -> list[str]:
    """The fields of a fact a claim relies on that its text does not show (``key=value``).

    Fields whose value the fact's text already shows are left out; of the others, those the
    claim names by key (``hit rate`` → ``hit_rate``) or by value (``85 %`` → ``85``) — or, when
    the claim names none of them, every short one: at most ``MAX_FIELDS``, in the data's order.
    A flagged fact lends only one-token values.
    """
    shown = set(_TERM.findall(fact.text.lower())) | set(  # ``x30`` shows 30; a time shows no number
        _NUMBER.findall(_MOMENT.sub(" ", fact.text)))
    claim = _terms(statement)
    fields, named = [], []
    for key, value in _leaves(fact.data):
        text = _value_text(value)
        if len(text) > MAX_VALUE or (fact.flags and not _token(str(value))):
            continue
        plain = value.lower() if isinstance(value, str) else text
        if plain in shown or (len(plain) > 3 and plain in fact.text.lower()):
            continue  # the fact's text shows it already
        field = f"{key}={printable(text)}"
        if field in fields:
            continue
        fields.append(field)
        if claim & (_terms(key) | _terms(text)):
            named.append(field)
    return (named or fields)[:MAX_FIELDS]


def evidence_line(eid: str, fact: Fact, statement: str) -> str:
    """One cited fact as the report shows it, with the fields the claim relies on.

    A runbook passage is quoted on one line: it is no evidence bullet.
    """
    if fact.kind == "passage":
        return f"    {eid} (runbook, quoted): \u201c{_clip(shown_text(fact))}\u201d"
    line = f"    {eid}: {printable(to_second(shown_text(fact)))}"
    fields = relied_fields(fact, statement)
    return line + (f" | {', '.join(fields)}" if fields else "") + computed_mark(fact)


def computed_mark(fact: Fact) -> str:
    """The note on a fact whose query computed parts of it (``computed``); else empty.

    ``query_mysql`` marks the columns its query computed (a CASE label, an expression) and
    ``query_metrics`` the data its query made (labels no stored series has, the numbers of a
    query that is more than one selector): the reader must not take them for stored data.
    """
    computed = fact.data.get("computed")
    if not isinstance(computed, list) or not computed:
        return ""
    names = ", ".join(str(c) for c in computed[:6]) + (", …" if len(computed) > 6 else "")
    return f" [computed by the query, not stored data: {names}]"


def render_report(state: DiagnosisState, records: list[ToolRecord]) -> str:
    """The published diagnosis: the judged root cause, then the computed failure and evidence.

    The root cause is the draft's own sentence, the one the judge accepted (never rewritten);
    the failure line after it is computed from the cited facts; each supported claim follows
    with the stored evidence it cites.
    """
    draft = DiagnosisDraft.model_validate(state["draft"])
    assert draft.conclusion is not None
    index = facts_by_id(records)
    claims, left_out = shown_claims(draft.conclusion, state.get("semantic_verdict"))
    scope = state.get("scope") or {}
    lines = [f"Root cause: {printable(draft.conclusion.root_cause)}"]
    computed = failure_line(claims, index)
    if computed is not None:
        lines.append(f"Computed from the evidence: {printable(computed)}")
    lines += ["", f"Scope: {scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    lines += ["", "Evidence (every id checked against this run's records and by an independent "
                  "judge):"]
    for claim in claims:
        lines.append(f"- {printable(to_second(claim.statement))} [{', '.join(claim.evidence_ids)}]")
        lines += [evidence_line(eid, index[eid][1], claim.statement) for eid in claim.evidence_ids]
    if left_out:
        lines.append(f"({left_out} claim(s) the judge did not support are not shown; the run's "
                     "record keeps them.)")
    if draft.next_steps:
        lines += ["", "Next steps:", *[f"- {printable(step)}" for step in draft.next_steps]]
    return "\n".join(lines)


_STOPPED_SHORT = re.compile(r"Not concluded: [a-z_]{1,40} \u2014 [A-Za-z0-9 ,.:;'()/-]{1,200}")
"""The offline investigator's note of the registry rule that stopped short, and its reason."""


def stopped_short(state: DiagnosisState) -> str | None:
    """The rule that stopped short and why, from a null draft's first step (None: not said).

    Only a step in exactly the form the offline registry writes (``Not concluded: <rule> —
    <reason>``: a rule module's name and plain words); the caller shows it only for a run whose
    agent is the offline investigator, whose steps are the registry's words, never a model's.
    """
    draft = state.get("draft")
    if not isinstance(draft, dict) or draft.get("conclusion") is not None:
        return None
    steps = draft.get("next_steps")
    first = steps[0] if isinstance(steps, list) and steps else None
    return first if isinstance(first, str) and _STOPPED_SHORT.fullmatch(first) else None


def render_fallback(state: DiagnosisState, fallback: FallbackType, message: str,
                    snapshot: dict[str, Any], dataset: DatasetInfo | None = None,
                    records: list[ToolRecord] | None = None, *,
                    draft_editors: Sequence[str] | None = (), rules_note: bool = False) -> str:
    """The SafeFallback: what this run verified, its limitations and next checks.

    A refused proposal, if any, is quoted under NOT VERIFIED (:func:`proposal_lines`);
    ``draft_editors`` are who edited the draft in the run's state (None: unknown, not shown).
    With ``rules_note`` (the run's agent is the offline investigator and nobody edited its
    draft in the run's state), a null draft's :func:`stopped_short` line follows the first:
    which rule stopped short, and why.
    """
    scope = state.get("scope") or {}
    lines = [f"No root cause is published: {_LIMITATION[fallback]}."]
    if rules_note and fallback is FallbackType.INSUFFICIENT_EVIDENCE \
            and (note := stopped_short(state)) is not None:
        lines.append(f"{note}.")
    if fallback is FallbackType.MISSING_REQUIRED_CONTEXT:
        lines += ["", "Please ask again and include:",
                  *[f"- {context_hints(dataset).get(m, m)}" for m in scope.get("missing", [])]]
        return "\n".join(lines)
    if fallback is FallbackType.FOLLOW_UP_UNSUPPORTED:
        return "\n".join(lines + _follow_up_lines(state))
    lines += ["", f"Scope: {scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    ranked = suspects(records or [])
    if ranked:
        lines += ["", "Suspects (ranked, from verified facts of this run):", *digest_lines(ranked)]
    lines += proposal_lines(state, fallback, message, draft_editors)
    if snapshot["checked"]:
        lines += ["", "What was checked:"]
        lines += [f"- {c['tool']}: {scope_line(c['scope'])} → {c['status']} ({c['returned']} items)"
                  for c in snapshot["checked"]]
    if snapshot["facts"]:
        lines += ["", "Observed facts (verified tool results of this run):"]
        lines += [f"- [{f['evidence_id']}] {to_second(' '.join(f['text'].split()))}"
                  for f in snapshot["facts"][:MAX_FACTS]]
        if len(snapshot["facts"]) > MAX_FACTS:
            lines.append(f"- … and {len(snapshot['facts']) - MAX_FACTS} more")
    if snapshot["empty_scopes"]:
        lines += ["", "Checked and found nothing:"]
        lines += [f"- {e['tool']}: {scope_line(e['scope'])}" for e in snapshot["empty_scopes"]]
    limitations = [message] if message else []
    if state.get("stop_reason"):
        limitations.append(f"evidence collection stopped: {state['stop_reason']}")
    if snapshot["errors"]:
        limitations.append(f"{len(snapshot['errors'])} tool call(s) failed")
    if limitations:
        lines += ["", "Limitations:", *[f"- {x}" for x in limitations]]
    lines += ["", "Suggested next checks:", *[f"- {x}" for x in _next_checks(snapshot)]]
    return "\n".join(lines)


def _follow_up_lines(state: DiagnosisState) -> list[str]:
    """What the thread verified (its last SUCCESS, as the next turn is told), and what to ask."""
    previous = state.get("last_success")  # "control": no state edit reaches this text
    lines = []
    if previous:
        lines += ["", "What this thread verified (its last diagnosis released as SUCCESS):",
                  *[f"  {printable(line)}" for line in str(previous).splitlines()]]
    return lines + ["", "Ask a complete question instead, naming the service, the time window "
                        "and the symptom as a first question does, or use a model that reads the "
                        "thread (--model openai:NAME)."]


def _next_checks(snapshot: dict[str, Any]) -> list[str]:
    used = {c["tool"] for c in snapshot["checked"]}
    checks = []
    if "query_logs" not in used:
        checks.append("query the service's logs for the window (errors and their patterns)")
    if "query_mysql" not in used:
        checks.append("look for config changes and deploys in the window in the operational DB")
    if "lookup_knowledge" not in used:
        checks.append("search the runbooks for the dominant error message")
    if snapshot["empty_scopes"] and not snapshot["facts"]:
        checks.append("widen the time window or check the upstream and downstream services")
    checks.append("compare with the same window on a healthy day")
    return checks


def turn_summary(state: DiagnosisState) -> str:
    """What the thread's next turn is told of this one: a verified diagnosis, nothing else."""
    draft = DiagnosisDraft.model_validate(state["draft"])
    assert draft.conclusion is not None
    shown, _ = shown_claims(draft.conclusion, state.get("semantic_verdict"))
    claims = "; ".join(c.statement for c in shown)
    return (f"Question: {state.get('question')}\nScope: {scope_line(state.get('scope') or {})}\n"
            f"Verified root cause: {draft.conclusion.root_cause}\nClaims: {claims}")


def _refusal(state: DiagnosisState, fallback: FallbackType, message: str) -> tuple[str, list[str]]:
    """Who refused a proposed conclusion (or why nobody checked it), and their reasons."""
    judged: Mapping[str, Any] = state.get("semantic_verdict") or {}
    match fallback:
        case FallbackType.EVIDENCE_VALIDATION_FAILED:
            evidence: Mapping[str, Any] = state.get("evidence_verdict") or {}
            problems = evidence.get("problems") or []
            return "refused by the evidence guard", [
                f"claim {p.get('claim_index', -1) + 1} cites {p.get('evidence_id')}: "
                f"{p.get('problem')}" for p in problems]
        case FallbackType.SEMANTIC_UNSUPPORTED:
            by = "the harness" if judged.get("checked_by") == "harness" else "the independent judge"
            own = judged.get("root_cause")
            reasons = [*(judged.get("reasons") or [])]
            if isinstance(own, dict) and own.get("verdict") != "SUPPORTED" and own.get("reason"):
                reasons.append(f"the proposed cause: {own.get('verdict')} — {own.get('reason')}")
            return f"refused by {by}", reasons
        case FallbackType.SEMANTIC_UNAVAILABLE:
            return "the independent check could not be completed", [
                f"{judged.get('failure_class') or 'no usable answer'} after "
                f"{judged.get('attempts', 0)} attempt(s)"]
        case FallbackType.APPROVAL_REJECTED:
            return "refused by a reviewer", [message] if message else []
    return "not checked", [message] if message else []


def _claim_notes(verdict: Mapping[str, Any]) -> dict[int, str]:
    """A per-claim verdict line for each judged claim index (empty without per-claim verdicts)."""
    notes: dict[int, str] = {}
    for v in verdict.get("claims") or []:
        if isinstance(v, dict) and isinstance(v.get("index"), int):
            reason = f": {v['reason']}" if v.get("reason") else ""
            notes[v["index"]] = f"{v.get('verdict')}{reason}"
    return notes


def proposal_lines(state: DiagnosisState, fallback: FallbackType, message: str,
                   draft_editors: Sequence[str] | None = ()) -> list[str]:
    """What a refused (or unchecked) draft proposed, and why it is not published.

    Labelled NOT VERIFIED and never in a ``Root cause:`` line: the reader sees what the agent
    concluded and what stopped it, as the model's words quoted on one line each — not as a
    cause. A draft edited in the run's state says who edited it. Empty when the run has no
    proposed conclusion, or when who wrote it is unknown (``draft_editors`` None).
    """
    draft = state.get("draft") or {}
    conclusion = draft.get("conclusion") if isinstance(draft, dict) else None
    if not conclusion or draft_editors is None:
        return []
    proposed = Conclusion.model_validate(conclusion)
    who, reasons = _refusal(state, fallback, message)
    notes = _claim_notes(state.get("semantic_verdict") or {})
    edited = (f" (edited in the run's state by {printable(', '.join(draft_editors))})"
              if draft_editors else "")
    lines = ["", f"Proposed diagnosis{edited}, NOT VERIFIED \u2014 {who}:",
             f"- proposed cause: \u201c{_clip(proposed.root_cause)}\u201d"]
    for i, claim in enumerate(proposed.claims[:MAX_PROPOSED]):
        note = f" \u2014 judge: {_clip(notes[i])}" if i in notes else ""
        lines.append(f"- claim {i + 1} [{printable(', '.join(claim.evidence_ids))}]: "
                     f"\u201c{_clip(claim.statement)}\u201d{note}")
    if len(proposed.claims) > MAX_PROPOSED:
        lines.append(f"- \u2026 and {len(proposed.claims) - MAX_PROPOSED} more claim(s)")
    if reasons:
        lines += ["Why it is not published:", *[f"- {_clip(str(r))}" for r in reasons[:MAX_FACTS]]]
    return lines
