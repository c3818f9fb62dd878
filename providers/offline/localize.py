"""Localize: the facts of the one component an onset timeline's failures lead to.

The decisions are the registry's (``rules/__init__.py``, docs/design.md §16.3): the ``LOCATE``
rules find the root of the timeline's failures or abstain, then the ``EXPLAIN`` rules find what
explains it or abstain. This module holds what they share: the shapes they return (a
:class:`Root`, a :class:`Localized` failure, an :class:`Explained` one, an :class:`Abstain`
with its reason), the cause row and its consistent rows (:func:`candidate`), and the sentence
the conclusion is written in. The facts they reason on — who fails, since when, who names
whom — are :mod:`.failures`'.

What it writes is built from the rows' structured values and the computed pattern only:
service, pattern, level, count, onset, the dependency the pattern names (``host:port`` or
another service of the timeline) and a change's id/key/version — never other free text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    CRASH_LEAD,
    MIN_EVENTS,
    Failures,
    dependency_of,
    first_strong,
    level_of,
    moment,
    names,
    words_name,
)
from diagnosis_harness.providers.offline.text import failure_phrase, is_time_column, utc

LOOK_BACK = timedelta(minutes=30)
"""How far before the question's window the onsets are looked for."""
MAX_QUESTION_WINDOW = timedelta(hours=4)
"""The longest question window localized on: a day-long one is no window, only a date."""
MAX_WINDOW = timedelta(minutes=1440)
"""The longest window the log tools accept by default (``HARNESS_MAX_LOG_WINDOW_MINUTES``)."""
ACCESS_LINE = re.compile(r"(?:^|\")(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* HTTP/")
"""An access log's request line, as the pattern keeps it (method and path, §16.1): quoted in
a raw combined-log line, or first in the message the importer writes for a parsed one."""


@dataclass(frozen=True)
class Abstain:
    """A rule's decision that the localized failure concludes nothing, and why."""

    reason: str
    """Why, in the failure class's terms (what is not shown, what else may be the cause)."""
    rule: str = ""
    """The rule module that decided it (filled in by the registry's runner)."""


@dataclass(frozen=True)
class Root:
    """The failing service the timeline's failures lead to, before the vetoes."""

    service: str
    explained: list[str] = field(default_factory=list)
    """The other failing services whose failures lead to it."""


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


@dataclass(frozen=True)
class Explained:
    """What explains a localized failure: a change row, a metric shift, or its own words."""

    change: dict[str, Any] | None = None
    """The change row (``recent_changes`` item) the conclusion names, if any."""
    metric: dict[str, Any] | None = None
    """The resource metric shift (``metric_shifts`` item) the conclusion names, if any."""


def reports_only(rows: list[dict[str, Any]]) -> bool:
    """Whether a service fails only by access lines: a proxy reporting its upstreams' answers.

    Its failure starting with another's, naming none, is where that failure shows (an edge's
    5xx while the server behind it fails), not a second root; nor does it need the root to
    name it.
    """
    return bool(rows) and all(ACCESS_LINE.search(str(r.get("pattern", ""))) for r in rows)


def candidate(failures: Failures, root: Root, items: list[dict[str, Any]]) -> Localized:
    """The root's failure as the rows that show it: its cause row and the consistent rows.

    A warning is a symptom to explain, not a cause to publish (``warning_only``: a change may
    explain it). One odd ERROR line is no cause either unless what fails names the component:
    the cause row holds ``MIN_EVENTS`` events, or a failing service's rows name the cause at a
    cause level — in so many words, or by the dependency table for a crash at most
    ``CRASH_LEAD`` before its caller failed (the table says who may call whom, not that a
    failure 20 minutes later was about it). An everyday odd ERROR before a component's real
    failure ("duplicate key" before "No space left on device") is not its cause row.
    """
    own, explained = failures.rows[root.service], root.explained
    errors = [r for r in own if level_of(r) in CAUSE_LEVELS]
    corroborated = bool(explained and errors) and any(
        level_of(r) in CAUSE_LEVELS and (words_name(r, root.service) or (
            names(r, root.service)
            and moment(errors[0]["onset"]) >= failures.first(s) - CRASH_LEAD))
        for s in explained for r in failures.rows[s])
    cause = next((r for r in errors if int(r.get("window_count") or 0) >= MIN_EVENTS),
                 errors[0] if corroborated else None)
    services = {str(i["service"]) for i in items if i.get("kind") == "onset"}
    # Each with the row it starts failing by (an odd earlier warning is no "then"), and the
    # row that names the cause when that one does not: the link the judge looks for.
    consistent = []
    for s in sorted(explained, key=failures.first):
        strong = first_strong(failures.rows[s])
        link = next((r for r in failures.rows[s] if names(r, root.service)), None)
        consistent += [strong] if link is None or names(strong, root.service) else [strong, link]
    row = cause or own[0]
    return Localized(row=row, dependency=dependency_of(row, services), consistent=consistent,
                     first=own[0] if own[0] is not row else None, warning_only=cause is None)


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
