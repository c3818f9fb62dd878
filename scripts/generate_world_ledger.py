"""Generate the ``ledger`` incident world: a retail bank's card and payments platform, held out.

Deterministic and stdlib only: ``python scripts/generate_world_ledger.py [OUT_DIR]`` (default
``tests/data/worlds``) writes ``OUT_DIR/ledger/`` byte for byte the same on every run, in the
harness's dataset format (logs.jsonl, tables/*.csv, knowledge/*.md, dataset.json) with a
``truth.json`` next to it. It is self-contained (its own small engine, not generate_worlds.py).

The world: an Australian retail bank's issuing and payments platform over three days,
2026-03-10 00:00 to 2026-03-13 00:00 Sydney time (AEDT, UTC+11). Card authorisations arrive
from the schemes at iso-switch (ISO 8583), card-auth decides them (cryptograms through hsm-proxy
to two HSMs, a risk score from fraud-scorer, a hold in ledger), events go to kafka; the app and
internet banking call api-gateway (envoy); payments sends Osko/NPP and international transfers
(fx-rates quotes) and posts them in ledger (postgres pg-ledger); kyc onboards customers and
creates them in the core banking system through core-adapter (IBM MQ); notification sends pushes
and 3-D Secure one-time codes (redis for de-duplication); statement-batch runs the nightly jobs.

Logs are in Sydney time with the offset; their messages keep each component's own format (envoy
access lines with UTC start times, Spring Boot lines, Go logfmt, pino JSON, postgres, kafka and
redis server lines). Metric exports are in Sydney wall time without an offset (dataset.json says
the zone), deploys in UTC, config changes with their offset, flyway migrations in local wall time.

Built from how such systems fail, not from what any investigator's rules catch: held out.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from datetime import UTC, datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import sql_step as sql_ev  # noqa: E402

NAME, SEED = "ledger", 20260310
AEDT = timezone(timedelta(hours=11))
T0 = datetime(2026, 3, 10, tzinfo=AEDT)
T_END = T0 + timedelta(days=3)


def at(day: int, hh: int, mm: int, ss: float = 0.0) -> datetime:
    """A Sydney wall time on 2026-03-<day>."""
    return datetime(2026, 3, day, hh, mm, tzinfo=AEDT) + timedelta(seconds=ss)


def iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def zulu(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def wall(t: datetime) -> str:
    return t.astimezone(AEDT).strftime("%Y-%m-%d %H:%M:%S")


def h(text: str, n: int = 8) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


# Sydney retail: quiet nights, a lunch peak, an evening peak.
CURVE = [
    0.12, 0.08, 0.06, 0.05, 0.05, 0.08, 0.20, 0.45, 0.70, 0.80, 0.82, 0.85, 0.95, 0.92, 0.85, 0.82, 0.85,
    0.95, 1.00, 0.90, 0.75, 0.55, 0.35, 0.20,
]

SERVICES = [
    "api-gateway", "card-auth", "iso-switch", "fraud-scorer", "ledger", "core-adapter", "statement-batch",
    "kafka", "postgres", "redis", "hsm-proxy", "notification", "kyc", "fx-rates", "payments",
]
JVM = {"card-auth", "ledger", "core-adapter", "payments"}
BASE_VERSION = {
    "api-gateway": "1.29.3", "card-auth": "3.18.1", "iso-switch": "4.7.0", "fraud-scorer": "2.4.6",
    "ledger": "7.3.0", "core-adapter": "2.11.4", "statement-batch": "1.22.0", "kafka": "3.7.1",
    "postgres": "16.2", "redis": "7.2.4", "hsm-proxy": "1.5.3", "notification": "2.11.7", "kyc": "4.0.9",
    "fx-rates": "2.8.4", "payments": "5.1.7",
}
REPLICAS = {
    "api-gateway": 3, "card-auth": 4, "iso-switch": 2, "fraud-scorer": 3, "ledger": 3, "core-adapter": 2,
    "statement-batch": 1, "hsm-proxy": 3, "notification": 2, "kyc": 2, "fx-rates": 2, "payments": 3,
}
UPSTREAM_IP = {
    "payments": "10.20.9.31:8080", "ledger": "10.20.4.21:8443", "kyc": "10.20.11.7:8080",
    "fx-rates": "10.20.12.40:8080", "card-auth": "10.20.5.18:8080", "core-adapter": "10.20.3.9:8080",
}
CHATTY_TOPICS = ["card.auth.events", "payment.events", "notify.otp", "__consumer_offsets"]
LINKS = ["VISA-1", "VISA-2", "MC-1", "EFTPOS-1", "EFTPOS-2"]
UA = ["BankApp/8.14.0 (iOS 17.3.1)", "BankApp/8.14.0 (Android 14)", "BankApp/8.13.2 (Android 13)",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) NetBank/2026.3"]

# --- the incidents' moments (Sydney time) ---------------------------------------------------
HSM_ON, HSM_FIX = at(10, 8, 47, 21), at(10, 9, 16, 40)  # 01
BURST_ON, BURST_FIX = at(10, 11, 12, 0), at(10, 12, 5, 0)  # 02
FX_ON, FX_FIX = at(10, 13, 59, 34), at(10, 14, 41, 50)  # 03
REDIS_TTL, REDIS_FULL, REDIS_FIX = at(10, 13, 10, 0), at(10, 19, 33, 0), at(10, 20, 12, 0)  # 04
KEY_ROT, ARCH_ON, DISK_FULL, PG_BACK = (
    at(11, 7, 18, 0), at(11, 7, 21, 4), at(11, 7, 49, 41), at(11, 8, 26, 30),
)  # 06
THR_ON, THR_FIX = at(11, 10, 14, 30), at(11, 10, 58, 0)  # 07
MQ_ON, MQ_FIX = at(11, 12, 24, 37), at(11, 13, 2, 30)  # 08
IDX_ON, IDX_DONE = at(11, 15, 2, 8), at(11, 15, 37, 40)  # 09
K2_DOWN, K3_FAIL, K2_UP = at(11, 17, 58, 10), at(11, 18, 3, 5), at(11, 18, 31, 20)  # 10
GC_ON, GC_FIX = at(12, 11, 36, 0), at(12, 12, 14, 0)  # 12
NPP_ON, NPP_OFF = at(12, 13, 57, 0), at(12, 14, 38, 0)  # 13
POISON_ON = at(12, 20, 4, 12)  # 14
LEDGER_732 = at(11, 14, 55, 0)


def between(t: datetime, a: datetime, b: datetime) -> bool:
    return a <= t < b


class World:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.logs: list[tuple[datetime, int, dict[str, Any]]] = []
        self.seq = 0
        self.tables: dict[str, tuple[list[str], list[list[Any]]]] = {}
        self.runbooks: dict[str, str] = {}
        self.incidents: list[dict[str, Any]] = []
        self.deploys: list[tuple[str, str, str, datetime, str]] = []
        self.versions: dict[str, list[tuple[datetime, str]]] = {
            s: [(T0 - timedelta(days=9), v)] for s, v in BASE_VERSION.items()
        }

    # randomness helpers
    def r(self) -> float:
        return self.rng.random()

    def n(self, a: int, b: int) -> int:
        return self.rng.randint(a, b)

    def pick(self, seq: list[Any]) -> Any:
        return seq[self.rng.randrange(len(seq))]

    def hexid(self, k: int = 16) -> str:
        return "".join(self.pick(list("0123456789abcdef")) for _ in range(k))

    def version(self, svc: str, t: datetime) -> str:
        v = self.versions[svc][0][1]
        for since, ver in self.versions[svc]:
            if since <= t:
                v = ver
        return v

    def pod(self, svc: str, t: datetime, i: int | None = None) -> str:
        if svc == "kafka":
            return f"kafka-{i or self.n(1, 3)}"
        if svc == "postgres":
            return "pg-ledger-0"
        if svc == "redis":
            return "redis-shared-0"
        v = self.version(svc, t)
        k = self.n(0, REPLICAS[svc] - 1) if i is None else i
        return f"{svc}-{h(svc + v, 9)}-{h(svc + v + str(k), 5)}"

    def emit(self, t: datetime, svc: str, level: str, msg: str, pod: str | None = None, **attrs: Any) -> None:
        if not (T0 <= t < T_END):
            return
        a: dict[str, Any] = {"pod": pod or self.pod(svc, t), "version": self.version(svc, t)}
        a.update(attrs)
        self.seq += 1
        line = {"ts": t.astimezone(AEDT).isoformat(timespec="milliseconds"), "service": svc, "level": level,
                "message": msg, "attrs": a}
        self.logs.append((t, self.seq, line))

    def deploy(self, dep_id: str, svc: str, version: str, t: datetime, summary: str) -> None:
        self.deploys.append((dep_id, svc, version, t, summary))
        self.versions[svc].append((t + timedelta(seconds=150), version))
        self.versions[svc].sort()
        for i in range(REPLICAS.get(svc, 1)):
            s = t + timedelta(seconds=40 + 35 * i + self.n(0, 9))
            pod = f"{svc}-{h(svc + version, 9)}-{h(svc + version + str(i), 5)}"
            if svc in JVM:
                cls = "".join(p.capitalize() for p in svc.split("-"))
                self.emit(s, svc, "INFO",
                          f"[main] c.b.{svc.replace('-', '')}.{cls}Application : "
                          f"Started {cls}Application in {self.n(280, 520) / 10:.1f} seconds "
                          f"(process running for {self.n(300, 560) / 10:.1f})", pod=pod)
            elif svc in ("notification",):
                self.emit(
                    s, svc, "INFO",
                    json.dumps({"level": 30, "msg": "server listening", "port": 8080, "version": version}),
                    pod=pod,
                )
            else:
                self.emit(
                    s, svc, "INFO", f'level=info msg="starting" version={version} listen=:8080', pod=pod
                )

    def table(self, name: str, header: list[str], rows: list[list[Any]]) -> None:
        self.tables[name] = (header, rows)

    def write(self, out: Path, manifest: dict[str, Any], truth: dict[str, Any]) -> None:
        engine.write_dataset(out, self.logs, self.tables, self.runbooks, manifest, truth, ascii_manifest=True)


def curve(t: datetime) -> float:
    lt = t.astimezone(AEDT)
    a, b = CURVE[lt.hour], CURVE[(lt.hour + 1) % 24]
    return a + (b - a) * lt.minute / 60


def envoy(
    w: World, t: datetime, method: str, path: str, status: int, upstream: str, dur: int, flags: str = "-"
) -> None:
    start = t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    ip = f"{w.pick([1, 27, 49, 101, 110, 120, 203])}.{w.n(1, 254)}.{w.n(1, 254)}.{w.n(1, 254)}"
    up_t = "-" if flags != "-" else str(max(1, dur - w.n(0, 3)))
    line = (
        f'[{start}] "{method} {path} HTTP/2" {status} {flags} {w.n(0, 900)} {w.n(80, 4200)} '
        f'{dur} {up_t} "{ip}" "{w.pick(UA)}" "{w.hexid(8)}-{w.hexid(4)}-{w.hexid(4)}" '
        f'"api.bank.example" "{upstream}"'
    )
    level = "INFO" if status < 400 else ("WARN" if status < 500 else "ERROR")
    w.emit(t, "api-gateway", level, line)


def jline(svc: str, thread: str, cls: str, msg: str) -> str:
    base = {"card-auth": "c.b.cards.auth", "ledger": "c.b.core.ledger", "core-adapter": "c.b.core.adapter",
            "payments": "c.b.pay"}[svc]
    return f"[{thread}] {base}.{cls} : {msg}"


def pino(level: int, msg: str, **fields: Any) -> str:
    return json.dumps({"level": level, "msg": msg, **fields}, ensure_ascii=False)


# --- traffic flows ---------------------------------------------------------------------------


def flow_auth(w: World, t: datetime) -> None:
    channel = w.pick(["POS", "POS", "CONTACTLESS", "CONTACTLESS", "CONTACTLESS", "ECOM", "ECOM", "ATM"])
    link = w.pick(LINKS if channel != "ATM" else ["EFTPOS-1", "EFTPOS-2"])
    stan = f"{w.n(0, 999999):06d}"
    rrn = f"60{w.n(10, 99)}{w.n(10000000, 99999999)}"
    mcc = w.pick(["5411", "5812", "5541", "4111", "5999", "5732", "7011", "5311", "6011"])
    amount = round(w.r() ** 2 * 380 + 2, 2)
    took = w.n(40, 160)
    thread = f"auth-worker-{w.n(1, 32)}"
    rc, reason = "00", ""
    x = w.r()
    if x < 0.04:
        rc, reason = "51", " reason=INSUFFICIENT_FUNDS"
    elif x < 0.055:
        rc, reason = "05", " reason=DO_NOT_HONOUR"
    elif x < 0.065 and channel != "ECOM":
        rc, reason = "55", " reason=INCORRECT_PIN"
    elif x < 0.068 and channel == "ECOM":
        rc, reason = "59", " reason=RISK"
    chip = channel in ("POS", "CONTACTLESS", "ATM")
    pod = w.pod("card-auth", t)
    if chip and between(t, HSM_ON, HSM_FIX) and w.r() < 0.55:
        hp = w.pod("hsm-proxy", t)
        conn = w.n(1, 32)
        if w.r() < 0.6:
            w.emit(t + timedelta(milliseconds=3000), "hsm-proxy", "ERROR",
                   f'level=error msg="hsm request failed" op=ARQC_VERIFY hsm=hsm-a conn={conn} '
                   f'err="read tcp 10.20.6.{w.n(10, 30)}:{w.n(40000, 60000)}->10.40.2.11:1500: '
                   f'i/o timeout" timeout=3000ms pooled=true conn_age={w.n(5, 7)}h{w.n(10, 59)}m', pod=hp)
        if w.r() < 0.3:
            w.emit(t + timedelta(milliseconds=3001), "hsm-proxy", "WARN",
                   f'level=warn msg="retrying on next hsm" op=ARQC_VERIFY from=hsm-a to=hsm-b conn={conn}',
                   pod=hp)
        w.emit(t + timedelta(milliseconds=2000), "card-auth", "ERROR",
               jline("card-auth", thread, "crypto.HsmClient",
                     f"ARQC verification failed stan={stan}: io.grpc.StatusRuntimeException: "
                     f"DEADLINE_EXCEEDED: deadline exceeded after 1.999s (hsm-proxy.security.svc:7400)"),
               pod=pod)
        rc, reason, took = "91", " reason=CRYPTO_UNAVAILABLE", 2000 + w.n(2, 30)
    if channel == "ECOM" or w.r() < 0.25:
        score = round(w.r() ** 3 * 0.9, 4)
        decision = "DECLINE" if rc == "59" else "APPROVE"
        if rc == "00" and channel == "ECOM" and between(t, THR_ON, THR_FIX) and w.r() < 0.32:
            score = round(0.58 + w.r() * 0.26, 4)
            decision, rc, reason = "DECLINE", "59", " reason=RISK"
        if rc == "59" and score < 0.58:
            score = round(0.86 + w.r() * 0.13, 4)
        fields: dict[str, Any] = {
            "txn": rrn, "channel": channel, "score": score, "decision": decision, "model": "gbm-2026.02.3",
            "latency_ms": w.n(6, 28),
        }
        if w.r() < 0.45:
            w.emit(t, "fraud-scorer", "INFO", json.dumps({"event": "scored", **fields}))
        if between(t, REDIS_FULL, REDIS_FIX) and w.r() < 0.25:
            w.emit(t, "fraud-scorer", "WARN",
                   json.dumps({"event": "feature cache write failed", "txn": rrn,
                               "error": "OOM command not allowed when used memory > 'maxmemory'.",
                               "cache": "redis-shared.cache.svc:6379"}))
    if rc == "00" and w.r() < 0.5:  # the hold in ledger
        fail = None
        if between(t, IDX_ON, IDX_DONE) and w.r() < 0.7:
            fail = "lock"
        elif between(t, DISK_FULL, PG_BACK):
            fail = "down"
        elif between(t, GC_ON, GC_FIX) and w.r() < 0.2:
            fail = "gc"
        if fail == "lock":
            w.emit(
                t + timedelta(milliseconds=2002), "ledger", "ERROR",
                jline("ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "holds.HoldRepository",
                      "could not place hold: org.postgresql.util.PSQLException: ERROR: canceling statement "
                      "due to statement timeout"),
            )
            w.emit(t + timedelta(milliseconds=2200), "card-auth", "ERROR",
                   jline("card-auth", thread, "ledger.HoldClient",
                         f"hold failed stan={stan}: 500 Internal Server Error from POST "
                         f"https://ledger.core.svc:8443/v2/holds"),
                   pod=pod)
            rc, reason, took = "91", " reason=HOLD_FAILED", 2200 + w.n(5, 60)
        elif fail == "down":
            if amount < 100:
                w.emit(t + timedelta(milliseconds=30), "card-auth", "WARN",
                       jline("card-auth", thread, "stip.StandIn",
                             f"ledger unavailable, stand-in approval under floor limit stan={stan} "
                             f"amount={amount:.2f}"),
                       pod=pod)
            else:
                rc, reason = "91", " reason=HOLD_FAILED"
                w.emit(t + timedelta(milliseconds=40), "card-auth", "ERROR",
                       jline("card-auth", thread, "ledger.HoldClient",
                             f"hold failed stan={stan}: 503 Service Unavailable from POST "
                             f"https://ledger.core.svc:8443/v2/holds"),
                       pod=pod)
        elif fail == "gc":
            w.emit(t + timedelta(milliseconds=2500), "card-auth", "ERROR",
                   jline("card-auth", thread, "ledger.HoldClient",
                         f"hold failed stan={stan}: I/O error on POST request for "
                         f'"https://ledger.core.svc:8443/v2/holds": Read timed out'),
                   pod=pod)
            rc, reason, took = "91", " reason=HOLD_TIMEOUT", 2500 + w.n(5, 60)
        elif w.r() < 0.15:
            w.emit(t, "ledger", "INFO",
                   jline("ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "holds.HoldService",
                         f"hold placed id=H{w.n(10**8, 10**9 - 1)} amount={amount:.2f} AUD "
                         f"expires=P7D took={w.n(3, 20)}ms"))
    if between(t, K3_FAIL, K2_UP):  # acks=all producer blocks on the lost partitions
        if w.r() < 0.35:
            w.emit(t + timedelta(milliseconds=2000), "card-auth", "ERROR",
                   jline("card-auth", f"kafka-producer-network-thread | card-auth-{w.n(1, 4)}",
                         "events.AuthEventPublisher",
                         f"failed to publish auth event stan={stan} topic=card.auth.events: "
                         f"org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are "
                         f"rejected since there are fewer in-sync replicas than required."),
                   pod=pod)
            took += 2000
            if rc == "00" and w.r() < 0.4:
                rc, reason = "91", " reason=TIMEOUT"
    if w.r() < 0.55:
        verb = "approved" if rc == "00" else "declined"
        w.emit(t + timedelta(milliseconds=took), "card-auth", "INFO",
               jline("card-auth", thread, "AuthorisationService",
                     f"AUTH {verb} stan={stan} rrn={rrn} link={link} channel={channel} mcc={mcc} "
                     f"amount={amount:.2f} AUD rc={rc}{reason} took={took}ms"),
               pod=pod)
    if w.r() < 0.35:
        w.emit(t + timedelta(milliseconds=took + 2), "iso-switch", "INFO",
               f'level=info msg="0110 out" link={link} stan={stan} de39={rc} rt={took + 4}ms')
    if rc == "00" and w.r() < 0.12 and not between(t, K3_FAIL, K2_UP):
        if between(t, POISON_ON, T_END) and w.r() < 1 / 12:
            return  # card.auth.events-7 is stuck behind the bad message
        w.emit(
            t + timedelta(milliseconds=took + w.n(200, 900)), "notification", "INFO",
            pino(30, "push sent", kind="card_txn", provider=w.pick(["apns", "fcm"]), partition=w.n(0, 11),
                 latency_ms=w.n(40, 300)),
        )
    if channel == "ECOM" and amount > 60 and w.r() < 0.4:  # 3-D Secure one-time code
        if between(t, REDIS_FULL, REDIS_FIX):
            w.emit(t + timedelta(milliseconds=150), "notification", "ERROR",
                   pino(50, "OTP send deferred", topic="notify.otp",
                        err="ReplyError: OOM command not allowed when used memory > 'maxmemory'.",
                        redis="redis-shared.cache.svc:6379", retry_in_ms=30000))
        elif between(t, K3_FAIL, K2_UP):
            pass
        else:
            w.emit(t + timedelta(milliseconds=w.n(300, 1500)), "notification", "INFO",
                   pino(30, "otp sms accepted", provider="sms.example", latency_ms=w.n(90, 400)))


def flow_payment(w: World, t: datetime) -> None:
    kind = w.pick(["NPP"] * 17 + ["INTL"] * 2 + ["BPAY"])
    path = {"NPP": "/v1/payments/npp", "INTL": "/v1/payments/international", "BPAY": "/v1/payments/bpay"}[
        kind
    ]
    pid = f"PAY-{w.hexid(10).upper()}"
    thread = f"http-nio-8080-exec-{w.n(1, 200)}"
    pod = w.pod("payments", t)
    status, dur = 201, w.n(120, 900)
    if kind == "INTL":
        pair = w.pick(["AUDUSD", "AUDGBP", "AUDNZD", "AUDEUR", "AUDJPY", "AUDSGD"])
        if between(t, FX_ON, FX_FIX):
            w.emit(t + timedelta(milliseconds=8), "fx-rates", "WARN",
                   f'level=warn msg="rejecting quote request" pair={pair} '
                   f'err="unknown currency pair, expected BASE/QUOTE" client=payments')
            w.emit(t + timedelta(milliseconds=12), "payments", "ERROR",
                   jline("payments", thread, "fx.FxQuoteClient",
                         f"quote failed payment={pid} pair={pair}: 400 Bad Request from GET "
                         f"http://fx-rates.markets.svc:8080/v3/quote: "
                         f'{{"error":"unknown currency pair \'{pair}\', expected BASE/QUOTE"}}'),
                   pod=pod)
            envoy(w, t + timedelta(milliseconds=20), "POST", path, 502, UPSTREAM_IP["payments"], 21)
            return
        if w.r() < 0.5:
            w.emit(t + timedelta(milliseconds=6), "fx-rates", "INFO",
                   f'level=info msg="quote" pair={pair[:3]}/{pair[3:]} rate={0.4 + w.r():.5f} ttl=30s')
    if between(t, DISK_FULL, PG_BACK):
        w.emit(t + timedelta(milliseconds=30), "payments", "ERROR",
               jline("payments", thread, "ledger.LedgerClient",
                     f"posting failed payment={pid}: 503 Service Unavailable from POST "
                     f"https://10.20.4.21:8443/v2/postings"),
               pod=pod)
        envoy(w, t + timedelta(milliseconds=40), "POST", path, 503, UPSTREAM_IP["payments"], 41)
        return
    slow = None
    if between(t, BURST_ON, BURST_FIX):
        slow = w.n(2500, 12000)
    elif between(t, GC_ON, GC_FIX) and w.r() < 0.45:
        slow = w.n(5001, 9000)
    timeout = 5000 if t >= at(10, 10, 58, 0) else 8000
    if slow is not None:
        if w.r() < 0.4:
            w.emit(t + timedelta(milliseconds=slow), "ledger", "WARN",
                   jline("ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "posting.PostingService",
                         f"slow posting journal=J{w.n(10**9, 10**10 - 1)} took={slow}ms"))
        if slow > timeout:
            w.emit(t + timedelta(milliseconds=timeout), "payments", "ERROR",
                   jline("payments", thread, "ledger.LedgerClient",
                         f"posting failed payment={pid}: I/O error on POST request for "
                         f'"https://10.20.4.21:8443/v2/postings": Read timed out'),
                   pod=pod)
            envoy(w, t + timedelta(milliseconds=timeout + 5), "POST", path, 504, UPSTREAM_IP["payments"],
                  timeout + 5)
            return
        dur = slow + w.n(50, 200)
    if between(t, K3_FAIL, K2_UP) and w.r() < 0.7:
        w.emit(t + timedelta(milliseconds=2100), "payments", "ERROR",
               jline("payments", f"kafka-producer-network-thread | payments-{w.n(1, 3)}",
                     "events.PaymentEventPublisher",
                     f"send failed payment={pid} topic=payment.events partition={w.n(0, 11)}: "
                     f"org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected "
                     f"since there are fewer in-sync replicas than required."),
               pod=pod)
        envoy(w, t + timedelta(milliseconds=2150), "POST", path, 500, UPSTREAM_IP["payments"], 2150)
        return
    if kind == "NPP":
        x = w.r()
        code = None
        if between(t, NPP_ON, NPP_OFF) and x < 0.34:
            code = "AB08"
        elif x < 0.03:
            code = "AC01"
        elif x < 0.04:
            code = "AC04"
        if code:
            bsb = (
                f"{w.pick(['01', '03', '06', '08', '12', '18', '48', '63', '73', '92'])}"
                f"{w.n(0, 9)}-{w.n(100, 999)}"
            )
            text = {"AC01": "incorrect account number", "AC04": "closed account number",
                    "AB08": "offline creditor agent"}[code]
            w.emit(t + timedelta(milliseconds=dur), "payments", "WARN",
                   jline("payments", thread, "npp.NppGateway",
                         f"NPP payment {pid} RJCT {code} ({text}) creditor_bsb={bsb} "
                         f"hub=npp-gw.hub.example:443 took={dur}ms"),
                   pod=pod)
            envoy(w, t + timedelta(milliseconds=dur + 5), "POST", path, 422, UPSTREAM_IP["payments"], dur + 5)
            return
    if w.r() < 0.5:
        w.emit(
            t + timedelta(milliseconds=dur - 30), "ledger", "INFO",
            jline(
                "ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "posting.PostingService",
                f"posted journal=J{w.n(10**9, 10**10 - 1)} lines=2 source={kind.lower()} took={w.n(4, 30)}ms",
            ),
        )
    w.emit(t + timedelta(milliseconds=dur), "payments", "INFO",
           jline("payments", thread, "PaymentService",
                 f"payment {pid} {'ACSC settled' if kind == 'NPP' else 'accepted'} rail={kind} "
                 f"amount={round(w.r() ** 2 * 2000 + 5, 2):.2f} AUD took={dur}ms"),
           pod=pod)
    envoy(w, t + timedelta(milliseconds=dur + 4), "POST", path, status, UPSTREAM_IP["payments"], dur + 4)


def flow_browse(w: World, t: datetime) -> None:
    x = w.r()
    if x < 0.45:
        method, path, svc = "GET", f"/v1/accounts/{w.n(10**7, 10**8 - 1)}/transactions", "ledger"
    elif x < 0.7:
        method, path, svc = "GET", "/v1/accounts", "ledger"
    elif x < 0.8:
        method, path, svc = "GET", "/v1/cards", "card-auth"
    elif x < 0.9:
        method, path, svc = "GET", "/v1/customers/me/profile", "core-adapter"
    elif x < 0.96:
        method, path, svc = "GET", "/v1/fx/rates", "fx-rates"
    else:
        method, path, svc = "POST", "/v1/session/refresh", "kyc"
    status, dur, flags = 200, w.n(8, 180), "-"
    y = w.r()
    if y < 0.02:
        status = 401
    elif y < 0.03:
        status = 404
    elif y < 0.036 and method == "GET":
        status, flags, dur = 503, "UC", w.n(1, 20)
    if svc == "ledger" and between(t, DISK_FULL, PG_BACK):
        status, dur = 503, w.n(5, 40)
    elif svc == "ledger" and between(t, GC_ON, GC_FIX) and w.r() < 0.3:
        status, flags, dur = 504, "UT", 5000
    elif svc == "core-adapter" and between(t, MQ_ON, MQ_FIX):
        status, dur = 503, w.n(2, 30)
        if w.r() < 0.5:
            w.emit(
                t, "core-adapter", "ERROR",
                jline("core-adapter", f"http-nio-8080-exec-{w.n(1, 100)}", "cbs.CbsGateway",
                      "CUSTINQ failed: com.ibm.msg.client.jms.DetailedIllegalStateException: JMSWMQ0018: "
                      "Failed to connect to queue manager 'CBSQM01' with connection mode 'Client' and host "
                      "name 'cbsqm01a.dc1(1414)'. reason 2538 (MQRC_HOST_NOT_AVAILABLE)"),
            )
    elif svc == "core-adapter" and w.r() < 0.3:
        w.emit(t, "core-adapter", "INFO",
               jline("core-adapter", f"http-nio-8080-exec-{w.n(1, 100)}", "cbs.CbsGateway",
                     f"CICS CUSTINQ ok corrid={w.hexid(24)} took={w.n(20, 140)}ms"))
    envoy(w, t + timedelta(milliseconds=dur), method, path, status, UPSTREAM_IP[svc], dur, flags)


def flow_onboarding(w: World, t: datetime) -> None:
    app = f"APP-{w.n(100000, 999999)}"
    pod = w.pod("kyc", t)
    w.emit(t, "kyc", "INFO", f'level=info msg="onboarding step" application={app} step=document_upload')
    if w.r() < 0.08:
        w.emit(t + timedelta(seconds=10), "kyc", "ERROR",
               f'level=error msg="idverify check failed" application={app} '
               f'err="context deadline exceeded (Client.Timeout exceeded while awaiting headers)" '
               f"url=https://api.idverify.example/v3/checks timeout=10000ms", pod=pod)
        return
    if w.r() < 0.06:
        w.emit(t + timedelta(seconds=2), "kyc", "WARN",
               f'level=warn msg="OCR confidence below threshold" application={app} '
               f"confidence=0.{w.n(40, 69)} document=DRIVER_LICENCE", pod=pod)
    w.emit(t + timedelta(seconds=3), "kyc", "INFO",
           f'level=info msg="onboarding step" application={app} step=create_customer', pod=pod)
    if between(t, MQ_ON, MQ_FIX):
        w.emit(
            t + timedelta(seconds=3.1), "core-adapter", "ERROR",
            jline(
                "core-adapter", f"http-nio-8080-exec-{w.n(1, 100)}", "cbs.CbsGateway",
                "CUSTADD failed: com.ibm.msg.client.jms.DetailedIllegalStateException: JMSWMQ0018: Failed "
                "to connect to queue manager 'CBSQM01' with connection mode 'Client' and host name "
                "'cbsqm01a.dc1(1414)'. reason 2538 (MQRC_HOST_NOT_AVAILABLE)",
            ),
        )
        w.emit(t + timedelta(seconds=3.2), "kyc", "ERROR",
               f'level=error msg="create customer failed" application={app} status=503 '
               f"url=http://core-adapter.core.svc:8080/v1/customers "
               f'body="{{\\"error\\":\\"core banking unavailable\\"}}"', pod=pod)
        return
    cif = w.n(10**7, 10**8 - 1)
    w.emit(t + timedelta(seconds=3.4), "core-adapter", "INFO",
           jline("core-adapter", f"http-nio-8080-exec-{w.n(1, 100)}", "cbs.CbsGateway",
                 f"CICS CUSTADD ok cif={cif} corrid={w.hexid(24)} took={w.n(200, 900)}ms"))
    w.emit(t + timedelta(seconds=3.5), "kyc", "INFO",
           f'level=info msg="onboarding complete" application={app} cif={cif}', pod=pod)


# --- background ------------------------------------------------------------------------------


def background(w: World) -> None:
    m = T0
    while m < T_END:
        d = curve(m)
        for rate, flow in (
            (2.3, flow_auth), (0.75, flow_payment), (1.5, flow_browse), (0.16, flow_onboarding),
        ):
            lam = rate * d
            k = int(lam) + (1 if w.r() < lam - int(lam) else 0)
            for _ in range(k):
                flow(w, m + timedelta(seconds=w.r() * 60))
        periodic(w, m, d)
        m += timedelta(minutes=1)


def every(w: World, m: datetime, per_hour: float) -> bool:
    return w.r() < per_hour / 60


def periodic(w: World, m: datetime, d: float) -> None:
    t = m + timedelta(seconds=w.r() * 60)
    mi = m.minute + 60 * m.hour
    # fx-rates refresh and its stale exotic pair
    if mi % 5 == 0:
        w.emit(
            m + timedelta(seconds=1.2), "fx-rates", "INFO",
            f'level=info msg="rates refreshed" source=feed.rates.example pairs=164 took={w.n(80, 400)}ms',
        )
    if every(w, m, 1.5):
        w.emit(t, "fx-rates", "WARN",
               f'level=warn msg="stale rate" pair=AUD/{w.pick(["ARS", "NGN", "VES", "LKR"])} '
               f"age={w.n(310, 1800)}s max_age=300s")
    # hsm-proxy pool stats and health (every 10 minutes)
    if mi % 10 == 0:
        up_a = (
            "2m"
            if between(m, HSM_ON, HSM_ON + timedelta(minutes=4))
            else (
                f"{int((m - HSM_ON).total_seconds() // 60)}m"
                if m > HSM_ON and m - HSM_ON < timedelta(hours=1)
                else (
                    f"{38 + (m - T0).days}d"
                    if m < HSM_ON
                    else f"{int((m - HSM_ON).total_seconds() // 3600)}h"
                )
            )
        )
        w.emit(m + timedelta(seconds=0.5), "hsm-proxy", "INFO",
               f'level=info msg="health" hsm=hsm-a addr=10.40.2.11:1500 cmd=NC rt={w.n(1, 4)}ms '
               f"uptime={up_a} status=ok")
        w.emit(m + timedelta(seconds=0.6), "hsm-proxy", "INFO",
               f'level=info msg="health" hsm=hsm-b addr=10.40.2.12:1500 cmd=NC rt={w.n(1, 4)}ms '
               f"uptime={41 + (m - T0).days}d status=ok")
        w.emit(m + timedelta(seconds=0.7), "hsm-proxy", "INFO",
               f'level=info msg="pool stats" hsm-a=32/32 hsm-b=32/32 inflight={int(d * w.n(3, 9))}')
    # iso-switch echo tests: EFTPOS-2 answers slowly all day
    if every(w, m, 3):
        w.emit(t, "iso-switch", "WARN",
               'level=warn msg="0800 echo timeout" link=EFTPOS-2 '
               f"waited=5000ms stan={w.n(0, 999999):06d} link_state=UP")
    if every(w, m, 0.8):
        w.emit(t, "iso-switch", "ERROR",
               f'level=error msg="late 0110 discarded" link=MC-1 '
               f"stan={w.n(0, 999999):06d} late_by={w.n(20, 900)}ms")
    if mi % 30 == 7:
        w.emit(
            t, "iso-switch", "INFO", f'level=info msg="0800 echo ok" link={w.pick(LINKS)} rt={w.n(5, 60)}ms'
        )
    # kyc vendor timeouts (noisy all day)
    if every(w, m, 4 + 6 * d):
        w.emit(t, "kyc", "ERROR",
               'level=error msg="idverify check failed" '
               f'application=APP-{w.n(100000, 999999)} err="context deadline exceeded '
               '(Client.Timeout exceeded while awaiting headers)" '
               "url=https://api.idverify.example/v3/checks timeout=10000ms")
    if every(w, m, 1):
        w.emit(
            t, "kyc", "WARN",
            f'level=warn msg="address autocomplete degraded" provider=addressfinder rt={w.n(1500, 4000)}ms',
        )
    # notification: dead device tokens
    if every(w, m, 3):
        w.emit(t, "notification", "WARN",
               pino(40, "apns rejected token", reason="Unregistered", device=f"{w.hexid(8)}..", status=410))
    # fraud-scorer: missing device fingerprints
    if every(w, m, 4 * d + 1):
        w.emit(t, "fraud-scorer", "WARN",
               json.dumps({"event": "feature missing, imputing default", "feature": "device_fingerprint",
                           "txn": f"60{w.n(10, 99)}{w.n(10000000, 99999999)}"}))
    # ledger: idempotent replays
    if every(w, m, 2):
        w.emit(t, "ledger", "WARN",
               jline("ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "posting.IdempotencyFilter",
                     f"idempotent replay request_id={w.hexid(12)} returning stored response"))
        if w.r() < 0.8:
            w.emit(t - timedelta(milliseconds=3), "postgres", "ERROR",
                   f"[{w.n(30000, 60000)}] ledger_app@ledger ERROR:  duplicate key value violates "
                   'unique constraint "idempotency_keys_pkey"')
    # core-adapter slow CICS
    if every(w, m, 1.5):
        w.emit(t, "core-adapter", "WARN",
               jline("core-adapter", f"http-nio-8080-exec-{w.n(1, 100)}", "cbs.CbsGateway",
                     f"CICS ACCTINQ slow response {w.n(2001, 3400)}ms (threshold 2000ms)"))
    # card-auth velocity counter misses
    if every(w, m, 1):
        w.emit(t, "card-auth", "WARN",
               jline("card-auth", f"auth-worker-{w.n(1, 32)}", "velocity.VelocityService",
                     f"velocity counter miss pan_token=tk_{w.hexid(10)} rebuilding from ledger"))
    # payments: scheduled payments sweep
    if mi % 15 == 3:
        w.emit(t, "payments", "INFO",
               jline("payments", "scheduling-1", "sched.ScheduledPayments",
                     f"due scheduled payments: {int(d * w.n(5, 40))} queued"))
    # postgres checkpoints and autovacuum
    if mi % 15 == 0:
        slow_io = between(m, BURST_ON, BURST_FIX)
        wr = w.n(2500, 2700) / 10 + (w.n(300, 900) / 10 if slow_io else 0)
        sync = (w.n(300, 900) / 10) if slow_io else w.n(1, 40) / 1000
        w.emit(m, "postgres", "INFO", "[84] LOG:  checkpoint starting: time")
        w.emit(m + timedelta(seconds=wr + sync), "postgres", "INFO",
               f"[84] LOG:  checkpoint complete: wrote {w.n(3000, 40000)} buffers; "
               f"write={wr:.3f} s, sync={sync:.3f} s, total={wr + sync + 0.01:.3f} s")
    if every(w, m, 1):
        w.emit(t, "postgres", "INFO",
               f"[{w.n(30000, 60000)}] LOG:  automatic vacuum of table "
               f'"ledger.public.{w.pick(["postings", "holds", "journals", "idempotency_keys"])}": '
               f"index scans: 1, pages: 0 removed, tuples: {w.n(100, 90000)} removed")
    if every(w, m, 1.2):
        w.emit(t, "postgres", "WARN",
               f"[{w.n(30000, 60000)}] reporting@ledger WARNING:  there is no transaction in progress")
    if between(m, BURST_ON, BURST_FIX) and w.r() < 0.8:
        for _ in range(w.n(1, 3)):
            w.emit(m + timedelta(seconds=w.r() * 60), "postgres", "INFO",
                   f"[{w.n(30000, 60000)}] ledger_app@ledger LOG:  duration: "
                   f"{w.n(2500, 11000)}.{w.n(100, 999)} ms  statement: COMMIT")
    # redis persistence
    if mi % 20 == 11:
        pid = w.n(2000, 9000)
        stamp = m.strftime("%d %b %Y %H:%M:%S") + f".{w.n(100, 999)}"
        w.emit(m, "redis", "INFO", f"1:M {stamp} * 10000 changes in 60 seconds. Saving...")
        w.emit(m + timedelta(seconds=0.002), "redis", "INFO",
               f"1:M {stamp} * Background saving started by pid {pid}")
        w.emit(m + timedelta(seconds=w.n(3, 9)), "redis", "INFO", f"{pid}:C {stamp} * DB saved on disk")
    # kafka chatter
    if every(w, m, 1):
        b = w.n(1, 3)
        w.emit(t, "kafka", "WARN",
               f"[Partition {w.pick(CHATTY_TOPICS)}-{w.n(0, 11)} "
               f"broker={b}] Shrinking ISR from {b},{b % 3 + 1},{(b + 1) % 3 + 1} to {b},{b % 3 + 1}. "
               f"Leader: (highWatermark: {w.n(10**6, 10**8)}, endOffset: {w.n(10**6, 10**8)}).",
               pod=f"kafka-{b}")
    if every(w, m, 1.2):
        b = w.n(1, 3)
        w.emit(t, "kafka", "INFO",
               f"[Partition {w.pick(['card.auth.events', 'payment.events'])}-{w.n(0, 11)} "
               f"broker={b}] ISR updated to {b},{b % 3 + 1},{(b + 1) % 3 + 1} and version updated to "
               f"[{w.n(100, 900)}]", pod=f"kafka-{b}")
    if every(w, m, 0.5):
        b = w.n(1, 3)
        w.emit(t, "kafka", "INFO",
               f"[GroupCoordinator {b}]: Preparing to rebalance group "
               f"{w.pick(['core-sync', 'fraud-features', 'ledger-postings'])} in state PreparingRebalance "
               f"with old generation {w.n(100, 900)} (__consumer_offsets-{w.n(0, 49)}) "
               f"(reason: Leaving group)", pod=f"kafka-{b}")


def batches(w: World, rows: list[list[Any]]) -> None:
    """The nightly statement-batch jobs, a daily card-fee job and the month-end pre-run."""
    runs = []
    for day in (10, 11, 12):
        runs.append(("eodStatementJob", at(day, 1, 0, 2), w.n(95, 105), day))
        runs.append(("cardFeesJob", at(day, 6, 0, 1), w.n(8, 14), day))
    runs.append(("monthEndPreRunJob", at(12, 20, 0, 3), 38, 12))
    runs.sort(key=lambda r: r[1])
    for i, (job, start, mins, day) in enumerate(runs):
        end = start + timedelta(minutes=mins, seconds=w.n(0, 59))
        rid = 9100 + i
        pod = f"statement-batch-{h(job + str(day), 5)}-{h(job, 5)}"
        w.emit(start, "statement-batch", "INFO",
               f"[main] o.s.b.c.l.s.TaskExecutorJobLauncher : Job: [SimpleJob: [name={job}]] "
               f"launched with the following parameters: [{{'run.date':'{{value=2026-03-{day:02d}, "
               f"type=class java.time.LocalDate}}'}}]", pod=pod)
        steps = {
            "eodStatementJob": ["accrueInterest", "generateStatements", "publishStatements"],
            "cardFeesJob": ["assessFees"], "monthEndPreRunJob": ["snapshotBalances", "validateAccruals"],
        }[job]
        s = start
        for j, step in enumerate(steps):
            w.emit(s + timedelta(seconds=1), "statement-batch", "INFO",
                   f"[main] o.s.batch.core.job.SimpleStepHandler : Executing step: [{step}]", pod=pod)
            took = timedelta(minutes=mins) / len(steps)
            if step == "generateStatements":
                w.emit(s + took / 2, "statement-batch", "WARN",
                       f"[main] c.b.batch.SkipListener : skipped {w.n(2, 6)} item(s) in step "
                       f"generateStatements: AccountClosedException", pod=pod)
            s += took
            w.emit(s, "statement-batch", "INFO",
                   f"[main] o.s.batch.core.step.AbstractStep : Step: [{step}] executed in "
                   f"{int(took.total_seconds() // 60)}m{w.n(0, 59)}s", pod=pod)
            if j == len(steps) - 1:
                items = w.n(180000, 240000) if job == "eodStatementJob" else w.n(2000, 9000)
                w.emit(end, "statement-batch", "INFO",
                       f"[main] o.s.b.c.l.s.TaskExecutorJobLauncher : Job: [SimpleJob: "
                       f"[name={job}]] completed with the following parameters: [...] and the "
                       f"following status: [COMPLETED] in {mins}m{w.n(0, 59)}s", pod=pod)
        rows.append([f"JR-{rid}", job, wall(start), wall(end), "COMPLETED", items])


# --- the incidents' own lines ----------------------------------------------------------------


def incident_lines(w: World) -> None:
    # 01: hsm-a restarted; hsm-proxy's pooled connections to it are dead but health checks pass.
    w.emit(HSM_ON - timedelta(seconds=2), "hsm-proxy", "INFO",
           'level=info msg="health" hsm=hsm-a addr=10.40.2.11:1500 cmd=NC rt=2ms uptime=0m status=ok')
    for i in range(REPLICAS["hsm-proxy"]):
        s = HSM_FIX + timedelta(seconds=20 * i)
        w.emit(s, "hsm-proxy", "INFO", 'level=info msg="SIGTERM received, draining" inflight=4',
               pod=w.pod("hsm-proxy", s, i))
        w.emit(s + timedelta(seconds=9), "hsm-proxy", "INFO",
               'level=info msg="dialled pool" hsm=hsm-a addr=10.40.2.11:1500 conns=32',
               pod=w.pod("hsm-proxy", s, i))
    # 05: the echo timeouts that paged at 02:06 cluster a little; the link stays up (usual noise).
    for sec in (241, 318, 365, 402, 530):
        w.emit(at(11, 2, 0, sec), "iso-switch", "WARN",
               'level=warn msg="0800 echo timeout" link=EFTPOS-2 '
               f"waited=5000ms stan={w.n(0, 999999):06d} link_state=UP")
    # 02: nothing of its own beyond slowness (the cause is in db_metrics).
    # 03: fx-rates 2.9.0 quote endpoint refuses six-letter pairs (see flow_payment).
    # 04: notification's OTP consumer retries; lag grows (consumer_lag).
    t = REDIS_FULL + timedelta(seconds=40)
    while t < REDIS_FIX:
        w.emit(t, "notification", "WARN",
               pino(40, "otp consumer backing off", topic="notify.otp", group="notify",
                    pending=int((t - REDIS_FULL).total_seconds() * 2.1)))
        t += timedelta(seconds=w.n(90, 150))
    # 06: WAL archiving fails from the first segment after the key rotation; pg_wal fills.
    t, seg = ARCH_ON, 0xC1
    while t < DISK_FULL:
        name = f"0000000100003A2F000000{seg:02X}"
        w.emit(t, "postgres", "ERROR",
               f"P00  ERROR: [039]: HTTP request failed with 403 (Forbidden): [AccessDenied] "
               f"Access Denied (bucket bank-pg-backups-syd, key archive/ledger/16-1/{name[:16]}/{name})")
        w.emit(t + timedelta(milliseconds=40), "postgres", "INFO",
               "[312] LOG:  archive command failed with exit code 39")
        w.emit(t + timedelta(milliseconds=41), "postgres", "INFO",
               f"[312] DETAIL:  The failed archive command was: pgbackrest --stanza=ledger "
               f"archive-push pg_wal/{name}")
        if (t - ARCH_ON).total_seconds() % 180 < 62:
            w.emit(t + timedelta(seconds=2), "postgres", "WARN",
                   f'[312] WARNING:  archiving write-ahead log file "{name}" failed too many '
                   f"times, will try again later")
        t += timedelta(seconds=60)
    w.emit(
        DISK_FULL, "postgres", "FATAL",
        '[48890] ledger_app@ledger PANIC:  could not write to file "pg_wal/xlogtemp.48890": No space left '
        "on device",
    )
    w.emit(DISK_FULL + timedelta(seconds=0.2), "postgres", "INFO",
           "[1] LOG:  server process (PID 48890) was terminated by signal 6: Aborted")
    w.emit(DISK_FULL + timedelta(seconds=0.3), "postgres", "INFO",
           "[1] LOG:  terminating any other active server processes")
    w.emit(DISK_FULL + timedelta(seconds=2), "postgres", "INFO", "[1] LOG:  database system is shut down")
    t = DISK_FULL + timedelta(seconds=70)
    while t < PG_BACK - timedelta(seconds=60):
        pid = w.n(20, 60)
        w.emit(t, "postgres", "INFO", "[1] LOG:  starting PostgreSQL 16.2 on x86_64-pc-linux-gnu")
        w.emit(t + timedelta(seconds=1), "postgres", "INFO",
               "[" + str(pid) + "] LOG:  database "
               "system was interrupted; last known up at 2026-03-11 07:47:12 AEDT")
        w.emit(t + timedelta(seconds=3), "postgres", "FATAL",
               f'[{pid}] FATAL:  could not write to file "pg_wal/xlogtemp.{pid}": No space left on device')
        t += timedelta(seconds=w.n(110, 170))
    w.emit(PG_BACK, "postgres", "INFO", "[1] LOG:  database system is ready to accept connections")
    t = DISK_FULL + timedelta(seconds=5)
    while t < PG_BACK:
        w.emit(t, "ledger", "ERROR",
               jline("ledger", f"http-nio-8443-exec-{w.n(1, 200)}", "db.DataSourceHealth",
                     "HikariPool-1 - Connection is not available, request timed out after 2000ms. "
                     "org.postgresql.util.PSQLException: Connection to pg-ledger.db.svc:5432 refused."))
        t += timedelta(seconds=w.n(20, 50))
    # 08: the MQ channel breaks as CBSQM01 moves to its standby; core-adapter only knows the primary.
    for i in range(REPLICAS["core-adapter"]):
        s = MQ_ON + timedelta(seconds=i * 0.4)
        w.emit(
            s, "core-adapter", "ERROR",
            jline("core-adapter", "mq-listener-1", "cbs.MqSession",
                  "JMSWMQ1107: A problem with this connection has occurred. An error has occurred with the "
                  "IBM MQ JMS connection to queue manager 'CBSQM01'. reason 2009 (MQRC_CONNECTION_BROKEN)"),
            pod=w.pod("core-adapter", s, i),
        )
    t = MQ_ON + timedelta(seconds=30)
    while t < MQ_FIX:
        w.emit(t, "core-adapter", "WARN",
               jline("core-adapter", "mq-reconnect-1", "cbs.MqSession",
                     "reconnect to queue manager 'CBSQM01' at cbsqm01a.dc1(1414) failed: reason 2538 "
                     "(MQRC_HOST_NOT_AVAILABLE); next attempt in 30s"))
        t += timedelta(seconds=w.n(28, 34))
    w.emit(MQ_FIX + timedelta(seconds=40), "core-adapter", "INFO",
           jline("core-adapter", "mq-reconnect-1", "cbs.MqSession",
                 "connected to queue manager 'CBSQM01' at cbsqm01b.dc2(1414) channel BANK.SVRCONN"))
    # 09: ledger 7.3.2's flyway migration V212 builds an index on holds without CONCURRENTLY.
    w.emit(IDX_ON - timedelta(seconds=1), "ledger", "INFO",
           jline("ledger", "main", "o.f.core.internal.command.DbMigrate",
                 'Migrating schema "public" to version "212 - holds merchant index"'))
    w.emit(
        IDX_ON, "postgres", "INFO",
        "[51277] ledger_migrator@ledger LOG:  statement: CREATE INDEX idx_holds_merchant_created ON holds "
        "(merchant_id, created_at)",
    )
    t = IDX_ON + timedelta(seconds=14)
    while t < IDX_DONE:
        pid = w.n(30000, 60000)
        w.emit(t, "postgres", "INFO",
               f"[{pid}] ledger_app@ledger LOG:  process {pid} still "
               f"waiting for RowExclusiveLock on relation 16719 of database 16384 after "
               f"1000.{w.n(50, 400)} ms")
        w.emit(t + timedelta(milliseconds=1), "postgres", "INFO",
               f"[{pid}] ledger_app@ledger "
               f"DETAIL:  Process holding the lock: 51277. Wait queue: {pid}, {pid + 7}, {pid + 19}.")
        w.emit(t + timedelta(milliseconds=1001), "postgres", "ERROR",
               f"[{pid}] ledger_app@ledger ERROR:  canceling statement due to statement timeout")
        w.emit(t + timedelta(milliseconds=1002), "postgres", "INFO",
               f"[{pid}] ledger_app@ledger "
               "STATEMENT:  INSERT INTO holds (id, account_id, merchant_id, amount, created_at, "
               "expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        t += timedelta(seconds=w.n(15, 40))
    w.emit(IDX_DONE, "postgres", "INFO",
           "[51277] ledger_migrator@ledger LOG:  duration: 2132417.552 ms  statement: CREATE INDEX "
           "idx_holds_merchant_created ON holds (merchant_id, created_at)")
    w.emit(IDX_DONE + timedelta(seconds=1), "ledger", "INFO",
           jline("ledger", "main", "o.f.core.internal.command.DbMigrate",
                 'Successfully applied 1 migration to schema "public", now at version v212 (execution time '
                 "35:32.417s)"))
    # 10: kafka-2 drained for patching; kafka-3's log dir fails; partitions lose their ISR.
    w.emit(K2_DOWN, "kafka", "INFO", "[KafkaServer id=2] shutting down", pod="kafka-2")
    w.emit(K2_DOWN + timedelta(seconds=21), "kafka", "INFO", "[KafkaServer id=2] shut down completed",
           pod="kafka-2")
    for b in (1, 3):
        for p in range(12):
            w.emit(
                K2_DOWN + timedelta(seconds=25 + p * 0.3 + b), "kafka", "WARN",
                f"[Partition {w.pick(['card.auth.events', 'payment.events', 'ledger.postings'])}-{p} "
                f"broker={b}] Shrinking ISR from {b},2,{4 - b} to {b},{4 - b}. Leader: "
                f"(highWatermark: {w.n(10**6, 10**8)}, endOffset: {w.n(10**6, 10**8)}).", pod=f"kafka-{b}",
            )
    w.emit(K3_FAIL, "kafka", "ERROR",
           "Error while writing to checkpoint file /data/kafka/replication-offset-checkpoint "
           "(kafka.server.LogDirFailureChannel) java.io.IOException: Input/output error", pod="kafka-3")
    w.emit(K3_FAIL + timedelta(seconds=0.1), "kafka", "ERROR",
           "[ReplicaManager broker=3] Stopping serving replicas in dir /data/kafka "
           "(kafka.server.ReplicaManager)", pod="kafka-3")
    w.emit(K3_FAIL + timedelta(seconds=0.3), "kafka", "ERROR",
           "Shutdown broker because all log dirs in /data/kafka have failed (kafka.log.LogManager)",
           pod="kafka-3")
    t = K3_FAIL + timedelta(seconds=5)
    while t < K2_UP:
        topic = w.pick(["card.auth.events", "payment.events", "ledger.postings", "notify.otp"])
        w.emit(t, "kafka", "ERROR",
               f"[ReplicaManager broker=1] Error processing append operation "
               f"on partition {topic}-{w.n(0, 11)} (kafka.server.ReplicaManager) org.apache.kafka."
               f"common.errors.NotEnoughReplicasException: The size of the current ISR Set(1) is "
               f"insufficient to satisfy the min.isr requirement of 2 for partition {topic}-{w.n(0, 11)}",
               pod="kafka-1")
        if w.r() < 0.3:
            w.emit(t + timedelta(seconds=1), "notification", "ERROR",
                   pino(50, "consumer error", group="notify",
                        err="KafkaJSProtocolError: This server is not the leader for that topic-partition",
                        broker="kafka-3.kafka.svc:9092"))
        if w.r() < 0.3:
            w.emit(t + timedelta(seconds=2), "ledger", "ERROR",
                   jline("ledger", "outbox-relay-1", "outbox.OutboxRelay",
                         "relay failed topic=ledger.postings: "
                         "org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected "
                         "since there are fewer in-sync replicas than required."))
        t += timedelta(seconds=w.n(6, 18))
    w.emit(K2_UP, "kafka", "INFO", "[KafkaServer id=2] started (kafka.server.KafkaServer)", pod="kafka-2")
    for p in range(6):
        w.emit(K2_UP + timedelta(seconds=30 + p), "kafka", "INFO",
               f"[Partition card.auth.events-{p} "
               f"broker=1] ISR updated to 1,2 and version updated to [{w.n(100, 900)}]", pod="kafka-1")
    # 12: ledger's heap is full; back-to-back full GCs stall it (metrics); Hikari notices the clock.
    t = GC_ON + timedelta(seconds=50)
    while t < GC_FIX:
        w.emit(t, "ledger", "WARN",
               jline("ledger", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.HikariPool",
                     f"HikariPool-1 - Thread starvation or clock leap detected (housekeeper "
                     f"delta={w.n(8, 16)}s{w.n(100, 999)}ms)."))
        t += timedelta(seconds=w.n(70, 160))
    for i in range(REPLICAS["ledger"]):
        s = GC_FIX + timedelta(seconds=50 * i)
        w.emit(s, "ledger", "INFO",
               jline("ledger", "main", "LedgerApplication",
                     "Started LedgerApplication in 44.1 seconds (process running for 46.0)"),
               pod=w.pod("ledger", s, i))
    # 14: one message on card.auth.events-7 cannot be parsed; the consumer retries it forever.
    t = POISON_ON
    first = True
    while t < T_END:
        w.emit(t, "notification", "ERROR",
               pino(50, "failed to process message", topic="card.auth.events", partition=7, offset=88412931,
                    group="notify-card-txn",
                    err="SyntaxError: Unexpected token '\\u0000' in JSON at position 211"))
        if first or w.r() < 0.5:
            w.emit(
                t + timedelta(milliseconds=5), "notification", "WARN",
                pino(
                    40, "consumer crashed, restarting", group="notify-card-txn", restart_in_ms=3000, retries=8
                ),
            )
        first = False
        t += timedelta(seconds=w.n(40, 90))


# --- tables ----------------------------------------------------------------------------------


def slots() -> list[datetime]:
    out, t = [], T0
    while t < T_END:
        out.append(t)
        t += timedelta(minutes=5)
    return out


def tables(w: World) -> None:
    rng = random.Random(SEED + 1)

    def j(x: float, pct: float = 0.08) -> float:
        return x * (1 + (rng.random() * 2 - 1) * pct)

    base_rps = {
        "api-gateway": 120, "card-auth": 95, "iso-switch": 96, "fraud-scorer": 60, "ledger": 140,
        "core-adapter": 22, "payments": 18, "notification": 30, "kyc": 4, "fx-rates": 9, "hsm-proxy": 80,
    }
    base_p99 = {"api-gateway": 420, "card-auth": 240, "iso-switch": 260, "fraud-scorer": 45, "ledger": 60,
                "core-adapter": 1800, "payments": 1200, "notification": 350, "kyc": 9000, "fx-rates": 30,
                "hsm-proxy": 18}
    mem = {"api-gateway": 180, "card-auth": 1650, "iso-switch": 240, "fraud-scorer": 900, "ledger": 2900,
           "core-adapter": 1400, "payments": 1500, "notification": 310, "kyc": 260, "fx-rates": 120,
           "hsm-proxy": 90}
    sm: list[list[Any]] = []
    for t in slots():
        d = curve(t)
        for s in base_rps:
            rps, p50, p99 = j(base_rps[s] * (d + 0.05)), None, j(base_p99[s], 0.15)
            err, cpu = j(0.3, 0.5), j(12 + 45 * d, 0.1)
            if s == "kyc":
                err = j(6.5, 0.3)
            heap, gc = "", ""
            if s in JVM:
                heap_v, gc_v = j(55, 0.1), j(120 + 200 * d, 0.3)
                if s == "ledger" and LEDGER_732 <= t < GC_FIX:
                    heap_v = min(99.2, 42 + (t - LEDGER_732).total_seconds() / 3600 * 2.65)
                    heap_v = j(heap_v, 0.01)
                    if heap_v > 90:
                        gc_v = 400 + (heap_v - 90) ** 2.6 * 60
                    if t >= GC_ON:
                        heap_v, gc_v = j(98.6, 0.005), j(41000, 0.1)
                        p99, err = j(7600, 0.15), j(9.0, 0.3)
                heap, gc = round(min(heap_v, 99.6), 1), int(gc_v)
            if s == "card-auth" and between(t, HSM_ON - timedelta(minutes=2), HSM_FIX):
                p99, err = j(2100, 0.05), j(24, 0.2)
            if s == "hsm-proxy" and between(t, HSM_ON - timedelta(minutes=2), HSM_FIX):
                p99, err = j(3050, 0.02), j(30, 0.2)
            if s in ("ledger", "payments") and between(t, BURST_ON, BURST_FIX):
                p99, err = j(9800 if s == "ledger" else 5010, 0.1), j(2.5 if s == "ledger" else 41, 0.2)
            if s == "fx-rates" and between(t, FX_ON - timedelta(minutes=1), FX_FIX):
                err = j(34, 0.15)
            if s == "payments" and between(t, FX_ON - timedelta(minutes=1), FX_FIX):
                err = j(9.5, 0.2)
            if s in ("ledger", "payments", "card-auth", "api-gateway") and between(
                t, DISK_FULL - timedelta(minutes=4), PG_BACK
            ):
                err = j({"ledger": 99, "payments": 97, "card-auth": 12, "api-gateway": 38}[s], 0.02)
            if s == "card-auth" and between(t, THR_ON - timedelta(minutes=4), THR_FIX):
                err = j(0.3, 0.5)
            if s in ("core-adapter", "kyc") and between(t, MQ_ON - timedelta(minutes=4), MQ_FIX):
                err = j(92 if s == "core-adapter" else 71, 0.05)
            if s in ("ledger", "card-auth") and between(t, IDX_ON - timedelta(minutes=2), IDX_DONE):
                p99, err = j(2050 if s == "ledger" else 2260, 0.05), j(61 if s == "ledger" else 22, 0.1)
            if s in ("card-auth", "payments", "ledger", "notification") and between(
                t, K3_FAIL - timedelta(minutes=3), K2_UP
            ):
                err = j({"card-auth": 14, "payments": 66, "ledger": 8, "notification": 40}[s], 0.1)
                p99 = j(2300, 0.1) if s != "notification" else p99
            if s == "payments" and between(t, GC_ON, GC_FIX):
                p99, err = j(5020, 0.02), j(19, 0.2)
            if s == "payments" and between(t, NPP_ON - timedelta(minutes=2), NPP_OFF):
                err = j(30, 0.1)
            if s == "notification" and between(t, REDIS_FULL - timedelta(minutes=3), REDIS_FIX):
                err = j(28, 0.1)
            if s == "notification" and t >= POISON_ON - timedelta(minutes=4):
                err = j(1.1, 0.2)
            p50 = max(1, int(p99 / j(7, 0.2)))
            sm.append([wall(t), s, round(rps, 1), p50, int(p99), round(err, 2), round(cpu, 1),
                       int(j(mem[s], 0.03)), heap, gc])
    w.table("service_metrics",
            ["ts", "service", "rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct", "mem_mb", "heap_used_pct",
             "gc_pause_ms"],
            sm)

    dbm: list[list[Any]] = []
    burst = 100.0
    for t in slots():
        d = curve(t)
        # pg-ledger: a gp2 volume until CHG 12:05 on the 10th (burst credits), gp3 after.
        gp2 = t < BURST_FIX
        demand = 1800 + 5200 * d
        if gp2:
            if demand > 3000:
                burst -= (demand - 3000) / 3000 * 6.0
            else:
                burst += (3000 - demand) / 3000 * 4.0
            burst = max(0.0, min(100.0, burst))
            if t >= BURST_ON:
                burst = 0.0
        iops = min(demand, 3000) if (gp2 and burst <= 0.5) else demand
        wms = j(38, 0.2) if (gp2 and burst <= 0.5) else j(1.3, 0.2)
        used, wal, failed = 86.0 + (t - T0).total_seconds() / 86400 * 0.3, j(4.1, 0.1), 0
        if between(t, ARCH_ON, DISK_FULL):
            frac = (t - ARCH_ON) / (DISK_FULL - ARCH_ON)
            wal = 4.1 + 52 * frac
            used = used + (100 - used) * frac
            failed = int((t - ARCH_ON).total_seconds() // 60)
        elif between(t, DISK_FULL, PG_BACK):
            wal, used, failed = 56.2, 100.0, int((t - ARCH_ON).total_seconds() // 60)
        if t >= at(11, 8, 24, 0):
            used = used * 400 / 600 if t >= PG_BACK else used
            if t < at(11, 9, 10, 0):
                wal = 56.2 * max(0.0, 1 - (t - PG_BACK) / (at(11, 9, 10, 0) - PG_BACK)) + 4.1
        up = not between(t, DISK_FULL, PG_BACK)
        conns = int(j(140 + 90 * d, 0.05)) if up else 0
        dbm.append(
            [wall(t), "pg-ledger", conns, 400, int(j(900 + 2600 * d, 0.1)) if up else 0,
             round(j(18 + 50 * d, 0.1), 1) if up else 0, int(iops if up else 0),
             round(burst, 1) if gp2 else "", round(wms, 1), round(min(used, 100.0), 1), round(wal, 1),
             failed]
        )
        dbm.append([wall(t), "pg-ledger-ro", int(j(40 + 30 * d, 0.1)), 400, int(j(200 + 500 * d)),
                    round(j(10 + 20 * d, 0.1), 1), int(j(400 + 900 * d)), "", round(j(1.1), 1),
                    round(71.0 + (t - T0).total_seconds() / 86400 * 0.2, 1), round(j(1.2), 1), 0])
        dbm.append(
            [wall(t), "pg-kyc", int(j(20 + 10 * d, 0.1)), 200, int(j(20 + 60 * d)),
             round(j(4 + 8 * d, 0.1), 1), int(j(100 + 200 * d)), "", round(j(1.4), 1), round(54.0, 1),
             round(j(0.8), 1), 0]
        )
    w.table("db_metrics",
            ["ts", "instance", "connections", "max_connections", "tps", "cpu_pct", "iops",
             "burst_balance_pct", "disk_write_ms", "disk_used_pct", "wal_size_gb", "archive_failed_count"],
            dbm)

    rm: list[list[Any]] = []
    oom = 0
    for t in slots():
        d = curve(t)
        used = j(2150, 0.02)
        if between(t, REDIS_TTL, REDIS_FULL):
            used = 2150 + (4096 - 2150) * ((t - REDIS_TTL) / (REDIS_FULL - REDIS_TTL)) ** 1.1
        elif between(t, REDIS_FULL, REDIS_FIX):
            used = 4096
            oom += int(j(900 * d + 100, 0.2))
        elif between(t, REDIS_FIX, at(11, 2, 0, 0)):
            used = 4096 - (4096 - 2150) * (t - REDIS_FIX) / (at(11, 2, 0, 0) - REDIS_FIX)
        evicted = int(j(800, 0.5)) if between(t, REDIS_FIX, at(10, 21, 30, 0)) else 0
        rm.append(
            [wall(t), "redis-shared", int(used), 4096, "noeviction" if t < REDIS_FIX else "volatile-lru",
             evicted, oom, int(j(9000 * d + 500, 0.1)), int(j(380, 0.05))]
        )
        rm.append([wall(t), "redis-session", int(j(610, 0.03)), 2048, "allkeys-lru", 0, 0,
                   int(j(2500 * d + 200, 0.1)), int(j(120, 0.05))])
    w.table("redis_metrics",
            ["ts", "instance", "used_memory_mb", "maxmemory_mb", "maxmemory_policy", "evicted_keys",
             "errorstat_oom", "ops_per_s", "connected_clients"],
            rm)

    km: list[list[Any]] = []
    for t in slots():
        for b in (1, 2, 3):
            online = 1
            urp, offline, dirs = (1 if rng.random() < 0.08 else 0), 0, 0
            if b == 2 and between(t, K2_DOWN, K2_UP):
                online = 0
            if b == 3 and between(t, K3_FAIL, at(11, 19, 40, 0)):
                online, dirs = 0, 1
            if online and between(t, K2_DOWN, at(11, 19, 45, 0)):
                urp = 96 if not between(t, K3_FAIL, K2_UP) else 0
                offline = 61 if between(t, K3_FAIL, K2_UP) and b == 1 else 0
            km.append([wall(t), f"kafka-{b}", online, urp if online else "", offline, dirs,
                       int(j(2400 * curve(t) + 200)) if online else 0])
    w.table("kafka_brokers",
            ["ts", "broker", "online", "under_replicated_partitions", "offline_partitions",
             "offline_log_dirs", "messages_in_per_s"],
            km)

    cl: list[list[Any]] = []
    for t in slots():
        d = curve(t)
        for group, topic in (
            ("notify", "notify.otp"), ("notify-card-txn", "card.auth.events"),
            ("ledger-postings", "payment.events"), ("fraud-features", "card.auth.events"),
            ("core-sync", "ledger.postings"),
        ):
            lag = int(j(30 + 60 * d, 0.5))
            if group == "notify" and between(t, REDIS_FULL, REDIS_FIX + timedelta(minutes=15)):
                lag = int(40 + 2.1 * (min(t, REDIS_FIX) - REDIS_FULL).total_seconds())
            if group == "notify-card-txn" and t >= POISON_ON:
                lag = lag + int((t - POISON_ON).total_seconds() * 0.45)
            if between(t, K3_FAIL, K2_UP + timedelta(minutes=10)):
                lag = int(j(5000, 0.3))
            cl.append([wall(t), group, topic, lag])
    w.table("consumer_lag", ["ts", "group", "topic", "lag"], cl)

    au: list[list[Any]] = []
    for t in slots():
        d = curve(t)
        for ch, share in (("POS", 0.25), ("CONTACTLESS", 0.38), ("ECOM", 0.27), ("ATM", 0.1)):
            req = int(j(95 * 300 * d * share + 20))
            rc = {k: int(req * v * j(1, 0.2))
                  for k, v in (
                      ("05", 0.015), ("51", 0.04), ("59", 0.003 if ch == "ECOM" else 0), ("91", 0.002),
                      ("96", 0.0005),
                  )}
            p95 = int(j(180, 0.1))
            if ch != "ECOM" and between(t, HSM_ON, HSM_FIX):
                rc["91"], p95 = int(req * 0.55), 2010
            if ch == "ECOM" and between(t, THR_ON, THR_FIX):
                rc["59"] = int(req * 0.3)
            if between(t, IDX_ON, IDX_DONE):
                rc["91"], p95 = int(req * 0.33), 2240
            if between(t, DISK_FULL, PG_BACK):
                rc["91"] = int(req * 0.3)
            if between(t, K3_FAIL, K2_UP):
                rc["91"], p95 = int(req * 0.05), 2150
            if between(t, GC_ON, GC_FIX):
                rc["91"], p95 = int(req * 0.09), 2500
            approved = req - sum(rc.values())
            au.append([wall(t), ch, req, approved, rc["05"], rc["51"], rc["59"], rc["91"], rc["96"], p95])
    w.table("auth_stats",
            ["ts", "channel", "requests", "approved", "rc05", "rc51", "rc59", "rc91", "rc96", "p95_ms"], au)

    npp: list[list[Any]] = []
    for t in slots():
        d = curve(t)
        sub = int(j(18 * 300 * d * 0.85 + 5))
        rej = int(sub * j(0.04, 0.2))
        top = "AC01"
        if between(t, NPP_ON, NPP_OFF):
            rej, top = int(sub * j(0.36, 0.05)), "AB08"
        if between(t, DISK_FULL, PG_BACK) or between(t, K3_FAIL, K2_UP):
            sub = int(sub * 0.3)
            rej = int(sub * 0.04)
        npp.append([wall(t), sub, sub - rej, rej, top, int(j(640, 0.1))])
    w.table("npp_stats", ["ts", "submitted", "settled", "rejected", "top_reject_code", "p95_ms"], npp)

    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"),
            [[d, s, v, f"registry.bank.example/{s}:{v}", zulu(t),
              zulu(t + timedelta(seconds=200 + i * 7)), "SUCCEEDED", "argocd", summ]
             for i, (d, s, v, t, summ) in enumerate(w.deploys)])


DEPLOYS = engine.table(at, "sssts", """
DEP-4410 | card-auth | 3.18.2 | 10 08:31:00 | merchant category overrides for MCC 4829
DEP-4411 | payments | 5.2.0 | 10 13:31:00 | PayTo mandate list endpoint
DEP-4412 | fx-rates | 2.9.0 | 10 13:58:00 | quote API v3: pairs as BASE/QUOTE, drop legacy pair codes
DEP-4413 | fx-rates | 2.8.4 | 10 14:41:00 | rollback of 2.9.0
DEP-4414 | notification | 2.12.0 | 10 19:05:00 | new push templates for card controls
DEP-4415 | ledger | 7.3.1 | 11 07:32:00 | postings: channel column (V211)
DEP-4416 | card-auth | 3.18.3 | 11 09:52:00 | log masking for track2 equivalent data
DEP-4424 | fx-rates | 2.9.1 | 11 11:00:00 | quote API v3 accepts legacy six-letter pairs
DEP-4417 | kyc | 4.1.0 | 11 12:20:00 | liveness check v2 (selfie video)
DEP-4418 | ledger | 7.3.2 | 11 14:55:00 | holds by merchant report (V212)
DEP-4419 | notification | 2.12.1 | 11 17:40:00 | push template copy fixes
DEP-4425 | hsm-proxy | 1.6.0 | 12 08:05:00 | validate pooled connections on borrow
DEP-4420 | payments | 5.3.0 | 12 09:40:00 | PayTo mandate amendments
DEP-4421 | fx-rates | 2.9.2 | 12 13:45:00 | spread tables per segment
DEP-4422 | kyc | 4.1.1 | 12 16:10:00 | liveness retries
DEP-4423 | card-auth | 3.19.0 | 12 19:55:00 | token lifecycle events for wallets
""")

CHANGES = [
    ("CHG-5510", "payments", "npp.timeout_ms", "8000", "5000", "a.kowalczyk", at(10, 10, 58, 0), "PAY-1192"),
    (
        "CHG-5511", "postgres", "pg-ledger.volume_type", "gp2 (4500 iops burst)", "gp3 (12000 iops)",
        "dba.oncall", at(10, 12, 5, 0), "INC-2231",
    ),
    (
        "CHG-5512", "fraud-scorer", "feature_cache.ttl_s", "3600", "86400", "r.singh", at(10, 13, 10, 0),
        "RISK-404",
    ),
    ("CHG-5513", "kyc", "idverify.timeout_ms", "8000", "10000", "m.nguyen", at(10, 14, 2, 0), "ONB-377"),
    (
        "CHG-5514", "redis", "redis-shared.maxmemory-policy", "noeviction", "volatile-lru", "sre.oncall",
        at(10, 20, 12, 0), "INC-2233",
    ),
    (
        "CHG-5515", "fraud-scorer", "feature_cache.ttl_s", "86400", "3600", "r.singh", at(10, 20, 20, 0),
        "INC-2233",
    ),
    (
        "CHG-5516", "postgres", "pgbackrest.repo1-s3-key", "AKIA****7Q2M", "AKIA****K4XD", "secops-rotator",
        at(11, 7, 18, 0), "SEC-ROT-88",
    ),
    (
        "CHG-5517", "postgres", "pg-ledger.volume_size_gb", "400", "600", "dba.oncall", at(11, 8, 24, 0),
        "INC-2236",
    ),
    ("CHG-5518", "fx-rates", "quote.cache_ttl_s", "30", "60", "j.obrien", at(11, 10, 5, 0), "MKT-88"),
    (
        "CHG-5519", "fraud-scorer", "score.decline_threshold", "0.85", "0.58", "r.singh", at(11, 10, 14, 0),
        "RISK-411",
    ),
    (
        "CHG-5520", "fraud-scorer", "score.decline_threshold", "0.58", "0.85", "r.singh", at(11, 10, 58, 0),
        "INC-2238",
    ),
    (
        "CHG-5521", "core-adapter", "mq.connection_name_list", "cbsqm01a.dc1(1414)",
        "cbsqm01a.dc1(1414),cbsqm01b.dc2(1414)", "l.tan", at(11, 13, 2, 0), "INC-2239",
    ),
    (
        "CHG-5522", "card-auth", "kafka.producer.linger_ms", "5", "10", "p.murphy", at(11, 17, 50, 0),
        "CARD-902",
    ),
    (
        "CHG-5523", "kafka", "kafka-2.node_state", "in-service", "maintenance (OS patching)", "infra-bot",
        at(11, 17, 55, 0), "PATCH-2026-03",
    ),
    (
        "CHG-5524", "hsm-proxy", "pool.validate_on_borrow", "false", "true", "s.ahmed", at(12, 8, 15, 0),
        "INC-2230",
    ),
    ("CHG-5525", "fx-rates", "feed.poll_interval_s", "60", "30", "j.obrien", at(12, 11, 30, 0), "MKT-91"),
    (
        "CHG-5526", "payments", "npp.retry_backoff_ms", "500", "2000", "a.kowalczyk", at(12, 13, 50, 0),
        "PAY-1201",
    ),
    (
        "CHG-5527", "notification", "push.apns.collapse", "false", "true", "k.lee", at(12, 19, 50, 0),
        "APP-1310",
    ),
]

MIGRATIONS = [[208, "208", "holds expiry index", "V208__holds_expiry_idx.sql", "ledger_migrator",
               "2026-02-17 10:04:12", 912, 1],
              [209, "209", "journals reversal ref", "V209__journals_reversal_ref.sql", "ledger_migrator",
               "2026-02-24 14:21:55", 230, 1],
              [210, "210", "postings source column", "V210__postings_source.sql", "ledger_migrator",
               "2026-03-03 09:12:40", 188, 1],
              [211, "211", "postings channel column", "V211__postings_channel.sql", "ledger_migrator",
               "2026-03-11 07:34:51", 204, 1],
              [212, "212", "holds merchant index", "V212__holds_merchant_idx.sql", "ledger_migrator",
               "2026-03-11 15:02:08", 2132417, 1]]

DEPENDENCIES = [
    ["api-gateway", "payments", "http", "10.20.9.31:8080"],
    ["api-gateway", "ledger", "https", "10.20.4.21:8443"],
    ["api-gateway", "card-auth", "http", "10.20.5.18:8080"],
    ["api-gateway", "core-adapter", "http", "10.20.3.9:8080"],
    ["api-gateway", "kyc", "http", "10.20.11.7:8080"],
    ["api-gateway", "fx-rates", "http", "10.20.12.40:8080"],
    ["iso-switch", "card-auth", "tcp", "card-auth.cards.svc:9010"],
    ["card-auth", "hsm-proxy", "grpc", "hsm-proxy.security.svc:7400"],
    ["card-auth", "fraud-scorer", "http", "fraud-scorer.risk.svc:8500"],
    ["card-auth", "ledger", "https", "ledger.core.svc:8443"],
    ["card-auth", "redis", "redis", "redis-session.cache.svc:6379"],
    ["card-auth", "kafka", "kafka", "kafka-bootstrap.kafka.svc:9092"],
    ["hsm-proxy", "hsm-a", "tcp", "10.40.2.11:1500"], ["hsm-proxy", "hsm-b", "tcp", "10.40.2.12:1500"],
    ["fraud-scorer", "redis", "redis", "redis-shared.cache.svc:6379"],
    ["fraud-scorer", "kafka", "kafka", "kafka-bootstrap.kafka.svc:9092"],
    ["ledger", "postgres", "postgres", "pg-ledger.db.svc:5432"],
    ["ledger", "postgres", "postgres", "pg-ledger-ro.db.svc:5432"],
    ["ledger", "kafka", "kafka", "kafka-bootstrap.kafka.svc:9092"],
    ["payments", "ledger", "https", "10.20.4.21:8443"],
    ["payments", "fx-rates", "http", "fx-rates.markets.svc:8080"],
    ["payments", "fraud-scorer", "http", "fraud-scorer.risk.svc:8500"],
    ["payments", "npp-hub", "https", "npp-gw.hub.example:443"],
    ["payments", "kafka", "kafka", "kafka-bootstrap.kafka.svc:9092"],
    ["core-adapter", "core-banking", "ibmmq", "cbsqm01a.dc1:1414"],
    ["kyc", "core-adapter", "http", "core-adapter.core.svc:8080"],
    ["kyc", "idverify", "https", "api.idverify.example:443"],
    ["kyc", "postgres", "postgres", "pg-kyc.db.svc:5432"],
    ["notification", "kafka", "kafka", "kafka-bootstrap.kafka.svc:9092"],
    ["notification", "redis", "redis", "redis-shared.cache.svc:6379"],
    ["notification", "sms-aggregator", "https", "sms.example:443"],
    ["notification", "apns", "https", "api.push.apple.com:443"],
    ["statement-batch", "postgres", "postgres", "pg-ledger-ro.db.svc:5432"],
    ["statement-batch", "core-adapter", "http", "core-adapter.core.svc:8080"],
    ["fx-rates", "rates-feed", "https", "feed.rates.example:443"],
    ["fx-rates", "redis", "redis", "redis-shared.cache.svc:6379"],
]

RUNBOOKS = {
    "platform-overview": """# Cards & payments platform: on-call overview

