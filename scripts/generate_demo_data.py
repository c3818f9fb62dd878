"""Generate the demo dataset (a small payments platform, one business week, six incidents).

Deterministic: ``python scripts/generate_demo_data.py`` rewrites ``logs.jsonl``, ``tables/*.csv``,
``dataset.json`` and ``truth.json`` byte-for-byte identically; the generated files are committed.
The runbooks in ``knowledge/`` are written by hand. ``truth.json`` documents every incident.

Traffic runs 08:00-18:00 UTC, 2026-11-02 (Mon) to 2026-11-06 (Fri). Every incident leaves its
cause in the data (a config change, a deploy, an upstream, a certificate, a rule, a batch job)
next to plausible distractors: deploys and config changes that did not matter, a noisy but
harmless exporter error, and a night window with no events at all.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent / "tools" / "demo_data"
SEED = 20261102
DAYS = [datetime(2026, 11, d, tzinfo=UTC) for d in range(2, 7)]

MERCHANTS = [  # id, name, acquirer, mcc, country, traffic weight
    ("M1001", "ShopNow", "WestPay", "5411", "DE", 5),
    ("M1002", "TravelCo", "NorthBank", "4722", "FR", 3),
    ("M1003", "GameHub", "EastBank", "5816", "NL", 3),
    ("M1004", "BookNook", "WestPay", "5942", "DE", 1),
    ("M2001", "FreshMart", "NorthBank", "5411", "ES", 3),
    ("M2002", "CityRides", "NorthBank", "4121", "IT", 2),
    ("M2003", "StreamPlus", "EastBank", "4899", "NL", 2),
]
ACQUIRER = {m[0]: m[2] for m in MERCHANTS}


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
    """Accumulates log lines and table rows while the week is simulated."""

    def __init__(self) -> None:
        self.rng = random.Random(SEED)
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
        pool = [m for m in MERCHANTS if only is None or m[0] in only]
        return self.rng.choices([m[0] for m in pool], weights=[m[5] for m in pool])[0]

    def amount(self) -> str:
        """A plausible basket amount."""
        return f"{self.rng.uniform(5, 180):.2f}"

    def payment_row(self, pid: str, m: str, t: datetime, amount: str, status: str,
                    error: str, latency: int) -> None:
        """Add one row to the payments table."""
        self.payments.append([pid, m, z(t), amount, "EUR", status, error, ACQUIRER[m], latency])


def payment_version(t: datetime) -> str:
    """payment-service's running version (v2.14.0 was live 14:17-14:40 on 2026-11-03)."""
    return "2.14.0" if in_window(t, at(3, "14:17"), at(3, "14:40")) else "2.13.4"


def ok_payment(w: World, t: datetime, m: str) -> None:
    """One healthy payment, traced through every service."""
    pid, req, amt = w.pid(), "req-" + w.hexid(), w.amount()
    acq = ACQUIRER[m]
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
    for day in DAYS:
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
    north = {m[0] for m in MERCHANTS if m[2] == "NorthBank"}
    for t in burst(w, at(4, "09:28"), at(4, "09:47"), (8, 20)):
        m = w.merchant()
        if m not in north:
            ok_payment(w, t, m)
            continue
        pid, amt = w.pid(), w.amount()
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
    east = {m[0] for m in MERCHANTS if m[2] == "EastBank"}
    for t in burst(w, at(5, "11:00", 1), at(5, "11:24"), (10, 25)):
        m = w.merchant()
        if m not in east:
            ok_payment(w, t, m)
            continue
        pid, amt = w.pid(), w.amount()
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
              f"payment {pid} authorized merchant={m} acquirer={ACQUIRER[m]} amount={amt} EUR "
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


INCIDENT_WINDOWS = [
    (at(2, "09:40"), at(2, "10:30")), (at(3, "14:00"), at(3, "15:00")),
    (at(4, "09:28"), at(4, "09:47")), (at(5, "11:00"), at(5, "11:24")),
    (at(6, "14:59"), at(6, "15:16")), (at(4, "15:58"), at(4, "16:13")),
]


# --- tables ---------------------------------------------------------------------------------

