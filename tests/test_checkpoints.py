"""Bounded checkpoint storage on both backends: a thread keeps what its next turn needs, no more.

A run that ends prunes its thread to the latest checkpoint (``HARNESS_CHECKPOINT_RETENTION``
``latest``, the default); a paused run keeps its history until it ends; ``all`` keeps everything.
The server's cleanup methods (``aprune``, ``adelete_for_runs``, ``adelete_thread``) work on
both, and ``harness prune --older-than`` deletes old runs and threads. Every test runs on the
SQLite checkpointer under the home and on the PostgreSQL one (the ``backend`` fixture).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import graphkit
import pytest
from graphkit import (
    CLAIMS,
    COLLECT,
    FULL_RUN,
    INC,
    INC_ROUTER,
    ROOT_CAUSE,
    checkpointer_for,
    draft,
    go,
    judge,
    services_for,
)
from langgraph.checkpoint.base.id import uuid6
from sqlalchemy import create_engine, text

import diagnosis_harness.graph.builder
import diagnosis_harness.session.hooked
from diagnosis_harness.checkpoints.savers import checkpoint_id_at
from diagnosis_harness.cli.prune import parse_age, prune_runs, prune_threads
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.run.records import run_records
from diagnosis_harness.session.run_session import RunSession
from diagnosis_harness.session.runner import new_context, run_turn
from diagnosis_harness.session.services import Services, run_store_location

pytestmark = pytest.mark.usefixtures("backend")

Q = INC["question"]


def checkpoints(services: Services, thread_id: str) -> list[Any]:
    """The thread's checkpoints as the checkpointer lists them, newest first."""
    async def listed() -> list[Any]:
        async with checkpointer_for(services) as saver:
            return [c async for c in saver.alist({"configurable": {"thread_id": thread_id}})]
    return asyncio.run(listed())


def fresh(request: pytest.FixtureRequest, tmp_path: Path, script: dict[str, list[Any]],
          **settings: Any) -> Services:
    """Services on stores of this test alone: a new home, and on Postgres a new database."""
    if graphkit.BACKEND is not None and graphkit.BACKEND.name == "postgres":
        settings["database_url"] = request.getfixturevalue("pg_url")
    return services_for(tmp_path / "home", script, **settings)


def plain(services: Services) -> Services:
    """The same services with a replay seam that records nothing (a long test's calls add up)."""
    assert services.seam.replay_script is not None
    seam = ModelSeam(services.settings, replay_script=services.seam.replay_script)
    return Services(settings=services.settings, seam=seam, backends=services.backends,
                    dataset=services.dataset, store=services.store)


def test_a_finished_run_leaves_only_the_latest_checkpoint_of_its_thread() -> None:
    thread = f"bounded-{time.monotonic_ns()}"
    services, first = go(FULL_RUN, thread_id=thread)
    assert first["release_outcome"] == "SUCCESS"
    [kept] = checkpoints(services, thread)
    assert kept.checkpoint["channel_values"]["run_id"] == first["run_id"]  # the run's last state
    # The next turn starts from it: the verified diagnosis is carried over.
    services, _ = go({"router": [INC_ROUTER], "agent": [draft(None)]}, thread_id=thread)
    [kept] = checkpoints(services, thread)
    assert ROOT_CAUSE in kept.checkpoint["channel_values"]["previous_turn"]


def test_the_kept_checkpoint_still_holds_the_runs_messages_and_records() -> None:
    # messages and records are DeltaChannels: their values live in the writes of the pruned
    # ancestors unless the kept checkpoint got a snapshot of them first.
    thread = f"kept-state-{time.monotonic_ns()}"
    services, out = go(FULL_RUN, thread_id=thread)
    assert out["release_outcome"] == "SUCCESS"
    assert len(checkpoints(services, thread)) == 1

    async def kept_state() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            config: Any = {"configurable": {"thread_id": thread}}
            return (await diagnosis_harness.session.hooked.session_graph(saver).aget_state(config)).values

    values = asyncio.run(kept_state())
    assert [r["tool_call_id"] for r in values["records"]] == ["c1", "c2"]
    # Opening (system, task), two calls with their observations, the draft.
    assert len(values["messages"]) == 2 + 2 * 2 + 1
    facts = {f.evidence_id for r in run_records(services.store, out["run_id"], values["records"])
             for f in r.facts}
    assert {"E1.1", "E1.2", "E2.1"} <= facts  # the facts the report cites, read back
    # The next turn of the thread starts from it, and is pruned the same way.
    services, again = go(FULL_RUN, thread_id=thread)
    assert again["release_outcome"] == "SUCCESS"
    values = asyncio.run(kept_state())
    assert values["run_id"] == again["run_id"] and len(values["records"]) == 2