Owner: platform engineering. Times are Sydney time (AEDT, UTC+11) unless a tool says otherwise;
metric exports are in Sydney wall time, deploys in UTC, envoy access lines start with a UTC time.

## Flow

- Card authorisations (0100) arrive from the schemes at iso-switch and go to card-auth, which
  verifies the chip cryptogram (ARQC) through hsm-proxy (two HSMs, hsm-a and hsm-b), asks
  fraud-scorer for a risk score (e-commerce always, card-present sampled), places a hold in
  ledger and publishes the outcome to kafka (card.auth.events, acks=all, min.insync.replicas=2).
- The app and internet banking call api-gateway (envoy). Transfers go to payments: Osko/NPP
  through the NPP hub, international transfers with an fx-rates quote; every payment is posted
  in ledger (postgres pg-ledger, replica pg-ledger-ro).
- kyc onboards customers and creates them in the core banking system through core-adapter
  (IBM MQ to queue manager CBSQM01). notification sends pushes (card.auth.events) and 3-D Secure
  one-time codes (notify.otp), de-duplicated in redis-shared.
- statement-batch runs the end-of-day statement job at 01:00 and card fees at 06:00.

## Where to look

- `dependencies` for every edge and address; `service_metrics`, `auth_stats`, `npp_stats`,
  `db_metrics`, `redis_metrics`, `kafka_brokers`, `consumer_lag` for numbers; `deploys`,
  `config_changes`, `schema_migrations`, `batch_runs` for changes and jobs.
