"""Write the held-out "iot" world: a smart-home device platform.

Three days (2026-12-14..16, Monday to Wednesday, Australian Eastern Standard Time: AEST, UTC+10:00,
Australia/Brisbane, no daylight saving) of logs from 13 components, the ops tables the on-call has
(dependencies, deploys, config changes, Flyway schema history, feature-flag audit, cron job runs, a
cert-manager certificate list, a Prometheus export in long form and a wide per-service export) and
six runbooks, with 12 incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_iot.py [OUT_DIR]   # writes OUT_DIR/iot/ (default tests/data/worlds)

The platform ("Brolga Home": smart plugs BP-200, bulbs BL-10, thermostats TH-1, door locks LK-2,
motion sensors MS-1 and Zigbee hubs HB-3 that bridge up to 60 child devices): devices speak MQTT
over TLS to **emqx** (EMQX 5, nodes emqx-1..3 behind an AWS NLB, mqtt.brolga.io:8883), which
authenticates them (JWT, keys from **auth**'s JWKS), forwards device state to **shadow** over a
webhook and bridges device events and telemetry to **kafka** (brokers kafka-1..3, SASL/SCRAM).
The mobile app comes in through the AWS ALB (**edge**, access logs) to **api** (node, the mobile
API gateway), which checks the tokens **auth** (python) issues and calls **registry** (Go, devices,
homes and claims on **postgres** pg-main-1), **shadow** (Go, desired/reported state, cached in
**redis** redis-shadow-1, commands published back through emqx), **rules** (Java, the automations
engine consuming device.events) and **ota** (Go, firmware campaigns, images on S3/CloudFront).
**push** (Elixir) sends notifications through Apple's APNs and Google's FCM, **ingest** (Rust)
writes telemetry.raw into TimescaleDB on postgres pg-ts-1; redis-main-1/2 behind Sentinel hold
sessions, refresh tokens and rate limits.

Clocks as they come: edge, auth, registry, ingest, postgres and redis write UTC; emqx and shadow
write AEST with the offset; rules, ota and kafka write Brisbane wall time without a zone; push
writes only the time of day; api writes epoch milliseconds. Tables: deploys and job runs in UTC,
config changes with their offset, Flyway history and the per-service export in wall time, the
flag audit in epoch milliseconds, the Prometheus export in epoch seconds.
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

NAME, SEED = "iot", 20261214
SERVICES = (
    "edge", "api", "auth", "registry", "shadow", "rules", "ota", "push", "ingest", "emqx", "kafka",
    "postgres", "redis",
)
AEST = timezone(timedelta(hours=10))
LOCAL = engine.Clock(AEST, datetime(2026, 12, 14, tzinfo=AEST))
DAY0, END = LOCAL.days(3)
at, lt = LOCAL.at, LOCAL.iso




# The stories (AEST): (start of the cause, end of the effects)
SIGN = (at(0, 8, 2), at(0, 8, 53))  # IOT-01 OTA campaign C-2291 image signed with the staging key
PACKET = (at(0, 11, 12, 5), at(0, 12, 4, 10))  # IOT-02 emqx mqtt.max_packet_size 1MB -> 64KB
SWAP = (at(0, 13, 58), at(0, 14, 50))  # IOT-03 redis-shadow-1 host out of memory, swapping
CERT = (at(0, 18, 0), at(0, 18, 52))  # IOT-04 emqx-3 still serving the expired listener certificate
LEAK = (at(1, 6, 38), at(1, 7, 58))  # IOT-06 registry 4.9.0 leaks pooled postgres connections
FULL = (at(1, 7, 14), at(1, 8, 1))  # IOT-06 the symptom: pg-main-1 out of connection slots
SCRAM = (at(1, 9, 58, 20), at(1, 10, 52))  # IOT-07 kafka SCRAM rotation, emqx bridge not updated
FCM = (at(1, 13, 4), at(1, 13, 52))  # IOT-08 FCM outage (trap: push config change 12:58)
KID = (at(1, 16, 0, 41), at(1, 16, 47))  # IOT-09 signing key rotated with retired_key_ttl=0h
POISON = (at(2, 8, 31, 12), at(2, 9, 24))  # IOT-10 thm-4c19e2 timestamps in microseconds
FANOUT = (at(2, 12, 31), at(2, 13, 22))  # IOT-11 flag home_summary_v2 to 100%, registry fan-out
FAILOVER = (at(2, 15, 57, 9), at(2, 16, 44))  # IOT-12 sentinel failover, auth pinned to redis-main-1

OLD_KID, NEW_KID = "brolga-2026-12-08", "brolga-2026-12-15"
BAD_THERMO = "thm-4c19e2"


class World(engine.Dataset):
    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END, SERVICES)

    def device(self, prefix: str | None = None) -> str:
        return f"{prefix or self.pick(MODELS)}-{self.hexid(6)}"

    home = partialmethod(engine.Dataset.tagged, "h_", 6)
    user = partialmethod(engine.Dataset.tagged, "u_", 6)

    def ip(self) -> str:
        first = self.pick((49, 101, 110, 121, 124, 203))
        return f"{first}.{self.ri(1, 254)}.{self.ri(0, 255)}.{self.ri(1, 254)}"


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,),
              (cron, story_signing, story_packet, story_swap, story_cert, story_leak, story_scram, story_fcm,
               story_kid, story_poison, story_fanout, story_failover, metrics))
    return w, engine.manifest(NAME, "Australia/Brisbane", "Brolga Home, a smart-home device platform",
                              "2026-12-14..16 Brisbane time (AEST)", 12, SERVICES, dayfirst=True), truth()

MODELS = ("plg", "plg", "blb", "blb", "blb", "thm", "lck", "sns", "sns")
HUBS = [
    f"hub-{h}"
    for h in (
        "3a9f10", "0c41d7", "7e2b95", "a18c03", "5d07e4", "c9f312", "16b8a0", "e40d5c", "2f9a61", "b7310e",
        "48ce2d", "91d0f7", "6a5b1c", "d2e897",
    )
]
API_PODS = ("api-6c9f8d7b5-4xk2p", "api-6c9f8d7b5-9qmzt", "api-6c9f8d7b5-tr7vw", "api-6c9f8d7b5-h2l8s")
EMQX_NODES = ("emqx@emqx-1", "emqx@emqx-2", "emqx@emqx-3")
APP_UA = (
    "BrolgaHome/5.14.2 (iOS 18.1; iPhone15,2)", "BrolgaHome/5.14.2 (Android 14; SM-S918B)",
    "BrolgaHome/5.14.1 (Android 13; Pixel 7)", "BrolgaHome/5.14.2 (iOS 17.6; iPhone13,1)",
)


def app_load(t: datetime) -> float:
    """How many people use the app, by hour of the Brisbane day (mornings and evenings)."""
    return (
        0.15, 0.1, 0.08, 0.08, 0.1, 0.35, 0.75, 0.95, 0.8, 0.6, 0.55, 0.55, 0.6, 0.55, 0.55, 0.6, 0.75,
        0.95, 1.0, 1.0, 0.95, 0.8, 0.5, 0.3,
    )[t.hour]


def dev_load(t: datetime) -> float:
    """Devices report all day; a little more while people are home and awake."""
    return 0.85 + 0.15 * app_load(t)


# ---- native line formats -------------------------------------------------------------------


def alb(w: World, t: datetime, method: str, path: str, status: int, secs: float,
        target_status: str | None = None) -> None:
    """An AWS Application Load Balancer access log entry (UTC)."""
    u = t.astimezone(UTC)
    level = "INFO" if status < 400 else ("WARN" if status < 500 else "ERROR")
    target = f"10.20.2.{w.ri(10, 40)}:8080"
    ts = target_status if target_status is not None else str(status)
    tpt = f"{secs:.3f}" if ts != "-" else "-1"
    created = (u - timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S.%f")
    w.emit(t, "edge", level,
           f"h2 {u.strftime('%Y-%m-%dT%H:%M:%S.%f')}Z app/brolga-prod-api/3f9c1a7e5b2d4c60 "
           f"{w.ip()}:{w.ri(1024, 65535)} {target if ts != '-' else '-'} 0.000 {tpt} 0.000 {status} {ts} "
           f'{w.ri(80, 900)} {w.ri(120, 9000)} "{method} https://api.brolga.app:443{path} HTTP/2.0" '
           f'"{w.pick(APP_UA)}" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 '
           "arn:aws:elasticloadbalancing:ap-southeast-2:412093387711:targetgroup/api-prod/8c1d0e2f3a4b5c6d "
           f'"Root=1-{int(u.timestamp()):x}-{w.hexid(24)}" "api.brolga.app" '
           '"arn:aws:acm:ap-southeast-2:412093387711:certificate/5e0c7d21-8b3f-4a6e-9d12-7f4b2c8e1a90" '
           f'0 {created}Z "forward" "-" "-" "{target if ts != "-" else "-"}" "{ts}" "-" "-"')


def pino(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    """node/pino JSON (epoch milliseconds, numeric levels)."""
    num = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}[level]
    d = {"level": num, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": w.pick(API_PODS)}
    d.update(kv)
    d["msg"] = msg
    w.emit(t, "api", level, json.dumps(d, separators=(",", ":")))


def api_req(w: World, t: datetime, method: str, url: str, status: int, ms: int, level: str = "") -> None:
    lv = level or ("INFO" if status < 400 else ("WARN" if status < 500 else "ERROR"))
    pino(w, t, lv, "request completed", reqId=f"req-{w.hexid(8)}", req={"method": method, "url": url},
         res={"statusCode": status}, responseTime=ms)


def pyauth(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    """auth's python logging (UTC asctime)."""
    u = t.astimezone(UTC)
    name = {"WARN": "WARNING"}.get(level, level)
    w.emit(t, "auth", level,
           f"{u.strftime('%Y-%m-%d %H:%M:%S')},{u.microsecond // 1000:03d} {name} {logger}: {msg}")


def uvicorn(w: World, t: datetime, method: str, path: str, status: int) -> None:
    """uvicorn's access line: no time of its own, always INFO, whatever the status."""
    phrase = {200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
              500: "Internal Server Error", 503: "Service Unavailable"}[status]
    w.emit(t, "auth", "INFO",
           f'INFO:     10.20.{w.pick((2, 3, 5))}.{w.ri(10, 90)}:{w.ri(30000, 60000)} - "{method} {path} '
           f'HTTP/1.1" {status} {phrase}')


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    """registry: Go zap production JSON with an ISO8601 UTC time."""
    u = t.astimezone(UTC)
    d = {"level": level.lower(), "ts": u.strftime("%Y-%m-%dT%H:%M:%S.") + f"{u.microsecond // 1000:03d}Z",
         "caller": caller, "msg": msg}
    d.update(kv)
    w.emit(t, "registry", level, json.dumps(d, separators=(",", ":")))


