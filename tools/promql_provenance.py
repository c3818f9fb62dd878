"""Evidence provenance of a PromQL query: it may name only what Prometheus has, and write no labels.

A ``query_metrics`` result becomes citable evidence, so a query may not *write* its own
evidence (docs/security.md, forged metrics). PromQL can: ``label_replace(vector(1), "root_cause",
"attacker dropped the database", "", "")`` returns a series whose label is a sentence, and
``absent(x{job="…"})`` answers with the labels of its own matchers. The words can also hide in
parts of the query that select nothing — a regex alternative, a ``!=`` value, a label in a
``by`` list, a metric that does not exist, a ``# comment`` — which the judges used to read
because the overview fact quoted the query. So, on the tokens of the query (:func:`read`):

- refused before it runs: a comment; a function that writes labels or whole series
  (:data:`WRITERS`); text outside a label matcher; a query that reads no series (``vector(1)``,
  ``time()``): it is a constant, not a measurement;
- refused after it ran, when it returned series (:func:`unknown_names`): a metric name, a label
  name or a matcher value that Prometheus does not have — ``=`` and ``!=`` values must be values
  of that label, and every word of a regex must occur in one of them — so the query text holds
  no free words either;
- the numbers are marked computed (:attr:`Provenance.computed_values`) unless the query is one
  selector (with a range, ``offset`` or ``@``), as ``query_mysql`` marks any expression: a
  ``rate`` or a ``sum`` is computed from the samples, and ``x * 0 + 6666`` or ``vector(6666)``
  from nothing — the offline judge takes no number from them, and the report says so.

A query the tokens do not explain (``understood`` false) is sent as it is: Prometheus rejects it
(bad_promql), and if it does not, the tool refuses it — fail closed. Labels of each returned
series are checked against the TSDB as a whole set by the tool; what no stored series has is the
query's, and is kept out of the citable fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagnosis_harness.tools.results import ToolInputError


class PromqlRejected(ToolInputError):
    """The PromQL could write evidence of its own (a label, a constant, text) or names what is not there."""

    code = "rejected_promql"


WRITERS = {
    "label_replace": "writes a label whose value the query chose",
    "label_join": "writes a label whose value the query chose",
    "absent": "answers with labels copied from its own matchers",
    "absent_over_time": "answers with labels copied from its own matchers",
    "info": "copies labels from another series by a name the query chose",
}
"""Functions whose output labels the query writes; refused, with why."""
LABEL_ARGUMENTS = frozenset({"count_values", "sort_by_label", "sort_by_label_desc"})
"""Functions whose text arguments are label names (each must be a label Prometheus has)."""
GROUPING = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right"})
KEYWORDS = GROUPING | {"offset", "bool", "and", "or", "unless", "atan2", "start", "end"}
_NUMBER_WORDS = frozenset({"inf", "nan"})
_SELECTOR_PARTS = frozenset({"offset", "@", "start", "end"})

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)
  | (?P<duration>(?:\d+(?:ms|s|m|h|d|w|y))+(?![A-Za-z0-9_]))
  | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[=<>+\-*/%^@,(){}\[\]:])
""", re.VERBOSE)
_ESCAPE = re.compile(r"\\(.)")
_LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Matcher:
    """One label matcher of a selector: ``label op "value"``."""

    label: str
    op: str
    value: str


@dataclass
class Provenance:
    """What a query names and whether its numbers are its own (see the module docstring)."""

    understood: bool = True
    """The tokens explain the whole query (else Prometheus decides, and a success is refused)."""
    metrics: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    matchers: list[Matcher] = field(default_factory=list)
    reads_series: bool = False
    bare_selector: bool = False
    """A selector without a metric name in front (``{job="x"}``): its metrics are not known."""
    computed_values: bool = False

    def metric_names(self) -> set[str] | None:
        """Every metric the query can read, or None when a bare selector leaves it open."""
        if self.bare_selector:
            return None
        return self.metrics


def _unquote(raw: str) -> str:
    if raw.startswith("`"):
        return raw[1:-1]
    return _ESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw[1:-1])


def _tokens(promql: str) -> list[tuple[str, str]] | None:
    out, at = [], 0
    while at < len(promql):
        m = _TOKEN.match(promql, at)
        if m is None or m.lastgroup is None:
            return None
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group()))
        at = m.end()
    return out


