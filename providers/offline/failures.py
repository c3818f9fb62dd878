"""Which services of an onset timeline fail, since when, and which names which.

The facts ``localize`` reasons on (docs/design.md §16.3, rules 1 and 2): a service *fails* by
the sum of its anomalous failure-level rows, starts at its first strong row, and *names*
another by its rows' words (or the dependency table's ``upstream``); a dependency's single
ERROR just before a caller fails is a failure too. Nothing here decides the cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis_harness.providers.offline.text import utc

FAILURE_LEVELS = frozenset({"WARN", "WARNING", "ERROR", "ERR", "FATAL", "CRITICAL", "CRIT",
                            "SEVERE", "ALERT", "EMERG", "PANIC"})
CAUSE_LEVELS = FAILURE_LEVELS - {"WARN", "WARNING"}
"""Levels a cause's own failure must log at. A warning counts as a failure that must lead to
the cause, but is no cause itself: measured on the generated worlds with their windows read
right, every cause published from a WARN pattern was wrong (a symptom, a soft quota, a slow
flush, a decline) — 5 of 5."""
MIN_EVENTS = 3
"""Events a pattern needs in the window to count as a failure (one odd line is not)."""
SAME_MOMENT = timedelta(minutes=1)
"""How close to the first failure the cause's own must start: across services, log lines of
one minute are not reliably ordered (clocks, buffering, a pattern reaching 3 events later)."""
CRASH_LEAD = timedelta(minutes=5)
"""How long before its caller's failure a dependency's single ERROR may start to count as its
crash (a caller fails within seconds of a crash; an error of 13 minutes before is another one)."""
_HOST_PORT = re.compile(r"(?<![\w.$])([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{2,5})\b")
"""An endpoint ``host:port`` — not a stack frame's ``PricingService.java:88`` (a source file and
line: the component's own code, not a dependency it names)."""
_PLACEHOLDER = re.compile(r"<[a-z]+>")



def is_failure(item: dict[str, Any]) -> bool:
    """Whether an onset row is of a failure level (WARN, ERROR, FATAL…)."""
    return item.get("kind") == "onset" and str(item.get("level", "")).upper() in FAILURE_LEVELS


def flagged(item: dict[str, Any]) -> bool:
    """Whether the boundary flagged the row's text as addressed to an AI.

    ``tools/untrusted.py`` runs on every fact; the model sees its ``warning`` next to the item.
    """
    return "warning" in item


def moment(stamp: object) -> datetime:
    """An onset as a moment (the tool writes ``…:41Z`` and ``…:41.005Z``: text does not sort)."""
    try:
        return utc(str(stamp))
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)


def words_name(item: dict[str, Any], service: str) -> bool:
    """Whether a row's own words (pattern or example) name ``service``."""
    # An identifier is one word: ``tariff_snapshot_id`` is a column, not the tariff service;
    # so is an address: ``payments@payments`` (a database's user@db), ``rabbit@mq-3``.
    words = f"{item.get('pattern', '')} {item.get('example', '')}".lower()
    return re.search(rf"(?<![a-z0-9_@]){re.escape(service.lower())}(?![a-z0-9_@])",
                     words) is not None


_LOOKUP_FAILED = re.compile(r"\blookup \S+ on \S+|no such host|name resolution|name or service "
                           r"not known|unknownhostexception|nxdomain|servfail", re.I)
"""A failure that says a name lookup failed: it names the DNS service, whatever it is called."""
_DNS = re.compile(r"(?<![a-z0-9])(?:core|kube-?|cluster-?)?dns(?:masq)?(?![a-z])|\bunbound\b"
                  r"|\bbind9?\b", re.I)
"""A service that serves DNS (``coredns``, ``kube-dns``, ``dnsmasq``, ``unbound``, ``bind``)."""


