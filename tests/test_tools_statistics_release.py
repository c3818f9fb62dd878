"""A statistic must re-compute at release: an edited one (state) or a forged one (run store)
publishes nothing (EVIDENCE_TAMPERED); the untouched run publishes.

The agent (a replayed script) asks ``compare_windows`` about INC-1's window of the demo and
cites its rows; the run is paused before ``release``, one number is changed, and it goes on.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

from graphkit import INC, INC_ROUTER, call, demo_home, draft, edited_run, judge, services_for

from diagnosis_harness.run.records import records_of

ARGS = {"start": INC["start"], "end": INC["end"], "service": INC["service"]}


def script() -> dict[str, list[Any]]:
    return {"router": [INC_ROUTER],
            "agent": [call("compare_windows", ARGS, "s1"),
                      draft("payment-service errors new in the window",
                            [("payment-service logged patterns new in the window", ["E1.1"])])],
            "judge": [judge()]}


def _run(thread: str, tamper: Any) -> dict[str, Any]:
    services = services_for(demo_home(), script())
    _, final = edited_run(services, thread, before="release", as_node="semantic_guard",
                          edit=lambda first, values: tamper(services, first, values))
    return final


def _forged(record: dict[str, Any]) -> dict[str, Any]:
    """One number changed in a row the draft does not cite (the judge's digest cannot see it)."""
    forged = copy.deepcopy(record)
    fact = forged["facts"][1]
    assert fact["kind"] == "service_levels"
    fact["data"]["baseline_events"] += 7
    return forged


def test_an_untouched_statistic_re_computes_and_publishes() -> None:
    final = _run("stats-untouched", lambda *_: None)
    assert final["release_outcome"] == "SUCCESS", final.get("content")


def test_a_statistic_forged_in_the_run_store_publishes_nothing() -> None:
    def forge(services: Any, ctx: Any, values: dict[str, Any]) -> None:
        db = Path(services.settings.home) / "runs.sqlite"
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT seq, record FROM tool_records WHERE run_id = ? AND "
                                  "tool_call_id = 's1'", (ctx.run_id,)).fetchall()
            assert stored
            for seq, text in stored:
                conn.execute("UPDATE tool_records SET record = ? WHERE run_id = ? AND seq = ?",
                             (json.dumps(_forged(json.loads(text))), ctx.run_id, seq))
        assert len(records_of(ctx, values)) == 1  # the forged record still backs the state

    final = _run("stats-forged", forge)
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)


def test_a_statistic_edited_in_the_state_publishes_nothing() -> None:
    def edit(services: Any, ctx: Any, values: dict[str, Any]) -> dict[str, Any]:
        record = records_of(ctx, values)[0]
        return {"records": [_forged(record.model_dump(mode="json"))]}

    final = _run("stats-edited", edit)
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)
