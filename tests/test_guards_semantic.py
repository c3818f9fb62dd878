import json

import pytest

from diagnosis_harness.control.contracts import (
    Conclusion,
    EvidenceStatus,
    Fact,
    FailureClass,
    InvocationStatus,
    ToolRecord,
    Verdict,
)
from diagnosis_harness.guards.semantic import judge_payload, parse_judge, read_wire, wire_payload

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


def test_the_judge_reads_each_calls_scope_once_and_loses_nothing():
    """Items of one call share its tool and scope: the judge request names them once per call.

    A capable judge was sent 48k-character requests, a third of them the same scope repeated
    per item; the wire form keeps every item's tool and scope and is much shorter.
    """
    many = LOGS.model_copy(update={"facts": [
        Fact(evidence_id=f"E1.{n}", kind="log", text=f"10:0{n % 10} ERROR upstream timeout",
             data={"n": n}) for n in range(1, 13)]})
    conclusion = Conclusion(root_cause="upstream timeouts", claims=[
        {"statement": "timeouts", "evidence_ids": [f"E1.{n}" for n in range(1, 13)]},
        {"statement": "pool saturated", "evidence_ids": ["E2.1"]}])
    payload = judge_payload(conclusion, [many, SQL])
    wire = wire_payload(payload)
    assert read_wire(wire) == payload
    sent = json.loads(wire)
    # A call's key is its items' id prefix, so that E2.1 reads as an item of call E2.
    assert sent["calls"] == {"E1": {"tool": "query_logs", "scope": LOGS.scope},
                             "E2": {"tool": "query_mysql", "scope": SQL.scope}}
    assert [e["call"] for e in sent["evidence"]] == ["E1"] * 12 + ["E2"]
    assert wire.count("payment-service") == 1
    assert len(wire) < 0.6 * len(json.dumps(payload, ensure_ascii=False, indent=1))


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


def test_a_conclusion_resting_only_on_runbook_passages_is_refused_before_any_judge(tmp_path):
    # The 1.5B local model published a runbook's symptoms as the cause of an incident whose
    # window had no events, and its judge agreed: runbook passages say what can happen, not
    # what happened, so the harness refuses such a conclusion whatever a judge would answer.
    from graphkit import call, draft, judge, router, run, services_for

    window = {"start": "2026-11-02T10:00:00+00:00", "end": "2026-11-02T10:10:00+00:00"}
    script = {"router": [router(merchant="M1001", **window)],
              "agent": [call("lookup_knowledge", {"query": "connection pool exhausted"}, "c1"),
                        call("query_logs", {"service": "payment-service", **window}, "c2",
                             prev="c1"),
                        draft("the connection pool was exhausted",
                              [("the runbook names pool exhaustion", ["E1.1"])]),
                        # its one revision (docs/design.md §8) answers with the same draft
                        draft("the connection pool was exhausted",
                              [("the runbook names pool exhaustion", ["E1.1"])])],
              "judge": [judge("SUPPORTED")]}
    services = services_for(tmp_path / "h", script)
    out = run(services, "payment timeouts for merchant M1001 on payment-service 10:00-10:10")
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "SEMANTIC_UNSUPPORTED")
    trace = services.store.trace(out["run_id"])
    assert not any(c["role"] == "judge" for c in trace["model_calls"])  # never asked
    semantic = [v["verdict"] for v in trace["verdicts"] if v["guard"] == "semantic"]
    assert len(semantic) == 2 and all("only runbook passages" in v["reasons"][0] for v in semantic)
    # The same draft citing a log fact as well goes to the judge as before.
    script["agent"][2] = draft("the connection pool was exhausted",
                               [("the runbook names pool exhaustion", ["E1.1"]),
                                ("payment-service logged errors", ["E2.1"])])
    again = services_for(tmp_path / "h2", script)
    out = run(again, "payment timeouts for merchant M1001 on payment-service 10:00-10:10")
    assert any(c["role"] == "judge" for c in again.store.trace(out["run_id"])["model_calls"])
