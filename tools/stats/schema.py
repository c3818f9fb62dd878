"""What the operational tables are, read from the schema and a sample of rows.

The statistics tools work on datasets they were not written for, so nothing here knows a
table by name alone (docs/design.md §16.1 lists the rules):

- a **time column** holds timestamps: on SQLite the build stores every time column in the
  canonical UTC spelling (``tools/dataset/tables.py``), so a column whose sampled values all
  have that spelling is one; a real database returns its time columns as ``datetime`` values;
- a **numeric column** holds only numbers (not booleans) and is not an id (``id``, ``*_id``);
- an **entity column** is a text column named like ``service``/``host``/``pod``/``node``/
  ``instance``/``container``/``component``/``app``/``entity``/``name``, else a column naming
  services, else one named like ``cmdb_id``, ``host_name``, ``pod_id`` (such a word with an
  ``_id``/``_name`` ending), else the one text column of a table of time series (a queue,
  a topic, a volume);
- a **metric-name column** makes a table *long*: one row per (time, entity, metric, value),
  as monitoring exports often come (``timestamp,cmdb_id,kpi_name,value``): a text column named
  ``metric``, ``metric_name``, ``kpi``, ``kpi_name``, ``__name__``, ``measure``, ``indicator``
  or ``counter`` in a table with numeric columns; each of its values is a series of its own;
- a **change table** has a time column and a name or columns of a change log (deploys,
  releases, rollouts, config or flag changes, jobs, crons, certificates, migrations…);
- a **dependency table** has two text columns whose sampled values are mostly services of the
  log store; the one named like a caller (``caller``, ``source``, ``src``, ``from``,
  ``client``, ``service``, ``consumer``, ``parent``…) depends on the other (the callee), else
  the first in table order depends on the second.

Detection samples :data:`SAMPLE_ROWS` rows per table once per ops backend (cached): the data
is read-only, so the answer cannot change while the backend is open.
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from diagnosis_harness.tools.backends import Backends, OpsBackend
from diagnosis_harness.tools.sql_safety import validate_select

SAMPLE_ROWS = 50
_CANONICAL_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z\Z")
_ID = re.compile(r"(^|_)(id|uuid|key|pk|sha|hash|version|port)$", re.IGNORECASE)
_ENTITY = ("service", "service_name", "host", "hostname", "pod", "node", "instance",
           "container", "component", "app", "application", "entity", "name", "target", "job")
_ENTITY_LIKE = re.compile(r"^(service|host|pod|node|instance|container|component|app|cmdb|"
                          r"device|machine|server|workload|deployment|resource|object)"
                          r"_?(id|name)$", re.IGNORECASE)
"""An entity column's name with an id/name ending (``cmdb_id``, ``pod_name``), where no column
has one of the plain :data:`_ENTITY` names."""
_METRIC_NAME = re.compile(r"^(metric|metric_?name|kpi|kpi_?name|__name__|measure|measurement|"
                          r"indicator|indicator_?name|counter|counter_?name)$", re.IGNORECASE)
"""A column naming the metric of each row in a long table (one row per time, entity, metric)."""
_CHANGE_NAME = re.compile(r"deploy|release|rollout|change|config|flag|job|cron|cert|migrat|"
                          r"upgrade|patch|restart|rollback|toggle|schedule|maintenance|setting",
                          re.IGNORECASE)
_CHANGE_COLUMNS = re.compile(r"^(version|old_value|new_value|config_key|key|flag|changed_by|"
                             r"deployed_by|author|commit|sha|image|change_id|deploy_id|job|"
                             r"action|operation|not_after|expires_at|cron)$", re.IGNORECASE)
_CALLER = re.compile(r"^(caller|source|src|from|client|service|consumer|parent|dependent|"
                     r"downstream|origin)(_service|_name)?$", re.IGNORECASE)
_CALLEE = re.compile(r"^(callee|target|dst|dest|destination|to|server|depends_on|dependency|"
                     r"upstream|provider|child|backend)(_service|_name)?$", re.IGNORECASE)
SERVICE_SHARE = 0.8
"""A column names services when at least this share of its distinct sampled values are services."""


@dataclass(frozen=True)
class TableKind:
    """What one ops table is, by its columns."""

    name: str
    columns: tuple[str, ...]
    time_columns: tuple[str, ...] = ()
    numeric_columns: tuple[str, ...] = ()
    entity_column: str | None = None
    metric_column: str | None = None
    """The column naming each row's metric in a long table (its numeric columns are values)."""
    column_entities: tuple[tuple[str, str, str], ...] = ()
    """(column, service, metric) of a wide table without an entity column whose numeric columns
    are named after services (``cartservice_cpu``: ``cartservice``'s ``cpu``)."""
    is_change_log: bool = False
    edge: tuple[str, str] | None = None
    """(caller column, callee column) of a dependency table."""


