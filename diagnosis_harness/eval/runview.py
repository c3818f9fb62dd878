"""One stored run as the report's run view, for ``harness runs show RUN_ID --html``.

The same :class:`~diagnosis_harness.eval.scoring.RunView` an eval case gets: the run row and
events from the run store, the draft, records and scope from the thread's checkpoint of that
run (the newest one whose state is this run's), and the incident picture from the dataset the
settings name (the run row does not record its dataset; none is drawn when it cannot be opened).
"""

from __future__ import annotations

import asyncio
from typing import Any

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.eval.picture import marked, timeline
from diagnosis_harness.eval.runner import run_view
from diagnosis_harness.eval.scoring import RunView
from diagnosis_harness.graph.builder import build_graph
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import open_checkpointer


async def _state_of(settings: Settings, thread_id: str, run_id: str) -> dict[str, Any]:
    async with open_checkpointer(settings) as saver:
        graph = build_graph(saver)
        async for snapshot in graph.aget_state_history({"configurable": {"thread_id": thread_id}}):
            values = snapshot.values or {}
            if values.get("run_id") == run_id:
                return dict(values)
    return {}


def stored_run_view(settings: Settings, store: RunStore, run_id: str) -> tuple[str, RunView] | None:
    """``(question, view)`` of a stored run, or None when the store has no such run."""
    row = store.get_run(run_id)
    if row is None:
        return None
    state = asyncio.run(_state_of(settings, row["thread_id"], run_id))
    out = {**row, "events": store.events(run_id), "intent": row.get("intent") or state.get("intent")}
    view = run_view(store, out, state)
    try:
        from diagnosis_harness.tools.backends import Backends

        backends = Backends.from_settings(settings)
    except Exception:  # noqa: BLE001 — no built dataset here: the view without its picture
        return row["question"], view
    try:
        with backends.lock:
            picture = timeline(backends.logs, view.scope,
                               marked((c.tool, c.evidence_id, c.text) for c in view.cited))
    finally:
        backends.close()
    return row["question"], view.model_copy(update={"picture": picture})
