"""Generate the **ship** incident world: a container terminal operating system at a Singapore sea port.

Two days (2027-03-16..17, Asia/Singapore) of logs, each component in its own format and clock, ops
tables, runbooks and eight incident questions with their truth. Stdlib only, one seeded generator: the
same bytes on every run. ``python scripts/generate_world_ship.py OUT_DIR [--check]`` writes
``OUT_DIR/ship/``; ``--check`` then checks every truth evidence item against the generated data.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

NAME = "ship"
SEED = 20270316
SGT = timezone(timedelta(hours=8))
DAY1 = datetime(2027, 3, 16, tzinfo=SGT)
DAY2 = DAY1 + timedelta(days=1)
END = DAY2 + timedelta(days=1)
R = random.Random(SEED)

def at(day: datetime, hhmm: str) -> datetime:
    """A local (SGT) moment on ``day``: ``"14:58"`` or ``"14:58:30"``."""
    parts = [int(p) for p in hhmm.split(":")] + [0]
    return day.replace(hour=parts[0], minute=parts[1], second=parts[2])

def ms(t: datetime) -> str:
    return f"{t.microsecond // 1000:03d}"

def zulu(t: datetime) -> str:
    """UTC with a Z, seconds: the form table times are stored and compared in."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

# --- The terminal's vocabulary ----------------------------------------------------------------
OWNERS = ["MSCU", "MAEU", "CMAU", "OOLU", "EGHU", "HLBU", "ONEU", "TGHU", "SEGU", "TCLU"]
VESSELS = [("MSC LORETO", "9934682", "FL612W"), ("EVER ACME", "9893955", "1187-045E"),
           ("CMA CGM JULES VERNE", "9454436", "0MX4HE1MA"), ("ONE HANNOVER", "9806067", "053W"),
           ("KOTA PUSAKA", "9818709", "KPK0311N"), ("MAERSK HANGZHOU", "9784271", "311S"),
           ("HYUNDAI SATURN", "9637246", "0089E"), ("WAN HAI 627", "9912531", "N217")]
BERTHS = ["P11", "P12", "P13", "P14", "P15", "P16"]
CRANES = [f"QC{n:02d}" for n in range(1, 9)]
OLD_CRANES = ["QC05", "QC06", "QC07", "QC08"]  # older PLCs that still send v4 telemetry frames
BLOCKS = [f"{r}{c:02d}" for r in "ABCDEF" for c in range(1, 9)]
HAULIERS = ["TRK-HL-0231", "TRK-SG-1174", "TRK-KC-0982", "TRK-PL-5520", "TRK-YS-3307", "TRK-MT-4410"]
PARTNERS = ["oocl-sg", "maersk-apac", "cma-cgm-sg", "kc-logistics", "yes-haulage", "pil-sg"]

def check_digit(code: str) -> int:
    """ISO 6346 check digit of a container's owner code and serial number."""
    values, n = {}, 10
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        n += n % 11 == 0
        values[ch], n = n, n + 1
    total = sum((values[ch] if ch.isalpha() else int(ch)) * 2**i for i, ch in enumerate(code))
    return total % 11 % 10

def container() -> str:
    code = R.choice(OWNERS) + f"{R.randrange(1000000):06d}"
    return code + str(check_digit(code))

VOCAB = {
    "c": container, "mmsi": lambda: f"5{R.randrange(10**7, 10**8)}",
    "berth": lambda: R.choice(BERTHS), "qc": lambda: R.choice(CRANES),
    "lane": lambda: f"IG{R.randint(1, 8):02d}", "olane": lambda: f"OG{R.randint(1, 4):02d}",
    "block": lambda: R.choice(BLOCKS), "slot": lambda: f"{R.randint(1, 40):02d}{R.randint(11, 65)}",
    "truck": lambda: R.choice(HAULIERS), "partner": lambda: R.choice(PARTNERS),
    "appt": lambda: f"APT-{R.randrange(700000, 799999)}", "txn": lambda: f"G{R.randrange(10**7, 10**8)}",
    "ms": lambda: R.randint(8, 140), "ms_slow": lambda: R.randint(900, 2400), "n": lambda: R.randint(2, 60),
    "big": lambda: R.randint(1200, 9800), "pid": lambda: R.randint(20000, 32000),
    "temp": lambda: f"{R.choice([-18, -20, -25, 2, 4, 13])}.{R.randint(0, 9)}",
    "conf": lambda: f"0.{R.randint(88, 99)}", "lowconf": lambda: f"0.{R.randint(86, 96)}",
    "m": lambda: R.randint(3, 25),
    "count": lambda: R.randint(1400, 2300), "few": lambda: R.randint(0, 4),
    "icn": lambda: f"{R.randrange(10**8, 10**9)}", "inv": lambda: f"INV-27-{R.randrange(100000, 999999)}",
    "lat": lambda: f"1.{R.randint(150000, 290000)}", "lon": lambda: f"103.{R.randint(600000, 900000)}",
    "sog": lambda: f"{R.randint(0, 180) / 10:.1f}", "ip": lambda: f"203.0.113.{R.randint(2, 250)}",
    "reefer": lambda: f"RF-{R.choice('ABCD')}{R.randint(1, 12):02d}-{R.randint(1, 40):02d}",
}

class Draw(dict):
    """Fills a template's ``{key}`` from the terminal's vocabulary, one draw per key."""

    def __missing__(self, key: str) -> object:
        if key in ("vessel", "imo", "voy"):  # one vessel per line: its name, IMO number and voyage agree
            self.update(zip(("vessel", "imo", "voy"), R.choice(VESSELS), strict=True))
        else:
            self[key] = VOCAB[key]()
        return self[key]

def fill(template: object, draw: Draw | None = None) -> object:
    """A template filled; the parts of one line share ``draw``. A number stays a number (JSON, logfmt)."""
    if not isinstance(template, str):
        return template
    text = template.format_map(Draw() if draw is None else draw)
    return int(text) if text.isdigit() else text

# --- Log formats: each component's own line shape and clock (lt: SGT, u: UTC) -------------------
PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}
SYSLOG = {"DEBUG": 135, "INFO": 134, "WARN": 132, "ERROR": 131, "FATAL": 130}  # facility local0
PG = {"INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL", "DEBUG": "DEBUG"}

def logfmt(pairs: dict) -> str:
    quote = lambda s: f'"{s}"' if (" " in s or "=" in s or not s) else s  # noqa: E731
    return " ".join(f"{k}={quote(str(v))}" for k, v in pairs.items())

def jsonl(doc: dict, kv: dict) -> str:
    return json.dumps({**doc, **{k: v for k, v in kv.items() if k not in doc}}, separators=(",", ":"))

