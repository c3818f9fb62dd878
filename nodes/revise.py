"""revise: a refused draft goes back to the agent once, with the judge's reasons (docs/design.md §8).

One user turn is appended to the agent's conversation: the judge's verdict on each claim and on
the root cause, and its reasons. The run then goes back to ``model``; the agent may drop or
narrow claims, make more tool calls with the budget that remains, or withdraw (a null
conclusion). Its new draft passes draft_parse, the evidence guard and the judge again, and a
second refusal is final (``revision_used``). No model is called here: the agent's answer is the
``model`` node's call, budgeted and recorded like every other.

When the budget has no model call (or no tokens) left for that answer, the refusal stands and
the run is released as it is: the draft and its verdict are kept, nothing is appended.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from diagnosis_harness.control.budget import Budget, BudgetExhausted
from diagnosis_harness.control.contracts import CollectionState
from diagnosis_harness.nodes._model_call import offload, prompt_message
from diagnosis_harness.nodes._stops import while_active
from diagnosis_harness.nodes.model import _inputs, judge_reserve
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState

REVISION = "revision"
"""The guard name of the trace row that keeps the refused draft and the verdict sent back."""


_MENTION = re.compile(r"\b(claim|index)\s+(\d+)\b", re.IGNORECASE)
"""How the judge names a claim in its free text: by its 0-based index ("claim 0" is the first)."""
_QUOTED = 80
"""Characters of a claim's statement quoted in its line."""


def _numbered(text: str, count: int) -> tuple[str, set[int]]:
    """``text`` with each "claim N" / "index N" the judge wrote marked with the draft's #N+1.

    The judge reads claims by their 0-based ``index`` and names them so; the agent wrote them
    first to last. Players read "claim 3" as their third claim: each mention is shown both ways.
    Returns the marked text and the indexes it mentions (only those the draft has).
    """
    named: set[int] = set()

    def mark(m: re.Match[str]) -> str:
        n = int(m.group(2))
        if n >= count:
            return m.group(0)
        named.add(n)
        return f"{m.group(0)} (#{n + 1})"

    return _MENTION.sub(mark, text), named


def _verdict_lines(draft: Mapping[str, Any], verdict: Mapping[str, Any]) -> str:
    """The refusal as the agent reads it: each claim's verdict, the root cause's, the reasons.

    Claims are named "claim #1 (index 0)": #N counts the draft's claims from 1, the index is the
    judge's own (from 0), and the judge's words are marked the same way. A free-text reason that
    names exactly one claim is shown under that claim.
    """
    claims = (draft.get("conclusion") or {}).get("claims") or []
    by_index = {c.get("index"): c for c in verdict.get("claims") or [] if isinstance(c, dict)}
    attached: dict[int, list[str]] = {}
    general: list[str] = []
    for reason in verdict.get("reasons") or []:
        marked, named = _numbered(str(reason), len(claims))
        if len(named) == 1:
            attached.setdefault(next(iter(named)), []).append(marked)
        else:
            general.append(marked)
    lines: list[str] = []
    for n, claim in enumerate(claims):
        judged = by_index.get(n)
        said = f"{judged.get('verdict')} — {_numbered(str(judged.get('reason')), len(claims))[0]}" \
            if judged else "refused with the whole draft"
        statement = str(claim.get("statement") or "")
        quoted = statement if len(statement) <= _QUOTED else statement[:_QUOTED] + "…"
        lines.append(f"- claim #{n + 1} (index {n}) \"{quoted}\" (cites "
                     f"{', '.join(claim.get('evidence_ids') or [])}): {said}")
        lines += [f"  reviewer on claim #{n + 1}: {reason}" for reason in attached.get(n, [])]
    if isinstance(root := verdict.get("root_cause"), Mapping):
        lines.append(f"- root cause: {root.get('verdict')} — "
                     f"{_numbered(str(root.get('reason')), len(claims))[0]}")
    lines += [f"- {reason}" for reason in general]
    return "\n".join(lines)


