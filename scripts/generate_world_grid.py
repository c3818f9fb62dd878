"""Write the held-out "grid" world: a state power distribution utility's smart-meter platform.

Three days (2026-01-20..22, India Standard Time, UTC+05:30) of logs from 14 components, the ops
tables an on-call engineer there has (dependencies, deploys, config changes, schema migrations,
job runs, 5-minute metric exports) and the runbooks, with 14 incidents and traps described in
truth.json. Deterministic: stdlib only, one seeded random generator, run it again and every
byte is the same.

    python scripts/generate_world_grid.py [OUT_DIR]   # writes OUT_DIR/grid/ (default tests/data/worlds)

The platform: about 120k 4G/NB-IoT smart meters and 800 RF-mesh data concentrators (DCUs)
connect over MQTT/TLS to a two-node emqx cluster; ingest decodes their DLMS load profiles
into kafka, mdm validates and stores them (postgres pg-mdm, read replica pg-mdm-ro), billing
and prepaid run on pg-billing, head-end sends relay commands (disconnect/reconnect) it takes
from rabbitmq, outage turns last-gasp and missing heartbeats into outage tickets, notifier
sends SMS through an aggregator, api-gateway (nginx) fronts the consumer app.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from datetime import datetime, timedelta, timezone
from functools import partialmethod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import zulu

NAME, SEED = "grid", 20260120
MON = [*engine.MONTHS]
IST = timezone(timedelta(hours=5, minutes=30))
LOCAL = engine.Clock(IST, datetime(2026, 1, 20, tzinfo=IST))
DAY0, END = LOCAL.days(3)
at, iso, wall = LOCAL.at, LOCAL.iso, LOCAL.wall


def inside(t: datetime, a: datetime, b: datetime) -> bool:
    return a <= t < b


DAY_CURVE = ((0, 0.25), (5, 0.25), (7, 1.05), (7, 1.3), (10.5, 1.3), (10.5, 1.0), (17.5, 1.0), (17.5, 1.5),
             (22, 1.5))


def load(t: datetime) -> float:
    """Diurnal traffic shape: morning and evening peaks, quiet nights."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.6)


# ---------------------------------------------------------------------------------------------
# Incident timeline (all IST). Background generators consult these to break the right things.
# ---------------------------------------------------------------------------------------------

EMFILE = (at(0, 9, 4, 17), at(0, 9, 52, 10))  # GRID-01 emqx-2 out of file descriptors
STORM = at(0, 8, 58, 40)  # cellular blip in PNE-E / NSK
RMQ_SLOW = at(0, 10, 40)  # GRID-02 SMS vendor throttling, notify.sms grows
RMQ_ALARM = (at(0, 11, 21, 6), at(0, 12, 8, 30))  # memory alarm, publishers blocked
SCALER = (at(0, 14, 14, 5), at(0, 15, 10, 40))  # GRID-03 ingest 2.14.0 wrong scaler
OOM = (at(0, 18, 58, 40), at(0, 19, 48, 30))  # GRID-04 prepaid OOMKilled
LEAK = (at(1, 6, 12, 31), at(1, 7, 22, 40))  # GRID-06 billing 3.9.1 leaks connections
TOO_MANY = (at(1, 6, 47, 2), at(1, 7, 23, 30))  # pg-billing at max_connections
LIMIT = (at(1, 10, 1, 40), at(1, 10, 41, 20))  # GRID-07 nginx limit_req 5r/s
VACUUM = (at(1, 12, 52, 10), at(1, 13, 41, 30))  # GRID-08 VACUUM FULL reading_daily
TAKEOVER = (at(1, 16, 53, 20), at(1, 17, 44, 10))  # GRID-09 duplicate MQTT client id
DNS = (at(1, 20, 6, 30), at(1, 20, 38, 15))  # GRID-10 coredns gone with its node
EXPORT = (at(2, 10, 52, 0), at(2, 11, 49, 20))  # GRID-12 regulatory export on pg-mdm-ro
DLR = (at(2, 14, 6, 0), at(2, 14, 52, 0))  # GRID-13 operator OP-3 expiring SMS
PANIC = (at(2, 19, 3, 22), at(2, 19, 52, 40))  # GRID-14 ingest crash loop

ZONES = ["PNE-E", "PNE-W", "NSK", "MUM-N", "MUM-S", "NGP"]
METERS_PER_ZONE = {"PNE-E": 24100, "PNE-W": 21800, "NSK": 17900, "MUM-N": 26400, "MUM-S": 19800,
                   "NGP": 12300}
DCUS_PER_ZONE = {"PNE-E": 160, "PNE-W": 140, "NSK": 120, "MUM-N": 170, "MUM-S": 130, "NGP": 98}


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class World(engine.Dataset):
    always_attrs = True

    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.pid = 40000

    # helpers -------------------------------------------------------------------------------

    hexid = engine.Dataset.plain_hex

    def meter(self, zone: str | None = None) -> str:
        zone = zone or self.pick(ZONES)
        return f"MTR-{zone}-{self.ri(1000000, 1999999):07d}"

    def dcu(self, zone: str | None = None) -> str:
        zone = zone or self.pick(ZONES)
        return f"DCU-{zone}-{self.ri(1, DCUS_PER_ZONE[zone]):04d}"

    account = partialmethod(engine.Dataset.numbered, "CA-", 1000000, 4999999)

    newpid = partialmethod(engine.Dataset.counter, "pid", 3, 90)


def world() -> tuple[World, dict, dict]:
    w = World()
    background(w)
    for d in range(3):
        billing_batch(w, d)
    for step in (clean_deploys, inc_emfile, inc_rabbit, inc_scaler, inc_oom, inc_leak, inc_limit,
                 inc_vacuum, inc_takeover, inc_dns, inc_export, inc_dlr, inc_panic, change_tables, metrics):
        step(w)
    return w, engine.manifest(
        NAME, "Asia/Kolkata", "A state power distribution utility's smart-meter (AMI) platform",
        "2026-01-20..22 India Standard Time", 14, 14, "access and read"), truth()

    # output --------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# Changes: deploys (UTC, from argocd), config changes (IST with offset), migrations (DB local)
# ---------------------------------------------------------------------------------------------

DEPLOYS = engine.table(at, "ssstisss", """
# id, service, version, start, duration_s, status, by, summary
DEP-7301 | mdm | 4.7.3 | -1 16:20 | 240 | SUCCEEDED | argocd | VEE: spike check per tariff category
DEP-7302 | head-end | 6.1.4 | -1 18:05 | 310 | SUCCEEDED | argocd | DLMS HLS key rotation support
DEP-7303 | outage | 2.8.0 | 0 08:15 | 150 | SUCCEEDED | argocd | crew app: feeder map tiles
DEP-7304 | prepaid | 5.3.2 | 0 13:40 | 260 | SUCCEEDED | argocd | recharge receipts in Marathi
DEP-7305 | ingest | 2.14.0 | 0 14:12 | 120 | SUCCEEDED | argocd | decode scaler_unit from the meter's
    capture objects; drop the static register map
DEP-7306 | ingest | 2.13.6 | 0 15:08 | 110 | SUCCEEDED | r.deshpande | rollback of 2.14.0
DEP-7307 | notifier | 1.22.0 | 0 18:20 | 90 | SUCCEEDED | argocd | DLT template ids per template
DEP-7308 | billing | 3.9.1 | 1 06:08 | 140 | SUCCEEDED | argocd | e-bill PDF: embed last meter photo
DEP-7309 | billing | 3.9.0 | 1 07:20 | 130 | SUCCEEDED | s.kulkarni | rollback of 3.9.1
DEP-7310 | outage | 2.8.1 | 1 09:50 | 150 | SUCCEEDED | argocd | ticket export CSV
DEP-7311 | mdm | 4.8.0 | 1 12:40 | 270 | SUCCEEDED | argocd | daily aggregates: source column
    (actual/estimated); estimation rules screen
DEP-7312 | head-end | 6.2.0 | 1 16:52 | 95 | SUCCEEDED | argocd | canary (1 pod): DLMS push-mode listener
DEP-7313 | head-end | 6.2.0 | 1 17:44 | 20 | ABORTED | a.iyer | canary aborted, scaled to 0
DEP-7314 | notifier | 1.22.1 | 1 19:40 | 90 | SUCCEEDED | argocd | retry DLR webhooks on 5xx
DEP-7315 | prepaid | 5.4.0 | 2 09:36 | 280 | SUCCEEDED | argocd | emergency credit for BPL accounts
DEP-7316 | ingest | 2.14.1 | 2 13:55 | 120 | SUCCEEDED | argocd | capture-object scaler with register-map
    fallback (2.14.0 fixed)
DEP-7317 | outage | 2.9.0 | 2 18:40 | 160 | SUCCEEDED | argocd | ETR estimates from crew GPS
""")

BASE_VERSIONS = {
    "api-gateway": "1.25.4", "prepaid": "5.3.1", "head-end": "6.1.3", "emqx": "5.3.2", "ingest": "2.13.6",
    "kafka": "3.6.1", "mdm": "4.7.2", "postgres": "15.5", "redis": "7.2.4", "rabbitmq": "3.12.10",
    "billing": "3.9.0", "outage": "2.7.4", "notifier": "1.21.3", "kubernetes": "1.28.5",
}


def version(service: str, t: datetime) -> str:
    v = BASE_VERSIONS[service]
    for _id, svc, ver, start, dur, status, _by, summary in DEPLOYS:
        if svc == service and start + timedelta(seconds=dur) <= t and status == "SUCCEEDED":
            if "canary" not in summary:
                v = ver
    return v


def pods(service: str, t: datetime, n: int) -> list[str]:
    h = hashlib.sha1(f"{service}:{version(service, t)}".encode()).hexdigest()
    rs = h[:9]
    if not any(c.isdigit() for c in rs):
        rs = "7" + rs[1:]
    out = []
    for i in range(n):
        k = hashlib.sha1(f"{h}:{i}".encode()).hexdigest()[:5]
        if not any(c.isdigit() for c in k):
            k = k[:4] + "4"
        out.append(f"{service}-{rs}-{k}")
    return out


CONFIG = [
    # id, service, key, old, new, by, at, ticket
    ("CHG-8801", "head-end", "dlms.read.retries", "2", "3", "m.patil", at(0, 8, 45), "AMI-2207"),
    (
        "CHG-8802", "prepaid", "resources.limits.memory", "1536Mi", "1024Mi", "finops-bot", at(0, 10, 2),
        "FINOPS-311",
    ),
    ("CHG-8816", "emqx", "emqx-2.ulimit.nofile", "65536", "262144", "n.rao", at(0, 9, 50), "INC-4471"),
    ("CHG-8803", "mdm", "vee.estimation.max_gap_intervals", "4", "6", "p.joshi", at(0, 14, 5), "MDM-918"),
    (
        "CHG-8804", "api-gateway", "location./api/v1/bills.proxy_read_timeout", "30s", "60s", "k.menon",
        at(0, 17, 10), "NET-340",
    ),
    (
        "CHG-8805", "prepaid", "resources.limits.memory", "1024Mi", "1536Mi", "n.rao", at(0, 19, 46),
        "INC-4475",
    ),
    ("CHG-8806", "prepaid", "recharge.upi.callback_timeout_s", "60", "90", "v.shah", at(1, 6, 35),
     "PAY-552"),
    (
        "CHG-8807", "api-gateway", "limit_req_zone.portal_api.rate", "50r/s", "5r/s", "k.menon",
        at(1, 10, 1), "SEC-77",
    ),
    (
        "CHG-8808", "api-gateway", "limit_req_zone.portal_api.rate", "5r/s", "50r/s", "k.menon",
        at(1, 10, 40), "INC-4482",
    ),
    (
        "CHG-8809", "mdm", "kafka.consumer.max_poll_records", "500", "1000", "p.joshi", at(1, 12, 45),
        "MDM-925",
    ),
    ("CHG-8810", "emqx", "mqtt.max_inflight", "32", "64", "n.rao", at(1, 16, 30), "AMI-2219"),
    ("CHG-8811", "billing", "ebill.batch_size", "200", "500", "s.kulkarni", at(1, 19, 55), "BIL-1204"),
    (
        "CHG-8812", "kubernetes", "kube-system/coredns.replicas", "2", "3 (+ podAntiAffinity by node)",
        "platform-oncall", at(1, 20, 52), "INC-4490",
    ),
    ("CHG-8813", "billing", "tariff.cache.ttl_s", "600", "1800", "s.kulkarni", at(2, 10, 58), "BIL-1207"),
    (
        "CHG-8814", "notifier", "templates.RECHARGE_OK_HI.text", "रिचार्ज सफल: ₹{amount}, शेष ₹{balance}",
        "रिचार्ज सफल: ₹{amount}। शेष राशि ₹{balance}", "v.shah", at(2, 14, 2), "CX-388",
    ),
    ("CHG-8815", "mdm", "vee.spike_limit_kwh", "250", "300", "p.joshi", at(2, 18, 55), "MDM-931"),
]

MIGRATIONS = engine.table(at, "issssti", """
# rank, version, description, script, by, installed_on (DB local time), ms, success
84 | 84 | reading interval brin index | V84__reading_interval_brin.sql | mdm_migrator | -9 11:02:41 | 4120
85 | 85 | estimation rule table | V85__estimation_rule.sql | mdm_migrator | -6 15:40:12 | 211
86 | 86 | vee flags jsonb | V86__vee_flags_jsonb.sql | mdm_migrator | -1 16:21:05 | 388
87 | 87 | reading daily source column | V87__reading_daily_source.sql | mdm_migrator | 1 12:41:18 | 164
39 | 39 | upi refund ledger | V39__upi_refund.sql | billing_migrator | -14 10:05:00 | 302
40 | 40 | emergency credit flag | V40__emergency_credit.sql | billing_migrator | -3 09:12:30 | 97
41 | 41 | bill meter photo url | V41__bill_meter_photo_url.sql | billing_migrator | 1 06:09:02 | 141
42 | 42 | bpl emergency credit limit | V42__bpl_emergency_credit.sql | billing_migrator | 2 09:37:11 | 122
""")


