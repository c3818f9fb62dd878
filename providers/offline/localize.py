"""Localize: the one component an onset timeline's failures lead to, or abstain.

When no runbook-and-change conclusion holds, the offline investigator asks ``onset_timeline``
for the anomalies of the window (and a look-back before it: a cause often starts minutes before
the question's window) and picks a cause only when the evidence is strong and unambiguous
(docs/design.md §16.3): with the asked service failing, where its failures lead, one
unambiguous step at a time; otherwise the one failing service every other failure leads to.
Either way the cause starts before what it explains, logs at a cause level (or a change or its
own resource explains its warnings, ``explain.py``), does not say it waits on something
saturated or slow, and names no other component with failures of its own. The facts it
reasons on — who fails, since when, who names whom — are :mod:`.failures`'.

What it writes is built from the rows' structured values and the computed pattern only:
service, pattern, level, count, onset, the dependency the pattern names (``host:port`` or
another service of the timeline) and a change's id/key/version — never other free text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    CRASH_LEAD,
    MIN_EVENTS,
    SAME_MOMENT,
    Failures,
    dependency_of,
    first_strong,
    flagged,
    kind_of,
    level_of,
    moment,
    names,
    reaches,
    words_name,
)
from diagnosis_harness.providers.offline.text import failure_phrase, is_time_column, utc

OVERLOAD = re.compile(r"too many requests|\b429\b|rate.?limit|throttl|queue (?:is )?full"
                      r"|rejected_execution|overload|\bSlowDown\b|reduce your request rate", re.I)
"""A failure saying its dependency is saturated: what saturates it is not in the evidence. (An
object store's ``503 SlowDown``, "Please reduce your request rate", is its throttling.)"""
SLOW = re.compile(r"statement timeout|deadline exceeded|read time[ds]? ?out|request time[ds]? ?out"
                  r"|\bslow\b|lock (?:wait )?time[ds]? ?out|could not obtain lock|acquirelock"
                  r"|lock not available|deadlock", re.I)
"""A failure saying something it waits on is slow (not down or refusing): why it is slow — a disk,
a lock, a noisy neighbour — is the cause, and it is not in the failure's words. A lock it
timed out on (or a deadlock) says another session holds what it waits for: that one is the
cause. (A connection refused or a dial timeout says the endpoint is unreachable: that one is
named.)"""
FULL_REPLIES = {
    "redis": re.compile(r"OOM command not allowed|used memory > 'maxmemory'", re.I),
    "postgres": re.compile(r"too many clients already|remaining connection slots are reserved",
                           re.I),
    "mysql": re.compile(r"too many connections", re.I),
}
"""A server's own reply that it is full, as its clients log it: the client is not the cause, and
the server's why (what filled it) is not in the client's words. Only the server's own rows may
say it of itself (``redis-cart`` logging that it reached maxmemory is its failure)."""
LOOK_BACK = timedelta(minutes=30)
"""How far before the question's window the onsets are looked for."""
MAX_QUESTION_WINDOW = timedelta(hours=4)
"""The longest question window localized on: a day-long one is no window, only a date."""
MAX_WINDOW = timedelta(minutes=1440)
"""The longest window the log tools accept by default (``HARNESS_MAX_LOG_WINDOW_MINUTES``)."""


@dataclass(frozen=True)
class Localized:
    """The cause the timeline points at: its rows and what it names."""

    row: dict[str, Any]
    """The onset row (``evidence_id`` and the tool's fields) of the cause's own failure: its
    first row at a cause level (``CAUSE_LEVELS``)."""
    dependency: str | None
    """The ``host:port`` or service the failure pattern names, if any."""
    consistent: list[dict[str, Any]]
    """Onset rows of other services that the cause explains (they call it or name it)."""
    first: dict[str, Any] | None = None
    """The cause's first failure row when it is not ``row`` (a warning before the error)."""
    warning_only: bool = False
    """The failure logs no ERROR or worse: only a change that explains it may conclude."""

    @property
    def service(self) -> str:
        """The failing component."""
        return str(self.row["service"])

    @property
    def onset(self) -> str:
        """The first failure event of the cause (the tool's own time text)."""
        return str((self.first or self.row)["onset"])


def localize(items: list[dict[str, Any]], service: str | None = None) -> Localized | None:
    """The unambiguous root of an onset timeline's failures, or None (abstain).

    A service *fails* when its anomalous rows of a failure level hold ``MIN_EVENTS`` events
    together; one names another when its failure rows' words (or the dependency table's
    ``upstream``) name it. With the question's ``service`` failing, the cause is where its
    failures lead, one unambiguous step at a time (:meth:`Failures.chain`); otherwise (a
    system-wide question) it is the one failing service that names no other, starts within
    ``SAME_MOMENT`` of the first failure, and is named by every other failing service, directly
    or through others. Either way the cause must start before what it explains, log at a cause
    level (``CAUSE_LEVELS``), not say it is saturated (``OVERLOAD``), and name no other
    component with failures of its own (then *that* one may be the cause).
    """
    failures = Failures.of(items)
    if not failures.failing or any(flagged(r) for rows in failures.rows.values() for r in rows):
        return None  # nothing failed, or a failure whose text cannot be taken at its word
    if service in failures.failing:
        root = failures.chain(service)
        if root is None or failures.first(root) - failures.first(service) > SAME_MOMENT:
            return None  # ambiguous, or a "cause" that starts after the symptom (a consequence)
        explained = [s for s in failures.failing - {root} if reaches(failures.graph, s, root)]
    else:
        # Beside a failure at a cause level, the warnings of a service that names no failing
        # service and that none names are no cause (rule 5) and no step to one: background,
        # not a second story. (Warnings alone are the story: a change or a metric may explain.)
        named = {t for s in failures.failing for t in failures.graph[s]}
        stories = {s for s in failures.failing if failures.graph[s] or s in named
                   or any(level_of(r) in CAUSE_LEVELS for r in failures.rows[s])}
        if not any(level_of(r) in CAUSE_LEVELS for s in stories for r in failures.rows[s]):
            stories = failures.failing
        earliest = min(_story_start(failures, s) for s in stories)
        roots = [s for s in stories
                 if not failures.graph[s] and failures.first(s) - earliest <= SAME_MOMENT]
        # An edge's access lines report what its upstreams answered: beside a service failing
        # on its own at the same moment, the edge is where the failure shows, not its root.
        speaking = [s for s in roots if not _reports_only(failures.rows[s])]
        if len(roots) == 2 and len(speaking) == 1 and any(
                level_of(r) in CAUSE_LEVELS for r in failures.rows[speaking[0]]):
            roots = speaking
        if len(roots) != 1:
            return None
        root = roots[0]
        explained = sorted(s for s in stories - {root}
                           if not (_reports_only(failures.rows[s])
                                   and failures.first(s) >= failures.first(root) - SAME_MOMENT))
        if not all(reaches(failures.graph, s, root) for s in explained):
            return None  # another failure the cause does not explain
        if service and not _linked(failures, root, service):
            return None  # a failure elsewhere that nothing ties to the service asked about
    own = failures.rows[root]
    # A warning is a symptom to explain, not a cause to publish: a change may explain it.
    # One odd ERROR line is no cause to publish unless what fails names the component: the
    # cause row holds MIN_EVENTS events, or a failing service's rows name the cause.
    # In so many words — or by the dependency table, for a crash right before its caller
    # failed (CRASH_LEAD): the table says who may call whom, not that a failure 20 minutes
    # later was about it (measured: a 2-event "notification dropped" ERROR of a service the
    # failing one calls, by the table, was published as the cause of an unrelated overload).
    errors = [r for r in own if level_of(r) in CAUSE_LEVELS]
    corroborated = bool(explained and errors) and any(
        level_of(r) in CAUSE_LEVELS and (words_name(r, root) or (
            names(r, root) and moment(errors[0]["onset"]) >= failures.first(s) - CRASH_LEAD))
        for s in explained for r in failures.rows[s])
    # Its first error of MIN_EVENTS events; an odd one only where none is (a crash line): an
    # everyday "duplicate key" ERROR two minutes before the "No space left on device" FATALs
    # was published as postgres' failure, measured on the blind docs world.
    cause = next((r for r in errors if int(r.get("window_count") or 0) >= MIN_EVENTS),
                 errors[0] if corroborated else None)
    if any(OVERLOAD.search(str(r.get("pattern", ""))) or SLOW.search(str(r.get("pattern", "")))
           for r in own):
        return None  # a saturated or slow dependency: why is the cause, and it is not shown
    kind = kind_of(root)
    if any(k != kind and reply.search(f"{r.get('pattern', '')} {r.get('example', '')}")
           for r in own for k, reply in FULL_REPLIES.items()):
        return None  # it quotes a full server's reply: what filled the server is the cause
    if failures.named_by(root):
        return None  # it names a component that fails too: the cause may be there, unshown
    services = {str(i["service"]) for i in items if i.get("kind") == "onset"}
    # Each with the row it starts failing by (an odd earlier warning is no "then"), and the
    # row that names the cause when that one does not: the link the judge looks for.
    consistent = []
    for s in sorted(explained, key=failures.first):
        strong = first_strong(failures.rows[s])
        link = next((r for r in failures.rows[s] if names(r, root)), None)
        consistent += [strong] if link is None or names(strong, root) else [strong, link]
    row = cause or own[0]
    return Localized(row=row, dependency=dependency_of(row, services), consistent=consistent,
                     first=own[0] if own[0] is not row else None, warning_only=cause is None)


ACCESS_LINE = re.compile(r"\"(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* HTTP/")
"""An access log's request line, as the pattern keeps it (method and path, §16.1)."""


def _reports_only(rows: list[dict[str, Any]]) -> bool:
    """Whether a service fails only by access lines: a proxy reporting its upstreams' answers.

    Its failure starting with another's, naming none, is where that failure shows (an edge's
    5xx for the DRM path while the DRM server fails), not a second root; nor does it need the
    root to name it.
    """
    return bool(rows) and all(ACCESS_LINE.search(str(r.get("pattern", ""))) for r in rows)


def _story_start(failures: Failures, service: str) -> datetime:
    """When ``service``'s part in the story begins, for the root's "first failure" test.

    A service that names a failing one is failing because of it from its first row at a cause
    level or naming it; the warnings it logged before that, naming nothing (a push provider's
    "token not registered" beside a broker outage), are its own background, not an earlier
    start of the incident. A service that names none starts at its first strong row.
    """
    if not failures.graph[service]:
        return failures.first(service)
    lead = next((r for r in failures.rows[service] if level_of(r) in CAUSE_LEVELS
                 or any(names(r, t) for t in failures.graph[service])), None)
    return moment(lead["onset"]) if lead is not None else failures.first(service)


def _linked(failures: Failures, root: str, service: str) -> bool:
    """Whether the data ties ``root``'s failure to ``service``.

    A row of one names the other, or the dependency table puts them on one edge
    (``anomalous_upstream``/``anomalous_downstream`` of a row).
    """
    for s, rows in failures.rows.items():
        for r in rows:
            edges = set(r.get("anomalous_upstream") or []) | set(r.get("anomalous_downstream") or [])
            if (s == root and (names(r, service) or service in edges)) \
                    or (s == service and (names(r, root) or root in edges)):
                return True
    return False


def sentence(found: Localized, change: dict[str, Any] | None,
             story: dict[str, Any] | None = None) -> str:
    """The root cause as one sentence of structured values (component, failure, onset, why).

    Its words are the rows' own (the judge finds each in the cited evidence): the service, the
    computed pattern (which names the dependency when the log line did), level, count and onset.
    """
    data = found.row
    text = f"{found.service}: " + failure_phrase(data["window_count"], data["level"],
                                                 data["pattern"], data.get("example"),
                                                 data["onset"])
    if found.first is not None:
        text += f", after {found.first['level']} '{found.first['pattern']}' from {found.onset}"
    if found.dependency and found.dependency.lower() not in str(data["pattern"]).lower():
        text += f" ({found.dependency})"
    if story is not None:  # what the cause was doing just before (explain.story_line)
        text += f", after INFO '{story['pattern']}' from {story['onset']}"
    if change is not None:
        text += f", after change {change_label(change)}"
    return text


def change_label(change: dict[str, Any]) -> str:
    """A change's structured values: its id, key or version — whatever the row holds."""
    row = change.get("row") or {}
    return describe_row({k: v for k, v in row.items() if not is_time_column(str(k))})


def look_back(start: str, end: str) -> str:
    """The onset search's start: ``LOOK_BACK`` before the window, within ``MAX_WINDOW``."""
    return max(utc(start) - LOOK_BACK, utc(end) - MAX_WINDOW).isoformat()


def bounded_window(start: str, end: str) -> bool:
    """Whether the question's window is precise enough to localize in (``MAX_QUESTION_WINDOW``)."""
    try:
        return timedelta(0) < utc(end) - utc(start) <= MAX_QUESTION_WINDOW
    except ValueError:
        return False
