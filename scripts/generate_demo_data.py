"""Generate the demo dataset (a small payments platform, one business week, six incidents).

Deterministic: ``python scripts/generate_demo_data.py`` rewrites ``logs.jsonl``, ``tables/*.csv``
and ``dataset.json`` byte-for-byte identically; the generated files are committed. Its inputs are
plain data: ``scripts/demo_world.json`` (merchants, the static tables: deploys, config changes,
certificates, jobs) and ``tools/demo_data/truth.json`` (the incidents, hand-written, with how
each cause is found), which names the incidents whose traffic this script simulates. The
runbooks in ``knowledge/`` are written by hand too.

Traffic runs 08:00-18:00 UTC, 2026-11-02 (Mon) to 2026-11-06 (Fri). Every incident leaves its
cause in the data (a config change, a deploy, an upstream, a certificate, a rule, a batch job)
next to plausible distractors: deploys and config changes that did not matter, a noisy but
harmless exporter error, and a night window with no events at all.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent / "tools" / "demo_data"
WORLD_FILE = Path(__file__).resolve().parent / "demo_world.json"
TRUTH_FILE = HERE / "truth.json"


def at(day: int, hhmm: str, sec: float = 0.0) -> datetime:
    """A moment on 2026-11-<day> (UTC)."""
    h, m = map(int, hhmm.split(":"))
    return datetime(2026, 11, day, h, m, tzinfo=UTC) + timedelta(seconds=sec)


def iso(t: datetime) -> str:
    """Timestamp as the log lines carry it (with an explicit offset)."""
    return t.isoformat(timespec="milliseconds")


def z(t: datetime) -> str:
    """Timestamp as the tables carry it."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def in_window(t: datetime, start: datetime, end: datetime) -> bool:
    """True if ``start <= t < end``."""
    return start <= t < end


class World:
    """The simulated platform (from ``demo_world.json``); accumulates log lines and rows."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.rng = random.Random(spec["seed"])
        self.days = [datetime.fromisoformat(d).replace(tzinfo=UTC) for d in spec["days"]]
        self.merchants = spec["merchants"]
        self.acquirer = {m["id"]: m["acquirer"] for m in self.merchants}
        self.logs: list[tuple[datetime, int, dict]] = []
        self.payments: list[list] = []
        self._pay = 0
        self._seq = 0

    def log(self, t: datetime, service: str, level: str, message: str, **attrs: str) -> None:
        """Add one log line."""
        line: dict[str, object] = {"ts": iso(t), "service": service, "level": level,
                                   "message": message}
        if attrs:
            line["attrs"] = attrs
        self._seq += 1
        self.logs.append((t, self._seq, line))

    def pid(self) -> str:
        """A fresh payment id."""
        self._pay += 1
        return f"pay_{self._pay:06d}"

    def hexid(self, n: int = 8) -> str:
        """A random hex id."""
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def merchant(self, only: set[str] | None = None) -> str:
        """A merchant drawn by traffic weight."""
        pool = [m for m in self.merchants if only is None or m["id"] in only]
        return self.rng.choices([m["id"] for m in pool], weights=[m["traffic_weight"] for m in pool])[0]

    def amount(self) -> str:
        """A plausible basket amount."""
        return f"{self.rng.uniform(5, 180):.2f}"

    def payment_row(self, pid: str, m: str, t: datetime, amount: str, status: str,
                    error: str, latency: int) -> None:
        """Add one row to the payments table."""
        self.payments.append([pid, m, z(t), amount, "EUR", status, error, self.acquirer[m], latency])


def payment_version(t: datetime) -> str:
    """payment-service's running version (v2.14.0 was live 14:17-14:40 on 2026-11-03)."""
    return "2.14.0" if in_window(t, at(3, "14:17"), at(3, "14:40")) else "2.13.4"


