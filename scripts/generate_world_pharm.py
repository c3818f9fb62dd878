#!/usr/bin/env python3
"""Generate the **pharm** incident world: an Australian e-prescription and pharmacy network.

Two days (Tue 14 and Wed 15 December 2027, Australia/Sydney, AEDT = UTC+11:00) of an eRx
platform: a Spring prescriber API, a Go prescription exchange, an nginx pharmacy POS integration
gateway, a Python drug interaction checker behind gunicorn, a PBS / insurer claims adapter, a node
SMS notification service, an identity and consent service, a redis session cache, the MySQL
prescriptions database, an OpenSearch medicine index and the nightly claims reconciliation batch.
Each writes its own log format and clock; the ops tables are what the on-call team exports.

    python scripts/generate_world_pharm.py OUT_DIR            # writes OUT_DIR/pharm/
    python scripts/generate_world_pharm.py OUT_DIR --check    # and checks every truth evidence item

Deterministic: one seeded random generator, the same bytes on every run. Standard library only.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import random
import re
import shutil
import sqlite3
import string
import sys
from datetime import timedelta as td
from pathlib import Path

NAME = "pharm"
SEED = 20271214
TZ = dt.timezone(td(hours=11))
UTC = dt.UTC
DAYS = (dt.date(2027, 12, 14), dt.date(2027, 12, 15))
R = random.Random(SEED)


def at(day: int, hhmm: str, sec: float = 0.0) -> dt.datetime:
    """Local (AEDT) time on day 1 or 2, 'HH:MM', plus seconds."""
    h, m = map(int, hhmm.split(":"))
    d = DAYS[day - 1]
    return dt.datetime(d.year, d.month, d.day, h, m, tzinfo=TZ) + td(seconds=sec)


def within(t: dt.datetime, day: int, a: str, b: str) -> bool:
    return at(day, a) <= t < at(day, b)


def iso(t: dt.datetime) -> str:
    return t.isoformat(timespec="seconds")


def zulu(t: dt.datetime, ms: bool = False) -> str:
    u = t.astimezone(UTC)
    return f"{u:%Y-%m-%dT%H:%M:%S}" + (f".{u.microsecond // 1000:03d}" if ms else "") + "Z"


def ms3(t: dt.datetime) -> str:
    return f"{t.microsecond // 1000:03d}"


LOAD = [(0, .08), (6, .08), (8, .55), (9.5, 1.0), (12.5, .85), (14, 1.0), (17.5, .9), (19, .55),
        (21, .35), (23, .12), (24, .08)]


def load(t: dt.datetime) -> float:
    """Share of peak traffic: GP clinics and pharmacies by day, a few late pharmacies at night."""
    h = t.hour + t.minute / 60
    for (h0, v0), (h1, v1) in zip(LOAD, LOAD[1:], strict=False):
        if h0 <= h <= h1:
            return v0 + (v1 - v0) * (h - h0) / (h1 - h0)
    return .08


def poisson(lam: float) -> int:
    limit, k, p = math.exp(-lam), 0, 1.0
    while lam > 0:
        p *= R.random()
        if p <= limit:
            return k
        k += 1
    return 0


# --- Components and their log formats ------------------------------------------------------------

SERVICES = ["prescriber-api", "rx-exchange", "pos-gateway", "ddi-checker", "claims-adapter",
            "notify-sms", "consent-idp", "session-redis", "rx-mysql", "search-index", "claims-recon"]
ALNUM = string.ascii_lowercase + string.digits
PODS = {s: [f"{s}-{R.randrange(16**8):08x}-{''.join(R.choices(ALNUM, k=5))}" for _ in range(2)]
        for s in SERVICES[:7]}
PODS.update({"session-redis": ["redis-sess-0"], "rx-mysql": ["rxdb-primary-0"],
             "search-index": ["search-1", "search-2", "search-3"], "claims-recon": ["batch-01"]})
PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def f_zap(t, lvl, text, kv):
    rec = {"level": lvl.lower(), "ts": zulu(t, ms=True), "caller": kv.pop("caller", "server/http.go:212")}
    return json.dumps({**rec, "msg": text, **kv}, separators=(",", ":"))


def f_nginx(t, lvl, text, kv):
    if kv.get("error_log"):
        lv = {"ERROR": "error", "WARN": "warn", "INFO": "notice"}[lvl]
        return f"{t:%Y/%m/%d %H:%M:%S} [{lv}] 31#31: *{R.randint(10000, 999999)} {text}"
    return text.replace("[TS]", t.strftime("[%d/%b/%Y:%H:%M:%S +1100]"))


def f_python(t, lvl, text, kv):
    if kv.get("gunicorn"):
        return f"[{t:%Y-%m-%d %H:%M:%S} +1100] [41] [{'CRITICAL' if lvl == 'FATAL' else lvl}] {text}"
    lv = {"WARN": "WARNING"}.get(lvl, lvl)
    return f"{t:%Y-%m-%d %H:%M:%S},{ms3(t)} {lv} [{kv.get('logger', 'ddi.api')}] {text}"


def f_logfmt(t, lvl, text, kv):
    parts = [f"ts={zulu(t, ms=True)}", f"level={lvl.lower()}", f'msg="{text}"']
    for k, v in kv.items():
        v = str(v).replace('"', '\\"')
        parts.append(f'{k}="{v}"' if (" " in v or '"' in v) else f"{k}={v}")
    return " ".join(parts)


def f_pino(t, lvl, text, kv):
    rec = {"level": PINO[lvl], "time": int(t.timestamp() * 1000), "pid": 1, "hostname": kv.pop("pod")}
    return json.dumps({**rec, **kv, "msg": text}, separators=(",", ":"))


def f_mysql(t, lvl, text, kv):
    u, lv = t.astimezone(UTC), {"WARN": "Warning", "ERROR": "ERROR"}.get(lvl, "Note")
    return f"{u:%Y-%m-%dT%H:%M:%S}.{u.microsecond:06d}Z {kv.get('thread', 0)} [{lv}] {text}"


FORMAT = {  # each component's own line: Spring Boot, zap JSON, nginx, Python logging and gunicorn,
    #         logfmt, pino JSON, Quarkus, redis, MySQL 8 (UTC), OpenSearch, syslog RFC 3164
    "prescriber-api": lambda t, lvl, text, kv:
        f"{t:%Y-%m-%d %H:%M:%S}.{ms3(t)} {lvl:>5} 1 --- [nio-8080-exec-{R.randint(1, 40)}] {text}",
    "rx-exchange": f_zap, "pos-gateway": f_nginx, "ddi-checker": f_python, "claims-adapter": f_logfmt,
    "notify-sms": f_pino,
    "consent-idp": lambda t, lvl, text, kv: f"{t:%Y-%m-%d %H:%M:%S},{ms3(t)} {lvl:<5} "
        f"[{kv.get('logger', 'c.e.consent.ConsentResource')}] (executor-thread-{R.randint(1, 24)}) {text}",
    "session-redis": lambda t, lvl, text, kv:
        f"1:M {t:%d %b %Y %H:%M:%S}.{ms3(t)} {'#' if lvl == 'WARN' else '*'} {text}",
    "rx-mysql": f_mysql,
    "search-index": lambda t, lvl, text, kv: f"[{t:%Y-%m-%dT%H:%M:%S},{ms3(t)}][{lvl:<5}]"
        f"[{kv.get('logger', 'o.o.n.Node')}] [{kv['node']}] {text}",
    "claims-recon": lambda t, lvl, text, kv: f"<{128 + {'INFO': 6, 'WARN': 4, 'ERROR': 3}[lvl]}>"
        f"{t:%b} {t.day:>2} {t:%H:%M:%S} batch-01 claims-recon[30412]: {text}",
}
EVENTS: list[tuple[dt.datetime, int, dict]] = []


def emit(svc: str, t: dt.datetime, lvl: str, text: str, **kv) -> None:
    """One log event: the component's own line in `message`, a few attributes beside it."""
    attrs = {"pod": kv.pop("pod", None) or R.choice(PODS[svc])}
    attrs.update({k: kv[k] for k in ("version", "claim_id", "pharmacy") if k in kv})
    if svc == "notify-sms":
        kv["pod"] = attrs["pod"]
    if svc == "search-index":
        kv["node"] = attrs["pod"]
    event = {"ts": t.isoformat(timespec="milliseconds"), "service": svc, "level": lvl,
             "message": FORMAT[svc](t, lvl, text, kv), "attrs": attrs}
    EVENTS.append((t, len(EVENTS), event))


