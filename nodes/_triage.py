"""The triage digest of an abstention: ranked suspects, from this run's verified facts only.

What an on-call engineer reads first when no root cause is published (docs/design.md §16.2):
the earliest anomalies with their onset and counts, the changes before them, the metrics that
moved — each with its evidence id. Built from canonical records (READY, EVIDENCE_FOUND) and
from their structured values only: a suspect's words are a service name, a computed pattern,
a key, an id, a number or a time; a flagged fact keeps its warning and lends no words.

Records of the statistics tools (rows with ``service``, ``pattern``, ``first_seen``, ``count``
…) rank before the plain tools' records: their numbers were computed over the whole window.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.providers.offline.failures import dependency_of, kind_of, kinds_spoken
from diagnosis_harness.tools.timeutil import TimestampError, parse_ts

PLAIN_TOOLS = frozenset({"query_logs", "query_mysql", "lookup_knowledge"})
"""The precise-follow-up tools; any other evidence tool's rows are computed statistics."""
ODD = 3
"""Events below which an anomaly is an odd line: it ranks after the failures of its level (one
known-noise delivery report before an outage is not the first suspect)."""
SHOWN = 5
"""Suspects listed in the report; the rest are counted ("and N more")."""
_CHANGE_TABLE = re.compile(r"change|config|deploy|release|job|cert|migration|flag|rollout",
                           re.IGNORECASE)
_TABLE = re.compile(r"\bFROM\s+\"?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+@=/-]{0,63}")
_TIME_KEY = re.compile(r"(^ts$|_at$|^changed_at$|^started|time$|^first_seen$)")


def _values(fact: Fact) -> Mapping[str, Any]:
    row = fact.data.get("row")
    return row if isinstance(row, dict) else fact.data


def _token(value: object) -> str | None:
    text = "" if value is None or isinstance(value, bool | dict | list) else str(value)
    return text if _TOKEN.fullmatch(text) else None


