"""The default baseline that holds the onset (issue 40's frictions), on a real built dataset.

compare_windows and onset_timeline compare a window with, by default, the same length just
before it. When the failure began before the window, its start is in that baseline and the
window shows nothing new or risen — a capable model read that as "nothing changed". The
result now says the default baseline itself holds new or risen warnings or errors, from when,
and to give an earlier baseline; with that baseline the failure shows.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from datasetkit import built_backends
from graphkit import tool_observation


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # From 09:00 api logs a request a minute; from 10:05 it also fails on every request.
    logs = [{"ts": f"2026-10-01T{h:02d}:{m:02d}:00Z", "service": "api", "level": "INFO",
             "message": "request served"} for h in (9, 10) for m in range(60)]
    logs += [{"ts": f"2026-10-01T10:{m:02d}:30Z", "service": "api", "level": "ERROR",
              "message": f"upstream ledger refused connection (attempt {m})"}
             for m in range(5, 60)]
    # api's latency a minute: ~100 ms, ~900 ms from 10:05 (with the errors).
    samples = [(h, m, 900 + m % 7 if (h, m) >= (10, 5) else 100 + m % 7)
               for h in (9, 10) for m in range(60)]
    tables = {"deploys": "deploy_id,service,version,started_at\nD1,api,1.2,2026-10-01T08:00:00Z\n",
              "service_metrics": "ts,service,metric,value\n" + "".join(
                  f"2026-10-01T{h:02d}:{m:02d}:00Z,api,latency_ms,{v}\n" for h, m, v in samples)}
    with built_backends(tmp_path_factory.mktemp("early"), "early",
                        sorted(logs, key=lambda e: e["ts"]), tables=tables) as opened:
        yield opened


observe = tool_observation


@pytest.mark.parametrize("tool", ["compare_windows", "onset_timeline"])
def test_a_default_baseline_holding_the_onset_says_so(backends: Any, tool: str) -> None:
    # Asked about 10:30-10:59: the default baseline 10:00-10:30 already holds the errors.
    seen = observe(backends, tool, start="2026-10-01T10:30:00Z", end="2026-10-01T10:59:59Z")
    errors = [i for i in seen["items"] if i.get("level") == "ERROR"]
    assert errors == []  # nothing new or risen in the window, as before
    note = seen.get("note", "")
    assert re.search(r"the default baseline 2026-10-01T10:00:0\d+Z\.\.2026-10-01T10:29:59[.\d]*Z "
                     r"already holds new or risen warnings or errors", note)
    assert "(api; the first at 2026-10-01T10:05:30Z)" in note
    # Told to, the model gives an earlier baseline, and the failure shows, new.
    earlier = observe(backends, tool, start="2026-10-01T10:30:00Z", end="2026-10-01T10:59:59Z",
                      baseline_start="2026-10-01T09:00:00Z", baseline_end="2026-10-01T09:59:59Z")
    assert [(i["service"], i["change"]) for i in earlier["items"] if i.get("level") == "ERROR"] \
        == [("api", "new")]
    assert "already holds" not in earlier.get("note", "")


def test_a_quiet_default_baseline_gets_no_such_note(backends: Any) -> None:
    seen = observe(backends, "compare_windows", start="2026-10-01T10:05:00Z",
                   end="2026-10-01T10:20:00Z")
    assert any(i.get("level") == "ERROR" and i["change"] == "new" for i in seen["items"])
    assert "already holds" not in seen.get("note", "")


def test_metric_shifts_says_when_its_default_baseline_already_shifted(backends: Any) -> None:
    seen = observe(backends, "metric_shifts", start="2026-10-01T10:30:00Z",
                   end="2026-10-01T10:59:59Z")
    assert [i for i in seen["items"] if i["kind"] == "metric_shift"] == []  # looks unchanged
    note = seen.get("note", "")
    assert "already left the span before it (api latency_ms; the first from " \
           "2026-10-01T10:05:00Z)" in note
    earlier = observe(backends, "metric_shifts", start="2026-10-01T10:30:00Z",
                      end="2026-10-01T10:59:59Z", baseline_start="2026-10-01T09:00:00Z",
                      baseline_end="2026-10-01T09:59:59Z")
    assert [(i["entity"], i["metric"], i["direction"]) for i in earlier["items"]
            if i["kind"] == "metric_shift"] == [("api", "latency_ms", "up")]
    assert "already left" not in earlier.get("note", "")
