"""A small hand-made world for the statistics tools' tests (not the demo's, not a benchmark's).

A shop of four services on 2026-09-14 (UTC). Healthy INFO traffic every 30 s everywhere, and
``web`` always logs one WARN a minute (the noisy one). From 10:00 the window holds:

- 10:04:10 ``ledger-db`` starts refusing connections (new ERROR, the root);
- 10:05:00 ``payments`` (which calls ledger-db) times out talking to ``ledger-db:5432``;
- 10:06:00 ``web`` (which calls payments) sees 502s — its old WARN also rises sharply;
- ``search`` is untouched.

Tables: ``service_calls(caller, callee)`` dependency edges; ``host_metrics(sampled_at, host,
cpu_pct, conn_active)`` every minute (ledger-db's conn_active leaves its baseline at 10:04);
``deploys(deployed_at, service, version)`` with a ledger-db deploy at 09:58 and a search deploy
at 08:00; ``merchants`` (no time column: no kind).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from diagnosis_harness import write_dataset

DAY = datetime(2026, 9, 14, tzinfo=UTC)
SERVICES = ("web", "payments", "ledger-db", "search")
WINDOW = ("2026-09-14T10:00:00Z", "2026-09-14T10:15:00Z")


def at(hour: int, minute: int, second: int = 0) -> datetime:
    return DAY.replace(hour=hour, minute=minute, second=second)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t, end = at(8, 0), at(11, 0)
    k = 0
    while t < end:
        for svc in SERVICES:
            out.append({"ts": iso(t), "service": svc, "level": "INFO",
                        "message": f"GET /healthz 200 in {3 + k % 5} ms req={k:06x}{svc[:2]}"})
        if t.second == 0:
            out.append({"ts": iso(t), "service": "web", "level": "WARN",
                        "message": f"slow upstream response {200 + k % 90} ms"})
        t += timedelta(seconds=30)
        k += 1
    for i in range(40):  # ledger-db refuses, from 10:04:10
        out.append({"ts": iso(at(10, 4, 10) + timedelta(seconds=15 * i)), "service": "ledger-db",
                    "level": "ERROR", "message": f"too many connections (max_connections=100) "
                    f"client 10.0.4.{i % 9}:{40000 + i}"})
    for i in range(30):  # payments times out on its dependency, from 10:05
        out.append({"ts": iso(at(10, 5) + timedelta(seconds=20 * i)), "service": "payments",
                    "level": "ERROR", "message": f"timeout after 3000ms calling ledger-db:5432 "
                    f"for payment pay_{9000 + i}"})
    for i in range(45):  # web sees 502s from 10:06, and its slow WARN rises
        moment = at(10, 6) + timedelta(seconds=12 * i)
        out.append({"ts": iso(moment), "service": "web", "level": "ERROR",
                    "message": f"upstream payments returned 502 for order o-{7000 + i}"})
        out.append({"ts": iso(moment + timedelta(seconds=5)), "service": "web", "level": "WARN",
                    "message": f"slow upstream response {2500 + i} ms"})
    return out


def tables() -> dict[str, list[dict[str, Any]]]:
    metrics = []
    t = at(8, 0)
    k = 0
    while t < at(11, 0):
        for host in ("ledger-db", "payments"):
            busy = host == "ledger-db" and at(10, 4) <= t <= at(10, 20)
            metrics.append({"sampled_at": iso(t), "host": host,
                            "cpu_pct": 20 + (k * 7 + len(host)) % 9,
                            "conn_active": (100 if busy else 30 + k % 5)})
        t += timedelta(minutes=1)
        k += 1
    return {
        "service_calls": [{"caller": "web", "callee": "payments"},
                          {"caller": "payments", "callee": "ledger-db"},
                          {"caller": "web", "callee": "search"}],
        "host_metrics": metrics,
        "deploys": [{"deployed_at": iso(at(9, 58)), "service": "ledger-db", "version": "14.2"},
                    {"deployed_at": iso(at(8, 0)), "service": "search", "version": "3.1.0"},
                    {"deployed_at": iso(at(10, 30)), "service": "web", "version": "8.8"}],
        "merchants": [{"merchant_id": "M1", "name": "Acme"}],
    }


def write(directory: Path) -> Path:
    """The world's dataset folder."""
    return write_dataset(directory, logs=logs(), tables=tables(), name="stats-world")
