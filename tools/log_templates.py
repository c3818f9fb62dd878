"""Log message templates: a message with its variable parts replaced, so alike lines group together.

``query_logs`` groups warning and error events per service and template
(:func:`message_template`): UUIDs, timestamps, IP addresses and hex numbers become tokens, then
every word with a digit becomes ``<n>`` (a number) or ``<id>``; an access log's status keeps its
class (``5xx``: :func:`~diagnosis_harness.tools.dataset.patterns.status_class`). Only a message's head is
templated, and every rule runs in linear time, so a hostile log line cannot cost more.
"""

from __future__ import annotations

import functools
import re

from diagnosis_harness.tools.dataset.patterns import with_status_class

_TEMPLATE_RULES = [
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
     "<uuid>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"), "<ts>"),
    (re.compile(r"\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b"), "<ip>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
]
_NUMBER = re.compile(r"[\d.]+")
_DIGIT = re.compile(r"\d")
MAX_TEMPLATE_CHARS = 2000
"""Only a message's head is templated (and grouped on): hostile lines cannot cost more."""


@functools.lru_cache(maxsize=4096)  # pure; concurrent runs template the same log lines again
def message_template(message: str) -> str:
    """The message with variable parts replaced: numbers by <n>, ids (with digits) by <id>."""
    text = message[:MAX_TEMPLATE_CHARS]
    for rule, token in _TEMPLATE_RULES:  # each is linear: fixed-width or unambiguous parts
        text = rule.sub(token, text)
    text = _replace_ids(text)
    return " ".join(with_status_class(message, text.split()))


def _replace_ids(text: str) -> str:
    r"""``re.sub(r"\b[\w-]*\d[\w-]*(?:\.[\w-]+)*\b", <n>|<id>, text)`` in linear time.

    That regex backtracks quadratically on a long run without digits (an 80 KB ``a-a-a-…`` log
    line took minutes). Same matches, found directly: from a word boundary ``p`` inside a run of
    ``[\w-]`` characters that has a digit at or after ``p``, the regex ends at the last word
    boundary of the run and its ``.segment`` extensions (never just after a dot), provided that
    boundary lies after the digit.
    """
    if not _DIGIT.search(text):
        return text  # nothing to replace: the common case, found in C
    n = len(text)
    word = [c.isalnum() or c == "_" for c in text]

    def run_char(i: int) -> bool:
        return i < n and (word[i] or text[i] == "-")

    def boundary(i: int) -> bool:
        return (i > 0 and word[i - 1]) != (i < n and word[i])

    out: list[str] = []
    last = i = 0
    while i < n:
        if not run_char(i):
            i += 1
            continue
        end = i
        while run_char(end):
            end += 1
        # The regex tries starts left to right: the first word boundary of the run before its
        # last digit; it matches if a digit follows that start before the end found below.
        start = next((p for p in range(i, end) if boundary(p)), end)
        digit = next((k for k in range(start, end) if text[k].isdecimal()), end)
        if digit == end:
            i = end
            continue
        stop, after_dot = end, set()
        while stop + 1 < n and text[stop] == "." and run_char(stop + 1):
            after_dot.add(stop + 1)
            stop += 1
            while run_char(stop):
                stop += 1
        while stop > digit and (stop in after_dot or not boundary(stop)):
            stop -= 1
        if stop <= digit:
            i = end  # no boundary after the digit: no later start of this run matches either
            continue
        token = text[start:stop]
        out += [text[last:start], "<n>" if _NUMBER.fullmatch(token) else "<id>"]
        last = stop
        i = max(stop, end)  # no boundary is left between stop and end (stop is the last one)
    out.append(text[last:])
    return "".join(out)