FORMATS = {
    "berth-planner": lambda lt, u, lvl, text, kv: (  # logback, SGT wall time
        f"{lt:%Y-%m-%d %H:%M:%S}.{ms(lt)} {lvl:<5} [{kv.get('thread', f'planner-{lt.second % 4 + 1}')}] "
        f"{kv.get('logger', 'c.t.berth.PlanService')} - {text}"),
    "qc-gateway": lambda lt, u, lvl, text, kv: logfmt({  # Go logfmt, UTC
        "ts": f"{u:%Y-%m-%dT%H:%M:%S}.{ms(u)}Z", "level": lvl.lower(),
        "caller": kv.get("caller", "telemetry/ingest.go:142"), "msg": text, **kv}),
    "gate-ocr": lambda lt, u, lvl, text, kv: (  # Python logging with the offset
        f"{lt:%Y-%m-%d %H:%M:%S},{ms(lt)}+0800 {'WARNING' if lvl == 'WARN' else lvl} "
        f"[{kv.get('logger', 'gate.lane')}] {text}"),
    "yard-allocator": lambda lt, u, lvl, text, kv: jsonl(  # zap JSON, epoch seconds
        {"level": lvl.lower(), "ts": round(u.timestamp(), 3), "logger": kv.get("logger", "alloc"),
         "msg": text}, kv),
    "edi-broker": lambda lt, u, lvl, text, kv: (  # Java text, UTC ISO
        f"{u:%Y-%m-%dT%H:%M:%S}.{ms(u)}Z {lvl:<5} [{kv.get('thread', f'as2-in-{u.second % 4 + 1}')}] "
        f"{kv.get('logger', 'c.p.edi.Router')} - {text}"),
    "ais-ingest": lambda lt, u, lvl, text, kv: jsonl(  # pino JSON, epoch milliseconds
        {"level": PINO[lvl], "time": int(u.timestamp() * 1000), "pid": 1, "hostname": "ais-ingest-7d4b9c-2xk",
         "msg": text}, kv),
    "reefer-monitor": lambda lt, u, lvl, text, kv: (  # RFC 3164 syslog, SGT, no year
        f"<{SYSLOG[lvl]}>{lt:%b} {lt.day:2d} {lt:%H:%M:%S} {kv.get('host', 'reefer-gw-1')} "
        f"reeferd[2211]: {text}"),
    "billing": lambda lt, u, lvl, text, kv: (  # Spring Boot 3 console format, SGT with the offset
        f"{lt:%Y-%m-%dT%H:%M:%S}.{ms(lt)}+08:00 {lvl:>5} 1 --- [billing] "
        f"[{kv.get('thread', 'scheduling-1'):>15}] "
        f"{kv.get('logger', 'c.t.billing.InvoiceService'):<40} : {text}"),
    "msg-bus": lambda lt, u, lvl, text, kv: (  # RabbitMQ 3.12, UTC with the offset
        f"{u:%Y-%m-%d %H:%M:%S}.{u.microsecond:06d}+00:00 [{'warning' if lvl == 'WARN' else lvl.lower()}] "
        f"<0.{kv.get('erl', 4211)}.0> {text}"),
    "tos-db": lambda lt, u, lvl, text, kv: (  # PostgreSQL, log_line_prefix '%m [%p] %q%u@%d ', SGT
        f"{lt:%Y-%m-%d %H:%M:%S}.{ms(lt)} +08 [{kv.get('pid', 14000 + lt.minute * 13)}] "
        f"{kv.get('who', 'tos_app@tos') + ' ' if kv.get('who', 1) else ''}{PG[lvl]}:  {text}"),
    "partner-portal": lambda lt, u, lvl, text, kv: (  # nginx combined + request time, SGT
        f'{kv.get("ip", "203.0.113.9")} - - [{lt:%d/%b/%Y:%H:%M:%S} +0800] "{text}" {kv.get("status", 200)} '
        f'{kv.get("bytes", 512)} "-" "{kv.get("ua", "Mozilla/5.0")}" '
        f'rt={kv.get("rt", f"0.{lt.microsecond % 190 + 12:03d}")}'),
}
HOSTS = {"berth-planner": "berth-planner-0", "qc-gateway": "qcgw-01", "gate-ocr": "gate-ocr-2",
         "yard-allocator": "yard-alloc-6f9c-1", "edi-broker": "edi-broker-a", "billing": "billing-1",
         "ais-ingest": "ais-ingest-7d4b9c-2xk", "reefer-monitor": "reefer-gw-1", "msg-bus": "bus-1",
         "tos-db": "tos-db-1", "partner-portal": "portal-web-1"}
HIDDEN = {"thread", "logger", "caller", "who", "erl", "ua", "bytes", "rt"}  # in the line, not attributes

EVENTS: list[tuple[datetime, str, str, str, dict]] = []

def emit(t: datetime, svc: str, lvl: str, text: str, **kv: object) -> None:
    EVENTS.append((t, svc, lvl, text, kv))

