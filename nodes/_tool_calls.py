"""The tool gate's resume path: a call this run already made is reused, never run twice."""

from __future__ import annotations

from typing import Any

from diagnosis_harness.control.budget import Budget, BudgetExhausted
from diagnosis_harness.control.contracts import InvocationStatus, ToolRecord
from diagnosis_harness.nodes._model_call import offload
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.records import RecordRef


async def stored_call(ctx: RunContext, call_id: str, records: tuple[RecordRef | ToolRecord, ...],
                       budget: Budget) -> tuple[ToolRecord, dict[str, Any]] | None:
    """The record and observation of a call this run already made, or None to run it now.

    Tool calls are idempotent per tool-call id: a node re-executed on resume (its process died
    after the call, before its checkpoint) finds the call in the run store and reuses it, so
    the backend never sees it twice. Its budget is charged again exactly as the boundary
    charged it, because the checkpointed usage this node starts from never included it.
    A call already in this run's state (a model that repeats an id) is a new call.
    """
    if not call_id or any(r.tool_call_id == call_id for r in records):
        return None
    if ctx.stored_calls is None:  # once per stream: a run resumed here may have made calls
        rows = await offload(ctx.store.tool_records, ctx.run_id)
        ctx.stored_calls = {str(row.get("tool_call_id")) for row in rows}
    if call_id not in ctx.stored_calls:
        return None  # never made: no need to ask the store again
    stored = await offload(ctx.store.tool_record, ctx.run_id, call_id)
    if stored is None or stored.get("observation") is None:
        return None  # never run, or stored before observations were (run it again)
    record = ToolRecord.model_validate(stored["record"])
    try:
        budget.reserve_tool_call()
        if record.invocation_status is InvocationStatus.READY:
            budget.reserve_bytes(record.raw_bytes)
    except BudgetExhausted:
        pass  # the boundary hit the same limit the first time and recorded it as an ERROR
    return record, stored["observation"]
