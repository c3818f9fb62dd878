"""Write the held-out "hosp" world: a German hospital's clinical systems platform.

Three days (2026-11-10..12, Central European Time, UTC+01:00, Europe/Berlin, standard time) of logs
from 14 components, the ops tables the Klinikum's IT on-call has (dependencies, deploys, config
changes, schema migrations, batch/cron runs, per-minute and 5-minute metric exports) and the
runbooks, with 14 incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_hosp.py [OUT_DIR]   # writes OUT_DIR/hosp/ (default tests/data/worlds)

The platform ("Klinikum Nordhafen", Kubernetes namespace klinik-prod plus a few VMs): clinicians and
patients come in through the HAProxy **edge** (frontends fe_clinical, fe_portal, fe_pacs). **ehr-api**
(Java/Spring, the electronic health record) serves the ward UI; **cpoe** (Java, order entry) sends lab
orders to the **lis** (python, lab information system) over HTTPS and medication orders to
**pharmacy** (.NET, dispensing robot); the **hl7-engine** (Mirth-style HL7 v2 interface engine, MLLP)
carries ADT and lab results (ORU) between lis and ehr-api; **pacs-gateway** (dcm4che, DICOM C-STORE,
storage commitment, WADO-RS) fronts the image archive; **fhir-facade** (go) exposes FHIR R4 to the
patient portal and partner apps; **patient-portal** (node) and **scheduling** (go, appointments);
**keycloak** (SSO, realms klinik and patienten, LDAP federation to the Active Directory);
**postgres** (pg-klinik-01 primary), **redis** (sessions, slot cache) and **rabbitmq** (lis.results,
audit.events).
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta, timezone
from functools import partialmethod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import every, inside, ms3, utc, zulu, zulu_ms  # noqa: E402

NAME, SEED = "hosp", 20261110
HOSP_COMPONENTS = ("edge ehr-api cpoe lis hl7-engine pacs-gateway pharmacy patient-portal keycloak "
                   "scheduling fhir-facade postgres redis rabbitmq").split()
NS = "klinik-prod"
CET = timezone(timedelta(hours=1))
LOCAL = engine.Clock(CET, datetime(2026, 11, 10, tzinfo=CET))
DAY0, END = LOCAL.days(3)
at, lt, loc, wall = LOCAL.at, LOCAL.iso, LOCAL.loc, LOCAL.wall
wmin = LOCAL.minute




# the day's load: (hour, load), straight lines between
DAY_CURVE = [(0, 0.15), (5, 0.12), (6.5, 0.45), (8, 0.95), (11, 1.0), (13, 0.85), (15, 0.9), (17, 0.6),
           (19, 0.4), (22, 0.25), (24, 0.15)]


def load(t: datetime) -> float:
    """Hospital traffic: quiet nights, ward rounds from 07:00, a busy day, shift changes at 06, 14, 22."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.15)


# What goes wrong (local CET times)
CERT = (at(0, 7, 31, 12), at(0, 8, 22, 40))  # HOSP-01 lis cert renewed without the intermediate
KEYROT = (at(0, 10, 20, 0), at(0, 11, 12, 0))  # HOSP-02 keycloak key rotation, fhir-facade JWKS cache
TIER2 = (at(0, 13, 52, 30), at(0, 14, 55, 0))  # HOSP-03 PACS archive tier2 full, storage commitment fails
LOCK = (at(1, 5, 58, 3), at(1, 6, 52, 20))  # HOSP-05 cpoe-order-archive LOCK TABLE at shift change
MAXCONN = (at(1, 9, 22, 0), at(1, 10, 8, 0))  # HOSP-06 edge fe_portal maxconn reached
LDAP = (at(1, 10, 58, 0), at(1, 11, 48, 0))  # HOSP-07 svc-keycloak-ldap bind password expired
AMTS = (at(1, 14, 12, 0), at(1, 15, 5, 0))  # HOSP-08 external AMTS drug check service slow
MLLP = (at(2, 7, 55, 10), at(2, 8, 52, 0))  # HOSP-10 hl7-engine half-open MLLP, ACK timeouts
TSRV = (at(2, 10, 22, 0), at(2, 11, 14, 0))  # HOSP-11 edge be_pacs timeout server 300s -> 30s
DISK = (at(2, 13, 18, 0), at(2, 14, 15, 0))  # HOSP-12 rabbitmq-1 disk alarm (audit.events grew)
BACKUP = (at(2, 15, 52, 0), at(2, 16, 58, 0))  # HOSP-13 pg basebackup saturates pg-klinik-01 I/O
CLOCK = (at(2, 18, 58, 0), at(2, 19, 50, 0))  # HOSP-14 kc-node-2 clock 94 s ahead, NTP unreachable


class World(engine.Dataset):
    always_attrs = True

    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.no = 4_410_000

    pid = partialmethod(engine.Dataset.numbered, "PID", 1000000, 9899999)
    case = partialmethod(engine.Dataset.numbered, "FALL-", 26000000, 26999999)

    def order(self) -> str:
        return f"ORD-{self.counter('no', 1, 7)}"

    def uid(self) -> str:
        return f"1.2.276.0.7230010.3.1.2.{self.ri(100000, 999999)}.{self.ri(1000, 9999)}"


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,), (incidents,), (DEPLOYS, rollout))
    extra = quiet_nights(w)
    metrics(w)
    batch_runs(w, extra)
    return w, engine.manifest(NAME, "Europe/Berlin", "A German hospital's clinical systems platform",
                              "2026-11-10..12 German time", 14, HOSP_COMPONENTS, dayfirst=True), truth()

PODS = {
    "edge": [("haproxy-01", "lb-vm-01"), ("haproxy-02", "lb-vm-02")],
    "ehr-api": [
        (f"ehr-api-7d9c6b5f8-{s}", f"k8s-w{n}") for s, n in (("q2x7m", 1), ("h8k3p", 2), ("z5v9d", 3))
    ],
    "cpoe": [(f"cpoe-6b8f7c9d4-{s}", f"k8s-w{n}") for s, n in (("m4t8r", 2), ("w7n2k", 3))],
    "lis": [("lis-app-01", "lis-vm-01")], "hl7-engine": [("hl7-engine-0", "k8s-w4")],
    "pacs-gateway": [(f"pacs-gateway-5c7d8b9f6-{s}", f"k8s-w{n}") for s, n in (("r3p6x", 4), ("t9k2w", 5))],
    "pharmacy": [(f"pharmacy-84f6d7c5b-{s}", f"k8s-w{n}") for s, n in (("b6m3q", 1), ("j2x8v", 5))],
    "patient-portal": [
        (f"patient-portal-6d5f8c7b9-{s}", f"k8s-w{n}") for s, n in (("c7h4n", 1), ("p5w8z", 3))
    ],
    "keycloak": [("keycloak-0", "kc-node-1"), ("keycloak-1", "kc-node-2")],
    "scheduling": [(f"scheduling-5f9b7d6c8-{s}", f"k8s-w{n}") for s, n in (("e4r7t", 2), ("u8y3k", 4))],
    "fhir-facade": [(f"fhir-facade-7c6d9f8b5-{s}", f"k8s-w{n}") for s, n in (("g2m5s", 3), ("n6q9a", 5))],
    "postgres": [("pg-klinik-01", "db-vm-01"), ("pg-klinik-02", "db-vm-02")],
    "redis": [("redis-sessions-0", "k8s-w6"), ("redis-slots-0", "k8s-w6")],
    "rabbitmq": [("rabbitmq-0", "k8s-w6"), ("rabbitmq-1", "k8s-w7"), ("rabbitmq-2", "k8s-w8")],
}

BASE_VERSION = {
    "ehr-api": "12.4.2", "cpoe": "5.9.1", "lis": "3.8.0", "hl7-engine": "4.5.2", "pacs-gateway": "5.31.0",
    "pharmacy": "7.2.4", "patient-portal": "2.18.0", "keycloak": "25.0.6", "scheduling": "4.1.3",
    "fhir-facade": "1.14.0",
}

