"""Benchmark the evidence tools on a large synthetic dataset (not a test).

Generates N log events (default 1,000,000), M runbook passages (default 5,000) and an
operational table, loads them with ``diagnosis_harness.tools.dataset.build.load_dataset`` and times each tool
through
the full boundary (``execute_tool``: validation, query, projection, byte caps), which is what a
run pays. Targets: p95 <= 50 ms for query_logs on a one-service ten-minute window, <= 20 ms for
lookup_knowledge.

    /work/venv/bin/python scripts/bench_tools.py [--events 1000000] [--passages 5000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset

# scripts/_bench.py, beside this file, however it is loaded (a test loads it by its path)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402
from _bench import measure  # noqa: E402

START = datetime(2026, 3, 2, tzinfo=UTC)
TEMPLATES = [
    ("INFO", "request {id} served in {n} ms merchant=M{m}"),
    ("INFO", "payment pay_{id} authorized merchant=M{m} amount={n}.00 EUR"),
    ("INFO", "cache hit ratio {n} percent for shard {m}"),
    ("INFO", "ledger entry posted payment_id=pay_{id} entry_id=le-{n}"),
    ("DEBUG", "retry budget remaining {n} for client {id}"),
    ("WARN", "slow query {n} ms on table orders_{m}"),
    ("WARN", "connection pool nearly exhausted (active={n}, max=50)"),
    ("ERROR", "Timeout waiting for connection from pool after {n} ms"),
    ("ERROR", "upstream acquirer timeout after {n} ms merchant=M{m}"),
    ("ERROR", "TLS handshake failed with peer {id}: certificate expired"),
]
WEIGHTS = [30, 25, 10, 20, 5, 4, 2, 2, 1, 1]
WORDS = ("pool connection timeout retry ledger acquirer certificate expired handshake deploy "
         "rollback config latency queue lock batch reconciliation risk rule threshold velocity "
         "merchant payment refund settlement webhook gateway cache shard replica failover dns "
         "disk memory cpu kafka consumer lag throttle quota token oauth session cookie").split()


def generate(root: Path, events: int, services: int, days: int, passages: int,
             rng: random.Random) -> None:
    root.mkdir(parents=True)
    span_ms = days * 86_400_000
    names = [f"svc-{i:02d}" for i in range(services)]
    with (root / "logs.jsonl").open("w", encoding="utf-8") as out:
        step = span_ms / events
        for k in range(events):
            ts = START + timedelta(milliseconds=int(k * step))
            level, template = rng.choices(TEMPLATES, weights=WEIGHTS)[0]
            message = template.format(id=rng.randrange(16**8), n=rng.randrange(5000),
                                      m=rng.randrange(1000, 1100))
            out.write(f'{{"ts": "{ts.isoformat(timespec="milliseconds")}", "service": '
                      f'"{rng.choice(names)}", "level": "{level}", "message": "{message}"}}\n')
    (root / "knowledge").mkdir()
    per_doc = 10
    for d in range(passages // per_doc):
        words = rng.sample(WORDS, 4)
        lines = [f"# Runbook {d}: {' '.join(words)}", "", "Intro " + " ".join(words)]
        for s in range(per_doc - 1):
            body = " ".join(rng.choice(WORDS + [f"term{rng.randrange(20000)}"] * 3)
                            for _ in range(60))
            lines += ["", f"## Section {s} {rng.choice(WORDS)}", "", body]
        (root / "knowledge" / f"rb-{d:04d}.md").write_text("\n".join(lines) + "\n")
    (root / "tables").mkdir()
    with (root / "tables" / "payments.csv").open("w", encoding="utf-8") as out:
        out.write("payment_id,merchant_id,created_at,status,latency_ms\n")
        for k in range(50_000):
            ts = START + timedelta(milliseconds=rng.randrange(span_ms))
            status = rng.choices(["AUTHORIZED", "FAILED", "DECLINED"], weights=[90, 7, 3])[0]
            out.write(f"p{k},M{rng.randrange(1000, 1100)},{ts:%Y-%m-%dT%H:%M:%SZ},{status},"
                      f"{rng.randrange(50, 3000)}\n")


report = partial(_bench.report, width=48)  # this script's labels are wider


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--services", type=int, default=12)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--passages", type=int, default=5_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    settings = Settings(_env_file=None, max_tool_calls=10_000, max_run_bytes=2**30)  # the ceilings
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as tmp:
        src, dest = Path(tmp) / "src", Path(tmp) / "built"
        began = time.perf_counter()
        generate(src, args.events, args.services, args.days, args.passages, rng)
        print(f"generated {args.events} events, {args.passages} passages "
              f"in {time.perf_counter() - began:.1f} s")
        began = time.perf_counter()
        info = load_dataset(src, dest).info
        print(f"loaded {info.events} events / {info.passages} passages "
              f"in {time.perf_counter() - began:.1f} s")

        def window() -> tuple[str, str]:
            start = START + timedelta(minutes=rng.randrange(args.days * 1440 - 10))
            return start.isoformat(), (start + timedelta(minutes=10)).isoformat()

        def logs_call(**extra: object) -> tuple[str, dict]:
            start, end = window()
            return "query_logs", {"service": rng.choice(info.services), "start": start,
                                  "end": end, **extra}

        n = args.queries
        with Backends.open(dest) as backends:
            measure(backends, settings, [logs_call() for _ in range(20)])  # warm the page cache
            report("query_logs (1 service, 10 min)",
                   measure(backends, settings, [logs_call() for _ in range(n)]), 50)
            report("query_logs (10 min, pattern 'timeout')",
                   measure(backends, settings, [logs_call(pattern="timeout") for _ in range(n)]),
                   50)
            report("query_logs (10 min, level ERROR)",
                   measure(backends, settings, [logs_call(level="ERROR") for _ in range(n)]), 50)
            queries = [{"query": " ".join(rng.sample(WORDS, rng.randint(2, 5)))}
                       for _ in range(n)]
            report("lookup_knowledge (2-5 words)",
                   measure(backends, settings, [("lookup_knowledge", q) for q in queries]), 20)
            sqls = [{"sql": f"SELECT status, count(*) AS n, avg(latency_ms) AS avg_ms FROM "
                            f"payments WHERE merchant_id = 'M{rng.randrange(1000, 1100)}' "
                            "GROUP BY status"} for _ in range(n // 3)]
            report("query_mysql (aggregate over 50k rows)",
                   measure(backends, settings, [("query_mysql", s) for s in sqls]), None)


if __name__ == "__main__":
    main()
