"""The allow-list of what a result column of an evidence query may be.

A query result is citable evidence, so no value it returns may carry words the query wrote. A
deny-list of text builders was not enough (``char(length(x)*0+82, …)``, ``json_array('…')``,
``replace(replace(col, 'db', '…'), …)``, ``substr(col, i, 1) || …`` all spelled sentences), so
every output expression must be built from these, and only these:

- a column (or ``*``);
- ``count(…)`` (of anything, ``count(*)``), and ``min`` / ``max`` / ``sum`` / ``avg`` /
  ``total`` of an allowed value; window ranks (``row_number() OVER …``) and ``lag`` / ``lead`` /
  ``first_value`` / ``last_value`` of an allowed value;
- arithmetic over allowed values and numeric literals; a comparison or any predicate (its value
  is 0/1, whatever it compares); ``length`` / ``instr`` (a number, whatever they measure);
  ``abs`` / ``round`` / ``sign`` / ``ceil`` / ``floor``, ``coalesce`` / ``ifnull`` / ``nullif``,
  scalar ``max(a, b)`` / ``min(a, b)``, ``CAST``, single-argument ``upper`` / ``lower`` /
  ``trim`` of allowed values;
- a date/time function of an allowed value: ``date``, ``time``, ``datetime``, ``julianday``,
  ``unixepoch`` (modifiers are literals), ``strftime`` whose format has only %-directives and
  separators, ``date_trunc`` / ``extract``;
- ``CASE … THEN 'label' ELSE … END`` (and ``iif`` without text) whose results are allowed values,
  numbers or single-word labels of letters (``'starved'``): the data decides which word.

Anything else is refused, naming the part that is not allowed and listing what is
(:data:`ALLOWED`): concatenation, ``printf`` / ``format``, ``replace``, ``substr``, ``char``,
``hex`` / ``unhex``, ``quote``, ``json_*``, ``group_concat`` / ``string_agg``, text literals
outside CASE labels, ``typeof``… WHERE, GROUP BY, ORDER BY and JOIN conditions are not output
and stay free. :func:`column_origins` says which result columns were computed (or renamed), so
the offline judge does not take their words as evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from diagnosis_harness.tools.results import SqlRejected

ALLOWED = ("a result column may be a column; count/min/max/sum/avg of one (count(*) too); "
           "arithmetic or a comparison over columns and numbers; length/instr/abs/round/"
           "coalesce/nullif/cast of those; a date/time function of a column (date, time, "
           "datetime, julianday, unixepoch, strftime with a format of %-directives only); or "
           "CASE … THEN 'word' with one-word labels; text built from literals or several values "
           "(||, printf, format, replace, substr, char, json_*, group_concat …) is not evidence")
_LABEL = re.compile(r"[A-Za-z]{1,24}")
_FORMAT = re.compile(r"(%[-+ #0-9.]{0,8}[A-Za-z%]|[ T:/.,_+0Z-])*")
"""A strftime format of directives, separators, zeros and Z only (``%Y-%m-%dT%H:00:00Z``)."""
_DATE_NAMES = frozenset({"date", "time", "datetime", "julianday", "unixepoch"})
_DATE_NODES = (exp.Date, exp.Time, exp.Datetime, exp.TsOrDsToDate, exp.TsOrDsToTimestamp)
_AGGREGATES = (exp.Min, exp.Max, exp.Sum, exp.Avg)
_RANKS = tuple(getattr(exp, n) for n in ("RowNumber", "Rank", "DenseRank", "PercentRank",
                                          "CumeDist", "Ntile") if hasattr(exp, n))
_OFFSETS = (exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Neg, exp.BitwiseAnd,
               exp.BitwiseOr, exp.BitwiseXor, exp.BitwiseNot, exp.BitwiseLeftShift,
               exp.BitwiseRightShift, exp.Abs, exp.Round, exp.Sign, exp.Ceil, exp.Floor,
               exp.Sqrt, exp.Pow, exp.Ln, exp.Log, exp.Exp)
_MEASURES = (exp.Length, exp.StrPosition, exp.Predicate, exp.Connector, exp.Not, exp.Count)
"""A number whatever they measure or compare: nothing inside them reaches the value."""
_SAME = (exp.Paren, exp.Cast, exp.TryCast, exp.Coalesce, exp.Greatest, exp.Least, exp.Upper,
         exp.Lower, exp.Distinct)
"""Their value is one of their (allowed) arguments, converted."""


class _NotAllowed(Exception):
    def __init__(self, node: exp.Expr) -> None:
        super().__init__()
        self.node = node


@dataclass(frozen=True)
class Value:
    """What an allowed output expression is made of."""

    data: bool
    """It reads a stored row (a column, ``*``, a row count or rank, a scalar subquery)."""
    label: bool = False
    """A CASE can return a one-word label written in the query."""


def _join(values: list[Value]) -> Value:
    return Value(any(v.data for v in values), any(v.label for v in values))


def _reads(node: exp.Expr) -> bool:
    return any(isinstance(n, exp.Column | exp.Star | exp.Count | exp.Query) or
               isinstance(n, _RANKS) for n in node.walk())


def _name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    return node.sql_name().lower() if isinstance(node, exp.Func) else ""


def _args(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.Anonymous):
        return [a for a in node.expressions if isinstance(a, exp.Expr)]
    return list(node.iter_expressions())


def value(node: exp.Expr) -> Value:
    """The provenance of an allowed output expression.

    Raises ``_NotAllowed`` naming the first part that is outside the allow-list.
    """
    if isinstance(node, exp.Column | exp.Star | exp.Query):
        return Value(True)  # a scalar subquery's own projections are checked as a SELECT
    if isinstance(node, exp.Literal):
        if node.is_string:
            raise _NotAllowed(node)
        return Value(False)
    if isinstance(node, exp.Null | exp.Boolean):
        return Value(False)
    if isinstance(node, _MEASURES):
        return Value(_reads(node))
    if isinstance(node, exp.Window):
        return value(node.this) if not isinstance(node.this, _RANKS) else Value(True)
    if isinstance(node, _RANKS):
        return Value(True)
    if isinstance(node, _AGGREGATES) or _name(node) == "total":
        return _one_argument(node)
    if isinstance(node, _OFFSETS):
        return _first_then_numbers(node)
    if isinstance(node, _ARITHMETIC):
        return Value(any(value(a).data for a in _args(node)))  # a number
    if isinstance(node, exp.Nullif):
        return Value(value(node.this).data)  # the second argument only decides
    if isinstance(node, _SAME):
        if isinstance(node, exp.Upper | exp.Lower) and len(_args(node)) != 1:
            raise _NotAllowed(node)
        return _join([value(a) for a in _args(node) if not isinstance(a, exp.DataType)])
    if isinstance(node, exp.Trim):
        if node.args.get("expression") is not None:
            raise _NotAllowed(node)  # trim(col, 'chars') carves words out of the data
        return value(node.this)
    if isinstance(node, exp.Case | exp.If):
        return _choice(node)
    return _date(node)


def _one_argument(node: exp.Expr) -> Value:
    args = _args(node)
    if len(args) != 1:
        raise _NotAllowed(node)
    return value(args[0])


def _first_then_numbers(node: exp.Expr) -> Value:
    first, *rest = _args(node) or [node]
    for extra in rest:
        if not (isinstance(extra, exp.Literal) and not extra.is_string):
            value(extra)  # an offset or a default: numbers or allowed values
    return value(first)


def _choice(node: exp.Case | exp.If) -> Value:
    if isinstance(node, exp.If):
        results = [node.args.get("true"), node.args.get("false")]
        deciders = [node.this]
    else:
        ifs = node.args.get("ifs") or []
        results = [i.args.get("true") for i in ifs] + [node.args.get("default")]
        deciders = [node.this, *(i.this for i in ifs)]
    picked: list[Value] = []
    for result in (r for r in results if r is not None):
        if (isinstance(node, exp.Case) and isinstance(result, exp.Literal) and result.is_string
                and _LABEL.fullmatch(str(result.this))):
            picked.append(Value(False, True))
        else:
            picked.append(value(result))
    chosen = _join(picked)
    return Value(chosen.data or any(_reads(d) for d in deciders if d is not None), chosen.label)


def _date(node: exp.Expr) -> Value:
    if isinstance(node, exp.TimeToStr):  # strftime(format, x)
        fmt = node.args.get("format")
        if not (isinstance(fmt, exp.Literal) and _FORMAT.fullmatch(str(fmt.this))):
            raise _NotAllowed(node)
        return Value(value(node.this).data)
    if isinstance(node, exp.Extract | exp.DateTrunc | exp.TimestampTrunc):
        parts = [a for a in _args(node) if not isinstance(a, exp.Var | exp.Literal)]
        if len(parts) != 1:
            raise _NotAllowed(node)
        return Value(value(parts[0]).data)
    if isinstance(node, _DATE_NODES) or _name(node) in _DATE_NAMES:
        args = _args(node)
        if not args or not all(isinstance(m, exp.Literal) for m in args[1:]):
            raise _NotAllowed(node)  # modifiers ('+1 day', 'start of month') are literals
        return Value(value(args[0]).data)
    raise _NotAllowed(node)


def _show(node: exp.Expr) -> str:
    text = node.sql(dialect="sqlite")
    return text if len(text) <= 80 else text[:79] + "…"


def check_output(expression: exp.Expr, position: int) -> Value:
    """The provenance of result column ``position``; SqlRejected saying what is allowed."""
    try:
        return value(expression)
    except _NotAllowed as refused:
        part = "" if refused.node is expression else f": {_show(refused.node)} is not allowed"
        raise SqlRejected(f"column {position} ({_show(expression)}) is not a value read from the "
                          f"tables{part}; {ALLOWED}") from None


READ, RENAMED, COMPUTED = "read", "renamed", "computed"
"""Origins of a result column: its name and value are the table's; its value is, its name was
written by the query (an alias); or it was computed by the query."""


def column_origins(root: exp.Expr) -> tuple[str, ...] | None:
    """The origin of each output expression of ``root`` (``*`` entries stand for many columns).

    A star entry is ``"*read"`` or ``"*computed"``. Conservative: a query with CTEs or derived
    tables marks every column it takes from them as computed (what they computed is not traced
    through), and UNION arms that disagree make a column computed. None: not a query.
    """
    while isinstance(root, exp.Subquery):
        root = root.this
    arms = _arms(root)
    if not arms:
        return None
    derived = any(isinstance(n, exp.CTE) or (isinstance(n, exp.Subquery) and
                                             isinstance(n.parent, exp.From | exp.Join))
                  for n in root.walk())
    plans = [tuple(_origin(p, derived) for p in arm.expressions) for arm in arms]
    if any(len(p) != len(plans[0]) for p in plans):
        return tuple(COMPUTED for _ in plans[0])
    order = (READ, RENAMED, COMPUTED)
    combined = []
    for kinds in zip(*plans, strict=True):
        stars = {k.startswith("*") for k in kinds}
        if len(stars) > 1:
            return tuple("*" + COMPUTED if k.startswith("*") else COMPUTED for k in plans[0])
        worst = max((k.lstrip("*") for k in kinds), key=order.index)
        combined.append(("*" if True in stars else "") + worst)
    return tuple(combined)


def _arms(root: exp.Expr) -> list[exp.Select]:
    if isinstance(root, exp.Select):
        return [root]
    if isinstance(root, exp.SetOperation):
        return _arms(root.this) + _arms(root.expression)
    if isinstance(root, exp.Subquery):
        return _arms(root.this)
    return []


def _origin(projection: exp.Expr, derived: bool) -> str:
    expression = projection.unalias()
    if isinstance(expression, exp.Star) or (isinstance(expression, exp.Column)
                                            and isinstance(expression.this, exp.Star)):
        return "*" + (COMPUTED if derived else READ)
    if not isinstance(expression, exp.Column) or derived:
        return COMPUTED
    if isinstance(projection, exp.Alias) and projection.alias.lower() != expression.name.lower():
        return RENAMED
    return READ


def result_origins(plan: tuple[str, ...] | None, width: int) -> list[str]:
    """``plan`` expanded to the ``width`` columns the database returned (stars filled in)."""
    if plan is None:
        return [COMPUTED] * width
    stars = [k for k in plan if k.startswith("*")]
    fixed = [k for k in plan if not k.startswith("*")]
    if not stars:
        return list(plan) if len(plan) == width else [COMPUTED] * width
    if len(stars) > 1:  # where one star ends is unknown: only uniform plans stay exact
        kinds = {k.lstrip("*") for k in plan}
        return [kinds.pop() if len(kinds) == 1 else COMPUTED] * width
    spread = width - len(fixed)
    out: list[str] = []
    for kind in plan:
        out += [kind[1:]] * spread if kind.startswith("*") else [kind]
    return out if len(out) == width else [COMPUTED] * width