def test_retention_all_keeps_every_checkpoint() -> None:
    thread = f"keep-all-{time.monotonic_ns()}"
    services, out = go(FULL_RUN, thread_id=thread, settings={"checkpoint_retention": "all"})
    assert out["release_outcome"] == "SUCCESS"
    assert len(checkpoints(services, thread)) >= 10


def test_a_paused_run_keeps_its_history_until_it_ends() -> None:
    services = services_for(graphkit.demo_home(), FULL_RUN)
    thread = f"paused-{time.monotonic_ns()}"
    config: Any = {"configurable": {"thread_id": thread}}
    first = new_context(services, thread_id=thread)
    history: list[int] = []

    async def scenario() -> Any:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(checkpointer=saver,
                                                       interrupt_after=["tool_gate"])
            payload: Any = {"question": Q}
            ctx = first
            while True:
                async for _ in RunSession(compiled).stream(payload, config, context=ctx):
                    pass
                snapshot = await compiled.aget_state(config)
                if not snapshot.next:
                    return snapshot.values
                history.append(len([c async for c in saver.alist(config)]))
                payload, ctx = None, new_context(services, thread_id=thread, run_id=first.run_id)

    final = asyncio.run(scenario())
    assert final["release_outcome"] == "SUCCESS"
    assert len(history) == 2 and history[0] > 1 and history[1] > history[0]  # nothing pruned
    assert len(checkpoints(services, thread)) == 1  # until the run ended


def test_the_servers_cleanup_methods_prune_delete_runs_and_threads() -> None:
    services = services_for(graphkit.demo_home(), {
        "router": [INC_ROUTER] * 2, "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(None)],
        "judge": [judge()]}, checkpoint_retention="all")
    thread = f"cleanup-{time.monotonic_ns()}"
    config: Any = {"configurable": {"thread_id": thread}}

    async def served_turn(saver: Any, run_id: str) -> None:
        # As the dev server runs a turn: its run id in the config's metadata.
        graph_ = diagnosis_harness.session.hooked.session_graph(saver)
        async for _ in graph_.astream({"question": Q}, {**config, "metadata": {"run_id": run_id}},
                                      context=new_context(services, thread_id=thread, run_id=run_id)):
            pass

    async def scenario() -> tuple[int, int, int, int, set[str]]:
        async with checkpointer_for(services) as saver:
            await served_turn(saver, f"{thread}-1")
            await served_turn(saver, f"{thread}-2")
            before = [c async for c in saver.alist(config)]
            # A rolled-back run (multitask_strategy="rollback") takes its checkpoints with it.
            await saver.adelete_for_runs([f"{thread}-2"])
            after_rollback = [c async for c in saver.alist(config)]
            await saver.aprune([thread], strategy="keep_latest")
            after_prune = [c async for c in saver.alist(config)]
            await saver.adelete_thread(thread)
            left = len([c async for c in saver.alist(config)])
            return (len(before), len(after_rollback), len(after_prune), left,
                    {c.metadata["run_id"] for c in after_rollback})

    before, after_rollback, after_prune, left, runs_left = asyncio.run(scenario())
    assert before > 15 and 0 < after_rollback < before
    assert runs_left == {f"{thread}-1"}
    assert (after_prune, left) == (1, 0)


def test_checkpoint_ids_order_by_time_as_the_age_cutoff_assumes() -> None:
    made = str(uuid6(clock_seq=3))
    now = datetime.now(UTC)
    assert checkpoint_id_at(now - timedelta(seconds=5)) < made < checkpoint_id_at(now + timedelta(seconds=5))


