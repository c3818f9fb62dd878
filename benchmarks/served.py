"""Served runs under load: N concurrent offline diagnoses through the real dev server.

``python -m benchmarks.served [--n 20] [--repeat 2]`` starts ``harness serve`` on a free
127.0.0.1 port (offline model, demo data, a fresh home) with a ``langgraph.json`` that serves two
graphs side by side: ``diagnosis`` (the harness) and ``floor`` (:mod:`benchmarks.floor_graph`,
21 trivial super-steps: the server's own cost per run). One ``langgraph_sdk`` client sends, per
graph, a single run (median of 3) and then N runs at once (``runs.wait``, each on its own thread);
it prints latency p50/p95, wall and the server's CPU-seconds per run (its processes'
utime+stime from ``/proc``, before/after), and the harness/floor ratios. The machine's load
average is printed too: on a shared machine the figures move with it, so repeat.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from benchmarks.workload import QUESTION

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tree_cpu_s(root: int) -> float:
    """User+system CPU-seconds of ``root`` and every live descendant (children's waited-for too).

    By parentage, not process group: ``harness serve`` runs ``langgraph dev`` in a session of
    its own (so that a signal ends all of it), which a group sum would miss.
    """
    stats: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        # fields after "(comm)": state ppid pgrp ...; utime stime cutime cstime at 11..14
        stats[int(entry)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
    children: dict[int, list[int]] = {}
    for pid, (ppid, _ticks) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0))[1]
        todo += children.get(pid, [])
    return total / TICKS


class Server:
    """``harness serve`` in its own process group; :meth:`stop` signals exactly that group."""

    def __init__(self, work: Path, jobs: int | None) -> None:
        self.work = work
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = {"dependencies": [str(ROOT)],
                  "graphs": {"diagnosis": "diagnosis_harness.serving.adapter:make_graph",
                             "floor": f"{ROOT / 'benchmarks' / 'floor_graph.py'}:make_graph"},
                  "python_version": "3.11",
                  "checkpointer": {"path": "diagnosis_harness.serving.adapter.checkpointer"}}
        (work / "langgraph.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
        env.update(HARNESS_HOME=str(work / "home"), HARNESS_MODEL="offline",
                   NO_PROXY="127.0.0.1,localhost", PYTHONPATH=str(ROOT))
        self.log = open(work / "server.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "diagnosis_harness", "serve", "--port", str(self.port),
             "--config", str(work / "langgraph.json"),
             *(["--jobs", str(jobs)] if jobs is not None else [])],
            cwd=work, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError((work / "server.log").read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("server not ready after 120 s")

    def cpu_s(self) -> float:
        """CPU-seconds the server's processes used so far."""
        return tree_cpu_s(self.proc.pid)

    def stop(self) -> None:
        """Stop the process group this object started (by its id), then close the log."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.log.close()


@dataclass
class Figures:
    """One graph's figures for one round: latencies in seconds, server CPU-seconds per run."""

    graph: str
    single_s: float
    wall_s: float
    p50_s: float
    p95_s: float
    cpu_per_run_s: float
    load: float


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


async def _one(client, graph: str) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    thread = await client.threads.create()
    result = await client.runs.wait(thread["thread_id"], graph, input={"question": QUESTION})
    if not isinstance(result, dict) or "__error__" in result:
        raise RuntimeError(f"{graph} run failed: {result!r}"[:2000])
    return time.perf_counter() - started


async def measure(server: Server, graph: str, n: int) -> Figures:
    """Warm up, time a single run (median of 3), then N at once through one client."""
    from langgraph_sdk import get_client

    client = get_client(url=server.url, timeout=300)
    await _one(client, graph)  # warm-up: the graph factory, imports, first checkpoint tables
    single = statistics.median([await _one(client, graph) for _ in range(3)])
    cpu_before = server.cpu_s()
    started = time.perf_counter()
    latencies = await asyncio.gather(*(_one(client, graph) for _ in range(n)))
    wall = time.perf_counter() - started
    cpu = server.cpu_s() - cpu_before
    return Figures(graph, single, wall, statistics.median(latencies), _p95(list(latencies)),
                   cpu / n, os.getloadavg()[0])


def main(argv: list[str] | None = None) -> int:
    """Run the rounds and print the table and the harness/floor ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="runs at once")
    parser.add_argument("--repeat", type=int, default=2, help="rounds (alternating graphs)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="harness serve --jobs (runs worked on at once; default: serve's)")
    args = parser.parse_args(argv)
    rows: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="served-bench-") as tmp:
        server = Server(Path(tmp), args.jobs)
        try:
            for _ in range(args.repeat):
                for graph in ("diagnosis", "floor"):
                    rows.append(asyncio.run(measure(server, graph, args.n)))
        finally:
            server.stop()
    print(f"{args.n} concurrent served runs, {os.cpu_count()} CPUs")
    print(f"{'graph':<10} {'single s':>9} {'wall s':>7} {'p50 s':>6} {'p95 s':>6} "
          f"{'CPU-s/run':>9} {'load1':>6}")
    for row in rows:
        print(f"{row.graph:<10} {row.single_s:9.2f} {row.wall_s:7.2f} {row.p50_s:6.2f} "
              f"{row.p95_s:6.2f} {row.cpu_per_run_s:9.3f} {row.load:6.2f}")
    for harness, floor in zip(rows[::2], rows[1::2], strict=True):
        print(f"ratio harness/floor: single {harness.single_s / floor.single_s:.2f}x, "
              f"p95 {harness.p95_s / floor.p95_s:.2f}x, "
              f"CPU/run {harness.cpu_per_run_s / max(floor.cpu_per_run_s, 1e-6):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
