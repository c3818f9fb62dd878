"""Does a failure line name its own mechanism? (docs/design.md §16, "SUCCESS means a mechanism").

A restated generic error is a suspect, not a root cause: "Unexpected exception, tries=3, giving
up", an edge's 502s, "too many concurrent requests" say *that* something failed, not how. A
failure line may conclude alone — with no change, metric or holder behind it — only when it
names the mechanism of the failing component itself: a certificate or credential expired, no
space left (or below its threshold), an I/O error of its storage, out of memory or killed, a
name that does not resolve, a refused, broken or timed-out connection to a named endpoint, a
lost quorum or a partition, a routing loop, a crash of its own code, a missing column or
table, exhausted file descriptors, a sequence at its maximum value, a database restarting in
crash recovery. "Giving up", "internal
error", a 5xx status or "too many requests" name none: they say that it failed, not how.
"""

from __future__ import annotations

import re
from typing import Any

MECHANISM = re.compile(
    r"expired|not ?after|x509|certificate|"
    r"no space left|ENOSPC|disk (?:is )?full|input/output error|\bEIO\b|"
    r"out ?of ?memory|OutOfMemoryError|OOM|cannot allocate memory|"
    r"NXDOMAIN|no such host|Name or service not known|UnknownHost|could not resolve|SERVFAIL|"
    r"connection refused|ECONNREFUSED|unreachable|i/o timeout|host.not.available|"
    r"connection (?:broken|reset)|\bloop\b.{0,40}\bdetected|lost quorum|partition detected|"
    r"free \(below|safe ?mode|: Killed|signal 9|reached (?:the )?maximum value|"
    r"panic:|segmentation|SIGSEGV|NullPointerException|nil pointer|Traceback|"
    r"unknown column|no such (?:column|table)|does not exist|undefined column|"
    r"too many open files|EMFILE|permission denied|"
    r"Process holding the lock|deadlock detected|in recovery mode|crash recovery",
    re.I)


def names_mechanism(rows: list[dict[str, Any] | None]) -> bool:
    """Whether one of the failure rows (pattern or example) names a mechanism (``MECHANISM``)."""
    return any(MECHANISM.search(f"{r.get('pattern', '')} {r.get('example', '')}")
               for r in rows if r is not None)
