"""The offline default on a storage world of our own: a shared word is no cause, another
service's change is no cause without a link, and a system-wide question is investigated."""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from storage_dataset import CASES, SYSTEM_WIDE, write_storage_dataset

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn


@cache
def storage(protocol: str, root: str) -> Services:
    data = write_storage_dataset(Path(root) / "data")
    return Services.from_settings(load_settings(model="offline", home=Path(root) / protocol,
                                                data_dir=data, agent_protocol=protocol))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("storage"))


def diagnose(services: Services, question: str) -> dict[str, Any]:
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))


def test_changes_sharing_only_the_dfs_namespace_are_not_a_cause(root: str) -> None:
    out = diagnose(storage("tools", root), CASES["DFS"]["question"])
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK",
                                                              "INSUFFICIENT_EVIDENCE"), out["content"]
    assert not any(line.startswith("Root cause:") for line in out["content"].splitlines())


def test_another_services_cron_sharing_the_word_disk_is_not_a_cause(root: str) -> None:
    out = diagnose(storage("tools", root), CASES["CRON"]["question"])
    assert out["release_outcome"] == "FALLBACK", out["content"]
    assert not any(line.startswith("Root cause:") for line in out["content"].splitlines())


def test_the_change_the_runbook_names_on_the_affected_service_is_the_cause(root: str) -> None:
    out = diagnose(storage("tools", root), CASES["RESERVED"]["question"])
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "CH-31" in out["content"] and CASES["RESERVED"]["key"] in out["content"]


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_a_system_wide_question_with_a_window_is_investigated(root: str, protocol: str) -> None:
    out = diagnose(storage(protocol, root), SYSTEM_WIDE)
    assert out["intent"] == "DIAGNOSIS"
    assert out["fallback_type"] != "MISSING_REQUIRED_CONTEXT", out["content"]
    assert out["usage"]["tool_calls"] > 0
    # Every service's events of the window were read, and the failing one found.
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "datanode" in out["content"] and "CH-31" in out["content"]


@pytest.mark.parametrize("protocol", ["tools", "json"])
def test_a_system_wide_question_without_a_window_still_asks_for_one(root: str,
                                                                    protocol: str) -> None:
    out = diagnose(storage(protocol, root), "something is broken in the cluster, what happened?")
    assert out["intent"] == "DIAGNOSIS"
    assert out["fallback_type"] == "MISSING_REQUIRED_CONTEXT"
    assert out["usage"]["tool_calls"] == 0
