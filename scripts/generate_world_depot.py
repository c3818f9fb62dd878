"""Write the held-out "depot" world: a parcel logistics company's platform.

Three days (2026-12-08..10, Tuesday to Thursday, Central European Time: CET, UTC+01:00,
Europe/Berlin) of logs from 12 components, the ops tables the on-call has (dependencies, deploys,
config changes, schema migrations, job runs, one wide per-service metric export every five
minutes and one long per-host export) and three runbooks, with 10 incidents and traps described in
truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_depot.py [OUT_DIR]   # writes OUT_DIR/depot/ (default tests/data/worlds)

The platform ("Depot Paketdienst"): shop and partner integrations come in through the **gateway**
(Kong, nginx-style access log); **booking** (Spring Boot) books shipments in **mysql** (mysql-1
primary, mysql-2 replica) and publishes shipment events to **rabbitmq** (rabbit@mq-1);
**labels** (Python) buys labels from the carrier partner ParcelNet over HTTPS; **routeplan**
(Python) plans the driver tours with the **osrm** routing engine (osrm-1, osrm-2); **scangw** is
the MQTT broker the warehouse handheld scanners talk to, bridging scans to the gateway;
**tracking** (Go) consumes scan and shipment events from rabbitmq, deduplicates them in **redis**
(redis-1) and writes tracking states to mysql; **notify** (Celery) sends SMS through smsbird and
e-mail through Mailjet-like mailrelay; **billing** is the nightly invoicing batch (02:00).

Clocks as they come: gateway, booking, routeplan, osrm, rabbitmq, redis, notify and billing write
CET wall time (gateway and rabbitmq with the offset), labels and mysql write UTC, tracking and the
scanner broker write epoch seconds. Tables carry ISO times with their offset.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import every  # noqa: E402
from worlds.engine import inside as during

NAME, SEED = "depot", 120812
SERVICES = (
    "gateway", "booking", "labels", "routeplan", "osrm", "tracking", "rabbitmq", "mysql", "redis", "scangw",
    "notify", "billing",
)
CET = timezone(timedelta(hours=1))
LOCAL = engine.Clock(CET, datetime(2026, 12, 8, tzinfo=CET))
DAY0, END = LOCAL.days(3)
at, lt = LOCAL.at, LOCAL.iso




# The stories (CET): (start of the cause, end of the effects)
CERT = (at(0, 10, 12), at(0, 11, 4))  # DEPOT-01 ParcelNet new intermediate CA, labels bundle stale
COLUMN = (at(0, 13, 56), at(0, 14, 51))  # DEPOT-03 booking 4.12.0 without migration V87
RABBIT = (at(1, 9, 31), at(1, 10, 22))  # DEPOT-05 rabbitmq disk alarm from dlq.tracking growth
SMS = (at(1, 11, 8), at(1, 11, 56))  # DEPOT-06 smsbird outage (trap: notify config change 11:05)
STEAL = (at(1, 16, 52), at(1, 17, 48))  # DEPOT-04 osrm-1 CPU steal, routeplan read timeouts
NOSEG = (at(2, 6, 48), at(2, 7, 46))  # DEPOT-10 HAM-3 stop import with swapped coordinates
REDIS = (at(2, 9, 41), at(2, 11, 2))  # DEPOT-07 redis maxmemory with noeviction -> tracking
RATE = (at(2, 14, 32), at(2, 15, 18))  # DEPOT-08 gateway rate-limiting 6000 -> 600 on /v1/scans


class World(engine.Dataset):
    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END, SERVICES)

    def parcel(self) -> str:
        return f"DP{self.ri(10**9, 10**10 - 1)}DE"

    hexid = engine.Dataset.plain_hex


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,), ())
    w.table("job_runs", ["run_id", "job", "started_at", "finished_at", "status", "detail"], nightly(w))
    incidents(w)
    metrics(w)
    return w, engine.manifest(NAME, "Europe/Berlin", "Depot Paketdienst, a parcel logistics platform",
                              "2026-12-08..10 CET", 10, SERVICES, dayfirst=True), truth()

# ---- native line formats -------------------------------------------------------------------


def kong(w: World, t: datetime, method: str, path: str, status: int, rt: float, route: str,
         agent: str = "depot-shop/3.2") -> None:
    level = "INFO" if status < 400 else ("WARN" if status < 500 else "ERROR")
    ip = f"10.{w.pick((4, 8))}.{w.ri(1, 9)}.{w.ri(2, 250)}"
    stamp = t.strftime("%d/%b/%Y:%H:%M:%S +0100")
    w.emit(t, "gateway", level,
           f'{ip} - - [{stamp}] "{method} {path} HTTP/1.1" {status} {w.ri(90, 2400)} "-" "{agent}" '
           f"rt={rt:.3f} urt={max(rt - 0.002, 0):.3f} kong=0.002 route={route}")


def spring(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    lv = {"WARN": "WARN", "INFO": "INFO", "ERROR": "ERROR", "DEBUG": "DEBUG"}[level]
    w.emit(t, "booking", level,
           f"{t.strftime('%Y-%m-%d %H:%M:%S')}.{t.microsecond // 1000:03d} {lv:>5} 1 --- [{thread}] "
           f"{logger} : {msg}")


def pylog_utc(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    u = t.astimezone(UTC)
    name = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, "labels", level,
           f"[{u.strftime('%Y-%m-%d %H:%M:%S')},{u.microsecond // 1000:03d} UTC] {name} {logger}: {msg}")


def pylog(w: World, t: datetime, service: str, level: str, logger: str, msg: str) -> None:
    name = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, service, level,
           f"{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {name} [{logger}] {msg}")


def osrm(w: World, t: datetime, ms: float, status: int, path: str) -> None:
    level = "INFO" if status == 200 else "WARN"
    w.emit(t, "osrm", level,
           f"[info] {t.strftime('%d-%m-%Y %H:%M:%S')} {ms:.2f}ms 10.4.3.{w.ri(20, 29)} - "
           f"python-requests/2.31.0 {status} {path}")


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **fields) -> None:
    d = {"level": level.lower(), "ts": round(t.timestamp(), 3), "caller": caller, "msg": msg}
    d.update(fields)
    w.emit(t, "tracking", level, json.dumps(d, separators=(",", ":")))


def rabbit(w: World, t: datetime, level: str, msg: str) -> None:
    lv = {"WARN": "warning"}.get(level, level.lower())
    w.emit(
        t, "rabbitmq", level,
        f"{t.strftime('%Y-%m-%d %H:%M:%S')}.{t.microsecond:06d}+01:00 [{lv}] <0.{w.ri(200, 9000)}.0> {msg}",
    )


def mysql(w: World, t: datetime, level: str, code: str, msg: str, thread: int = 0) -> None:
    u = t.astimezone(UTC)
    lv = {"WARN": "Warning", "INFO": "System", "ERROR": "ERROR", "DEBUG": "Note"}[level]
    w.emit(
        t, "mysql", level,
        f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond:06d}Z {thread} [{lv}] [{code}] [Server] {msg}",
    )


def redis(w: World, t: datetime, level: str, mark: str, msg: str, role: str = "M") -> None:
    w.emit(t, "redis", level,
           f"1:{role} {t.strftime('%d %b %Y %H:%M:%S')}.{t.microsecond // 1000:03d} {mark} {msg}")


def mosq(w: World, t: datetime, level: str, msg: str) -> None:
    w.emit(t, "scangw", level, f"{int(t.timestamp())}: {msg}")


def celery(w: World, t: datetime, level: str, task: str, msg: str) -> None:
    name = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, "notify", level,
           f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d}: {name}/ForkPoolWorker-"
           f"{w.ri(1, 8)}] {task}[{w.hexid(8)}-{w.hexid(4)}]: {msg}")


def batch(w: World, t: datetime, level: str, msg: str) -> None:
    w.emit(t, "billing", level, f"{t.strftime('%Y-%m-%d %H:%M:%S')} [billing-nightly] {level} {msg}")


DEPOTS = ("BER-2", "HAM-3", "MUC-1", "FRA-4", "LEJ-1", "CGN-2", "DUS-1", "STR-3")
SCANNERS = [f"HS-{d.replace('-', '')}-{n:03d}" for d in DEPOTS for n in range(1, 41, 3)]
CUSTOMERS = ("C-1043", "C-2210", "C-0877", "C-3391", "C-1502", "C-4418", "C-0290")


# the day's load in steps: (until the hour, load)
DAY_STEPS = ((5, 0.25), (7, 0.8), (19, 1.0), (22, 0.6))


def load(t: datetime) -> float:
    """Traffic by hour of CET day: warehouses run early shifts from 05:00, quiet nights."""
    return engine.stepped(DAY_STEPS, t.hour, 0.35)


# ---- an ordinary minute ----------------------------------------------------------------------


def background(w: World, t: datetime) -> None:  # noqa: C901 — one minute of an ordinary day
    f = load(t)
    # gateway: sampled access log
    for _ in range(w.count(0.6 * f)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.35:
            kong(w, tt, "POST", "/v1/shipments", 201, 0.06 + w.r() * 0.09, "shipments")
        elif x < 0.6:
            kong(w, tt, "GET", f"/v1/tracking/{w.parcel()}", 200, 0.01 + w.r() * 0.03, "tracking")
        elif x < 0.78:
            kong(w, tt, "POST", "/v1/scans", 202, 0.008 + w.r() * 0.01, "scans", "scangw-bridge/1.4")
        elif x < 0.88:
            kong(w, tt, "POST", "/v1/labels", 201, 0.3 + w.r() * 0.4, "labels")
        elif x < 0.96:
            kong(w, tt, "GET", f"/v1/tracking/{w.parcel()}", 404, 0.01, "tracking")
        else:
            kong(w, tt, "POST", "/v1/shipments", 422, 0.04, "shipments")
    # booking
    for _ in range(w.count(0.28 * f)):
        tt = w.jit(t)
        spring(w, tt, "INFO", f"nio-8080-exec-{w.ri(1, 20)}", "d.d.booking.web.ShipmentController",
               f"Created shipment {w.parcel()} for customer {w.pick(CUSTOMERS)} "
               f"({w.pick(('DE', 'DE', 'DE', 'AT', 'NL', 'CH'))}) in {w.ri(40, 140)} ms")
    if w.r() < 0.04 * f:
        spring(w, w.jit(t), "WARN", f"nio-8080-exec-{w.ri(1, 20)}", "d.d.booking.address.AddressCheck",
               f"Address check ambiguous for postcode {w.ri(10000, 99999)}, booking accepted "
               "with flag ADDR_REVIEW")
    if t.minute % 30 == 7:
        spring(w, w.jit(t), "INFO", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.HikariPool",
               f"HikariPool-1 - Pool stats (total=20, active={w.ri(1, 6)}, idle={w.ri(10, 18)}, waiting=0)")
    # labels
    for _ in range(w.count(0.2 * f)):
        pylog_utc(w, w.jit(t), "INFO", "labels.carrier",
                  f"POST https://api.parcelnet.eu/v2/labels 201 {w.ri(180, 520)}ms parcel={w.parcel()}")
    if w.r() < 0.03 * f:
        tt = w.jit(t, 40)
        pylog_utc(w, tt, "WARN", "labels.carrier",
                  "POST https://api.parcelnet.eu/v2/labels 429 Too Many Requests, retry 1/3 in 2s")
        pylog_utc(
            w, tt + timedelta(seconds=2.4), "INFO", "labels.carrier",
            f"POST https://api.parcelnet.eu/v2/labels 201 {w.ri(200, 500)}ms parcel={w.parcel()} (retry 1)",
        )
    # routeplan + osrm (tours planned in waves; table requests in between)
    if t.minute % 6 == 0:
        dep = w.pick(DEPOTS)
        tt = w.jit(t, 30)
        stops = w.ri(60, 140)
        for k in range(1):
            osrm(w, tt + timedelta(seconds=k), 30 + w.r() * 60, 200,
                 f"/table/v1/driving/{w.ri(6, 13)}.{w.ri(100, 999)},{w.ri(47, 54)}.{w.ri(100, 999)};...")
        pylog(w, tt + timedelta(seconds=2), "routeplan", "INFO", "routeplan.planner",
              f"planned tour depot={dep} stops={stops} vehicles={stops // 20 + 1} osrm_calls=1 "
              f"took={1 + w.r() * 2:.2f}s")
    if t.minute == 15 and t.hour % 2 == 0:
        pylog(w, w.jit(t), "routeplan", "WARN", "routeplan.geocode",
              f"stop {w.ri(100000, 999999)} has no house number, snapped to street centroid")
    # tracking
    if t.minute % 4 == 0:
        zap(w, w.jit(t), "INFO", "consumer/batch.go:88", "batch committed", queue="tracking.events",
            events=int(40 + 200 * f * w.r()), lag=w.ri(0, 30))
    if t.minute % 20 == 11:
        zap(w, w.jit(t), "WARN", "consumer/dedup.go:41", "duplicate scan dropped", parcel=w.parcel(),
            scanner=w.pick(SCANNERS))
    # rabbitmq
    if t.minute % 15 == 3:
        rabbit(w, w.jit(t), "INFO",
               f"accepting AMQP connection <0.{w.ri(300, 9000)}.0> "
               f"(10.4.5.{w.ri(10, 60)}:{w.ri(30000, 60000)} -> 10.4.6.11:5672)")
    if t.minute % 15 == 4:
        rabbit(w, w.jit(t), "WARN",
               f"closing AMQP connection <0.{w.ri(300, 9000)}.0> "
               f"(10.4.5.{w.ri(10, 60)}:{w.ri(30000, 60000)} -> 10.4.6.11:5672, vhost: 'depot', "
               "user: 'notify'): client unexpectedly closed TCP connection")
    # mysql
    if w.r() < 0.05 * f:
        mysql(
            w, w.jit(t), "WARN", "MY-010914",
            f"Aborted connection {w.ri(10000, 99999)} to db: 'depot' "
            "user: 'report' host: '10.4.9.3' (Got timeout reading communication packets).", w.ri(100, 9999),
        )
    if t.minute == 0:
        mysql(w, w.jit(t, 10), "DEBUG", "MY-013360",
              "Plugin sha256_password reported: ''sha256_password' is deprecated and will be removed in a "
              "future release.'")
    # redis
    if t.minute % 15 == 0:
        tt = w.jit(t, 5)
        redis(w, tt, "INFO", "*", "100 changes in 300 seconds. Saving...")
        redis(w, tt + timedelta(seconds=0.3), "INFO", "*",
              f"Background saving started by pid {w.ri(1000, 60000)}")
        redis(w, tt + timedelta(seconds=1.2), "INFO", "#", "Background saving terminated with success", "M")
    # scangw: the always-noisy broker (handhelds drop out of Wi-Fi all day)
    for _ in range(w.count(0.55 * f + 0.1)):
        tt = w.jit(t)
        x = w.r()
        sc = w.pick(SCANNERS)
        if x < 0.45:
            mosq(w, tt, "WARN", f"Client {sc} has exceeded timeout, disconnecting.")
        elif x < 0.8:
            mosq(w, tt, "INFO",
                 f"New client connected from 10.30.{w.ri(1, 8)}.{w.ri(2, 250)}:{w.ri(30000, 60000)} "
                 f"as {sc} (p2, c1, k60, u'scanner').")
        else:
            mosq(w, tt, "WARN", f"Socket error on client {sc}, disconnecting.")
    if t.minute % 10 == 2:
        mosq(w, w.jit(t), "INFO",
             f"bridge depot-gw: forwarded {int(300 * f + w.ri(0, 80))} scans "
             "to https://gw.depot.internal/v1/scans (202)")
    # notify
    for _ in range(w.count(0.2 * f)):
        if w.r() < 0.6:
            celery(
                w, w.jit(t), "INFO", "notify.tasks.send_sms",
                f"sms sent via smsbird to +49***{w.ri(100, 999)} msg_id=sb-{w.hexid(10)} parcel={w.parcel()}",
            )
        else:
            celery(w, w.jit(t), "INFO", "notify.tasks.send_email",
                   f"email 'delivery_window' sent via mailrelay id=<{w.hexid(12)}@mailrelay> "
                   f"parcel={w.parcel()}")
    if t.minute % 25 == 13:
        tt = w.jit(t, 40)
        celery(w, tt, "WARN", "notify.tasks.send_sms",
               "smsbird answered 429 rate limited, Retry in 5s: retry 1/5")
        celery(w, tt + timedelta(seconds=5.3), "INFO", "notify.tasks.send_sms",
               f"sms sent via smsbird to +49***{w.ri(100, 999)} msg_id=sb-{w.hexid(10)} (retry 1)")


def nightly(w: World) -> list[list]:
    rows = []
    for d in range(3):
        t0 = at(d, 2, 0, 1)
        n = 41230 + 977 * d
        batch(
            w, t0, "INFO",
            f"start run billing-{20261208 + d}: period 2026-12-{7 + d:02d}, reading shipments"
        )
        t = t0 + timedelta(minutes=1)
        for k in range(1, 9):
            t += timedelta(minutes=4, seconds=w.ri(0, 50))
            batch(w, t, "INFO",
                  f"chunk {k}/8 invoiced {n // 8 + w.ri(-90, 90)} shipments for {w.ri(40, 70)} customers")
        t += timedelta(minutes=2)
        batch(w, t, "INFO",
              f"finished run billing-{20261208 + d}: {n} shipments, {w.ri(380, 420)} invoices, 0 errors")
        rows.append([f"JR-{7700 + d * 4}", "billing-nightly", t0.isoformat(), t.isoformat(), "succeeded",
                     f"{n} shipments invoiced"])
        # other periodic jobs
        for job, h, m, dur, detail in (
            ("mysql-backup", 1, 30, 19, "xtrabackup full to s3://depot-backups/mysql"),
            ("redis-rdb-upload", 4, 0, 1, "dump.rdb to s3://depot-backups/redis"),
            ("osrm-extract-refresh", 3, 10, 38, "germany-latest.osm.pbf refreshed; osrm-2 reloaded"),
            ("dlq-report", 8, 0, 1, "dlq.tracking depth reported to #ops-tracking"),
        ):
            s = at(d, h, m)
            rows.append(
                [f"JR-{7700 + d * 4 + len(rows)}", job, s.isoformat(),
                 (s + timedelta(minutes=dur, seconds=w.ri(0, 50))).isoformat(), "succeeded", detail]
            )
        pylog(w, at(d, 3, 48, w.ri(0, 50)), "routeplan", "INFO", "routeplan.osrm",
              "osrm-2 reloaded dataset germany-latest (shared memory swap done), back in rotation")
    rows.sort(key=lambda r: r[2])
    return rows


# ---- the incidents ---------------------------------------------------------------------------


def incidents(w: World) -> None:  # noqa: C901 — the stories, told in order
    # DEPOT-01: ParcelNet rotated to a new intermediate CA; labels' pinned CA bundle lacks it.
    pylog_utc(w, CERT[0] - timedelta(minutes=1), "INFO", "labels.carrier",
              "connection pool api.parcelnet.eu:443 recycled (keepalive expired)")
    for tt in w.jittered(CERT, 22, 20):
        pylog_utc(
            w, tt, "ERROR", "labels.carrier",
            "POST https://api.parcelnet.eu/v2/labels failed: SSLError(SSLCertVerificationError(1, '[SSL: "
            "CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate "
            "(_ssl.c:1006)')) ca_bundle=/etc/labels/certs/parcelnet-chain.pem",
        )
        if w.r() < 0.5:
            kong(w, tt + timedelta(seconds=0.2), "POST", "/v1/labels", 502, 0.21, "labels")
    for t in every(CERT, 300):
        pylog_utc(w, w.jit(t, 30), "WARN", "labels.queue",
                  f"{w.ri(40, 300)} label jobs waiting, oldest {w.ri(2, 40)} min; carrier unreachable")
    pylog_utc(
        w, CERT[0] + timedelta(minutes=3), "INFO", "labels.tls",
        "peer chain for api.parcelnet.eu: leaf CN=api.parcelnet.eu issuer='ParcelNet Issuing CA G3' (not "
        "in ca_bundle, bundle has 'ParcelNet Issuing CA G2')",
    )
    pylog_utc(
        w, CERT[1], "INFO", "labels.tls",
        "ca_bundle reloaded: /etc/labels/certs/parcelnet-chain.pem now contains ParcelNet Issuing CA G3",
    )

    # DEPOT-03: booking 4.12.0 reads shipments.customs_code; migration V87 not applied.
    spring(w, COLUMN[0] - timedelta(minutes=1), "INFO", "main", "d.d.booking.BookingApplication",
           "Started BookingApplication v4.12.0 in 14.812 seconds (process running for 15.9)")
    spring(w, COLUMN[0] - timedelta(seconds=50), "INFO", "main", "o.f.core.internal.command.DbValidate",
           "Flyway validate skipped (spring.flyway.enabled=false); schema version 86")
    for tt in w.jittered(COLUMN, 15, 14):
        if w.r() < 0.55:
            spring(w, tt, "ERROR", f"nio-8080-exec-{w.ri(1, 20)}", "o.h.engine.jdbc.spi.SqlExceptionHelper",
                   "Unknown column 's1_0.customs_code' in 'field list'")
            spring(
                w, tt + timedelta(milliseconds=3), "ERROR", f"nio-8080-exec-{w.ri(1, 20)}",
                "d.d.booking.web.ApiExceptionHandler",
                "POST /v1/shipments failed: "
                "org.springframework.dao.InvalidDataAccessResourceUsageException: JDBC exception executing "
                "SQL [select ... s1_0.customs_code ... from shipments s1_0 ...]; SQL [n/a]; nested "
                "exception is java.sql.SQLSyntaxErrorException",
            )
            kong(w, tt + timedelta(milliseconds=5), "POST", "/v1/shipments", 500, 0.03, "shipments")

    # DEPOT-05: dlq.tracking grew for days, mq-1 disk under disk_free_limit, publishers blocked.
    rabbit(w, RABBIT[0], "WARN",
           "Free disk space is insufficient. Free bytes: 4987203584. Limit: 5000000000")
    rabbit(
        w, RABBIT[0] + timedelta(seconds=0.1), "WARN",
        "disk resource limit alarm set on node "
        "rabbit@mq-1.\n\n**********************************************************\n*** Publishers will "
        "be blocked until this alarm clears ***\n**********************************************************",
    )
    for t in every(RABBIT, 120):
        rabbit(w, w.jit(t, 60), "INFO",
               f"queue 'dlq.tracking' in vhost 'depot': {9_811_000 + w.ri(0, 9000)} "
               "messages ready, 0 consumers, 7.9 GiB on disk")
    rabbit(w, RABBIT[1] - timedelta(minutes=3), "INFO",
           "queue 'dlq.tracking' in vhost 'depot' purged by user 'ops-mkrause': 9817444 messages")
    rabbit(
        w, RABBIT[1] - timedelta(minutes=2), "INFO", "disk resource limit alarm cleared on node rabbit@mq-1"
    )
    for tt in w.jittered(RABBIT, 20, 18):
        x = w.r()
        if x < 0.35:
            spring(w, tt, "ERROR", f"nio-8080-exec-{w.ri(1, 20)}", "d.d.booking.events.ShipmentPublisher",
                   "publish shipment.created failed: AmqpTimeoutException: connection blocked by broker "
                   "(reason: low on disk), waited 5000 ms")
            kong(w, tt + timedelta(seconds=5), "POST", "/v1/shipments", 503, 5.02, "shipments")
        elif x < 0.6:
            mosq(w, tt, "ERROR",
                 "bridge depot-gw: forward failed: upstream 503 from https://gw.depot.internal/v1/scans, "
                 "spooling to disk")
            kong(w, tt, "POST", "/v1/scans", 503, 5.01, "scans", "scangw-bridge/1.4")
        elif x < 0.8:
            celery(w, tt, "ERROR", "notify.consumer",
                   "basic.publish to 'notify.retry' timed out: connection.blocked (low on disk)")
        else:
            zap(w, tt, "WARN", "publisher/publish.go:63", "publish blocked by broker",
                exchange="tracking.states", reason="low on disk")

    # DEPOT-06: smsbird outage; notify config change at 11:05 only touched the e-mail sender name.
    for tt in w.jittered(SMS, 25, 20):
        n = w.ri(1, 5)
        celery(w, tt, "WARN" if n < 5 else "ERROR", "notify.tasks.send_sms",
               f"smsbird POST https://rest.smsbird.io/messages failed: 503 Service Unavailable "
               f'{{"errors":[{{"code":99,"description":"Internal error"}}]}}, retry {n}/5')
    for t in every(SMS, 600):
        celery(w, w.jit(t, 60), "INFO", "notify.tasks.send_email",
               f"email 'delivery_window' sent via mailrelay id=<{w.hexid(12)}@mailrelay> "
               "from='Depot Paketdienst <noreply@depot-paket.de>'")

    # DEPOT-04: osrm-1 starved by CPU steal on its hypervisor; routeplan read timeouts.
    for tt in w.jittered(STEAL, 40, 30):
        osrm(w, tt, 3000 + w.r() * 5000, 200,
             f"/table/v1/driving/{w.ri(6, 13)}.{w.ri(100, 999)},{w.ri(47, 54)}.{w.ri(100, 999)};...")
        if w.r() < 0.6:
            pylog(w, tt + timedelta(seconds=5), "routeplan", "ERROR", "routeplan.osrm",
                  "table request to http://osrm-1:5000 failed: ReadTimeout: "
                  "HTTPConnectionPool(host='osrm-1', port=5000): Read timed out. (read timeout=5)")
        else:
            pylog(
                w, tt + timedelta(seconds=5), "routeplan", "WARN", "routeplan.planner",
                f"tour for depot={w.pick(DEPOTS)} planned with fallback haversine matrix (osrm-1 too slow)",
            )

    # DEPOT-10: HAM-3 stop list imported with longitude and latitude swapped.
    pylog(w, NOSEG[0] - timedelta(minutes=2), "routeplan", "INFO", "routeplan.imports",
          "imported stop list nordlicht-versand-20261210.csv for depot=HAM-3: 412 stops (columns lat,lon)")
    for tt in w.jittered(NOSEG, 45, 30):
        osrm(w, tt, 0.9, 400, "/table/v1/driving/53.5511,9.9937;53.5633,10.0012;...")
        pylog(w, tt + timedelta(seconds=0.1), "routeplan", "ERROR", "routeplan.planner",
              'tour planning failed depot=HAM-3: osrm 400 {"code":"NoSegment","message":"Could not find a '
              'matching segment for coordinate 0"} first stop=(53.5511, 9.9937)')

    # DEPOT-07: redis-1 at maxmemory with noeviction; tracking dedup SETs refused; backlog grows.
    redis(w, REDIS[0] - timedelta(minutes=8), "WARN", "#",
          "WARNING: used_memory 3.91G of maxmemory 4.00G (97%), maxmemory-policy noeviction")
    for tt in w.jittered(REDIS, 30, 25):
        zap(w, tt, "ERROR", "consumer/dedup.go:57", "dedup SETNX failed, nack and requeue",
            error="OOM command not allowed when used memory > 'maxmemory'.", key=f"scan-dedup:{w.parcel()}")
    lag = 400
    for t in every(REDIS, 120):
        lag = int(lag * 1.35) + w.ri(100, 900)
        zap(w, w.jit(t, 60), "WARN", "consumer/lag.go:22", "consumer lag high", queue="tracking.events",
            ready=lag, unacked=500)
    for t in every((REDIS[0] + timedelta(minutes=35), REDIS[1]), 60):
        kong(w, w.jit(t), "GET", f"/v1/tracking/{w.parcel()}", 200, 0.02, "tracking")
    redis(w, REDIS[1] - timedelta(minutes=1), "INFO", "*",
          "CONFIG SET maxmemory 8gb by client id=88412 addr=10.4.9.3:51730 (ops-mkrause)")

    # DEPOT-08: gateway rate limit on /v1/scans set to 600 a minute; scanner bridge gets 429.
    for tt in w.jittered(RATE, 15, 14):
        kong(w, tt, "POST", "/v1/scans", 429, 0.001, "scans", "scangw-bridge/1.4")
        if w.r() < 0.4:
            mosq(w, tt, "ERROR",
                 'bridge depot-gw: forward failed: upstream 429 {"message":"API rate limit exceeded"} from '
                 "https://gw.depot.internal/v1/scans, spooling to disk")
    for t in every(RATE, 300):
        mosq(
            w, w.jit(t, 30), "WARN",
            f"bridge depot-gw: spool /var/lib/scangw/spool holds {w.ri(2000, 30000)} scans awaiting forward",
        )


# ---- tables --------------------------------------------------------------------------------

BASE = {  # rps, p95_ms, error_pct, cpu_pct
    "gateway": (95, 180, 0.3, 22), "booking": (32, 140, 0.2, 35), "labels": (11, 520, 0.4, 18),
    "routeplan": (1.2, 2400, 0.5, 40), "osrm": (4, 85, 0.0, 30), "tracking": (60, 25, 0.1, 28),
    "rabbitmq": (140, 4, 0.0, 21), "mysql": (420, 9, 0.0, 38), "redis": (900, 1.1, 0.0, 12),
    "scangw": (70, 12, 0.8, 15), "notify": (6, 300, 0.3, 10), "billing": (0, 0, 0.0, 2),
}


# each incident in the service metrics: worlds_data/depot/spells.txt
SPELLS = engine.spell_table(NAME, at, globals())


def service_row(w: World, t: datetime, svc: str) -> list:
    f = load(t)
    rps, p95, err, cpu = BASE[svc]
    rps *= f * (0.9 + 0.2 * w.r())
    p95 *= 0.9 + 0.25 * w.r()
    err *= 0.5 + w.r()
    cpu = cpu * (0.5 + 0.5 * f) * (0.9 + 0.2 * w.r())
    if svc == "billing" and 2 <= t.hour < 3 and t.minute < 45:
        rps, cpu = 18 * (0.9 + 0.2 * w.r()), 70 + 10 * w.r()
    row = {"rps": rps, "p95": p95, "err": err, "cpu": cpu}
    engine.spells(w.r, t, svc, row, SPELLS)
    rps, p95, err, cpu = row["rps"], row["p95"], row["err"], row["cpu"]
    if svc == "booking" and during(t, RABBIT):  # after its column spell: its errors pile on
        err, p95 = err + 9 + 4 * w.r(), 5040
    return [t.isoformat(), svc, round(rps, 1), round(p95, 1), round(err, 2), round(cpu, 1)]


HOSTS = {"mysql-1": {"cpu_pct": 38, "cpu_steal_pct": 0.4, "mem_used_pct": 71, "disk_free_gb": 412},
         "mysql-2": {"cpu_pct": 22, "cpu_steal_pct": 0.3, "mem_used_pct": 69, "disk_free_gb": 409},
         "mq-1": {"cpu_pct": 21, "cpu_steal_pct": 0.3, "mem_used_pct": 44, "disk_free_gb": 5.6},
         "redis-1": {
             "cpu_pct": 12, "cpu_steal_pct": 0.2, "redis_used_memory_mb": 3300, "redis_maxmemory_mb": 4096,
         },
         "osrm-1": {"cpu_pct": 30, "cpu_steal_pct": 0.5, "mem_used_pct": 78, "disk_free_gb": 120},
         "osrm-2": {"cpu_pct": 29, "cpu_steal_pct": 0.4, "mem_used_pct": 77, "disk_free_gb": 118}}


def host_value(w: World, t: datetime, host: str, metric: str, base: float) -> float:
    f = load(t)
    hours = (t - DAY0).total_seconds() / 3600
    v = base
    if metric == "cpu_pct":
        v = base * (0.5 + 0.5 * f) * (0.9 + 0.2 * w.r())
    elif metric == "cpu_steal_pct":
        v = base * (0.5 + w.r())
        if host == "osrm-1" and during(t, STEAL):
            v = 40 + 10 * w.r()
    elif metric == "mem_used_pct":
        v = base + 2 * w.r()
    elif metric == "disk_free_gb":
        if host == "mq-1":  # dlq.tracking grows ~9 MB a minute until it is purged
            if t < RABBIT[0]:
                v = 5.6 - 0.63 * (hours / (RABBIT[0] - DAY0).total_seconds() * 3600)
            elif t < RABBIT[1] - timedelta(minutes=3):
                v = 4.97 - 0.01 * w.r()
            else:
                v = 13.1 - 0.0004 * (t - RABBIT[1]).total_seconds() / 60
        else:
            v = base - hours * 0.05
    elif metric == "redis_used_memory_mb":
        if t < REDIS[0]:
            v = (
                3300
                + 790 * max(0.0,
                            (t - at(1, 9, 0)).total_seconds()) / (REDIS[0] - at(1, 9, 0)).total_seconds()
            )
            v += 10 * w.r()
        elif t < REDIS[1] - timedelta(minutes=1):
            v = 4096
        else:
            v = 4100 + 3 * w.r()
        v = min(v, 4096) if t < REDIS[1] - timedelta(minutes=1) else v
    elif metric == "redis_maxmemory_mb":
        v = 4096 if t < REDIS[1] - timedelta(minutes=1) else 8192
    if host == "osrm-1" and metric == "cpu_pct" and during(t, STEAL):
        v = 55 + 10 * w.r()
    return round(v, 2)


def metrics(w: World) -> None:
    srows, hrows = [], []
    t = DAY0
    while t < END:
        for svc in SERVICES:
            srows.append(service_row(w, t, svc))
        for host, ms in HOSTS.items():
            for metric, base in ms.items():
                hrows.append([t.isoformat(), host, metric, host_value(w, t, host, metric, base)])
        t += timedelta(minutes=5)
    w.table("service_metrics", ["ts", "service", "rps", "p95_ms", "error_pct", "cpu_pct"], srows)
    w.table("host_metrics", ["ts", "host", "metric", "value"], hrows)


DEPENDENCIES = engine.table(None, "sssss", """
gateway | booking | http | booking.depot.svc:8080 | /v1/shipments
gateway | tracking | http | tracking.depot.svc:8081 | /v1/tracking
gateway | labels | http | labels.depot.svc:8000 | /v1/labels
gateway | tracking | http | tracking.depot.svc:8081 | /v1/scans (rate-limiting plugin)
booking | mysql | mysql | mysql-1:3306 | shipments, customers
booking | rabbitmq | amqp | mq-1:5672 | publishes shipment.created
labels | parcelnet | https | api.parcelnet.eu:443 | carrier label API (external)
labels | mysql | mysql | mysql-1:3306 | label jobs
routeplan | osrm | http | osrm-1:5000, osrm-2:5000 | table and route requests
routeplan | mysql | mysql | mysql-2:3306 | stops (replica, read only)
scangw | gateway | https | gw.depot.internal:443 | bridge forwards scans to /v1/scans
tracking | rabbitmq | amqp | mq-1:5672 | consumes tracking.events, publishes tracking.states
tracking | redis | redis | redis-1:6379 | scan-dedup keys
tracking | mysql | mysql | mysql-1:3306 | tracking states
notify | rabbitmq | amqp | mq-1:5672 | consumes tracking.states
notify | smsbird | https | rest.smsbird.io:443 | SMS (external)
notify | mailrelay | smtp | smtp.mailrelay.eu:587 | e-mail (external)
billing | mysql | mysql | mysql-2:3306 | nightly invoicing (replica)
mysql | mysql | replication | mysql-1 -> mysql-2 | async replica
""")

DEPLOYS = engine.table(at, "ssstiss", """
DEP-301 | tracking | 2.7.3 | 0 09:05 | 4 | jdoerr | zap logger sampling
DEP-303 | booking | 4.12.0 | 0 13:52 | 3 | akoenig | customs code on international shipments
DEP-304 | booking | 4.12.1 | 0 14:55 | 3 | akoenig | re-release after migration V87
DEP-306 | labels | 1.33.0 | 1 08:40 | 5 | pvisser | A6 label layout for NL
DEP-308 | routeplan | 3.4.2 | 1 15:30 | 4 | lbauer | vehicle capacity in kg
DEP-310 | scangw | 1.4.7 | 2 08:15 | 2 | jdoerr | bridge spool metrics
DEP-312 | notify | 5.0.3 | 2 13:10 | 3 | pvisser | Dutch SMS templates
""")

CONFIG = [["CFG-901", "redis", "save", "900 1 300 100", "300 100", at(0, 8, 30), "mkrause", "OPS-771"],
          ["CFG-903", "labels", "carrier.timeout_s", "10", "15", at(0, 16, 2), "pvisser", "OPS-774"],
          ["CFG-905", "notify", "email.sender_name", "Depot", "Depot Paketdienst", at(1, 11, 5), "pvisser",
           "OPS-780"],
          ["CFG-907", "osrm", "threads", "8", "12", at(1, 14, 20), "lbauer", "OPS-783"],
          ["CFG-909", "gateway", "plugins.rate-limiting.route[scans].minute", "6000", "600", at(2, 14, 32),
           "jdoerr", "OPS-790"],
          ["CFG-910", "gateway", "plugins.rate-limiting.route[scans].minute", "600", "6000", at(2, 15, 17),
           "jdoerr", "OPS-791"]]

MIGRATIONS = engine.table(at, "ssstis", """
booking | V86 | add index shipments(customer_id, created_at) | -1 10:00 | 41 | applied
labels | V22 | label_jobs add column carrier_ref | 0 07:45 | 3 | applied
booking | V87 | alter table shipments add column customs_code varchar(12) | 0 14:49 | 67 | applied
routeplan | V15 | stops add column vehicle_kg | 1 15:28 | 2 | applied
""")


def change_tables(w: World) -> None:
    w.table("dependencies", engine.columns("DEPENDENCIES_PURPOSE"), DEPENDENCIES)
    w.table("deploys", engine.columns("DEPLOYS_AUTHORED"),
            [[d, s, v, t.isoformat(), (t + timedelta(minutes=m)).isoformat(), "succeeded", a, desc]
             for d, s, v, t, m, a, desc in DEPLOYS])
    w.table("config_changes", engine.columns("CONFIG_APPLIED"),
            [[c, s, k, o, n, t.isoformat(), a, tk] for c, s, k, o, n, t, a, tk in CONFIG])
    w.table("schema_migrations", engine.columns("MIGRATIONS_APPLIED"),
            [[s, v, d, t.isoformat(), dur, st] for s, v, d, t, dur, st in MIGRATIONS])
    for _d, s, v, t, m, _a, _desc in DEPLOYS:
        if s == "booking":
            spring(w, t + timedelta(minutes=m), "INFO", "main", "d.d.booking.BookingApplication",
                   f"Started BookingApplication v{v} in {12 + w.r() * 4:.3f} seconds")
        elif s == "routeplan":
            pylog(w, t + timedelta(minutes=m), "routeplan", "INFO", "routeplan.app",
                  f"routeplan {v} ready, workers=4")
        elif s == "labels":
            pylog_utc(w, t + timedelta(minutes=m), "INFO", "labels.app", f"labels {v} started, 4 workers")
        elif s == "tracking":
            zap(w, t + timedelta(minutes=m), "INFO", "main.go:40", "tracking started", version=v)
        elif s == "scangw":
            mosq(
                w, t + timedelta(minutes=m), "INFO",
                f"mosquitto version 2.0.18 running, bridge depot-gw {v}"
            )
        elif s == "notify":
            celery(w, t + timedelta(minutes=m), "INFO", "celery.worker", f"notify {v}: worker ready.")
    celery(w, at(1, 11, 5, 20), "INFO", "notify.settings",
           "config reloaded: email.sender_name='Depot Paketdienst' (was 'Depot')")


DOCS = {
    "known-noise": """# Known noise on the depot platform

