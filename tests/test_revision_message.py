"""What the revision turn tells the agent (nodes/revise.py, issue 40's frictions).

Players of a capable model read "you may make up to 5 more tool call(s)" and met
BUDGET_LIMIT_REACHED after 3: the model-call budget keeps two calls for the draft and its judge.
The message must state what the run will actually allow.
"""

from __future__ import annotations

import re

from graphkit import (
    CLAIMS,
    COLLECT,
    EMPTY_SQL,
    EV,
    INC_ROUTER,
    ROOT_CAUSE,
    call,
    consumed,
    draft,
    go,
    judge,
    outcome,
    seen,
)

REFUSED = "An independent reviewer refused"


def _revision_text(services) -> str:
    turns = [str(m.content) for m in seen(services)[-1] if REFUSED in str(m.content)]
    assert len(turns) == 1
    return turns[0]


def test_the_revision_states_the_turns_the_model_call_budget_leaves() -> None:
    # Router 1 + agent 3 + judge 1 = 5 of 9 model calls: 2 are kept for the draft and its judge,
    # so 2 turns of calls remain, though 8 of 10 tool calls do.
    more = [call("query_mysql", EV[2]["args"], "c3", prev="c2"),
            call("query_mysql", EMPTY_SQL, "c4", prev="c3")]
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), *more,
                                  draft(ROOT_CAUSE, CLAIMS[:1])],
                        "judge": [judge("UNSUPPORTED"), judge("SUPPORTED")]},
                       settings={"max_model_calls": 9, "max_tool_calls": 10})
    text = _revision_text(services)
    assert "up to 8 more tool call" not in text
    stated = re.search(r"tool calls in (\d+) more turn", text)
    assert stated and int(stated.group(1)) == 2, text
    # Following it to the letter works: both turns ran their call, the next turn was the draft
    # turn, and the revised draft was judged and published.
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert consumed(services) == {"router": 1, "agent": 6, "judge": 2}
    last = seen(services)[-1]
    assert "stop_required" in str(last[-1].content)


def test_the_revision_offers_every_tool_call_when_turns_are_not_short() -> None:
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS[:1])],
                        "judge": [judge("UNSUPPORTED"), judge("SUPPORTED")]},
                       settings={"max_model_calls": 30, "max_tool_calls": 4})
    assert "up to 2 more tool call(s)" in _revision_text(services)
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)


def _judge_body(body: dict) -> dict:
    import json
    return {"content": json.dumps(body), "usage": {"input_tokens": 100, "output_tokens": 20}}


def test_the_revision_names_each_claim_both_ways_and_puts_the_reasons_next_to_it() -> None:
    # The judge counts claims by index from 0; the agent wrote them first to last. Players read
    # "rests only on unsupported claim 0" and "claim 3 asserts …" against their own numbering.
    refusal = _judge_body({
        "verdict": "UNSUPPORTED",
        "claims": [{"index": 0, "verdict": "UNSUPPORTED", "reason": "E1.2 shows no max_size"},
                   {"index": 1, "verdict": "SUPPORTED", "reason": "E2.1 shows the change"}],
        "root_cause": {"verdict": "UNSUPPORTED", "reason": "rests only on unsupported claim 0"},
        "reasons": ["claim 1 is fine but alone it is not the cause", "timing alone"]})
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS)],
                        "judge": [refusal, judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    lines = _revision_text(services).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- claim #1 (index 0)"))
    assert '"config reloaded with db.pool.max_size=10' in lines[first]
    assert lines[first].endswith("UNSUPPORTED — E1.2 shows no max_size")
    second = lines[first + 1]
    assert second.startswith("- claim #2 (index 1) \"CHG-2041 changed") and "SUPPORTED" in second
    # The free-text reason about index 1 sits under claim #2, marked with the agent's number.
    assert lines[first + 2].strip() == \
        "reviewer on claim #2: claim 1 (#2) is fine but alone it is not the cause"
    assert "- root cause: UNSUPPORTED — rests only on unsupported claim 0 (#1)" in lines
    assert "- timing alone" in lines