# --- Everyday chatter: per component, a rate per minute at peak and weighted templates -----------

DRUGS = ["amoxicillin 500mg", "atorvastatin 40mg", "metformin 1g", "perindopril 5mg",
         "salbutamol 100mcg", "sertraline 50mg", "pantoprazole 40mg", "rosuvastatin 10mg",
         "cefalexin 500mg", "apixaban 5mg", "esomeprazole 20mg", "amlodipine 5mg"]
NAMES = ["nguyen", "smith", "patel", "chen", "wilson", "kaur", "tran", "brown"]
GEN = {
    "ms": lambda: int(R.lognormvariate(4.6, .45)), "fast": lambda: int(R.lognormvariate(3.2, .4)),
    "rx": lambda: f"2{R.randrange(16**11):011X}",
    "token": lambda: f"{R.randrange(16**4):04X}-{R.randrange(16**4):04X}",
    "prs": lambda: f"PRS-{R.randint(10000, 99999)}", "ph": lambda: f"PH-{R.randint(1000, 5999)}",
    "claim": lambda: f"C{R.randint(10**8, 10**9 - 1)}",
    "ip": lambda: f"10.{R.randint(40, 47)}.{R.randint(0, 255)}.{R.randint(2, 254)}",
    "drug": lambda: R.choice(DRUGS), "phone": lambda: f"+614{R.randint(10, 99)}{R.randint(100, 999)}***",
    "q": lambda: R.choice(["amoxi", "atorv", "metf", "panto", "rosuv", "sertr", "apix", "salbut"]),
    "ua": lambda: R.choice(["FredNXT/7.2.1", "Minfos/2025.4", "Z-POS/11.8", "Corum/5.1", "LOTS/9.3"]),
    "user": lambda: f"{R.choice('abcdefghjkmnprstw')}.{R.choice(NAMES)}",
    "n": lambda: R.randint(2, 40), "bytes": lambda: R.randint(300, 4200), "pid": lambda: R.randint(40, 99),
    "amt": lambda: f"{R.uniform(6, 80):.2f}", "conn": lambda: R.randint(1000, 99999),
    "item": lambda: R.choice(["1234K", "2622B", "8254K", "1953M", "2452X", "8626H", "5006J"]),
}


def gen(key: str):
    return GEN[key]()


def fill(tpl: str) -> str:
    keys = dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(tpl) if f)
    return tpl.format(**{k: gen(k) for k in keys})


ACCESS = '{ip} - {ph} [TS] "{req}" {st} {bytes} "-" "{ua}" rt={rt} urt="{rt}" upstream={up}'
SEARCH = "c.e.rx.search.MedicineSearchClient : "
RXCTL = "c.e.rx.api.PrescriptionController  : "
DDI = "c.e.rx.ddi.InteractionClient        : "
SCRIPT, DISPENSE = "GET /pos/v1/scripts/{token} HTTP/1.1", "POST /pos/v1/dispense HTTP/1.1"
SMS = "provider=messagemedia|to={phone}|"
CHATTER = {  # service: (events a minute at peak, [(weight, level, template, "field=value|...")])
    "prescriber-api": (1.3, [
        (30, "INFO", RXCTL + "POST /v2/prescriptions 201 in {ms}ms prescriber={prs} items=1 "
                             'drug="{drug}"', ""),
        (25, "INFO", SEARCH + 'search-index query index=amt-medicines q="{q}" hits={n} took={fast}ms', ""),
        (15, "INFO", RXCTL + "GET /v2/prescriptions/{rx} 200 in {fast}ms prescriber={prs}", ""),
        (8, "INFO", DDI + "ddi check rx={rx} result=NONE took={fast}ms", ""),
        (3, "WARN", DDI + "ddi check rx={rx} result=MODERATE acknowledged_by={prs}", ""),
        (2, "WARN", "o.s.w.s.m.s.DefaultHandlerExceptionResolver : Resolved [org.springframework.web."
                    "HttpMediaTypeNotSupportedException: Content-Type 'text/plain' is not supported]", ""),
        (1, "WARN", "com.zaxxer.hikari.pool.HikariPool   : HikariPool-1 - Thread starvation or clock leap "
                    "detected (housekeeper delta=1m{n}s).", ""),
    ]),
    "rx-exchange": (1.0, [
        (30, "INFO", "dispense completed",
         "caller=dispense/handler.go:131|token={token}|pharmacy={ph}|rx={rx}|duration_ms={fast}"),
        (25, "INFO", "script lookup",
         "caller=lookup/handler.go:58|token={token}|pharmacy={ph}|status=ACTIVE|duration_ms={fast}"),
        (15, "INFO", "prescription registered", "caller=register/handler.go:77|rx={rx}|prescriber={prs}"),
        (4, "WARN", "token not found", "caller=lookup/handler.go:71|token={token}|pharmacy={ph}"),
        (2, "WARN", "deprecated field used by client",
         "caller=compat/v1.go:40|field=pbsItemCode|pharmacy={ph}"),
    ]),
    "pos-gateway": (1.2, [
        (30, "INFO", ACCESS, f"req={SCRIPT}|st=200|rt=0.0{{n}}|up=rx-exchange"),
        (25, "INFO", ACCESS, f"req={DISPENSE}|st=200|rt=0.1{{n}}|up=rx-exchange"),
        (8, "INFO", ACCESS, "req=GET /pos/v1/health HTTP/1.1|st=200|rt=0.002|up=-"),
        (3, "WARN", ACCESS, f"req={SCRIPT}|st=404|rt=0.0{{n}}|up=rx-exchange"),
        (2, "WARN", ACCESS, f"req={DISPENSE}|st=401|rt=0.004|up=-"),
    ]),
    "ddi-checker": (0.6, [
        (40, "INFO", "check ok rx={rx} items=2 pairs=1 severity=NONE took={fast}ms", ""),
        (10, "INFO", "check ok rx={rx} items=3 pairs=3 severity=MODERATE took={fast}ms", ""),
        (3, "WARN", "unknown AMT concept in request, skipped code={item} rx={rx}", ""),
    ]),
    "claims-adapter": (0.6, [
        (40, "INFO", "claim submitted",
         "claim_id={claim}|scheme=PBS|item={item}|pbs_ms=1{n}0|status=ACCEPTED"),
        (8, "INFO", "claim submitted", "claim_id={claim}|scheme=HICAPS|insurer=bupa|status=ACCEPTED"),
        (4, "WARN", "claim rejected by scheme",
         "claim_id={claim}|scheme=PBS|code=9212|reason=patient not eligible for concession"),
    ]),
    "notify-sms": (0.6, [
        (30, "INFO", "sms sent", SMS + "kind=escript_token|latency_ms={ms}"),
        (8, "INFO", "sms sent", SMS + "kind=otp|latency_ms={ms}"),
        (14, "ERROR", "DLR failed", SMS + "status=UNDELIV|err=001"),
    ]),
    "consent-idp": (0.7, [
        (30, "INFO", "type=CODE_TO_TOKEN, realmId=erx, clientId=prescriber-portal, userId={user}, "
                     "ipAddress={ip}", "logger=o.k.events"),
        (20, "INFO", "consent check patient=IHI-8003608{n} scope=escript.dispense result=GRANTED "
                     "took={fast}ms", ""),
        (4, "WARN", "type=LOGIN_ERROR, realmId=erx, clientId=prescriber-portal, "
                    "error=invalid_user_credentials, username={user}", "logger=o.k.events"),
    ]),
    "session-redis": (0.06, [
        (10, "INFO", "100 changes in 300 seconds. Saving...", ""),
        (10, "INFO", "Background saving started by pid {pid}", ""),
        (10, "INFO", "Background saving terminated with success", ""),
    ]),
    "rx-mysql": (0.08, [
        (10, "WARN", "[MY-010055] [Server] IP address '10.44.{n}.7' could not be resolved: Name or service "
                     "not known", ""),
        (10, "WARN", "[MY-013360] [Server] Plugin mysql_native_password reported: ''mysql_native_password' "
                     "is deprecated and will be removed in a future release. Please use "
                     "caching_sha2_password instead'", ""),
        (12, "WARN", "[MY-010914] [Server] Aborted connection {conn} to db: 'erx' user: 'rx_app' host: "
                     "'10.44.{n}.12' (Got an error reading communication packets).", ""),
    ]),
    "search-index": (0.1, [
        (10, "INFO", "[amt-medicines] triggering scheduled refresh", "logger=o.o.i.s.IndexShard"),
        (6, "WARN", "[amt-medicines] [_doc] Using the _type field in queries is deprecated",
         "logger=o.o.d.DeprecationLogger"),
        (4, "INFO", "audit log batch flushed events={n}", "logger=o.o.s.a.r.AuditMessageRouter"),
    ]),
}
FIELDS_IN_LINE = ("rx-exchange", "claims-adapter", "notify-sms")  # structured: fields beside msg
STEADY = ("session-redis", "rx-mysql", "search-index")  # background chatter, not user traffic
# the everyday lines an incident stops (service, day, from, to, text in the template)
MUTED = [line.split(" ", 4) for line in """
prescriber-api 1 10:37 11:08 search-index query index
prescriber-api 1 16:17 16:46 POST /v2/prescriptions 201
rx-exchange 1 16:17 16:46 prescription registered
rx-exchange 1 16:17 16:46 dispense completed
pos-gateway 1 16:17 16:46 POST /pos/v1/dispense
ddi-checker 1 19:01 19:37 check ok
rx-exchange 1 19:03 19:37 dispense completed
pos-gateway 1 19:03 19:37 POST /pos/v1/dispense
claims-adapter 2 09:22 10:45 scheme=PBS|item
consent-idp 2 11:03 11:30 CODE_TO_TOKEN
notify-sms 2 15:08 15:43 sms sent""".strip().splitlines()]


