"""Write the held-out "aero" world: an airline's booking, check-in and departure-control platform.

Three days (2026-02-17..19, Central European Time, UTC+01:00, Europe/Berlin in winter) of logs from
13 components, the ops tables the airline's on-call engineer has (dependencies, deploys, config
changes, flyway schema history, batch runs, 5-minute metric exports) and the runbooks, with 14
incidents and traps described in truth.json. Deterministic: stdlib only, one seeded random
generator; run it again and every byte is the same.

    python scripts/generate_world_aero.py [OUT_DIR]   # writes OUT_DIR/aero/ (default tests/data/worlds)

The platform: web, app and airport kiosks reach an envoy ingress (edge). booking (Java, PNRs and
orders, postgres pg-res) confirms orders through payments (node, a card PSP) and syncs PNRs to the
GDS through gds-adapter (Java, EDIFACT over mutual TLS). checkin (Java, postgres pg-dcs) holds seats
through inventory (Go, seat holds in redis-seat), publishes to kafka (checkin.events) and issues
boarding passes. search (python) serves flights and fare quotes from elasticsearch and FX rates from
redis-session. notify (Go) sends push, SMS and e-mail from kafka events. A debezium connector
(pnr-cdc, on kafka connect) streams pg-res changes through a logical replication slot.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta, timezone
from functools import partialmethod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import inside, ms3, zulu  # noqa: E402

NAME, SEED = "aero", 20260217
MON = [*engine.MONTHS]
CET = timezone(timedelta(hours=1))
LOCAL = engine.Clock(CET, datetime(2026, 2, 17, tzinfo=CET))
DAY0, END = LOCAL.days(3)
at, loc, iso, wall = LOCAL.at, LOCAL.loc, LOCAL.iso, LOCAL.wall


DAY_CURVE = ((0, 0.2), (4.5, 0.2), (6, 1.4), (10, 1.4), (10, 1.0), (16, 1.0), (16, 1.3), (20.5, 1.3))


def load(t: datetime) -> float:
    """Airline traffic: the morning departure bank, a midday plateau, an evening bank, quiet nights."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.6)


# ---------------------------------------------------------------------------------------------
# Incident timeline (CET). Background generators consult these to break the right things.
# ---------------------------------------------------------------------------------------------

SEAT_OOM = (at(0, 7, 33, 12), at(0, 8, 21, 40))  # AERO-01 redis-seat full (noeviction)
ES_HEAP = (at(0, 10, 2, 30), at(0, 10, 52, 0))  # AERO-02 es-data-2 heap, runaway aggregation
EDGE_TO = (at(0, 14, 6, 2), at(0, 14, 58, 20))  # AERO-03 envoy route timeout 3s on confirm
KAFKA3 = (at(0, 18, 22, 5), at(0, 19, 9, 50))  # AERO-04 kafka-3 evicted, min.insync 2
CDC_DEAD = at(1, 6, 4, 9)  # AERO-06 pnr-cdc connector task killed, slot inactive
WAL_FULL = (at(1, 6, 49, 31), at(1, 7, 20, 40))  # pg-res volume full, crash loop
FX_V2 = (at(1, 9, 53, 20), at(1, 10, 37, 50))  # AERO-07 search 4.2.0 reads fx:rates:v2
V214 = (at(1, 12, 56, 40), at(1, 13, 41, 2))  # AERO-08 CREATE INDEX (not concurrently)
GDS_CERT = (at(1, 16, 20, 0), at(1, 17, 7, 30))  # AERO-09 client certificate expired
POOL_DRY = at(1, 16, 33, 40)  # the last live GDS sessions gone
GDS_BOOKING = (GDS_CERT[0] + timedelta(minutes=10), GDS_CERT[1])  # AERO-09 in booking's metrics
ZONE_B = (at(1, 20, 7, 10), at(1, 20, 36, 0))  # AERO-10 europe-west3-b partitioned
WRAP = (at(2, 10, 58, 0), at(2, 11, 52, 14))  # AERO-12 anti-wraparound vacuum on pg-dcs
FLOOD = (at(2, 15, 2, 20), at(2, 15, 55, 10))  # AERO-13 es-data-1 flood-stage watermark
HIGH_WM = at(2, 14, 40, 5)
DECLINES = (at(2, 18, 56, 0), at(2, 19, 41, 0))  # AERO-14 issuer declines (external, unknown)


AIRPORTS = ["FRA", "MUC", "BER", "HAM", "DUS", "JFK", "LHR", "CDG", "ZRH", "VIE", "MAD", "ARN", "WAW",
            "CPH"]
FOREIGN_POS = ["GB", "CH", "SE", "PL", "DK", "NO"]
EUR_POS = ["DE", "DE", "DE", "AT", "FR", "ES", "NL", "IT"]
APPS = ["booking", "checkin", "inventory", "search", "payments", "notify", "gds-adapter", "edge"]
IPS = {"booking": ["10.42.1.31", "10.42.4.18", "10.42.7.22"],
       "checkin": ["10.42.1.40", "10.42.4.27", "10.42.7.35"],
       "search": ["10.42.2.12", "10.42.5.16", "10.42.8.19"], "payments": ["10.42.2.44", "10.42.8.41"],
       "inventory": ["10.42.3.14", "10.42.6.21"], "gds-adapter": ["10.42.3.51", "10.42.6.58"]}
ZONE_B_IPS = {"10.42.7.22", "10.42.7.35", "10.42.8.19", "10.42.8.41"}


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class World(engine.Dataset):
    always_attrs = True

    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.pid = 51000

    def jit(self, t: datetime, span_s: float = 60.0) -> datetime:
        return t + timedelta(milliseconds=int(self.r() * span_s * 1000))

    hexid = engine.Dataset.plain_hex

    def pnr(self) -> str:
        chars = [self.pick("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6)]
        chars[self.ri(1, 5)] = self.pick("23456789")
        return "".join(chars)

    flight = partialmethod(engine.Dataset.numbered, "AE", 100, 1999)

    def seat(self) -> str:
        return f"{self.ri(1, 38)}{self.pick('ABCDEF')}"

    order = partialmethod(engine.Dataset.numbered, "ORD-", 8800000, 8999999)

    def route(self) -> str:
        a = self.pick(AIRPORTS)
        b = self.pick([x for x in AIRPORTS if x != a])
        return f"{a}-{b}"

    newpid = partialmethod(engine.Dataset.counter, "pid", 2, 70)


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables,
              (edge_bg, edge_noise, booking_bg, checkin_bg, inventory_bg, search_bg, payments_bg, notify_bg,
               gds_bg, postgres_bg, redis_bg, kafka_bg, es_bg, k8s_bg),
              (inc_seat, inc_es, inc_edge, inc_kafka, inc_wal, inc_fx, inc_v214, inc_gds, inc_zone, inc_wrap,
               inc_flood, metrics, batch_runs), (DEPLOYS, rollout))
    return w, engine.manifest(
        NAME, "Europe/Berlin", "An airline's booking, check-in and departure-control platform",
        "2026-02-17..19 Central European Time", 14, 13), truth()

# ---------------------------------------------------------------------------------------------
# Changes: deploys (UTC, from argo-rollouts), config changes (CET with offset), flyway history
# ---------------------------------------------------------------------------------------------

DEPLOYS = engine.table(at, "ssstisss", """
DEP-6201 | booking | 7.12.4 | -1 15:10 | 290 | Succeeded | argo-rollouts | ancillaries: bag bundles
DEP-6202 | checkin | 6.3.2 | 0 07:05 | 240 | Succeeded | argo-rollouts | wallet pass colours
DEP-6203 | notify | 2.8.3 | 0 11:30 | 150 | Succeeded | argo-rollouts | gate change SMS text
DEP-6204 | payments | 3.14.0 | 0 16:40 | 200 | Succeeded | argo-rollouts | PSP client keep-alive
DEP-6205 | inventory | 5.4.0 | 0 21:15 | 180 | Succeeded | argo-rollouts | hold release batching
DEP-6206 | checkin | 6.3.3 | 1 06:38 | 230 | Succeeded | argo-rollouts | APIS form: visa fields
DEP-6207 | search | 4.2.0 | 1 09:51 | 140 | Succeeded | argo-rollouts | fares: FX rates v2, per-market
    rounding
DEP-6208 | search | 4.1.7 | 1 10:36 | 110 | Succeeded | j.hoffmann | rollback of 4.2.0
DEP-6209 | notify | 2.9.0 | 1 12:48 | 160 | Succeeded | argo-rollouts | e-mail templates in Polish
DEP-6210 | booking | 7.13.0 | 2 08:20 | 300 | Succeeded | argo-rollouts | seat upsell in manage-booking
DEP-6211 | checkin | 6.4.0 | 2 13:30 | 240 | Succeeded | argo-rollouts | kiosk: bag tag reprint
DEP-6212 | search | 4.2.1 | 2 16:30 | 130 | Succeeded | argo-rollouts | FX rates v2 with v1 fallback
DEP-6213 | payments | 3.14.1 | 2 21:05 | 190 | Succeeded | argo-rollouts | decline reason mapping
""")

CONFIG = engine.table(at, "ssssssts", """
CHG-5101 | inventory | redis-seat.maxmemory | 4gb | 8gb | s.krause | 0 08:21:40 | INC-3310
CHG-5102 | search | search.cache.ttl_s | 300 | 120 | l.meyer | 0 09:40 | FARE-771
CHG-5103 | edge | routes.booking-confirm.timeout | 30s | 3s | gitops (envoy-routes#882) | 0 14:06 | PLAT-1204
CHG-5104 | edge | routes.booking-confirm.timeout | 3s | 30s | gitops (envoy-routes#885) | 0 14:58:20 |
    INC-3314
CHG-5105 | notify | apns.max_concurrency | 64 | 128 | m.weber | 0 18:05 | NTF-219
CHG-5106 | postgres | pg-res.volume.size | 200Gi | 300Gi | a.schulz | 1 07:18:30 | INC-3321
CHG-5107 | postgres | pg-res.max_slot_wal_keep_size | -1 | 20GB | a.schulz | 1 07:44 | INC-3321
CHG-5108 | inventory | hold.ttl_s | 900 | 600 | t.becker | 1 09:40 | INV-402
CHG-5109 | booking | loyalty.earn.async | false | true | k.wolf | 1 12:52 | LOY-88
CHG-5110 | gds-adapter | session.pool.max | 40 | 60 | j.hoffmann | 1 16:45 | INC-3327
CHG-5111 | checkin | kiosk.session_timeout_s | 120 | 180 | airport-ops | 2 10:50 | KSK-57
CHG-5112 | elasticsearch | ilm.fare-history.rollover.max_size | (none) | 30gb | l.meyer | 2 15:50 | INC-3336
CHG-5113 | payments | threeds.challenge_timeout_s | 300 | 600 | r.vogel | 2 18:50 | PAY-640
""")

MIGRATIONS = [
    # rank, version, description, script, by, installed_on (DB local, CET), ms, ok, schema
    (
        211, "211", "order ancillary lines", "V211__order_ancillary_lines.sql", "flyway_booking",
        at(-6, 11, 2, 41), 1840, "reservations",
    ),
    (
        212, "212", "bag bundle catalog", "V212__bag_bundle_catalog.sql", "flyway_booking",
        at(-1, 15, 12, 3), 322, "reservations",
    ),
    (
        213, "213", "loyalty accrual outbox", "V213__loyalty_accrual_outbox.sql", "flyway_booking",
        at(0, 11, 14, 55), 910, "reservations",
    ),
    (
        214, "214", "passenger email idx", "V214__passenger_email_idx.sql", "flyway_booking",
        at(1, 13, 41, 2), 2661870, "reservations",
    ),
    (
        215, "215", "seat upsell offer", "V215__seat_upsell_offer.sql", "flyway_booking", at(2, 8, 21, 30),
        455, "reservations",
    ),
    (89, "89", "apis visa fields", "V89__apis_visa_fields.sql", "flyway_dcs", at(1, 6, 39, 12), 618, "dcs"),
    (
        90, "90", "boarding pass gate idx", "V90__boarding_pass_gate_idx.sql", "flyway_dcs",
        at(2, 10, 41, 7), 4120, "dcs",
    ),
]


def change_tables(w: World) -> None:
    rows = []
    for did, svc, ver, start, dur, status, by, summary in DEPLOYS:
        img = f"europe-west3-docker.pkg.dev/aero-prod/apps/{svc}:{ver}"
        rows.append(
            [did, svc, ver, img, zulu(start), zulu(start + timedelta(seconds=dur)), status, by, summary]
        )
    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"), rows)
    w.table("config_changes",
            ["change_id", "service", "key", "from_value", "to_value", "author", "applied_at", "ticket"],
            [[c, s, k, a, b, who, iso(t), tk] for c, s, k, a, b, who, t, tk in CONFIG])
    w.table("schema_migrations", engine.columns("FLYWAY_SCHEMA"),
            [[r, v, d, s, by, wall(t), ms, 1, sch] for r, v, d, s, by, t, ms, sch in MIGRATIONS])
    w.table(
        "dependencies", engine.columns("DEPENDENCIES_VIA"),
        [["edge", "booking", "http", "booking.aero-app.svc.cluster.local:8080"],
         ["edge", "checkin", "http", "checkin.aero-app.svc.cluster.local:8080"],
         ["edge", "search", "http", "search.aero-app.svc.cluster.local:8000"],
         ["edge", "payments", "http", "payments.aero-app.svc.cluster.local:3000"],
         ["booking", "inventory", "grpc", "inventory.aero-app.svc.cluster.local:9090"],
         ["booking", "payments", "http", "payments.aero-app.svc.cluster.local:3000"],
         ["booking", "gds-adapter", "http", "gds-adapter.aero-app.svc.cluster.local:8081"],
         ["booking", "pg-res", "postgresql",
          "pg-res-primary.aero-data.svc.cluster.local:5432/reservations"],
         ["booking", "kafka", "kafka", "kafka-bootstrap.aero-data.svc:9092 topic booking.events"],
         ["checkin", "inventory", "grpc", "inventory.aero-app.svc.cluster.local:9090"],
         ["checkin", "gds-adapter", "http", "gds-adapter.aero-app.svc.cluster.local:8081"],
         ["checkin", "pg-dcs", "postgresql", "pg-dcs-primary.aero-data.svc.cluster.local:5432/dcs"],
         ["checkin", "kafka", "kafka",
          "kafka-bootstrap.aero-data.svc:9092 topic checkin.events (acks=all)"],
         ["checkin", "apple-wallet", "https", "api.push.apple.com:443 (external)"],
         ["inventory", "redis-seat", "redis", "redis-seat-master.aero-data.svc.cluster.local:6379"],
         ["inventory", "gds-adapter", "http", "gds-adapter.aero-app.svc.cluster.local:8081"],
         ["search", "es-search", "http", "es-search.aero-data.svc:9200 (es-data-1, es-data-2, es-data-3)"],
         ["search", "redis-session", "redis",
          "redis-session-sentinel.aero-data.svc:26379 master aero-session"],
         ["search", "kafka", "kafka",
          "kafka-bootstrap.aero-data.svc:9092 topic fare.updates group search-fares"],
         ["payments", "pg-res", "postgresql", "pg-res-primary.aero-data.svc.cluster.local:5432/payments"],
         ["payments", "psp", "https", "api.psp-gateway.example:443 (external)"],
         ["notify", "kafka", "kafka",
          "kafka-bootstrap.aero-data.svc:9092 topics booking.events, checkin.events"],
         ["notify", "apns/fcm/smtp", "https",
          "api.push.apple.com, fcm.googleapis.com, smtp-relay.aero-air.example:587"],
         ["gds-adapter", "gds", "https+mtls", "webservices.gds-partner.example:443 (external)"],
         ["pnr-cdc", "pg-res", "postgresql-replication",
          "pg-res-primary.aero-data.svc.cluster.local:5432 slot pnr_cdc"],
         ["pnr-cdc", "kafka", "kafka",
          "kafka-connect on kafka-bootstrap.aero-data.svc:9092 topic cdc.reservations.pnr"]],
    )


def version(service: str, t: datetime) -> str:
    base = {"booking": "7.12.4", "checkin": "6.3.1", "notify": "2.8.2", "payments": "3.13.2",
            "inventory": "5.3.9", "search": "4.1.7", "gds-adapter": "3.2.0", "edge": "1.31.2"}
    return engine.deployed(base[service], DEPLOYS, service, t)


def pod(w: World, service: str, t: datetime) -> str:
    v = version(service, t)
    h = "".join("bcdfghjklmnpqrstvwxz2456789"[(ord(c) * 7 + i) % 27] for i, c in enumerate(service + v))[:9]
    return f"{service}-{h}-{w.pick(['x7k2p', 'm4q9z', 'c8d3w'])}"


# ---------------------------------------------------------------------------------------------
# Log formats
# ---------------------------------------------------------------------------------------------


def logstash(t: datetime, level: str, logger: str, thread: str, msg: str, **extra) -> str:
    d = {"@timestamp": loc(t).isoformat(timespec="milliseconds"), "@version": "1", "message": msg,
         "logger_name": logger, "thread_name": thread, "level": level,
         "level_value": {"DEBUG": 10000, "INFO": 20000, "WARN": 30000, "ERROR": 40000}[level]}
    d.update(extra)
    return json.dumps(d, separators=(",", ":"))


def boot(t: datetime, level: str, thread: str, logger: str, msg: str) -> str:
    """Spring Boot 3 console pattern (checkin)."""
    stamp = loc(t).isoformat(timespec="milliseconds")
    return f"{stamp} {level:>5} 1 --- [checkin] [{thread:>15}] {logger:<40} : {msg}"


def logfmt(t: datetime, level: str, msg: str, **kv) -> str:
    parts = [f"time={loc(t).isoformat(timespec='milliseconds')}", f"level={level}", f'msg="{msg}"']
    for k, v in kv.items():
        s = str(v)
        parts.append(f'{k}="{s}"' if (" " in s or '"' in s or "=" in s) else f"{k}={s}")
    return " ".join(parts)


def pylog(t: datetime, level: str, logger: str, msg: str, pid: int = 14) -> str:
    return f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)} {level} [{logger}] [pid {pid}] {msg}"


