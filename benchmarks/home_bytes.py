"""What a durable run leaves on disk: ``HARNESS_HOME``'s files after N steps and a clean exit.

``python -m benchmarks.home_bytes [--ns 4 24] [--out FILE] [--against FILE]`` runs the scripted
N-step investigation of :mod:`benchmarks.compare` on the CLI's durable SQLite checkpointer
(default retention), closes the run store as a clean exit does, and sizes every file of the
home (``runs.sqlite``, ``checkpoints.sqlite``, any ``-wal``/``-shm``); the peer
(``create_agent`` on LangGraph's SQLite saver) runs the same steps and its whole checkpoint
database is counted as in the comparison (the bytes of its rows). Printed: each file per N, the
home's growth from the low N to the high one, and that growth as a ratio of the peer's (the
issue's goal: ≤ 0.3×). Sizes are deterministic enough on one machine that a run on an earlier
commit, written with ``--out``, can be printed beside this one with ``--against`` (before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.harness_side import HarnessSide
from benchmarks.peer_side import PeerSide


def measure(ns: tuple[int, int]) -> dict[str, Any]:
    """{"harness": {n: {file: bytes}}, "peer": {n: bytes}} for the two N."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-home-"))
    try:
        harness = HarnessSide(workdir)
        out: dict[str, Any] = {"harness": {}, "peer": {}}
        for n in ns:
            result = asyncio.run(harness.run_steps(n, "sqlite"))
            if result.steps != n:
                raise RuntimeError(f"the harness's N={n} run did only {result.steps} steps")
            out["harness"][str(n)] = result.detail["home_files"]
        assert harness.opening is not None, "the harness's agent was never called"
        peer = PeerSide(harness.evidence_tools(), *harness.opening, workdir)
        for n in ns:
            result = asyncio.run(peer.run_steps(n, "sqlite"))
            out["peer"][str(n)] = result.checkpoint_bytes
        return out
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _growth(figures: dict[str, Any], lo: int, hi: int) -> tuple[int, int, float]:
    home = {n: sum(figures["harness"][str(n)].values()) for n in (lo, hi)}
    peer = figures["peer"][str(hi)] - figures["peer"][str(lo)]
    return home[hi] - home[lo], peer, (home[hi] - home[lo]) / peer


def report(now: dict[str, Any], before: dict[str, Any] | None, lo: int, hi: int) -> list[str]:
    """The table: files per N (and the earlier run's beside them), growth, ratio to the peer."""
    sides = [("now", now)] + ([("before", before)] if before else [])
    files = sorted({f for _, fig in sides for n in (lo, hi) for f in fig["harness"][str(n)]})
    lines = [f"{'file':<26}" + "".join(f"{f'{label} N={n}':>16}" for label, _ in sides
                                      for n in (lo, hi))]
    for name in [*files, "home total"]:
        cells = []
        for _, fig in sides:
            for n in (lo, hi):
                sizes = fig["harness"][str(n)]
                cells.append(sum(sizes.values()) if name == "home total" else sizes.get(name, 0))
        lines.append(f"{name:<26}" + "".join(f"{c:>16,}" for c in cells))
    lines.append(f"{'peer checkpoint db':<26}" + "".join(
        f"{fig['peer'][str(n)]:>16,}" for _, fig in sides for n in (lo, hi)))
    for label, fig in sides:
        home, peer_growth, ratio = _growth(fig, lo, hi)
        lines.append(f"{label}: home growth N={lo}→{hi} {home:,} B; peer {peer_growth:,} B; "
                     f"ratio {ratio:.2f}x (goal ≤ 0.30x)")
    if before:
        now_total = sum(now["harness"][str(hi)].values())
        then_total = sum(before["harness"][str(hi)].values())
        lines.append(f"home after N={hi}: now/before {now_total / then_total:.2f}x")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure, print, and write the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", type=int, nargs=2, default=(4, 24), metavar=("LO", "HI"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/home-bytes.json"))
    parser.add_argument("--against", type=Path, default=None,
                        help="an earlier run's --out JSON, printed beside this one")
    args = parser.parse_args(argv)
    lo, hi = min(args.ns), max(args.ns)
    now = measure((lo, hi))
    before = json.loads(args.against.read_text(encoding="utf-8")) if args.against else None
    print("\n".join(report(now, before, lo, hi)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(now, indent=2), encoding="utf-8")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
