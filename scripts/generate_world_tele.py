#!/usr/bin/env python3
"""Generate the **tele** incident world: an East African mobile operator's digital services and BSS.

Two days (2027-01-18..19, East Africa Time, UTC+03:00, no daylight saving) of logs, ops tables and
runbooks from twelve components: an API gateway (Kong) in front of a self-care API, an SMS gateway
speaking SMPP to partner SMSCs, a Diameter online charging system (OCS) on cassandra, a RADIUS/AAA
server for data sessions, HLR/HSS provisioning, a USSD menu gateway, mobile-money top-up and voucher
redemption, kafka for CDRs, postgres for CRM and an hourly CDR mediation batch. Each component writes
its own log format inside the message (access lines, logback, Go JSON, pino, structlog, logfmt,
syslog, log4j, cassandra's and postgres' own logs, python logging) on its own clock.

    python scripts/generate_world_tele.py OUT_DIR           # writes OUT_DIR/tele/
    python scripts/generate_world_tele.py OUT_DIR --check   # then checks every truth evidence item

Deterministic: one seeded generator, stdlib only; running it twice writes the same bytes.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import random
import re
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)

NAME = "tele"
RNG = random.Random(20270118)
EAT = dt.timezone(dt.timedelta(hours=3), "EAT")
UTC = dt.UTC
DAY0 = dt.datetime(2027, 1, 18, tzinfo=EAT)
MINUTES = 2 * 24 * 60
# Relative traffic by local hour (EAT): a quiet night, a morning ramp, an evening peak.
DIURNAL = [0.25, 0.18, 0.15, 0.14, 0.15, 0.25, 0.45, 0.7, 0.9, 1.0, 1.0, 1.0,
           1.0, 0.95, 0.95, 0.95, 1.0, 1.05, 1.15, 1.2, 1.15, 0.95, 0.7, 0.45]


def L(day: int, hhmm: str, sec: float = 0.0) -> dt.datetime:
    """A local EAT time on 2027-01-`day`."""
    h, m = (int(x) for x in hhmm.split(":"))
    return dt.datetime(2027, 1, day, h, m, tzinfo=EAT) + dt.timedelta(seconds=sec)


def Z(t: dt.datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sec(t: dt.datetime, s: float) -> dt.datetime:
    return t + dt.timedelta(seconds=s)


# Incident windows, local EAT.
W = {
    "cass_backlog": (L(18, "10:10"), L(18, "11:12")),  # cass-03 pending compactions climb and fall
    "ocs_slow": (L(18, "10:31"), L(18, "11:04")),      # CCRs miss the ocs Tx timer
    "tps_limit": (L(18, "15:52"), L(18, "16:41")),     # CHG-4471 .. its revert CHG-4473
    "otp_late": (L(18, "15:58"), L(18, "16:47")),      # OTPs expire until the queue drains
    "kilima": (L(18, "19:03"), L(18, "19:41")),        # partner SMSC throttles, then refuses binds
    "kafka2": (L(19, "02:09"), L(19, "02:43")),        # kafka-2 log dir failure
    "bi_query": (L(19, "07:58"), L(19, "08:44")),      # a report query spilling temp files
    "pg_full": (L(19, "08:14"), L(19, "08:44")),       # postgres-crm out of disk space
    "hss_cert": (L(19, "12:15"), L(19, "12:52")),      # ProvGW client certificate expired
    "momo_380": (L(19, "14:06"), L(19, "14:55")),      # momo-topup 3.8.0 until the rollback
    "day18": (L(18, "00:00"), L(19, "00:00")),         # voucher batch VB-2026-11 still valid
}


def active(key: str, t: dt.datetime) -> bool:
    a, b = W[key]
    return a <= t < b


def pick(seq):
    return seq[RNG.randrange(len(seq))]


def wpick(pairs):
    """Pick from [(weight, value), …]."""
    return engine.weighted(RNG.random, [(v, w) for w, v in pairs])


poisson = partial(engine.poisson, RNG.random)


def msisdn() -> str:
    return "2547" + "".join(str(RNG.randrange(10)) for _ in range(8))


def masked(m: str) -> str:
    return m[:4] + "******" + m[-2:]


def hexid(n: int = 8) -> str:
    return "".join(pick("0123456789abcdef") for _ in range(n))


# ---------------------------------------------------------------- log rendering, one format per component
EVENTS: list[tuple[dt.datetime, str, str, str, dict]] = []
TS_LOCAL = {"api-gateway", "smsc-gateway", "radius-aaa", "ussd-gateway", "momo-topup", "cdr-mediation"}
HOSTS = {"selfcare-api": "selfcare-api-6c9d7f-2xk4p", "ocs": "ocs-nbo-1", "smsc-gateway": "smppgw-1",
         "hss-provisioning": "hssprov-1", "momo-topup": "momo-topup-5f7b9-qm2lz",
         "cdr-mediation": "med-batch-1", "postgres-crm": "pg-crm-1"}
MOMO_380_PODS = ["momo-topup-7d4c8-h9k2x", "momo-topup-7d4c8-w7p4n"]
ATTR_KEYS = ("bind", "peer", "node", "broker", "msisdn", "order", "session", "run_id", "code", "topic",
             "version")
PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}
PG_LEVEL = {"INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}
SYSLOG_SEV = {"INFO": 6, "WARN": 4, "ERROR": 3, "FATAL": 2}


def kv_text(kv: dict) -> str:
    """logfmt: key=value, quoted when needed."""
    out = []
    for k, v in kv.items():
        s = str(v)
        out.append(f"{k}={json.dumps(s) if (' ' in s or '=' in s or chr(34) in s or not s) else s}")
    return " ".join(out)


def stamp(t: dt.datetime, sep: str = " ", frac: str = ".") -> str:
    return f"{t:%Y-%m-%d}{sep}{t:%H:%M:%S}{frac}{t.microsecond // 1000:03d}"


def render(svc: str, t: dt.datetime, level: str, msg: str, kv: dict) -> str:
    """The raw line component `svc` writes: its format, its clock, its level names."""
    lt, ut, kv = t.astimezone(EAT), t.astimezone(UTC), dict(kv)
    extra = {k: v for k, v in kv.items() if k not in ("logger", "thread", "host", "hostname", "node",
                                                       "broker")}
    tail = (" " + kv_text(extra)) if extra else ""
    if svc == "selfcare-api":  # Spring Boot logback, UTC in the container
        thread = kv.get("thread", f"nio-8080-exec-{RNG.randrange(1, 40)}")
        logger = kv.get("logger", "c.t.selfcare.web.ApiController")
        return f"{stamp(ut)} {level:>5} 1 --- [{thread}] {logger:<42} : {msg}{tail}"
    if svc == "ocs":  # Go, JSON lines, UTC
        doc = {"t": stamp(ut, "T") + "Z", "lvl": level.lower(), "mod": kv.pop("mod", "gy"), "msg": msg,
               **kv}
        return json.dumps(doc, separators=(",", ":"))
    if svc == "smsc-gateway":  # python asyncio SMPP client, logging module, local wall time
        lvl = {"WARN": "WARNING"}.get(level, level)
        return f"{stamp(lt, frac=',')} {lvl} {kv.get('logger', 'smppgw.router')}: {msg}{tail}"
    if svc == "radius-aaa":  # FreeRADIUS through rsyslog, RFC 3164, local time, facility local0
        host = kv.get("host", "aaa-01")
        pid = 2231 if host == "aaa-01" else 1987
        return f"<{128 + SYSLOG_SEV[level]}>{lt:%b} {lt.day:>2} {lt:%H:%M:%S} {host} radiusd[{pid}]: {msg}"
    if svc == "hss-provisioning":  # Go, logfmt, UTC
        return kv_text({"ts": stamp(ut, "T") + "Z", "level": level.lower(), "msg": msg, **kv})
    if svc == "ussd-gateway":  # node, pino
        doc = {"level": PINO[level], "time": int(ut.timestamp() * 1000), "pid": 17,
               "hostname": kv.pop("hostname", "ussd-gw-1"), "msg": msg, **kv}
        return json.dumps(doc, separators=(",", ":"))
    if svc == "momo-topup":  # python structlog JSON, local time with its offset
        lvl = level.lower().replace("warn", "warning")
        return json.dumps({"timestamp": stamp(lt, "T") + "+03:00", "level": lvl, "event": msg,
                           **{k: v for k, v in kv.items() if k != "host"},
                           "logger": kv.get("logger", "momo.voucher")})
    if svc == "kafka":  # log4j, UTC
        return f"[{stamp(ut, frac=',')}] {level} {msg} ({kv.get('logger', 'kafka.log.LogManager')})"
    if svc == "cassandra":
        return f"{level:<5} [{kv['thread']}] {stamp(ut, frac=',')} {kv['src']} - {msg}"
    if svc == "postgres-crm":
        pid, who = kv.get("pid", 20000 + RNG.randrange(9000)), kv.get("who", "crm_app@crm")
        head = f"{stamp(ut)} UTC [{pid}] {who} "
        extras = "".join(f"\n{head}{k}:  {kv[k]}" for k in ("DETAIL", "HINT", "STATEMENT") if k in kv)
        return f"{head}{PG_LEVEL[level]}:  {msg}{extras}"
    if svc == "cdr-mediation":  # python logging, local wall time
        return f"{stamp(lt, frac=',')} {level} [{kv.get('logger', 'mediation.batch')}] {msg}{tail}"
    raise ValueError(svc)


def emit(svc: str, t: dt.datetime, level: str, msg: str, **kv) -> None:
    if not t.microsecond:  # lines placed on a whole second still carry their milliseconds
        t = sec(t, RNG.randrange(1, 1000) / 1000)
    attrs = {k: str(kv[k]) for k in ATTR_KEYS if k in kv}
    host = kv.get("host") or kv.get("hostname") or HOSTS.get(svc)
    if svc == "momo-topup" and "host" not in kv:  # the pods the 3.8.0 deploy and its rollback started
        a, b = W["momo_380"]
        host = pick(MOMO_380_PODS) if sec(a, -180) <= t < b else host if t < b else "momo-topup-5f7b9-r3v8c"
    if host:
        attrs["host"] = host
    EVENTS.append((t, svc, level, render(svc, t, level, msg, kv), attrs))


UAS = ["MyTele/5.4.1 (Android 13; SM-A145F)", "MyTele/5.4.1 (Android 12; TECNO KG5)", "okhttp/4.11.0",
       "MyTele/5.3.9 (iOS 17.2)", "Mozilla/5.0 (Linux; Android 11) Chrome/120.0 Mobile"]


def emit_access(t: dt.datetime, method: str, path: str, status: int, ms: int, upstream: str) -> None:
    """Kong's access log: combined format plus latency, upstream and request id."""
    ip, rid = f"10.64.{RNG.randrange(1, 40)}.{RNG.randrange(2, 250)}", hexid(16)
    size = RNG.randrange(120, 2400) if status < 400 else RNG.randrange(60, 300)
    line = (f'{ip} - - [{t.astimezone(EAT):%d/%b/%Y:%H:%M:%S} +0300] "{method} {path} HTTP/1.1" {status} '
            f'{size} "-" "{pick(UAS)}" latency={ms} upstream={upstream} '
            f'upstream_status={"-" if status == 429 else status} request_id={rid}')
    level = "ERROR" if status >= 500 else "WARN" if status >= 400 else "INFO"
    EVENTS.append((t, "api-gateway", level, line, {"host": "kong-edge-1", "status": str(status),
                                                     "request_id": rid, "upstream": upstream}))


