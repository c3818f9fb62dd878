"""Many workers, one truth: 40 diagnoses from 4 OS processes at once on one store.

Each process is a worker as a script would run one (``Services.from_settings``, the checkpointer
``open_checkpointer`` opens, ``run_turn``), with the offline investigator on the demo data, and
runs ten diagnoses concurrently. On PostgreSQL the processes share one database through
``HARNESS_DATABASE_URL``; on SQLite they share one home (writes are serialised by SQLite's
lock, never lost). Either way: 40 terminal rows, each run's events a valid sequence that the
trace holds exactly, each thread pruned to one checkpoint, and no lock failure anywhere.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from graphkit import INC

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import open_checkpointer
from diagnosis_harness.session.services import Services

pytestmark = pytest.mark.slow

PROCESSES, RUNS_EACH = 4, 10
REPO = Path(__file__).resolve().parents[1]

WORKER = r"""
import asyncio, json, sys
from diagnosis_harness.session.runner import open_checkpointer, run_turn
from diagnosis_harness.session.services import Services
from diagnosis_harness.control.settings import load_settings

worker, runs, question = sys.argv[1], int(sys.argv[2]), sys.argv[3]
settings = load_settings()  # HARNESS_HOME and HARNESS_DATABASE_URL from the environment
services = Services.from_settings(settings)

async def main():
    async with open_checkpointer(settings) as saver:
        return await asyncio.gather(*(
            run_turn(services, question, thread_id=f"{worker}-{i}", checkpointer=saver)
            for i in range(runs)))

outs = asyncio.run(main())
keys = ("run_id", "thread_id", "release_outcome", "failure_code", "events", "error")
print(json.dumps([{k: out.get(k) for k in keys} for out in outs]))
"""


def valid_sequence(events: list[dict[str, Any]]) -> bool:
    """docs/design.md §5: metadata, status*, then content or failure, then done."""
    kinds = [e["event"] for e in events]
    body = kinds[1:-2]
    return (kinds[:1] == ["metadata"] and all(k == "status" for k in body)
            and kinds[-2:] in (["content", "done"], ["failure", "done"]))


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_forty_diagnoses_from_four_processes_at_once(
        where: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env["HARNESS_HOME"] = str(tmp_path / "home")
    if where == "postgres":
        env["HARNESS_DATABASE_URL"] = request.getfixturevalue("pg_url")
    settings = load_settings(home=env["HARNESS_HOME"], database_url=env.get("HARNESS_DATABASE_URL"))
    store = Services.from_settings(settings).store  # the dataset indexed and the store migrated once

    workers = [subprocess.Popen([sys.executable, "-c", WORKER, f"w{n}", str(RUNS_EACH), INC["question"]],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for n in range(PROCESSES)]
    outs: list[dict[str, Any]] = []
    for proc in workers:
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr[-3000:]
        assert "locked" not in stderr.lower() and "Traceback" not in stderr, stderr[-3000:]
        outs.extend(json.loads(stdout.strip().splitlines()[-1]))

    assert len(outs) == PROCESSES * RUNS_EACH == len({o["run_id"] for o in outs})
    for out in outs:  # every one released as one run alone would be: no lock failure, no loss
        assert (out["release_outcome"], out["failure_code"], out["error"]) == ("SUCCESS", None, None), out
        assert valid_sequence(out["events"]), out["events"]
        row = store.get_run(out["run_id"])
        assert row is not None and row["finished_at"] is not None
        assert (row["status"], row["thread_id"]) == ("SUCCESS", out["thread_id"])
        assert store.events(out["run_id"]) == out["events"]  # the trace holds what was sent

    async def checkpoints_per_thread() -> set[int]:
        async with open_checkpointer(settings) as saver:
            return {len([c async for c in saver.alist({"configurable": {"thread_id": o["thread_id"]}})])
                    for o in outs}

    assert asyncio.run(checkpoints_per_thread()) == {1}


def test_workers_that_open_a_new_postgres_database_together_all_start(pg_url: str) -> None:
    """Eight first opens at once: one migrates the checkpointer's tables, the others wait for it.

    (Its migrations build indexes CONCURRENTLY, which wait for every open transaction: workers
    blocked on a lock inside one would deadlock with it.)
    """
    settings = load_settings(database_url=pg_url)

    async def start() -> None:
        async with open_checkpointer(settings) as saver:
            await saver.aget_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})

    async def together() -> list[Any]:
        return await asyncio.gather(*(start() for _ in range(8)), return_exceptions=True)

    assert [r for r in asyncio.run(together()) if isinstance(r, BaseException)] == []