def chatter(svc: str, t: dt.datetime) -> None:
    _, lvl, tpl, fields = R.choices(CHATTER[svc][1], weights=[e[0] for e in CHATTER[svc][1]])[0]
    if any(s == svc and within(t, int(d), a, b) and text in tpl + fields for s, d, a, b, text in MUTED):
        return
    kv = dict((k, fill(v)) for k, v in (f.split("=", 1) for f in fields.split("|") if f))
    if svc == "pos-gateway":
        line = ACCESS.replace("{req}", kv["req"]).replace("{st}", kv["st"])
        emit(svc, t, lvl, fill(line.replace("{rt}", kv["rt"]).replace("{up}", kv["up"])))
    elif svc in FIELDS_IN_LINE:
        emit(svc, t, lvl, tpl, **kv)
    else:
        emit(svc, t, lvl, fill(tpl), **kv)


def everyday() -> None:
    t = at(1, "00:00")
    while t < at(2, "23:59", 60):
        for svc in SERVICES[:-1]:
            for _ in range(poisson(CHATTER[svc][0] * (1.0 if svc in STEADY else load(t)))):
                chatter(svc, t + td(seconds=R.uniform(0, 59.999)))
        t += td(minutes=1)


# --- Changes: deploys (deploy tool, UTC) and config changes (config store audit, Sydney wall time) -

DEPLOYS = [  # id, service, version, day, start, minutes, by, summary (all SUCCEEDED)
    ("DEP-3301", "notify-sms", "4.2.0", 1, "09:05", 3, "ci-bot", "SMS template localisation (vi, zh-Hans)"),
    ("DEP-3302", "prescriber-api", "5.3.1", 1, "10:12", 4, "ci-bot",
     "audit field rename prescriberNo -> prescriber_id; UI copy"),
    ("DEP-3303", "ddi-checker", "1.19.0", 1, "13:48", 2, "ci-bot",
     "severity label mapping for AU product information"),
    ("DEP-3304", "rx-exchange", "2.8.0", 1, "14:03", 3, "ci-bot",
     "repeat-supply scheduling rewrite (RX-1182)"),
    ("DEP-3305", "rx-exchange", "2.7.4", 1, "14:42", 2, "m.okafor", "rollback"),
    ("DEP-3306", "pos-gateway", "1.31.2", 1, "18:40", 2, "ci-bot",
     "base image nginx 1.27.3, no config change"),
    ("DEP-3307", "claims-recon", "2.2.0", 2, "08:55", 1, "ci-bot", "reconciliation report: CSV column order"),
    ("DEP-3308", "consent-idp", "24.0.9", 2, "10:50", 5, "ci-bot",
     "login theme update, consent screen wording"),
    ("DEP-3309", "search-index", "2.17.1", 2, "13:30", 12, "s.patel", "OpenSearch patch release, rolling"),
]
CONFIG = [  # id, service, key, old, new, day, time, by, ticket
    ("CHG-5118", "notify-sms", "dlr.webhook.retries", "3", "5", 1, "08:31:12", "j.tran", "OPS-8790"),
    ("CHG-5119", "claims-adapter", "hicaps.batch_size", "50", "100", 1, "11:40:05", "k.nguyen", "OPS-8795"),
    ("CHG-5120", "search-index", "index.refresh_interval", "1s", "5s", 1, "13:30:47", "s.patel", "OPS-8797"),
    ("CHG-5121", "prescriber-api", "spring.datasource.hikari.maximum-pool-size", "20", "30", 1, "16:02:19",
     "r.wilson", "OPS-8801"),
    ("CHG-5122", "pos-gateway", "limit_req.pharmacy.rate", "50r/s", "80r/s", 1, "18:31:40", "m.okafor",
     "OPS-8803"),
    ("CHG-5123", "claims-adapter", "pbs.client.timeout_ms", "8000", "800", 2, "09:22:36", "k.nguyen",
     "OPS-8812"),
    ("CHG-5124", "claims-adapter", "pbs.client.timeout_ms", "800", "8000", 2, "10:44:02", "r.wilson",
     "INC-2291"),
    ("CHG-5125", "session-redis", "maxmemory", "2gb", "4gb", 2, "11:29:10", "s.patel", "INC-2292"),
    ("CHG-5126", "consent-idp", "otp.sms.template", "Your eRx code is {code}",
     "Your eRx verification code is {code}. Do not share it.", 2, "15:04:51", "j.tran", "OPS-8820"),
]
STARTED = {  # how each service logs its start after a deploy
    "prescriber-api": "c.e.rx.PrescriberApiApplication      : Started PrescriberApiApplication in 14.2 "
                      "seconds (process running for 15.9) version={v}",
    "rx-exchange": "rx-exchange starting", "pos-gateway": "signal process started",
    "ddi-checker": "Booting ddi-checker {v} (gunicorn 23.0.0, 8 workers)",
    "notify-sms": "notify-sms listening on :3000", "search-index": "started, version[{v}]",
    "consent-idp": "consent-idp {v} on JVM (powered by Quarkus 3.15.1) started in 6.114s.",
    "claims-recon": "installed claims-recon {v}",
}
RELOADED = {  # how each service logs a config change it picked up (redis does not log CONFIG SET)
    "claims-adapter": ("config reloaded", "source=consul|key={key}|value={new}|previous={old}"),
    "consent-idp": ("configuration reloaded: {key} changed", "logger=c.e.consent.ConfigWatcher"),
    "prescriber-api": ("o.s.c.e.event.RefreshEventListener   : Refresh keys changed: [{key}]", ""),
    "notify-sms": ("config updated", "key={key}|value={new}"),
    "pos-gateway": ("signal process started", "error_log=1"),
    "search-index": ("[amt-medicines] updating [{key}] from [{old}] to [{new}]",
                     "logger=o.o.c.s.IndexScopedSettings"),
}


def changes() -> None:
    """The deploys and config reloads as the services themselves log them."""
    for _, svc, ver, day, hhmm, mins, *_ in DEPLOYS:
        for i, pod in enumerate(PODS[svc]):
            t = at(day, hhmm) + td(minutes=mins * (i + 1) / len(PODS[svc]), seconds=R.uniform(-20, 0))
            kv = {"version": ver, "pod": pod}
            if svc == "rx-exchange":
                kv.update(caller="cmd/main.go:44", commit=f"{R.randrange(16**7):07x}")
            emit(svc, t, "INFO", STARTED[svc].format(v=ver), **kv)
    for _, svc, key, old, new, day, hms, *_ in CONFIG:
        if svc in RELOADED:
            text, fields = RELOADED[svc]
            sub = {"key": key, "old": old, "new": new}
            kv = dict(f.format(**sub).split("=", 1) for f in fields.split("|") if f)
            emit(svc, at(day, hms[:5], int(hms[6:]) + R.uniform(2, 9)), "INFO", text.format(**sub), **kv)


