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
SLOW = re.compile(r"statement timeout|deadline exceeded|read time[ds]? ?out|request time[ds]? ?out"
                  r"|\bslow\b", re.I)
"""A failure saying something it waits on is slow (not down or refusing): why it is slow — a disk,
a lock, a noisy neighbour — is the cause, and it is not in the failure's words. (A connection
refused or a dial timeout says the endpoint is unreachable: that one is named.)"""
MIN_EVENTS = 3
"""Events a pattern needs in the window to count as a failure (one odd line is not)."""
SAME_MOMENT = timedelta(minutes=1)
"""How close to the first failure the cause's own must start: across services, log lines of
one minute are not reliably ordered (clocks, buffering, a pattern reaching 3 events later)."""
CRASH_LEAD = timedelta(minutes=5)
"""How long before its caller's failure a dependency's single ERROR may start to count as its
crash (a caller fails within seconds of a crash; an error of 13 minutes before is another one)."""
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


def is_failure(item: dict[str, Any]) -> bool:
    """Whether an onset row is of a failure level (WARN, ERROR, FATAL…)."""
    return item.get("kind") == "onset" and str(item.get("level", "")).upper() in FAILURE_LEVELS


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


def _said(item: dict[str, Any], service: str) -> bool:
    """Whether a row's own words (pattern or example) name ``service``."""
    words = f"{item.get('pattern', '')} {item.get('example', '')}".lower()
    return re.search(rf"(?<![a-z0-9]){re.escape(service.lower())}(?![a-z0-9])", words) is not None


_LOOKUP_FAILED = re.compile(r"\blookup \S+ on \S+|no such host|name resolution|name or service "
                           r"not known|unknownhostexception|nxdomain|servfail", re.I)
"""A failure that says a name lookup failed: it names the DNS service, whatever it is called."""
_DNS = re.compile(r"(?<![a-z0-9])(?:core|kube-?|cluster-?)?dns(?:masq)?(?![a-z])|\bunbound\b"
                  r"|\bbind9?\b", re.I)
"""A service that serves DNS (``coredns``, ``kube-dns``, ``dnsmasq``, ``unbound``, ``bind``)."""


def _names(item: dict[str, Any], service: str) -> bool:
    """Whether a row names ``service``: its own words, or the dependency table's upstream.

    A failed name lookup ("dial tcp: lookup inventory.svc on 10.0.0.10:53: server misbehaving")
    names the DNS service in so many words, although not by its name.
    """
    if service in (item.get("upstream") or []) or _said(item, service):
        return True
    text = f"{item.get('pattern', '')} {item.get('example', '')}"
    return _DNS.search(service) is not None and _LOOKUP_FAILED.search(text) is not None


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
    return next((s for s in sorted(services) if s != own and _said(item, s)), None)


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


def _first_strong(own: list[dict[str, Any]]) -> dict[str, Any]:
    """A service's first strong failure row: ``MIN_EVENTS`` events or more, or a cause level."""
    return next((r for r in own if int(r.get("window_count") or 0) >= MIN_EVENTS
                 or str(r.get("level", "")).upper() in CAUSE_LEVELS), own[0])


def _crashed_dependencies(rows: dict[str, list[dict[str, Any]]], failing: set[str]) -> set[str]:
    """Services with fewer than ``MIN_EVENTS`` failure events that fail all the same.

    One "terminated by signal 9: Killed" line of a database a failing loader calls is no odd
    line: a service whose ERROR (or worse) a failing service names — by its words or the
    dependency table — and that starts at most ``CRASH_LEAD`` before that service's failure
    (and no later than ``SAME_MOMENT`` after it) is failing too.
    """
    out = set()
    for weak, own in rows.items():
        errors = [r for r in own if str(r.get("level", "")).upper() in CAUSE_LEVELS]
        if weak in failing or not errors:
            continue
        at = _moment(errors[0]["onset"])
        for caller in failing:
            began = _moment(_first_strong(rows[caller])["onset"])
            if any(_names(r, weak) for r in rows[caller]) \
                    and began - CRASH_LEAD <= at <= began + SAME_MOMENT:
                out.add(weak)
    return out


