import json

import pytest

from diagnosis_harness.control.contracts import (
    DraftError,
    FailureClass,
    Intent,
    JudgeAnswer,
    RouterAnswer,
    Verdict,
)
from diagnosis_harness.guards.parsing import parse_answer, parse_draft, strip_code_fence

MAX = 32 * 1024

VALID = {
    "conclusion": {
        "root_cause": "DB connection pool exhausted",
        "claims": [{"statement": "pool timeouts from 10:02", "evidence_ids": ["E1.1", "E2.3"]}],
    },
    "next_steps": ["raise pool size"],
}


def text(obj) -> str:
    return json.dumps(obj)


def test_valid_draft_parses_with_its_claims():
    result = parse_draft(text(VALID), max_bytes=MAX)
    assert result.ok and result.error is None
    assert result.draft.conclusion.root_cause == "DB connection pool exhausted"
    assert result.draft.cited_ids() == ["E1.1", "E2.3"]


def test_null_conclusion_is_a_valid_draft():
    result = parse_draft('{"conclusion": null, "next_steps": ["check the gateway"]}', max_bytes=MAX)
    assert result.ok
    assert result.draft.conclusion is None
    assert result.draft.next_steps == ["check the gateway"]


@pytest.mark.parametrize(
    "fenced",
    [
        "```json\n" + json.dumps(VALID) + "\n```",
        "```\n" + json.dumps(VALID) + "\n```",
        "  \n```JSON\n" + json.dumps(VALID, indent=2) + "\n```\n  ",
        "```json " + json.dumps(VALID) + "```",
    ],
)
def test_one_surrounding_code_fence_is_stripped(fenced):
    assert parse_draft(fenced, max_bytes=MAX).draft is not None


@pytest.mark.parametrize("value", [None, "", "   \n\t", "```json\n```", "```\n  \n```"])
def test_empty_is_empty_draft(value):
    result = parse_draft(value, max_bytes=MAX)
    assert (result.draft, result.error) == (None, DraftError.EMPTY_DRAFT)


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        ("The root cause is the database.", "not JSON"),
        ("Here is the draft: " + json.dumps(VALID), "not JSON"),
        (json.dumps(VALID) + "\nHope this helps!", "trailing"),
        (json.dumps(VALID) + json.dumps(VALID), "trailing"),
        ("```json\n" + json.dumps(VALID) + "\n```\nDone.", "not JSON"),
        ("````json\n```json\n" + json.dumps(VALID) + "\n```\n```", "not JSON"),
        ('{"conclusion": null, "next_steps": [],}', "not JSON"),
        ("{'conclusion': None, 'next_steps': []}", "not JSON"),
        ('{"conclusion": null, "next_steps": [], "conclusion": null}', "duplicate key"),
        ('{"conclusion": null, "next_steps": [NaN]}', "NaN"),
        ("[" + json.dumps(VALID) + "]", "expected a JSON object"),
        ('"just a string"', "expected a JSON object"),
        ("[" * 50_000, "not JSON"),
    ],
)
def test_not_exactly_one_json_object_is_invalid_json(raw, detail):
    result = parse_draft(raw, max_bytes=10**6)
    assert (result.draft, result.error) == (None, DraftError.INVALID_JSON)
    assert detail in result.detail


def test_duplicate_key_inside_nested_object_is_invalid_json():
    raw = (
        '{"conclusion": {"root_cause": "a", "root_cause": "b", '
        '"claims": [{"statement": "s", "evidence_ids": ["E1.1"]}]}, "next_steps": []}'
    )
    assert parse_draft(raw, max_bytes=MAX).error is DraftError.INVALID_JSON


def _with(**changes):
    draft = json.loads(json.dumps(VALID))
    for path, value in changes.items():
        target = draft
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return draft


