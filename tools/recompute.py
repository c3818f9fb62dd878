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

A re-check that could not *run* — the backend timed out or was unreachable, the limit it was
given overflowed — proves nothing either way: :func:`recheck` keeps those apart
(:attr:`Recheck.unavailable`), and release publishes nothing without calling the run tampered
(EVIDENCE_RECHECK_UNAVAILABLE).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.exc import DBAPIError

from diagnosis_harness.control.contracts import EMPTY_KIND, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.backends.prometheus import PrometheusError
from diagnosis_harness.tools.bounded import run_bounded
from diagnosis_harness.tools.registry import call_settings, find_tool
from diagnosis_harness.tools.results import Item, ToolInputError

STATISTICS_TOOLS = frozenset({"compare_windows", "onset_timeline", "metric_shifts",
                              "recent_changes", "query_metrics"})
REPLAYED_FROM_SCOPE = frozenset({"query_metrics"})
"""Tools asked again with the record's scope, not its arguments: the scope holds the resolved
times (a live server's "now" moves on; the question asked must not)."""


def _plain(value: object) -> object:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _same(fact: Fact, item: Item) -> bool:
    return (fact.kind, fact.text, _plain(fact.data)) == (item.kind, item.text, _plain(item.data))


UNREACHABLE_CODES = frozenset({"timeout", "prometheus_unreachable", "prometheus_error",
                               "prometheus_redirect", "bad_response", "not_configured"})
"""Error codes of a tool (``query_metrics``) that say its backend did not answer, not that the
record's question was wrong."""
_COULD_NOT_RUN = (TimeoutError, OverflowError, OSError, MemoryError, sqlite3.OperationalError,
                  DBAPIError, BackendUnavailable, PrometheusError)
"""Exceptions that mean the re-check did not run: a timeout (ToolTimedOut is one), an absurd
limit (``HARNESS_SQL_TIMEOUT_S=1e308`` overflows the clock), a backend that is down."""


@dataclass(frozen=True)
class Recheck:
    """What re-computing a run's statistics found."""

    tampered: list[str] = field(default_factory=list)
    """Records whose facts the tool does not return again: not computed from this data."""
    unavailable: list[str] = field(default_factory=list)
    """Records that could not be re-computed now (timeout, backend down, overflow)."""


class _Unavailable(Exception):
    pass


def recheck(records: Sequence[ToolRecord], backends: Backends | None, settings: Settings,
            timeout_s: float | None = None) -> Recheck:
    """Re-compute every READY statistics record; sort the failures into tampered and unavailable."""
    out = Recheck()
    for record in records:
        if record.tool in STATISTICS_TOOLS and \
                record.invocation_status is InvocationStatus.READY:
            try:
                problem = _recompute(record, backends, settings, timeout_s)
            except _Unavailable as exc:
                out.unavailable.append(f"record {record.tool_call_id} ({record.tool}): {exc}")
                continue
            if problem:
                out.tampered.append(f"record {record.tool_call_id} ({record.tool}): {problem}")
    return out


def recompute_problems(records: Sequence[ToolRecord], backends: Backends | None,
                       settings: Settings, timeout_s: float | None = None) -> list[str]:
    """One problem per READY statistics record that is not confirmed, for whatever reason."""
    found = recheck(records, backends, settings, timeout_s)
    return found.tampered + found.unavailable


def _recompute(record: ToolRecord, backends: Backends | None, settings: Settings,
               timeout_s: float | None) -> str | None:
    """Why the record does not re-compute (None: it does); _Unavailable if the check cannot run."""
    if backends is None:
        raise _Unavailable("no data to re-compute its statistics on")
    spec = find_tool(record.tool)
    if spec is None:
        return "no such statistics tool"
    asked = record.scope if record.tool in REPLAYED_FROM_SCOPE else record.args
    try:
        bounded = call_settings(settings, timeout_s)
        kwargs = spec.args_model.model_validate(asked).model_dump()
        result = spec.run(backends, bounded, **kwargs) if timeout_s is None else run_bounded(
            lambda: spec.run(backends, bounded, **kwargs), backends, timeout_s, record.tool)
    except _COULD_NOT_RUN as exc:
        raise _Unavailable(_could_not(exc)) from None
    except ToolInputError as exc:
        if getattr(exc, "code", None) in UNREACHABLE_CODES:
            raise _Unavailable(_could_not(exc)) from None
        return f"its statistics could not be re-computed ({type(exc).__name__}: {str(exc)[:200]})"
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


def _could_not(exc: BaseException) -> str:
    return f"its statistics could not be re-checked now ({type(exc).__name__}: {str(exc)[:200]})"
