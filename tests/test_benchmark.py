"""The side-by-side benchmark keeps working: its short version runs end to end (no timing asserted).

It runs exactly the README's command with ``--quick`` (N = 4 and 8, one round) and checks the
JSON has every figure, that both sides completed every scripted step on every checkpointer,
and that the stubborn model ended classified on the harness and at the limit on the peer.
Needs the ``bench`` extra (langchain); skipped where it is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain.agents", reason="the benchmark's peer needs the bench extra")

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ["step_ms_none", "step_ms_memory", "step_ms_sqlite", "checkpoint_bytes_n4",
           "checkpoint_bytes_n8", "checkpoint_growth", "schema_chars", "stubborn_repeat_model_calls",
           "stubborn_repeat_tokens", "stubborn_distinct_model_calls", "stubborn_distinct_tokens"]


@pytest.mark.slow
def test_quick_benchmark_reports_every_figure_for_complete_runs(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.compare", "--quick", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert "harness/peer" in proc.stdout  # the table was printed

    assert report["all_complete"], report["incomplete"]
    for side in ("harness", "peer"):
        for mode in ("none", "memory", "sqlite"):
            assert report["completed"][side][mode] == {"4": 4, "8": 8}, (side, mode)

    figures = report["figures"]
    for key in FIGURES:
        f = figures[key]
        assert f["harness"] is not None and f["peer"] is not None and f["ratio"] is not None, key
    assert figures["checkpoint_bytes_n8"]["harness"] > figures["checkpoint_bytes_n4"]["harness"] > 0
    assert figures["diagnose_warm_ms"]["harness"] > 0

    limits = report["meta"]["stubborn_limits"]
    for kind in ("repeat", "distinct"):
        harness, peer = report["stubborn"][kind]["harness"], report["stubborn"][kind]["peer"]
        assert harness["outcome"].startswith("FALLBACK"), harness["outcome"]
        assert harness["model_calls"] <= limits["model_calls"]
        assert harness["detail"]["tool_calls"] <= limits["tool_calls"]
        assert peer["model_calls"] == limits["model_calls"]  # the peer stops only at its limit
        assert peer["detail"]["tool_calls"] == limits["tool_calls"]
