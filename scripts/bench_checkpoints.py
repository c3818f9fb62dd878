"""Benchmark the SQLite checkpointer's writes for a run's worth of steps (not a test).

One step = a node's writes (``aput_writes``, 3 channels) then its checkpoint (``aput``), as a
run with durability ``sync`` saves them before the next node starts. The savers run on the same
file settings (WAL, synchronous=NORMAL, the home's lock wait), in alternating rounds:

- library: LangGraph's ``AsyncSqliteSaver`` as it ships;
- harness: the saver of ``diagnosis_harness/checkpoints/sqlite.py``;
- other (with ``--saver-file``): the saver of a copy of that module from another commit, so two
  commits are compared side by side in one run.

Prints, per saver, the time of one step (p50/p95, ms), how many times faster than the library
saver its median step is, and the process CPU per step. ``--threads N`` runs N threads' steps
at once on the one connection, as a server's concurrent runs share it (the harness saver then
commits the writes that wait together in one transaction).

    .venv/bin/python scripts/bench_checkpoints.py [--steps 300] [--rounds 5] [--threads 20]
    git show COMMIT:diagnosis_harness/checkpoints/sqlite.py > /tmp/other_sqlite.py
    .venv/bin/python scripts/bench_checkpoints.py --saver-file /tmp/other_sqlite.py
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from diagnosis_harness.runstore.store import sqlite_pragmas


def _saver_class(module: ModuleType) -> type[AsyncSqliteSaver]:
    """The module's subclass of the library saver (whatever its name at that commit)."""
    found = [v for v in vars(module).values() if isinstance(v, type)
             and issubclass(v, AsyncSqliteSaver) and v is not AsyncSqliteSaver]
    if len(found) != 1:
        sys.exit(f"{module.__name__}: expected one AsyncSqliteSaver subclass, found {found}")
    return found[0]


def _load(path: str) -> type[AsyncSqliteSaver]:
    spec = importlib.util.spec_from_file_location("bench_saver_module", path)
    if spec is None or spec.loader is None:
        sys.exit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return _saver_class(module)


async def _steps(cls: type[AsyncSqliteSaver], path: Path, steps: int,
                 threads: int = 1) -> tuple[list[float], float]:
    """Per-step seconds of ``steps`` node writes + checkpoints on each of ``threads`` threads
    at once on one fresh file, and the process CPU-seconds per step."""
    conn = await aiosqlite.connect(str(path))
    try:
        for pragma in sqlite_pragmas():
            await conn.execute(pragma)
        saver = cls(conn)
        await saver.setup()
        payload = {"messages": ["x" * 400] * 3, "usage": {"model_calls": 1, "tokens": 900}}

        async def thread(name: str) -> list[float]:
            config: dict[str, Any] = {"configurable": {"thread_id": name, "checkpoint_ns": ""}}
            times = []
            for step in range(steps):
                checkpoint = empty_checkpoint()
                checkpoint["channel_values"] = {**payload, "step": step}
                began = time.perf_counter()
                if "checkpoint_id" in config["configurable"]:
                    await saver.aput_writes(config, [("messages", payload["messages"]),
                                                     ("usage", payload["usage"]),
                                                     ("branch:to:model", None)],
                                            task_id=f"task{step}")
                config = await saver.aput(config, checkpoint, {"source": "loop", "step": step}, {})
                times.append(time.perf_counter() - began)
            return times

        cpu = time.process_time()
        done = await asyncio.gather(*(thread(f"t{i}") for i in range(threads)))
        return [t for times in done for t in times], (time.process_time() - cpu) / (steps * threads)
    finally:
        await conn.close()


def _ms(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--saver-file", help="the saver module of another commit")
    parser.add_argument("--threads", type=int, default=1, help="threads writing at once")
    args = parser.parse_args()
    from diagnosis_harness.checkpoints import sqlite

    savers = {"library": AsyncSqliteSaver, "harness": _saver_class(sqlite)}
    if args.saver_file:
        savers["other"] = _load(args.saver_file)
    times: dict[str, list[float]] = {name: [] for name in savers}
    cpu: dict[str, list[float]] = {name: [] for name in savers}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for name, cls in savers.items():  # alternating: both see the same machine load
                took, per_step = await _steps(cls, Path(tmp) / f"{name}-{round_}.sqlite",
                                              args.steps, args.threads)
                times[name] += took
                cpu[name].append(per_step)
    print(f"{args.rounds} rounds x {args.steps} steps (node writes + checkpoint) each, "
          f"{args.threads} thread(s) at once")
    library = statistics.median(times["library"])
    for name, cls in savers.items():
        print(f"{name:8} {cls.__name__:22} p50 {_ms(times[name], .5):.3f} ms  "
              f"p95 {_ms(times[name], .95):.3f} ms  "
              f"{library / statistics.median(times[name]):.2f}x the library's speed  "
              f"CPU {statistics.median(cpu[name]) * 1000:.3f} ms a step")


if __name__ == "__main__":
    asyncio.run(main())