def change_tables(w: World) -> None:
    rows = []
    for did, svc, ver, start, dur, status, by, summary in DEPLOYS:
        rows.append([did, svc, ver, f"acr-gridco.azurecr.io/{svc}:{ver}", zulu(start),
                     zulu(start + timedelta(seconds=dur)), status, by, summary])
    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"), rows)
    crow = sorted(CONFIG, key=lambda c: c[6])
    w.table("config_changes", engine.columns("CONFIG_AUDIT"),
            [[c[0], c[1], c[2], c[3], c[4], c[5], iso(c[6]), c[7]] for c in crow])
    w.table("schema_migrations", engine.columns("FLYWAY"),
            [[m[0], m[1], m[2], m[3], m[4], wall(m[5]), m[6], 1] for m in MIGRATIONS])
    deps = engine.rows("""
    api-gateway | prepaid | http | prepaid.prepaid.svc.cluster.local:8080
    api-gateway | mdm | http | mdm.mdm.svc.cluster.local:8080
    api-gateway | billing | http | billing.billing.svc.cluster.local:8000
    api-gateway | outage | http | outage.oms.svc.cluster.local:3000
    prepaid | postgres | postgresql | pg-billing.db.svc.cluster.local:5432
    prepaid | rabbitmq | amqp | rabbitmq.msg.svc.cluster.local:5672 (exchange hes.commands, notify.sms)
    prepaid | redis | redis | redis.cache.svc.cluster.local:6379
    prepaid | mdm | http | mdm.mdm.svc.cluster.local:8080
    prepaid | upi-aggregator | https | api.upi-psp.example:443
    billing | postgres | postgresql | pg-billing.db.svc.cluster.local:5432
    billing | mdm | http | mdm.mdm.svc.cluster.local:8080
    billing | rabbitmq | amqp | rabbitmq.msg.svc.cluster.local:5672 (notify.sms)
    billing | blob-storage | https | gridcometerphotos.blob.core.windows.net:443
    head-end | emqx | mqtt | emqx.mqtt.svc.cluster.local:1883 (dcu/+/status, cmd/#)
    head-end | rabbitmq | amqp | rabbitmq.msg.svc.cluster.local:5672 (queue hes.commands)
    head-end | redis | redis | redis.cache.svc.cluster.local:6379
    ingest | emqx | mqtt | emqx.mqtt.svc.cluster.local:1883 ($share/ingest/dcu/+/reads)
    ingest | kafka | kafka | kafka-headless.streaming.svc.cluster.local:9092 (meter.readings, meter.events)
    mdm | kafka | kafka | kafka-headless.streaming.svc.cluster.local:9092 (group mdm-vee)
    mdm | postgres | postgresql | pg-mdm.db.svc.cluster.local:5432
    mdm | postgres | postgresql | pg-mdm-ro.db.svc.cluster.local:5432 (usage API reads)
    outage | kafka | kafka | kafka-headless.streaming.svc.cluster.local:9092 (group oms-events)
    outage | rabbitmq | amqp | rabbitmq.msg.svc.cluster.local:5672 (notify.sms)
    notifier | rabbitmq | amqp | rabbitmq.msg.svc.cluster.local:5672 (queue notify.sms)
    notifier | sms-aggregator | https | api.smsgateway.example:443
    meters/DCUs | emqx | mqtts | emqx-lb.ami.gridco.example:8883 (emqx-1, emqx-2)
    reporting | postgres | postgresql | pg-mdm-ro.db.svc.cluster.local:5432 (cronjob regulatory-export)
    all pods | kubernetes | dns | kube-dns.kube-system.svc.cluster.local 10.0.0.10:53 (coredns)
""")
    w.table("dependencies", ["source", "target", "protocol", "endpoint"], [list(d) for d in deps])
    jobs = []
    n = 5501
    for d in range(3):
        jobs.append(
            [f"JR-{n}", "pg-backup", "pg-mdm", wall(at(d, 0, 30)), wall(at(d, 1, 12, 40 + d)), "COMPLETED",
             0]
        )
        n += 1
        jobs.append([f"JR-{n}", "bill-run", "pg-billing", wall(at(d, 1, 30)), wall(at(d, 3, 4 + d * 3, 11)),
                     "COMPLETED", 41820 + d * 3117])
        n += 1
        end = at(d, 7, 19, 55) if d == 1 else at(d, 6, 41 + d, 20)
        jobs.append([f"JR-{n}", "ebill-dispatch", "pg-billing", wall(at(d, 6, 0)), wall(end),
                     "FAILED" if d == 1 else "COMPLETED", [38122, 21407, 40218][d]])
        n += 1
        if d == 2:
            jobs.append([f"JR-{n}", "regulatory-export (MERC SoP Q3 interval data)", "pg-mdm-ro",
                         wall(EXPORT[0]), wall(EXPORT[1]), "CANCELLED", 0])
            n += 1
    w.table("job_runs", ["run_id", "job", "target", "started_at", "ended_at", "status", "rows"], jobs)


# ---------------------------------------------------------------------------------------------
# Log formats
# ---------------------------------------------------------------------------------------------


def spring(t: datetime, level: str, thread: str, logger: str, msg: str, app: str = "") -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
    trace = f" [{app},,]" if app else ""
    return f"{ts} {level:>5}{trace} 1 --- [{thread:>15}] {logger:<40} : {msg}"


def log4j(t: datetime, level: str, thread: str, logger: str, msg: str) -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
    return f"{ts} {level:<5} [{thread}] {logger} - {msg}"


def erl(t: datetime, level: str, msg: str) -> str:
    ts = t.astimezone(IST).isoformat(timespec="microseconds")
    return f"{ts} [{level}] {msg}"


def pgline(t: datetime, pid: int, who: str, sev: str, msg: str) -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} IST"
    who = f" {who}" if who else ""
    return f"{ts} [{pid}]{who} {sev}:  {msg}"


def kafkaline(t: datetime, level: str, msg: str) -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
    return f"[{ts}] {level} {msg}"


def pylog(t: datetime, level: str, logger: str, msg: str) -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
    return f"{ts} {level} [{logger}] {msg}"


def pyjson(t: datetime, level: str, logger: str, msg: str, **extra) -> str:
    ts = t.astimezone(IST).strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
    d = {"asctime": ts, "levelname": level, "name": logger, "message": msg}
    d.update(extra)
    return json.dumps(d, ensure_ascii=False)


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def pino(t: datetime, level: str, host: str, msg: str, **extra) -> str:
    d = {"level": PINO[level], "time": int(t.timestamp() * 1000), "pid": 1, "hostname": host, "name": "oms"}
    d["msg"] = msg
    d.update(extra)
    return json.dumps(d, ensure_ascii=False)


def logfmt(t: datetime, level: str, msg: str, **kv) -> str:
    parts = [f"time={t.astimezone(IST).isoformat(timespec='milliseconds')}", f"level={level}",
             f'msg="{msg}"']
    for k, v in kv.items():
        s = str(v)
        parts.append(f'{k}="{s}"' if (" " in s or not s) else f"{k}={s}")
    return " ".join(parts)


def k8s(kind: str, reason: str, obj: str, msg: str) -> str:
    return f"{kind:<8} {reason:<18} {obj}  {msg}"


def redisline(t: datetime, role: str, mark: str, msg: str, pid: int = 1) -> str:
    lt = t.astimezone(IST)
    ts = f"{lt.day:02d} {MON[lt.month - 1]} {lt.year} {lt:%H:%M:%S}.{t.microsecond // 1000:03d}"
    return f"{pid}:{role} {ts} {mark} {msg}"


# ---------------------------------------------------------------------------------------------
# Background: every component's ordinary day, bent by the incidents above
# ---------------------------------------------------------------------------------------------

ROUTES = engine.table(at, "isssii", """
# weight, method, path template, upstream service, port, base latency ms
34 | GET | /api/v1/usage/daily?meter={m}&days=30 | mdm | 8080 | 45
10 | GET | /api/v1/usage/interval?meter={m}&date={d} | mdm | 8080 | 70
20 | GET | /api/v1/prepaid/balance?account={a} | prepaid | 8080 | 25
8 | POST | /api/v1/prepaid/recharge | prepaid | 8080 | 180
10 | GET | /api/v1/bills/latest?account={a} | billing | 8000 | 60
3 | GET | /api/v1/bills/{b}/pdf | billing | 8000 | 400
5 | GET | /api/v1/outages?pincode={p} | outage | 3000 | 30
""")
UPSTREAM_IPS = {
    "mdm": ["10.244.6.21", "10.244.6.37", "10.244.3.18"],
    "prepaid": ["10.244.5.33", "10.244.5.41", "10.244.2.27"], "billing": ["10.244.7.21", "10.244.7.29"],
    "outage": ["10.244.8.14", "10.244.8.19"],
}
NAMESPACES = {"mdm": "mdm", "prepaid": "prepaid", "billing": "billing", "outage": "oms"}
LB_IPS = ["10.224.0.4", "10.224.0.5", "10.224.0.6", "10.224.0.7"]
UAS = ["BijliMitra/5.2.1 (Android 13; SM-A146B)", "BijliMitra/5.2.1 (Android 12; RMX3511)",
       "BijliMitra/5.1.9 (iOS 17.2; iPhone14,7)",
       "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36",
       "okhttp/4.12.0"]


def nginx_access(
    w: World, t: datetime, method: str, path: str, status: int, size: int, rt: float, up: str
) -> str:
    lt = t.astimezone(IST)
    stamp = f"{lt.day:02d}/{MON[lt.month - 1]}/{lt.year}:{lt:%H:%M:%S} +0530"
    xff = f"{w.pick(['49.36', '106.210', '152.58', '117.99', '223.185'])}.{w.ri(1, 254)}.{w.ri(1, 254)}"
    urt = "-" if up == "-" else f"{max(rt - 0.001, 0):.3f}"
    return (
        f'{w.pick(LB_IPS)} - - [{stamp}] "{method} {path} HTTP/1.1" {status} {size} "-" "{w.pick(UAS)}" '
        f'xff="{xff}" rt={rt:.3f} urt={urt} ups={up}'
    )


def nginx_err(t: datetime, level: str, conn: int, msg: str) -> str:
    lt = t.astimezone(IST)
    return f"{lt:%Y/%m/%d %H:%M:%S} [{level}] 31#31: *{conn} {msg}"


def gateway(w: World, t: datetime) -> None:
    pod = w.pick(pods("api-gateway", t, 3))
    wgt = [r[0] for r in ROUTES]
    route = w.rng.choices(ROUTES, weights=wgt)[0]
    _wt, method, tmpl, svc, port, base = route
    path = tmpl.format(m=w.meter(), a=w.account(), d=t.astimezone(IST).strftime("%Y-%m-%d"),
                       b=f"B{w.ri(10000000, 99999999)}",
                       p=w.pick(["411014", "411001", "422005", "400053", "400012", "440010"]))
    ip = w.pick(UPSTREAM_IPS[svc])
    up = f"{ip}:{port}"
    status, rt = 200, base / 1000 * (0.6 + w.r() * 1.2)
    size = w.ri(300, 4200) if "pdf" not in path else w.ri(80000, 240000)
    conn = w.ri(100000, 999999)
    host = f'server: api.gridco.example, request: "{method} {path.split("?")[0]} HTTP/1.1"'
    level = "INFO"
    x = w.r()
    if x < 0.025 and svc in ("prepaid", "billing"):
        status, size = 401, 61
    elif x < 0.035:
        status, size, up, rt = 499, 0, up, rt * 4
    elif x < 0.040 and svc == "billing":
        status, size = 404, 118
    # incidents
    if inside(t, *OOM) and svc == "prepaid":
        y = w.r()
        if y < 0.45:
            status, size, rt = 502, 157, 0.002
            w.emit(t, "api-gateway", "ERROR",
                   nginx_err(
                       t, "error", conn,
                       f"connect() failed (111: Connection refused) while connecting to upstream, client: "
                       f'{w.pick(LB_IPS)}, {host}, upstream: "http://{up}{path.split("?")[0]}"',
                   ),
                   pod=pod, stream="error")
        elif y < 0.65:
            status, size, rt = 502, 157, 3.2 + w.r() * 4
            w.emit(
                t, "api-gateway", "ERROR",
                nginx_err(
                    t, "error", conn,
                    f"upstream prematurely closed connection while reading response header from upstream, "
                    f'client: {w.pick(LB_IPS)}, {host}, upstream: "http://{up}{path.split("?")[0]}"',
                ),
                pod=pod, stream="error",
            )
    if inside(t, *TOO_MANY) and svc == "prepaid":
        if w.r() < (0.7 if method == "POST" else 0.35):
            status, size, rt = 500, 212, 30.1 + w.r()
    if inside(t, *LIMIT) and w.r() < 0.72:
        status, size, rt, up = 503, 197, 0.0, "-"
        if w.r() < 0.5:
            w.emit(
                t, "api-gateway", "ERROR",
                nginx_err(t, "error", conn,
                          f'limiting requests, excess: {5 + w.r() * 40:.3f} by zone "portal_api", client: '
                          f'{w.pick(LB_IPS)}, {host}, host: "api.gridco.example"'),
                pod=pod, stream="error",
            )
    if inside(t, *DNS) and w.r() < 0.6:
        status, size, rt, up = 502, 157, 30.0, "-"
        if w.r() < 0.5:
            w.emit(t, "api-gateway", "ERROR",
                   nginx_err(
                       t, "error", conn,
                       f"{svc}.{NAMESPACES[svc]}.svc.cluster.local could not be resolved (110: Operation "
                       f"timed out), client: {w.pick(LB_IPS)}, {host}",
                   ),
                   pod=pod, stream="error")
    if inside(t, *EXPORT) and svc == "mdm" and t >= EXPORT[0] + timedelta(minutes=4):
        if w.r() < 0.55:
            status, size, rt = 504, 167, 10.0
            w.emit(t, "api-gateway", "ERROR",
                   nginx_err(
                       t, "error", conn,
                       "upstream timed out (110: Connection timed out) while reading response header from "
                       "upstream, "
                       f'client: {w.pick(LB_IPS)}, {host}, upstream: "http://{up}{path.split("?")[0]}"',
                   ),
                   pod=pod, stream="error")
        else:
            rt = 2.5 + w.r() * 6
    if status >= 500:
        level = "ERROR"
    w.emit(t, "api-gateway", level, nginx_access(w, t, method, path, status, size, rt, up), pod=pod,
           stream="access")


def gateway_noise(w: World, t: datetime) -> None:
    pod = w.pick(pods("api-gateway", t, 3))
    b = f"B{w.ri(10000000, 99999999)}"
    w.emit(
        t, "api-gateway", "WARN",
        nginx_err(
            t, "warn", w.ri(100000, 999999),
            f"an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{w.ri(1, 9)}/"
            f"{w.ri(10, 99)}/00000{w.ri(10000, 99999)} while reading upstream, client: {w.pick(LB_IPS)}, "
            f'server: api.gridco.example, request: "GET /api/v1/bills/{b}/pdf HTTP/1.1", '
            f'upstream: "http://{w.pick(UPSTREAM_IPS["billing"])}:8000/bills/{b}/pdf"',
        ),
        pod=pod, stream="error",
    )