@dataclass
class OpsLayout:
    """Every ops table's kind."""

    tables: dict[str, TableKind] = field(default_factory=dict)

    def edge_table(self) -> TableKind | None:
        """The first dependency table (by name), if any."""
        return next((t for _, t in sorted(self.tables.items()) if t.edge), None)


_cache: weakref.WeakKeyDictionary[OpsBackend, OpsLayout] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def quote(name: str, dialect: str) -> str:
    """A quoted identifier for ``dialect`` (backticks for MySQL, double quotes elsewhere)."""
    if dialect == "mysql":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    """A SQL string literal (quotes doubled; the validator re-parses the whole statement)."""
    return "'" + value.replace("'", "''") + "'"


def run_select(backends: Backends, sql: str, *, max_rows: int, timeout_s: float,
               max_bytes: int) -> tuple[list[str], list[tuple[Any, ...]], bool]:
    """Run a generated SELECT through the same validator and backend as ``query_mysql``."""
    checked = validate_select(sql, backends.ops_schema(), backends.ops.dialect)
    result = backends.ops.execute(checked.sql, max_rows=max_rows, row_bytes=_row_bytes,
                                  max_bytes=max_bytes, timeout_s=timeout_s)
    return result.columns, result.rows, result.more


def _row_bytes(row: tuple[Any, ...]) -> int:
    """A row's size for the byte cap, 4 per value plus the value's own.

    A text's length; 24 for a 64-bit int or a float (their longest spelling) — spelling each
    number out cost most of a day window's time in ``metric_shifts``.
    """
    return sum(map(_value_bytes, row)) + 4 * len(row)


def _value_bytes(value: Any) -> int:  # Any: narrowed by type(), which mypy does not follow
    kind = type(value)
    return len(value) if kind is str else 24 if kind in _FIXED else len(str(value))


_FIXED = frozenset({int, float, type(None)})


def layout(backends: Backends, timeout_s: float) -> OpsLayout:
    """The kinds of the ops tables (sampled once per ops backend)."""
    with _lock:
        known = _cache.get(backends.ops)
    if known is not None:
        return known
    services = set(getattr(backends.info, "services", ()))
    found = OpsLayout()
    for name, columns in sorted(backends.ops_schema().items()):
        cols = ", ".join(quote(c, backends.ops.dialect) for c in columns)
        _, rows, _ = run_select(backends, f"SELECT {cols} FROM {quote(name, backends.ops.dialect)}"
                                f" LIMIT {SAMPLE_ROWS}", max_rows=SAMPLE_ROWS,
                                timeout_s=timeout_s, max_bytes=5_000_000)
        found.tables[name] = classify(name, list(columns), rows, services)
    with _lock:
        _cache[backends.ops] = found
    return found


