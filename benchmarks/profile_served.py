"""Profile what the server does for N concurrent runs, in-process: the served graph itself.

``python -m benchmarks.profile_served [--n 20] [--top 30]`` builds the serving adapter as the
dev server does (offline model, demo data, a fresh home, the SQLite checkpointer of
:func:`diagnosis_harness.serving.adapter.checkpointer`) and streams N diagnoses of the demo
question at once on one event loop (custom + values modes, as ``runs.stream`` asks), under
cProfile. It prints the wall time and the functions with the most own and cumulative time:
the server's HTTP and queueing are left out (:mod:`benchmarks.served` measures the whole).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable

from benchmarks.workload import QUESTION

SERVER_MODES = ("values", "debug", "updates")
"""The modes the dev server streams a ``runs.wait`` with: the client's ``values``, and the
``debug`` (each checkpoint, with its tasks) and ``updates`` the server always adds."""


async def _runs(n: int, warmed: Callable[[], object] = lambda: None,
                modes: tuple[str, ...] = ("custom", "values")) -> tuple[float, float]:
    from diagnosis_harness.serving import adapter as served

    async with served.checkpointer() as saver:
        graph = (await served.make_graph()).copy(update={"checkpointer": saver})

        async def one() -> None:
            run = str(uuid.uuid4())
            config = {"configurable": {"thread_id": str(uuid.uuid4()), "run_id": run},
                      "metadata": {"run_id": run}}
            async for _ in graph.astream({"question": QUESTION}, config,
                                         stream_mode=list(modes)):
                pass

        await one()  # warm-up
        warmed()  # (the profile of imports and first-use set-up is dropped here)
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one() for _ in range(n)))
        return time.perf_counter() - started, time.process_time() - cpu


def _with_yappi(n: int, top: int, clock: str, modes: tuple[str, ...]) -> int:
    """The tool threads, the trace writer and the executor's workers too (cProfile sees one)."""
    import yappi  # type: ignore[import-not-found]  # optional: pip install yappi

    yappi.set_clock_type(clock)
    yappi.start()
    wall, _ = asyncio.run(_runs(n, yappi.clear_stats, modes))
    yappi.stop()
    print(f"{n} runs at once in-process under yappi ({clock} clock): wall {wall:.2f} s")
    for sort in ("tsub", "ttot"):
        stats = yappi.get_func_stats()
        stats.sort(sort, "desc")
        print(f"--- by {sort}")
        for row in list(stats)[:top]:
            where = f"{row.module.split('site-packages/')[-1]}:{row.lineno}"
            print(f"{row.ttot:8.3f} {row.tsub:8.3f} {row.ncall:7d}  {where} {row.name}")
    by_package: Counter[str] = Counter()
    for row in yappi.get_func_stats():
        path = row.module.split("site-packages/")[-1].replace("/work/", "")
        by_package[path.split("/")[0] if "site-packages" in row.module else "/".join(
            path.split("/")[:3])] += row.tsub
    print("--- own time by package (harness: by folder)")
    for name, seconds in by_package.most_common(top):
        print(f"{seconds:8.3f}  {name}")
    for thread in yappi.get_thread_stats():
        print(f"thread {thread.name:<24} {thread.ttot:8.3f} s  switches {thread.sched_count}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Time (and profile) N concurrent in-process runs; print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true", help="time only")
    parser.add_argument("--yappi", choices=["cpu", "wall"], default=None,
                        help="profile every thread with yappi (if installed), not only the loop's")
    parser.add_argument("--server-modes", action="store_true",
                        help="stream as the server does for runs.wait: " + ", ".join(SERVER_MODES))
    args = parser.parse_args(argv)
    modes = SERVER_MODES if args.server_modes else ("custom", "values")
    with tempfile.TemporaryDirectory(prefix="served-profile-") as home:
        os.environ.update(HARNESS_HOME=home, HARNESS_MODEL="offline", LANGSMITH_TRACING="false")
        if args.no_profile:
            wall, cpu = asyncio.run(_runs(args.n, modes=modes))
            print(f"{args.n} runs at once in-process: wall {wall:.2f} s, CPU {cpu / args.n:.3f} s "
                  f"per run, load {os.getloadavg()[0]:.2f}")
            return 0
        if args.yappi:
            return _with_yappi(args.n, args.top, args.yappi, modes)
        profile = cProfile.Profile()
        profile.enable()
        wall, _ = asyncio.run(_runs(args.n, modes=modes))
        profile.disable()
    print(f"{args.n} runs at once in-process under cProfile: wall {wall:.2f} s")
    stats = pstats.Stats(profile, stream=sys.stdout).strip_dirs()
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
