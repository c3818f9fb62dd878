"""Localize, then explain: the earliest strong failure pattern of a window, from statistics rows.

When no runbook-and-change conclusion holds, the offline investigator asks ``onset_timeline``
for the anomalies of the window (and a look-back before it: a cause often starts minutes before
the question's window) and picks a cause only when the evidence is strong and unambiguous
(docs/design.md §16.3):

- a *candidate* is an onset row of a failure level (WARN, ERROR, FATAL…) with at least
  ``MIN_EVENTS`` events — a single odd line, or an INFO line, says nothing; a failure whose
  text reads like instructions to an AI is never taken at its word: the rule abstains;
- the cause is the one failing service that names no other failing service, and every other
  failing service names it (its pattern or example says the cause's name, or the dependency
  table makes it ``upstream``), directly or through others, and it starts within a minute of
  the first failure; two such services, a failure that does not lead to the cause, or a
  "cause" that starts minutes after what names it (a consequence) means abstain.

What it writes is built from the rows' structured values and the computed pattern only:
service, pattern, level, count, onset, the dependency the pattern names (``host:port`` or
another service of the timeline) and a change's id/key/version — never other free text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.text import is_time_column, utc

FAILURE_LEVELS = frozenset({"WARN", "WARNING", "ERROR", "ERR", "FATAL", "CRITICAL", "CRIT",
                            "SEVERE", "ALERT", "EMERG", "PANIC"})
CAUSE_LEVELS = FAILURE_LEVELS - {"WARN", "WARNING"}
"""Levels a cause's own failure must log at. A warning counts as a failure that must lead to
the cause, but is no cause itself: measured on the generated worlds with their windows read
right, every cause published from a WARN pattern was wrong (a symptom, a soft quota, a slow
flush, a decline) — 5 of 5."""
OVERLOAD = re.compile(r"too many requests|\b429\b|rate.?limit|throttl|queue (?:is )?full"
                      r"|rejected_execution|overload", re.I)
"""A failure saying its dependency is saturated: what saturates it is not in the evidence."""
MIN_EVENTS = 3
"""Events a pattern needs in the window to count as a failure (one odd line is not)."""
SAME_MOMENT = timedelta(minutes=1)
"""How close to the first failure the cause's own must start: across services, log lines of
one minute are not reliably ordered (clocks, buffering, a pattern reaching 3 events later)."""
LOOK_BACK = timedelta(minutes=30)
"""How far before the question's window the onsets are looked for."""
MAX_QUESTION_WINDOW = timedelta(hours=4)
"""The longest question window localized on: a day-long one is no window, only a date."""
MAX_WINDOW = timedelta(minutes=1440)
"""The longest window the log tools accept by default (``HARNESS_MAX_LOG_WINDOW_MINUTES``)."""
_HOST_PORT = re.compile(r"\b([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{2,5})\b")
_PLACEHOLDER = re.compile(r"<[a-z]+>")


@dataclass(frozen=True)
class Localized:
    """The cause the timeline points at: one onset row and what it names."""

    row: dict[str, Any]
    """The onset row (``evidence_id`` and the tool's fields) of the earliest failure."""
    dependency: str | None
    """The ``host:port`` or service the failure pattern names, if any."""
    consistent: list[dict[str, Any]]
    """Onset rows of other services that the cause explains (they call it or name it)."""

    @property
    def service(self) -> str:
        """The failing component."""
        return str(self.row["service"])

    @property
    def onset(self) -> str:
        """The first event of the failure (the tool's own time text)."""
        return str(self.row["onset"])


def is_failure(item: dict[str, Any]) -> bool:
    """Whether an onset row is a failure: a failure level and at least ``MIN_EVENTS`` events."""
    return (item.get("kind") == "onset"
            and str(item.get("level", "")).upper() in FAILURE_LEVELS
            and int(item.get("window_count") or 0) >= MIN_EVENTS)


def _flagged(item: dict[str, Any]) -> bool:
    """Whether the boundary flagged the row's text as addressed to an AI.

    ``tools/untrusted.py`` runs on every fact; the model sees its ``warning`` next to the item.
    """
    return "warning" in item


def _moment(stamp: Any) -> datetime:
    """An onset as a moment (the tool writes ``…:41Z`` and ``…:41.005Z``: text does not sort)."""
    try:
        return utc(str(stamp))
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)


