"""Figures from the runs: per-step slopes, checkpoint bytes, stubborn-model cost; the table.

Every figure is ``{"label", "unit", "harness", "peer", "ratio"}`` with ratio = harness / peer
(None where the peer has no counterpart).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from benchmarks.workload import RunResult

MODE_LABELS = {"none": "no checkpointer", "memory": "InMemorySaver", "sqlite": "durable SQLite"}
STUBBORN_LABELS = {"repeat": "repeats one call", "distinct": "new call every turn"}


def fit(points: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    """Least-squares line through (x, y): (slope, intercept, r²)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for _, y in points)
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in points)
    return slope, intercept, (1 - ss_res / ss_tot) if ss_tot else 1.0


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def figure(label: str, unit: str, harness: float | None, peer: float | None) -> dict[str, Any]:
    """One row of the table."""
    return {"label": label, "unit": unit, "harness": harness, "peer": peer,
            "ratio": _ratio(harness, peer)}


STATS: dict[str, Callable[[list[float]], float]] = {"median": statistics.median, "fastest": min}
"""How the rounds of one (side, mode, N) cell are summarised before the fit: the median, and
the fastest round (noise on a shared machine only ever adds time)."""


def summarise(runs: Iterable[RunResult], stat: str) -> dict[tuple[str, str, int], float]:
    """Run ms per (side, mode, N) over the rounds, summarised by ``STATS[stat]``."""
    cells: dict[tuple[str, str, int], list[float]] = {}
    for r in runs:
        cells.setdefault((r.side, r.mode, r.n), []).append(r.ms)
    return {key: STATS[stat](values) for key, values in cells.items()}


def slopes(runs: list[RunResult], ns: Sequence[int], stat: str) -> dict[str, dict[str, Any]]:
    """Per mode and side: the fitted ms per step, the intercept, r² and the points fitted."""
    cell = summarise(runs, stat)
    out: dict[str, dict[str, Any]] = {}
    for side in ("harness", "peer"):
        for mode in MODE_LABELS:
            points = [(float(n), cell[(side, mode, n)]) for n in ns if (side, mode, n) in cell]
            if len(points) >= 2:
                slope, intercept, r2 = fit(points)
                out.setdefault(mode, {})[side] = {
                    "ms_per_step": slope, "intercept_ms": intercept, "r2": r2,
                    "run_ms": {int(x): y for x, y in points}}
    return out


def checkpoint_bytes(runs: list[RunResult], side: str, n: int) -> int | None:
    """Median bytes in the checkpoint file after an N-step durable run."""
    sizes = [r.checkpoint_bytes for r in runs
             if r.side == side and r.n == n and r.checkpoint_bytes is not None]
    return int(statistics.median(sizes)) if sizes else None


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("bytes", "calls", "tokens", "chars"):
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def table(figures: dict[str, dict[str, Any]]) -> str:
    """The figures as one fixed-width table of ratios."""
    width = max(len(f["label"]) for f in figures.values()) + 2
    lines = [f"{'figure':<{width}}{'harness':>14}{'peer':>14}{'harness/peer':>14}",
             "-" * (width + 42)]
    for f in figures.values():
        ratio = "—" if f["ratio"] is None else f"{f['ratio']:.2f}×"
        lines.append(f"{f['label']:<{width}}{_cell(f['harness'], f['unit']):>14}"
                     f"{_cell(f['peer'], f['unit']):>14}{ratio:>14}")
    return "\n".join(lines)
