"""Write the held-out "rides" world: a ride-hailing platform in São Paulo.

Three days (2026-08-18..20, Tuesday to Thursday, Brasília time: BRT, UTC-03:00, no daylight saving,
America/Sao_Paulo) of logs from 14 components, the ops tables the on-call has (dependencies, deploys,
config changes, a Flyway schema history, feature-flag audit, certificates, job runs, a CloudWatch
export in long form and a wide per-service export every five minutes) and five runbooks, with 10
incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_rides.py [OUT_DIR]   # writes OUT_DIR/rides/ (default tests/data/worlds)

The platform ("Corrida"): the rider and driver apps talk to **envoy** (the API gateway, Envoy's
default access log, UTC); **dispatch** (Go, zap JSON, epoch seconds) matches ride requests to
drivers found in the geo index in **redis** (a Redis Cluster, redis-geo-1..3) and asks **fraud**
(Python on gunicorn) to score every request; **pricing** (Python) quotes fares and surge from a
tariff table; **trips** (Java/Spring, BRT wall time) keeps trips in **mysql** (trips-db-1, UTC
error log) and indexes them into **elasticsearch** (es-data-1..3, JSON log, UTC) for trip search;
**payments** (Node, pino JSON, epoch milliseconds) charges cards at the PSP Pagora over mTLS;
**location** (Go, logfmt, UTC) ingests driver pings into **kafka** (kafka-1..3, log4j, BRT wall
time) and from there into the geo index — and warns all day about bad GPS fixes; **eta** (Rust,
UTC) asks the external maps API RotaMaps for routes; **notify** (Elixir, time of day only) pushes
through FCM and APNs; **settlement** is the nightly driver payout batch (02:00).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta, timezone
from functools import partialmethod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import every  # noqa: E402
from worlds.engine import inside as during
from worlds.engine import zulu as iso

NAME, SEED = "rides", 140818
SERVICES = (
    "envoy", "dispatch", "pricing", "trips", "mysql", "payments", "kafka", "location", "redis", "eta",
    "notify", "fraud", "elasticsearch", "settlement",
)
BRT = timezone(timedelta(hours=-3))
LOCAL = engine.Clock(BRT, datetime(2026, 8, 18, tzinfo=BRT))
DAY0, END = LOCAL.days(3)
at, lt = LOCAL.at, LOCAL.iso




# The stories (BRT): (start of the cause's effects, end of the effects)
TARIFF = (at(0, 8, 12, 4), at(0, 9, 2))  # RIDES-01 tariff file with a decimal comma (gru-t2)
BURST = (at(0, 15, 2), at(0, 16, 5))  # RIDES-03 trips-db-1 gp2 volume out of burst credits
MTLS = (at(0, 18, 21, 30), at(0, 19, 8))  # RIDES-04 payments-psp-mtls rotated to a CA the PSP lacks
KDISK = (at(1, 7, 31, 12), at(1, 8, 24))  # RIDES-05 kafka-3 disk full, NOT_ENOUGH_REPLICAS
MAPS = (at(1, 11, 4), at(1, 11, 52))  # RIDES-06 RotaMaps outage (trap: eta config change 10:58)
FRAUD = (at(1, 14, 1, 10), at(1, 14, 52))  # RIDES-07 fraud model 4x bigger, workers OOM killed
FCM = (at(1, 17, 36, 12), at(1, 18, 21))  # RIDES-08 FCM key deleted by the rotation job
ESDISK = (at(2, 6, 32, 40), at(2, 7, 58))  # RIDES-09 es-data-2 flood stage, trips indexer blocks
ESBLOCK = (at(2, 7, 4, 50), at(2, 7, 58))  # ... trips' indexer queue full from here
PING = (at(2, 14, 1, 7), at(2, 14, 52))  # RIDES-10 adaptive_ping_interval 100% (trap: dispatch 5.2.0)


class World(engine.Dataset):
    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END, SERVICES)

    hexid = engine.Dataset.plain_hex

    def ride(self) -> str:
        return f"r_{self.hexid(6)}{self.ri(1000, 9999)}"

    driver = partialmethod(engine.Dataset.numbered, "d_", 100000, 999999)


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,), ())
    w.table("job_runs", engine.columns("CRON_RUNS"), nightly(w))
    incidents(w)
    metrics(w)
    return w, engine.manifest(NAME, "America/Sao_Paulo", "Corrida, a ride-hailing platform in São Paulo",
                              "2026-08-18..20 Brasília time (BRT)", 10, SERVICES, dayfirst=True), truth()

# ---- native line formats -------------------------------------------------------------------

UPSTREAMS = {"dispatch": "10.40.2", "pricing": "10.40.3", "trips": "10.40.4", "payments": "10.40.5",
             "location": "10.40.6", "eta": "10.40.7"}
AGENTS = (
    "Corrida/8.4.1 (Android 14; SM-A546E)", "Corrida/8.4.1 (Android 13; moto g54)",
    "Corrida/8.4.0 (iOS 17.5; iPhone14,7)", "CorridaMotorista/5.9.2 (Android 14; Redmi Note 13)",
)


def envoy(
    w: World, t: datetime, method: str, path: str, status: int, ms: int, up: str, flags: str = "-"
) -> None:
    level = "INFO" if status < 400 else ("WARN" if status < 500 else "ERROR")
    u = t.astimezone(UTC)
    stamp = f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond // 1000:03d}Z"
    host = f"{UPSTREAMS[up]}.{w.ri(10, 40)}:8080" if flags not in ("UH", "UF") else "-"
    ust = str(max(ms - w.ri(1, 3), 0)) if status < 500 or flags == "-" else "-"
    w.emit(
        t, "envoy", level,
        f'[{stamp}] "{method} {path} HTTP/2" {status} {flags} {w.ri(0, 900)} {w.ri(60, 4200)} {ms} '
        f'{ust} "{w.ri(177, 201)}.{w.ri(1, 254)}.{w.ri(1, 254)}.{w.ri(1, 254)}" "{w.pick(AGENTS)}" '
        f'"{w.hexid(8)}-{w.hexid(4)}-{w.hexid(4)}-{w.hexid(4)}-{w.hexid(12)}" "api.corrida.app" "{host}"',
    )


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **fields) -> None:
    d = {"level": level.lower(), "ts": round(t.timestamp(), 3), "caller": caller, "msg": msg}
    d.update(fields)
    w.emit(t, "dispatch", level, json.dumps(d, separators=(",", ":"), ensure_ascii=False))


def pylog(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    name = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, "pricing", level,
           f"{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {name} [{logger}] {msg}")


def spring(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    w.emit(t, "trips", level,
           f"{t.strftime('%Y-%m-%d %H:%M:%S')}.{t.microsecond // 1000:03d} {level:>5} 1 --- [{thread}] "
           f"{logger} : {msg}")


def mysql(
    w: World, t: datetime, level: str, code: str, msg: str, thread: int = 0, sub: str = "Server"
) -> None:
    u = t.astimezone(UTC)
    lv = {"WARN": "Warning", "INFO": "Note", "ERROR": "ERROR", "DEBUG": "Note"}[level]
    w.emit(t, "mysql", level,
           f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond:06d}Z {thread} [{lv}] [{code}] [{sub}] {msg}")


def pino(w: World, t: datetime, level: str, msg: str, **fields) -> None:
    d = {"level": {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50}[level],
         "time": int(t.timestamp() * 1000), "pid": 1,
         "hostname": f"payments-6d9f7c{w.pick('bdf')}-{w.pick(('x2kq9', 'm7wzp', 'c4hrt'))}"}
    d.update(fields)
    d["msg"] = msg
    w.emit(t, "payments", level, json.dumps(d, separators=(",", ":"), ensure_ascii=False))


def kafka(w: World, t: datetime, level: str, msg: str, cls: str) -> None:
    w.emit(t, "kafka", level,
           f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d}] {level} {msg} ({cls})")


def logfmt(w: World, t: datetime, level: str, msg: str, **fields) -> None:
    u = t.astimezone(UTC)
    stamp = f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond // 1000:03d}Z"
    parts = [f"time={stamp}", f"level={level.lower()}", f'msg="{msg}"']
    for k, v in fields.items():
        v = str(v)
        parts.append(f'{k}="{v}"' if (" " in v or '"' in v) else f"{k}={v}")
    w.emit(t, "location", level, " ".join(parts))


def redis(w: World, t: datetime, level: str, node: str, mark: str, msg: str, role: str = "M") -> None:
    w.emit(t, "redis", level,
           f"{node} 1:{role} {t.strftime('%d %b %Y %H:%M:%S')}.{t.microsecond // 1000:03d} {mark} {msg}")


def tracing(w: World, t: datetime, level: str, target: str, msg: str) -> None:
    u = t.astimezone(UTC)
    w.emit(
        t, "eta", level, f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond:06d}Z {level:>5} {target}: {msg}"
    )


def elixir(w: World, t: datetime, level: str, msg: str) -> None:
    lv = {"WARN": "warning"}.get(level, level.lower())
    w.emit(t, "notify", level, f"{t.strftime('%H:%M:%S')}.{t.microsecond // 1000:03d} [{lv}] {msg}")


def gunicorn(w: World, t: datetime, level: str, pid: int, msg: str) -> None:
    lv = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, "fraud", level, f"[{t.strftime('%Y-%m-%d %H:%M:%S')} -0300] [{pid}] [{lv}] {msg}")


def es(w: World, t: datetime, level: str, node: str, logger: str, msg: str) -> None:
    u = t.astimezone(UTC)
    d = {
        "@timestamp": f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond // 1000:03d}Z", "log.level": level,
        "message": msg, "ecs.version": "1.2.0", "service.name": "ES_ECS",
        "event.dataset": "elasticsearch.server", "log.logger": logger, "elasticsearch.node.name": node,
        "elasticsearch.cluster.name": "trips-search",
    }
    w.emit(t, "elasticsearch", level, json.dumps(d, separators=(",", ":")))


def batch(w: World, t: datetime, level: str, msg: str) -> None:
    w.emit(t, "settlement", level, f"{t.strftime('%Y-%m-%d %H:%M:%S')} [settlement-nightly] {level} {msg}")


ZONES = ("sp-centro", "sp-pinheiros", "sp-moema", "sp-zona-sul", "sp-zona-leste", "gru-t2", "cgh", "abc")
CITIES = ("sao-paulo", "campinas", "santos")


# the day's load in steps: (until the hour, load)
DAY_STEPS = ((5, 0.2), (7, 0.55), (10, 1.2), (17, 0.9), (20, 1.25), (23, 0.8))


def load(t: datetime) -> float:
    """Traffic by hour of BRT day: two rush hours, a busy evening, quiet nights."""
    return engine.stepped(DAY_STEPS, t.hour, 0.4)


# ---- an ordinary minute ----------------------------------------------------------------------


def background(w: World, t: datetime) -> None:  # noqa: C901 — one minute of an ordinary day
    f = load(t)
    fcm_down = during(t, FCM)
    # envoy: sampled access log
    for _ in range(w.count(0.6 * f)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.22:
            envoy(w, tt, "POST", "/v1/quotes", 200, w.ri(40, 160), "pricing")
        elif x < 0.36:
            envoy(w, tt, "POST", "/v1/rides", 201, w.ri(90, 260), "dispatch")
        elif x < 0.56:
            if not during(t, PING) or w.r() < 0.3:
                envoy(w, tt, "POST", "/v1/driver/locations", 204, w.ri(4, 18), "location")
        elif x < 0.68:
            envoy(w, tt, "GET", f"/v1/rides/{w.ride()}", 200, w.ri(10, 40), "dispatch")
        elif x < 0.78:
            envoy(w, tt, "GET", "/v1/trips/history?page=1", 200, w.ri(30, 120), "trips")
        elif x < 0.86:
            envoy(w, tt, "GET", "/v1/eta?pickup=1", 200, w.ri(50, 180), "eta")
        elif x < 0.92:
            envoy(w, tt, "POST", f"/v1/trips/{w.ride()}/complete", 200, w.ri(60, 200), "trips")
        elif x < 0.97:
            envoy(w, tt, "POST", "/v1/payments/authorize", 200, w.ri(300, 900), "payments")
        else:
            envoy(w, tt, "GET", f"/v1/rides/{w.ride()}", 404, w.ri(3, 9), "dispatch")
    if w.r() < 0.06 * f:
        envoy(w, w.jit(t), "POST", "/v1/auth/refresh", 401, w.ri(3, 8), "dispatch")
    # dispatch
    for _ in range(w.count(0.25 * f)):
        zap(w, w.jit(t), "INFO", "match/matcher.go:212", "offer accepted", ride_id=w.ride(),
            driver_id=w.driver(), city=w.pick(CITIES), candidates=w.ri(3, 14), attempt=1,
            match_ms=w.ri(40, 400))
    if w.r() < 0.05 * f:
        tt = w.jit(t, 40)
        rid = w.ride()
        zap(w, tt, "WARN", "match/offer.go:97", "offer timed out, reoffering", ride_id=rid,
            driver_id=w.driver(), timeout_s=15)
        zap(w, tt + timedelta(seconds=16), "INFO", "match/matcher.go:212", "offer accepted", ride_id=rid,
            driver_id=w.driver(), city="sao-paulo", candidates=w.ri(3, 9), attempt=2,
            match_ms=w.ri(15000, 16500))
    # pricing
    for _ in range(w.count(0.25 * f)):
        pylog(w, w.jit(t), "INFO", "pricing.quote",
              f"quote ok zone={w.pick(ZONES[:5])} product={w.pick(('pop', 'pop', 'comfort', 'black'))} "
              f"surge={1 + w.ri(0, 6) / 10:.1f} fare_brl={w.ri(900, 6800) / 100:.2f} in {w.ri(8, 40)}ms")
    if t.minute % 10 == 4:
        pylog(w, w.jit(t), "WARN", "pricing.surge",
              f"surge recompute slow: {w.ri(2100, 3900)}ms for 412 zones (budget 2000ms)")
    if t.minute == 10 and t != at(0, 8, 10):
        day = t.strftime("%Y-%m-%d") if t.hour >= 8 else (t - timedelta(days=1)).strftime("%Y-%m-%d")
        if TARIFF[1] <= t < at(1, 8, 0):
            day = "2026-08-18-v2"
        pylog(w, w.jit(t, 5), "INFO", "pricing.tariffs",
              f"tariff table reloaded from s3://corrida-pricing/tariffs/tarifas-{day}.csv: 412 zones, "
              "5 products")
    # trips
    for _ in range(w.count(0.25 * f)):
        spring(
            w, w.jit(t), "INFO", f"nio-8080-exec-{w.ri(1, 40)}", "b.c.corrida.trips.web.TripController",
            f"Trip {w.ride()} completed: {w.ri(12, 380) / 10:.1f} km, fare BRL {w.ri(900, 9800) / 100:.2f}, "
            f"in {w.ri(30, 160)} ms",
        )
    if t.minute % 5 == 2 and not during(t, ESDISK):
        depth = w.ri(0, 40)
        spring(w, w.jit(t), "INFO", "search-indexer-1", "b.c.corrida.trips.search.TripIndexer",
               f"bulk indexed {int(80 * f + w.ri(0, 40))} trips into trips-2026.08, queue depth={depth}")
    if t.minute % 30 == 17:
        spring(w, w.jit(t), "INFO", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.HikariPool",
               f"HikariPool-1 - Pool stats (total=30, active={w.ri(2, 9)}, idle={w.ri(15, 27)}, waiting=0)")
    if w.r() < 0.03 * f:
        spring(
            w, w.jit(t), "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "b.c.corrida.trips.receipt.ReceiptService",
            f"receipt e-mail bounced for trip {w.ride()}, rider notified in app",
        )
    # mysql
    if w.r() < 0.04:
        mysql(w, w.jit(t), "WARN", "MY-010914",
              f"Aborted connection {w.ri(10000, 99999)} to db: 'trips' user: 'metabase' host: "
              "'10.40.9.21' (Got timeout reading communication packets).", w.ri(100, 9999))
    # payments
    for _ in range(w.count(0.15 * f)):
        pino(w, w.jit(t), "INFO", "psp authorize ok", psp="pagora", rideId=w.ride(),
             amountCents=w.ri(900, 9800), ms=w.ri(280, 850))
    if t.minute % 12 == 5:
        tt = w.jit(t, 40)
        pino(w, tt, "WARN", "psp authorize declined, asking rider for another card", psp="pagora",
             code="51")
    if t.minute % 20 == 9:
        tt = w.jit(t, 40)
        pino(w, tt, "WARN", "psp timeout, retrying (1/2)", psp="pagora", timeoutMs=3000)
        pino(w, tt + timedelta(seconds=3.4), "INFO", "psp authorize ok", psp="pagora", rideId=w.ride(),
             amountCents=w.ri(900, 9800), ms=w.ri(400, 900), retry=1)
    # kafka
    if t.minute % 10 == 0:
        b = w.ri(1, 3)
        kafka(
            w, w.jit(t, 20), "INFO",
            f"[LocalLog partition=driver-locations-{w.ri(0, 11)}, dir=/var/lib/kafka/data] Rolled new log "
            f"segment at offset {w.ri(10**8, 9 * 10**8)} in {w.ri(1, 9)} ms.", "kafka.log.LocalLog",
        )
        if t.minute == 30 and b:
            kafka(w, w.jit(t, 20), "INFO",
                  f"[GroupCoordinator {b}]: Stabilized group geo-indexer generation {w.ri(100, 900)} "
                  "(__consumer_offsets-17) with 6 members", "kafka.coordinator.group.GroupCoordinator")
    # location: the always-noisy ingest (phones with bad GPS all day)
    for _ in range(w.count(0.45 * f + 0.1)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.5:
            logfmt(w, tt, "WARN", "fix rejected", driver=w.driver(), reason="accuracy", acc_m=w.ri(51, 400),
                   limit_m=50)
        elif x < 0.75:
            logfmt(w, tt, "WARN", "fix rejected", driver=w.driver(), reason="speed", kmh=w.ri(181, 900))
        else:
            logfmt(w, tt, "WARN", "out-of-order fix dropped", driver=w.driver(), behind_ms=w.ri(900, 40000))
    if t.minute % 5 == 0:
        ev = w.ri(3, 25)
        if during(t, PING):
            ev = w.ri(2600, 4100)
        logfmt(w, w.jit(t, 10), "INFO", "geo index sweep", evicted=ev, ttl="15s",
               indexed=int(9000 * f + w.ri(0, 500)))
    if t.minute % 4 == 1:
        logfmt(w, w.jit(t), "INFO", "produced batch", topic="driver-locations",
               records=int(2400 * f + w.ri(0, 300)), p99_ms=w.ri(4, 20))
    # redis cluster
    if t.minute % 20 == 0:
        node = w.pick(("redis-geo-1", "redis-geo-2", "redis-geo-3"))
        tt = w.jit(t, 5)
        redis(w, tt, "INFO", node, "*", "10000 changes in 60 seconds. Saving...")
        redis(w, tt + timedelta(seconds=0.2), "INFO", node, "*",
              f"Background saving started by pid {w.ri(100, 9000)}")
        redis(w, tt + timedelta(seconds=2.5), "INFO", node, "*",
              "Background saving terminated with success")
    # eta
    for _ in range(w.count(0.15 * f)):
        if during(t, MAPS):
            continue
        tracing(
            w, w.jit(t), "INFO", "eta::routes",
            f"route ok provider=rotamaps legs=1 duration_s={w.ri(120, 2400)} latency_ms={w.ri(60, 240)} "
            f"cache=miss",
        )
    if t.minute % 15 == 8:
        tracing(w, w.jit(t), "WARN", "eta::maps",
                "rotamaps answered 429 Too Many Requests, retry 1/3 after 500ms")
    if t.minute % 30 == 0:
        tracing(w, w.jit(t), "INFO", "eta::cache",
                f"route cache hit ratio {w.ri(55, 72)}% entries={w.ri(40000, 90000)}")
    # notify
    for _ in range(w.count(0.22 * f)):
        if w.r() < 0.55:
            if fcm_down:
                continue
            elixir(w, w.jit(t), "INFO",
                   f"[Notify.Fcm] sent kind={w.pick(('driver_arrived', 'ride_offer', 'trip_receipt'))} "
                   f"token=…{w.hexid(6)} name=projects/corrida-prod/messages/{w.ri(10**15, 10**16)}")
        else:
            elixir(w, w.jit(t), "INFO",
                   f"[Notify.Apns] sent kind={w.pick(('driver_arrived', 'ride_offer', 'trip_receipt'))} "
                   f"apns-id={w.hexid(8).upper()}-{w.hexid(4).upper()} status=200")
    if t.minute % 15 == 11:
        elixir(w, w.jit(t), "WARN",
               f"[Notify.Apns] token …{w.hexid(6)} rejected: 410 Unregistered, removing")
    if t.minute == 45 and not fcm_down:
        elixir(w, w.jit(t), "INFO", "[Notify.Fcm] oauth2 access token refreshed, expires_in=3599")
    # fraud
    for _ in range(w.count(0.2 * f)):
        if during(t, FRAUD):
            continue
        gunicorn(
            w, w.jit(t), "INFO", w.pick((41, 42, 43, 44)),
            f"score ride={w.ride()} model=fraud-gbm-2026-08-12 score=0.{w.ri(1, 60):02d} decision=allow "
            f"in {w.ri(6, 30)}ms",
        )
    if t.minute % 20 == 13:
        gunicorn(w, w.jit(t), "WARN", w.pick((41, 42, 43, 44)),
                 "feature device_fingerprint missing for rider, using default")
    # elasticsearch
    if t.minute % 30 == 20:
        es(w, w.jit(t), "INFO", w.pick(("es-data-1", "es-data-2", "es-data-3")),
           "org.elasticsearch.monitor.jvm.JvmGcMonitorService",
           f"[gc][{w.ri(100000, 900000)}] overhead, spent [{w.ri(250, 600)}ms] collecting in the last "
           f"[{w.ri(1, 2)}s]")


def nightly(w: World) -> list[list]:
    rows = []
    for d in range(3):
        day = DAY0 + timedelta(days=d)
        t0 = at(d, 2, 0, 2)
        n = 18240 + 611 * d
        batch(w, t0, "INFO",
              f"start run settle-{day:%Y%m%d}: period {day - timedelta(days=1):%Y-%m-%d}, "
              "reading trips from trips-db-2 (replica)")
        t = t0 + timedelta(minutes=1)
        for k in range(1, 7):
            t += timedelta(minutes=5, seconds=w.ri(0, 50))
            batch(w, t, "INFO",
                  f"chunk {k}/6 settled {n // 6 + w.ri(-60, 60)} drivers, payouts queued at pagora")
        t += timedelta(minutes=1)
        batch(
            w, t, "INFO", f"finished run settle-{day:%Y%m%d}: {n} drivers, BRL {w.ri(2100, 2600)}k, 0 errors"
        )
        rows.append(
            [f"settlement-nightly-{29270000 + d * 1440}", "settlement-nightly", "batch", "0 2 * * *",
             t0.astimezone(UTC).isoformat().replace("+00:00", "Z"),
             t.astimezone(UTC).isoformat().replace("+00:00", "Z"), "Complete", f"{n} drivers settled"]
        )
        for job, ns, cron, h, m, dur, detail in (
            (
                "mysql-xtrabackup", "data", "30 1 * * *", 1, 30, 22,
                "trips-db-2 -> s3://corrida-backups/trips-db",
            ),
            ("es-snapshot", "search", "0 4 * * *", 4, 0, 14,
             "snapshot trips-* -> s3://corrida-es-snapshots"),
            ("fraud-model-refresh", "risk", "0 14 * * *", 14, 0, 2, None),
            ("trips-archive", "trips", "30 3 * * *", 3, 30, 9, "archived trips older than 180 days"),
        ):
            s = at(d, h, m, w.ri(1, 9))
            if detail is None:
                detail = (
                    "loaded fraud-gbm-2026-08-19 (1.87 GB, 2400 trees) — previous fraud-gbm-2026-08-12 "
                    "(410 MB)"
                    if d == 1
                    else "no new model, kept fraud-gbm-2026-08-12"
                )
            rows.append([f"{job}-{29270000 + d * 1440 + h * 60 + m}", job, ns, cron,
                         s.astimezone(UTC).isoformat().replace("+00:00", "Z"),
                         (s + timedelta(minutes=dur, seconds=w.ri(0, 50)))
                         .astimezone(UTC)
                         .isoformat()
                         .replace("+00:00", "Z"), "Complete", detail])
        kafka(w, at(d, 3, 0, w.ri(1, 30)), "INFO",
              "[LogCleaner 0]: Log cleaner thread 0 cleaned log "
              f"__consumer_offsets-{w.ri(0, 49)} (dirty section = [{w.ri(10**6, 9 * 10**6)}, "
              f"{w.ri(10**7, 9 * 10**7)}])", "kafka.log.LogCleaner")
        es(w, at(d, 4, 14, w.ri(0, 50)), "INFO", "es-master-1",
           "org.elasticsearch.snapshots.SnapshotsService",
           f"snapshot [s3-repo:nightly-{day:%Y.%m.%d}/{w.hexid(10)}] completed with state [SUCCESS]")
        spring(w, at(d, 3, 39, w.ri(0, 50)), "INFO", "scheduling-1", "b.c.corrida.trips.archive.ArchiveJob",
               f"archived {w.ri(30000, 42000)} trips older than 180 days")
        if d != 1:
            gunicorn(
                w, at(d, 14, 0, 40), "INFO", 7,
                "model refresh: no new model in s3://corrida-risk/models, keeping fraud-gbm-2026-08-12",
            )
    # the GCP service-account key rotation, once a week
    s = at(1, 17, 30, 4)
    rows.append(["gcp-sa-key-rotate-29271050", "gcp-sa-key-rotate", "platform", "30 17 * * 3",
                 s.astimezone(UTC).isoformat().replace("+00:00", "Z"),
                 (s + timedelta(seconds=41)).astimezone(UTC).isoformat().replace("+00:00", "Z"), "Complete",
                 "notify-fcm@corrida-prod.iam.gserviceaccount.com: created key 9c1e07, deleted key 4f2a91 "
                 "(older than 90d); secret notify-fcm-key updated"])
    rows.sort(key=lambda r: r[4])
    return rows


# ---- the incidents ---------------------------------------------------------------------------


def incidents(w: World) -> None:  # noqa: C901 — the stories, told in order
    # RIDES-01: the morning's tariff file writes surge_cap for gru-t2 as "1,35" (decimal comma).
    for tt in w.jittered(TARIFF, 25, 20):
        zone = "gru-t2"
        pylog(
            w, tt, "ERROR", "pricing.quote",
            f"quote failed zone={zone} product={w.pick(('pop', 'comfort'))}: ValueError: could not convert "
            "string to float: '1,35' (tariff row zone=gru-t2 column=surge_cap)",
        )
        envoy(w, tt + timedelta(milliseconds=40), "POST", "/v1/quotes", 500, w.ri(20, 60), "pricing")
    pylog(w, at(0, 8, 10, 31), "INFO", "pricing.tariffs",
          "tariff table reloaded from s3://corrida-pricing/tariffs/tarifas-2026-08-18.csv: 412 zones, 5 "
          "products (uploaded by ops-pricing 07:58)")
    pylog(w, TARIFF[1], "INFO", "pricing.tariffs",
          "tariff table reloaded from s3://corrida-pricing/tariffs/tarifas-2026-08-18-v2.csv: 412 zones, 5 "
          "products (manual reload)")

    # RIDES-03: trips-db-1's gp2 volume runs out of burst credits; IO throttled to baseline.
    for tt in w.jittered(BURST, 20, 18):
        spring(w, tt, "ERROR", f"nio-8080-exec-{w.ri(1, 40)}", "o.h.engine.jdbc.spi.SqlExceptionHelper",
               "HikariPool-1 - Connection is not available, request timed out after 30000ms (total=30, "
               "active=30, idle=0, waiting=" + str(w.ri(20, 90)) + ")")
        envoy(w, tt, "GET", "/v1/trips/history?page=1", 504, 15000, "trips", "UT")
        if w.r() < 0.4:
            envoy(
                w, tt + timedelta(seconds=2), "POST", f"/v1/trips/{w.ride()}/complete", 504, 15000, "trips",
                "UT",
            )
    for t in every(BURST, 75):
        mysql(w, w.jit(t, 30), "INFO", "MY-011953",
              f"page_cleaner: 1000ms intended loop took {w.ri(4100, 9800)}ms. The settings might not "
              "be optimal. (flushed=200 and evicted=0, during the time.)", sub="InnoDB")
    for t in every(BURST, 240):
        spring(w, w.jit(t, 60), "WARN", "http-nio-8080-exec-slow", "b.c.corrida.trips.db.SlowQueryLogger",
               f"slow query {w.ri(4000, 14000)} ms on trips-db-1:3306: SELECT t.* FROM trips t WHERE "
               "t.rider_id=? ORDER BY t.created_at DESC LIMIT 20")

    # RIDES-04: payments' mTLS client certificate rotated to the new intermediate the PSP doesn't trust.
    pino(w, MTLS[0] - timedelta(seconds=20), "INFO", "mTLS client certificate reloaded",
         file="/etc/payments/tls/psp-client.crt", cert="payments-psp-mtls",
         issuer="CN=Corrida Issuing CA 2026", serial="5e:0a:91:c4")
    for tt in w.jittered(MTLS, 15, 12):
        pino(w, tt, "ERROR", "psp authorize failed", psp="pagora", rideId=w.ride(),
             err="write EPROTO 00E8D1F7:error:0A000418:SSL routines:ssl3_read_bytes:tlsv1 alert unknown "
                 "ca:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 48",
             host="api.pagora.com.br:443")
        envoy(w, tt, "POST", "/v1/payments/authorize", 502, w.ri(40, 90), "payments")
        if w.r() < 0.3:
            spring(
                w, tt + timedelta(seconds=1), "WARN", f"nio-8080-exec-{w.ri(1, 40)}",
                "b.c.corrida.trips.payment.PaymentClient",
                f"payment for trip {w.ride()} not authorized (payments 502), trip marked PAYMENT_PENDING",
            )
    pino(w, MTLS[1], "INFO", "mTLS client certificate reloaded", file="/etc/payments/tls/psp-client.crt",
         cert="payments-psp-mtls", issuer="CN=Corrida Issuing CA 2024", serial="3b:77:02:1d")

    # RIDES-05: kafka-3's data volume fills; its only log dir fails and the broker stops.
    kafka(w, KDISK[0], "ERROR",
          "Error while appending records to driver-locations-5 in dir /var/lib/kafka/data "
          "java.io.IOException: No space left on device",
          "org.apache.kafka.storage.internals.log.LogDirFailureChannel")
    kafka(w, KDISK[0] + timedelta(seconds=0.2), "WARN",
          "[ReplicaManager broker=3] Stopping serving replicas in dir /var/lib/kafka/data",
          "kafka.server.ReplicaManager")
    kafka(w, KDISK[0] + timedelta(seconds=0.5), "ERROR",
          "Shutdown broker because all log dirs in /var/lib/kafka/data have failed", "kafka.log.LogManager")
    for p in (2, 5, 8, 11):
        kafka(
            w, KDISK[0] + timedelta(seconds=3 + p / 10), "INFO",
            f"[Partition driver-locations-{p} broker=1] Shrinking ISR from 1,3 to 1. Leader: (highWatermark: "
            f"{w.ri(10**8, 9 * 10**8)}) Out of sync replicas: (brokerId: 3)", "kafka.cluster.Partition",
        )
    for tt in w.jittered(KDISK, 20, 18):
        logfmt(w, tt, "ERROR", "produce failed", topic="driver-locations", partition=w.pick((2, 5, 8, 11)),
               err="NOT_ENOUGH_REPLICAS: Messages are rejected since there are fewer in-sync replicas than "
                   "required", records=w.ri(180, 260))
    for t in every((KDISK[0] + timedelta(minutes=3), KDISK[1]), 120):
        zap(w, w.jit(t, 30), "WARN", "geo/search.go:64", "stale driver positions in candidate set",
            city="sao-paulo", stale=w.ri(180, 420), max_age_s=w.ri(300, 3000))
    kafka(w, KDISK[1], "INFO", "[KafkaServer id=3] started", "kafka.server.KafkaServer")

    # RIDES-06: RotaMaps (external) answers 503 and times out; eta falls back to straight-line ETAs.
    tracing(w, at(1, 10, 58, 40), "INFO", "eta::config", "config reloaded: cache.ttl_s=180 (was 300)")
    for tt in w.jittered(MAPS, 12, 10):
        if w.r() < 0.6:
            tracing(w, tt, "WARN", "eta::maps",
                    'rotamaps request failed: status=503 Service Unavailable body="upstream overloaded" — '
                    "falling back to haversine estimate")
        else:
            tracing(w, tt, "WARN", "eta::maps",
                    "rotamaps request failed: operation timed out after 2000ms — falling back to haversine "
                    "estimate")
        if w.r() < 0.3:
            envoy(w, tt, "GET", "/v1/eta?pickup=1", 200, w.ri(2000, 2100), "eta")

    # RIDES-07: fraud-model-refresh loads a 1.87 GB model; gunicorn workers are OOM killed in a loop.
    gunicorn(
        w, at(1, 14, 0, 40), "INFO", 7,
        "model refresh: loading fraud-gbm-2026-08-19 (1.87 GB, 2400 trees) from s3://corrida-risk/models",
    )
    pid = 4300
    for tt in w.jittered(FRAUD, 40, 30):
        pid += w.ri(3, 17)
        gunicorn(w, tt, "ERROR", 7, f"Worker (pid:{pid}) was sent SIGKILL! Perhaps out of memory?")
        gunicorn(w, tt + timedelta(seconds=0.3), "INFO", 7, f"Booting worker with pid: {pid + 1}")
        gunicorn(w, tt + timedelta(seconds=9), "INFO", pid + 1,
                 "loading model fraud-gbm-2026-08-19 into memory (limit 2Gi)")
    for tt in w.jittered(FRAUD, 10, 9):
        x = w.r()
        if x < 0.5:
            zap(w, tt, "ERROR", "risk/client.go:51",
                "fraud check failed, rejecting ride request (fail-closed)", ride_id=w.ride(),
                error=w.pick(
                    (
                        'Post "http://fraud.risk.svc:8000/v1/score": context deadline exceeded',
                        'Post "http://fraud.risk.svc:8000/v1/score": EOF',
                        'Post "http://fraud.risk.svc:8000/v1/score": dial tcp 10.40.8.15:8000: connect: '
                        "connection refused",
                    )
                ))
            envoy(w, tt, "POST", "/v1/rides", 503, w.ri(800, 2100), "dispatch")
        elif x < 0.8:
            pino(w, tt, "ERROR", "fraud pre-auth check unavailable, declining authorization",
                 rideId=w.ride(), err="ECONNRESET", fraudUrl="http://fraud.risk.svc:8000/v1/score")
            envoy(w, tt, "POST", "/v1/payments/authorize", 503, w.ri(400, 900), "payments")
        else:
            spring(
                w, tt, "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "b.c.corrida.trips.payment.PaymentClient",
                f"payment for trip {w.ride()} not authorized (payments 503), trip marked PAYMENT_PENDING",
            )
    gunicorn(w, FRAUD[1], "INFO", 7, "model pinned: fraud-gbm-2026-08-12 (410 MB), workers stable")

    # RIDES-08: the weekly key rotation deleted the FCM service-account key notify still holds.
    elixir(w, at(1, 16, 45, 3), "INFO", "[Notify.Fcm] oauth2 access token refreshed, expires_in=3599")
    for t in every(FCM, 60):
        elixir(w, w.jit(t, 10), "ERROR",
               "[Notify.Fcm] oauth2 token refresh failed: 400 "
               '{"error":"invalid_grant","error_description":"Invalid JWT Signature."} key_id=4f2a91')
    for t in every(FCM, 9):
        elixir(w, w.jit(t, 8), "ERROR",
               f"[Notify.Fcm] send failed kind={w.pick(('driver_arrived', 'ride_offer', 'trip_receipt'))} "
               'status=401 UNAUTHENTICATED "Request had invalid authentication credentials." attempts=3')
    elixir(w, FCM[1], "INFO",
           "[Notify.Fcm] credentials reloaded from secret notify-fcm-key (key_id=9c1e07)")

    # RIDES-09: es-data-2 passes the flood-stage watermark; trips' indexer backs up, then blocks.
    for d, hh, mm in ((1, 19, 40), (1, 23, 10), (2, 3, 5), (2, 5, 50)):
        es(w, at(d, hh, mm, w.ri(0, 50)), "WARN", "es-master-1",
           "org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor",
           "high disk watermark [90%] exceeded on [es-data-2][/usr/share/elasticsearch/data] free: "
           f"{w.ri(70, 95) / 10:.1f}gb[{w.ri(60, 95) / 10:.1f}%], "
           "shards will be relocated away from this node")
    es(w, ESDISK[0], "WARN", "es-master-1",
       "org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor",
       "flood stage disk watermark [95%] exceeded on [es-data-2][/usr/share/elasticsearch/data] free: "
       "4.8gb[4.9%], all indices on this node will be marked read-only")
    depth = 0
    for tt in w.jittered(ESDISK, 30, 25):
        depth = min(10000, depth + w.ri(150, 190))
        spring(
            w, tt, "WARN", "search-indexer-1", "b.c.corrida.trips.search.TripIndexer",
            "bulk request rejected, will retry: ElasticsearchStatusException[type=cluster_block_exception, "
            "reason=index [trips-2026.08] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage "
            f"watermark, index has read-only-allow-delete block]] queue depth={depth}",
        )
    for tt in w.jittered(ESBLOCK, 15, 12):
        spring(
            w, tt, "ERROR", f"nio-8080-exec-{w.ri(1, 40)}", "b.c.corrida.trips.web.TripController",
            f"POST /v1/trips/{w.ride()}/complete took {w.ri(28000, 31000)} ms: search indexer queue full "
            "(10000), caller blocked",
        )
        envoy(w, tt, "POST", f"/v1/trips/{w.ride()}/complete", 504, 15000, "trips", "UT")

    # RIDES-10: adaptive_ping_interval at 100%: idle drivers ping every 30 s, the geo TTL is 15 s.
    logfmt(w, PING[0] + timedelta(seconds=2), "INFO", "driver app config updated",
           flag="adaptive_ping_interval", rollout="100%", idle_ping_interval_s=30, active_ping_interval_s=4)
    for t in every(PING, 14):
        zap(w, w.jit(t, 12), "WARN", "match/matcher.go:188",
            "no candidates within radius, ride request expired", ride_id=w.ride(),
            city=w.pick(("sao-paulo", "sao-paulo", "campinas")), radius_m=w.pick((3000, 5000)),
            geo_hits=w.ri(0, 1))
    logfmt(w, PING[1], "INFO", "driver app config updated", flag="adaptive_ping_interval", rollout="5%",
           idle_ping_interval_s=30, active_ping_interval_s=4)


# ---- tables --------------------------------------------------------------------------------

BASE = {  # req_per_s, p99_ms, http_5xx_per_s, cpu_pct
    "envoy": (420, 380, 0.4, 31), "dispatch": (60, 420, 0.05, 44), "pricing": (95, 90, 0.05, 38),
    "trips": (70, 210, 0.05, 41), "payments": (22, 1100, 0.08, 25), "location": (2100, 25, 0.0, 52),
    "eta": (55, 260, 0.02, 22), "notify": (40, 300, 0.0, 14), "fraud": (80, 45, 0.0, 35),
}


def service_row(w: World, t: datetime, svc: str) -> list:
    f = load(t)
    rps, p99, e5, cpu = BASE[svc]
    rps *= f * (0.9 + 0.2 * w.r())
    p99 *= 0.9 + 0.25 * w.r()
    e5 *= (0.5 + w.r()) * f
    cpu = cpu * (0.5 + 0.5 * f) * (0.9 + 0.2 * w.r())
    row = {"rps": rps, "p99": p99, "e5": e5}
    engine.spells(w.r, t, svc, row, SPELLS)
    rps, p99, e5 = row["rps"], row["p99"], row["e5"]
    return [t.strftime("%Y-%m-%d %H:%M:%S"), svc, round(rps, 1), round(p99, 1), round(e5, 2), round(cpu, 1)]


# each incident in the service metrics; envoy's 5xx rise with its upstreams': worlds_data/rides/spells.txt
SPELLS = engine.spell_table(NAME, at, globals())


VOLUMES = {"vol-0c3f9a1e7d2b48a51": "trips-db-1-data", "vol-07b1d24c9e0f3a6d2": "trips-db-2-data",
           "vol-04f7c8b1a2d3e9c50": "kafka-2-data", "vol-0b2e9d4f1c7a6e815": "kafka-3-data"}
INSTANCES = {"i-0a41c7e2d9b35f108": "trips-db-1", "i-06d2b8f3e1c49a727": "trips-db-2",
             "i-0f93e1a7c2d48b564": "redis-geo-1", "i-0d5a1c8e3f7b24b69": "es-data-2"}


def burst_balance(t: datetime) -> float:
    """trips-db-1's gp2 credit balance: full at night, drained by the afternoon's IO, zero at 15:02."""
    if t < at(0, 10, 30):
        return 100.0
    if t < BURST[0]:
        return round(
            100 * (1 - (t - at(0, 10, 30)).total_seconds() / (BURST[0] - at(0, 10, 30)).total_seconds()), 2
        )
    if t < BURST[1]:
        return 0.0
    return 100.0  # modified to gp3 (no burst bucket; CloudWatch keeps reporting 100)


def metrics(w: World) -> None:
    srows, crows = [], []
    t = DAY0
    while t < END:
        for svc in BASE:
            srows.append(service_row(w, t, svc))
        stamp = t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        f = load(t)
        for vol, tag in VOLUMES.items():
            bb = burst_balance(t) if tag == "trips-db-1-data" else round(min(100.0, 97 + 4 * w.r()), 2)
            q = 0.4 + 2 * f * w.r()
            if tag == "trips-db-1-data" and during(t, BURST):
                q = 48 + 20 * w.r()
            if tag == "kafka-3-data" and during(t, KDISK):
                q = 0.0
            crows.append([stamp, "AWS/EBS", "BurstBalance", f"VolumeId={vol}", tag, "Average", bb,
                          "Percent"])
            crows.append(
                [stamp, "AWS/EBS", "VolumeQueueLength", f"VolumeId={vol}", tag, "Average", round(q, 2),
                 "Count"]
            )
        for inst, tag in INSTANCES.items():
            cpu = 20 + 30 * f * (0.8 + 0.4 * w.r())
            if tag == "trips-db-1" and during(t, BURST):
                cpu = 12 + 5 * w.r()  # waiting on IO, not busy
            crows.append(
                [stamp, "AWS/EC2", "CPUUtilization", f"InstanceId={inst}", tag, "Average", round(cpu, 2),
                 "Percent"]
            )
        hours = (t - DAY0).total_seconds() / 3600
        used = 71 + hours * 0.25 + 2 * w.r()
        if t >= ESDISK[0]:
            used = 95.1 + 0.3 * w.r() if t < ESDISK[1] else 82 + w.r()
        k3 = min(100.0, 86.4 + 13.6 * max(0.0, (t - at(1, 5, 0)).total_seconds()) / 9072 + 0.2 * w.r())
        if t < at(1, 5, 0):
            k3 = 84 + (t - DAY0).total_seconds() / 3600 * 0.09 + 0.2 * w.r()
        if t >= KDISK[1]:
            k3 = 71 + 0.3 * w.r()
        crows.append([stamp, "CWAgent", "disk_used_percent",
                      "InstanceId=i-09e4b7a1c3d52f6e8,path=/var/lib/kafka/data", "kafka-3", "Average",
                      round(k3, 2), "Percent"])
        crows.append(
            [stamp, "CWAgent", "disk_used_percent",
             "InstanceId=i-0d5a1c8e3f7b24b69,path=/usr/share/elasticsearch/data", "es-data-2", "Average",
             round(min(used, 95.4), 2), "Percent"]
        )
        t += timedelta(minutes=5)
    w.table("service_stats", ["time", "service", "req_per_s", "p99_ms", "http_5xx_per_s", "cpu_pct"], srows)
    w.table(
        "cloudwatch_export",
        ["timestamp", "namespace", "metric_name", "dimensions", "name_tag", "statistic", "value", "unit"],
        crows,
    )


DEPENDENCIES = engine.table(None, "sssss", """
envoy | dispatch | http | dispatch.rides.svc:8080 | /v1/rides
envoy | pricing | http | pricing.rides.svc:8080 | /v1/quotes
envoy | trips | http | trips.rides.svc:8080 | /v1/trips (history, complete, receipts)
envoy | payments | http | payments.rides.svc:8080 | /v1/payments
envoy | location | http | location.rides.svc:8080 | /v1/driver/locations, driver app config
envoy | eta | http | eta.rides.svc:8080 | /v1/eta
dispatch | redis | redis-cluster | redis-geo-1..3:6379 | GEOSEARCH drivers:geo:{city}
dispatch | fraud | http | fraud.risk.svc:8000 | /v1/score on every ride request (fail-closed)
dispatch | pricing | grpc | pricing.rides.svc:9090 | final fare on match
dispatch | eta | grpc | eta.rides.svc:9090 | pickup ETA per candidate
dispatch | notify | grpc | notify.rides.svc:9090 | ride offers to drivers
dispatch | trips | http | trips.rides.svc:8080 | creates the trip on accept
pricing | redis | redis-cluster | redis-geo-1..3:6379 | surge counters per zone
trips | mysql | mysql | trips-db-1:3306 | trips, receipts (primary)
trips | elasticsearch | http | es-data-1..3:9200 | async indexer, index trips-YYYY.MM
trips | payments | http | payments.rides.svc:8080 | charge on trip completion
trips | kafka | kafka | kafka-1..3:9092 | produces trip-events
payments | pagora | https (mTLS) | api.pagora.com.br:443 | PSP card authorization (external)
payments | fraud | http | fraud.risk.svc:8000 | pre-auth score (fail-closed)
payments | mysql | mysql | payments-db-1:3306 | charges, refunds
location | kafka | kafka | kafka-1..3:9092 | produces driver-locations (acks=all, RF 2, min.insync 2)
location | redis | redis-cluster | redis-geo-1..3:6379 | geo-indexer consumer: GEOADD, TTL 15s
eta | rotamaps | https | api.rotamaps.com:443 | routes and traffic (external)
notify | fcm | https | fcm.googleapis.com:443 | Android push (external)
notify | apns | https | api.push.apple.com:443 | iOS push (external)
fraud | redis | redis-cluster | redis-geo-1..3:6379 | rider feature cache
settlement | mysql | mysql | trips-db-2:3306 | nightly payouts (replica)
settlement | pagora | https (mTLS) | api.pagora.com.br:443 | driver payouts (external)
mysql | mysql | replication | trips-db-1 -> trips-db-2 | async replica
""")

DEPLOYS = engine.table(at, "ssstiss", """
DEP-8811 | eta | 2.31.0 | 0 07:40 | 6 | rsouza | traffic-aware leg weights
DEP-8812 | fraud | 3.9.2 | 0 14:30 | 8 | lmartins | score endpoint metrics
DEP-8814 | envoy | 1.30.4-corrida.2 | 0 18:05 | 10 | tnakamura | envoy patch release, new access-log sampling
DEP-8816 | trips | 7.18.0 | 1 10:15 | 7 | acosta | receipt PDF in Portuguese and Spanish
DEP-8818 | location | 4.6.1 | 1 16:50 | 5 | bferreira | fix rejection metrics per reason
DEP-8820 | dispatch | 5.1.4 | 2 06:40 | 6 | gpereira | offer timeout per city
DEP-8822 | dispatch | 5.2.0 | 2 13:50 | 7 | gpereira | batched matching for airport queues
""")

CONFIG = engine.table(at, "ssssstss", """
CFG-3301 | pricing | surge.recompute_interval_s | 60 | 45 | 0 06:50 | ops-pricing | PRC-512
CFG-3304 | trips | hikari.maximum-pool-size | 25 | 30 | 0 12:20 | acosta | TRP-880
CFG-3307 | redis | cluster-node-timeout | 15000 | 10000 | 1 06:55 | tnakamura | INF-2231
CFG-3309 | eta | cache.ttl_s | 300 | 180 | 1 10:58:40 | rsouza | ETA-219
CFG-3312 | notify | apns.pool_size | 8 | 12 | 1 17:20 | bferreira | NTF-140
CFG-3315 | trips | search.indexer.bulk_size | 500 | 1000 | 2 06:55 | acosta | TRP-891
""")

FLAGS = [[at(0, 18, 12), "surge_smoothing", "pricing", "production", "25%", "50%", "ops-pricing"],
         [at(1, 9, 30), "airport_queue_v2", "dispatch", "production", "0%", "10%", "gpereira"],
         [at(2, 11, 5), "adaptive_ping_interval", "location", "production", "0%", "5%", "bferreira"],
         [at(2, 14, 1, 7), "adaptive_ping_interval", "location", "production", "5%", "100%", "bferreira"],
         [at(2, 14, 52), "adaptive_ping_interval", "location", "production", "100%", "5%", "tnakamura"]]

CERTS = engine.table(at, "sssssttts", """
api-corrida-app | envoy | api-corrida-app-tls | letsencrypt-prod | api.corrida.app | -20 03:10 | 70 03:10 |
    -20 03:10 | 3a:e1:55:0b
