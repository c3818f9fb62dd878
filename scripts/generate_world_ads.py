#!/usr/bin/env python3
# ruff: noqa: E501  (a world spec is tables of log templates and truth text; long literal lines read better whole)
"""Generate the "ads" incident world: a real-time bidding platform run from São Paulo.

Two days (2026-12-08..09, America/Sao_Paulo, UTC-03:00) of logs, ops tables, runbooks and a
truth file with 8 incidents. Deterministic and stdlib-only:

    python scripts/generate_world_ads.py OUT_DIR          # writes OUT_DIR/ads/
    python scripts/generate_world_ads.py OUT_DIR --check  # also checks every truth evidence item
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

NAME = "ads"
TZ = timezone(timedelta(hours=-3))
DAY0 = datetime(2026, 12, 8, tzinfo=TZ)
MINUTES = 2 * 24 * 60
R = random.Random(20261208)
EXCHANGES = ["magnite", "pubmatic", "openx", "adx"]
CAMPAIGNS = [f"C-{n}" for n in (1011, 1042, 1077, 1103, 1150, 1188, 1204, 1239, 7781)]


def at(day: int, hm: str, sec: float = 0.0) -> datetime:
    h, m = (int(x) for x in hm.split(":"))
    return DAY0 + timedelta(days=day, hours=h, minutes=m, seconds=sec)


def z(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def wall(t: datetime) -> str:
    return t.astimezone(TZ).strftime("%Y-%m-%d %H:%M:%S")


def load(t: datetime) -> float:
    """Share of peak traffic at a local time (ad traffic peaks in the evening)."""
    h = t.astimezone(TZ).hour + t.minute / 60
    curve = [0.25, 0.18, 0.14, 0.12, 0.12, 0.15, 0.3, 0.5, 0.65, 0.75, 0.8, 0.82,
             0.85, 0.85, 0.83, 0.82, 0.84, 0.88, 0.95, 1.0, 1.0, 0.9, 0.7, 0.45]
    i = int(h) % 24
    return curve[i] + (curve[(i + 1) % 24] - curve[i]) * (h - int(h))


# ---------------------------------------------------------------- log formats, one per component
def _ms(t: datetime) -> str:
    return f"{t.microsecond // 1000:03d}"


def f_gateway(t, lvl, text, kv):  # nginx: access lines, error log for the rest
    if "access" in kv:
        return kv.pop("access").format(ts=t.astimezone(TZ).strftime("%d/%b/%Y:%H:%M:%S -0300"))
    sev = {"INFO": "notice", "WARN": "warn", "ERROR": "error"}[lvl]
    return f"{t.astimezone(TZ).strftime('%Y/%m/%d %H:%M:%S')} [{sev}] 31#31: {text}"


def f_logfmt(t, lvl, text, kv):  # Go exchange-adapter, UTC
    extra = "".join(f" {k}={v}" for k, v in kv.items())
    return f'time={t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")} level={lvl.lower()} msg="{text}"{extra}'


def f_logback(t, lvl, text, kv):  # Java bidder, local wall time
    thread = kv.pop("thread", f"bid-worker-{R.randint(1, 16)}")
    logger = kv.pop("logger", "c.s.bidder.BidHandler")
    return f"{t.astimezone(TZ).strftime('%Y-%m-%d %H:%M:%S')}.{_ms(t)} {lvl:<5} [{thread}] {logger} - {text}"


def f_python(t, lvl, text, kv):  # budget-pacer, python logging with the offset
    name = kv.pop("logger", "pacer.loop")
    lv = {"WARN": "WARNING"}.get(lvl, lvl)
    return f"{t.astimezone(TZ).strftime('%Y-%m-%d %H:%M:%S')},{_ms(t)} -0300 {lv} {name}: {text}"


def f_postgres(t, lvl, text, kv):  # campaign-store: PostgreSQL stderr log in UTC
    who = kv.pop("who", "bidder@campaigns")
    pid = kv.pop("pid", R.randint(20000, 32000))
    sev = kv.pop("sev", {"INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR"}[lvl])
    return f"{t.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S')}.{_ms(t)} UTC [{pid}] {who} {sev}:  {text}"


def f_redis(t, lvl, text, kv):  # fcap-cache
    mark = {"INFO": "*", "WARN": "#", "ERROR": "#"}[lvl]
    return f"1:M {t.astimezone(TZ).strftime('%d %b %Y %H:%M:%S')}.{_ms(t)} {mark} {text}"


def f_pino(t, lvl, text, kv):  # node event-tracker, epoch millis
    rec = {"level": {"INFO": 30, "WARN": 40, "ERROR": 50}[lvl], "time": int(t.timestamp() * 1000),
           "pid": 41, "hostname": kv.pop("host", "tracker-7d9f"), "msg": text}
    rec.update(kv)
    return json.dumps(rec, separators=(",", ":"))


def f_jsonlog(t, lvl, text, kv):  # Java event-pipeline, logstash JSON
    rec = {"@timestamp": t.astimezone(TZ).isoformat(timespec="milliseconds"), "level": lvl,
           "logger_name": kv.pop("logger", "com.sp.pipeline.WarehouseSink"), "thread_name": kv.pop("thread", "sink-1"),
           "message": text}
    rec.update(kv)
    return json.dumps(rec, separators=(",", ":"))


def f_gunicorn(t, lvl, text, kv):  # fraud-scorer
    lv = {"WARN": "WARNING"}.get(lvl, lvl)
    return f"[{t.astimezone(TZ).strftime('%Y-%m-%d %H:%M:%S')} -0300] [{kv.pop('pid', 12)}] [{lv}] {text}"


def f_winston(t, lvl, text, kv):  # node reporting-api
    rec = {"timestamp": t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
           "level": lvl.lower(), "service": "reporting-api", "message": text}
    rec.update(kv)
    return json.dumps(rec, separators=(",", ":"))


FORMATS = {
    "bid-gateway": f_gateway, "exchange-adapter": f_logfmt, "bidder": f_logback,
    "budget-pacer": f_python, "campaign-store": f_postgres, "fcap-cache": f_redis,
    "event-tracker": f_pino, "event-pipeline": f_jsonlog, "fraud-scorer": f_gunicorn,
    "reporting-api": f_winston,
}

EVENTS: list[tuple[datetime, str, str, str]] = []


def emit(t: datetime, svc: str, lvl: str, text: str, **kv) -> None:
    EVENTS.append((t, svc, lvl, FORMATS[svc](t, lvl, text, dict(kv))))


def burst(svc, lvl, start, end, every_s, texts, jitter=0.6, **kv):
    """Emit one of `texts` (formatted with fill()) about every `every_s` seconds in [start, end)."""
    t = start + timedelta(seconds=R.uniform(0, every_s))
    while t < end:
        emit(t, svc, lvl, fill(R.choice(texts)), **kv)
        t += timedelta(seconds=every_s * R.uniform(1 - jitter, 1 + jitter))


# ---------------------------------------------------------------- everyday chatter
def fill(tpl: str) -> str:
    vals = {
        "ex": R.choice(EXCHANGES), "camp": R.choice(CAMPAIGNS[:-1]), "ms": R.randint(8, 60),
        "rid": f"{R.getrandbits(40):010x}", "n": R.randint(20, 900), "ip": f"10.4.{R.randint(0, 9)}.{R.randint(2, 250)}",
        "cr": f"cr-{R.randint(1000, 9999)}", "sc": round(R.uniform(0.01, 0.3), 2), "k": R.randint(2, 40),
        "off": R.randint(10**6, 9 * 10**6), "pid": R.randint(20000, 32000), "big": R.randint(1200, 9000),
        "gc": R.randint(12, 180), "p": R.randint(0, 11), "pod": f"bidder-{R.choice('abcdef')}{R.randint(1, 9)}",
    }
    return tpl.format(**vals)


ACCESS = ('{ip} - - [{{ts}}] "POST /openrtb2/auction?x={ex} HTTP/1.1" {code} {size} "-" '
          '"{ex}-rtb/2.5" rt=0.0{ms} upstream=bidder:8080 req={rid}')
# service -> (events per minute at peak, [(level, template, weight)])
CHATTER = {
    "bid-gateway": (0.9, [("INFO", "ACCESS200", 6), ("INFO", "ACCESS204", 4),
                          ("WARN", "upstream response is buffered to a temporary file /var/cache/nginx/{k}/000{n}", 0.2)]),
    "exchange-adapter": (0.55, [("INFO", "bid request forwarded exchange={ex} imps={k} tmax_ms=120", 5),
                                ("INFO", "win notice received exchange={ex} campaign={camp} price_cpm=1.{k}", 3),
                                ("WARN", "bid request dropped: invalid imp exchange={ex} reason=missing_banner_format", 0.8)]),
    "bidder": (0.6, [("INFO", "bid decision request={rid} campaign={camp} price_cpm=0.{k} fcap=ok latency_ms={ms}", 6),
                     ("INFO", "no-bid request={rid} reason=no_matching_campaign", 2),
                     ("INFO", "[GC] Pause Young (G1 Evacuation Pause) {gc}ms", 0.6),
                     ("INFO", "CampaignCache refreshed: 9 campaigns, {big} line items in {ms}ms", 0.5)]),
    "budget-pacer": (0.3, [("INFO", "pacing update campaign={camp} spend_today=R$ {n}.00 pacing_factor=0.{k}", 5),
                           ("INFO", "flushed spend counters to campaign-store rows={k}", 1)]),
    "campaign-store": (0.12, [("INFO", "checkpoint complete: wrote {n} buffers (1.{k}%); 0 WAL file(s) added, 0 removed, 1 recycled", 2),
                              ("INFO", "automatic vacuum of table \"campaigns.public.line_items\": index scans: 1", 1),
                              ("INFO", "duration: 1{n}.2 ms  statement: SELECT li.* FROM line_items li WHERE li.campaign_id = $1", 1)]),
    "fcap-cache": (0.05, [("INFO", "DB saved on disk", 1), ("INFO", "Background saving started by pid {pid}", 1),
                          ("INFO", "10000 changes in 60 seconds. Saving...", 1)]),
    "event-tracker": (0.55, [("INFO", "impression recorded campaign={camp} creative={cr} exchange={ex}", 6),
                             ("INFO", "click recorded campaign={camp} creative={cr}", 1),
                             ("WARN", "duplicate impression beacon ignored creative={cr}", 0.5)]),
    "event-pipeline": (0.25, [("INFO", "committed offsets topic=ad-events partition={p} offset={off}", 3),
                              ("INFO", "warehouse load job completed table=ad_events rows={big} in {k}s", 1.5)]),
    "fraud-scorer": (0.4, [("INFO", "POST /score 200 {ms}ms score={sc}", 4),
                           ("ERROR", "feature lookup failed: device_ip_reputation missing for ip={ip} (falling back to 0.5)", 2)]),
    "reporting-api": (0.18, [("INFO", "GET /v2/reports/delivery 200 {n}ms campaign={camp}", 4),
                             ("INFO", "report served campaign={camp} data_freshness_min={k}", 2),
                             ("WARN", "slow warehouse query {big}ms report=delivery_by_hour", 0.4)]),
}


def chatter(quiet: dict[str, list[tuple[datetime, datetime]]]) -> None:
    for minute in range(MINUTES):
        t0 = DAY0 + timedelta(minutes=minute)
        for svc, (rate, tpls) in CHATTER.items():
            if any(a <= t0 < b for a, b in quiet.get(svc, [])):
                continue
            lam = rate * (0.3 + 0.7 * load(t0)) if svc != "fraud-scorer" else rate
            n = int(lam) + (1 if R.random() < lam - int(lam) else 0)
            for _ in range(n):
                lvl, tpl, _w = R.choices(tpls, weights=[w for *_x, w in tpls])[0]
                t = t0 + timedelta(seconds=R.uniform(0, 59.999))
                if tpl.startswith("ACCESS"):
                    code = "200" if tpl == "ACCESS200" else "204"
                    emit(t, svc, lvl, "", access=fill(ACCESS.replace("{code}", code).replace("{size}", "812" if code == "200" else "0")))
                else:
                    emit(t, svc, lvl, fill(tpl))


# ---------------------------------------------------------------- ops tables: changes
DEPLOYS = [  # id, service, version, local start, minutes, status, summary
    ("DEP-5514", "reporting-api", "2.31.0", (0, "09:12"), 6, "SUCCEEDED", "new delivery_by_hour endpoint"),
    ("DEP-5516", "event-tracker", "4.2.3", (0, "10:31"), 4, "SUCCEEDED", "dependency bumps (fastify 4.28)"),
    ("DEP-5519", "fraud-scorer", "1.19.0", (0, "11:48"), 5, "SUCCEEDED", "retrained IVT model 2026-12-07"),
    ("DEP-5521", "budget-pacer", "3.8.0", (0, "14:03"), 4, "SUCCEEDED", "pacing loop rewritten as PID controller; day-part schedule read from campaign-store"),
    ("DEP-5522", "budget-pacer", "3.7.4", (0, "15:04"), 3, "SUCCEEDED", "rollback of 3.8.0"),
    ("DEP-5524", "exchange-adapter", "6.4.1", (0, "17:40"), 6, "SUCCEEDED", "PubMatic adapter: OpenRTB 2.6 schain passthrough"),
    ("DEP-5530", "bidder", "12.3.0", (1, "08:35"), 9, "SUCCEEDED", "segment targeting: load audience segments with campaigns"),
    ("DEP-5531", "event-pipeline", "2.9.2", (1, "10:02"), 5, "SUCCEEDED", "sink metrics labels"),
    ("DEP-5533", "reporting-api", "2.31.1", (1, "13:05"), 5, "SUCCEEDED", "fix timezone of delivery_by_hour buckets (America/Sao_Paulo)"),
    ("DEP-5534", "bid-gateway", "1.25.3", (1, "15:30"), 4, "SUCCEEDED", "nginx 1.25.3 security update"),
]
CONFIGS = [  # id, service, key, old, new, by, local time, ticket
    ("CHG-8801", "bidder", "bid.shading.enabled", "false", "true", "r.tavares", (0, "13:50"), "ADS-2210"),
    ("CHG-8803", "exchange-adapter", "magnite.request.gzip", "false", "true", "l.moura", (0, "15:55"), "ADS-2214"),
    ("CHG-8804", "bid-gateway", "error_log.level", "warn", "notice", "l.moura", (0, "16:02"), "ADS-2214"),
    ("CHG-8805", "bid-gateway", "ratelimit.exchange.magnite.qps", "8000", "800", "l.moura", (0, "16:18"), "ADS-2215"),
    ("CHG-8806", "bid-gateway", "ratelimit.exchange.magnite.qps", "800", "8000", "oncall-bot", (0, "16:47"), "INC-0931"),
    ("CHG-8807", "reporting-api", "export.pubmatic.timeout_ms", "30000", "10000", "c.nunes", (0, "18:52"), "ADS-2219"),
    ("CHG-8809", "fcap-cache", "maxmemory-policy", "allkeys-lru", "volatile-lru", "r.tavares", (1, "07:40"), "ADS-2223"),
    ("CHG-8810", "reporting-api", "cache.report_ttl_s", "60", "300", "c.nunes", (1, "10:41"), "ADS-2226"),
    ("CHG-8812", "event-tracker", "beacon.dedupe_window_s", "30", "60", "p.siqueira", (1, "16:10"), "ADS-2230"),
]
DEPENDENCIES = [  # caller, callee, protocol, critical, note
    ("bid-gateway", "exchange-adapter", "http", "yes", "OpenRTB requests per exchange"),
    ("exchange-adapter", "bidder", "grpc", "yes", "bid decision, tmax 120ms"),
    ("bidder", "fcap-cache", "redis", "yes", "frequency-cap lookup per candidate, budget 10ms"),
    ("bidder", "campaign-store", "postgres", "yes", "campaign/line item cache refresh every 60s"),
    ("bidder", "fraud-scorer", "http", "no", "IVT score, fail-open"),
    ("bidder", "budget-pacer", "grpc", "yes", "pacing factor per campaign"),
    ("budget-pacer", "campaign-store", "postgres", "yes", "budgets, spend counters"),
    ("exchange-adapter", "magnite", "https", "yes", "external exchange"),
    ("exchange-adapter", "pubmatic", "https", "yes", "external exchange"),
    ("exchange-adapter", "openx", "https", "yes", "external exchange"),
    ("exchange-adapter", "adx", "https", "yes", "external exchange"),
    ("event-tracker", "event-pipeline", "kafka", "yes", "topic ad-events"),
    ("event-pipeline", "warehouse", "https", "yes", "BigQuery load jobs"),
    ("reporting-api", "warehouse", "https", "yes", "report queries"),
    ("reporting-api", "campaign-store", "postgres", "no", "campaign names"),
    ("reporting-api", "pubmatic", "https", "no", "nightly publisher report export"),
]


def roll_out() -> None:
    for dep, svc, ver, (d, hm), mins, _st, _summary in DEPLOYS:
        t = at(d, hm)
        if svc == "bidder":
            emit(t + timedelta(minutes=mins - 1), svc, "INFO", f"Started BidderApplication {ver} in 21.{R.randint(1, 9)} seconds", logger="c.s.bidder.BidderApplication", thread="main")
        elif svc == "budget-pacer":
            emit(t + timedelta(minutes=mins - 1), svc, "INFO", f"budget-pacer {ver} starting (deploy {dep})", logger="pacer.main")
        elif svc == "bid-gateway":
            emit(t + timedelta(minutes=mins - 1), svc, "INFO", f"nginx/{ver} start worker processes")
        else:
            emit(t + timedelta(minutes=mins - 1), svc, "INFO", f"{svc} version {ver} started")
    for chg, svc, key, old, new, _by, (d, hm), _tk in CONFIGS:
        t = at(d, hm, 20)
        if svc == "bid-gateway":
            emit(t, svc, "INFO", "signal process started (reload)")
        elif svc == "fcap-cache":
            emit(t, svc, "INFO", f"CONFIG SET {key} {new}")
        elif svc in ("reporting-api", "event-tracker"):
            emit(t, svc, "INFO", f"config reloaded {key}={new} (was {old})")
        elif svc == "bidder":
            emit(t, svc, "INFO", f"dynamic config applied {key}: {old} -> {new}", logger="c.s.bidder.config.DynamicConfig", thread="cfg-watch")
        else:
            emit(t, svc, "INFO", f"config watch: applied {key} (version {chg.lower()})")


# ---------------------------------------------------------------- the incidents, as stories
def story_fcap_cpu() -> None:
    """I1 (day 0 10:40-11:05): fcap-cache CPU saturated; seen only in metrics + dependencies."""
    burst("bidder", "WARN", at(0, "10:41"), at(0, "11:04"), 9,
          ["bid deadline exceeded request={rid} elapsed_ms=1{k}7 budget_ms=100, sending no-bid"])
    burst("exchange-adapter", "WARN", at(0, "10:42"), at(0, "11:04"), 14,
          ["bidder response late exchange={ex} elapsed_ms=13{k} tmax_ms=120"])


def story_pacer_deploy() -> None:
    """I2 (day 0 14:07-15:06): budget-pacer 3.8.0 clamps pacing factors to zero."""
    s, e = at(0, "14:07"), at(0, "15:06")
    burst("budget-pacer", "WARN", s, e, 11,
          ["pacing update campaign={camp} spend_today=R$ {n}.00 pacing_factor=0.000 (clamped: day_part_remaining_s=-10800)"],
          logger="pacer.pid")
    burst("bidder", "INFO", s + timedelta(minutes=1), e, 12, ["no-bid request={rid} reason=pacing_throttled campaign={camp}"])
    emit(at(0, "14:12", 5), "budget-pacer", "WARN", "spend rate below target for 7 of 9 campaigns (window 5m)", logger="pacer.monitor")


def story_gateway_ratelimit() -> None:
    """I3 (day 0 16:19-16:47): bid-gateway magnite rate limit lowered 8000 -> 800 qps."""
    s, e = at(0, "16:19"), at(0, "16:47", 40)
    line = ('{ip} - - [{{ts}}] "POST /openrtb2/auction?x=magnite HTTP/1.1" 429 0 "-" "magnite-rtb/2.5" '
            'rt=0.000 upstream=- req={rid}')
    t = s
    while t < e:
        emit(t, "bid-gateway", "WARN", "", access=fill(line))
        t += timedelta(seconds=R.uniform(2, 6))
    burst("bid-gateway", "WARN", s, e, 20,
          ['*{big} limiting requests, excess: 1.{k} by zone "exchange_magnite", client: {ip}, server: rtb.sp-ads.com.br'])
    burst("exchange-adapter", "WARN", s, e, 25, ["magnite callout volume below contract exchange=magnite qps_observed={n}"])


def story_wal_disk() -> None:
    """I4 (day 1 09:11-09:31): campaign-store WAL archiving fails, pg_wal fills the disk."""
    pg = "campaign-store"
    burst(pg, "WARN", at(1, "08:20"), at(1, "09:11"), 60,
          ['archive command failed with exit code 1'], who="postgres@[unknown]", pid=811)
    burst(pg, "INFO", at(1, "08:20"), at(1, "09:11"), 60,
          ['The failed archive command was: wal-g wal-push pg_wal/00000001000002A4000000{k} (AccessDenied: s3:PutObject on bucket sp-ads-pg-wal)'],
          who="postgres@[unknown]", pid=811, sev="DETAIL")
    emit(at(1, "09:11", 2), pg, "ERROR", 'could not write to file "pg_wal/xlogtemp.29931": No space left on device', sev="PANIC", pid=29931)
    emit(at(1, "09:11", 3), pg, "ERROR", "server process (PID 29931) was terminated by signal 6: Aborted", who="@", pid=1, sev="LOG")
    emit(at(1, "09:11", 3), pg, "INFO", "terminating any other active server processes", who="@", pid=1)
    t = at(1, "09:11", 30)
    while t < at(1, "09:30"):
        emit(t, pg, "ERROR", "the database system is in recovery mode", sev="FATAL")
        t += timedelta(seconds=R.uniform(8, 25))
    emit(at(1, "09:14"), pg, "INFO", "database system was interrupted; last known up at 2026-12-09 12:10:55 UTC", who="@", pid=1)
    emit(at(1, "09:22"), pg, "INFO", "removed 412 old WAL files after manual cleanup of pg_wal", who="postgres@postgres", pid=1102)
    emit(at(1, "09:30", 10), pg, "INFO", "database system is ready to accept connections", who="@", pid=1)
    burst("bidder", "ERROR", at(1, "09:11", 40), at(1, "09:30", 30), 30,
          ["CampaignCache refresh failed: org.postgresql.util.PSQLException: An I/O error occurred while sending to the backend. serving stale cache age_s={n}"],
          logger="c.s.bidder.campaign.CampaignCache", thread="cache-refresh")
    burst("budget-pacer", "ERROR", at(1, "09:12"), at(1, "09:30"), 45,
          ["spend flush failed: psycopg.OperationalError: connection to server at \"campaign-store\" failed"], logger="pacer.flush")


def story_bidder_heap() -> None:
    """I5 (day 1 13:19-14:00): campaign C-7781 with 412k segments exhausts bidder heap; system-wide."""
    emit(at(1, "12:47", 12), "bidder", "INFO", "CampaignCache loaded campaign=C-7781 line_items=4 audience_segments=412000",
         logger="c.s.bidder.campaign.CampaignCache", thread="cache-refresh")
    t, pause = at(1, "12:50"), 220
    while t < at(1, "13:19"):
        emit(t, "bidder", "WARN", f"[GC] Pause Full (G1 Compaction Pause) {pause}ms heap 7{R.randint(600, 990)}M->7{R.randint(400, 900)}M(8192M)",
             logger="gc", thread="GC Thread#0")
        pause = int(pause * 1.22)
        t += timedelta(seconds=R.uniform(70, 110))
    for i, pod in enumerate(["bidder-a3", "bidder-c7", "bidder-e1", "bidder-b5"]):
        t0 = at(1, "13:19", 30 + 95 * i)
        emit(t0, "bidder", "ERROR", f"Exception in thread \"bid-worker-3\" java.lang.OutOfMemoryError: Java heap space pod={pod}", logger="c.s.bidder.BidHandler")
        emit(t0 + timedelta(seconds=40), "bidder", "INFO", f"Started BidderApplication 12.3.0 in 23.{i} seconds pod={pod}", logger="c.s.bidder.BidderApplication", thread="main")
    burst("bidder", "WARN", at(1, "13:21"), at(1, "14:00"), 60,
          ["[GC] Pause Full (G1 Compaction Pause) 3{k}10ms heap 81{k}M->80{k}M(8192M)"], logger="gc", thread="GC Thread#0")
    burst("exchange-adapter", "ERROR", at(1, "13:20"), at(1, "14:00"), 6,
          ["bidder call failed exchange={ex} err=\"rpc error: code = DeadlineExceeded\""])
    burst("bid-gateway", "ERROR", at(1, "13:20"), at(1, "14:00"), 20,
          ['*{big} upstream timed out (110: Connection timed out) while reading response header from upstream, upstream: "http://exchange-adapter:9000/auction"'])


def story_pipeline_rebalance() -> None:
    """I6 (day 1 10:58-11:46): event-pipeline rebalance loop; reporting-api serves stale data."""
    s, e = at(1, "10:58"), at(1, "11:46")
    t = s
    while t < e:
        m = f"consumer-sink-{R.randint(1, 6)}"
        emit(t, "event-pipeline", "WARN",
             f"[Consumer clientId={m}, groupId=warehouse-sink] consumer poll timeout has expired. This means the time between subsequent calls "
             "to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much "
             "time processing messages.", logger="o.a.k.c.c.i.ConsumerCoordinator", thread="kafka-coordinator-heartbeat-thread")
        emit(t + timedelta(seconds=4), "event-pipeline", "INFO",
             "[Consumer clientId=consumer-sink-1, groupId=warehouse-sink] (Re-)joining group", logger="o.a.k.c.c.i.ConsumerCoordinator", thread="sink-1")
        emit(t + timedelta(seconds=9), "event-pipeline", "WARN", fill("flush of batch aborted: rebalance in progress, {big} records will be redelivered"))
        t += timedelta(seconds=R.uniform(60, 120))
    burst("reporting-api", "WARN", at(1, "11:05"), e + timedelta(minutes=8), 40, ["report served campaign={camp} data_freshness_min={n} (stale)"])


def story_pubmatic_external() -> None:
    """I7 trap (day 0 19:02-19:24): PubMatic's endpoint degrades; reporting-api changed a pubmatic timeout."""
    s, e = at(0, "19:02"), at(0, "19:24")
    burst("exchange-adapter", "WARN", s, e, 5,
          ["pubmatic callout failed exchange=pubmatic status=504 host=hbopenbid.pubmatic.com elapsed_ms=12{k} err=\"upstream 504 Gateway Time-out\"",
           "win notice delivery timeout exchange=pubmatic host=t.pubmatic.com elapsed_ms=30{k}"])
    emit(at(0, "19:09"), "exchange-adapter", "WARN", "circuit half-open exchange=pubmatic failures_1m=88")


