"""The graph handed to a loop the harness does not drive: the dev server's API, a user's ``ainvoke``.

The CLI, resume, eval and the alert intake drive a plain compiled graph through a
:class:`~diagnosis_harness.session.run_session.RunSession`. Two callers cannot: ``langgraph dev``
(LangGraph's API calls ``astream`` and ``update_state`` on the graph itself) and
:func:`diagnosis_harness.build_graph` (documented as a graph to ``ainvoke``). For them
:class:`SessionGraph` is the smallest hook that keeps the guarantees of docs/design.md §9 and
§14: its ``astream`` is the run session's stream, and its state edits are checked before they
are written and recorded after. Why a graph factory alone cannot carry these (it never sees the
run's input, the durability the API asks for, or an edit's values) is in docs/design.md §14.

It is the one place the package depends on how LangGraph makes a compiled graph: it is re-made
from the compiled graph's attributes, as ``Pregel.copy`` re-makes one (tests/test_public_langgraph.py
names it; it is what holds the ``langgraph<1.3`` pin).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.errors import InvalidUpdateError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateUpdate

from diagnosis_harness.continuations.edits import awaiting_approval, edit_problem
from diagnosis_harness.continuations.lineage import record_edit
from diagnosis_harness.graph.builder import compiled_graph
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.run_session import ResolveContext, RunSession

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.pregel import Pregel
    from langgraph.types import Interrupt

_MISFIT = (TypeError, KeyError, AttributeError, IndexError)
"""What a routing function raises on an edited state that passed the type checks but that the
graph cannot go on from: the edit is refused (HTTP 400), never a server error."""


class SessionGraph(CompiledStateGraph):  # type: ignore[type-arg]
    """The compiled graph whose stream is a run session and whose state edits are checked."""

    def __init__(self, *, resolve_context: ResolveContext | None = None,
                 edit_log: RunStore | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Attributes, so that Pregel.copy() passes them back.
        self.resolve_context = resolve_context
        self.edit_log = edit_log
        """Where state edits are recorded (the served graph's run store), if anywhere."""

    def astream(self, input: Any, config: RunnableConfig | None = None, *, context: Any = None,
                **kwargs: Any) -> AsyncIterator[Any]:
        """Stream one run as :meth:`RunSession.stream` does (``ainvoke`` goes through here too)."""
        session = RunSession(self, resolve_context=self.resolve_context,
                             raw_stream=super().astream)
        return session.stream(input, config, context=context, **kwargs)

    async def abulk_update_state(self, config: RunnableConfig,
                                 supersteps: Sequence[Sequence[StateUpdate]]) -> RunnableConfig:
        """Edit the thread's state (Studio, ``threads.update_state``): checked, then recorded.

        docs/design.md §14: run control cannot be edited; every edit is recorded with its keys,
        the node it was made as, and who made it, so the run that goes on from it says so.
        """
        _check_edits(supersteps)
        if self.checkpointer is not None:
            _check_pending((await self.aget_state(config)).interrupts)
        try:
            done = await super().abulk_update_state(config, supersteps)
        except _MISFIT as exc:
            raise _misfit(exc) from exc
        if self.edit_log is not None:
            await asyncio.to_thread(record_edit, self.edit_log, config, done, supersteps)
        return done

    def bulk_update_state(self, config: RunnableConfig,
                          supersteps: Sequence[Sequence[StateUpdate]]) -> RunnableConfig:
        """The synchronous form of :meth:`abulk_update_state`, with the same checks."""
        _check_edits(supersteps)
        if self.checkpointer is not None:
            _check_pending(self.get_state(config).interrupts)
        try:
            done = super().bulk_update_state(config, supersteps)
        except _MISFIT as exc:
            raise _misfit(exc) from exc
        if self.edit_log is not None:
            record_edit(self.edit_log, config, done, supersteps)
        return done


async def write_released(graph: Pregel, config: RunnableConfig, released: dict[str, Any]) -> RunnableConfig:
    """The harness's own write of release's update as the thread's final checkpoint.

    Not a client's edit: neither checked nor recorded as one (the runner retries the final
    checkpoint with it when LangGraph could not write it, docs/design.md §9).
    """
    update = [[StateUpdate(released, "release")]]
    if isinstance(graph, SessionGraph):
        return await CompiledStateGraph.abulk_update_state(graph, config, update)
    return await graph.abulk_update_state(config, update)


def _misfit(exc: BaseException) -> InvalidUpdateError:
    return InvalidUpdateError(f"state edit refused: the graph cannot go on from the edited "
                              f"state ({type(exc).__name__}: {exc})")


def _check_edits(supersteps: Sequence[Sequence[StateUpdate]]) -> None:
    for superstep in supersteps:
        for update in superstep:
            if (problem := edit_problem(update.values)) is not None:
                raise InvalidUpdateError(f"state edit refused: {problem}")


def _check_pending(interrupts: Sequence[Interrupt]) -> None:
    """A run that awaits approval can only be decided (docs/design.md §14)."""
    if awaiting_approval(interrupts):
        raise InvalidUpdateError("state edit refused: the run awaits approval and can only be "
                                 "decided: approve or reject it (Command(resume=…), "
                                 "harness runs approve), or cancel it")


_hooked: dict[int, tuple[Any, SessionGraph]] = {}
"""The SessionGraph of each compiled graph (by identity; the compiled graph is kept with it)."""


def session_graph(checkpointer: BaseCheckpointSaver | None = None, *, context_schema: type[Any] = RunContext,
                  resolve_context: ResolveContext | None = None,
                  edit_log: RunStore | None = None) -> SessionGraph:
    """The diagnosis graph as a :class:`SessionGraph`, with a checkpointer, resolver and edit log."""
    plain = compiled_graph(context_schema)
    found = _hooked.get(id(plain))
    if found is None or found[0] is not plain:
        # Re-made as the subclass the way Pregel.copy() re-makes a graph: from its attributes.
        attrs = {k: v for k, v in plain.__dict__.items() if k != "__orig_class__"}
        found = _hooked[id(plain)] = (plain, SessionGraph(**attrs))
    return found[1].copy(update={"checkpointer": checkpointer, "resolve_context": resolve_context,
                                 "edit_log": edit_log})