def ok_payment(w: World, t: datetime, m: str) -> None:
    """One healthy payment, traced through every service."""
    pid, req, amt = w.pid(), "req-" + w.hexid(), w.amount()
    acq = w.acquirer[m]
    up = w.rng.randint(140, 420)
    lat = up + w.rng.randint(60, 160)
    w.log(t, "gateway", "INFO", f"POST /v1/payments 201 merchant={m} latency_ms={lat} "
          f"request_id={req}", merchant=m, request_id=req)
    w.log(t + timedelta(milliseconds=30), "risk-service", "INFO",
          f"risk decision ACCEPT payment_id={pid} merchant={m} score={w.rng.randint(3, 40)}",
          merchant=m, payment_id=pid)
    w.log(t + timedelta(milliseconds=60 + up), "acquirer-adapter", "INFO",
          f"{acq} authorize ok payment_id={pid} upstream_ms={up}", merchant=m, payment_id=pid)
    w.log(t + timedelta(milliseconds=lat - 20), "payment-service", "INFO",
          f"payment {pid} authorized merchant={m} acquirer={acq} amount={amt} EUR "
          f"latency_ms={lat}", merchant=m, payment_id=pid, version=payment_version(t))
    w.log(t + timedelta(milliseconds=lat + 15), "ledger-service", "INFO",
          f"ledger entry posted payment_id={pid} entry_id=le-{w.rng.randint(10**6, 10**7)}",
          payment_id=pid)
    w.log(t + timedelta(milliseconds=lat + 400), "notification-service", "INFO",
          f"receipt sent payment_id={pid} merchant={m} channel=email", merchant=m, payment_id=pid)
    w.payment_row(pid, m, t, amt, "AUTHORIZED", "", lat)


# --- background -----------------------------------------------------------------------------

def background(w: World, skip: list[tuple[datetime, datetime]]) -> None:
    """Healthy traffic, daily noise and the days' scheduled events outside incident windows."""
    for day in w.days:
        t = day.replace(hour=8) + timedelta(seconds=w.rng.randint(0, 120))
        while t < day.replace(hour=18):
            if not any(in_window(t, s, e) for s, e in skip):
                ok_payment(w, t, w.merchant())
            t += timedelta(seconds=w.rng.randint(360, 720))
        # Known noise since the metrics migration (see knowledge/known-noise.md): harmless.
        t = day.replace(hour=8, minute=3)
        while t < day.replace(hour=18):
            w.log(t, "payment-service", "ERROR",
                  "metrics exporter: failed to push 214 series to statsd:8125: connection refused",
                  component="metrics")
            t += timedelta(seconds=w.rng.randint(420, 780))
        t = day.replace(hour=8, minute=11)
        while t < day.replace(hour=18):
            req = "req-" + w.hexid()
            w.log(t, "gateway", "WARN",
                  f"client closed connection before response request_id={req}", request_id=req)
            t += timedelta(seconds=w.rng.randint(1500, 3600))
        if day.day <= 5:  # the expiry warning nobody acted on (incident 4)
            left = 5 - day.day
            w.log(day.replace(hour=8, minute=0, second=5), "acquirer-adapter", "WARN",
                  f"client certificate for EastBank expires in {left} day(s) "
                  "(subject=CN=psp-client.eastbank.example, not_after=2026-11-05T11:00:00Z)",
                  acquirer="EastBank")


# --- incidents ------------------------------------------------------------------------------

def burst(w: World, start: datetime, end: datetime, every: tuple[int, int]) -> Iterator[datetime]:
    """Moments from start to end at random intervals (seconds)."""
    t = start + timedelta(seconds=w.rng.randint(0, every[0]))
    while t < end:
        yield t
        t += timedelta(seconds=w.rng.randint(*every))


def failing_payments(w: World, start: datetime, end: datetime, every: tuple[int, int],
                     acquirer: str) -> Iterator[tuple[datetime, str, str, Any]]:
    """A burst of payments: those of the acquirer's merchants come back to fail, the others succeed."""
    hit = {m for m, name in w.acquirer.items() if name == acquirer}
    for t in burst(w, start, end, every):
        m = w.merchant()
        if m not in hit:
            ok_payment(w, t, m)
            continue
        yield t, m, w.pid(), w.amount()


