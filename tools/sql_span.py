"""Where a table's data begins and ends, when a query asks for times outside it (issue 40).

A player's ``query_mysql`` over Feb 9 got rows of Feb 10 only, and nothing said the table
starts then: it read the rows as Feb 9's, or took the missing day for a quiet one. The query's
own time bounds — a column compared with a timestamp literal (``>=``, ``>``, ``<``, ``<=``,
``BETWEEN``) — are read from the checked statement; where the table's data of that column
begins after the earliest bound or ends before the latest, :func:`span_note` says so, with the
data's span. A note is no evidence: it only tells the model what the rows cannot show.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import sqlglot
from sqlglot import exp

from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.results import ToolInputError
from diagnosis_harness.tools.sql_safety import validate_select
from diagnosis_harness.tools.timeutil import TimestampError, format_utc, parse_ts

__all__ = ["span_note"]

_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")
_LOWER = (exp.GT, exp.GTE)
_UPPER = (exp.LT, exp.LTE)
_MAX_COLUMNS = 3
"""Time columns checked per query (each costs one MIN/MAX query)."""


def _moment(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str) and _DATED.match(value.strip()):
        try:
            return parse_ts(value)
        except TimestampError:
            return None
    return None


def _bounds(sql: str, dialect: str) -> dict[tuple[str, str], list[datetime | None]]:
    """(table, column) → [earliest lower bound, latest upper bound] the statement compares with."""
    root = sqlglot.parse_one(sql, read=dialect)
    tables = {t.alias_or_name.lower(): t.name for t in root.find_all(exp.Table)}
    only = next(iter(set(tables.values()))) if len(set(tables.values())) == 1 else None
    found: dict[tuple[str, str], list[datetime | None]] = {}

    def note(column: exp.Expr, value: exp.Expr, upper: bool) -> None:
        if not isinstance(column, exp.Column) or not isinstance(value, exp.Literal) \
                or not value.is_string or (moment := _moment(value.this)) is None:
            return
        table = tables.get(column.table.lower()) if column.table else only
        if table is None:
            return
        lo_hi = found.setdefault((table, column.name), [None, None])
        i = 1 if upper else 0
        known = lo_hi[i]
        lo_hi[i] = moment if known is None else (max(known, moment) if upper else min(known, moment))

    for node in root.find_all(exp.Between, *_LOWER, *_UPPER):
        if isinstance(node, exp.Between):
            note(node.this, node.args["low"], upper=False)
            note(node.this, node.args["high"], upper=True)
        else:  # `col >= '…'`, or `'…' <= col` read the other way round
            upper = isinstance(node, _UPPER)
            note(node.this, node.expression, upper)
            note(node.expression, node.this, not upper)
    return found


def span_note(backends: Backends, sql: str, timeout_s: float) -> str | None:
    """A note when the asked times reach before or after a table's data, else None.

    ``sql`` is the checked statement. The MIN/MAX query runs through the same validator and
    backend; one that cannot run (a timeout) leaves the note out — the rows stand as returned.
    """
    dialect = backends.ops.dialect
    notes = []
    for (table, column), (lo, hi) in list(_bounds(sql, dialect).items())[:_MAX_COLUMNS]:
        try:
            named = exp.column(column, quoted=True)
            query = sqlglot.select(exp.Min(this=named), exp.Max(this=named.copy())).from_(
                exp.table_(table, quoted=True)).sql(dialect=dialect)
            checked = validate_select(query, backends.ops_schema(), dialect)
            result = backends.ops.execute(checked.sql, max_rows=1, row_bytes=lambda _: 64,
                                          max_bytes=4096, timeout_s=timeout_s)
        except (TimeoutError, ToolInputError):
            continue
        first, last = (_moment(v) for v in (result.rows[0] if result.rows else (None, None)))
        if first is None or last is None:
            continue
        if (lo is not None and first > lo) or (hi is not None and last < hi):
            notes.append(f"{table}.{column} holds data from {format_utc(first)} to "
                         f"{format_utc(last)} only: nothing outside that span can be shown")
    return "; ".join(notes) or None