# --- Incidents, as the logs show them ------------------------------------------------------------

def spread(t0: dt.datetime, t1: dt.datetime, per_min: float):
    """Times of a Poisson stream between t0 and t1."""
    while t0 < t1:
        for _ in range(poisson(per_min)):
            yield t0 + td(seconds=R.uniform(0, 59.999))
        t0 += td(minutes=1)


def pos_line(st: str, req: str, rt: float, up: str = "rx-exchange") -> str:
    return ACCESS.format(ip=gen("ip"), ph=gen("ph"), bytes=157, ua=gen("ua"), req=req, st=st,
                         rt=f"{rt:.3f}", up=up)


def inc_search_heap() -> None:
    """PH-1: search-2's heap fills, old-gen GC pauses; only prescriber-api's slow searches show it."""
    for t in spread(at(1, "10:37"), at(1, "11:08"), 3.0):
        q = f'index=amt-medicines q="{gen("q")}"'
        if R.random() < .18:
            emit("prescriber-api", t, "ERROR", f"{SEARCH}search-index query failed {q}: "
                 "java.net.SocketTimeoutException: Read timed out (5000ms)")
        else:
            emit("prescriber-api", t, "WARN", f"{SEARCH}slow search-index query {q} hits={gen('n')} "
                 f"took={R.randint(2600, 4900)}ms")
    for t in spread(at(1, "10:38"), at(1, "11:06"), 1.2):
        emit("prescriber-api", t, "INFO", "c.e.rx.api.MedicineController       : GET /v2/medicines/search "
             f"200 in {R.randint(2700, 5200)}ms prescriber={gen('prs')}")


def inc_exchange_deploy() -> None:
    """PH-2: rx-exchange 2.8.0 panics on scripts with repeats; pos-gateway dispenses 502."""
    stack = ("repeats.(*Schedule).NextSupply(0x0)\n\trepeats/schedule.go:141\n"
             "rx-exchange/dispense.(*Handler).Dispense\n\tdispense/handler.go:118")
    for t in spread(at(1, "14:05", 30), at(1, "14:44"), 4.0):
        emit("rx-exchange", t, "ERROR", "panic recovered", caller="middleware/recover.go:29", version="2.8.0",
             path="/v1/dispense", token=gen("token"),
             error="runtime error: invalid memory address or nil pointer dereference", stack=stack)
        emit("pos-gateway", t + td(milliseconds=40), "ERROR", pos_line("502", DISPENSE, R.uniform(.02, .09)))
    for t in spread(at(1, "14:08"), at(1, "14:44"), .5):
        emit("rx-exchange", t, "WARN", "repeat schedule missing for script with repeats",
             caller="repeats/schedule.go:97", version="2.8.0", token=gen("token"),
             repeats_left=R.randint(1, 5))


def inc_db_disk() -> None:
    """PH-4: rx-mysql's binlog volume fills; commits wait; the apps see pool timeouts."""
    t = at(1, "16:17", 3.4)
    while t < at(1, "16:46"):
        emit("rx-mysql", t, "ERROR", "[MY-000035] [Server] Disk is full writing './binlog.000877' (OS errno "
             "28 - No space left on device). Waiting for someone to free space... Retry in 60 secs. Write "
             "error message to error log at every 10th try.", thread=R.choice([14, 18, 231]))
        t += td(seconds=60)
    for t in spread(at(1, "16:18"), at(1, "16:46"), 4.5):
        r = R.random()
        if r < .5:
            emit("prescriber-api", t, "ERROR", "o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - "
                 "Connection is not available, request timed out after 30000ms (total=30, active=30, idle=0, "
                 "waiting=41)")
        elif r < .8:
            emit("prescriber-api", t, "ERROR", f"{RXCTL}POST /v2/prescriptions 500 in "
                 f"{R.randint(30000, 30100)}ms prescriber={gen('prs')}")
        elif r < .9:
            emit("rx-exchange", t, "ERROR", "prescription register failed", caller="register/handler.go:92",
                 rx=gen("rx"), error="commit: context deadline exceeded", db="rx-mysql")
        else:
            emit("rx-exchange", t, "ERROR", "dispense failed", caller="dispense/handler.go:126",
                 token=gen("token"), error="insert dispense_record: context deadline exceeded", db="rx-mysql")
            emit("pos-gateway", t + td(seconds=.2), "ERROR", pos_line("504", DISPENSE, 15.002))


def inc_ddi_reload() -> None:
    """PH-6: ddi-checker reloads its interaction knowledge base for the new AMT release; workers
    time out, rx-exchange's ddi checks fail, pos-gateway returns 504s."""
    emit("ddi-checker", at(1, "19:00", 2.1), "INFO", "AMT release 20271130 detected (current 20271031), "
         "reloading interaction knowledge base", logger="ddi.kb")
    emit("ddi-checker", at(1, "19:00", 48), "INFO", "knowledge base reload: building interaction index from "
         "412833 concept pairs (workers share the reload lock)", logger="ddi.kb")
    for t in spread(at(1, "19:01"), at(1, "19:37"), .45):
        emit("ddi-checker", t, "FATAL", f"WORKER TIMEOUT (pid:{gen('pid')})", gunicorn=True)
        emit("ddi-checker", t + td(seconds=1.2), "INFO", f"Booting worker with pid: {gen('pid')}",
             gunicorn=True)
    for t in spread(at(1, "19:02"), at(1, "19:37"), .6):
        emit("ddi-checker", t, "WARN", f"check waited {R.uniform(20, 31):.1f}s for reload lock "
             f"rx={gen('rx')}")
    emit("ddi-checker", at(1, "19:37", 15), "INFO", "knowledge base reload complete in 2233.0s, AMT release "
         "20271130 active", logger="ddi.kb")
    for t in spread(at(1, "19:03"), at(1, "19:37"), 3.0):
        if R.random() < .3:
            emit("rx-exchange", t, "WARN", "circuit breaker state change", caller="breaker/breaker.go:64",
                 upstream="ddi-checker", state=R.choice(["open", "half-open"]))
        else:
            emit("rx-exchange", t, "ERROR", "dispense failed", caller="dispense/handler.go:104",
                 token=gen("token"), error="ddi check: context deadline exceeded", upstream="ddi-checker",
                 duration_ms=R.randint(15000, 15100))
        late = t + td(seconds=15.1)
        emit("pos-gateway", late, "ERROR", pos_line("504", DISPENSE, R.uniform(15.0, 15.1)))
        if R.random() < .4:
            emit("pos-gateway", late, "ERROR", "upstream timed out (110: Connection timed out) while reading "
                 f'response header from upstream, client: {gen("ip")}, server: pos.erx.internal, request: '
                 f'"{DISPENSE}", upstream: "http://10.44.8.21:8080/v1/dispense", host: "pos.erx.internal"',
                 error_log=True)


def inc_pbs_timeout() -> None:
    """PH-3: claims-adapter's PBS client timeout set to 800 ms; PBS answers in ~1.1 s as always."""
    url = "https://pbs-online.api.servicesaustralia.gov.au/claims/v3"
    for t in spread(at(2, "09:23"), at(2, "10:45"), 3.2):
        claim = gen("claim")
        if R.random() < .82:
            emit("claims-adapter", t, "ERROR", "pbs submit failed", claim_id=claim, scheme="PBS",
                 err=f'Post "{url}": context deadline exceeded', timeout_ms=800,
                 elapsed_ms=R.randint(800, 803))
            if R.random() < .5:
                emit("claims-adapter", t + td(milliseconds=5), "WARN", "claim parked for retry",
                     claim_id=claim, attempt=R.randint(1, 4), next_in="120s")
        else:
            emit("claims-adapter", t, "INFO", "claim submitted", claim_id=claim, scheme="PBS",
                 item=gen("item"), pbs_ms=R.randint(610, 790), status="ACCEPTED")
    for t in spread(at(2, "09:40"), at(2, "10:45"), .3):
        emit("pos-gateway", t, "WARN", pos_line("409", "POST /pos/v1/claims/status HTTP/1.1",
                                                R.uniform(.01, .05), "claims-adapter"))


