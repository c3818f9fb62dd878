"""Words, numbers and times as the offline investigator compares them."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from typing import Any

WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
FRAMING = frozenset("""
a an and are as at by for from in into is it of on or the to was were with this that these
after before between during while than then when which who not no only
log logs logged event events matched matching error errors row rows runbook runbooks section
describes describe symptom symptoms evidence shows show points point cause caused causes root
service window time first last seen times count x n id
""".split())
"""Words that carry no claim of their own: grammar, and the framing the investigator writes
around quoted evidence. Everything else in a claim must be found in the cited records."""
_STOP = FRAMING | frozenset("""
payment payments merchant merchants failed failure failures request requests
service services info warn warning debug fatal null none true false
""".split())
TIME_COLUMN = re.compile(r"(^ts$|_ts$|_at$|_on$|(^|_)time(stamp)?($|_)|date|^not_before$"
                         r"|^not_after$|^start|^end|^finish|^began|^created|^updated|^changed"
                         r"|^applied|^flipped)")
_NOT_TIME = re.compile(r"(_by|_id|_ids|_count|_ms|_reason|_type|_kind|_note|_notes|point|outs?"
                       r"|_pct|_percent|_ratio|_rate|_total|_s|_secs?|_seconds|_mins|_minutes"
                       r"|_[mgk]i?b|_bytes|_\d+[smhd]|_per_[a-z]+)$")
"""Names the time words above also match that hold no moment: ``changed_by`` (a person),
``timeouts`` (a count), ``endpoint``, and measurements (``starts_5m``, ``start_fail_pct``,
``end_to_end_s``): comparing them with a timestamp is no query at all."""


@functools.lru_cache(maxsize=4096)  # pure; a run asks it of every column of every table each turn
def is_time_column(name: str) -> bool:
    """Whether a column's name says it holds a moment (a change applied, a sample taken…)."""
    low = name.lower()
    return bool(TIME_COLUMN.search(low)) and not _NOT_TIME.search(low)
CHANGE_WORDS = ("change", "config", "deploy", "release", "job", "cert", "migration", "flag",
                "incident", "rollout", "version")
"""Table-name words of operational changes: the candidates for a cause."""


@functools.lru_cache(maxsize=8192)  # pure; the same few thousand words recur in every run
def stem(word: str) -> str:
    """A crude singular: ``timeouts`` → ``timeout`` (not ``class`` → ``clas``)."""
    w = word.lower()
    return w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w


_TERM_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
"""The words of :data:`WORD` that :func:`terms` can keep: letter-initial, three characters or
more (a number never starts or splits one, so the letter-initial words are the same)."""


@functools.lru_cache(maxsize=8192)
def _term(word: str) -> str | None:
    stemmed = stem(word)
    return None if stemmed in _STOP or word.lower() in _STOP else stemmed


def _terms(text: str) -> frozenset[str]:
    return frozenset(t for w in _TERM_WORD.findall(text) if (t := _term(w)) is not None)


_remembered_terms = functools.lru_cache(maxsize=1024)(_terms)
"""Every turn of a run re-reads the same texts (symptom, runbook, tables, observations)."""
MEMO_CHARS = 16_384
"""Texts up to this long are remembered (an observation is at most 16 KiB by default)."""


def terms(text: str) -> set[str]:
    """Distinctive lower-case word stems of a text (no numbers, no stopwords, ≥ 3 letters)."""
    return set(_remembered_terms(text) if len(text) <= MEMO_CHARS else _terms(text))


def numbers(text: str) -> set[str]:
    """The numbers of a text, with trailing decimal zeros dropped (``10.50`` → ``10.5``)."""
    return {n.rstrip("0").rstrip(".") if "." in n else n for n in _NUMBER.findall(text)}


def utc(stamp: str) -> datetime:
    """An ISO-8601 time (``Z`` allowed) in UTC."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)


def fmt(moment: datetime) -> str:
    """A moment as the tables write it: ``2026-11-02T10:00:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_CODE = re.compile(r"\b(error[_ ]?code|errno|sqlstate|exit (?:code|status)|status code)"
                   r"\s*[:=]?\s*((?:[A-Z]{1,4}-)?[A-Z0-9]{2,6})\b", re.I)
"""An error code a line states (``Error_code: 1062``, ``MY-001062``, ``errno=111``, ``SQLSTATE
40P01``)."""


