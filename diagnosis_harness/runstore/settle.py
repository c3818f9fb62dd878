"""Settling a run that ended without ``release``: the one routine every caller uses.

A run ends without release when it is cancelled (``runs.cancel``, a client that went away,
Ctrl-C, a cancelled task) or when something unclassified escapes: a crash inside a node, a
crash between two nodes (a routing function, the checkpointer, the engine's own limits), a
store that fails. Whoever sees that end — the node wrapper, the run session, the CLI runner —
calls :func:`settle_unreleased`; the first call decides, later ones change nothing (the
lifecycle's first terminal state wins, and so does the store's first finished row).

What the client and the run store get (docs/design.md, outcome matrix row 14 and the event
grammar): a cancelled run publishes nothing more, not even ``done``, and its row says CANCELLED;
any other unreleased end is FAILED with a ``failure`` and a ``done`` event: RUN_PERSISTENCE_FAILED
when a store could not save the run (run store or checkpointer), else INTERNAL_FAILURE.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import FailureCode, Intent, ReleaseOutcome, RunState, StoredRunStatus
from diagnosis_harness.control.events import EventEmitter
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.runstore.store import RunPersistenceError, RunStore
from diagnosis_harness.runstore.worker import is_stale

log = logging.getLogger(__name__)

CANCELLATIONS = (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit)
"""How a cancel reaches a run: a cancelled task, Ctrl-C, a stream closed by its consumer."""


class UnreleasedRun(Protocol):
    """What settling needs of a run (the run context has all of it).

    A run, not a store: :class:`~diagnosis_harness.run.context.RunContext` is in a layer above
    ``runstore``, which may not import it (docs/design.md §13), so it is named by its shape.
    """

    run_id: str
    store: RunStore
    lifecycle: RunLifecycle
    emitter: EventEmitter


def is_cancellation(error: BaseException) -> bool:
    """True when ``error`` means the run was cancelled rather than broken."""
    return isinstance(error, CANCELLATIONS)


def failure_code_of(error: BaseException) -> FailureCode:
    """The failure code of a run that ended by ``error`` without release."""
    if isinstance(error, RunPersistenceError):
        return FailureCode.RUN_PERSISTENCE_FAILED
    return FailureCode.INTERNAL_FAILURE


def write_unreleased_row(run: UnreleasedRun, *, cancelled: bool, intent: str | None = None,
                         usage: dict[str, int] | None = None,
                         failure_code: FailureCode = FailureCode.INTERNAL_FAILURE) -> bool | None:
    """Finish the run row of an unreleased run; True if written, False if already finished.

    CANCELLED when the run was cancelled (by ``error`` or earlier, through its lifecycle), else
    FAILED with ``failure_code``; the run state is the lifecycle's. None when the store cannot
    write it (logged: the run already failed, there is nothing better to do). Blocking I/O.
    """
    cancelled = cancelled or run.lifecycle.state is RunState.CANCELLED
    outcome = ReleaseOutcome.CANCELLED if cancelled else ReleaseOutcome.FAILED
    try:
        return run.store.finish_run(
            run.run_id, status=StoredRunStatus.from_outcome(outcome),
            run_state=run.lifecycle.state, release_outcome=outcome, fallback_type=None,
            failure_code=None if cancelled else failure_code,
            stop_reason=None, intent=_intent(intent), content=None,
            usage=_usage(usage))
    except RunPersistenceError as exc:
        log.error("run %s ended unreleased and its row cannot be written: %s", run.run_id, exc)
        return None


def _intent(value: object) -> Intent | None:
    """The row's intent from a state's: a value no Intent names (a foreign checkpoint) is none.

    Settling must write its row whatever the state holds: a row left unfinished is never
    finished by anyone (docs/design.md §9).
    """
    return Intent(value) if value in {i.value for i in Intent} else None


def _usage(value: object) -> BudgetUsage:
    try:
        return BudgetUsage.model_validate(value or {})
    except ValueError:
        return BudgetUsage()


async def settle_unreleased(run: UnreleasedRun, error: BaseException, *,
                            intent: str | None = None,
                            usage: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Settle a run that ended by ``error`` without release; return the events this call emitted.

    ``intent`` and ``usage`` are what the run's state says so far (the row keeps them). The
    returned events (``failure`` and ``done``, or nothing) are for a caller whose client stream
    is no longer fed by the graph: it forwards them. Nothing is emitted when the run was already
    released or settled, when it was cancelled, or when its row was finished by someone else.
    """
    cancelled = is_cancellation(error)
    ended = run.emitter.closed  # ``done`` was sent, or a cancel or an earlier settle closed it
    if cancelled:
        run.emitter.close()  # first: the client is gone, whatever happens next
    decided = run.lifecycle.terminate(RunState.CANCELLED if cancelled else RunState.FAILED)
    if not decided and ended:
        return []
    # The lifecycle may have ended earlier (a deadline, say) without anything being released:
    # the row and the client still need their end. Shielded: a cancelled caller must still
    # leave its row; a crashed one is not being cancelled, and shielding it costs nothing.
    code = failure_code_of(error)
    written = await asyncio.shield(asyncio.to_thread(
        write_unreleased_row, run, cancelled=cancelled, intent=intent, usage=usage,
        failure_code=code))
    if written is False or cancelled or run.lifecycle.state is RunState.CANCELLED:
        run.emitter.close()
        return []
    before = len(run.emitter.events)
    message = (f"the run could not be recorded: {error}" if code is FailureCode.RUN_PERSISTENCE_FAILED
               else f"internal failure: {type(error).__name__}")
    run.emitter.emit("failure", failure_code=code.value, message=message)
    run.emitter.emit("done", release_outcome=ReleaseOutcome.FAILED.value,
                     run_state=run.lifecycle.state.value)
    return run.emitter.events[before:]


