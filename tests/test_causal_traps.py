"""The offline default on a storage world of our own: a shared word is no cause, another
service's change is no cause without a link, and a system-wide question is investigated."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_runs import ByProtocol, diagnose, offline_services, per_protocol
from storage_dataset import CASES, SYSTEM_WIDE, write_storage_dataset

from diagnosis_harness.session.runner import Services


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory) -> ByProtocol:
    """The offline services on the storage dataset, by agent protocol."""
    return per_protocol(write_storage_dataset, tmp_path_factory.mktemp("storage"))


def test_changes_sharing_only_the_dfs_namespace_are_not_a_cause(storage: ByProtocol) -> None:
    out = diagnose(storage("tools"), CASES["DFS"]["question"])
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK",
                                                              "INSUFFICIENT_EVIDENCE"), out["content"]
    assert not any(line.startswith("Root cause:") for line in out["content"].splitlines())


def test_another_services_cron_sharing_the_word_disk_is_not_a_cause(storage: ByProtocol) -> None:
    out = diagnose(storage("tools"), CASES["CRON"]["question"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert not any(line.startswith("Root cause:") for line in out["content"].splitlines())


def test_the_change_the_runbook_names_on_the_affected_service_is_the_cause(storage: ByProtocol) -> None:
    out = diagnose(storage("tools"), CASES["RESERVED"]["question"])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "CH-31" in out["content"] and CASES["RESERVED"]["key"] in out["content"]


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_a_system_wide_question_with_a_window_is_investigated(storage: ByProtocol, protocol: str) -> None:
    out = diagnose(storage(protocol), SYSTEM_WIDE)
    assert out["intent"] == "DIAGNOSIS"
    assert out["fallback_type"] != "MISSING_REQUIRED_CONTEXT", out["content"]
    assert out["usage"]["tool_calls"] > 0
    # Every service's events of the window were read, and the failing one found.
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "datanode" in out["content"] and "CH-31" in out["content"]


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_a_system_wide_question_without_a_window_still_asks_for_one(storage: ByProtocol,
                                                                    protocol: str) -> None:
    out = diagnose(storage(protocol), "something is broken in the cluster, what happened?")
    assert out["intent"] == "DIAGNOSIS"
    assert out["fallback_type"] == "MISSING_REQUIRED_CONTEXT"
    assert out["usage"]["tool_calls"] == 0


NOISE_PAGE = """# Known noise

## What appears every day

These appear every day and do not mean customers are affected.

- kyc "idverify check failed ... context deadline exceeded": the identity vendor times out on
  a few percent of checks all day; the applicant retries.
"""
VENDOR_PAGE = """# Identity vendor timeouts

## Symptoms

- kyc "idverify check failed ... context deadline exceeded": the identity vendor is slow;
  check the kyc release and its check client settings.
"""


OTHER_PAGES = {
    "pool": "# Pool exhaustion\n\n## Symptoms\n\nTimeout waiting for connection from pool.\n",
    "disk": "# Disk full\n\n## Symptoms\n\nNo space left on device on the data volume.\n",
    "tls": "# Certificate expiry\n\n## Symptoms\n\nTLS handshake failed: certificate expired.\n",
}


NEIGHBOURS = ("profiles", "accounts", "cards", "ledger", "notify", "gateway")
OVERVIEW_PAGE = """# Platform on-call overview

## Flow

- gateway routes to profiles, accounts and cards; profiles calls kyc; ledger posts, notify
  sends.
- kyc "idverify check failed ... context deadline exceeded": the identity vendor is slow;
  check the kyc release and its check client settings.
