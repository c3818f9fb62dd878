"""Re-compute a statistics record at release: same arguments, same numbers, or it is refused.

The run store keeps every record a tool returned and release refuses a state that disagrees
with it (docs/design.md §14) — but a record *in the store* is taken as the tool's word. A
statistic is a claim about the data ("40 new ERROR events from 10:04:10"), and the data is
read-only, so the tool can simply be asked again: :func:`recompute_problems` runs each READY
statistics record's tool with the record's arguments and compares what the record shows — each
fact's kind, text and data, in order — with what the tool returns now. A record whose numbers
do not come out the same was not computed from this store: release publishes nothing
(EVIDENCE_TAMPERED, docs/design.md §16.1). ``query_metrics`` is asked again the same way, on
the live Prometheus, with the times its record resolved (docs/design.md §17).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from diagnosis_harness.control.contracts import EMPTY_KIND, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.bounded import run_bounded
from diagnosis_harness.tools.registry import call_settings, find_tool
from diagnosis_harness.tools.results import Item

STATISTICS_TOOLS = frozenset({"compare_windows", "onset_timeline", "metric_shifts",
                              "recent_changes", "query_metrics"})
REPLAYED_FROM_SCOPE = frozenset({"query_metrics"})
"""Tools asked again with the record's scope, not its arguments: the scope holds the resolved
times (a live server's "now" moves on; the question asked must not)."""


def _plain(value: object) -> object:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _same(fact: Fact, item: Item) -> bool:
    return (fact.kind, fact.text, _plain(fact.data)) == (item.kind, item.text, _plain(item.data))


def recompute_problems(records: Sequence[ToolRecord], backends: Backends | None,
                       settings: Settings, timeout_s: float | None = None) -> list[str]:
    """One problem per READY statistics record whose facts the tool does not return again."""
    problems = []
    for record in records:
        if record.tool in STATISTICS_TOOLS and \
                record.invocation_status is InvocationStatus.READY:
            problem = _recompute(record, backends, settings, timeout_s)
            if problem:
                problems.append(f"record {record.tool_call_id} ({record.tool}): {problem}")
    return problems


def _recompute(record: ToolRecord, backends: Backends | None, settings: Settings,
               timeout_s: float | None) -> str | None:
    if backends is None:
        return "no data to re-compute its statistics on"
    spec = find_tool(record.tool)
    if spec is None:
        return "no such statistics tool"
    bounded = call_settings(settings, timeout_s)
    asked = record.scope if record.tool in REPLAYED_FROM_SCOPE else record.args
    try:
        kwargs = spec.args_model.model_validate(asked).model_dump()
        result = spec.run(backends, bounded, **kwargs) if timeout_s is None else run_bounded(
            lambda: spec.run(backends, bounded, **kwargs), backends, timeout_s, record.tool)
    except Exception as exc:  # noqa: BLE001 — whatever fails, the numbers are not confirmed
        return f"its statistics could not be re-computed ({type(exc).__name__}: {str(exc)[:200]})"
    facts = [f for f in record.facts if f.kind != EMPTY_KIND]  # "found nothing" has no numbers
    if record.facts and not facts and result.items:
        return "it found nothing when it ran, but the data now gives rows for its scope"
    if len(result.items) < len(facts) or not all(
            _same(f, i) for f, i in zip(facts, result.items, strict=False)):
        return "its statistics do not re-compute from the data (a number in the record is not " \
            "what the tool computes)"
    return None
