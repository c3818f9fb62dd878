"""A verdict per claim and one revision (docs/design.md §8, issue 40), through the compiled graph.

The outcome-matrix rows of these paths (18–20) are in ``test_graph_matrix.py``; here are the
refusals that must hold: a broken causal link, a revision that invents a fact, a revision asked
for at most once, a judge answer that does not judge exactly the draft's claims, and the
publication rule as release applies it from recorded verdicts alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from graphkit import (
    CLAIMS,
    COLLECT,
    INC_ROUTER,
    ROOT_CAUSE,
    consumed,
    draft,
    go,
    judge,
    judge_claims,
    outcome,
    seen,
    without_proposal,
)

from diagnosis_harness.control.contracts import DiagnosisDraft, FailureClass, JudgeAnswer, ToolRecord
from diagnosis_harness.guards.release_check import check_publication, judged
from diagnosis_harness.guards.semantic import parse_judge, publishes, supported_claims
from diagnosis_harness.nodes.release import decide

SPARE = draft(ROOT_CAUSE, CLAIMS)
"""An agent entry kept in reserve: still unconsumed when the run ends means nobody asked."""


def verdict_rows(services: Any, out: dict[str, Any], guard: str = "semantic") -> list[dict[str, Any]]:
    return [v["verdict"] for v in services.store.trace(out["run_id"])["verdicts"]
            if v["guard"] == guard]


def test_a_broken_causal_link_is_refused_though_every_claim_holds() -> None:
    # Each claim is shown by its items, but the root cause does not follow from them; a judge
    # that still writes SUPPORTED as its verdict is overruled by the harness's rule.
    broken = judge_claims(["SUPPORTED", "SUPPORTED"], root="UNSUPPORTED", verdict="SUPPORTED")
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS),
                                  SPARE],
                        "judge": [broken, broken, judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNSUPPORTED", None)
    assert ROOT_CAUSE not in out["content"].split("\n", 1)[0]
    first, second = verdict_rows(services, out)
    for row in (first, second):
        assert row["verdict"] == "UNSUPPORTED" and row["root_cause"]["verdict"] == "UNSUPPORTED"
        assert row["reasons"][-1].startswith("harness: the root cause does not follow")
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 2}


def test_a_revision_that_cites_an_unknown_id_is_refused_without_a_repair() -> None:
    invented = draft(ROOT_CAUSE, [CLAIMS[0], ("payment-db refused 4000 connections", ["E9.9"])])
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), invented, SPARE],
                        "judge": [judge("UNSUPPORTED"), judge("SUPPORTED")],
                        "repair": [draft(ROOT_CAUSE, [CLAIMS[0]])]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "EVIDENCE_VALIDATION_FAILED", None)
    # The invented fact shows only in the refused proposal, labelled NOT VERIFIED.
    assert "4000" not in without_proposal(out["content"]) and "NOT VERIFIED" in out["content"]
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 1}  # no repair, no judge


def test_a_revision_that_adds_an_unsupported_claim_is_refused_and_not_revised_again() -> None:
    added = draft(ROOT_CAUSE, [*CLAIMS, ("payment-db refused 4000 connections", ["E1.1"])])
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), added, SPARE, SPARE],
                        "judge": [judge("UNSUPPORTED"),
                                  judge_claims(["SUPPORTED", "SUPPORTED", "UNSUPPORTED"],
                                               root="UNSUPPORTED"),
                                  judge("SUPPORTED")]})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNSUPPORTED", None)
    # The invented fact shows only in the refused proposal, labelled NOT VERIFIED.
    assert "4000" not in without_proposal(out["content"]) and "NOT VERIFIED" in out["content"]
    # At most once: one revision row, one revision turn, the spare answers never asked for.
    assert len(verdict_rows(services, out, "revision")) == 1
    assert consumed(services) == {"router": 1, "agent": 4, "judge": 2}
    assert sum("An independent reviewer refused" in str(m.content)
               for m in seen(services)[-1]) == 1


def test_no_revision_without_a_model_call_left_for_it() -> None:
    # Router, three agent turns, the judge: five calls. The refusal stands as it is; the run
    # is not turned into a budget failure by asking for an answer it cannot pay for.
    services, out = go({"router": [INC_ROUTER],
                        "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), SPARE],
                        "judge": [judge("UNSUPPORTED")]}, settings={"max_model_calls": 5})
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNSUPPORTED", None)
    assert consumed(services) == {"router": 1, "agent": 3, "judge": 1}
    assert "revising" not in [e.get("phase") for e in out["events"]]


@pytest.mark.parametrize("bad", [
    judge_claims(["SUPPORTED", "SUPPORTED", "SUPPORTED"]),           # a claim that does not exist
    judge_claims(["SUPPORTED"]),                                      # claim 2 left out
    judge_claims(["SUPPORTED", "SUPPORTED"], indexes=[0, 0]),         # claim 0 twice
    judge_claims(["UNSUPPORTED", "UNSUPPORTED"], root="SUPPORTED"),  # a cause on nothing
])
def test_a_judge_answer_that_does_not_judge_exactly_the_claims_is_invalid_and_retried(
        bad: dict[str, Any]) -> None:
    services, out = go({"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                        "judge": [bad, judge_claims(["SUPPORTED", "SUPPORTED"])]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    receipts = [(r["attempt"], r["outcome"], r["failure_class"])
                for r in services.store.trace(out["run_id"])["receipts"] if r["role"] == "judge"]
    assert receipts == [(1, "failed", "SCHEMA_INVALID"), (2, "ok", None)]


def test_the_contract_refuses_a_supported_cause_resting_on_no_supported_claim() -> None:
    parsed = parse_judge('{"verdict": "SUPPORTED", "claims": [{"index": 0, "verdict": '
                         '"UNSUPPORTED", "reason": "r"}], "root_cause": {"verdict": "SUPPORTED", '
                         '"reason": "r"}, "reasons": []}')
    assert parsed.failure is FailureClass.SCHEMA_INVALID
    assert parse_judge('{"verdict": "SUPPORTED", "claims": [], "reasons": []}').failure \
        is FailureClass.SCHEMA_INVALID  # claims without a root-cause verdict
    whole = parse_judge('{"verdict": "SUPPORTED", "reasons": ["ok"]}').value
    assert isinstance(whole, JudgeAnswer) and whole.claims is None


DRAFT = {"conclusion": {"root_cause": "pool exhausted",
                        "claims": [{"statement": "a", "evidence_ids": ["E1.1"]},
                                   {"statement": "b", "evidence_ids": ["E1.2"]}]},
         "next_steps": []}
DIAG = {"intent": "DIAGNOSIS", "scope": {"service": "payment-service"}, "draft": DRAFT,
        "evidence_verdict": {"passed": True}}


def _claims(*verdicts: str) -> list[dict[str, Any]]:
    return [{"index": n, "verdict": v, "reason": "r"} for n, v in enumerate(verdicts)]


@pytest.mark.parametrize(("verdict", "published"), [
    ({"verdict": "SUPPORTED", "reasons": []}, True),
    ({"verdict": "SUPPORTED", "claims": _claims("SUPPORTED", "UNSUPPORTED"),
      "root_cause": {"verdict": "SUPPORTED", "reason": "r"}, "reasons": []}, True),
    # A SUPPORTED that no per-claim verdict carries publishes nothing, whatever it says.
    ({"verdict": "SUPPORTED", "claims": _claims("UNSUPPORTED", "UNSUPPORTED"),
      "root_cause": {"verdict": "SUPPORTED", "reason": "r"}, "reasons": []}, False),
    ({"verdict": "SUPPORTED", "claims": _claims("SUPPORTED", "SUPPORTED"),
      "root_cause": {"verdict": "UNSUPPORTED", "reason": "r"}, "reasons": []}, False),
])
def test_release_decides_from_the_recorded_verdicts_alone(verdict: dict[str, Any],
                                                          published: bool) -> None:
    decision = decide({**DIAG, "semantic_verdict": verdict}, has_facts=True)  # type: ignore[typeddict-item]
    assert publishes(verdict) is published
    assert (decision.outcome.value, decision.fallback) == (
        ("SUCCESS", None) if published else ("FALLBACK", decision.fallback))
    if not published:
        assert decision.fallback is not None and decision.fallback.value == "SEMANTIC_UNSUPPORTED"


def test_the_published_claims_are_the_draft_minus_refused_claims_word_for_word() -> None:
    from diagnosis_harness.control.contracts import Conclusion
    from diagnosis_harness.nodes._release_text import shown_claims
    conclusion = Conclusion.model_validate(DRAFT["conclusion"])
    verdict = {"verdict": "SUPPORTED", "claims": _claims("UNSUPPORTED", "SUPPORTED"),
               "root_cause": {"verdict": "SUPPORTED", "reason": "r"}}
    assert shown_claims(conclusion, verdict) == ([conclusion.claims[1]], 1)
    assert shown_claims(conclusion, {"verdict": "SUPPORTED"}) == (list(conclusion.claims), 0)
    assert supported_claims(verdict) == [1] and supported_claims({"verdict": "SUPPORTED"}) is None


def test_release_refuses_to_publish_claims_the_judged_row_did_not_let_through() -> None:
    # A verdict in state that lets more claims through than the judge did for this draft
    # (another recorded judgement of the run, edited in) is no publication: the judged row
    # binds the draft's digest to the claims it lets through.
    side = ("payment-db refused 4000 connections", ["E1.1"])
    services, out = go({"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, [*CLAIMS, side])],
                        "judge": [judge_claims(["SUPPORTED", "SUPPORTED", "UNSUPPORTED"])]})
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    trace = services.store.trace(out["run_id"])
    records = [ToolRecord.model_validate(r) for r in trace["tool_records"]]
    drafted = {"conclusion": {"root_cause": ROOT_CAUSE, "claims": [
        {"statement": s, "evidence_ids": ids} for s, ids in [*CLAIMS, side]]},
        "next_steps": ["check again"]}
    assert check_publication(drafted, records, trace["verdicts"], [0, 1]) == []
    assert check_publication(drafted, records, trace["verdicts"], [0, 1, 2]) == [
        "the claims to publish are not the ones the independent judge found supported for "
        "this draft"]
    assert check_publication(drafted, records, trace["verdicts"], None) != []
    assert judged(DiagnosisDraft.model_validate(drafted), records, "SUPPORTED", [0, 1]) in [
        v["verdict"] for v in trace["verdicts"] if v["guard"] == "judged_draft"]


PARAPHRASE = [("a config reload cut the pool size from 50 to 10", ["E1.2"]),
              ("change CHG-2041 reduced db.pool.max_size to 10", ["E2.1"])]
"""INC-1's claims as a capable model words them: none of E1.2's or E2.1's sentences, the
same numbers, ids and key (E1.2: ``db.pool.max_size=10 (was 50)``; E2.1: CHG-2041, 50 → 10)."""
PARAPHRASED_CAUSE = "CHG-2041 cut the payment-service connection pool size to 10"


def _changed(*swaps: tuple[str, str]) -> tuple[list[tuple[str, list[str]]], str]:
    """The paraphrased claims and cause with words swapped everywhere (a consistent story)."""
    def swap(text: str) -> str:
        for old, new in swaps:
            text = text.replace(old, new)
        return text
    return [(swap(s), ids) for s, ids in PARAPHRASE], swap(PARAPHRASED_CAUSE)


def _offline_judged(claims: list[tuple[str, list[str]]], cause: str = PARAPHRASED_CAUSE
                    ) -> tuple[Any, dict[str, Any]]:
    # A revision, if asked for, sends the same draft again.
    return go({"router": [INC_ROUTER],
               "agent": [*COLLECT, draft(cause, claims), draft(cause, claims), SPARE]},
              settings={"judge_model": "offline"})


def test_the_offline_judge_passes_a_paraphrase_with_the_right_numbers() -> None:
    services, out = _offline_judged(PARAPHRASE)
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None), out["content"]
    [row] = verdict_rows(services, out)
    assert [c["verdict"] for c in row["claims"]] == ["SUPPORTED", "SUPPORTED"]
    assert consumed(services) == {"router": 1, "agent": 3}  # no revision was needed


@pytest.mark.parametrize(("swaps", "why"), [
    ([("to 10", "to 25")], "'25'"),                                  # one number changed
    ([("cut", "raised"), ("reduced", "raised")], "went up"),        # E2.1 went 50 → 10
    ([("CHG-2041", "CHG-2040")], "CHG-2040"),                        # an id no item holds
])
def test_the_offline_judge_refuses_a_paraphrase_whose_facts_its_items_do_not_hold(
        swaps: list[tuple[str, str]], why: str) -> None:
    claims, cause = _changed(*swaps)
    services, out = _offline_judged(claims, cause)
    # Refused, revised once (the agent sends the same draft), refused again: final.
    assert outcome(out) == ("SUCCESS", "FALLBACK", "SEMANTIC_UNSUPPORTED", None)
    first, second = verdict_rows(services, out)
    assert "UNSUPPORTED" in [c["verdict"] for c in first["claims"]]
    assert any(why in c["reason"] for c in first["claims"]) or why in first["root_cause"]["reason"]
    assert first["root_cause"]["verdict"] == "UNSUPPORTED" and second == first


def test_the_offline_judge_drops_a_side_claim_with_a_changed_number_and_publishes() -> None:
    side = ("the config reload happened with 40 connections waiting", ["E1.2"])
    services, out = _offline_judged([*PARAPHRASE, side])
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None)
    assert side[0] not in out["content"] and "40 connections" not in out["content"]
    [row] = verdict_rows(services, out)
    assert [c["verdict"] for c in row["claims"]] == ["SUPPORTED", "SUPPORTED", "UNSUPPORTED"]


def _payload(claims: list[tuple[str, list[str]]], cause: str,
             evidence: list[dict[str, Any]]) -> str:
    from diagnosis_harness.guards.semantic import wire_payload
    return wire_payload({"root_cause": cause, "evidence": evidence, "claims": [
        {"index": n, "statement": s, "evidence_ids": ids} for n, (s, ids) in enumerate(claims)]})


LOG = {"evidence_id": "E1.1", "tool": "query_logs", "kind": "log_pattern",
       "scope": {"service": "cart-api"},
       "text": "cart-api: 40 ERROR events 'redis GET timed out after <n> ms' to redis-cart:6379",
       "data": {"service": "cart-api", "first_seen": "2026-11-02T10:01:00Z", "count": 40}}


def _change(at: str) -> dict[str, Any]:
    return {"evidence_id": "E2.1", "tool": "recent_changes", "kind": "change", "scope": {},
            "text": f"config_changes {at}: change_id=\"CHG-7\", key=\"redis.timeout_ms\", "
                    "old_value=\"500\", new_value=\"50\"",
            "data": {"table": "config_changes", "time": at, "service": "cart-api",
                     "row": {"change_id": "CHG-7", "key": "redis.timeout_ms",
                             "old_value": "500", "new_value": "50"}}}


def test_the_offline_judge_checks_quotes_host_port_and_that_a_cause_precedes_the_onset() -> None:
    from diagnosis_harness.providers.offline.judge import judge as offline_judge
    claims = [("cart-api logged 40 'redis GET timed out' errors against redis-cart:6379", ["E1.1"]),
              ("CHG-7 lowered redis.timeout_ms from 500 to 50", ["E2.1"])]
    cause = "CHG-7 cut redis.timeout_ms to 50, so cart-api's redis calls timed out"
    before = offline_judge(_payload(claims, cause, [LOG, _change("2026-11-02T09:58:00Z")]))
    assert before["verdict"] == "SUPPORTED", before
    # The same change dated after the first error explains nothing.
    after = offline_judge(_payload(claims, cause, [LOG, _change("2026-11-02T10:05:00Z")]))
    assert after["root_cause"]["verdict"] == "UNSUPPORTED"
    assert "comes after the symptom's first event" in after["root_cause"]["reason"]
    # A port, a quoted string the items do not hold: the claim goes, the rest stands.
    for wrong in ("cart-api logged 40 'redis GET refused' errors against redis-cart:6379",
                  "cart-api logged 40 'redis GET timed out' errors against redis-cart:6380"):
        answer = offline_judge(_payload([(wrong, ["E1.1"]), claims[1]], cause,
                                        [LOG, _change("2026-11-02T09:58:00Z")]))
        assert [c["verdict"] for c in answer["claims"]] == ["UNSUPPORTED", "SUPPORTED"], answer


def test_a_supported_claim_resting_on_runbooks_alone_publishes_nothing() -> None:
    from diagnosis_harness.guards.semantic import ruling
    payload = {"claims": [{"index": 0, "evidence_ids": ["E1.1"]}, {"index": 1, "evidence_ids": ["E2.1"]}],
               "evidence": [{"evidence_id": "E1.1", "kind": "passage"},
                            {"evidence_id": "E2.1", "kind": "log_event"}]}
    answer = JudgeAnswer.model_validate({
        "verdict": "SUPPORTED", "claims": _claims("SUPPORTED", "UNSUPPORTED"),
        "root_cause": {"verdict": "SUPPORTED", "reason": "r"}, "reasons": []})
    ruled = ruling(answer, payload)
    assert ruled["verdict"] == "UNSUPPORTED" and ruled["reasons"][-1].startswith("harness: no supported")
    assert [c["verdict"] for c in ruled["claims"]] == ["SUPPORTED", "UNSUPPORTED"]  # as the judge said


def test_the_routers_send_a_refusal_back_once() -> None:
    from diagnosis_harness.graph.routing import after_evidence_guard, after_revise, after_semantic_guard
    refused: dict[str, Any] = {"semantic_verdict": {"verdict": "UNSUPPORTED"}}
    assert after_semantic_guard(refused) == "revise"  # type: ignore[arg-type]
    assert after_semantic_guard({**refused, "revision_used": True}) == "release"  # type: ignore[arg-type]
    assert after_semantic_guard({"semantic_verdict": {"verdict": "SUPPORTED"}}) == "release"  # type: ignore[arg-type]
    assert after_semantic_guard({"semantic_verdict": {"verdict": "UNAVAILABLE"}}) == "release"  # type: ignore[arg-type]
    assert after_semantic_guard({**refused, "stop": {"kind": "timed_out"}}) == "release"  # type: ignore[arg-type]
    assert after_revise({"draft": None, "revision_used": True}) == "model"  # type: ignore[arg-type]
    assert after_revise({"draft": DRAFT, "revision_used": True}) == "release"  # type: ignore[arg-type]
    # A revised draft that fails the evidence guard gets no repair: the refusal is final.
    assert after_evidence_guard({"evidence_verdict": {"passed": False},  # type: ignore[typeddict-item]
                                 "revision_used": True}) == "release"


def test_the_offline_judge_refuses_a_root_cause_that_explains_a_standing_condition() -> None:
    """A service that logs the same error all day: restating it is not this window's cause.

    A hasty model's draft of the canon's noisy-service trap got through the offline judge (every
    number and name was in its items); its cited comparison shows as many errors before.
    """
    from diagnosis_harness.providers.offline.judge import judge as offline_judge

    def levels(before: int, new: int) -> dict[str, Any]:
        return {"evidence_id": "E1.3", "tool": "compare_windows", "kind": "service_levels",
                "scope": {"service": "reporting"},
                "text": f"reporting: 51 events in the window (ERROR 13, INFO 38) vs 50 before; "
                        f"{new} new, 0 risen pattern(s)",
                "data": {"service": "reporting", "window_events": 51, "baseline_events": 50,
                         "window_by_level": {"ERROR": 13, "INFO": 38},
                         "baseline_by_level": {"ERROR": before, "INFO": 35},
                         "new_patterns": new, "rose_patterns": 0}}
    claims = [("reporting logged 13 ERROR events in the window", ["E1.3"])]
    cause = "reporting logged 13 ERROR events in the window"
    standing = offline_judge(_payload(claims, cause, [levels(before=15, new=0)]))
    assert standing["verdict"] == "UNSUPPORTED"
    assert "standing condition" in standing["root_cause"]["reason"]
    assert [c["verdict"] for c in standing["claims"]] == ["SUPPORTED"]
    # The same errors, new in the window: the standing rule has nothing to say.
    fresh = offline_judge(_payload(claims, cause, [levels(before=0, new=1)]))
    assert "standing condition" not in fresh["root_cause"]["reason"]