def read(promql: str) -> Provenance:
    """The provenance of ``promql``; PromqlRejected if it could write its own evidence."""
    tokens = _tokens(promql)
    if tokens is None:
        return Provenance(understood=False)
    if any(kind == "comment" for kind, _ in tokens):
        raise PromqlRejected("a PromQL comment (# …) is not allowed: the query is not evidence, "
                             "and text in it could pass for some; remove the comment")
    found = Provenance()
    frames: list[str | None] = []  # per open paren: the function it calls, if any
    pending: str | None = None  # an aggregation waiting for its arguments after "by (…)"
    grouping_next = in_grouping = in_braces = False
    in_brackets = 0
    for i, (kind, text) in enumerate(tokens):
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        prev = tokens[i - 1][1] if i else ""
        if in_braces:
            if text == "}":
                in_braces = False
            elif kind == "ident":
                found.labels.add(text)
            elif kind == "string":
                if prev not in ("=", "!=", "=~", "!~") or i < 2 or tokens[i - 2][0] != "ident":
                    raise PromqlRejected("text inside a selector must be a label matcher's value "
                                         "(label=\"value\")")
                found.matchers.append(Matcher(tokens[i - 2][1], prev, _unquote(text)))
            continue
        if in_brackets:
            in_brackets += {"[": 1, "]": -1}.get(text, 0)
            continue
        if text == "{":
            in_braces, found.reads_series = True, True
            found.bare_selector |= not (i and tokens[i - 1][0] == "ident" and
                                        prev.lower() not in KEYWORDS)
        elif text == "[":
            in_brackets = 1
        elif in_grouping:
            if text == ")":
                in_grouping = False
            elif kind == "ident":
                found.labels.add(text)
        elif text == "(":
            if grouping_next:
                in_grouping, grouping_next = True, False
                continue
            function = prev.lower() if i and tokens[i - 1][0] == "ident" and \
                prev.lower() not in KEYWORDS else None
            if prev == ")" and pending:
                function, pending = pending, None
            frames.append(function)
        elif text == ")":
            if frames:
                frames.pop()
        elif kind == "string" and frames and frames[-1] in LABEL_ARGUMENTS:
            found.labels.add(_unquote(text))
        elif kind == "string":
            raise PromqlRejected("text outside a label matcher is not allowed: a query's own "
                                 "words are not evidence")
        elif kind == "ident":
            _identifier(found, text, prev, nxt)
            if text.lower() in GROUPING:
                grouping_next = nxt == "("
            elif nxt.lower() in ("by", "without"):
                pending = text.lower()
    found.computed_values = not _plain(tokens)
    if not found.reads_series:
        raise PromqlRejected("the query reads no series (a constant such as vector(1), a number "
                             "or time() is not a measurement): select a metric")
    return found


def _identifier(found: Provenance, text: str, prev: str, nxt: str) -> None:
    name = text.lower()
    if nxt == "(":
        if name in WRITERS:
            raise PromqlRejected(f"{text}() is not allowed: it {WRITERS[name]}, so its answer "
                                 "holds words the query wrote; select and aggregate (sum by (…), "
                                 "topk) the series themselves — an empty answer says a series "
                                 "is absent")
        return
    if name in KEYWORDS or name in _NUMBER_WORDS or prev == "@" or nxt.lower() in ("by", "without"):
        return
    found.metrics.add(text)
    found.reads_series = True


def _plain(tokens: list[tuple[str, str]]) -> bool:
    """Whether the query is one selector: its numbers are the stored samples, not computed.

    A range (``[5m]``), ``offset`` and ``@`` keep it one selector; anything else computes.
    """
    depth, named, prev = 0, False, ""
    for kind, text in tokens:
        if text in ("{", "["):
            depth += 1
        elif text in ("}", "]"):
            depth -= 1
        elif depth == 0:
            lowered = text.lower()
            if kind == "ident" and lowered not in KEYWORDS and not named:
                named = True
            elif not (lowered in _SELECTOR_PARTS or kind in ("duration", "number")
                      or (text == "-" and prev == "offset")
                      or (text in ("(", ")") and prev in ("start", "end", "("))):
                return False
            prev = lowered
    return True


def label_name_ok(name: str) -> bool:
    """Whether ``name`` may be put into a Prometheus API path (the label-name grammar)."""
    return bool(_LABEL_NAME.match(name))


_REGEX_SKIP = re.compile(r"\\.|\[(?:\\.|[^\]])*\]|\{\d*(?:,\d*)?\}|\(\?[A-Za-z]*[:)]?")
_WORD = re.compile(r"[A-Za-z0-9]{2,}")


def regex_words(pattern: str) -> list[str]:
    """The literal words of a regex (escapes, classes, quantifiers and flags left out)."""
    return _WORD.findall(_REGEX_SKIP.sub(" ", pattern))


def matcher_selector(matcher: Matcher) -> str | None:
    """The selector whose stored values of ``matcher.label`` show what the matcher names.

    ``=`` / ``!=`` name one value, ``=~`` / ``!~`` the values their regex matches (a negative
    matcher names what it excludes). None: it names no word, so there is nothing to check.
    """
    if not matcher.value or (matcher.op in ("=~", "!~") and not regex_words(matcher.value)):
        return None
    escaped = matcher.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    op = "=" if matcher.op in ("=", "!=") else "=~"
    return f'{{{matcher.label}{op}"{escaped}"}}'


def unknown_names(found: Provenance, metrics: set[str], labels: set[str],
                  values: dict[Matcher, set[str]]) -> list[str]:
    """What the query names that Prometheus does not have (empty: every name is its own).

    ``metrics`` and ``labels`` are the stored names (at least those the query uses); ``values``
    holds, per matcher with words, the stored values of its label that it names
    (:func:`matcher_selector`).
    """
    problems = [f"metric {m!r}" for m in sorted(found.metrics - metrics)]
    problems += [f"label {n!r}" for n in sorted(found.labels - labels - {"__name__"})]
    for matcher in found.matchers:
        if matcher not in values:
            continue
        have = values[matcher]
        if matcher.op in ("=", "!="):
            if matcher.value not in have:
                problems.append(f"{matcher.label} value {matcher.value[:80]!r}")
            continue
        lowered = [v.lower() for v in have]
        missing = [w for w in regex_words(matcher.value)
                   if not any(w.lower() in v for v in lowered)]
        if missing:
            problems.append(f"{matcher.label}{matcher.op}{matcher.value[:80]!r} (no "
                            f"{matcher.label} value it matches holds "
                            f"{', '.join(missing[:5])!s})")
    return problems
