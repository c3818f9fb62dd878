"""Values as the run store writes them: names of enums, clamped counts, JSON and text it accepts.

Nothing that a node or a provider hands the store may make it raise an unclassified error:
counts are clamped to what a BIGINT column holds, text is made encodable, JSON is checked.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import Enum
from typing import TypeVar, overload

from diagnosis_harness.control.secrets import redact
from diagnosis_harness.runstore.errors import RunPersistenceError

T = TypeVar("T")

MAX_COUNT = 2**63 - 1
"""The largest number a counter column holds (BIGINT); larger usage values are clamped to it."""


def now_iso() -> str:
    """The time now, ISO-8601 UTC (how every timestamp column is written)."""
    return datetime.now(UTC).isoformat()


def enum_name(value: Enum | str | None) -> str | None:
    """An enum member's value (or a plain string) as stored; None stays None."""
    if value is None:
        return None
    return value.value if isinstance(value, Enum) else str(value)


def clamp_count(value: object) -> int:
    """A count as stored: booleans, non-numbers and NaN count 0, negatives 0, huge ones MAX_COUNT.

    The store's own clamp until diagnosis_harness.control.budget has the shared one for usage values.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    return MAX_COUNT if value >= MAX_COUNT else max(int(value), 0)


def to_json(value: object, what: str) -> str:
    """``value`` as JSON text, or RunPersistenceError naming ``what`` if it is not plain JSON."""
    try:
        # No default=str: a value that is not plain JSON is a bug to surface, not to stringify.
        return redact(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise RunPersistenceError(f"cannot store {what}: not JSON-serialisable ({exc})") from exc


@overload
def clean_text(value: str, *, keep_nul: bool) -> str: ...
@overload
def clean_text(value: T, *, keep_nul: bool) -> T: ...
def clean_text(value: object, *, keep_nul: bool) -> object:
    """Text the database accepts: lone surrogates replaced (UTF-8); NUL too unless ``keep_nul``.

    PostgreSQL text cannot hold NUL; SQLite can, so there it is kept as written. Known secrets
    are masked (:func:`diagnosis_harness.control.secrets.redact`): every text column of the
    store passes here. Non-strings pass through unchanged.
    """
    if not isinstance(value, str):
        return value
    value = redact(value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value if keep_nul or "\x00" not in value else value.replace("\x00", "\ufffd")