"""


def _kyc_world(root: Path, page: str, neighbours: tuple[str, ...] = ()) -> Services:
    from datetime import UTC, datetime, timedelta

    from diagnosis_harness import write_dataset

    start = datetime(2026, 3, 11, 1, 0, tzinfo=UTC)
    logs = [{"ts": (start + timedelta(seconds=30 * i)).isoformat(), "service": "kyc",
             "level": "INFO", "message": f"application APP-{1000 + i} received"} for i in range(120)]
    logs += [{"ts": (start + timedelta(minutes=i)).isoformat(), "service": name, "level": "INFO",
              "message": f"health ok ({i})"} for name in neighbours for i in range(60)]
    logs += [{"ts": (start + timedelta(minutes=31, seconds=40 * i)).isoformat(), "service": "kyc",
              "level": "ERROR", "message": f'level=error msg="idverify check failed" '
              f'application=APP-{5000 + i} err="context deadline exceeded"'} for i in range(6)]
    deploys = [{"deploy_id": "DEP-4417", "service": "kyc", "version": "4.1.0",
                "finished_at": "2026-03-11T01:24:00Z", "summary": "idverify check client v2"}]
    data = write_dataset(root / "data", logs=logs, tables={"deploys": deploys},
                         runbooks={"vendor": page, **OTHER_PAGES}, name="kyc")
    return offline_services(data, root / "home")


def test_a_runbook_page_that_calls_the_symptom_everyday_noise_supports_no_cause(
        tmp_path: Path) -> None:
    question = "kyc onboarding failing after our release, 12:30 to 12:50 +11:00 on 11 Mar 2026 — why?"
    # A page that describes the symptom as a fault lets the release explain it ...
    fault = diagnose(_kyc_world(tmp_path / "fault", VENDOR_PAGE), question)
    assert fault["release_outcome"] == "SUCCESS", fault["content"]
    assert "DEP-4417" in fault["content"]
    # ... the team's known-noise page saying the same lines are everyday noise does not.
    noise = diagnose(_kyc_world(tmp_path / "noise", NOISE_PAGE), question)
    assert noise["release_outcome"] == "FALLBACK", noise["content"]
    assert "Root cause:" not in noise["content"]


def test_an_overview_page_naming_half_the_system_is_no_runbook(tmp_path: Path) -> None:
    # Seven services; the team's overview page names them all, and the symptom's words too:
    # it describes the system, not this failure, so the release is no cause by it.
    question = "kyc onboarding failing after our release, 12:30 to 12:50 +11:00 on 11 Mar 2026 — why?"
    overview = diagnose(_kyc_world(tmp_path / "overview", OVERVIEW_PAGE, NEIGHBOURS), question)
    assert overview["release_outcome"] == "FALLBACK", overview["content"]
    assert "Root cause:" not in overview["content"]
    # The page of this failure, in the same seven-service world, still explains it.
    fault = diagnose(_kyc_world(tmp_path / "fault", VENDOR_PAGE, NEIGHBOURS), question)
    assert fault["release_outcome"] == "SUCCESS", fault["content"]
    assert "DEP-4417" in fault["content"]


def test_one_word_a_change_shares_with_the_symptom_is_a_coincidence_not_a_link(
        tmp_path: Path) -> None:
    # The fault page describes the symptom; the release on kyc just before shares one word of
    # its own with it ("check"): not enough to publish it as the cause. Two words of its own
    # (the vendor client it changed) are.
    from diagnosis_harness.providers.offline.causal import Symptom, change_problem

    symptom = Symptom(services=frozenset({"kyc"}), onset="2026-03-11T01:31:40Z",
                      text='level=error msg="idverify check failed" err="context deadline exceeded"')
    row = {"deploy_id": "DEP-4417", "service": "kyc", "finished_at": "2026-03-11T01:24:00Z"}
    assert change_problem({**row, "summary": "liveness check v2"}, symptom, [], []) is not None
    assert change_problem({**row, "summary": "crew app: feeder map tiles"},
                          Symptom(services=frozenset({"outage"}), onset=None,
                                  text="no heartbeat from meters on feeder"), [], []) is not None
    assert change_problem({**row, "summary": "idverify check client v2"}, symptom, [],
                          []) is None
    # Inflections are one word: "retry policy" and "retrying" share "retry".
    retrying = Symptom(services=frozenset({"payment-service"}), onset=None,
                       text="ledger call failed (503), retrying immediately attempt=<n>/10")
    assert change_problem({**row, "service": "payment-service",
                           "summary": "ledger client refactor; new retry policy"}, retrying,
                          [], []) is None
    question = "kyc onboarding failing after our release, 12:30 to 12:50 +11:00 on 11 Mar 2026 — why?"
    world = _kyc_world(tmp_path / "fault", VENDOR_PAGE)
    assert diagnose(world, question)["release_outcome"] == "SUCCESS"


def test_a_measurement_of_another_component_is_no_cause_unless_the_symptom_names_it() -> None:
    # A runbook's words fit a cache's memory; the cache's rows (no eviction at all) are not the
    # cart service's own, and the cart's symptom names no cache: no cause (measured on the shop
    # world, where a cookie change emptied the carts). Where the symptom quotes the cache's
    # reply, its rows say why; and an instance of the service itself is the service.
    from diagnosis_harness.providers.offline.causal import Symptom
    from diagnosis_harness.providers.offline.conclusion import _same_service

    row = {"ts": "2026-03-18T17:25:00Z", "instance": "redis-cart", "used_memory_mb": 4601}
    quiet = Symptom(services=frozenset({"cart"}), onset=None,
                    text="cart not found for session <id>; created empty cart <id>")
    said = Symptom(services=frozenset({"cart"}), onset=None,
                   text="cart <id>: redis DEL cart:<id>: OOM command not allowed")
    assert not _same_service(row, quiet)
    assert _same_service(row, said)
    assert _same_service({**row, "instance": "cart-2"}, quiet)
    assert _same_service({**row, "instance": "payment-service"},
                         Symptom(services=frozenset({"payment"}), onset=None, text="x"))


def test_where_a_change_ran_is_no_word_of_what_it_changed() -> None:
    # A job's namespace carries the product's name, as every logger of the system does
    # ("quill.search"): with one word of its prose it linked a successful job run to a search
    # timeout (the blind docs world). Where it ran is not what it changed.
    from diagnosis_harness.providers.offline.causal import NO_KEY_LINK, Symptom, change_problem

    run = {"run_id": "run-41054", "job": "usage-rollup", "namespace": "quill-prod",
           "started_at": "2026-11-18T14:15:00Z", "status": "succeeded",
           "detail": "1816 workspaces"}
    timeout = Symptom(services=frozenset({"docs-api"}), onset="2026-11-18T15:12:42Z",
                      text="WARNING quill.search: search backend timeout after <id> q=okr "
                           "workspace=<id> (es node <id>)")
    assert change_problem(run, timeout, [], []) == NO_KEY_LINK
    # Two words of what it did still link it.
    assert change_problem({**run, "detail": "reindexed search backend"}, timeout, [], []) is None