def classify(name: str, columns: list[str], rows: list[tuple[Any, ...]],
             services: set[str]) -> TableKind:
    """The kind of one table from its columns and sampled rows."""
    values = {c: [r[i] for r in rows if r[i] is not None] for i, c in enumerate(columns)}
    times = tuple(c for c in columns if values[c] and all(_is_time(v) for v in values[c]))
    numeric = tuple(c for c in columns if c not in times and values[c] and not _ID.search(c)
                    and all(is_number(v) for v in values[c]))
    texts = [c for c in columns if values[c] and all(isinstance(v, str) for v in values[c])
             and c not in times]
    metric = next((c for c in texts if _METRIC_NAME.match(c)), None) if numeric else None
    texts = [c for c in texts if c != metric]
    entity = next((c for c in texts if c.lower() in _ENTITY), None)
    naming = [c for c in texts if _names_services(values[c], services)]
    edge = _edge(naming) if len(naming) >= 2 else None
    change = bool(times) and edge is None and (
        bool(_CHANGE_NAME.search(name)) or sum(bool(_CHANGE_COLUMNS.match(c)) for c in columns) >= 2)
    if entity is None:
        entity = naming[0] if naming else next((c for c in texts if _ENTITY_LIKE.match(c)), None)
    if entity is None and numeric and times and not change and edge is None and len(texts) == 1:
        entity = texts[0]  # a series table's one text column: the queue, topic, volume measured
    split = () if entity or metric or change else _service_columns(numeric, services)
    return TableKind(name=name, columns=tuple(columns), time_columns=times,
                     numeric_columns=numeric, entity_column=entity, metric_column=metric,
                     column_entities=split, is_change_log=change, edge=edge)


def _service_columns(numeric: tuple[str, ...],
                     services: set[str]) -> tuple[tuple[str, str, str], ...]:
    """Numeric columns named ``<service>_<metric>``: (column, service, metric).

    ``cartservice_cpu`` is ``cartservice``'s ``cpu``: the longest service name of the log store
    that prefixes the column, followed by ``_``, ``-`` or ``.``.
    """
    out = []
    for column in numeric:
        low = column.lower()
        owner = max((s for s in services if low.startswith(s.lower()) and len(low) > len(s) + 1
                     and low[len(s)] in "_-." and re.sub(r"[_-]", "", s)), key=len, default=None)
        if owner is not None:
            out.append((column, owner, column[len(owner) + 1:]))
    return tuple(out)


def is_number(value: object) -> bool:
    """An int, float or Decimal (a real database's NUMERIC), not a boolean."""
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _is_time(value: object) -> bool:
    if isinstance(value, datetime):  # a date alone is no moment: not a time column
        return True
    return isinstance(value, str) and bool(_CANONICAL_UTC.match(value))


def _names_services(values: list[Any], services: set[str]) -> bool:
    distinct = {str(v).strip().lower() for v in values}
    hits = sum(v in services for v in distinct)
    return hits >= 1 and hits >= SERVICE_SHARE * len(distinct)


def _edge(naming: list[str]) -> tuple[str, str]:
    caller = next((c for c in naming if _CALLER.match(c)), None)
    callee = next((c for c in naming if _CALLEE.match(c) and c != caller), None)
    if caller and not callee:
        callee = next(c for c in naming if c != caller)
    elif callee and not caller:
        caller = next(c for c in naming if c != callee)
    elif not caller or not callee:
        caller, callee = naming[0], naming[1]
    return caller, callee


def dependencies(backends: Backends, timeout_s: float) -> tuple[TableKind | None,
                                                                set[tuple[str, str]]]:
    """The dependency table and its edges (caller, callee), lower case, self-edges dropped."""
    table = layout(backends, timeout_s).edge_table()
    if table is None or table.edge is None:
        return None, set()
    q = backends.ops.dialect
    caller, callee = table.edge
    _, rows, _ = run_select(
        backends, f"SELECT DISTINCT {quote(caller, q)}, {quote(callee, q)} FROM "
        f"{quote(table.name, q)}", max_rows=10_000, timeout_s=timeout_s, max_bytes=5_000_000)
    edges = {(str(a).strip().lower(), str(b).strip().lower()) for a, b in rows
             if a is not None and b is not None}
    return table, {(a, b) for a, b in edges if a != b}
