"""``query_mysql``: one validated, read-only SELECT over the operational database."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, field_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.results import Item, ToolArgs, ToolResult, clip
from diagnosis_harness.tools.sql_safety import normalise_sql, validate_select
from diagnosis_harness.tools.sql_span import span_note
from diagnosis_harness.tools.sql_values import COMPUTED, RENAMED, result_origins
from diagnosis_harness.tools.timeutil import format_utc

MAX_VALUE_CHARS = 500


class QueryMysqlArgs(ToolArgs):
    """Arguments of ``query_mysql``."""

    sql: str = Field(
        min_length=1, max_length=8000,
        description="One read-only SELECT.",
    )

    @field_validator("sql")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must be a SELECT statement")
        return value

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope: the canonical spelling of the statement."""
        url = settings.ops_db_url
        if url is None:
            return {"sql": normalise_sql(self.sql, "sqlite")}
        from diagnosis_harness.tools.backends.sqlalchemy import (
            url_dialect,  # SQLAlchemy only when a URL is set
        )

        return {"sql": normalise_sql(self.sql, url_dialect(url.get_secret_value()))}


def query_mysql(backends: Backends, settings: Settings, *, sql: str) -> ToolResult:
    """Run one read-only SELECT against the operational database and return its rows.

    Use it for operational records (e.g. merchants, payments, deploys, config changes,
    metrics); an error lists the tables you may use. Only a single SELECT is accepted (WITH and
    UNION are fine); comments, writes, PRAGMA, ATTACH and schema tables are refused. Timestamps
    are UTC text like '2026-11-03T10:00:00Z', so compare them as strings in that form. At most
    a fixed number of rows is returned: aggregate or add WHERE / LIMIT for large tables.
    """
    args = QueryMysqlArgs(sql=sql)
    with backends.lock:
        checked = validate_select(args.sql, backends.ops_schema(), backends.ops.dialect)
        result = backends.ops.execute(
            checked.sql,
            max_rows=settings.max_sql_rows,
            row_bytes=_row_bytes,
            max_bytes=settings.max_tool_result_bytes,
            timeout_s=settings.sql_timeout_s,
        )
        # Rows of Feb 10 for a query over Feb 9, with nothing saying the table starts then,
        # were read as Feb 9's: the table's data span is said when the asked times leave it.
        outside = span_note(backends, checked.sql, settings.sql_timeout_s)
    scope = args.scope(settings)
    columns = _unique(result.columns)
    # Which columns the query computed or renamed: their words are the query's, not the data's.
    origins = dict(zip(columns, result_origins(checked.origins, len(columns)), strict=True))
    written = {kind: [c for c in columns if origins[c] == kind] for kind in (COMPUTED, RENAMED)}
    marks = {kind: names for kind, names in written.items() if names}
    items, clipped = [], False
    for row in result.rows:
        values = {}
        for col, value in zip(columns, row, strict=True):
            values[col], was_clipped = _json_value(value)
            clipped |= was_clipped
        text = ", ".join(f"{c}={json.dumps(v, ensure_ascii=False)}" for c, v in values.items())
        items.append(Item(kind="row", text=text, data={"row": values, **marks}))
    note = None
    if result.more:
        note = (f"only the first {len(items)} rows are shown; aggregate or add WHERE / LIMIT "
                "to see the rest")
    note = "; ".join(n for n in (note, outside) if n) or None
    return ToolResult(scope=scope, items=items, truncated=result.more or clipped, note=note)


def _unique(columns: list[str]) -> list[str]:
    # "SELECT a.id, b.id" gives two "id" columns; keep both rather than silently merging them.
    seen: dict[str, int] = {}
    out = []
    for col in columns:
        n = seen.get(col, 0) + 1
        seen[col] = n
        out.append(col if n == 1 else f"{col}_{n}")
    return out


def _json_value(value: object) -> tuple[Any, bool]:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>", False
    if isinstance(value, str):
        return clip(value, MAX_VALUE_CHARS)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value), False  # JSON has no inf/nan
    if value is None or isinstance(value, int | float | bool):
        return value, False
    if isinstance(value, datetime):
        # A real database's timestamp, in the form the description promises and the embedded
        # tables use (a naive one is UTC, as the README asks such columns to be).
        return format_utc(value if value.tzinfo else value.replace(tzinfo=UTC)), False
    return str(value), False  # Decimal, date, time… from a real database driver


def _row_bytes(row: tuple[Any, ...]) -> int:
    return len(json.dumps([_json_value(v)[0] for v in row], ensure_ascii=False).encode())
