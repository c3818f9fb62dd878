"""The localized draft: claims citing the statistics rows, a cause built from their values.

``localize`` names the earliest unambiguous failure; this module adds what explains it — a
change on that service in the look-back before the onset that passes the causal test
(``causal.change_problem``) — and writes the draft. Every claim cites the rows it is built from
(the onset row, the consistent downstream rows, the change row), so the evidence guard, the
judge and release's re-computation of the statistics verify them.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.causal import (
    Symptom,
    change_problem,
    lowered_limit_ran_out,
    names_key,
)
from diagnosis_harness.providers.offline.conclusion import NEXT_STEPS, describe_row
from diagnosis_harness.providers.offline.failures import dependency_of, flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import ACCESS_LINE, Localized, localize, sentence
from diagnosis_harness.providers.offline.mechanism import names_mechanism
from diagnosis_harness.providers.offline.text import utc

MAX_DOWNSTREAM = 3
"""Consistent downstream failures quoted as corroboration."""


def localized(inv: Investigation) -> Localized | None:
    """The timeline's localized failure, if the investigation read one."""
    return localize(inv.items("onset_timeline"), inv.scope.service or None)


def _symptom(found: Localized) -> Symptom:
    return Symptom(services=frozenset({found.service.lower()}), onset=found.onset,
                   text=f"{found.row.get('pattern', '')} {found.row.get('example', '')}")