def pino(t: datetime, level: int, host: str, msg: str, **extra) -> str:
    d = {"level": level, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": host}
    d.update(extra)
    d["msg"] = msg
    return json.dumps(d, separators=(",", ":"))


def zap(t: datetime, level: str, caller: str, msg: str, **extra) -> str:
    d = {"level": level, "ts": round(t.timestamp(), 3), "caller": caller, "msg": msg}
    d.update(extra)
    return json.dumps(d, separators=(",", ":"))


def log4j(t: datetime, level: str, thread: str, logger: str, msg: str) -> str:
    return f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)} {level:<5} [{thread}] {logger}: {msg}"


def pgline(t: datetime, pid: int, who: str, sev: str, msg: str) -> str:
    who = f"{who} " if who else ""
    return f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')}.{ms3(t)} CET [{pid}] {who}{sev}:  {msg}"


def redisline(t: datetime, role: str, mark: str, msg: str, pid: int = 1) -> str:
    lt = loc(t)
    stamp = f"{lt.day:02d} {MON[lt.month - 1]} {lt.year} {lt.strftime('%H:%M:%S')}.{ms3(t)}"
    return f"{pid}:{role} {stamp} {mark} {msg}"


def kafkaline(t: datetime, level: str, msg: str, logger: str) -> str:
    return f"[{loc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)}] {level} {msg} ({logger})"


def esline(t: datetime, level: str, logger: str, node: str, msg: str) -> str:
    return f"[{loc(t).strftime('%Y-%m-%dT%H:%M:%S')},{ms3(t)}][{level:<5}][{logger:<25}] [{node}] {msg}"


def k8s(kind: str, reason: str, obj: str, msg: str) -> str:
    return f"{kind:<8} {reason:<22} {obj:<44} {msg}"


def envoy_app(t: datetime, level: str, comp: str, src: str, msg: str) -> str:
    stamp = f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')}.{ms3(t)}"
    return f"[{stamp}][{1 if comp != 'hc' else 27}][{level}][{comp}] [{src}] {msg}"


# ---------------------------------------------------------------------------------------------
# edge (envoy): access log (START_TIME is UTC, as envoy writes it) and its own log
# ---------------------------------------------------------------------------------------------

UA = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 "
    "AeroApp/9.4.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/121.0.0.0 Safari/537.36",
    "okhttp/4.12.0 AeroApp-Android/9.4.0", "AeroKiosk/3.8 (FRA-T1; SITA CUTE)",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 Version/17.2 Safari/605.1.15",
]

ROUTES = engine.table(None, "isss", """
# weight, method, path kind, upstream
18 | GET | flights | search
10 | GET | quote | search
9 | GET | seatmap | checkin
5 | PUT | seat | checkin
7 | POST | passengers | checkin
5 | POST | finalize | checkin
6 | GET | boardingpass | checkin
5 | POST | orders | booking
4 | POST | confirm | booking
8 | GET | pnr | booking
3 | POST | authorize | payments
""")
ROUTE_W = [r[0] for r in ROUTES]


def edge_path(w: World, kind: str) -> tuple[str, str]:
    p = w.pnr()
    pos = w.pick(FOREIGN_POS) if w.r() < 0.3 else w.pick(EUR_POS)
    dep = f"2026-0{w.ri(2, 4)}-{w.ri(10, 28)}"
    a, b = w.route().split("-")
    paths = {"flights": f"/api/search/v2/flights?from={a}&to={b}&date={dep}&pax=1",
             "quote": f"/api/search/v2/fares/quote?pos={pos}&from={a}&to={b}&date={dep}",
             "seatmap": f"/api/checkin/v1/seatmap/{w.flight()}?date=2026-02-{w.ri(17, 20)}",
             "seat": f"/api/checkin/v1/pnr/{p}/seats", "passengers": f"/api/checkin/v1/pnr/{p}/passengers",
             "finalize": f"/api/checkin/v1/pnr/{p}/finalize",
             "boardingpass": f"/api/checkin/v1/boardingpass/{p}/{w.ri(1, 3)}",
             "orders": "/api/booking/v3/orders", "confirm": f"/api/booking/v3/orders/{w.order()}/confirm",
             "pnr": f"/api/booking/v3/pnr/{p}", "authorize": "/api/payments/v1/authorize"}
    return paths[kind], pos


def edge_fault(w: World, t: datetime, kind: str, up: str, ip: str, pos: str):
    """(status, flags, duration_ms, upstream) for a broken request, or None."""
    if inside(t, SEAT_OOM) and kind == "seat" and w.r() < 0.75:
        return 503, "-", w.ri(20, 90), ip
    if inside(t, ES_HEAP) and kind == "flights" and w.r() < 0.55:
        return 504, "UT", 15000 + w.ri(0, 3), ip
    if inside(t, ES_HEAP) and kind == "flights" and w.r() < 0.4:
        return 503, "-", w.ri(10000, 10400), ip
    if inside(t, EDGE_TO) and kind == "confirm" and w.r() < 0.86:
        return 504, "UT", 3000 + w.ri(0, 2), ip
    if inside(t, KAFKA3) and kind == "finalize" and w.r() < 0.62:
        return 500, "-", w.ri(5100, 5400), ip
    if inside(t, WAL_FULL) and up in ("booking", "payments") and w.r() < 0.85:
        return (500 if up == "booking" else 503), "-", w.ri(8, 900), ip
    if inside(t, FX_V2) and kind == "quote" and pos in FOREIGN_POS:
        return 500, "-", w.ri(40, 160), ip
    if inside(t, V214) and kind in ("orders", "confirm") and w.r() < 0.65:
        return 504, "UT", 30000 + w.ri(0, 3), ip
    if (
        inside(t, (GDS_CERT[0] + timedelta(minutes=11), GDS_CERT[1]))
        and kind in ("pnr", "passengers")
        and w.r() < 0.6
    ):
        return 503, "-", w.ri(20000, 20300), ip
    if inside(t, ZONE_B):
        if ip in ZONE_B_IPS and t < ZONE_B[0] + timedelta(seconds=50):
            return 503, "UF", w.ri(1000, 1003), ip
        if w.r() < 0.42:
            return w.pick([503, 503, 504]), w.pick(["UO", "UH", "UT"]), w.ri(1, 15000), "-"
    if inside(t, WRAP) and up == "checkin" and w.r() < 0.12:
        return 504, "UT", 15000 + w.ri(0, 3), ip
    return None


def edge_bg(w: World, t: datetime) -> None:
    """2xx/4xx are sampled (about 1 in 8); the access log filter keeps every 5xx."""
    sampled = w.count(1.5 * load(t))
    for i in range(sampled + w.count(10.5 * load(t))):
        tt = w.jit(t)
        _wgt, method, kind, up = w.rng.choices(ROUTES, weights=ROUTE_W)[0]
        path, pos = edge_path(w, kind)
        ip = w.pick(IPS[up])
        port = {"search": 8000, "payments": 3000}.get(up, 8080)
        host = "kiosk.aero-air.example" if w.r() < 0.15 else "api.aero-air.example"
        f = edge_fault(w, tt, kind, up, ip, pos)
        if i >= sampled and not f:
            continue
        if f:
            code, flags, dur, upip = f
            upstream = "-" if upip == "-" else f"{upip}:{port}"
            bout = 91 if code != 500 else 212
        else:
            code, flags, upstream = 200, "-", f"{ip}:{port}"
            dur = {"flights": w.ri(60, 420), "quote": w.ri(40, 260), "confirm": w.ri(2600, 6200),
                   "authorize": w.ri(900, 3800), "finalize": w.ri(150, 600)}.get(kind, w.ri(15, 180))
            if inside(tt, WRAP) and up == "checkin":
                dur = w.ri(3500, 9800)
            x = w.r()
            if kind == "pnr" and x < 0.04:
                code = 404
            elif kind == "confirm" and x < (0.3 if inside(tt, FLOOD) else 0.03):
                code = 409
            elif kind == "authorize" and x < (0.12 if inside(tt, DECLINES) else 0.045):
                code = 402
            elif kind in ("orders", "passengers", "seat") and x < 0.02:
                code = 401
            elif method == "POST" and kind == "orders":
                code = 201
            elif x < 0.012:
                code, flags, upstream = 0, "DC", f"{ip}:{port}"  # client went away
            bout = w.ri(300, 48000) if method == "GET" else w.ri(90, 2400)
        ts = tt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + ms3(tt) + "Z"
        ut = "-" if flags in ("UT", "UF", "UH", "UO", "DC") else str(max(1, dur - w.ri(0, 3)))
        xff = f"{w.ri(31, 217)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
        rid = f"{w.hexid(8)}-{w.hexid(4)}-{w.hexid(4)}-{w.hexid(4)}-{w.hexid(12)}"
        bin_ = w.ri(0, 900) if method != "GET" else 0
        msg = (
            f'[{ts}] "{method} {path} HTTP/2" {code} {flags} {bin_} {bout} {dur} {ut} "{xff}" '
            f'"{w.pick(UA)}" "{rid}" "{host}" "{upstream}"'
        )
        w.emit(tt, "edge", "INFO", msg, pod=f"edge-{w.pick(['5c7f9-h2kqd', '5c7f9-r8wmn', '5c7f9-t4bzx'])}",
               stream="access")