def tables(w: World) -> dict[str, tuple[list[str], list[list]]]:
    """Every operational table: header and rows."""
    merchants = [[m, n, a, mcc, c, "ACTIVE", f"2025-0{i % 9 + 1}-15T09:00:00Z"]
                 for i, (m, n, a, mcc, c, _w) in enumerate(MERCHANTS)]
    deploys = [
        ["DEP-7771", "notification-service", "1.8.2", z(at(2, "09:55")), z(at(2, "09:57")),
         "SUCCEEDED", "email template copy changes"],
        ["DEP-7780", "gateway", "3.2.1", z(at(3, "14:08")), z(at(3, "14:09")), "SUCCEEDED",
         "OpenAPI docs, access-log field order"],
        ["DEP-7781", "payment-service", "2.14.0", z(at(3, "14:15")), z(at(3, "14:17")),
         "SUCCEEDED", "ledger client refactor; new retry policy"],
        ["DEP-7782", "payment-service", "2.13.4", z(at(3, "14:38")), z(at(3, "14:40")),
         "SUCCEEDED", "rollback of DEP-7781"],
        ["DEP-7790", "ledger-service", "5.2.0", z(at(4, "09:21")), z(at(4, "09:23")),
         "SUCCEEDED", "dependency upgrades"],
        ["DEP-7795", "risk-service", "4.7.1", z(at(6, "14:39")), z(at(6, "14:40")), "SUCCEEDED",
         "logging improvements for rule evaluation"],
    ]
    changes = [
        ["CHG-2038", "gateway", "rate_limit.per_merchant_rps", "200", "250", "m.ortiz",
         z(at(2, "08:30")), "OPS-3301"],
        ["CHG-2041", "payment-service", "db.pool.max_size", "50", "10", "j.doe",
         z(at(2, "09:52")), "OPS-3312"],
        ["CHG-2042", "payment-service", "db.pool.max_size", "10", "50", "oncall",
         z(at(2, "10:12")), "INC-1"],
        ["CHG-2055", "risk-service", "risk.score.model_version", "v41", "v42", "ml-platform",
         z(at(4, "09:10")), "RISK-870"],
        ["CHG-2063", "acquirer-adapter", "tls.client_cert.eastbank", "serial 3F:A2 (exp 2026-11-05)",
         "serial 7C:19 (exp 2027-11-05)", "oncall", z(at(5, "11:24")), "INC-4"],
        ["CHG-2070", "notification-service", "sms.provider", "twilio", "messagebird", "c.lee",
         z(at(6, "10:05")), "NOTIF-212"],
        ["CHG-2077", "risk-service", "rule.R-117.velocity_threshold", "300", "3", "risk-ops",
         z(at(6, "14:58")), "RISK-881"],
        ["CHG-2078", "risk-service", "rule.R-117.velocity_threshold", "3", "300", "oncall",
         z(at(6, "15:16")), "INC-5"],
    ]
    certs = [
        ["CERT-11", "acquirer-adapter", "CN=psp-client.eastbank.example", "EastBank Partner CA",
         "2025-11-05T11:00:00Z", "2026-11-05T11:00:00Z", "mTLS client cert to EastBank"],
        ["CERT-12", "acquirer-adapter", "CN=psp-client.northbank.example", "NorthBank Issuing CA",
         "2026-03-01T00:00:00Z", "2027-03-01T00:00:00Z", "mTLS client cert to NorthBank"],
        ["CERT-13", "acquirer-adapter", "CN=psp-client.westpay.example", "WestPay CA G2",
         "2026-06-10T00:00:00Z", "2027-06-10T00:00:00Z", "mTLS client cert to WestPay"],
        ["CERT-21", "gateway", "CN=api.psp.example", "Let's Encrypt R11",
         "2026-10-20T00:00:00Z", "2027-01-18T00:00:00Z", "public API endpoint"],
        ["CERT-31", "notification-service", "CN=hooks.psp.example", "Let's Encrypt R11",
         "2026-09-01T00:00:00Z", "2026-11-30T00:00:00Z", "merchant webhook sender"],
    ]
    jobs = [[f"JOB-5{40 + i}", "daily-reconciliation", "ledger-service", z(d.replace(hour=1)),
             z(d.replace(hour=1, minute=14)), "SUCCEEDED", "scheduler", 1790000 + 4100 * i]
            for i, d in enumerate(DAYS)]
    jobs.append(["JOB-552", "daily-reconciliation", "ledger-service", z(at(4, "15:58")),
                 z(at(4, "16:13", 30)), "SUCCEEDED", "a.kim (manual rerun)", 1804233])
    return {
        "merchants": (["merchant_id", "name", "acquirer", "mcc", "country", "status",
                       "onboarded_at"], merchants),
        "payments": (["payment_id", "merchant_id", "created_at", "amount", "currency", "status",
                      "error_code", "acquirer", "latency_ms"],
                     sorted(w.payments, key=lambda r: (r[2], r[0]))),
        "deploys": (["deploy_id", "service", "version", "started_at", "finished_at", "status",
                     "summary"], deploys),
        "config_changes": (["change_id", "service", "config_key", "old_value", "new_value",
                            "changed_by", "changed_at", "ticket"], changes),
        "certificates": (["cert_id", "service", "subject", "issuer", "not_before", "not_after",
                          "used_for"], certs),
        "batch_jobs": (["job_id", "name", "service", "started_at", "finished_at", "status",
                        "triggered_by", "rows_processed"], jobs),
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
    for day in DAYS:
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
    for day in DAYS:
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
    for day in DAYS:
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


# --- truth ----------------------------------------------------------------------------------

TRUTH: dict[str, Any] = {
    "dataset": "payments-demo",
    "timezone": "UTC",
    "incidents": [
        {
            "id": "INC-1",
            "question": "payment timeouts for merchant M1001 on payment-service between 10:00 "
                        "and 10:10 on 2026-11-02 — why?",
            "service": "payment-service", "merchant": "M1001",
            "start": "2026-11-02T10:00:00+00:00", "end": "2026-11-02T10:10:00+00:00",
            "root_cause": "payment-db connection pool exhausted after config change CHG-2041 "
                          "lowered db.pool.max_size from 50 to 10 at 09:52",
            "key_terms": ["pool", "config"],
            "distractors": ["notification-service deploy DEP-7771 at 09:55",
                            "metrics exporter statsd errors (known noise)"],
            "has_runbook": True, "runbook": "db-connection-pool-exhaustion",
            "expected_outcome": "SUCCESS", "fallback_type": None,
        },
        {
            "id": "INC-2",
            "question": "payment failures for merchant M1002 on payment-service between 14:20 "
                        "and 14:35 on 2026-11-03 — why?",
            "service": "payment-service", "merchant": "M1002",
            "start": "2026-11-03T14:20:00+00:00", "end": "2026-11-03T14:35:00+00:00",
            "root_cause": "deploy DEP-7781 of payment-service v2.14.0 introduced immediate "
                          "ledger retries (no backoff, 10 attempts): a retry storm overloaded "
                          "ledger-service",
            "key_terms": ["retry", "deploy"],
            "distractors": ["gateway deploy DEP-7780 (v3.2.1) at 14:08"],
            "has_runbook": True, "runbook": "retry-storm",
            "expected_outcome": "SUCCESS", "fallback_type": None,
        },
        {
            "id": "INC-3",
            "question": "card authorization timeouts for merchant M2001 on payment-service "
                        "between 09:30 and 09:45 on 2026-11-04 — why?",
            "service": "payment-service", "merchant": "M2001",
            "start": "2026-11-04T09:30:00+00:00", "end": "2026-11-04T09:45:00+00:00",
            "root_cause": "upstream acquirer NorthBank timed out (10 s) on authorisations; "
                          "only NorthBank-routed merchants were affected",
            "key_terms": ["NorthBank", "acquirer"],
            "distractors": ["ledger-service deploy DEP-7790 at 09:21",
                            "risk model change CHG-2055 at 09:10"],
            "has_runbook": True, "runbook": "acquirer-timeouts",
            "expected_outcome": "SUCCESS", "fallback_type": None,
        },
        {
            "id": "INC-4",
            "question": "payment failures for merchant M1003 on payment-service between 11:00 "
                        "and 11:10 on 2026-11-05 — why?",
            "service": "payment-service", "merchant": "M1003",
            "start": "2026-11-05T11:00:00+00:00", "end": "2026-11-05T11:10:00+00:00",
            "root_cause": "the acquirer-adapter's mTLS client certificate for EastBank "
                          "(CERT-11) expired at 11:00, so TLS handshakes to EastBank failed",
            "key_terms": ["certificate", "EastBank"],
            "distractors": ["daily 'expires in N days' warnings that were ignored"],
            "has_runbook": True, "runbook": "tls-certificate-expiry",
            "expected_outcome": "SUCCESS", "fallback_type": None,
        },
        {
            "id": "INC-5",
            "question": "payments rejected for merchant M1001 on risk-service between 15:00 "
                        "and 15:15 on 2026-11-06 — why?",
            "service": "risk-service", "merchant": "M1001",
            "start": "2026-11-06T15:00:00+00:00", "end": "2026-11-06T15:15:00+00:00",
            "root_cause": "config change CHG-2077 set risk rule R-117's velocity threshold to 3 "
                          "(was 300), rejecting busy merchants' payments",
            "key_terms": ["R-117", "threshold"],
            "distractors": ["risk-service deploy DEP-7795 (v4.7.1) at 14:39"],
            "has_runbook": False, "runbook": None,
            "expected_outcome": "FALLBACK", "fallback_type": "INSUFFICIENT_EVIDENCE",
        },
        {
            "id": "INC-6",
            "question": "ledger write errors for merchant M2002 on ledger-service between 16:00 "
                        "and 16:10 on 2026-11-04 — why?",
            "service": "ledger-service", "merchant": "M2002",
            "start": "2026-11-04T16:00:00+00:00", "end": "2026-11-04T16:10:00+00:00",
            "root_cause": "a manual rerun of the daily-reconciliation job (JOB-552) held an "
                          "exclusive lock on ledger_entries; ledger writes hit lock wait timeouts",
            "key_terms": ["lock", "reconciliation"],
            "distractors": ["the same job's normal nightly runs at 01:00"],
            "has_runbook": False, "runbook": None,
            "expected_outcome": "FALLBACK", "fallback_type": "INSUFFICIENT_EVIDENCE",
        },
    ],
    "no_evidence": [
        {
            "id": "NOEV-1",
            "question": "payment failures for merchant M1002 on payment-service between 02:00 "
                        "and 02:10 on 2026-11-05 — why?",
            "service": "payment-service", "merchant": "M1002",
            "start": "2026-11-05T02:00:00+00:00", "end": "2026-11-05T02:10:00+00:00",
            "root_cause": None,
            "key_terms": [],
            "has_runbook": False,
            "expected_outcome": "FALLBACK", "fallback_type": "INSUFFICIENT_EVIDENCE",
            "note": "no log events, payments or changes exist in this window",
        }
    ],
}


def _logs(service: str, start: str, end: str, contains: str, **extra: str) -> dict:
    args = {"service": service, "start": start + "+00:00", "end": end + "+00:00", **extra}
    return {"tool": "query_logs", "args": args, "contains": contains}


def _sql(sql: str, contains: str) -> dict:
    return {"tool": "query_mysql", "args": {"sql": " ".join(sql.split())}, "contains": contains}


# How a reader finds each cause: tool calls whose observation contains the decisive text, and a
# runbook query (answered by the incident's runbook, or by nothing when it has none).
EVIDENCE = {
    "INC-1": ([
        _logs("payment-service", "2026-11-02T09:50:00", "2026-11-02T10:10:00",
              "db.pool.max_size=10 (was 50)", pattern="config reloaded"),
        _sql("""SELECT change_id, config_key, old_value, new_value, changed_at
                FROM config_changes WHERE service = 'payment-service'
                AND changed_at BETWEEN '2026-11-02T09:00:00Z' AND '2026-11-02T10:10:00Z'""",
             "CHG-2041"),
        _sql("""SELECT ts, active, max_size, waiting FROM pool_metrics
                WHERE ts BETWEEN '2026-11-02T10:00:00Z' AND '2026-11-02T10:10:00Z'""",
             '"max_size":10'),
    ], "connection pool exhausted timeout waiting for connection"),
    "INC-2": ([
        _logs("payment-service", "2026-11-03T14:20:00", "2026-11-03T14:35:00", "attempt=",
              pattern="retrying immediately"),
        _logs("payment-service", "2026-11-03T14:00:00", "2026-11-03T14:35:00",
              "retry policy=immediate", pattern="starting"),
        _sql("""SELECT deploy_id, service, version, started_at, summary FROM deploys
                WHERE started_at BETWEEN '2026-11-03T13:30:00Z' AND '2026-11-03T14:35:00Z'""",
             "2.14.0"),
    ], "retry storm ledger too many concurrent requests after deploy"),
    "INC-3": ([
        _logs("acquirer-adapter", "2026-11-04T09:30:00", "2026-11-04T09:45:00",
              "NorthBank authorize timed out", level="ERROR"),
        _sql("""SELECT ts, acquirer, p95_ms, timeouts FROM acquirer_latency
                WHERE ts BETWEEN '2026-11-04T09:30:00Z' AND '2026-11-04T09:45:00Z'
                ORDER BY p95_ms DESC LIMIT 5""", '"acquirer":"NorthBank"'),
    ], "acquirer authorization timeouts one acquirer"),
    "INC-4": ([
        _logs("acquirer-adapter", "2026-11-05T11:00:00", "2026-11-05T11:10:00",
              "client certificate has expired", level="ERROR"),
        _sql("""SELECT cert_id, subject, not_after FROM certificates
                WHERE not_after BETWEEN '2026-11-05T10:00:00Z' AND '2026-11-05T12:00:00Z'""",
             "CERT-11"),
    ], "TLS handshake failed certificate expired"),
    "INC-5": ([
        _logs("risk-service", "2026-11-06T14:55:00", "2026-11-06T15:15:00",
              "velocity_threshold=3 (was 300)", pattern="rules reloaded"),
        _sql("""SELECT change_id, config_key, old_value, new_value, changed_at
                FROM config_changes WHERE service = 'risk-service'
                AND changed_at BETWEEN '2026-11-06T14:00:00Z' AND '2026-11-06T15:15:00Z'""",
             "CHG-2077"),
    ], "risk rule velocity threshold rejections"),
    "INC-6": ([
        _logs("ledger-service", "2026-11-04T16:00:00", "2026-11-04T16:10:00",
              "lock wait timeout exceeded", level="ERROR"),
        _logs("ledger-service", "2026-11-04T15:50:00", "2026-11-04T16:10:00",
              "LOCK TABLE ledger_entries", pattern="reconciliation"),
        _sql("""SELECT job_id, name, started_at, finished_at, triggered_by FROM batch_jobs
                WHERE started_at BETWEEN '2026-11-04T15:00:00Z' AND '2026-11-04T16:10:00Z'""",
             "JOB-552"),
    ], "ledger lock wait timeout reconciliation job"),
}
for _incident in TRUTH["incidents"]:
    _incident["evidence"], _incident["runbook_query"] = EVIDENCE[_incident["id"]]


def main(out_dir: Path = HERE) -> None:
    """Write the generated files into ``out_dir`` (by default next to this script)."""
    w = World()
    background(w, INCIDENT_WINDOWS)
    for incident in (inc1_pool, inc2_retry_storm, inc3_acquirer, inc4_tls, inc5_risk_rule,
                     inc6_ledger_lock):
        incident(w)
    with (out_dir / "logs.jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for _t, _seq, line in sorted(w.logs, key=lambda e: (e[0], e[1])):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    (out_dir / "tables").mkdir(parents=True, exist_ok=True)
    for name, (header, rows) in tables(w).items():
        with (out_dir / "tables" / f"{name}.csv").open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    (out_dir / "dataset.json").write_text(json.dumps({
        "name": "payments-demo",
        "description": "A small payments platform over one business week (2026-11-02..06, "
                       "UTC) with six incidents, distractors and a quiet night window.",
    }, indent=2) + "\n", encoding="utf-8")
    (out_dir / "truth.json").write_text(json.dumps(TRUTH, indent=2, ensure_ascii=False) + "\n",
                                     encoding="utf-8")


if __name__ == "__main__":
    main()