# metrics marks: per (table, key) a list of (start, end, field, value-function)
def in_span(t, d, a, b):
    return at(d, a) <= t < at(d, b)


def service_metrics_rows():
    svcs = {"bid-gateway": (5200, 35), "exchange-adapter": (5100, 48), "bidder": (4900, 38), "budget-pacer": (60, 12),
            "fraud-scorer": (900, 22), "event-tracker": (1400, 9), "event-pipeline": (1350, 15), "reporting-api": (4, 420)}
    rows = []
    for minute in range(0, MINUTES, 5):
        t = DAY0 + timedelta(minutes=minute)
        for svc, (rps, p99) in svcs.items():
            r = rps * load(t) * R.uniform(0.93, 1.07)
            lat = p99 * R.uniform(0.85, 1.2)
            err = R.uniform(0.0, 0.4)
            if svc == "fraud-scorer":
                err = R.uniform(2.0, 3.0)
            if svc in ("bidder", "exchange-adapter") and in_span(t, 0, "10:40", "11:05"):
                lat, err = lat * 3.1, err + 6
            if svc in ("bidder", "exchange-adapter", "bid-gateway") and in_span(t, 1, "13:20", "14:00"):
                lat, err, r = lat * 4, err + 38, r * 0.6
            if svc == "bid-gateway" and in_span(t, 0, "16:15", "16:45"):
                err += 11
            for metric, v in (("requests_per_s", round(r)), ("latency_p99_ms", round(lat)), ("error_pct", round(err, 2))):
                rows.append((z(t), svc, metric, v))
    return rows