payments-psp-mtls | payments | psp-client-tls | vault-pki-corrida-2026 | payments.corrida.app | 0 18:20:40 |
    90 18:20:40 | 0 18:20:40 | 5e:0a:91:c4
payments-psp-mtls | payments | psp-client-tls | vault-pki-corrida-2024 | payments.corrida.app | 0 19:07:20 |
    30 19:07 | 0 19:07:20 | 3b:77:02:1d
settlement-psp-mtls | settlement | psp-client-tls | vault-pki-corrida-2024 | settlement.corrida.app | -41
    11:00 | 49 11:00 | -41 11:00 | 29:c0:7e:aa
kafka-brokers | kafka | kafka-tls | vault-pki-corrida-2024 | kafka-1..3.data.corrida.internal | 1 05:00 | 91
    05:00 | 1 05:00 | 61:9f:03:de
""")

MIGRATIONS = engine.table(at, "sisssti", """
trips | 92 | 92 | receipt locale | V92__receipt_locale.sql | 1 10:13:42 | 811
trips | 91 | 91 | index trips rider created | V91__index_trips_rider_created.sql | -2 22:04:10 | 48211
payments | 40 | 40 | refund reason code | V40__refund_reason_code.sql | 0 09:01:05 | 133
""")


def change_tables(w: World) -> None:
    w.table("dependencies", engine.columns("DEPENDENCIES_PURPOSE"), DEPENDENCIES)
    w.table("deploys", engine.columns("DEPLOYS_TRIGGERED"),
            [[d, s, v, iso(t), iso(t + timedelta(minutes=m)), "Succeeded", a, desc]
             for d, s, v, t, m, a, desc in DEPLOYS])
    w.table("config_changes", engine.columns("CONFIG_COMPONENT"),
            [[c, s, k, o, n, t.isoformat(), a, tk] for c, s, k, o, n, t, a, tk in CONFIG])
    w.table("feature_flags",
            ["changed_at", "flag", "service", "environment", "old_rollout", "new_rollout", "changed_by"],
            [[t.strftime("%Y-%m-%d %H:%M:%S"), *rest] for t, *rest in FLAGS])
    w.table("certificates",
            ["name", "namespace", "secret_name", "issuer", "dns_names", "not_before", "not_after",
             "renewed_at", "serial"],
            [[n, ns, s, i, d, iso(a), iso(b), iso(c), sr] for n, ns, s, i, d, a, b, c, sr in CERTS])
    w.table("schema_migrations",
            ["service", "installed_rank", "version", "description", "script", "installed_on",
             "execution_time", "success"],
            [[s, rk, v, d, sc, t.strftime("%Y-%m-%d %H:%M:%S.") + f"{w.ri(0, 999):03d}", ms, "true"]
             for s, rk, v, d, sc, t, ms in sorted(MIGRATIONS, key=lambda m: m[5])])
    for _d, s, v, t, m, _a, _desc in DEPLOYS:
        done = t + timedelta(minutes=m)
        if s == "dispatch":
            zap(w, done, "INFO", "cmd/dispatch/main.go:77", "dispatch started", version=v, cities=3)
        elif s == "trips":
            spring(
                w, done, "INFO", "main", "b.c.corrida.trips.TripsApplication",
                f"Started TripsApplication v{v} in {14 + w.r() * 5:.3f} seconds (process running for 19.2)",
            )
        elif s == "eta":
            tracing(w, done, "INFO", "eta", f"eta {v} listening on 0.0.0.0:8080 (grpc 9090)")
        elif s == "fraud":
            gunicorn(w, done, "INFO", 7, f"fraud {v} booted, model fraud-gbm-2026-08-12, workers=4")
        elif s == "location":
            logfmt(w, done, "INFO", "location started", version=v, partitions=12)
        elif s == "envoy":
            w.emit(done, "envoy", "INFO",
                   f"[{iso(done).replace('Z', '.000Z')}][1][info][main] "
                   f"[source/server/server.cc:932] starting main dispatch loop (envoy {v})")
    elixir(w, at(1, 17, 20, 30), "INFO", "[Notify.Apns] pool resized to 12 connections")
    redis(w, at(1, 6, 55, 10), "INFO", "redis-geo-1", "*", "CONFIG SET cluster-node-timeout 10000 applied")


DOCS = {
    "known-noise": """# Known noise on the Corrida platform

