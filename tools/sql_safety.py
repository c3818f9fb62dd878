"""Validate that a SQL text is exactly one read-only SELECT over allowed tables.

This is the first of three independent layers (the others: a read-only connection and, for
SQLite, an authorizer that denies every non-read action, see ``diagnosis_harness.tools.backends``). It uses a
real
parser (sqlglot), and the statement that runs is the one regenerated from the checked tree, so
what was inspected is what executes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from diagnosis_harness.tools.results import SqlRejected
from diagnosis_harness.tools.sql_provenance import check_provenance, check_table_columns
from diagnosis_harness.tools.sql_values import column_origins

DENIED_FUNCTIONS = frozenset(
    {
        # SQLite: extension loading, file access (shell builtins), tokenizer pointer tricks.
        "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "fts5",
        "zeroblob", "randomblob",
        # Other engines, for when ops_db_url points at MySQL/PostgreSQL.
        "sleep", "benchmark", "load_file", "get_lock", "release_lock", "sys_exec", "sys_eval",
        "pg_sleep", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "lo_import", "lo_export",
        "dblink", "dblink_exec", "copy", "system", "eval", "exec",
        # PostgreSQL: session settings that outlive the query, sequence writes, SQL text run
        # inside a function (past the table allow-list), and (prefixes) pg_* admin/file/lock
        # functions and lo_* large objects.
        "set_config", "nextval", "setval", "ts_stat", "crosstab", "query_to_xml",
        "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
        "cursor_to_xmlschema", "table_to_xml", "table_to_xmlschema", "table_to_xml_and_xmlschema",
        "schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema", "database_to_xml",
        "database_to_xmlschema", "database_to_xml_and_xmlschema",
    }
)
"""Functions refused anywhere in a query (plus every name with a prefix in DENIED_PREFIXES)."""
DENIED_PREFIXES = ("sqlite_", "pragma_", "pg_", "lo_")

_FORBIDDEN_NODES = tuple(
    getattr(exp, name)
    for name in (
        "DML", "DDL", "Insert", "Update", "Delete", "Merge", "Copy", "Create", "Drop", "Alter",
        "Command", "Pragma", "Attach", "Detach", "Into", "Lock", "Transaction", "Commit",
        "Rollback", "Set", "Use", "Kill", "LoadData", "Analyze", "Describe", "Show", "Cache",
        "Uncache", "Refresh", "TruncateTable", "Grant", "Revoke", "Comment", "Declare",
        "Execute", "Returning",
    )
    if hasattr(exp, name)  # names differ across sqlglot releases; absent ones cannot appear
)
_STRING_TOKENS = {
    t for t in (getattr(TokenType, n, None) for n in
                ("STRING", "NATIONAL_STRING", "RAW_STRING", "BYTE_STRING", "HEX_STRING",
                 "BIT_STRING", "UNICODE_STRING", "HEREDOC_STRING"))
    if t is not None
}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}
_ALLOWED_CONTROL = {"\t", "\n", "\r"}
_QUERY_STARTS = (TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN)


@dataclass(frozen=True)
class SafeSelect:
    """A validated query: the regenerated SQL to execute and the tables it reads."""

    sql: str
    tables: tuple[str, ...]
    origins: tuple[str, ...] | None = None
    """Per output expression: read, renamed or computed (:func:`sql_values.column_origins`)."""


def is_denied_function(name: str) -> bool:
    """True for functions no evidence query may call (shared with the SQLite authorizer)."""
    lowered = name.lower()
    return lowered in DENIED_FUNCTIONS or lowered.startswith(DENIED_PREFIXES)


@functools.lru_cache(maxsize=4)  # the gate, then the boundary, ask for the same call
def normalise_sql(sql: str, dialect: str = "sqlite") -> str:
    """Canonical spelling of ``sql`` for scope comparison; whitespace-collapsed if unparsable."""
    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
        if not tokens or tokens[0].token_type not in _QUERY_STARTS:
            return " ".join(sql.split())  # not a query: no need to parse it (and log about it)
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        if len(trees) == 1 and isinstance(trees[0], exp.Query):
            return _unwrap(trees[0]).sql(dialect=dialect)
    except (SqlglotError, RecursionError):
        pass
    return " ".join(sql.split())


def validate_select(sql: str, allowed_tables: Iterable[str], dialect: str = "sqlite") -> SafeSelect:
    """Return the checked query, or raise :class:`SqlRejected` saying what to change.

    ``allowed_tables`` is the table allow-list; a mapping of table → columns (what
    ``Backends.ops_schema()`` returns) also lets the provenance check refuse unknown column
    names. Safety first (one read-only SELECT), then provenance (every returned value is read
    from a table, see :mod:`diagnosis_harness.tools.sql_provenance`).

    The answer depends on these arguments only, so an accepted query is remembered: concurrent
    runs of one incident send the same few queries, and parsing them was most of a SQL call.
    """
    tables = tuple(allowed_tables)
    columns = (tuple(tuple(allowed_tables[t]) for t in tables)
               if isinstance(allowed_tables, Mapping) else None)
    return _validated(sql, tables, columns, dialect)


@functools.lru_cache(maxsize=512)  # a rejection raises, and is not remembered
def _validated(sql: str, tables: tuple[str, ...], table_columns: tuple[tuple[str, ...], ...] | None,
               dialect: str) -> SafeSelect:
    allowed = {t.lower() for t in tables}
    columns = ({t.lower(): list(cols) for t, cols in zip(tables, table_columns, strict=True)}
               if table_columns is not None else None)
    known = {c.lower() for cols in columns.values() for c in cols} if columns else None
    if not sql.strip():
        raise SqlRejected("empty SQL: send one SELECT statement")
    if any((ord(c) < 32 and c not in _ALLOWED_CONTROL) or ord(c) == 127 for c in sql):
        raise SqlRejected("control characters are not allowed in SQL")
    try:
        tokens = _tokenize(sql, dialect)
        _check_tokens(sql, tokens)
        root = _parse_single(sql, dialect)
        tables = _check_tree(root, allowed)
        if columns is not None and len(tables) == 1:
            # First: naming the one table's columns is the answer a model can act on (an
            # unknown name anywhere else is refused by provenance below, without the list).
            check_table_columns(root, tables[0], columns[tables[0]])
        check_provenance(root, known)
        return SafeSelect(sql=root.sql(dialect=dialect), tables=tables,
                          origins=column_origins(root))
    except RecursionError:
        raise SqlRejected("the query is nested too deeply; write it flatter") from None


def _tokenize(sql: str, dialect: str) -> list[Token]:
    try:
        return sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
    except SqlglotError as exc:
        raise SqlRejected(f"could not parse SQL: {_first_line(exc)}") from None


def _check_tokens(sql: str, tokens: list[Token]) -> None:
    if not tokens:
        raise SqlRejected("empty SQL: send one SELECT statement")
    if any(t.comments for t in tokens):
        raise SqlRejected("SQL comments are not allowed; send the bare SELECT")
    in_string = bytearray(len(sql))
    for t in tokens:
        if t.token_type in _STRING_TOKENS:
            in_string[t.start : t.end + 1] = b"\1" * (t.end + 1 - t.start)
    if any(not c.isascii() and not in_string[i] for i, c in enumerate(sql)):
        # Look-alike letters, full-width semicolons, zero-width spaces: only inside literals.
        raise SqlRejected("non-ASCII characters are only allowed inside string literals")
    semis = [i for i, t in enumerate(tokens) if t.token_type == TokenType.SEMICOLON]
    if semis and semis != [len(tokens) - 1]:
        raise SqlRejected("exactly one statement is allowed (no ';' between statements)")
    if tokens[0].token_type not in _QUERY_STARTS:
        raise SqlRejected(
            f"only SELECT queries are allowed (WITH … SELECT and UNION too); got {tokens[0].text!r}"
        )
    for t, nxt in zip(tokens, tokens[1:], strict=False):
        if nxt.token_type == TokenType.L_PAREN and is_denied_function(t.text):
            raise SqlRejected(f"function {t.text!r} is not allowed")


def _parse_single(sql: str, dialect: str) -> exp.Expr:
    try:
        trees = sqlglot.parse(sql, read=dialect)
    except SqlglotError as exc:
        raise SqlRejected(f"could not parse SQL: {_first_line(exc)}") from None
    statements = [t for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    if len(statements) != 1:
        raise SqlRejected("exactly one statement is allowed")
    root = _unwrap(statements[0])
    if not isinstance(root, exp.Query):
        raise SqlRejected("only SELECT queries are allowed (WITH … SELECT and UNION too)")
    return root


def _unwrap(root: exp.Expr) -> exp.Expr:
    while isinstance(root, exp.Subquery) and not root.alias:
        root = root.this  # SQLite has no "(SELECT …)" statement; the parentheses add nothing
    return root


def _check_tree(root: exp.Expr, allowed: set[str]) -> tuple[str, ...]:
    for node in root.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            raise SqlRejected(f"{type(node).__name__.upper()} is not allowed in a read-only query")
        if isinstance(node, exp.Select) and not node.expressions:
            raise SqlRejected("incomplete SELECT: name the columns or expressions to return")
        if isinstance(node, exp.Func):
            for name in _function_names(node):
                if is_denied_function(name):
                    raise SqlRejected(f"function {name!r} is not allowed")
        if isinstance(node, exp.Limit | exp.Offset):
            _check_row_count(node)
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    if any(name.startswith("sqlite_") for name in ctes):
        raise SqlRejected("CTE names may not start with 'sqlite_'")
    used: set[str] = set()
    for table in root.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise SqlRejected("table-valued functions are not allowed; select from a table")
        if table.args.get("db") or table.args.get("catalog"):
            raise SqlRejected(f"qualified table names are not allowed: use {table.name!r} alone")
        name = table.name.lower()
        if name in ctes:
            continue
        if name not in allowed:
            listed = ", ".join(sorted(allowed)) or "(none)"
            raise SqlRejected(f"table {table.name!r} is not available; allowed tables: {listed}")
        used.add(name)
    return tuple(sorted(used))


_LARGEST_INTEGER = 2**63 - 1
"""SQLite's (and most servers') largest integer: past it a literal is a REAL, and a LIMIT of
one is SQLite's 'datatype mismatch', which told a small model nothing it could act on."""


def _check_row_count(node: exp.Limit | exp.Offset) -> None:
    value = node.args.get("expression")
    if isinstance(value, exp.Literal) and not value.is_string:
        try:
            too_large = int(value.this) > _LARGEST_INTEGER
        except ValueError:
            too_large = False  # 10.5, 1e3: the database says what is wrong with those
        if too_large:
            clause = "LIMIT" if isinstance(node, exp.Limit) else "OFFSET"
            raise SqlRejected(f"{clause} {value.this} is larger than the largest integer; the "
                              "tool returns a bounded number of rows anyway: use a small "
                              f"{clause} or none")


def _function_names(node: exp.Func) -> list[str]:
    if isinstance(node, exp.Anonymous):
        return [node.name]
    return list(type(node).sql_names())


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