""",
    "known-noise": """# Known noise

Owner: platform engineering. These appear every day and do not mean customers are affected.

- kyc "idverify check failed ... context deadline exceeded": the identity vendor times out on a
  few percent of checks all day; the applicant retries. kyc error_pct sits around 6%.
- iso-switch "0800 echo timeout link=EFTPOS-2": the EFTPOS-2 link answers echo tests slowly;
  the link stays up. "late 0110 discarded link=MC-1" is a scheme response after our timeout.
- kafka "Shrinking ISR" / "ISR updated" for single partitions: followers fall behind briefly.
- notification "apns rejected token" (Unregistered): the app was removed from the phone.
- fraud-scorer "feature missing, imputing default" for device_fingerprint: older app versions.
- ledger "idempotent replay" with postgres "duplicate key ... idempotency_keys_pkey": clients
  retrying a posting they already made; the stored response is returned.
- postgres "there is no transaction in progress" from user reporting: the BI tool.
- core-adapter "CICS ACCTINQ slow response": the mainframe is slow on some inquiries.
- envoy 503 UC on GET: connections closed by an upstream pod being rotated.
""",
    "auth-latency": """# card-auth: authorisation timeouts and RC 91

Owner: cards. card-auth must answer the scheme within 2.5 s; past that the scheme stands in
or declines, and card-auth itself answers 91 (issuer or switch inoperative) when a step fails.