def inc_redis_oom() -> None:
    """PH-5: session-redis reaches maxmemory (noeviction): session writes fail everywhere."""
    oom = ("io.lettuce.core.RedisCommandExecutionException: OOM command not allowed when used memory > "
           "'maxmemory'.")
    for t in spread(at(2, "11:03"), at(2, "11:30"), 9.0):
        r = R.random()
        if r < .3:
            emit("consent-idp", t, "ERROR", f"session write failed for client prescriber-portal: {oom}",
                 logger="c.e.consent.SessionStore")
        elif r < .45:
            emit("consent-idp", t, "WARN", "type=LOGIN_ERROR, realmId=erx, clientId=pharmacy-pos, "
                 f"error=session_persist_failed, username={gen('user')}", logger="o.k.events")
        elif r < .65:
            emit("prescriber-api", t, "ERROR", "c.e.rx.security.SessionFilter       : session refresh "
                 "failed, returning 401: org.springframework.data.redis.RedisSystemException: Error in "
                 f"execution; nested exception is {oom}")
        elif r < .85:
            emit("pos-gateway", t, "WARN", pos_line("401", fill(SCRIPT), R.uniform(.005, .02)))
        else:
            emit("rx-exchange", t, "ERROR", "token introspection failed", caller="auth/introspect.go:51",
                 upstream="consent-idp", status=500, pharmacy=gen("ph"))


def inc_sms_provider() -> None:
    """PH-7 (trap): the SMS aggregator answers 503 or times out; a consent-idp template edit is not it."""
    for t in spread(at(2, "15:08"), at(2, "15:43"), 2.6):
        if R.random() < .7:
            emit("notify-sms", t, "ERROR", "provider send failed", provider="messagemedia", status=503,
                 body="Service Unavailable", to=gen("phone"), kind=R.choice(["escript_token"] * 3 + ["otp"]),
                 retry_in="30s")
        else:
            emit("notify-sms", t, "ERROR", "provider send failed", provider="messagemedia", err="ETIMEDOUT",
                 timeout_ms=10000, to=gen("phone"), kind="escript_token")
    for t in spread(at(2, "15:15"), at(2, "15:43"), .4):
        emit("notify-sms", t, "WARN", "send queue backlog", depth=R.randint(400, 2600),
             oldest_s=R.randint(120, 1500))
    for t in spread(at(2, "15:09"), at(2, "15:43"), .4):
        emit("consent-idp", t, "WARN", "otp sms dispatch failed via notify-sms status=502, user asked to "
             "retry", logger="c.e.consent.OtpSender")


def nightly() -> list[tuple]:
    """The claims reconciliation at 02:00 on both days (both runs normal) and the AMT release check."""
    runs = []
    for day, run_id, lines, unmatched, secs in ((1, "RUN-1413", 17986, 4, 2178),
                                                (2, "RUN-1414", 18442, 3, 2271)):
        t0 = at(day, "02:00", 1)
        settle = DAYS[day - 1] - td(days=1)
        emit("claims-recon", t0, "INFO", f"starting reconciliation run {run_id} for settlement date {settle}")
        emit("claims-recon", t0 + td(seconds=94), "INFO", f"fetched {lines} PBS payment advice lines "
             "(12 files)")
        for _ in range(unmatched):
            emit("claims-recon", t0 + td(seconds=R.uniform(300, secs - 120)), "WARN", f"claim {gen('claim')} "
                 f"unmatched: paid {gen('amt')} differs from claimed by 0.0{R.randint(1, 9)}")
        for k in range(1, 7):
            emit("claims-recon", t0 + td(seconds=k * 300 + R.uniform(0, 60)), "INFO",
                 f"progress {k * 100 // 7}% matched={lines * k // 7}")
        emit("claims-recon", t0 + td(seconds=secs), "INFO", f"run {run_id} finished status=OK "
             f"matched={lines - unmatched} unmatched={unmatched} tolerance=25 duration={secs}s")
        runs.append((run_id, "claims-recon", t0, t0 + td(seconds=secs), "SUCCEEDED", lines, unmatched))
    emit("ddi-checker", at(2, "19:00", 1.5), "INFO", "AMT release check: 20271130 is current, no reload "
         "needed", logger="ddi.kb")  # the daily check; on day 1 it found a new release (PH-6)
    return runs


# --- Metric exports ------------------------------------------------------------------------------

def minutes(step: int):
    t = at(1, "00:00")
    while t < at(2, "23:59", 60):
        yield t
        t += td(minutes=step)


BASE = {"prescriber-api": (520, .3, 240), "rx-exchange": (610, .2, 120), "pos-gateway": (700, .4, 150),
        "ddi-checker": (300, .1, 60), "claims-adapter": (180, 1.5, 1500), "notify-sms": (160, 4.0, 900),
        "consent-idp": (380, .6, 90)}  # requests a minute at peak, error %, p95 ms
# each incident's mark on the service metrics: service, day, from, to; traffic factor, error %, p95 ms
SPELLS = [(svc, int(day), a, b, tuple(map(float, moves))) for svc, day, a, b, *moves in map(str.split, """
prescriber-api 1 10:35 11:10  1 2.1 4900
rx-exchange    1 14:05 14:45  1 17.5 180
pos-gateway    1 14:05 14:45  1 12 190
prescriber-api 1 16:15 16:50 .7 38 30000
rx-exchange    1 16:15 16:50  1 6 2400
pos-gateway    1 16:15 16:50  1 4 15000
ddi-checker    1 19:00 19:40 .6 41 29000
rx-exchange    1 19:00 19:40  1 33 15000
pos-gateway    1 19:00 19:40  1 29 15100
claims-adapter 2 09:20 10:45 1.4 68 801
consent-idp    2 11:00 11:30 1.2 46 140
prescriber-api 2 11:00 11:30  1 24 310
pos-gateway    2 11:00 11:30  1 21 160
rx-exchange    2 11:00 11:30  1 9 140
notify-sms     2 15:05 15:45 .9 71 10000""".strip().splitlines())]


def service_metrics() -> list[list]:
    """The monitoring export every five minutes, in UTC."""
    rows = []
    for t in minutes(5):
        for svc, (rpm, err, p95) in BASE.items():
            f, e, p = 1.0, err * R.uniform(.6, 1.4), p95 * R.uniform(.85, 1.2)
            for s, day, a, b, (ff, ee, pp) in SPELLS:
                if s == svc and within(t, day, a, b):
                    f, e, p = ff, ee * R.uniform(.85, 1.15), pp * R.uniform(.95, 1.05)
            rows.append([zulu(t), svc, int(rpm * load(t) * f * R.uniform(.9, 1.1)), f"{e:.2f}", int(p)])
    return rows


def search_nodes() -> list[list]:
    """Per-node JVM stats: a sawtooth heap and its old GCs; search-2 fills on day 1 from 10:18."""
    rows, heap = [], {n: R.uniform(40, 60) for n in PODS["search-index"]}
    for t in minutes(1):
        for n in PODS["search-index"]:
            heap[n] += R.uniform(.4, 1.3)
            gc_n, gc_ms, q95 = 0, 0, int(R.uniform(25, 60) * (.6 + load(t)))
            if heap[n] > 74:
                heap[n], gc_n, gc_ms = R.uniform(38, 46), 1, R.randint(140, 420)
            if n == "search-2" and within(t, 1, "10:18", "10:36"):
                heap[n] = max(heap[n], 70 + (t - at(1, "10:18")).seconds / 60 * 1.4)
            elif n == "search-2" and within(t, 1, "10:36", "11:08"):
                heap[n], gc_n, gc_ms = R.uniform(95.5, 98.6), R.randint(3, 7), R.randint(4200, 9800)
                q95 = R.randint(2900, 5100)
            elif n == "search-2" and t == at(1, "11:08"):
                heap[n], gc_n, gc_ms = 41.0, 1, 12400
            rejected = 0 if q95 < 2000 else R.randint(0, 12)
            rows.append([iso(t), n, f"{heap[n]:.1f}", gc_n, gc_ms, q95, rejected])
    return rows


def redis_metrics() -> list[list]:
    """INFO every minute (epoch seconds): used memory creeps ~300 MB a day into maxmemory."""
    rows, errors, hits = [], 0, 88_000_000
    full, fixed = at(2, "11:03"), at(2, "11:29")
    for t in minutes(1):
        hrs = (t - at(1, "00:00")).total_seconds() / 3600
        used = 1609.9 + hrs * 12.4 + 14 * math.sin(hrs / 24 * 2 * math.pi) + R.uniform(-1.5, 1.5)
        if t < full:
            used = min(used, 2046.8)
        elif t < fixed:
            used, errors = R.uniform(2047.6, 2048.0), errors + R.randint(180, 420)
        hits += int(2600 * load(t) * R.uniform(.9, 1.1))
        rows.append([int(t.timestamp()), "redis-sess-0", f"{used:.1f}", 4096 if t >= fixed else 2048,
                     "noeviction", int(900 * load(t) + R.randint(20, 40)), 0, hits, errors])
    return rows