def prepaid_bg(w: World, t: datetime) -> None:
    if inside(t, *OOM) and w.r() < 0.5:
        return  # pods restarting
    pod = w.pick(pods("prepaid", t, 3))
    thread = f"nio-8080-exec-{w.ri(1, 40)}"
    acct = w.account()
    if inside(t, *TOO_MANY):
        y = w.r()
        if y < 0.45:
            w.emit(t, "prepaid", "ERROR",
                   spring(t, "ERROR", thread, "o.h.engine.jdbc.spi.SqlExceptionHelper",
                          "HikariPool-1 - Connection is not available, request timed out after 30000ms."),
                   pod=pod)
        elif y < 0.7:
            w.emit(t, "prepaid", "WARN",
                   spring(t, "WARN", thread, "o.h.engine.jdbc.spi.SqlExceptionHelper",
                          "SQL Error: 0, SQLState: 53300"),
                   pod=pod)
            w.emit(
                t + timedelta(milliseconds=1), "prepaid", "ERROR",
                spring(t + timedelta(milliseconds=1), "ERROR", thread,
                       "o.h.engine.jdbc.spi.SqlExceptionHelper", "FATAL: sorry, too many clients already"),
                pod=pod,
            )
        else:
            w.emit(
                t, "prepaid", "ERROR",
                spring(
                    t, "ERROR", thread, "c.g.prepaid.recharge.RechargeController",
                    f"Recharge failed for order ord_{w.hexid(14)} account={acct}: "
                    "org.springframework.transaction.CannotCreateTransactionException: Could not open JPA "
                    "EntityManager for transaction",
                ),
                pod=pod,
            )
        return
    if inside(t, *DNS) and w.r() < 0.6:
        w.emit(t, "prepaid", "ERROR",
               spring(t, "ERROR", thread, "c.g.prepaid.recharge.RechargeController",
                      f"Recharge failed for order ord_{w.hexid(14)} account={acct}: "
                      "org.postgresql.util.PSQLException: "
                      "The connection attempt failed. Caused by: java.net.UnknownHostException: "
                      "pg-billing.db.svc.cluster.local"),
               pod=pod)
        return
    amount = w.pick([100, 200, 200, 300, 500, 500, 1000, 1500, 2000])
    bal = amount + w.r() * 400
    w.emit(
        t, "prepaid", "INFO",
        spring(t, "INFO", thread, "c.g.prepaid.recharge.RechargeService",
               f"Recharge RCH-{t.astimezone(IST):%Y%m%d}-{w.ri(100000, 999999)} credited: account={acct} "
               f"meter={w.meter()} amount={amount}.00 INR upi_ref={w.ri(400000000000, 699999999999)} "
               f"balance={bal:.2f}"),
        pod=pod,
    )
    if w.r() < 0.22:  # was disconnected for low balance: send reconnect
        m = w.meter()
        t2 = t + timedelta(milliseconds=w.ri(20, 90))
        if inside(t, *RMQ_ALARM):
            t3 = t2 + timedelta(seconds=5)
            w.emit(
                t3, "prepaid", "ERROR",
                spring(
                    t3, "ERROR", thread, "c.g.prepaid.command.RelayCommandPublisher",
                    f"RECONNECT for meter={m} not confirmed: publisher confirm not received within 5000 ms "
                    f"(exchange=hes.commands, routingKey=relay.reconnect); parked in outbox, retry in 60s",
                ),
                pod=pod,
            )
        else:
            w.emit(t2, "prepaid", "INFO",
                   spring(t2, "INFO", thread, "c.g.prepaid.command.RelayCommandPublisher",
                          f"RECONNECT queued meter={m} account={acct} exchange=hes.commands confirm=2ms"),
                   pod=pod)


def prepaid_noise(w: World, t: datetime) -> None:
    pod = w.pick(pods("prepaid", t, 3))
    w.emit(
        t, "prepaid", "WARN",
        spring(t, "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "c.g.prepaid.upi.CallbackController",
               f"UPI callback for order ord_{w.hexid(14)} arrived {w.ri(61, 240)} s after timeout; payment "
               "already reconciled by status poll, ignoring"),
        pod=pod,
    )


def prepaid_jobs(w: World, t: datetime) -> None:
    pod = pods("prepaid", t, 3)[0]
    below = w.ri(3900, 4500)
    w.emit(t, "prepaid", "INFO",
           spring(t, "INFO", "scheduling-1", "c.g.prepaid.jobs.LowBalanceJob",
                  f"low-balance scan done: {below} accounts < 50.00 INR, {w.ri(80, 160)} alerts queued, "
                  f"{w.ri(4, 30)} disconnects scheduled (grace expired)"),
           pod=pod)
    if t.astimezone(IST).minute == 0:
        t2 = t + timedelta(seconds=w.ri(1, 20))
        w.emit(t2, "prepaid", "WARN",
               spring(t2, "WARN", "scheduling-1", "c.g.prepaid.tariff.TariffCache",
                      f"tariff slab cache refresh took {w.ri(2050, 3400)} ms (threshold 2000 ms)"),
               pod=pod)


def spring_start(w: World, t: datetime, service: str, app: str, cls: str, pod: str, ver: str) -> None:
    lines = [
        (
            "INFO", "main", f"c.g.{service.replace('-', '')}.{cls}",
            f"Starting {cls} v{ver} using Java 17.0.9 with PID 1",
        ),
        (
            "INFO", "main", f"c.g.{service.replace('-', '')}.{cls}",
            'The following 1 profile is active: "prod"',
        ),
        (
            "INFO", "main", "o.s.b.w.embedded.tomcat.TomcatWebServer",
            "Tomcat initialized with port(s): 8080 (http)",
        ),
        ("INFO", "main", "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Start completed."),
        ("INFO", "main", "o.s.b.w.embedded.tomcat.TomcatWebServer",
         "Tomcat started on port(s): 8080 (http)"),
        (
            "INFO", "main", f"c.g.{service.replace('-', '')}.{cls}",
            f"Started {cls} in {w.ri(18, 34)}.{w.ri(100, 999)} seconds (process running for "
            f"{w.ri(20, 38)}.{w.ri(1, 9)})",
        ),
    ]
    for i, (lvl, th, lg, msg) in enumerate(lines):
        ti = t + timedelta(seconds=i * 3 + w.r())
        w.emit(ti, service, lvl, spring(ti, lvl, th, lg, msg, app), pod=pod, version=ver)


def headend_bg(w: World, t: datetime, minute: int) -> None:
    """Read cycles every 15 min, heartbeat sweeps every 5 min, command acks."""
    pod = pods("head-end", t, 2)[0]
    lt = t.astimezone(IST)
    if lt.minute % 5 == 0:
        online_d = 818 - w.ri(2, 9)
        offline_m = w.ri(1400, 2300)
        if inside(t, EMFILE[0] + timedelta(minutes=6), EMFILE[1] + timedelta(minutes=8)):
            offline_m = w.ri(17000, 21000)
        if inside(t, TAKEOVER[0] + timedelta(minutes=10), TAKEOVER[1] + timedelta(minutes=6)):
            online_d = w.ri(90, 240)
            offline_m = w.ri(60000, 98000)
        if inside(t, *DNS):
            offline_m = w.ri(3000, 8000)
        ts = t + timedelta(seconds=2)
        w.emit(ts, "head-end", "INFO",
               log4j(ts, "INFO", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor",
                     f"heartbeat sweep: dcus online={online_d}/818 meters offline={offline_m}/122300"),
               pod=pod, version=version("head-end", t))
    if lt.minute % 15 == 3:
        ok = w.ri(118500, 120500)
        if inside(t, EMFILE[0], EMFILE[1] + timedelta(minutes=10)):
            ok = w.ri(99000, 104000)
        ts = t + timedelta(seconds=w.ri(10, 50))
        slot = (lt - timedelta(minutes=3)).strftime("%H:%M")
        w.emit(
            ts, "head-end", "INFO",
            log4j(ts, "INFO", "read-scheduler-1", "c.g.hes.read.ReadCycle",
                  f"interval read cycle {slot} done: ok={ok} noresp={122300 - ok} took={w.ri(280, 460)}s"),
            pod=pod, version=version("head-end", t),
        )


def headend_noise(w: World, t: datetime) -> None:
    pod = w.pick(pods("head-end", t, 2))
    x = w.r()
    if x < 0.55:
        msg = (
            f"meter {w.meter()} association refused: HLS authentication failure "
            f"(result-source-diagnostic=7), will retry in 900s"
        )
        w.emit(t, "head-end", "WARN",
               log4j(t, "WARN", f"dlms-worker-{w.ri(1, 24)}", "c.g.hes.dlms.Association", msg), pod=pod)
    elif x < 0.8:
        msg = f"DCU {w.dcu()} clock drift {w.ri(3, 9)}s, sending time sync"
        w.emit(t, "head-end", "WARN", log4j(t, "WARN", "clock-sync", "c.g.hes.dcu.ClockSync", msg), pod=pod)
    elif x < 0.9:
        msg = f"DCU {w.dcu()} OFFLINE: no heartbeat for {w.ri(601, 700)}s"
        w.emit(
            t, "head-end", "WARN", log4j(t, "WARN", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor",
                                         msg), pod=pod
        )
    else:
        msg = f"DCU {w.dcu()} back ONLINE after {w.ri(11, 95)} min"
        w.emit(
            t, "head-end", "INFO", log4j(t, "INFO", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor",
                                         msg), pod=pod
        )


def headend_cmd(w: World, t: datetime) -> None:
    if inside(t, *RMQ_ALARM):
        return
    pod = w.pick(pods("head-end", t, 2))
    kind = w.pick(["RECONNECT", "RECONNECT", "DISCONNECT", "RELAY_STATUS"])
    msg = (
        f"{kind} meter={w.meter()} via emqx cmd/{w.hexid(8)} "
        f"relay={'closed' if kind == 'RECONNECT' else 'open'} ack={w.ri(8, 60) / 10:.1f}s"
    )
    w.emit(t, "head-end", "INFO",
           log4j(t, "INFO", f"cmd-consumer-{w.ri(1, 4)}", "c.g.hes.cmd.CommandConsumer", msg), pod=pod)


def emqx_bg(w: World, t: datetime) -> None:
    node = w.pick(["emqx-1", "emqx-2"])
    if node == "emqx-2" and inside(t, *EMFILE):
        node = "emqx-1"
    zone = w.pick(ZONES)
    cid = w.meter(zone) if w.r() < 0.8 else w.dcu(zone)
    peer = f"100.{w.ri(64, 127)}.{w.ri(0, 255)}.{w.ri(1, 254)}:{w.ri(30000, 65000)}"
    x = w.r()
    if x < 0.45:
        msg = f"clientid: {cid}, username: ami, peername: {peer}, proto_ver: 4, msg: client_connected"
        lvl = "info"
    elif x < 0.75:
        reason = w.pick(["ssl_closed", "tcp_closed", "ssl_closed", "einval"])
        msg = f"clientid: {cid}, peername: {peer}, msg: client_disconnected, reason: {reason}"
        lvl = "info"
    else:
        msg = f"clientid: {cid}, peername: {peer}, msg: keepalive_timeout, keepalive: 300"
        lvl = "warning"
    w.emit(t, "emqx", "WARN" if lvl == "warning" else "INFO", erl(t, lvl, msg), pod=node,
           node=f"emqx@{node}.emqx-headless.mqtt.svc.cluster.local")


def ingest_bg(w: World, t: datetime) -> None:
    if inside(t, *PANIC):
        return
    pod = w.pick(pods("ingest", t, 4))
    if inside(t, *DNS) and w.r() < 0.7:
        b = w.ri(0, 2)
        w.emit(
            t, "ingest", "ERROR",
            logfmt(
                t, "ERROR", "kafka produce failed, batch kept in memory", topic="meter.readings",
                err=f"dial tcp: lookup kafka-{b}.kafka-headless.streaming.svc.cluster.local on 10.0.0.10:53: "
                f"read udp 10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{w.ri(30000, 60000)}->10.0.0.10:53: i/o "
                "timeout",
            ),
            pod=pod, version=version("ingest", t),
        )
        return
    w.emit(t, "ingest", "INFO",
           logfmt(t, "INFO", "flushed batch", topic="meter.readings", partition=w.ri(0, 23),
                  records=w.ri(1500, 2048), bytes=w.ri(300000, 420000), took=f"{w.ri(18, 70)}ms"),
           pod=pod, version=version("ingest", t))


def ingest_noise(w: World, t: datetime) -> None:
    if inside(t, *PANIC):
        return
    pod = w.pick(pods("ingest", t, 4))
    if w.r() < 0.75:
        zone = w.pick(ZONES)
        w.emit(
            t, "ingest", "WARN",
            logfmt(
                t, "WARN", "duplicate reading dropped", dcu=w.dcu(zone), meter=w.meter(zone),
                interval=(t - timedelta(minutes=w.ri(15, 240))).astimezone(IST).strftime("%Y-%m-%dT%H:%M"),
                source="retransmit",
            ),
            pod=pod, version=version("ingest", t),
        )
    else:
        w.emit(
            t, "ingest", "WARN",
            logfmt(
                t, "WARN", "reading timestamp in future, clamped", meter=w.meter(), skew=f"{w.ri(31, 190)}s"
            ),
            pod=pod, version=version("ingest", t),
        )


def kafka_bg(w: World, t: datetime) -> None:
    b = w.ri(1, 3)
    x = w.r()
    if x < 0.6:
        topic = w.pick(["meter.readings", "meter.readings", "meter.events", "__consumer_offsets"])
        p = w.ri(0, 23)
        msg = (
            f"[LocalLog partition={topic}-{p}, dir=/var/lib/kafka/data] Rolled new log segment at offset "
            f"{w.ri(10000000, 99999999)} in {w.ri(1, 9)} ms. (kafka.log.LocalLog)"
        )
        lvl = "INFO"
    elif x < 0.85:
        topic = w.pick(["meter.readings", "meter.events"])
        msg = (
            f"[UnifiedLog partition={topic}-{w.ri(0, 23)}, dir=/var/lib/kafka/data] Deleting segment "
            f"LogSegment(baseOffset={w.ri(1000000, 9999999)}, size={w.ri(100000000, 1073741824)}, "
            f"lastModifiedTime={int(t.timestamp() * 1000) - 604800000}) due to retention time 604800000ms "
            "breach (kafka.log.UnifiedLog)"
        )
        lvl = "INFO"
    else:
        src = f"10.244.{w.ri(2, 9)}.{w.ri(10, 60)}"
        msg = (
            f"[SocketServer listenerType=BROKER, nodeId={b}] Unexpected error from /{src} "
            f"(channelId=10.244.1.{10 + b}:9092-{src}:{w.ri(30000, 60000)}-{w.ri(1, 400)}); closing "
            "connection (org.apache.kafka.common.network.Selector)"
        )
        lvl = "WARN"
    w.emit(t, "kafka", lvl, kafkaline(t, lvl, msg), pod=f"kafka-{b - 1}", broker=f"kafka-{b}")


