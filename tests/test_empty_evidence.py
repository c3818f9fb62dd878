"""An empty result is "checked, found nothing" (issue 40): citable, and never saturation by itself.

Driven through the whole graph on the demo data with a replay model (tests/graphkit.py), plus
the evidence guard on the canonical records the run stored.
"""

from __future__ import annotations

import json

from graphkit import (
    CLAIMS,
    COLLECT,
    EMPTY_KB,
    EMPTY_LOGS,
    EMPTY_SQL,
    INC_ROUTER,
    ROOT_CAUSE,
    call,
    cited,
    consumed,
    draft,
    go,
    judge,
    outcome,
    seen,
    tool_messages,
)

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.guards.evidence import EvidenceProblemKind, check_evidence

NO_DEPLOY = "no deploy row matched the query for the window"


def test_an_empty_result_is_citable_and_the_draft_that_cites_it_publishes() -> None:
    services, out = go({"router": [INC_ROUTER],
                        "agent": [COLLECT[0], call("query_mysql", EMPTY_SQL, "c2", prev="c1"),
                                  draft(ROOT_CAUSE, [CLAIMS[0], (NO_DEPLOY, ["E2.1"])])],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert {"E1.2", "E2.1"} <= cited(out["content"])
    [record] = [r for r in services.store.trace(out["run_id"])["tool_records"]
                if r["tool_call_id"] == "c2"]
    assert record["evidence_status"] == "NO_EVIDENCE"  # still an empty result, not a finding
    assert [(f["evidence_id"], f["kind"]) for f in record["facts"]] == [("E2.1", "empty")]
    assert "found nothing" in record["facts"][0]["text"]
    assert "deploys" in record["facts"][0]["text"]  # the scope that matched nothing


def test_absences_alone_are_no_evidence_for_a_root_cause() -> None:
    services, out = go({"router": [INC_ROUTER],
                        "agent": [call("query_mysql", EMPTY_SQL, "c1"),
                                  draft(ROOT_CAUSE, [(NO_DEPLOY, ["E1.1"])])],
                        "repair": [draft(ROOT_CAUSE, [(NO_DEPLOY, ["E1.1"])])]})
    assert (out["release_outcome"], out["fallback_type"]) == (
        "FALLBACK", "EVIDENCE_VALIDATION_FAILED")
    records = [ToolRecord.model_validate(r)
               for r in services.store.trace(out["run_id"])["tool_records"]]
    verdict = check_evidence(DiagnosisDraft.model_validate(
        {"conclusion": {"root_cause": ROOT_CAUSE,
                        "claims": [{"statement": NO_DEPLOY, "evidence_ids": ["E1.1"]}]},
         "next_steps": []}), records)
    assert [p.problem for p in verdict.problems] == [EvidenceProblemKind.ABSENCE_ONLY]


def test_empty_results_do_not_saturate_collection_on_their_own() -> None:
    """Issue 40: an empty result carried STOP_REQUIRED and ended collection after 4 of 10 calls."""
    empties = [call("query_logs", EMPTY_LOGS, "c2", prev="c1"),
               call("query_mysql", EMPTY_SQL, "c3", prev="c2"),
               call("lookup_knowledge", EMPTY_KB, "c4", prev="c3")]
    services, out = go({"router": [INC_ROUTER],
                        "agent": [COLLECT[0], *empties,
                                  call("query_mysql", COLLECT[1]["tool_calls"][0]["args"], "c5",
                                       prev="c4"),
                                  draft(ROOT_CAUSE, [CLAIMS[0], (CLAIMS[1][0], ["E5.1"])])],
                        "judge": [judge()]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert out["stop_reason"] is None
    assert not any(json.loads(m.content).get("stop_required")
                   for m in tool_messages(seen(services)[-1]))
    assert consumed(services) == {"router": 1, "agent": 6, "judge": 1}
    assert {"E1.2", "E5.1"} <= cited(out["content"])