## Symptoms

- `auth_stats.rc91` and `p95_ms` up, card-auth ERROR lines, customers' cards declined at the
  terminal.

## Finding the cause

- Most RC 91 storms have been the HSMs: card-auth logs DEADLINE_EXCEEDED from
  hsm-proxy.security.svc:7400. Check hsm-proxy's log for i/o timeouts per HSM (hsm-a is
  10.40.2.11, hsm-b 10.40.2.12) and its health lines (the `uptime` of each HSM: an HSM that
  restarted drops its sessions without closing the TCP connections).
- Restarting hsm-proxy re-dials every pooled connection. Tell security operations.
- If the HSMs look fine, check the scheme links in iso-switch (echo tests, sign-on).
""",
    "postgres-disk-space": """# pg-ledger: disk space and pg_wal

Owner: DBA. pg-ledger's data volume holds the database and pg_wal. WAL segments are removed
only after they are archived (pgbackrest archive-push to the bank-pg-backups-syd bucket) and a
checkpoint has passed; if archiving fails, pg_wal grows until the volume is full and postgres
PANICs ("No space left on device") and cannot start again until space is freed.

## Finding the cause

- `db_metrics.wal_size_gb` and `archive_failed_count` for pg-ledger; the postgres log's
  "archive command failed" lines and pgbackrest's own error (403 means the backup key or its
  bucket policy).