def slog(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    """shadow: Go log/slog text handler (logfmt, AEST with offset)."""
    stamp = t.astimezone(AEST).isoformat(timespec="milliseconds")
    parts = [f"time={stamp}", f"level={level}", f"msg={json.dumps(msg)}"]
    for k, v in kv.items():
        s = str(v)
        parts.append(f"{k}={json.dumps(s) if (' ' in s or '=' in s or not s) else s}")
    w.emit(t, "shadow", level, " ".join(parts))


def log4j(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    """rules: Java log4j2 pattern layout, Brisbane wall time without a zone."""
    w.emit(t, "rules", level,
           f"{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {level:<5}"
           f" [{thread}] {logger} - {msg}")


def golog(w: World, t: datetime, level: str, msg: str) -> None:
    """ota: Go's standard log package with a level prefix, Brisbane wall time, seconds."""
    w.emit(t, "ota", level, f"{t.strftime('%Y/%m/%d %H:%M:%S')} [{level}] {msg}")


def elixir(w: World, t: datetime, level: str, module: str, msg: str) -> None:
    """push: Elixir Logger's default console format (time of day only)."""
    lv = {"WARN": "warning"}.get(level, level.lower())
    w.emit(t, "push", level,
           f"{t.strftime('%H:%M:%S')}.{t.microsecond // 1000:03d} [{lv}] [{module}] {msg}")


def tracing(w: World, t: datetime, level: str, target: str, msg: str) -> None:
    """ingest: Rust tracing_subscriber's default format (UTC)."""
    u = t.astimezone(UTC)
    w.emit(t, "ingest", level, f"{u.strftime('%Y-%m-%dT%H:%M:%S.%f')}Z {level:>5} {target}: {msg}")


def emqx(w: World, t: datetime, level: str, msg: str, node: str | None = None) -> None:
    """EMQX 5 text log (AEST with offset); the collector adds the node."""
    lv = {"WARN": "warning"}.get(level, level.lower())
    if level == "INFO" and msg.startswith("!"):
        lv, msg = "notice", msg[1:]
    stamp = t.astimezone(AEST).isoformat(timespec="microseconds")
    w.emit(t, "emqx", level, f"{stamp} [{lv}] {msg}", node=node or w.pick(EMQX_NODES))


def kafka(w: World, t: datetime, level: str, msg: str, broker: int) -> None:
    """Kafka broker log4j (Brisbane wall time)."""
    w.emit(
        t, "kafka", level, f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d}] {level} {msg}",
        pod=f"kafka-{broker}",
    )