def claims_metrics() -> list[list]:
    """Claims a minute as the adapter counts them, PBS latency of the answered ones (Sydney time)."""
    rows = []
    for t in minutes(1):
        n = poisson(14 * load(t))
        p50, p95, timed_out = int(R.uniform(1020, 1240)), int(R.uniform(1900, 2600)), 0
        if within(t, 2, "09:23", "10:45"):
            timed_out = int(round(n * R.uniform(.78, .88)))
            p50, p95 = int(R.uniform(610, 700)), int(R.uniform(770, 799))
        answered = n - timed_out
        rejected = min(answered, R.choice([0, 0, 0, 1]))
        rows.append([f"{t:%Y-%m-%d %H:%M}", n, answered - rejected, rejected, timed_out,
                     p50 if answered else "", p95 if answered else ""])
    return rows


def mysql_metrics() -> list[list]:
    rows = []
    for t in minutes(5):
        run, commits, lag = R.randint(2, 9), int(95 * load(t) * R.uniform(.9, 1.1)), R.randint(0, 1)
        if within(t, 1, "16:15", "16:50"):
            run, commits, lag = R.randint(58, 64), R.randint(0, 1), (t - at(1, "16:15")).seconds
        rows.append([zulu(t), int(60 + 70 * load(t)) + R.randint(-5, 5), run,
                     int(commits * 4.2) + R.randint(5, 20), commits, R.randint(0, 3), lag])
    return rows


# --- Knowledge: the team's runbooks and notes ----------------------------------------------------

KNOWLEDGE = {
    "search-latency.md": """# Slow medicine search (prescriber-api)

Owner: clinical-platform. Pager text: `MedicineSearchLatencyHigh`.

Prescribers type a few letters and the picker calls `GET /v2/medicines/search`, which queries the
`amt-medicines` index on the search-index cluster (3 nodes, OpenSearch). p95 should stay under 300 ms.

## How to confirm
- prescriber-api logs `slow search-index query ... took=NNNNms` above 1 s.
- Check the node stats export (`search_nodes`): a single node with `heap_used_pct` in the high 90s and
  old-generation GC time in the seconds per minute will stall every query routed to its shards.
- The search-index cluster does not log GC pauses below WARN any more (we turned `monitor.jvm.gc` down
  after the 2027-08 noise review), so the export is the only place to see them.

## Fix
- Restart the hot node (`kubectl delete pod search-N`), the replicas take over.
- If the heap climbs again within hours, look for a heavy aggregation from reporting.
""",
    "pbs-online-timeouts.md": """# PBS Online timeouts and claim backlogs

PBS Online (Services Australia) is the external claiming endpoint for every PBS script we dispense.
When it is slow or down our claims-adapter logs timeouts and parks claims for retry.

## What it looks like
- `pbs submit failed ... context deadline exceeded` in claims-adapter.
- Pharmacies see "claim pending" in their POS and call the help desk.
- Services Australia usually posts on the Health Systems Online status page within 20 minutes.

## What to do
1. Check the Services Australia status page and the #pbs-partners channel.
2. Do **not** restart claims-adapter; parked claims are retried automatically every 2 minutes.
3. If it lasts more than an hour, tell pharmacies via the POS banner that claims will go later.
4. Raise a ticket with the Services Australia OTS help desk with three claim ids.

Nothing on our side needs changing during a PBS outage.
""",
    "prescription-db-writes.md": """# Prescription writes failing or slow

The prescriptions database is MySQL 8.4 (`rxdb-primary-0`, one replica). prescriber-api and
rx-exchange write to it; prescriber-api through HikariCP.

## Symptoms
- `HikariPool-1 - Connection is not available, request timed out after 30000ms` in prescriber-api.
- `POST /v2/prescriptions 500` after ~30 s.

## Checks, in order
1. Was the pool size changed? (`config_changes`, key `spring.datasource.hikari.maximum-pool-size`). A
   pool that is too small shows `waiting` climbing while the database is idle.
2. Long transactions or lock waits: `mysql_stats.innodb_row_lock_waits`.
3. Read the MySQL error log of the primary itself (its times are UTC): replication, crash recovery,
   and disk problems (binlog or data volume full, errno 28) only show there.

## Fixes
- Disk: `PURGE BINARY LOGS BEFORE NOW() - INTERVAL 1 DAY;` once the replica has caught up, then
  grow the volume.
""",
    "session-store.md": """# Session cache (session-redis)

Sessions for prescribers, pharmacy POS clients and the consent screens live in one redis
(`redis-sess-0`, 2 GB at the time of writing), `maxmemory-policy noeviction` on purpose: evicting a
session logs a clinician out mid-script.

## Symptoms when it is full
- Writes are refused with `OOM command not allowed when used memory > 'maxmemory'`; reads still work.
- Logins fail and API calls return 401 across every product at once.

## Watch
- `redis_sessions.used_memory_mb` against `maxmemory_mb`; the growth is about 300 MB a day since the
  30-day "remember this device" sessions shipped. Ticket OPS-8611 (raise to 4 GB) is still open.

## Fix
- `CONFIG SET maxmemory 4gb` (the node has 8 GB), then record it in the config store.
""",
    "escript-dispense-triage.md": """# Pharmacy dispense errors (pos-gateway)

Pharmacy POS systems (Fred, Minfos, Z, Corum, LOTS) call pos-gateway (nginx). Every dispense goes
pos-gateway -> rx-exchange -> ddi-checker (interaction check, synchronous, 15 s budget) and
consent-idp (consent check). rx-exchange writes the dispense record to rx-mysql.

## Triage
- 401 from pos-gateway: POS credentials or consent-idp sessions.
- 502 from pos-gateway: rx-exchange answered badly (crash, panic) — check its recent deploys.
- 504 from pos-gateway: something behind rx-exchange took longer than 15 s. The gateway cannot tell
  which; follow `upstream=` in rx-exchange's own errors to the slow dependency and read its log.
- `rx-exchange circuit breaker state change` is a consequence, not a cause.
""",
    "known-noise.md": """# Known noise (do not page on these)

- notify-sms logs `DLR failed ... status=UNDELIV` at ERROR all day: delivery receipts for phones that
  are off or out of coverage. Around 10% of sends. Only a jump in `provider send failed` matters.
- rx-mysql: `Aborted connection ... Got an error reading communication packets` — the load balancer's
  health probes. `mysql_native_password is deprecated` comes with every connect of the old reporting
  user.
- search-index: `Using the _type field in queries is deprecated` from the old POS search clients.
- claims-recon: a handful of `claim ... unmatched: paid ... differs from claimed by 0.0N` every night
  are rounding on PBS payment advice; the run is fine while `unmatched` stays under `tolerance`.
- prescriber-api: `HikariPool-1 - Thread starvation or clock leap detected` on the small nodes after GC.
- rx-exchange `deprecated field used by client` (pbsItemCode): old Minfos builds.
""",
}


# --- Truth ---------------------------------------------------------------------------------------

def logs(svc: str, day: int, a: str, b: str, pattern: str, contains: str) -> dict:
    args = {"service": svc, "start": iso(at(day, a)), "end": iso(at(day, b)), "pattern": pattern}
    return {"tool": "query_logs", "args": args, "contains": contains}


def sql(select: str, where: str, contains: str, *span) -> dict:
    """A query_mysql step; `{}` in `where` take the UTC forms of the (day, HH:MM) pairs in `span`."""
    times = [f"'{zulu(at(day, hhmm))}'" for day, hhmm in span]
    return {"tool": "query_mysql", "args": {"sql": f"SELECT {select} WHERE {where.format(*times)}"},
            "contains": contains}