def cache_rows():
    rows = []
    for minute in range(MINUTES):
        t = DAY0 + timedelta(minutes=minute)
        for node in ("fcap-cache-0", "fcap-cache-1"):
            ops = int(52000 * load(t) * R.uniform(0.95, 1.05))
            cpu, p99 = round(18 + 40 * load(t) + R.uniform(-3, 3), 1), round(R.uniform(0.6, 1.6), 2)
            if node == "fcap-cache-1" and in_span(t, 0, "10:39", "11:05"):
                cpu, p99 = round(R.uniform(98.1, 99.9), 1), round(R.uniform(28, 44), 2)
            rows.append((z(t), node, cpu, ops, p99, 2210 + minute // 60, 180 + R.randint(-6, 6)))
    return rows


def exchange_rows():
    rows = []
    share = {"magnite": 0.34, "pubmatic": 0.24, "openx": 0.17, "adx": 0.25}
    for minute in range(MINUTES):
        t = DAY0 + timedelta(minutes=minute)
        for ex, sh in share.items():
            req = int(5200 * 60 * load(t) * sh * R.uniform(0.95, 1.05))
            bid_rate, timeouts, r429, win = R.uniform(0.2, 0.26), int(req * R.uniform(0.001, 0.004)), 0, round(R.uniform(0.11, 0.15), 3)
            if in_span(t, 0, "10:41", "11:05"):
                bid_rate, timeouts = bid_rate * 0.45, int(req * 0.12)
            if in_span(t, 0, "14:08", "15:06"):
                bid_rate *= 0.3
            if ex == "magnite" and in_span(t, 0, "16:19", "16:48"):
                r429 = int(req * 0.87)
                req -= r429
            if ex == "pubmatic" and in_span(t, 0, "19:02", "19:24"):
                timeouts = int(req * 0.4)
            if in_span(t, 1, "13:20", "14:00"):
                bid_rate, timeouts = bid_rate * 0.2, int(req * 0.55)
            rows.append((z(t), ex, req, int(req * bid_rate), timeouts, r429, win))
    return rows


def lag_rows():
    rows, lag = [], 0
    for minute in range(MINUTES):
        t = DAY0 + timedelta(minutes=minute)
        if in_span(t, 1, "10:58", "11:46"):
            lag += int(80000 * load(t) * R.uniform(0.8, 1.1))
            members = R.choice([0, 2, 3, 4])
        else:
            lag = max(int(lag * 0.55), R.randint(200, 4000))
            members = 6
        rows.append((z(t), "warehouse-sink", "ad-events", lag, members))
    return rows


def db_rows():
    rows = []
    for minute in range(0, MINUTES, 5):
        t = DAY0 + timedelta(minutes=minute)
        conns, tps = 40 + R.randint(-5, 8), int(900 * load(t) * R.uniform(0.9, 1.1))
        if in_span(t, 1, "09:10", "09:30"):
            conns, tps = 0, 0
        rows.append((z(t), "campaign-store-0", conns, tps, round(R.uniform(0.0, 0.4), 2)))
    return rows


# ---------------------------------------------------------------- knowledge
RUNBOOKS = {
    "bidder-no-bid-spikes.md": """# Bidder: no-bid rate spikes

Owner: RTB core (#rtb-core). Pager: bidder-oncall.

## Symptoms
- `no_bids` / `timeouts` up in the exchange export, exchanges complaining about timeouts.
- bidder logs `bid deadline exceeded ... sending no-bid`.

## How to confirm
The bidder has a 100 ms budget per request and spends it on its dependencies (see the
dependencies table). A deadline miss is almost never the bidder's own CPU:
1. fcap-cache: frequency-cap lookups must stay under 10 ms p99. Check the cache export per node
   (cpu_pct, latency_p99_ms). One hot node is enough to blow the budget for every exchange.
2. campaign-store: the CampaignCache refresh failing makes the bidder serve a stale cache; it keeps bidding.
3. GC: young pauses under 200 ms are normal. Repeated *Full* pauses mean heap pressure; look at
   what the CampaignCache loaded last.

## Mitigation
Fail the fcap check open for 15 minutes (`fcap.fail_open=true`), never longer without approval from ad ops.
""",
    "pacing-underdelivery.md": """# Campaigns under-delivering (pacing)

Ad ops will ping #rtb-oncall when spend is far below plan.

## Check
- pacer log `pacing_factor` per campaign: values around 0.3-0.9 are normal; 0.000 on many
  campaigns at once means the pacer is throttling everything.
- Recent budget-pacer deploys and config. The pacer computes the remaining day part in the
  account's time zone (America/Sao_Paulo). A negative remaining time clamps factors to zero.
- Bidder `no-bid ... reason=pacing_throttled`.

## Fix
Roll back the pacer (deploy tool, previous version). Spend recovers within 5 minutes.
""",
    "report-freshness.md": """# Reporting: stale numbers in dashboards

Advertisers see the delivery dashboard not moving.

## Most common cause: the report cache
reporting-api caches report results (`cache.report_ttl_s`). When the TTL is raised, dashboards
look frozen for up to that long after a refresh; `data_freshness_min` in the reporting-api log
goes up. Lower the TTL back or purge with `POST /admin/cache/purge`.

## Warehouse slow
`slow warehouse query` warnings are usual at the top of the hour (hourly rollups).
""",
    "known-noise.md": """# Known noise (do not page on these)

- fraud-scorer logs `feature lookup failed: device_ip_reputation missing` all day at ERROR.
  The reputation feed was decommissioned (ADS-1980); the scorer falls back to 0.5. ~2-3% error_pct is its baseline.
- exchange-adapter `bid request dropped: invalid imp ... missing_banner_format`: publishers
  sending video-only imps to banner deals. Expected.
- event-tracker `duplicate impression beacon ignored`: browsers retrying beacons.
- bidder `[GC] Pause Young` lines: normal.
- nginx `upstream response is buffered to a temporary file`: large bid responses, harmless.
""",
    "exchange-partner-escalation.md": """# Exchange partner problems

When one exchange alone shows timeouts or 5xx while the others are fine, it is usually on
their side. Check the exchange export per exchange and the adapter log for the partner host
(`host=...pubmatic.com`, `...rubiconproject.com`). Our side changes rarely affect only one partner.

## Escalate
Open a ticket on the partner's portal and post in #partner-ops; the adapter's circuit breaker
sheds load on its own. There is nothing to roll back on our side.
""",
}


# ---------------------------------------------------------------- truth
def q_logs(svc, a, b, pattern, contains):
    return {"tool": "query_logs", "args": {"service": svc, "start": a.isoformat(), "end": b.isoformat(), "pattern": pattern}, "contains": contains}


def q_sql(sql, contains):
    return {"tool": "query_mysql", "args": {"sql": sql}, "contains": contains}


def sql_between(table, cols, a, b, where=""):
    extra = f" AND {where}" if where else ""
    return f"SELECT {cols} FROM {table} WHERE ts BETWEEN '{z(a)}' AND '{z(b)}'{extra}"


def incident(id_, kind, question, service, start, end, onset, cause_service, root_cause, key_terms, distractors,
             runbook, evidence, note, expected="SUCCESS"):
    return {"id": id_, "kind": kind, "question": question, "service": service, "start": start.isoformat(),
            "end": end.isoformat(), "onset": onset.isoformat() if onset else None, "cause_service": cause_service,
            "root_cause": root_cause, "key_terms": key_terms, "distractors": distractors,
            "has_runbook": runbook is not None, "runbook": runbook, "expected_outcome": expected,
            "fallback_type": None, "evidence": evidence, "note": note}


def truth() -> dict:
    inc = [
        incident("ADS-1", "cause", "bidder no-bid rate went way up on 08/12 between 10:40 and 11:05 (BRT), all exchanges complaining about timeouts. root cause?",
                 "bidder", at(0, "10:40"), at(0, "11:05"), at(0, "10:39"), "fcap-cache",
                 "fcap-cache node fcap-cache-1 saturated its CPU (~99%) and its p99 latency rose from ~1 ms to ~30-44 ms; the bidder's frequency-cap lookups (10 ms budget) blew the 100 ms bid deadline, so it sent no-bids on every exchange",
                 ["fcap-cache", "cpu"], ["event-tracker deploy DEP-5516 at 10:31", "bidder's own deadline WARNs"], "bidder-no-bid-spikes",
                 [q_sql(sql_between("cache_metrics", "ts, node, cpu_pct, latency_p99_ms", at(0, "10:40"), at(0, "11:00"), "node = 'fcap-cache-1'"), "fcap-cache-1"),
                  q_sql("SELECT caller, callee, note FROM dependencies WHERE caller = 'bidder'", "frequency-cap lookup"),
                  q_logs("bidder", at(0, "10:40"), at(0, "11:05"), "deadline exceeded", "sending no-bid")],
                 "metrics + dependencies only: no fcap-cache log line mentions the saturation"),
        incident("ADS-2", "cause", "spend collapsed on most campaigns between 14:10 and 15:00 on Dec 8, looks like budget-pacer — what happened?",
                 "budget-pacer", at(0, "14:10"), at(0, "15:00"), at(0, "14:07"), "budget-pacer",
                 "deploy DEP-5521 of budget-pacer 3.8.0 (PID pacing controller) computed a negative remaining day part (UTC vs America/Sao_Paulo) and clamped every pacing factor to 0.000, throttling all campaigns until the rollback DEP-5522 at 15:04",
                 ["budget-pacer", "3.8.0"], ["bidder config CHG-8801 bid.shading.enabled at 13:50"], "pacing-underdelivery",
                 [q_sql("SELECT deploy_id, service, version, started_at FROM deploys WHERE service = 'budget-pacer'", "DEP-5521"),
                  q_logs("budget-pacer", at(0, "14:05"), at(0, "15:00"), "pacing_factor=0.000", "day_part_remaining_s=-10800")],
                 "deploy; the bidder's pacing_throttled no-bids are the downstream symptom"),
        incident("ADS-3", "cause", "Magnite says we are answering 429 to most of their bid requests, 16:20-16:45 on 08/12. why?",
                 "bid-gateway", at(0, "16:20"), at(0, "16:45"), at(0, "16:19"), "bid-gateway",
                 "config change CHG-8805 lowered bid-gateway ratelimit.exchange.magnite.qps from 8000 to 800 at 16:18; nginx limit_req rejected the excess with 429 until CHG-8806 restored it at 16:47",
                 ["ratelimit", "800"], ["exchange-adapter config CHG-8803 magnite.request.gzip at 15:55", "bid-gateway error_log.level change CHG-8804"], None,
                 [q_sql("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM config_changes WHERE service = 'bid-gateway'", "CHG-8805"),
                  q_logs("bid-gateway", at(0, "16:19"), at(0, "16:45"), "limiting requests", "exchange_magnite")],
                 "config change; a same-exchange change of exchange-adapter is 23 minutes earlier"),
        incident("ADS-4", "cause", "bidder throwing CampaignCache refresh errors on 09/12 between 09:10 and 09:30 — root cause please",
                 "bidder", at(1, "09:10"), at(1, "09:30"), at(1, "09:11"), "campaign-store",
                 "campaign-store (PostgreSQL) WAL archiving had failed since 08:20 (wal-g AccessDenied on the S3 bucket), pg_wal filled the disk: PANIC 'No space left on device', the server crashed and stayed in recovery mode until ~09:30",
                 ["campaign-store", "WAL"], ["bidder deploy DEP-5530 12.3.0 at 08:35", "budget-pacer flush errors in the same window"], None,
                 [q_logs("campaign-store", at(1, "09:00"), at(1, "09:30"), "No space left", "pg_wal/xlogtemp.29931"),
                  q_logs("campaign-store", at(1, "08:20"), at(1, "09:11"), "archive command", "AccessDenied")],
                 "logs alone: the mechanism is only in the failing dependency's own PostgreSQL log"),
        incident("ADS-5", "cause", "bid volume fell off a cliff on every exchange since ~13:20, what is going on?",
                 None, at(1, "13:20"), at(1, "14:00"), at(1, "13:19"), "bidder",
                 "bidder ran out of heap: campaign C-7781 loaded 412,000 audience segments into the CampaignCache at 12:47, Full GC pauses grew, then java.lang.OutOfMemoryError: Java heap space crashed the bidder pods one after another; exchange-adapter calls hit DeadlineExceeded",
                 ["bidder", "heap"], ["reporting-api deploy DEP-5533 at 13:05", "bid-gateway upstream timed out errors"], "bidder-no-bid-spikes",
                 [q_logs("bidder", at(1, "13:15"), at(1, "13:30"), "OutOfMemoryError", "Java heap space"),
                  q_logs("bidder", at(1, "12:40"), at(1, "13:00"), "audience_segments", "C-7781")],
                 "system-wide question naming no service; the time has no date (the data's last day)"),
        incident("ADS-6", "cause", "reporting-api dashboards frozen — today's impressions flat between 11:00 and 11:45 on 9 Dec. why?",
                 "reporting-api", at(1, "11:00"), at(1, "11:45"), at(1, "10:58"), "event-pipeline",
                 "event-pipeline's warehouse-sink consumers exceeded max.poll.interval.ms and fell into a consumer-group rebalance loop; batches were aborted, consumer lag on ad-events grew and warehouse loads stopped, so reporting-api served stale data",
                 ["event-pipeline", "rebalance"], ["reporting-api config CHG-8810 cache.report_ttl_s 60->300 at 10:41", "runbook report-freshness blaming the report cache"], "report-freshness",
                 [q_logs("event-pipeline", at(1, "10:55"), at(1, "11:45"), "max.poll.interval.ms", "warehouse-sink"),
                  q_sql(sql_between("consumer_lag", "ts, consumer_group, lag, members", at(1, "11:00"), at(1, "11:45")), "warehouse-sink")],
                 "the named component only shows the symptom; the cause is two hops upstream. The runbook next to it fits another cause (cache TTL)"),
        incident("ADS-7", "trap", "pubmatic timeouts on exchange-adapter 08/12 19:00 to 19:25 — what caused them?",
                 "exchange-adapter", at(0, "19:00"), at(0, "19:25"), at(0, "19:02"), "pubmatic",
                 "PubMatic's own endpoints (hbopenbid.pubmatic.com) returned 504s and timed out: an external partner problem, nothing on our side",
                 [], ["reporting-api config CHG-8807 export.pubmatic.timeout_ms 30000->10000 at 18:52 (unrelated)", "exchange-adapter deploy DEP-5524 (PubMatic adapter) at 17:40"],
                 "exchange-partner-escalation", [q_logs("exchange-adapter", at(0, "19:00"), at(0, "19:25"), "pubmatic", "504")],
                 "trap: the cause is external; an unrelated reporting-api change shares the words pubmatic and timeout", expected="FALLBACK"),
        incident("ADS-8", "quiet", "anything wrong with event-tracker between 03:00 and 03:30 on 09/12? ad ops saw a dip",
                 "event-tracker", at(1, "03:00"), at(1, "03:30"), None, None, None, [], ["night-time low traffic"], None, [],
                 "quiet window: normal night traffic, nothing failed", expected="FALLBACK"),
    ]
    return {"dataset": f"{NAME}-world", "timezone": "America/Sao_Paulo",
            "description": "RTB ad platform in São Paulo, 2026-12-08..09 (UTC-03:00): 6 incidents with a cause, a trap with an external cause, a quiet window.",
            "incidents": inc}


# ---------------------------------------------------------------- writing and checking
def csv_text(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def build(out: Path) -> Path:
    root = out / NAME
    (root / "tables").mkdir(parents=True, exist_ok=True)
    (root / "knowledge").mkdir(exist_ok=True)
    chatter({})
    roll_out()
    for story in (story_fcap_cpu, story_pacer_deploy, story_gateway_ratelimit, story_wal_disk,
                  story_bidder_heap, story_pipeline_rebalance, story_pubmatic_external):
        story()
    EVENTS.sort(key=lambda e: (e[0], e[1], e[3]))
    with open(root / "logs.jsonl", "w", encoding="utf-8") as f:
        for t, svc, lvl, msg in EVENTS:
            rec = {"ts": t.astimezone(TZ).isoformat(timespec="milliseconds"), "service": svc, "level": lvl, "message": msg}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    tables = {
        "dependencies": (["caller", "callee", "protocol", "critical", "note"], DEPENDENCIES),
        "deploys": (["deploy_id", "service", "version", "started_at", "finished_at", "status", "summary"],
                    [(d, s, v, z(at(*w)), z(at(*w) + timedelta(minutes=m)), st, su) for d, s, v, w, m, st, su in DEPLOYS]),
        "config_changes": (["change_id", "service", "config_key", "old_value", "new_value", "changed_by", "changed_at", "ticket"],
                           [(c, s, k, o, n, b, wall(at(*w)), tk) for c, s, k, o, n, b, w, tk in CONFIGS]),
        "service_metrics": (["ts", "service", "metric", "value"], service_metrics_rows()),
        "cache_metrics": (["ts", "node", "cpu_pct", "ops_per_sec", "latency_p99_ms", "used_memory_mb", "connected_clients"], cache_rows()),
        "exchange_metrics": (["ts", "exchange", "bid_requests", "bids", "timeouts", "http_429", "win_rate"], exchange_rows()),
        "consumer_lag": (["ts", "consumer_group", "topic", "lag", "members"], lag_rows()),
        "db_metrics": (["ts", "host", "connections", "tps", "replication_lag_s"], db_rows()),
    }
    for name, (hdr, rows) in tables.items():
        (root / "tables" / f"{name}.csv").write_text(csv_text(hdr, rows), encoding="utf-8")
    for fname, text in RUNBOOKS.items():
        (root / "knowledge" / fname).write_text(text, encoding="utf-8")
    manifest = {"name": f"{NAME}-world", "timezone": "America/Sao_Paulo",
                "description": "A real-time bidding ad platform run from São Paulo, two days (2026-12-08..09, UTC-03:00)."}
    (root / "dataset.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (root / "truth.json").write_text(json.dumps(truth(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return root


def check(root: Path) -> list[str]:
    """Every evidence item's `contains` must be in the data its step reads."""
    logs = [json.loads(line) for line in (root / "logs.jsonl").read_text(encoding="utf-8").splitlines()]
    problems = []
    for inc in json.loads((root / "truth.json").read_text(encoding="utf-8"))["incidents"]:
        for ev in inc["evidence"]:
            a = ev["args"]
            if ev["tool"] == "query_logs":
                lo, hi = datetime.fromisoformat(a["start"]), datetime.fromisoformat(a["end"])
                ok = any(r["service"] == a["service"] and lo <= datetime.fromisoformat(r["ts"]) <= hi
                         and a["pattern"] in r["message"] and ev["contains"] in r["message"] for r in logs)
            else:
                table = re.search(r"FROM (\w+)", a["sql"]).group(1)  # type: ignore[union-attr]
                ok = ev["contains"] in (root / "tables" / f"{table}.csv").read_text(encoding="utf-8")
            if not ok:
                problems.append(f"{inc['id']}: {ev['tool']} does not find {ev['contains']!r}")
    return problems


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print("usage: generate_world_ads.py OUT_DIR [--check]", file=sys.stderr)
        return 2
    root = build(Path(args[0]))
    print(f"wrote {root} ({len(EVENTS)} log events)")
    if "--check" in argv:
        problems = check(root)
        for p in problems:
            print("check:", p, file=sys.stderr)
        if problems:
            return 1
        print("check: every truth evidence item is in the data")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
