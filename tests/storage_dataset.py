"""A small storage world of our own (HDFS-like, written here): traps for the causal rule.

Services ``datanode``, ``namenode`` and ``billing`` log healthy lines every 2 minutes; one
12-line runbook speaks of full DataNode volumes and of ``dfs`` settings; ``config_changes``
holds the changes. Three days, one case each (+00:00):

- DFS (day 1, 10:00–10:20): a DataNode volume fills; the hour before holds three ``dfs.*``
  changes of the datanode that have nothing to do with space (replication, block size, handler
  count). They share the namespace ``dfs`` with the runbook and the log lines — no more: FALLBACK.
- CRON (day 2, 14:00–14:20): the disk fills; the only change of the hour is *billing*'s
  ``disk.cleanup.cron`` ("disk", "cleanup" are the runbook's words too). Another service, no
  link in the data: FALLBACK.
- RESERVED (day 3, 08:00–08:20): the disk fills after ``dfs.datanode.du.reserved`` was set to 0
  on the datanode, the key the runbook names: SUCCESS (the rule still lets a real cause through).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from datasetkit import write_dataset

CASES: dict[str, dict[str, Any]] = {
    "DFS": {"question": "datanode block writes failing between 10:00 and 10:20 on 2026-09-01 "
                        "— what is the root cause?", "expected": "FALLBACK"},
    "CRON": {"question": "datanode write errors between 14:00 and 14:20 on 2026-09-02 — why?",
             "expected": "FALLBACK"},
    "RESERVED": {"question": "datanode write errors between 08:00 and 08:20 on 2026-09-03 — why?",
                 "expected": "SUCCESS", "key": "dfs.datanode.du.reserved"},
}
SYSTEM_WIDE = "Something broke in the cluster between 08:00 and 08:20 on 2026-09-03 — what is the root cause?"
"""A question that names no service, only the system and a window."""


def _t(day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(2026, 9, day, hour, minute, second, tzinfo=UTC)


def _full_disk(day: int, hour: int, minute: int, n: int, *, says_disk: bool = False
               ) -> list[dict[str, Any]]:
    reason = ("disk full on volume /data/3" if says_disk
              else "java.io.IOException: No space left on device (volume /data/3 full)")
    return [{"ts": (_t(day, hour, minute, 5) + timedelta(seconds=20 * i)).isoformat(),
             "service": "datanode", "level": "ERROR",
             "message": f"dfs.DataNode$DataXceiver: writeBlock blk_{7000 + i} received exception "
                        f"{reason}, no space left on device"}
            for i in range(n)]


def _logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for day in (1, 2, 3):
        for minute in range(6 * 60, 18 * 60, 2):
            ts = (_t(day, 0, 0) + timedelta(minutes=minute)).isoformat()
            out += [{"ts": ts, "service": "datanode", "level": "INFO",
                     "message": f"dfs.DataNode: heartbeat ok, {40 + minute % 9} blocks reported"},
                    {"ts": ts, "service": "namenode", "level": "INFO",
                     "message": "dfs.NameNode: safe mode off, live datanodes 3"},
                    {"ts": ts, "service": "billing", "level": "INFO",
                     "message": f"invoice batch {minute} posted"}]
    out += _full_disk(1, 10, 2, 30) + _full_disk(2, 14, 3, 30, says_disk=True) + _full_disk(3, 8, 4, 30)
    out.sort(key=lambda e: e["ts"])
    return out


CHANGES = [
    ["change_id", "service", "config_key", "old_value", "new_value", "changed_by", "changed_at"],
    ["CH-11", "datanode", "dfs.replication", "3", "2", "ops-a", "2026-09-01T09:20:00Z"],
    ["CH-12", "datanode", "dfs.blocksize", "134217728", "268435456", "ops-a",
     "2026-09-01T09:35:00Z"],
    ["CH-13", "datanode", "dfs.namenode.handler.count", "10", "20", "ops-b",
     "2026-09-01T09:50:00Z"],
    ["CH-21", "billing", "disk.cleanup.cron", "0 * * * *", "0 3 * * *", "ops-c",
     "2026-09-02T13:30:00Z"],
    ["CH-31", "datanode", "dfs.datanode.du.reserved", "10737418240", "0", "ops-a",
     "2026-09-03T07:40:00Z"],
]

RUNBOOK = """# DataNode volume full

## Symptoms
Block writes fail on a DataNode: writeBlock exceptions, IOException No space left on device.
The disk of one volume is full (often a cleanup cron stopped running); no blocks are accepted.

## How to confirm
Look for dfs settings changed on the DataNode in the hour before the first error, in
particular dfs.datanode.du.reserved set too low.

## Mitigation
Restore the reserved space, free the volume, and restart the DataNode.
"""


def write_storage_dataset(root: Path) -> Path:
    """Write the dataset folder under ``root`` and return it."""
    return write_dataset(root, "storage-test", "storage traps", _logs(),
                         tables={"config_changes": CHANGES},
                         knowledge={"datanode-volume-full.md": RUNBOOK})