BETWEEN = "{} BETWEEN {{}} AND {{}}".format
CASES = [  # id, kind, failure class, question, service, day, start, end, onset, cause service,
    #        root cause, key terms, distractors, runbook, evidence, note
    ("PH-1", "cause", "resource-saturation",
     "medicine search in prescriber-api is crawling between 10:40 and 11:05 on Tue 14 Dec (AEDT) — "
     "what's the root cause?", "prescriber-api", 1, "10:40", "11:05", (1, "10:36"), "search-index",
     "search-index node search-2 ran out of JVM heap (96-98% used) and spent seconds per minute in "
     "old-generation GC, so medicine search queries from prescriber-api stalled and timed out",
     ["search-index", "heap"],
     ["prescriber-api deploy DEP-3302 (5.3.1) at 10:12", "notify-sms DLR failed errors (known noise)"],
     "search-latency",
     [logs("prescriber-api", 1, "10:40", "11:05", "slow search-index query", "took="),
      sql("ts, node, heap_used_pct, gc_old_time_ms FROM search_nodes",
          "node = 'search-2' AND " + BETWEEN("ts"), "search-2", (1, "10:40"), (1, "11:05")),
      sql("caller, callee, purpose FROM dependencies", "caller = 'prescriber-api'", "search-index")],
     "Only the node export shows the heap; search-index's own log has nothing at WARN (see the runbook)."),
    ("PH-2", "cause", "bad-deploy",
     "rx-exchange throwing 5xx on dispense from 14:10 to 14:40 on 14/12 — root cause?",
     "rx-exchange", 1, "14:10", "14:40", (1, "14:05"), "rx-exchange",
     "deploy DEP-3304 of rx-exchange 2.8.0 (repeat-supply scheduling rewrite) panics with a nil pointer "
     "dereference in repeats NextSupply for scripts with repeats; rolled back to 2.7.4 at 14:44",
     ["rx-exchange", "2.8.0"],
     ["ddi-checker deploy DEP-3303 (1.19.0) at 13:48", "search-index config CHG-5120 at 13:30"], None,
     [logs("rx-exchange", 1, "14:10", "14:40", "panic recovered", "nil pointer dereference"),
      sql("deploy_id, service, version, started_at, summary FROM deploys", BETWEEN("started_at"),
          "DEP-3304", (1, "13:30"), (1, "14:40"))],
     "pos-gateway's 502s are the same failure seen from the pharmacies."),
    ("PH-3", "cause", "config-change", "PBS claims failing on claims-adapter since ~09:30, what's going on?",
     "claims-adapter", 2, "09:30", "10:30", (2, "09:22"), "claims-adapter",
     "config change CHG-5123 set claims-adapter pbs.client.timeout_ms to 800 (was 8000) at 09:22; PBS "
     "Online answers in about 1.1 s as usual, so most submissions hit the client deadline",
     ["claims-adapter", "timeout_ms"],
     ["claims-recon deploy DEP-3307 at 08:55", "runbook pbs-online-timeouts blames PBS Online outages"],
     "pbs-online-timeouts",
     [logs("claims-adapter", 2, "09:15", "10:30", "config reloaded", "value=800"),
      logs("claims-adapter", 2, "09:30", "10:30", "pbs submit failed", "timeout_ms=800"),
      sql("change_id, service, config_key, old_value, new_value, changed_at FROM config_changes",
          BETWEEN("changed_at"), "CHG-5123", (2, "08:30"), (2, "10:30"))],
     "The runbook next to this symptom says PBS outages need no change on our side; here our own "
     "timeout is the cause (claims_pbs p95 stops just under 800 ms)."),
    ("PH-4", "cause", "disk-full",
     "prescribers can't save new scripts — prescriber-api errors between 16:20 and 16:45 on 14 Dec 2027. "
     "Why?", "prescriber-api", 1, "16:20", "16:45", (1, "16:17"), "rx-mysql",
     "rx-mysql's binlog volume filled up (Disk is full writing binlog, errno 28 No space left on device): "
     "commits waited, so prescriber-api's Hikari pool ran out of connections and saves failed after 30 s",
     ["rx-mysql", "disk"],
     ["prescriber-api config CHG-5121 hikari maximum-pool-size 20 -> 30 at 16:02",
      "rx-mysql Aborted connection warnings (known noise)"], "prescription-db-writes",
     [logs("rx-mysql", 1, "16:15", "16:45", "Disk is full", "No space left on device"),
      logs("prescriber-api", 1, "16:20", "16:45", "Connection is not available", "30000ms")],
     "The mechanism is only in rx-mysql's own error log (UTC times); mysql_stats shows the stall, not why."),
    ("PH-5", "cause", "memory-exhaustion",
     "Everything is erroring and people are getting logged out between 11:05 and 11:30 on 15/12 — "
     "prescribers, pharmacies, consent screens. What's the root cause?",
     None, 2, "11:05", "11:30", (2, "11:03"), "session-redis",
     "session-redis reached maxmemory (2 GB, policy noeviction): session writes were refused with OOM "
     "command not allowed, so logins and session refreshes failed across consent-idp, prescriber-api and "
     "the pharmacy POS; fixed by raising maxmemory to 4gb at 11:29", ["session-redis", "memory"],
     ["consent-idp deploy DEP-3308 (24.0.9) at 10:50", "config CHG-5125 (the fix, at 11:29)"],
     "session-store",
     [logs("consent-idp", 2, "11:05", "11:30", "OOM command not allowed", "maxmemory"),
      sql("ts, used_memory_mb, maxmemory_mb, maxmemory_policy FROM redis_sessions", BETWEEN("ts"),
          "noeviction", (2, "11:05"), (2, "11:10"))],
     "A system-wide question naming no service; the deploy of consent-idp just before is unrelated."),
    ("PH-6", "cause", "upstream-saturation",
     "pharmacies getting 504s from pos-gateway between 19:05 and 19:35 on 14 Dec — why?",
     "pos-gateway", 1, "19:05", "19:35", (1, "19:00"), "ddi-checker",
     "ddi-checker reloaded its interaction knowledge base for the new AMT release 20271130 at 19:00; "
     "checks waited on the reload lock and gunicorn workers timed out, so rx-exchange's synchronous ddi "
     "checks exceeded 15 s and pos-gateway returned 504", ["ddi-checker", "reload"],
     ["pos-gateway deploy DEP-3306 (1.31.2) at 18:40", "pos-gateway config CHG-5122 at 18:31",
      "rx-exchange circuit breaker messages"], "escript-dispense-triage",
     [logs("ddi-checker", 1, "18:55", "19:35", "reloading interaction knowledge base",
           "AMT release 20271130"),
      logs("rx-exchange", 1, "19:05", "19:35", "dispense failed", "ddi check: context deadline exceeded"),
      sql("caller, callee, protocol, purpose FROM dependencies", "caller = 'rx-exchange'", "ddi-checker")],
     "The component asked about only shows the symptom; the cause is two hops upstream."),
    ("PH-7", "trap", "external-provider",
     "patients not receiving their eScript token SMS from notify-sms between 15:10 and 15:40 — why?",
     "notify-sms", 2, "15:10", "15:40", None, None,
     "the external SMS aggregator (messagemedia) answered 503 Service Unavailable and timed out; nothing "
     "of ours changed notify-sms. consent-idp's otp.sms.template edit (CHG-5126) at 15:04 is unrelated", [],
     ["consent-idp config CHG-5126 otp.sms.template at 15:04", "notify-sms DLR failed errors (known noise)"],
     None,
     [logs("notify-sms", 2, "15:10", "15:40", "provider send failed", "Service Unavailable"),
      sql("change_id, service, config_key, changed_at FROM config_changes", BETWEEN("changed_at"),
          "otp.sms.template", (2, "14:30"), (2, "15:40"))],
     "Trap: the cause is an outside provider with no data of its own here; the change that shares the "
     "word sms is another service's template text."),
    ("PH-8", "quiet", "none",
     "did the claims-recon batch have a problem last night between 02:00 and 03:00 on 15/12?",
     "claims-recon", 2, "02:00", "03:00", None, None, None, [],
     ["claims-recon unmatched WARNs within tolerance (known noise)"], "known-noise",
     [logs("claims-recon", 2, "02:00", "03:00", "finished", "status=OK"),
      sql("run_id, status, unmatched FROM batch_runs", BETWEEN("started_at"), "SUCCEEDED",
          (2, "01:30"), (2, "03:00"))],
     "Quiet: the run was normal; the unmatched warnings are the nightly rounding noise."),
]