def edge_noise(w: World, t: datetime) -> None:
    m = loc(t).minute
    if m % 30 == 7:  # xDS stream recycled by the control plane: harmless, constant
        tt = w.jit(t, 50)
        w.emit(
            tt, "edge", "WARN",
            envoy_app(
                tt, "warning", "config", "source/extensions/config_subscription/grpc/grpc_stream.h:152",
                "StreamAggregatedResources gRPC config stream to xds_cluster closed since 1801s ago: 13, ",
            ),
            pod="edge-5c7f9-h2kqd", stream="envoy",
        )
    if w.r() < 0.012:
        tt = w.jit(t)
        w.emit(
            tt, "edge", "WARN",
            envoy_app(
                tt, "warning", "hc", "source/common/upstream/health_checker_impl.cc:389",
                f"health check failed for host {w.pick(IPS['booking'] + IPS['checkin'])}:8080 (timeout), 1 "
                "of 3 before ejection",
            ),
            pod="edge-5c7f9-r8wmn", stream="envoy",
        )


# ---------------------------------------------------------------------------------------------
# booking (Spring Boot, logstash JSON)
# ---------------------------------------------------------------------------------------------

BK = "com.aeroair.booking"


def bk(w: World, t: datetime, level: str, logger: str, msg: str, thread: str | None = None,
       **extra) -> None:
    thread = thread or f"http-nio-8080-exec-{w.ri(1, 40)}"
    w.emit(t, "booking", level, logstash(t, level, f"{BK}.{logger}", thread, msg, **extra),
           pod=pod(w, "booking", t), version=version("booking", t))


def booking_bg(w: World, t: datetime) -> None:
    down = inside(t, WAL_FULL)
    for _ in range(w.count(0.55 * load(t))):
        tt = w.jit(t)
        x = w.r()
        tid = w.hexid(16)
        if down:
            continue
        if inside(tt, V214) and x < 0.5:
            continue
        if x < 0.3:
            bk(w, tt, "INFO", "pnr.PnrQueryController", f"GET /v3/pnr/{w.pnr()} 200 in {w.ri(12, 140)} ms",
               trace_id=tid)
        elif x < 0.55:
            bk(w, tt, "INFO", "order.OrderService",
               f"Order {w.order()} created for {w.route()} pax={w.ri(1, 4)} total={w.ri(89, 1890)}.00 EUR",
               trace_id=tid)
        elif x < 0.8:
            took = w.ri(2600, 6200)
            bk(w, tt, "INFO", "order.ConfirmService",
               f"Order {w.order()} confirmed, PNR {w.pnr()} ticketed, payment captured in {took} ms",
               trace_id=tid)
            if inside(tt, EDGE_TO) and took > 3000:
                bk(w, tt + timedelta(milliseconds=5), "WARN", "web.ResponseErrorHandler",
                   f"Client aborted response for POST /v3/orders/{w.order()}/confirm after {took} ms "
                   "(org.apache.catalina.connector.ClientAbortException: java.io.IOException: Broken pipe)",
                   trace_id=tid)
                if w.r() < 0.5:
                    bk(w, tt + timedelta(seconds=w.ri(5, 40)), "WARN", "order.ConfirmService",
                       f"Duplicate confirm for {w.order()} ignored: order already CONFIRMED (idempotency "
                       "key replay)")
        else:
            bk(w, tt, "INFO", "gds.PnrSyncService",
               f"PNR {w.pnr()} synced to GDS (segments={w.ri(1, 4)}) in {w.ri(300, 900)} ms",
               thread=f"pnr-sync-{w.ri(1, 8)}")
    # noise: fare re-validation, loyalty accrual retries
    lam = 0.09 * load(t) * (8 if inside(t, FLOOD) else 1)
    for _ in range(w.count(lam)):
        tt = w.jit(t)
        bk(w, tt, "WARN", "pricing.FareRevalidation",
           f"Fare re-validation changed price for order {w.order()}: {w.ri(120, 900)}.00 -> "
           f"{w.ri(120, 990)}.00 EUR, asking customer to accept")
    if w.r() < 0.03 and not down:
        tt = w.jit(t)
        bk(w, tt, "ERROR", "loyalty.AccrualClient",
           f"Loyalty accrual for PNR {w.pnr()} failed: 503 from loyalty-partner (attempt 1/5), will retry "
           "in 60 s", thread="loyalty-retry-1")
        bk(w, tt + timedelta(seconds=61), "INFO", "loyalty.AccrualClient",
           "Loyalty accrual retry succeeded (attempt 2/5)", thread="loyalty-retry-1")
    lt = loc(t)
    if lt.hour == 2 and lt.minute == 0:  # nightly purge of flown PNRs
        run_purge(w, t)


def run_purge(w: World, t: datetime) -> None:
    bk(w, t + timedelta(seconds=1), "INFO", "housekeeping.PnrPurgeJob",
       "PNR purge started: flown before 2025-11-19, batch size 500", thread="scheduling-1")
    n = 0
    for i in range(34):
        tt = t + timedelta(seconds=20 + i * 70 + w.ri(0, 20))
        n += w.ri(440, 500)
        bk(w, tt, "INFO", "housekeeping.PnrPurgeJob",
           f"PNR purge batch {i + 1}: deleted {w.ri(440, 500)}, total {n}", thread="scheduling-1")
        if w.r() < 0.35:
            bk(w, tt + timedelta(milliseconds=300), "WARN", "housekeeping.PnrPurgeJob",
               f"PNR {w.pnr()} skipped: ticket coupon {w.ri(100, 999)}-{w.ri(1000000000, 9999999999)} "
               "still OPEN (refund pending)", thread="scheduling-1")
    bk(w, t + timedelta(seconds=2450), "INFO", "housekeeping.PnrPurgeJob",
       f"PNR purge finished: {n} deleted", thread="scheduling-1")


# ---------------------------------------------------------------------------------------------
# checkin (Spring Boot console)
# ---------------------------------------------------------------------------------------------


def ck(w: World, t: datetime, level: str, logger: str, msg: str, thread: str | None = None) -> None:
    thread = thread or f"nio-8080-exec-{w.ri(1, 60)}"
    w.emit(t, "checkin", level, boot(t, level, thread, logger, msg), pod=pod(w, "checkin", t),
           version=version("checkin", t))


def checkin_bg(w: World, t: datetime) -> None:
    for _ in range(w.count(0.65 * load(t))):
        tt = w.jit(t)
        x = w.r()
        p, fl = w.pnr(), w.flight()
        slow = inside(tt, WRAP)
        if x < 0.25:
            ck(w, tt, "INFO", "d.a.checkin.seat.SeatMapController",
               f"seat map {fl}/2026-02-{loc(tt).day} served ({w.ri(140, 186)} free) in {w.ri(20, 90)} ms")
        elif x < 0.45:
            if inside(tt, SEAT_OOM) and w.r() < 0.8:
                ck(w, tt, "WARN", "d.a.checkin.seat.SeatSelectionService",
                   f"Seat hold {fl} {w.seat()} for PNR {p} rejected by inventory: 503 Service Unavailable; "
                   "seat map switched to read-only")
            else:
                ck(w, tt, "INFO", "d.a.checkin.seat.SeatSelectionService",
                   f"Seat {w.seat()} on {fl} held for PNR {p} (hold 900 s)")
        elif x < 0.7:
            if slow:
                ck(w, tt, "WARN", "d.a.checkin.web.SlowRequestFilter",
                   f"slow request POST /v1/pnr/{p}/passengers took {w.ri(3400, 9800)} ms (db "
                   f"{w.ri(3000, 9000)} ms)")
                if w.r() < 0.3:
                    ck(w, tt + timedelta(seconds=5), "ERROR", "o.h.engine.jdbc.spi.SqlExceptionHelper",
                       "dcs-pool - Connection is not available, request timed out after 5000ms (total=60, "
                       "active=60, idle=0, waiting=37)")
            else:
                ck(w, tt, "INFO", "d.a.checkin.pax.PassengerService",
                   f"Passenger {w.ri(1, 4)} of PNR {p} checked in on {fl} in {w.ri(40, 210)} ms")
        elif x < 0.88:
            if inside(tt, KAFKA3) and w.r() < 0.62:
                part = w.pick([1, 2, 4, 5])
                if w.r() < 0.4:
                    ck(w, tt - timedelta(seconds=2), "WARN", "o.a.k.clients.producer.internals.Sender",
                       "[Producer clientId=checkin-producer-1] Got error produce response with "
                       f"correlation id {w.ri(100000, 999999)} on topic-partition checkin.events-{part}, "
                       "retrying (2 attempts left). Error: NOT_ENOUGH_REPLICAS")
                ck(w, tt, "ERROR", "d.a.checkin.finalize.FinalizeService",
                   f"Check-in finalisation failed for PNR {p}: CheckinCompleted not acknowledged by "
                   f"checkin.events-{part} "
                   "(org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected "
                   "since there are fewer in-sync replicas than required.)")
            elif slow and w.r() < 0.5:
                ck(w, tt, "WARN", "d.a.checkin.web.SlowRequestFilter",
                   f"slow request POST /v1/pnr/{p}/finalize took {w.ri(4000, 12000)} ms (db "
                   f"{w.ri(3800, 11000)} ms)")
            else:
                ck(w, tt, "INFO", "d.a.checkin.finalize.FinalizeService",
                   f"PNR {p} finalised, {w.ri(1, 4)} boarding pass(es) issued, CheckinCompleted published")
        else:
            ck(w, tt, "INFO", "d.a.checkin.bp.BoardingPassController",
               f"boarding pass {p}/{w.ri(1, 3)} rendered (pkpass) in {w.ri(30, 120)} ms")
    # noise
    if w.r() < 0.07 * max(load(t), 0.4):
        tt = w.jit(t)
        ck(w, tt, "WARN", "d.a.checkin.apis.ApisValidator",
           f"APIS data incomplete for PNR {w.pnr()} pax 1: document expiry missing, prompting passenger")
    if w.r() < 0.04:
        tt = w.jit(t)
        ck(w, tt, "ERROR", "d.a.checkin.wallet.WalletPushClient",
           f"Wallet pass update push failed for serial {w.ri(10**11, 10**12 - 1)}: 410 Gone (device "
           "unregistered), dropping registration", thread="wallet-push-2")


# ---------------------------------------------------------------------------------------------
# inventory (Go, logfmt)
# ---------------------------------------------------------------------------------------------