def settle_abandoned(store: RunStore, run_id: str, *, thread_id: str | None, model: str,
                     message: str, intent: str | None = None,
                     usage: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Settle a run whose worker died and that cannot be continued: FAILED / RUN_ABANDONED.

    Its trace gets the end of its event stream (numbering goes on from what was recorded:
    ``failure`` then ``done``, after a ``metadata`` if none was recorded). Returns the run's
    events; nothing is written when the row was finished already. Blocking I/O.
    """
    emitter = EventEmitter(sink=lambda seq, ev: store.record_event(run_id, seq, ev),
                           prior=store.events(run_id))
    written = store.finish_run(
        run_id, status=StoredRunStatus.FAILED, run_state=RunState.FAILED,
        release_outcome=ReleaseOutcome.FAILED, fallback_type=None,
        failure_code=FailureCode.RUN_ABANDONED, stop_reason=None,
        intent=Intent(intent) if intent else None, content=None,
        usage=BudgetUsage.model_validate(usage or {}))
    if written:
        log.warning("run %s settled FAILED / RUN_ABANDONED: %s", run_id, message)
        emitter.emit("metadata", run_id=run_id, thread_id=thread_id, model=model)  # if none yet
        emitter.emit("failure", failure_code=FailureCode.RUN_ABANDONED.value, message=message)
        emitter.emit("done", release_outcome=ReleaseOutcome.FAILED.value,
                     run_state=RunState.FAILED.value)
    return emitter.events


def settle_stale_runs(store: RunStore, thread_id: str, *, model: str,
                      exclude: str | None = None) -> list[str]:
    """Settle the thread's runs whose worker died (:func:`~diagnosis_harness.runstore.worker.is_stale`).

    For a worker that cannot continue them itself (a served run touching the thread): each
    becomes FAILED / RUN_ABANDONED. ``exclude`` is the run being started or resumed. Blocking.
    """
    settled = []
    for lease in store.unfinished_runs(thread_id):
        if lease["run_id"] != exclude and is_stale(lease):
            settle_abandoned(store, lease["run_id"], thread_id=thread_id, model=model,
                             message=f"the run's worker ({lease['lease_owner']}) stopped; a new "
                                     "turn on its thread started before anyone continued it")
            settled.append(lease["run_id"])
    return settled