What shows up in the logs all day and is not an incident by itself.

## location: rejected and out-of-order fixes

Driver phones send bad GPS all the time (tunnels on the Marginal, cheap phones, mock-location apps).
location logs `fix rejected` (reason=accuracy or reason=speed) and `out-of-order fix dropped`
dozens of times an hour, more in the rush hours. This is by design. Only act when `produced batch`
lines stop or location logs errors.

## Retries that succeed

payments logs `psp timeout, retrying (1/2)` and eta logs `rotamaps answered 429` a few times an
hour; the retry goes through. dispatch reoffers a ride when a driver does not answer in 15 s.

## Other

- pricing `surge recompute slow` every ten minutes (the 2000 ms budget is aspirational).
- fraud `feature device_fingerprint missing` for riders on old app versions.
- notify `410 Unregistered` for uninstalled iOS apps; mysql `Aborted connection ... 'metabase'`.
""",
    "kafka-operations": """# Kafka (kafka-1..3) operations

Three brokers, one log dir each (/var/lib/kafka/data on its own EBS volume). driver-locations has
12 partitions, replication factor 2; trip-events has replication factor 3.

## When producers fail

- Read the producing service's error: `NOT_LEADER_OR_FOLLOWER` during a leader election is
  normal and retried; anything lasting minutes is not.