_DELETE = object()


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        (_with(confidence=0.9), "confidence"),
        (_with(conclusion__severity="high"), "severity"),
        (_with(next_steps=_DELETE), "next_steps"),
        (_with(conclusion=_DELETE), "conclusion"),
        (_with(conclusion__root_cause=_DELETE), "root_cause"),
        (_with(conclusion__claims=[]), "claims"),
        (_with(conclusion__claims__0__evidence_ids=[]), "evidence_ids"),
        (_with(conclusion__claims__0__evidence_ids=_DELETE), "evidence_ids"),
        (_with(conclusion__claims__0__evidence_ids="E1.1"), "evidence_ids"),
        (_with(conclusion__claims__0__statement="  "), "statement"),
        (_with(conclusion__root_cause=42), "root_cause"),
        (_with(next_steps="restart it"), "next_steps"),
        ({}, "conclusion"),
    ],
)
def test_wrong_shape_is_schema_invalid(obj, where):
    result = parse_draft(json.dumps(obj), max_bytes=MAX)
    assert (result.draft, result.error) == (None, DraftError.SCHEMA_INVALID)
    assert where in result.detail


def test_over_max_bytes_is_schema_invalid_and_says_too_large():
    raw = json.dumps(_with(next_steps=["é" * 600]), ensure_ascii=False)  # é is 2 UTF-8 bytes
    assert len(raw) < 1024 < len(raw.encode())
    result = parse_draft(raw, max_bytes=1024)
    assert result.error is DraftError.SCHEMA_INVALID
    assert "too large" in result.detail
    assert parse_draft(raw, max_bytes=2048).ok


def test_strip_code_fence_removes_only_one_surrounding_fence():
    assert strip_code_fence('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert strip_code_fence('{"a": 1}') == '{"a": 1}'
    prose = 'Sure:\n```json\n{"a": 1}\n```'
    assert strip_code_fence(prose) == prose


ROUTER = {
    "intent": "DIAGNOSIS",
    "service": "payment-service",
    "merchant": "M1001",
    "start": "2024-05-01T10:00:00+08:00",
    "end": "2024-05-01T10:10:00+08:00",
}


def test_parse_answer_valid_router_and_fenced_judge():
    router = parse_answer(json.dumps(ROUTER), RouterAnswer)
    assert router.failure is None and router.value.intent is Intent.DIAGNOSIS
    judge = parse_answer('```json\n{"verdict": "UNSUPPORTED", "reasons": ["x"]}\n```', JudgeAnswer)
    assert judge.value == JudgeAnswer(verdict=Verdict.UNSUPPORTED, reasons=["x"])


@pytest.mark.parametrize(
    ("raw", "failure"),
    [
        (None, FailureClass.INVALID_OUTPUT),
        ("", FailureClass.INVALID_OUTPUT),
        ("  \n", FailureClass.INVALID_OUTPUT),
        ("DIAGNOSIS", FailureClass.PARSE_ERROR),
        (json.dumps(ROUTER) + " ok?", FailureClass.PARSE_ERROR),
        (
            '{"intent": "GENERAL", "intent": "DIAGNOSIS", "service": null, "merchant": null, '
            '"start": null, "end": null}',
            FailureClass.PARSE_ERROR,
        ),
        ("[]", FailureClass.PARSE_ERROR),
        (json.dumps({**ROUTER, "intent": "CHITCHAT"}), FailureClass.SCHEMA_INVALID),
        (json.dumps({**ROUTER, "extra": 1}), FailureClass.SCHEMA_INVALID),
        (json.dumps({k: v for k, v in ROUTER.items() if k != "end"}), FailureClass.SCHEMA_INVALID),
    ],
)
def test_parse_answer_failure_classes(raw, failure):
    result = parse_answer(raw, RouterAnswer)
    assert (result.value, result.failure) == (None, failure)
    assert result.detail


def test_parse_answer_max_bytes_is_invalid_output():
    raw = json.dumps(ROUTER)
    assert parse_answer(raw, RouterAnswer, max_bytes=10).failure is FailureClass.INVALID_OUTPUT
    assert parse_answer(raw, RouterAnswer, max_bytes=len(raw)).ok
