"""A small world whose metrics come as monitoring exports do: long tables, one row per sample.

A web shop of three services on 2026-09-20 (UTC), not the demo's and not a benchmark's. Healthy
INFO traffic every 30 s everywhere; from 10:06 ``web`` logs warnings that its calls to ``cart``
are slow, and ``checkout`` logs errors that ``cart`` took past its deadline: both wait on
something slow, which the logs do not name. The metrics say what it is:

- ``metric_container(timestamp, cmdb_id, kpi_name, value)``, epoch seconds, one row per minute,
  container and KPI (``cpu_usage`` ~20, ``mem_usage`` ~40, ``net_recv`` ~1000): from 10:05
  ``cart-0``'s ``mem_usage`` climbs to 95 and stays there — the only series that moves. Read as
  one series per container (the old reading), the three KPIs' values mix and nothing is judged
  right;
- ``pod_metrics(time, pod, metric, value)``, ISO times, ``restarts`` and ``threads`` per pod:
  flat;
- ``queue_metrics(ts, queue, depth)``, a wide table whose one text column is the queue: flat.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from stats_world import iso

from diagnosis_harness import write_dataset

DAY = datetime(2026, 9, 20, tzinfo=UTC)
SERVICES = ("web", "cart", "checkout")
CONTAINERS = ("web-0", "cart-0", "checkout-0")
WINDOW = ("2026-09-20T10:00:00Z", "2026-09-20T10:20:00Z")
QUESTION = "Something is wrong in the shop between 10:00 and 10:20 UTC on 2026-09-20 — which component?"


def at(hour: int, minute: int, second: int = 0) -> datetime:
    return DAY.replace(hour=hour, minute=minute, second=second)


def logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t, k = at(8, 0), 0
    while t < at(11, 0):
        for svc in SERVICES:
            out.append({"ts": iso(t), "service": svc, "level": "INFO",
                        "message": f"GET /healthz 200 in {3 + k % 5} ms req={k:06x}{svc[:2]}"})
        t += timedelta(seconds=30)
        k += 1
    for i in range(30):
        moment = at(10, 6) + timedelta(seconds=20 * i)
        out.append({"ts": iso(moment), "service": "web", "level": "WARN",
                    "message": f"slow response from cart: {2100 + 7 * i} ms for /cart/items"})
        out.append({"ts": iso(moment + timedelta(seconds=3)), "service": "checkout",
                    "level": "ERROR", "message": f"cart lookup failed: context deadline exceeded "
                    f"order=o-{5100 + i}"})
    return out


def tables() -> dict[str, list[dict[str, Any]]]:
    container: list[dict[str, Any]] = []
    pods: list[dict[str, Any]] = []
    queues: list[dict[str, Any]] = []
    t, k = at(8, 0), 0
    while t < at(11, 0):
        epoch = int(t.timestamp())
        for n, name in enumerate(CONTAINERS):
            wiggle = (k * 7 + 3 * n) % 5
            mem = 40 + wiggle
            if name == "cart-0" and t >= at(10, 5):
                mem = min(95, 60 + 5 * ((t - at(10, 5)).seconds // 60))
            for kpi, value in (("cpu_usage", 20 + wiggle), ("mem_usage", mem),
                               ("net_recv", 1000 + 10 * wiggle)):
                container.append({"timestamp": epoch, "cmdb_id": name, "kpi_name": kpi,
                                  "value": value})
            for metric, value in (("restarts", 0), ("threads", 64 + wiggle)):
                pods.append({"time": iso(t), "pod": name, "metric": metric, "value": value})
        for queue in ("orders", "emails"):
            queues.append({"ts": iso(t), "queue": queue, "depth": 5 + (k + len(queue)) % 4})
        t += timedelta(minutes=1)
        k += 1
    return {"metric_container": container, "pod_metrics": pods, "queue_metrics": queues}


CHANGE_LOGS = ("deploys", "config_changes", "job_runs", "cert_rotations", "schema_migrations",
               "flag_changes")
"""Change logs a team keeps, each with one row the day before: nothing of them is the cause."""


def write(directory: Path, change_logs: bool = False) -> Path:
    """The world's dataset folder (with :data:`CHANGE_LOGS` too, when asked)."""
    extra = {name: [{"id": f"{name[:3].upper()}-1", "service": "web",
                     "changed_at": iso(DAY - timedelta(hours=20)), "status": "done"}]
             for name in CHANGE_LOGS} if change_logs else {}
    return write_dataset(directory, logs=logs(), tables={**tables(), **extra},
                         name="long-metrics")
