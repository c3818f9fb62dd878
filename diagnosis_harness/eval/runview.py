"""One stored run as the report's run view, for ``harness runs show RUN_ID --html``.

The same :class:`~diagnosis_harness.eval.scoring.RunView` an eval case gets: the run row and
events from the run store, the draft, records and scope from the thread's checkpoint of that
run (the newest one whose state is this run's). The incident picture is drawn from the run's
own tool records (:func:`records_picture`): the log events and the pattern counts it retrieved,
over its window — the run row does not record its dataset, and the settings' dataset (the demo,
by default) may not be the run's. Only a run whose records hold no log facts is drawn from the
dataset ``--data`` names.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterable, Mapping
from contextlib import closing
from datetime import datetime
from typing import Any

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.eval.picture import Timeline, marked, timeline
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


def stored_run_view(settings: Settings, store: RunStore, run_id: str,
                    state: dict[str, Any] | None = None) -> tuple[str, RunView] | None:
    """``(question, view)`` of a stored run, or None when the store has no such run.

    ``state`` is the run's graph state where the caller has it (the served run page asks its
    server); without it, the thread's checkpoints are read here.
    """
    row = store.get_run(run_id)
    if row is None:
        return None
    if state is None:
        state = asyncio.run(_state_of(settings, row["thread_id"], run_id))
    out = {**row, "events": store.events(run_id), "intent": row.get("intent") or state.get("intent")}
    view = run_view(store, out, state)
    records = store.tool_records(run_id)
    scope = view.scope if view.scope and view.scope.get("start") else _records_scope(records)
    cited = marked((c.tool, c.evidence_id, c.text) for c in view.cited)
    picture = records_picture(records, scope, cited)
    if picture is not None and picture.series:
        return row["question"], view.model_copy(update={"picture": picture, "scope": scope})
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


_PATTERN_KINDS = {"error_pattern": "count", "window_pattern": "window_count", "onset": "window_count"}
"""Facts that count a pattern's events over ``first_seen..last_seen``, and their count key."""
_SPREAD_CAP = 5000
"""At most this many points per pattern fact (a count spread evenly over first..last seen)."""


def _ms(text: object) -> int | None:
    try:
        return int(datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _records_scope(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The window of the run's first log query, when its checkpoint is not here to say."""
    for record in records:
        args = record.get("args") or {}
        if record.get("tool") in ("query_logs", "compare_windows", "onset_timeline") \
                and args.get("start") and args.get("end"):
            return {"service": args.get("service"), "merchant": None, "start": args["start"],
                    "end": args["end"]}
    return None


def records_picture(records: Iterable[Mapping[str, Any]], scope: Mapping[str, Any] | None,
                    cited: list[tuple[str, str]]) -> Timeline | None:
    """The incident picture of the log facts a run retrieved (None without a window).

    A pattern fact (``query_logs``' warning/error patterns, the statistics tools' rows) counts
    its events exactly, spread evenly over its first..last seen; a log event fact adds one
    event of a level no pattern fact of its record counts (an INFO line next to the ERROR
    patterns). Facts repeated by several calls count once.
    """
    points: list[tuple[str, int, str]] = []
    seen: set[tuple[Any, ...]] = set()
    for record in records:
        facts = [f for f in record.get("facts") or [] if isinstance(f.get("data"), dict)]
        service_arg = (record.get("args") or {}).get("service")
        patterned = {f["data"].get("level") for f in facts if f.get("kind") in _PATTERN_KINDS}
        for fact in facts:
            data, kind = fact["data"], fact.get("kind")
            service = data.get("service") or service_arg
            if not service:
                continue
            if kind in _PATTERN_KINDS:
                key = (service, data.get("level"), data.get("template") or data.get("pattern"),
                       data.get("first_seen"), data.get("last_seen"))
                first, last = _ms(data.get("first_seen")), _ms(data.get("last_seen"))
                count = data.get(_PATTERN_KINDS[kind])
                if key in seen or first is None or last is None or not isinstance(count, int):
                    continue
                seen.add(key)
                n = max(1, min(count, _SPREAD_CAP))
                step = (last - first) / max(n - 1, 1)
                points += [(service, round(first + i * step), str(data.get("level")))
                           for i in range(n)]
            elif kind == "log_event" and data.get("level") not in patterned:
                key = (service, data.get("ts"), data.get("message"), None, None)
                ts = _ms(data.get("ts"))
                if key in seen or ts is None:
                    continue
                seen.add(key)
                points.append((service, ts, str(data.get("level"))))
    with closing(sqlite3.connect(":memory:")) as logs:
        logs.execute("CREATE TABLE events(service TEXT, ts_ms INTEGER, level TEXT)")
        logs.executemany("INSERT INTO events VALUES (?, ?, ?)", points)
        return timeline(logs, scope, cited)