@dataclass(frozen=True)
class _Failures:
    """The failure rows of a timeline, by service, and who names whom."""

    rows: dict[str, list[dict[str, Any]]]
    """Every service with an anomalous failure-level row: its rows, earliest first."""
    failing: set[str]
    """Services whose failure rows hold at least ``MIN_EVENTS`` events together."""
    graph: dict[str, set[str]]
    """Failing service → the failing services its failure rows name (words or upstream)."""
    said: dict[str, set[str]]
    """Failing service → the failing services its failure rows' own words name."""

    @classmethod
    def of(cls, items: list[dict[str, Any]]) -> _Failures:
        ordered = sorted((i for i in items if is_failure(i)),
                         key=lambda i: (_moment(i["onset"]), int(i.get("rank") or 0)))
        rows: dict[str, list[dict[str, Any]]] = {}
        for row in ordered:
            rows.setdefault(str(row["service"]), []).append(row)
        failing = {s for s, own in rows.items()
                   if sum(int(r.get("window_count") or 0) for r in own) >= MIN_EVENTS}
        failing |= _crashed_dependencies(rows, failing)
        graph = {s: {t for t in failing - {s} for r in rows[s] if _names(r, t)} for s in failing}
        said = {s: {t for t in failing - {s} for r in rows[s] if _said(r, t)} for s in failing}
        return cls(rows=rows, failing=failing, graph=graph, said=said)

    def first(self, service: str) -> datetime:
        """When the service started failing: its first strong row.

        A row of ``MIN_EVENTS`` events or more, or at a cause level (one "entering safe mode"
        ERROR is an onset); its odd earlier warnings (one declined payment) are none. A service
        failing only by several small warning rows starts at the first of them.
        """
        return _moment(_first_strong(self.rows[service])["onset"])

    def named_by(self, service: str) -> set[str]:
        """Services with any failure row (failing or not) that ``service``'s rows name."""
        return {t for t in set(self.rows) - {service} for r in self.rows[service] if _names(r, t)}

    def chain(self, symptom: str) -> str | None:
        """The one failing service the symptom's failures lead to, or None.

        From the symptom, follow what each failing service names — its rows' own words first
        ("could not connect to metastore"), the dependency table only where the words name no
        failing service — to the services that name no other; branches may meet again (the web
        tier names the cart and the checkout, which names the cart), but two such ends, or a
        loop with no end, leave the cause open.
        """
        seen, todo, ends = {symptom}, [symptom], set()
        while todo:
            here = todo.pop()
            step = self.said[here] or self.graph[here]
            if not step:
                ends.add(here)
            for nxt in step - seen:
                seen.add(nxt)
                todo.append(nxt)
        return next(iter(ends)) if len(ends) == 1 else None


def localize(items: list[dict[str, Any]], service: str | None = None) -> Localized | None:
    """The unambiguous root of an onset timeline's failures, or None (abstain).

    A service *fails* when its anomalous rows of a failure level hold ``MIN_EVENTS`` events
    together; one names another when its failure rows' words (or the dependency table's
    ``upstream``) name it. With the question's ``service`` failing, the cause is where its
    failures lead, one unambiguous step at a time (:meth:`_Failures.chain`); otherwise (a
    system-wide question) it is the one failing service that names no other, starts within
    ``SAME_MOMENT`` of the first failure, and is named by every other failing service, directly
    or through others. Either way the cause must start before what it explains, log at a cause
    level (``CAUSE_LEVELS``), not say it is saturated (``OVERLOAD``), and name no other
    component with failures of its own (then *that* one may be the cause).
    """
    failures = _Failures.of(items)
    if not failures.failing or any(_flagged(r) for rows in failures.rows.values() for r in rows):
        return None  # nothing failed, or a failure whose text cannot be taken at its word
    earliest = min(failures.first(s) for s in failures.failing)
    if service in failures.failing:
        root = failures.chain(service)
        if root is None or failures.first(root) - failures.first(service) > SAME_MOMENT:
            return None  # ambiguous, or a "cause" that starts after the symptom (a consequence)
        explained = [s for s in failures.failing - {root} if _reaches(failures.graph, s, root)]
    else:
        roots = [s for s in failures.failing
                 if not failures.graph[s] and failures.first(s) - earliest <= SAME_MOMENT]
        if len(roots) != 1:
            return None
        root = roots[0]
        explained = sorted(failures.failing - {root})
        if not all(_reaches(failures.graph, s, root) for s in explained):
            return None  # another failure the cause does not explain
    own = failures.rows[root]
    # A warning is a symptom to explain, not a cause to publish: a change may explain it.
    cause = next((r for r in own if str(r.get("level", "")).upper() in CAUSE_LEVELS), None)
    if any(OVERLOAD.search(str(r.get("pattern", ""))) or SLOW.search(str(r.get("pattern", "")))
           for r in own):
        return None  # a saturated or slow dependency: why is the cause, and it is not shown
    if failures.named_by(root):
        return None  # it names a component that fails too: the cause may be there, unshown
    services = {str(i["service"]) for i in items if i.get("kind") == "onset"}
    consistent = [failures.rows[s][0] for s in sorted(explained, key=failures.first)]
    row = cause or own[0]
    return Localized(row=row, dependency=dependency_of(row, services), consistent=consistent,
                     first=own[0] if own[0] is not row else None, warning_only=cause is None)


def sentence(found: Localized, change: dict[str, Any] | None) -> str:
    """The root cause as one sentence of structured values (component, failure, onset, why).

    Its words are the rows' own (the judge finds each in the cited evidence): the service, the
    computed pattern (which names the dependency when the log line did), level, count and onset.
    """
    data = found.row
    text = (f"{found.service}: {data['window_count']} {data['level']} events "
            f"'{data['pattern']}' from {data['onset']}")
    if found.first is not None:
        text += f", after {found.first['level']} '{found.first['pattern']}' from {found.onset}"
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
