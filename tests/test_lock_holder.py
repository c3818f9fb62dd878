"""The offline default on lock waits (docs/design.md §16.3, rule 9): the one session every
waiter waits on, by the server's own words, and the heavy-lock statement it ran, is the cause;
two holders or an ordinary statement leave it open."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from lock_dataset import CASES, write_lock_dataset
from offline_runs import diagnose, offline_services

from diagnosis_harness.session.runner import Services


@cache
def orders(protocol: str, root: str) -> Services:
    data = write_lock_dataset(Path(root) / "data")
    return offline_services(data, Path(root) / protocol, protocol)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("locks"))


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_the_session_holding_the_lock_and_its_statement_are_the_cause(root: str,
                                                                      protocol: str) -> None:
    out = diagnose(orders(protocol, root), CASES["INDEX"])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    cause = out["root_cause"]
    assert "CREATE INDEX orders_customer_idx" in cause and "4100" in cause, cause
    # The migration that ran it (by the same database user), not an earlier one of the table.
    assert "V31__orders_customer_idx.sql" in cause and "V30" not in cause, cause


def test_waits_on_two_holders_leave_the_cause_open(root: str) -> None:
    out = diagnose(orders("tools", root), CASES["TWO"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["root_cause"] is None


def test_a_holder_that_ran_an_ordinary_statement_leaves_the_cause_open(root: str) -> None:
    # A long-open transaction's UPDATE: why it stayed open is not in the logs.
    out = diagnose(orders("tools", root), CASES["PLAIN"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["root_cause"] is None
    # What was found is still the first thing an on-call engineer reads.
    assert "lock timeout" in out["content"]
