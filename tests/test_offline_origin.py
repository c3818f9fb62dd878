"""SUCCESS means a mechanism and its trigger or origin (issue 41, docs/design.md §16.3).

Two failure classes the offline default published half-right, each labelled as verified:

- a lock held by a migration's statement, named without the migration (its history row is
  written when it ends, after the window): the on-call engineer cannot stop or roll back "a
  CREATE INDEX"; it is a FALLBACK naming the statement as the first suspect. A statement a
  person ran by hand is its own origin, and still concludes;
- a failed connect to an address right after a release, published "after the release": the
  failure names an endpoint (masked, ``<ip>:<n>``) as a ``host:port`` does, and whether the
  release is why (how it connects) or the endpoint is (what answers) timing cannot say.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from lock_dataset import CASES, write_lock_dataset
from offline_runs import diagnose, offline_services

from diagnosis_harness import evaluate
from diagnosis_harness.session.runner import Services
from tests.canon.cases import _case
from tests.canon.engine import build_case


@cache
def orders(root: str) -> Services:
    data = write_lock_dataset(Path(root) / "data")
    return offline_services(data, Path(root) / "tools", "tools")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("origin"))


def test_a_migration_s_lock_without_the_migration_that_ran_it_is_no_root_cause(root: str) -> None:
    out = diagnose(orders(root), CASES["MIGRATION"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["root_cause"] is None
    # The database holding the lock is still among the first suspects an on-call engineer reads.
    top = [line for line in out["content"].splitlines() if line[:3] in ("1. ", "2. ")]
    assert any(line.startswith(("1. postgres:", "2. postgres:")) for line in top), top


def test_a_statement_run_by_hand_is_its_own_origin(root: str) -> None:
    out = diagnose(orders(root), CASES["MANUAL"])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "VACUUM FULL VERBOSE public.orders" in out["root_cause"], out["root_cause"]


def test_a_release_just_before_a_failed_connect_to_an_address_is_no_cause_by_timing(
        tmp_path: Path) -> None:
    case = _case({
        "id": "t-connect-after-release", "klass": "bad-deploy", "title": "ephemeral ports",
        "day": "2026-05-13", "window": ["11:10", "11:40"], "expect": "FALLBACK",
        "question": "quote-api: cart quotes failing {date} between 11:10 and 11:40 UTC. Why?",
        "services": [["py", "quote-api", "quote"], ["go", "pricing", "price"],
                     ["edge", "edge", "/v1/cart/quote"]],
        "cause_service": "quote-api",
        "lines": [
            {"burst": ["11:04:20", "11:55", "quote-api", "quote failed for {id}: connect "
                       "EADDRNOTAVAIL 10.0.4.9:8080 - Local (10.0.1.5:0)"], "every_s": 5},
            {"burst": ["11:04:25", "11:55", "edge", "POST /v1/cart/quote 503 rt=0.004"],
             "every_s": 7}],
        "changes": [{"deploy": ["10:58", "quote-api", "5.12.0"],
                     "summary": "new internal http client"}]})
    data = build_case(case, tmp_path / "data")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (result,) = card.cases
    assert result.run is not None and result.outcome.startswith("FALLBACK"), result.run
    assert result.run.root_cause is None
    # The failing client is still the first suspect, its release on its line.
    assert result.run.components[0] == "quote-api", result.run.components


def test_an_expired_certificate_s_cause_says_expired_where_its_pattern_masked_it(
        tmp_path: Path) -> None:
    # The client's line says "certificate has expired" inside a quoted string its pattern masks
    # ('<str>'); the callee's certificate row reached its not_after at the onset. The cause
    # quotes the line's own words for the mechanism beside the row that says when.
    line = ("autosave proxy failed exam={n}: SSLError(SSLCertVerificationError(1, '[SSL: "
            "CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired "
            "(_ssl.c:1006)')) url=https://autosave.lms.svc.cluster.local:8443/v1/drafts")
    case = _case({
        "id": "t-cert-masked", "klass": "expired-credential", "title": "masked expiry",
        "day": "2027-01-26", "window": ["14:00", "14:25"], "expect": "SUCCESS",
        "question": "lms-web: answers could not be saved, {date} 14:00 to 14:25 UTC. Root cause?",
        "services": [["py", "lms-web", "exam"], ["go", "autosave", "draft"]],
        "root_cause": "autosave's serving certificate expired at 14:00; lms-web's calls fail",
        "key_terms": ["autosave", "expired"], "cause_service": "autosave", "onset": "14:00:07",
        "lines": [{"burst": ["14:00:07", "14:30", "lms-web", line], "every_s": 9}],
        "tables": {"certificates": [
            {"cert_id": "CRT-2207", "secret": "autosave-tls", "service": "autosave",
             "not_before": "2026-10-28T14:00:00Z", "not_after": "2027-01-26T14:00:00Z",
             "status": "superseded"},
            {"cert_id": "CRT-2190", "secret": "lms-web-tls", "service": "lms-web",
             "not_before": "2026-12-01T00:00:00Z", "not_after": "2027-03-01T00:00:00Z",
             "status": "active"}]}})
    data = build_case(case, tmp_path / "data")
    card = evaluate(data / "truth.json", model="offline", home=tmp_path / "home", workers=1)
    (result,) = card.cases
    assert result.verdict.value == "RIGHT", (result.why, result.run)
    assert "certificate has expired" in (result.run.root_cause or ""), result.run.root_cause
