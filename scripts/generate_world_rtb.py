"""Generate the `ads` incident world: an ad-tech real-time bidding platform run from São Paulo.

Two days (2027-02-15..16, America/Sao_Paulo, UTC-03:00) of logs from ten components, each in its
own format, the ops tables an on-call team keeps (dependencies, deploys, config changes,
certificates and metric exports), the team's runbooks and a truth file with eight questions.

    python scripts/generate_world_rtb.py OUT_DIR          # writes OUT_DIR/rtb/
    python scripts/generate_world_ads.py OUT_DIR --check  # and checks every truth evidence item

Deterministic: one seeded generator, the same bytes on every run. Standard library only.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

NAME = "rtb"
SEED = 20270215
TZ_NAME = "America/Sao_Paulo"
TZ = timezone(timedelta(hours=-3))
DAY0 = datetime(2027, 2, 15, tzinfo=TZ)
MINUTES = 2 * 24 * 60
R = random.Random(SEED)

SERVICES = ["bid-gateway", "bidder", "budget-pacer", "campaign-store", "freqcap-cache", "creative-origin",
            "event-tracker", "event-pipeline", "fraud-scorer", "reporting-api"]
EXCHANGES = ["pampa", "ipe", "nimbus", "araucaria"]
EXCHANGE_SHARE = {"pampa": 0.38, "ipe": 0.27, "nimbus": 0.22, "araucaria": 0.13}
CAMPAIGNS = [f"C-{n}" for n in (2201, 2214, 2231, 2240, 2257, 2263, 2278, 2290, 2302, 2317)]
# hourly traffic curve, local time (Brazilian evening prime time is the peak)
CURVE = [0.35, 0.25, 0.2, 0.17, 0.16, 0.2, 0.32, 0.5, 0.68, 0.78, 0.82, 0.85,
         0.9, 0.86, 0.82, 0.8, 0.82, 0.88, 0.95, 1.0, 1.0, 0.95, 0.8, 0.55]
# everyday chatter per hour at the peak
RATE = {"bid-gateway": 46, "bidder": 40, "budget-pacer": 16, "campaign-store": 10,
        "freqcap-cache": 7, "creative-origin": 26, "event-tracker": 34, "event-pipeline": 16,
        "fraud-scorer": 16, "reporting-api": 13}
HOSTS = {s: [f"{s}-{i}" for i in range(1, 4)] for s in SERVICES}

def at(day: int, hhmm: str, sec: float = 0.0) -> datetime:
    h, m = (int(x) for x in hhmm.split(":"))
    return DAY0 + timedelta(days=day, hours=h, minutes=m, seconds=sec)

def minute_dt(m: int) -> datetime:
    return DAY0 + timedelta(minutes=m)

def curve(dt: datetime) -> float:
    h = dt.hour + dt.minute / 60
    a, b = CURVE[int(h) % 24], CURVE[(int(h) + 1) % 24]
    return a + (b - a) * (h - int(h))

def poisson(lam: float) -> int:
    n, p, lim = 0, 1.0, math.exp(-lam)
    while True:
        p *= R.random()
        if p <= lim:
            return n
        n += 1

def iso(dt: datetime) -> str:
    return dt.isoformat(timespec="milliseconds")

def utc_z(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

def local(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S-03:00")

def rid() -> str:
    return f"{R.getrandbits(64):016x}"

def ip() -> str:
    return f"10.42.{R.randint(1, 9)}.{R.randint(2, 250)}"

# ---------------------------------------------------------------- log formats, one per component
EVENTS: list[tuple[datetime, str, str, str, dict]] = []

def emit(dt: datetime, svc: str, level: str, message: str, **attrs: object) -> None:
    attrs.setdefault("host", R.choice(HOSTS[svc]))
    EVENTS.append((dt, svc, level, message, {k: v for k, v in attrs.items() if v is not None}))

def access(dt, svc, method, path, status, size, agent, rt, **extra):
    """nginx combined access line with request/upstream timings (bid-gateway, creative-origin)."""
    stamp = dt.strftime("%d/%b/%Y:%H:%M:%S -0300")
    ups = extra.pop("upstream", "-")
    ut = extra.pop("urt", rt)
    line = (f'{ip()} - - [{stamp}] "{method} {path} HTTP/1.1" {status} {size} "-" "{agent}" '
            f'rt={rt:.3f} upstream={ups} urt={ut:.3f} req_id={rid()}')
    level = "ERROR" if status >= 500 else "WARN" if status >= 400 and status != 404 else "INFO"
    emit(dt, svc, level, line, status=status, **extra)

def zap(dt, level, msg, caller, **fields):
    """Go zap JSON (bidder)."""
    doc = {"level": level.lower(), "ts": round(dt.timestamp(), 3), "caller": caller, "msg": msg}
    doc.update(fields)
    lv = {"panic": "FATAL", "warn": "WARN"}.get(level.lower(), level.upper())
    emit(dt, "bidder", lv, json.dumps(doc, separators=(",", ":")))

def logfmt(dt, level, msg, **fields):
    """logfmt (budget-pacer)."""
    parts = [f"ts={iso(dt)}", f"level={level.lower()}", f'msg="{msg}"']
    parts += [f'{k}="{v}"' if " " in str(v) else f"{k}={v}" for k, v in fields.items()]
    emit(dt, "budget-pacer", level.upper(), " ".join(parts))

def pg(dt, level, msg, user="-", db="-"):
    """PostgreSQL log, log_line_prefix = '%m [%p] %q%u@%d ' (campaign-store)."""
    stamp = dt.strftime("%Y-%m-%d %H:%M:%S.") + f"{dt.microsecond // 1000:03d} -03"
    who = f"{user}@{db} " if user != "-" else ""
    lv = {"LOG": "INFO", "WARNING": "WARN", "ERROR": "ERROR", "FATAL": "FATAL",
          "PANIC": "FATAL", "DETAIL": "INFO", "HINT": "INFO", "STATEMENT": "INFO"}[level]
    emit(dt, "campaign-store", lv, f"{stamp} [{R.randint(4100, 32000)}] {who}{level}:  {msg}",
         host="pg-campaigns-0")

def redis(dt, mark, msg):
    """Redis server log (freqcap-cache): pid:role day mon year time mark msg."""
    stamp = dt.strftime("%d %b %Y %H:%M:%S.") + f"{dt.microsecond // 1000:03d}"
    lv = {"#": "WARN", "*": "INFO", "-": "DEBUG", ".": "DEBUG"}[mark]
    emit(dt, "freqcap-cache", lv, f"1:M {stamp} {mark} {msg}")

def pino(dt, level, msg, **fields):
    """Node pino JSON (event-tracker)."""
    num = {"INFO": 30, "WARN": 40, "ERROR": 50}[level]
    doc = {"level": num, "time": int(dt.timestamp() * 1000), "pid": 19,
           "hostname": R.choice(HOSTS["event-tracker"]), "msg": msg}
    doc.update(fields)
    emit(dt, "event-tracker", level, json.dumps(doc, separators=(",", ":")))

def logback(dt, svc, level, thread, logger, msg):
    """Java logback text (event-pipeline loader and kafka brokers, reporting-api is Spring)."""
    stamp = dt.strftime("%Y-%m-%d %H:%M:%S,") + f"{dt.microsecond // 1000:03d}"
    if svc == "reporting-api":
        line = f"{iso(dt)} {level:>5} 1 --- [{thread}] {logger} : {msg}"
    elif logger.startswith("kafka"):
        line = f"[{stamp}] {level} {msg} ({logger})"
    else:
        line = f"{stamp} {level:<5} [{thread}] {logger} - {msg}"
    emit(dt, svc, level, line)

def pylog(dt, level, logger, msg):
    """Python logging text (fraud-scorer)."""
    stamp = dt.strftime("%Y-%m-%d %H:%M:%S,") + f"{dt.microsecond // 1000:03d}"
    lv = {"WARNING": "WARN"}.get(level, level)
    emit(dt, "fraud-scorer", lv, f"{stamp} {level} [{logger}] {msg}")

# ---------------------------------------------------------------- incident state (local times)
INC = {
    "freqcap": (at(0, "10:18"), at(0, "10:47")),
    "bidder_deploy": (at(0, "15:07"), at(0, "15:33")),
    "fraud_model": (at(0, "20:02"), at(0, "20:37")),
    "kafka_cert": (at(1, "03:00"), at(1, "04:12")),
    "pacer_cfg": (at(1, "09:31"), at(1, "10:26")),
    "pg_disk": (at(1, "13:44"), at(1, "14:09")),
    "ipe_outage": (at(1, "16:58"), at(1, "17:43")),
}

def active(key: str, dt: datetime) -> bool:
    a, b = INC[key]
    return a <= dt < b

def bidder_version(dt: datetime) -> str:
    new = "4.12.1" if dt >= at(1, "11:20") else "4.11.3"
    return "4.12.0" if at(0, "15:05") <= dt < at(0, "15:33") else new

# ---------------------------------------------------------------- everyday chatter
def ex_pick(dt):
    ex = R.choices(EXCHANGES, [EXCHANGE_SHARE[e] for e in EXCHANGES])[0]
    return "pampa" if ex == "ipe" and active("ipe_outage", dt) and R.random() < 0.93 else ex

def auction(dt, status, size, rt):
    ex = ex_pick(dt)
    access(dt, "bid-gateway", "POST", f"/openrtb2/auction?x={ex}", status, size, f"{ex}-rtb/2.6", rt,
           upstream="bidder:8080", exchange=ex)

def pacing_decision(dt):
    thr = 0.95 if active("pacer_cfg", dt) else round(R.uniform(0.05, 0.3), 2)
    why = "floor" if thr == 0.95 else "pace"
    logfmt(dt, "info", "pacing decision", campaign=C(), throttle=thr, reason=why, spent_pct=N(20, 80))

def lag_warning(dt):
    lag = N(20000, 90000) if curve(dt) > 0.9 else N(2000, 9000)
    logback(dt, "event-pipeline", "WARN", f"loader-{N(1, 4)}", "c.a.pipeline.LagMonitor",
            f"consumer group warehouse-loader lag={lag} on topic impressions.v3")

def C():
    return R.choice(CAMPAIGNS)

def X():
    return R.choice(EXCHANGES)

def U(a, b, nd=1):
    return round(R.uniform(a, b), nd)

N = R.randint
GW, ORIGIN, PIPE, REP = "bid-gateway", "creative-origin", "event-pipeline", "reporting-api"
EXT = ["jpg", "png", "mp4", "html"]
# everyday lines per component: (weight, writer)
CHATTER = {
    "bid-gateway": [
        (4, lambda t: auction(t, 499, 0, 0.120)),
        (31, lambda t: auction(t, 204, 0, R.uniform(0.01, 0.05))),
        (62, lambda t: auction(t, 200, N(600, 1900), R.uniform(0.02, 0.08))),
        (3, lambda t: access(t, GW, "GET", "/healthz", 200, 2, "kube-probe/1.29", 0.001))],
    "bidder": [
        (55, lambda t: zap(t, "info", "auction complete", "auction/auction.go:212", exchange=X(),
                           bids=N(0, 3), elapsed_ms=N(18, 70), request_id=rid())),
        (20, lambda t: zap(t, "info", "campaign snapshot refreshed", "campaigns/sync.go:97",
                           campaigns=N(410, 430), line_items=N(1800, 1900), took_ms=N(40, 140))),
        (15, lambda t: zap(t, "debug", "no eligible line items", "auction/filter.go:64", campaign=C(),
                           reason=R.choice(["geo", "daypart", "format"]))),
        (7, lambda t: zap(t, "warn", "bid price below exchange floor", "auction/price.go:151", campaign=C(),
                          bid_cpm=U(0.5, 2.0, 2), floor_cpm=U(2.0, 3.5, 2))),
        (3, lambda t: zap(t, "warn", "bid deadline exceeded", "auction/auction.go:240", tmax_ms=120,
                          elapsed_ms=N(121, 140), exchange=X()))],
    "budget-pacer": [
        (60, pacing_decision),
        (30, lambda t: logfmt(t, "info", "spend flushed", rows=N(180, 460), took_ms=N(30, 120))),
        (10, lambda t: logfmt(t, "warn", "campaign ahead of pace, tightening", campaign=C(),
                              pace_ratio=U(1.1, 1.3, 2)))],
    "campaign-store": [
        (35, lambda t: pg(t, "LOG", f"checkpoint complete: wrote {N(200, 3000)} buffers ({U(0.5, 4)}%); "
                          f"0 WAL file(s) added, {N(0, 3)} removed, {N(1, 4)} recycled; "
                          f"write={U(20, 200, 3)} s")),
        (25, lambda t: pg(t, "LOG", "automatic vacuum of table \"campaigns.public.spend_ledger\": "
                          f"index scans: 1, pages: 0 removed, {N(9000, 12000)} remain")),
        (25, lambda t: pg(t, "LOG", f"duration: {U(200, 900, 3)} ms  statement: SELECT * FROM line_items "
                          "WHERE status = 'active'", "bidder_ro", "campaigns")),
        (15, lambda t: pg(t, "WARNING", "there is no transaction in progress", "pacer", "campaigns"))],
    "freqcap-cache": [
        (50, lambda t: redis(t, "*", f"{N(100, 900)} changes in 60 seconds. Saving...")),
        (30, lambda t: redis(t, "*", f"Background saving started by pid {N(300, 9000)}")),
        (20, lambda t: redis(t, "*", "DB saved on disk"))],
    "creative-origin": [
        (85, lambda t: access(t, ORIGIN, "GET", f"/creatives/cr-{N(40000, 49999)}.{R.choice(EXT)}", 200,
                              N(20000, 900000), "cdn-edge/5.1", R.uniform(0.002, 0.03), upstream="s3")),
        (12, lambda t: access(t, ORIGIN, "GET", R.choice(["/favicon.ico", "/creatives/cr-0.jpg"]), 404, 162,
                              "cdn-edge/5.1", 0.001)),
        (3, lambda t: access(t, ORIGIN, "GET", "/creatives/cr-3.mp4", 403, 140, "curl/8.4", 0.001))],
    "event-tracker": [
        (60, lambda t: pino(t, "INFO", "impression recorded", campaign=C(), exchange=X(),
                            latency_ms=N(1, 9))),
        (20, lambda t: pino(t, "INFO", "click recorded", campaign=C(), exchange=X(), latency_ms=N(1, 9))),
        (15, lambda t: pino(t, "INFO", "batch produced to kafka",
                            topic=R.choice(["impressions.v3", "clicks.v3"]), records=N(200, 900))),
        (5, lambda t: pino(t, "WARN", "duplicate impression dropped", dedupe_window_s=300))],
    "event-pipeline": [
        (40, lambda t: logback(t, PIPE, "INFO", f"loader-{N(1, 4)}", "c.a.pipeline.WarehouseLoader",
                               f"loaded batch into warehouse table events.impressions rows={N(40000, 90000)} "
                               f"took={N(800, 4000)}ms")),
        (25, lambda t: logback(t, PIPE, "INFO", "-", "kafka.log.LogCleaner", "[kafka-log-cleaner-thread-0]: "
                               f"Log cleaner thread 0 cleaned log __consumer_offsets-{N(0, 49)} "
                               "(dirty section = [0, 0])")),
        (20, lambda t: logback(t, PIPE, "INFO", "-", "kafka.server.ReplicaManager", f"[ReplicaManager broker="
                               f"{N(1, 3)}] Rolled new log segment for impressions.v3-{N(0, 11)}")),
        (15, lag_warning)],
    "fraud-scorer": [
        (70, lambda t: pylog(t, "INFO", "fraud.scorer", f"scored batch n={N(200, 800)} ivt_rate="
                             f"{U(0.02, 0.05, 3)} p99_ms={U(2, 5)}")),
        (20, lambda t: pylog(t, "INFO", "fraud.iplists", f"ip reputation list refreshed entries="
                             f"{N(1200000, 1250000)}")),
        (10, lambda t: pylog(t, "WARNING", "fraud.features", f"missing feature device.ifa for {N(3, 40)} "
                             "requests, imputing"))],
    "reporting-api": [
        (70, lambda t: logback(t, REP, "INFO", f"nio-8080-exec-{N(1, 9)}", "c.a.reporting.ReportController",
                               f"GET /v2/reports/delivery?campaign={C()} 200 in {N(90, 900)} ms")),
        (30, lambda t: logback(t, REP, "WARN", f"nio-8080-exec-{N(1, 9)}", "c.a.reporting.LegacyApi",
                               "deprecated endpoint /v1/stats called by client advertiser-ui"))],
}
WRITERS = {s: [f for _, f in rows] for s, rows in CHATTER.items()}
WEIGHTS = {s: [w for w, _ in rows] for s, rows in CHATTER.items()}

def everyday() -> None:
    for m in range(MINUTES):
        base = minute_dt(m)
        load = curve(base)
        for svc in SERVICES:
            flat = svc in ("campaign-store", "freqcap-cache", "event-pipeline")
            lam = RATE[svc] / 60 * (0.7 if flat else load)
            for _ in range(poisson(lam)):
                R.choices(WRITERS[svc], WEIGHTS[svc])[0](base + timedelta(seconds=R.uniform(0, 59.999)))
        if m % 5 == 2:  # the known-noisy one: reporting-api cannot reach graphite, all day
            logback(base + timedelta(seconds=R.uniform(0, 50)), "reporting-api", "ERROR",
                    "metrics-publisher", "c.a.reporting.GraphiteReporter",
                    "Unable to report to Graphite: java.net.ConnectException: Connection refused "
                    "(graphite.monitoring.svc:2003)")
        if m % 60 == 0:
            redis(base + timedelta(seconds=1), "*", "Background AOF rewrite finished successfully")
            pylog(base + timedelta(seconds=3), "INFO", "fraud.model",
                  f"active model {fraud_model(base)} healthy")
        if m % 360 == 30:
            zap(base + timedelta(seconds=4), "info", "starting bidder", "cmd/bidder/main.go:41",
                version=bidder_version(base), reason="scheduled pod rotation")

def fraud_model(dt: datetime) -> str:
    day = "15" if at(0, "20:02") <= dt < at(0, "20:37") else "16" if dt >= at(1, "20:02") else "14"
    return f"ivt-gbm-202702{day}"

# ---------------------------------------------------------------- incidents, as the logs saw them
def burst(start, end, every_s, fn):
    t = start
    while t < end:
        fn(t + timedelta(seconds=R.uniform(0, every_s * 0.8)))
        t += timedelta(seconds=every_s * R.uniform(0.6, 1.4))

def story_freqcap():
    """Cache memory at maxmemory evicts the frequency-cap keys: only bidder deadlines show it."""
    a, b = INC["freqcap"]
    burst(a, b, 9, lambda t: zap(t, "warn", "bid deadline exceeded", "auction/auction.go:240",
                                 tmax_ms=120, elapsed_ms=R.randint(125, 190), exchange=R.choice(EXCHANGES)))
    burst(a + timedelta(minutes=3), b, 40, lambda t: access(
        t, "bid-gateway", "POST", f"/openrtb2/auction?x={R.choice(EXCHANGES)}", 204, 0, "pampa-rtb/2.6",
        0.121, upstream="bidder:8080", urt=0.121))

def story_bidder_deploy():
    a, b = INC["bidder_deploy"]
    for t in (at(0, "15:05", 12), at(0, "15:06", 3), at(0, "15:06", 51)):
        zap(t, "info", "starting bidder", "cmd/bidder/main.go:41", version="4.12.0", commit="9c1e2ab",
            reason="rollout DEP-5120")

    def panic(t):
        zap(t, "error", "recovered panic in auction handler", "auction/handler.go:77",
            error="runtime error: invalid memory address or nil pointer dereference",
            stack="auction.(*Auction).applyDealFloors(0xc000a1e000) deals.go:88", version="4.12.0",
            request_id=rid())
    burst(a, b, 10, panic)
    burst(a, b, 9, lambda t: access(t, "bid-gateway", "POST", f"/openrtb2/auction?x={R.choice(EXCHANGES)}",
                                    502, 157, "nimbus-rtb/2.6", R.uniform(0.01, 0.03), upstream="bidder"))
    for t in [at(0, "15:14", 20), at(0, "15:22", 8)]:
        zap(t, "panic", "auction worker pool exhausted by panics, exiting", "auction/pool.go:120",
            version="4.12.0")
        zap(t + timedelta(seconds=9), "info", "starting bidder", "cmd/bidder/main.go:41",
            version="4.12.0", commit="9c1e2ab", reason="container restart (CrashLoopBackOff)")
    zap(at(0, "15:33", 2), "info", "starting bidder", "cmd/bidder/main.go:41", version="4.11.3",
        commit="51f0d7c", reason="rollback DEP-5121")
    pino(at(0, "14:58", 30), "INFO", "tracker starting", version="1.19.0", node="20.11.1")

def story_fraud_model():
    a, b = INC["fraud_model"]
    pylog(at(0, "20:00", 4), "INFO", "fraud.model", "scheduled model refresh started (cron 0 20 * * *)")
    pylog(at(0, "20:02", 11), "INFO", "fraud.model",
          "model reloaded name=ivt-gbm-20270215 trees=2400 features=1840 (was trees=400 features=96)")
    pylog(at(0, "20:37", 40), "INFO", "fraud.model",
          "model pinned to ivt-gbm-20270214 by ops (ticket ADS-1893); reloaded trees=400 features=96")
    pylog(at(1, "20:00", 4), "INFO", "fraud.model", "scheduled model refresh started (cron 0 20 * * *)")
    pylog(at(1, "20:02", 9), "INFO", "fraud.model",
          "model reloaded name=ivt-gbm-20270216 trees=400 features=96 (was trees=400 features=96)")
    burst(a, b, 50, lambda t: pylog(t, "INFO", "fraud.scorer", f"scored batch n={R.randint(200, 800)} "
                                    f"ivt_rate={R.uniform(0.02, 0.05):.3f} p99_ms={R.uniform(70, 110):.1f}"))
    burst(a + timedelta(minutes=2), b, 11, lambda t: zap(
        t, "warn", "fraud score timeout, no-bid", "auction/fraud.go:58", timeout_ms=40,
        elapsed_ms=R.randint(41, 120), exchange=R.choice(EXCHANGES)))
    burst(a + timedelta(minutes=2), b, 9, lambda t: access(
        t, "bid-gateway", "POST", f"/openrtb2/auction?x={R.choice(EXCHANGES)}", 504, 160, "pampa-rtb/2.6",
        0.150, upstream="bidder:8080", urt=0.150))
    logback(at(0, "20:11", 2), "event-pipeline", "WARN", "loader-2", "c.a.pipeline.LagMonitor",
            "consumer group warehouse-loader lag=131200 on topic impressions.v3")

def story_kafka_cert():
    a, b = INC["kafka_cert"]
    cn = "CN=kafka.event-pipeline.rtb.internal"
    for t, days in ((at(0, "09:00", 1), 1), (at(0, "21:00", 1), 0)):
        logback(t, PIPE, "WARN", "-", "kafka.network.CertWatcher", f"listener SSL certificate {cn} "
                f"expires in {days} day(s) (not_after=2027-02-16T06:00:00Z); cert-manager renewal "
                "status: Failed (issuer rtb-internal-ca not ready)")
    burst(a, b, 20, lambda t: logback(
        t, PIPE, "INFO", "-", "org.apache.kafka.common.network.Selector", "[SocketServer listenerType="
        f"ZK_BROKER, nodeId={N(1, 3)}] Failed authentication with /{ip()} (SSL handshake failed)"))
    go = ("kafka: write failed: tls: failed to verify certificate: x509: certificate has expired or is "
          "not yet valid: current time {} is after 2027-02-16T06:00:00Z")
    burst(a, b, 20, lambda t: zap(t, "error", "bid log producer error", "events/producer.go:88",
                                  error=go.format(local(t)), topic="bids.v2"))
    burst(a, b, 16, lambda t: pino(t, "ERROR", "KafkaJSConnectionError: Connection error: certificate "
                                   "has expired", broker="kafka.event-pipeline.rtb.internal:9093",
                                   topic=R.choice(["impressions.v3", "clicks.v3"])))
    burst(a, b, 30, lambda t: pylog(t, "ERROR", "fraud.events", "publish failed: ssl.SSLCertVerification"
                                    "Error: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                                    "certificate has expired (_ssl.c:1006)"))
    burst(a, b, 45, lambda t: logfmt(t, "error", "spend event consume failed",
                                     err="kafka: tls: certificate has expired", topic="spend.v1"))
    burst(a, b, 60, lambda t: logback(t, PIPE, "ERROR", "loader-1", "c.a.pipeline.WarehouseLoader",
                                      "no records fetched for 60s from impressions.v3, disconnected"))
    logback(at(1, "04:11", 30), PIPE, "INFO", "-", "kafka.network.CertWatcher", "ssl.keystore.location "
            f"reloaded: {cn} not_after=2027-05-17T06:00:00Z (manual renewal)")
    pg(at(1, "02:55", 3), "LOG", "automatic vacuum of table \"campaigns.public.impressions_daily\": index "
       "scans: 3, pages: 1180 removed, 90211 remain")

def story_pacer_cfg():
    a, b = INC["pacer_cfg"]
    for t, key, new, old, chg in ((at(1, "09:22", 40), "pacing.report_interval_s", "30", "60", "CHG-8840"),
                                  (at(1, "09:31", 6), "pacing.throttle_floor", "0.95", "0.05", "CHG-8842"),
                                  (at(1, "10:26", 3), "pacing.throttle_floor", "0.05", "0.95", "CHG-8845")):
        logfmt(t, "info", "config reloaded", key=key, value=new, previous=old, source="consul", change=chg)
    burst(a, b, 25, lambda t: zap(t, "info", "no bid: campaign throttled by pacer", "auction/pacing.go:33",
                                  campaign=R.choice(CAMPAIGNS), throttle=0.95))
    zap(at(1, "09:18", 2), "info", "config reloaded", "config/watch.go:52", key="bid.shading.max_ratio",
        value="0.85", previous="0.80")

def story_pg_disk():
    a, b = INC["pg_disk"]
    seg = [0x4A]
    def archive_fail(t):
        seg[0] += 1
        wal = f"00000001000000A2000000{seg[0]:02X}"
        emit(t, "campaign-store", "ERROR", f"ERROR: {t:%Y/%m/%d %H:%M:%S}.{N(100, 999)} failed to upload "
             f"'wal_005/{wal}.br': AccessDenied: The AWS Access Key Id you provided does not exist in our "
             "records. status code: 403", host="pg-campaigns-0")
        pg(t + timedelta(milliseconds=2), "LOG", "archive command failed with exit code 1")
        pg(t + timedelta(milliseconds=3), "DETAIL", f"The failed archive command was: wal-g wal-push "
           f"pg_wal/{wal}")
    burst(at(1, "11:04"), b, 150, archive_fail)
    pg(at(1, "11:12", 9), "WARNING", "archiving write-ahead log file \"00000001000000A20000004C\" failed too "
       "many times, will try again later")
    for i, msg in enumerate(["received fast shutdown request", "database system is shut down",
                             "database system is ready to accept connections"]):
        pg(at(1, "13:21", 10 + 14 * i), "LOG", msg)

    def full(t):
        rel = R.choice([24611, 24618, 2619])
        pg(t, "ERROR", f'could not extend file "base/16401/{rel}": No space left on device',
           "pacer", "campaigns")
        pg(t + timedelta(milliseconds=1), "HINT", "Check free disk space.", "pacer", "campaigns")
    burst(a, b, 20, full)
    pg(at(1, "13:51", 12), "LOG", "could not write to file \"pg_wal/xlogtemp.4121\": No space left on device")
    pg(at(1, "14:09", 30), "LOG", "checkpoint complete: wrote 1840 buffers (1.4%); 0 WAL file(s) added, "
       "412 removed, 3 recycled; write=38.112 s")
    burst(a + timedelta(minutes=1), b, 30, lambda t: logfmt(
        t, "error", "spend flush failed", err="campaign-store: transaction aborted, 0 rows written",
        attempt=3, rows=R.randint(180, 460)))
    burst(a + timedelta(minutes=2), b, 120, lambda t: logback(
        t, "reporting-api", "WARN", f"nio-8080-exec-{R.randint(1, 9)}", "c.a.reporting.SpendView",
        "spend for today is stale (last flush > 5 min ago)"))
    zap(at(1, "11:20", 5), "info", "starting bidder", "cmd/bidder/main.go:41", version="4.12.1",
        commit="a77c310", reason="rollout DEP-5133")

def story_ipe():
    a, b = INC["ipe_outage"]
    logback(at(1, "16:52", 14), "reporting-api", "INFO", "main", "c.a.reporting.config.ExchangeConfig",
            "exchanges.ipe.report_currency changed USD -> BRL (CHG-8851); ipe revenue reports will "
            "re-aggregate")
    burst(a, b, 300, lambda t: zap(t, "info", "exchange qps below expectation", "exchanges/monitor.go:71",
                                   exchange="ipe", qps=R.randint(3, 20), expected_qps=R.randint(520, 610)))

STORIES = [story_freqcap, story_bidder_deploy, story_fraud_model, story_kafka_cert, story_pacer_cfg,
           story_pg_disk, story_ipe]

# ---------------------------------------------------------------- ops tables
def rows(text: str) -> list[list[str]]:
    """A literal table: a row a line, cells between `|`."""
    return [[c.strip() for c in line.split("|")] for line in text.strip().splitlines()]

DEPENDENCIES = rows("""
bid-gateway | bidder | http/1.1 | sync | 110 | critical | OpenRTB 2.6 passthrough; tmax 120ms
bidder | freqcap-cache | redis | sync | 8 | critical | per-user frequency caps, GET/INCR per auction
bidder | budget-pacer | grpc | sync | 10 | critical | pacing throttle per campaign
bidder | fraud-scorer | grpc | sync | 40 | critical | pre-bid IVT score; timeout => no-bid
bidder | campaign-store | postgres | async | 5000 | high | campaign snapshot refresh every 60s
bidder | event-pipeline | kafka | async | 2000 | medium | bid logs to bids.v2
budget-pacer | campaign-store | postgres | async | 3000 | high | spend flush every 60s
budget-pacer | event-pipeline | kafka | async | 2000 | high | consumes spend.v1
event-tracker | event-pipeline | kafka | async | 2000 | critical | impressions.v3, clicks.v3
fraud-scorer | event-pipeline | kafka | async | 2000 | low | ivt verdicts
event-pipeline | warehouse | jdbc | async | 60000 | high | loads events.* tables
reporting-api | warehouse | jdbc | sync | 30000 | high | delivery reports
reporting-api | campaign-store | postgres | sync | 3000 | medium | today's spend view
creative-origin | s3 | https | sync | 2000 | high | creative assets bucket
""")

# id | service | version | day | start | minutes | status | by | summary
DEPLOYS = rows("""
DEP-5112 | reporting-api | 2.31.0 | 0 | 09:12 | 4 | SUCCEEDED | ci-bot | delivery report CSV export
DEP-5114 | creative-origin | 1.7.4 | 0 | 10:04 | 3 | SUCCEEDED | ci-bot | nginx 1.25.4, video cache-control
DEP-5117 | event-tracker | 1.19.0 | 0 | 14:57 | 3 | SUCCEEDED | ci-bot | redirect allowlist, kafkajs 2.2.4
DEP-5120 | bidder | 4.12.0 | 0 | 15:05 | 2 | SUCCEEDED | r.almeida | PMP deal floors per imp, shading v3
DEP-5121 | bidder | 4.11.3 | 0 | 15:31 | 2 | SUCCEEDED | r.almeida | rollback of 4.12.0
DEP-5124 | fraud-scorer | 3.4.2 | 0 | 17:40 | 3 | SUCCEEDED | ci-bot | python 3.12.2 base image
DEP-5127 | reporting-api | 2.31.1 | 1 | 02:41 | 4 | SUCCEEDED | ci-bot | hotfix: timezone of daily rollups
DEP-5130 | budget-pacer | 2.9.0 | 1 | 08:47 | 3 | SUCCEEDED | l.nakamura | daypart curves, configurable floor
DEP-5133 | bidder | 4.12.1 | 1 | 11:19 | 3 | SUCCEEDED | r.almeida | PMP deal floors (nil-safe)
DEP-5139 | bid-gateway | 3.3.0 | 1 | 12:10 | 3 | SUCCEEDED | ci-bot | access-log field order, /healthz v2
DEP-5136 | campaign-store | pg-15.6-r2 | 1 | 13:20 | 6 | SUCCEEDED | infra-bot | image bump, pgbouncer 1.22
""")

# id | service | key | old | new | by | day | at | ticket
CONFIG_CHANGES = rows("""
CHG-8821 | bidder | auction.tmax_ms | 110 | 120 | r.almeida | 0 | 08:40 | ADS-1871
CHG-8824 | reporting-api | graphite.enabled | true | true | m.souza | 0 | 09:30 | ADS-1874
CHG-8830 | creative-origin | proxy_cache_valid | 10m | 1h | j.costa | 0 | 10:12 | ADS-1877
CHG-8828 | freqcap-cache | maxmemory | 8gb | 12gb | oncall:t.ferreira | 0 | 10:46 | ADS-1880
CHG-8834 | fraud-scorer | model.refresh_cron | 0 20 * * * | 0 20 * * * | d.lima | 0 | 19:40 | ADS-1889
CHG-8836 | event-tracker | kafka.ssl.ca_bundle | ca-2025.pem | ca-2026.pem | infra-bot | 0 | 22:15 | ADS-1892
CHG-8841 | bidder | bid.shading.max_ratio | 0.80 | 0.85 | r.almeida | 1 | 09:18 | ADS-1897
CHG-8840 | budget-pacer | pacing.report_interval_s | 60 | 30 | l.nakamura | 1 | 09:22 | ADS-1898
CHG-8842 | budget-pacer | pacing.throttle_floor | 0.05 | 0.95 | l.nakamura | 1 | 09:31 | ADS-1899
CHG-8845 | budget-pacer | pacing.throttle_floor | 0.95 | 0.05 | oncall:v.rocha | 1 | 10:26 | ADS-1902
CHG-8848 | campaign-store | archive_timeout | 300 | 60 | infra-bot | 1 | 10:58 | ADS-1903
CHG-8851 | reporting-api | exchanges.ipe.report_currency | USD | BRL | m.souza | 1 | 16:52 | ADS-1907
""")

# id | service | subject | issuer | not_before | not_after | used for
CERTIFICATES = rows("""
CRT-301 | event-pipeline | CN=kafka.event-pipeline.rtb.internal | rtb-internal-ca | 2026-11-18T06:00:00Z \
  | 2027-02-16T06:00:00Z | kafka SSL listener :9093 (all producers/consumers)
