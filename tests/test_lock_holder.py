"""The offline default on lock waits (docs/design.md §16.3, rule 9): the one session every
waiter waits on, by the server's own words, and the heavy-lock statement it ran, is the cause;
two holders or an ordinary statement leave it open."""

from __future__ import annotations

import pytest
from lock_dataset import CASES, write_lock_dataset
from offline_runs import ByProtocol, diagnose, per_protocol


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> ByProtocol:
    """The offline services on the locks dataset, by agent protocol."""
    return per_protocol(write_lock_dataset, tmp_path_factory.mktemp("locks"))


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_the_session_holding_the_lock_and_its_statement_are_the_cause(orders: ByProtocol,
                                                                      protocol: str) -> None:
    out = diagnose(orders(protocol), CASES["INDEX"])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    cause = out["root_cause"]
    assert "CREATE INDEX orders_customer_idx" in cause and "4100" in cause, cause
    # The migration that ran it (by the same database user), not an earlier one of the table.
    assert "V31__orders_customer_idx.sql" in cause and "V30" not in cause, cause


def test_waits_on_two_holders_leave_the_cause_open(orders: ByProtocol) -> None:
    out = diagnose(orders("tools"), CASES["TWO"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["root_cause"] is None


def test_a_holder_that_ran_an_ordinary_statement_leaves_the_cause_open(orders: ByProtocol) -> None:
    # A long-open transaction's UPDATE: why it stayed open is not in the logs.
    out = diagnose(orders("tools"), CASES["PLAIN"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert out["root_cause"] is None
    # What was found is still the first thing an on-call engineer reads.
    assert "lock timeout" in out["content"]
