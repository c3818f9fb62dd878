"""Strict JSON parsing of every model answer: the agent's draft and the router/judge/repair answers.

docs/design.md §8–§9: one surrounding markdown code fence is stripped, nothing else is forgiven. The text
must be exactly one JSON object (surrounding whitespace allowed): prose before or after it,
trailing tokens, duplicate keys, single quotes, trailing commas and the non-JSON constants
``NaN``/``Infinity`` are all rejected. The object is then validated against the strict pydantic
contract, which refuses unknown and missing keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, Literal, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from diagnosis_harness.control.contracts import DiagnosisDraft, DraftError, FailureClass

M = TypeVar("M", bound=BaseModel)

_FENCE = "```"

_MAX_DETAIL_ERRORS = 3


def strip_code_fence(text: str) -> str:
    r"""Remove one markdown code fence (``` or ```json) surrounding the whole text, if present.

    Text without a surrounding fence is returned unchanged; only one fence layer is removed.
    Anything outside the fence other than whitespace means there is no surrounding fence, so
    the text is parsed as-is and fails. Linear time: the regex this replaces
    (``\A\s*```(?:json)?[ \t]*\r?\n?(.*?)\s*```\s*\Z``) went quadratic on a fence followed by
    thousands of newlines, blocking the event loop.
    """
    inner = text.strip()
    if len(inner) < 2 * len(_FENCE) or not (inner.startswith(_FENCE) and inner.endswith(_FENCE)):
        return text
    close = len(inner) - len(_FENCE)
    i = len(_FENCE)
    if inner[i:i + 4].lower() == "json" and i + 4 <= close:
        i += 4
    while i < close and inner[i] in " \t":
        i += 1
    for newline in "\r\n":
        if i < close and inner[i] == newline:
            i += 1
    return inner[i:close].rstrip()


class _NotJson(ValueError):
    """The text is not exactly one JSON object; the message says why."""


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            # The json module would keep the last value silently; a model answer with two
            # different "conclusion" keys is ambiguous, so it is not accepted at all.
            raise _NotJson(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _reject_constant(name: str) -> NoReturn:
    raise _NotJson(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)


def _decode_object(text: str) -> dict[str, Any]:
    """Decode exactly one JSON object from ``text`` (fence stripped); raise _NotJson otherwise."""
    body = strip_code_fence(text).strip()
    try:
        value, end = _DECODER.raw_decode(body)
    except _NotJson:
        raise
    except json.JSONDecodeError as exc:
        raise _NotJson(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise _NotJson(f"not JSON: {exc}") from None
    if body[end:].strip():
        raise _NotJson(f"trailing text after the JSON value at character {end}")
    if not isinstance(value, dict):
        raise _NotJson(f"expected a JSON object, got {type(value).__name__}")
    return value


def _schema_detail(exc: ValidationError) -> str:
    errors = exc.errors()
    parts = [
        f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
        for err in errors[:_MAX_DETAIL_ERRORS]
    ]
    more = len(errors) - _MAX_DETAIL_ERRORS
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _decode_model(text: str, model_cls: type[M]) -> tuple[M | None, Literal["json", "schema"] | None, str]:
    """``model_cls`` from exactly one JSON object, or which step refused it and why."""
    try:
        obj = _decode_object(text)
    except _NotJson as exc:
        return None, "json", str(exc)
    try:
        return model_cls.model_validate(obj), None, "ok"
    except ValidationError as exc:
        return None, "schema", _schema_detail(exc)


@dataclass(frozen=True)
class DraftParse:
    """Result of :func:`parse_draft`: exactly one of ``draft`` and ``error`` is set."""

    draft: DiagnosisDraft | None
    error: DraftError | None
    detail: str

    @property
    def ok(self) -> bool:
        """True when a valid draft was parsed."""
        return self.draft is not None


def parse_draft(text: str | None, *, max_bytes: int) -> DraftParse:
    """Parse the agent's final message into a :class:`DiagnosisDraft`, strictly.

    Empty, whitespace-only or missing text, or an empty code fence, is EMPTY_DRAFT. A draft
    over ``max_bytes`` (UTF-8 of the text as received) is SCHEMA_INVALID with a "too large"
    detail — the contract bounds its size, so the text is not even decoded. Anything that is
    not exactly one JSON object (bad syntax, trailing text, duplicate keys, an array or a
    scalar) is INVALID_JSON. A JSON object of the wrong shape (unknown or missing keys, wrong
    types, a conclusion without claims, a claim without evidence ids, blank text) is
    SCHEMA_INVALID. ``conclusion: null`` is a valid draft.
    """
    if text is None or (isinstance(text, str) and not strip_code_fence(text).strip()):
        # An empty fence is as empty as no text: the agent wrote no draft at all.
        return DraftParse(None, DraftError.EMPTY_DRAFT, "the final message is empty")
    if not isinstance(text, str):
        return DraftParse(None, DraftError.INVALID_JSON, f"draft is {type(text).__name__}, not text")
    size = len(text.encode("utf-8", errors="replace"))
    if size > max_bytes:
        return DraftParse(
            None,
            DraftError.SCHEMA_INVALID,
            f"draft is too large: {size} bytes, over the {max_bytes}-byte limit",
        )
    draft, failed, detail = _decode_model(text, DiagnosisDraft)
    error = {None: None, "json": DraftError.INVALID_JSON, "schema": DraftError.SCHEMA_INVALID}[failed]
    return DraftParse(draft, error, detail)


@dataclass(frozen=True)
class AnswerParse(Generic[M]):
    """Result of :func:`parse_answer`: exactly one of ``value`` and ``failure`` is set."""

    value: M | None
    failure: FailureClass | None
    detail: str

    @property
    def ok(self) -> bool:
        """True when a valid answer was parsed."""
        return self.value is not None


def parse_answer(text: str | None, model_cls: type[M], *, max_bytes: int | None = None) -> AnswerParse[M]:
    """Parse a router, judge or repair answer into ``model_cls``, strictly.

    The failure classes are the retryable ones of docs/design.md §6, so the retry executor can try
    again: empty or non-text output (or over ``max_bytes``, when given) is INVALID_OUTPUT;
    anything that is not exactly one JSON object is PARSE_ERROR; a JSON object of the wrong
    shape is SCHEMA_INVALID.
    """
    if text is None or not isinstance(text, str) or not text.strip():
        return AnswerParse(None, FailureClass.INVALID_OUTPUT, "the answer is empty or not text")
    if max_bytes is not None and len(text.encode("utf-8", errors="replace")) > max_bytes:
        return AnswerParse(None, FailureClass.INVALID_OUTPUT, f"answer is over the {max_bytes}-byte limit")
    value, failed, detail = _decode_model(text, model_cls)
    failure = {None: None, "json": FailureClass.PARSE_ERROR, "schema": FailureClass.SCHEMA_INVALID}[failed]
    return AnswerParse(value, failure, detail)


NotJsonError = _NotJson
"""Public name for callers that decode other strict JSON messages (the agent's envelopes)."""
decode_json_object = _decode_object
"""Public name: decode exactly one JSON object, fence stripped, or raise NotJsonError."""