What pages or shows up in the logs all day and is not an incident by itself.

## scangw disconnects

The handheld scanners roam between Wi-Fi access points in the warehouses. The broker logs
"Client HS-... has exceeded timeout, disconnecting." and "Socket error on client ..." dozens of
times an hour, more during the early shift. Only act when the bridge stops forwarding scans
(look for "forward failed" or a growing spool).

## Retries that succeed

notify logs "smsbird answered 429 rate limited" and labels logs "429 Too Many Requests, retry
1/3" a few times an hour; the retry goes through. Tracking drops duplicate scans on purpose.

## Reporting user

mysql logs "Aborted connection ... user: 'report'" whenever the BI tool's idle connections time
out. Harmless.
""",
    "rabbitmq-alarms": """# RabbitMQ resource alarms (mq-1)

## Symptoms

When rabbit@mq-1 raises a memory or disk alarm it blocks every publishing connection: booking
times out publishing shipment.created, the scanner bridge gets 503 from /v1/scans, notify cannot
requeue. Consumers keep working.

## What to check

Look for "resource limit alarm set" in the rabbitmq log and at disk_free_gb for mq-1. The usual
reason for a disk alarm is a dead-letter queue nobody consumes (dlq.tracking, dlq.notify).

## Fix

Export and purge the dead-letter queue (after agreeing with the owning team), or grow the volume.
The alarm clears by itself once free space is above disk_free_limit (5 GB).
""",
    "sms-provider": """# SMS provider (smsbird) problems

## Symptoms

notify's send_sms tasks fail with 5xx from rest.smsbird.io and go through their five retries;
e-mails are unaffected.

## What to do

Check https://status.smsbird.io and the provider's status mail. There is no failover provider
yet; failed SMS are not re-sent automatically, so after the outage run
`notify resend-failed --since <time>` for parcels still out for delivery.
""",
}


# ---- truth ---------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


main = engine.main(NAME, world, __name__, DOCS)