def truth() -> dict:
    incidents = []
    for (id_, kind, cls, question, svc, day, a, b, onset, cause, root, terms, distractors, runbook,
         evidence, note) in CASES:
        incidents.append({
            "id": id_, "kind": kind, "class": cls, "question": question, "service": svc,
            "start": iso(at(day, a)), "end": iso(at(day, b)), "onset": iso(at(*onset)) if onset else None,
            "cause_service": cause, "root_cause": root, "key_terms": terms, "distractors": distractors,
            "has_runbook": runbook is not None, "runbook": runbook,
            "expected_outcome": "SUCCESS" if kind == "cause" else "FALLBACK", "fallback_type": None,
            "evidence": evidence, "note": note})
    return {"dataset": f"{NAME}-world", "timezone": "Australia/Sydney",
            "description": "pharm: an Australian e-prescription and pharmacy network, Tue 14 - Wed 15 Dec "
                           "2027 (AEDT, UTC+11:00); questions in Sydney time. 6 causes, 1 unrelated-change "
                           "trap (external cause), 1 quiet window.",
            "incidents": incidents}


# --- Writing and checking ------------------------------------------------------------------------

TABLES = {
    "dependencies": "caller callee protocol purpose critical",
    "deploys": "deploy_id service version started_at finished_at status deployed_by summary",
    "config_changes": "change_id service config_key old_value new_value changed_by changed_at ticket",
    "service_metrics": "ts service requests_per_min error_pct p95_ms",
    "search_nodes": "ts node heap_used_pct gc_old_collections gc_old_time_ms query_p95_ms search_rejections",
    "redis_sessions": "ts instance used_memory_mb maxmemory_mb maxmemory_policy connected_clients "
                      "evicted_keys keyspace_hits total_error_replies",
    "claims_pbs": "time submitted accepted rejected timed_out pbs_p50_ms pbs_p95_ms",
    "mysql_stats": "ts threads_connected threads_running queries_per_s commits_per_s "
                   "innodb_row_lock_waits replica_lag_s",
    "batch_runs": "run_id job started_at finished_at status lines unmatched",
}
DEPS = [  # caller, callee, protocol, purpose, critical
    ("prescriber-api", "search-index", "https", "medicine search (amt-medicines)", "no"),
    ("prescriber-api", "rx-mysql", "mysql", "prescriptions store", "yes"),
    ("prescriber-api", "ddi-checker", "http", "interaction check at prescribing", "yes"),
    ("prescriber-api", "session-redis", "redis", "prescriber sessions", "yes"),
    ("prescriber-api", "rx-exchange", "grpc", "register eScripts", "yes"),
    ("pos-gateway", "rx-exchange", "http", "script lookup and dispense", "yes"),
    ("pos-gateway", "claims-adapter", "http", "claim status for POS", "no"),
    ("pos-gateway", "consent-idp", "http", "POS client auth", "yes"),
    ("rx-exchange", "ddi-checker", "http", "interaction check at dispense (15s)", "yes"),
    ("rx-exchange", "consent-idp", "http", "token introspection and consent", "yes"),
    ("rx-exchange", "rx-mysql", "mysql", "dispense records", "yes"),
    ("rx-exchange", "notify-sms", "http", "eScript token SMS", "no"),
    ("consent-idp", "session-redis", "redis", "sessions and OTP state", "yes"),
    ("consent-idp", "notify-sms", "http", "OTP SMS", "no"),
    ("notify-sms", "messagemedia", "https", "SMS aggregator (external)", "yes"),
    ("claims-adapter", "pbs-online", "https", "PBS claiming (Services Australia, external)", "yes"),
    ("claims-adapter", "rx-mysql", "mysql", "claim state", "yes"),
    ("claims-recon", "rx-mysql", "mysql", "nightly reconciliation", "no"),
    ("claims-recon", "pbs-online", "sftp", "payment advice files", "no"),
    ("ddi-checker", "amt-feed", "https", "AMT monthly release (external)", "no"),
]
MANIFEST = {"name": f"{NAME}-world", "timezone": "Australia/Sydney",
            "description": "An Australian e-prescription and pharmacy network platform over two days "
                           "(Tue 14 - Wed 15 Dec 2027, Sydney time, AEDT UTC+11:00): prescriber API, "
                           "prescription exchange, pharmacy POS gateway, interaction checker, PBS claims, "
                           "SMS, identity and consent, session cache, MySQL, search index, nightly claims "
                           "reconciliation."}


def write_csv(path: Path, header: str, rows: list) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header.split())
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def build(out: Path) -> Path:
    for step in (everyday, changes, inc_search_heap, inc_exchange_deploy, inc_db_disk, inc_ddi_reload,
                 inc_pbs_timeout, inc_redis_oom, inc_sms_provider):
        step()
    runs = nightly()
    root = out / NAME
    if root.exists():
        shutil.rmtree(root)
    (root / "tables").mkdir(parents=True)
    (root / "knowledge").mkdir()
    EVENTS.sort(key=lambda e: (e[0], e[1]))
    with open(root / "logs.jsonl", "w", encoding="utf-8", newline="\n") as f:
        f.writelines(json.dumps(ev, ensure_ascii=False) + "\n" for _, _, ev in EVENTS)
    data = {
        "dependencies": DEPS,
        "deploys": [[*d[:3], zulu(at(d[3], d[4])), zulu(at(d[3], d[4]) + td(minutes=d[5])), "SUCCEEDED",
                     *d[6:]] for d in DEPLOYS],
        "config_changes": [[*c[:5], c[7], f"{DAYS[c[5] - 1]} {c[6]}", c[8]] for c in CONFIG],
        "service_metrics": service_metrics(), "search_nodes": search_nodes(),
        "redis_sessions": redis_metrics(), "claims_pbs": claims_metrics(), "mysql_stats": mysql_metrics(),
        "batch_runs": [[*r[:2], iso(r[2]), iso(r[3]), *r[4:]] for r in runs],
    }
    for name, header in TABLES.items():
        write_csv(root / "tables" / f"{name}.csv", header, data[name])
    for fname, text in KNOWLEDGE.items():
        (root / "knowledge" / fname).write_text(text, encoding="utf-8")
    (root / "dataset.json").write_text(json.dumps(MANIFEST, indent=2) + "\n", encoding="utf-8")
    text = json.dumps(truth(), indent=2, ensure_ascii=False) + "\n"
    (root / "truth.json").write_text(text, encoding="utf-8")
    return root


def to_utc(v: str) -> str:
    """A table time as the loader stores it: canonical UTC text (zone-less times are Sydney time)."""
    if re.fullmatch(r"\d{9,10}", v):
        return zulu(dt.datetime.fromtimestamp(int(v), UTC))
    t = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
    return zulu(t if t.tzinfo else t.replace(tzinfo=TZ))


def check(root: Path) -> int:
    """Every truth evidence item's `contains` must appear in what its step selects."""
    events = [json.loads(line) for line in (root / "logs.jsonl").read_text(encoding="utf-8").splitlines()]
    db = sqlite3.connect(":memory:")
    for path in sorted((root / "tables").glob("*.csv")):
        header, *body = list(csv.reader(path.open(encoding="utf-8")))
        times = {i for i, h in enumerate(header) if h in ("ts", "time") or h.endswith("_at")}
        body = [[to_utc(c) if i in times and c else c for i, c in enumerate(r)] for r in body]
        db.execute(f"CREATE TABLE {path.stem} ({', '.join(header)})")
        db.executemany(f"INSERT INTO {path.stem} VALUES ({', '.join('?' * len(header))})", body)
    bad = 0
    for inc in json.loads((root / "truth.json").read_text(encoding="utf-8"))["incidents"]:
        for step in inc["evidence"]:
            a = step["args"]
            if step["tool"] == "query_logs":
                t0, t1 = dt.datetime.fromisoformat(a["start"]), dt.datetime.fromisoformat(a["end"])
                hits = [e["message"] for e in events if e["service"] == a["service"]
                        and t0 <= dt.datetime.fromisoformat(e["ts"]) <= t1
                        and a["pattern"].lower() in e["message"].lower()]
            else:
                cur = db.execute(a["sql"])
                names = [d[0] for d in cur.description]
                hits = [json.dumps(dict(zip(names, r, strict=True)), separators=(",", ":")) for r in cur]
            ok = any(step["contains"] in h for h in hits)
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {inc['id']} {step['tool']}: {len(hits)} hit(s), "
                  f"{step['contains']!r}")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1 or set(argv) - {*args, "--check"}:
        print("usage: generate_world_pharm.py OUT_DIR [--check]", file=sys.stderr)
        return 64
    root = build(Path(args[0]))
    print(f"{root}: {len(EVENTS)} events")
    return check(root) if "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
