"""saturation_check: the information-gain rule (docs/design.md §7) and the progress snapshot.

N consecutive NO_GAIN observations (or N protocol violations, or the tool or byte budget
spent) saturate collection; STOP_REQUIRED is then delivered exactly once, inside the last
observation the model sees, and the agent's next turn is its final draft turn (nodes/model.py).
An empty result is not saturation: "nothing found" is an answer, and its gain is the agent's to
judge (nodes/_gates.py). The snapshot is rebuilt from the record index after every step
(facts by id: it is derived, shown to whoever streams the state, never checkpointed).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from diagnosis_harness.control.contracts import CollectionState, StopReason
from diagnosis_harness.guards.progress import index_snapshot
from diagnosis_harness.nodes._stops import with_stop_required
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState


async def saturation_check(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Decide whether collection is saturated, and tell the agent once if it is."""
    settings = run_context(runtime).settings
    update: dict[str, Any] = {"progress": index_snapshot(state.get("records") or [])}
    collection = state.get("collection_state", CollectionState.COLLECTING.value)
    reason = state.get("stop_reason")
    if collection == CollectionState.COLLECTING.value:
        if state.get("no_gain_streak", 0) >= settings.saturation_threshold:
            reason = StopReason.INFORMATION_SATURATED.value
        elif (state.get("usage") or {}).get("tool_calls", 0) >= settings.max_tool_calls \
                or _budget_refused(state.get("records") or []):
            reason = StopReason.BUDGET_LIMIT_REACHED.value
        if reason:
            collection = CollectionState.SATURATED.value
            update.update(collection_state=collection, stop_reason=reason)
    if collection == CollectionState.SATURATED.value and not state.get("stop_delivered"):
        last = state["messages"][-1]
        if isinstance(last, ToolMessage):
            update["messages"] = [with_stop_required(last, reason or "SATURATED")]
            update["stop_delivered"] = True
    return update


def _budget_refused(records: list[dict[str, Any]]) -> bool:
    """The newest call was refused because a budget (tool calls, bytes) is spent."""
    return bool(records) and records[-1].get("error_code") == "budget_exhausted"
