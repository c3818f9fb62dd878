import json

import pytest

from guards.semantic import judge_payload, parse_judge
from harness.contracts import (
    Conclusion,
    EvidenceStatus,
    Fact,
    FailureClass,
    InvocationStatus,
    ToolRecord,
    Verdict,
)

LOGS = ToolRecord(
    tool_call_id="c1",
    tool="query_logs",
    args={"service": "payment-service"},
    scope={"service": "payment-service", "start": "10:00", "end": "10:10"},
    invocation_status=InvocationStatus.READY,
    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
    ready_index=1,
    facts=[
        Fact(evidence_id="E1.1", kind="log", text="10:02 WARN disk usage 71%", data={"level": "WARN"}),
        Fact(evidence_id="E1.2", kind="log", text="10:03 ERROR upstream timeout", data={"n": 12}),
    ],
)
SQL = ToolRecord(
    tool_call_id="c2",
    tool="query_mysql",
    args={"sql": "SELECT 1"},
    scope={"sql": "SELECT 1"},
    invocation_status=InvocationStatus.READY,
    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
    ready_index=2,
    facts=[Fact(evidence_id="E2.1", kind="row", text="pool_active=50 pool_max=50", data={"active": 50})],
)


def test_payload_carries_stored_evidence_not_the_agents_paraphrase():
    conclusion = Conclusion(
        root_cause="DB pool exhausted",
        claims=[
            # The statement misrepresents E1.1; the judge must see what E1.1 really says.
            {"statement": "E1.1 shows the DB pool was exhausted", "evidence_ids": ["E1.1", "E2.1"]},
            {"statement": "pool saturated", "evidence_ids": ["E2.1"]},
        ],
    )
    payload = judge_payload(conclusion, [LOGS, SQL])
    assert payload["root_cause"] == "DB pool exhausted"
    assert [c["statement"] for c in payload["claims"]] == [
        "E1.1 shows the DB pool was exhausted",
        "pool saturated",
    ]
    assert payload["evidence"] == [
        {
            "evidence_id": "E1.1",
            "tool": "query_logs",
            "scope": {"service": "payment-service", "start": "10:00", "end": "10:10"},
            "kind": "log",
            "text": "10:02 WARN disk usage 71%",
            "data": {"level": "WARN"},
        },
        {
            "evidence_id": "E2.1",
            "tool": "query_mysql",
            "scope": {"sql": "SELECT 1"},
            "kind": "row",
            "text": "pool_active=50 pool_max=50",
            "data": {"active": 50},
        },
    ]
    json.dumps(payload)  # goes into the judge prompt as JSON


def test_payload_does_not_alias_the_canonical_record():
    payload = judge_payload(
        Conclusion(root_cause="r", claims=[{"statement": "s", "evidence_ids": ["E1.2"]}]), [LOGS]
    )
    payload["evidence"][0]["data"]["n"] = 0
    payload["evidence"][0]["scope"]["service"] = "other"
    assert LOGS.facts[1].data == {"n": 12}
    assert LOGS.scope["service"] == "payment-service"


def test_payload_with_an_unverified_id_is_refused():
    conclusion = Conclusion(root_cause="r", claims=[{"statement": "s", "evidence_ids": ["E7.1"]}])
    with pytest.raises(ValueError, match="E7.1"):
        judge_payload(conclusion, [LOGS])


def test_parse_judge():
    ok = parse_judge('{"verdict": "SUPPORTED", "reasons": []}')
    assert ok.value.verdict is Verdict.SUPPORTED
    assert parse_judge('{"verdict": "MAYBE", "reasons": []}').failure is FailureClass.SCHEMA_INVALID
    assert parse_judge("SUPPORTED").failure is FailureClass.PARSE_ERROR
    assert parse_judge("").failure is FailureClass.INVALID_OUTPUT
