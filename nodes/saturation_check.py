"""saturation_check: the information-gain rule (docs/design.md §7) and the progress snapshot.

N consecutive NO_GAIN observations (or N protocol violations, or the tool budget spent)
saturate collection; STOP_REQUIRED is then delivered exactly once, inside the last
observation the model sees. The snapshot is rebuilt from the record index after every step
(facts by id: it is derived, shown to whoever streams the state, never checkpointed).
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from diagnosis_harness import prompts
from diagnosis_harness.control.contracts import CollectionState, StopReason
from diagnosis_harness.guards.progress import index_snapshot
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState


def _with_stop_required(message: ToolMessage, reason: str) -> ToolMessage:
    try:
        body = json.loads(message.content) if isinstance(message.content, str) else {}
    except json.JSONDecodeError:
        body = {"observation": message.content}
    body = body if isinstance(body, dict) else {"observation": body}
    body.update(stop_required=True, stop_reason=reason,
                instruction=prompts.phrase("stop_required"))
    return ToolMessage(content=json.dumps(body, ensure_ascii=False, default=str),
                       tool_call_id=message.tool_call_id, id=message.id)


async def saturation_check(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Decide whether collection is saturated, and tell the agent once if it is."""
    settings = run_context(runtime).settings
    update: dict[str, Any] = {"progress": index_snapshot(state.get("records") or [])}
    collection = state.get("collection_state", CollectionState.COLLECTING.value)
    reason = state.get("stop_reason")
    if collection == CollectionState.COLLECTING.value:
        if state.get("no_gain_streak", 0) >= settings.saturation_threshold:
            reason = StopReason.INFORMATION_SATURATED.value
        elif (state.get("usage") or {}).get("tool_calls", 0) >= settings.max_tool_calls:
            reason = StopReason.BUDGET_LIMIT_REACHED.value
        if reason:
            collection = CollectionState.SATURATED.value
            update.update(collection_state=collection, stop_reason=reason)
    if collection == CollectionState.SATURATED.value and not state.get("stop_delivered"):
        last = state["messages"][-1]
        if isinstance(last, ToolMessage):
            update["messages"] = [_with_stop_required(last, reason or "SATURATED")]
            update["stop_delivered"] = True
    return update
