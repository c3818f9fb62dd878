"""A small cache world of our own: a config reload cuts a cache's TTL and its hit rate falls.

``cache-service`` logs ``Cache hit for key: N`` every minute with its hit rate and TTL as
attributes (not in the message); at 10:58 change ``CC-7`` sets ``cache.ttl`` from 3600 to 60;
from 11:02 it logs 49 warnings ``Performance degradation detected``. One day, 2026-10-05 (UTC).
The report tests cite these through ``query_logs`` and ``recent_changes``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from datasetkit import write_dataset

QUESTION = "cache-service slow between 11:00 and 11:30 on 2026-10-05 — why?"
WINDOW = {"service": "cache-service", "start": "2026-10-05T10:30:00Z",
          "end": "2026-10-05T11:30:00Z"}
CHANGES = [
    ["change_id", "service", "config_key", "old_value", "new_value", "changed_by", "changed_at"],
    ["CC-7", "cache-service", "cache.ttl", "3600", "60", "deploy-bot", "2026-10-05T10:58:00Z"],
]


def _logs() -> list[dict[str, Any]]:
    start = datetime(2026, 10, 5, 10, 30, tzinfo=UTC)
    out = [{"ts": (start + timedelta(minutes=m)).isoformat(), "service": "cache-service",
            "level": "INFO", "message": f"Cache hit for key: {5200 + m}",
            "attrs": {"hit_rate": 85 if m < 28 else 12, "ttl": 3600 if m < 28 else 60,
                      "node": "cache-1"}}
           for m in range(0, 60)]
    onset = datetime(2026, 10, 5, 11, 2, tzinfo=UTC)
    out += [{"ts": (onset + timedelta(seconds=30 * i, milliseconds=250)).isoformat(),
             "service": "cache-service", "level": "WARN",
             "message": "Performance degradation detected", "attrs": {"hit_rate": 12}}
            for i in range(49)]
    return sorted(out, key=lambda e: e["ts"])


def write_cache_world(root: Path) -> Path:
    """Write the dataset folder under ``root`` and return it."""
    return write_dataset(root, "cache-test", "a cache TTL cut", _logs(),
                         tables={"config_changes": CHANGES},
                         knowledge={"cache-ttl.md": "# Cache TTL\n\n## Symptoms\n"
                                                    "Hit rate falls when the TTL is cut.\n"})
