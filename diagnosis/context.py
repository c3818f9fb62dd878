"""The run context: what a run *uses* (settings, models, backends, store, clock, cancel signal).

Passed explicitly as LangGraph's ``context`` (``Runtime[RunContext]``), never through globals.
Nothing here is checkpointed; what the run *has done* lives in :mod:`diagnosis.state`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.budget import Budget, BudgetLimits, BudgetUsage
from harness.contracts import FailureCode, Intent, ReleaseOutcome, RunState, StoredRunStatus
from harness.events import EventEmitter
from harness.lifecycle import RunLifecycle
from harness.runstore import RunPersistenceError, RunStore
from harness.settings import Settings
from providers.seam import ModelSeam

log = logging.getLogger(__name__)


@dataclass
class RunContext:
    """Everything a node needs that is not state. One per run."""

    run_id: str
    thread_id: str | None
    settings: Settings
    seam: ModelSeam
    backends: Any
    """The evidence tools' backends (tools.boundary.Backends)."""
    dataset: Any
    """What the router needs to know of the dataset (known services, latest event time)."""
    store: RunStore
    lifecycle: RunLifecycle
    emitter: EventEmitter = field(default_factory=EventEmitter)

    def write_unreleased_row(self, intent: str | None = None,
                             usage: dict[str, int] | None = None) -> None:
        """Store the row of a run that ended without release (cancelled, or crashed).

        Outcome from the lifecycle: CANCELLED, else FAILED/INTERNAL_FAILURE. First terminal wins
        in the store too. Blocking I/O: call it off the event loop.
        """
        cancelled = self.lifecycle.state is RunState.CANCELLED
        outcome = ReleaseOutcome.CANCELLED if cancelled else ReleaseOutcome.FAILED
        try:
            self.store.finish_run(
                self.run_id, status=StoredRunStatus.from_outcome(outcome),
                run_state=self.lifecycle.state, release_outcome=outcome, fallback_type=None,
                failure_code=None if cancelled else FailureCode.INTERNAL_FAILURE,
                stop_reason=None, intent=Intent(intent) if intent else None, content=None,
                usage=BudgetUsage.model_validate(usage or {}))
        except RunPersistenceError as exc:
            log.error("run %s ended unreleased and its row cannot be written: %s", self.run_id, exc)

    def publish_unreleased_end(self, message: str) -> None:
        """Tell the client how an unreleased run ended: nothing after a cancel, else failure+done."""
        if self.lifecycle.state is RunState.CANCELLED:
            self.emitter.close()
            return
        self.emitter.emit("failure", failure_code=FailureCode.INTERNAL_FAILURE.value,
                          message=message)
        self.emitter.emit("done", release_outcome=ReleaseOutcome.FAILED.value,
                          run_state=self.lifecycle.state.value)

    def budget(self, usage: dict[str, int] | None) -> Budget:
        """A budget over the run's checkpointed usage (a resumed run keeps what it spent)."""
        return Budget(BudgetLimits.from_settings(self.settings),
                      BudgetUsage.model_validate(usage) if usage else BudgetUsage())


ContextProvider = Callable[[Any], RunContext]
"""Builds the run context when the caller could not pass one (the dev server's API sends JSON)."""

_provider: list[ContextProvider] = []


def set_context_provider(provider: ContextProvider) -> None:
    """Install the serving adapter's provider (called once when the served graph is loaded)."""
    _provider[:] = [provider]


def run_context(runtime: Any) -> RunContext:
    """The run context of a node: the one passed in, or the serving adapter's for this run."""
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, RunContext):
        return ctx
    if _provider:
        return _provider[0](ctx)
    raise RuntimeError("no run context: pass context=RunContext(...) or serve through app.serving")