def every(svc: str, start: datetime, end: datetime, gap: tuple[float, float], lvl: str, template: str,
          since: datetime | None = None, **kv: object) -> None:
    """A repeating line from ``start`` to ``end``, ``gap`` (seconds, min and max) between two;
    ``{age}`` is the minutes since ``since``."""
    t = start + timedelta(seconds=R.uniform(0, gap[0]))
    while t < end:
        draw = Draw(age=int((t - since).total_seconds() // 60)) if since else Draw()
        emit(t, svc, lvl, str(fill(template, draw)), **{k: fill(v, draw) for k, v in kv.items()})
        t += timedelta(seconds=R.uniform(*gap), microseconds=R.randrange(1000000))

# --- Everyday chatter: (weight, level, text, fields) per component, and its lines per hour ----
CHATTER = {  # weight level text | fields (a line's own key=value pairs, or where it goes in the line)
    "berth-planner": """
6 INFO berth window recalculated for {vessel} ({voy}) at {berth}: {n} moves/h planned
4 INFO ETA update {vessel} IMO {imo} from AIS fix, pilot boarding {berth} | logger=c.t.berth.EtaTracker
3 INFO stowage plan BAPLIE received for {vessel} voyage {voy}, {big} units | logger=c.t.berth.BaplieImporter
2 INFO crane split published for {vessel}: {qc} lead, 3 cranes
1 WARN berth window for {vessel} overlaps maintenance slot at {berth} by {n} min, keeping plan
1 WARN slow query on vessel_visits took {ms_slow} ms | logger=c.t.berth.VisitRepository""",
    "qc-gateway": """
8 INFO move recorded | crane={qc} container={c} kind=DSCH cycle_s={n}
5 INFO move recorded | crane={qc} container={c} kind=LOAD cycle_s={n}
3 INFO telemetry batch flushed | crane={qc} frames={big} publish_ms={ms}
1 WARN spreader twistlock sensor flapping | crane={qc} caller=plc/faults.go:88
1 WARN PLC heartbeat late | crane={qc} late_ms={ms_slow} caller=plc/session.go:61""",
    "gate-ocr": """
8 INFO lane={lane} txn={txn} truck={truck} read {c} conf={conf} -> AUTO, appointment {appt} matched
4 INFO lane={olane} txn={txn} truck={truck} out-gate {c} customs=RELEASED -> EXIT
3 INFO POST /appointments 201 {appt} partner={partner} {ms}ms | logger=tas.api
2 INFO lane={lane} slot for {c} from yard-allocator: {block}-{slot} ({ms} ms)
1 WARN lane={lane} txn={txn} truck={truck} outside appointment window {appt} (late {n} min), admitted
1 WARN lane={lane} camera 3 heartbeat missed, retrying | logger=gate.camera""",
    "yard-allocator": """
7 INFO slot assigned | container={c} block={block} slot={slot} took_ms={ms}
3 INFO housekeeping move planned | container={c} from={block} to={block}
2 INFO crane move applied | crane={qc} container={c} block={block}
1 WARN block nearly full, spilling to neighbour | block={block} fill_pct=94
1 WARN reshuffle count above target | block={block} reshuffles={n} logger=policy""",
    "edi-broker": """
5 INFO CUSRES from SGCUSTOMS for {c}: RELEASED (ref {icn}) | logger=c.p.edi.CustomsHandler
4 INFO COPARN from {partner} processed, {n} containers
3 INFO CODECO sent to {partner}: {n} gate moves | thread=edi-out-1
2 INFO BAPLIE for {vessel} voyage {voy} validated, {big} segments
1 WARN COPARN from {partner} rejected: UNH segment count mismatch (expected {n})
1 WARN AS2 partner SGCUSTOMS slow MDN: {ms_slow} ms | thread=as2-out-1""",
    "ais-ingest": """
8 INFO position batch stored | msgs={big} vessels={n}
3 INFO vessel position | mmsi={mmsi} lat={lat} lon={lon} sog={sog}
6 ERROR NMEA sentence rejected: checksum mismatch | talker=AIVDM source=terrestrial-rx-2
1 WARN duplicate static report ignored | mmsi={mmsi}""",
    "reefer-monitor": """
8 INFO reading {reefer} {c} setpoint={temp}C supply={temp}C power=ON
2 INFO plug-in {reefer} {c} registered, setpoint {temp}C
2 WARN PTI overdue for {c} at {reefer} (last PTI > 365d)
1 WARN reading {reefer} modbus retry 1/3 (crc error) | host=reefer-gw-2""",
    "billing": """
5 INFO storage charge accrued for {c}: {n} day(s)
3 INFO gate event billed: {c} haulier {truck} | logger=c.t.billing.GateEventListener thread=amqp-listener-2
2 INFO invoice {inv} issued to {partner}
1 WARN tariff cache refresh took {ms_slow} ms | logger=c.t.billing.TariffCache""",
    "msg-bus": """
4 INFO accepting AMQP connection <0.{pid}.0> (10.40.2.{n}:5{big} -> 10.40.1.11:5672)
3 INFO connection <0.{pid}.0> (10.40.2.{n}:5{big} -> 10.40.1.11:5672): user 'svc' authenticated and \
granted access to vhost '/tos'
2 INFO closing AMQP connection <0.{pid}.0> (10.40.2.{n}:5{big} -> 10.40.1.11:5672, vhost: '/tos', user: 'svc')
1 WARN client unexpectedly closed TCP connection""",
    "tos-db": """
5 INFO checkpoint starting: time | who= pid=1187
5 INFO checkpoint complete: wrote {big} buffers ({few}.1%); 0 WAL file(s) added, 0 removed, {few} recycled\
 | who= pid=1187
3 INFO automatic vacuum of table "tos.public.container_events": index scans: 1 | who=
2 INFO duration: {ms_slow}.417 ms  statement: SELECT * FROM vessel_visits WHERE eta > now() ORDER BY eta
1 ERROR duplicate key value violates unique constraint "gate_txn_pkey\"""",
    "partner-portal": """
8 INFO GET /api/v1/containers/{c} HTTP/1.1 | bytes=812 ip={ip}
4 INFO GET /api/v1/vessels/schedule?berth={berth} HTTP/1.1 | bytes=4120 ip={ip}
3 INFO POST /api/v1/appointments HTTP/1.1 | status=201 bytes=233 ip={ip}
2 INFO GET /static/js/app.4f9a1c.js HTTP/1.1 | bytes=188211 ip={ip}
1 WARN POST /api/v1/login HTTP/1.1 | status=401 bytes=61 ip={ip}
1 WARN GET /api/v1/containers/{c} HTTP/1.1 | status=404 bytes=77 ip={ip}""",
}

def rows(text: str) -> list[list[str]]:
    """A text table: a row a line, cells between `` | ``."""
    return [[c.strip() for c in line.split(" | ")] for line in text.strip().splitlines()]

RATE = {"berth-planner": 14, "qc-gateway": 28, "gate-ocr": 32, "yard-allocator": 24, "edi-broker": 16,
        "ais-ingest": 26, "reefer-monitor": 20, "billing": 10, "msg-bus": 6, "tos-db": 12,
        "partner-portal": 30}
DAYTIME = {"gate-ocr", "partner-portal", "billing", "edi-broker"}  # follow the truck gate's hours
HOURLY = [0.3, 0.25, 0.2, 0.2, 0.3, 0.5, 0.8, 1.3, 1.5, 1.4, 1.3, 1.1,  # load per local hour: 24/7, two peaks
          1.0, 1.2, 1.4, 1.5, 1.4, 1.2, 1.0, 0.8, 0.7, 0.6, 0.5, 0.4]

DAILY = rows("""
01:30:00 | tos-db | archive-push: base backup started | who=backup@[local]
01:52:13 | tos-db | archive-push: base backup completed, 38.2 GB | who=backup@[local]
02:00:02 | billing | nightly storage invoice run started (cut-off 23:59:59) | logger=c.t.b.Nightly
02:23:41 | billing | nightly storage invoice run finished: {count} invoices, 0 failed | logger=c.t.b.Nightly
04:00:05 | edi-broker | spool housekeeping: interchanges past 7d moved to cold archive | logger=c.p.edi.Spool
06:00:00 | reefer-monitor | round complete: {count} reefers polled, {few} alarms open
12:00:00 | reefer-monitor | round complete: {count} reefers polled, {few} alarms open
18:00:00 | reefer-monitor | round complete: {count} reefers polled, {few} alarms open""")

# everyday lines an incident stops: service | from | to | text | only for these field values
MUTED = rows("""
edi-broker | 1 11:14 | 1 12:03 | CUSRES from SGCUSTOMS
gate-ocr | 1 11:14 | 1 12:04 | customs=RELEASED
ais-ingest | 1 17:58 | 1 18:53 | position
berth-planner | 1 17:58 | 1 18:56 | from AIS fix
gate-ocr | 2 07:28 | 2 08:25 | -> AUTO
qc-gateway | 2 10:04 | 2 10:37 | telemetry batch flushed
gate-ocr | 2 16:06 | 2 16:48 | from yard-allocator
yard-allocator | 2 16:06 | 2 16:47 | slot assigned
qc-gateway | 2 20:44 | 2 22:07 | recorded | QC05 QC06 QC07 QC08
qc-gateway | 2 20:44 | 2 22:07 | flushed | QC05 QC06 QC07 QC08
yard-allocator | 2 20:44 | 2 22:07 | crane move applied | QC05 QC06 QC07 QC08""")

def muted(svc: str, t: datetime, line: str, kv: dict) -> bool:
    return any(m_svc == svc and when(start) <= t < when(end) and text in line
               and (not only or set(only[0].split()) & {str(v) for v in kv.values()})
               for m_svc, start, end, text, *only in MUTED)

def template(head: str, rest: Sequence[str]) -> tuple[int, str, str, dict]:
    weight, level, line = head.split(" ", 2)
    return int(weight), level, line, pairs(rest)

def chatter() -> None:
    """Every component's everyday lines, hour by hour, then each day's fixed points."""
    templates = {svc: [template(head, rest) for head, *rest in rows(text)] for svc, text in CHATTER.items()}
    for hour in (DAY1 + timedelta(hours=h) for h in range(48)):
        for svc, lines in templates.items():
            lam = RATE[svc] * (HOURLY[hour.hour] if svc in DAYTIME else 1.0)
            for _ in range(max(0, round(R.gauss(lam, math.sqrt(lam))))):  # ~ Poisson(lam)
                t = hour + timedelta(seconds=R.uniform(0, 3600))
                _, lvl, text, fields = R.choices(lines, [w for w, *_ in lines])[0]
                draw = Draw()
                line, kv = str(fill(text, draw)), {k: fill(v, draw) for k, v in fields.items()}
                if not muted(svc, t, line, kv):
                    emit(t, svc, lvl, line, **kv)
    for day in (DAY1, DAY2):
        for hhmms, svc, line, *rest in DAILY:
            emit(at(day, hhmms), svc, "INFO", str(fill(line)), **pairs(rest))

# --- Changes: deploys and config changes (the incidents' own and the everyday ones) -----------
DEPLOYS = rows("""
DEP-4410 | berth-planner | 4.12.0 | 1 09:40 | 6 | ci-bot | quay crane split heuristics for tandem lifts
DEP-4411 | billing | 7.3.2 | 1 11:05 | 4 | ci-bot | reefer power surcharge tariff codes for Q2
DEP-4412 | partner-portal | 2.31.0 | 1 13:20 | 5 | ci-bot | new container tracking page, status timeline view
DEP-4413 | reefer-monitor | 1.9.4 | 1 16:30 | 3 | j.ong | modbus gateway firmware list update
DEP-4414 | ais-ingest | 3.2.1 | 1 22:10 | 4 | ci-bot | dependency bumps (undici, pino)
DEP-4415 | berth-planner | 4.12.1 | 2 09:52 | 5 | ci-bot | fix ETA rounding in berth window export
DEP-4416 | edi-broker | 6.4.0 | 2 13:05 | 7 | ci-bot | COPARN v2.1 mapping for PIL
DEP-4417 | gate-ocr | 5.2.1 | 2 15:40 | 6 | ci-bot | lane UI: appointment window; retry slot request once
DEP-4418 | yard-allocator | 2.19.0 | 2 20:15 | 5 | ci-bot | reefer stack preference for block F
DEP-4419 | qc-gateway | 3.8.0 | 2 20:38 | 6 | ci-bot | telemetry decoder rewrite for frame schema v5
DEP-4420 | qc-gateway | 3.7.4 | 2 22:02 | 4 | m.rahman | rollback to 3.7.4""")
CONFIGS = rows("""
CHG-8801 | yard-allocator | yard.reshuffle_weight | 0.6 | 0.7 | s.koh | 1 08:45 | YRD-412
CHG-8802 | edi-broker | as2.sgcustoms.mdn_timeout_ms | 8000 | 12000 | l.chua | 1 10:20 | EDI-233
CHG-8803 | partner-portal | vessel_eta.refresh_interval_s | 60 | 300 | p.nair | 1 17:50 | WEB-907
CHG-8804 | reefer-monitor | alarm.supply_deviation_c | 3.0 | 2.5 | j.ong | 1 20:30 | RFR-118
CHG-8805 | yard-allocator | yard.stack_height_max | 5 | 6 | s.koh | 2 07:05 | YRD-415
CHG-8806 | gate-ocr | ocr.min_confidence | 0.85 | 0.97 | r.tan | 2 07:28 | GATE-1187
CHG-8807 | gate-ocr | ocr.min_confidence | 0.97 | 0.85 | m.rahman | 2 08:24 | INC-3391
CHG-8808 | msg-bus | queue.reefer.readings.max_length | 500000 | 800000 | d.lim | 2 11:10 | OPS-5530
CHG-8809 | billing | invoice.batch_size | 500 | 1000 | a.goh | 2 14:00 | FIN-77
CHG-8810 | berth-planner | eta.source_priority | ais,agent | ais,agent,pilot | w.tay | 2 18:20 | BRT-301""")

def when(day_hhmm: str) -> datetime:
    """``"2 07:28"``: a local time on the first or second day."""
    day, hhmm = day_hhmm.split()
    return at(DAY1 if day == "1" else DAY2, hhmm)

STARTED = rows("""
berth-planner | Started BerthPlannerApplication v{v} in 21.4 seconds | thread=main logger=c.t.b.App
billing | Started BillingApplication v{v} in 14.9 seconds (process running for 16.2) | thread=main
partner-portal | GET /healthz?version={v} HTTP/1.1 | ua=kube-probe/1.29 bytes=18 ip=10.40.0.1
reefer-monitor | reeferd {v} starting, 3 modbus gateways configured
ais-ingest | ais-ingest {v} listening, upstream stream feed.orbitais.example:443
edi-broker | edi-broker {v} started, AS2 partners: SGCUSTOMS + 14 lines | thread=main logger=c.p.edi.Main
gate-ocr | gate-ocr {v} started, 12 lanes, ocr model anpr-ctr-2026.11 | logger=gate.main
yard-allocator | allocator started | version={v} blocks=48
qc-gateway | qc-gateway starting | version={v} frame_schema={schema} caller=main.go:57""")
RELOADED = rows("""
yard-allocator | config reloaded | source=consul keys_changed=1 logger=config
edi-broker | configuration refreshed from config-server (1 property changed) | logger=c.p.edi.Config
partner-portal | POST /internal/config/reload HTTP/1.1 | ua=consul-template/0.37 ip=10.40.0.7
reefer-monitor | SIGHUP: configuration reloaded
gate-ocr | config reloaded from consul (keys changed: 1) | logger=gate.config
msg-bus | Applying policy 'reefer-readings-limit' to queue 'reefer.readings' in vhost '/tos'
billing | Refreshing beans: 1 property changed | logger=o.s.c.c.r.RefreshEventListener
berth-planner | configuration refreshed, 1 key changed | logger=c.t.berth.ConfigRefresher""")

def pairs(cells: Sequence[str], **names: str) -> dict:
    """A row's ``key=value`` cell as fields (numbers as numbers), ``{name}`` filled from ``names``."""
    out = {}
    for pair in (cells[0].split() if cells else []):
        key, value = (pair.format(**names) if names else pair).split("=", 1)
        out[key] = int(value) if value.isdigit() else value
    return out

def changes() -> None:
    started = {svc: (text, rest) for svc, text, *rest in STARTED}
    for _id, svc, ver, start, mins, *_ in DEPLOYS:
        names = {"v": ver, "schema": "v5" if ver == "3.8.0" else "v4+v5"}
        text, rest = started[svc]
        t = when(start) + timedelta(minutes=int(mins) - 1, seconds=R.randint(5, 50))
        emit(t, svc, "INFO", text.format(**names), **pairs(rest, **names))
    reloaded = {svc: (text, rest) for svc, text, *rest in RELOADED}
    for _id, svc, *_mid, moment, _ticket in CONFIGS:
        text, rest = reloaded[svc]
        emit(when(moment) + timedelta(seconds=R.randint(3, 40)), svc, "INFO", text, **pairs(rest))

# --- The incidents' stories in the logs (their marks on the metrics are SPELLS below) ----------
def story_edi_spool() -> None:  # SHIP-4, 16 Mar: edi-broker's spool volume fills, customs releases stop
    watch = {"logger": "c.p.edi.DiskWatch", "thread": "watchdog"}
    for hh, pct in (("06:00", 88), ("08:00", 91), ("10:00", 95), ("11:00", 98)):
        emit(at(DAY1, hh) + timedelta(seconds=R.randint(1, 30)), "edi-broker", "WARN",
             f"disk usage of /data/edi/spool at {pct}% (warn at 85%)", **watch)
    every("edi-broker", at(DAY1, "11:14"), at(DAY1, "12:02"), (15, 45), "ERROR",
          "cannot persist inbound interchange UNB+UNOC:3+SGCUSTOMS+PSATOS ({icn}): java.io.IOException: "
          "No space left on device (/data/edi/spool/in)", logger="c.p.edi.Spool")
    every("edi-broker", at(DAY1, "11:15"), at(DAY1, "12:02"), (60, 150), "WARN",
          "AS2 MDN to SGCUSTOMS not sent for message {icn}: spool write failed, partner will resend",
          thread="as2-out-1")
    every("gate-ocr", at(DAY1, "11:17"), at(DAY1, "12:06"), (20, 50), "WARN",
          "lane={olane} txn={txn} truck={truck} out-gate {c} customs=PENDING (no CUSRES received) -> HOLD")
    every("gate-ocr", at(DAY1, "11:30"), at(DAY1, "12:00"), (200, 400), "WARN",
          "out-gate hold queue at {n} trucks", logger="gate.supervisor")
    emit(at(DAY1, "12:01:37"), "edi-broker", "INFO", "spool housekeeping (manual): removed 18204 processed "
         "interchanges, /data/edi/spool at 41%", logger="c.p.edi.Spool")
    emit(at(DAY1, "12:03:10"), "edi-broker", "INFO",
         "SGCUSTOMS resend received: 212 CUSRES messages processed", logger="c.p.edi.CustomsHandler")
    every("edi-broker", at(DAY1, "10:40"), at(DAY1, "11:05"), (200, 400), "WARN",  # customs slow too
          "AS2 partner SGCUSTOMS slow MDN: {ms_slow} ms", thread="as2-out-1")

def story_ais_outage() -> None:  # SHIP-7, 16 Mar: the external AIS provider is down (the trap)
    s, e = at(DAY1, "17:58"), at(DAY1, "18:52")
    every("ais-ingest", s, e, (30, 34), "ERROR", "upstream stream error, reconnecting in 30s",
          upstream="feed.orbitais.example:443", status=503, err="503 Service Unavailable")
    every("ais-ingest", s + timedelta(minutes=1), e, (60, 65), "WARN", "no AIS positions received for 60s",
          port_area="SGSIN")
    every("berth-planner", at(DAY1, "18:05"), e + timedelta(minutes=4), (90, 200), "WARN",
          "ETA for {vessel} ({voy}) not refreshed for {age} min, last AIS fix 17:57",
          since=at(DAY1, "17:57"), logger="c.t.berth.EtaTracker")
    emit(at(DAY1, "18:52:40"), "ais-ingest", "INFO", "upstream stream connected",
         upstream="feed.orbitais.example:443", backlog_msgs=48211)

def story_ocr_threshold() -> None:  # SHIP-3, 17 Mar: ocr.min_confidence raised, lanes drop to manual
    every("gate-ocr", at(DAY2, "07:29"), at(DAY2, "08:25"), (8, 20), "WARN",
          "lane={lane} txn={txn} truck={truck} read {c} conf={lowconf} -> MANUAL (low confidence)")
    every("gate-ocr", at(DAY2, "07:29"), at(DAY2, "08:25"), (60, 200), "INFO",  # the few reads above 0.97
          "lane={lane} txn={txn} truck={truck} read {c} conf=0.98 -> AUTO, appointment {appt} matched")
    every("gate-ocr", at(DAY2, "07:40"), at(DAY2, "08:25"), (120, 240), "WARN",
          "manual clerk queue at {n} transactions, oldest waiting {m} min", logger="gate.supervisor")
    every("gate-ocr", at(DAY2, "06:50"), at(DAY2, "08:10"), (500, 900), "WARN",  # it rained that morning
          "lane={lane} camera 2 image quality low (wet lens?), score 0.6{n}", logger="gate.camera")
    every("partner-portal", at(DAY2, "07:50"), at(DAY2, "08:20"), (60, 180), "INFO",
          "GET /api/v1/gate/queue-status HTTP/1.1", bytes=310, rt="0.022", ip="{ip}")

def story_bus_memory() -> None:  # SHIP-5, 17 Mar: unconsumed edi.archive grows, the bus blocks publishers
    sink = {"logger": "c.p.edi.ArchiveSink", "thread": "amqp-1"}
    emit(at(DAY2, "08:47:31"), "edi-broker", "WARN",
         "AMQP consumer on queue 'edi.archive' cancelled by broker (basic.cancel), archive sink idle", **sink)
    emit(at(DAY2, "08:47:31"), "msg-bus", "WARN", "Consumer amq.ctag-Qe8Zb0k on channel 1 has timed out "
         "waiting for a consumer acknowledgement of a delivery with delivery tag = 19231. "
         "Timeout used: 1800000 ms. Closing channel.", erl=9012)
    s, e = at(DAY2, "10:04:12"), at(DAY2, "10:36:05")
    emit(s, "msg-bus", "WARN", "vm_memory_high_watermark set. Memory used:3435977216 allowed:3435973836")
    emit(s, "msg-bus", "WARN", "memory resource limit alarm set on node 'rabbit@bus-1'.")
    emit(s, "msg-bus", "WARN", "*** Publishers will be blocked until this alarm clears ***")
    every("qc-gateway", s, e, (15, 40), "ERROR", "publish blocked by broker", crane="{qc}",
          reason="connection.blocked: low on memory", caller="bus/publisher.go:77")
    every("qc-gateway", s + timedelta(minutes=3), e, (90, 180), "WARN",
          "telemetry buffer full, dropping oldest frames", crane="{qc}", dropped="{big}",
          caller="bus/buffer.go:40")
    every("gate-ocr", s, e, (25, 60), "ERROR",
          "lane={lane} txn={txn} publish gate.transactions timed out after 5000 ms (broker blocked)",
          logger="gate.events")
    every("reefer-monitor", s, e, (40, 90), "ERROR",
          "failed to publish reading batch ({n} readings): broker connection blocked", host="reefer-gw-2")
    every("yard-allocator", s, e, (40, 80), "ERROR", "publish yard.events failed",
          err="amqp: connection blocked", logger="events")
    every("ais-ingest", s, e, (60, 120), "WARN", "bus backpressure, buffering positions", buffered="{big}")
    every("msg-bus", s, e, (120, 240), "WARN",
          "connection <0.{pid}.0> (10.40.2.{n}:5{big} -> 10.40.1.11:5672): blocked by memory alarm")
    emit(at(DAY2, "10:31:20"), "edi-broker", "INFO",
         "archive sink restarted by operator, consuming 'edi.archive' (prefetch 500)", **sink)
    emit(e, "msg-bus", "INFO", "vm_memory_high_watermark clear. Memory used:3092376064 allowed:3435973836")
    emit(e, "msg-bus", "INFO", "memory resource limit alarm cleared on node 'rabbit@bus-1'")

def story_vacuum_full() -> None:  # SHIP-6, 17 Mar: a DBA's VACUUM FULL locks yard_slots, 2 hops away
    s, e = at(DAY2, "16:06:02"), at(DAY2, "16:47:03")
    dba = {"who": "dba_lim@tos", "pid": 30114}
    emit(s, "tos-db", "INFO", "statement: VACUUM (FULL, ANALYZE, VERBOSE) yard_slots;", **dba)
    emit(s + timedelta(seconds=1), "tos-db", "INFO", 'vacuuming "public.yard_slots"', **dba)
    every("tos-db", s + timedelta(seconds=20), e, (20, 50), "INFO",
          "process {pid} still waiting for AccessShareLock on relation 16522 of database 16401 after "
          "1000.{n} ms", pid="{pid}", who="yard_alloc@tos")
    every("tos-db", s + timedelta(minutes=1), e, (30, 70), "ERROR",
          "canceling statement due to statement timeout", who="yard_alloc@tos")
    every("yard-allocator", s + timedelta(minutes=1), e, (20, 45), "ERROR", "slot query failed",
          container="{c}", err="pq: canceling statement due to statement timeout", took_ms=5002,
          logger="store")
    every("gate-ocr", s + timedelta(minutes=2), e + timedelta(minutes=1), (12, 30), "ERROR",
          "lane={lane} txn={txn} truck={truck} slot request to yard-allocator timed out after 5000 ms "
          "(retry 1/1 failed)")
    every("gate-ocr", s + timedelta(minutes=6), e, (240, 420), "WARN",
          "in-gate queue at {n} trucks, lane {lane} slow", logger="gate.supervisor")
    emit(e, "tos-db", "INFO",
         "duration: 2461003.882 ms  statement: VACUUM (FULL, ANALYZE, VERBOSE) yard_slots;", **dba)

def story_frame_decoder() -> None:  # SHIP-2, 17 Mar: qc-gateway 3.8.0 drops the v4 frame parser
    s, e = at(DAY2, "20:44:20"), at(DAY2, "22:06:30")
    for crane in OLD_CRANES:
        every("qc-gateway", s + timedelta(seconds=R.randint(5, 40)), e, (25, 60), "ERROR",
              "frame decode failed", crane=crane, frame_ver=4, err="unsupported frame version 4 (want >= 5)",
              caller="telemetry/decode.go:203")
        every("qc-gateway", s + timedelta(minutes=5), e, (600, 700), "WARN", "no moves recorded in 5m",
              crane=crane, caller="telemetry/watch.go:31")
    every("yard-allocator", at(DAY2, "20:55"), e, (120, 240), "WARN",
          "discharge confirmation missing, container still ON_VESSEL", crane=R.choice(OLD_CRANES),
          container="{c}", logger="reconcile")
    every("qc-gateway", at(DAY2, "20:10"), at(DAY2, "21:30"), (600, 900), "WARN",
          "spreader twistlock sensor flapping", crane="QC07", caller="plc/faults.go:88")

STORIES = [story_edi_spool, story_ais_outage, story_ocr_threshold, story_bus_memory,
           story_vacuum_full, story_frame_decoder]

# --- Tables --------------------------------------------------------------------------------------
DEPENDENCIES = rows("""
gate-ocr | yard-allocator | sync | HTTP | slot assignment for every in-gate drop-off (5 s timeout)
gate-ocr | edi-broker | sync | HTTP | customs release status at out-gate (CUSRES)
gate-ocr | tos-db | sync | PostgreSQL | appointments, gate transactions (primary tos-db-1)
gate-ocr | msg-bus | async | AMQP | publishes gate.transactions
yard-allocator | tos-db | sync | PostgreSQL | yard_slots, container positions (primary tos-db-1)
yard-allocator | msg-bus | async | AMQP | consumes crane.moves, publishes yard.events
qc-gateway | msg-bus | async | AMQP | publishes crane.moves and telemetry
berth-planner | ais-ingest | async | AMQP | vessel positions via ais.positions
berth-planner | tos-db | sync | PostgreSQL | vessel_visits, berth windows (primary tos-db-1)
ais-ingest | OrbitAIS (external) | sync | HTTPS stream | satellite + terrestrial AIS, feed.orbitais.example
ais-ingest | msg-bus | async | AMQP | publishes ais.positions
reefer-monitor | msg-bus | async | AMQP | publishes reefer.readings
reefer-monitor | tos-db | sync | PostgreSQL | reefer plug-in registry (primary tos-db-1)
edi-broker | SGCUSTOMS (external) | sync | AS2 | customs declarations and releases (CUSDEC/CUSRES)
edi-broker | msg-bus | async | AMQP | publishes edi.archive, a copy of every segment (its sink consumes it)
edi-broker | tos-db | sync | PostgreSQL | customs status per container (primary tos-db-1)
billing | tos-db | sync | PostgreSQL | tariffs, invoices (primary tos-db-1)
billing | msg-bus | async | AMQP | consumes gate.transactions, yard.events
partner-portal | tos-db | sync | PostgreSQL | container status and events: read-only replica tos-db-2
partner-portal | berth-planner | sync | HTTP | vessel schedule and ETAs
partner-portal | gate-ocr | sync | HTTP | truck appointments API
tos-db | tos-db | async | streaming replication | tos-db-2 is a hot standby of tos-db-1""")
BASE = {  # req_per_min, error_pct, p95_ms, cpu_pct, mem_pct
    "berth-planner": (40, 0.1, 180, 22, 55), "qc-gateway": (2400, 0.05, 12, 35, 41),
    "gate-ocr": (90, 0.4, 950, 48, 62), "yard-allocator": (160, 0.1, 45, 30, 47),
    "edi-broker": (55, 0.8, 220, 18, 66), "ais-ingest": (1800, 2.5, 8, 25, 38),
    "reefer-monitor": (300, 0.3, 30, 15, 33), "billing": (70, 0.1, 140, 20, 58),
    "msg-bus": (5200, 0.0, 3, 28, 40), "tos-db": (2100, 0.02, 9, 34, 71),
    "partner-portal": (120, 0.9, 85, 17, 44),
}
# an incident's mark on service_metrics: service | from | to | col=N (set), xN (times), +N, ramp:LO:HI
SPELLS = rows("""
edi-broker | 1 11:15 | 1 12:05 | error_pct=x30 p95_ms=x3
gate-ocr | 1 11:20 | 1 12:05 | p95_ms=x2
ais-ingest | 1 18:00 | 1 18:50 | req_per_min=0 cpu_pct=4
gate-ocr | 2 07:30 | 2 08:25 | p95_ms=x9
msg-bus | 2 08:50 | 2 10:05 | mem_pct=ramp:40:100
msg-bus | 2 10:05 | 2 10:35 | mem_pct=100
msg-bus | 2 10:05 | 2 10:35 | req_per_min=x0.2
qc-gateway | 2 10:05 | 2 10:35 | error_pct=+40 p95_ms=x60
gate-ocr | 2 10:05 | 2 10:35 | error_pct=+12
reefer-monitor | 2 10:05 | 2 10:35 | error_pct=+30
yard-allocator | 2 10:05 | 2 10:35 | error_pct=+6
yard-allocator | 2 16:05 | 2 16:50 | p95_ms=x110 error_pct=+35
gate-ocr | 2 16:05 | 2 16:50 | p95_ms=x5 error_pct=+25
qc-gateway | 2 20:45 | 2 22:05 | error_pct=+18 req_per_min=x0.55""")

def spell(svc: str, t: datetime, col: str, value: float) -> float:
    for s_svc, start, end, cell in SPELLS:
        move = dict(pair.split("=") for pair in cell.split()).get(col)
        if s_svc != svc or move is None or not when(start) <= t < when(end):
            continue
        if move[0] in "x+":
            value = value * float(move[1:]) if move[0] == "x" else value + float(move[1:])
        elif move.startswith("ramp:"):
            lo, hi = (float(x) for x in move.split(":")[1:])
            value = lo + (hi - lo) * ((t - when(start)) / (when(end) - when(start)))
        else:
            value = float(move)
    return value

FIVE_MINUTES = [DAY1 + timedelta(minutes=5 * i) for i in range(2 * 24 * 12)]  # the metric exports' rows

def service_metrics() -> list[list[object]]:
    rows: list[list[object]] = []
    for t in FIVE_MINUTES:
        for svc in FORMATS:
            req, err, p95, cpu, mem = BASE[svc]
            f = HOURLY[t.hour] if svc in DAYTIME else 0.8 + 0.2 * HOURLY[t.hour]
            vals = {"req_per_min": req * f * R.uniform(0.9, 1.1), "error_pct": err * R.uniform(0.5, 1.6),
                    "p95_ms": p95 * (0.8 + 0.3 * f) * R.uniform(0.85, 1.2),
                    "cpu_pct": cpu * (0.7 + 0.3 * f) * R.uniform(0.9, 1.1), "mem_pct": mem + R.uniform(-2, 2)}
            v = {k: spell(svc, t, k, x) for k, x in vals.items()}
            rows.append([t.isoformat(), svc, round(v["req_per_min"]), round(v["error_pct"], 2),
                         round(v["p95_ms"]), round(v["cpu_pct"], 1), round(v["mem_pct"], 1)])
    return rows

def lag_curve(t: datetime) -> float:
    """tos-db-2's replay lag (s) on 16 Mar: a WAL burst on the primary it cannot keep up with."""
    s, peak, e = at(DAY1, "14:58"), at(DAY1, "15:45"), at(DAY1, "16:00")
    if s <= t < peak:
        return (20 + 1360 * ((t - s) / (peak - s))) * R.uniform(0.92, 1.05)
    if peak <= t < e:
        return 1380 * (1 - (t - peak) / (e - peak)) * R.uniform(0.9, 1.0)
    return R.uniform(0.1, 0.9)

def db_stats() -> list[list[object]]:
    rows: list[list[object]] = []
    for t in FIVE_MINUTES:
        f = 0.7 + 0.3 * HOURLY[t.hour]
        wal = 90 * f * R.uniform(0.8, 1.2) * (9 if at(DAY1, "14:50") <= t < at(DAY1, "15:40") else 1)
        locks, longest = R.choice([0, 0, 0, 1, 2]), R.randint(1, 40)
        if at(DAY2, "16:05") <= t < at(DAY2, "16:50"):  # the VACUUM FULL holds its lock from 16:06 to 16:47
            held = min(t, at(DAY2, "16:47")) - at(DAY2, "16:06")
            locks, longest = R.randint(38, 61), max(1, int(held.total_seconds()))
        conns = int(160 * f + R.randint(-10, 10)) + (locks if locks > 5 else 0)
        rows.append([t.isoformat(), "tos-db-1", "primary", conns, 400, round(1900 * f * R.uniform(0.9, 1.1)),
                     locks, longest, round(wal, 1), "", round(34 * f * R.uniform(0.9, 1.1), 1)])
        rows.append([t.isoformat(), "tos-db-2", "replica", int(45 * f) + R.randint(-5, 5), 200,
                     round(600 * f * R.uniform(0.9, 1.1)), 0, R.randint(1, 9), "", round(lag_curve(t), 1),
                     round(21 * f * R.uniform(0.9, 1.1), 1)])
    return rows

def crane_telemetry() -> list[list[object]]:
    rows: list[list[object]] = []
    idle = [("QC03", at(DAY1, "02:00"), at(DAY1, "06:10")), ("QC01", at(DAY2, "00:00"), at(DAY2, "05:30")),
            ("QC08", at(DAY1, "13:00"), at(DAY1, "15:30"))]  # cranes between vessels or in maintenance
    for t in FIVE_MINUTES:
        for crane in CRANES:
            busy = not any(c == crane and s <= t < e for c, s, e in idle)
            frames, moves = (R.randint(2700, 3100), R.randint(9, 14)) if busy else (R.randint(40, 60), 0)
            lag = R.randint(8000, 30000) if at(DAY2, "10:05") <= t < at(DAY2, "10:35") else R.randint(20, 90)
            if crane in OLD_CRANES and at(DAY2, "20:45") <= t < at(DAY2, "22:05"):
                frames, moves = 0, 0
            faults = R.choice([0, 0, 0, 0, 1]) + 2 * (crane == "QC07")
            rows.append([t.isoformat(), crane, frames, moves, lag, faults])
    return rows

QUEUES = {"crane.moves": 900, "gate.transactions": 60, "reefer.readings": 280, "ais.positions": 1500,
          "yard.events": 150, "edi.archive": 430, "billing.events": 70}  # messages per second

def bus_queues() -> list[list[object]]:
    rows: list[list[object]] = []
    stop, alarm, restart = at(DAY2, "08:47:31"), at(DAY2, "10:04:12"), at(DAY2, "10:31:20")
    backlog = 0
    for t in FIVE_MINUTES:
        for q, rate in QUEUES.items():
            pub = rate * (0.8 + 0.2 * HOURLY[t.hour]) * R.uniform(0.9, 1.1)
            ready, consumers, deliver = R.randint(0, 40), 2, pub
            if q == "ais.positions" and at(DAY1, "17:58") <= t < at(DAY1, "18:52"):
                pub = deliver = 0
            pub *= 0.05 if alarm <= t < at(DAY2, "10:36") else 1  # the memory alarm blocks publishers
            if q == "edi.archive" and (backlog or stop <= t):  # no consumer from 08:47 to 10:31
                consumers, deliver = (0, 0.0) if t < restart else (2, pub + 1100)
                backlog = ready = max(0, int(backlog + 300 * (pub - deliver))) or ready
            rows.append([t.isoformat(), q, ready, round(pub, 1), round(deliver, 1), consumers])
    return rows

HEADERS = {
    "dependencies": "service depends_on call_type protocol notes",
    "deploys": "deploy_id service version started_at finished_at status deployed_by summary",
    "config_changes": "change_id service config_key old_value new_value changed_by changed_at ticket",
    "service_metrics": "ts service req_per_min error_pct p95_ms cpu_pct mem_pct",
    "db_stats": "ts instance role active_conns max_conns xact_per_s lock_waits longest_xact_s wal_mb_per_min "
                "replication_lag_s cpu_pct",
    "crane_telemetry": "ts crane_id telemetry_frames moves gateway_lag_ms spreader_faults",
    "bus_queues": "ts queue messages_ready publish_per_s deliver_per_s consumers",
}

def tables() -> dict[str, list[list]]:
    deploys = [[d, s, v, zulu(when(t)), zulu(when(t) + timedelta(minutes=int(m))), "SUCCEEDED", by, summary]
               for d, s, v, t, m, by, summary in DEPLOYS]
    configs = [[*c[:6], f"{when(c[6]):%Y-%m-%d %H:%M:%S}", c[7]] for c in CONFIGS]
    return {"dependencies": DEPENDENCIES, "deploys": deploys, "config_changes": configs,
            "service_metrics": service_metrics(), "db_stats": db_stats(),
            "crane_telemetry": crane_telemetry(), "bus_queues": bus_queues()}

# --- Runbooks, as the team wrote them ------------------------------------------------------------
KNOWLEDGE = {
    "known-noise.md": """# Known noise (read before paging anyone)
## ais-ingest checksum errors
`NMEA sentence rejected: checksum mismatch` at ERROR, all day, every day: terrestrial-rx-2 picks up
garbled sentences from the anchorage (vendor ticket open since 2025). Ignore unless the position
batch rate drops as well.
## reefer-monitor PTI overdue
`PTI overdue` warnings are the shipping lines' problem, not ours. Billing picks them up.
## partner-portal 401s
Bots and expired partner sessions hitting /api/v1/login. Only interesting above ~50/min.
## tos-db duplicate gate_txn_pkey
Lane PCs resend a transaction when the operator double-taps confirm. Harmless.
""",
    "gate-ocr-manual-fallback.md": """# Gate lanes falling back to manual clerks
When OCR reads come back with low confidence the lane sends the truck to a clerk, and the queue
backs up onto the flyover within 20 minutes.
## Usual causes
- **Rain and wet lenses.** Morning showers: look for `image quality low (wet lens?)` from gate.camera
  and ask the gate supervisor to trigger the lens blower on the affected lanes.
- **IR illuminators** failing at night on IG01-IG04 (ticket with the camera vendor).
- **Damaged or dirty container doors** on one line's boxes: check if one owner code dominates.
## What to do
Open extra clerk booths (gate supervisor, ext 4410); call the camera vendor past 3 lanes / 30 minutes.
""",
    "customs-edi.md": """# Customs releases not arriving (CUSRES)
Trucks at the out-gate wait on `customs=PENDING` until a CUSRES release arrives from Singapore
Customs through edi-broker.
## Most of the time it is Customs
SGCUSTOMS batches releases at busy times and their AS2 gateway slows down (`AS2 partner SGCUSTOMS
slow MDN`). Call the Customs EDI helpdesk for their queue status; they resend anything we did not
acknowledge.
## Checks on our side
- edi-broker up and its AS2 endpoint answering (`curl -k https://edi-broker-a:4080/as2/health`).
- Its certificates (rotated yearly in January).
- The spool volume: housekeeping moves processed interchanges to cold archive at 04:00.
""",
    "qc-telemetry.md": """# Quay crane telemetry gaps
Moves missing in the yard view usually means a crane's telemetry is not reaching qc-gateway.
## Crane side first
- PLC network: the crane's fibre ring switch reboots in rain (QC05-QC08 have the older switches).
- `PLC heartbeat late` for one crane: ask the crane technician to check the PLC cabinet.
- Spreader faults (`twistlock sensor flapping`) do not stop telemetry.
## Gateway side
qc-gateway publishes crane.moves to msg-bus; `publish blocked` means the bus is the problem.
crane_telemetry (frames per 5 minutes per crane) shows which cranes went quiet.
""",
    "msg-bus.md": """# msg-bus (RabbitMQ) flow control
## Memory alarm
When a node's memory passes `vm_memory_high_watermark` (0.4 of 8 GiB) RabbitMQ blocks every
publishing connection until it drops again; consumers keep working. Everything that publishes
(cranes, gate, reefers, yard) stalls at once. Usual reason: a queue with no consumer growing
without bound. Check bus_queues for `consumers = 0` and a growing `messages_ready`; restart that
consumer or, with the owner's OK, purge the queue.
""",
    "tos-db.md": """# tos-db (PostgreSQL 15) operations
tos-db-1 is the primary, tos-db-2 a hot standby fed by streaming replication. Read-only consumers
(the partner portal, reporting) read from tos-db-2.
## Replica behind
Customers see stale container status when tos-db-2 falls behind: `replication_lag_s` in db_stats.
Heavy write bursts on the primary (`wal_mb_per_min`) are the usual reason. It catches up on its
own; past 30 minutes point the portal at the primary.
## Locks and maintenance
`VACUUM FULL`, `CLUSTER` and `ALTER TABLE` take an ACCESS EXCLUSIVE lock: every query on the table
waits. Only in the Sunday 02:00-04:00 maintenance window, announced in #tos-ops. Plain VACUUM and
autovacuum do not block reads or writes.
""",
}

# --- The truth ---------------------------------------------------------------------------------
def logs(svc: str, d: datetime, h1: str, h2: str, pattern: str, contains: str) -> dict:
    args = {"service": svc, "start": at(d, h1).isoformat(), "end": at(d, h2).isoformat(), "pattern": pattern}
    return {"tool": "query_logs", "args": args, "contains": contains}

def sql(query: str, contains: str, d: datetime | None = None, h1: str = "", h2: str = "") -> dict:
    """A query_mysql step; ``{between}`` in the query is the window, in UTC as the tables keep it."""
    window = f"BETWEEN '{zulu(at(d, h1))}' AND '{zulu(at(d, h2))}'" if d else ""
    return {"tool": "query_mysql", "args": {"sql": query.format(between=window)}, "contains": contains}

def case(cid, kind, cls, question, service, day, h1, h2, onset, cause, root_cause, key_terms, distractors,
         runbook, evidence, note, expected="SUCCESS") -> dict:
    return {"id": cid, "kind": kind, "class": cls, "question": question, "service": service,
            "start": at(day, h1).isoformat(), "end": at(day, h2).isoformat(),
            "onset": at(day, onset).isoformat() if onset else None, "cause_service": cause,
            "root_cause": root_cause, "key_terms": key_terms, "distractors": distractors,
            "has_runbook": runbook is not None, "runbook": runbook, "expected_outcome": expected,
            "fallback_type": None, "evidence": evidence, "note": note}

def truth() -> dict:
    incidents = [case(
        "SHIP-1", "cause", "replication-lag",
        "partner portal customers say containers discharged this afternoon still show ON VESSEL — "
        "partner-portal between 15:05 and 15:50 on 16 Mar (SGT), why is the status stale?",
        "partner-portal", DAY1, "15:05", "15:50", "14:58", "tos-db",
        "tos-db's hot standby tos-db-2, which partner-portal reads from, fell up to ~23 minutes behind "
        "the primary (replication lag after a WAL burst on tos-db-1): the portal showed stale container data",
        ["tos-db", "lag"],
        ["partner-portal deploy DEP-4412 (2.31.0) at 13:20", "ais-ingest checksum errors (known noise)"],
        "tos-db",
        [sql("SELECT service, depends_on, notes FROM dependencies WHERE service = 'partner-portal'",
             "read-only replica tos-db-2"),
         sql("SELECT ts, instance, replication_lag_s FROM db_stats WHERE instance = 'tos-db-2' "
             "AND ts {between} ORDER BY replication_lag_s DESC LIMIT 3", "tos-db-2", DAY1, "15:00", "15:50")],
        "seen only in metrics (db_stats) and the dependencies table; no component logs the lag"), case(
        "SHIP-2", "cause", "bad-deploy",
        "no crane moves coming through from QC05-QC08 since ~20:50, yard still shows the discharged boxes "
        "ON_VESSEL. what's wrong with crane telemetry?",
        "qc-gateway", DAY2, "20:50", "22:00", "20:44", "qc-gateway",
        "deploy DEP-4419 of qc-gateway 3.8.0 removed the legacy frame parser; the older cranes QC05-QC08 "
        "send v4 telemetry frames, which now fail to decode (unsupported frame version 4), so their moves "
        "were never recorded; rolled back to 3.7.4 at 22:02",
        ["qc-gateway", "3.8.0"],
        ["yard-allocator deploy DEP-4418 (2.19.0) at 20:15", "QC07 spreader twistlock sensor warnings",
         "qc-telemetry runbook pointing at the crane-side PLC network"], "qc-telemetry",
        [logs("qc-gateway", DAY2, "20:40", "22:00", "decode", "unsupported frame version 4"),
         logs("qc-gateway", DAY2, "20:30", "20:50", "starting", "frame_schema=v5"),
         sql("SELECT deploy_id, service, version, started_at, summary FROM deploys "
             "WHERE started_at {between}", "3.8.0", DAY2, "20:00", "21:00")],
        "the question gives no date: it is the data's last day (17 Mar)"), case(
        "SHIP-3", "cause", "config-change",
        "in-gate lanes keep dropping to manual clerk this morning, trucks queued back to the flyover. "
        "17/03 07:35-08:20 SGT, what happened on gate-ocr?",
        "gate-ocr", DAY2, "07:35", "08:20", "07:28", "gate-ocr",
        "config change CHG-8806 raised gate-ocr's ocr.min_confidence from 0.85 to 0.97, so normal reads "
        "(confidence 0.88-0.96) were sent to manual clerks; reverted by CHG-8807 at 08:24",
        ["ocr", "min_confidence"],
        ["morning rain: 'image quality low (wet lens?)' camera warnings",
         "yard-allocator config change CHG-8805 (yard.stack_height_max) at 07:05",
         "gate-ocr-manual-fallback runbook blaming rain and lenses"], "gate-ocr-manual-fallback",
        [sql("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM config_changes "
             "WHERE service = 'gate-ocr' AND changed_at {between}", "CHG-8806", DAY2, "06:30", "08:30"),
         logs("gate-ocr", DAY2, "07:35", "08:20", "MANUAL", "-> MANUAL (low confidence)")],
        "the reads' confidences sit between the old and new thresholds; the runbook beside it blames rain"),
        case(
        "SHIP-4", "cause", "disk-full",
        "out-gate trucks held with customs PENDING on gate-ocr 16 Mar 11:20 to 12:00 — customs releases "
        "not coming through, why?",
        "gate-ocr", DAY1, "11:20", "12:00", "11:14", "edi-broker",
        "edi-broker's spool volume /data/edi/spool filled up (No space left on device), so inbound CUSRES "
        "customs releases could not be persisted or acknowledged and gate-ocr never received them",
        ["edi-broker", "spool"],
        ["SGCUSTOMS slow MDN warnings before the incident", "billing deploy DEP-4411 at 11:05",
         "edi-broker config change CHG-8802 (AS2 MDN timeout) at 10:20",
         "customs-edi runbook saying it is usually Customs"], "customs-edi",
        [logs("edi-broker", DAY1, "11:10", "12:00", "No space", "No space left on device"),
         logs("gate-ocr", DAY1, "11:20", "12:00", "PENDING", "customs=PENDING")],
        "in the logs alone, the mechanism in the failing dependency's own log; no disk metric exists"), case(
        "SHIP-5", "cause", "broker-memory-alarm",
        "lots of things alarming at once 2027-03-17 10:05-10:35 (SGT) — cranes, gate lanes, reefers all "
        "complaining. what's the root cause?",
        None, DAY2, "10:05", "10:35", "10:04", "msg-bus",
        "msg-bus (RabbitMQ rabbit@bus-1) hit its memory high watermark and blocked all publishers; the "
        "edi.archive queue had had no consumer since 08:47 and grew to ~2.1M messages",
        ["msg-bus", "memory"],
        ["berth-planner deploy DEP-4415 at 09:52", "ais-ingest checksum errors (known noise)"], "msg-bus",
        [logs("msg-bus", DAY2, "10:00", "10:35", "alarm", "memory resource limit alarm set"),
         sql("SELECT ts, queue, messages_ready, consumers FROM bus_queues WHERE ts {between} "
             "ORDER BY messages_ready DESC LIMIT 3", "edi.archive", DAY2, "09:30", "10:05")],
        "a system-wide question naming no service"), case(
        "SHIP-6", "cause", "lock-contention",
        "in-gate transactions timing out on gate-ocr between 16:10 and 16:45 on 17 Mar, lanes stuck "
        "waiting for slots — why?",
        "gate-ocr", DAY2, "16:10", "16:45", "16:06", "tos-db",
        "a manual VACUUM (FULL) of yard_slots on tos-db by dba_lim at 16:06 held an ACCESS EXCLUSIVE lock "
        "for 41 minutes; yard-allocator's slot queries hit statement timeouts, so gate-ocr's slot requests "
        "timed out",
        ["tos-db", "vacuum"],
        ["gate-ocr deploy DEP-4417 (5.2.1) at 15:40", "billing config change CHG-8809 at 14:00"], "tos-db",
        [logs("tos-db", DAY2, "16:00", "16:45", "VACUUM", "VACUUM (FULL, ANALYZE, VERBOSE) yard_slots"),
         logs("yard-allocator", DAY2, "16:05", "16:45", "statement timeout",
              "canceling statement due to statement timeout"),
         logs("gate-ocr", DAY2, "16:10", "16:45", "timed out", "slot request to yard-allocator timed out")],
        "the component asked about only shows the symptom; the cause is two hops upstream "
        "(gate-ocr -> yard-allocator -> tos-db)"), case(
        "SHIP-7", "trap", "external-provider",
        "berth-planner vessel ETAs not updating 16/03 18:05-18:45, planners flying blind on arrivals. why?",
        "berth-planner", DAY1, "18:05", "18:45", "17:58", None, None, [],
        ["partner-portal config change CHG-8803 (vessel_eta.refresh_interval_s) at 17:50"], None,
        [logs("ais-ingest", DAY1, "18:00", "18:45", "upstream", "503 Service Unavailable")],
        "the true cause is external (the OrbitAIS feed provider answered 503); the unrelated ETA-refresh "
        "change of another service shares the symptom's words", "FALLBACK"), case(
        "SHIP-8", "trap", "quiet-window",
        "finance says invoices look delayed — anything wrong with billing 17 Mar 03:10 to 03:30?",
        "billing", DAY2, "03:10", "03:30", None, None, None, [], [], None, [],
        "nothing wrong: the nightly invoice run finished at 02:23; the window holds only routine chatter",
        "FALLBACK")]
    return {"dataset": f"{NAME}-world", "timezone": "Asia/Singapore", "incidents": incidents,
            "description": "A container terminal operating system at a Singapore sea port, 16-17 Mar "
                           "2027 (SGT, UTC+08:00): 6 incidents with a cause, 1 trap, 1 quiet window."}

# --- Writing and checking ------------------------------------------------------------------------
MANIFEST = {"name": f"{NAME}-world", "timezone": "Asia/Singapore",
            "description": "Container terminal operating system of a Singapore sea port (berth planning, "
                           "quay crane telemetry, gate OCR and truck appointments, yard allocation, customs "
                           "EDI, AIS, reefers, billing, RabbitMQ, PostgreSQL, partner portal), 16-17 Mar."}

def write(out: Path) -> Path:
    chatter()
    changes()
    for story in STORIES:
        story()
    root = out / NAME
    (root / "tables").mkdir(parents=True, exist_ok=True)
    (root / "knowledge").mkdir(exist_ok=True)
    (root / "dataset.json").write_text(json.dumps(MANIFEST, indent=2) + "\n", encoding="utf-8")
    with open(root / "logs.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for t, svc, lvl, text, kv in sorted(EVENTS, key=lambda e: (e[0], e[1])):
            attrs = {"host": HOSTS[svc], **{k: v for k, v in kv.items() if k not in HIDDEN}}
            lt = t.astimezone(SGT)
            event = {"ts": f"{lt:%Y-%m-%dT%H:%M:%S}.{ms(lt)}+08:00", "service": svc, "level": lvl,
                     "message": FORMATS[svc](lt, t.astimezone(UTC), lvl, text, kv), "attrs": attrs}
            fh.write(json.dumps(event, ensure_ascii=False) + "\n")
    for name, table in tables().items():
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([HEADERS[name].split(), *table])
        (root / "tables" / f"{name}.csv").write_text(buf.getvalue(), encoding="utf-8")
    for name, text in KNOWLEDGE.items():
        (root / "knowledge" / name).write_text(text, encoding="utf-8")
    truth_text = json.dumps(truth(), indent=2, ensure_ascii=False) + "\n"
    (root / "truth.json").write_text(truth_text, encoding="utf-8")
    return root

def check(root: Path) -> list[str]:
    """Every truth evidence item's ``contains`` must appear where its step looks."""
    events = [json.loads(line) for line in (root / "logs.jsonl").read_text(encoding="utf-8").splitlines()]
    tables_text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((root / "tables").glob("*.csv")))
    problems = []
    for inc in json.loads((root / "truth.json").read_text(encoding="utf-8"))["incidents"]:
        for ev in inc["evidence"]:
            a, want = ev["args"], ev["contains"]
            found = want in tables_text if ev["tool"] == "query_mysql" else any(
                e["service"] == a["service"] and want in e["message"]
                and a["pattern"].lower() in e["message"].lower()
                and a["start"] <= datetime.fromisoformat(e["ts"]).isoformat(timespec="seconds") <= a["end"]
                for e in events)
            if not found:
                problems.append(f"{inc['id']}: {ev['tool']} does not find {want!r}")
    return problems

def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("usage: generate_world_ship.py OUT_DIR [--check]", file=sys.stderr)
        return 64
    root = write(Path(argv[0]))
    problems = check(root) if "--check" in argv[1:] else []
    print("\n".join(problems) or root, file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