_PROTOCOLS = {
    "amqp": "rabbitmq", "rabbit": "rabbitmq", "postgresql": "postgres", "psycopg": "postgres",
    "libpq": "postgres", "pg": "postgres", "pgx": "postgres", "pgbouncer": "postgres",
    "mongodb": "mongo", "kafkajs": "kafka", "ioredis": "redis",
}
"""A client's or protocol's word for the server it speaks to: ``amqp dial failed`` is the broker."""
_SERVERS = frozenset({"rabbitmq", "kafka", "redis", "postgres", "mysql", "mariadb", "mongo",
                      "memcached", "elasticsearch", "opensearch", "zookeeper", "etcd", "consul",
                      "nats", "cassandra", "clickhouse", "minio"})
"""Servers a component is named after (``redis-shared``, ``kafka``): a failure that says the
server's kind ("ReplyError … redis", "KafkaJSProtocolError") names each component of that kind."""
_TOKEN = re.compile(r"[a-z][a-z0-9]*")


def kind_of(service: str) -> str | None:
    """The kind of server a service is named after, if it is one (``redis-shared`` → redis)."""
    kinds = {_PROTOCOLS.get(t, t) for t in _TOKEN.findall(service.lower())} & _SERVERS
    return next(iter(kinds)) if len(kinds) == 1 else None


def _kinds_said(text: str) -> set[str]:
    """The kinds of server a failure's words name (``amqp``, ``KafkaJS``, ``redis``)."""
    return {_PROTOCOLS.get(t, t) for t in _TOKEN.findall(text.lower())} & _SERVERS


def names(item: dict[str, Any], service: str) -> bool:
    """Whether a row names ``service``: its own words, or the dependency table's upstream.

    A failed name lookup ("dial tcp: lookup inventory.svc on 10.0.0.10:53: server misbehaving")
    names the DNS service in so many words, although not by its name; a failure that says the
    kind of server it speaks to ("amqp dial failed", "KafkaJSProtocolError") names the service
    of that kind (``rabbitmq``; ``kafka``) — and all of them where two are of one kind.
    """
    if service in (item.get("anomalous_upstream") or []) or words_name(item, service):
        return True
    text = f"{item.get('pattern', '')} {item.get('example', '')}"
    if (kind := kind_of(service)) is not None and str(item.get("service")) != service \
            and kind_of(str(item.get("service", ""))) != kind and kind in _kinds_said(text):
        return True
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
    return next((s for s in sorted(services) if s != own and words_name(item, s)), None)


def reaches(graph: dict[str, set[str]], source: str, target: str) -> bool:
    """Whether ``source`` names ``target`` directly or through other failing services."""
    seen, todo = {source}, [source]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            if nxt == target:
                return True
            seen.add(nxt)
            todo.append(nxt)
    return False


def first_strong(own: list[dict[str, Any]]) -> dict[str, Any]:
    """A service's first strong failure row: ``MIN_EVENTS`` events or more, or a cause level."""
    return next((r for r in own if int(r.get("window_count") or 0) >= MIN_EVENTS
                 or str(r.get("level", "")).upper() in CAUSE_LEVELS), own[0])


def crashed_dependencies(rows: dict[str, list[dict[str, Any]]], failing: set[str]) -> set[str]:
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
        at = moment(errors[0]["onset"])
        for caller in failing:
            began = moment(first_strong(rows[caller])["onset"])
            # Named by the caller's errors: a warning naming it is no crash's consequence.
            if any(names(r, weak) and level_of(r) in CAUSE_LEVELS for r in rows[caller]) \
                    and began - CRASH_LEAD <= at <= began + SAME_MOMENT:
                out.add(weak)
    return out


def level_of(row: dict[str, Any]) -> str:
    """A row's level, upper-case (``warn`` and ``WARN`` alike)."""
    return str(row.get("level", "")).upper()