# ---------------------------------------------------------------- routine traffic, per component
def times(peak_per_hour: float):
    """Routine event times: a Poisson count per minute shaped by DIURNAL."""
    for minute in range(MINUTES):
        t0 = DAY0 + dt.timedelta(minutes=minute)
        for _ in range(poisson(peak_per_hour / 60.0 * DIURNAL[t0.hour])):
            yield t0 + dt.timedelta(seconds=RNG.randrange(60000) / 1000)


ROUTES = engine.table(None, "is", """
30 | GET /selfcare/v2/balance
14 | GET /selfcare/v2/bundles
8 | POST /selfcare/v2/bundles/purchase
9 | POST /selfcare/v2/otp/request
9 | POST /selfcare/v2/otp/verify
8 | GET /selfcare/v2/profile
3 | POST /selfcare/v2/kyc/register
7 | POST /momo/v1/topup
6 | POST /momo/v1/voucher/redeem
""")
# During an incident a share of one route's requests fail with its status.
GW_EFFECTS = engine.table(None, "ssfi", """
otp_late | otp/verify | 0.55 | 401
pg_full | kyc/register | 0.8 | 500
hss_cert | bundles/purchase | 0.9 | 502
kafka2 | balance | 0.6 | 503
kafka2 | topup | 0.6 | 503
momo_380 | redeem | 0.12 | 422
""")


def routine_gateway(t: dt.datetime) -> None:
    method, path = wpick(ROUTES).split()
    up = "momo-topup" if path.startswith("/momo") else "selfcare-api"
    status = wpick([(955, 200), (14, 401), (8, 404), (6, 429), (4, 400), (1, 502)])
    for key, suffix, share, code in GW_EFFECTS:
        if active(key, t) and path.endswith(suffix) and RNG.random() < share:
            status = code
    slow = 8.0 if active("ocs_slow", t) and path.endswith("balance") else 1.0
    ms = int(RNG.lognormvariate(3.6, 0.5) * slow)
    emit_access(t, method, path, status, ms, "-" if status == 429 else up)


def rr(a: int, b: int):
    return lambda v: RNG.randrange(a, b)


def one(*xs):
    return lambda v: pick(xs)


def pin_masked(v) -> str:
    pin = "".join(str(RNG.randrange(10)) for _ in range(14))
    return pin[:4] + "******" + pin[-2:]


PEERS = ["pgw-nbo-1.epc.tele.internal", "pgw-msa-1.epc.tele.internal"]
BUNDLES = ["DAILY_1GB", "WEEKLY_5GB", "MONTHLY_20GB", "NIGHT_UNLTD", "SMS_200", "VOICE_100MIN"]
M = lambda v: masked(msisdn())  # noqa: E731
MSISDN = lambda v: msisdn()  # noqa: E731
HEX = lambda v: hexid(12)  # noqa: E731
ORDER = lambda v: f"PO-{RNG.randrange(700000, 799999)}"  # noqa: E731
IMSI = lambda v: f"63902{RNG.randrange(10**9, 10**10)}"  # noqa: E731
SID = lambda v: f"{v['peer'].split('.')[0]};{RNG.randrange(10**9)};{RNG.randrange(10**6)}"  # noqa: E731
GY = {"peer": one(*PEERS), "session": SID}
AAA = {"host": one("aaa-01", "aaa-02"), "n": rr(0, 10**6), "m": MSISDN,
       "pgw": one("pgw-nbo-1", "pgw-msa-1")}
USSD = {"sessionId": lambda v: hexid(10), "hostname": one("ussd-gw-1", "ussd-gw-2")}
KAFKA = {"broker": one(1, 2, 3), "host": lambda v: f"kafka-{v['broker']}",
         "tp": lambda v: f"{pick(['cdr.raw', 'cdr.acct', 'cdr.sms', 'cdr.rated'])}-{RNG.randrange(12)}"}
CASS = {"node": one("cass-01", "cass-02", "cass-03"), "host": lambda v: v["node"]}
SC = "c.t.selfcare."