# (id, service, version, started (CET), seconds, status, by, summary)
DEPLOYS = engine.table(at, "ssstisss", """
DEP-3310 | fhir-facade | 1.14.0 | -1 15:10 | 240 | Succeeded | argocd | Appointment resource: include
    serviceType
DEP-3311 | cpoe | 5.9.2 | 0 07:20 | 300 | Succeeded | argocd | order set 'Sepsis-Bundle' v3, print layout
    fix
DEP-3312 | patient-portal | 2.18.1 | 0 12:05 | 240 | Succeeded | argocd | Befund-Download: PDF filename with
    date
DEP-3313 | scheduling | 4.2.0 | 1 09:10 | 300 | Succeeded | argocd | Grippeimpfung slots: new appointment
    type IMPF-GRIPPE
DEP-3314 | pharmacy | 7.3.0 | 1 14:02 | 360 | Succeeded | argocd | Stationsanforderung: batch quantities,
    BTM-Buch export
DEP-3315 | ehr-api | 12.5.0 | 2 07:38 | 420 | Succeeded | argocd | Pflegedokumentation: new vital signs
    chart
DEP-3316 | patient-portal | 2.19.0 | 2 15:30 | 240 | Succeeded | argocd | Terminerinnerung per E-Mail opt-in
DEP-3317 | lis | 3.8.1 | 2 12:40 | 600 | Succeeded | ansible | reference ranges update Klinische Chemie
""")


def version(service: str, t: datetime) -> str:
    return engine.deployed(BASE_VERSION.get(service, ""), DEPLOYS, service, t, 0.5)  # half-way through


# (id, service, key, from, to, author, applied (CET), ticket, summary)
CONFIG = engine.table(at, "sssssstss", """
CHG-2201 | edge | fe_clinical http-request set-header | - | Strict-Transport-Security max-age=31536000 |
    m.becker | 0 09:05 | IT-5510 | HSTS on clinical frontend
CHG-2202 | keycloak | realm klinik keys | rsa-generated k-2026-05 active; no k-2026-11 | rsa-generated
    k-2026-11 active priority 200; k-2026-05 disabled | s.wolf | 0 10:20 | IAM-318 | half-yearly realm
    signing key rotation
CHG-2203 | scheduling | SLOT_CACHE_TTL_S | 60 | 120 | t.nguyen | 1 08:40 | TERM-77 | fewer slot recomputations
CHG-2204 | keycloak | ldap federation svc-keycloak-ldap bind credential | (expired) | (reset) | s.wolf | 1
    11:46 | IAM-322 | AD service account password reset after expiry
CHG-2205 | pharmacy | AMTS_TIMEOUT_MS | 3000 | 3000 | k.schulz | 1 13:30 | APO-140 | no-op: confirm timeout
    after audit
CHG-2206 | edge | be_pacs timeout server | 300s | 30s | m.becker | 2 10:22 | IT-5531 | align backend timeouts
    with fe_clinical (harden against slowloris)
CHG-2207 | edge | be_pacs timeout server | 30s | 300s | m.becker | 2 11:14 | IT-5533 | revert IT-5531: WADO
    retrieves of large CT series need minutes
CHG-2208 | rabbitmq | audit.events max-length-bytes policy | none | 2GB | j.krueger | 2 14:10 | OPS-981 | cap
    audit.events after disk alarm
""")

MIGRATIONS = engine.table(at, "isssstiis", """
88 | 88 | orders add priority_code | V88__orders_priority_code.sql | flyway_cpoe | -3 14:02 | 3120 | 1 | cpoe
89 | 89 | medication orders index | V89__medorders_idx.sql | flyway_cpoe | 0 07:21 | 811 | 1 | cpoe
412 | 412 | vital signs chart tables | V412__vital_signs_chart.sql | flyway_ehr | 2 07:39 | 2440 | 1 | ehr
""")

DEPENDENCIES = engine.rows("""
    ward browsers | edge | https | klinik.nordhafen.example:443 (fe_clinical)
    patients | edge | https | portal.nordhafen.example:443 (fe_portal, maxconn 2000)
    radiology viewers | edge | https | pacs.nordhafen.example:443 (fe_pacs -> be_pacs)
    edge | ehr-api | http | be_ehr ehr-api.klinik-prod.svc:8080
    edge | cpoe | http | be_cpoe cpoe.klinik-prod.svc:8080
    edge | patient-portal | http | be_portal patient-portal.klinik-prod.svc:3000
    edge | pacs-gateway | http | be_pacs pacs-gateway.klinik-prod.svc:8080 (WADO-RS, QIDO-RS)
    edge | keycloak | http | be_sso keycloak.klinik-prod.svc:8080 (sso.nordhafen.example)
    ehr-api | postgres | postgresql | pg-klinik-01:5432 db ehr (via pgbouncer)
    ehr-api | keycloak | https | realm klinik JWKS (token validation)
    ehr-api | redis | redis | redis-sessions-0:6379
    hl7-engine | ehr-api | mllp | ehr-hl7.klinik-prod.svc:6661 (ORU^R01, ADT inbound listener)
    lis | hl7-engine | mllp | hl7-engine:6670 (ORU^R01 results)
    hl7-engine | lis | mllp | lis-app-01:2575 (ADT^A01/A08 to LIS)
    lis | rabbitmq | amqp | rabbitmq:5672 (queue lis.results, audit.events)
    cpoe | lis | https | lis.nordhafen.example:8443 /api/orders (lab orders, Java truststore)
    cpoe | pharmacy | http | pharmacy.klinik-prod.svc:8080 (medication orders RDE^O11)
    cpoe | postgres | postgresql | pg-klinik-01:5432 db cpoe (table cpoe.orders)
    cpoe | keycloak | https | realm klinik JWKS
    pharmacy | AMTS-Dienst (external drug safety check) | https | amts.arzneicheck.example:443
    pharmacy | postgres | postgresql | pg-klinik-01:5432 db pharmacy
    pacs-gateway | PACS archive | dicom | ARCHIVE_T1 10.30.4.10:11112, ARCHIVE_T2 10.30.4.11:11112
    pacs-gateway | postgres | postgresql | pg-klinik-01:5432 db pacs_index
    patient-portal | fhir-facade | http | fhir-facade.klinik-prod.svc:8080 (/fhir/R4)
    patient-portal | scheduling | http | scheduling.klinik-prod.svc:8080
    patient-portal | keycloak | https | realm patienten (login)
    fhir-facade | ehr-api | http | ehr-api.klinik-prod.svc:8080
    fhir-facade | keycloak | https | realm klinik JWKS (cached, refresh every 6 h)
    scheduling | postgres | postgresql | pg-klinik-01:5432 db scheduling
    scheduling | redis | redis | redis-slots-0:6379 (slot cache)
    keycloak | Active Directory | ldaps | ldaps://ad.nordhafen.example:636 (bind svc-keycloak-ldap)
    keycloak | postgres | postgresql | pg-klinik-01:5432 db keycloak
""")


def change_tables(w: World) -> None:
    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"),
            [[d, s, v, f"registry.nordhafen.example/klinik/{s}:{v}", zulu(t0),
              zulu(t0 + timedelta(seconds=dur)), st, by, summ]
             for d, s, v, t0, dur, st, by, summ in DEPLOYS])
    w.table("config_changes", engine.columns("CONFIG_SUMMARY"),
            [[c, s, k, a, b, who, loc(t).isoformat(timespec="seconds"), tk, summ]
             for c, s, k, a, b, who, t, tk, summ in CONFIG])
    w.table("schema_migrations", engine.columns("FLYWAY_SCHEMA"),
            [[r, v, d, sc, by, wall(t), ms, ok, sch] for r, v, d, sc, by, t, ms, ok, sch in MIGRATIONS])
    w.table("dependencies", engine.columns("DEPENDENCIES_VIA"), [list(d) for d in DEPENDENCIES])