def inc1_pool(w: World) -> None:
    """2026-11-02 ~09:57-10:12: CHG-2041 cut payment-db pool max to 10; peak traffic starves it."""
    w.log(at(2, "09:52", 4), "payment-service", "INFO",
          "config reloaded: db.pool.max_size=10 (was 50) change=CHG-2041", change="CHG-2041")
    for t in burst(w, at(2, "09:40"), at(2, "09:57"), (50, 110)):
        ok_payment(w, t, w.merchant())
    for t in burst(w, at(2, "09:57"), at(2, "10:00"), (20, 40)):
        w.log(t, "payment-service", "WARN", "connection pool payment-db nearly exhausted "
              f"(active=10, idle=0, max=10, waiting={w.rng.randint(1, 6)})", pool="payment-db")
    for t in burst(w, at(2, "10:00"), at(2, "10:12"), (8, 22)):
        m = w.merchant()
        pid, req, amt = w.pid(), "req-" + w.hexid(), w.amount()
        waiting = w.rng.randint(18, 46)
        w.log(t, "gateway", "ERROR", f"POST /v1/payments 504 merchant={m} latency_ms=5003 "
              f"request_id={req}", merchant=m, request_id=req)
        w.log(t + timedelta(milliseconds=2100), "payment-service", "ERROR",
              "Timeout waiting for connection from pool payment-db after 3000 ms "
              f"(active=10, idle=0, max=10, waiting={waiting})", pool="payment-db", payment_id=pid)
        w.log(t + timedelta(milliseconds=2900), "payment-service", "ERROR",
              f"payment {pid} failed: authorization timed out after 5000 ms merchant={m}",
              merchant=m, payment_id=pid, version="2.13.4")
        w.payment_row(pid, m, t, amt, "FAILED", "TIMEOUT", 5003)
    w.log(at(2, "10:12", 9), "payment-service", "INFO",
          "config reloaded: db.pool.max_size=50 (was 10) change=CHG-2042", change="CHG-2042")
    for t in burst(w, at(2, "10:13"), at(2, "10:30"), (50, 110)):
        ok_payment(w, t, w.merchant())


def inc2_retry_storm(w: World) -> None:
    """2026-11-03 14:17-14:40: payment-service v2.14.0 retries ledger calls with no backoff."""
    w.log(at(3, "14:08", 31), "gateway", "INFO", "starting gateway version=3.2.1", version="3.2.1")
    w.log(at(3, "14:17", 2), "payment-service", "INFO",
          "starting payment-service version=2.14.0 (ledger client: retry policy=immediate, "
          "max_attempts=10)", version="2.14.0")
    for t in burst(w, at(3, "14:00"), at(3, "14:17"), (50, 110)):
        ok_payment(w, t, w.merchant())
    for t in burst(w, at(3, "14:18"), at(3, "14:40"), (10, 25)):
        m = w.merchant()
        pid, amt = w.pid(), w.amount()
        for attempt in (2, 5, 9):
            w.log(t + timedelta(milliseconds=40 * attempt), "payment-service", "WARN",
                  f"ledger call failed (503), retrying immediately attempt={attempt}/10 "
                  f"payment_id={pid}", payment_id=pid, version="2.14.0")
        w.log(t + timedelta(milliseconds=200), "ledger-service", "WARN",
              f"rejecting request: too many concurrent requests "
              f"(inflight={w.rng.randint(501, 760)}, limit=500)")
        w.log(t + timedelta(milliseconds=450), "payment-service", "ERROR",
              f"payment {pid} failed: ledger unavailable after 10 attempts merchant={m}",
              merchant=m, payment_id=pid, version="2.14.0")
        w.log(t + timedelta(milliseconds=470), "gateway", "ERROR",
              f"POST /v1/payments 502 merchant={m} latency_ms={w.rng.randint(900, 1600)} "
              f"request_id=req-{w.hexid()}", merchant=m)
        w.payment_row(pid, m, t, amt, "FAILED", "LEDGER_UNAVAILABLE", w.rng.randint(900, 1600))
    w.log(at(3, "14:40", 12), "payment-service", "INFO",
          "starting payment-service version=2.13.4 (ledger client: retry policy=exponential "
          "backoff, max_attempts=3)", version="2.13.4")
    for t in burst(w, at(3, "14:41"), at(3, "15:00"), (50, 110)):
        ok_payment(w, t, w.merchant())


