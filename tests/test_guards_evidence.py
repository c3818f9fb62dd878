import json

import pytest

from diagnosis_harness.control.contracts import (
    DiagnosisDraft,
    EvidenceStatus,
    Fact,
    InvocationStatus,
    ToolRecord,
)
from diagnosis_harness.guards.evidence import (
    EvidenceProblemKind,
    check_evidence,
    citable_ids,
    facts_by_id,
    repair_allowed,
)


def record(call_id, k, n_facts, *, invocation="READY", evidence="EVIDENCE_FOUND", tool="query_logs"):
    return ToolRecord(
        tool_call_id=call_id,
        tool=tool,
        args={},
        scope={"service": "payment-service"},
        invocation_status=InvocationStatus(invocation),
        evidence_status=EvidenceStatus(evidence),
        ready_index=k if invocation == "READY" else None,
        facts=[
            Fact(evidence_id=f"E{k}.{i}", kind="log", text=f"fact {k}.{i}") for i in range(1, n_facts + 1)
        ],
    )


RECORDS = [
    record("c1", 1, 2),
    record("c2", 2, 1, evidence="NO_EVIDENCE"),
    # An ERROR record that still carries facts (e.g. a partial result): citing them is NOT_READY.
    record("c3", 3, 1, invocation="ERROR", evidence="ERROR"),
    record("c4", 4, 2, tool="query_mysql"),
]


def draft(*claims, root="pool exhausted", steps=("raise pool",)):
    conclusion = None
    if claims:
        conclusion = {
            "root_cause": root,
            "claims": [{"statement": s, "evidence_ids": list(ids)} for s, ids in claims],
        }
    return DiagnosisDraft.model_validate({"conclusion": conclusion, "next_steps": list(steps)})


def test_valid_citations_pass():
    verdict = check_evidence(draft(("a", ["E1.1", "E4.2"]), ("b", ["E1.2"])), RECORDS)
    assert verdict.passed
    assert verdict.problems == []


@pytest.mark.parametrize(
    ("eid", "kind"),
    [
        ("E9.1", EvidenceProblemKind.UNKNOWN_ID),
        ("E1.3", EvidenceProblemKind.UNKNOWN_ID),
        ("c1", EvidenceProblemKind.UNKNOWN_ID),
        ("E3.1", EvidenceProblemKind.NOT_READY),
        ("E2.1", EvidenceProblemKind.NO_EVIDENCE),
    ],
)
def test_each_bad_citation_is_reported_with_its_claim(eid, kind):
    verdict = check_evidence(draft(("ok", ["E1.1"]), ("bad", ["E4.1", eid])), RECORDS)
    assert not verdict.passed
    assert [(p.evidence_id, p.claim_index, p.problem) for p in verdict.problems] == [(eid, 1, kind)]


def test_verdict_serialises_to_plain_json():
    verdict = check_evidence(draft(("a", ["E9.9"])), RECORDS)
    assert json.loads(json.dumps(verdict.to_dict())) == {
        "passed": False,
        "problems": [{"evidence_id": "E9.9", "claim_index": 0, "problem": "UNKNOWN_ID"}],
    }


def test_ids_of_another_run_are_unknown():
    assert not check_evidence(draft(("a", ["E1.1"])), []).passed


def test_null_conclusion_is_not_the_guards_business():
    with pytest.raises(ValueError, match="conclusion"):
        check_evidence(draft(), RECORDS)


def test_facts_by_id_and_citable_ids():
    index = facts_by_id(RECORDS)
    assert index["E4.2"][0].tool_call_id == "c4"
    assert index["E4.2"][1].text == "fact 4.2"
    assert citable_ids(RECORDS) == ["E1.1", "E1.2", "E4.1", "E4.2"]


def test_conflicting_duplicate_ids_are_refused():
    clash = record("c9", 1, 1, tool="lookup_knowledge")
    with pytest.raises(ValueError, match="E1.1"):
        facts_by_id([*RECORDS, clash])


ORIGINAL = draft(("pool timeouts", ["E9.9"]), ("gateway slow", ["E2.1"]), ("cpu fine", ["E1.2"]))


def test_repair_that_recites_and_drops_is_allowed():
    repaired = draft(("pool timeouts", ["E1.1"]), ("cpu fine", ["E1.2", "E4.1"]), steps=())
    check = repair_allowed(ORIGINAL, repaired, RECORDS)
    assert check and check.allowed, check.reason


def test_repair_may_reorder_claims_and_tolerates_surrounding_whitespace():
    repaired = draft(("cpu fine ", ["E1.2"]), ("pool timeouts", ["E1.1"]), root=" pool exhausted")
    assert repair_allowed(ORIGINAL, repaired, RECORDS).allowed


@pytest.mark.parametrize(
    ("repaired", "reason"),
    [
        (draft(("pool timeouts", ["E1.1"]), root="pool exhausted by a leak"), "root_cause"),
        (draft(("pool timeouts were caused by a leak", ["E1.1"])), "claim 0"),
        (draft(("pool timeouts", ["E1.1"]), ("disk full", ["E4.1"])), "claim 1"),
        (draft(("pool timeouts", ["E1.1"]), ("pool timeouts", ["E4.1"])), "claim 1"),
        (draft(("pool timeouts", ["E9.9"])), "E9.9"),
        (draft(("pool timeouts", ["E1.1", "E3.1"])), "E3.1"),
        (draft(("pool timeouts", ["E2.1"])), "E2.1"),
        (draft(("pool timeouts", ["E1.1"]), steps=("raise pool", "restart db")), "next step"),
        (draft(), "removed the conclusion"),
    ],
)
def test_repair_that_rewrites_or_miscites_is_rejected(repaired, reason):
    check = repair_allowed(ORIGINAL, repaired, RECORDS)
    assert not check
    assert reason in check.reason


def test_repair_of_a_null_conclusion_is_a_wiring_error():
    with pytest.raises(ValueError):
        repair_allowed(draft(), ORIGINAL, RECORDS)