- Check every broker's server.log, not only the one the alert names, and the brokers' volumes in
  CloudWatch.
- `kafka-topics.sh --describe --under-min-isr-partitions` lists partitions that refuse acks=all
  writes.

Do not lower min.insync.replicas in production without the data team.
""",
    "maps-provider": """# Maps provider (RotaMaps) problems

eta asks api.rotamaps.com for every pickup and trip ETA, with a 2000 ms timeout and a route
cache. When RotaMaps fails eta answers with a straight-line (haversine) estimate, so the apps show
rough ETAs rather than errors.

## What to do

1. Compare eta's failures with its own changes (deploys, config) — rule out our side first.
2. Check https://status.rotamaps.com and the #vendor-rotamaps channel.
3. There is no second provider. Tell support that ETAs may be imprecise; nothing to restart.
""",
    "fraud-scoring": """# fraud (risk scoring)

dispatch scores every ride request and payments every pre-authorization at fraud
(fraud.risk.svc:8000, gunicorn, 4 workers, 2Gi memory limit per pod). Both callers are fail-closed:
if fraud does not answer within 800 ms the ride or the charge is refused.

## When fraud is unhealthy

- Look at fraud's own log first: worker restarts, timeouts, model loading.
- Check the fraud-model-refresh CronJob's last runs (job_runs) and which model the workers load.
- To pin a model: `kubectl -n risk set env deploy/fraud FRAUD_MODEL=<name>`.

Never switch the callers to fail-open without the risk team's approval.
""",
    "push-provider-outage": """# Push provider outage (FCM / APNs)

notify sends Android pushes through Firebase Cloud Messaging (service account
notify-fcm@corrida-prod) and iOS pushes through APNs. Both providers have regional incidents a
few times a year; during one, sends fail with errors from the provider and recover on their own.

## What to do

- Check https://status.firebase.google.com and https://developer.apple.com/system-status/.
- Post on the status page: "ride notifications may be delayed on Android".
- Wait it out. Do not restart notify during a provider incident: in-flight sends would be lost.
""",
}


# ---- truth ---------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


main = engine.main(NAME, world, __name__, DOCS)
