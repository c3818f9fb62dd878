"""Examples and filterable attributes taken from the loaded data, never from the demo.

The build records them in the dataset's info (:func:`describe_logs`); hints to the user
(:func:`context_hints`) and the tool description the model reads use them, so a user of their
own data is never told to ask about the demo's ``payment-service``.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from diagnosis_harness.tools.dataset.layout import DatasetInfo
from diagnosis_harness.tools.timeutil import format_epoch_ms

_MAX_ATTRIBUTES = 40
_SEVERE = ("WARN", "ERROR", "FATAL")
FUTURE_SLACK_S = 86_400.0
"""How far past the build's clock an event may be dated and still count as the latest one."""


def describe_logs(conn: sqlite3.Connection) -> dict[str, Any]:
    """The :class:`~diagnosis_harness.tools.dataset.layout.DatasetInfo` fields a built log store gives."""
    # "Now" for a question without a date is the latest event (docs/design.md §11). An event
    # dated after the build's own clock (a corrupt or skewed stamp, year 9999) cannot be the
    # latest real one: it is ignored for "now" unless every event is that late (made-up data).
    horizon_ms = int((time.time() + FUTURE_SLACK_S) * 1000)
    count, first_ms, last_ms, real_last_ms = conn.execute(
        "SELECT count(*), min(ts_ms), max(ts_ms), max(CASE WHEN ts_ms <= ? THEN ts_ms END) FROM events",
        (horizon_ms,)).fetchone()
    last_ms = real_last_ms if real_last_ms is not None else last_ms
    services = tuple(r[0] for r in conn.execute("SELECT DISTINCT service FROM events ORDER BY service"))
    severe = ", ".join("?" * len(_SEVERE))
    # Examples for hints come from this data: the service with the most warnings and errors.
    busiest = conn.execute(
        f"SELECT service FROM events GROUP BY service ORDER BY sum(level IN ({severe})) DESC, "
        "count(*) DESC, service LIMIT 1", _SEVERE).fetchone()
    attributes = conn.execute(
        "SELECT j.key, count(*), min(j.value) FROM events, json_each(events.attrs) AS j "
        "WHERE events.attrs IS NOT NULL AND j.type NOT IN ('object', 'array', 'null') "
        "GROUP BY j.key ORDER BY count(*) DESC, j.key LIMIT ?", (_MAX_ATTRIBUTES,)).fetchall()
    examples = {"service": busiest[0]} if busiest else {}
    if last_ms is not None:
        examples["date"] = format_epoch_ms(last_ms)[:10]
    merchant_key = next((k for k, _, _ in attributes if "merchant" in k.lower()), None)
    if merchant_key is not None:
        row = conn.execute(
            f"SELECT json_extract(attrs, ?) AS v FROM events WHERE level IN ({severe}) "
            "AND v IS NOT NULL GROUP BY v ORDER BY count(*) DESC, v LIMIT 1",
            (f'$."{merchant_key}"', *_SEVERE)).fetchone()
        if row:
            examples["merchant"] = str(row[0])
    return {
        "events": count, "services": services,
        "first_ts": format_epoch_ms(first_ms) if first_ms is not None else None,
        "latest_ts": format_epoch_ms(last_ms) if last_ms is not None else None,
        "attributes": tuple(k for k, _, _ in attributes),
        "attribute_examples": {k: str(v)[:60] for k, _, v in attributes},
        "examples": examples,
    }


def context_hints(info: DatasetInfo | None) -> dict[str, str]:
    """What to add to a question that lacks ``service``, ``merchant`` or ``window``.

    The examples come from ``info`` (the loaded dataset) where it has them.
    """
    examples = getattr(info, "examples", None) or {}
    service = examples.get("service")
    merchant = examples.get("merchant")
    day = examples.get("date")
    return {
        "service": "which service is affected" + (f" (e.g. {service})" if service else ""),
        "merchant": "which merchant is affected" + (f" (e.g. {merchant})" if merchant else ""),
        "window": "when it happened (e.g. between 10:00 and 10:10"
                  + (f" on {day})" if day else " today)"),
    }
