"""The run context: what a run *uses* (settings, models, backends, store, clock, cancel signal).

Passed explicitly as LangGraph's ``context`` (``Runtime[RunContext]``), never through globals.
Nothing here is checkpointed; what the run *has done* lives in :mod:`diagnosis_harness.run.state`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.budget import Budget, BudgetLimits, BudgetUsage
from diagnosis_harness.control.events import EventEmitter
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.store import RunStore

if TYPE_CHECKING:  # the tools' backends open SQLite and more: not imported to start a run
    from langgraph.runtime import Runtime

    from diagnosis_harness.tools.backends import Backends
    from diagnosis_harness.tools.dataset.layout import DatasetInfo


@dataclass
class RunContext:
    """Everything a node needs that is not state. One per run."""

    run_id: str
    thread_id: str | None
    settings: Settings
    seam: ModelSeam
    backends: Backends
    """The evidence tools' backends: the log store, the ops database, the knowledge index."""
    dataset: DatasetInfo
    """What the router needs to know of the dataset (known services, latest event time)."""
    store: RunStore
    lifecycle: RunLifecycle
    emitter: EventEmitter = field(default_factory=EventEmitter)
    input_problem: str | None = None
    """Why this turn's input or the client's run options cannot be used: ``route`` refuses the
    run with it (INVALID_INPUT) before anything else."""
    actor: str | None = None
    """Who started this stream: the server's auth user, ``api``, or ``cli:USER`` (an approval
    records it as who decided)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Trace labels every model call carries as metadata (run id, thread id, intent)."""
    start: dict[str, Any] = field(default_factory=dict)
    """How this stream began the run (docs/design.md §14): ``kind`` start, continue or fork,
    and what the run store's lineage records of it (parent, fork point, inherited, edits…)."""
    mcp_tools: dict[str, Any] = field(default_factory=dict)
    """Evidence tools from MCP servers by name (``tools.registry.ToolSpec``), besides the built-in."""
    stored_calls: set[str] | None = None
    """Ids of the tool calls the run store holds for this run, as this stream knows them: read
    once by the stream's first tool gate, then kept by the gates (a run has one worker: its
    lease), so a gate asks the store for a call only if it was made before (a resume)."""

    def budget(self, usage: dict[str, int] | None) -> Budget:
        """A budget over the run's checkpointed usage (a resumed run keeps what it spent)."""
        return Budget(BudgetLimits.from_settings(self.settings),
                      BudgetUsage.model_validate(usage) if usage else BudgetUsage())


def run_context(runtime: Runtime[RunContext]) -> RunContext:
    """The run context of a node: ``runtime.context``, set for every run before it starts.

    The CLI runner passes one; for a server run (whose API sends JSON) the run session
    resolves one through its ``resolve_context``, before the run's first node.
    """
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, RunContext):
        return ctx
    raise RuntimeError("no run context: pass context=RunContext(...) or stream the graph "
                       "through a run session with resolve_context")