def test_prune_by_age_deletes_old_runs_with_their_trace_and_old_threads(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    services = fresh(request, tmp_path, {"router": [INC_ROUTER] * 2,
                                         "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)] * 2,
                                         "judge": [judge()] * 2})
    old = graphkit.run(services, Q, thread_id="old-thread")
    new = graphkit.run(services, Q, thread_id="new-thread")
    # Age the first run by ten days (its row), as if it had finished then.
    location = run_store_location(services.settings)
    engine = create_engine(location if isinstance(location, str) else f"sqlite:///{location}")
    ten_days_ago = (datetime.now(UTC) - timedelta(days=10)).isoformat()
    with engine.begin() as conn:
        conn.execute(text("UPDATE runs SET finished_at = :t WHERE run_id = :r"),
                     {"t": ten_days_ago, "r": old["run_id"]})
    engine.dispose()
    assert services.store.trace(old["run_id"])["events"]
    week_ago = datetime.now(UTC) - parse_age("7d")
    pruned, trace = prune_runs(location, week_ago)
    assert pruned == 1 and trace >= len(old["events"]) + 2  # events, tool records, model calls…
    assert services.store.get_run(old["run_id"]) is None
    assert services.store.trace(old["run_id"]) == {"tool_records": [], "model_calls": [],
                                                   "receipts": [], "verdicts": [], "events": []}
    assert services.store.get_run(new["run_id"])["status"] == "SUCCESS"
    # Threads go by their latest checkpoint: none is a week old; both are older than "now".
    assert asyncio.run(prune_threads(services.settings, week_ago)) == 0
    assert asyncio.run(prune_threads(services.settings, datetime.now(UTC) + timedelta(seconds=1))) == 2
    assert checkpoints(services, "old-thread") == checkpoints(services, "new-thread") == []


def test_parse_age_reads_units_and_refuses_nonsense() -> None:
    assert parse_age("7d") == timedelta(days=7) and parse_age("90m") == timedelta(minutes=90)
    assert parse_age(" 2w ") == timedelta(weeks=2) and parse_age("30s") == timedelta(seconds=30)
    for bad in ("", "7", "d", "0d", "-1d", "7x", "1.5h"):
        with pytest.raises(ValueError, match="--older-than"):
            parse_age(bad)


RUNS = 100


def storage_bytes(services: Services) -> dict[str, int]:
    """Checkpoint storage: live bytes in the checkpoint tables, and what the database occupies."""
    url = services.settings.database_url
    if url is None:
        path = Path(services.settings.home) / "checkpoints.sqlite"
        with sqlite3.connect(path) as conn:
            live = conn.execute(
                "SELECT (SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0) FROM "
                "checkpoints) + (SELECT coalesce(sum(length(value)), 0) FROM writes)").fetchone()[0]
        wal = path.with_name(path.name + "-wal")
        return {"live": int(live), "disk": path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)}
    engine = create_engine(url.get_secret_value())
    tables = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        # What autovacuum does within a minute on a live server: freed space becomes reusable.
        conn.execute(text(f"VACUUM {', '.join(tables)}"))
        live = sum(conn.execute(text(f"SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {t} t")).scalar()
                   for t in tables)
        disk = sum(conn.execute(text(f"SELECT pg_total_relation_size('{t}')")).scalar() for t in tables)
    engine.dispose()
    return {"live": int(live), "disk": int(disk)}


@pytest.mark.slow
def test_a_hundred_runs_on_one_thread_keep_checkpoint_storage_bounded(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    script = {"router": [INC_ROUTER] * RUNS, "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)] * RUNS,
              "judge": [judge()] * RUNS}
    services = plain(fresh(request, tmp_path, script))
    sizes: dict[int, dict[str, int]] = {}

    async def hundred() -> None:
        async with checkpointer_for(services) as saver:  # one process serving every turn
            for n in range(1, RUNS + 1):
                out = await run_turn(services, Q, thread_id="long-lived", checkpointer=saver)
                assert out["release_outcome"] in ("SUCCESS", "FALLBACK"), out
                if n == 1 or n % 10 == 0:  # on Postgres, with the VACUUM autovacuum would run
                    sizes[n] = await asyncio.to_thread(storage_bytes, services)

    started = time.monotonic()
    asyncio.run(hundred())
    print(f"\n{graphkit.BACKEND.name if graphkit.BACKEND else '?'}: {sizes} "
          f"({time.monotonic() - started:.1f} s)")
    assert len(checkpoints(services, "long-lived")) == 1
    # Live checkpoint data is one thread's latest state (~10-17 KB), whatever the number of runs
    # (kept whole, each run would add ~80 KB on Postgres, ~200 KB on SQLite)...
    assert sizes[RUNS]["live"] <= 1.1 * sizes[10]["live"] and sizes[RUNS]["live"] < 64 * 1024
    # ...and the space the database takes stops growing: freed pages are reused (SQLite: file
    # and WAL ~4.6 MB, the WAL's high-water mark; Postgres: ~1 MB with autovacuum's VACUUM).
    assert sizes[RUNS]["disk"] <= 1.5 * sizes[10]["disk"]
    assert sizes[RUNS]["disk"] < 6 * 1024 * 1024