def mdm_bg(w: World, t: datetime) -> None:
    pod = w.pick(pods("mdm", t, 3))
    thread = f"ntainer#0-{w.ri(0, 5)}-C-1"
    if inside(t, *PANIC) and t > PANIC[0] + timedelta(seconds=40):
        w.emit(t, "mdm", "INFO",
               spring(t, "INFO", thread, "c.g.mdm.vee.VeeBatchProcessor",
                      "VEE poll returned 0 records from meter.readings (partitions 0-23), lag=0", "mdm"),
               pod=pod, version=version("mdm", t))
        return
    n = w.ri(1500, 2048)
    flagged = w.ri(0, 6)
    if inside(t, *SCALER):
        flagged = int(n * (0.31 + w.r() * 0.06))
    est = w.ri(2, 14)
    w.emit(
        t, "mdm", "INFO",
        spring(
            t, "INFO", thread, "c.g.mdm.vee.VeeBatchProcessor",
            f"VEE batch done partition={w.ri(0, 23)} readings={n} passed={n - flagged - est} estimated={est} "
            f"flagged={flagged} took={w.ri(140, 320)}ms", "mdm",
        ),
        pod=pod, version=version("mdm", t),
    )


def mdm_noise(w: World, t: datetime) -> None:
    pod = w.pick(pods("mdm", t, 3))
    w.emit(
        t, "mdm", "WARN",
        spring(t, "WARN", f"ntainer#0-{w.ri(0, 5)}-C-1", "c.g.mdm.vee.EstimationService",
               f"meter {w.meter()} gap of {w.ri(1, 4)} intervals estimated (linear interpolation)", "mdm"),
        pod=pod, version=version("mdm", t),
    )


def mdm_hourly(w: World, t: datetime) -> None:
    if inside(t, *VACUUM) or inside(t, *PANIC):
        return
    pod = pods("mdm", t, 3)[0]
    w.emit(t, "mdm", "INFO",
           spring(t, "INFO", "agg-scheduler-1", "c.g.mdm.agg.DailyAggregator",
                  f"daily aggregates upserted rows={w.ri(118000, 121000)} table=mdm.reading_daily "
                  f"took={w.ri(2400, 4100) / 1000:.1f}s", "mdm"),
           pod=pod, version=version("mdm", t))


def postgres_bg(w: World, t: datetime) -> None:
    """Checkpoints every 15 minutes on each primary (pg-mdm-ro's logs are not shipped)."""
    for inst, pid in (("pg-mdm", 62), ("pg-billing", 58)):
        t0 = t + timedelta(seconds=w.ri(0, 3), milliseconds=w.ri(0, 999))
        w.emit(
            t0, "postgres", "INFO", pgline(t0, pid, "", "LOG", "checkpoint starting: time"), instance=inst,
            pod=f"{inst}-0",
        )
        bufs = w.ri(2000, 30000) if inst == "pg-mdm" else w.ri(300, 4000)
        wt = w.ri(120, 270)
        t1 = t0 + timedelta(seconds=wt)
        w.emit(
            t1, "postgres", "INFO",
            pgline(
                t1, pid, "", "LOG",
                f"checkpoint complete: wrote {bufs} buffers ({bufs / 1310.72:.1f}%); 0 WAL file(s) added, "
                f"{w.ri(0, 6)} removed, {w.ri(2, 15)} recycled; write={wt - 1}.{w.ri(100, 999)} s, "
                f"sync=0.{w.ri(10, 99)} s, total={wt}.{w.ri(100, 999)} s",
            ),
            instance=inst, pod=f"{inst}-0",
        )


def postgres_noise(w: World, t: datetime) -> None:
    x = w.r()
    pid = w.newpid()
    if x < 0.45:
        t1 = t
        w.emit(t1, "postgres", "ERROR",
               pgline(t1, pid, "prepaid@billing", "ERROR",
                      'duplicate key value violates unique constraint "recharge_upi_ref_key"'),
               instance="pg-billing", pod="pg-billing-0")
        t2 = t1 + timedelta(microseconds=300)
        w.emit(t2, "postgres", "INFO",
               pgline(t2, pid, "prepaid@billing", "DETAIL",
                      f"Key (upi_ref)=({w.ri(400000000000, 699999999999)}) already exists."),
               instance="pg-billing", pod="pg-billing-0")
    elif x < 0.7:
        w.emit(
            t, "postgres", "INFO",
            pgline(
                t, pid, "bi_reader@mdm", "LOG", "could not receive data from client: Connection reset by "
                                                "peer"
            ),
            instance="pg-mdm", pod="pg-mdm-0",
        )
    else:
        tbl = w.pick(["mdm.mdm.reading_interval", "mdm.mdm.vee_flag", "billing.billing.recharge",
                      "mdm.mdm.reading_daily"])
        inst = "pg-billing" if "billing" in tbl.split(".")[0] else "pg-mdm"
        w.emit(t, "postgres", "INFO",
               pgline(t, pid, "", "LOG",
                      "automatic vacuum of table "
                      f'"{tbl}": '
                      f"index scans: 1, pages: 0 removed, {w.ri(10000, 900000)} remain, "
                      f"tuples: {w.ri(1000, 90000)} removed, {w.ri(100000, 9000000)} remain"),
               instance=inst, pod=f"{inst}-0")


def redis_bg(w: World, t: datetime) -> None:
    changes = w.ri(10000, 60000)
    w.emit(t, "redis", "INFO", redisline(t, "M", "*", f"{changes} changes in 60 seconds. Saving..."),
           pod="redis-0")
    cpid = w.newpid()
    t1 = t + timedelta(milliseconds=w.ri(5, 30))
    w.emit(t1, "redis", "INFO", redisline(t1, "M", "*", f"Background saving started by pid {cpid}"),
           pod="redis-0")
    t2 = t1 + timedelta(seconds=w.ri(2, 6), milliseconds=w.ri(0, 999))
    w.emit(t2, "redis", "INFO", redisline(t2, "C", "*", "DB saved on disk", cpid), pod="redis-0")
    t3 = t2 + timedelta(milliseconds=w.ri(50, 120))
    w.emit(t3, "redis", "INFO", redisline(t3, "M", "*", "Background saving terminated with success"),
           pod="redis-0")


def rabbit_bg(w: World, t: datetime) -> None:
    pid = f"<0.{w.ri(10000, 60000)}.0>"
    src = f"10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{w.ri(30000, 60000)}"
    x = w.r()
    if x < 0.45:
        w.emit(t, "rabbitmq", "INFO",
               erl(t, "info", f"{pid} accepting AMQP connection {pid} ({src} -> 10.244.9.5:5672)"),
               pod="rabbitmq-0")
        t1 = t + timedelta(milliseconds=w.ri(2, 12))
        user = w.pick(["prepaid", "head-end", "notifier", "billing", "outage"])
        w.emit(t1, "rabbitmq", "INFO",
               erl(t1, "info",
                   f"{pid} connection {pid} ({src} -> 10.244.9.5:5672): user '{user}' authenticated and "
                   "granted access to vhost 'grid'"),
               pod="rabbitmq-0")
    else:
        w.emit(t, "rabbitmq", "WARN",
               erl(t, "warning",
                   f"{pid} closing AMQP connection {pid} ({src} -> 10.244.9.5:5672, vhost: 'grid', user: "
                   f"'outage'):\n{pid} client unexpectedly closed TCP connection"),
               pod="rabbitmq-0")


def billing_bg(w: World, t: datetime) -> None:
    pod = w.pick(pods("billing", t, 2))
    acct = w.account()
    if inside(t, *DNS) and w.r() < 0.6:
        w.emit(
            t, "billing", "ERROR",
            pyjson(
                t, "ERROR", "billing.api",
                f"GET /bills/latest account={acct} failed: (psycopg2.OperationalError) could not translate "
                "host "
                'name "pg-billing.db.svc.cluster.local" to address: Temporary failure in name resolution',
            ),
            pod=pod, version=version("billing", t),
        )
        return
    w.emit(
        t, "billing", "INFO",
        pyjson(t, "INFO", "billing.api", f"GET /bills/latest account={acct} 200 {w.ri(20, 90)}ms"), pod=pod,
        version=version("billing", t),
    )


def billing_noise(w: World, t: datetime) -> None:
    pod = w.pick(pods("billing", t, 2))
    w.emit(t, "billing", "WARN",
           pyjson(t, "WARNING", "billing.determinants",
                  f"bill estimate used for account {w.account()}: no actual register read for cycle "
                  f"{t.astimezone(IST):%Y-%m}, last actual {w.ri(34, 70)} days ago"),
           pod=pod, version=version("billing", t))