def inv(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    w.emit(t, "inventory", level.upper() if level != "warn" else "WARN", logfmt(t, level, msg, **kv),
           pod=pod(w, "inventory", t), version=version("inventory", t))


def inventory_bg(w: World, t: datetime) -> None:
    for _ in range(w.count(0.42 * load(t))):
        tt = w.jit(t)
        if inside(tt, SEAT_OOM) and w.r() < 0.8:
            if w.r() < 0.7:
                inv(w, tt, "error", "seat hold failed", flight=w.flight(), seat=w.seat(), pnr=w.pnr(),
                    store="seat-holds", err="OOM command not allowed when used memory > 'maxmemory'.")
                inv(w, tt + timedelta(milliseconds=2), "info", "request", method="POST", path="/v1/holds",
                    status=503, dur_ms=w.ri(1, 6))
            else:
                inv(w, tt, "warn", "seatmap cache write failed, serving from GDS snapshot",
                    flight=w.flight(), store="seatmap",
                    err="OOM command not allowed when used memory > 'maxmemory'.")
            continue
        x = w.r()
        if x < 0.4:
            inv(w, tt, "info", "request", method="GET", path="/v1/availability", status=200,
                dur_ms=w.ri(3, 40))
        elif x < 0.75:
            inv(w, tt, "info", "seat hold placed", flight=w.flight(), seat=w.seat(),
                ttl_s=900 if tt < at(1, 9, 40) else 600)
        else:
            inv(w, tt, "info", "hold released", flight=w.flight(),
                reason=w.pick(["confirmed", "confirmed", "cancelled"]))
    if w.r() < 0.05:
        inv(w, w.jit(t), "warn", "hold expired before confirm", flight=w.flight(), seat=w.seat(),
            held_s=900)
    if loc(t).minute % 10 == 3:
        tt = w.jit(t, 20)
        n = w.ri(2, 31)
        inv(w, tt, "info", "schedule sync from gds done", changes=n, dur_ms=w.ri(800, 3000))
        if w.r() < 0.1:
            inv(w, tt + timedelta(milliseconds=40), "error", "schedule change rejected", flight=w.flight(),
                err="duplicate message id (already applied), ignoring")
    lt = loc(t)
    if lt.hour == 5 and lt.minute == 0:
        day = (t - DAY0).days
        keys = 412880 if day == 0 else w.ri(136000, 141000)
        flights = 2214 if day == 0 else w.ri(735, 760)
        took = "41m12s" if day == 0 else f"{w.ri(12, 15)}m{w.ri(0, 59)}s"
        fin = t + (timedelta(minutes=41, seconds=12) if day == 0 else timedelta(minutes=13))
        horizon = "2026-10-24" if day == 0 else "2026-03-28"
        inv(w, t + timedelta(seconds=1), "info", "seatmap warm started", horizon=horizon, store="seatmap")
        inv(w, fin, "info", "seatmap warm finished", flights=flights, keys=keys, took=took, store="seatmap")


# ---------------------------------------------------------------------------------------------
# search (python, gunicorn/uvicorn workers)
# ---------------------------------------------------------------------------------------------


def se(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    w.emit(t, "search", level if level != "WARNING" else "WARN",
           pylog(t, level, logger, msg, pid=w.ri(11, 18)), pod=pod(w, "search", t),
           version=version("search", t))


ES_TIMEOUT = (
    "ConnectionTimeout caused by - ReadTimeoutError(HTTPConnectionPool(host='es-search.aero-data.svc', "
    "port=9200): Read timed out. (read timeout=10))"
)


def search_bg(w: World, t: datetime) -> None:
    for _ in range(w.count(0.5 * load(t))):
        tt = w.jit(t)
        x = w.r()
        if x < 0.55:
            if inside(tt, ES_HEAP) and w.r() < 0.75:
                if w.r() < 0.6:
                    se(w, tt, "ERROR", "search.api.flights",
                       f"flight search failed after 10.0s: {ES_TIMEOUT}")
                else:
                    se(w, tt, "WARNING", "search.es",
                       "TransportError(429, 'circuit_breaking_exception', '[parent] Data too large, data "
                       "for "
                       f"[<http_request>] would be [{w.ri(316, 319) / 10}gb/{w.ri(316, 319) / 10}gb], "
                       "which is larger than the limit of [31.1gb/31.1gb]') on es-search")
                    se(w, tt + timedelta(milliseconds=3), "INFO", "search.api.flights",
                       "serving cached availability (elasticsearch unavailable), age 14m")
            else:
                se(w, tt, "INFO", "search.api.flights",
                   f"GET /v2/flights {w.route()} 200 in {w.ri(40, 380)}ms (es {w.ri(8, 90)}ms, hits "
                   f"{w.ri(3, 48)})")
        else:
            pos = w.pick(FOREIGN_POS) if w.r() < 0.3 else w.pick(EUR_POS)
            if inside(tt, FX_V2) and pos in FOREIGN_POS:
                se(w, tt, "ERROR", "search.api.fares",
                   f"quote failed pos={pos} route={w.route()}\nTraceback (most recent call last):\n"
                   '  File "/app/search/api/fares.py", line 141, in quote\n'
                   "    price = fx.convert(fare.amount, fare.currency, pos.currency)\n"
                   '  File "/app/search/fares/fx.py", line 88, in convert\n'
                   "    return round(amount * rates[src][dst], ndigits)\n"
                   "TypeError: 'NoneType' object is not subscriptable")
            else:
                se(w, tt, "INFO", "search.api.fares",
                   f"quote pos={pos} fares={w.ri(2, 14)} in {w.ri(20, 190)}ms")
    m = loc(t).minute
    if m % 5 == 1:  # fare updater, consuming fare.updates into elasticsearch
        tt = w.jit(t, 30)
        if inside(tt, FLOOD):
            se(w, tt, "ERROR", "search.updater",
               f"bulk update of {w.ri(300, 900)} fares to fares-2026.02 failed: 429 "
               "cluster_block_exception index [fares-2026.02] blocked by: "
               "[TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has "
               "read-only-allow-delete block]; not committing offsets")
        elif inside(tt, ES_HEAP):
            se(w, tt, "WARNING", "search.updater",
               f"bulk update slow: {w.ri(18, 40)}.{w.ri(0, 9)}s for {w.ri(300, 900)} fares")
        else:
            se(w, tt, "INFO", "search.updater",
               f"applied {w.ri(150, 900)} fare updates from fare.updates[{w.ri(0, 5)}] in "
               f"{w.ri(200, 900)}ms")
    if m % 5 == 2 and inside(t, FX_V2):
        se(w, w.jit(t, 20), "WARNING", "search.fares.fx",
           "fx rates refresh: key fx:rates:v2 not found in redis (aero-session), keeping empty table")
    if m % 5 == 2 and not inside(t, FX_V2):
        se(w, w.jit(t, 20), "DEBUG", "search.fares.fx", "fx rates refresh: 34 currencies loaded")
    if w.r() < 0.03:
        se(w, w.jit(t), "WARNING", "search.es",
           f"slow elasticsearch query: {w.ri(11, 29) / 10}s for flights index (threshold 1.0s)")


# ---------------------------------------------------------------------------------------------
# payments (node, pino JSON)
# ---------------------------------------------------------------------------------------------

DECLINE = ["05 Do not honour", "51 Insufficient funds", "54 Expired card", "59 Suspected fraud",
           "61 Exceeds withdrawal limit", "N7 CVV mismatch"]


def pay(w: World, t: datetime, level: int, msg: str, **extra) -> None:
    lv = {20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL"}[level]
    host = pod(w, "payments", t)
    w.emit(t, "payments", lv, pino(t, level, host, msg, **extra), pod=host, version=version("payments", t))


def payments_bg(w: World, t: datetime) -> None:
    retry_lam = 0.05 + (0.35 if inside(t, (at(2, 9, 36), at(2, 9, 49))) else 0.0)
    for _ in range(w.count(0.36 * load(t))):
        tt = w.jit(t)
        rid = f"req-{w.hexid(10)}"
        if inside(tt, WAL_FULL):
            pay(w, tt, 50, "authorize failed: database unavailable", reqId=rid,
                err={
                    "type": "Error", "message": f"connect ECONNREFUSED 10.42.5.{w.pick([11, 11, 12])}:5432",
                    "code": "ECONNREFUSED",
                })
            continue
        pay(w, tt, 30, "authorization approved", reqId=rid, pspRef=f"PSP{w.ri(10**9, 10**10 - 1)}",
            ms=w.ri(800, 3600), threeDs=w.pick(["frictionless", "challenge", "frictionless"]))
    # approvals are sampled (info), every decline is logged (warn)
    rate = 0.115 if inside(t, DECLINES) else 0.042
    for _ in range(w.count(3.2 * load(t) * rate)):
        tt = w.jit(t)
        if inside(tt, WAL_FULL):
            continue
        code = w.pick(DECLINE if not inside(tt, DECLINES) else DECLINE[:1] * 3 + DECLINE)
        pay(w, tt, 40, "authorization declined by issuer", reqId=f"req-{w.hexid(10)}",
            bin=f"{w.ri(400000, 559999)}", amountMinor=w.ri(8900, 189000), currency="EUR",
            issuerCode=code[:2], issuerText=code[3:].lower().replace(" ", "_"))
    for _ in range(w.count(retry_lam)):
        tt = w.jit(t)
        pay(w, tt, 40, "PSP timeout after 8000ms, retrying (attempt 1/3)",
            endpoint="https://api.psp-gateway.example/v71/payments")
        pay(w, tt + timedelta(milliseconds=w.ri(900, 2500)), 30,
            "PSP call succeeded on retry (attempt 2/3)")
    if w.r() < 0.03:
        pay(w, w.jit(t), 30, "3DS challenge abandoned by cardholder, authorization cancelled",
            reqId=f"req-{w.hexid(10)}")


# ---------------------------------------------------------------------------------------------
# notify (Go, zap JSON): always noisy
# ---------------------------------------------------------------------------------------------


def nt(w: World, t: datetime, level: str, caller: str, msg: str, **extra) -> None:
    lv = {"debug": "DEBUG", "info": "INFO", "warn": "WARN", "error": "ERROR"}[level]
    w.emit(t, "notify", lv, zap(t, level, caller, msg, **extra), pod=pod(w, "notify", t),
           version=version("notify", t))


def notify_bg(w: World, t: datetime) -> None:
    for _ in range(w.count(0.3 * load(t))):
        tt = w.jit(t)
        ch = w.pick(["push", "push", "sms", "email"])
        nt(w, tt, "info", f"{ch}/sender.go:{w.pick([88, 91, 140])}", f"{ch} sent",
           template=w.pick(["checkin_open", "boarding_pass", "gate_change", "booking_confirmation"]),
           latency_ms=w.ri(40, 900))
    lam = 0.22 * max(load(t), 0.5) * (1.6 if at(0, 16) <= t < at(0, 22) else 1.0)
    for _ in range(w.count(lam)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.5:
            nt(w, tt, "error", "push/apns.go:212", "apns push rejected", reason="BadDeviceToken",
               status=400, token=w.hexid(12) + "…")
        elif x < 0.8:
            nt(w, tt, "warn", "push/fcm.go:97", "fcm send failed, token removed", error="UNREGISTERED",
               status=404)
        else:
            nt(w, tt, "warn", "email/smtp.go:154", "smtp deferred, will retry", code=451,
               reply="4.7.1 Try again later", relay="smtp-relay.aero-air.example:587")
    if loc(t).minute % 15 == 0:
        nt(w, w.jit(t, 10), "info", "consumer/group.go:77", "consumer lag", group="notify-push",
           topic="checkin.events", lag=w.ri(0, 40))


# ---------------------------------------------------------------------------------------------
# gds-adapter (Java, log4j2)
# ---------------------------------------------------------------------------------------------


def gd(w: World, t: datetime, level: str, logger: str, msg: str, thread: str | None = None) -> None:
    thread = thread or f"gds-worker-{w.ri(1, 24)}"
    w.emit(t, "gds-adapter", level, log4j(t, level, thread, f"com.aeroair.gds.{logger}", msg),
           pod=pod(w, "gds-adapter", t), version=version("gds-adapter", t))


def gds_bg(w: World, t: datetime) -> None:
    broken = inside(t, GDS_CERT)
    dry = POOL_DRY <= t < GDS_CERT[1]
    for _ in range(w.count(0.26 * load(t))):
        tt = w.jit(t)
        if dry:
            gd(w, tt, "ERROR", "session.SessionPool",
               f"Timed out waiting for a GDS session after 20000 ms ({w.ri(30, 140)} requests waiting)")
            continue
        if broken and w.r() < (tt - GDS_CERT[0]).total_seconds() / 900:
            gd(w, tt, "WARN", "session.SessionPool", f"No idle GDS session, waited {w.ri(2000, 19000)} ms")
        msg = w.pick(["PNRRET", "PNRADD", "ITAREQ", "TKTREQ", "SMPREQ"])
        gd(w, tt, "INFO", "edifact.Transport",
           f"{msg} ok in {w.ri(180, 950)} ms (session {w.ri(1, 40):02d})")
    m = loc(t).minute
    if broken and (m % 2 == 0 or w.r() < 0.5):
        tt = w.jit(t, 30)
        gd(w, tt, "ERROR", "session.SessionFactory",
           "Session sign-in to webservices.gds-partner.example:443 failed: "
           "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired",
           thread="session-signin-1")
    if m % 10 == 4 and not dry:
        tt = w.jit(t, 20)
        avail = w.ri(31, 40)
        if broken:
            avail = max(0, int(40 * (1 - (tt - GDS_CERT[0]).total_seconds() / 820)))
        gd(w, tt, "INFO", "session.SessionPool", f"pool stats: {avail}/40 sessions available, 0 waiting",
           thread="pool-monitor")
    if dry and m % 3 == 0:
        gd(w, w.jit(t, 30), "WARN", "session.SessionPool",
           f"Session pool exhausted: 0/{40 if t < at(1, 16, 45) else 60} sessions available, "
           f"{w.ri(40, 220)} requests waiting", thread="pool-monitor")
    if w.r() < 0.025 and not broken:
        tt = w.jit(t)
        s = w.ri(1, 40)
        gd(w, tt, "WARN", "session.SessionPool",
           f"Session {s:02d} expired on GDS side (Security_SignOut 1.1), signing in again",
           thread="pool-monitor")
    if w.r() < 0.012 and not broken:
        gd(w, w.jit(t), "ERROR", "edifact.Transport",
           f"Transaction timed out after 20000 ms (session {w.ri(1, 40):02d}), retrying once on a new "
           "session")
    lt = loc(t)
    if lt.hour == 8 and lt.minute == 0 and (t - DAY0).days < 2:
        left = int((datetime(2026, 2, 18, 15, 20, tzinfo=UTC) - t).total_seconds() // 3600)
        gd(w, t + timedelta(seconds=2), "WARN", "security.KeystoreWatcher",
           "Client certificate 'aero-prod-ws' (/etc/gds/client.p12) expires at 2026-02-18T15:20:00Z, "
           f"{left} hours left", thread="keystore-watch")


# ---------------------------------------------------------------------------------------------
# postgres (pg-res, pg-dcs)
# ---------------------------------------------------------------------------------------------


def pg(w: World, t: datetime, inst: str, pid: int, who: str, sev: str, msg: str) -> None:
    level = {"LOG": "INFO", "DETAIL": "INFO", "HINT": "INFO", "STATEMENT": "INFO", "CONTEXT": "INFO",
             "WARNING": "WARN", "ERROR": "ERROR", "FATAL": "FATAL", "PANIC": "FATAL"}[sev]
    if sev == "FATAL" and "recovery mode" in msg:
        level = "ERROR"
    w.emit(t, "postgres", level, pgline(t, pid, who, sev, msg), instance=inst, pod=f"{inst}-0")


def postgres_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    for inst, chk in (("pg-res", 2), ("pg-dcs", 9)):
        if inst == "pg-res" and inside(t, (WAL_FULL[0], WAL_FULL[1] + timedelta(seconds=30))):
            continue
        if lt.minute % 15 == chk % 15:
            tt = w.jit(t, 5)
            pg(w, tt, inst, 61, "", "LOG", "checkpoint starting: time")
            bufs = w.ri(4000, 31000) * (3 if inside(t, WRAP) and inst == "pg-dcs" else 1)
            write, sync = w.ri(120000, 269000) / 1000, w.ri(10, 990) / 1000
            pg(w, tt + timedelta(seconds=write + sync + 0.01), inst, 61, "", "LOG",
               f"checkpoint complete: wrote {bufs} buffers ({bufs / 2621.44:.1f}%); 0 WAL file(s) added, 0 "
               f"removed, {w.ri(3, 19)} recycled; "
               f"write={write:.3f} s, sync={sync:.3f} s, total={write + sync + 0.004:.3f} s")
    if w.r() < 0.03:  # idempotent payment retries from payments' PSP retry path
        tt = w.jit(t)
        pid = w.newpid()
        pg(w, tt, "pg-res", pid, "payments@payments", "ERROR",
           'duplicate key value violates unique constraint "payment_idem_key"')
        pg(w, tt, "pg-res", pid, "payments@payments", "DETAIL",
           f"Key (idempotency_key)=(pay-{w.hexid(12)}) already exists.")
    if w.r() < 0.02:
        tt = w.jit(t)
        inst = w.pick(["pg-res", "pg-dcs"])
        if not (inst == "pg-res" and inside(tt, WAL_FULL)):
            pg(w, tt, inst, w.newpid(), "metabase@" + ("reservations" if inst == "pg-res" else "dcs"),
               "LOG", "could not receive data from client: Connection reset by peer")
    if w.r() < 0.01:
        tt = w.jit(t)
        if not inside(tt, WAL_FULL):
            pg(w, tt, "pg-res", w.newpid(), "", "LOG",
               'automatic vacuum of table "reservations.public.pnr_segment": index scans: 1, elapsed: '
               f"{w.ri(3, 40)}.{w.ri(10, 99)} s")
    if lt.hour == 1 and lt.minute == 0:
        for inst in ("pg-res", "pg-dcs"):
            pg(w, t + timedelta(seconds=w.ri(1, 9)), inst, w.newpid(), "replicator@[unknown]", "LOG",
               "received replication command: BASE_BACKUP ( LABEL 'pg-basebackup-nightly', CHECKPOINT "
               "'fast', WAIT 0, MANIFEST 'yes')")


# ---------------------------------------------------------------------------------------------
# redis (redis-seat, redis-session with sentinel), kafka, elasticsearch, kubernetes
# ---------------------------------------------------------------------------------------------


def redis_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    for inst, mnt in (("redis-seat", 4), ("redis-session", 11)):
        if lt.minute % (60 if inst == "redis-seat" else 30) == mnt:
            if inst == "redis-session" and inside(t, ZONE_B):
                continue
            tt = w.jit(t, 10)
            pid = w.ri(1000, 30000)
            role = "M"
            w.emit(tt, "redis", "INFO",
                   redisline(tt, role, "*", f"{w.ri(100, 9000)} changes in 300 seconds. Saving..."),
                   instance=inst, pod=f"{inst}-0")
            w.emit(tt, "redis", "INFO", redisline(tt, role, "*", f"Background saving started by pid {pid}"),
                   instance=inst, pod=f"{inst}-0")
            t2 = tt + timedelta(seconds=w.ri(3, 40) if inst == "redis-session" else w.ri(20, 95))
            w.emit(t2, "redis", "INFO", redisline(t2, "C", "*", "DB saved on disk", pid=pid), instance=inst,
                   pod=f"{inst}-0")
            w.emit(
                t2, "redis", "INFO", redisline(t2, role, "*", "Background saving terminated with success"),
                instance=inst, pod=f"{inst}-0",
            )
    if w.r() < 0.004:
        tt = w.jit(t)
        w.emit(
            tt, "redis", "INFO",
            redisline(
                tt, "X", "#", "+sdown slave 10.42.6.30:6379 10.42.6.30 6379 @ aero-session 10.42.4.61 6379"
            ),
            instance="redis-session-sentinel", pod="redis-session-sentinel-1",
        )
        t2 = tt + timedelta(seconds=w.ri(4, 20))
        w.emit(
            t2, "redis", "INFO",
            redisline(
                t2, "X", "#", "-sdown slave 10.42.6.30:6379 10.42.6.30 6379 @ aero-session 10.42.4.61 6379"
            ),
            instance="redis-session-sentinel", pod="redis-session-sentinel-1",
        )


def kf(
    w: World, t: datetime, level: str, msg: str, logger: str, broker: int = 1, component: str = "broker"
) -> None:
    w.emit(t, "kafka", level, kafkaline(t, level, msg, logger), broker=str(broker), component=component,
           pod=f"kafka-{broker}" if component == "broker" else "connect-0")


def kafka_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.minute % 20 == 13:
        b = w.ri(1, 3)
        if not (b == 3 and inside(t, KAFKA3)) and not (b == 2 and inside(t, ZONE_B)):
            topic = w.pick(["booking.events", "checkin.events", "fare.updates", "cdc.reservations.pnr"])
            kf(w, w.jit(t), "INFO",
               f"[ProducerStateManager partition={topic}-{w.ri(0, 5)}] Wrote producer snapshot at offset "
               f"{w.ri(10**6, 10**7)} with 0 producer ids in 1 ms.", "kafka.log.ProducerStateManager", b)
    if lt.minute % 30 == 21:
        kf(w, w.jit(t), "INFO",
           f"[GroupMetadataManager brokerId=1] Removed 0 expired offsets in {w.ri(0, 3)} milliseconds.",
           "kafka.coordinator.group.GroupMetadataManager", 1)
    if w.r() < 0.01:
        kf(w, w.jit(t), "INFO",
           "[GroupCoordinator 2]: Preparing to rebalance group notify-push in state PreparingRebalance "
           f"with old generation {w.ri(100, 900)} (__consumer_offsets-{w.ri(0, 49)}) (reason: Leader "
           "consumer-notify-push-1 re-joining group during Stable)",
           "kafka.coordinator.group.GroupCoordinator", 2)
    if lt.minute % 30 == 5 and not (CDC_DEAD <= t < at(1, 7, 40)):
        kf(w, w.jit(t), "INFO",
           f"[pnr-cdc|task-0] WorkerSourceTask{{id=pnr-cdc-0}} Committing offsets for {w.ri(2000, 90000)} "
           "acknowledged messages", "org.apache.kafka.connect.runtime.WorkerSourceTask",
           component="connect")


def es(w: World, t: datetime, level: str, logger: str, node: str, msg: str) -> None:
    w.emit(t, "elasticsearch", level, esline(t, level, logger, node, msg), node=node, pod=node)


def es_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.minute % 30 == 17 and not inside(t, (HIGH_WM, FLOOD[1])):
        free = w.ri(50, 60)
        es(w, w.jit(t), "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-master-0",
           "low disk watermark [85%] exceeded on "
           "[kR2vQ8xBT0m3sYjz1a9LwQ][es-data-1][/usr/share/elasticsearch/data/nodes/0] free: "
           f"{free}.{w.ri(0, 9)}gb[{free / 4:.1f}%], replicas will not be assigned to this node")
    if w.r() < 0.02:
        node = w.pick(["es-data-1", "es-data-2", "es-data-3"])
        es(w, w.jit(t), "WARN", "i.s.s.query", node,
           f"[fares-2026.02][{w.ri(0, 5)}] took[{w.ri(11, 29) / 10}s], took_millis[{w.ri(1100, 2900)}], "
           f"total_hits[{w.ri(10, 900)} hits], search_type[QUERY_THEN_FETCH], total_shards[6], "
           f'source[{{"size":50,"query":{{"bool":{{"filter":[...]}}}}}}], id[search-api]')
    if w.r() < 0.02:
        node = w.pick(["es-data-1", "es-data-2", "es-data-3"])
        es(w, w.jit(t), "INFO", "o.e.m.j.JvmGcMonitorService", node,
           f"[gc][{w.ri(10000, 99999)}] overhead, spent [{w.ri(250, 600)}ms] collecting in the last [1s]")
    if lt.hour == 0 and lt.minute == 0:
        day = loc(t).day
        es(w, t + timedelta(seconds=1), "INFO", "o.e.c.m.MetadataCreateIndexService", "es-master-0",
           f"[fare-history-2026.02.{day:02d}] creating index, cause [auto(bulk api)], templates "
           "[fare-history], shards [3]/[1]")


def k8s_ev(
    w: World, t: datetime, typ: str, reason: str, obj: str, msg: str, ns: str = "aero-app", **attrs: str
) -> None:
    w.emit(
        t, "kubernetes", "WARN" if typ == "Warning" else "INFO", k8s(typ, reason, obj, msg), namespace=ns,
        **attrs,
    )


def k8s_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.minute == 5:
        k8s_ev(
            w, w.jit(t, 3), "Normal", "SuccessfulCreate", "cronjob/fx-refresh",
            f"Created job fx-refresh-{29520000 + int((t - DAY0).total_seconds() // 60)}", ns="aero-batch",
        )
    if w.r() < 0.02:
        svc = w.pick(["booking", "checkin", "search", "payments", "notify"])
        k8s_ev(w, w.jit(t), "Warning", "Unhealthy", f"pod/{pod(w, svc, t)}",
               'Readiness probe failed: Get "http://'
               + w.pick(IPS.get(svc, ["10.42.2.90"]))
               + ':8081/actuator/health/readiness": context deadline exceeded '
               "(Client.Timeout exceeded while awaiting headers)")


def rollout(w: World, t: datetime, service: str, ver: str, _seconds: int) -> None:
    """Rolling update: events for each new pod, a startup line in the service's own format."""
    for i in range(2):
        tt = t + timedelta(seconds=5 + i * 55)
        p = pod(w, service, t + timedelta(seconds=400))
        k8s_ev(
            w, tt, "Normal", "Pulled", f"pod/{p}",
            f'Container image "europe-west3-docker.pkg.dev/aero-prod/apps/{service}:{ver}" already present '
            "on machine",
        )
        k8s_ev(w, tt + timedelta(seconds=1), "Normal", "Started", f"pod/{p}",
               f"Started container {service}")
        st = tt + timedelta(seconds=w.ri(8, 25))
        if service == "booking":
            bk(w, st, "INFO", "BookingApplication",
               f"Started BookingApplication v{ver} in {w.ri(18, 30)}.{w.ri(100, 999)} seconds (process "
               f"running for {w.ri(20, 32)}.1)", thread="main")
        elif service == "checkin":
            ck(w, st, "INFO", "d.a.checkin.CheckinApplication",
               f"Started CheckinApplication v{ver} in {w.ri(14, 25)}.{w.ri(100, 999)} seconds",
               thread="main")
        elif service == "search":
            se(w, st, "INFO", "search.main", f"Starting search {ver} (uvicorn, 8 workers) on 0.0.0.0:8000")
        elif service == "payments":
            pay(w, st, 30, f"payments {ver} listening on :3000")
        elif service == "notify":
            nt(w, st, "info", "cmd/notify/main.go:54", "notify starting", version=ver)
        elif service == "inventory":
            inv(w, st, "info", "inventory starting", version=ver, grpc=":9090")
        elif service == "gds-adapter":
            gd(w, st, "INFO", "GdsAdapterApplication", f"Started GdsAdapterApplication v{ver}",
               thread="main")
        k8s_ev(w, tt + timedelta(seconds=40), "Normal", "Killing",
               f"pod/{pod(w, service, t - timedelta(seconds=1))}", f"Stopping container {service}")


# ---------------------------------------------------------------------------------------------
# Incidents: the lines only a failure writes
# ---------------------------------------------------------------------------------------------


def inc_seat(w: World) -> None:
    a, b = SEAT_OOM
    inv(w, b + timedelta(seconds=3), "info", "seat hold writes recovered", store="seat-holds",
        failed_since=loc(a).strftime("%H:%M:%S"))
    k8s_ev(w, b - timedelta(seconds=20), "Normal", "ConfigMapUpdated", "configmap/redis-seat-config",
           "maxmemory 8gb (was 4gb) applied with CONFIG SET by redis-operator", ns="aero-data")


def inc_es(w: World) -> None:
    a, b = ES_HEAP
    t = at(0, 10, 1, 50)
    agg = (
        'source[{"size":0,"aggs":{"route_day":{"terms":{"field":"route_key","size":100000},"aggs":{"by_day":{"date_histogram":{"field":"dep_date","calendar_interval":"day"},"aggs":{"min_fare":{"min":{"field":"fare_eur"}}}}}}}}]'
    )
    while t < b - timedelta(minutes=2):
        took = w.ri(38000, 61000)
        es(w, t, "WARN", "i.s.s.query", "es-data-2",
           f"[fares-2026.02][3] took[{took / 1000:.1f}s], took_millis[{took}], total_hits[10000+ hits], "
           f"search_type[QUERY_THEN_FETCH], total_shards[6], {agg}, id[fare-insights-grafana]")
        t += timedelta(seconds=w.ri(90, 150))
    t, n, tot = a, 88, 60.0
    while t < b:
        d = w.ri(48, 95) / 10
        tot += d
        n += 1
        es(w, t, "WARN", "o.e.m.j.JvmGcMonitorService", "es-data-2",
           f"[gc][old][{412233 + n * 9}][{n}] duration [{d}s], collections [1]/[{d + 0.4:.1f}s], total "
           f"[{d}s]/[{tot / 60:.1f}m], memory [{w.ri(302, 309) / 10}gb]->[{w.ri(295, 301) / 10}gb]/[31gb], "
           f"all_pools {{[young] [0b]->[0b]/[0b]}}{{[old] [30.1gb]->[29.7gb]/[31gb]}}")
        es(w, t + timedelta(milliseconds=2), "WARN", "o.e.m.j.JvmGcMonitorService", "es-data-2",
           f"[gc][{412233 + n * 9}] overhead, spent [{d}s] collecting in the last [{d + 0.4:.1f}s]")
        t += timedelta(seconds=w.ri(25, 55))
    es(w, at(0, 10, 24, 11), "INFO", "o.e.c.s.MasterService", "es-master-0",
       "node-left[{es-data-2}{pX0aR4YhQ2C7wq8b9vVt1g}{10.42.9.12}{10.42.9.12:9300}{d} reason: followers "
       "check retry count exceeded], term: 31, version: 88412, delta: removed {{es-data-2}}")
    es(w, at(0, 10, 24, 12), "WARN", "o.e.c.r.a.AllocationService", "es-master-0",
       "Cluster health status changed from [GREEN] to [YELLOW] (reason: [{es-data-2} reason: followers "
       "check retry count exceeded]).")
    es(w, at(0, 10, 27, 40), "INFO", "o.e.c.s.MasterService", "es-master-0",
       "node-join[{es-data-2}{pX0aR4YhQ2C7wq8b9vVt1g}{10.42.9.12}{10.42.9.12:9300}{d} join existing "
       "leader], term: 31, version: 88419")
    es(w, at(0, 10, 51, 30), "INFO", "o.e.t.TaskManager", "es-data-2",
       "cancelled task [pX0aR4YhQ2C7wq8b9vVt1g:91827731] (indices:data/read/search) on request of "
       "[es-master-0]: by user request [l.meyer]")
    es(w, at(0, 10, 58, 2), "INFO", "o.e.c.r.a.AllocationService", "es-master-0",
       "Cluster health status changed from [YELLOW] to [GREEN] (reason: [shards started "
       "[[fares-2026.02][3]]]).")


def inc_edge(w: World) -> None:
    for t, ver in ((EDGE_TO[0], "2026-02-17T13:05:58Z-pr882"), (EDGE_TO[1], "2026-02-17T13:58:16Z-pr885")):
        for i, p in enumerate(["h2kqd", "r8wmn", "t4bzx"]):
            tt = t + timedelta(milliseconds=200 + i * 350)
            w.emit(tt, "edge", "INFO",
                   envoy_app(tt, "info", "upstream", "source/common/upstream/cds_api_helper.cc:32",
                             "cds: add 0 cluster(s), remove 0 cluster(s)"),
                   pod=f"edge-5c7f9-{p}", stream="envoy")
            w.emit(tt + timedelta(milliseconds=4), "edge", "INFO",
                   envoy_app(tt, "info", "config", "source/common/router/rds_impl.cc:191",
                             f"rds: loaded new route configuration 'ingress_https' version {ver}"),
                   pod=f"edge-5c7f9-{p}", stream="envoy")


def inc_kafka(w: World) -> None:
    a, b = KAFKA3
    k8s_ev(w, at(0, 18, 21, 38), "Warning", "Evicted", "pod/kafka-3",
           "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81200Ki. Container "
           "kafka was using 11874412Ki, request is 8Gi, has larger consumption of memory.", ns="aero-data")
    k8s_ev(
        w, at(0, 18, 21, 40), "Normal", "Killing", "pod/kafka-3", "Stopping container kafka", ns="aero-data"
    )
    t = at(0, 18, 22, 30)
    while t < at(0, 19, 7, 40):
        k8s_ev(
            w, t, "Warning", "FailedScheduling", "pod/kafka-3",
            "0/9 nodes are available: 3 node(s) had volume node affinity conflict, 6 Insufficient memory. "
            "preemption: 0/9 nodes are available: 3 Preemption is not helpful for scheduling, 6 No "
            "preemption victims found for incoming pod.", ns="aero-data",
        )
        t += timedelta(seconds=w.ri(240, 330))
    k8s_ev(w, at(0, 19, 7, 40), "Normal", "TriggeredScaleUp", "pod/kafka-3",
           "pod triggered scale-up: [{https://www.googleapis.com/compute/v1/projects/aero-prod/zones/"
           "europe-west3-c/instanceGroups/gke-aero-prod-np-data-c-grp 2->3 (max: 4)}]", ns="aero-data")
    k8s_ev(w, at(0, 19, 9, 5), "Normal", "Scheduled", "pod/kafka-3",
           "Successfully assigned aero-data/kafka-3 to gke-aero-prod-np-data-c-7b2e", ns="aero-data")
    kf(w, a, "INFO",
       "[Controller id=1] Newly removed brokers: 3, deleted brokers: , bounced brokers: , all live "
       "brokers: 1,2", "kafka.controller.KafkaController")
    for part in (1, 2, 4, 5):
        leader = 1 if part in (1, 4) else 2
        kf(w, a + timedelta(milliseconds=300 + part * 40), "INFO",
           f"[Partition checkin.events-{part} broker={leader}] Shrinking ISR from {leader},3 to {leader}. "
           f"Leader: (highWatermark: {w.ri(880000, 990000)}, endOffset: {w.ri(990001, 990100)}). Out of "
           f"sync replicas: (brokerId: 3, endOffset: {w.ri(880000, 880100)}).", "kafka.cluster.Partition",
           leader)
    t = a + timedelta(seconds=20)
    while t < b:
        part = w.pick([1, 2, 4, 5])
        leader = 1 if part in (1, 4) else 2
        kf(w, t, "ERROR",
           f"[ReplicaManager broker={leader}] Error processing append operation on partition "
           f"checkin.events-{part}\n"
           "org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR "
           f"Set({leader}) is insufficient to satisfy the min.isr requirement of 2 for partition "
           f"checkin.events-{part}", "kafka.server.ReplicaManager", leader)
        t += timedelta(seconds=w.ri(20, 80))
    for part in (1, 2, 4, 5):
        leader = 1 if part in (1, 4) else 2
        kf(w, b + timedelta(milliseconds=part * 300), "INFO",
           f"[Partition checkin.events-{part} broker={leader}] ISR updated to {leader},3 and version "
           f"updated to {w.ri(40, 60)}", "kafka.cluster.Partition", leader)
    kf(w, b - timedelta(seconds=20), "INFO", "[KafkaServer id=3] started", "kafka.server.KafkaServer", 3)


def inc_wal(w: World) -> None:
    a, b = WAL_FULL
    kf(w, CDC_DEAD - timedelta(milliseconds=400), "ERROR",
       "[pnr-cdc|task-0] WorkerSourceTask{id=pnr-cdc-0} failed to send record to cdc.reservations.pnr: "
       "\norg.apache.kafka.common.errors.RecordTooLargeException: The message is 1348215 bytes when "
       "serialized which is larger than 1048576, which is the value of the max.request.size configuration.",
       "org.apache.kafka.connect.runtime.AbstractWorkerSourceTask", component="connect")
    kf(w, CDC_DEAD, "ERROR",
       "[pnr-cdc|task-0] WorkerSourceTask{id=pnr-cdc-0} Task threw an uncaught and unrecoverable "
       "exception. Task is being killed and will not recover until manually restarted",
       "org.apache.kafka.connect.runtime.WorkerTask", component="connect")
    pid = 40112
    pg(w, CDC_DEAD + timedelta(milliseconds=900), "pg-res", pid, "debezium@reservations", "LOG",
       "could not receive data from client: Connection reset by peer")
    pg(w, CDC_DEAD + timedelta(milliseconds=901), "pg-res", pid, "debezium@reservations", "CONTEXT",
       'slot "pnr_cdc", output plugin "pgoutput", in the change callback, associated LSN 3A/9F0012C8')
    pg(w, CDC_DEAD + timedelta(milliseconds=903), "pg-res", pid, "debezium@reservations", "LOG",
       "unexpected EOF on standby connection")
    # the volume fills silently; then postgres cannot write WAL
    pg(w, a, "pg-res", 71, "", "PANIC",
       'could not write to file "pg_wal/xlogtemp.71": No space left on device')
    pg(w, a + timedelta(milliseconds=90), "pg-res", 1, "", "LOG",
       "WAL writer process (PID 71) was terminated by signal 6: Aborted")
    pg(w, a + timedelta(milliseconds=92), "pg-res", 1, "", "LOG",
       "terminating any other active server processes")
    t = a + timedelta(seconds=3)
    n = 0
    while t < b:
        n += 1
        spid = 45000 + n * 17
        pg(w, t, "pg-res", spid, "", "LOG",
           "database system was interrupted; last known up at 2026-02-18 06:44:12 CET")
        pg(w, t + timedelta(seconds=1), "pg-res", spid, "", "LOG", f"redo starts at 3B/{w.ri(10, 99)}0A2E8")
        cycle = w.ri(70, 110)
        for _ in range(w.ri(8, 22)):
            ct = t + timedelta(seconds=w.r() * cycle)
            who = w.pick(
                ["booking@reservations", "booking@reservations", "payments@payments",
                 "debezium@reservations"]
            )
            pg(w, ct, "pg-res", w.newpid(), who, "FATAL", "the database system is in recovery mode")
        pt = t + timedelta(seconds=cycle - 2)
        if pt >= b:
            break
        pg(w, pt, "pg-res", spid, "", "PANIC",
           f'could not write to file "pg_wal/xlogtemp.{spid}": No space left on device')
        pg(w, pt + timedelta(milliseconds=50), "pg-res", 1, "", "LOG",
           f"startup process (PID {spid}) was terminated by signal 6: Aborted")
        t = pt + timedelta(seconds=3)
    k8s_ev(w, at(1, 7, 19, 2), "Normal", "FileSystemResizeSuccessful", "pod/pg-res-0",
           'MountVolume.NodeExpandVolume succeeded for volume "pvc-6a1f0c2e-res-data" pg-res-0',
           ns="aero-data")
    pg(w, b, "pg-res", 1, "", "LOG", "database system is ready to accept connections")
    pg(w, at(1, 7, 24, 5), "pg-res", w.newpid(), "dba@reservations", "LOG",
       "statement: SELECT pg_drop_replication_slot('pnr_cdc');")
    pg(w, at(1, 7, 44, 10), "pg-res", 1, "", "LOG", 'parameter "max_slot_wal_keep_size" changed to "20GB"')
    kf(w, at(1, 7, 40, 12), "INFO",
       '[pnr-cdc|task-0] Creating replication slot with command CREATE_REPLICATION_SLOT "pnr_cdc"  LOGICAL '
       "pgoutput", "io.debezium.connector.postgresql.connection.PostgresReplicationConnection",
       component="connect")
    # booking while pg-res is gone
    t = a + timedelta(seconds=1)
    while t < b + timedelta(seconds=20):
        tid = w.hexid(16)
        if w.r() < 0.5:
            bk(w, t, "ERROR", "web.GlobalExceptionHandler",
               f"POST /v3/orders failed: Could not open JPA EntityManager for transaction (trace {tid})",
               stack_trace="org.springframework.transaction.CannotCreateTransactionException: Could not "
                           "open JPA EntityManager for transaction\nCaused by: "
                           "org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC "
                           "Connection\nCaused by: org.postgresql.util.PSQLException: FATAL: the database "
                           "system is in recovery mode")
        else:
            bk(
                w, t, "WARN", "db.PoolHealth",
                "HikariPool-1 - Failed to validate connection org.postgresql.jdbc.PgConnection@"
                + w.hexid(8)
                + " (This connection has been closed.). Possibly consider using a shorter maxLifetime value.",
            )
        t += timedelta(seconds=w.ri(3, 14))


def inc_fx(w: World) -> None:
    b = FX_V2[1]
    se(w, b + timedelta(seconds=10), "INFO", "search.fares.fx",
       "fx rates refresh: 34 currencies loaded (key fx:rates:v1)")


def inc_v214(w: World) -> None:
    a, b = V214
    k8s_ev(w, a - timedelta(seconds=14), "Normal", "SuccessfulCreate", "job/booking-db-migrate-v214",
           "Created pod: booking-db-migrate-v214-q8x2c", ns="aero-batch")
    pg(w, a, "pg-res", 47002, "flyway_booking@reservations", "LOG",
       "statement: CREATE INDEX passenger_email_idx ON public.passenger USING btree (lower(email::text));")
    t = a + timedelta(seconds=2)
    while t < b:
        pid = w.newpid()
        waiting = w.ri(12, 140)
        pg(w, t, "pg-res", pid, "booking@reservations", "LOG",
           f"process {pid} still waiting for RowExclusiveLock on relation 16502 of database 16401 after "
           f"1000.{w.ri(100, 999)} ms")
        pg(w, t, "pg-res", pid, "booking@reservations", "DETAIL",
           f"Process holding the lock: 47002. Wait queue: {pid}, {pid + 3}, {pid + 9} and {waiting} more.")
        pg(w, t, "pg-res", pid, "booking@reservations", "STATEMENT",
           "insert into passenger (created_at, dob, email, first_name, last_name, pnr_id, id) values ($1, "
           "$2, $3, $4, $5, $6, $7)")
        t += timedelta(seconds=w.ri(10, 35))
    pg(w, b - timedelta(milliseconds=50), "pg-res", 47002, "flyway_booking@reservations", "LOG",
       "duration: 2661869.702 ms  statement: CREATE INDEX passenger_email_idx ON public.passenger USING "
       "btree (lower(email::text));")
    k8s_ev(
        w, b + timedelta(seconds=3), "Normal", "Completed", "job/booking-db-migrate-v214", "Job completed",
        ns="aero-batch",
    )
    t = a + timedelta(seconds=31)
    while t < b:
        if w.r() < 0.6:
            bk(w, t, "ERROR", "order.ConfirmService",
               f"Order {w.order()} confirm failed: HikariPool-1 - Connection is not available, request "
               "timed out after 30000ms.")
        else:
            bk(w, t, "WARN", "db.PoolHealth",
               f"HikariPool-1 - Pool stats (total=40, active=40, idle=0, waiting={w.ri(20, 95)})",
               thread="HikariPool-1 housekeeper")
        t += timedelta(seconds=w.ri(4, 18))


def inc_gds(w: World) -> None:
    a, b = GDS_CERT
    k8s_ev(w, at(1, 17, 5, 40), "Normal", "SecretUpdated", "secret/gds-client-cert",
           "updated by external-secrets (vault path aero/gds/client-2027)")
    for i in range(2):
        p = f"gds-adapter-6c9d8f{'kq' if i else 'zt'}-{w.pick(['b7x2p', 'm4n8c'])}"
        k8s_ev(w, at(1, 17, 6, 0) + timedelta(seconds=i * 40), "Normal", "Killing", f"pod/{p}",
               "Stopping container gds-adapter (kubectl rollout restart)")
    gd(w, at(1, 17, 6, 50), "INFO", "security.KeystoreWatcher",
       "Loaded client certificate 'aero-prod-ws' (/etc/gds/client.p12), notAfter=2027-02-18T15:20:00Z",
       thread="main")
    gd(w, b, "INFO", "session.SessionPool", "pool stats: 12/60 sessions available, 0 waiting (warming)",
       thread="pool-monitor")
    t = a + timedelta(minutes=9)
    while t < b:
        x = w.r()
        if x < 0.5:
            bk(w, t, "ERROR", "gds.PnrSyncService",
               f"PNR {w.pnr()} sync to GDS failed: 503 from gds-adapter (no session available), will retry",
               thread=f"pnr-sync-{w.ri(1, 8)}")
        elif x < 0.75:
            bk(w, t, "WARN", "gds.AvailabilityClient",
               "GDS availability call timed out after 20 s, falling back to cached inventory")
        else:
            ck(w, t, "ERROR", "d.a.checkin.pnr.PnrRetrieveService",
               f"Cannot retrieve PNR {w.pnr()} from GDS: 503 Service Unavailable (gds-adapter)")
        t += timedelta(seconds=w.ri(8, 30))


NODES_B = ["gke-aero-prod-np-app-b-3f1c", "gke-aero-prod-np-app-b-8d02", "gke-aero-prod-np-app-b-c47a",
           "gke-aero-prod-np-data-b-19e5"]


def inc_zone(w: World) -> None:
    a, b = ZONE_B
    for i, n in enumerate(NODES_B):
        k8s_ev(w, a + timedelta(seconds=i * 2), "Normal", "NodeNotReady", f"node/{n}",
               f"Node {n} status is now: NodeNotReady", ns="default")
    k8s_ev(
        w, a + timedelta(seconds=9), "Normal", "ZoneStateChanged", "node-lifecycle-controller",
        "Controller detected that zone europe-west3-b is now in state PartialDisruption.", ns="kube-system",
    )
    for svc in ("booking", "checkin", "search", "payments"):
        k8s_ev(w, a + timedelta(seconds=w.ri(40, 60)), "Warning", "NodeNotReady", f"pod/{pod(w, svc, a)}",
               "Node is not ready")
    k8s_ev(w, a + timedelta(seconds=55), "Warning", "NodeNotReady", "pod/es-data-3", "Node is not ready",
           ns="aero-data")
    k8s_ev(w, a + timedelta(seconds=56), "Warning", "NodeNotReady", "pod/kafka-2", "Node is not ready",
           ns="aero-data")
    t = a + timedelta(minutes=5, seconds=10)
    for svc in ("booking", "checkin", "search", "payments", "inventory", "notify"):
        k8s_ev(w, t + timedelta(seconds=w.ri(0, 20)), "Warning", "TaintManagerEviction",
               f"pod/{pod(w, svc, a)}", "Marking for deletion Pod aero-app/" + pod(w, svc, a))
    t = a + timedelta(minutes=6)
    while t < b:
        svc = w.pick(["booking", "checkin", "search", "payments", "inventory"])
        k8s_ev(
            w, t, "Warning", "FailedScheduling", f"pod/{svc}-{w.hexid(9)}-{w.hexid(5)}",
            "0/12 nodes are available: 4 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, "
            "8 Insufficient cpu. preemption: 0/12 nodes are available: 4 Preemption is not helpful for "
            "scheduling, 8 No preemption victims found for incoming pod.",
        )
        t += timedelta(seconds=w.ri(30, 90))
    for i, n in enumerate(NODES_B):
        k8s_ev(w, b + timedelta(seconds=i * 3), "Normal", "NodeReady", f"node/{n}",
               f"Node {n} status is now: NodeReady", ns="default")
    k8s_ev(w, b + timedelta(seconds=15), "Normal", "ZoneStateChanged", "node-lifecycle-controller",
           "Controller detected that zone europe-west3-b is now in state Normal.", ns="kube-system")
    # the data plane
    w.emit(a + timedelta(seconds=4), "redis", "WARN",
           redisline(a + timedelta(seconds=4), "X", "#", "+sdown master aero-session 10.42.7.61 6379"),
           instance="redis-session-sentinel", pod="redis-session-sentinel-0")
    w.emit(a + timedelta(seconds=6), "redis", "WARN",
           redisline(
               a + timedelta(seconds=6), "X", "#", "+odown master aero-session 10.42.7.61 6379 #quorum 2/2"
           ),
           instance="redis-session-sentinel", pod="redis-session-sentinel-0")
    w.emit(
        a + timedelta(seconds=12), "redis", "INFO",
        redisline(
            a + timedelta(seconds=12), "X", "#",
            "+switch-master aero-session 10.42.7.61 6379 10.42.4.61 6379"
        ),
        instance="redis-session-sentinel", pod="redis-session-sentinel-0",
    )
    kf(w, a + timedelta(seconds=31), "INFO",
       "[Controller id=1] Newly removed brokers: 2, deleted brokers: , bounced brokers: , all live "
       "brokers: 1,3", "kafka.controller.KafkaController")
    es(w, a + timedelta(seconds=33), "INFO", "o.e.c.s.MasterService", "es-master-0",
       "node-left[{es-data-3}{b8Qe1ZtRR0u6Hk2m3XgYcA}{10.42.7.80}{10.42.7.80:9300}{d} reason: "
       "disconnected], term: 31, version: 90117, delta: removed {{es-data-3}}")
    es(w, a + timedelta(seconds=34), "WARN", "o.e.c.r.a.AllocationService", "es-master-0",
       "Cluster health status changed from [GREEN] to [YELLOW] (reason: [{es-data-3} reason: "
       "disconnected]).")
    kf(w, b + timedelta(seconds=50), "INFO", "[KafkaServer id=2] started", "kafka.server.KafkaServer", 2)
    es(w, b + timedelta(seconds=70), "INFO", "o.e.c.s.MasterService", "es-master-0",
       "node-join[{es-data-3}{b8Qe1ZtRR0u6Hk2m3XgYcA}{10.42.7.80}{10.42.7.80:9300}{d} join existing "
       "leader], term: 31, version: 90144")
    t = a + timedelta(seconds=2)
    while t < b:
        x = w.r()
        ip = w.pick(sorted(ZONE_B_IPS))
        if x < 0.2:
            w.emit(t, "edge", "WARN",
                   envoy_app(t, "warning", "hc", "source/common/upstream/health_checker_impl.cc:389",
                             f"health check failed for host {ip}:8080 (timeout), ejecting"),
                   pod="edge-5c7f9-h2kqd", stream="envoy")
        elif x < 0.4:
            bk(w, t, "ERROR", "inventory.InventoryGrpcClient",
               "UNAVAILABLE: io exception calling inventory.aero-app.svc.cluster.local:9090 (Connection "
               "timed out: /10.42.6.21:9090)")
        elif x < 0.55:
            ck(w, t, "ERROR", "d.a.checkin.finalize.FinalizeService",
               f"Check-in finalisation failed for PNR {w.pnr()}: Timeout expired after 5000ms while "
               "awaiting InitProducerId")
        elif x < 0.7:
            se(w, t, "ERROR", "search.api.flights",
               "flight search failed: ConnectionError(<urllib3.connection.HTTPConnection object>: Failed "
               "to establish a new connection: [Errno 113] No route to host) caused by: "
               "NewConnectionError(10.42.7.80:9200)")
        elif x < 0.8:
            pay(w, t, 50, "authorize failed: upstream timeout",
                err={"type": "TimeoutError", "message": "timeout of 10000ms exceeded"},
                reqId=f"req-{w.hexid(10)}")
        elif x < 0.9:
            inv(w, t, "error", "gds call failed", err="context deadline exceeded",
                target="gds-adapter.aero-app.svc.cluster.local:8081")
        else:
            nt(w, t, "error", "consumer/group.go:131", "kafka fetch failed",
               error="dial tcp 10.42.7.90:9092: i/o timeout", group="notify-push")
        t += timedelta(seconds=w.ri(2, 9))


def inc_wrap(w: World) -> None:
    a, b = WRAP
    t = a + timedelta(minutes=3)
    while t < b:
        pg(w, t, "pg-dcs", 61, "", "LOG",
           f"checkpoints are occurring too frequently ({w.ri(18, 29)} seconds apart)")
        pg(w, t, "pg-dcs", 61, "", "HINT",
           'Consider increasing the configuration parameter "max_wal_size".')
        t += timedelta(seconds=w.ri(100, 200))
    pg(w, b, "pg-dcs", 73311, "", "LOG",
       'automatic aggressive vacuum to prevent wraparound of table "dcs.public.boarding_pass": index '
       "scans: 1\n\tpages: 0 removed, 18823104 remain, 18823104 scanned (100.00% of total)\n\ttuples: 412 "
       "removed, 211480232 remain, 0 are dead but not yet removable\n\tI/O timings: read: 2410331.207 ms, "
       "write: 388120.441 ms\n\tavg read rate: 45.301 MB/s, avg write rate: 12.882 MB/s\n\tsystem usage: "
       "CPU: user: 312.41 s, system: 120.07 s, elapsed: 3254.14 s")


def inc_flood(w: World) -> None:
    a, b = FLOOD
    t = HIGH_WM
    while t < a:
        es(w, t, "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-master-0",
           "high disk watermark [90%] exceeded on "
           "[kR2vQ8xBT0m3sYjz1a9LwQ][es-data-1][/usr/share/elasticsearch/data/nodes/0] free: "
           f"{w.ri(24, 38)}.{w.ri(0, 9)}gb[{w.ri(60, 95) / 10}%], shards will be relocated away from this "
           "node; currently relocating away shards totalling [0] bytes; the node is expected to continue "
           "to exceed the high disk watermark when these relocations are complete")
        t += timedelta(seconds=w.ri(60, 130))
    t = a
    first = True
    while t < b:
        es(w, t, "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-master-0",
           "flood stage disk watermark [95%] exceeded on "
           "[kR2vQ8xBT0m3sYjz1a9LwQ][es-data-1][/usr/share/elasticsearch/data/nodes/0] free: "
           f"{w.ri(9, 19)}.{w.ri(0, 9)}gb[{w.ri(23, 48) / 10}%], all indices on this node will be marked "
           "read-only")
        if first:
            es(w, t + timedelta(milliseconds=40), "INFO", "o.e.c.m.MetadataUpdateSettingsService",
               "es-master-0",
               "updating index.blocks.read_only_allow_delete from [null] to [true] on indices "
               "[fares-2026.02, fare-history-2026.02.19, fare-history-2026.02.18]")
            first = False
        t += timedelta(seconds=w.ri(60, 130))
    es(w, at(2, 15, 53, 40), "INFO", "o.e.c.m.MetadataDeleteIndexService", "es-master-0",
       "[fare-history-2026.02.19/Zt3kq1XvS8aY0bWm2QpL6g] deleting index")
    es(w, at(2, 15, 53, 42), "INFO", "o.e.c.m.MetadataDeleteIndexService", "es-master-0",
       "[fare-history-2026.02.18/r7Yc0mNnT1ue4aPz9KjB2w] deleting index")
    es(w, b, "INFO", "o.e.c.r.a.DiskThresholdMonitor", "es-master-0",
       "releasing read-only block on indices [[fares-2026.02/J1s9qXa0Qk2m7VbY3cWd8e], "
       "[fare-history-2026.02.17/Lq2Rt8vXS0eB1nY4mZc7kA]] since they are now allocated to nodes with "
       "sufficient disk space")


# ---------------------------------------------------------------------------------------------
# Metric exports (5-minute, CET wall time) and batch runs
# ---------------------------------------------------------------------------------------------

BASE = {  # req/min at load 1, p95 ms, error %, cpu mcores, mem MiB
    "edge": (4200, 380, 0.6, 900, 310), "booking": (620, 4100, 0.4, 1800, 2900),
    "checkin": (980, 240, 0.5, 1500, 2400), "inventory": (1500, 35, 0.2, 700, 380),
    "search": (2900, 420, 0.3, 2600, 1900), "payments": (240, 3500, 0.7, 400, 520),
    "notify": (700, 900, 6.8, 300, 210), "gds-adapter": (420, 880, 0.9, 600, 1400),
}


# each incident in the service metrics (gds-adapter's expiry and the zone-b partition are
# curves, written in metrics()): worlds_data/aero/spells.txt
SPELLS = engine.spell_table(NAME, at, globals())


def metrics(w: World) -> None:
    svc_rows, store_rows, lag_rows = [], [], []
    t = DAY0
    fares_lag = 0
    while t < END:
        ld = load(t)
        for svc, (rpm, p95, err, cpu, mem) in BASE.items():
            r = rpm * ld * (0.9 + 0.2 * w.r())
            p, e, c = (
                p95 * (0.85 + 0.3 * w.r()), err * (0.6 + 0.8 * w.r()),
                cpu * (0.5 + 0.5 * ld) * (0.9 + 0.2 * w.r()),
            )
            restarts = 0
            row = {"r": r, "p": p, "e": e}
            engine.spells(w.r, t, svc, row, SPELLS)
            r, p, e = row["r"], row["p"], row["e"]
            if svc == "gds-adapter" and inside(t, GDS_CERT):
                frac = min(1.0, (t - GDS_CERT[0]).total_seconds() / 820)
                e, p = 95 * frac + 1, 880 + 19000 * frac
            if inside(t, ZONE_B):  # every service, after its own spells (none overlaps the partition)
                e, p = e + 25 + 15 * w.r(), p * 3
                if svc in ("booking", "checkin", "search", "payments"):
                    restarts = w.ri(0, 2)
            svc_rows.append([wall(t), svc, round(r), round(p), round(e, 2), round(c),
                             round(mem * (0.95 + 0.1 * w.r())), restarts])
        # datastores
        for node in ("pg-res", "pg-dcs", "es-data-1", "es-data-2", "es-data-3"):
            if node == "es-data-3" and inside(t, ZONE_B):
                continue  # the exporter on that node is gone too
            if node.startswith("pg"):
                res = node == "pg-res"
                conns, cmax = (
                    round((150 if res else 110) * (0.6 + 0.4 * ld) * (0.9 + 0.2 * w.r())),
                    400 if res else 300,
                )
                cpu = (32 if res else 25) * (0.6 + 0.4 * ld) * (0.9 + 0.2 * w.r())
                iops, imax = round((3800 if res else 2600) * (0.5 + 0.5 * ld) * (0.9 + 0.2 * w.r())), 6000
                disk = (82.1 + 0.5 * w.r()) if res else (61.0 + 0.3 * w.r())
                locks = w.ri(0, 2)
                if res and CDC_DEAD <= t < WAL_FULL[0]:
                    disk = (
                        82.4
                        + 17.6 * (t - CDC_DEAD).total_seconds() / (WAL_FULL[0] - CDC_DEAD).total_seconds()
                    )
                if res and inside(t, (WAL_FULL[0], at(1, 7, 19))):
                    disk, conns, iops, cpu = 100.0, 0, 40, 3.0
                if res and inside(t, (at(1, 7, 19), at(1, 7, 25))):
                    disk = 66.9
                if res and at(1, 7, 25) <= t:
                    disk = 54.8 + 0.4 * w.r()
                if res and inside(t, V214):
                    conns, locks, cpu = 400, w.ri(120, 190), cpu * 1.3
                if not res and inside(t, WRAP):
                    iops, cpu, conns = imax, 58 + 8 * w.r(), min(cmax, conns * 2)
                row = [
                    wall(t), node, "postgres", conns, cmax, round(cpu, 1), iops, imax, round(disk, 1), "",
                    locks,
                ]
            else:
                heap = 52 + 20 * w.r()
                cpu = 30 * (0.6 + 0.4 * ld) * (0.9 + 0.2 * w.r())
                disk = {"es-data-1": 86.3 + 0.8 * w.r(), "es-data-2": 71 + w.r(), "es-data-3": 69 + w.r()}[
                    node
                ]
                if node == "es-data-2" and inside(t, ES_HEAP):
                    heap, cpu = 96.5 + 3 * w.r(), 92 + 6 * w.r()
                if node == "es-data-1" and at(2, 12) <= t < FLOOD[1]:
                    disk = (
                        87.2
                        + 8.1
                        * min(1.0, (t - at(2, 12)).total_seconds() / (FLOOD[0] - at(2, 12)).total_seconds())
                        + 0.3 * w.r()
                    )
                if node == "es-data-1" and t >= FLOOD[1]:
                    disk = 78.4 + 0.3 * w.r()
                row = [wall(t), node, "elasticsearch", w.ri(180, 260), "", round(cpu, 1), w.ri(600, 2200),
                       12000, round(disk, 1), round(heap, 1), 0]
            store_rows.append(row)
        # consumer lag
        push = w.ri(0, 60) if not inside(t, ZONE_B) else w.ri(2000, 9000)
        mail = w.ri(0, 40)
        fares_lag = (
            fares_lag + w.ri(9000, 14000)
            if inside(t, FLOOD)
            else (max(0, fares_lag - 60000) if fares_lag else w.ri(0, 300))
        )
        cdc = w.ri(0, 500)
        lag_rows.append([wall(t), "notify-push", "checkin.events", 6, push])
        lag_rows.append([wall(t), "notify-mail", "booking.events", 6, mail])
        lag_rows.append(
            [wall(t), "search-fares", "fare.updates", 6, fares_lag if fares_lag else w.ri(0, 300)]
        )
        if not (CDC_DEAD <= t < at(1, 7, 40)):
            lag_rows.append([wall(t), "connect-pnr-cdc", "cdc.reservations.pnr", 3, cdc])
        t += timedelta(minutes=5)
    w.table("svc_metrics",
            ["bucket_start", "service", "req_per_min", "p95_ms", "error_pct", "cpu_millicores", "mem_mib",
             "restarts"],
            svc_rows)
    w.table("store_metrics",
            ["bucket_start", "node", "engine", "conns", "conns_max", "cpu_pct", "iops", "iops_max",
             "disk_used_pct", "heap_used_pct", "lock_waits"],
            store_rows)
    w.table("consumer_lag", engine.columns("CONSUMER_LAG"), lag_rows)


def batch_runs(w: World) -> None:
    rows = []
    n = 7700
    for d in range(3):
        for job, target, hh, mm, dur, items in (
            ("pg-basebackup", "pg-res", 1, 0, 2900, 0), ("pg-basebackup", "pg-dcs", 1, 0, 2100, 0),
            ("pnr-purge", "pg-res", 2, 0, 2450, 16000), ("es-snapshot", "es-search", 3, 0, 1300, 0),
            ("seatmap-warm", "redis-seat", 5, 0, 780, 138000),
            ("fare-insights-refresh", "es-search", 10, 0, 260, 5000),
        ):
            n += 1
            start = at(d, hh, mm)
            result = "COMPLETED"
            if job == "seatmap-warm":
                dur, items = (2472, 412880) if d == 0 else (780, w.ri(136000, 141000))
            if job == "fare-insights-refresh" and d == 0:
                dur, items, result = 3100, 0, "CANCELLED"
            if job == "pnr-purge":
                items = w.ri(15500, 16500)
            rows.append(
                [f"BR-{n}", job, target, wall(start), wall(start + timedelta(seconds=dur + w.ri(0, 60))),
                 result, items]
            )
        for h in range(24):
            n += 1
            start = at(d, h, 5)
            rows.append([f"BR-{n}", "fx-refresh", "redis-session", wall(start),
                         wall(start + timedelta(seconds=w.ri(4, 9))), "COMPLETED", 34])
    rows.sort(key=lambda r: (r[3], r[0]))
    w.table("batch_runs", ["run_id", "job_name", "runs_on", "began", "finished", "result", "items"], rows)


# ---------------------------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------------------------

DOCS = {
    "platform-overview": """# Aero platform: on-call overview

Owner: digital platform team. Times are Central European Time (CET, UTC+01:00, Europe/Berlin) unless
a tool says otherwise: envoy access lines carry UTC start times, deploys (argo-rollouts) are UTC,
config changes carry their offset, metric exports, batch runs and flyway history are CET wall time.

## Flow

- Web, app (AeroApp) and airport kiosks call `api.aero-air.example` / `kiosk.aero-air.example`,
  served by **edge** (envoy). Routes and timeouts come from the `envoy-routes` repo via gitops.
- **search** (python) serves flights and fare quotes from the elasticsearch cluster `es-search`
  (es-master-0, es-data-1..3) and FX rates it reads from redis-session; its updater applies
  `fare.updates` from kafka.
- **booking** (Java) creates orders and PNRs in postgres `pg-res` (database reservations),
  confirms them through **payments** (node, card PSP, database payments on pg-res), syncs PNRs to
  the GDS through **gds-adapter** (EDIFACT over mutual TLS) and publishes `booking.events`.
- **checkin** (Java, postgres `pg-dcs`) holds seats through **inventory** (Go; seat holds and
  seat maps in redis-seat), publishes `checkin.events` (acks=all, min.insync.replicas=2) and
  issues boarding passes. **notify** (Go) sends push, SMS and e-mail from those topics.
- The debezium connector **pnr-cdc** (kafka connect) streams pg-res changes to
  `cdc.reservations.pnr` through the logical replication slot `pnr_cdc`.
- GKE cluster in europe-west3 (zones a, b, c). `kubernetes` log lines are cluster events.

## Where to look

- `dependencies` for who calls what and where; `svc_metrics`, `store_metrics`, `consumer_lag` for
  numbers; `deploys`, `config_changes`, `schema_migrations`, `batch_runs` for changes and jobs.
""",
    "known-noise": """# Known noise

These appear every day and do not by themselves mean passengers are affected.

- notify: `apns push rejected` with `BadDeviceToken`, `fcm send failed` `UNREGISTERED`, smtp `451`
  deferrals. notify's error_pct sits around 5-9% all the time.
- payments: `PSP timeout after 8000ms, retrying (attempt 1/3)` followed by success on retry, in
  bursts of a few minutes when the PSP is slow; `authorization declined by issuer` for about 4%
  of authorisations; abandoned 3DS challenges.
- booking: `Fare re-validation changed price` (GDS fares move); loyalty accrual 503s that succeed
  on retry; the nightly PNR purge (02:00) skipping PNRs with open ticket coupons.
- checkin: `APIS data incomplete`, wallet pass pushes failing with `410 Gone`.
- inventory: `hold expired before confirm`; `schedule change rejected ... duplicate message id`.
- gds-adapter: sessions expired on the GDS side and signed in again; an occasional transaction
  timeout retried on a new session.
- postgres: `duplicate key value violates unique constraint "payment_idem_key"` (payments'
  idempotent retries); `could not receive data from client` from the BI tool (metabase).
- elasticsearch: `low disk watermark [85%] exceeded on ... es-data-1` (known, capacity ticket
  open); search slowlog entries over 1 s.
- edge: `StreamAggregatedResources gRPC config stream ... closed` every 30 min (xDS recycling),
  response flag `DC` (client went away); an occasional single health check timeout.
- kubernetes: occasional readiness probe timeouts.
""",
    "gds-sessions": """# gds-adapter: session pool exhausted / GDS timeouts

Owner: distribution team.

Symptoms: `No idle GDS session`, `Session pool exhausted`, `Timed out waiting for a GDS session`,
booking's PNR sync and checkin's PNR retrieve failing with 503 from gds-adapter.

- Usually the GDS side is slow (their status page: status.gds-partner.example) and sessions are
  held longer: check `EDIFACT ... ok in N ms` latencies.
- Short term: raise `session.pool.max` (config change, up to 80 allowed by the contract).
- If the GDS is slow for more than 15 minutes, open a P2 with the GDS helpdesk (+49 69 555 0100).
""",
    "redis-seat": """# redis-seat: seat holds and seat maps

Owner: check-in team. redis-seat (redis-seat-master.aero-data.svc:6379) keeps seat holds (TTL =
`hold.ttl_s`) and warmed seat maps (written by the 05:00 `seatmap-warm` job for the schedule
horizon). It runs with `maxmemory 4gb` and `maxmemory-policy noeviction`: holds must not be
evicted, so when memory is full every write is refused with
`OOM command not allowed when used memory > 'maxmemory'` (inventory logs it; redis itself does
not) and seat selection goes read-only.

- Check what the warm job loaded (`batch_runs`, inventory `seatmap warm finished keys=`).
- Fix: raise maxmemory (redis-operator, `CONFIG SET`) or drop warmed seat maps beyond 60 days.
""",
    "postgres-wal": """# postgres: WAL volume filling / replication slots

Owner: DBA team. pg-res keeps data and WAL on one volume. A logical replication slot (pnr_cdc,
debezium) keeps WAL until its consumer confirms it; if the connector stops, WAL piles up at the
write rate (roughly 0.5-1 GB per minute in the morning bank) until the disk is full and postgres
PANICs (`No space left on device`) and restarts in a loop.

- Check `store_metrics.disk_used_pct` for pg-res and the connector (kafka connect logs, task
  state). An inactive slot can be dropped with `pg_drop_replication_slot` once the connector
  owner agrees; the connector then re-snapshots.
- Since INC-3321 `max_slot_wal_keep_size` caps what a slot may hold.
""",
    "elasticsearch-disk": """# elasticsearch: disk watermarks

Owner: search team. Watermarks on es-search: low 85% (no new replicas on the node), high 90%
(shards move away), flood stage 95%: elasticsearch puts `index.blocks.read_only_allow_delete` on
every index with a shard on that node; writes fail with `cluster_block_exception`
(`TOO_MANY_REQUESTS/12`), searches still work on stale data.

- Free space (delete old `fare-history-*` indices, check ILM rollover) — the block is released
  automatically once the node is below the high watermark.
""",
}


# ---------------------------------------------------------------------------------------------
# Truth
# ---------------------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, iso, globals())


# ---------------------------------------------------------------------------------------------


main = engine.main(NAME, world, __name__, DOCS)
