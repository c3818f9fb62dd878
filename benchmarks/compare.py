"""Side-by-side benchmark: the harness against LangChain ``create_agent`` + the call-limit middlewares.

    .venv/bin/python -m benchmarks.compare [--quick] [--rounds R] [--out FILE] [--profile]

Both sides replay the same scripted investigation (N distinct evidence steps, then a final
answer) on the same tool functions of the demo data, in this one process. Rounds interleave
the sides (harness, peer, harness, peer…; odd rounds start with the peer) so that machine
noise hits both alike. Per side and checkpointer, the per-step cost is the least-squares slope
over N of the run time (the median of the rounds; and of the fastest round, since noise on a
shared machine only ever adds time). Prints one table of harness/peer ratios and writes it, with
every run, as JSON (default ``bench-out/bench.json``). Exit status 1 if any run did not
complete its N steps: a broken run's timing means nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import re
import shutil
import statistics
import sys
import tempfile
from dataclasses import asdict
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.harness_side import DEFAULT_LIMITS, HarnessSide
from benchmarks.peer_side import PeerSide
from benchmarks.report import (
    MODE_LABELS,
    STATS,
    STUBBORN_LABELS,
    checkpoint_bytes,
    figure,
    slopes,
    table,
)
from benchmarks.workload import STUBBORN_KINDS, RunResult

FULL_NS, QUICK_NS = (4, 8, 12, 16, 24), (4, 8)
FULL_BYTES_NS, QUICK_BYTES_NS = (12, 24), (4, 8)
MODES = tuple(MODE_LABELS)


def _timed(coro: Any) -> RunResult:
    gc.collect()  # a collection left over from the previous run is not this run's cost
    return asyncio.run(coro)  # type: ignore[no-any-return]


def measure(harness: HarnessSide, peer: PeerSide, ns: tuple[int, ...], rounds: int,
            log: Any) -> list[RunResult]:
    """Every (round, N, checkpointer) cell, both sides back to back, order flipped each round."""
    runs: list[RunResult] = []
    for r in range(rounds):
        sides = (harness, peer) if r % 2 == 0 else (peer, harness)
        for n in ns:
            for mode in MODES:
                for side in sides:
                    runs.append(_timed(side.run_steps(n, mode)))
        log(f"round {r + 1}/{rounds} done")
    return runs


async def _inline(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def profile(harness: HarnessSide, n: int = 12, top: int = 10) -> list[str]:
    """Profile one N-step durable harness run (cProfile): where its time goes.

    ``asyncio.to_thread`` work (run store writes, tools) runs inline so that the profiler,
    which sees one thread, counts it; aiosqlite's own thread shows as waiting on the loop.
    """
    prof = cProfile.Profile()
    gc.collect()
    with mock.patch("asyncio.to_thread", _inline):
        prof.enable()
        result = asyncio.run(harness.run_steps(n, "sqlite"))
        prof.disable()
    own = re.escape(str(Path(__file__).resolve().parents[1])) + r"/(?!\.venv/)"
    lines = [f"harness, {n} steps, durable SQLite: {result.ms:.0f} ms under the profiler"]
    for title, key, restrict in (("the project's code, by cumulative time", "cumulative", own),
                                 ("all code, by own time", "tottime", "")):
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf)
        stats.sort_stats(key).print_stats(*([restrict] if restrict else []), top)
        table = [line for line in buf.getvalue().splitlines()
                 if line.strip() and not line.lstrip().startswith(("List reduced", "Ordered by"))]
        lines += [f"-- top {top}: {title}", *table[1:]]  # [0] repeats the call count
    return lines


def home_bytes(runs: list[RunResult], n: int) -> int | None:
    """Median bytes of every file the harness's N-step durable run left in its home."""
    sizes = [r.detail["home_bytes"] for r in runs
             if r.side == "harness" and r.n == n and r.detail.get("home_bytes") is not None]
    return int(statistics.median(sizes)) if sizes else None