def inc3_acquirer(w: World) -> None:
    """2026-11-04 09:28-09:47: acquirer NorthBank times out; other acquirers are fine."""
    w.log(at(4, "09:22", 40), "ledger-service", "INFO", "starting ledger-service version=5.2.0",
          version="5.2.0")
    for t, m, pid, amt in failing_payments(w, at(4, "09:28"), at(4, "09:47"), (8, 20), "NorthBank"):
        w.log(t + timedelta(seconds=10), "acquirer-adapter", "ERROR",
              f"NorthBank authorize timed out after 10000 ms payment_id={pid} merchant={m}",
              acquirer="NorthBank", payment_id=pid)
        w.log(t + timedelta(seconds=10, milliseconds=30), "payment-service", "ERROR",
              f"payment {pid} failed: acquirer timeout (NorthBank) merchant={m}",
              merchant=m, payment_id=pid, version="2.13.4")
        w.payment_row(pid, m, t, amt, "FAILED", "ACQUIRER_TIMEOUT", 10030)
    w.log(at(4, "09:31", 5), "acquirer-adapter", "WARN",
          "circuit breaker for NorthBank OPEN (failure_rate=0.81, window=60s)",
          acquirer="NorthBank")
    w.log(at(4, "09:47", 30), "acquirer-adapter", "INFO",
          "circuit breaker for NorthBank CLOSED (failure_rate=0.02)", acquirer="NorthBank")


def inc4_tls(w: World) -> None:
    """2026-11-05 11:00-11:24: the EastBank mTLS client certificate expired at 11:00:00."""
    for t, m, pid, amt in failing_payments(w, at(5, "11:00", 1), at(5, "11:24"), (10, 25), "EastBank"):
        w.log(t + timedelta(milliseconds=80), "acquirer-adapter", "ERROR",
              "TLS handshake with EastBank failed: client certificate has expired "
              "(subject=CN=psp-client.eastbank.example, not_after=2026-11-05T11:00:00Z)",
              acquirer="EastBank", payment_id=pid)
        w.log(t + timedelta(milliseconds=120), "payment-service", "ERROR",
              f"payment {pid} failed: acquirer EastBank unreachable (tls_handshake_failed) "
              f"merchant={m}", merchant=m, payment_id=pid, version="2.13.4")
        w.payment_row(pid, m, t, amt, "FAILED", "ACQUIRER_TLS_ERROR", 120)
    w.log(at(5, "11:24", 40), "acquirer-adapter", "INFO",
          "reloaded client certificate for EastBank (not_after=2027-11-05T00:00:00Z) "
          "change=CHG-2063", acquirer="EastBank", change="CHG-2063")


def inc5_risk_rule(w: World) -> None:
    """2026-11-06 14:58-15:16: CHG-2077 set rule R-117's velocity threshold to 3 (was 300)."""
    w.log(at(6, "14:40", 20), "risk-service", "INFO", "starting risk-service version=4.7.1",
          version="4.7.1")
    w.log(at(6, "14:58", 3), "risk-service", "INFO",
          "rules reloaded: R-117 velocity_threshold=3 (was 300) change=CHG-2077",
          change="CHG-2077", rule="R-117")
    for t in burst(w, at(6, "14:59"), at(6, "15:16"), (8, 20)):
        m = w.merchant()
        if m != "M1001" and w.rng.random() < 0.7:  # only busy merchants trip a 3/hour velocity
            ok_payment(w, t, m)
            continue
        pid, amt = w.pid(), w.amount()
        count = w.rng.randint(4, 40)
        w.log(t + timedelta(milliseconds=35), "risk-service", "WARN",
              f"risk decision REJECT payment_id={pid} merchant={m} rule=R-117 "
              f"reason=velocity_limit_exceeded count={count} limit=3",
              merchant=m, payment_id=pid, rule="R-117")
        w.log(t + timedelta(milliseconds=60), "payment-service", "WARN",
              f"payment {pid} declined by risk rule=R-117 merchant={m}",
              merchant=m, payment_id=pid, version="2.13.4")
        w.payment_row(pid, m, t, amt, "DECLINED", "RISK_REJECTED", 60)
    w.log(at(6, "15:16", 8), "risk-service", "INFO",
          "rules reloaded: R-117 velocity_threshold=300 (was 3) change=CHG-2078",
          change="CHG-2078", rule="R-117")


