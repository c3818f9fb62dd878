"""compare_windows / onset_timeline when a service logged nothing in the baseline (issue 40).

A capable model read every pattern of a service as "new" — begun in the window — when its
logs simply started later than the baseline: the data held nothing of it then. The result
now says which services were silent in the baseline, and when the data begins if the
baseline reaches before it. On a real built dataset, through the tool boundary.
"""

from __future__ import annotations

from typing import Any

import pytest
from datasetkit import built_backends
from graphkit import tool_observation


def _events(service: str, minutes: range, message: str) -> list[dict[str, Any]]:
    return [{"ts": f"2026-10-01T10:{m:02d}:00Z", "service": service, "level": "ERROR",
             "message": f"{message} {m}"} for m in minutes]


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # api logs from 10:00 on; worker's logs begin only at 10:30 (its shipper started then).
    logs = _events("api", range(0, 60), "upstream call failed after ms") \
        + _events("worker", range(30, 60), "job retried after ms")
    deploys = "deploy_id,service,version,started_at\nD1,api,1.2,2026-10-01T09:00:00Z\n"
    with built_backends(tmp_path_factory.mktemp("silent"), "silent",
                        sorted(logs, key=lambda e: e["ts"]), tables={"deploys": deploys}) as opened:
        yield opened


observe = tool_observation


@pytest.mark.parametrize("tool", ["compare_windows", "onset_timeline"])
def test_new_for_want_of_baseline_data_is_said(backends: Any, tool: str) -> None:
    # Baseline 10:00-10:30 (the default: the window's length before it) holds api only.
    seen = observe(backends, tool, start="2026-10-01T10:30:00Z", end="2026-10-01T10:59:59Z")
    note = seen.get("note", "")
    assert "no events of worker in the baseline" in note and "no events of api" not in note
    assert "not necessarily because they began in the window" in note


def test_a_baseline_before_the_data_says_where_the_data_begins(backends: Any) -> None:
    seen = observe(backends, "compare_windows", start="2026-10-01T10:00:00Z",
                   end="2026-10-01T10:10:00Z")
    note = seen.get("note", "")
    assert "no events of api, worker in the baseline" not in note  # worker is not in the window
    assert "no events of api in the baseline" in note
    assert "the data begins at 2026-10-01T10:00:00Z" in note


def test_a_service_seen_in_both_gets_no_such_note(backends: Any) -> None:
    seen = observe(backends, "compare_windows", start="2026-10-01T10:50:00Z",
                   end="2026-10-01T10:59:59Z", baseline_start="2026-10-01T10:35:00Z",
                   baseline_end="2026-10-01T10:45:00Z")
    assert "no events of" not in seen.get("note", "")
