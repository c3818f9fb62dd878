"""What a json-protocol turn tells a small model next (docs/design.md §8, the json protocol).

The call the next progress envelope must cite, the tools it has not tried yet, the tools a turn
after a repeated scope leaves out, and — while SQL is offered — the bounds of what changed
before the incident's window, written as the datasets write times (a small model cannot do the
arithmetic). The words are prompt text (:mod:`diagnosis_harness.prompts`, ``json_next_*`` and
``json_hint_*``); this module only decides which are said and with what values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from diagnosis_harness import prompts
from diagnosis_harness.providers.observations import Result, is_gate_skip

SQL_TOOL = "query_mysql"
"""The built-in SQL tool, whose next call the "what changed" bound is for."""


def last_call(results: Sequence[Result]) -> str | None:
    """The call the next progress envelope must name: the last one the gate did not refuse."""
    for result in reversed(results):
        if not is_gate_skip(result.body):
            return result.call_id
    return None


def dataset_time(value: object, shift: timedelta = timedelta(0)) -> str | None:
    """``value`` (ISO-8601) moved by ``shift``, written as the datasets write times."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(str(value)) + shift
    except ValueError:
        return str(value)
    if moment.utcoffset() == timedelta(0):
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.isoformat()


def hour_before(start: object) -> str | None:
    """An hour before the window starts, written as the datasets write times.

    Changes that cause an incident usually land there; a small model cannot do the arithmetic.
    """
    return dataset_time(start, -timedelta(hours=1))


def changes_bounds(values: Mapping[str, object]) -> tuple[str, str] | None:
    """(an hour before the window, its end): where to look for what changed."""
    since, until = hour_before(values.get("start")), dataset_time(values.get("end"))
    return (since, until) if since and until else None


def tool_names(specs: Sequence[dict[str, Any]]) -> list[str]:
    """The names of the bound tools, in the order they were bound."""
    return [str(spec.get("function", spec).get("name")) for spec in specs]


def unused_tools(results: Sequence[Result], tools: Sequence[str]) -> list[str]:
    """The bound tools no result came from yet."""
    used = {(r.body or {}).get("tool") for r in results}
    return [t for t in tools if t not in used]


def repeated_tools(results: Sequence[Result], tools: Sequence[str]) -> list[str]:
    """The tools the turn after a repeated scope leaves out: those used so far, if any is not.

    A small model answered "not executed" repeats the call verbatim until the run saturates;
    offering only what it has not tried yet (or, if it tried everything, all but the repeated
    tool) moves it on. The draft is always offered, and the gate's rules are unchanged.
    """
    body = results[-1].body if results else None
    if body is None or body.get("status") != "DUPLICATE_SCOPE" or not body.get("tool"):
        return []
    if not unused_tools(results, tools):
        return [str(body["tool"])]
    return sorted({str(r.body.get("tool")) for r in results if r.body and r.body.get("tool")})


def next_step(results: Sequence[Result], tools: Sequence[str] = (), *,
              changes: tuple[str, str] | None = None) -> str:
    """What the next envelope needs, and hints a small model needs there.

    The tools not tried yet (it repeats itself) and, while SQL is offered, the bounds for what
    changed before the window (it asked the change tables for the window itself, or for its
    last second, and found nothing).
    """
    last = last_call(results)
    if last is None:
        return prompts.phrase("json_next_first")
    open_ = not any(r.stop_required for r in results)
    unused = unused_tools(results, tools)
    hints = [prompts.phrase("json_hint_unused", tools=", ".join(unused))] if unused and open_ else []
    if open_ and changes and SQL_TOOL in tools:
        hints.append(prompts.phrase("json_hint_changes", start=changes[0], end=changes[1]))
    return prompts.phrase("json_next_call", call_id=last, hints="".join(f" {h}" for h in hints))
