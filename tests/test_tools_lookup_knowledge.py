"""lookup_knowledge: BM25 ranking, coverage-based relevance, honest empty results."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.lookup_knowledge import level_for, lookup_knowledge

S = Settings(_env_file=None)


@pytest.fixture(scope="module")
def backends(tmp_path_factory):
    built = load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest
    with Backends.open(built) as opened:
        yield opened


@pytest.mark.parametrize(
    ("query", "doc"),
    [
        ("Timeout waiting for connection from pool", "db-connection-pool-exhaustion"),
        ("TLS handshake failed certificate expired EastBank M1003", "tls-certificate-expiry"),
        ("ledger rejecting too many concurrent requests retrying immediately", "retry-storm"),
        ("acquirer authorize timed out NorthBank", "acquirer-timeouts"),
        ("statsd metrics exporter connection refused", "known-noise"),
    ],
)
def test_the_right_runbook_ranks_first(backends, query, doc):
    result = lookup_knowledge(backends, S, query=query)
    assert result.items[0].data["doc_id"] == doc
    assert result.relevance in ("HIGH", "MEDIUM")


def test_unrelated_query_is_no_evidence_even_if_a_word_matches(backends):
    # "rejections" alone appears in the retry-storm runbook; that must not count as an answer.
    result = lookup_knowledge(backends, S, query="risk rule R-117 velocity threshold rejections")
    assert result.items == [] and result.relevance is None
    assert "no runbook" in result.note


def test_top_k_bounds_the_passages(backends):
    assert len(lookup_knowledge(backends, S, query="payment failures", top_k=1).items) == 1
    with pytest.raises(ValidationError):
        lookup_knowledge(backends, S, query="payment failures", top_k=50)


def test_passages_carry_their_runbook_title_and_section(backends):
    item = lookup_knowledge(backends, S, query="rotate expired certificate")
    passage = item.items[0]
    assert passage.data["title"] == "TLS certificate expiry"
    assert passage.data["section"] in ("Mitigation", "Symptoms", "How to confirm")
    assert passage.text.startswith("[tls-certificate-expiry] TLS certificate expiry")


def test_levels_are_ordered_by_coverage():
    assert [level_for(c) for c in (1.0, 0.7, 0.5, 0.3, 0.1)] == [
        "HIGH", "HIGH", "MEDIUM", "LOW", None]
