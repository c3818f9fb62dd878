"""Benchmark the statistics tools on 1,000,000 log events, next to ``query_logs`` (not a test).

Writes a built dataset directly (the log store's own schema, every event's pattern computed
by the build's ``pattern_of``; FTS left empty, as no call here filters on words): N events
(default 1,000,000) over two days from 12 services, one incident (a new ERROR pattern on one
service, a deploy before it, one host's metric leaving its baseline), a per-minute metrics
table and a dependency table. Then times each tool through the full boundary
(``execute_tool``), on windows of ``--minutes`` (default 30; 1440, a whole day, is the
longest) at random places. Target: p95 <= 100 ms per tool.

    .venv/bin/python scripts/bench_statistics.py [--events 1000000] [--queries 100] [--minutes 30]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.examples import describe_logs
from diagnosis_harness.tools.dataset.layout import (
    BUILD_MANIFEST,
    LOGS_DB,
    LOGS_INDEXES,
    LOGS_SCHEMA,
    OPS_DB,
    PATTERN_HOURS,
    PATTERN_MINUTES,
    SCHEMA_VERSION,
    DatasetInfo,
)
from diagnosis_harness.tools.dataset.patterns import pattern_of
from diagnosis_harness.tools.timeutil import format_utc

# scripts/_bench.py, beside this file, however it is loaded (a test loads it by its path)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench import measure, report  # noqa: E402

START = datetime(2026, 3, 2, tzinfo=UTC)
DAYS = 2
SERVICES = [f"svc-{i:02d}" for i in range(12)]
INCIDENT = START + timedelta(hours=30, minutes=7)
"""svc-03 starts failing here (its dependency svc-07 calls it)."""
TEMPLATES = [
    ("INFO", "request {id} served in {n} ms merchant=M{m}"),
    ("INFO", "payment pay_{id} authorized merchant=M{m} amount={n}.00 EUR"),
    ("INFO", "cache hit ratio {n} percent for shard {m}"),
    ("DEBUG", "retry budget remaining {n} for client {id}"),
    ("WARN", "slow query {n} ms on table orders_{m}"),
    ("ERROR", "upstream acquirer timeout after {n} ms merchant=M{m}"),
]
WEIGHTS = [40, 30, 15, 8, 5, 2]


def build(dest: Path, events: int, rng: random.Random) -> Path:
    """A built dataset directory with ``events`` log events (module docstring)."""
    dest.mkdir(parents=True)
    span_ms = DAYS * 86_400_000
    start_ms = int(START.timestamp() * 1000)
    incident_ms = int(INCIDENT.timestamp() * 1000)
    ids: dict[str, int] = {}

    def rows():  # noqa: ANN202 — a generator of the events table's rows
        step = span_ms / events
        for k in range(events):
            ts = start_ms + int(k * step)
            service = SERVICES[k % len(SERVICES)]
            if service == "svc-03" and incident_ms <= ts < incident_ms + 600_000 and k % 3 == 0:
                level = "ERROR"
                message = f"connection refused by ledger-db:5432 for txn {rng.randrange(16**8):x}"
            else:
                level, template = rng.choices(TEMPLATES, weights=WEIGHTS)[0]
                message = template.format(id=rng.randrange(16**8), n=rng.randrange(5000),
                                          m=rng.randrange(1000, 1100))
            pattern = ids.setdefault(pattern_of(message), len(ids) + 1)
            yield (k + 1, ts, service, level, message, None, k + 1, pattern)

    with closing(sqlite3.connect(dest / LOGS_DB, isolation_level=None)) as conn:
        conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + LOGS_SCHEMA)
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows())
        conn.executemany("INSERT INTO patterns(id, text) VALUES (?, ?)",
                         [(i, t) for t, i in ids.items()])
        conn.execute("COMMIT")
        conn.executescript(LOGS_INDEXES)
        conn.executescript(PATTERN_MINUTES)
        conn.executescript(PATTERN_HOURS)
        conn.execute("ANALYZE")
        log_stats = describe_logs(conn)
    _ops(dest / OPS_DB, rng)
    (dest / "knowledge.sqlite").touch()
    with closing(sqlite3.connect(dest / "knowledge.sqlite")) as conn:
        conn.executescript("CREATE TABLE passages (id INTEGER PRIMARY KEY, doc_id TEXT, "
                           "title TEXT, section TEXT, body TEXT, line INTEGER);")
    info = DatasetInfo(name="bench-statistics", description="", fingerprint="bench",
                       tables=("deploys", "host_metrics", "service_calls"), documents=0,
                       passages=0, **log_stats)
    manifest = {"schema_version": SCHEMA_VERSION, **info.to_json()}
    (dest / BUILD_MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return dest


def _ops(path: Path, rng: random.Random) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.executescript(
            "CREATE TABLE host_metrics (sampled_at TEXT, host TEXT, cpu_pct REAL, "
            "conn_active INTEGER); CREATE TABLE deploys (deployed_at TEXT, service TEXT, "
            "version TEXT); CREATE TABLE service_calls (caller TEXT, callee TEXT);")
        conn.execute("BEGIN")
        metrics = []
        for minute in range(DAYS * 1440):
            moment = START + timedelta(minutes=minute)
            for host in SERVICES:
                busy = host == "svc-03" and INCIDENT <= moment < INCIDENT + timedelta(minutes=10)
                metrics.append((format_utc(moment), host, round(rng.uniform(20, 30), 2),
                                100 if busy else rng.randrange(28, 36)))
        conn.executemany("INSERT INTO host_metrics VALUES (?, ?, ?, ?)", metrics)
        deploys = [(format_utc(START + timedelta(minutes=rng.randrange(DAYS * 1440))),
                    rng.choice(SERVICES), f"1.{i}") for i in range(500)]
        deploys.append((format_utc(INCIDENT - timedelta(minutes=4)), "svc-03", "2.0"))
        conn.executemany("INSERT INTO deploys VALUES (?, ?, ?)", deploys)
        conn.executemany("INSERT INTO service_calls VALUES (?, ?)",
                         [(SERVICES[i], SERVICES[(i + 4) % len(SERVICES)])
                          for i in range(len(SERVICES))])
        conn.execute("COMMIT")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--minutes", type=int, default=30, help="window length")
    args = parser.parse_args()
    rng = random.Random(7)
    settings = Settings(_env_file=None, max_tool_calls=10_000, max_run_bytes=2**30)  # the ceilings
    with tempfile.TemporaryDirectory(prefix="bench-stats-") as tmp:
        began = time.perf_counter()
        dest = build(Path(tmp) / "built", args.events, rng)
        print(f"built {args.events} events in {time.perf_counter() - began:.1f} s")

        def window() -> dict[str, object]:
            start = START + timedelta(minutes=rng.randrange(60, DAYS * 1440 - args.minutes))
            return {"start": format_utc(start),
                    "end": format_utc(start + timedelta(minutes=args.minutes))}

        n = args.queries
        with Backends.open(dest) as backends:
            measure(backends, settings, [("compare_windows", window()) for _ in range(5)])
            label = f"{args.minutes} min"
            report(f"query_logs (1 service, {label}) [reference]", measure(backends, settings, [
                ("query_logs", {**window(), "service": rng.choice(SERVICES)})
                for _ in range(n)]), None)
            report(f"compare_windows (all services, {label})", measure(backends, settings, [
                ("compare_windows", window()) for _ in range(n)]), 100)
            report(f"compare_windows (1 service, {label})", measure(backends, settings, [
                ("compare_windows", {**window(), "service": rng.choice(SERVICES)})
                for _ in range(n)]), 100)
            report(f"onset_timeline (all services, {label})", measure(backends, settings, [
                ("onset_timeline", window()) for _ in range(n)]), 100)
            report(f"metric_shifts (all tables, {label})", measure(backends, settings, [
                ("metric_shifts", window()) for _ in range(n)]), 100)
            report("recent_changes (60 min look-back)", measure(backends, settings, [
                ("recent_changes", {"before": window()["end"]}) for _ in range(n)]), 100)


if __name__ == "__main__":
    main()
