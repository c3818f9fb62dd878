"""Turning free text into safe FTS5 queries.

User text is never passed to ``MATCH`` as FTS5 syntax (quotes, ``NEAR``, column filters would
be interpreted or fail). It is split into words the way FTS5's unicode61 tokenizer splits them
(runs of letters and digits) and every word is quoted.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+\*?")
MAX_TERMS = 12

STOPWORDS = frozenset(
    """a an and are as at be between by did do does for from had has have how i in is it its
    me my of on or our so than that the their then there these this those to was we were what
    when where which who why will with you your please any all can could would should after
    before during since about into over under again why's whats""".split()
)


def search_terms(text: str, *, keep_prefix: bool = False, drop_stopwords: bool = False) -> list[str]:
    """Lower-cased words of ``text`` in order, without repeats (``word*`` kept if asked)."""
    out: list[str] = []
    for match in _WORD.finditer(text.lower()):
        word = match.group(0)
        if not keep_prefix:
            word = word.rstrip("*")
        if drop_stopwords and word.rstrip("*") in STOPWORDS:
            continue
        if word not in out:
            out.append(word)
    return out[:MAX_TERMS]


def _quote(term: str) -> str:
    if term.endswith("*"):
        return f'"{term[:-1]}"*'
    return f'"{term}"'


def fts_and_query(pattern: str) -> str:
    """An FTS5 query requiring every word of ``pattern`` (already normalised words)."""
    return " AND ".join(_quote(t) for t in pattern.split())


def fts_or_query(terms: list[str]) -> str:
    """An FTS5 query matching any of ``terms``."""
    return " OR ".join(_quote(t) for t in terms)
