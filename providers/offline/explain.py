"""What the localized failure's explaining rules share, and the draft they write.

The decisions are the registry's ``EXPLAIN`` rules (``rules/__init__.py``, docs/design.md
§16.3): a change, an expiry, a rollout, a resource metric or the failure's own words explain
the failure the ``LOCATE`` rules found, or a rule abstains. This module holds the facts they
read — which change rows are rollouts or config changes, whether a failure names an endpoint,
the cause's one new INFO line just before — and :func:`draft`, which writes the conclusion.
Every claim cites the rows it is built from (the onset row, the consistent downstream rows,
the change row, the metric), so the evidence guard, the judge and release's re-computation of
the statistics verify them.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.causal import Symptom
from diagnosis_harness.providers.offline.conclusion import NEXT_STEPS, describe_row
from diagnosis_harness.providers.offline.failures import flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import (
    ACCESS_LINE,
    Explained,
    Localized,
    sentence,
)

MAX_DOWNSTREAM = 3
"""Consistent downstream failures quoted as corroboration."""


def symptom_of(found: Localized) -> Symptom:
    """The localized failure as the causal test reads it: its service, onset and words."""
    return Symptom(services=frozenset({found.service.lower()}), onset=found.onset,
                   text=f"{found.row.get('pattern', '')} {found.row.get('example', '')}")


def links_of(found: Localized) -> list[str]:
    """What ties a change to the failure beyond its service: the failure's own pattern."""
    return [f"{found.service} {found.row.get('pattern', '')}"]


def changes(inv: Investigation) -> list[dict[str, Any]]:
    """The change rows ``recent_changes`` returned before the failure (unflagged ones)."""
    return [item for item in inv.items("recent_changes", lookback_minutes=None)
            if item.get("kind") == "change" and "warning" not in item
            and isinstance(item.get("row"), dict)]


ROLLOUT_TABLE = re.compile(r"deploy|release|rollout|migration", re.I)
"""Tables of code rollouts (deploys, releases, migrations) — not job runs, not config changes.

A config change says what it changed, its key: if that is why, the failure's words name it
(the causal test). A rollout of code changes what no key says, so timing is its link."""
_ROLLOUT_COLUMN = re.compile(r"^(version|image|release|commit|revision|build)(_id)?$", re.I)
CONFIG_TABLE = re.compile(r"config|setting|flag|param", re.I)
"""Tables of configuration changes: each row names the key it changed."""


def is_rollout(item: dict[str, Any]) -> bool:
    """Whether a change row is a code rollout: its table's name, or a version-like column."""
    return ROLLOUT_TABLE.search(str(item.get("table", ""))) is not None or any(
        _ROLLOUT_COLUMN.match(str(k)) for k in item.get("row") or {})


def is_config(item: dict[str, Any]) -> bool:
    """Whether a change row is a config change (its table's name), not a rollout or a job."""
    return CONFIG_TABLE.search(str(item.get("table", ""))) is not None and not is_rollout(item)


URL_HOST = re.compile(r"\b(?:https?|grpcs?|wss?)://[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.I)
"""An endpoint a failure names by its URL (``… 503 Service Unavailable from
https://acme.okta.com/…/token``): where it failed, although no ``host:port``."""
CONNECT_ADDRESS = re.compile(r"\b(?:connect(?:ing|ion)?(?: to)?|dial(?:ing)?|connection to)\b"
                             r"[^\n]{0,40}?<ip>:<n>", re.I)
"""A connection to an address, masked (``connect EADDRNOTAVAIL <ip>:<n>``, ``dial tcp <ip>:<n>:
connection refused``): the failure names an endpoint as a ``host:port`` does, and whether a
rollout just before is why (how it connects) or the endpoint is (what answers) timing cannot
say (ephemeral ports exhausted by a new HTTP client without keep-alive)."""
STORE_REPLY = re.compile(r"\b(?:NoSuchKey|NoSuchBucket|NoSuchUpload|AccessDenied|SlowDown"
                         r"|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken"
                         r"|RequestTimeTooSkewed|InvalidObjectState)\b")
"""An object store's error code (the S3 API's, which radosgw, MinIO and GCS's XML API answer
too), quoted by its client: the failure names where it failed — a missing object, a denied or
throttled read — if not by the store's name (a "NoSuchKey" for objects a failed job never
wrote)."""


def names_endpoint(row: dict[str, Any]) -> bool:
    """Whether a failure row names where it failed: a URL's host, an address, a store's code."""
    pattern = str(row.get("pattern", ""))
    return any(p.search(pattern) for p in (STORE_REPLY, URL_HOST, CONNECT_ADDRESS))


STORY_LEAD = timedelta(minutes=2)
"""How long before the cause's first failure its own new INFO line is what it was doing."""


def story_line(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The cause's one new INFO line just before it failed: what it was doing, in its words.

    A component fails *while* doing something its INFO lines say — loading a denylist ten times
    its usual size, starting a repair, applying a migration — and that is what the on-call
    engineer needs beside the error (an "OutOfMemoryError: Java heap space" without the
    "loaded device denylist" line 56 s before it says what, not while doing what). Only a
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


def draft(inv: Investigation, found: Localized, why: Explained) -> dict[str, Any]:
    """The draft concluding on the localized failure and what explains it."""
    row, change, metric = found.row, why.change, why.metric
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
