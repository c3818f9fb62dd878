"""Message patterns: a log message with its variable parts masked and its words kept.

The statistics tools (``diagnosis_harness.tools.stats``) compare how often each *pattern*
occurs in a window and before it, so two messages that differ only in an id, a number, an
address or a quoted value must give the same pattern. The build computes every event's
pattern once (``events.pattern_id`` → ``patterns.text``), so a window comparison is one SQL
``GROUP BY``, not a Python loop over the window's events.

Masks, applied in this order (docs/design.md §16.1):

- a message that is a JSON object (an app logging JSON inside a collector's JSON: ``{"level":
  40, "msg": "apns rejected token", …}``) is read as its keys and values, ``key=value`` in the
  object's order, a nested object or list ``<obj>`` — so the rules below keep its keys and its
  message's words instead of masking every quoted key;
- a quoted value (``'…'`` or ``"…"``, up to 200 characters, not an apostrophe inside a word)
  → ``"<str>"``, except a lower-case ``snake_case`` or dotted name (``"billing_events_id_seq"``,
  a sequence, table or topic: what the failure is about), the value of a message key
  (``msg=``, ``err=``, ``error=``, ``reason=``…: logfmt's message), whose words stay, and an
  HTTP request line (``"GET /v1/fx/rates HTTP/2"`` in an access log), which keeps its method
  and path (its query string → ``?<q>``);
- an ISO timestamp → ``<ts>``;
- every *atom* (a run of letters, digits, ``_ . -``) that holds a digit: a UUID → ``<uuid>``,
  an IPv4 address → ``<ip>``, a duration (``250ms``, ``1.5s``) → ``<dur>``, a plain number →
  ``<n>``, a hex run of 6+ characters (``0x…`` or a hash) → ``<hex>``, anything else (``pay_8f3``,
  ``M2001``, ``pod-7d9f``) → ``<id>``. A port after a host *name* (``redis-cart:6379``) is kept:
  it names a dependency; a port after an address (``10.0.0.7:53422``) is masked.

An access log's message (``POST /static/app.js HTTP/1.1 502 1234``: request, status, size) keeps
its status *class* (``5xx``) where the status stood, so a 200, a 404 and a 502 of one endpoint
are three patterns, never one ``HTTP/<n> <n> <n>`` (whose level would then be a mix).

Every rule is linear in the message (atoms start only where the previous character is not an
atom character, and the quantifiers are possessive), and only the first
:data:`MAX_PATTERN_INPUT` characters are read: hostile lines cannot cost more.
"""

from __future__ import annotations

import json
import re

MAX_PATTERN_INPUT = 2000
MAX_PATTERN_CHARS = 400
"""A pattern is stored and shown up to this length."""

_ACCESS_STATUS = re.compile(r"(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|TRACE) \S+"
                            r"( HTTP/[\d.]+)? ([1-5])\d\d (?:\d+|-)(?:\s|\Z)")
"""An access log's message as the importer writes it: ``method path [protocol] status size …``."""
_QUOTED = re.compile(r"(?<![\w'\"])(?:'[^'\n]{1,200}'|\"[^\"\n]{1,200}\")(?![\w'\"])")
_SAYS = re.compile(r"(?:^|[\s,;(])(?:msg|message|event|err|error|reason|cause|detail)=$", re.I)
"""A key whose quoted value is the message itself (logfmt ``msg="…"``, ``err="…"``): its words
are the failure mode, kept (their ids and numbers masked like the rest), not one ``"<str>"``."""


_REQUEST = re.compile(r"([\"'])((?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|TRACE) "
                      r"/[^\s?\"']*)(?:\?[^\s\"']*)?( HTTP/[\d.]+)?\1")
"""An access log's quoted request line: the method and path say which endpoint failed."""


_NAME = re.compile(r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+")
"""A quoted lower-case ``snake_case`` or dotted name (``"billing_events_id_seq"``, ``'watch.events'``):
the sequence, table, topic or key a failure is about, kept (its digits masked like the rest)."""


def _quoted(match: re.Match[str]) -> str:
    if _SAYS.search(match.string, 0, match.start()) is not None:
        return match.group(0)
    if _NAME.fullmatch(match.group(0)[1:-1]):
        return match.group(0)
    if (request := _REQUEST.fullmatch(match.group(0))) is not None:
        query = "?<q>" if "?" in match.group(0) else ""
        return f'"{request.group(2)}{query}{request.group(3) or ""}"'
    return '"<str>"'


def _json_fields(text: str) -> str | None:
    """A JSON-object message as ``key=value`` pairs (module docstring), or None."""
    if not (text.startswith("{") and text.rstrip().endswith("}")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    parts = []
    for key, item in value.items():
        if isinstance(item, dict | list):
            shown = "<obj>"
        elif isinstance(item, str):
            shown = json.dumps(item, ensure_ascii=False)
        else:
            shown = json.dumps(item)
        parts.append(f"{key}={shown}")
    return " ".join(parts)

_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
                        r"(?:Z|[+-]\d{2}:?\d{2})?")
_ATOM_WITH_DIGIT = re.compile(r"(?<![\w.\-])(?:[^\W\d]|[.\-])*+\d[\w.\-]*+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}\.?")
_NUMBER = re.compile(r"[-.]?\d+(?:[.,]\d+)*\.?")
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:ns|us|µs|ms|s|sec|secs|m|min|mins|h|hr|hrs|d)\.?",
                       re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_HEX = re.compile(r"(?:0x[0-9a-fA-F]+|[0-9a-fA-F]{6,})\.?")


def _mask(match: re.Match[str]) -> str:
    atom = match.group(0)
    start = match.start()
    text = match.string
    if atom.isdigit():
        if start >= 2 and text[start - 1] == ":" and text[start - 2].isalpha():
            return atom  # host-name:port — the port names the dependency
        return "<n>"
    if _UUID.fullmatch(atom):
        return "<uuid>"
    if _IPV4.fullmatch(atom):
        return "<ip>"
    if _NUMBER.fullmatch(atom):
        return "<n>"
    if _DURATION.fullmatch(atom):
        return "<dur>"
    if _HEX.fullmatch(atom):
        return "<hex>"
    return "<id>"


def status_class(message: str) -> tuple[int, str] | None:
    """``(word index, "5xx")`` of an access log message's status, or None for any other message."""
    match = _ACCESS_STATUS.match(message)
    if match is None:
        return None
    return (3 if match.group(1) else 2), f"{match.group(2)}xx"


def with_status_class(message: str, words: list[str]) -> list[str]:
    """``words`` (the masked words of ``message``) with an access log's status class in place."""
    found = status_class(message)
    if found is None or len(words) <= found[0] or words[found[0]] != "<n>":
        return words
    index, shown = found
    return [*words[:index], shown, *words[index + 1:]]


def pattern_of(message: str) -> str:
    """The pattern of ``message`` (see the module docstring); deterministic and linear."""
    text = message[:MAX_PATTERN_INPUT]
    if text.startswith("{") and (fields := _json_fields(text)) is not None:
        text = fields[:MAX_PATTERN_INPUT]
    if "'" in text or '"' in text:
        text = _QUOTED.sub(_quoted, text)
    if "-" in text and ":" in text:
        text = _TIMESTAMP.sub("<ts>", text)
    words = text.split()
    for i, word in enumerate(words):  # most words have no digit: no regex runs on them
        if not word.isalpha() and _DIGIT.search(word):
            words[i] = _ATOM_WITH_DIGIT.sub(_mask, word)
    return " ".join(with_status_class(message, words))[:MAX_PATTERN_CHARS]