def _error_codes(row: dict[str, Any]) -> list[str]:
    """The error codes the cause row's example states and its pattern masked.

    The pattern masks numbers (``Error_code: <n>``), but the code is what names the failure
    (1062, a duplicate key; 28, a cURL timeout): quoted with its key, at most two, as the
    example wrote them (numbers only or a code's letters and digits: nothing to be read as
    instructions). Measured on the blind mkt world: a replica's stopped SQL thread was
    published without its "Error_code: 1062".
    """
    pattern = str(row.get("pattern", ""))
    out: list[str] = []
    for key, code in _CODE.findall(str(row.get("example", ""))):
        said = f"{key}: {code}" if not key.lower().startswith("exit") else f"{key} {code}"
        if code not in pattern and said not in out and any(c.isdigit() for c in code):
            out.append(said)
    return out[:2]


_QUOTED_NAME = re.compile(r"(?<![\w'\"])['\"]([A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+)['\"]")
"""A quoted compound name: ``'s1_0.customs_code'``, ``'C2_CPUS'``, ``"orders_v2"``."""


def _quoted_names(row: dict[str, Any]) -> list[str]:
    """The quoted names the cause row's example states and its pattern masked.

    A quoted name with a digit in it is masked like an id (``Unknown column '<id>'``), but it
    is what the failure is about: the column a release's query reads and the table lacks
    (``'s1_0.customs_code'``), the quota that ran out (``'C2_CPUS'``). Quoted as the example
    wrote them, at most two, one compound token each (letters, digits, ``_`` and ``.``, a run
    of three letters in it): nothing to be read as instructions. Measured on two blind worlds,
    both published without the name the truth asked for.
    """
    pattern = str(row.get("pattern", ""))
    out: list[str] = []
    for name in _QUOTED_NAME.findall(str(row.get("example", ""))):
        if len(name) <= 64 and any(c.isdigit() for c in name) and name not in pattern \
                and re.search(r"[A-Za-z]{3}", name) and name not in out:
            out.append(name)
    return out[:2]


_STATUS = re.compile(r"\b([45]\d\d)\s+(?=[A-Z][a-z]+(?: [A-Z][a-z]+)*\b)"
                     r"|HTTP/\d(?:\.\d)?\"?\s+([45]\d\d)\b|\bstatus[=: ]+([45]\d\d)\b")
"""An HTTP status a line states: ``429 Too Many Requests``, ``HTTP/1.1" 502``, ``status=503``."""


def _statuses(row: dict[str, Any]) -> list[str]:
    """The HTTP status the cause row's example states and its pattern masked (``<n>``).

    The status is what locates the failure (a 429 is a throttle, a 502 the edge's view of a
    dead upstream), and the pattern masks it like any number: quoted alone, the first one.
    """
    found = _STATUS.search(str(row.get("example", "")))
    if found is None or "<n>" not in str(row.get("pattern", "")):
        return []
    return [next(g for g in found.groups() if g)]


EXPIRED_SAID = re.compile(r"(?:certificate|credential|token|api[_ ]?key|password|secret"
                          r"|licen[cs]e)\w*\W{1,3}(?:[A-Za-z]+\W{1,3}){0,2}?expired"
                          r"|(?:key|credential|token|certificate)_expired", re.I)
"""A line's own words that a credential expired (``certificate has expired``): plain words
only between the two, never an id or a key's characters."""


def _expiry(row: dict[str, Any]) -> list[str]:
    """The words saying a credential expired, where the example states them, the pattern not.

    ``SSLCertVerificationError(<n>, "<str>")`` masks "certificate has expired": the mechanism.
    """
    said = EXPIRED_SAID.search(str(row.get("example", "")))
    if said is None or EXPIRED_SAID.search(str(row.get("pattern", ""))) \
            or len(said.group(0)) > 60:
        return []
    return [said.group(0)]


def _masked_details(row: dict[str, Any]) -> list[str]:
    """What a failure row's example states and its pattern masked: codes, statuses, names.

    And the words that say a credential expired.
    """
    return _error_codes(row) + [s for s in _statuses(row) if s not in str(_error_codes(row))] \
        + _quoted_names(row) + _expiry(row)


def failure_phrase(count: object, level: str | None, pattern: object, example: object,
                   onset: object) -> str:
    """A failure as both drafts state it: ``<count> <level> events '<pattern>' (<details>)``.

    Then ``from <onset>``; the details are what its pattern masked (:func:`_masked_details`).
    The localized draft and the runbook rule's say it alike.
    """
    details = _masked_details({"pattern": pattern, "example": example})
    said = f" ({', '.join(details)})" if details else ""
    return f"{count} {level + ' ' if level else ''}events '{pattern}'{said} from {onset}"
