"""The timing loop the ``scripts/bench_*.py`` tool benchmarks share: time calls, print p50/p95."""

from __future__ import annotations

import statistics
import time

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool


def measure(backends: Backends, settings: Settings,
            calls: list[tuple[str, dict[str, object]]]) -> list[float]:
    """Milliseconds per call through the boundary (each must be READY)."""
    budget = Budget(BudgetLimits.from_settings(settings))
    times = []
    for i, (name, args) in enumerate(calls):
        began = time.perf_counter()
        outcome = execute_tool(name, args, tool_call_id=f"b{i}", backends=backends,
                               budget=budget, settings=settings, ready_count=0)
        times.append((time.perf_counter() - began) * 1000)
        if outcome.record.invocation_status is not InvocationStatus.READY:
            raise SystemExit(f"{name} failed: {outcome.record.error}")
    return times


def report(label: str, times: list[float], target: float | None, *, width: int = 46) -> None:
    """One line: the label (padded to ``width``), n, p50 and p95, and OK or OVER the target."""
    q = statistics.quantiles(times, n=100)
    verdict = "" if target is None else ("  OK" if q[94] <= target else f"  OVER {target} ms")
    print(f"{label:{width}} n={len(times):4}  p50={q[49]:7.2f} ms  p95={q[94]:7.2f} ms{verdict}")