def _names(item: dict[str, Any], service: str) -> bool:
    """Whether a row's own words (pattern, example, upstream) name ``service``."""
    data = item  # the tool's fields, flat
    if service in (data.get("upstream") or []):
        return True
    words = f"{data.get('pattern', '')} {data.get('example', '')}".lower()
    return re.search(rf"(?<![a-z0-9]){re.escape(service.lower())}(?![a-z0-9])", words) is not None


def dependency_of(item: dict[str, Any], services: set[str]) -> str | None:
    """The dependency a failure names: a ``host:port`` of its pattern, else another service.

    (Not the dependency table's ``upstream``: a failing upstream would have been the cause, and
    one that is merely anomalous is no dependency *this* failure names.)
    """
    # The computed pattern keeps a port after a host *name* and masks one after an id or an
    # address (§16.1): an endpoint the lines share, not one line's path (``hdfs://nn-1:8020/…``).
    pattern = _PLACEHOLDER.sub(" ", str(item.get("pattern", "")))
    if (m := _HOST_PORT.search(pattern)) is not None:
        return m.group(1)
    own = str(item.get("service", ""))
    return next((s for s in sorted(services) if s != own and _names(item, s)), None)


def _reaches(graph: dict[str, set[str]], source: str, target: str) -> bool:
    """Whether ``source`` names ``target`` directly or through other failing services."""
    seen, todo = {source}, [source]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            if nxt == target:
                return True
            seen.add(nxt)
            todo.append(nxt)
    return False


def localize(items: list[dict[str, Any]]) -> Localized | None:
    """The unambiguous root of an onset timeline's failures, or None (abstain).

    Every failing service is a node; one names another when its failure rows' words (or the
    dependency table's ``upstream``) name it. The cause is the one failing service that names
    no other failing service, starts within ``SAME_MOMENT`` of the first failure, and is named
    by every other failing service, directly or through others. A failure that does not lead
    to it contradicts it; a "cause" that starts minutes after what names it is a consequence
    (a caller that gave up); two such roots leave the cause unknown.
    """
    failures = sorted((i for i in items if is_failure(i)),
                      key=lambda i: (_moment(i["onset"]), int(i.get("rank") or 0)))
    if not failures or any(_flagged(i) for i in failures):
        return None  # nothing failed, or a failure whose text cannot be taken at its word
    first_of: dict[str, dict[str, Any]] = {}
    for row in failures:
        first_of.setdefault(str(row["service"]), row)
    failing = set(first_of)
    graph = {s: {t for t in failing - {s} for row in failures
                 if str(row["service"]) == s and _names(row, t)} for s in failing}
    earliest = _moment(failures[0]["onset"])
    roots = [s for s in failing
             if not graph[s] and _moment(first_of[s]["onset"]) - earliest <= SAME_MOMENT]
    if len(roots) != 1:
        return None
    root = roots[0]
    if str(first_of[root].get("level", "")).upper() not in CAUSE_LEVELS:
        return None  # a warning is a symptom to explain, not a cause to publish
    if OVERLOAD.search(str(first_of[root].get("pattern", ""))):
        return None  # a saturated dependency: who saturates it is the cause, and it is not shown
    if not all(_reaches(graph, s, root) for s in failing - {root}):
        return None  # another failure the cause does not explain
    services = {str(i["service"]) for i in items if i.get("kind") == "onset"}
    consistent = [first_of[s] for s in sorted(failing - {root},
                                              key=lambda s: _moment(first_of[s]["onset"]))]
    return Localized(row=first_of[root], dependency=dependency_of(first_of[root], services),
                     consistent=consistent)


def sentence(found: Localized, change: dict[str, Any] | None) -> str:
    """The root cause as one sentence of structured values (component, failure, onset, why).

    Its words are the rows' own (the judge finds each in the cited evidence): the service, the
    computed pattern (which names the dependency when the log line did), level, count and onset.
    """
    data = found.row
    text = (f"{found.service}: {data['window_count']} {data['level']} events "
            f"'{data['pattern']}' from {found.onset}")
    if found.dependency and found.dependency.lower() not in str(data["pattern"]).lower():
        text += f" ({found.dependency})"
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