def pg(w: World, t: datetime, level: str, tag: str, msg: str, host: str = "pg-main-1",
       who: str = "") -> None:
    """PostgreSQL stderr log, log_line_prefix '%m [%p] %q%u@%d ' (UTC)."""
    u = t.astimezone(UTC)
    prefix = f"{who} " if who else ""
    w.emit(t, "postgres", level,
           f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{u.microsecond // 1000:03d} UTC [{w.ri(1000, 39999)}] "
           f"{prefix}{tag}:  {msg}", host=host)


def rds(w: World, t: datetime, level: str, mark: str, msg: str, inst: str, role: str = "M") -> None:
    """redis server / sentinel log (the containers run on UTC)."""
    u = t.astimezone(UTC)
    w.emit(t, "redis", level,
           f"1:{role} {u.strftime('%d %b %Y %H:%M:%S')}.{u.microsecond // 1000:03d} {mark} {msg}",
           instance=inst)


def jwks_at(t: datetime) -> list[str]:
    """The key ids auth's JWKS publishes at ``t``."""
    if t < KID[0]:
        return [OLD_KID, "brolga-2026-12-01"]
    if t < KID[1]:
        return [NEW_KID]
    return [NEW_KID, OLD_KID]


# ---- an ordinary minute ----------------------------------------------------------------------

AUTOMATIONS = (
    ("Sunset lights", "schedule"), ("Morning heat", "schedule"), ("Away mode", "geofence"),
    ("Hall motion light", "device"), ("Door unlocked alert", "device"), ("Garage left open", "device"),
    ("Bedtime", "schedule"), ("Too hot, fan on", "device"),
)


def background(w: World, t: datetime) -> None:  # noqa: C901 — one minute of an ordinary day
    f, d = app_load(t), dev_load(t)
    bridge_down = during(t, SCRAM)
    # edge: sampled ALB access log of the mobile API
    for _ in range(w.count(0.32 * f)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.3:
            alb(w, tt, "GET", f"/v1/homes/{w.home()}/devices", 200, 0.03 + 0.05 * w.r())
        elif x < 0.48:
            alb(w, tt, "GET", f"/v1/homes/{w.home()}/summary", 200, 0.05 + 0.08 * w.r())
        elif x < 0.68:
            alb(w, tt, "PUT", f"/v1/things/{w.device()}/desired", 202, 0.02 + 0.03 * w.r())
        elif x < 0.78:
            alb(w, tt, "GET", "/v1/automations", 200, 0.02 + 0.02 * w.r())
        elif x < 0.9:
            alb(w, tt, "POST", "/v1/oauth/token", 200, 0.09 + 0.1 * w.r())
        elif x < 0.96:
            alb(w, tt, "GET", f"/v1/homes/{w.home()}/devices", 401, 0.003)
        else:
            alb(w, tt, "GET", f"/v1/things/{w.device()}/firmware", 404, 0.01)
    # api: pino request log and a few routine warnings
    for _ in range(w.count(0.3 * f)):
        tt = w.jit(t)
        x = w.r()
        if x < 0.45:
            api_req(w, tt, "GET", f"/v1/homes/{w.home()}/devices", 200, w.ri(18, 70))
        elif x < 0.65:
            api_req(w, tt, "PUT", f"/v1/things/{w.device()}/desired", 202, w.ri(10, 40))
        elif x < 0.85:
            api_req(w, tt, "GET", f"/v1/homes/{w.home()}/summary", 200, w.ri(30, 110))
        else:
            api_req(w, tt, "GET", "/v1/automations", 200, w.ri(12, 35))
    if w.r() < 0.05 * f + 0.01:
        pino(w, w.jit(t), "WARN", "access token expired", route="/v1/homes/:homeId/devices", sub=w.user(),
             expiredAgoS=w.ri(1, 900))
    if w.r() < 0.02 * f:
        pino(w, w.jit(t), "WARN", "upstream retry", upstream="shadow", attempt=2, err="ECONNRESET")
    if t.minute % 30 == 1:
        kids = jwks_at(t)
        pino(w, w.jit(t, 20), "INFO", "jwks refreshed", keys=len(kids), kids=kids)
    # auth
    for _ in range(w.count(0.1 * f)):
        tt = w.jit(t)
        grant = w.pick(("password", "refresh_token", "refresh_token", "refresh_token"))
        pyauth(w, tt, "INFO", "auth.tokens",
               f"issued access token sub={w.user()} client={w.pick(('brolga-ios', 'brolga-android'))} "
               f"grant={grant} kid={OLD_KID if tt < KID[0] else NEW_KID} exp_in=900")
        uvicorn(w, tt + timedelta(milliseconds=3), "POST", "/oauth/token", 200)
    if w.r() < 0.05 * f + 0.01:
        pyauth(w, w.jit(t), "WARN", "auth.tokens",
               f"refresh rejected: invalid_grant (refresh token expired) sub={w.user()}")
        uvicorn(w, w.jit(t), "POST", "/oauth/token", 400)
    if w.r() < 0.05 * d:
        uvicorn(w, w.jit(t), "POST", "/mqtt/device-token", 200)
    if t.minute % 20 == 9:
        uvicorn(w, w.jit(t), "GET", "/.well-known/jwks.json", 200)
    # registry
    for _ in range(w.count(0.1 * f)):
        tt = w.jit(t)
        if w.r() < 0.7:
            zap(w, tt, "INFO", "http/server.go:141", "request", method="GET",
                path=f"/v1/homes/{w.home()}/devices", status=200, dur_ms=round(2 + 6 * w.r(), 1))
        else:
            zap(w, tt, "INFO", "http/server.go:141", "request", method="GET",
                path=f"/v1/devices/{w.device()}", status=200, dur_ms=round(1 + 3 * w.r(), 1))
    if w.r() < 0.03 * f:
        dev = w.device()
        zap(w, w.jit(t), "INFO", "claims/handler.go:88", "device claimed", device_id=dev, home_id=w.home(),
            model={"plg": "BP-200", "blb": "BL-10", "thm": "TH-1", "lck": "LK-2", "sns": "MS-1"}[dev[:3]])
    if w.r() < 0.04 * f + 0.01:
        zap(w, w.jit(t), "WARN", "claims/handler.go:112", "claim rejected", reason="claim code expired",
            code=f"{w.ri(100000, 999999)}", home_id=w.home())
    # shadow
    for _ in range(w.count(0.2 * d)):
        slog(w, w.jit(t), "INFO", "reported state merged", thing=w.device(), version=w.ri(100, 99999),
             source="mqtt")
    for _ in range(w.count(0.08 * f)):
        slog(w, w.jit(t), "INFO", "desired state accepted", thing=w.device(), version=w.ri(100, 99999),
             source=w.pick(("app", "app", "rules")))
    if w.r() < 0.03 * d:
        tt, dev = w.jit(t, 40), w.device()
        slog(w, tt, "WARN", "delta not acknowledged, resending", thing=dev, attempt=2, waited="10s")
        slog(w, tt + timedelta(seconds=w.ri(2, 9)), "INFO", "delta acknowledged", thing=dev, attempt=2)
    # rules: the always-noisy automations engine
    fired = 0.1 + 0.2 * f
    for _ in range(w.count(fired)):
        name, trig = w.pick(AUTOMATIONS)
        if bridge_down and trig == "device":
            continue
        log4j(w, w.jit(t), "INFO", f"rule-exec-{w.ri(1, 16)}", "c.b.rules.engine.RuleEvaluator",
              f"automation a_{w.hexid(4)} '{name}' fired (trigger={trig}): {w.ri(1, 4)} action(s)")
    for _ in range(w.count(0.3 + 0.45 * f)):
        log4j(w, w.jit(t), "ERROR", f"rule-exec-{w.ri(1, 16)}", "c.b.rules.engine.ActionExecutor",
              f"automation a_{w.hexid(4)} action set_state failed for device {w.device()}: DEVICE_OFFLINE "
              f"(last seen {w.ri(2, 300)} min ago)")
    if t.minute % 30 == 5:
        log4j(w, w.jit(t), "WARN", "weather-prefetch", "c.b.rules.weather.WeatherClient",
              f"openweather returned 429 for {w.ri(2, 9)} of {w.ri(380, 420)} postcodes, served from cache "
              "(age < 900s)")
    if w.r() < 0.015:
        log4j(w, w.jit(t), "ERROR", f"rule-exec-{w.ri(1, 16)}", "c.b.rules.notify.TemplateRenderer",
              f"automation a_{w.hexid(4)}: notification template missing variable 'room', sent without it")
    # ota: campaigns trickle along
    if t.minute % 10 == 3:
        golog(w, w.jit(t), "INFO",
              f"campaign C-2284 model=TH-1 stage 4/5: {w.ri(9000, 9600)}/12000 devices on 2.1.3, "
              f"{w.ri(20, 90)} failed")
    if w.r() < 0.025 * d:
        dev = w.device("thm")
        tt = w.jit(t, 30)
        golog(w, tt, "WARN", f"C-2284 device={dev} download stalled at {w.ri(5, 95)}%, will retry")
        golog(w, tt + timedelta(seconds=w.ri(60, 240)), "INFO",
              f"C-2284 device={dev} state=DOWNLOADED bytes=1048576 (retry 1)")
    # push: APNs and FCM
    for _ in range(w.count(0.14 * f)):
        tt = w.jit(t)
        if w.r() < 0.55:
            elixir(w, tt, "INFO", "Push.Apns",
                   f"sent apns-id={w.hexid(8)}-{w.hexid(4)} topic=au.com.brolga.home "
                   f"category={w.pick(('door_unlocked', 'motion', 'automation_ran', 'device_offline'))}")
        elif not during(tt, FCM):
            elixir(
                w, tt, "INFO", "Push.Fcm",
                f"sent message_id=projects/brolga-prod/messages/0:{w.ri(10**15, 10**16 - 1)}%{w.hexid(12)} "
                f"category={w.pick(('door_unlocked', 'motion', 'automation_ran', 'device_offline'))}",
            )
    if w.r() < 0.035 * f + 0.005:
        if w.r() < 0.5:
            elixir(w, w.jit(t), "WARN", "Push.Apns",
                   f"410 Unregistered for token=...{w.hexid(4)}, removing device token")
        else:
            elixir(w, w.jit(t), "WARN", "Push.Fcm",
                   f"404 UNREGISTERED for token=...{w.hexid(4)}, removing device token")
    # ingest
    if t.minute % 3 == 0:
        part = w.ri(0, 11)
        if not (part == 7 and during(t, POISON)):
            tracing(w, w.jit(t), "INFO", "ingest::writer",
                    f"flushed batch partition={part} rows={w.ri(3800, 5000)} took_ms={w.ri(40, 160)}")
    if t.minute % 17 == 4:
        tracing(w, w.jit(t), "WARN", "ingest::decode",
                f"dropped {w.ri(1, 40)} out-of-order samples device={w.device()} (older than watermark)")
    if t.minute % 23 == 11:
        dev = w.device(w.pick(("thm", "plg", "sns")))
        metric = {"thm": ("temp_c", "humidity_pct"), "plg": ("power_w", "energy_wh"),
                  "sns": ("lux", "battery_pct")}
        tracing(w, w.jit(t), "WARN", "ingest::decode",
                f"sample ts {w.ri(31, 400)}s in the future, kept (clock_skew_policy=keep) "
                f"device={dev} metric={w.pick(metric[dev[:3]])}")
    # emqx: devices on home Wi-Fi come and go
    for _ in range(w.count(0.18 * d)):
        dev = w.device()
        emqx(w, w.jit(t), "WARN",
             f"clientid: {dev}, msg: keepalive_timeout, peername: {w.ip()}:{w.ri(1024, 65535)}, "
             f"username: {dev}, keepalive: 60")
    if w.r() < 0.06:
        dev = w.device()
        emqx(w, w.jit(t), "WARN",
             f"clientid: {dev}, msg: authentication_failure, peername: {w.ip()}:{w.ri(1024, 65535)}, "
             "reason: not_authorized, authenticator: jwt, detail: device_decommissioned")
    if w.r() < 0.05 * d:
        dev = w.device()
        emqx(w, w.jit(t), "INFO",
             f"clientid: {dev}, msg: session_takenover, peername: {w.ip()}:{w.ri(1024, 65535)}, "
             f"username: {dev}, clean_start: false")
    # kafka
    if t.minute % 15 == 6:
        b = w.ri(1, 3)
        kafka(
            w, w.jit(t), "INFO",
            f"[LocalLog partition=telemetry.raw-{w.ri(0, 11)}, dir=/var/lib/kafka/data] Rolled new log "
            f"segment at offset {w.ri(80_000_000, 99_000_000)} in {w.ri(1, 6)} ms. (kafka.log.LocalLog)", b,
        )
    if t.minute == 40:
        b = w.ri(1, 3)
        kafka(
            w, w.jit(t), "INFO",
            f"[UnifiedLog partition=telemetry.raw-{w.ri(0, 11)}, dir=/var/lib/kafka/data] Deleting segment "
            f"LogSegment(baseOffset={w.ri(60_000_000, 70_000_000)}, size=1073741824) due to retention time "
            "259200000ms breach based on the largest record timestamp in the segment (kafka.log.UnifiedLog)",
            b,
        )
    if w.r() < 0.01:
        b = w.ri(1, 3)
        kafka(
            w, w.jit(t), "INFO",
            f"[GroupCoordinator {b}]: Stabilized group {w.pick(('rules-engine', 'ingest', 'ota-status'))} "
            f"generation {w.ri(40, 90)} (__consumer_offsets-{w.ri(0, 49)}) with {w.ri(3, 12)} members "
            "(kafka.coordinator.group.GroupCoordinator)", b,
        )
    # postgres
    if t.minute % 15 == 2:
        tt = w.jit(t, 20)
        host = w.pick(("pg-main-1", "pg-ts-1"))
        pg(w, tt, "INFO", "LOG", "checkpoint starting: time", host)
        pg(w, tt + timedelta(seconds=w.ri(20, 150)), "INFO", "LOG",
           f"checkpoint complete: wrote {w.ri(400, 9000)} buffers ({w.r() * 3:.1f}%); 0 WAL file(s) added, "
           f"0 removed, {w.ri(1, 9)} recycled; write={w.ri(20, 140)}.{w.ri(100, 999)}"
           f" s, sync=0.{w.ri(10, 99)}"
           f"0 s, total={w.ri(20, 150)}.{w.ri(100, 999)} s", host)
    if w.r() < 0.02 * f:
        pg(w, w.jit(t), "ERROR", "ERROR",
           'duplicate key value violates unique constraint "push_tokens_pkey"', "pg-main-1", "push@push")
    if w.r() < 0.012:
        pg(w, w.jit(t), "INFO", "LOG",
           f'automatic vacuum of table "registry.public.{w.pick(("devices", "claims", "homes"))}": index '
           f"scans: 1, pages: 0 removed, {w.ri(20000, 90000)} remain", "pg-main-1")
    # redis
    if t.minute % 30 == 8:
        tt = w.jit(t, 10)
        rds(w, tt, "INFO", "*", "10000 changes in 60 seconds. Saving...", "redis-shadow-1")
        rds(w, tt + timedelta(milliseconds=40), "INFO", "*",
            f"Background saving started by pid {w.ri(1000, 60000)}", "redis-shadow-1")
        rds(w, tt + timedelta(seconds=w.ri(30, 55)), "INFO", "*",
            "Background saving terminated with success", "redis-shadow-1")
    if t.minute % 30 == 21:
        tt = w.jit(t, 10)
        main = "redis-main-2" if t >= FAILOVER[0] else "redis-main-1"
        rds(w, tt, "INFO", "*", "100 changes in 300 seconds. Saving...", main)
        rds(w, tt + timedelta(seconds=w.ri(2, 6)), "INFO", "*", "Background saving terminated with success",
            main)


# ---- cron jobs -------------------------------------------------------------------------------


def zt(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cron(w: World) -> None:  # noqa: C901 — every scheduled job of the three days
    rows: list[list] = []

    def run(cronjob: str, ns: str, schedule: str, start: datetime, secs: int, detail: str,
            status: str = "Complete") -> datetime:
        end = start + timedelta(seconds=secs)
        rows.append([f"{cronjob}-{int(start.timestamp()) // 60}", cronjob, ns, schedule, zt(start), zt(end),
                     status, detail])
        return end

    for day in range(3):
        # nightly base backup of pg-main-1
        s = at(day, 2, 30, 4)
        size = 41.2 + 0.3 * day
        e = run("pg-basebackup", "data", "30 16 * * *", s, w.ri(1300, 1560),
                f"pg_basebackup pg-main-1 -> s3://brolga-db-backups/pg-main-1/{s:%Y-%m-%d} ({size:.1f} GB)")
        pg(w, s + timedelta(seconds=3), "INFO", "LOG",
           "replication connection authorized: user=backup application_name=pg_basebackup", "pg-main-1")
        pg(w, e - timedelta(seconds=2), "INFO", "LOG", "checkpoint starting: force wait", "pg-main-1")
        # TimescaleDB compression on pg-ts-1
        s = at(day, 3, 0, 2)
        n = w.ri(10, 14)
        e = run("timescale-compress", "data", "0 17 * * *", s, w.ri(1800, 2300),
                f"compressed {n} chunks of readings older than 7 days")
        for k in range(n):
            pg(w, s + timedelta(seconds=30 + k * 150 + w.ri(0, 60)), "INFO", "LOG",
               f'compress_chunk: chunk "_timescaledb_internal._hyper_3_{800 + day * 20 + k}_chunk" '
               f"compressed, {w.ri(7, 11)}.{w.ri(0, 9)} GB -> {w.ri(500, 900)} MB", "pg-ts-1",
               "tsadmin@telemetry")
        # stale device sweep
        s = at(day, 3, 15, 1)
        dormant = w.ri(900, 1600)
        e = run("registry-stale-device-sweep", "core", "15 17 * * *", s, w.ri(70, 130),
                f"marked {dormant} devices dormant (no contact for 30 days)")
        zap(w, e, "INFO", "jobs/sweep.go:54", "stale device sweep done", marked_dormant=dormant,
            scanned=412_883)
        # CDN sync of firmware images, every six hours
        for h in (4, 10, 16, 22):
            s = at(day, h, 10, 3)
            objs = w.ri(210, 230)
            e = run("ota-cdn-sync", "ota", "10 */6 * * *", s, w.ri(40, 95),
                    f"{objs} objects verified on cloudfront d2x9brolga.cloudfront.net, 0 invalidations")
            golog(w, e, "INFO",
                  f"cdn sync: {objs} objects verified against s3://brolga-firmware, 0 missing")
    # the monthly kafka credential rotation (IOT-07)
    s = at(1, 9, 55, 0)
    e = run(
        "kafka-scram-rotate", "platform", "55 23 14 * *", s, 108,
        "rotated SCRAM-SHA-512 credentials for users emqx-bridge, ingest, rules; new passwords written to "
        "vault kv/platform/kafka/<user>",
    )
    # the weekly signing key rotation (IOT-09)
    s = at(1, 16, 0, 3)
    e = run("auth-signing-key-rotate", "core", "0 6 * * 2", s, 38,
            f"new signing key kid={NEW_KID} active; retired kid={OLD_KID} removed from JWKS "
            "(signing.retired_key_ttl=0h); JWKS now has 1 key")
    rows.sort(key=lambda r: r[4])
    w.table("job_runs", engine.columns("CRON_RUNS"), rows)


# ---- the incidents ---------------------------------------------------------------------------


def story_signing(w: World) -> None:
    """IOT-01: campaign C-2291's image was signed with the staging key; plugs reject it and roll back."""
    golog(w, at(0, 7, 58, 31), "INFO",
          "image bp200-fw-3.8.2.bin registered for model BP-200 (uploaded by ci-release, pipeline 8812, "
          f"sha256={w.hexid(16)}...)")
    golog(w, at(0, 8, 0, 2), "INFO",
          "campaign C-2291 started: model=BP-200 from=3.7.9 to=3.8.2 stage 1/5 (1%) targets=412")
    golog(w, at(0, 8, 0, 3), "INFO",
          "manifest published for C-2291: image=bp200-fw-3.8.2.bin signer key_id=stg-2025 alg=ed25519 "
          "topic=d/+/ota/job")
    failed = 0
    for tt in w.jittered(SIGN, 15, 14):
        dev = w.device("plg")
        golog(w, tt - timedelta(seconds=w.ri(30, 90)), "INFO",
              f"C-2291 device={dev} state=DOWNLOADED bytes=1843200")
        golog(w, tt, "WARN",
              f"C-2291 device={dev} state=FAILED step=verify reason=SIG_VERIFY_FAILED "
              '"image signature key_id stg-2025 not in device trust store [prod-2024 prod-2026]" '
              "rolled_back_to=3.7.9")
        failed += 1
        if w.r() < 0.5:
            emqx(w, tt + timedelta(seconds=w.ri(1, 4)), "WARN",
                 f"clientid: {dev}, msg: keepalive_timeout, peername: {w.ip()}:{w.ri(1024, 65535)}, "
                 f"username: {dev}, keepalive: 60")
        if w.r() < 0.3:
            elixir(w, tt + timedelta(seconds=w.ri(2, 8)), "INFO", "Push.Apns",
                   f"sent apns-id={w.hexid(8)}-{w.hexid(4)}"
                   f" topic=au.com.brolga.home category=firmware_update_failed")
        if tt.minute % 10 == 0 and tt.second < 15:
            stage, targets = (1, 412) if tt < at(0, 8, 30) else (2, 4120)
            golog(w, tt + timedelta(seconds=1), "ERROR",
                  f"campaign C-2291 stage {stage}/5: 0 succeeded, {failed} failed of {targets} "
                  f"(failure rate 100.0%, no failure threshold set on this campaign)")
    golog(w, at(0, 8, 30, 2), "INFO",
          "campaign C-2291 stage 2/5 (10%) started: targets=4120 (auto-advance after 30m)")
    golog(w, SIGN[1], "INFO", "campaign C-2291 paused by jwalsh: 'plugs rolling back, investigating'")


def story_packet(w: World) -> None:
    """IOT-02: emqx max_packet_size lowered to 64KB; hubs' full state reports are rejected."""
    emqx(w, PACKET[0], "INFO",
         '!msg: cluster_config_changed, path: "mqtt.max_packet_size", old: "1MB", new: "64KB", by: '
         '"dnguyen", via: "PUT /api/v5/configs/global_zone"', "emqx@emqx-1")
    last: dict[str, datetime] = {}
    for tt in w.jittered((PACKET[0] + timedelta(seconds=25), PACKET[1]), 16, 14):
        hub = w.pick(HUBS)
        size = w.ri(66_000, 240_000)
        node = w.pick(EMQX_NODES)
        emqx(w, tt, "WARN",
             f"clientid: {hub}, msg: frame_parse_error, peername: {w.ip()}:{w.ri(1024, 65535)}, "
             f"reason: #{{cause => frame_too_large, limit => 65536, received => {size}}}", node)
        emqx(w, tt + timedelta(milliseconds=2), "WARN",
             f"clientid: {hub}, msg: socket_force_closed, reason: frame_too_large", node)
        last.setdefault(hub, tt)
    for tt in w.jittered((PACKET[0] + timedelta(minutes=5), PACKET[1] + timedelta(minutes=2)), 20, 18):
        hub = w.pick(HUBS)
        age = int((tt - last.get(hub, PACKET[0])).total_seconds()) + 300
        slog(w, tt, "WARN", "thing marked stale: no reported state", thing=hub, children=w.ri(12, 58),
             last_report_age=f"{age}s")
        if w.r() < 0.5:
            slog(w, tt + timedelta(milliseconds=40), "ERROR", "child state sync failed", hub=hub,
                 child=w.device(w.pick(("blb", "sns", "lck"))), err="parent hub offline")
        if w.r() < 0.4:
            log4j(w, tt + timedelta(seconds=1), "ERROR", f"rule-exec-{w.ri(1, 16)}",
                  "c.b.rules.engine.ActionExecutor",
                  f"automation a_{w.hexid(4)} action set_state failed for device {w.device('blb')}: "
                  f"DEVICE_OFFLINE (last seen {w.ri(2, 50)} min ago)")
    emqx(w, PACKET[1], "INFO",
         '!msg: cluster_config_changed, path: "mqtt.max_packet_size", old: "64KB", new: "1MB", by: '
         '"dnguyen", via: "PUT /api/v5/configs/global_zone"', "emqx@emqx-1")
    for k, hub in enumerate(HUBS):
        slog(w, PACKET[1] + timedelta(seconds=20 + 7 * k), "INFO", "thing back online", thing=hub,
             children=w.ri(12, 58))


def story_swap(w: World) -> None:
    """IOT-03: redis-shadow-1's host ran out of memory and swapped; shadow's redis calls crawl."""
    for tt in w.jittered(SWAP, 20, 18):
        dev = w.device()
        slog(w, tt, "WARN", "slow redis call", op=w.pick(("HGETALL", "HGETALL", "HSET", "LPUSH")),
             key=f"shadow:thing:{dev}", took=f"{0.4 + 2.2 * w.r():.2f}s", addr="redis-shadow-1:6379")
        if w.r() < 0.55:
            slog(w, tt + timedelta(seconds=2), "ERROR", "get shadow failed", thing=w.device(),
                 err=f"redis: i/o timeout (read tcp 10.20.3.{w.ri(40, 49)}:{w.ri(30000, 60000)}"
                 "->10.20.4.41:6379)")
            pino(w, tt + timedelta(seconds=2.1), "ERROR", "upstream error", upstream="shadow",
                 route="/v1/homes/:homeId/devices", err="DEADLINE_EXCEEDED: deadline exceeded after 3.000s")
            alb(w, tt + timedelta(seconds=2.2), "GET", f"/v1/homes/{w.home()}/devices", 504, 3.004)
        elif w.r() < 0.5:
            api_req(
                w, tt + timedelta(seconds=1), "GET", f"/v1/homes/{w.home()}/devices", 200, w.ri(1800, 2900),
                "WARN",
            )
    # the usual snapshot takes ages while the host swaps
    rds(w, at(0, 14, 8, 3), "INFO", "*", "Background saving started by pid 48811", "redis-shadow-1")
    rds(w, at(0, 14, 19, 41), "INFO", "*", "Background saving terminated with success", "redis-shadow-1")
    slog(w, at(0, 14, 22, 30), "INFO", "config reloaded", key="redis.pool_size", value="96", was="64")
    slog(w, at(0, 14, 47, 12), "INFO", "feature flag changed", flag="shadow_history_v1", value="false")
    slog(w, SWAP[1] - timedelta(seconds=20), "INFO", "history keys purge finished", pattern="shadow:hist:*",
         deleted="9412211", took="131s")


def story_cert(w: World) -> None:
    """IOT-04 (runbook words): emqx-3 never reloaded its listener certificate; the old one expired."""
    rate = 4.0
    t = CERT[0] + timedelta(seconds=5)
    while t < CERT[1]:
        dev = w.device()
        emqx(w, t, "WARN",
             f"msg: ssl_handshake_error, listener: 'ssl:default', peername: {w.ip()}:{w.ri(1024, 65535)}, "
             'reason: {tls_alert,{certificate_expired,"TLS server: In state certify received CLIENT ALERT: '
             'Fatal - Certificate Expired"}}', "emqx@emqx-3")
        if w.r() < 0.25:
            slog(w, t + timedelta(seconds=1), "WARN", "thing marked stale: no reported state", thing=dev,
                 children=0, last_report_age=f"{w.ri(300, 2400)}s")
        if w.r() < 0.2:
            log4j(w, t + timedelta(seconds=2), "ERROR", f"rule-exec-{w.ri(1, 16)}",
                  "c.b.rules.engine.ActionExecutor",
                  f"automation a_{w.hexid(4)} action set_state failed for device {dev}: DEVICE_OFFLINE "
                  f"(last seen {w.ri(2, 40)} min ago)")
        if w.r() < 0.12:
            elixir(
                w, t + timedelta(seconds=3), "INFO", "Push.Apns",
                f"sent apns-id={w.hexid(8)}-{w.hexid(4)} topic=au.com.brolga.home category=device_offline",
            )
        rate = min(rate * 1.01, 8.0)
        t += timedelta(seconds=60 / rate * (0.5 + w.r()))
    emqx(w, CERT[1], "INFO", "EMQX 5.8.1 is running now!", "emqx@emqx-3")
    emqx(w, CERT[1] + timedelta(milliseconds=300), "INFO",
         "!msg: listener_started, listener: 'ssl:default', bind: 0.0.0.0:8883, certfile: "
         "/etc/emqx/certs/tls.crt", "emqx@emqx-3")


def pool_acquired(t: datetime, pod: int) -> int:
    """registry's pgx pool: acquired connections of one pod (4.9.0 keeps one per failed claim)."""
    base = 6 + (pod * 3) % 5
    if during(t, LEAK):
        grown = (t - LEAK[0]).total_seconds() / 60 * (2.55 + 0.15 * pod)
        return min(100, int(base + grown))
    return base


def story_leak(w: World) -> None:  # noqa: C901 — cause and symptoms
    """IOT-06 (late symptom): registry 4.9.0 leaks connections; pg-main-1 runs out at 07:14."""
    for k, pod in enumerate(("registry-0", "registry-1", "registry-2")):
        zap(w, at(1, 6, 33 + 2 * k, 10), "INFO", "cmd/registry/main.go:61", "registry starting",
            version="4.9.0", pod=pod, db_max_conns=100, db="pg-main-1.db.brolga.internal:5432/registry")
    for t in every((at(1, 6, 40), at(1, 8, 10)), 300):
        for k in range(3):
            acq = pool_acquired(t, k)
            zap(w, t + timedelta(seconds=k * 2 + w.r()), "INFO", "db/pool.go:77", "db pool stats",
                pod=f"registry-{k}", acquired=acq, idle=0 if acq > 12 else w.ri(2, 5), max=100,
                total=acq + (0 if acq > 12 else 3), wait_count=0 if t < FULL[0] else w.ri(40, 400))
    for t in every((LEAK[0], FULL[0]), 60):
        if w.r() < 0.6:
            zap(w, w.jit(t), "WARN", "claims/handler.go:112", "claim rejected", reason="claim code expired",
                code=f"{w.ri(100000, 999999)}", home_id=w.home())
    who = (("auth@auth", 5), ("shadow@shadow", 3), ("ota@ota", 1), ("registry@registry", 1))
    for tt in w.jittered(FULL, 13, 5):
        user = w.pick([u for u, n in who for _ in range(n)])
        pg(w, tt, "FATAL", "FATAL", "sorry, too many clients already", "pg-main-1", user)
    for tt in w.jittered(FULL, 20, 10):
        pyauth(w, tt, "ERROR", "auth.tokens",
               "token request failed: psycopg.OperationalError: connection failed: connection to server at "
               '"pg-main-1.db.brolga.internal" (10.20.4.21), port 5432 failed: FATAL:  sorry, too many '
               "clients already")
        uvicorn(w, tt + timedelta(milliseconds=4), "POST", "/oauth/token", 500)
        if w.r() < 0.6:
            pino(w, tt + timedelta(milliseconds=9), "ERROR", "upstream error", upstream="auth",
                 route="/v1/oauth/token", err="Request failed with status code 500")
            alb(w, tt + timedelta(milliseconds=10), "POST", "/v1/oauth/token", 500, 0.041)
        if w.r() < 0.2:
            slog(
                w, tt + timedelta(seconds=1), "ERROR", "db write failed", thing=w.device(),
                err="failed to connect to `host=pg-main-1.db.brolga.internal user=shadow database=shadow`: "
                    "server error (FATAL: sorry, too many clients already (SQLSTATE 53300))",
            )
        if w.r() < 0.2:
            zap(w, tt + timedelta(seconds=2), "ERROR", "db/pool.go:102", "acquire conn failed",
                pod=f"registry-{w.ri(0, 2)}", err="context deadline exceeded", waited_ms=5000)
    for k, pod in enumerate(("registry-0", "registry-1", "registry-2")):
        zap(w, at(1, 7, 57 + k, 30), "INFO", "cmd/registry/main.go:61", "registry starting",
            version="4.8.4", pod=pod, db_max_conns=100, db="pg-main-1.db.brolga.internal:5432/registry")


def story_scram(w: World) -> None:
    """IOT-07 (noisy service): SCRAM credentials rotated; emqx's kafka bridge keeps the old password."""
    tracing(w, at(1, 9, 56, 31), "INFO", "ingest::kafka",
            "SASL credentials changed on disk (vault agent), user=ingest; consumer re-created")
    log4j(w, at(1, 9, 56, 44), "INFO", "vault-watch", "c.b.rules.kafka.CredentialWatcher",
          "SASL credentials for user 'rules' changed, re-creating consumer (group rules-engine)")
    hosts = (
        "kafka-1.kafka.brolga.internal:9094", "kafka-2.kafka.brolga.internal:9094",
        "kafka-3.kafka.brolga.internal:9094",
    )
    for tt in w.jittered(SCRAM, 24, 20):
        b = w.ri(1, 3)
        emqx(w, tt, "ERROR",
             f'msg: kafka_producer_connect_failed, bridge: "kafka_producer:device_events",'
             f' host: "{hosts[b - 1]}", '
             'reason: {sasl_auth_error,<<"Authentication failed during authentication due to invalid '
             'credentials with SASL mechanism SCRAM-SHA-512">>}')
        kafka(
            w, tt + timedelta(milliseconds=3), "INFO",
            f"[SocketServer listenerType=BROKER, nodeId={b}]"
            f" Failed authentication with /10.20.1.{w.ri(11, 13)} "
            f"(channelId=10.20.6.{10 + b}:9094-10.20.1.{w.ri(11, 13)}:{w.ri(30000, 60000)}-{w.ri(1, 900)}) "
            "(Authentication failed during authentication due to invalid credentials with SASL mechanism "
            "SCRAM-SHA-512) (org.apache.kafka.common.network.Selector)", b,
        )
    for t in every((SCRAM[0] + timedelta(minutes=2), SCRAM[1]), 120):
        emqx(w, w.jit(t, 60), "WARN",
             f'msg: buffer_overflow_discarded, bridge: "kafka_producer:device_events",'
             f" dropped: {w.ri(900, 4000)}, "
             "max_buffer_bytes: 256MB")
    for t in every((SCRAM[0] + timedelta(minutes=5), SCRAM[1]), 300):
        log4j(w, w.jit(t, 20), "WARN", "event-consumer-1", "c.b.rules.ingest.EventConsumer",
              "no records from device.events for 300s (group rules-engine, 12 partitions assigned, lag 0)")
    emqx(w, SCRAM[1], "INFO",
         '!msg: bridge_updated, bridge: "kafka_producer:device_events", by: "sbrooks", changed: '
         "[authentication]", "emqx@emqx-2")
    emqx(w, SCRAM[1] + timedelta(seconds=2), "INFO",
         'msg: kafka_producer_connected, bridge: "kafka_producer:device_events", partitions: 12')
    log4j(w, SCRAM[1] + timedelta(seconds=9), "INFO", "event-consumer-1", "c.b.rules.ingest.EventConsumer",
          "device.events flowing again: 2188 records in first poll")


def story_fcm(w: World) -> None:
    """IOT-08 (external): FCM answers 503 for every send; the 12:58 push change only touched APNs."""
    elixir(w, at(1, 12, 58, 12), "INFO", "Push.Config", "reloaded: apns.pool_size=8 (was 4)")
    elixir(w, at(1, 12, 58, 13), "INFO", "Push.Apns",
           "connection pool resized to 8 (api.push.apple.com:443)")
    for tt in w.jittered(FCM, 20, 18):
        tok = w.hexid(4)
        cat = w.pick(("door_unlocked", "motion", "automation_ran", "device_offline"))
        elixir(w, tt, "WARN", "Push.Fcm",
               f'send failed status=503 UNAVAILABLE "The service is currently unavailable." '
               f"token=...{tok} retry 1/3 in 2s")
        if w.r() < 0.7:
            elixir(w, tt + timedelta(seconds=6.5), "ERROR", "Push.Fcm",
                   f"giving up after 3 attempts: 503 UNAVAILABLE category={cat} token=...{tok}")


def story_kid(w: World) -> None:  # noqa: C901 — a platform-wide story
    """IOT-09 (system-wide): the weekly key rotation dropped the retired key from JWKS at once."""
    pyauth(w, at(0, 15, 20, 41), "INFO", "auth.config",
           "reloaded signing.retired_key_ttl=0h (was 168h) from configmap auth-config")
    pyauth(
        w, at(1, 16, 0, 40), "INFO", "auth.keys",
        f"signing key rotated: active kid={NEW_KID}; retired kid={OLD_KID} dropped (retired_key_ttl=0h); "
        "jwks keys=1",
    )
    for tt in w.jittered((at(1, 16, 1, 15), KID[1]), 9, 8):
        route = w.pick(
            (
                "/v1/homes/:homeId/devices", "/v1/homes/:homeId/summary", "/v1/things/:id/desired",
                "/v1/automations",
            )
        )
        pino(w, tt, "WARN", "jwt verification failed", route=route, sub=w.user(),
             err=f"no key in JWKS for kid {OLD_KID}")
        if w.r() < 0.5:
            alb(w, tt + timedelta(milliseconds=2), "GET", f"/v1/homes/{w.home()}/devices", 401, 0.002)
    for tt in w.jittered((at(1, 16, 1, 30), KID[1]), 18, 16):
        pyauth(w, tt, "WARN", "auth.tokens",
               f"refresh rejected: invalid_grant (refresh token signed with unknown kid {OLD_KID})"
               f" sub={w.user()}")
        uvicorn(w, tt + timedelta(milliseconds=3), "POST", "/oauth/token", 400)
    for tt in w.jittered((at(1, 16, 4), KID[1]), 17, 15):
        if w.r() < 0.6:
            pyauth(w, tt, "ERROR", "auth.login",
                   "password check queue full (bcrypt workers busy: 32/32, queued 480), rejecting with 503")
            uvicorn(w, tt + timedelta(milliseconds=2), "POST", "/oauth/token", 503)
            alb(w, tt + timedelta(milliseconds=4), "POST", "/v1/oauth/token", 503, 0.012)
        else:
            pyauth(w, tt, "INFO", "auth.tokens",
                   f"issued access token sub={w.user()} client={w.pick(('brolga-ios', 'brolga-android'))} "
                   f"grant=password kid={NEW_KID} exp_in=900")
    for t in every((at(1, 16, 2), KID[1]), 13):
        dev = w.device()
        emqx(w, w.jit(t, 12), "WARN",
             f"clientid: {dev}, msg: authentication_failure, peername: {w.ip()}:{w.ri(1024, 65535)}, "
             f"reason: not_authorized, authenticator: jwt, detail: kid_not_found ({OLD_KID})")
    for tt in w.jittered((at(1, 16, 3), KID[1]), 25, 22):
        log4j(w, tt, "ERROR", f"rule-exec-{w.ri(1, 16)}", "c.b.rules.engine.ActionExecutor",
              f"automation a_{w.hexid(4)} action set_state failed for device {w.device()}: shadow returned "
              f"UNAUTHENTICATED (invalid service token: unknown kid {OLD_KID})")
        slog(w, tt - timedelta(milliseconds=5), "WARN", "request rejected", status=401, caller="rules",
             reason=f"unknown kid {OLD_KID}")
    pyauth(w, KID[1], "INFO", "auth.keys",
           f"re-published retired key kid={OLD_KID} (manual, by jtran); jwks keys=2")
    pino(w, KID[1] + timedelta(seconds=40), "INFO", "jwks refreshed", keys=2, kids=[NEW_KID, OLD_KID])


def story_poison(w: World) -> None:
    """IOT-10: one thermostat sends microsecond timestamps; ingest retries its batch forever."""
    t0 = POISON[0]
    for tt in w.jittered(POISON, 60, 3):
        us = int(tt.timestamp() * 1_000_000)
        tracing(w, tt, "WARN", "ingest::decode",
                f"sample ts 56.9M years in the future, kept (clock_skew_policy=keep) device={BAD_THERMO} "
                f"metric=temp_c ts={us}")
    bad = f"{t0.timestamp() * 1_000_000:.6g}"  # the first poisoned sample, as postgres prints a float8
    attempt = 0
    for t in every((t0 + timedelta(seconds=8), POISON[1]), 16):
        attempt += 1
        tt = w.jit(t, 2)
        tracing(w, tt, "ERROR", "ingest::writer",
                "batch insert failed partition=7 offsets=88123401..88128400 rows=5000 "
                f'attempt={attempt}: db error: ERROR: timestamp out of range: "{bad}"; retrying in 10s')
        pg(w, tt - timedelta(milliseconds=30), "ERROR", "ERROR", f'timestamp out of range: "{bad}"',
           "pg-ts-1", "ingest@telemetry")
        if attempt % 10 == 1:
            pg(w, tt - timedelta(milliseconds=29), "ERROR", "STATEMENT",
               "INSERT INTO readings (device_id, metric, ts, value) SELECT d, m, to_timestamp(t), v FROM "
               "unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) AS u(d, m, t, v)", "pg-ts-1",
               "ingest@telemetry")
    for t in every((t0 + timedelta(minutes=5), POISON[1]), 300):
        tracing(w, w.jit(t, 30), "WARN", "ingest::kafka",
                f"consumer lag partition=7 lag={int((t - t0).total_seconds() * 41)} (others < 2000)")
    tracing(w, POISON[1], "INFO", "ingest::admin",
            "partition 7 offset reset to 88128401 by sre-lkim (skipped 5000 rows)")
    zap(w, POISON[1] + timedelta(minutes=2), "INFO", "admin/quarantine.go:33", "device quarantined",
        device_id=BAD_THERMO, by="sre-lkim", reason="telemetry ts in microseconds")


def story_fanout(w: World) -> None:
    """IOT-11: flag home_summary_v2 at 100%: api fans out one registry call per device."""
    for tt in w.jittered(FANOUT, 12, 10):
        calls = w.ri(18, 64)
        x = w.r()
        if x < 0.35:
            pino(w, tt, "INFO", "home summary built", variant="home_summary_v2", registry_calls=calls,
                 ms=w.ri(2400, 7800))
        elif x < 0.75:
            pino(w, tt, "ERROR", "upstream error", upstream="registry", route="/v1/homes/:homeId/summary",
                 variant="home_summary_v2", err="Request failed with status code 503")
            alb(w, tt + timedelta(milliseconds=3), "GET", f"/v1/homes/{w.home()}/summary", 503, 0.9)
        else:
            pino(w, tt, "ERROR", "upstream error", upstream="registry", route="/v1/homes/:homeId/summary",
                 variant="home_summary_v2", err="timeout of 8000ms exceeded")
            alb(w, tt + timedelta(milliseconds=3), "GET", f"/v1/homes/{w.home()}/summary", 504, 8.003)
        if w.r() < 0.6:
            zap(w, tt - timedelta(milliseconds=200), "WARN", "http/limit.go:29", "shedding load",
                inflight=256, limit=256, path=f"/v1/devices/{w.device()}", status=503)
    # a few v2 summaries since the 10% rollout the day before
    for t in every((at(1, 9, 0), FANOUT[0]), 1800):
        pino(w, w.jit(t, 600), "INFO", "home summary built", variant="home_summary_v2",
             registry_calls=w.ri(18, 64), ms=w.ri(180, 420))


def story_failover(w: World) -> None:
    """IOT-12: sentinel failed over brolga-main; auth still writes to redis-main-1, now a replica."""
    s = FAILOVER[0]
    m1, m2 = "10.20.4.31 6379", "10.20.4.32 6379"
    sent = (
        (0.0, "#", f"+sdown master brolga-main {m1}"),
        (0.3, "#", f"+odown master brolga-main {m1} #quorum 2/2"), (0.4, "#", "+new-epoch 7"),
        (0.4, "#", f"+try-failover master brolga-main {m1}"),
        (0.6, "#", "+vote-for-leader 6b1c0e8d2f41a9c73e5d08b6f2a4c9e1d7b30f58 7"),
        (0.7, "#", f"+elected-leader master brolga-main {m1}"),
        (0.7, "#", f"+failover-state-select-slave master brolga-main {m1}"),
        (0.8, "#", f"+selected-slave slave 10.20.4.32:6379 {m2} @ brolga-main {m1}"),
        (0.9, "*", f"+failover-state-send-slaveof-noone slave 10.20.4.32:6379 {m2} @ brolga-main {m1}"),
        (1.9, "*", f"+failover-state-reconf-slaves master brolga-main {m1}"),
        (2.9, "#", f"+failover-end master brolga-main {m1}"),
        (2.9, "#", f"+switch-master brolga-main {m1} {m2}"),
        (9.4, "*", f"+convert-to-slave slave 10.20.4.31:6379 {m1} @ brolga-main {m2}"),
    )
    for dt, mark, msg in sent:
        rds(w, s + timedelta(seconds=dt), "WARN" if mark == "#" else "INFO", mark, msg, "sentinel-1", "X")
    rds(w, s + timedelta(seconds=1.0), "INFO", "*",
        "MASTER MODE enabled (user request from 'id=4117 addr=10.20.4.51:40022 laddr=10.20.4.32:6379 fd=12 "
        "name=sentinel-6b1c0e8d-cmd cmd=slaveof')", "redis-main-2")
    rds(w, s + timedelta(seconds=9.6), "INFO", "*",
        "Before turning into a replica, using my own master parameters to synthesize a cached master",
        "redis-main-1", "S")
    rds(w, s + timedelta(seconds=9.7), "INFO", "*", "Connecting to MASTER 10.20.4.32:6379", "redis-main-1",
        "S")
    rds(w, s + timedelta(seconds=9.9), "INFO", "*", "Successful partial resynchronization with master.",
        "redis-main-1", "S")
    elixir(w, s + timedelta(seconds=4), "INFO", "Push.RateLimit",
           "sentinel: master for brolga-main switched to 10.20.4.32:6379, reconnected")
    for tt in w.jittered((s + timedelta(seconds=12), FAILOVER[1]), 16, 14):
        if w.r() < 0.65:
            pyauth(w, tt, "ERROR", "auth.sessions",
                   f"refresh token rotation failed sub={w.user()}: redis.exceptions.ReadOnlyError: "
                   "You can't write against a read only replica.")
            uvicorn(w, tt + timedelta(milliseconds=3), "POST", "/oauth/token", 500)
            pyauth(w, tt + timedelta(milliseconds=4), "WARN", "auth.sessions",
                   "session revoked after failed rotation, client must sign in again")
        else:
            pyauth(w, tt, "ERROR", "auth.login",
                   f"login failed sub={w.user()}: could not store session: redis.exceptions.ReadOnlyError: "
                   "You can't write against a read only replica.")
            uvicorn(w, tt + timedelta(milliseconds=3), "POST", "/oauth/token", 500)
        if w.r() < 0.5:
            alb(w, tt + timedelta(milliseconds=6), "POST", "/v1/oauth/token", 500, 0.018)
    pyauth(w, FAILOVER[1], "INFO", "auth.app",
           "starting auth 6.3.0 (redis via sentinel brolga-main @ redis-sentinel.data.svc:26379)")


# ---- change tables ---------------------------------------------------------------------------

# id, service, version, start (AEST), minutes, author, description, status
DEPLOYS = engine.table(at, "ssstisss", """
DEP-4398 | rules | 7.14.0 | -1 14:10 | 6 | okoh | sunrise/sunset offsets per home | Succeeded
DEP-4405 | registry | 4.8.4 | 0 07:28 | 6 | mpatel | claim flow metrics | Succeeded
DEP-4407 | api | 12.3.0 | 0 11:02 | 6 | rgupta | rooms reorder endpoint | Succeeded
DEP-4409 | auth | 6.2.4 | 0 13:40 | 5 | jtran | login rate limit per IP | Succeeded
DEP-4411 | ota | 1.18.0 | 0 17:30 | 4 | jwalsh | campaign health gate (opt-in) | Succeeded
DEP-4417 | registry | 4.9.0 | 1 06:31 | 7 | mpatel | claim codes: retry-safe claim flow | Succeeded
DEP-4419 | registry | 4.8.4 | 1 07:56 | 5 | oncall-akhan | rollback of 4.9.0 | Succeeded
DEP-4421 | shadow | 3.1.4 | 1 11:30 | 6 | sbrooks | grpc keepalive tuning | Succeeded
DEP-4423 | ota | 1.18.1 | 1 15:45 | 4 | jwalsh | delta images for TH-1 | Succeeded
DEP-4425 | ingest | 0.22.0 | 1 20:10 | 5 | lkim | batch size from config | Succeeded
DEP-4427 | registry | 4.9.1 | 2 11:50 | 7 | mpatel | claim flow: release conn on error path | Succeeded
DEP-4429 | push | 3.1.2 | 2 12:20 | 4 | okoh | rich notifications (images) for iOS | Succeeded
DEP-4431 | auth | 6.3.0 | 2 15:48 | 5 | jtran | passkey enrolment endpoints | Succeeded
""")

# id, component, key, old, new, applied (AEST), by, ticket
CONFIG = engine.table(at, "ssssstss", """
CFG-5503 | rules | weather.cache_ttl_s | 600 | 900 | 0 06:40 | okoh | HOME-1882
CFG-5512 | emqx | mqtt.max_packet_size | 1MB | 64KB | 0 11:12:05 | dnguyen | SEC-214 (pen-test: oversized
    payloads)
CFG-5513 | emqx | mqtt.max_packet_size | 64KB | 1MB | 0 12:04:10 | dnguyen | SEC-214 revert
CFG-5509 | auth | signing.retired_key_ttl | 168h | 0h | 0 15:20:41 | jtran | SEC-219 (shorter token lifetimes)
CFG-5515 | ingest | batch.max_rows | 4000 | 5000 | 0 16:30 | lkim | DATA-412
CFG-5518 | shadow | redis.pool_size | 64 | 96 | 0 14:22:30 | oncall-akhan | INC-3301
CFG-5524 | rules | executor.threads | 16 | 24 | 1 09:40 | okoh | HOME-1890
CFG-5526 | push | apns.pool_size | 4 | 8 | 1 12:58:12 | okoh | HOME-1893
CFG-5529 | emqx | force_shutdown.max_mailbox_size | 1000 | 2000 | 1 20:30 | dnguyen | PLAT-702
CFG-5531 | ota | campaign.default_stages | 1,10,25,50,100 | 1,5,25,50,100 | 2 12:35 | jwalsh | HOME-1901
CFG-5533 | auth | redis.url | redis://redis-main-1:6379/0 |
    redis+sentinel://redis-sentinel.data.svc:26379/brolga-main | 2 16:42 | jtran | INC-3317
""")

# service, rank, version, description, installed (AEST), ms
MIGRATIONS = engine.table(at, "sissti", """
registry | 56 | 56 | index devices home id model | -6 10:02:11 | 41812
ota | 19 | 19 | campaign health gate | 0 17:29:40 | 212
registry | 57 | 57 | claim attempts table | 1 06:30:22 | 388
shadow | 12 | 12 | thing history ttl column | 1 11:29:05 | 96
auth | 33 | 33 | passkeys table | 2 15:47:31 | 154
""")

# when (AEST), flag, service, action, previous, current, by
FLAGS = engine.table(at, "tssssss", """
-4 10:15 | shadow_history_v1 | shadow | updateOn | off | on | sbrooks
0 09:30 | rules_weather_v2 | rules | updateOn | off | on | okoh
0 14:47:10 | shadow_history_v1 | shadow | updateOn | on | off | oncall-akhan
1 09:00 | home_summary_v2 | api | updateFallthrough | 0% | 10% | mpatel
1 12:40 | push_rich_notifications | push | updateFallthrough | 10% | 50% | okoh
2 08:20 | ota_delta_updates | ota | updateRules | off | on for TH-1 | jwalsh
2 12:31 | home_summary_v2 | api | updateFallthrough | 10% | 100% | mpatel
2 13:22 | home_summary_v2 | api | updateFallthrough | 100% | 0% | oncall-rgupta
""")

# name, namespace, secret, dns names, not before, not after, renewed
CERTS = engine.table(None, "ssssssss", """
mqtt-brolga-io | emqx | mqtt-brolga-io-tls | mqtt.brolga.io | 2026-11-14T07:10:12Z | 2027-02-12T07:10:11Z |
    2026-11-14T07:10:12Z | True
emqx-dashboard | emqx | emqx-dashboard-tls | emqx.ops.brolga.internal | 2026-10-30T01:00:05Z |
    2027-01-28T01:00:04Z | 2026-10-30T01:00:05Z | True
ota-downloads | ota | ota-downloads-tls | fw.brolga.io | 2026-11-25T22:41:09Z | 2027-02-23T22:41:08Z |
    2026-11-25T22:41:09Z | True
auth-internal | core | auth-internal-tls | auth.core.svc;auth.brolga.internal | 2026-12-01T03:12:40Z |
    2027-03-01T03:12:39Z | 2026-12-01T03:12:40Z | True
""")

DEPENDENCIES = engine.table(None, "sssss", """
edge | api | https->http | api.core.svc:8080 | ALB target group api-prod (mobile app traffic)
api | auth | http | auth.core.svc:8000 | token endpoint proxy; JWKS fetched every 30 min
api | registry | http | registry.core.svc:8080 | homes, devices, claims
api | shadow | grpc | shadow.core.svc:9090 | device state (get, set desired), deadline 3s
api | rules | http | rules.core.svc:8080 | automations CRUD
api | ota | http | ota.core.svc:8080 | firmware status
emqx | auth | https | auth.core.svc:8000/.well-known/jwks.json | JWT authentication of devices
emqx | kafka | kafka | kafka-{1,2,3}.kafka.brolga.internal:9094 | bridge kafka_producer:device_events ->
    device.events (SASL SCRAM-SHA-512 user emqx-bridge)
emqx | kafka | kafka | kafka-{1,2,3}.kafka.brolga.internal:9094 | bridge kafka_producer:telemetry ->
    telemetry.raw (SASL SCRAM-SHA-512 user emqx-telemetry)
emqx | shadow | http | shadow.core.svc:8081/hooks/state | webhook shadow_sync ($shadow topics)
shadow | redis | redis | redis-shadow-1:6379 | thing cache, history lists
shadow | postgres | postgres | pg-main-1:5432/shadow | thing documents
shadow | emqx | http | emqx-api.emqx.svc:18083/api/v5/publish | deltas and commands to devices
registry | postgres | postgres | pg-main-1:5432/registry | pgx pool, max 100 per pod, 3 pods
auth | postgres | postgres | pg-main-1:5432/auth | users, clients
auth | redis | redis | redis-main-1:6379 | sessions, refresh tokens (direct connection)
ota | postgres | postgres | pg-main-1:5432/ota | campaigns
ota | registry | http | registry.core.svc:8080 | campaign targets
ota | emqx | http | emqx-api.emqx.svc:18083/api/v5/publish | OTA jobs to d/+/ota/job
ota | cloudfront | https | d2x9brolga.cloudfront.net | firmware images from s3://brolga-firmware (external)
rules | kafka | kafka | kafka-{1,2,3}.kafka.brolga.internal:9094 | consumer group rules-engine on
    device.events
rules | shadow | grpc | shadow.core.svc:9090 | set desired state (service token)
rules | push | http | push.core.svc:4000 | notifications
rules | openweather | https | api.openweathermap.org:443 | weather triggers (external)
push | apns | http2 | api.push.apple.com:443 | iOS notifications (external)
push | fcm | https | fcm.googleapis.com:443 | Android notifications, HTTP v1 API (external)
push | redis | redis | redis-sentinel.data.svc:26379 (brolga-main) | rate limits, token cache
push | postgres | postgres | pg-main-1:5432/push | device tokens
ingest | kafka | kafka | kafka-{1,2,3}.kafka.brolga.internal:9094 | consumer group ingest on telemetry.raw
ingest | postgres | postgres | pg-ts-1:5432/telemetry | TimescaleDB hypertable readings
redis | redis | sentinel | redis-main-1, redis-main-2 | master brolga-main, quorum 2
""")


def deploy_line(w: World, service: str, version: str, t: datetime) -> None:
    if service == "rules":
        log4j(w, t, "INFO", "main", "c.b.rules.RulesApplication",
              f"Started RulesApplication v{version} in 21.4 seconds")
    elif service == "api":
        pino(w, t, "INFO", "server listening", version=version, port=8080)
    elif service == "auth":
        pyauth(w, t, "INFO", "auth.app", f"starting auth {version} (redis redis://redis-main-1:6379/0)")
    elif service == "ota":
        golog(w, t, "INFO", f"ota {version} listening on :8080")
    elif service == "shadow":
        slog(w, t, "INFO", "shadow started", version=version, grpc=":9090", webhook=":8081")
    elif service == "ingest":
        tracing(
            w, t, "INFO", "ingest", f"ingest {version} started, 12 partitions assigned, batch.max_rows=5000"
        )
    elif service == "push":
        elixir(w, t, "INFO", "Push.Application", f"push {version} started (apns pool 8, fcm pool 4)")
    elif service == "registry":
        for k in range(3):
            zap(w, t - timedelta(minutes=2 - k, seconds=-w.ri(0, 30)), "INFO", "cmd/registry/main.go:61",
                "registry starting", version=version, pod=f"registry-{k}", db_max_conns=100,
                db="pg-main-1.db.brolga.internal:5432/registry")


def change_tables(w: World) -> None:
    rows = []
    for d, s, v, t, m, a, desc, st in DEPLOYS:
        rows.append([d, s, v, zt(t), zt(t + timedelta(minutes=m)), st, a, desc])
        if d not in ("DEP-4417", "DEP-4419"):  # registry's 4.9.0 and its rollback: story_leak
            deploy_line(w, s, v, t + timedelta(minutes=m))
    w.table("deploys", engine.columns("DEPLOYS_TRIGGERED"), rows)
    w.table("config_changes", engine.columns("CONFIG_COMPONENT"),
            [[c, s, k, o, n, t.isoformat(), a, tk]
             for c, s, k, o, n, t, a, tk in sorted(CONFIG, key=lambda r: r[5])])
    w.table("schema_migrations",
            ["service", "installed_rank", "version", "description", "type", "script", "installed_by",
             "installed_on", "execution_time", "success"],
            [[s, r, v, d, "SQL", f"V{v}__{d.replace(' ', '_')}.sql", f"{s}_migrator",
              t.strftime("%Y-%m-%d %H:%M:%S.") + f"{w.ri(100, 999)}", ms, "true"]
             for s, r, v, d, t, ms in MIGRATIONS])
    w.table("feature_flags",
            ["date", "flag_key", "service", "environment", "action", "previous", "current", "member"],
            [[int(t.timestamp() * 1000), f, s, "production", a, p, c, m] for t, f, s, a, p, c, m in FLAGS])
    w.table(
        "certificates",
        ["name", "namespace", "secret_name", "dns_names", "not_before", "not_after", "renewed_at", "ready"],
        CERTS,
    )
    w.table("dependencies", ["caller", "callee", "protocol", "endpoint", "notes"], DEPENDENCIES)
    for c, s, k, o, n, t, _a, _tk in CONFIG:
        if s == "rules":
            log4j(w, t + timedelta(seconds=20), "INFO", "config-watch", "c.b.rules.config.ConfigWatcher",
                  f"reloaded {k}={n} (was {o})")
        elif s == "ingest":
            tracing(w, t + timedelta(seconds=15), "INFO", "ingest::config", f"reloaded {k}={n} (was {o})")
        elif s == "ota":
            golog(w, t + timedelta(seconds=12), "INFO", f"config reloaded: {k}={n} (was {o})")
        elif s == "emqx" and c == "CFG-5529":
            emqx(w, t, "INFO",
                 f'!msg: cluster_config_changed, path: "{k}", old: {o}, new: {n}, by: "dnguyen", '
                 'via: "PUT /api/v5/configs/global_zone"', "emqx@emqx-1")
        elif c == "CFG-5533":
            pyauth(w, t + timedelta(seconds=30), "INFO", "auth.config", f"reloaded redis.url={n}")


# ---- metrics ---------------------------------------------------------------------------------

GIB = 1024**3
HOSTS = ("emqx-1", "emqx-2", "emqx-3", "kafka-1", "pg-main-1", "pg-ts-1", "redis-shadow-1", "redis-main-1")
CPU = {"emqx-1": 0.34, "emqx-2": 0.33, "emqx-3": 0.35, "kafka-1": 0.28, "kafka-2": 0.27, "kafka-3": 0.29,
       "pg-main-1": 0.31, "pg-ts-1": 0.44, "redis-shadow-1": 0.12, "redis-main-1": 0.09}
OLD_CERT_EXPIRY = int(datetime(2026, 12, 14, 8, 0, tzinfo=UTC).timestamp())
NEW_CERT_EXPIRY = int(datetime(2027, 2, 12, 7, 10, 11, tzinfo=UTC).timestamp())
SERIES = (
    [(f"{h}:9100", "node", "instance:node_cpu_utilisation:rate5m") for h in HOSTS]
    + [(f"{h}:9100", "node", n)
       for n in ("node_memory_MemAvailable_bytes", "node_memory_SwapFree_bytes")
       for h in ("pg-main-1", "redis-shadow-1", "redis-main-1")]
    + [(f"{h}:9100", "node", "node_filesystem_avail_bytes") for h in ("kafka-1", "pg-ts-1")]
    + [(f"{h}:9121", "redis", "redis_memory_used_bytes") for h in ("redis-shadow-1", "redis-main-1")]
    + [("pg-main-1:9187", "postgres", "pg_stat_activity_count")]
    + [("pg-main-1:9187", "postgres", "pg_settings_max_connections")]
    + [(f"emqx-{k}:18083", "emqx", "emqx_live_connections_count") for k in (1, 2, 3)]
    + [(f"emqx-{k}:8883", "blackbox-mqtt", n)
       for n in ("probe_success", "probe_ssl_earliest_cert_expiry")
       for k in (1, 2, 3)]
    + [("ingest-0:9102", "ingest", "kafka_consumer_records_lag_max"),
       ("rules-0:9102", "rules", "kafka_consumer_records_lag_max")]
    + [(f"registry-{k}:9090", "registry", "pgxpool_acquired_conns") for k in (0, 1, 2)]
)


def shadow_redis_bytes(t: datetime) -> float:
    """redis-shadow-1's used memory: history lists without TTL grow until they are purged at 14:50."""
    start, peak = 12.1 * GIB, 15.05 * GIB
    if t < SWAP[0]:
        frac = (t - DAY0).total_seconds() / (SWAP[0] - DAY0).total_seconds()
        return start + (peak - start) * frac
    if t < SWAP[1]:
        return peak + 0.25 * GIB * (t - SWAP[0]).total_seconds() / (SWAP[1] - SWAP[0]).total_seconds()
    return 6.2 * GIB + 0.004 * GIB * (t - SWAP[1]).total_seconds() / 3600


def emqx_conns(w: World, t: datetime, k: int) -> int:
    base = (41_200, 40_650, 41_050)[k - 1] * (0.97 + 0.03 * dev_load(t)) + w.ri(-150, 150)
    if k == 3 and during(t, CERT):
        base *= 1 - 0.34 * (t - CERT[0]).total_seconds() / (CERT[1] - CERT[0]).total_seconds()
    if k == 3 and CERT[1] <= t < CERT[1] + timedelta(minutes=15):
        base *= 0.8 + 0.2 * (t - CERT[1]).total_seconds() / 900
    if during(t, KID):
        base *= 0.985
    return int(base)


def prom_value(w: World, t: datetime, inst: str, name: str) -> float | int | None:  # noqa: C901
    host = inst.split(":")[0]
    f = app_load(t)
    if name == "instance:node_cpu_utilisation:rate5m":
        v = CPU[host] * (0.75 + 0.35 * f) * (0.9 + 0.2 * w.r())
        if host == "redis-shadow-1" and during(t, SWAP):
            v = 0.58 + 0.2 * w.r()  # kswapd and major faults
        if host == "pg-ts-1" and 3 <= t.hour < 4:
            v += 0.3
        if host == "pg-main-1" and during(t, FULL):
            v += 0.15
        return round(v, 4)
    if name == "node_memory_MemAvailable_bytes":
        if host == "redis-shadow-1":
            return int(max(16 * GIB - 0.7 * GIB - shadow_redis_bytes(t), 0.21 * GIB) + w.ri(0, 40_000_000))
        return int({"pg-main-1": 21.4, "redis-main-1": 5.3}[host] * GIB + w.ri(-90_000_000, 90_000_000))
    if name == "node_memory_SwapFree_bytes":
        if host == "redis-shadow-1":
            if during(t, SWAP):
                return int(
                    4 * GIB - 2.9 * GIB * min(1.0, (t - SWAP[0]).total_seconds() / 1500) - w.ri(0,
                                                                                                60_000_000)
                )
            if SWAP[1] <= t < SWAP[1] + timedelta(hours=6):
                return int(1.1 * GIB + 2.9 * GIB * (t - SWAP[1]).total_seconds() / 21600)
        return int(4 * GIB - (0 if host != "pg-main-1" else 12_582_912))
    if name == "node_filesystem_avail_bytes":
        if host == "pg-ts-1":
            hours = (t - DAY0).total_seconds() / 3600
            freed = sum(1 for day in range(3) if t >= at(day, 3, 35)) * 96 * GIB
            return int(1210 * GIB - 1.7 * GIB * hours + freed)
        return int((812 + 6 * (int(host[-1]) - 2)) * GIB
                   + 30 * GIB * ((t.minute + 60 * t.hour) % 240) / 240
                   - w.ri(0, GIB))
    if name == "redis_memory_used_bytes":
        if host == "redis-shadow-1":
            return int(shadow_redis_bytes(t) + w.ri(0, 20_000_000))
        return int(2.31 * GIB + w.ri(0, 60_000_000))
    if name == "pg_stat_activity_count":
        if host == "pg-ts-1":
            return 38 + w.ri(0, 6)
        base = 118 + int(28 * f) + w.ri(0, 8)
        if during(t, LEAK):
            base = min(297, base + sum(pool_acquired(t, k) - pool_acquired(DAY0, k) for k in range(3)))
        return base
    if name == "pg_settings_max_connections":
        return 300
    if name == "emqx_live_connections_count":
        return emqx_conns(w, t, int(host[-1]))
    if name == "probe_success":
        return 0 if host == "emqx-3" and during(t, CERT) else 1
    if name == "probe_ssl_earliest_cert_expiry":  # absent while the probe's handshake fails
        if host == "emqx-3" and during(t, CERT):
            return None
        return OLD_CERT_EXPIRY if host == "emqx-3" and t < CERT[1] else NEW_CERT_EXPIRY
    if name == "kafka_consumer_records_lag_max":
        if host == "ingest-0" and during(t, POISON):
            return int((t - POISON[0]).total_seconds() * 41)
        return w.ri(0, 1800) if host == "ingest-0" else w.ri(0, 120)
    if name == "pgxpool_acquired_conns":
        return pool_acquired(t, int(host[-1]))
    raise ValueError(name)


STATS = {  # req/s, 4xx/s, 5xx/s, p99 ms
    "edge": (410, 6.0, 0.3, 380), "api": (395, 5.5, 0.25, 340), "auth": (52, 1.2, 0.02, 210),
    "registry": (160, 0.6, 0.02, 45), "shadow": (880, 0.1, 0.15, 38), "rules": (240, 0.0, 1.6, 120),
    "ota": (34, 0.3, 0.02, 160), "push": (21, 0.4, 0.05, 430),
}


# every story's footprint in the service stats: worlds_data/iot/spells.txt
SPELLS = engine.spell_table(NAME, at, globals())


def stats_row(w: World, t: datetime, svc: str) -> list:
    f = app_load(t)
    rps, c4, c5, p99 = STATS[svc]
    scale = f if svc in ("edge", "api", "auth", "registry") else (0.5 + 0.5 * f)
    rps *= scale * (0.92 + 0.16 * w.r())
    c4 *= scale * (0.6 + 0.8 * w.r())
    c5 *= 0.5 + w.r()
    p99 *= 0.9 + 0.25 * w.r()
    row = {"rps": rps, "c4": c4, "c5": c5, "p99": p99}
    engine.spells(w.r, t, svc, row, SPELLS)
    rps, c4, c5, p99 = row["rps"], row["c4"], row["c5"], row["p99"]
    # two rises on top of the minute's own errors (no story overlaps another)
    if svc in ("api", "edge") and during(t, SWAP):
        p99, c5 = 3000 + 40 * w.r(), c5 + 5 + 2 * w.r()
    if svc == "auth" and during(t, KID):
        c4, c5, p99, rps = c4 + 12 + 4 * w.r(), 3 + 2 * w.r(), 4200 + 900 * w.r(), rps * 2.6
    return [t.strftime("%Y-%m-%d %H:%M:%S"), svc, round(rps, 1), round(c4, 2), round(c5, 2), round(p99, 1)]


def metrics(w: World) -> None:
    prow, srow = [], []
    t = DAY0
    while t < END:
        stamp = int(t.timestamp())
        for inst, job, name in SERIES:
            value = prom_value(w, t, inst, name)
            if value is not None:
                prow.append([stamp, inst, job, name, value])
        for svc in STATS:
            srow.append(stats_row(w, t, svc))
        t += timedelta(minutes=5)
    w.table("prometheus_export", ["timestamp", "instance", "job", "__name__", "value"], prow)
    w.table(
        "service_stats", ["Time", "service", "req_per_s", "http_4xx_per_s", "http_5xx_per_s",
                          "p99_ms"], srow
    )


# ---- runbooks --------------------------------------------------------------------------------

DOCS = {
    "known-noise": """# Known noise on Brolga Home

What shows up in the logs every hour and is not an incident by itself.

## rules: DEVICE_OFFLINE

The automations engine logs an ERROR ("action set_state failed ... DEVICE_OFFLINE") every time an
automation targets a device that is unplugged or off Wi-Fi. Customers leave automations pointing at
dead bulbs for months; 20 to 60 of these an hour is normal, day and night. The error-rate alert
on rules is known to page on them (HOME-1650). Only act if fired automations stop, not on errors.

## emqx: keepalive_timeout, session_takenover, device_decommissioned

Home Wi-Fi drops devices all the time; emqx logs a warning per keepalive timeout, and a takeover
when a device reconnects before its old session expired. Devices that were removed from a home keep
trying with their old token and fail authentication (detail device_decommissioned).

## The rest

- ingest drops out-of-order samples and keeps samples from devices with slightly wrong clocks.
- push removes tokens APNs (410 Unregistered) or FCM (404 UNREGISTERED) report as gone.
- auth rejects expired refresh tokens (invalid_grant); api logs expired access tokens.
- registry rejects expired claim codes; postgres logs a duplicate key on push_tokens now and then.
- rules gets 429 from openweather for a handful of postcodes every half hour and serves the cache.
""",
    "emqx-operations": """# EMQX cluster (mqtt.brolga.io)

Three nodes, emqx-1..3, in namespace emqx, behind an AWS NLB on 8883 (TLS) with source-IP
stickiness, so the devices of one home keep landing on the same node. Dashboard:
https://emqx.ops.brolga.internal (SSO, group platform-oncall).

## Health

- `emqx ctl cluster status` on any node: all three must be running.
- Connections per node: `emqx_live_connections_count` in Prometheus; a node far below the others
  is losing devices.
- Listener certificates come from cert-manager (certificate mqtt-brolga-io, secret
  mqtt-brolga-io-tls) mounted at /etc/emqx/certs.

## Kafka bridges

Two producer bridges, `kafka_producer:telemetry` (telemetry.raw) and
`kafka_producer:device_events` (device.events, which the rules engine consumes). They authenticate
with SASL SCRAM-SHA-512 users (emqx-telemetry, emqx-bridge). `emqx ctl bridges list` shows each
bridge's status; a disconnected bridge buffers up to 256 MB in memory, then discards the oldest
messages (buffer_overflow_discarded). Bridge settings are edited in the dashboard
(Integration > Data Bridge) and applied cluster-wide.

## Config changes

Cluster config is changed with `PUT /api/v5/configs/...` (audited as cluster_config_changed in the
log) and takes effect on every node at once, without a restart. Record every change in the
config_changes sheet with its ticket.
""",
    "push-providers": """# Push notifications (APNs and FCM)

push sends iOS notifications through Apple's APNs (HTTP/2, api.push.apple.com, token auth) and
Android notifications through Google's FCM HTTP v1 API (fcm.googleapis.com, service account
brolga-prod). Each send is retried 3 times with back-off; failed notifications are not queued for
later.

## When notifications stop

1. Which platform? Compare `[Push.Apns] sent` and `[Push.Fcm] sent` lines.
2. Look at the status codes push logs for the failing provider: 401/403 are ours (credentials,
   service account key); 429 is our quota; 500/503 are the provider's side.
3. Check https://developer.apple.com/system-status/ or https://status.firebase.google.com.

There is no fallback provider. During a provider outage post on the status page ("notifications on
Android may be delayed") and wait; do not restart push, it would drop the in-flight APNs streams too.
""",
    "devices-offline-isp": """# Many devices offline at once

When thousands of devices drop offline in the same few minutes, it is nearly always the customers'
internet, not us: an NBN or ISP outage in an area (Telstra, Optus, Aussie Broadband), or a storm
taking out power in a suburb.

## What to do

- Check https://www.nbnco.com.au/support/network-status and Downdetector for the big ISPs.
- Look at where the offline homes are (registry: homes.postcode) — an ISP outage clusters by
  region.
- There is nothing to fix on our side. Post on the status page ("devices in <area> may show as
  offline"), tell support, and wait for the devices to reconnect; they retry on their own with
  back-off for up to 24 hours.
""",
    "postgres-main": """# pg-main-1 (PostgreSQL 15, the OLTP database)

Holds the databases of registry, auth, shadow, ota and push. max_connections = 300 (a few reserved
for superusers); every service connects directly with its own pool (no pgbouncer yet).

## "sorry, too many clients already"

Every new connection is refused while the slots are taken, so every service with a pool that needs
a fresh connection starts failing, not only the one that took them. Find who holds the slots:

    SELECT usename, application_name, state, count(*)
    FROM pg_stat_activity GROUP BY 1, 2, 3 ORDER BY 4 DESC;

Many idle or "idle in transaction" sessions of one user usually mean its pool misbehaves: restart
or roll back that service. Do not raise max_connections on the spot (needs a restart and more RAM).

## Slow queries

Statements over 1 s are logged with their duration; autovacuum runs on registry.devices several times
a day and is normal.
""",
    "auth-signing-keys": """# Token signing keys (auth)

auth signs access tokens, refresh tokens, device tokens and service tokens with an Ed25519 key
identified by its kid (brolga-YYYY-MM-DD). Everyone who verifies tokens (api, emqx, shadow) reads
the public keys from https://auth.core.svc:8000/.well-known/jwks.json and caches them (api for
30 minutes, emqx for 5 minutes).

## Rotation

The CronJob auth-signing-key-rotate runs every Tuesday at 16:00 Brisbane time. It generates a new
key, makes it the active signing key, and keeps the previous key published as "retired" for
signing.retired_key_ttl so that tokens signed before the rotation stay valid until they expire.

## Manual steps

- List keys: `kubectl -n core exec deploy/auth -- auth-admin keys list`.
- Publish a retired key again: `auth-admin keys publish <kid>`.
- Never delete the active key.
""",
}


# ---- truth ---------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


main = engine.main(NAME, world, __name__, DOCS)