def billing_batch(w: World, d: int) -> None:
    """The nightly bill-run (01:30) and the morning e-bill dispatch (06:00)."""
    start = at(d, 1, 30)
    end = at(d, 3, 4 + d * 3, 11)
    pod = pods("billing", start, 2)[1]
    total = 41820 + d * 3117
    w.emit(start, "billing", "INFO",
           pyjson(start, "INFO", "billing.billrun",
                  f"bill-run started cycle={start:%Y-%m} accounts={total} run=JR-{5502 + d * 3}"),
           pod=pod, version=version("billing", start))
    t = start
    done = 0
    while t < end - timedelta(minutes=5):
        t += timedelta(minutes=5, seconds=w.ri(0, 20))
        done = min(total, done + total // 18)
        w.emit(
            t, "billing", "INFO", pyjson(t, "INFO", "billing.billrun", f"bill-run progress {done}/{total}"),
            pod=pod, version=version("billing", t),
        )
        for _ in range(w.ri(0, 3)):
            tt = t + timedelta(seconds=w.ri(1, 280))
            w.emit(
                tt, "billing", "WARN",
                pyjson(tt, "WARNING", "billing.tariff",
                       f"no tariff mapping for category LT-IX (temporary supply) on account {w.account()}, "
                       "using LT-II"),
                pod=pod, version=version("billing", tt),
            )
    w.emit(
        end, "billing", "INFO",
        pyjson(end, "INFO", "billing.billrun",
               f"bill-run finished cycle={start:%Y-%m} billed={total} took={(end - start).seconds // 60}m"),
        pod=pod, version=version("billing", end),
    )
    # e-bill dispatch
    s2 = at(d, 6, 0, 2)
    e2 = at(d, 7, 19, 55) if d == 1 else at(d, 6, 41 + d, 20)
    total2 = [38122, 21407, 40218][d]
    w.emit(s2, "billing", "INFO",
           pyjson(s2, "INFO", "billing.ebill",
                  f"ebill-dispatch started bills={total2 if d != 1 else 38040} batch_size=200"),
           pod=pod, version=version("billing", s2))
    t = s2
    k = 0
    while t < e2 - timedelta(minutes=3):
        t += timedelta(minutes=3, seconds=w.ri(0, 30))
        k += 1
        bp = pods("billing", t, 2)[1]
        w.emit(t, "billing", "INFO",
               pyjson(t, "INFO", "billing.ebill",
                      f"ebill batch {k} rendered 200 PDFs, queued SMS links to notify.sms"),
               pod=bp, version=version("billing", t))
    if d == 1:
        w.emit(e2, "billing", "ERROR",
               pyjson(e2, "ERROR", "billing.ebill",
                      f"ebill-dispatch aborted after batch {k}: worker terminated (SIGTERM)"),
               pod=pods("billing", e2 - timedelta(minutes=2), 2)[1], version="3.9.1")
    else:
        w.emit(e2, "billing", "INFO",
               pyjson(e2, "INFO", "billing.ebill", f"ebill-dispatch finished sent={total2}"), pod=pod,
               version=version("billing", e2))


def outage_bg(w: World, t: datetime) -> None:
    host = pods("outage", t, 2)[0]
    open_t = w.ri(3, 11)
    if inside(t, EMFILE[0] + timedelta(minutes=5), EMFILE[1] + timedelta(minutes=20)):
        open_t = w.ri(180, 260)
    w.emit(t, "outage", "INFO",
           pino(t, "INFO", host, "feeder status sweep ok", feeders=412, open_tickets=open_t), pod=host)


def outage_noise(w: World, t: datetime) -> None:
    host = w.pick(pods("outage", t, 2))
    zone = w.pick(ZONES)
    if w.r() < 0.8:
        w.emit(t, "outage", "WARN",
               pino(t, "WARN", host, "last-gasp from single meter, not an outage (threshold 5)",
                    meter=w.meter(zone), feeder=f"{zone}-F{w.ri(1, 40):02d}"),
               pod=host)
    else:
        tid = f"OUT-{w.ri(200000, 299999)}"
        w.emit(
            t, "outage", "INFO",
            pino(t, "INFO", host, "outage ticket opened", ticket=tid, feeder=f"{zone}-F{w.ri(1, 40):02d}",
                 meters=w.ri(6, 180), source="last-gasp"),
            pod=host,
        )


def notifier_bg(w: World, t: datetime) -> None:
    pod = w.pick(pods("notifier", t, 2))
    if inside(t, *DNS) and w.r() < 0.7:
        w.emit(
            t, "notifier", "ERROR",
            pylog(t, "ERROR", "notifier.sender",
                  "submit to api.smsgateway.example failed: "
                  "HTTPSConnectionPool(host='api.smsgateway.example', port=443): Max retries exceeded "
                  "(Caused by NameResolutionError: Failed to resolve 'api.smsgateway.example' ([Errno -3] "
                  "Temporary failure in name resolution))"),
            pod=pod,
        )
        return
    n = w.ri(40, 50)
    acc = n
    if inside(t, RMQ_SLOW, RMQ_ALARM[1]):
        n, acc = w.ri(6, 14), None
    msg = f"sent batch queue=notify.sms n={n} accepted={acc if acc is not None else n} http=202"
    w.emit(t, "notifier", "INFO", pylog(t, "INFO", "notifier.sender", msg), pod=pod)


def notifier_noise(w: World, t: datetime, heavy: float = 1.0) -> None:
    """notifier is always noisy: SMS DLR failures, throttling, template fallbacks."""
    pod = w.pick(pods("notifier", t, 2))
    x = w.r()
    if x < 0.55:
        op = w.pick(["OP-1", "OP-2", "OP-2", "OP-3", "OP-4"])
        err, st = w.pick([("001", "UNDELIV"), ("001", "UNDELIV"), ("027", "UNDELIV"), ("EXP", "EXPIRED"),
                          ("006", "REJECTD")])
        tmpl = w.pick(
            ["BILL_DUE_HI", "BILL_DUE_MR", "RECHARGE_OK_HI", "LOW_BAL_MR", "OUTAGE_ETR_EN", "OTP_EN"]
        )
        msg = (
            f"DLR msgid={w.hexid(16)} status={st} err={err} operator={op} template={tmpl} "
            f"msisdn=+91XXXXXX{w.ri(1000, 9999)}"
        )
        w.emit(t, "notifier", "ERROR", pylog(t, "ERROR", "notifier.dlr", msg), pod=pod)
    elif x < 0.85:
        msg = (
            "SMS submit throttled by api.smsgateway.example (HTTP 429 Too Many Requests), retry in "
            f"{w.pick([15, 30, 30, 60])}s"
        )
        w.emit(t, "notifier", "WARN", pylog(t, "WARNING", "notifier.sender", msg), pod=pod)
    else:
        msg = (
            f"template variable 'due_date' missing for BILL_DUE_MR (account {w.account()}), sending "
            "without it"
        )
        w.emit(t, "notifier", "WARN", pylog(t, "WARNING", "notifier.render", msg), pod=pod)


def k8s_noise(w: World, t: datetime) -> None:
    svc = w.pick(["outage", "billing", "mdm", "notifier", "prepaid", "head-end"])
    ns = {"outage": "oms", "billing": "billing", "mdm": "mdm", "notifier": "notify", "prepaid": "prepaid",
          "head-end": "ami"}[svc]
    pod = w.pick(pods(svc, t, 2))
    port = {"outage": 3000, "billing": 8000, "notifier": 8000}.get(svc, 8080)
    path = "/healthz" if svc in ("outage", "billing", "notifier") else "/actuator/health/readiness"
    if w.r() < 0.75:
        msg = k8s("Warning", "Unhealthy", f"pod/{pod}",
                  "Readiness probe failed: Get "
                  f'"http://10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{port}{path}": '
                  "context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
        w.emit(t, "kubernetes", "WARN", msg, namespace=ns, object=f"pod/{pod}")
    else:
        n = w.ri(3, 6)
        msg = k8s("Normal", "SuccessfulRescale", f"horizontalpodautoscaler/{svc}",
                  f"New size: {n}; reason: cpu resource utilization (percentage of request) above target")
        w.emit(t, "kubernetes", "INFO", msg, namespace=ns, object=f"horizontalpodautoscaler/{svc}")


def k8s_cron(w: World, t: datetime, job: str, ns: str) -> None:
    jid = f"{job}-{int(t.timestamp() // 60)}"
    w.emit(
        t, "kubernetes", "INFO", k8s("Normal", "SuccessfulCreate", f"cronjob/{job}", f"Created job {jid}"),
        namespace=ns, object=f"cronjob/{job}",
    )
    t1 = t + timedelta(seconds=1)
    w.emit(
        t1, "kubernetes", "INFO",
        k8s("Normal", "SuccessfulCreate", f"job/{jid}", f"Created pod: {jid}-{w.hexid(4)}7"), namespace=ns,
        object=f"job/{jid}",
    )


def rollout(w: World, t: datetime, service: str, ns: str, old_n: int = 2) -> None:
    """k8s events and startup lines of a rolling update finishing at t."""
    before = pods(service, t - timedelta(minutes=10), old_n)
    after = pods(service, t + timedelta(seconds=1), old_n)
    rs = after[0].rsplit("-", 1)[0]
    w.emit(t, "kubernetes", "INFO",
           k8s("Normal", "ScalingReplicaSet", f"deployment/{service}", f"Scaled up replica set {rs} to 1"),
           namespace=ns, object=f"deployment/{service}")
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        ti = t + timedelta(seconds=2 + i * 40)
        w.emit(ti, "kubernetes", "INFO",
               k8s("Normal", "Pulled", f"pod/{new}",
                   "Container image "
                   f'"acr-gridco.azurecr.io/{service}:{version(service, t + timedelta(seconds=1))}" '
                   "already present on machine"),
               namespace=ns, object=f"pod/{new}")
        ti2 = ti + timedelta(seconds=30)
        w.emit(ti2, "kubernetes", "INFO",
               k8s("Normal", "Killing", f"pod/{old}", f"Stopping container {service}"), namespace=ns,
               object=f"pod/{old}")


# ---------------------------------------------------------------------------------------------
# Incidents: the lines only they write
# ---------------------------------------------------------------------------------------------


def inc_emfile(w: World) -> None:
    """GRID-01: a reconnect storm after a cellular blip fills emqx-2's open file limit."""
    t = STORM
    while t < EMFILE[0]:
        cid = w.meter(w.pick(["PNE-E", "NSK"]))
        node = w.pick(["emqx-1", "emqx-2"])
        peer = f"100.{w.ri(64, 127)}.{w.ri(0, 255)}.{w.ri(1, 254)}:{w.ri(30000, 65000)}"
        w.emit(
            t, "emqx", "INFO",
            erl(t, "info",
                f"clientid: {cid}, username: ami, peername: {peer}, proto_ver: 4, msg: client_connected"),
            pod=node, node=f"emqx@{node}.emqx-headless.mqtt.svc.cluster.local",
        )
        t += timedelta(seconds=w.ri(1, 4), milliseconds=w.ri(0, 999))
    t = EMFILE[0]
    while t < EMFILE[1]:
        w.emit(t, "emqx", "ERROR",
               erl(t, "error", "Accept error on 0.0.0.0:8883: EMFILE (Too many open files)"), pod="emqx-2",
               node="emqx@emqx-2.emqx-headless.mqtt.svc.cluster.local")
        t += timedelta(seconds=w.ri(3, 14), milliseconds=w.ri(0, 999))
    # head-end sees meters and DCUs of PNE-E and NSK vanish
    t = EMFILE[0] + timedelta(minutes=5, seconds=20)
    while t < EMFILE[1] + timedelta(minutes=4):
        zone = w.pick(["PNE-E", "NSK"])
        msg = f"DCU {w.dcu(zone)} OFFLINE: no heartbeat for {w.ri(601, 640)}s"
        w.emit(t, "head-end", "WARN", log4j(t, "WARN", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor", msg),
               pod=pods("head-end", t, 2)[0])
        t += timedelta(seconds=w.ri(8, 30))
    # outage raises suspected outages for feeders whose meters went silent
    t = EMFILE[0] + timedelta(minutes=5, seconds=50)
    host = pods("outage", t, 2)[0]
    while t < EMFILE[1] + timedelta(minutes=2):
        zone = w.pick(["PNE-E", "NSK"])
        w.emit(t, "outage", "WARN",
               pino(t, "WARN", host, "no heartbeat from meters on feeder, opening suspected outage",
                    feeder=f"{zone}-F{w.ri(1, 40):02d}", silent_meters=w.ri(60, 420), window_s=300,
                    ticket=f"OUT-{w.ri(300000, 399999)}"),
               pod=host)
        t += timedelta(seconds=w.ri(6, 25))
    # the fix: emqx-2 restarted with a higher limit
    t = EMFILE[1]
    w.emit(t, "kubernetes", "INFO", k8s("Normal", "Killing", "pod/emqx-2", "Stopping container emqx"),
           namespace="mqtt", object="pod/emqx-2")
    t1 = t + timedelta(seconds=25)
    w.emit(t1, "kubernetes", "INFO", k8s("Normal", "Started", "pod/emqx-2", "Started container emqx"),
           namespace="mqtt", object="pod/emqx-2")
    t2 = t1 + timedelta(seconds=6)
    w.emit(t2, "emqx", "INFO",
           erl(t2, "notice",
               'msg: emqx_started, listeners: ["ssl:default 0.0.0.0:8883", "tcp:internal 0.0.0.0:1883"], '
               "max_fds: 262144"),
           pod="emqx-2", node="emqx@emqx-2.emqx-headless.mqtt.svc.cluster.local")


def inc_rabbit(w: World) -> None:
    """GRID-02: notify.sms grows while SMS submits are throttled; the memory alarm blocks publishers."""
    t = RMQ_SLOW
    pod = pods("notifier", t, 2)[0]
    while t < RMQ_ALARM[1]:
        msg = (
            "SMS submit throttled by api.smsgateway.example (HTTP 429 Too Many Requests), retry in "
            f"{w.pick([30, 60, 60, 120])}s"
        )
        w.emit(t, "notifier", "WARN", pylog(t, "WARNING", "notifier.sender", msg), pod=pod)
        t += timedelta(seconds=w.ri(15, 50))
    t = RMQ_ALARM[0]
    node = "'rabbit@rabbitmq-0.rabbitmq-nodes.msg'"
    lines = [
        ("warning", "<0.498.0> vm_memory_high_watermark set. Memory used:3282341888 allowed:3281964236"),
        ("warning", f"<0.498.0> memory resource limit alarm set on node {node}."),
        (
            "warning",
            "<0.498.0> \n**********************************************************\n*** Publishers will "
            "be blocked until this alarm clears "
            "***\n**********************************************************",
        ),
    ]
    for i, (lvl, msg) in enumerate(lines):
        ti = t + timedelta(milliseconds=i)
        w.emit(ti, "rabbitmq", "WARN", erl(ti, lvl, msg), pod="rabbitmq-0")
    t = RMQ_ALARM[0] + timedelta(seconds=70)
    while t < RMQ_ALARM[1]:  # blocked connections are listed by the management plugin poller
        who = w.pick(["prepaid", "billing", "outage"])
        w.emit(
            t, "rabbitmq", "INFO",
            erl(t, "info",
                f"<0.{w.ri(10000, 60000)}.0> connection <0.{w.ri(10000, 60000)}.0> "
                f"(10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{w.ri(30000, 60000)} -> 10.244.9.5:5672 - {who}) is "
                "blocked: resource alarm (memory)"),
            pod="rabbitmq-0",
        )
        t += timedelta(seconds=w.ri(60, 200))
    t = RMQ_ALARM[1]
    w.emit(
        t, "rabbitmq", "INFO",
        erl(
            t, "info",
            "<0.31882.4> Purged 1812233 messages from queue 'notify.sms' in vhost 'grid' (user 'ops-admin')",
        ),
        pod="rabbitmq-0",
    )
    t1 = t + timedelta(seconds=4)
    w.emit(t1, "rabbitmq", "WARN",
           erl(t1, "warning", f"<0.498.0> memory resource limit alarm cleared on node {node}"),
           pod="rabbitmq-0")
    # prepaid's outbox relay retries the parked relay commands and times out on every confirm
    t = RMQ_ALARM[0] + timedelta(seconds=35)
    while t < RMQ_ALARM[1]:
        ppod = w.pick(pods("prepaid", t, 3))
        m = w.meter()
        w.emit(
            t, "prepaid", "ERROR",
            spring(t, "ERROR", "outbox-relay-1", "c.g.prepaid.command.RelayCommandPublisher",
                   f"RECONNECT for meter={m} not confirmed: publisher confirm not received within 5000 ms "
                   "(exchange=hes.commands, routingKey=relay.reconnect); parked in outbox, retry in 60s"),
            pod=ppod,
        )
        t += timedelta(seconds=w.ri(8, 30), milliseconds=w.ri(0, 999))
    # outbox retries drain after the alarm
    t2 = t1 + timedelta(seconds=30)
    w.emit(t2, "prepaid", "INFO",
           spring(t2, "INFO", "outbox-relay-1", "c.g.prepaid.command.OutboxRelay",
                  "outbox drained: 214 relay commands published to hes.commands"),
           pod=pods("prepaid", t2, 3)[0])
    # head-end: its command consumer idles
    t = RMQ_ALARM[0] + timedelta(minutes=2)
    while t < RMQ_ALARM[1]:
        w.emit(t, "head-end", "INFO",
               log4j(t, "INFO", "cmd-consumer-1", "c.g.hes.cmd.CommandConsumer",
                     "no commands received from hes.commands in 300s"),
               pod=pods("head-end", t, 2)[0])
        t += timedelta(minutes=5)


def inc_scaler(w: World) -> None:
    """GRID-03: ingest 2.14.0 reads the scaler from capture objects; LTCT meters lack it (scaler 0)."""
    start = at(0, 14, 12)
    rollout(w, start + timedelta(seconds=30), "ingest", "ami", 4)
    for i, pod in enumerate(pods("ingest", start + timedelta(minutes=5), 4)):
        ti = start + timedelta(seconds=35 + i * 20)
        w.emit(ti, "ingest", "INFO",
               logfmt(ti, "INFO", "starting ingest", version="2.14.0", commit="9f3e1ab", go="go1.21.6"),
               pod=pod, version="2.14.0")
        ti2 = ti + timedelta(seconds=1)
        w.emit(ti2, "ingest", "INFO",
               logfmt(ti2, "INFO", "register scaling from capture objects", fallback="none"), pod=pod,
               version="2.14.0")
    t = SCALER[0]
    mpods = pods("mdm", t, 3)
    while t < SCALER[1]:
        m = w.meter()
        val = w.ri(40000, 260000) / 10
        w.emit(
            t, "mdm", "WARN",
            spring(
                t, "WARN", f"ntainer#0-{w.ri(0, 5)}-C-1", "c.g.mdm.vee.SpikeCheck",
                f"VEE spike check failed meter={m} register=1.0.1.8.0.255 delta={val:.1f} kWh limit=250.0 "
                f"kWh interval={(t - timedelta(minutes=15)).astimezone(IST):%H:%M}; reading held for review",
                "mdm",
            ),
            pod=w.pick(mpods), version=version("mdm", t),
        )
        if w.r() < 0.15:
            w.emit(t, "ingest", "DEBUG",
                   logfmt(t, "DEBUG", "decoded profile", meter=m, model="LTCT-3P-v3", obis="1.0.1.8.0.255",
                          scaler=0, unit="Wh", value=int(val), sent_unit="kWh"),
                   pod=w.pick(pods("ingest", t, 4)), version="2.14.0")
        t += timedelta(seconds=w.ri(2, 9), milliseconds=w.ri(0, 999))
    t = at(0, 15, 8, 30)
    rollout(w, t, "ingest", "ami", 4)
    for i, pod in enumerate(pods("ingest", t + timedelta(minutes=3), 4)):
        ti = t + timedelta(seconds=35 + i * 20)
        w.emit(ti, "ingest", "INFO",
               logfmt(ti, "INFO", "starting ingest", version="2.13.6", commit="41c07d2", go="go1.21.6"),
               pod=pod, version="2.13.6")


def inc_oom(w: World) -> None:
    """GRID-04: prepaid's containers at 1024Mi are OOMKilled under the evening recharge peak."""
    t = OOM[0]
    kills = 0
    node = ["aks-app-41277-vmss000003", "aks-app-41277-vmss000005", "aks-app-41277-vmss000001"]
    while t < OOM[1]:
        ps = pods("prepaid", t, 3)
        i = kills % 3
        pod = ps[i]
        pid = w.ri(20000, 30000)
        w.emit(
            t, "kubernetes", "WARN",
            k8s("Warning", "OOMKilling", f"node/{node[i]}",
                f"Memory cgroup out of memory: Killed process {pid} (java) "
                f"total-vm:{w.ri(3900000, 4200000)}kB, anon-rss:{w.ri(1040000, 1048000)}kB, "
                f"file-rss:{w.ri(20000, 30000)}kB, shmem-rss:0kB, UID:1000 pgtables:{w.ri(2800, 3300)}kB "
                f"oom_score_adj:{w.ri(900, 999)}"),
            namespace="", object=f"node/{node[i]}",
        )
        t1 = t + timedelta(seconds=w.ri(2, 8))
        w.emit(t1, "kubernetes", "WARN",
               k8s("Warning", "BackOff", f"pod/{pod}",
                   "Back-off restarting failed container prepaid in pod "
                   f"{pod}_prepaid(7c1f{w.hexid(4)}-{w.hexid(4)})"),
               namespace="prepaid", object=f"pod/{pod}")
        t2 = t1 + timedelta(seconds=w.ri(10, 40))
        w.emit(t2, "kubernetes", "INFO",
               k8s("Normal", "Pulled", f"pod/{pod}",
                   'Container image "acr-gridco.azurecr.io/prepaid:5.3.2" already present on machine'),
               namespace="prepaid", object=f"pod/{pod}")
        spring_start(w, t2 + timedelta(seconds=2), "prepaid", "", "PrepaidApplication", pod, "5.3.2")
        kills += 1
        t += timedelta(seconds=w.ri(70, 200))
    t = at(0, 19, 46, 40)
    rollout(w, t, "prepaid", "prepaid", 3)


def inc_leak(w: World) -> None:
    """GRID-06: billing 3.9.1 leaves a connection idle in transaction per bill without a meter photo."""
    d = at(1, 6, 8)
    rollout(w, d + timedelta(seconds=100), "billing", "billing", 2)
    t = LEAK[0]
    pod = pods("billing", t, 2)[1]
    while t < LEAK[1]:
        w.emit(
            t, "billing", "WARN",
            pyjson(t, "WARNING", "billing.ebill.photo",
                   f"meter photo not found for {w.account()} "
                   "(https://gridcometerphotos.blob.core.windows.net/photos/"
                   f"{t.astimezone(IST):%Y/%m}/{w.hexid(12)}.jpg): BlobNotFound; rendering without photo"),
            pod=pod, version="3.9.1",
        )
        t += timedelta(seconds=w.ri(6, 16), milliseconds=w.ri(0, 999))
    # pg-billing: first refusals when the leaked sessions reach max_connections
    t = TOO_MANY[0]
    while t < TOO_MANY[1]:
        user, app = w.pick([("prepaid", "PostgreSQL JDBC Driver"), ("prepaid", "PostgreSQL JDBC Driver"),
                            ("billing", "billing-api"), ("outage", "oms")])
        w.emit(t, "postgres", "FATAL",
               pgline(t, w.newpid(), f"{user}@billing", "FATAL", "sorry, too many clients already"),
               instance="pg-billing", pod="pg-billing-0")
        t += timedelta(seconds=w.ri(2, 12), milliseconds=w.ri(0, 999))
    # prepaid: every request that needs a new connection waits 30 s for the pool and fails
    t = TOO_MANY[0] + timedelta(seconds=31)
    while t < TOO_MANY[1]:
        ppod = w.pick(pods("prepaid", t, 3))
        w.emit(t, "prepaid", "ERROR",
               spring(t, "ERROR", f"nio-8080-exec-{w.ri(1, 40)}", "o.h.engine.jdbc.spi.SqlExceptionHelper",
                      "HikariPool-1 - Connection is not available, request timed out after 30000ms."),
               pod=ppod)
        t += timedelta(seconds=w.ri(5, 25), milliseconds=w.ri(0, 999))
    # the DBA ends the leaked sessions after the rollback
    t = at(1, 7, 22, 50)
    for _ in range(24):
        w.emit(t, "postgres", "FATAL",
               pgline(t, w.newpid(), "billing@billing", "FATAL",
                      "terminating connection due to administrator command"),
               instance="pg-billing", pod="pg-billing-0")
        t += timedelta(milliseconds=w.ri(5, 40))
    w.emit(
        t, "postgres", "INFO",
        pgline(t, 31002, "dba_kiran@billing", "LOG",
               "statement: SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
               "'ebill-worker' AND state = 'idle in transaction';"),
        instance="pg-billing", pod="pg-billing-0",
    )


def inc_limit(w: World) -> None:
    """GRID-07: nginx reload with the zone's rate at 5r/s (keyed on the LB's SNAT addresses)."""
    t = at(1, 10, 1, 31)
    for pod in pods("api-gateway", t, 3):
        w.emit(t, "api-gateway", "INFO",
               nginx_err(t, "notice", 0, "signal process started").replace(" *0 ", " "), pod=pod,
               stream="error")
        t1 = t + timedelta(milliseconds=w.ri(100, 600))
        w.emit(t1, "api-gateway", "INFO", nginx_err(t1, "notice", 0, "reconfiguring").replace(" *0 ", " "),
               pod=pod, stream="error")
        t += timedelta(seconds=3)
    t = at(1, 10, 41, 12)
    for pod in pods("api-gateway", t, 3):
        w.emit(t, "api-gateway", "INFO", nginx_err(t, "notice", 0, "reconfiguring").replace(" *0 ", " "),
               pod=pod, stream="error")
        t += timedelta(seconds=3)


def inc_vacuum(w: World) -> None:
    """GRID-08: a DBA's VACUUM FULL on reading_daily holds an ACCESS EXCLUSIVE lock for 49 minutes."""
    t = VACUUM[0]
    vpid = 30417
    w.emit(t, "postgres", "INFO",
           pgline(t, vpid, "dba_kiran@mdm", "LOG", "statement: VACUUM FULL VERBOSE mdm.reading_daily;"),
           instance="pg-mdm", pod="pg-mdm-0", application_name="psql")
    t1 = t + timedelta(milliseconds=40)
    w.emit(
        t1, "postgres", "INFO", pgline(t1, vpid, "dba_kiran@mdm", "INFO", 'vacuuming "mdm.reading_daily"'),
        instance="pg-mdm", pod="pg-mdm-0", application_name="psql",
    )
    t = VACUUM[0] + timedelta(seconds=70)
    mpods = pods("mdm", t, 3)
    while t < VACUUM[1]:
        p = w.newpid()
        w.emit(
            t, "postgres", "INFO",
            pgline(
                t, p, "mdm@mdm", "LOG",
                f"process {p} still waiting for RowExclusiveLock on relation 16812 of database 16401 after "
                f"1000.{w.ri(100, 999)} ms",
            ),
            instance="pg-mdm", pod="pg-mdm-0",
        )
        w.emit(t, "postgres", "INFO",
               pgline(t, p, "mdm@mdm", "DETAIL", f"Process holding the lock: {vpid}. Wait queue: {p}."),
               instance="pg-mdm", pod="pg-mdm-0")
        t2 = t + timedelta(seconds=9)
        w.emit(
            t2, "postgres", "ERROR",
            pgline(t2, p, "mdm@mdm", "ERROR", "canceling statement due to lock timeout"), instance="pg-mdm",
            pod="pg-mdm-0",
        )
        w.emit(
            t2, "postgres", "INFO",
            pgline(
                t2, p, "mdm@mdm", "STATEMENT",
                "INSERT INTO mdm.reading_daily (meter_id, day, kwh_import, kwh_export, source) VALUES ($1, "
                "$2, $3, $4, $5) ON CONFLICT (meter_id, day) DO UPDATE SET kwh_import = "
                "EXCLUDED.kwh_import, kwh_export = EXCLUDED.kwh_export, source = EXCLUDED.source",
            ),
            instance="pg-mdm", pod="pg-mdm-0",
        )
        t3 = t2 + timedelta(milliseconds=w.ri(3, 20))
        w.emit(t3, "mdm", "ERROR",
               spring(t3, "ERROR", f"ntainer#0-{w.ri(0, 5)}-C-1", "c.g.mdm.agg.DailyUpsertListener",
                      "daily aggregate upsert failed, batch will be retried: "
                      "org.springframework.dao.CannotAcquireLockException: PreparedStatementCallback; SQL "
                      "[INSERT INTO mdm.reading_daily ...]; ERROR: canceling statement due to lock timeout",
                      "mdm"),
               pod=w.pick(mpods), version=version("mdm", t3))
        t += timedelta(seconds=w.ri(12, 40), milliseconds=w.ri(0, 999))
    t = VACUUM[1]
    w.emit(
        t, "postgres", "INFO",
        pgline(
            t, vpid, "dba_kiran@mdm", "INFO",
            '"mdm.reading_daily": found 0 removable, 41273410 nonremovable row versions in 2291722 pages',
        ),
        instance="pg-mdm", pod="pg-mdm-0", application_name="psql",
    )
    t1 = t + timedelta(milliseconds=200)
    w.emit(t1, "postgres", "INFO",
           pgline(t1, vpid, "dba_kiran@mdm", "LOG",
                  "duration: 2960114.228 ms  statement: VACUUM FULL VERBOSE mdm.reading_daily;"),
           instance="pg-mdm", pod="pg-mdm-0", application_name="psql")


def inc_takeover(w: World) -> None:
    """GRID-09: the head-end canary connects with the same MQTT client id as the active instance."""
    d = at(1, 16, 52)
    canary = "head-end-canary-0"
    t = d + timedelta(seconds=60)
    w.emit(t, "kubernetes", "INFO", k8s("Normal", "Created", f"pod/{canary}", "Created container head-end"),
           namespace="ami", object=f"pod/{canary}")
    spring_start(w, t + timedelta(seconds=3), "head-end", "", "HesApplication", canary, "6.2.0")
    stable = pods("head-end", t, 2)[0]
    peers = {stable: "10.244.3.12", canary: "10.244.6.19"}
    t = TAKEOVER[0]
    cur = canary
    while t < TAKEOVER[1]:
        old = stable if cur == canary else canary
        port = w.ri(33000, 60000)
        w.emit(
            t, "emqx", "INFO",
            erl(t, "info",
                f"clientid: hes-primary, username: hes, peername: {peers[cur]}:{port}, proto_ver: 5, msg: "
                "client_connected, clean_start: false"),
            pod="emqx-1", node="emqx@emqx-1.emqx-headless.mqtt.svc.cluster.local",
        )
        t1 = t + timedelta(milliseconds=w.ri(2, 9))
        w.emit(t1, "emqx", "WARN",
               erl(t1, "warning",
                   f"clientid: hes-primary, peername: {peers[old]}:{w.ri(33000, 60000)}, msg: "
                   f"session_takenover, new_peer: {peers[cur]}:{port}"),
               pod="emqx-1", node="emqx@emqx-1.emqx-headless.mqtt.svc.cluster.local")
        t2 = t1 + timedelta(milliseconds=w.ri(30, 200))
        w.emit(
            t2, "head-end", "WARN",
            log4j(t2, "WARN", "MQTT Call: hes-primary", "c.g.hes.mqtt.MqttSession",
                  "MQTT connection lost (hes-primary@tcp://emqx.mqtt.svc.cluster.local:1883): Connection "
                  "lost (32109) - java.io.EOFException; reconnecting in 1s"),
            pod=old, version="6.2.0" if old == canary else "6.1.4",
        )
        cur = old
        t += timedelta(seconds=w.ri(2, 9), milliseconds=w.ri(0, 999))
    t = TAKEOVER[0] + timedelta(minutes=10, seconds=5)
    while t < TAKEOVER[1] + timedelta(minutes=3):
        msg = f"DCU {w.dcu()} OFFLINE: no heartbeat for {w.ri(601, 700)}s"
        w.emit(t, "head-end", "WARN", log4j(t, "WARN", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor", msg),
               pod=stable)
        t += timedelta(seconds=w.ri(1, 6), milliseconds=w.ri(0, 999))
    t = TAKEOVER[1]
    w.emit(
        t, "kubernetes", "INFO", k8s("Normal", "Killing", f"pod/{canary}", "Stopping container head-end"),
        namespace="ami", object=f"pod/{canary}",
    )
    t1 = t + timedelta(minutes=2)
    w.emit(t1, "head-end", "INFO",
           log4j(t1, "INFO", "hb-sweep", "c.g.hes.dcu.HeartbeatMonitor",
                 "heartbeats resumed: 604 DCUs back ONLINE in the last 120s"),
           pod=stable)


def inc_dns(w: World) -> None:
    """GRID-10: both coredns replicas ran on the system node that went NotReady."""
    node = "aks-system-38145-vmss000001"
    cd = ["coredns-6d9c7b5f84-2kq7x", "coredns-6d9c7b5f84-x4p9m"]
    t = at(1, 20, 5, 50)
    w.emit(t, "kubernetes", "WARN",
           k8s("Warning", "NodeNotReady", f"node/{node}", f"Node {node} status is now: NodeNotReady"),
           namespace="", object=f"node/{node}")
    for i, p in enumerate(cd):
        ti = t + timedelta(seconds=1 + i)
        w.emit(ti, "kubernetes", "WARN", k8s("Warning", "NodeNotReady", f"pod/{p}", "Node is not ready"),
               namespace="kube-system", object=f"pod/{p}")
    t1 = at(1, 20, 6, 20)
    w.emit(t1, "kubernetes", "WARN",
           k8s("Warning", "FailedToUpdateEndpoint", "endpoints/kube-dns",
               "Failed to update endpoint kube-system/kube-dns: endpoints has no ready addresses"),
           namespace="kube-system", object="endpoints/kube-dns")
    t2 = at(1, 20, 11, 0)
    for i, p in enumerate(cd):
        ti = t2 + timedelta(seconds=i)
        w.emit(
            ti, "kubernetes", "WARN",
            k8s("Warning", "TaintManagerEviction", f"pod/{p}", "Marking for deletion Pod kube-system/" + p),
            namespace="kube-system", object=f"pod/{p}",
        )
    t3 = at(1, 20, 11, 5)
    for i in range(2):
        np = f"coredns-6d9c7b5f84-{w.hexid(4)}{i}"
        ti = t3 + timedelta(seconds=i)
        w.emit(
            ti, "kubernetes", "WARN",
            k8s("Warning", "FailedScheduling", f"pod/{np}",
                "0/9 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: "
                "}, 8 node(s) didn't match Pod's node affinity/selector. preemption: 0/9 nodes are "
                "available: 9 Preemption is not helpful for scheduling."),
            namespace="kube-system", object=f"pod/{np}",
        )
    t4 = at(1, 20, 37, 40)
    w.emit(t4, "kubernetes", "INFO",
           k8s("Normal", "Scheduled", "pod/coredns-6d9c7b5f84-q8t2w",
               "Successfully assigned kube-system/coredns-6d9c7b5f84-q8t2w to aks-system-38145-vmss000000"),
           namespace="kube-system", object="pod/coredns-6d9c7b5f84-q8t2w")
    t5 = t4 + timedelta(seconds=30)
    w.emit(t5, "kubernetes", "INFO",
           k8s("Normal", "Started", "pod/coredns-6d9c7b5f84-q8t2w", "Started container coredns"),
           namespace="kube-system", object="pod/coredns-6d9c7b5f84-q8t2w")
    # other components, each in its own words
    t = DNS[0] + timedelta(seconds=20)
    while t < DNS[1]:
        x = w.r()
        if x < 0.25:
            w.emit(t, "head-end", "ERROR",
                   log4j(t, "ERROR", "MQTT Rec: hes-primary", "c.g.hes.mqtt.MqttSession",
                         "reconnect failed: MqttException (0) - java.net.UnknownHostException: "
                         "emqx.mqtt.svc.cluster.local"),
                   pod=pods("head-end", t, 2)[0])
        elif x < 0.5:
            b = w.ri(0, 2)
            w.emit(t, "mdm", "WARN",
                   spring(t, "WARN", "ntainer#0-0-C-1", "o.apache.kafka.clients.NetworkClient",
                          "[Consumer clientId=mdm-vee-0, groupId=mdm-vee] Error connecting to node "
                          f"kafka-{b}.kafka-headless.streaming.svc.cluster.local:9092 (id: {b + 1} rack: "
                          f"centralindia-{b + 1})", "mdm"),
                   pod=w.pick(pods("mdm", t, 3)))
        elif x < 0.75:
            host = w.pick(pods("outage", t, 2))
            w.emit(
                t, "outage", "ERROR",
                pino(
                    t, "ERROR", host, "kafka connection error",
                    err=(
                        f"getaddrinfo EAI_AGAIN kafka-{w.ri(0, 2)}.kafka-headless.streaming.svc.cluster.local"
                    ),
                    broker="kafka-headless.streaming.svc.cluster.local:9092",
                ),
                pod=host,
            )
        else:
            ti = t
            w.emit(ti, "rabbitmq", "WARN",
                   erl(ti, "warning",
                       f"<0.{w.ri(10000, 60000)}.0> closing AMQP connection <0.{w.ri(10000, 60000)}.0> "
                       f"(10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{w.ri(30000, 60000)} -> 10.244.9.5:5672, "
                       "vhost: 'grid', user: 'head-end'):\nmissed heartbeats from client, timeout: 60s"),
                   pod="rabbitmq-0")
        t += timedelta(seconds=w.ri(4, 16), milliseconds=w.ri(0, 999))


def inc_export(w: World) -> None:
    """GRID-12: the regulatory export's sequential scans saturate pg-mdm-ro."""
    k8s_cron(w, EXPORT[0], "regulatory-export", "reporting")
    t = EXPORT[0] + timedelta(minutes=4, seconds=10)
    mpods = pods("mdm", t, 3)
    while t < EXPORT[1]:
        m = w.meter()
        w.emit(
            t, "mdm", "ERROR",
            spring(t, "ERROR", f"http-nio-8080-exec-{w.ri(1, 60)}", "c.g.mdm.api.UsageController",
                   f"GET /api/v1/usage/daily meter={m} failed after 5003 ms: "
                   "org.springframework.dao.QueryTimeoutException: PreparedStatementCallback; SQL [SELECT "
                   "day, kwh_import, kwh_export, source "
                   "FROM mdm.reading_daily WHERE meter_id = ? AND day >= ? ORDER BY day]; "
                   "ERROR: canceling statement due to statement timeout", "mdm"),
            pod=w.pick(mpods), version=version("mdm", t),
        )
        t += timedelta(seconds=w.ri(4, 14), milliseconds=w.ri(0, 999))
    w.emit(
        EXPORT[1], "kubernetes", "INFO",
        k8s("Normal", "Killing", f"pod/regulatory-export-{int(EXPORT[0].timestamp() // 60)}-{w.hexid(4)}7",
            "Stopping container export"),
        namespace="reporting", object="job/regulatory-export",
    )


def inc_dlr(w: World) -> None:
    """GRID-13 (ambiguous): one operator's SMSC lets messages expire; nothing here says why."""
    t = DLR[0]
    while t < DLR[1]:
        pod = w.pick(pods("notifier", t, 2))
        tmpl = w.pick(
            ["BILL_DUE_HI", "BILL_DUE_MR", "RECHARGE_OK_HI", "LOW_BAL_MR", "OUTAGE_ETR_EN", "OTP_EN",
             "RECHARGE_OK_MR"]
        )
        msg = (
            f"DLR msgid={w.hexid(16)} status=EXPIRED err=EXP operator=OP-3 template={tmpl} "
            f"msisdn=+91XXXXXX{w.ri(1000, 9999)}"
        )
        w.emit(t, "notifier", "ERROR", pylog(t, "ERROR", "notifier.dlr", msg), pod=pod)
        t += timedelta(seconds=w.ri(2, 9), milliseconds=w.ri(0, 999))


def inc_panic(w: World) -> None:
    """GRID-14: a QoS 1 profile with 13 channels panics ingest; redelivery takes every pod down."""
    t = PANIC[0]
    k = 0
    while t < PANIC[1]:
        ps = pods("ingest", t, 4)
        pod = ps[k % 4]
        t0 = t - timedelta(milliseconds=w.ri(3, 20))
        w.emit(t0, "ingest", "INFO",
               logfmt(t0, "INFO", "decoding load profile", dcu="DCU-MUM-N-0117", meter="MTR-MUM-N-1408812",
                      model="LTCT-3P-v4", channels=13, mqtt_topic="dcu/DCU-MUM-N-0117/reads", qos=1),
               pod=pod, version=version("ingest", t))
        trace = (
            "panic: runtime error: index out of range [12] with length 12\n\ngoroutine "
            f"{w.ri(1000, 9000)} [running]:\n"
            "github.com/gridco/ingest/internal/decode.(*ProfileDecoder).Decode(0xc000a1e0f0, "
            "{0xc0012f8000, 0x1a4, 0x1a4})\n\t/src/internal/decode/profile.go:211 +0x8f4\n"
            "github.com/gridco/ingest/internal/mqtt.(*Handler).onMessage(0xc0001c2a80, {0x1d2e6a0, "
            "0xc000452000})\n\t/src/internal/mqtt/handler.go:96 +0x1b1"
        )
        w.emit(t, "ingest", "ERROR", trace, pod=pod, version=version("ingest", t), stream="stderr")
        t1 = t + timedelta(seconds=w.ri(1, 3))
        w.emit(
            t1, "kubernetes", "WARN",
            k8s("Warning", "BackOff", f"pod/{pod}",
                f"Back-off restarting failed container ingest in pod {pod}_ami({w.hexid(8)}-{w.hexid(4)})"),
            namespace="ami", object=f"pod/{pod}",
        )
        if w.r() < 0.5:
            t2 = t1 + timedelta(milliseconds=w.ri(100, 900))
            w.emit(
                t2, "emqx", "INFO",
                erl(t2, "info",
                    f"clientid: ingest-{pod.rsplit('-', 1)[1]}, peername: "
                    f"10.244.{w.ri(2, 9)}.{w.ri(10, 60)}:{w.ri(30000, 60000)}, msg: client_disconnected, "
                    "reason: tcp_closed, shared_sub: $share/ingest/dcu/+/reads, redispatch: 1"),
                pod="emqx-1", node="emqx@emqx-1.emqx-headless.mqtt.svc.cluster.local",
            )
        k += 1
        t += timedelta(seconds=w.ri(15, 70))
    t = PANIC[1]
    w.emit(t, "emqx", "INFO",
           erl(t, "info",
               'msg: banned, who: clientid DCU-MUM-N-0117, by: ops-admin, reason: "ingest crash loop '
               'INC-4503", until: 2026-01-23T19:52:40+05:30'),
           pod="emqx-1", node="emqx@emqx-1.emqx-headless.mqtt.svc.cluster.local")
    for i, pod in enumerate(pods("ingest", t, 4)):
        ti = t + timedelta(seconds=20 + i * 5)
        w.emit(
            ti, "ingest", "INFO",
            logfmt(
                ti, "INFO", "starting ingest", version=version("ingest", t), commit="c28d0e9", go="go1.21.6"
            ),
            pod=pod, version=version("ingest", t),
        )


def clean_deploys(w: World) -> None:
    """Deploys that went out cleanly: k8s rollout events and startup lines."""
    for did, svc, ver, start, dur, _status, _by, _summary in DEPLOYS:
        if start < DAY0 or did in ("DEP-7305", "DEP-7306", "DEP-7308", "DEP-7312", "DEP-7313"):
            continue
        ns = {
            "outage": "oms", "prepaid": "prepaid", "notifier": "notify", "mdm": "mdm", "billing": "billing",
            "ingest": "ami",
        }[svc]
        n = {"prepaid": 3, "mdm": 3, "ingest": 4}.get(svc, 2)
        t = start + timedelta(seconds=dur - 60)
        rollout(w, t, svc, ns, n)
        for i, pod in enumerate(pods(svc, start + timedelta(seconds=dur + 1), n)):
            ti = t + timedelta(seconds=5 + i * 40)
            if svc in ("prepaid", "mdm"):
                spring_start(w, ti, svc, "mdm" if svc == "mdm" else "",
                             {"prepaid": "PrepaidApplication", "mdm": "MdmApplication"}[svc], pod, ver)
            elif svc == "outage":
                w.emit(ti, "outage", "INFO", pino(ti, "INFO", pod, "oms listening", port=3000, version=ver),
                       pod=pod)
            elif svc == "ingest":
                w.emit(ti, "ingest", "INFO",
                       logfmt(ti, "INFO", "starting ingest", version=ver, commit="e51a9b0", go="go1.21.6"),
                       pod=pod, version=ver)
            elif svc == "billing":
                w.emit(ti, "billing", "INFO",
                       pyjson(ti, "INFO", "gunicorn.error", f"Booting worker with pid: {w.ri(7, 20)}"),
                       pod=pod, version=ver)
            else:
                w.emit(
                    ti, svc, "INFO",
                    pylog(
                        ti, "INFO", f"{svc}.main", f"{svc} {ver} started, consuming notify.sms prefetch=50"
                    ),
                    pod=pod,
                )
    # billing 3.9.0 rollback after GRID-06
    t = at(1, 7, 20) + timedelta(seconds=70)
    rollout(w, t, "billing", "billing", 2)


def background(w: World) -> None:
    t = DAY0
    minute = 0
    while t < END:
        f = load(t)
        lt = t.astimezone(IST)
        for _ in range(w.count(1.25 * f)):
            gateway(w, t + timedelta(seconds=w.r() * 60))
        if w.r() < 0.03:
            gateway_noise(w, t + timedelta(seconds=w.r() * 60))
        for _ in range(w.count(0.32 * f)):
            prepaid_bg(w, t + timedelta(seconds=w.r() * 60))
        if w.r() < 0.022:
            prepaid_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.minute % 15 == 0:
            prepaid_jobs(w, t + timedelta(seconds=w.ri(0, 5)))
        headend_bg(w, t, minute)
        if w.r() < 0.14:
            headend_noise(w, t + timedelta(seconds=w.r() * 60))
        for _ in range(w.count(0.12 * f)):
            headend_cmd(w, t + timedelta(seconds=w.r() * 60))
        for _ in range(w.count(0.55 * (0.6 + f * 0.4))):
            emqx_bg(w, t + timedelta(seconds=w.r() * 60))
        if minute % 3 == 0:
            ingest_bg(w, t + timedelta(seconds=w.r() * 180))
        if w.r() < 0.09:
            ingest_noise(w, t + timedelta(seconds=w.r() * 60))
        if w.r() < 0.2:
            kafka_bg(w, t + timedelta(seconds=w.r() * 60))
        if minute % 2 == 0:
            mdm_bg(w, t + timedelta(seconds=w.r() * 120))
        if w.r() < 0.13:
            mdm_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.minute == 7:
            mdm_hourly(w, t + timedelta(seconds=w.ri(0, 40)))
        if lt.minute % 15 == 0:
            postgres_bg(w, t)
        if w.r() < 0.05:
            postgres_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.minute % 20 == 11:
            redis_bg(w, t + timedelta(seconds=w.ri(0, 50)))
        if w.r() < 0.13:
            rabbit_bg(w, t + timedelta(seconds=w.r() * 60))
        for _ in range(w.count(0.18 * f)):
            billing_bg(w, t + timedelta(seconds=w.r() * 60))
        if w.r() < 0.03:
            billing_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.minute % 5 == 1:
            outage_bg(w, t + timedelta(seconds=w.ri(0, 50)))
        if w.r() < 0.05:
            outage_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.minute % 5 == 2:
            notifier_bg(w, t + timedelta(seconds=w.ri(0, 50)))
        for _ in range(w.count(0.2 * (0.3 + f))):
            notifier_noise(w, t + timedelta(seconds=w.r() * 60))
        if w.r() < 0.02:
            k8s_noise(w, t + timedelta(seconds=w.r() * 60))
        if lt.hour == 0 and lt.minute == 30:
            k8s_cron(w, t, "pg-backup", "db")
        if lt.hour == 1 and lt.minute == 30:
            k8s_cron(w, t, "bill-run", "billing")
        t += timedelta(minutes=1)
        minute += 1


# ---------------------------------------------------------------------------------------------
# Metric exports (5 minutes, IST wall time)
# ---------------------------------------------------------------------------------------------


def metrics(w: World) -> None:
    ticks = [DAY0 + timedelta(minutes=5 * i) for i in range(3 * 288)]
    rng = random.Random(SEED + 1)

    def jit(x: float, p: float = 0.08) -> float:
        return x * (1 + (rng.random() * 2 - 1) * p)

    svc_base = {
        # rps at load 1, p50, p99, error_pct, cpu, mem
        "api-gateway": (210, 38, 420, 0.35, 22, 180), "prepaid": (31, 24, 310, 0.2, 35, 760),
        "head-end": (48, 90, 1800, 0.9, 41, 2300), "ingest": (1340, 6, 40, 0.05, 38, 410),
        "mdm": (120, 35, 380, 0.15, 46, 2900), "billing": (22, 55, 900, 0.3, 28, 620),
        "outage": (15, 12, 140, 0.1, 14, 240), "notifier": (19, 80, 1400, 7.5, 11, 190),
    }
    rows = []
    for t in ticks:
        f = load(t)
        for svc, (rps, p50, p99, err, cpu, mem) in svc_base.items():
            k = f if svc not in ("ingest",) else 1.0
            r = jit(rps * k)
            a50, a99, e, c, m, restarts = (
                jit(p50), jit(p99, 0.2), jit(err, 0.4), jit(cpu * (0.5 + k * 0.5)), jit(mem, 0.03), 0,
            )
            if svc == "prepaid":
                if t >= at(0, 10, 5) and t < OOM[1]:
                    m = min(1023, jit(760 + 180 * f, 0.03))
                if inside(t, OOM[0] - timedelta(minutes=5), OOM[1]):
                    m, restarts, e, a99 = jit(1010, 0.01), rng.randint(1, 2), jit(22, 0.3), jit(9000, 0.2)
                if inside(t, TOO_MANY[0] - timedelta(minutes=3), TOO_MANY[1]):
                    e, a99 = jit(46, 0.2), 30000
                if inside(t, *DNS):
                    e = jit(55, 0.2)
            if svc == "api-gateway":
                if inside(t, *OOM):
                    e = jit(6.5, 0.3)
                if inside(t, *LIMIT):
                    e = jit(71, 0.05)
                if inside(t, *DNS):
                    e = jit(58, 0.1)
                if inside(t, EXPORT[0] + timedelta(minutes=4), EXPORT[1]):
                    e, a99 = jit(19, 0.2), 10000
            if svc == "mdm":
                if inside(t, EXPORT[0] + timedelta(minutes=4), EXPORT[1]):
                    a99, e = jit(5010, 0.01), jit(38, 0.2)
                if inside(t, *VACUUM):
                    c = jit(cpu * 0.5)
            if svc == "ingest":
                if inside(t, *PANIC):
                    r, restarts, c = jit(40, 0.8), rng.randint(3, 6), jit(4)
                if inside(t, *DNS):
                    e = jit(62, 0.1)
                if inside(t, EMFILE[0], EMFILE[1]):
                    r = jit(rps * 0.84)
            if svc == "notifier" and inside(t, RMQ_SLOW, RMQ_ALARM[1]):
                r, a99 = jit(4), jit(9000, 0.2)
            if svc in ("head-end", "billing", "outage", "notifier") and inside(t, *DNS):
                e = jit(40, 0.3)
            rows.append([wall(t), svc, f"{r:.1f}", int(a50), int(a99), f"{min(e, 100):.2f}",
                         f"{min(c, 100):.1f}", int(m), restarts])
    w.table(
        "service_metrics",
        ["ts", "service", "rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct", "mem_mb", "restarts"], rows,
    )

    rows = []
    for t in ticks:
        f = load(t)
        for inst, conns, maxc, cpu, iops in (
            ("pg-mdm", 140, 500, 42, 5200), ("pg-mdm-ro", 60, 500, 24, 1900),
            ("pg-billing", 58, 300, 18, 900),
        ):
            c, cp, io_, lw, idle_tx, lag = (
                jit(conns * (0.7 + 0.3 * f)), jit(cpu * (0.6 + 0.4 * f)), jit(iops * (0.6 + 0.4 * f)), 0,
                rng.randint(0, 2), 0.0,
            )
            if inst == "pg-mdm-ro":
                lag = jit(0.4, 0.5)
            if inst == "pg-billing" and inside(t, LEAK[0], TOO_MANY[1]):
                leaked = min(300 - c, (t - LEAK[0]).total_seconds() / 60 * 6.6)
                idle_tx = int(leaked)
                c = min(300, c + leaked)
                if t >= TOO_MANY[0] - timedelta(minutes=1):
                    c, idle_tx = 300, 241 + rng.randint(0, 3)
            if inst == "pg-mdm" and inside(t, *VACUUM):
                lw, io_, cp = rng.randint(18, 30), jit(7400, 0.02), jit(58)
            if inst == "pg-mdm-ro" and inside(t, *EXPORT):
                cp, io_, c, lag = jit(97, 0.02), jit(7490, 0.005), jit(128, 0.1), jit(3.1, 0.5)
            rows.append([wall(t), inst, int(c), maxc, f"{min(cp, 100):.1f}", int(io_), 7500, lw, idle_tx,
                         f"{lag:.1f}"])
    w.table("db_metrics",
            ["ts", "instance", "connections", "max_connections", "cpu_pct", "iops", "iops_limit",
             "lock_waits", "idle_in_tx", "replica_lag_s"],
            rows)

    rows = []
    for t in ticks:
        f = load(t)
        for b in ("emqx-1", "emqx-2"):
            conns = jit(61000, 0.01)
            msgs = jit(1400 * (0.9 + 0.1 * f), 0.05)
            if b == "emqx-2" and inside(t, EMFILE[0], EMFILE[1]):
                conns, msgs = jit(44000, 0.04), jit(1010, 0.05)
            if b == "emqx-1" and inside(t, EMFILE[0], EMFILE[1]):
                conns = jit(68000, 0.02)
            rows.append([wall(t), b, int(conns), int(msgs), f"{jit(1800, 0.05):.0f}", 8192, 0])
        for b in ("kafka-1", "kafka-2", "kafka-3"):
            msgs = jit(900, 0.05)
            if inside(t, *PANIC):
                msgs = jit(40, 0.5)
            rows.append([wall(t), b, int(jit(210, 0.05)), int(msgs), f"{jit(5200, 0.03):.0f}", 16384, 0])
        depth = rng.randint(0, 300)
        mem = jit(620, 0.05)
        if inside(t, RMQ_SLOW, RMQ_ALARM[1]):
            frac = min(1.0, (t - RMQ_SLOW).total_seconds() / (RMQ_ALARM[0] - RMQ_SLOW).total_seconds())
            depth = (
                int(1812233 * frac * (0.97 + rng.random() * 0.03))
                if t < RMQ_ALARM[0]
                else 1812233 + rng.randint(0, 900)
            )
            mem = 620 + (3130 - 620) * frac if t < RMQ_ALARM[0] else 3130
        rows.append(
            [wall(t), "rabbitmq-0", int(jit(96, 0.05)), int(jit(60 * f + 20)), f"{mem:.0f}", 3130, depth]
        )
    w.table("broker_metrics",
            ["ts", "broker", "connections", "msgs_in_per_s", "mem_used_mb", "mem_limit_mb", "queue_depth"],
            rows)

    rows = []
    for t in ticks:
        for z in ZONES:
            meters = METERS_PER_ZONE[z]
            dcus = DCUS_PER_ZONE[z]
            online = int(dcus - rng.randint(0, 2))
            recv = int(jit(meters * 0.33 * 0.985, 0.01))
            flagged = rng.randint(0, 12)
            if z in ("PNE-E", "NSK") and inside(
                t, EMFILE[0] + timedelta(minutes=2), EMFILE[1] + timedelta(minutes=6)
            ):
                recv = int(recv * (0.55 + rng.random() * 0.05))
            if inside(t, TAKEOVER[0] + timedelta(minutes=10), TAKEOVER[1] + timedelta(minutes=4)):
                online = int(dcus * (0.12 + rng.random() * 0.15))
            if inside(t, *SCALER):
                flagged = int(recv * (0.32 + rng.random() * 0.05))
            if inside(t, *DNS):
                recv = int(recv * 0.3)
            if inside(t, *PANIC):
                recv = int(recv * 0.02)
            rows.append([wall(t), z, online, dcus, recv, flagged])
    w.table(
        "meter_reads", ["ts", "zone", "dcus_online", "dcus_total", "readings_written", "readings_flagged"],
        rows,
    )

    rows = []
    for t in ticks:
        f = load(t)
        for group, topic, base in (
            ("mdm-vee", "meter.readings", 1800), ("mdm-daily", "meter.readings.daily", 40),
            ("oms-events", "meter.events", 25),
        ):
            lag = int(jit(base, 0.5))
            if group == "mdm-daily" and inside(t, *VACUUM):
                lag = int((t - VACUUM[0]).total_seconds() * 41)
            if inside(t, *DNS) and group != "mdm-daily":
                lag = int(jit(base * 60, 0.2))
            rows.append([wall(t), group, topic, lag])
    w.table("consumer_lag", ["ts", "consumer_group", "topic", "lag"], rows)


# ---------------------------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------------------------

DOCS = {
    "platform-overview": """# Smart-meter platform: on-call overview

Owner: AMI platform team. Times are India Standard Time (IST, UTC+05:30) unless a tool says
otherwise: metric exports and job runs are IST wall time, deploys (argocd) are UTC, config
changes carry their offset, nginx access lines are IST.

## Flow

- About 122k 4G/NB-IoT meters and 818 RF-mesh DCUs connect over MQTT/TLS to
  emqx-lb.ami.gridco.example:8883, a load balancer in front of emqx-1 and emqx-2. Meters publish
  load profiles every 15 minutes (QoS 1) and heartbeats (QoS 0).
- ingest (Go) takes profiles from the shared subscription `$share/ingest/dcu/+/reads`, decodes
  the DLMS registers and writes them to kafka (`meter.readings`, `meter.events`).
- mdm validates (VEE: spike, gap and estimation checks), stores intervals and daily aggregates
  in postgres pg-mdm, and serves the app's usage pages from the replica pg-mdm-ro.
- head-end tracks DCU/meter heartbeats over MQTT (client id `hes-primary`, one active instance)
  and executes relay commands (disconnect/reconnect) that prepaid and billing publish to the
  rabbitmq exchange `hes.commands`.
- prepaid (recharges, balances, low-balance disconnects) and billing (bill-run 01:30, e-bill
  dispatch 06:00) share postgres pg-billing. notifier sends SMS from the `notify.sms` queue
  through api.smsgateway.example. outage turns last-gasp alarms and silent feeders into tickets.
- api-gateway is nginx behind the Azure load balancer; the app calls /api/v1/*.

## Where to look

- `dependencies` for edges and endpoints; `service_metrics`, `db_metrics`, `broker_metrics`,
  `meter_reads`, `consumer_lag` for numbers; `deploys`, `config_changes`, `schema_migrations`,
  `job_runs` for changes and jobs. Log lines from the `kubernetes` source are cluster events.
""",
    "known-noise": """# Known noise

These show up every day and do not by themselves mean customers are affected.

- notifier: `DLR ... status=UNDELIV` / `EXPIRED` / `REJECTD` for a few percent of SMS (handsets
  off, DND numbers), `HTTP 429` throttling from the SMS aggregator at peaks, missing `due_date`
  template variables. notifier error_pct sits around 7%.
- head-end: `association refused: HLS authentication failure` for meters with stale keys,
  DCU clock drift, single DCUs going OFFLINE and back ONLINE (power cuts, tower maintenance).
- emqx: `keepalive_timeout` and `client_disconnected` (meters on weak signal).
- ingest: `duplicate reading dropped` (DCU retransmits), future timestamps clamped.
- mdm: gap estimation warnings.
- outage: single-meter last-gasp (`not an outage`).
- postgres: `duplicate key ... recharge_upi_ref_key` (prepaid's idempotent UPI callbacks);
  `could not receive data from client` from the BI tool.
- prepaid: late UPI callbacks ignored; tariff cache refresh over 2 s.
- billing: estimated bills for accounts without an actual read; LT-IX tariff fallback in the
  bill-run.
- api-gateway: `an upstream response is buffered to a temporary file` for bill PDFs.
- kafka: `Unexpected error from /10.244...; closing connection` (clients going away).
- rabbitmq: `client unexpectedly closed TCP connection`.
- kubernetes: occasional readiness probe timeouts.
""",
    "dcu-offline": """# Many meters or DCUs offline at once

Owner: AMI platform team.

## Symptoms

- head-end logs many `DCU ... OFFLINE: no heartbeat` lines, the heartbeat sweep shows
  meters offline far above the usual ~2k, outage opens suspected outages for whole feeders,
  `meter_reads.readings_written` drops for some zones.

## Finding the cause

- Most mass-offline events have been emqx: after a cellular blip thousands of meters reconnect
  at once and an emqx node runs out of file descriptors (`Accept error ... EMFILE`), refusing new
  TLS connections. Check emqx logs per node (emqx-1, emqx-2) and `broker_metrics.connections`.
- Fix: restart the affected emqx node with a higher `nofile` limit; tell the network team.
- If emqx accepts connections normally, check the cellular APN status page with the telecom
  operator.
""",
    "postgres-connections": """# postgres: "sorry, too many clients already"

Owner: DBA team. pg-billing has max_connections 300, pg-mdm 500.

## Symptoms

- Clients get `FATAL: sorry, too many clients already` (SQLSTATE 53300); Java services log
  `HikariPool-1 - Connection is not available`.

## Finding the cause

- `db_metrics.connections` at `max_connections`; `idle_in_tx` counts sessions idle in a
  transaction (a client that opened a transaction and never finished it).
- In pg_stat_activity, group by `application_name` and `state` to see who holds them; match a
  sudden climb with `deploys` and `job_runs` of the services that share the database
  (pg-billing: prepaid, billing, outage).
- Roll back the offender, then `pg_terminate_backend` its idle-in-transaction sessions.
""",
    "rabbitmq-alarms": """# rabbitmq: memory and disk alarms

Owner: platform team. rabbitmq-0 has vm_memory_high_watermark 0.4 (about 3.1 GB).

- When the memory or disk alarm is set, rabbitmq blocks **every** publishing connection on the
  node, not only the one that filled it: prepaid's relay commands and billing's SMS links stop
  together. Publishers with confirms log confirm timeouts; others just hang.
- Look at `broker_metrics.queue_depth` / `mem_used_mb` for rabbitmq-0 and find the queue that
  grew (usually `notify.sms` when notifier cannot submit).
- Fix: get the consumer going (or purge the queue with the business owner's approval); the alarm
  clears on its own once memory falls below the watermark.
""",
}


# ---------------------------------------------------------------------------------------------
# Truth
# ---------------------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, iso, globals())


main = engine.main(NAME, world, __name__, DOCS)