def _anomaly(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    data = _values(fact)
    count = data.get("count", data.get("window_count"))  # query_logs / compare_windows, onset
    if "first_seen" not in data or count is None:
        return None
    service = _token(data.get("service") or record.scope.get("service"))
    pattern = data.get("pattern") or data.get("template")
    shown = None if fact.flags or not isinstance(pattern, str) else pattern[:160]
    return {"kind": "anomaly", "evidence_id": fact.evidence_id, "service": service,
            "onset": _token(data.get("first_seen")), "count": count, "level": _level(data),
            "pattern": shown, "computed": record.tool not in PLAIN_TOOLS,
            "where": None if fact.flags or shown is None else _located(data.get("located"))
            or _where(shown, data.get("example")),
            "change": _token(data.get("change")), "ratio": _float(data.get("ratio")),
            "calls": _names(data.get("anomalous_upstream"))}


_LOCATING = (re.compile(r"\b(?:host|node|pod|instance|peer|addr|server)=([A-Za-z0-9][\w.:-]{0,62})"),
             re.compile(r"HTTP/\d(?:\.\d)?\"?\s+([1-5]\d\d)\b|\bstatus[=: ]+([1-5]\d\d)\b"),
             re.compile(r"\b((?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?)\b"))
"""The values that locate a failure, in order of preference — a host, node or pod, an HTTP
status, an IP — as an example line states them and its pattern masks them."""


_WORD = re.compile(r"[\w./:@=+-]{1,64}")
"""A located value: one word of a log line (a path, a host=, an address with its port)."""


def _located(values: object) -> str | None:
    """The values a statistics row found the same in (nearly) all the pattern's events."""
    shown = [v for v in values if isinstance(v, str) and _WORD.fullmatch(v)] \
        if isinstance(values, list) else []
    return ", ".join(shown[:3]) or None


def _where(pattern: str, example: object) -> str | None:
    """The first locating value the example states where the pattern masked one (one token)."""
    if not isinstance(example, str) or not re.search(r"<(?:ip|n|id|hex|str)>", pattern):
        return None
    for locating in _LOCATING:
        found = locating.search(example)
        value = next((g for g in found.groups() if g), None) if found else None
        if value and value not in pattern:
            return _token(value)
    return None


_QUIET = frozenset({"INFO", "DEBUG", "TRACE", "NOTICE"})
_SOFT = frozenset({"WARN", "WARNING"})


def _level(data: Mapping[str, Any]) -> str | None:
    level = _token(data.get("level"))
    return level.upper() if level else None


def _tier(suspect: Mapping[str, Any]) -> int:
    """0 an error or worse, 1 a warning (or a query_logs error pattern, WARN and up), 2 info."""
    level = suspect.get("level")
    return 2 if level in _QUIET else 1 if level is None or level in _SOFT else 0


def _change(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    table = _TABLE.search(str(record.scope.get("sql", "")))
    computed = fact.kind == "change" and isinstance(fact.data.get("row"), dict)  # recent_changes
    if not computed and (not table or not _CHANGE_TABLE.search(table.group(1))
                         or fact.kind != "row"):
        return None
    row = _values(fact)
    when = _token(fact.data.get("time")) if computed else next(
        (_token(v) for k, v in row.items() if _TIME_KEY.search(str(k).lower()) and _token(v)),
        None)
    fields = [f"{k}={t}" for k, v in row.items() if (t := _token(v)) is not None
              and not _TIME_KEY.search(str(k).lower())][:5]
    return {"kind": "change", "evidence_id": fact.evidence_id,
            "service": _token(fact.data.get("service") if computed else None)
            or _token(row.get("service") or row.get("component")), "onset": when,
            "summary": ", ".join(fields), "computed": record.tool not in PLAIN_TOOLS}


_METRIC_FIELDS = ("metric", "direction", "baseline_median", "window_median", "peak", "z")


def _metric(record: ToolRecord, fact: Fact) -> dict[str, Any] | None:
    data = _values(fact)
    if record.tool in PLAIN_TOOLS or "metric" not in data:
        return None
    if fact.kind == "metric_series" and not data.get("first_out"):
        return None  # a query_metrics series that stayed in its baseline moved nothing
    # What moved and by how much first; the table's bookkeeping columns last.
    keys = [k for k in _METRIC_FIELDS if k in data] + [k for k in data if k not in _METRIC_FIELDS]
    fields = [f"{k}={t}" for k in keys if (t := _token(data[k])) is not None][:6]
    return {"kind": "metric", "evidence_id": fact.evidence_id,
            "service": _token(data.get("logged_by") or data.get("entity") or data.get("service")),
            "where": _token(data.get("entity")) if data.get("logged_by") else None,
            "onset": _token(data.get("first_out") or data.get("first_seen")),
            "summary": ", ".join(fields), "computed": True,
            "table": _token(data.get("table")), **_shift(data)}


def _shift(data: Mapping[str, Any]) -> dict[str, Any]:
    """A moved metric's share out and z: metric_shifts' own, or a query_metrics series' shift."""
    given = data.get("shift")
    shift: Mapping[str, Any] = given if isinstance(given, dict) else data
    flat = shift.get("mad_zero") is True and shift.get("z") is None \
        and _float(shift.get("window_median")) != _float(shift.get("baseline_median"))
    return {"share_out": _share_out(shift), "z": _float(shift.get("z")),
            **({"left_flat": True} if flat else {})}


def _share_out(data: Mapping[str, Any]) -> float:
    """The share of the window's samples that left the baseline (metric_shifts' counts).

    A replica's lag that stays up explains more than a queue's one-minute spike: both are
    shifts, the one out for more of the window ranks first.
    """
    try:
        return round(float(data["samples_out"]) / float(data["window_samples"]), 2)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0.0


def suspects(records: Sequence[ToolRecord]) -> list[dict[str, Any]]:
    """Every suspect component of the run, strongest first, each with its evidence id.

    One line per component: its strongest fact (anomaly, moved metric or change), scored by
    ``_strength``; then the dependency direction and the onset order reorder them
    (``_ordered``). Changes count only before the earliest failure's onset. Rows without a
    component (a change without a service) follow the components.
    """
    anomalies, changes, metrics = [], [], []
    for record in records:
        if record.invocation_status is not InvocationStatus.READY \
                or record.evidence_status is not EvidenceStatus.EVIDENCE_FOUND:
            continue
        for fact in record.facts:
            if (a := _anomaly(record, fact)) is not None:
                anomalies.append(a)
            elif (c := _change(record, fact)) is not None:
                changes.append(c)
            elif (m := _metric(record, fact)) is not None:
                metrics.append(m)
    metrics = _folded(metrics, {str(s["service"]).lower() for s in anomalies + changes
                                if s.get("service")})
    failing = [a["onset"] for a in anomalies if a["onset"] and _tier(a) < 2]
    onset = min(failing or [a["onset"] for a in anomalies if a["onset"]], default=None)
    changes = [c for c in changes if onset is None or (c["onset"] or "") <= onset]
    changes.sort(key=lambda s: (not s["computed"], _desc(s["onset"])))
    changes = _distinct(changes, ("summary",))
    for s in anomalies + metrics + changes:
        s["strength"] = round(_strength(s) * _recency(s, onset), 2)
    best: dict[str, dict[str, Any]] = {}
    quiet: dict[str, dict[str, Any]] = {}  # components with no suspect fact of their own
    loose = []
    for s in sorted(anomalies + metrics + changes, key=lambda s: (-s["strength"], not s["computed"],
                                                                 s["onset"] or "~")):
        key = (s.get("service") or "").lower()
        if not key:
            loose.append(s)
        elif s["strength"] > 0 and key not in best:
            best[key] = s
        elif key not in best:
            quiet.setdefault(key, s)
    for key, s in best.items():  # the change a failing component went through, on its line
        own = [c for c in changes if (c["service"] or "").lower() == key and c is not s]
        if own and s["kind"] != "change":
            best[key] = {**s, "after_change": {**{k: own[0][k] for k in ("evidence_id", "onset",
                                                                          "summary")},
                                               "earlier": len(own) - 1}}
    quiet = {k: s for k, s in quiet.items() if k not in best}
    ranked = _ordered(list(best.values()), anomalies, quiet, _aliases(metrics),
                      _edges(records)) + loose
    return [{"rank": n, **s} for n, s in enumerate(ranked, 1)]


_ACCESS = re.compile(r"(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* HTTP/")
"""An access line: a proxy reporting what its upstreams answered, after the upstreams."""
LEVEL_WEIGHT = {0: 3.0, 1: 2.0, 2: 1.5}
"""An error weighs twice an INFO line, a warning in between (``_tier``); a fatal ``FATAL``."""
FATAL = 4.0
_FATAL = frozenset({"FATAL", "CRITICAL", "CRIT", "PANIC", "ALERT", "EMERG", "EMERGENCY"})
CHANGE_STRENGTH = 6.0
"""A change before the onset on a component nothing else points at: after any clear failure."""
STRONG = 12.0
"""A clear failure (a new error pattern of a few events, a new warning of twenty): from this
strength a component its callers name ranks before them (``_ordered``)."""


CHANGE_NEAR_S = 3600
"""A change within this many seconds before the onset keeps its whole strength; one hours
before weighs less the older it is (3 hours: a third), so that the old changes of a busy change
log (the class look-back reads two days of them) do not outrank the failing components."""
CHANGE_FAR_S = 6 * 3600
"""A change this long before the onset is no suspect of its own: it still shows on the line of
a component that fails (``after the change …``)."""


def _recency(s: Mapping[str, Any], onset: str | None) -> float:
    """1 for anything but a change; for a change, less the longer it came before the onset."""
    if s["kind"] != "change" or not onset or not s.get("onset"):
        return 1.0
    try:
        gap = (parse_ts(onset) - parse_ts(s["onset"])).total_seconds()
    except TimestampError:
        return 1.0
    return 1.0 if gap <= CHANGE_NEAR_S else 0.0 if gap > CHANGE_FAR_S else CHANGE_NEAR_S / gap


def _strength(s: Mapping[str, Any]) -> float:
    """How far a suspect's fact stands from its baseline: 0 is no suspect at all.

    An anomaly: its level's weight × (1 + novelty) × √log2(1 + events), novelty 2 for a
    pattern new in the window, log2(rate ratio)/2.5 (at most 2) for one that rose, 1 for a
    plain error pattern (no baseline asked). One INFO or WARN line, or an INFO pattern of fewer
    than ``ODD`` events, is no suspect; a proxy's access line counts half (it reports what its
    upstreams answered). The count weighs least: a caller logs more than the dependency it
    waits on, so ten times the events is not ten times the suspicion. A moved metric: 3 × the
    share of the window out × log2(1 + |z|) (at most 10; 10 for a series flat all baseline
    whose median moved, which has no z). A change: ``CHANGE_STRENGTH``.
    """
    if s["kind"] == "change":
        return CHANGE_STRENGTH
    if s["kind"] == "metric":
        # A series flat all baseline whose median moved has no z (no spread to divide by): it
        # left its baseline as far as a metric can (an error rate from 0 to 10 %).
        z = 3.0 if s.get("left_flat") else min(math.log2(1 + abs(s.get("z") or 0.0)), 10.0)
        return 3.0 * max(s.get("share_out") or 0.0, 0.25) * z
    count, tier = _int(s["count"]), _tier(s)
    if count < 1 or (count == 1 and tier > 0) or (tier == 2 and count < ODD):
        return 0.0
    ratio = s.get("ratio")
    novelty = 2.0 if s.get("change") == "new" else min(math.log2(ratio) / 2.5, 2.0) \
        if s.get("change") == "rose" and ratio and ratio > 1 else 1.0
    access = 0.5 if _ACCESS.search(s["pattern"] or "") else 1.0
    weight = FATAL if s.get("level") in _FATAL else LEVEL_WEIGHT[tier]
    return weight * (1 + novelty) * math.sqrt(math.log2(1 + count)) * access


def _aliases(metrics: Sequence[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Each component's other names: the entities its metrics are located at (``logged_by``).

    A metric table names a server by its instance (``redis-cart``) where the logs name its
    service (``redis``): a caller's "connection refused (redis-cart:6379)" names redis.
    """
    out: dict[str, set[str]] = {}
    for m in metrics:
        if m.get("service") and m.get("where"):
            out.setdefault(str(m["service"]).lower(), set()).add(str(m["where"]).lower())
    return out


REACH = re.compile(r"refused|ECONNREFUSED|ECONNRESET|EAI_AGAIN|timed? ?out|timeout|deadline|"
                   r"unreachable|unavailable|no route|reset by peer|broken pipe|could not connect|"
                   r"failed to connect|connection (?:closed|blocked|error|lost)|blocked|"
                   r"not confirmed|OOM command not allowed|too many (?:clients|connections)|"
                   r"handshake|certificate|x509|PKIX|rejected",
                   re.IGNORECASE)
"""What a caller says when it cannot reach or use a dependency: refused, timed out, blocked,
its certificate not accepted."""
REFUSES = re.compile(r"\bblock(?:ed|ing)\b|refus|reject|throttl|too many|rate.?limit|denied"
                     r"|quota", re.IGNORECASE)
"""What a server says of a client it turns away: blocked, refused, rejected, too many."""


def _reached(pattern: str, component: str, aliases: set[str]) -> bool:
    """Whether a failure pattern says it could not reach or use ``component``.

    It names the component (or one of its instances), and either says why the call failed
    (``REACH``) or quotes the component's own error (``redis error: …``, ``kafka: …``).
    """
    for name in (component, *sorted(aliases)):
        if not _named_in(pattern, name) or _as_client(pattern, name) or re.search(
                rf"(?<![\w-]){re.escape(name)}@|@{re.escape(name)}(?![\w-])", pattern, re.I):
            continue  # "auth@auth FATAL: …", "rejected … caller=rules" name a client
        if REACH.search(pattern) or re.search(
                rf"(?<![\w@.-])(?i:{re.escape(name)})(?: error|Error|Exception)?:\s", pattern):
            return True
    return False


def _reached_kind(pattern: str, component: str, caller: str,
                  kinds: Mapping[str, list[str]]) -> bool:
    """Whether a failure says it could not reach or use the one server of ``component``'s kind.

    "publish blocked by broker", "AmqpTimeoutException: connection blocked" name no server,
    but when the run knows one broker (one component named after its kind: ``rabbitmq``) and
    the caller is not one, that is the one it waits on.
    """
    kind = kind_of(component)
    return kind is not None and kinds.get(kind) == [component] and kind_of(caller) != kind \
        and REACH.search(pattern) is not None and kind in kinds_spoken(pattern)


def _edges(records: Sequence[ToolRecord]) -> frozenset[tuple[str, str]]:
    """(caller, callee) rows of the dependency table the onset timeline read, as queried.

    The timeline names only the *anomalous* services a row calls; a dependency that failed in
    its metrics alone (a feed that stopped updating) is known to be called only by the table's
    own rows, when the run asked for them.
    """
    table = next((f.data["dependency_table"] for r in records if r.tool == "onset_timeline"
                  for f in r.facts if isinstance(f.data.get("dependency_table"), dict)), None)
    if table is None:
        return frozenset()
    out = set()
    for record in records:
        used = _TABLE.search(str(record.scope.get("sql", "")))
        if record.tool != "query_mysql" or used is None or used.group(1) != table.get("table"):
            continue
        for fact in record.facts:
            row = _values(fact)
            caller, callee = _token(row.get(table.get("caller"))), _token(row.get(table.get("callee")))
            if caller and callee:
                out.add((caller.lower(), callee.lower()))
    return frozenset(out)


def _ordered(best: list[dict[str, Any]], anomalies: Sequence[Mapping[str, Any]],
             quiet: Mapping[str, dict[str, Any]],
             aliases: Mapping[str, set[str]] | None = None,
             edges: frozenset[tuple[str, str]] = frozenset()) -> list[dict[str, Any]]:
    """The components strongest first, a dependency before the callers whose failures it explains.

    A caller depends on a component when the dependency table says so (an onset row's
    ``upstream``, or the table's rows the run asked for: ``edges``) or when its failure
    pattern names the component ("ledger post failed"). A
    component named by a failing caller and at least ``STRONG`` itself, or a table dependency
    at least ``STRONG / 2`` that failed no later than its caller, moves just before that caller.
    A ``quiet`` component (no suspect fact of its own: one INFO line, "payments listening on
    :9090") that a clear failure names ("Connect to payments:8080 … refused") follows its caller.
    A component a caller's failure says it could not reach or use (``_reached``: "redis: i/o
    timeout", "connection refused (redis-cart:6379)", "kafka: publish … timed out"), however
    weak its own facts, moves just before that caller when it failed first or logged no
    failure of its own at all (a server that is down often says nothing; its metrics moved):
    the callers' errors are where it shows, not where it broke.
    """
    aliases = aliases or {}
    by = {s["service"].lower(): s for s in best}
    heard: dict[str, float] = {}
    for a in anomalies:
        caller = (a.get("service") or "").lower()
        if caller in by and a.get("strength", 0) >= STRONG:
            for k in quiet:
                if k != caller and _named_in(a["pattern"] or "", k):
                    heard[k] = max(heard.get(k, 0.0), by[caller]["strength"] - 0.01)
    named: dict[str, set[str]] = {}
    table: dict[str, set[str]] = {}
    reached: dict[str, set[str]] = {}
    failed = _first_failures(anomalies)
    kinds: dict[str, list[str]] = {}  # each kind of server, the components of that kind
    for k in [*by, *quiet]:
        if (kind := kind_of(k)) is not None:
            kinds.setdefault(kind, []).append(k)
    for a in anomalies:
        caller = (a.get("service") or "").lower()
        if _tier(a) == 2 or caller not in by:
            continue
        calls = {c.lower() for c in a.get("calls") or []}
        for other in set(by) - {caller}:
            if other in calls:
                table.setdefault(caller, set()).add(other)
            if _named_in(a["pattern"] or "", other) and not _as_client(a["pattern"] or "", other):
                named.setdefault(caller, set()).add(other)
            if a.get("strength", 0) >= STRONG / 2 \
                    and (_reached(a["pattern"] or "", other, aliases.get(other, set()))
                         or _reached_kind(a["pattern"] or "", other, caller, kinds)) \
                    and (other not in failed or failed[other] <= failed.get(caller, "~")):
                reached.setdefault(caller, set()).add(other)
    for caller, callee in edges:  # the table's own rows: a callee whose metrics alone moved
        if caller in by and callee in by and caller != callee:
            table.setdefault(caller, set()).add(callee)
    # A server that says it turns a failing client away, at any level ("… - prepaid) is
    # blocked"), not one that says the client turned it away ("rejected by pricing"), nor a
    # caller the dependency table says calls it ("quote rejected: price-api returned …").
    for a in anomalies:
        server = (a.get("service") or "").lower()
        if server not in by or a.get("strength", 0) <= 0 or not REFUSES.search(a["pattern"] or ""):
            continue
        for client in set(failed) & set(by) - {server} - table.get(server, set()):
            if _named_in(a["pattern"] or "", client) \
                    and not re.search(rf"\b(?:by|from)\s+{re.escape(client)}(?![\w-])",
                                      a["pattern"] or "", re.I) \
                    and (server not in failed or failed[server] <= failed[client]) \
                    and (a.get("onset") or "~") <= _plus_minutes(failed[client], 5):
                reached.setdefault(client, set()).add(server)
    for caller, callees in reached.items():  # two that blame each other: neither moves
        callees -= {c for c in callees if caller in reached.get(c, set())}
    ghosts = _unseen_servers(anomalies, by, quiet, kinds, aliases)
    score = {k: s["strength"] for k, s in by.items()}

    def explains(callee: str, caller: str) -> bool:
        if callee in reached.get(caller, ()):
            return True
        if callee in named.get(caller, ()) and score[callee] >= STRONG:
            return True
        return callee in table.get(caller, ()) and score[callee] >= STRONG / 2 \
            and (by[callee]["onset"] or "~") <= (by[caller]["onset"] or "")

    for _ in range(len(by)):  # a chain of dependencies settles in at most this many passes
        moved = False
        for caller in by:
            for callee in named.get(caller, set()) | table.get(caller, set()) \
                    | reached.get(caller, set()):
                if score[callee] <= score[caller] and explains(callee, caller):
                    score[callee] = score[caller] + 0.01
                    moved = True
        if not moved:
            break
    for a in anomalies:  # a quiet component a caller could not reach: just before that caller
        caller = (a.get("service") or "").lower()
        if caller not in by or _tier(a) == 2 or a.get("strength", 0) < STRONG / 2:
            continue
        for k in quiet:
            if (_reached(a["pattern"] or "", k, aliases.get(k, set()))
                    or _reached_kind(a["pattern"] or "", k, caller, kinds)) \
                    and (k not in failed or failed[k] <= failed.get(caller, "~")):
                heard[k] = max(heard.get(k, 0.0), score[caller] + 0.01)
    score.update(heard)
    for kind, ghost in ghosts.items():
        score[kind] = score[ghost["named_by"]] + 0.01
    ranked = list(best) + [quiet[k] for k in heard] + list(ghosts.values())
    return sorted(ranked, key=lambda s: (-score[s["service"].lower()], s["onset"] or "~"))


def _unseen_servers(anomalies: Sequence[Mapping[str, Any]], by: Mapping[str, Any],
                    quiet: Mapping[str, Any], kinds: Mapping[str, list[str]],
                    aliases: Mapping[str, set[str]]) -> dict[str, dict[str, Any]]:
    """The servers a clear failure says it could not use, that the run saw nothing else of.

    "cart: redis DEL …: OOM command not allowed", "ElasticsearchStatusException … blocked":
    the failure names the kind of server (redis, elasticsearch) and the run holds no component
    of that kind — no line, metric or change of its own. The kind stands for it, just before
    the caller that named it, citing the caller's fact (``kind`` "named").
    """
    seen = set(by) | set(quiet)
    aliased = {a for names in aliases.values() for a in names}
    out: dict[str, dict[str, Any]] = {}
    for a in sorted(anomalies, key=lambda a: -a.get("strength", 0)):
        caller = (a.get("service") or "").lower()
        pattern = a.get("pattern") or ""
        if caller not in by or _tier(a) == 2 or a.get("strength", 0) < STRONG / 2 \
                or not REACH.search(pattern):
            continue
        unseen = kinds_spoken(pattern, words=False) - set(kinds) - {kind_of(caller)}
        endpoint = dependency_of({"pattern": pattern}, set())
        host = endpoint.rsplit(":", 1)[0].lower() if endpoint and ":" in endpoint else None
        if host and re.search(r"[a-z0-9][.-][a-z]", host) \
                and not any(_named_in(host, k) for k in seen | aliased):
            unseen.add(host)
        for name in sorted(unseen - seen - set(out)):
            out[name] = {"kind": "named", "evidence_id": a["evidence_id"], "service": name,
                         "onset": a.get("onset"), "named_by": caller, "strength": 0.0,
                         "computed": True}
    return out


ALIKE = 3
"""Entities of one table whose metric moved the same way, from which they are one suspect."""


def _folded(metrics: list[dict[str, Any]], services: set[str]) -> list[dict[str, Any]]:
    """One suspect for a metric that moved the same way on many entities that are no service.

    A table keyed by region, channel or queue (``readings_flagged`` up in six regions at once)
    says one thing: something upstream of all of them changed. Its entities are no component
    (no log line, change or ``logged_by`` names them), and six lines of it would push the
    components out of the top three. The strongest stands for them, counting the others
    (``alike``).
    """
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for m in metrics:
        if m.get("table") and m.get("where") is None \
                and str(m.get("service") or "").lower() not in services:
            key = (m["table"], m["summary"].split(",", 1)[0], _direction(m["summary"]))
            groups.setdefault(key, []).append(m)
    dropped: set[int] = set()
    for group in groups.values():
        if len({str(m["service"]).lower() for m in group}) >= ALIKE:
            group.sort(key=lambda m: -_strength(m))
            group[0]["alike"] = len(group) - 1
            dropped |= {id(m) for m in group[1:]}
    return [m for m in metrics if id(m) not in dropped]


def _direction(summary: str) -> str:
    found = re.search(r"direction=(\w+)", summary)
    return found.group(1) if found else ""


def _plus_minutes(moment: str, minutes: int) -> str:
    try:
        return (parse_ts(moment) + timedelta(minutes=minutes)).isoformat()
    except TimestampError:
        return moment


def _as_client(pattern: str, name: str) -> bool:
    """Whether a pattern names ``name`` only as the client of the call (``caller=rules``)."""
    return re.search(rf"\b(?:caller|client|user|src|source|from|peer)=\"?{re.escape(name)}"
                     rf"(?![\w-])", pattern, re.I) is not None \
        and len(re.findall(rf"(?<![\w-]){re.escape(name)}(?![\w-])", pattern, re.I)) == 1


def _first_failures(anomalies: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each component's earliest warning or worse (one line counts: an alarm is said once)."""
    out: dict[str, str] = {}
    for a in anomalies:
        key = (a.get("service") or "").lower()
        if key and _tier(a) < 2 and a.get("onset"):
            out[key] = min(out.get(key, "~"), str(a["onset"]))
    return out


def _named_in(pattern: str, component: str) -> bool:
    """Whether a failure pattern names the component: as a word, or a class's first word.

    ``ledger post failed`` and ``c.b.pay.ledger.LedgerClient`` both name ``ledger``.
    """
    return re.search(rf"(?<![\w-]){re.escape(component)}(?![\w-])", pattern, re.I) is not None \
        or (component.isalpha()
            and re.search(rf"(?<![A-Za-z]){component.capitalize()}(?=[A-Z])", pattern) is not None)


def _distinct(ranked: list[dict[str, Any]], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The first (best-ranked) suspect of each fact shown twice.

    A pattern that both ``onset_timeline`` and ``query_logs`` showed, a change that both
    ``recent_changes`` and ``query_mysql`` returned, is one suspect: the computed row (ranked
    first) is kept.
    """
    seen: set[tuple[Any, ...]] = set()
    out = []
    for suspect in ranked:
        key = tuple(suspect.get(f) for f in fields)
        if None in key or key not in seen:
            out.append(suspect)
            seen.add(key)
    return out


def _float(value: Any) -> float | None:  # Any: whatever float() takes
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _names(value: object) -> list[str]:
    return [t for v in value if (t := _token(v))] if isinstance(value, list) else []


def _int(value: Any) -> int:  # Any: whatever int() takes; anything else counts 0
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _desc(moment: str | None) -> tuple[int, ...]:
    return tuple(-ord(c) for c in (moment or ""))


def digest_lines(ranked: Sequence[Mapping[str, Any]]) -> list[str]:
    """The report's "Suspects" block: the top few, then "and N more"."""
    lines = []
    for s in ranked[:SHOWN]:
        where = s.get("service") or "?"
        if s["kind"] == "named":
            lines.append(f"{s['rank']}. {where}: named by {s['named_by']}'s failure, no line or "
                         f"metric of its own [{s['evidence_id']}]")
        elif s["kind"] == "anomaly":
            what = f"'{s['pattern']}'" if s.get("pattern") else "a flagged pattern"
            what += f" at {s['where']}" if s.get("where") else ""
            lines.append(f"{s['rank']}. {where}: {s.get('count')} × {what}, onset "
                         f"{s.get('onset')} [{s['evidence_id']}]" + _after(s.get("after_change")))
        else:
            label = "change" if s["kind"] == "change" else "metric moved"
            where += f" ({s['where']})" if s.get("where") else ""
            where += f" (and {s['alike']} more alike)" if s.get("alike") else ""
            lines.append(f"{s['rank']}. {label} on {where} at {s.get('onset')}: "
                         f"{s.get('summary')} [{s['evidence_id']}]" + _after(s.get("after_change")))
    if len(ranked) > SHOWN:
        lines.append(f"… and {len(ranked) - SHOWN} more")
    return lines


def _after(change: Mapping[str, Any] | None) -> str:
    """A component's change before the onset, on the component's line."""
    if not change:
        return ""
    more = f" (and {change['earlier']} earlier)" if change.get("earlier") else ""
    return (f"; after the change at {change['onset']}: {change['summary']} "
            f"[{change['evidence_id']}]{more}")
