"""The texts ``release`` publishes: the verified report, the SafeFallback, the capability reply.

Pure rendering from state, records and the ProgressSnapshot: no decision is made here (that is
``release.decide``) and nothing is written or emitted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.contracts import DiagnosisDraft, Fact, FallbackType, ToolRecord
from diagnosis_harness.guards.evidence import facts_by_id, shown_text
from diagnosis_harness.nodes._headline import headline, to_second
from diagnosis_harness.nodes._triage import digest_lines, suspects
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


def _evidence_line(eid: str, fact: Fact) -> str:
    """One cited fact; a runbook passage is quoted on one line: it is no evidence bullet."""
    if fact.kind != "passage":
        return f"    {eid}: {to_second(shown_text(fact))}{computed_mark(fact)}"
    text = " ".join(shown_text(fact).split())
    text = text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE] + "…"
    return f"    {eid} (runbook, quoted): \u201c{text}\u201d"


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
    """The published diagnosis: root cause, each claim with the stored evidence it cites."""
    draft = DiagnosisDraft.model_validate(state["draft"])
    assert draft.conclusion is not None
    index = facts_by_id(records)
    scope = state.get("scope") or {}
    lines = [f"Root cause: {headline(draft.conclusion, index)}", "",
             f"Scope: {scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    lines += ["", "Evidence (every id checked against this run's records and by an independent "
                  "judge):"]
    for claim in draft.conclusion.claims:
        lines.append(f"- {to_second(claim.statement)} [{', '.join(claim.evidence_ids)}]")
        lines += [_evidence_line(eid, index[eid][1]) for eid in claim.evidence_ids]
    if draft.next_steps:
        lines += ["", "Next steps:", *[f"- {step}" for step in draft.next_steps]]
    return "\n".join(lines)


def render_fallback(state: DiagnosisState, fallback: FallbackType, message: str,
                    snapshot: dict[str, Any], dataset: DatasetInfo | None = None,
                    records: list[ToolRecord] | None = None) -> str:
    """The SafeFallback: only what this run verified, plus its limitations and next checks."""
    scope = state.get("scope") or {}
    lines = [f"No root cause is published: {_LIMITATION[fallback]}."]
    if fallback is FallbackType.MISSING_REQUIRED_CONTEXT:
        lines += ["", "Please ask again and include:",
                  *[f"- {context_hints(dataset).get(m, m)}" for m in scope.get("missing", [])]]
        return "\n".join(lines)
    lines += ["", f"Scope: {scope_line(scope)}"]
    if scope.get("window_note"):
        lines.append(f"Note: {scope['window_note']}")
    ranked = suspects(records or [])
    if ranked:
        lines += ["", "Suspects (ranked, from verified facts of this run):", *digest_lines(ranked)]
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
    claims = "; ".join(c.statement for c in draft.conclusion.claims)
    return (f"Question: {state.get('question')}\nScope: {scope_line(state.get('scope') or {})}\n"
            f"Verified root cause: {draft.conclusion.root_cause}\nClaims: {claims}")
