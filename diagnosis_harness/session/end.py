"""How a turn run by the CLI runner ends: its output fields, its final checkpoint, its errors.

Once ``release`` has decided, nothing after it changes what is reported: a checkpoint write
that fails, a lock, a cancel that comes too late. The released result is kept, the thread's
final checkpoint is written again with retries within the run's deadline, and if it truly
cannot be written the output says so in its own field (``checkpoint_error``) while the outcome
stays what release published. A run that crashed reports the usage its row recorded.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import FailureCode, ReleaseOutcome, RunState
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.store import RETRY_WINDOW_S, RunPersistenceError
from diagnosis_harness.session.hooked import write_released
from diagnosis_harness.session.services import Services

if TYPE_CHECKING:
    from langgraph.pregel import Pregel

OUTPUT_KEYS = ("run_id", "thread_id", "intent", "run_state", "release_outcome", "fallback_type",
               "failure_code", "stop_reason", "content", "suspects", "events", "usage")
"""The run fields of the CLI's ``--json`` object (docs/design.md §10)."""

FINAL_CHECKPOINT_MIN_S = 2.0
"""At least this long is spent retrying a final checkpoint, even when the deadline is near."""

FINAL_CHECKPOINT_MAX_S = RETRY_WINDOW_S
"""At most this long (the run store's retry window): the outcome is published already."""


def describe_error(exc: BaseException, checkpoint_file: Path | None = None) -> str:
    """One line for an error that ended a run outside the nodes, naming its store if known."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, RunPersistenceError):
        return text  # it names the run store and the operation already
    if isinstance(exc, sqlite3.Error) and checkpoint_file is not None:
        # Every other SQLite file (run store, dataset) reports through its own classified error.
        return f"checkpoint store {checkpoint_file}: {text}"
    return f"{type(exc).__name__}: {text}"


def output(services: Services, ctx: RunContext, final: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` object of a run from its last values (``error`` / ``checkpoint_error``)."""
    out = {key: final.get(key) for key in OUTPUT_KEYS}
    out.update(run_id=ctx.run_id, thread_id=ctx.thread_id, events=ctx.emitter.events,
               usage=final.get("usage") or BudgetUsage().model_dump(),
               model=services.seam.label)
    for extra in ("error", "checkpoint_error"):
        if final.get(extra):
            out[extra] = final[extra]
    conclusion = (final.get("draft") or {}).get("conclusion") \
        if final.get("release_outcome") == "SUCCESS" and final.get("intent") == "DIAGNOSIS" else None
    out["root_cause"] = conclusion.get("root_cause") if conclusion else None
    out["claims"] = conclusion.get("claims") if conclusion else []
    out["suspects"] = out.get("suspects") or []
    return out


async def crashed(ctx: RunContext, final: dict[str, Any], error: str,
                  code: FailureCode = FailureCode.INTERNAL_FAILURE) -> dict[str, Any]:
    """The values of a run that ended by a crash outside the nodes, with its row's usage."""
    own = final.get("run_id") == ctx.run_id  # not the values of the thread's last turn
    usage = final.get("usage") if own else None
    try:
        row = await asyncio.to_thread(ctx.store.get_run, ctx.run_id)
    except RunPersistenceError:
        row = None
    if row is not None and row.get("usage") is not None:
        usage = row["usage"]  # what the settled row says the run spent, not zero
    return {"intent": final.get("intent") if own else None, "usage": usage,
            "run_state": (row or {}).get("run_state") or RunState.FAILED.value,
            "release_outcome": ReleaseOutcome.FAILED.value,
            "failure_code": (row or {}).get("failure_code") or code.value,
            "content": None, "error": error}


async def keep_final_checkpoint(graph: Pregel, config: RunnableConfig, ctx: RunContext,
                                released: dict[str, Any]) -> str | None:
    """Make the thread's checkpoint hold this run's released state; None once it does.

    Something failed after release (most likely the final checkpoint write): the checkpoint is
    read back and, if it is not this run's released state, release's update is written again
    (``aupdate_state`` as the release node), retried within the run's remaining deadline (at
    least :data:`FINAL_CHECKPOINT_MIN_S`, at most :data:`FINAL_CHECKPOINT_MAX_S`). Returns why
    it could not be written otherwise.
    """
    window = min(max(ctx.lifecycle.remaining(), FINAL_CHECKPOINT_MIN_S), FINAL_CHECKPOINT_MAX_S)
    deadline = time.monotonic() + window
    delay, problem, written = 0.05, "unknown", False
    while True:
        try:
            values = (await graph.aget_state(config)).values
            if values.get("run_id") == ctx.run_id and \
                    values.get("release_outcome") == released.get("release_outcome"):
                return None
            if written:
                return "the thread's final checkpoint does not hold the released result"
            await write_released(graph, config, released)
            written = True
            continue  # read it back
        except Exception as exc:  # noqa: BLE001 — retried, then reported in its own field
            problem = " ".join(str(exc).split()) or type(exc).__name__
        if time.monotonic() + delay >= deadline:
            return f"the thread's final checkpoint could not be written: {problem}"
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)