CRT-302 | event-pipeline | CN=kafka.event-pipeline.rtb.internal | rtb-internal-ca | 2027-02-16T07:10:00Z \
  | 2027-05-17T06:00:00Z | kafka SSL listener :9093 (manual renewal ADS-1901)
CRT-303 | bid-gateway | CN=rtb.anuncia.com.br | Let's Encrypt R11 | 2027-01-02T10:00:00Z \
  | 2027-04-02T10:00:00Z | public OpenRTB endpoint
CRT-304 | creative-origin | CN=cdn-origin.anuncia.com.br | Let's Encrypt R11 | 2026-12-20T10:00:00Z \
  | 2027-03-20T10:00:00Z | origin for CDN edge pulls
CRT-305 | event-tracker | CN=t.anuncia.com.br | Let's Encrypt R10 | 2027-01-25T10:00:00Z \
  | 2027-04-25T10:00:00Z | impression/click pixel endpoint
CRT-306 | campaign-store | CN=pg.campaigns.rtb.internal | rtb-internal-ca | 2026-12-01T06:00:00Z \
  | 2027-03-01T06:00:00Z | postgres TLS
""")

# metric spells: key, service, field, factor (multiplies baseline) or ("set", value)
SPELLS = [
    ("freqcap", "bidder", "p99_ms", 1.9), ("freqcap", "bidder", "error_pct", 9.0),
    ("freqcap", "bid-gateway", "p99_ms", 1.5),
    ("bidder_deploy", "bidder", "error_pct", 40.0), ("bidder_deploy", "bid-gateway", "error_pct", 25.0),
    ("fraud_model", "fraud-scorer", "p99_ms", 22.0), ("fraud_model", "bidder", "p99_ms", 2.1),
    ("fraud_model", "bid-gateway", "p99_ms", 2.4), ("fraud_model", "bid-gateway", "error_pct", 14.0),
    ("fraud_model", "fraud-scorer", "rps", 0.8),
    ("kafka_cert", "event-pipeline", "rps", 0.02), ("kafka_cert", "event-tracker", "error_pct", 30.0),
    ("kafka_cert", "bidder", "error_pct", 4.0), ("kafka_cert", "fraud-scorer", "error_pct", 8.0),
    ("kafka_cert", "budget-pacer", "error_pct", 10.0),
    ("pg_disk", "campaign-store", "error_pct", 60.0), ("pg_disk", "budget-pacer", "error_pct", 12.0),
]
BASE = {  # rps at peak, p99_ms, error_pct
    "bid-gateway": (5200, 62, 0.3), "bidder": (5100, 48, 0.4), "budget-pacer": (5100, 3, 0.05),
    "campaign-store": (310, 14, 0.02), "freqcap-cache": (10400, 1.1, 0.0), "creative-origin": (900, 22, 0.6),
    "event-tracker": (1400, 9, 0.1), "event-pipeline": (2600, 35, 0.0), "fraud-scorer": (5000, 4, 0.02),
    "reporting-api": (12, 640, 2.1),
}

def service_metrics() -> list[list]:
    rows = []
    for m in range(0, MINUTES, 5):
        dt = minute_dt(m)
        for svc in SERVICES:
            rps, p99, err = BASE[svc]
            load = 0.7 if svc == "campaign-store" else curve(dt)
            vals = {"rps": rps * load * R.uniform(0.93, 1.07), "p99_ms": p99 * R.uniform(0.85, 1.2),
                    "error_pct": err * R.uniform(0.6, 1.5)}
            for key, s, field, f in SPELLS:
                if s == svc and active(key, dt):
                    vals[field] = vals[field] * f if field != "error_pct" else max(vals[field], 0.3) * f
            if svc == "event-tracker" and active("kafka_cert", dt):
                vals["rps"] *= 0.97
            rows.append([local(dt), svc, round(vals["rps"]), round(vals["p99_ms"], 1),
                         round(min(vals["error_pct"], 100), 2)])
    return rows

def freqcap_stats() -> list[list]:
    rows, mem, evicted, ops = [], 4700.0, 0, ((2000, 6000), (9000, 12000))
    a, b = INC["freqcap"]
    for m in range(MINUTES):
        dt = minute_dt(m)
        maxmem = 12288 if dt >= at(0, "10:46") else 8192
        if at(0, "08:52") <= dt < a:  # campaign C-2302 launch with per-creative caps: keys grow fast
            left = (a - dt).total_seconds() / 60
            mem = min(8192.0, mem + (8192 - mem) / left * R.uniform(0.9, 1.1))
        elif a <= dt < b:
            mem = 8192.0 if dt < at(0, "10:46") else mem + R.uniform(20, 40)
        else:
            mem = min(maxmem * 0.9, mem + R.uniform(-7, 7))
        ev = R.randint(2400, 9800) if a <= dt < at(0, "10:46") else 0
        evicted += ev
        hit = R.uniform(61, 72) if a <= dt < b else R.uniform(96.5, 98.5)
        p99 = R.uniform(14, 31) if a <= dt < b else R.uniform(0.8, 1.6)
        rows.append([local(dt), "freqcap-cache-1", round(mem), maxmem, int(mem * 5100), ev, evicted,
                     round(hit, 1), round(p99, 2), R.randint(*ops[curve(dt) > 0.5])])
    return rows

def exchange_traffic() -> list[list]:
    rows = []
    for m in range(0, MINUTES, 5):
        dt = minute_dt(m)
        for ex in EXCHANGES:
            req = 5200 * 300 * EXCHANGE_SHARE[ex] * curve(dt) * R.uniform(0.95, 1.05)
            if ex == "ipe" and active("ipe_outage", dt):
                req *= R.uniform(0.02, 0.06)
            bid_rate = 0.31 * (0.06 if active("pacer_cfg", dt) else 0.2 if active("bidder_deploy", dt) else 1)
            tout = 0.16 if active("fraud_model", dt) else 0.05 if active("freqcap", dt) else 0.004
            bids = req * bid_rate * (1 - tout) * R.uniform(0.95, 1.05)
            wins = bids * R.uniform(0.17, 0.21)
            rows.append([local(dt), ex, round(req), round(bids), round(wins), round(req * tout),
                         round(wins * R.uniform(2.1, 3.4) / 1000, 2)])
    return rows

def pacing_stats() -> list[list]:
    rows = []
    for m in range(0, MINUTES, 5):
        dt = minute_dt(m)
        thr = 0.95 if active("pacer_cfg", dt) else R.uniform(0.08, 0.22)
        target = 1850 * curve(dt) * 5 / 60
        spend = target * (0.05 if thr == 0.95 else R.uniform(0.92, 1.06))
        spend *= 0.25 if active("bidder_deploy", dt) else 1
        rows.append([local(dt), len(CAMPAIGNS), round(thr, 3), round(spend, 2), round(target, 2),
                     str(not active("pg_disk", dt)).lower()])
    return rows

def deploy_rows():
    return [[i, s, v, utc_z(at(int(d), t)), utc_z(at(int(d), t) + timedelta(minutes=int(n))), st, by, su]
            for i, s, v, d, t, n, st, by, su in DEPLOYS]

def change_rows():
    return [[i, s, k, o, n, by, local(at(int(d), t)), tk]
            for i, s, k, o, n, by, d, t, tk in CONFIG_CHANGES]

TABLES = {  # name: (header, rows)
    "dependencies": ("caller callee protocol mode timeout_ms criticality notes", lambda: DEPENDENCIES),
    "deploys": ("deploy_id service version started_at finished_at status deployed_by summary", deploy_rows),
    "config_changes": ("change_id service config_key old_value new_value changed_by changed_at ticket",
                       change_rows),
    "certificates": ("cert_id service subject issuer not_before not_after used_for", lambda: CERTIFICATES),
    "service_metrics": ("ts service rps p99_ms error_pct", service_metrics),
    "freqcap_stats": ("ts node used_memory_mb maxmemory_mb keys evicted_keys evicted_keys_total "
                      "keyspace_hit_pct cmd_p99_ms ops_per_s", freqcap_stats),
    "exchange_traffic": ("ts exchange bid_requests bids wins timeouts spend_brl_k", exchange_traffic),
    "pacing_stats": ("ts active_campaigns avg_throttle spend_brl target_spend_brl spend_flushed",
                     pacing_stats),
}

# ---------------------------------------------------------------- the team's runbooks and notes
KNOWLEDGE = {
    "bidder-timeouts": """# Bidder: bid deadline exceeded