def _room(state: DiagnosisState, ctx: RunContext) -> tuple[int, int]:
    """(tool calls left, turns with tool calls left) for the revised answer.

    The tool budget alone overstated it: ``model`` ends collection when another investigating
    turn would leave no model call or tokens for the final draft turn and the judge
    (:meth:`~diagnosis_harness.control.budget.Budget.collection_closed`, which ``final_turn``
    applies). The turns are counted by that same rule, each turn's input estimated as the last
    one plus its growth, as ``final_turn`` estimates it.
    """
    budget = ctx.budget(state.get("usage"))
    calls = max(budget.limits.max_tool_calls - budget.usage.tool_calls, 0)
    last, growth = _inputs(list(state.get("messages", [])))
    turns = 0
    while turns < calls:
        this = last + growth * (turns + 1)
        if budget.collection_closed(this, this + growth,
                                    judge_reserve(ctx, this + growth)) is not None:
            break
        u = budget.usage
        budget = Budget(budget.limits, u.model_copy(update={
            "model_calls": u.model_calls + 1, "input_tokens": u.input_tokens + this}))
        turns += 1
    return calls, turns


def _tools_line(calls_left: int, turns_left: int, stopped: bool) -> str:
    """What the agent may still do besides rewriting: the truth about its tool budget."""
    if stopped or calls_left <= 0 or turns_left <= 0:
        return ("Evidence collection has ended: do not call a tool, answer with the draft from "
                "what you have.")
    if turns_left >= calls_left:
        return (f"If evidence is missing you may make up to {calls_left} more tool call(s) first; "
                "then answer with the draft.")
    return (f"If evidence is missing you may make tool calls in {turns_left} more turn(s) first "
            f"(at most {calls_left} call(s) in all; the rest of the budget is kept for your draft "
            "and its review); then answer with the draft.")


@while_active
async def revise(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Hand a refusal or an invalid draft's parse error back to the agent, once each.

    Only if a model call is left for the answer.
    """
    ctx = run_context(runtime)
    if state.get("draft_error"):
        return await _retry_draft(state, ctx)
    budget = ctx.budget(state.get("usage"))
    try:  # a check on a copy of the usage: the call itself is reserved by ``model``
        budget.reserve_model_call()
    except BudgetExhausted:
        return {"revision_used": True}
    ctx.emitter.emit("status", phase="revising")
    draft = state.get("draft") or {}
    verdict = state.get("semantic_verdict") or {}
    await offload(ctx.store.record_verdict, ctx.run_id, REVISION,
                  {"refused_draft": draft, "verdict": dict(verdict)})
    # Collection over (or only the final turn's budget left): the answer is the final draft
    # turn (nodes/model.py), with no tool callable — say so rather than offer calls.
    # The turns are counted on the usage before this answer's call, as ``model`` counts them.
    closed = bool(state.get("stop_delivered")) or state.get("collection_state") == \
        CollectionState.SATURATED.value
    calls_left, turns_left = _room(state, ctx)
    message = prompt_message("revise", verdicts=_verdict_lines(draft, verdict),
                             tools=_tools_line(calls_left, turns_left, closed))
    return {"revision_used": True, "messages": [message], "draft": None,
            "evidence_verdict": None, "semantic_verdict": None}


async def _retry_draft(state: DiagnosisState, ctx: RunContext) -> dict[str, Any]:
    """An answer that is no valid draft goes back once with its parse error.

    Not straight to a fallback: a capable model that wrote one brace too few had its answer.

    Only the format is asked again: the new answer is parsed, and a valid draft then passes
    the evidence guard and the judge like any other. Without a model call left, the invalid
    draft stands (``draft_error`` kept, the run is released as before).
    """
    budget = ctx.budget(state.get("usage"))
    try:
        budget.reserve_model_call()
    except BudgetExhausted:
        return {"draft_retry_used": True}
    error: Mapping[str, Any] = state.get("draft_error") or {}
    ctx.emitter.emit("status", phase="revising")
    await offload(ctx.store.record_verdict, ctx.run_id, DRAFT_RETRY,
                  {"verdict": "SENT_BACK", "reasons": [f"{error.get('error')}: "
                                                       f"{error.get('detail') or ''}"[:300]]})
    message = prompt_message("revise_draft", error=str(error.get("error")),
                             detail=str(error.get("detail") or "")[:300])
    return {"draft_retry_used": True, "draft_error": None, "messages": [message]}


DRAFT_RETRY = "draft_retry"
"""The guard name of the trace row that keeps the parse error sent back to the agent."""