# service: (routine events an hour at the daily peak, [(weight, level, message, fields, skips)]).
# A field is a literal or a function of the fields drawn before it; `{name}` in the message takes a
# field, the others are written the component's way. A skip (window, share[, predicate]) drops that
# share of routine successes during an incident, whose failures the incident writes itself.
ROUTINE = {
    "selfcare-api": (45, [
        (30, "INFO", "balance msisdn={m} main={main:.2f} KES data_mb={mb} took={took}ms",
         {"m": M, "main": lambda v: RNG.randrange(90000) / 100, "mb": rr(0, 20000), "took": rr(12, 80),
          "logger": SC + "balance.BalanceController"}, ()),
        (14, "INFO", "bundle catalogue served items=18 cache=hit",
         {"logger": SC + "bundles.CatalogService"}, ()),
        (8, "INFO", "bundle activated msisdn={m} bundle={b} debit_ref=OCS-{ref} provisioning=ok took={t}ms",
         {"m": M, "b": one(*BUNDLES), "ref": HEX, "t": rr(180, 900),
          "logger": SC + "bundles.BundleService"},
         (("hss_cert", 0.9), ("kafka2", 0.5))),
        (9, "INFO", "otp verified msisdn={m} channel=sms age_s={age}",
         {"m": M, "age": rr(9, 70), "logger": SC + "auth.OtpService"}, (("otp_late", 0.6),)),
        (8, "INFO", "profile read msisdn={m} tier={tier}",
         {"m": M, "tier": one("prepaid", "prepaid", "hybrid"), "logger": SC + "crm.ProfileService"}, ()),
        (3, "INFO", "kyc registration stored msisdn={m} id_type={idt} case=KYC-{case}",
         {"m": M, "idt": one("NATIONAL_ID", "PASSPORT"), "case": rr(400000, 499999),
          "logger": SC + "kyc.KycController"}, (("pg_full", 0.85),)),
        (4, "WARN", "JWT expired for subject, client must refresh (exp in the past by {s}s)",
         {"s": rr(2, 900), "logger": SC + "security.JwtFilter"}, ()),
        (2, "INFO", "HikariPool-1 - Pool stats (total=20, active={a}, idle=14, waiting=0)",
         {"a": rr(1, 7), "logger": "com.zaxxer.hikari.pool.HikariPool",
          "thread": "HikariPool-1 housekeeper"},
         ()),
        (2, "WARN", "slow upstream call ocs balance took {ms}ms (budget 800ms)",
         {"ms": rr(800, 1500), "logger": SC + "balance.OcsClient"}, ()),
    ]),
    "ocs": (60, [
        (40, "INFO", "CCR-U answered", {**GY, "rc": 2001, "rg": one(10, 20, 30), "used_mb": rr(1, 60),
                                        "granted_mb": 50, "ms": rr(3, 30)}, (("ocs_slow", 0.5),)),
        (14, "INFO", "CCR-I answered", {**GY, "rc": 2001, "rg": 10, "granted_mb": 50, "ms": rr(4, 35)},
         (("ocs_slow", 0.5), ("kafka2", 0.9))),
        (12, "INFO", "CCR-T answered", {**GY, "rc": 2001, "used_mb": rr(0, 400), "ms": rr(3, 25)}, ()),
        (6, "INFO", "credit limit reached", {**GY, "rc": 4012, "rg": 10, "balance_kes": "0.00"}, ()),
        (3, "INFO", "DWR/DWA ok", {"mod": "diameter", "peer": one(*PEERS)}, ()),
        (2, "INFO", "rating plan cache refreshed", {"mod": "rating", "plans": 214, "tariffs": 1388}, ()),
        (1, "WARN", "CCR-I for unknown subscriber", {**GY, "rc": 5030, "imsi": IMSI}, ()),
    ]),
    "smsc-gateway": (50, [
        (60, "INFO", "submit_sm_resp status=0x00000000 message_id={id} dest={dest} src={src} ms={ms}",
         {"bind": one("local", "local", "local", "jambo", "jambo", "kilima"), "id": HEX,
          "dest": lambda v: ("256" if v["bind"] == "kilima" else "2547") + f"******{RNG.randrange(10, 99)}",
          "src": one("TELE", "TELE-OTP", "22141", "MPESA"), "ms": rr(20, 180)}, ()),
        (25, "INFO", "deliver_sm DLR id={id} stat=DELIVRD err=000 delay_s={d}",
         {"bind": one("local", "local", "jambo", "jambo", "kilima"), "id": HEX, "d": rr(1, 15)}, ()),
        (6, "INFO", "enquire_link_resp ok", {"bind": one("local", "jambo", "kilima")}, ()),
        (2, "WARN", "submit_sm_resp status=0x00000058 (ESME_RTHROTTLED), retry in 1s",
         {"bind": one("jambo", "kilima")}, ()),
        (3, "WARN", "deliver_sm DLR id={id} stat=UNDELIV err={err} (absent subscriber)",
         {"bind": one("local", "jambo", "kilima"), "id": HEX, "err": one("001", "027", "0a1")}, ()),
    ]),
    "radius-aaa": (45, [
        (40, "INFO", "({n}) Login OK: [{m}/<via Auth-Type = Accept>] (from client {pgw} port 0 cli {m})",
         AAA,
         (("kafka2", 0.5),)),
        (30, "INFO", "({n}) Accounting-Request Interim-Update user {m} session {s} in={i} out={o} ok",
         {**AAA, "s": lambda v: hexid(8).upper(), "i": rr(10**5, 10**8), "o": rr(10**4, 10**7)}, ()),
        (12, "INFO", "({n}) Accounting-Request Stop user {m} cause=User-Request ok", AAA, ()),
        (5, "WARN",
         "({n}) Login incorrect (pap: Cleartext password does not match \"known good\" password): "
         "[{m}] (from client {pgw} port 0 cli {m}) apn={apn}",
         {**AAA, "apn": one("corp.tele", "m2m.tele")}, ()),
        (3, "WARN", "({n}) Login incorrect (subscriber barred: status=SUSPENDED_NONPAYMENT): [{m}] "
         "apn=internet", AAA, ()),
        (2, "WARN", "Dropping duplicate request from client {pgw} port 1812 - ID: {i} due to unfinished "
         "request {n}", {**AAA, "i": rr(0, 256)}, ()),
    ]),
    "hss-provisioning": (30, [
        (30, "INFO", "provisioning order applied",
         {"order": ORDER, "imsi": IMSI, "op": one("SET_QOS", "SET_QOS", "ACTIVATE", "SET_APN", "SIM_SWAP"),
          "target": "provgw", "took_ms": rr(60, 400)}, (("hss_cert", 0.95),)),
        (28, "ERROR", "ProvGW fault", {"order": ORDER, "imsi": IMSI, "op": "DELETE_SUB",  # known noise
                                       "fault": "SUBSCRIBER_NOT_FOUND", "source": "churn-sync"}, ()),
        (8, "INFO", "churn sync batch done", {"deleted": rr(20, 90), "not_found": rr(3, 30)}, ()),
        (4, "WARN", "ProvGW busy, retrying", {"order": ORDER, "attempt": 2, "backoff_ms": 500,
                                              "http_status": 503}, ()),
        (2, "INFO", "LDAP bind to HLR front-end ok", {"target": "hlr-fe-1"}, ()),
    ]),
    "ussd-gateway": (45, [
        *[(w, "INFO", "session completed", {**USSD, "code": code, "msisdn": M, "steps": rr(1, 5),
                                            "ms": rr(300, 2500)}, skips)
          for w, code, skips in ((28, "*100#", (("kafka2", 0.7),)), (21, "*544#", (("hss_cert", 0.9),)),
                                 (10, "*141#", (("kafka2", 0.7),)), (11, "*130#", ()))],
        (18, "WARN", "session timeout: user idle",
         {**USSD, "code": one("*100#", "*544#", "*141#", "*130#"), "idle_s": 30}, ()),
        (4, "WARN", "duplicate BEGIN for open dialogue, ignoring",
         {**USSD, "code": one("*100#", "*544#")}, ()),
        (3, "INFO", "menu cache refreshed", {"menu": one("balance", "bundles", "topup", "self-care"),
                                             "items": rr(5, 12)}, ()),
    ]),
    "momo-topup": (35, [
        (45, "INFO", "voucher redeemed",
         {"msisdn": M, "pin": pin_masked, "face_value": one(20, 50, 100, 250, 500, 1000),
          "batch": one("VB-2026-12", "VB-2027-01"), "channel": one("ussd", "app", "ussd"),
          "ocs_ref": lambda v: f"OCS-{hexid(10)}"},
         (("kafka2", 0.8), ("momo_380", 1.0, lambda v: v["pin"].startswith("0")))),
        (35, "INFO", "wallet top-up completed",
         {"msisdn": M, "amount_kes": one(10, 20, 50, 100, 200, 500),
          "wallet_txn": lambda v: f"QK{hexid(8)}",
          "ocs_ref": lambda v: f"OCS-{hexid(10)}", "logger": "momo.wallet"}, (("kafka2", 0.8),)),
        (10, "WARN", "voucher redeem rejected",  # batch VB-2026-11 expired at midnight
         {"msisdn": M, "reason": "VOUCHER_EXPIRED", "batch": "VB-2026-11", "pin": pin_masked},
         (("day18", 1.0),)),
        (4, "WARN", "voucher redeem rejected",
         {"msisdn": M, "reason": "PIN_NOT_FOUND", "pin": pin_masked, "pin_len": 14,
          "attempts": rr(1, 4)}, ()),
        (4, "WARN", "wallet callback late",
         {"wallet_txn": lambda v: f"QK{hexid(8)}", "waited_ms": rr(5000, 8000),
          "logger": "momo.wallet"}, ()),
        (2, "WARN", "msisdn locked after 5 wrong voucher PINs", {"msisdn": M, "lock_min": 60,
                                                                 "logger": "momo.fraud"}, ()),
    ]),
    "kafka": (7, [
        (50, "INFO", "[LocalLog partition={tp}, dir=/data/kafka] Rolled new log segment at offset {o} "
         "in {ms} ms.",
         {**KAFKA, "o": rr(10**7, 10**8), "ms": rr(1, 9), "logger": "kafka.log.LocalLog"}, ()),
        (25, "INFO", "[UnifiedLog partition={tp}, dir=/data/kafka] Deleting segment "
         "LogSegment(baseOffset={o}, size=1073741824) due to retention time 259200000ms breach",
         {**KAFKA, "o": rr(10**6, 10**7), "logger": "kafka.log.UnifiedLog"}, ()),
        (15, "INFO", "[GroupCoordinator {broker}]: Member mediation-{h} in group cdr-mediation has left, "
         "removing it from the group",
         {**KAFKA, "h": lambda v: hexid(6), "logger": "kafka.coordinator.group.GroupCoordinator"}, ()),
        (10, "INFO",
         "[GroupMetadataManager brokerId={broker}] Removed 0 expired offsets in 1 milliseconds.",
         {**KAFKA, "logger": "kafka.coordinator.group.GroupMetadataManager"}, ()),
    ]),
    "cassandra": (8, [
        (40, "INFO",
         "Enqueuing flush of balances.account_balance: {a}.{b}MiB ({p}%) on-heap, 0.000KiB (0%) "
         "off-heap", {**CASS, "a": rr(20, 120), "b": rr(0, 100), "p": rr(5, 30),
                      "thread": "NativePoolCleaner", "src": "ColumnFamilyStore.java:878"}, ()),
        (35, "INFO",
         "Compacted ({h}) {n} sstables to [/var/lib/cassandra/data/balances/account_balance-{h2}/"
         "nb-{g}-big,] to level=0.  {s}.{b}MiB to {s2}.{b}MiB (~{p}% of original) in {ms:,}ms.",
         {**CASS, "h": lambda v: f"{hexid(8)}-{hexid(4)}", "n": rr(2, 6), "h2": HEX, "g": rr(9000, 99999),
          "s": rr(80, 400), "b": rr(0, 100), "s2": lambda v: v["s"] - RNG.randrange(1, 20), "p": rr(85, 99),
          "ms": rr(2000, 15000), "thread": lambda v: f"CompactionExecutor:{RNG.randrange(1, 5)}",
          "src": "CompactionTask.java:253"}, ()),
        (15, "INFO", "G1 Young Generation GC in {ms}ms.  G1 Eden Space: {e}000000 -> 0",
         {**CASS, "ms": rr(201, 320), "e": rr(900, 1500), "thread": "Service Thread",
          "src": "GCInspector.java:294"}, ()),
        (10, "INFO", "Finished hinted handoff of file {h}-1.hints to endpoint /10.70.1.{ip}:7000",
         {**CASS, "h": lambda v: f"{hexid(8)}-{hexid(4)}-{hexid(4)}", "ip": rr(11, 14),
          "thread": "HintsDispatcher:2", "src": "HintsDispatchExecutor.java:292"}, ()),
    ]),
    "postgres-crm": (8, [
        (35, "INFO",
         "checkpoint complete: wrote {w} buffers ({p}.{q}%); 0 WAL file(s) added, 0 removed, {r} "
         "recycled; write={s}.{ms} s, sync=0.0{y} s",
         {"who": "[background]@[none]", "pid": 1187, "w": rr(200, 4000), "p": rr(1, 9), "q": rr(0, 10),
          "r": rr(1, 6), "s": rr(20, 270), "ms": rr(100, 999), "y": rr(10, 99)}, ()),
        (25, "INFO",
         "automatic vacuum of table \"crm.public.{tbl}\": index scans: 1, pages: 0 removed, {k} "
         "remain, tuples: {d} removed",
         {"who": "[autovacuum]@[none]", "tbl": one("customer_event", "kyc_case", "sim_card", "contact_log"),
          "k": rr(1000, 90000), "d": rr(100, 9000)}, ()),
        (25, "INFO", "duration: {s}.{ms} ms  execute <unnamed>: SELECT c.* FROM customer c JOIN sim_card s "
         "ON s.customer_id = c.id WHERE s.msisdn = $1", {"s": rr(1000, 4000), "ms": rr(100, 999)}, ()),
        (10, "INFO", "connection authorized: user=crm_app database=crm application_name=PostgreSQL JDBC "
         "Driver SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)", {}, ()),
        (5, "ERROR", "deadlock detected",  # the contact_log fan-out (known noise)
         {"DETAIL": lambda v: "Process 21877 waits for ShareLock on transaction "
          f"{RNG.randrange(10**7, 10**8)}; blocked by process 21902.",
          "STATEMENT": "UPDATE contact_log SET status = 'SENT' WHERE id = $1"}, ()),
    ]),
}
# Service-wide skips: a partner bind that is down logs nothing routine, nor does a broker that is down.
SKIP_ALL = {"smsc-gateway": (("kilima", 1.0, lambda v: v["bind"] == "kilima"),
                             ("otp_late", 0.6, lambda v: v["bind"] == "jambo"), ("kafka2", 0.3)),
            "kafka": (("kafka2", 1.0, lambda v: v["broker"] == 2),)}