Owner: bidding team (#rtb-bidder). Pager: RTB primary.

## Symptoms

`bid deadline exceeded` WARNs from the bidder climb above a handful a minute; exchanges see no-bids
and our win rate drops in `exchange_traffic`.

## What the bidder waits on

Every auction calls, in order and synchronously: freqcap-cache (frequency caps, 8 ms budget),
budget-pacer (throttle, 10 ms), fraud-scorer (pre-bid IVT, 40 ms). The bidder does not log which
stage was slow: use the `dependencies` table and each dependency's own metrics (`freqcap_stats`,
`service_metrics`), then rule out our own changes (`deploys`, `config_changes`).

## Mitigation

Scale out or add capacity to the slow dependency; never raise tmax above 120 ms (exchanges drop us).
""",
    "bid-gateway-latency": """# bid-gateway: high latency and 504s to exchanges

## When this happens

Almost always at the evening peak (19:00-22:00 BRT) when one exchange bursts its QPS (Pampa does
this at prime-time breaks): the upstream pool saturates and requests past tmax get a 504.

## Check

- `exchange_traffic`: bid_requests per exchange; a burst is +40% over the same time yesterday.
- `service_metrics` for bid-gateway: rps against p99_ms.

## Fix

Scale the HPA (`kubectl -n rtb scale deploy/bid-gateway --replicas=18`) and ask the exchange's TAM
to smooth their QPS. Per-exchange rate limits live in bid-gateway's config.
""",
    "kafka-certificates": """# Kafka listener certificates (event-pipeline)

