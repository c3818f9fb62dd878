"""A model stuck in a loop is stopped early, with a classified fallback and nothing run twice.

The usual loop: the model asks for exactly the call it has just made, and keeps calling the
result new. A GAINED verdict its very next call contradicts (the same scope again) ends
collection at once: STOP_REQUIRED goes with that duplicate's answer, and the call after it is
the controlled stop — four model calls in all (router, the call, the repeat, the stop) where
three NO_GAINs took six. An honest NO_GAIN keeps the usual count (docs/design.md §7).
"""

from __future__ import annotations

import json

from graphkit import (
    CLAIMS,
    COLLECT,
    EV,
    INC_ROUTER,
    ROOT_CAUSE,
    call,
    consumed,
    draft,
    go,
    outcome,
    seen,
    tool_messages,
)

SPARE = draft(ROOT_CAUSE, CLAIMS)
"""A draft the agent would write if asked again; never asked for in these runs."""


def stubborn(n: int) -> list[dict[str, object]]:
    """The first evidence call, then the same call again n times, each calling the last GAINED."""
    return [call("query_logs", EV[0]["args"], "c1"),
            *(call("query_logs", EV[0]["args"], f"c{k + 2}", prev=f"c{k + 1}") for k in range(n))]


def test_the_same_call_again_after_calling_it_gained_saturates_at_once() -> None:
    services, out = go({"router": [INC_ROUTER], "agent": [*stubborn(12), SPARE]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert out["stop_reason"] == "INFORMATION_SATURATED"
    assert "[E1." in out["content"]  # the fallback reports what the one real call verified
    assert consumed(services) == {"router": 1, "agent": 3}
    assert out["usage"]["model_calls"] == 4 and out["usage"]["tool_calls"] == 1
    answers = {m.tool_call_id: json.loads(m.content) for m in tool_messages(seen(services)[-1])}
    assert answers["c2"]["status"] == "DUPLICATE_SCOPE" and answers["c2"]["same_as"] == "c1"
    assert answers["c2"]["stop_required"] is True  # told once, with the duplicate's answer
    assert [r["tool_call_id"] for r in services.store.trace(out["run_id"])["tool_records"]] == ["c1"]


def test_an_older_scope_asked_again_counts_as_one_no_gain() -> None:
    # c3 repeats c1, not the call the agent has just judged: a duplicate, NO_GAIN, no more.
    script = {"router": [INC_ROUTER],
              "agent": [*COLLECT, call("query_logs", EV[0]["args"], "c3", prev="c2"),
                        draft(None)]}
    services, out = go(script)
    assert outcome(out) == ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None)
    assert out["stop_reason"] is None  # never saturated: the agent wrote its draft
    answers = {m.tool_call_id: json.loads(m.content) for m in tool_messages(seen(services)[-1])}
    assert answers["c3"]["same_as"] == "c1" and "stop_required" not in answers["c3"]
    assert consumed(services) == {"router": 1, "agent": 4}


REFUSED_SQL = {"sql": "SELECT change_id FROM config_changes LIMIT 99999999999999999999"}
"""A SELECT the SQL guard refuses, whatever the data (a LIMIT past the largest integer)."""


def test_a_call_the_tool_refused_for_good_is_not_sent_again() -> None:
    # Seen with the local model: the same refused SELECT, verbatim, call after call.
    script = {"router": [INC_ROUTER],
              "agent": [call("query_logs", EV[0]["args"], "c1"),
                        call("query_mysql", REFUSED_SQL, "c2", prev="c1"),
                        call("query_mysql", REFUSED_SQL, "c3", prev="c2", gain="NO_GAIN"),
                        call("query_mysql", EV[1]["args"], "c4", prev="c3", gain="NO_GAIN"),
                        draft(None)]}
    services, out = go(script)
    answers = {m.tool_call_id: json.loads(m.content) for m in tool_messages(seen(services)[-1])}
    assert answers["c2"]["error"]["code"] == "rejected_sql"
    assert answers["c3"]["status"] == "DUPLICATE_SCOPE" and answers["c3"]["same_as"] == "c2"
    assert "already refused (rejected_sql" in answers["c3"]["note"]
    # The changed query runs: only a verbatim repeat of a refusal is skipped.
    assert "error" not in answers["c4"] and answers["c4"].get("status") != "DUPLICATE_SCOPE"
    stored = [r["tool_call_id"] for r in services.store.trace(out["run_id"])["tool_records"]]
    assert stored == ["c1", "c2", "c4"] and out["usage"]["tool_calls"] == 3
    assert out["stop_reason"] is None  # one NO_GAIN for the repeat, not a saturation
