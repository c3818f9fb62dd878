"""AC@1 and AC@3 (issue 41): where the true component stands among the suspects a run ranks.

An on-call engineer reads the suspects first; ``harness eval`` measures them against the
truth's ``cause_service``, on real datasets built from the canon's specs (tests/canon).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from diagnosis_harness import evaluate
from tests.canon import all_cases
from tests.canon.engine import build_case

CASES = {c.id: c for c in all_cases()}
REPO = Path(__file__).resolve().parents[1]


def test_a_truth_file_s_cause_component_is_ranked_and_ac_at_k_is_printed(tmp_path: Path) -> None:
    # A published cause on checkout-api: the component it names is the run's first.
    data = build_case(CASES["pool-config-reload"], tmp_path / "pool")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert "cause:checkout-api" in case.tags and case.run is not None
    assert case.run.components[0] == "checkout-api", case.run.components
    assert (card.summary.ranked_cases, card.summary.ac_at_1, card.summary.ac_at_3) == (1, 1.0, 1.0)
    # The CLI prints both beside precision and coverage, and the Markdown scorecard holds them.
    env = {**os.environ, "HARNESS_HOME": str(tmp_path / "home2"), "HARNESS_MODEL": "offline"}
    out = subprocess.run([sys.executable, "-m", "diagnosis_harness", "eval", str(data / "truth.json"),
                          "--out", str(tmp_path / "card")],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert "AC@1 1.000 AC@3 1.000 (of 1)" in out.stdout, out.stdout + out.stderr
    assert "| AC@1 | AC@3 |" in (tmp_path / "card" / "report.md").read_text("utf-8")


def test_a_fallback_s_suspects_place_the_true_component_where_the_digest_lists_it(
        tmp_path: Path) -> None:
    # No cause published on the retry storm: ledger (the callee rejecting requests) fails
    # first and payments (the caller retrying without backoff, the truth) comes second — in the
    # top 3 but not first, as the report's digest lists them.
    data = build_case(CASES["retry-storm-no-backoff"], tmp_path / "retry")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.outcome.startswith("FALLBACK") and case.run is not None
    digest = [line for line in (case.run.content or "").splitlines() if line[:2] in ("1.", "2.")]
    assert digest[0].startswith("1. ledger:") and case.run.components[:2] == ("ledger", "payments")
    assert (card.summary.ac_at_1, card.summary.ac_at_3) == (0.0, 1.0)


def test_the_digest_ranks_the_failing_service_before_the_edge_and_shows_where(
        tmp_path: Path) -> None:
    # A heap lowered on pricing: pricing's OutOfMemoryErrors and the edge's 5xx access lines
    # for the same requests. The edge reports what pricing answered: pricing ranks first, and
    # the edge's line shows the status its pattern masks.
    data = build_case(CASES["oom-heap-lowered"], tmp_path / "oom")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.run is not None and case.run.components[0] == "pricing", case.run.components
    edge = next(line for line in (case.run.content or "").splitlines()
                if line[:1].isdigit() and " edge: " in line)
    assert "HTTP/<n> <n>" in edge and "' at 5" in edge, edge