The kafka cluster in event-pipeline serves TLS on :9093 with a 90-day certificate from the internal
CA (`rtb-internal-ca`), renewed by cert-manager 15 days before `not_after`. Every producer and
consumer (bidder bid logs, event-tracker impressions and clicks, fraud-scorer verdicts,
budget-pacer spend) connects to it.

## If renewal failed

The brokers log a daily `CertWatcher` WARN with the days left and the renewal status. Renew by hand
(`cmctl renew kafka-listener -n data`), then roll the brokers one by one; see `certificates`.

## Clients' words for it

Go `x509: certificate has expired or is not yet valid`; kafkajs `certificate has expired`; Python
`CERTIFICATE_VERIFY_FAILED`; brokers `SSL handshake failed`.
""",
    "campaign-store-postgres": """# campaign-store (PostgreSQL 15)

Primary and one replica: campaigns, line items, creatives and the spend ledger. budget-pacer
flushes spend every 60 s; reporting-api reads today's spend from it.

## WAL archiving

`wal-g wal-push` ships WAL to object storage (archive_command). While archiving fails, Postgres
keeps every segment in `pg_wal`, on the same 200 GB volume as the data: hours of `archive command
failed` end with the volume full and writes failing. Check the wal-g credentials in `/etc/wal-g/env`.

