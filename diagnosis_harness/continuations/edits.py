"""Which state edits are accepted (``update_state``, Studio's state editor; docs/design.md §14).

Each key's rule is in :data:`diagnosis_harness.run.state.EDIT_RULES`: run control and what release
publishes without a recording to check it are refused; the keys release checks against the run
store, and the agent's view, may be edited — with a value of the key's type, checked here, so a
malformed value is refused (HTTP 400 on the server) instead of crashing the run it would reach.
A run that awaits approval can only be decided: every edit of it is refused
(:func:`awaiting_approval`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, cast, get_type_hints

from langchain_core.messages import convert_to_messages
from pydantic import ConfigDict, TypeAdapter, ValidationError

from diagnosis_harness.control.contracts import DiagnosisDraft
from diagnosis_harness.run.records import RecordRef
from diagnosis_harness.run.state import EDIT_RULES, DiagnosisState

_WHY = {
    "control": "run control and the run's identity are the harness's (a budget or deadline "
               "cannot be reset by an edit)",
    "published": "release publishes it or decides the published text from it: re-run the node "
                 "that writes it (fork from an earlier checkpoint) instead",
}


def _draft(value: object) -> None:
    if value is not None:
        DiagnosisDraft.model_validate(value)


def _records(value: object) -> None:
    if not isinstance(value, list):
        raise TypeError("records is a list of record index entries")
    for entry in value:
        if not isinstance(entry, dict):
            raise TypeError("a record index entry is an object")
        RecordRef.of(entry)
        if not isinstance(entry.get("evidence_ids", []), list):
            raise TypeError("a record index entry's evidence_ids is a list")


def _semantic(value: object) -> None:
    _typed("semantic_verdict")(value)
    if value is not None and "verdict" not in cast("dict[str, object]", value):  # validated above
        raise TypeError("a judge's verdict names its verdict")


def _messages(value: object) -> None:
    if not isinstance(value, list):
        raise TypeError("messages is a list of messages")
    convert_to_messages(value)  # what the messages reducer does with the edit


@functools.cache
def _typed(key: str) -> Callable[[object], None]:
    """The check of a key's value by its type in :class:`DiagnosisState`."""
    # Extra keys forbidden: a verdict or stop with keys no node writes is not one of them.
    adapter: TypeAdapter[Any] = TypeAdapter(get_type_hints(DiagnosisState)[key],
                                            config=ConfigDict(extra="forbid"))

    def check(value: object) -> None:
        adapter.validate_python(value, strict=True)

    return check


_STRICTER: dict[str, Callable[[object], None]] = {
    "draft": _draft, "records": _records, "messages": _messages,
    "semantic_verdict": _semantic}
"""Keys whose state type is looser than what the graph needs (a draft, a record index)."""


def value_problem(key: str, value: object) -> str | None:
    """Why ``value`` is not a value of state key ``key``, or None."""
    check = _STRICTER.get(key) or _typed(key)
    try:
        check(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "value"
        return f"{key} must be a value of its type ({where}: {first.get('msg')})"
    except (TypeError, ValueError, KeyError, AttributeError, NotImplementedError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"{key} must be a value of its type ({detail})"
    return None


def edit_problem(values: object) -> str | None:
    """Why one ``update_state`` must be refused, or None (docs/design.md §14)."""
    if values is None:
        return None
    if not isinstance(values, dict):
        return "a state edit is an object of state keys"
    unknown = sorted(set(values) - set(EDIT_RULES))
    if unknown:
        return f"no such state key: {', '.join(map(str, unknown))}"
    for rule in ("control", "published"):
        refused = sorted(k for k in values if EDIT_RULES[k] == rule)
        if refused:
            return f"{', '.join(refused)} cannot be edited: {_WHY[rule]}"
    for key, value in values.items():
        if (problem := value_problem(key, value)) is not None:
            return problem
    return None


def awaiting_approval(interrupts: Iterable[Any] | None) -> bool:
    """Whether a checkpoint's ``interrupt()`` values include a pending approval.

    ``interrupts``: Interrupt objects (a snapshot's) or their values (a ``StreamStart``'s).
    """
    return any(isinstance(getattr(i, "value", i), dict)
               and getattr(i, "value", i).get("kind") == "approval" for i in interrupts or ())