def inc6_ledger_lock(w: World) -> None:
    """2026-11-04 15:58-16:13: a manual reconciliation rerun locks ledger_entries."""
    w.log(at(4, "15:58", 0), "ledger-service", "INFO",
          "reconciliation job JOB-552 started (trigger=manual, user=a.kim): "
          "LOCK TABLE ledger_entries IN EXCLUSIVE MODE", job="JOB-552")
    for k, t in enumerate(burst(w, at(4, "15:58", 30), at(4, "16:13"), (10, 25))):
        m = "M2002" if k % 3 == 0 else w.merchant()  # the merchant the on-call question names
        pid, amt = w.pid(), w.amount()
        w.log(t, "payment-service", "INFO",
              f"payment {pid} authorized merchant={m} acquirer={w.acquirer[m]} amount={amt} EUR "
              f"latency_ms={w.rng.randint(250, 500)}", merchant=m, payment_id=pid,
              version="2.13.4")
        w.log(t + timedelta(seconds=8), "ledger-service", "ERROR",
              f"ledger write failed: lock wait timeout exceeded (8000 ms) on table "
              f"ledger_entries payment_id={pid} merchant={m}", merchant=m, payment_id=pid)
        w.log(t + timedelta(seconds=8, milliseconds=5), "ledger-service", "WARN",
              f"posting for payment_id={pid} queued for retry (queue_depth="
              f"{w.rng.randint(40, 400)})", payment_id=pid)
        w.payment_row(pid, m, t, amt, "AUTHORIZED", "LEDGER_PENDING", w.rng.randint(250, 500))
    w.log(at(4, "16:13", 30), "ledger-service", "INFO",
          "reconciliation job JOB-552 finished rows=1804233 duration_s=930; lock released",
          job="JOB-552")


SIMULATIONS: dict[str, Callable[[World], None]] = {
    "INC-1": inc1_pool, "INC-2": inc2_retry_storm, "INC-3": inc3_acquirer, "INC-4": inc4_tls,
    "INC-5": inc5_risk_rule, "INC-6": inc6_ledger_lock,
}
"""How each incident of truth.json shows up in the traffic (it has to be simulated, not listed)."""


# --- tables ---------------------------------------------------------------------------------

def tables(w: World) -> dict[str, tuple[list[str], list[list]]]:
    """Every operational table: header and rows (the static ones come from demo_world.json)."""
    static = {name: (t["columns"], t["rows"]) for name, t in w.spec["static_tables"].items()}
    return {
        "merchants": static["merchants"],
        "payments": (["payment_id", "merchant_id", "created_at", "amount", "currency", "status",
                      "error_code", "acquirer", "latency_ms"],
                     sorted(w.payments, key=lambda r: (r[2], r[0]))),
        "deploys": static["deploys"],
        "config_changes": static["config_changes"],
        "certificates": static["certificates"],
        "batch_jobs": static["batch_jobs"],
        "pool_metrics": (["ts", "service", "pool", "active", "idle", "max_size", "waiting"],
                         pool_metrics(w)),
        "acquirer_latency": (["ts", "acquirer", "requests", "p50_ms", "p95_ms", "timeouts",
                              "errors"], acquirer_latency(w)),
        "service_metrics": (["ts", "service", "metric", "value"], service_metrics(w)),
    }


def minutes(start: datetime, end: datetime, step: int) -> Iterator[datetime]:
    """Every ``step`` minutes from start (inclusive) to end (exclusive)."""
    t = start
    while t < end:
        yield t
        t += timedelta(minutes=step)


def pool_metrics(w: World) -> list[list]:
    """payment-db pool samples: every 30 min, every minute around incident 1."""
    rows = []
    for day in w.days:
        for t in minutes(day.replace(hour=8), day.replace(hour=18), 30):
            if day.day == 2 and in_window(t, at(2, "09:30"), at(2, "10:30")):
                continue
            active = w.rng.randint(6, 14)
            rows.append([z(t), "payment-service", "payment-db", active, 50 - active, 50, 0])
    for t in minutes(at(2, "09:30"), at(2, "10:30"), 1):
        if t < at(2, "09:52"):
            active, mx, waiting = w.rng.randint(7, 12), 50, 0
        elif t < at(2, "10:13"):
            mx, active = 10, 10
            waiting = 0 if t < at(2, "09:57") else w.rng.randint(12, 46)
        else:
            active, mx, waiting = w.rng.randint(9, 15), 50, 0
        rows.append([z(t), "payment-service", "payment-db", active, mx - active, mx, waiting])
    return sorted(rows)