# ---------------------------------------------------------------------------------------------
# Log formats
# ---------------------------------------------------------------------------------------------


def attrs_of(w: World, service: str, t: datetime, p=None, **more: str) -> dict:
    name, node = p or w.pick(PODS[service])
    a = (
        {"pod": name, "namespace": NS, "node": node}
        if service not in ("edge", "lis", "postgres")
        else {"host": name}
    )
    v = version(service, t)
    if v:
        a["version"] = v
    a.update(more)
    return a


def edge(
    w: World, t: datetime, fe: str, be: str, srv: str, method: str, path: str, status: int, tr: int, p=None
) -> None:
    lt = loc(t)
    ip = f"10.{w.pick(['40', '41', '44'])}.{w.ri(1, 60)}.{w.ri(2, 250)}"
    flags = "----" if status < 500 else ("sH--" if status == 504 else "SC--")
    ac = w.ri(40, 400)
    line = (
        f"haproxy[{w.pick([2231, 2232])}]: {ip}:{w.ri(30000, 65000)} "
        f"[{lt.strftime('%d/%b/%Y:%H:%M:%S')}.{ms3(lt)}] {fe}~ {be}/{srv} 0/0/1/{tr}/{tr + 1} {status} "
        f"{w.ri(300, 90000)} - - {flags} {ac}/{ac - 2}/{w.ri(1, 40)}/{w.ri(1, 12)}/0 0/0 "
        f'"{method} {path} HTTP/1.1"'
    )
    lv = "ERROR" if status >= 500 else "WARN" if status >= 400 else "INFO"
    w.emit(t, "edge", lv, line, **attrs_of(w, "edge", t, p))


def spring(
    w: World, t: datetime, service: str, level: str, thread: str, logger: str, msg: str, p=None
) -> None:
    """ehr-api: Spring Boot default pattern, local time with offset."""
    lt = loc(t)
    line = (
        f"{lt.strftime('%Y-%m-%dT%H:%M:%S')}.{ms3(lt)}+01:00 {level:>5} 1 --- [{service}] "
        f"[{thread[-15:]:>15}] {logger:<36} : {msg}"
    )
    w.emit(t, service, level, line, **attrs_of(w, service, t, p))


def cpoe(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    """cpoe: logback, UTC without marker."""
    u = utc(t)
    w.emit(t, "cpoe", level,
           f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{ms3(u)} {level:<5} [{thread}] {logger} - {msg}",
           **attrs_of(w, "cpoe", t))


PYLV = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def lis(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    lt = loc(t)
    w.emit(t, "lis", level, f"{lt.strftime('%Y-%m-%d %H:%M:%S')},{ms3(lt)} {PYLV[level]} {logger}: {msg}",
           **attrs_of(w, "lis", t))


def hl7(w: World, t: datetime, level: str, channel: str, logger: str, msg: str) -> None:
    u = utc(t)
    w.emit(t, "hl7-engine", level,
           f"{level:<5} {u.strftime('%Y-%m-%d %H:%M:%S')},{ms3(u)} [{channel}] {logger}: {msg}",
           **attrs_of(w, "hl7-engine", t, channel=channel.split(" ")[0]))


def dcm(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    w.emit(t, "pacs-gateway", level, f"{zulu_ms(t)} {level:<5} [{thread}] {logger}: {msg}",
           **attrs_of(w, "pacs-gateway", t))


SERILOG = {"DEBUG": "Debug", "INFO": "Information", "WARN": "Warning", "ERROR": "Error", "FATAL": "Fatal"}


def pharm(w: World, t: datetime, level: str, ctx: str, msg: str, **props) -> None:
    u = utc(t)
    body = {
        "@t": u.strftime("%Y-%m-%dT%H:%M:%S.") + f"{u.microsecond:06d}0Z", "@l": SERILOG[level], "@mt": msg,
        "@m": msg.format(**props) if props else msg, "SourceContext": ctx,
    }
    body.update(props)
    w.emit(t, "pharmacy", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "pharmacy", t))


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def portal(w: World, t: datetime, level: str, msg: str, **extra) -> None:
    p = w.pick(PODS["patient-portal"])
    body = {"level": PINO[level], "time": int(t.timestamp() * 1000), "pid": 1, "hostname": p[0]}
    body.update(extra)
    body["msg"] = msg
    w.emit(t, "patient-portal", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "patient-portal", t, p))


def kc(w: World, t: datetime, level: str, logger: str, thread: str, msg: str, p=None) -> None:
    lt = loc(t)
    w.emit(t, "keycloak", level,
           f"{lt.strftime('%Y-%m-%d %H:%M:%S')},{ms3(lt)} {level:<5} [{logger}] ({thread}) {msg}",
           **attrs_of(w, "keycloak", t, p))


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    body = {"level": level.lower(), "ts": zulu_ms(t), "caller": caller, "msg": msg}
    body.update(kv)
    w.emit(t, "scheduling", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "scheduling", t))


def lf(v) -> str:
    s = str(v)
    return f'"{s}"' if (" " in s or "=" in s or s == "") else s