- The disk filling is the consequence; find when archiving started to fail and why.

## Mitigation

- Fix archiving first (the key in pgbackrest.repo1-s3-key), then grow the volume if postgres
  cannot start. Never delete files from pg_wal by hand.
""",
    "mq-core-banking": """# core-adapter and IBM MQ

Owner: core integration. core-adapter talks to the core banking system over IBM MQ (queue
manager CBSQM01, channel BANK.SVRCONN). The mainframe team fails CBSQM01 over between
cbsqm01a.dc1 and cbsqm01b.dc2 for maintenance; clients must list both in their connection name
list (mq.connection_name_list) to follow it.

- reason 2009 MQRC_CONNECTION_BROKEN: the connection dropped. reason 2538
  MQRC_HOST_NOT_AVAILABLE: nothing listening at that host and port.
""",
}


def incident(w: World, **kw: Any) -> None:
    """Record one truth entry, its fields by name (``expected`` is the outcome)."""
    w.incidents.append(engine.incident(
        iso, kw["id"], kw["kind"], kw["question"], kw["service"], kw["start"], kw["end"], kw.get("onset"),
        kw.get("cause_service"), kw.get("root_cause"), kw.get("key_terms", []), kw.get("distractors", []),
        kw.get("runbook"), kw.get("evidence", []), kw.get("expected", "SUCCESS"),
        **engine.given(**{k: kw.get(k) for k in ("decoy_runbook", "runbook_query", "note")})))


logs_ev = partial(engine.log_step, iso)


def truth(w: World) -> None:
    s, e = at(10, 8, 50), at(10, 9, 10)
    incident(
        w, id="LEDGER-01", kind="logs_only",
        question="card-auth is declining card-present transactions with RC 91 all over the place — "
        "08:50 to 09:10 AEDT, 10 March 2026. What's the root cause?", service="card-auth", start=s, end=e,
        onset=HSM_ON, cause_service="hsm-proxy",
        root_cause="hsm-a (10.40.2.11:1500) restarted at 08:47 (health check uptime 0m) and "
        "dropped its sessions without closing the TCP connections; hsm-proxy kept "
        "using its dead pooled connections to hsm-a (its health check opens a new "
        "connection and passed), so every ARQC verification routed to hsm-a waited "
        "the 3 s read timeout, card-auth's 2 s deadline expired and it answered 91, "
        "until hsm-proxy was restarted at 09:16", key_terms=["hsm-proxy", "hsm-a"],
        distractors=["card-auth deploy DEP-4410 (3.18.2, MCC overrides) at 08:31 (21:31Z the day before)",
                     "iso-switch EFTPOS-2 echo timeouts (always there)"],
        runbook="auth-latency", runbook_query="card-auth RC 91 authorisation timeouts",
        evidence=[
            logs_ev("hsm-proxy", s - timedelta(minutes=5), e, "10.40.2.11:1500: i/o timeout", level="ERROR"),
            logs_ev("card-auth", s, e, "hsm-proxy.security.svc:7400", level="ERROR"),
            logs_ev("hsm-proxy", s - timedelta(minutes=5), e, "uptime=0m", pattern="health hsm-a"),
        ],
    )
    s, e = at(10, 11, 20), at(10, 11, 50)
    incident(
        w, id="LEDGER-02", kind="metrics_deps",
        question="payments: Osko transfers timing out on the ledger posting from about 11:15 — 11:20 to "
        "11:50 AEDT on 10 Mar 2026. What's the cause?", service="payments", start=s, end=e, onset=BURST_ON,
        cause_service="postgres",
        root_cause="pg-ledger's gp2 data volume ran out of I/O burst credits at 11:12 under the "
        "morning load (burst_balance_pct 0), so its IOPS were capped at the 3000 "
        "baseline and disk write latency went from ~1 ms to ~38 ms; commits in "
        "pg-ledger took seconds, ledger postings took 3-12 s and payments' calls to "
        "ledger timed out, until the volume was changed to gp3 (CHG-5511) at 12:05",
        key_terms=["pg-ledger", "burst"],
        distractors=["payments config change CHG-5510 (npp.timeout_ms 8000 -> 5000) at 10:58",
                     "kafka 'Shrinking ISR' warnings (always there)"],
        evidence=[logs_ev("payments", s, e, "Read timed out", level="ERROR"),
                  sql_ev("SELECT ts, instance, burst_balance_pct, iops, disk_write_ms FROM db_metrics "
                         f"WHERE instance = 'pg-ledger' AND burst_balance_pct < 1 AND ts BETWEEN "
                         f"'{zulu(s)}' AND '{zulu(e)}' ORDER BY ts", "pg-ledger"),
                  sql_ev("SELECT caller, callee, address FROM dependencies WHERE caller = 'ledger'",
                         "pg-ledger.db.svc:5432")],
    )
    s, e = at(10, 14, 5), at(10, 14, 30)
    incident(
        w, id="LEDGER-03", kind="change",
        question="api-gateway is returning 502 for POST /v1/payments/international since about 14:00. "
        "14:05 to 14:30 AEDT on 10 Mar 2026 — what's the root cause?", service="api-gateway", start=s,
        end=e, onset=FX_ON, cause_service="fx-rates",
        root_cause="fx-rates 2.9.0 (deploy DEP-4412, 13:58) changed its quote API to take currency "
        "pairs only as BASE/QUOTE and dropped the six-letter codes payments sends "
        "(AUDUSD): every quote for an international transfer got 400 'unknown "
        "currency pair' and payments answered 502, until the rollback DEP-4413 at 14:41",
        key_terms=["fx-rates", "2.9.0"],
        distractors=["payments deploy DEP-4411 (5.2.0) at 13:31",
                     "kyc config change CHG-5513 (idverify.timeout_ms) at 14:02"],
        evidence=[
            logs_ev("payments", s, e, "unknown currency pair", level="ERROR"),
            logs_ev("fx-rates", s, e, "rejecting quote request", level="WARN"),
            sql_ev("SELECT deploy_id, service, version, started_at, summary FROM deploys WHERE "
                   f"started_at BETWEEN '{zulu(s - timedelta(minutes=40))}' AND '{zulu(e)}'", "DEP-4412"),
        ],
    )
    s, e = at(10, 19, 40), at(10, 20, 0)
    incident(
        w, id="LEDGER-04", kind="trap_noisy_service",
        question="notification: customers aren't getting SMS one-time codes for online card payments — "
        "19:40–20:00 AEDT on 10 March 2026. kyc has been throwing errors all evening; is kyc "
        "the problem?", service="notification", start=s, end=e, onset=REDIS_FULL, cause_service="redis",
        root_cause="redis-shared (redis-shared.cache.svc:6379) reached maxmemory (4096 MB) at 19:33 "
        "with maxmemory-policy noeviction: memory had grown all afternoon since "
        "fraud-scorer's feature cache TTL went from 1 h to 24 h (CHG-5512, 13:10); writes "
        "were refused with OOM, notification could not record its OTP de-duplication "
        "keys and deferred every one-time code, until the policy became volatile-lru "
        "(CHG-5514) at 20:12; the kyc vendor timeouts are the usual noise",
        key_terms=["redis", "maxmemory"],
        distractors=["kyc idverify timeouts (always there)",
                     "notification deploy DEP-4414 (2.12.0, push templates) at 19:05"],
        evidence=[
            logs_ev("notification", s, e, "OOM command not allowed", level="ERROR"),
            sql_ev("SELECT ts, instance, used_memory_mb, maxmemory_mb, maxmemory_policy FROM "
                   "redis_metrics WHERE instance = 'redis-shared' AND used_memory_mb >= "
                   f"maxmemory_mb AND ts BETWEEN '{zulu(s)}' AND '{zulu(e)}' ORDER BY ts", "noeviction"),
            sql_ev("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM "
                   "config_changes WHERE service = 'fraud-scorer'", "feature_cache.ttl_s"),
        ],
    )
    s, e = at(11, 2, 0), at(11, 2, 20)
    incident(
        w, id="LEDGER-05", kind="no_incident",
        question="Got paged for iso-switch echo timeouts at 02:06 AEDT on 11 Mar 2026. Can you check "
        "02:00–02:20 and tell me whether anything is really broken?", service="iso-switch", start=s, end=e,
        onset=None, cause_service=None, root_cause=None,
        distractors=[
            "iso-switch EFTPOS-2 echo timeouts (always there)", "kyc idverify timeouts (always there)",
        ],
        expected="FALLBACK",
        note="night traffic and the end-of-day batch only: the usual echo timeouts, metrics at "
        "baseline, no changes",
    )
    s, e = at(11, 7, 55), at(11, 8, 15)
    incident(
        w, id="LEDGER-06", kind="trap_late_symptom",
        question="Card auths and transfers both erroring since ~07:50 — 07:55 to 08:15 AEDT, "
        "Wed 11 March 2026. What broke?", service=None, start=s, end=e, onset=ARCH_ON,
        cause_service="postgres",
        root_cause="WAL archiving on pg-ledger failed from 07:21: the pgbackrest key was rotated at "
        "07:18 (CHG-5516) and archive-push got 403 AccessDenied from the backup bucket, so "
        "no WAL segment could be recycled and pg_wal grew until the volume was full at "
        "07:49; postgres PANICked (No space left on device) and could not restart, ledger "
        "lost its database and payments and card holds failed (card-auth stood in under "
        "the floor limit), until the volume was grown (CHG-5517) and postgres came back "
        "at 08:26", key_terms=["archive", "wal"],
        distractors=["ledger deploy DEP-4415 (7.3.1, V211) at 07:32",
                     "'No space left on device' (a consequence, 28 minutes after the cause)"],
        runbook="postgres-disk-space", runbook_query="postgres pg_wal disk full no space left on device",
        evidence=[
            logs_ev("postgres", s - timedelta(minutes=40), e, "archive command failed", pattern="archive"),
            logs_ev("postgres", s - timedelta(minutes=40), e, "403 (Forbidden)", level="ERROR"),
            sql_ev("SELECT ts, instance, wal_size_gb, disk_used_pct, archive_failed_count FROM "
                   "db_metrics WHERE instance = 'pg-ledger' AND archive_failed_count > 0 AND ts "
                   f"BETWEEN '{zulu(s - timedelta(minutes=40))}' AND '{zulu(e)}' ORDER BY ts", "pg-ledger"),
        ],
    )
    s, e = at(11, 10, 20), at(11, 10, 45)
    incident(
        w, id="LEDGER-07", kind="change",
        question="card-auth: e-commerce declines with RC 59 shot up around quarter past ten — window "
        "10:20 to 10:45 AEDT, Wed 11/03/2026. What changed?", service="card-auth", start=s, end=e,
        onset=THR_ON, cause_service="fraud-scorer",
        root_cause="config change CHG-5519 (10:14) set fraud-scorer's score.decline_threshold from "
        "0.85 to 0.58 (a transposed value): a third of e-commerce transactions scored "
        "between 0.58 and 0.85 and were declined as suspected fraud (RC 59), until "
        "CHG-5520 restored 0.85 at 10:58", key_terms=["fraud-scorer", "threshold"],
        distractors=["card-auth deploy DEP-4416 (3.18.3, log masking) at 09:52",
                     "fx-rates config change CHG-5518 (quote.cache_ttl_s) at 10:05"],
        evidence=[
            logs_ev("card-auth", s, e, "rc=59 reason=RISK", pattern="declined ECOM"),
            sql_ev("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM "
                   f"config_changes WHERE changed_at BETWEEN '{zulu(s - timedelta(minutes=30))}' "
                   f"AND '{zulu(e)}'", "CHG-5519"),
            sql_ev("SELECT ts, channel, requests, rc59 FROM auth_stats WHERE channel = 'ECOM' AND "
                   f"rc59 * 10 > requests AND ts BETWEEN '{zulu(s)}' AND '{zulu(e)}' ORDER BY ts", "ECOM"),
        ],
    )
    s, e = at(11, 12, 30), at(11, 12, 50)
    incident(
        w, id="LEDGER-08", kind="trap_unrelated_change",
        question="kyc: new-customer onboarding is failing at the 'create customer' step — since our "
        "kyc 4.1.0 release at 12:20 AEDT on 11 Mar 2026. 12:30 to 12:50, is the release to blame?",
        service="kyc", start=s, end=e, onset=MQ_ON, cause_service="core-adapter",
        root_cause="core-adapter lost its IBM MQ connection to the core banking queue manager CBSQM01 "
        "at 12:24 (reason 2009) when CBSQM01 moved to its standby, and could not "
        "reconnect because its connection name list held only the primary "
        "cbsqm01a.dc1(1414) (reason 2538 MQRC_HOST_NOT_AVAILABLE); customer creation and "
        "profile reads failed with 503 until CHG-5521 added cbsqm01b.dc2 at 13:02; kyc "
        "4.1.0 (DEP-4417) was unrelated", key_terms=["core-adapter", "queue manager"],
        distractors=[
            "kyc deploy DEP-4417 (4.1.0, liveness v2) at 12:20", "kyc idverify timeouts (always there)",
        ],
        evidence=[
            logs_ev("kyc", s, e, "http://core-adapter.core.svc:8080/v1/customers", level="ERROR"),
            logs_ev("core-adapter", s - timedelta(minutes=10), e, "MQRC_CONNECTION_BROKEN", level="ERROR"),
            logs_ev("core-adapter", s, e, "MQRC_HOST_NOT_AVAILABLE", level="WARN"),
        ],
    )
    s, e = at(11, 15, 10), at(11, 15, 30)
    incident(
        w, id="LEDGER-09", kind="trap_runbook_words",
        question="card-auth: authorisations timing out, lots of RC 91 from about 15:05 — 15:10 to 15:30 "
        "AEDT, 11 March 2026. Root cause?", service="card-auth", start=s, end=e, onset=IDX_ON,
        cause_service="ledger",
        root_cause="ledger 7.3.2 (DEP-4418) ran flyway migration V212 at 15:02, a CREATE INDEX on the "
        "holds table without CONCURRENTLY: the index build held a SHARE lock on holds for "
        "35 minutes, every hold insert waited for its lock until the 2 s statement "
        "timeout, ledger answered 500 and card-auth declined with 91, until the index was "
        "built at 15:37; the HSMs were fine", key_terms=["index", "holds"],
        distractors=["runbook auth-latency (HSM timeouts, restart hsm-proxy) matches the symptom's words",
                     "iso-switch EFTPOS-2 echo timeouts (always there)"],
        decoy_runbook="auth-latency", runbook_query="card-auth RC 91 authorisation timeouts",
        evidence=[
            logs_ev("postgres", s - timedelta(minutes=10), e, "CREATE INDEX idx_holds_merchant_created",
                    pattern="statement"),
            logs_ev("postgres", s, e, "still waiting for RowExclusiveLock", pattern="waiting"),
            logs_ev("card-auth", s, e, "https://ledger.core.svc:8443/v2/holds", level="ERROR"),
            sql_ev("SELECT version, description, installed_on, execution_time FROM schema_migrations WHERE "
                   "version = '212'", "holds merchant index"),
        ],
    )
    s, e = at(11, 18, 5), at(11, 18, 25)
    incident(
        w, id="LEDGER-10", kind="system_wide",
        question="Everything payments-related fell over just after 6 pm — card auths slow, transfers "
        "failing, no push notifications. 18:05 to 18:25 AEDT, Wednesday 11 March 2026. "
        "What broke?", service=None, start=s, end=e, onset=K3_FAIL, cause_service="kafka",
        root_cause="kafka lost two of its three brokers: kafka-2 was drained for OS patching at 17:58 "
        "(CHG-5523) and at 18:03 kafka-3's log directory /data/kafka failed (I/O error) and "
        "it shut down; with one broker left no partition had the two in-sync replicas "
        "min.insync.replicas requires, so every acks=all producer (card-auth, payments, "
        "ledger's outbox) got NotEnoughReplicas and consumers lost their leaders, until "
        "kafka-2 came back at 18:31", key_terms=["kafka-3", "kafka-2"],
        distractors=["card-auth config change CHG-5522 (kafka.producer.linger_ms) at 17:50",
                     "notification deploy DEP-4419 (2.12.1) at 17:40"],
        evidence=[
            logs_ev(
                "kafka", s - timedelta(minutes=5), e, "all log dirs in /data/kafka have failed", level="ERROR"
            ),
            logs_ev("payments", s, e, "NotEnoughReplicasException", level="ERROR"),
            sql_ev("SELECT ts, broker, online, offline_log_dirs FROM kafka_brokers WHERE online = 0 "
                   f"AND ts BETWEEN '{zulu(s)}' AND '{zulu(e)}' ORDER BY ts", "kafka-3"),
        ],
    )
    s, e = at(12, 9, 35), at(12, 9, 55)
    incident(
        w, id="LEDGER-11", kind="no_incident",
        question="We shipped payments 5.3.0 at 09:40 AEDT on 12 March 2026 and I see some errors around "
        "it. Is anything actually wrong between 09:35 and 09:55?", service="payments", start=s, end=e,
        onset=None, cause_service=None, root_cause=None,
        distractors=["payments deploy DEP-4420 (5.3.0) at 09:40 (went out cleanly)",
                     "payments NPP RJCT AC01 warnings (always there)"],
        expected="FALLBACK",
        note="a clean deploy: payments restarted without errors, NPP rejections at their usual rate "
        "(AC01), only the usual noise",
    )
    s, e = at(12, 11, 45), at(12, 12, 5)
    incident(
        w, id="LEDGER-12", kind="metrics_deps",
        question="payments: transfers intermittently timing out against 10.20.4.21:8443 — 11:45 to "
        "12:05 AEDT, 12 Mar 2026. What's going on?", service="payments", start=s, end=e, onset=GC_ON,
        cause_service="ledger",
        root_cause="ledger's JVM heap had been filling since 7.3.2 (DEP-4418, Wednesday 14:55) and from "
        "11:36 was ~98% used: back-to-back full GC pauses (gc_pause_ms ~41 s per 5 min) "
        "stalled ledger (10.20.4.21:8443), so postings and holds timed out, until the "
        "ledger pods were restarted at 12:14", key_terms=["ledger", "heap"],
        distractors=["payments deploy DEP-4420 (5.3.0) at 09:40",
                     "fx-rates config change CHG-5525 (feed.poll_interval_s) at 11:30"],
        evidence=[
            logs_ev("payments", s, e, "https://10.20.4.21:8443/v2/postings", level="ERROR"),
            sql_ev(
                "SELECT caller, callee, address FROM dependencies WHERE address = '10.20.4.21:8443'", "ledger"
            ),
            sql_ev("SELECT ts, service, heap_used_pct, gc_pause_ms FROM service_metrics WHERE "
                   f"service = 'ledger' AND gc_pause_ms > 20000 AND ts BETWEEN '{zulu(s)}' AND "
                   f"'{zulu(e)}' ORDER BY ts", "ledger"),
        ],
    )
    s, e = at(12, 14, 0), at(12, 14, 20)
    incident(
        w, id="LEDGER-13", kind="trap_unrelated_change",
        question="Osko transfers are being rejected a lot more since ~13:55 — payments, 14:00 to 14:20 "
        "AEDT on 12 March 2026. We pushed CHG-5526 (npp.retry_backoff_ms) at 13:50 and fx-rates "
        "2.9.2 at 13:45; is one of those it?", service="payments", start=s, end=e, onset=NPP_ON,
        cause_service="NPP hub / receiving banks (external)",
        root_cause="not determinable from this data: the NPP hub answered RJCT AB08 (offline creditor "
        "agent) for payments to many different receiving banks at normal latency; payments "
        "sent as before — CHG-5526 only changes the back-off of retries (AB08 is not "
        "retried) and fx-rates 2.9.2 is not on the domestic path", key_terms=[],
        distractors=["payments config change CHG-5526 (npp.retry_backoff_ms) at 13:50",
                     "fx-rates deploy DEP-4421 (2.9.2) at 13:45"],
        expected="FALLBACK",
        evidence=[
            logs_ev("payments", s, e, "RJCT AB08", pattern="RJCT"),
            sql_ev("SELECT ts, submitted, rejected, top_reject_code FROM npp_stats WHERE rejected * 5 "
                   f"> submitted AND ts BETWEEN '{zulu(s)}' AND '{zulu(e)}' ORDER BY ts", "AB08"),
        ],
        note="the right answer is a FALLBACK (or the hub's / receiving banks' side); blaming CHG-5526 "
        "or DEP-4421 is wrong",
    )
    s, e = at(12, 20, 10), at(12, 20, 30)
    incident(
        w, id="LEDGER-14", kind="logs_only",
        question="notification: some customers stopped getting card transaction push alerts around 8pm — "
        "20:10 to 20:30 AEDT, 12 March 2026. What's the root cause?", service="notification", start=s,
        end=e, onset=POISON_ON, cause_service="notification",
        root_cause="a message at card.auth.events partition 7, offset 88412931 (a merchant name with a "
        "NUL byte) could not be parsed; notification's card-transaction consumer crashed on "
        "it, restarted and read the same offset again, over and over from 20:04, with no "
        "dead-letter, so partition 7 (about 1 in 12 cards) got no pushes",
        key_terms=["notification", "partition"],
        distractors=["card-auth deploy DEP-4423 (3.19.0, wallet token events) at 19:55",
                     "notification config change CHG-5527 (push.apns.collapse) at 19:50",
                     "statement-batch monthEndPreRunJob at 20:00"],
        evidence=[
            logs_ev("notification", s, e, '"partition": 7', level="ERROR"),
            logs_ev(
                "notification", s - timedelta(minutes=10), e, "consumer crashed, restarting", level="WARN"
            ),
        ],
    )


def build() -> World:
    w = World()
    for dep in DEPLOYS:
        w.deploy(*dep)
    batch_rows: list[list[Any]] = []
    batches(w, batch_rows)
    incident_lines(w)
    background(w)
    tables(w)
    w.table("batch_runs", ["run_id", "job_name", "started_at", "ended_at", "status", "items"], batch_rows)
    w.table("config_changes", engine.columns("CONFIG_AUDIT"),
            [[c, s, k, o, n, by, iso(t), tk] for c, s, k, o, n, by, t, tk in CHANGES])
    w.table("schema_migrations", engine.columns("FLYWAY"), MIGRATIONS)
    w.table("dependencies", engine.columns("DEPENDENCIES"), DEPENDENCIES)
    w.runbooks.update(RUNBOOKS)
    truth(w)
    return w


def world() -> tuple[World, dict[str, Any], dict[str, Any]]:
    w = build()
    about = engine.manifest(NAME, "Australia/Sydney", "A retail bank's card and payments platform",
                            "2026-03-10..12 Sydney time (AEDT)", 14, "15 services",
                            "request and authorisation")
    return w, about, engine.truth_file(NAME, "+11:00", sorted(w.incidents, key=lambda i: i["id"]), (
        "Questions are asked in Sydney time (AEDT, UTC+11) unless they say otherwise; metric tables are "
        "exported in Sydney wall time, deploys in UTC."))


main = engine.main(NAME, world, __name__)