def routine(svc: str, t: dt.datetime) -> None:
    _, level, msg, fields, skips = wpick([(tpl[0], tpl) for tpl in ROUTINE[svc][1]])
    vals: dict = {}
    for k, spec in fields.items():
        vals[k] = spec(vals) if callable(spec) else spec
    for window, share, *pred in (*skips, *SKIP_ALL.get(svc, ())):
        if active(window, t) and RNG.random() < share and (not pred or pred[0](vals)):
            return
    kv = {k: v for k, v in vals.items() if not re.search(r"\{" + k + r"[}:]", msg)}
    emit(svc, t, level, msg.format(**vals), **kv)


# ---------------------------------------------------------------- batch runs and daily lines
BATCH_RUNS: list[dict] = []


def batch_runs() -> None:
    """Hourly CDR mediation at :05 (a few noisy rejects every run) and the 02:00 daily reconciliation."""
    for hour in range(48):
        start = DAY0 + dt.timedelta(hours=hour, minutes=5, seconds=RNG.randrange(3000, 30000) / 1000)
        run = f"MED-{5101 + hour}"
        slow = 0.3 if active("kafka2", start) else 1.0
        records = int(180000 * DIURNAL[start.hour] * RNG.uniform(0.9, 1.1) * slow)
        end = sec(start, 240 + records // 700 + RNG.randrange(60))
        emit("cdr-mediation", start, "INFO", f"run {run} started", run_id=run,
             topics="cdr.raw,cdr.acct,cdr.sms",
             window=f"{start.hour - 1 if start.hour else 23:02d}:00-{start.hour:02d}:00")
        emit("cdr-mediation", sec(start, 15), "WARN", f"duplicate CDRs dropped: {RNG.randrange(10, 200)}",
             run_id=run, logger="mediation.dedup")
        for i in range(RNG.randrange(2, 5)):
            emit("cdr-mediation", sec(start, 20 + 30 * i), "ERROR", "rejected CDR: missing Rating-Group in "
                 f"MSCC (record {RNG.randrange(10**6)})", run_id=run, logger="mediation.validate")
        emit("cdr-mediation", end, "INFO", f"run {run} finished records_in={records} "
             f"records_out={records - 40} rejected={RNG.randrange(2, 40)}", run_id=run)
        BATCH_RUNS.append({"run_id": run, "job": "cdr-mediation-hourly", "started_at": Z(start),
                           "finished_at": Z(end), "status": "SUCCEEDED", "records_out": records - 40,
                           "triggered_by": "cron"})
    for day, failed in ((18, False), (19, True)):
        s, run = L(day, "02:00"), f"REC-{day}01"
        e = s + dt.timedelta(minutes=41 if failed else 23)
        BATCH_RUNS.append({"run_id": run, "job": "cdr-daily-reconciliation", "started_at": Z(s),
                           "finished_at": Z(e), "status": "FAILED" if failed else "SUCCEEDED",
                           "records_out": 0 if failed else 3911002, "triggered_by": "cron"})
        emit("cdr-mediation", s, "INFO", f"daily reconciliation {run} started against billing-dw",
             run_id=run,
             logger="mediation.reconcile")
        emit("cdr-mediation", e, "ERROR" if failed else "INFO", f"daily reconciliation {run} " + (
            "aborted: 18412 CDRs missing against ocs counters" if failed else "done, 3911002 CDRs matched"),
            run_id=run, logger="mediation.reconcile")
    BATCH_RUNS.sort(key=lambda r: r["started_at"])


def daily_lines() -> None:
    """Certificate reminders, key rotation and the SMPP bind health lines."""
    for day in (18, 19):
        t = L(day, "06:00", RNG.randrange(60))
        left = (L(19, "12:15") - t).total_seconds() / 86400
        emit("hss-provisioning", t, "WARN", "client certificate nearing expiry",
             cert="CN=hssprov.tele.internal", not_after="2027-01-19T09:15:00Z", days_left=f"{left:.1f}",
             target="provgw")
        emit("smsc-gateway", L(day, "06:00", 30), "WARN", "tls certificate for smpp-over-tls listener "
             f"expires in {75 - day} days (CN=smpp.tele.example)", logger="smppgw.tls")
        emit("selfcare-api", L(day, "03:00", 12), "INFO", f"Nightly token-signing key rotation complete "
             f"kid=2027-01-{day}", logger=SC + "security.KeyRotation", thread="scheduling-1")
    for hour in range(48):
        t = DAY0 + dt.timedelta(hours=hour, minutes=30)
        for b in ("local", "jambo", "kilima"):
            if not (b == "kilima" and active("kilima", t)):
                emit("smsc-gateway", sec(t, RNG.randrange(50)), "INFO",
                     f"bind {b} state=BOUND_TRX window=10 "
                     f"inflight={RNG.randrange(0, 6)}", logger="smppgw.health", bind=b)


# ---------------------------------------------------------------- incidents
def spread(a: dt.datetime, b: dt.datetime, n: int) -> list[dt.datetime]:
    span = (b - a).total_seconds()
    return sorted(sec(a, RNG.random() * span) for _ in range(n))


def burst(svc: str, a: dt.datetime, b: dt.datetime, n: int, level: str, msg, **kv) -> None:
    """N events spread over [a, b); the message and any field may be a function, drawn per event."""
    for t in spread(a, b, n):
        fields = {k: v() if callable(v) else v for k, v in kv.items()}
        emit(svc, t, level, msg() if callable(msg) else msg, **fields)


def rand(a: int, b: int):
    return lambda: RNG.randrange(a, b)


MSK = lambda: masked(msisdn())  # noqa: E731
HEX10 = lambda: hexid(10)  # noqa: E731


def inc_ocs_cassandra() -> None:
    """cass-03 falls behind on compaction (metrics only); the ocs misses its Tx timer on reservations."""
    a, b = W["ocs_slow"]
    sid = lambda: f"{pick(PEERS).split('.')[0]};{RNG.randrange(10**9)};{RNG.randrange(10**6)}"  # noqa: E731
    burst("ocs", a, b, 90, "ERROR", "CCR not answered within Tx timer, sending DIAMETER_UNABLE_TO_COMPLY",
          peer=lambda: pick(PEERS), session=sid, cc_type=lambda: pick(["UPDATE", "UPDATE", "INITIAL"]),
          rc=5012, tx_ms=2000, elapsed_ms=rand(2001, 3400))
    burst("ocs", a, b, 60, "WARN", "balance reservation slow", mod="reserve", session=sid, store="balances",
          ms=rand(900, 2600))
    burst("ussd-gateway", a, b, 30, "WARN", "upstream slow", sessionId=HEX10, code="*100#", upstream="ocs",
          ms=rand(3000, 6000))
    burst("radius-aaa", a, b, 25, "WARN", lambda: f"({RNG.randrange(10**6)}) Accounting-Request Stop user "
          f"{msisdn()} cause=Lost-Service (PGW: Gy failure handling TERMINATE) ok",
          host=lambda: pick(["aaa-01", "aaa-02"]))


def jambo_depth(t: dt.datetime) -> int:
    """The jambo bind's queue: +900 a minute under the 25/s cap, drained at 12,000 a minute after."""
    a, b = W["tps_limit"]
    up = max(0.0, (min(t, b) - a).total_seconds() / 60)
    down = max(0.0, (t - b).total_seconds() / 60)
    return int(max(0.0, 900 * up - 12000 * down))


def inc_smsc_tps() -> None:
    """CHG-4471 lowers the jambo bind's tps_limit to 25: OTPs queue past their validity."""
    a, b = W["tps_limit"]
    for t, new, old in ((sec(a, 7), 25, 250), (sec(b, 5), 250, 25)):
        emit("smsc-gateway", t, "INFO", f"config reloaded from consul: binds.jambo.tps_limit={new} (was "
                                        f"{old})",
             logger="smppgw.config")
    for minute in range(int((W["otp_late"][1] - a).total_seconds() // 60)):
        t = a + dt.timedelta(minutes=minute)
        if t < b and minute % 2 == 0:
            emit("smsc-gateway", sec(t, RNG.randrange(60)), "WARN",
                 "local throttle: tps_limit=25 reached on "
                 f"bind jambo, message queued queue_depth={jambo_depth(t)}", logger="smppgw.bind.jambo",
                 bind="jambo")
        if minute > 5 and jambo_depth(t) > 0:
            burst("smsc-gateway", t, sec(t, 60), RNG.randrange(1, 4), "ERROR", lambda: "message expired in "
                  f"queue after validity 300s msg_id={hexid(12)} dest={MSK()} src=TELE-OTP",
                  logger="smppgw.queue", bind="jambo")
    burst("selfcare-api", *W["otp_late"], 45, "WARN", lambda: f"otp verify failed msisdn={MSK()} "
          f"reason=EXPIRED_OR_UNKNOWN attempt={RNG.randrange(1, 4)}", logger=SC + "auth.OtpService")


def inc_kilima() -> None:
    """Trap: partner SMSC kilima throttles then refuses our binds; momo-topup's SMS throttle is unrelated."""
    a, b = W["kilima"]
    kb = {"logger": "smppgw.bind.kilima", "bind": "kilima"}
    burst("smsc-gateway", a, sec(a, 540), 40, "WARN", "submit_sm_resp status=0x00000058 (ESME_RTHROTTLED), "
          "retry in 1s", **kb)
    t = sec(a, 552)
    emit("smsc-gateway", t, "ERROR", "enquire_link timeout after 30s, unbinding", **kb)
    while t < sec(b, -120):
        t = sec(t, RNG.randrange(50, 80))
        emit("smsc-gateway", t, "ERROR", "bind_transceiver to 198.51.100.27:2775 failed: "
             "bind_transceiver_resp status=0x0000000D (ESME_RBINDFAIL)", **kb)
        burst("smsc-gateway", t, sec(t, 45), RNG.randrange(3, 7), "ERROR", lambda: "no bound session for "
              f"route {pick(['256', '256', '255'])}* via kilima, submit failed msg_id={hexid(12)} "
              f"dest={pick(['256', '255'])}7******{RNG.randrange(10, 99)}", logger="smppgw.router",
              bind="kilima")
    emit("smsc-gateway", b, "INFO", "bind_transceiver_resp status=0x00000000, bind kilima BOUND_TRX", **kb)
    emit("momo-topup", L(18, "19:01", 4), "INFO", "settings reloaded",
         changed="notify.sms.throttle_per_min",
         old=120, new=60, logger="momo.settings")


SHRUNK = ["cdr.raw-1", "cdr.raw-4", "cdr.raw-7", "cdr.raw-10", "cdr.acct-2", "cdr.acct-5", "cdr.sms-0"]


def inc_kafka() -> None:
    """System-wide: kafka-2's log dir fails, cdr topics drop under min.insync.replicas, producers fail."""
    a, b = W["kafka2"]
    for s, level, msg, logger in (
            (-40, "WARN", "[ReplicaManager broker=2] Slow disk I/O on /data/kafka: fsync took 9421 ms",
             "server.ReplicaManager"),
            (0, "ERROR", "Error while writing to checkpoint file /data/kafka/replication-offset-checkpoint "
             "java.io.IOException: Input/output error", "server.LogDirFailureChannel"),
            (1, "ERROR", "[ReplicaManager broker=2] Stopping serving replicas in dir /data/kafka",
             "server.ReplicaManager"),
            (2, "WARN", "[ReplicaManager broker=2] Broker 2 stopped fetcher for partitions "
             f"{','.join(SHRUNK)} and stopped moving logs for partitions  because they are in the failed "
             "log directory /data/kafka.",
             "server.ReplicaManager"),
            (3, "ERROR", "Shutdown broker because all log dirs in /data/kafka have failed",
             "log.LogManager"),
            (2040 - 180, "INFO", "[KafkaServer id=2] started", "server.KafkaServer")):
        emit("kafka", sec(a, s), level, msg, logger=f"kafka.{logger}", host="kafka-2", broker=2)
    for i, p in enumerate(SHRUNK):
        br = 1 if i % 2 == 0 else 3
        emit("kafka", sec(a, 12 + i), "INFO", f"[Partition {p} broker={br}] Shrinking ISR from {br},2 to "
             f"{br}. Leader: (highWatermark: {RNG.randrange(10**7, 10**8)}, endOffset: "
             f"{RNG.randrange(10**7, 10**8)}). Out of sync replicas: (brokerId: 2, endOffset: -1).",
             logger="kafka.cluster.Partition", host=f"kafka-{br}", broker=br)
        emit("kafka", sec(b, -60 + 5 * i), "INFO", f"[Partition {p} broker={br}] ISR updated to {br},2 and "
             f"version updated to {RNG.randrange(10, 90)}", logger="kafka.cluster.Partition",
             host=f"kafka-{br}", broker=br)
    for t in spread(sec(a, 20), b, 40):
        br, p = pick([1, 3]), pick(["cdr.raw-1", "cdr.raw-4", "cdr.acct-2", "cdr.sms-0"])
        emit("kafka", t, "ERROR", f"[ReplicaManager broker={br}] Error processing append operation on "
             f"partition {p} org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the "
             f"current ISR Set({br}) is insufficient to satisfy the min.isr requirement of 2 for partition "
             f"{p}",
             logger="kafka.server.ReplicaManager", host=f"kafka-{br}", broker=br)
    burst("ocs", sec(a, 30), b, 70, "ERROR", "cdr publish failed", mod="cdr", topic="cdr.raw",
          err="NOT_ENOUGH_REPLICAS", retries=3)
    for minute in range(int((b - a).total_seconds() // 60)):
        t, spool = sec(a, 60 * minute + RNG.randrange(60)), min(100, 9 * (minute + 1))
        if spool < 90:
            emit("ocs", t, "WARN", "cdr spool filling", mod="cdr", spool_pct=spool)
        else:
            burst("ocs", t, sec(t, 50), RNG.randrange(2, 5), "ERROR",
                  "rejecting CCR-I: cdr spool above high "
                  "watermark", peer=lambda: pick(PEERS), rc=5012, spool_pct=spool)
    emit("ocs", sec(b, 20), "INFO", "cdr spool drained", mod="cdr", spool_pct=0)
    m1, m8, m9 = sec(a, 60), sec(a, 480), sec(a, 540)
    burst("radius-aaa", m1, b, 45, "ERROR",
          lambda: "rlm_kafka (cdr_acct): produce to topic cdr.acct failed: "
          f"Broker: Not enough in-sync replicas, Accounting-Request for {msisdn()} not persisted",
          host=lambda: pick(["aaa-01", "aaa-02"]))
    burst("ussd-gateway", m8, b, 40, "ERROR", "balance query failed", sessionId=HEX10, code="*100#",
          upstream="ocs", resultCode=5012)
    burst("momo-topup", m8, b, 30, "ERROR", "recharge failed", msisdn=MSK, ocs_result=5012,
          amount_kes=lambda: pick([20, 50, 100]), logger="momo.ocs")
    burst("smsc-gateway", m1, b, 20, "ERROR", "cdr publish failed: KafkaError NOT_ENOUGH_REPLICAS "
                                              "topic=cdr.sms",
          logger="smppgw.cdr")
    burst("selfcare-api", m9, b, 15, "ERROR", lambda: f"balance lookup failed msisdn={MSK()}: OCS answered "
          "DIAMETER_UNABLE_TO_COMPLY (5012)", logger=SC + "balance.OcsClient")


def inc_postgres_disk() -> None:
    """A BI report query spills temp files until postgres-crm's disk is full (seen only in postgres' log)."""
    a, b = W["bi_query"]
    full = W["pg_full"][0]
    bi, bg = {"who": "bi_reports@crm", "pid": 31337}, {"who": "[background]@[none]", "pid": 1187}
    emit("postgres-crm", a, "INFO", "connection authorized: user=bi_reports database=crm "
         "application_name=metabase", **bi)
    t, n = sec(a, 120), 0
    while t < full:
        n += 1
        emit("postgres-crm", t, "INFO", f"temporary file: path \"base/pgsql_tmp/pgsql_tmp31337.{n}\", size "
             "1073741824", STATEMENT="SELECT s.msisdn, c.segment, sum(u.amount) FROM usage_summary u JOIN "
             "sim_card s USING (sim_id) JOIN customer c ON c.id = s.customer_id GROUP BY 1, 2 ORDER BY 3 "
             "DESC",
             **bi)
        t = sec(t, RNG.randrange(40, 70))
    burst("postgres-crm", full, b, 70, "ERROR", lambda: "could not extend file "
          f"\"base/16385/{pick(['50312', '50318', '41877'])}\": No space left on device",
          HINT="Check free disk space.", STATEMENT=lambda: pick([
              "INSERT INTO kyc_case (msisdn, id_type, id_number, photo_ref, created_at) VALUES ($1, $2, "
              "$3, $4, "
              "now())", "INSERT INTO customer_event (customer_id, kind, payload) VALUES ($1, $2, $3)"]))
    emit("postgres-crm", sec(full, 50), "WARN",
         "could not write to file \"pg_wal/xlogtemp.1187\": No space "
         "left on device", **bg)
    emit("postgres-crm", b, "FATAL", "terminating connection due to administrator command", **bi)
    emit("postgres-crm", sec(b, 2), "INFO", "temporary files removed for pid 31337: 38 files, 40.8 GB",
         **bg)
    for t in spread(full, b, 55):
        emit("selfcare-api", t, "WARN", "SQL Error: 0, SQLState: 53100",
             logger="o.h.engine.jdbc.spi.SqlExceptionHelper")
        emit("selfcare-api", sec(t, 0.003), "ERROR", f"kyc registration failed msisdn={MSK()}: could not "
             "execute statement; nested exception is org.hibernate.exception.GenericJDBCException",
             logger=SC + "kyc.KycController")


def inc_hss_cert() -> None:
    """The ProvGW client certificate expires at 12:15: bundle activations fail in selfcare-api and *544#."""
    a, b = W["hss_cert"]
    burst("hss-provisioning", a, b, 90, "ERROR", "ProvGW call failed", order=lambda: ORDER({}),
          op=lambda: pick(["SET_QOS", "SET_QOS", "ACTIVATE"]), target="provgw",
          err="Post \"https://provgw.hss.tele.internal:8443/prov/v3/subscribers\": remote error: tls: "
          "expired certificate")
    emit("hss-provisioning", sec(b, -30), "INFO", "client certificate reloaded",
         cert="CN=hssprov.tele.internal", not_after="2028-01-19T09:15:00Z", target="provgw")
    burst("selfcare-api", sec(a, 20), b, 70, "ERROR", lambda: f"bundle activation failed msisdn={MSK()} "
          f"bundle={pick(BUNDLES)}: provisioning returned 502 Bad Gateway; debit reversed",
          logger=SC + "bundles.BundleService")
    burst("ussd-gateway", sec(a, 30), b, 80, "ERROR", "bundle purchase failed, showing 'Request cannot be "
          "processed'", sessionId=HEX10, code="*544#", upstream="selfcare-api", status=502)


def inc_momo_deploy() -> None:
    """momo-topup 3.8.0 parses voucher PINs as numbers: a leading 0 is lost and the PIN is not found."""
    a, b = W["momo_380"]
    for host, ver, t in ((MOMO_380_PODS[0], "3.8.0", sec(a, -180)), (MOMO_380_PODS[1], "3.8.0", a),
                         ("momo-topup-5f7b9-r3v8c", "3.7.4", b)):
        emit("momo-topup", t, "INFO", "service starting", version=ver, host=host, logger="momo.app",
             pin_parser="numeric" if ver == "3.8.0" else "string")
    for t in spread(a, b, 110):
        pin = "0" + "".join(str(RNG.randrange(10)) for _ in range(13))
        emit("momo-topup", t, "WARN", "voucher redeem rejected", msisdn=MSK(), reason="PIN_NOT_FOUND",
             pin=pin[:4] + "******" + pin[-2:], pin_len=len(pin.lstrip("0")), channel=pick(["ussd", "app"]),
             attempts=1)
    burst("ussd-gateway", a, b, 25, "INFO", "topup result shown: 'Invalid voucher, please check and try "
                                            "again'",
          sessionId=HEX10, code="*141#")


INCIDENTS = [inc_ocs_cassandra, inc_smsc_tps, inc_kilima, inc_kafka, inc_postgres_disk, inc_hss_cert,
             inc_momo_deploy]


# ---------------------------------------------------------------- ops tables
DEPENDENCIES = """
api-gateway|selfcare-api|http|self-care app and web API|yes
api-gateway|momo-topup|http|top-up and voucher API|yes
ussd-gateway|ocs|diameter-ro|*100# balance enquiry|yes
ussd-gateway|selfcare-api|http|*544# bundle menu and purchase, *130# self-care|yes
ussd-gateway|momo-topup|http|*141# top-up and voucher menu|yes
selfcare-api|postgres-crm|jdbc|customer profile, KYC cases|yes
selfcare-api|ocs|diameter-ro|balance, bundle debit|yes
selfcare-api|hss-provisioning|http|apply bundle QoS / activation orders|yes
selfcare-api|smsc-gateway|http|OTP and notification SMS|yes
momo-topup|ocs|diameter-ro|recharge main balance|yes
momo-topup|voucher-db|mysql|voucher PIN store (momo team)|yes
momo-topup|smsc-gateway|http|top-up confirmation SMS|no
momo-topup|mobile-money-core|https|wallet debits (external platform)|yes
ocs|cassandra|cql|balances keyspace (account_balance, reservations)|yes
ocs|kafka|kafka|rated CDRs to cdr.raw (spool on failure)|yes
radius-aaa|ocs|diameter-gy|data session authorisation|yes
radius-aaa|kafka|kafka|accounting records to cdr.acct|yes
smsc-gateway|kafka|kafka|SMS CDRs to cdr.sms|no
smsc-gateway|smsc-local|smpp|on-net SMS|yes
smsc-gateway|smsc-jambo|smpp|KE interconnect (partner)|yes
smsc-gateway|smsc-kilima|smpp|UG/TZ aggregator (partner)|no
hss-provisioning|hss-provgw|https-mtls|vendor HSS/HLR provisioning gateway|yes
cdr-mediation|kafka|kafka|consumes cdr.raw, cdr.acct, cdr.sms|yes
cdr-mediation|billing-dw|jdbc|rated usage to the billing warehouse|yes
"""

# id | service | version | started (EAT) | minutes | summary | by — every deploy SUCCEEDED
DEPLOYS = """
DEP-9101|api-gateway|kong 3.5.0-p2|18 07:40|6|plugin config: request-id header|a.wanjiru
DEP-9104|ussd-gateway|2.14.1|18 09:05|4|Swahili menu copy fixes for *130#|b.otieno
DEP-9106|selfcare-api|4.22.0|18 10:20|7|profile avatar upload, dependency bumps|c.mwangi
DEP-9109|radius-aaa|freeradius 3.2.3-tele4|18 12:40|5|add m2m.tele APN policy|d.kiprono
DEP-9111|cdr-mediation|1.19.0|18 17:10|3|reject reason codes in summary|e.njeri
DEP-9113|smsc-gateway|6.3.2|18 18:20|5|DLR parsing for stat=ACCEPTD|f.achieng
DEP-9115|hss-provisioning|2.8.0|19 01:30|6|churn-sync batch size 200 -> 500|g.mutua
DEP-9117|ocs|7.4.1|19 05:10|9|rating: new roaming zone 4 tariffs|h.kamau
DEP-9118|selfcare-api|4.22.1|19 11:35|6|bundle catalogue sorting, i18n strings|c.mwangi
DEP-9120|momo-topup|3.8.0|19 14:02|4|voucher: one PIN input parser for ussd and app; structlog 24|i.chebet
DEP-9122|ussd-gateway|2.15.0|19 14:30|4|*141# voucher entry: accept spaces and dashes in PIN|b.otieno
DEP-9124|momo-topup|3.7.4|19 14:51|4|rollback|i.chebet
DEP-9126|api-gateway|kong 3.5.0-p3|19 16:15|5|rate-limit plugin upgrade|a.wanjiru
"""

# id | service | key | old | new | by | changed (EAT wall time, as the CMDB exports it) | ticket
CONFIG_CHANGES = """
CHG-4462|selfcare-api|otp.resend_cooldown_s|60|45|c.mwangi|18 08:30|OPS-7761
CHG-4465|ocs|rating.roaming.zone3.tariff_kes_per_mb|2.50|2.20|h.kamau|18 09:40|OPS-7766
CHG-4468|ussd-gateway|session.idle_timeout_s|25|30|b.otieno|18 12:05|OPS-7770
CHG-4470|hss-provisioning|provgw.max_inflight|32|48|g.mutua|18 15:45|OPS-7779
CHG-4471|smsc-gateway|binds.jambo.tps_limit|250|25|f.achieng|18 15:52|OPS-7781
CHG-4473|smsc-gateway|binds.jambo.tps_limit|25|250|f.achieng|18 16:41|OPS-7781
CHG-4476|momo-topup|notify.sms.throttle_per_min|120|60|i.chebet|18 19:01|OPS-7785
CHG-4480|radius-aaa|acct.interim_interval_s|900|600|d.kiprono|18 22:10|OPS-7790
CHG-4484|cdr-mediation|reconcile.parallelism|4|6|e.njeri|19 01:45|OPS-7794
CHG-4487|selfcare-api|kyc.id_photo.max_kb|512|1024|c.mwangi|19 08:02|OPS-7801
CHG-4505|smsc-gateway|binds.kilima.window|10|8|f.achieng|19 10:20|OPS-7817
CHG-4498|ussd-gateway|menu.544.cache_ttl_s|300|60|b.otieno|19 12:08|OPS-7812
CHG-4502|hss-provisioning|tls.client_cert|hssprov-2026|hssprov-2027|g.mutua|19 12:51|OPS-7815
CHG-4490|momo-topup|wallet.callback_timeout_ms|8000|12000|i.chebet|19 13:40|OPS-7808
"""

# id | service | subject | issuer | not_before | not_after | used for
CERTS = """
CERT-301|hss-provisioning|CN=hssprov.tele.internal|Tele HSS Vendor CA|2026-01-19T09:15Z|2027-01-19T09:15Z|\
mTLS client cert to hss-provgw (hssprov-2026)
CERT-302|hss-provisioning|CN=hssprov.tele.internal|Tele HSS Vendor CA|2027-01-19T09:45Z|2028-01-19T09:15Z|\
mTLS client cert to hss-provgw (hssprov-2027)
CERT-310|smsc-gateway|CN=smpp.tele.example|Let's Encrypt R11|2026-12-16T00:00Z|2027-03-16T00:00Z|\
SMPP over TLS listener
CERT-320|api-gateway|CN=api.tele.example|DigiCert TLS RSA SHA256 CA1|2026-06-01T00:00Z|2027-06-30T23:59Z|\
public API edge
CERT-330|momo-topup|CN=momo-topup.tele.internal|Tele Internal CA|2026-09-01T00:00Z|2027-09-01T00:00Z|\
mTLS client to mobile-money-core
"""

VOUCHER_BATCHES = """
VB-2026-11|1200000|2026-11-01 00:00|2027-01-19 00:00|EXPIRED
VB-2026-12|1500000|2026-12-01 00:00|2027-02-28 23:59|ACTIVE
VB-2027-01|1500000|2027-01-02 00:00|2027-03-31 23:59|ACTIVE
"""


def rows_of(text: str) -> list[list[str]]:
    return [line.split("|") for line in text.strip().splitlines()]


def at(day_hhmm: str) -> dt.datetime:
    day, hhmm = day_hhmm.split()
    return L(int(day), hhmm)


SVC_BASE = {  # requests per minute at the daily peak, error %, p95 ms
    "api-gateway": (900, 1.2, 180), "selfcare-api": (600, 0.6, 140), "ocs": (3000, 0.3, 35),
    "smsc-gateway": (1200, 0.8, 120), "radius-aaa": (2000, 4.5, 20), "hss-provisioning": (60, 8.0, 380),
    "ussd-gateway": (800, 1.0, 1400), "momo-topup": (300, 3.5, 900),
}
# (window, service, error % added, p95 multiplier, request multiplier): worlds_data/tele/svc_effects.txt
SVC_EFFECTS = engine.data_table(NAME, "svc_effects.txt", None, "ssfff")


def noisy(x: float, rel: float = 0.08) -> float:
    return x * (1 + RNG.uniform(-rel, rel))


def ticks(step_min: int):
    for i in range(MINUTES // step_min):
        yield DAY0 + dt.timedelta(minutes=i * step_min)


def svc_rows() -> list[dict]:
    """A wide per-service export every 5 minutes, ISO UTC."""
    rows = []
    for t in ticks(5):
        for svc, (rpm, err, p95) in SVC_BASE.items():
            for key, s, add, mult, rmul in SVC_EFFECTS:
                if s == svc and active(key, t):
                    err, p95, rpm = err + add, p95 * mult, rpm * rmul
            rows.append({"ts": Z(t), "service": svc, "req_per_min": int(noisy(rpm * DIURNAL[t.hour])),
                         "error_pct": round(noisy(err, 0.2), 2), "p95_ms": int(noisy(p95, 0.1))})
    return rows


def ocs_gy_rows() -> list[dict]:
    """Per-minute Gy counters per PGW peer, epoch-second timestamps as the exporter writes them."""
    rows = []
    for t in ticks(1):
        for peer in PEERS:
            ccr, r5012, p95 = noisy(1500 * DIURNAL[t.hour]), noisy(0.4, 0.5), noisy(28, 0.15)
            if active("ocs_slow", t):
                r5012, p95 = noisy(0.09 * ccr, 0.2), noisy(2150, 0.1)
            if active("kafka2", t) and t >= sec(W["kafka2"][0], 600):
                r5012 = noisy(0.3 * ccr, 0.2)
            rows.append({"ts": int(t.timestamp()), "peer": peer.split(".")[0], "ccr_per_min": int(ccr),
                         "cca_2001": int(ccr * 0.95 - r5012), "cca_4012": int(ccr * 0.04),
                         "cca_5012": int(r5012), "answer_p95_ms": int(p95)})
    return rows


def cassandra_rows() -> list[dict]:
    """Per-node table stats every 5 minutes, local time with its offset."""
    rows = []
    a, b = W["cass_backlog"]
    for t in ticks(5):
        for node in ("cass-01", "cass-02", "cass-03"):
            pending, sst = RNG.randrange(0, 9), RNG.randrange(2, 5)
            rp99, heap = noisy(7.5, 0.2), noisy(55, 0.15)
            if node == "cass-03" and a <= t < b:
                ramp = math.sin(math.pi * min(1.0,
                                              1.15 * (t - a).total_seconds() / (b - a).total_seconds()))
                pending, sst = int(5 + 1400 * ramp), int(12 + 180 * ramp)
                rp99, heap = 7.5 + 2400 * ramp**2, 68
            rows.append({"ts": t.astimezone(EAT).strftime("%Y-%m-%d %H:%M:%S+03:00"), "node": node,
                         "read_p99_ms": round(rp99, 1), "write_p99_ms": round(noisy(2.1, 0.2), 1),
                         "pending_compactions": pending, "sstables_per_read_p99": sst,
                         "live_sstables": 400 + pending // 2, "heap_used_pct": round(heap, 1)})
    return rows


def kafka_rows() -> list[dict]:
    """Per-broker health every 5 minutes, ISO UTC."""
    rows = []
    for t in ticks(5):
        for br in (1, 2, 3):
            down = br == 2 and active("kafka2", t)
            urp = (4 if br == 1 else 3) if br != 2 and active("kafka2", t) else 0
            rows.append({"ts": Z(t), "broker": f"kafka-{br}", "online": int(not down),
                         "offline_log_dirs": int(down), "under_replicated_partitions": urp,
                         "under_min_isr_partitions": urp,
                         "bytes_in_per_s": 0 if down else int(noisy(2.4e6 * DIURNAL[t.hour])),
                         "produce_p99_ms": int(noisy(40 if urp else 6, 0.3)),
                         "failed_produce_per_s": int(noisy(180, 0.3)) if urp else 0})
    return rows


def smpp_rows() -> list[dict]:
    """Per-minute SMPP bind counters in local wall time (the exporter runs in EAT)."""
    rows = []
    for t in ticks(1):
        for bind, tps in (("local", 140), ("jambo", 40), ("kilima", 18)):
            rate = noisy(tps * 60 * DIURNAL[t.hour], 0.1)
            row = {"ts": t.astimezone(EAT).strftime("%Y-%m-%d %H:%M"), "bind": bind, "state": "BOUND_TRX",
                   "submit_per_min": int(rate), "resp_ok": int(rate * 0.997),
                   "throttled_0x58": RNG.randrange(3),
                   "queue_depth": RNG.randrange(40), "dlr_delay_p95_s": round(noisy(6, 0.3), 1)}
            depth = jambo_depth(t) if bind == "jambo" else 0
            if depth or (bind == "jambo" and active("tps_limit", t)):
                sent = min(int(rate), 1500) if active("tps_limit", t) else int(rate) + 12000
                row.update(submit_per_min=sent, resp_ok=sent - 1, queue_depth=depth,
                           dlr_delay_p95_s=round(min(300.0, 6 + depth / 25), 1))
            if bind == "kilima" and active("kilima", t):
                up = t < sec(W["kilima"][0], 540)
                row.update(state="BOUND_TRX" if up else "UNBOUND", submit_per_min=int(rate) * up,
                           throttled_0x58=int(rate * 0.7) * up, resp_ok=int(rate * 0.3) * up)
            rows.append(row)
    return rows


# ---------------------------------------------------------------- runbooks
KNOWLEDGE = {
    "oncall-overview.md": """# BSS & digital on-call overview

Owner: digital-platforms on-call (PagerDuty "bss-digital"). Dashboards are in EAT (UTC+03:00); kafka,
cassandra, postgres, ocs, hss-provisioning and selfcare-api log in UTC.

## Request paths

- App / web: api-gateway (Kong) -> selfcare-api -> postgres-crm (profile, KYC), ocs (balance, debits),
  hss-provisioning (bundle QoS), smsc-gateway (OTP).
- USSD: ussd-gateway -> ocs (*100#), selfcare-api (*544# bundles, *130#), momo-topup (*141#).
- Data sessions: PGW -> ocs over Gy (CCR-I/U/T); radius-aaa authorises the APN and writes accounting.
- CDRs: ocs, radius-aaa and smsc-gateway produce to kafka (cdr.raw, cdr.acct, cdr.sms); cdr-mediation
  consumes hourly and loads billing-dw.

The `dependencies` table is kept current by the architecture review: use it before blaming the
service that paged.

## First five minutes

1. Which service's errors started first? Compare `svc_metrics_5m` across services.
2. Anything changed? `deploys` and `config_changes` (config times are EAT wall time).
3. One partner, peer or bind, or everyone? `ocs_gy_1m` per PGW peer, `smpp_binds_1m` per bind.
4. Read the known-noise note before chasing an error that is there every day.
""",
    "ocs-diameter-errors.md": """# OCS: Diameter result codes and what they usually mean

Owner: charging. The ocs answers the PGWs' Gy CCRs; `ocs_gy_1m` has per-peer counters.

## Result codes

- 2001 success. 4012 DIAMETER_CREDIT_LIMIT_REACHED: out of balance, normal all day.
- 5030 USER_UNKNOWN: IMSI not provisioned yet (new SIM swaps), low and steady.
- 5012 DIAMETER_UNABLE_TO_COMPLY: the ocs could not process the request.

## Bursts of 5012

In our experience a burst of 5012 almost always follows a change on the PGW or in the rating
configuration: CCRs arrive with a Rating-Group or Service-Identifier the rating plan does not know,
or with a malformed Multiple-Services-Credit-Control AVP, and the ocs refuses them.

- Check `config_changes` for `rating.*` keys and ask packet core about PGW changes.
- cdr-mediation's "missing Rating-Group" rejects going up are a sign of the same thing.
- Roll back the rating change; the PGW retries CCR-U on its own.
""",
    "cassandra-operations.md": """# Cassandra (balances cluster) operations

Owner: data-platform. Nodes cass-01..03, RF=3. The ocs reads balances and reservations at
LOCAL_QUORUM with a 1 s driver timeout, inside its own 2 s Tx timer.

## Compaction backlog

A node that falls behind on compaction keeps many small SSTables: every read touches more files and
read latency climbs long before anything is logged as an error. In `cassandra_5m`:
`pending_compactions` in the hundreds and rising, `sstables_per_read_p99` well above 10, and
`read_p99_ms` going from single digits to seconds on that node only.

- `nodetool compactionstats` on the node; `nodetool setcompactionthroughput 0` for a while.
- If one node is slow, `nodetool disablebinary` on it takes it out of client traffic until it
  catches up.

## GC

G1 pauses over 1 s (GCInspector) mean heap pressure; young GCs of 200-300 ms are normal here.
""",
    "smpp-delivery.md": """# SMS delivery via smsc-gateway (SMPP)

Owner: messaging. smsc-gateway keeps transceiver binds to smsc-local (on-net), smsc-jambo (KE
interconnect) and smsc-kilima (UG/TZ aggregator). OTPs are sent with a 300 s validity.

## Local throttling (ours)

Each bind has `binds.<partner>.tps_limit` in consul, set to what the partner contract allows (jambo
250/s, kilima 50/s). Above it smsc-gateway queues and logs "local throttle: tps_limit=… reached". A
queue that grows for minutes means the limit is below the traffic and OTPs expire in the queue:
compare `smpp_binds_1m.submit_per_min` with the limit and check `config_changes` for the bind.

## Partner throttling and bind failures (theirs)

`submit_sm_resp` with 0x00000058 (ESME_RTHROTTLED) is the partner SMSC throttling us; a few a day
are normal. ESME_RBINDFAIL (0x0D) or enquire_link timeouts on one bind only are on the partner's
side: open a ticket with their NOC (kilima: noc@kilima.example), nothing to change on ours.

## DLRs

`stat=UNDELIV` with err 001/027 is an absent or full handset, part of every day.
""",
    "voucher-redemption.md": """# Voucher (scratch card) redemption failures

Owner: momo. momo-topup redeems vouchers (USSD *141*PIN# and the app); PINs are 14 digits, printed
in batches (`voucher_batches`).

## The usual causes

- An expired batch: after its `expires_at` every redemption from it is rejected VOUCHER_EXPIRED.
  Customers keep scratching old cards for weeks; retail is told, nothing to fix.
- Fraud lockout: five wrong PINs lock the MSISDN for 60 minutes ("msisdn locked").
- PIN_NOT_FOUND at a low steady rate is customers mistyping.

A spike of rejections is nearly always one of the first two: check the batch of the rejected PINs
before anything else.
""",
    "known-noise.md": """# Known noise (do not chase)

- hss-provisioning: `ProvGW fault ... fault=SUBSCRIBER_NOT_FOUND source=churn-sync` all day, every
  day: the churn sync deletes subscribers the HSS already removed. Dozens an hour is normal.
- cdr-mediation: "rejected CDR: missing Rating-Group in MSCC", a few per run, from old PGW firmware
  in Mombasa; "duplicate CDRs dropped" too.
- ussd-gateway: "session timeout: user idle", customers walking away from menus.
- radius-aaa: "Login incorrect" for corp/m2m APNs with stale passwords, and barred subscribers.
- selfcare-api: "JWT expired for subject", app clients refresh on their own.
- postgres-crm: the odd "deadlock detected" on contact_log from the notification fan-out.
""",
}


# ---------------------------------------------------------------- truth
def moment(day: int, h: int, m: int, s: float = 0.0) -> dt.datetime:
    """A moment as the truth file writes it: ``DAY HH:MM[:SS]``, DAY of January 2027 (EAT)."""
    return L(day, f"{h:02d}:{m:02d}", s)


def truth() -> dict:
    """The suite, kept as data in worlds_data/tele/truth.yaml; evidence steps ask in UTC."""
    return engine.truth(NAME, moment, lambda t: t.astimezone(UTC).isoformat(), W, engine.classed_case)


# ---------------------------------------------------------------- writing and checking
def tables() -> dict[str, list[dict]]:
    def named(cols: str, rows) -> list[dict]:
        return [dict(zip(cols.split(), r, strict=True)) for r in rows]

    deploys = [[i, svc, ver, Z(at(t0)), Z(at(t0) + dt.timedelta(minutes=int(mins))), "SUCCEEDED", summ, by]
               for i, svc, ver, t0, mins, summ, by in rows_of(DEPLOYS)]
    changes = [[*c[:6], at(c[6]).strftime("%Y-%m-%d %H:%M:%S"), c[7]] for c in rows_of(CONFIG_CHANGES)]
    return {
        "dependencies": named("service depends_on protocol purpose critical", rows_of(DEPENDENCIES)),
        "deploys": named("deploy_id service version started_at finished_at status summary deployed_by",
                         deploys),
        "config_changes": named("change_id service config_key old_value new_value changed_by changed_at "
                                "ticket",
                                changes),
        "certificates": named("cert_id service subject issuer not_before not_after used_for",
                              rows_of(CERTS)),
        "voucher_batches": named("batch_id pins created_at expires_at status", rows_of(VOUCHER_BATCHES)),
        "batch_runs": BATCH_RUNS, "svc_metrics_5m": svc_rows(), "ocs_gy_1m": ocs_gy_rows(),
        "cassandra_5m": cassandra_rows(), "kafka_5m": kafka_rows(), "smpp_binds_1m": smpp_rows(),
    }


def write_csv(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def build(out: Path) -> Path:
    root = out / NAME
    (root / "tables").mkdir(parents=True, exist_ok=True)
    (root / "knowledge").mkdir(exist_ok=True)
    for t in times(75):
        routine_gateway(t)
    for svc, (peak, _) in ROUTINE.items():
        for t in times(peak):
            routine(svc, t)
    batch_runs()
    daily_lines()
    for incident in INCIDENTS:
        incident()
    EVENTS.sort(key=lambda e: (e[0], e[1]))
    with (root / "logs.jsonl").open("w", encoding="utf-8") as fh:
        for t, svc, level, msg, attrs in EVENTS:
            local = svc in TS_LOCAL
            ts = stamp(t.astimezone(EAT if local else UTC), "T") + ("+03:00" if local else "Z")
            record = {"ts": ts, "service": svc, "level": level, "message": msg, "attrs": attrs}
            fh.write(json.dumps(record) + "\n")
    for name, rows in tables().items():
        write_csv(root / "tables" / f"{name}.csv", rows)
    for name, text in KNOWLEDGE.items():
        (root / "knowledge" / name).write_text(text, encoding="utf-8")
    meta = {"name": f"{NAME}-world", "timezone": "+03:00",
            "description": "A mobile network operator's digital services and BSS in East Africa (SMPP "
                           "gateway, Diameter OCS on cassandra, RADIUS/AAA, HSS provisioning, USSD, "
                           "mobile-money top-up and vouchers, self-care API behind Kong, kafka CDRs, "
                           "postgres CRM, CDR mediation), 2027-01-18..19, East Africa Time (UTC+03:00)."}
    (root / "dataset.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    suite = json.dumps(truth(), indent=2, ensure_ascii=False)
    (root / "truth.json").write_text(suite + "\n", encoding="utf-8")
    return root


def check(root: Path) -> list[str]:
    """Each cause's key terms are in its root cause; each evidence item's text is where its query looks."""
    logs = [json.loads(x) for x in (root / "logs.jsonl").read_text(encoding="utf-8").splitlines()]
    problems = []
    for inc in json.loads((root / "truth.json").read_text(encoding="utf-8"))["incidents"]:
        missing = [k for k in inc["key_terms"] if k.lower() not in (inc["root_cause"] or "").lower()]
        if missing or (inc["expected_outcome"] == "SUCCESS") != bool(inc["key_terms"]):
            problems.append(f"{inc['id']}: key terms {inc['key_terms']} do not fit the root cause")
        for ev in inc["evidence"]:
            args, want = ev["args"], ev["contains"]
            if ev["tool"] == "query_logs":
                a, b = dt.datetime.fromisoformat(args["start"]), dt.datetime.fromisoformat(args["end"])
                ok = any(r["service"] == args["service"] and want in r["message"]
                         and a <= dt.datetime.fromisoformat(r["ts"]) <= b
                         and args.get("pattern", "").lower() in r["message"].lower()
                         and r["level"] == args.get("level", r["level"]) for r in logs)
            elif ev["tool"] == "query_mysql":
                table = re.search(r"FROM (\w+)", args["sql"]).group(1)
                ok = want in (root / "tables" / f"{table}.csv").read_text(encoding="utf-8")
            else:
                ok = any(want in p.read_text(encoding="utf-8") for p in (root / "knowledge").glob("*.md"))
            if not ok:
                problems.append(f"{inc['id']}: {ev['tool']} {want!r} not found")
    return problems


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    root = build(Path(argv[0]))
    print(f"wrote {root}: {len(EVENTS)} log events")
    if "--check" not in argv[1:]:
        return 0
    problems = check(root)
    for p in problems:
        print("CHECK FAILED:", p)
    print("check:", "ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