def figures(runs: list[RunResult], ns: tuple[int, ...], bytes_ns: tuple[int, int],
            stubborn: dict[str, dict[str, RunResult]],
            diagnose_ms: list[float]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The table's figures, and the slope fits they come from."""
    fits = {stat: slopes(runs, ns, stat) for stat in STATS}
    out: dict[str, Any] = {}
    for stat, suffix, note in (("median", "", ""), ("fastest", "_fastest", " (fastest round)")):
        for mode, label in MODE_LABELS.items():
            h, p = (fits[stat].get(mode, {}).get(side, {}).get("ms_per_step")
                    for side in ("harness", "peer"))
            out[f"step_ms_{mode}{suffix}"] = figure(f"ms per step, {label}{note}", "ms", h, p)
    lo, hi = bytes_ns
    sizes = {n: [checkpoint_bytes(runs, side, n) for side in ("harness", "peer")] for n in bytes_ns}
    for n in bytes_ns:
        out[f"checkpoint_bytes_n{n}"] = figure(f"checkpoint bytes, N={n} (SQLite)", "bytes",
                                               *sizes[n])
    growth = [None if not a or b is None else b / a for a, b in zip(sizes[lo], sizes[hi], strict=True)]
    out["checkpoint_growth"] = figure(f"checkpoint growth N={hi}/N={lo}", "x", *growth)
    homes = [home_bytes(runs, n) for n in bytes_ns]
    for n, size in zip(bytes_ns, homes, strict=True):
        out[f"home_bytes_n{n}"] = figure(f"HARNESS_HOME bytes after a clean exit, N={n} "
                                         "(peer: its checkpoint file)", "bytes", size, sizes[n][1])
    peer_growth = None if None in (sizes[lo][1], sizes[hi][1]) else sizes[hi][1] - sizes[lo][1]
    out["home_growth"] = figure(f"home bytes growth N={lo}→{hi} (peer: checkpoint file)", "bytes",
                                None if None in homes else homes[1] - homes[0], peer_growth)
    schema = [next((r.detail.get("schema_chars") for r in runs if r.side == side), None)
              for side in ("harness", "peer")]
    out["schema_chars"] = figure("tool schema characters sent with each agent call", "chars",
                                 *schema)
    for kind in STUBBORN_KINDS:
        h, p = stubborn[kind]["harness"], stubborn[kind]["peer"]
        label = f"stubborn model ({STUBBORN_LABELS[kind]})"
        out[f"stubborn_{kind}_model_calls"] = figure(f"{label}: model calls", "calls",
                                                     h.model_calls, p.model_calls)
        out[f"stubborn_{kind}_tokens"] = figure(f"{label}: tokens", "tokens", h.tokens, p.tokens)
    warm = statistics.median(diagnose_ms) if diagnose_ms else None
    out["diagnose_warm_ms"] = figure("`harness diagnose` demo, whole process, warm (ms)", "ms",
                                     warm, None)
    return out, fits


def _meta(args: argparse.Namespace, ns: tuple[int, ...], bytes_ns: tuple[int, int],
          rounds: int, load: tuple[float, ...]) -> dict[str, Any]:
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "quick": args.quick,
        "ns": list(ns), "bytes_ns": list(bytes_ns), "rounds": rounds, "modes": list(MODES),
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "loadavg_at_start": list(load), "loadavg_at_end": list(os.getloadavg()),
        "versions": {p: version(p) for p in ("langgraph", "langchain", "langchain-core",
                                             "langgraph-checkpoint-sqlite")},
        "stubborn_limits": {"model_calls": DEFAULT_LIMITS["model_calls"],
                            "tool_calls": DEFAULT_LIMITS["tool_calls"]},
        "notes": [
            "ratio = harness / peer; ms per step = least-squares slope over N of the run ms, "
            "median of the rounds (and fastest round)",
            "timed runs raise both sides' limits (model calls N+8, tool calls N+2) so none binds",
            "stubborn runs: both sides at the harness defaults (model calls 16, tool calls 10); "
            "peer middlewares at their default exit behaviours ('end' / 'continue')",
            "tokens estimated alike on both sides: ~4 characters a token of everything sent "
            "(messages + tool schemas) and answered",
            "harness SQLite: the CLI's own set-up (diagnosis_harness.cli.diagnose); peer: AsyncSqliteSaver "
            "with the same WAL + synchronous=NORMAL; a fresh file per run, on disk (tmp dir)",
            "checkpoint bytes: every checkpoint a run wrote on both sides (the harness's are "
            "counted before its default retention prunes the thread to its latest checkpoint; "
            "that prune is in its time; what it keeps is kept_checkpoint_bytes in the runs)",
            "the peer gets the system prompt and task message the harness's agent got",
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, write the JSON; 1 if any run was incomplete."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N <= 8, one round, one diagnose")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--diagnose-runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench-out/bench.json"))
    parser.add_argument("--profile", action="store_true", help="also cProfile a 12-step run")
    parser.add_argument("--bytes-ns", type=int, nargs=2, metavar=("LO", "HI"), default=None,
                        help="the two N whose bytes (checkpoints, home) are compared")
    args = parser.parse_args(argv)
    ns, bytes_ns = (QUICK_NS, QUICK_BYTES_NS) if args.quick else (FULL_NS, FULL_BYTES_NS)
    if args.bytes_ns is not None:
        bytes_ns = (min(args.bytes_ns), max(args.bytes_ns))
        ns = tuple(sorted({*ns, *bytes_ns}))
    rounds, diagnose_runs = (1, 1) if args.quick else (args.rounds, args.diagnose_runs)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    load = os.getloadavg()  # a shared machine: the JSON says how busy it was
    workdir = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    try:
        harness = HarnessSide(workdir)
        for mode in MODES:  # warm-up: imports, dataset pages, first compilations (discarded)
            _timed(harness.run_steps(ns[0], mode))
        assert harness.opening is not None, "the harness's agent was never called"
        peer = PeerSide(harness.evidence_tools(), *harness.opening, workdir)
        for mode in MODES:
            _timed(peer.run_steps(ns[0], mode))
        log(f"measuring N={list(ns)} x {list(MODES)} x {rounds} round(s)")
        runs = measure(harness, peer, ns, rounds, log)
        stubborn = {kind: {"harness": _timed(harness.run_stubborn(kind)),
                           "peer": _timed(peer.run_stubborn(kind, **DEFAULT_LIMITS))}
                    for kind in STUBBORN_KINDS}
        log("timing `harness diagnose` as a whole process")
        diagnose_ms = harness.diagnose_process(diagnose_runs)
        profiled = profile(harness) if args.profile else []
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    figs, fits = figures(runs, ns, bytes_ns, stubborn, diagnose_ms)
    completed: dict[str, dict[str, dict[str, int]]] = {}
    incomplete = []
    for r in runs:
        completed.setdefault(r.side, {}).setdefault(r.mode, {})[str(r.n)] = r.steps
        if r.steps != r.n or not r.detail.get("released"):
            incomplete.append(f"{r.side} {r.mode} N={r.n}: {r.steps} steps, {r.outcome}")
    report = {
        "meta": _meta(args, ns, bytes_ns, rounds, load), "figures": figs, "slopes": fits,
        "completed": completed, "all_complete": not incomplete, "incomplete": incomplete,
        "stubborn": {kind: {side: asdict(r) for side, r in sides.items()}
                     for kind, sides in stubborn.items()},
        "diagnose_ms": diagnose_ms, "profile": profiled, "runs": [asdict(r) for r in runs],
    }
    print(table(figs))
    for kind, sides in stubborn.items():
        print(f"stubborn ({STUBBORN_LABELS[kind]}): harness {sides['harness'].outcome}; "
              f"peer {sides['peer'].outcome}")
    for line in incomplete:
        print(f"INCOMPLETE: {line}")
    if profiled:
        print("\n".join(profiled))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    print(f"written: {args.out}")
    return 1 if incomplete else 0


if __name__ == "__main__":
    sys.exit(main())