_KIND_WORDS = {
    "database": {"postgres", "mysql", "mariadb", "mongo", "cassandra", "clickhouse"},
    "db": {"postgres", "mysql", "mariadb", "mongo", "cassandra", "clickhouse"},
    "cache": {"redis", "memcached"},
    "broker": {"rabbitmq", "kafka", "nats"},
    "queue": {"rabbitmq", "kafka", "nats"},
    "search": {"elasticsearch", "opensearch"},
}
"""Words a failure says of what it waits on without a name ("authorize failed: database
unavailable"): the kinds of server they may be."""


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def kinds_spoken(text: str, *, words: bool = True) -> set[str]:
    """The kinds of server a failure speaks of, by name or (``words``) by what it is.

    Its name or its client's (``amqp``, ``AmqpTimeoutException``, ``KafkaJS``, ``pgx``), or a
    word for what it is ("blocked by broker": rabbitmq, kafka or nats; "database unavailable").
    """
    said = set(_TOKEN.findall(_CAMEL.sub(" ", text).lower()))
    named = {_PROTOCOLS.get(t, t) for t in said} & _SERVERS
    return named | {k for w in said & set(_KIND_WORDS) for k in _KIND_WORDS[w]} if words \
        else named


def mentions_kind(item: dict[str, Any], service: str) -> bool:
    """Whether a row speaks of a server of ``service``'s kind without naming it.

    Not a name (rule 2 does not follow it), but enough to leave a cause open (rule 7): a
    failure saying "database unavailable" while a database fails is that database's, maybe.
    """
    kind = kind_of(service)
    said = set(_TOKEN.findall(f"{item.get('pattern', '')} {item.get('example', '')}".lower()))
    return kind is not None and any(kind in _KIND_WORDS[w] for w in said & set(_KIND_WORDS))


def _feedback(own: list[dict[str, Any]], other: list[dict[str, Any]], name: str) -> bool:
    """Whether a service names ``name`` only as feedback, in a loop of the two naming each other.

    Two failing services that name each other (a gateway whose pods crash names the authorizer
    it then gets 503s from; the authorizer names the gateway as the source of its load) leave
    the cause open, unless time breaks the loop: the one that failed first, by a row of its
    own that names neither, and named the other only after the other had failed too, was not
    failing because of it. Its naming rows are feedback; the other's are not.
    """
    mine, theirs = first_strong(own), first_strong(other)
    began, later = moment(mine["onset"]), moment(theirs["onset"])
    return began < later and not names(mine, name) \
        and all(moment(r["onset"]) > later for r in own if names(r, name))


@dataclass(frozen=True)
class Failures:
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
    def of(cls, items: list[dict[str, Any]]) -> Failures:
        """The failures of a timeline's onset rows."""
        ordered = sorted((i for i in items if is_failure(i)),
                         key=lambda i: (moment(i["onset"]), int(i.get("rank") or 0)))
        rows: dict[str, list[dict[str, Any]]] = {}
        for row in ordered:
            rows.setdefault(str(row["service"]), []).append(row)
        failing = {s for s, own in rows.items()
                   if sum(int(r.get("window_count") or 0) for r in own) >= MIN_EVENTS}
        failing |= crashed_dependencies(rows, failing)
        graph = {s: {t for t in failing - {s} for r in rows[s] if names(r, t)} for s in failing}
        said = {s: {t for t in failing - {s} for r in rows[s] if words_name(r, t)} for s in failing}
        for here, there in [(a, b) for a in failing for b in graph[a]]:
            if here in graph[there] and _feedback(rows[here], rows[there], there):
                graph[here].discard(there)
                said[here].discard(there)
        return cls(rows=rows, failing=failing, graph=graph, said=said)

    def first(self, service: str) -> datetime:
        """When the service started failing: its first strong row.

        A row of ``MIN_EVENTS`` events or more, or at a cause level (one "entering safe mode"
        ERROR is an onset); its odd earlier warnings (one declined payment) are none. A service
        failing only by several small warning rows starts at the first of them.
        """
        return moment(first_strong(self.rows[service])["onset"])

    def named_by(self, service: str) -> set[str]:
        """Services with any failure row (failing or not) that ``service``'s rows name.

        And failing ones its rows speak of by kind ("database unavailable" while postgres
        fails, :func:`mentions_kind`); not one it names only in feedback (``_feedback``): a
        loop broken by time.
        """
        return {t for t in set(self.rows) - {service} for r in self.rows[service]
                if (names(r, t) or (t in self.failing and mentions_kind(r, t)))
                and not (service in self.graph.get(t, set())
                         and _feedback(self.rows[service], self.rows[t], t))}

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
