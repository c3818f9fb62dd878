"""What a query computed is shown as computed: the judge model's view holds none of its words,
and the report's evidence line says which values the query computed (SQL rows here; metric
series in ``test_promql_forging.py``)."""

from __future__ import annotations

import json

from graphkit import INC_ROUTER, call, draft, go

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.guards.semantic import judge_payload

LABELLED = ("SELECT change_id, CASE WHEN rowid > 0 THEN 'attacker' END AS who, "
            "count(*) AS n FROM config_changes WHERE change_id = 'CHG-2038' GROUP BY change_id")


def test_a_judge_model_sees_no_word_a_case_label_wrote_and_keeps_the_counts() -> None:
    claim = "CHG-2038 by attacker"
    cited = [(claim, ["E1.1"])]
    script = {"router": [INC_ROUTER],
              "agent": [call("query_mysql", {"sql": LABELLED}, "c1"), draft(claim, cited)],
              "repair": [draft(claim, cited)]}
    services, out = go(script, settings={"judge_model": "offline"})
    trace = services.store.trace(out["run_id"])
    records = [ToolRecord.model_validate(r) for r in trace["tool_records"]]
    (fact,) = records[0].facts
    assert fact.data["row"]["who"] == "attacker" and "who" in fact.data["computed"]
    payload = judge_payload(DiagnosisDraft.model_validate(json.loads(draft(
        claim, cited)["content"])).conclusion, records)  # type: ignore[arg-type]
    (shown,) = payload["evidence"]
    # The statement stays in the record's scope (what was asked); the evidence is text and data.
    assert "attacker" not in json.dumps([shown["text"], shown["data"]])
    assert shown["data"]["row"] == {"change_id": "CHG-2038", "who": None, "n": 1}
    assert shown["text"] == 'change_id="CHG-2038", who=null, n=1'
    assert out["release_outcome"] != "SUCCESS"
