"""``kubectl get events -o json`` as log records: one record per Kubernetes Event.

A List or EventList document (or one Event per JSON line) of core/v1 events (``involvedObject``,
``lastTimestamp``) or events.k8s.io/v1 ones (``regarding``, ``note``, ``eventTime``). The event's
type is its level (``Warning`` → WARN, ``Normal`` → INFO, the original kept), its reason leads the
message (``BackOff: Back-off restarting failed container``), and the object it is about becomes
attributes. The service is the object's ``app`` label when the event carries one, else the
object's name without the hashes Kubernetes appends to pods and ReplicaSets
(``checkout-api-7d9f8b6c5-x2kqp`` → ``checkout-api``), so events line up with the service's logs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Record = tuple[dict[str, Any], Any, str | None]
_TIME_KEYS = ("lastTimestamp", "eventTime", "deprecatedLastTimestamp", "firstTimestamp",
              "deprecatedFirstTimestamp")
"""Where an event's time is, most telling first: when it last happened, then when it started."""
_APP_LABELS = ("app.kubernetes.io/name", "app", "k8s-app", "app.kubernetes.io/instance")
_HASH = "[bcdfghjklmnpqrstvwxz2456789]"  # the alphabet of Kubernetes' generated name suffixes
_POD_SUFFIX = re.compile(rf"-{_HASH}{{5}}\Z")
_TEMPLATE_HASH = re.compile(rf"-(?:{_HASH}{{6,10}}|\d{{8,10}})\Z")  # ReplicaSet hash, CronJob run
_ORDINAL = re.compile(r"-\d+\Z")  # StatefulSet pods
_CONTAINER = re.compile(r"spec\.(?:init|ephemeral)?[cC]ontainers\{([^}]+)\}")
SERVICE_NOTE = ("levels from the event type (Warning WARN, Normal INFO); service from the event's "
                "app label, else the involved object's name without its pod/ReplicaSet hash")


def is_event(obj: dict[str, Any]) -> bool:
    """True for one Event object or a List/EventList of them."""
    if obj.get("kind") in ("Event", "EventList"):
        return True
    items = obj.get("items")
    if obj.get("kind") == "List" and isinstance(items, list) and items:
        return isinstance(items[0], dict) and is_event(items[0])
    return ("involvedObject" in obj or "regarding" in obj) and "reason" in obj


def event_records(obj: dict[str, Any]) -> Iterator[Record]:
    """The records of one Event, List or EventList."""
    items = obj.get("items")
    if isinstance(items, list):
        for item in items:
            if not isinstance(item, dict):
                raise ValueError("an item of the event list is not an object")
            yield event_record(item)
        return
    yield event_record(obj)


def event_record(event: dict[str, Any]) -> Record:
    """One Event as ``(fields, time, message)``."""
    meta = _dict(event.get("metadata"))
    about = _dict(event.get("involvedObject") or event.get("regarding"))
    series = _dict(event.get("series"))
    source = _dict(event.get("source"))
    ts = next((event[k] for k in _TIME_KEYS if event.get(k)), None) \
        or series.get("lastObservedTime") or meta.get("creationTimestamp")
    reason = str(event.get("reason") or "").strip()
    text = str(event.get("message") or event.get("note") or "").strip()
    kind, name = str(about.get("kind") or ""), str(about.get("name") or "")
    fields: dict[str, Any] = {
        "level": event.get("type") or None,
        "service": _service(_dict(meta.get("labels")), kind, name),
        "reason": reason or None,
        "count": event.get("count") or series.get("count") or event.get("deprecatedCount"),
        "object_kind": kind or None,
        "object_name": name or None,
        "namespace": about.get("namespace") or meta.get("namespace"),
        "component": source.get("component") or event.get("reportingComponent")
                     or event.get("reportingController"),
        "host": source.get("host") or event.get("reportingInstance"),
    }
    if kind in ("Pod", "Node"):
        fields[kind.lower()] = name
    container = _CONTAINER.search(str(about.get("fieldPath") or ""))
    if container:
        fields["container"] = container.group(1)
    fields = {k: v for k, v in fields.items() if v not in (None, "")}
    return fields, ts, f"{reason}: {text}" if reason and text else (text or reason or None)


def _service(labels: dict[str, Any], kind: str, name: str) -> str | None:
    label = next((str(labels[k]) for k in _APP_LABELS if labels.get(k)), None)
    if label or not name:
        return label
    if kind == "Pod":
        base = _POD_SUFFIX.sub("", name)
        if base != name:
            return _TEMPLATE_HASH.sub("", base)
        return _ORDINAL.sub("", name)
    if kind == "ReplicaSet":
        return _TEMPLATE_HASH.sub("", name)
    return name


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