## Connection limits

max_connections = 300 behind pgbouncer; `sorry, too many clients already` means a client leaks
connections, not that the database is down.
""",
    "known-noise": """# Known noise (do not page on these)

- reporting-api `Unable to report to Graphite` every five minutes, all day: graphite was
  decommissioned and the reporter never removed (ADS-1702).
- reporting-api `deprecated endpoint /v1/stats` WARNs: advertiser-ui still calls it.
- creative-origin 404s for `/favicon.ico` and `cr-0.jpg` (CDN health probes).
- bidder `bid price below exchange floor` WARNs: a normal auction outcome.
- event-pipeline `warehouse-loader lag=` WARNs up to ~100k at the evening peak; it catches up.
- A few `bid deadline exceeded` an hour are normal (exchanges' network tail latency).
""",
}

# ---------------------------------------------------------------- truth
def q(day, hhmm):
    return at(day, hhmm).isoformat()

def ev(tool, contains, **args):
    return {"tool": tool, "args": args, "contains": contains}

def logs_ev(service, d1, t1, d2, t2, pattern, contains):
    return ev("query_logs", contains, service=service, start=q(d1, t1), end=q(d2, t2), pattern=pattern)

def sql_ev(sql, contains):
    return ev("query_mysql", contains, sql=sql)

def incident(id_, kind, cls, question, service, window, onset, cause, root, terms, distract, runbook,
             evidence, note):
    (d1, t1), (d2, t2) = window
    ok = kind == "cause"
    return {"id": id_, "kind": kind, "class": cls, "question": question, "service": service,
            "start": q(d1, t1), "end": q(d2, t2), "onset": q(*onset) if onset else None,
            "cause_service": cause, "root_cause": root, "key_terms": terms, "distractors": distract,
            "has_runbook": runbook is not None, "runbook": runbook,
            "expected_outcome": "SUCCESS" if ok else "FALLBACK",
            "fallback_type": None if ok else "INSUFFICIENT_EVIDENCE", "evidence": evidence, "note": note}

def truth() -> dict:
    incs = [
        incident("ADS-1", "cause", "resource-saturation", "bidder is timing out on lots of auctions between "
                 "10:20 and 10:45 on 15/02 — what's the root cause?",
                 "bidder", ((0, "10:20"), (0, "10:45")), (0, "10:18"), "freqcap-cache",
                 "freqcap-cache reached maxmemory (8192 MB, keys grown since a campaign launch) and started "
                 "evicting keys: its command p99 went from ~1 ms to 14-31 ms, past the bidder's 8 ms budget "
                 "for the sync frequency-cap lookup, so auctions blew the 120 ms tmax",
                 ["freqcap-cache", "evict"],
                 ["creative-origin deploy DEP-5114 at 10:04 and CHG-8830 proxy_cache_valid at 10:12",
                  "CHG-8828 raising freqcap-cache maxmemory at 10:46 (the fix, after the onset)",
                  "reporting-api Graphite errors (known noise)"], "bidder-timeouts",
                 [sql_ev("SELECT ts, used_memory_mb, maxmemory_mb, evicted_keys FROM freqcap_stats "
                         "WHERE ts BETWEEN '2027-02-15T13:10:00Z' AND '2027-02-15T13:45:00Z'", "8192"),
                  sql_ev("SELECT * FROM dependencies WHERE caller = 'bidder'", "per-user frequency caps"),
                  logs_ev("bidder", 0, "10:20", 0, "10:45", "deadline exceeded", "bid deadline exceeded")],
                 "seen only in metrics (freqcap_stats) and the dependencies table: freqcap-cache's log shows "
                 "routine saves only and the bidder's does not say which stage was slow"),
        incident("ADS-2", "cause", "bad-release",
                 "why is the bidder throwing errors and restarting between 15:05 and 15:35 on 15 Feb?",
                 "bidder", ((0, "15:05"), (0, "15:35")), (0, "15:07"), "bidder",
                 "bidder deploy DEP-5120 (v4.12.0, PMP deal floors) panics with a nil pointer dereference in "
                 "applyDealFloors; workers crash-loop until the rollback DEP-5121 to 4.11.3 at 15:31",
                 ["bidder", "4.12.0"], ["event-tracker deploy DEP-5117 (1.19.0) at 14:57"], None,
                 [sql_ev("SELECT * FROM deploys WHERE service = 'bidder'", "DEP-5120"),
                  logs_ev("bidder", 0, "15:05", 0, "15:35", "panic", "applyDealFloors"),
                  logs_ev("bidder", 0, "15:00", 0, "15:10", "starting bidder", "4.12.0")],
                 "a deploy; no runbook covers panics"),
        incident("ADS-3", "cause", "misconfiguration", "budget-pacer: spend is way under pace and we're "
                 "barely bidding since ~09:30, what happened?",
                 "budget-pacer", ((1, "09:30"), (1, "10:25")), (1, "09:31"), "budget-pacer",
                 "config change CHG-8842 set budget-pacer pacing.throttle_floor from 0.05 to 0.95: the pacer "
                 "throttled 95% of bid opportunities of every campaign until CHG-8845 reverted it at 10:26",
                 ["budget-pacer", "throttle_floor"],
                 ["CHG-8840 pacing.report_interval_s on the same service at 09:22",
                  "budget-pacer deploy DEP-5130 (2.9.0, 'configurable floor') at 08:47",
                  "bidder CHG-8841 bid.shading.max_ratio at 09:18"], None,
                 [sql_ev("SELECT * FROM config_changes WHERE service = 'budget-pacer'", "CHG-8842"),
                  logs_ev("budget-pacer", 1, "09:25", 1, "10:25", "config reloaded", "pacing.throttle_floor"),
                  sql_ev("SELECT ts, avg_throttle, spend_brl FROM pacing_stats WHERE ts BETWEEN "
                         "'2027-02-16T12:30:00Z' AND '2027-02-16T13:25:00Z'", "0.95")],
                 "the question gives only a time (the data's last day)"),
        incident("ADS-4", "cause", "disk-full",
                 "budget-pacer spend flushes failing between 13:45 and 14:10 on 16/02 — root cause?",
                 "budget-pacer", ((1, "13:45"), (1, "14:10")), (1, "13:44"), "campaign-store",
                 "campaign-store's data volume filled up (No space left on device): WAL archiving (wal-g "
                 "wal-push) had been failing since 11:04, so pg_wal grew until writes failed",
                 ["campaign-store", "space"],
                 ["campaign-store image bump DEP-5136 at 13:20", "CHG-8848 archive_timeout at 10:58",
                  "reporting-api stale-spend WARNs (a symptom)"], "campaign-store-postgres",
                 [logs_ev("campaign-store", 1, "13:40", 1, "14:10", "No space left", "No space left on"),
                  logs_ev("campaign-store", 1, "11:00", 1, "13:45", "archive command", "command failed"),
                  logs_ev("budget-pacer", 1, "13:45", 1, "14:10", "spend flush", "transaction aborted")],
                 "in the logs alone: the mechanism is in the failing dependency's own (PostgreSQL) log"),
        incident("ADS-5", "cause", "certificate-expiry", "Lots of alerts firing at once from about 03:00 on "
                 "16/02 until a bit after 04:00 — errors all over the platform. What's the root cause?",
                 None, ((1, "03:00"), (1, "04:10")), (1, "03:00"), "event-pipeline",
                 "the event-pipeline kafka listener certificate CRT-301 "
                 "(CN=kafka.event-pipeline.rtb.internal) expired at 03:00 (not_after 2027-02-16T06:00:00Z) "
                 "after its cert-manager renewal failed; every producer and consumer failed TLS until the "
                 "manual renewal at 04:11", ["certificate", "expired"],
                 ["reporting-api deploy DEP-5127 at 02:41", "campaign-store nightly vacuum at 02:55",
                  "event-tracker CHG-8836 kafka.ssl.ca_bundle at 22:15 the day before"], "kafka-certificates",
                 [sql_ev("SELECT cert_id, subject, not_after FROM certificates", "2027-02-16T06:00:00Z"),
                  logs_ev("event-pipeline", 1, "03:00", 1, "04:10", "SSL handshake", "SSL handshake failed"),
                  logs_ev("bidder", 1, "03:00", 1, "04:10", "certificate", "certificate has expired")],
                 "system-wide question naming no service"),
        incident("ADS-6", "cause", "slow-dependency", "bid-gateway latency through the roof and 504s to the "
                 "exchanges from 20:05 to 20:35 on 15/02, why?",
                 "bid-gateway", ((0, "20:05"), (0, "20:35")), (0, "20:02"), "fraud-scorer",
                 "fraud-scorer's scheduled model refresh loaded ivt-gbm-20270215 (2400 trees, 1840 features, "
                 "was 400/96): scoring p99 rose from ~4 ms to ~90 ms, past the bidder's 40 ms fraud timeout, "
                 "so auctions stalled and bid-gateway returned 504s until the model was pinned back at 20:37",
                 ["fraud-scorer", "model"],
                 ["evening traffic peak in exchange_traffic (normal)", "fraud-scorer deploy DEP-5124 17:40",
                  "no-op CHG-8834 model.refresh_cron", "event-pipeline consumer lag WARN (known noise)",
                  "bid-gateway-latency runbook blaming exchange QPS bursts"], "bidder-timeouts",
                 [logs_ev("fraud-scorer", 0, "20:00", 0, "20:35", "model reloaded", "features=1840"),
                  logs_ev("bidder", 0, "20:05", 0, "20:35", "fraud score timeout", "fraud score timeout"),
                  sql_ev("SELECT * FROM dependencies WHERE callee = 'fraud-scorer'", "timeout => no-bid")],
                 "the component asked about (bid-gateway) is the symptom; the cause is two hops upstream"),
        incident("ADS-7", "trap", "external", "bid requests from Ipê (ipe) dropped to almost nothing on "
                 "bid-gateway between 17:00 and 17:40 on 16 Feb — why?",
                 "bid-gateway", ((1, "17:00"), (1, "17:40")), (1, "16:58"), None, None, [],
                 ["reporting-api CHG-8851 exchanges.ipe.report_currency at 16:52 (shares the exchange name)"],
                 None, [], "external: the exchange stopped sending traffic; our gateway answered every "
                 "request it got normally and nothing in the data says why: an honest fallback"),
        incident("ADS-8", "quiet", "none", "anything wrong with event-tracker between 04:00 and 04:30 on "
                 "15/02? saw a blip on the dashboard",
                 "event-tracker", ((0, "04:00"), (0, "04:30")), None, None, None, [], [], None, [],
                 "quiet night window: nothing happened"),
    ]
    return {"dataset": f"{NAME}-world", "timezone": TZ_NAME,
            "description": "Ad-tech RTB platform, São Paulo (America/Sao_Paulo, UTC-03:00), 2027-02-15..16: "
                           "6 incidents with a cause, 1 unrelated-change trap, 1 quiet window.",
            "incidents": incs}

# ---------------------------------------------------------------- writing and checking
def build() -> dict[str, str]:
    everyday()
    for story in STORIES:
        story()
    files: dict[str, str] = {}
    for name, (header, rows) in TABLES.items():
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([header.split(), *rows()])
        files[f"tables/{name}.csv"] = buf.getvalue()
    EVENTS.sort(key=lambda e: (e[0], e[1]))
    files["logs.jsonl"] = "".join(
        json.dumps({"ts": iso(t), "service": s, "level": lv, "message": msg, "attrs": attrs},
                   ensure_ascii=False) + "\n" for t, s, lv, msg, attrs in EVENTS)
    for slug, text in KNOWLEDGE.items():
        files[f"knowledge/{slug}.md"] = text
    files["dataset.json"] = json.dumps({
        "name": f"{NAME}-world", "timezone": TZ_NAME,
        "description": "An ad-tech real-time bidding platform (bid gateway, bidder, pacing, campaign store, "
                       "frequency caps, creatives, trackers, kafka event pipeline, fraud scoring, reporting) "
                       "run from São Paulo; two days, 2027-02-15..16, local time UTC-03:00."},
        ensure_ascii=False, indent=2) + "\n"
    files["truth.json"] = json.dumps(truth(), ensure_ascii=False, indent=2) + "\n"
    return files

def check(files: dict[str, str]) -> list[str]:
    """Every truth evidence item's `contains` must appear in what its tool reads."""
    problems = []
    logs = [json.loads(line) for line in files["logs.jsonl"].splitlines()]
    tables = "".join(v for k, v in files.items() if k.startswith("tables/"))
    for inc in json.loads(files["truth.json"])["incidents"]:
        for e in inc["evidence"]:
            if e["tool"] == "query_logs":
                a = e["args"]
                hit = any(r["service"] == a["service"] and a["start"] <= r["ts"] <= a["end"]
                          and a["pattern"].lower() in r["message"].lower() and e["contains"] in r["message"]
                          for r in logs)
            else:
                hit = e["contains"] in tables
            if not hit:
                problems.append(f"{inc['id']}: {e['tool']} {e['contains']!r} not found")
    return problems

def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 64
    files = build()
    out = Path(args[0]) / NAME
    for rel, text in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    n = files["logs.jsonl"].count("\n")
    print(f"{out}: {n} log events, {len(TABLES)} tables, {len(KNOWLEDGE)} runbooks")
    if "--check" in argv:
        problems = check(files)
        for p in problems:
            print("CHECK FAILED:", p, file=sys.stderr)
        if problems:
            return 1
        print("check: every evidence item found")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