def acquirer_latency(w: World) -> list[list]:
    """Per-acquirer authorisation latency: every 15 min, every minute around incidents 3 and 4."""
    rows = []
    dense = [(at(4, "09:15"), at(4, "10:00")), (at(5, "10:45"), at(5, "11:40"))]
    for day in w.days:
        for t in minutes(day.replace(hour=8), day.replace(hour=18), 1):
            is_dense = any(in_window(t, s, e) for s, e in dense)
            if not is_dense and t.minute % 15:
                continue
            for acq in ("NorthBank", "EastBank", "WestPay"):
                req = w.rng.randint(8, 30)
                p50, p95, timeouts, errors = w.rng.randint(160, 260), w.rng.randint(380, 620), 0, 0
                if acq == "NorthBank" and in_window(t, at(4, "09:28"), at(4, "09:47")):
                    p50, p95, timeouts = 10000, 10000, w.rng.randint(6, req)
                if acq == "EastBank" and in_window(t, at(5, "11:00"), at(5, "11:25")):
                    p50, p95, errors = w.rng.randint(20, 40), w.rng.randint(50, 90), req
                rows.append([z(t), acq, req, p50, p95, timeouts, errors])
    return rows


def service_metrics(w: World) -> list[list]:
    """Request rates and lock waits: every 30 min, every minute around incidents 2 and 6."""
    rows = []
    for day in w.days:
        for t in minutes(day.replace(hour=8), day.replace(hour=18), 30):
            rows.append([z(t), "ledger-service", "requests_per_s", w.rng.randint(90, 150)])
            rows.append([z(t), "ledger-service", "lock_wait_ms_p95", w.rng.randint(2, 9)])
    for t in minutes(at(3, "14:00"), at(3, "14:50"), 1):
        storm = in_window(t, at(3, "14:17"), at(3, "14:41"))
        rps = w.rng.randint(1150, 1480) if storm else w.rng.randint(90, 150)
        rows.append([z(t), "ledger-service", "requests_per_s", rps])
        rows.append([z(t), "payment-service", "ledger_retries_per_s",
                     w.rng.randint(900, 1300) if storm else w.rng.randint(0, 2)])
    for t in minutes(at(4, "15:45"), at(4, "16:25"), 1):
        locked = in_window(t, at(4, "15:58"), at(4, "16:14"))
        rows.append([z(t), "ledger-service", "lock_wait_ms_p95",
                     8000 if locked else w.rng.randint(2, 9)])
    return sorted(rows)


def main(out_dir: Path = HERE) -> None:
    """Write the generated files into ``out_dir`` (by default the shipped demo dataset)."""
    spec = json.loads(WORLD_FILE.read_text(encoding="utf-8"))
    truth = json.loads(TRUTH_FILE.read_text(encoding="utf-8"))
    w = World(spec)
    windows = [(datetime.fromisoformat(s), datetime.fromisoformat(e))
               for s, e in spec["incident_traffic_windows"]]
    background(w, windows)
    for incident in truth["incidents"]:
        simulate = SIMULATIONS.get(incident["id"])
        if simulate is None:
            raise SystemExit(f"truth.json names {incident['id']}, which this script cannot simulate")
        simulate(w)
    with (out_dir / "logs.jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for _t, _seq, line in sorted(w.logs, key=lambda e: (e[0], e[1])):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    (out_dir / "tables").mkdir(parents=True, exist_ok=True)
    for name, (header, rows) in tables(w).items():
        with (out_dir / "tables" / f"{name}.csv").open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    (out_dir / "dataset.json").write_text(json.dumps(spec["dataset"], indent=2) + "\n",
                                          encoding="utf-8")


if __name__ == "__main__":
    main()