def fhir(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    parts = [f"time={zulu_ms(t)}", f"level={level.lower()}", f"msg={lf(msg)}"]
    parts += [f"{k}={lf(v)}" for k, v in kv.items()]
    w.emit(t, "fhir-facade", level, " ".join(parts), **attrs_of(w, "fhir-facade", t))


PGLV = {"DEBUG": "DEBUG", "INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}


def pg(w: World, t: datetime, level: str, msg: str, who: str = "", host: str = "pg-klinik-01",
       pgpid: int | None = None) -> None:
    u = utc(t)
    line = (
        f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{ms3(u)} UTC [{pgpid or w.ri(20000, 40000)}] "
        f"{who + ' ' if who else ''}{PGLV[level]}:  {msg}"
    )
    w.emit(t, "postgres", level, line,
           **attrs_of(w, "postgres", t, next(p for p in PODS["postgres"] if p[0] == host)))


def rds(w: World, t: datetime, level: str, msg: str, inst: str = "redis-sessions-0") -> None:
    u = utc(t)
    mark = {"INFO": "*", "WARN": "#", "DEBUG": ".", "ERROR": "#", "FATAL": "#"}[level]
    w.emit(t, "redis", level, f"1:M {u.strftime('%d %b %Y %H:%M:%S')}.{ms3(u)} {mark} {msg}",
           **attrs_of(w, "redis", t, next(p for p in PODS["redis"] if p[0] == inst)))


RMQ = {"DEBUG": "debug", "INFO": "info", "WARN": "warning", "ERROR": "error", "FATAL": "critical"}


def rmq(w: World, t: datetime, level: str, msg: str, node: str | None = None) -> None:
    u = utc(t)
    p = next(x for x in PODS["rabbitmq"] if x[0] == node) if node else w.pick(PODS["rabbitmq"])
    w.emit(t, "rabbitmq", level,
           f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{u.microsecond:06d}+00:00 [{RMQ[level]}] "
           f"<0.{w.ri(300, 9000)}.0> {msg}", **attrs_of(w, "rabbitmq", t, p))


# ---------------------------------------------------------------------------------------------
# Background (per minute)
# ---------------------------------------------------------------------------------------------

EHR_PATHS = ["/api/v2/patients/{p}/chart", "/api/v2/encounters/{c}/notes", "/api/v2/patients/{p}/labs",
             "/api/v2/wards/{n}/census", "/api/v2/patients/{p}/vitals"]
BG = 1.0


def bad_ehr(t: datetime) -> bool:
    return inside(t, BACKUP)


def background(w: World, t: datetime) -> None:
    ld = load(t)
    h = loc(t).hour
    # edge access logs (sampled)
    for _ in range(w.count(2.2 * ld * BG)):
        tt = w.jit(t)
        fe, be, srv = w.pick(
            [("fe_clinical", "be_ehr", "ehr-api-1"), ("fe_clinical", "be_ehr", "ehr-api-2"),
             ("fe_clinical", "be_cpoe", "cpoe-1"), ("fe_portal", "be_portal", "portal-1"),
             ("fe_pacs", "be_pacs", "pacs-1"), ("fe_clinical", "be_sso", "kc-1")]
        )
        path = w.pick(EHR_PATHS).format(p=w.pid(), c=w.case(), n=w.ri(10, 48))
        if be == "be_portal":
            path = w.pick(["/api/appointments", "/api/befunde", "/api/profile", "/"])
            if inside(tt, MAXCONN) and w.r() < 0.6:
                continue
        if be == "be_pacs":
            path = f"/dicom-web/studies/{w.uid()}/series"
        if be == "be_sso":
            path = "/realms/klinik/protocol/openid-connect/token"
        st = 200 if w.r() > 0.03 else w.pick([401, 404, 404, 409])
        rt = w.ri(8, 180) + (w.ri(2000, 6000) if be == "be_ehr" and bad_ehr(tt) else 0)
        edge(w, tt, fe, be, srv, w.pick(["GET", "GET", "GET", "POST"]), path, st, rt)
    # ehr-api
    for _ in range(w.count(0.9 * ld)):
        tt = w.jit(t)
        spring(w, tt, "ehr-api", "INFO", f"http-nio-8080-exec-{w.ri(1, 40)}", "d.k.ehr.web.ChartController",
               f"GET chart {w.pid()} served in {w.ri(30, 240)} ms")
    if w.r() < 0.05 * ld + 0.01:
        spring(
            w, w.jit(t), "ehr-api", "WARN", f"http-nio-8080-exec-{w.ri(1, 40)}", "d.k.ehr.db.SlowQueryLog",
            f"slow query on encounter_notes took {w.ri(1100, 1900)} ms",
        )
    # cpoe
    for _ in range(w.count(0.5 * ld)):
        tt = w.jit(t)
        if inside(tt, LOCK):
            continue
        cpoe(w, tt, "INFO", f"http-nio-8080-exec-{w.ri(1, 30)}", "d.k.cpoe.order.OrderService",
             f"order {w.order()} saved for {w.case()} ({w.pick(['LAB', 'LAB', 'MED', 'RAD'])})")
    if w.r() < 0.025:
        cpoe(w, w.jit(t), "WARN", "scheduling-1", "d.k.cpoe.order.OrderSetLoader",
             f"order set {w.ri(100, 180)} references inactive item, skipped")
    # lis (always a bit noisy)
    for _ in range(w.count(0.5 * ld)):
        lis(w, w.jit(t), "INFO", "lis.results",
            f"result {w.ri(7000000, 7999999)} validated, ORU^R01 queued")
    if w.r() < 0.06:
        lis(w, w.jit(t), "WARN", "lis.analyzer",
            f"analyzer cobas-8000-{w.ri(1, 3)} QC rule 1-2s warning on test K (lot 2611), run accepted")
    # hl7-engine: the always-warning service
    for _ in range(w.count(0.7 * ld)):
        hl7(w, w.jit(t), "INFO", "ORU_LIS_TO_EHR Destination 1", "c.m.c.c.mllp.MllpDispatcher",
            f"sent ORU^R01 MSG{w.ri(10000000, 99999999)}, ACK AA in {w.ri(4, 40)} ms")
    for _ in range(w.count(0.35 + 0.3 * ld)):
        tt = w.jit(t)
        kind = w.r()
        if kind < 0.5:
            hl7(w, tt, "WARN", "ADT_IN Source", "c.m.s.ChannelFilter",
                f"ADT^A08 for unknown {w.pid()} filtered (patient not yet merged)")
        elif kind < 0.85:
            hl7(w, tt, "WARN", "ADT_TO_LIS Destination 1", "c.m.s.Transformer",
                f"segment ZBE unexpected in MSG{w.ri(10000000, 99999999)}, ignored")
        else:
            hl7(w, tt, "WARN", "ORU_LIS_TO_EHR Source", "c.m.s.Validator",
                f"OBX-{w.ri(5, 8)} value exceeds 200 chars, truncated in MSG{w.ri(10000000, 99999999)}")
    # pacs-gateway
    for _ in range(w.count(0.4 * ld)):
        tt = w.jit(t)
        if inside(tt, TIER2) and w.r() < 0.5:
            continue
        dcm(w, tt, "INFO", f"STORESCP-{w.ri(1, 16)}", "o.d.n.s.StoreSCP",
            f"C-STORE RSP status 0H from {w.pick(['CT_SIEMENS_02', 'MR_PHILIPS_01', 'CR_FUJI_04'])} "
            f"sop {w.uid()}")
    if w.r() < 0.04:
        dcm(w, w.jit(t), "WARN", f"STORESCP-{w.ri(1, 16)}", "o.d.n.s.StoreSCP",
            f"association from US_GE_0{w.ri(1, 3)} released without A-RELEASE-RP (modality bug)")
    # pharmacy
    for _ in range(w.count(0.3 * ld)):
        tt = w.jit(t)
        if inside(tt, LOCK):
            continue
        pharm(w, tt, "INFO", "Apotheke.Dispensing.RobotClient", "Dispensed {Count} packs for {OrderId}",
              Count=w.ri(1, 6), OrderId=w.order())
    if loc(t).minute == 17:
        pharm(w, w.jit(t), "ERROR", "Apotheke.Dispensing.RowaHeartbeat",
              f"Robot BD-Rowa-1 heartbeat missed ({w.ri(1, 2)} of 3), reconnecting")
    # patient-portal
    for _ in range(w.count(0.5 * ld)):
        tt = w.jit(t)
        if inside(tt, MAXCONN) and w.r() < 0.6:
            continue
        portal(w, tt, "INFO", "request completed",
               req={"method": "GET", "url": w.pick(["/api/appointments", "/api/befunde", "/api/profile"])},
               responseTime=w.ri(40, 300), statusCode=200)
    if w.r() < 0.03:
        portal(w, w.jit(t), "WARN", "session expired, redirecting to login", sid=w.hexid(12))
    # keycloak
    for _ in range(w.count(0.6 * ld)):
        tt = w.jit(t)
        if inside(tt, LDAP):
            continue
        kc(w, tt, "INFO", "org.keycloak.events", f"executor-thread-{w.ri(1, 24)}",
           f"type=LOGIN, realmId=klinik, clientId=ehr-web, userId={w.hexid(8)}, "
           f"ipAddress=10.40.{w.ri(1, 60)}."
           f"{w.ri(2, 250)}, auth_method=openid-connect")
    if w.r() < 0.05 * ld + 0.01:
        kc(w, w.jit(t), "WARN", "org.keycloak.events", f"executor-thread-{w.ri(1, 24)}",
           "type=LOGIN_ERROR, realmId=patienten, clientId=patient-portal, userId=null, "
           f"ipAddress=84.{w.ri(1, 250)}."
           f"{w.ri(1, 250)}.{w.ri(1, 250)}, error=invalid_user_credentials")
    # scheduling
    for _ in range(w.count(0.35 * ld)):
        zap(w, w.jit(t), "INFO", "booking/handler.go:88", "appointment booked",
            appointment=f"APT-{w.ri(900000, 999999)}", type=w.pick(["AMB-CHIR", "IMPF-GRIPPE", "RAD-MRT"]))
    if w.r() < 0.02:
        zap(w, w.jit(t), "WARN", "booking/handler.go:131", "slot taken concurrently, offering next",
            slot=f"SLT-{w.ri(100000, 999999)}")
    # fhir-facade
    for _ in range(w.count(0.35 * ld)):
        tt = w.jit(t)
        if inside(tt, KEYROT):
            continue
        fhir(w, tt, "INFO", "request", method="GET",
             path=w.pick(["/fhir/R4/Appointment", "/fhir/R4/Observation", "/fhir/R4/DiagnosticReport"]),
             status=200, dur_ms=w.ri(20, 200))
    # postgres
    if w.r() < 0.08:
        pg(w, w.jit(t), "INFO",
           f"checkpoint complete: wrote {w.ri(200, 4000)} buffers; distance={w.ri(1000, 90000)} kB")
    if w.r() < 0.03:
        pg(w, w.jit(t), "WARN", "there is no transaction in progress", who="ehr_app@ehr")
    # redis / rabbitmq
    if loc(t).minute % 15 == 3:
        rds(w, w.jit(t), "INFO", "Background saving started by pid 812", "redis-sessions-0")
        rds(w, w.jit(t, 2) + timedelta(seconds=3), "INFO", "Background saving terminated with success",
            "redis-sessions-0")
    if w.r() < 0.03:
        rmq(w, w.jit(t), "WARN",
            f"closing AMQP connection <0.{w.ri(1000, 9000)}.0> (10.42.{w.ri(1, 9)}.{w.ri(2, 250)}"
            ":5672): client unexpectedly closed TCP connection")
    if h in (2,) and loc(t).minute == 0:
        pass


def quiet_nights(w: World) -> list[list]:
    """The nightly cpoe-nightly-reconcile at 02:00: a dozen skipped orders every night (ERROR, harmless)."""
    rows = []
    g = random.Random(SEED + 7)
    for d in range(3):
        t0 = at(d, 2, 0, 4)
        cpoe(w, t0, "INFO", "reconcile-1", "d.k.cpoe.batch.NightlyReconcile", "nightly reconcile started")
        n = g.randint(12, 16)
        for k in range(n):
            cpoe(w, t0 + timedelta(seconds=30 + 41 * k), "ERROR", "reconcile-1",
                 "d.k.cpoe.batch.NightlyReconcile",
                 f"order ORD-{g.randint(3000000, 4300000)} skipped: encounter "
                 f"FALL-{g.randint(25000000, 26999999)} "
                 "already closed")
        t1 = t0 + timedelta(minutes=14, seconds=g.randint(0, 50))
        cpoe(w, t1, "INFO", "reconcile-1", "d.k.cpoe.batch.NightlyReconcile",
             f"nightly reconcile finished, {n} skipped")
        rows.append(
            ["cpoe-nightly-reconcile", "cpoe", wall(t0), wall(t1), "COMPLETED", g.randint(8000, 9000),
             f"{n} skipped (closed encounters)"]
        )
    return rows


def rollout(w: World, t0: datetime, service: str, ver: str, dur: int) -> None:
    for k in range(2):
        tt = t0 + timedelta(seconds=dur * (k + 1) / 3)
        secs = f"{w.ri(9, 40)}.{w.ri(100, 999)}"
        msg = f"Started {service} {ver} in {secs} seconds (process running for {w.ri(20, 60)})"
        if service in ("ehr-api",):
            spring(w, tt, service, "INFO", "main", "d.k.ehr.EhrApplication", msg)
        elif service == "cpoe":
            cpoe(w, tt, "INFO", "main", "d.k.cpoe.CpoeApplication", msg)
        elif service == "pharmacy":
            pharm(w, tt, "INFO", "Microsoft.Hosting.Lifetime", f"Application started: {service} {ver}")
        elif service == "patient-portal":
            portal(w, tt, "INFO", f"server listening on :3000 ({service} {ver})")
        elif service == "scheduling":
            zap(w, tt, "INFO", "cmd/main.go:52", "server started", version=ver)
        elif service == "fhir-facade":
            fhir(w, tt, "INFO", "server started", version=ver)
        elif service == "lis":
            lis(w, tt, "INFO", "lis.app", f"LIS {ver} started, workers=8")


# ---------------------------------------------------------------------------------------------
# Incidents
# ---------------------------------------------------------------------------------------------


def incidents(w: World) -> None:
    # HOSP-01 lis certificate renewed without its intermediate: Java clients (cpoe) fail PKIX
    lis(w, CERT[0], "INFO", "lis.tls",
        "TLS certificate reloaded for lis.nordhafen.example:8443: serial 4f:a2:91:0c, notAfter 2027-11-09, "
        "chain length 1 (leaf only)")
    for t in every(CERT, 20):
        if w.r() < 0.55 * load(t) + 0.2:
            cpoe(w, w.jit(t, 20), "ERROR", f"lab-sender-{w.ri(1, 4)}", "d.k.cpoe.lab.LisOrderClient",
                 f"sending lab order {w.order()} to https://lis.nordhafen.example:8443/api/orders failed: "
                 "javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
                 "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid "
                 "certification "
                 "path to requested target")
        if w.r() < 0.15:
            cpoe(w, w.jit(t, 20), "WARN", "lab-sender-1", "d.k.cpoe.lab.LisOrderOutbox",
                 f"lab order outbox: {w.ri(20, 300)} orders pending, retry in 60 s")
    lis(w, CERT[1], "INFO", "lis.tls",
        "TLS certificate reloaded for lis.nordhafen.example:8443: serial 4f:a2:91:0c, notAfter 2027-11-09, "
        "chain length 2 (leaf + intermediate GEANT OV RSA CA 4)")
    cpoe(w, CERT[1] + timedelta(seconds=50), "INFO", "lab-sender-1", "d.k.cpoe.lab.LisOrderOutbox",
         "lab order outbox drained: 312 orders sent")

    # HOSP-02 keycloak realm key rotation: fhir-facade validates with a cached JWKS
    kc(w, KEYROT[0], "INFO", "org.keycloak.services", "executor-thread-2",
       "KC-SERVICES0021: realm klinik: key provider rsa-generated-2026-11 (kid k-2026-11) added, priority "
       "200, active")
    kc(w, KEYROT[0] + timedelta(seconds=14), "INFO", "org.keycloak.services", "executor-thread-2",
       "realm klinik: key provider rsa-generated-2026-05 (kid k-2026-05) disabled by admin s.wolf")
    for t in every((KEYROT[0] + timedelta(seconds=40), KEYROT[1]), 15):
        if w.r() < 0.7 * load(t):
            fhir(w, w.jit(t, 15), "ERROR", "token validation failed",
                 error="kid k-2026-11 not found in cached JWKS", jwks_fetched="2026-11-10T05:12:04Z",
                 client="patient-portal", status=401)
        if w.r() < 0.3:
            portal(w, w.jit(t, 15), "ERROR", "fhir-facade returned 401 for /fhir/R4/DiagnosticReport",
                   upstream="fhir-facade", statusCode=502)
    fhir(w, KEYROT[1], "INFO", "jwks refreshed", keys="k-2026-11", trigger="restart")

    # HOSP-03 PACS archive tier2 full: storage commitment fails
    dcm(w, TIER2[0], "ERROR", "ARCHIVE_T2-writer", "o.d.a.storage.FileSystemStorage",
        "write to /archive/tier2/2026/11/10 failed: java.io.IOException: No space left on device")
    for t in every(TIER2, 25):
        if w.r() < 0.75 * load(t) + 0.1:
            n = w.ri(80, 900)
            dcm(w, w.jit(t, 25), "ERROR", f"StgCmtSCU-{w.ri(1, 4)}", "o.d.n.s.StgCmtSCU",
                f"Storage Commitment N-EVENT-REPORT from ARCHIVE_T2: {n} of {n} instances failed, "
                "Failure Reason "
                f"0110H (processing failure), study {w.uid()}")
        if w.r() < 0.25:
            dcm(w, w.jit(t, 25), "WARN", "StgCmtSCU-1", "o.d.n.s.StgCmtRetry",
                f"{w.ri(10, 90)} studies not committed, kept on modality, retry in 300 s")

    # HOSP-05 cpoe-order-archive locks cpoe.orders at shift change
    pg(w, LOCK[0], "INFO", "statement: LOCK TABLE cpoe.orders IN ACCESS EXCLUSIVE MODE",
       who="cpoe_batch@cpoe", pgpid=23790)
    for t in every((LOCK[0] + timedelta(seconds=20), LOCK[1]), 20):
        if w.r() < 0.6:
            pg(w, w.jit(t, 20), "INFO",
               f"process {w.ri(24000, 26000)} still waiting for RowExclusiveLock on "
               "relation 16522 (cpoe.orders) of database 16401 after 1000.051 ms; Process holding "
               "the lock: 23790", who="cpoe_app@cpoe")
        if w.r() < 0.5 * load(t) + 0.2:
            cpoe(w, w.jit(t, 20), "ERROR", f"http-nio-8080-exec-{w.ri(1, 30)}",
                 "d.k.cpoe.order.OrderService",
                 f"saving order for {w.case()} failed: HikariPool-1 - Connection is not available, "
                 "request timed "
                 "out after 30000ms")
    for t in every((LOCK[0] + timedelta(minutes=12), LOCK[1]), 60):
        pharm(w, w.jit(t), "WARN", "Apotheke.Orders.InboundMonitor",
              f"no medication orders received from cpoe for {int((t - LOCK[0]).total_seconds() // 60)} min "
              "(expected ~20/min at this hour)")
    pg(w, LOCK[1], "INFO",
       "duration: 3257104.229 ms  statement: COMMIT (cpoe-order-archive moved 184233 rows to "
       "cpoe.orders_archive)", who="cpoe_batch@cpoe", pgpid=23790)

    # HOSP-06 maxconn: only in metrics (and fewer requests)

    # HOSP-07 svc-keycloak-ldap password expired
    for t in every(LDAP, 10):
        if w.r() < 0.8 * load(t) + 0.1:
            kc(w, w.jit(t, 10), "ERROR", "org.keycloak.storage.ldap.LDAPStorageProviderFactory",
               f"executor-thread-{w.ri(1, 24)}",
               "LDAP bind failed for cn=svc-keycloak-ldap,ou=Service,dc=nordhafen,dc=example: [LDAP: error "
               "code 49 - 80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, data "
               "532, v4563] (data 532: password expired)")
            kc(w, w.jit(t, 10), "WARN", "org.keycloak.events", f"executor-thread-{w.ri(1, 24)}",
               "type=LOGIN_ERROR, realmId=klinik, "
               f"clientId={w.pick(['ehr-web', 'cpoe-web', 'pharmacy-web'])}, "
               f"userId=null, ipAddress=10.40.{w.ri(1, 60)}.{w.ri(2, 250)}, error=identity_provider_error")
        if w.r() < 0.3:
            edge(w, w.jit(t, 10), "fe_clinical", "be_sso", "kc-1", "POST",
                 "/realms/klinik/login-actions/authenticate", 502, w.ri(900, 3000))
        if w.r() < 0.2:
            spring(w, w.jit(t, 10), "ehr-api", "WARN", "http-nio-8080-exec-3",
                   "d.k.ehr.security.SsoEntryPoint",
                   "login redirect to sso.nordhafen.example returned error, user shown 'Anmeldung "
                   "fehlgeschlagen'")

    # HOSP-08 external AMTS check slow (pharmacy deploy DEP-3314 at 14:02 is unrelated)
    for t in every(AMTS, 20):
        if w.r() < 0.6 * load(t):
            pharm(w, w.jit(t, 20), "WARN", "Apotheke.Amts.AmtsClient",
                  "AMTS check for {OrderId} timed out after {Elapsed} ms (amts.arzneicheck.example), "
                  "released with manual check flag", OrderId=w.order(), Elapsed=3000)

    # HOSP-10 hl7-engine MLLP half-open connection to ehr-api: ACK timeouts, backlog
    hl7(w, MLLP[0], "WARN", "ORU_LIS_TO_EHR Destination 1", "c.m.c.c.mllp.MllpDispatcher",
        "no ACK within 30000 ms on MLLP connection to ehr-hl7.klinik-prod.svc:6661 (local port 41822), "
        "keeping connection (reconnect_on_timeout=false)")
    depth = 40
    for t in every((MLLP[0] + timedelta(seconds=30), MLLP[1]), 30):
        depth += w.ri(15, 40)
        hl7(w, w.jit(t, 5), "ERROR", "ORU_LIS_TO_EHR Destination 1", "c.m.c.c.mllp.MllpDispatcher",
            f"ACK timeout after 30000 ms for MSG{w.ri(10000000, 99999999)} on MLLP connection to "
            f"ehr-hl7.klinik-prod.svc:6661, message requeued (queue depth {depth})")
        if w.r() < 0.25:
            spring(
                w, w.jit(t, 30), "ehr-api", "WARN", "lab-poller", "d.k.ehr.lab.LabResultWatch",
                f"no ORU^R01 received for {int((t - MLLP[0]).total_seconds() // 60)} min (ward complaints "
                "expected)",
            )
    hl7(w, MLLP[1], "INFO", "ORU_LIS_TO_EHR Destination 1", "c.m.c.c.mllp.MllpDispatcher",
        f"channel restarted by j.krueger, MLLP connection re-established, draining {depth} queued messages")

    # HOSP-11 edge be_pacs timeout server 30s: large WADO retrieves cut at 30 s
    for t in every((TSRV[0] + timedelta(seconds=30), TSRV[1]), 20):
        if w.r() < 0.7 * load(t):
            edge(w, w.jit(t, 20), "fe_pacs", "be_pacs", f"pacs-{w.ri(1, 2)}", "GET",
                 f"/dicom-web/studies/{w.uid()}", 504, 30000)
            dcm(w, w.jit(t, 20), "WARN", f"WADO-{w.ri(1, 12)}", "o.d.a.wado.WadoRS",
                f"client aborted WADO-RS retrieve of study {w.uid()} after 30002 ms "
                f"({w.ri(800, 2400)} instances, "
                "Broken pipe)")

    # HOSP-12 rabbitmq-1 disk alarm: lis cannot publish results
    rmq(w, DISK[0], "WARN", "Free disk space is insufficient. Free bytes: 1998340096. Limit: 2000000000",
        node="rabbitmq-1")
    rmq(w, DISK[0] + timedelta(seconds=1), "WARN",
        "disk resource limit alarm set on node rabbit@rabbitmq-1. Publishers will be blocked until this "
        "alarm clears", node="rabbitmq-1")
    for t in every((DISK[0] + timedelta(seconds=30), DISK[1]), 30):
        n = int((t - DISK[0]).total_seconds() // 30) * w.ri(6, 12)
        lis(w, w.jit(t, 30), "WARN", "lis.outbound",
            f"publish to lis.results blocked (connection.blocked: "
            f"resource-limit disk), {n} results waiting in outbound queue")
        if w.r() < 0.3:
            lis(w, w.jit(t, 30), "ERROR", "lis.outbound",
                f"result {w.ri(7000000, 7999999)} not delivered within 600 s (connection blocked)")
    rmq(w, DISK[1], "INFO", "disk resource limit alarm cleared on node rabbit@rabbitmq-1",
        node="rabbitmq-1")

    # HOSP-13 basebackup saturates pg-klinik-01: ehr-api slow (only timings in logs)
    for t in every((BACKUP[0] + timedelta(minutes=4), BACKUP[1]), 30):
        if w.r() < 0.7:
            spring(w, w.jit(t, 30), "ehr-api", "WARN", f"http-nio-8080-exec-{w.ri(1, 40)}",
                   "d.k.ehr.web.RequestTimer",
                   f"GET /api/v2/patients/{w.pid()}/chart took {w.ri(3500, 9800)} ms")

    # HOSP-14 kc-node-2 clock 94 s ahead: tokens not yet valid at the resource servers
    kc(w, CLOCK[0], "WARN", "chronyd", "kc-node-2",
       "chronyd[611]: System clock wrong by -94.213 s, NTP source 10.20.0.5 unreachable, no selectable "
       "sources; clock not corrected", p=PODS["keycloak"][1])
    for t in every((CLOCK[0] + timedelta(seconds=60), CLOCK[1]), 120):
        kc(w, w.jit(t, 5), "WARN", "chronyd", "kc-node-2",
           "chronyd[611]: Can't synchronise: no selectable sources (NTP 10.20.0.5 unreachable)",
           p=PODS["keycloak"][1])
    for t in every((CLOCK[0] + timedelta(seconds=30), CLOCK[1]), 12):
        svc = w.pick(["ehr-api", "cpoe", "fhir-facade", "pharmacy"])
        iat = zulu(t + timedelta(seconds=94))
        msg = (
            f"JWT rejected: iat {iat} is 94 s in the future (allowed clock skew 30 s), issuer "
            "https://sso.nordhafen.example/realms/klinik"
        )
        tt = w.jit(t, 12)
        if svc == "ehr-api":
            spring(w, tt, "ehr-api", "WARN", "http-nio-8080-exec-7", "d.k.ehr.security.JwtFilter", msg)
        elif svc == "cpoe":
            cpoe(w, tt, "WARN", "http-nio-8080-exec-5", "d.k.cpoe.security.JwtFilter", msg)
        elif svc == "fhir-facade":
            fhir(w, tt, "ERROR", "token validation failed",
                 error="token used before issued (iat 94 s ahead)", status=401)
        else:
            pharm(w, tt, "WARN", "Apotheke.Auth.JwtValidation", msg)
    kc(w, CLOCK[1], "INFO", "chronyd", "kc-node-2",
       "chronyd[611]: Selected source 10.20.0.6, System clock wrong by -94.190 s, stepped",
       p=PODS["keycloak"][1])


# ---------------------------------------------------------------------------------------------
# Metrics and batch runs
# ---------------------------------------------------------------------------------------------

SVC = ["ehr-api", "cpoe", "lis", "pacs-gateway", "pharmacy", "patient-portal", "fhir-facade", "scheduling"]


def metrics(w: World) -> None:
    g = random.Random(SEED + 1)
    svc_rows, edge_rows, db_rows, mq_rows, st_rows = [], [], [], [], []
    t = DAY0
    used_t2 = 93.0
    while t < END:
        ld = load(t)
        for s in SVC:
            base = {"ehr-api": 900, "cpoe": 260, "lis": 180, "pacs-gateway": 90, "pharmacy": 120,
                    "patient-portal": 400, "fhir-facade": 220, "scheduling": 150}[s]
            rpm = int(base * ld * g.uniform(0.9, 1.1)) + 3
            p95 = g.randint(90, 240)
            err = round(g.uniform(0.1, 0.8), 2)
            if s == "ehr-api" and inside(t, BACKUP) and t >= BACKUP[0] + timedelta(minutes=3):
                p95 = g.randint(4200, 9900)
            if s == "patient-portal" and inside(t, MAXCONN):
                rpm = int(rpm * 0.45)
            if s == "cpoe" and (inside(t, LOCK) or inside(t, CERT)):
                err = round(g.uniform(18, 40), 2)
            if s == "pacs-gateway" and (inside(t, TIER2) or inside(t, TSRV)):
                err = round(g.uniform(12, 30), 2)
            if s == "fhir-facade" and inside(t, KEYROT):
                err = round(g.uniform(40, 70), 2)
            svc_rows.append([wmin(t), s, rpm, p95, err])
        for fe, mx, base in (("fe_clinical", 4000, 1500), ("fe_portal", 2000, 700), ("fe_pacs", 1000, 120)):
            scur = int(base * ld * g.uniform(0.85, 1.1))
            if fe == "fe_portal" and inside(t, MAXCONN):
                scur = mx
            denied = 0
            rate = int(scur * g.uniform(0.4, 0.6))
            edge_rows.append([wmin(t), fe, scur, mx, rate, denied, 0 if scur < mx else g.randint(300, 900)])
        io = round(g.uniform(3, 12), 1)
        act = g.randint(8, 30)
        waiting = 0
        if inside(t, BACKUP):
            io = round(g.uniform(68, 88), 1)
            act = g.randint(60, 95)
        if inside(t, LOCK) and t > LOCK[0] + timedelta(seconds=60):
            waiting = g.randint(25, 60)
        db_rows.append(
            [wmin(t), "pg-klinik-01", g.randint(140, 190), act, io, waiting,
             round(g.uniform(2, 9), 1) if not inside(t, BACKUP) else round(g.uniform(160, 240), 1)]
        )
        if t.minute % 5 == 0:
            for node in ("rabbitmq-0", "rabbitmq-1", "rabbitmq-2"):
                free = g.randint(30000, 34000)
                alarm = 0
                if node == "rabbitmq-1":
                    start = at(1, 22, 40)
                    if t >= start:
                        free = max(1990, int(31000 - (t - start).total_seconds() / 60 * 33.3))
                    if inside(t, DISK):
                        free, alarm = g.randint(1900, 1999), 1
                    if t >= DISK[1]:
                        free = 29800 + g.randint(0, 400)
                mq_rows.append([wmin(t), node, free, 2000, alarm, g.randint(90, 140)])
            for q in ("lis.results", "audit.events"):
                ready = g.randint(0, 30)
                if q == "audit.events" and at(1, 22, 40) <= t < DISK[1]:
                    ready = int((t - at(1, 22, 40)).total_seconds() / 60 * 1900)
                if q == "lis.results" and inside(t, DISK):
                    ready = g.randint(0, 3)
                consumers = 0 if (q == "audit.events" and at(1, 22, 40) <= t < DISK[1]) else 2
                st_rows.append([wmin(t), q, ready, consumers])
        t += timedelta(minutes=1)
    tier_rows = []
    t = DAY0
    while t < END:
        if t < TIER2[0]:
            used_t2 = min(99.6, 93.0 + (t - DAY0).total_seconds() / (TIER2[0] - DAY0).total_seconds() * 6.6)
        elif t < TIER2[1]:
            used_t2 = 100.0
        else:
            used_t2 = 88.4
        tier_rows.append([wmin(t), "ARCHIVE_T1", round(61 + g.uniform(-0.3, 0.3), 1), 120])
        tier_rows.append([wmin(t), "ARCHIVE_T2", round(used_t2, 1), 480])
        t += timedelta(minutes=5)
    w.table("svc_metrics", ["minute", "service", "req_per_min", "p95_ms", "error_pct"], svc_rows)
    w.table(
        "haproxy_metrics",
        ["minute", "frontend", "scur", "maxconn", "conn_rate", "denied_req", "queued_accepts"], edge_rows,
    )
    w.table("db_metrics",
            ["minute", "instance", "connections", "active_queries", "io_wait_pct", "lock_waiters",
             "disk_read_mb_s"],
            db_rows)
    w.table("broker_metrics",
            ["minute", "node", "disk_free_mb", "disk_free_limit_mb", "disk_alarm", "connections"], mq_rows)
    w.table("queue_metrics", ["minute", "queue", "messages_ready", "consumers"], st_rows)
    w.table("pacs_storage_metrics", ["minute", "tier", "used_pct", "capacity_tb"], tier_rows)


def batch_runs(w: World, extra: list[list]) -> None:
    rows = list(extra)
    g = random.Random(SEED + 2)
    for d in range(-1, 3):
        t0 = at(d, 1, 0, 3)
        ok = d != 0
        t1 = t0 + timedelta(minutes=g.randint(40, 70))
        rows.append(
            ["pacs-ilm-tape", "pacs-gateway", wall(t0), wall(t1), "COMPLETED" if ok else "FAILED",
             g.randint(900, 1400) if ok else 0,
             "tier2 -> tape library" if ok else "tape library TL-2 offline (drive 3 error), nothing moved"]
        )
        if d >= 0:
            t0 = at(d, 5, 58, 3)
            t1 = LOCK[1] if d == 1 else t0 + timedelta(minutes=g.randint(3, 6))
            if d == 1:
                rows.append(
                    ["cpoe-order-archive", "cpoe", wall(LOCK[0]), wall(t1), "COMPLETED", 184233,
                     "LOCK TABLE cpoe.orders IN ACCESS EXCLUSIVE MODE; moved orders older than 400 days "
                     "(first run after the 14-day pause)"]
                )
            else:
                rows.append(
                    ["cpoe-order-archive", "cpoe", wall(t0), wall(t1), "COMPLETED", g.randint(900, 2600),
                     "LOCK TABLE cpoe.orders IN ACCESS EXCLUSIVE MODE; moved orders older than 400 days"]
                )
            t0 = at(d, 3, 30)
            rows.append(["pg-basebackup-nas", "postgres", wall(t0),
                         wall(t0 + timedelta(minutes=g.randint(55, 70))), "COMPLETED", 0,
                         "pg_basebackup pg-klinik-01 -> nas-02 (nightly)"])
    rows.append(
        ["pg-basebackup-nas", "postgres", wall(BACKUP[0]), wall(BACKUP[1]), "COMPLETED", 0,
         "pg_basebackup pg-klinik-01 -> nas-02 (manual re-run after NAS migration, max-rate unlimited)"]
    )
    rows.append(["portal-newsletter", "patient-portal", wall(at(1, 9, 15)), wall(at(1, 9, 21)), "COMPLETED",
                 84120, "Grippeimpfung: Termine jetzt online buchen (84120 e-mails)"])
    rows.sort(key=lambda r: r[2])
    w.table("batch_runs", engine.columns("BATCH_RUNS"), rows)


# ---------------------------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------------------------

DOCS = {
    "oncall-overview": """# Klinikum Nordhafen: Bereitschaft IT-Klinik (on-call overview)

Owner: IT Klinische Systeme. Times are German time (CET, UTC+01:00, Europe/Berlin; the world's days are
in November, standard time) unless a tool says otherwise. The team writes dates `12.11.2026`, `12.11.`,
`12. Nov` or `2026-11-12`, times `14:30` or `14.30 Uhr`.
The components write their own clocks:

- edge (HAProxy), ehr-api (Spring Boot), lis and keycloak write local time (CET);
- cpoe (logback), hl7-engine, pacs-gateway (dcm4che), pharmacy (Serilog), scheduling (zap), fhir-facade
  (logfmt), postgres, redis and rabbitmq write UTC; patient-portal (pino) writes epoch ms;
- tables: `deploys` are UTC, `config_changes` carry their offset, metric exports (`*_metrics`),
  `batch_runs` and `schema_migrations` are local wall time.

## Flow

- Wards use **ehr-api** and **cpoe** through the **edge** (fe_clinical); cpoe sends lab orders to the
  **lis** over HTTPS (Java truststore) and medication orders to **pharmacy** (dispensing robot, AMTS
  drug-safety check at an external service).
- Lab results go lis -> **hl7-engine** (channel ORU_LIS_TO_EHR, MLLP) -> ehr-api's HL7 listener, and
  lis also publishes them on **rabbitmq** (`lis.results`) for the FHIR side.
- **pacs-gateway** receives DICOM from the modalities, stores to the archive tiers ARCHIVE_T1 / ARCHIVE_T2
  and confirms with storage commitment; radiology viewers retrieve via WADO-RS behind fe_pacs.
- Patients use **patient-portal** (fe_portal) with **scheduling** and **fhir-facade**; everyone logs in
  through **keycloak** (realm klinik federated to the Active Directory over LDAP, realm patienten local).

## Where to look

`dependencies` for who calls what; `svc_metrics`, `haproxy_metrics`, `db_metrics`, `broker_metrics`,
`queue_metrics`, `pacs_storage_metrics` for numbers; `deploys`, `config_changes`, `schema_migrations`,
`batch_runs` for changes.
""",
    "known-noise": """# Bekanntes Rauschen (known noise)

These appear every day and do not by themselves mean patients or wards are affected.

- hl7-engine: `ADT^A08 for unknown PID... filtered`, `segment ZBE unexpected`, `OBX-5 value exceeds 200
  chars, truncated` all day. It always warns; it is almost never the cause.
- lis: analyzer `QC rule 1-2s warning ... run accepted`.
- pharmacy: `Robot BD-Rowa-1 heartbeat missed (1 of 3), reconnecting` as an ERROR at :17 every hour
  (the robot's firmware answers late); it reconnects.
- cpoe: the nightly `cpoe-nightly-reconcile` at 02:00 logs a dozen `order ... skipped: encounter ... already
  closed` ERRORs every night; `order set ... references inactive item, skipped`.
- keycloak: `LOGIN_ERROR` with `invalid_user_credentials` in realm patienten (patients mistyping).
- pacs-gateway: US_GE modalities release associations without A-RELEASE-RP.
- ehr-api: the odd `slow query on encounter_notes` (1-2 s); patient-portal `session expired`;
  scheduling `slot taken concurrently`; postgres `there is no transaction in progress`; rabbitmq
  `client unexpectedly closed TCP connection`.
""",
    "hl7-channel-backlog": """# HL7: Befund-Queue staut sich (lab results queue backing up)

## Symptoms

Lab results (Laborbefunde) do not arrive in the EHR, the HL7 channel's queue grows, wards call.

## Cause (usually)

The hl7-engine channel ORU_LIS_TO_EHR is stuck after an ehr-api restart or deploy; messages wait in the
channel queue.

## What to do

Restart the channel ORU_LIS_TO_EHR in the hl7-engine administrator; the queue drains in a few minutes.
No need to look elsewhere.
""",
    "keycloak-ldap-federation": """# Keycloak: Anmeldung für alle fehlgeschlagen (LDAP federation)

## Symptoms

No clinician can log in (ehr, cpoe, pharmacy), `identity_provider_error` in keycloak events; patients
(realm patienten, local accounts) are not affected.

## How to confirm

- keycloak logs: `LDAP bind failed for cn=svc-keycloak-ldap` with `error code 49`; the `data` field says
  why: 52e wrong password, 532 password expired, 533 account disabled, 775 locked.
- `dependencies`: keycloak -> Active Directory (ldaps, bind svc-keycloak-ldap).

## What to do

AD team resets the service account password (set "password never expires"), update the bind credential
in the realm's user federation, test the connection.
""",
    "postgres-lock-waits": """# PostgreSQL: Aufträge hängen (lock waits on cpoe.orders)

## Symptoms

Saving orders in cpoe times out (`HikariPool-1 - Connection is not available`), pharmacy sees no new
medication orders.

## How to confirm

- postgres logs: `still waiting for RowExclusiveLock on relation ... (cpoe.orders)` and the `Process
  holding the lock`; look up that pid's `LOCK TABLE` statement.
- `batch_runs` for a job on cpoe around the onset (`cpoe-order-archive` runs at 05:58, right at the
  morning shift change); `db_metrics.lock_waiters`.

## What to do

Cancel the holder (`pg_cancel_backend`), move the job out of the shift change and rewrite it to move
rows in small batches without the table lock.
""",
}


# ---------------------------------------------------------------------------------------------
# Truth
# ---------------------------------------------------------------------------------------------


def z(t: datetime) -> str:
    return zulu(t)


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


# ---------------------------------------------------------------------------------------------
# Assemble
# ---------------------------------------------------------------------------------------------


main = engine.main(NAME, world, __name__, DOCS)