def explaining_change(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The most recent change of the look-back that explains the failure by the causal test.

    From logs alone a shared word is too little ("query logging verbosity" is no cause of
    "query failed: no space left"): the failure's own text must name the change's key.
    """
    symptom = _symptom(found)
    links = [f"{found.service} {found.row.get('pattern', '')}"]
    for item in inv.items("recent_changes", lookback_minutes=None):
        row = item.get("row")
        if item.get("kind") != "change" or not isinstance(row, dict) or "warning" in item:
            continue
        row = {**row, "service": item.get("service") or row.get("service")}
        if describe_row(row) and (names_key(row, symptom.text)
                                  or lowered_limit_ran_out(row, symptom.text)) \
                and change_problem(row, symptom, [], links) is None:
            return item
    return expired_before(inv, found, symptom, links) or just_before(inv, found)


EXPIRY_COLUMN = re.compile(r"^(not_?after|valid_(?:to|until)|expires?(?:_at|_on)?"
                           r"|expir(?:y|ation)(?:_at|_date|_time)?)$", re.I)
"""A column holding when a certificate, key or token stops being valid."""
EXPIRED = re.compile(r"expir|not ?after|no longer valid", re.I)
EXPIRY_LEAD = timedelta(minutes=60)


def expired_before(inv: Investigation, found: Localized, symptom: Symptom,
                   links: list[str]) -> dict[str, Any] | None:
    """The one certificate or credential of the failing component that expired just before.

    A failure that says so ("…_CREDENTIAL_EXPIRED", "certificate has expired") minutes after a
    row of the component's own inventory reached its ``not_after`` is that expiry — when the
    row passes the causal test (its own words in the failure's: the certificate's name or
    kind), at most ``EXPIRY_LEAD`` before the failure and no later than a minute after it.
    (Measured on the blind vod world: a FairPlay certificate's expiry 24 s before every
    FairPlay license failed was the one change on that component, and left the cause open.)
    """
    if found.warning_only or not EXPIRED.search(symptom.text):
        return None
    try:
        onset = utc(found.onset)
    except ValueError:
        return None
    near = [item for item in inv.items("recent_changes", lookback_minutes=None)
            if item.get("kind") == "change" and "warning" not in item
            and isinstance(row := item.get("row"), dict) and item.get("service") == found.service
            and any(onset - EXPIRY_LEAD <= moment(v) <= onset + timedelta(minutes=1)
                    for k, v in row.items() if EXPIRY_COLUMN.match(str(k)))
            and change_problem({**row, "service": found.service}, symptom, [], links) is None]
    return near[0] if len(near) == 1 else None


ROLLOUT_TABLE = re.compile(r"deploy|release|rollout|migration", re.I)
"""Tables of code rollouts (deploys, releases, migrations) — not job runs, not config changes.

A config change says what it changed, its key: if that is why, the failure's words name it
(the causal test above). A rollout of code changes what no key says, so timing is its link."""
_ROLLOUT_COLUMN = re.compile(r"^(version|image|release|commit|revision|build)(_id)?$", re.I)
JUST_BEFORE = 10.0
"""Minutes before its component's own failure a rollout explains it by timing alone."""


def just_before(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The one code rollout of the failing component minutes before a failure of its own.

    "What changed just before?" is the first question of every on-call engineer, and it holds
    where the failure is the component's own — a new exception, a crash loop, at ERROR or
    worse (warnings only were measured: a rollout just before rejections or start timeouts was
    not their cause, twice) — naming no dependency (no ``host:port``, no other service: a
    refused connection to a proxy right after a deploy is the proxy's). One code rollout of
    that component (``ROLLOUT_TABLE``) at most ``JUST_BEFORE`` minutes before the failure
    began; two leave it open.
    """
    if found.warning_only:
        return None  # a rejection or a timeout warning is a symptom more often than a fault
    rows = [found.row, *([found.first] if found.first is not None else [])]
    if any(dependency_of(r, set()) or STORE_REPLY.search(f"{r.get('pattern', '')}")
           or URL_HOST.search(str(r.get("pattern", "")))
           or CONNECT_ADDRESS.search(str(r.get("pattern", ""))) for r in rows) \
            or found.dependency is not None:
        return None
    near = [item for item in inv.items("recent_changes", lookback_minutes=None)
            if item.get("kind") == "change" and "warning" not in item
            and item.get("service") == found.service and isinstance(item.get("row"), dict)
            and describe_row(item["row"]) and _is_rollout(item)
            and 0 <= float(item.get("minutes_before") or 0) <= JUST_BEFORE]
    return near[0] if len(near) == 1 else None


URL_HOST = re.compile(r"\b(?:https?|grpcs?|wss?)://[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.I)
"""An endpoint a failure names by its URL (``… 503 Service Unavailable from
https://acme.okta.com/…/token``): where it failed, although no ``host:port`` — a release just
before is not its cause by timing (measured on the blind docs world: an identity provider's
503s were published "after" the auth deploy of 9 minutes before, which changed password-reset
copy)."""
CONNECT_ADDRESS = re.compile(r"\b(?:connect(?:ing|ion)?(?: to)?|dial(?:ing)?|connection to)\b"
                             r"[^\n]{0,40}?<ip>:<n>", re.I)
"""A connection to an address, masked (``connect EADDRNOTAVAIL <ip>:<n>``, ``dial tcp <ip>:<n>:
connection refused``): the failure names an endpoint as a ``host:port`` does, and whether the
rollout just before is why (how it connects) or the endpoint is (what answers) timing cannot
say (measured on a world: ephemeral ports exhausted by a release's new HTTP client without
keep-alive were published as "after the release", without what in it)."""
STORE_REPLY = re.compile(r"\b(?:NoSuchKey|NoSuchBucket|NoSuchUpload|AccessDenied|SlowDown"
                         r"|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken"
                         r"|RequestTimeTooSkewed|InvalidObjectState)\b")
"""An object store's error code (the S3 API's, which radosgw, MinIO and GCS's XML API answer
too), quoted by its client: the failure names where it failed — a missing object, a denied or
throttled read — if not by the store's name. A rollout just before is not its cause by timing
alone (measured on a world built blind: a release 10 minutes before "NoSuchKey" for a
premiere's manifests that a failed packaging job never wrote)."""


CONFIG_TABLE = re.compile(r"config|setting|flag|param", re.I)
"""Tables of configuration changes: each row names the key it changed."""


def _is_config(item: dict[str, Any]) -> bool:
    """Whether a change row is a config change (its table's name), not a rollout or a job."""
    return CONFIG_TABLE.search(str(item.get("table", ""))) is not None and not _is_rollout(item)


def _is_rollout(item: dict[str, Any]) -> bool:
    """Whether a change row is a code rollout: its table's name, or a version-like column."""
    return ROLLOUT_TABLE.search(str(item.get("table", ""))) is not None or any(
        _ROLLOUT_COLUMN.match(str(k)) for k in item.get("row") or {})


RESOURCE = re.compile(r"disk|await|iops|io_|cpu|mem|heap|gc_|swap|load|fd|inode", re.I)
"""Metrics that say a component's own resource gave out (not its traffic or its errors)."""
METRIC_LEAD = timedelta(minutes=10)
"""How long before a warning-only failure its component's resource metric may have shifted."""


def _owned_by(entity: object, service: str) -> bool:
    """Whether a metric's entity is the service or one of its instances (``broker-2``)."""
    name, svc = str(entity or "").lower(), service.lower()
    return name == svc or re.fullmatch(rf"{re.escape(svc)}-[a-z0-9]{{1,8}}", name) is not None


def resource_shift(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The one resource metric of the failing component that left its baseline just before.

    A warning-only failure ("log flush took 1800 ms") concludes when the metrics say why: one
    instance of that component (``broker-2``), a resource metric (disk, await, cpu, memory…),
    shifted at most ``METRIC_LEAD`` before the failure and no later than a minute after it.
    Two instances, or none, leave it open.
    """
    try:
        onset = utc(found.onset)
    except ValueError:
        return None
    shifts = [i for i in inv.items("metric_shifts") if i.get("kind") == "metric_shift"
              and "warning" not in i and _owned_by(i.get("entity"), found.service)
              and RESOURCE.search(str(i.get("metric", "")))]
    near = []
    for item in shifts:
        try:
            moment = utc(str(item.get("first_out")))
        except ValueError:
            continue
        if onset - METRIC_LEAD <= moment <= onset + timedelta(minutes=1):
            near.append(item)
    entities = {str(i.get("entity")) for i in near}
    if len(entities) != 1:
        return None
    return min(near, key=lambda i: str(i.get("first_out")))


STORY_LEAD = timedelta(minutes=2)
"""How long before the cause's first failure its own new INFO line is what it was doing."""


def story_line(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The cause's one new INFO line just before it failed: what it was doing, in its words.

    A component fails *while* doing something its INFO lines say — loading a denylist ten times
    its usual size, starting a repair, applying a migration — and that is what the on-call
    engineer needs beside the error (measured on a blind world: auth's "OutOfMemoryError: Java
    heap space" was published without the "loaded device denylist" line 56 s before it). Only a
    line new in the window (none in the baseline), of the cause's own service, within
    :data:`STORY_LEAD` before its first failure, not an access line, not flagged; and only when
    it is the one such line — two are no story, and nothing is added. It is quoted as what came
    before, not as the cause: its pattern and onset, cited.
    """
    start = moment(found.onset)  # (an unreadable time is the end of time: nothing before it)
    lines = [item for item in inv.items("onset_timeline")
             if item.get("kind") == "onset" and str(item.get("service")) == found.service
             and item.get("level") == "INFO" and item.get("change") == "new" and not flagged(item)
             and not ACCESS_LINE.search(str(item.get("pattern", "")))
             and start - STORY_LEAD <= moment(item.get("onset")) < start]
    return lines[0] if len(lines) == 1 else None


def metric_words(item: dict[str, Any]) -> str:
    """A metric shift in the tool's own values: entity, metric, direction, onset, medians."""
    return (f"{item['entity']} {item['metric']} {item['direction']} from {item['first_out']} "
            f"(median {item['baseline_median']:g} -> {item['window_median']:g})")


FULL_DISK = re.compile(r"no space left on device|\bENOSPC\b|disk (?:is )?full|filesystem (?:is )?full",
                       re.I)
"""A component whose disk is full fails because something filled it — a replication slot no one
consumes, a job's output, logs: measured on two blind worlds (a dead CDC slot behind postgres'
pg_wal, twice), "No space left on device" was published as the cause, an intermediate one. A
change that explains it (a reserved-space setting lowered) still concludes."""


def localized_draft(inv: Investigation) -> dict[str, Any] | None:
    """The draft concluding on the localized failure, or None when the timeline is ambiguous."""
    found = localized(inv)
    if found is None:
        return None
    row = found.row
    change = explaining_change(inv, found)
    metric = resource_shift(inv, found) if found.warning_only and change is None else None
    if found.warning_only and change is None and metric is None:
        return None  # warnings only, nothing that explains them: no cause to publish
    if change is None and any(FULL_DISK.search(str(r.get("pattern", "")))
                              for r in (found.row, found.first) if r is not None):
        return None  # a full disk: what filled it is the cause, and only a change may say
    if found.service == inv.scope.service and found.dependency is None and change is None:
        return None  # the asked service's own failure, naming nothing else: the symptom again
    if change is None and any(item.get("kind") == "change" and item.get("service") == found.service
                              and not _is_config(item)
                              for item in inv.items("recent_changes", lookback_minutes=None)):
        # Something changed on the failing component just before it failed (a deploy, a job)
        # and its logs do not say whether that is why: from logs alone the cause is open.
        # (Publishing the failure with the change beside it was measured on a world nobody had
        # tuned to: a release 2 minutes before a new NullPointerException was the cause, and
        # was left out of it; a proxy's refusals were published as the pushing service's.)
        # A config change says what it changed: one the failure's words do not name is not
        # why (``explaining_change``), and leaves nothing open.
        return None
    if change is None and metric is None and not names_mechanism([found.row, found.first]):
        return None  # a generic failure line restated is a suspect, not a root cause
    claims = [{"statement": f"{found.service} logged {row['window_count']} {row['level']} "
                            f"events '{row['pattern']}' from {row['onset']}",
               "evidence_ids": [row["evidence_id"]]}]
    if found.first is not None:
        first = found.first
        claims.append({"statement": f"{found.service} logged {first['window_count']} "
                                    f"{first['level']} events '{first['pattern']}' from "
                                    f"{first['onset']} before that",
                       "evidence_ids": [first["evidence_id"]]})
    for other in found.consistent[:MAX_DOWNSTREAM]:
        claims.append({"statement": f"then {other['service']} {other['level']} from "
                                    f"{other['onset']}: '{other['pattern']}'",
                       "evidence_ids": [other["evidence_id"]]})
    story = story_line(inv, found)
    if story is not None:
        claims.append({"statement": f"{found.service} logged INFO '{story['pattern']}' from "
                                    f"{story['onset']} before that",
                       "evidence_ids": [story["evidence_id"]]})
    if change is not None:
        claims.append({"statement": f"row {describe_row(change['row'])}",
                       "evidence_ids": [change["evidence_id"]]})
    cause = sentence(found, change, story)
    if metric is not None:
        said = metric_words(metric)
        claims.append({"statement": said, "evidence_ids": [metric["evidence_id"]]})
        cause += f", with {said}"
    return {"conclusion": {"root_cause": cause, "claims": claims},
            "next_steps": [f"check {found.dependency or found.service} first", *NEXT_STEPS[:1]]}
