"""AC@1 and AC@3 (issue 41): where the true component stands among the suspects a run ranks.

An on-call engineer reads the suspects first; ``harness eval`` measures them against the
truth's ``cause_service``, on real datasets built from the canon's specs (tests/canon).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis_harness import Verdict, evaluate
from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.nodes._triage import digest_lines, suspects
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
    # No cause published on redis down after an upgrade: sessions (the client refused) fails
    # first, the edge's 502s second, and redis (its one "Permission denied" line, the truth)
    # comes third — in the top 3 but not first, as the report's digest lists them.
    data = build_case(CASES["dependency-redis-upgrade"], tmp_path / "redis")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.outcome.startswith("FALLBACK") and case.run is not None
    digest = [line for line in (case.run.content or "").splitlines() if line[:2] in ("1.", "2.")]
    assert digest[0].startswith("1. sessions:")
    assert case.run.components[:3] == ("sessions", "edge", "redis"), case.run.components
    assert (card.summary.ac_at_1, card.summary.ac_at_3) == (0.0, 1.0)


def test_the_digest_ranks_the_failing_service_before_the_edge_and_shows_where() -> None:
    # An edge's 5xx access lines start a second before pricing's OutOfMemoryErrors (one minute
    # of log lines is not reliably ordered), and a caller names the component it waits on.
    # The edge reports what pricing answered: pricing, then the named ledger, rank first, and
    # the edge's line shows the status its pattern masks.
    def row(service: str, pattern: str, example: str, onset: str) -> tuple[str, dict]:
        return ("onset", {"service": service, "pattern": pattern, "example": example,
                          "level": "ERROR", "window_count": 40, "first_seen": onset,
                          "onset": onset})

    facts = [row("edge", "POST /<id>/quotes HTTP/<n> <n> <n> rt=<n>",
                 '10.0.0.1 "POST /v1/quotes HTTP/1.1" 503 12 rt=0.002', "2026-03-16T10:37:20Z"),
             row("checkout", "quote failed: ledger post failed: timeout",
                 "quote failed: ledger post failed: timeout", "2026-03-16T10:37:21Z"),
             row("ledger", "insert failed: deadline", "insert failed: deadline",
                 "2026-03-16T10:37:29Z"),
             row("pricing", "java.lang.OutOfMemoryError: Java heap space",
                 "java.lang.OutOfMemoryError: Java heap space", "2026-03-16T10:37:30Z")]
    record = ToolRecord(tool_call_id="c1", tool="onset_timeline", args={}, scope={},
                        invocation_status=InvocationStatus.READY,
                        evidence_status=EvidenceStatus.EVIDENCE_FOUND, ready_index=1,
                        returned_count=len(facts),
                        facts=[Fact(evidence_id=f"E1.{i}", kind=k, text="t", data=d)
                               for i, (k, d) in enumerate(facts, 1)])
    ranked = suspects([record])
    assert [s["service"] for s in ranked] == ["ledger", "checkout", "pricing", "edge"]
    edge = next(line for line in digest_lines(ranked) if " edge: " in line)
    assert "rt=<n>' at 503, onset" in edge, edge


def test_a_published_cause_points_at_its_trigger_and_a_replica_is_its_database() -> None:
    """A class rule's cause leads with the failing component, then names what set it off.

    ``kubelet: … OOMKilled …, after config_changes row …, service=recommender, …`` points at
    recommender too, right after kubelet; ``orders-db-ro`` is an instance of ``orders-db``.
    """
    from diagnosis_harness.eval.runner import components
    from diagnosis_harness.eval.scoring import _instance

    cause = ("kubelet: 40 WARN events 'container recommender OOMKilled' from 17:52:45Z, after "
             "config_changes row change_id=CHG-7186, service=recommender, old_value=1Gi")
    assert components(cause, [])[:2] == ("kubelet", "recommender")
    assert components("auth: 369 ERROR events 'token rejected' (host=api-7)", [])[:2] == (
        "auth", "api-7")
    assert _instance("orders-db-ro", "orders-db") and _instance("orders-db-2", "orders-db")
    assert not _instance("orders-dbx", "orders-db")


@pytest.mark.parametrize(("case_id", "upstream"), [
    ("trap-upstream-rebalance-ttl-raised", "position-ingest"),  # its own log: a rebalance loop
    ("trap-upstream-metric-max-age-raised", "rates-sync"),  # its metrics only: updates at 0
    ("trap-upstream-no-window-stock-ttl", "stock-sync"),  # asked with no time at all
    ("trap-upstream-asked-late-ttl", "metrics-relay"),  # both onsets before the look-back
    ("trap-upstream-topology-with-infra-ttl", "feature-builder"),  # a table the timeline skips
    ("trap-upstream-cowriter-warn-page-ttl", "product-indexer"),  # another writer, WARN only
])
def test_a_runbook_named_change_is_no_cause_when_the_dependency_it_reads_from_failed_first(
        tmp_path: Path, case_id: str, upstream: str) -> None:
    # The asked service's cache TTL (max age) was raised minutes before it served stale data,
    # and its runbook says a raised TTL makes data stale; but the component it reads from (the
    # dependency table's direction) broke before the symptom began. The change is not
    # published, and the on-call engineer reads that component first or second.
    data = build_case(CASES[case_id], tmp_path / "case")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.outcome.startswith("FALLBACK") and case.run is not None, case.run
    assert case.run.root_cause is None
    assert upstream in case.run.components[:2], case.run.components


def test_the_same_change_with_every_dependency_healthy_is_the_cause(tmp_path: Path) -> None:
    # leaderboard.cache.ttl_seconds 30 -> 1800 and stale boards, while score-writer (which
    # leaderboard reads from) writes as always: the change is the cause, as the runbook says.
    data = build_case(CASES["cache-ttl-raised-stale-boards"], tmp_path / "case")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (case,) = card.cases
    assert case.verdict is Verdict.RIGHT and case.run is not None, case.run
    assert "ttl_seconds" in (case.run.root_cause or "")
