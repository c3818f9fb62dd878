"""Evidence provenance of a checked SELECT: every value it returns must come from stored rows.

A query result becomes citable evidence, so a query may not *write* its own evidence. On the
sqlglot tree of the statement (after :mod:`diagnosis_harness.tools.sql_safety` has checked it is a read-only
SELECT), this module refuses:

- a SELECT without FROM, and VALUES lists (rows made of constants);
- an output column that reads no table: a constant, ``NULL``, ``CURRENT_TIMESTAMP``, ``max(10)``;
- an output column that is not on the allow-list of :mod:`diagnosis_harness.tools.sql_values`
  (a column, an aggregate of one, arithmetic and comparisons, date/time functions, one-word
  CASE labels): whatever builds text from literals or from several values is refused;
- column names that are prose: aliases must be plain identifiers, an unnamed expression may
  not carry literal text (SQLite names the column after the expression's text), and a quoted
  name that is no known column is refused (SQLite would silently read ``"x"`` as the string
  ``'x'``).

Every SELECT whose values reach the result is checked: the statement, UNION arms, CTE bodies,
derived tables and scalar subqueries. The bodies of ``EXISTS (…)`` and ``IN (…)`` only decide
which rows are returned, so their projections are free. What this does *not* prove — numbers
computed by arithmetic over data (``count(*) * 0 + 10``) — is said in ``docs/security.md``; the
statement is part of every record's scope, which the judge sees, and a computed column is
marked in the stored row (:func:`diagnosis_harness.tools.sql_values.column_origins`).
"""

from __future__ import annotations

import re

from sqlglot import exp

from diagnosis_harness.tools.results import SqlRejected
from diagnosis_harness.tools.sql_values import check_output

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,29}")
_QUIET_LITERAL = re.compile(r"[A-Za-z]{1,24}|(%[-+ #0-9.]{0,8}[A-Za-z%]|[ T:/.,_+-])*")
"""Literal text that may appear in an unnamed column's expression (and so in its name)."""
_IMPLICIT_COLUMNS = frozenset({"rowid", "oid", "_rowid_"})


def _exempt(select: exp.Expr) -> bool:
    """A SELECT under EXISTS (…) or IN (…) decides which rows return; its values never do."""
    parent = select.parent
    while parent is not None:
        if isinstance(parent, exp.Exists | exp.In):
            return True
        parent = parent.parent
    return False


def _show(node: exp.Expr) -> str:
    text = node.sql(dialect="sqlite")
    return text if len(text) <= 80 else text[:79] + "…"


def check_provenance(root: exp.Expr, known_columns: set[str] | None = None) -> None:
    """Refuse a query that could return values it did not read from the tables.

    ``known_columns`` (lower-cased column names of the allowed tables) enables the check that
    every referenced name is a real column or a name the query defines.
    """
    if any(isinstance(n, exp.Values) for n in root.walk()):
        raise SqlRejected("VALUES lists are constants, not data: select rows from a table")
    defined = _defined_names(root)
    if known_columns is not None:
        _check_columns(root, known_columns | defined | _IMPLICIT_COLUMNS)
    for select in root.find_all(exp.Select):
        if _exempt(select):
            continue
        if not (select.args.get("from_") or select.args.get("from")):
            raise SqlRejected(
                f"SELECT without FROM reads no data ({_show(select)}): a query result is "
                "evidence only through values read from the tables; select from a table")
        for position, projection in enumerate(select.expressions, start=1):
            _check_projection(projection, position)


def _defined_names(root: exp.Expr) -> set[str]:
    names: set[str] = set()
    for alias in root.find_all(exp.Alias):
        name = alias.alias
        if not _IDENTIFIER.fullmatch(name):
            raise SqlRejected(f"column name {name[:60]!r} must be a plain identifier (letters, "
                              "digits, _; at most 30 characters)")
        names.add(name.lower())
    for table_alias in root.find_all(exp.TableAlias):
        for column in table_alias.args.get("columns") or []:
            name = column.name
            if not _IDENTIFIER.fullmatch(name):
                raise SqlRejected(f"column name {name[:60]!r} must be a plain identifier")
            names.add(name.lower())
    return names


def _check_columns(root: exp.Expr, names: set[str]) -> None:
    for column in root.find_all(exp.Column):
        if isinstance(column.this, exp.Star):
            continue
        if column.name.lower() not in names:
            raise SqlRejected(f"unknown column {column.name[:60]!r}{_quoting(column)}")


def _quoting(column: exp.Column) -> str:
    """The hint for a double-quoted unknown name: it was meant as text (SQLite reads it so)."""
    if isinstance(column.this, exp.Identifier) and column.this.args.get("quoted"):
        return ": text values take single quotes ('…'); double quotes name columns"
    return ""


def check_table_columns(root: exp.Expr, table: str, columns: list[str]) -> None:
    """Refuse a column that ``table``, the one table the query reads, does not have.

    Sent to the database, such a query fails as "no such column" (or, double-quoted, reads as a
    string); refused here, the answer names the table's columns so the next query can use them
    (a model that queried one table's ``ts`` asked every other table for ``ts`` too).
    """
    names = {c.lower() for c in columns} | _defined_names(root) | _IMPLICIT_COLUMNS
    for column in root.find_all(exp.Column):
        if isinstance(column.this, exp.Star) or column.name.lower() in names:
            continue
        raise SqlRejected(f"table {table} has no column {column.name[:60]!r}; its columns: "
                          f"{', '.join(columns)}{_quoting(column).replace(':', ';', 1)}")


def _check_projection(projection: exp.Expr, position: int) -> None:
    expression = projection.unalias()
    if isinstance(expression, exp.Column | exp.Star):
        return
    if not check_output(expression, position).data:
        raise SqlRejected(
            f"column {position} ({_show(expression)}) is a constant, not a value read from a "
            "table: a query result is evidence only through what the tables hold")
    if not isinstance(projection, exp.Alias):
        # SQLite names an unnamed column after its expression's text, literals included.
        for literal in expression.find_all(exp.Literal):
            if literal.is_string and not _QUIET_LITERAL.fullmatch(str(literal.this)):
                raise SqlRejected(f"name column {position} with AS: unnamed, its column name "
                                  "would repeat the literal text in it")
