"""Generate the ``fleet`` incident world: an EV-charging network's backend, held out for measuring.

Deterministic and stdlib only: ``python scripts/generate_world_fleet.py [OUT_DIR]`` (default
``tests/data/worlds``) writes ``OUT_DIR/fleet/`` byte for byte the same on every run, in the
harness's dataset format (docs/design.md §11) with a ``truth.json`` next to it. It reuses the
World engine of ``scripts/generate_worlds.py`` (timeline, hooks, metric bends, writer) and keeps
that script's worlds untouched.

The world: ~4100 public chargers in the US South and Midwest speak OCPP over websockets to
ocpp-gateway; drivers start and stop sessions from the app (edge-gw, an nginx ingress) or with an
RFID card; sessions, billing, notifications, telemetry and roaming talk over rabbitmq and keep
their state in postgres (pg-core, with a streaming replica pg-replica that serves reads).
Services: edge-gw, ocpp-gateway, session-svc, authz, tariff, billing, locations,
telemetry-ingest, firmware-svc, notifier, roaming, rabbitmq, postgres, objstore. External or
infrastructure dependencies that do not log here (tsdb, tariff-cache, egress-proxy, the PSP, FCM,
the geocoder, the roaming hubs) appear only in the dependency table and in log text.

Logs are in US Central time (CST, UTC-6), 2026-02-10 00:00 to 2026-02-13 00:00 CST, with the
mixed formats of a real estate: nginx access lines, Go key=value lines and errors, Java exception
first lines, rabbitmq and postgres server lines. Metric exports are in Central wall time without
an offset (dataset.json says the zone), deploys in UTC, migrations in flyway's local time.

This world was built from how such systems fail, not from what any investigator's rules catch:
it is meant to be held out from tuning.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_worlds import (  # noqa: E402  (the engine lives next to this script)
    World,
    incident,
    iso,
    logs_ev,
    minutes,
    ms,
    sql_ev,
    stable_token,
    truth_of,
    zulu,
)

NAME = "fleet"

CST = timezone(timedelta(hours=-6))

# Charging demand: a workplace bump late morning, the commuter peak in the evening, fleets at night.
CURVE = [
    0.30, 0.24, 0.20, 0.18, 0.18, 0.22, 0.35, 0.55, 0.70, 0.72, 0.70, 0.72, 0.78, 0.76, 0.72, 0.74, 0.82,
    0.92, 1.00, 0.98, 0.88, 0.72, 0.55, 0.40,
]

PODS = {  # service -> replicas
    "edge-gw": 3, "ocpp-gateway": 4, "session-svc": 3, "authz": 2, "tariff": 2, "billing": 2,
    "locations": 2, "telemetry-ingest": 2, "firmware-svc": 1, "notifier": 2, "roaming": 1,
}
INITIAL = {"edge-gw": "2.14.0", "ocpp-gateway": "1.27.3", "session-svc": "7.4.1", "authz": "3.4.0",
           "tariff": "4.2.6", "billing": "3.0.4", "locations": "5.7.1", "telemetry-ingest": "2.7.4",
           "firmware-svc": "1.8.2", "notifier": "2.5.3", "roaming": "1.14.2"}
MQ_NODES = ("mq-1", "mq-2", "mq-3")
MQ_IP = {"mq-1": "10.40.6.11", "mq-2": "10.40.6.12", "mq-3": "10.40.6.13"}
EGRESS = "10.30.0.8:3128"

STATES = ["TX", "TX", "TX", "OK", "LA", "AR", "MO", "KS", "IL", "TN", "MN", "WI"]
SITES = [f"site-{STATES[i % len(STATES)]}-{1000 + 7 * i}" for i in range(380)]
MODELS = engine.table(None, "si", """
Alpine AC22 | 5
Voltra DC150 | 2
Kestrel AC11 | 3
""")
FW = {"Alpine AC22": "3.2.0", "Voltra DC150": "5.0.7", "Kestrel AC11": "2.9.3"}
APPS = engine.table(None, "si", """
ChargeNet/6.3.1 (iOS 17.2) | 4
ChargeNet/6.3.0 (Android 14) | 4
ChargeNet/6.2.4 (Android 13) | 1
fleet-portal/2.1 | 1
""")
EMSPS = engine.table(None, "ss", """
e-roam | US-EVX
e-roam | US-PLG
e-roam | CA-FLO
gridhub | US-CHP
gridhub | US-ELA
gridhub | US-SHL
""")
CITIES = [
    "Austin TX", "Dallas TX", "Houston TX", "Tulsa OK", "Little Rock AR", "St. Louis MO", "Wichita KS",
    "Springfield IL", "Nashville TN", "Minneapolis MN", "Madison WI", "San Antonio TX", "Baton Rouge LA",
    "Kansas City MO",
]


def legacy_site(site: str) -> bool:
    """Sites onboarded before 2024 have no time zone in the site registry (about a third)."""
    return int(site.rsplit("-", 1)[1]) % 3 == 1


def nginx_time(t: datetime) -> str:
    return t.astimezone(CST).strftime("%d/%b/%Y:%H:%M:%S -0600")


def local_text(t: datetime) -> str:
    """Metric exports' timestamps: Central wall time without an offset (dataset.json says the zone)."""
    return t.astimezone(CST).strftime("%Y-%m-%d %H:%M:%S")


def hhmm(t: datetime) -> str:
    return t.astimezone(CST).strftime("%H:%M")


class Fleet(World):
    """The charging backend's services, their pods and the driver and charger flows."""

    def __init__(self) -> None:
        super().__init__(NAME, 20260210, CST, datetime(2026, 2, 10, tzinfo=CST), 3, CURVE)
        self.deploys: list[list[Any]] = []
        self.changes: list[list[Any]] = []
        self.migrations: list[list[Any]] = []
        self.campaigns: list[list[Any]] = []
        self.after: list[Callable[[], None]] = []
        """Lines that report what the traffic did during an incident, written once it has run."""

    def pod(self, service: str, t: datetime) -> str:
        version = self.version(service, t, INITIAL[service])
        rs = stable_token(f"{service}:{version}", 9)
        i = self.rng.randrange(PODS[service])
        return f"{service}-{rs}-{stable_token(f'{service}:{version}:{i}', 5)}"

    def emit(self, t: datetime, service: str, level: str, message: str, **attrs: Any) -> None:
        """A line of one of the fleet's services, with its pod (or node) and running version."""
        if service in PODS:
            attrs = {
                "pod": self.pod(service, t), "version": self.version(service, t, INITIAL[service]), **attrs,
            }
        elif service == "rabbitmq":
            attrs = {"node": attrs.pop("node", None) or self.pick(MQ_NODES), **attrs}
        elif service == "postgres":
            attrs = {"instance": attrs.pop("instance", None) or "pg-core-0", **attrs}
        elif service == "objstore":
            attrs = {"node": attrs.pop("node", None) or f"objstore-{self.rng.randrange(4)}", **attrs}
        self.log(t, service, level, message, **attrs)

    def ctx(self) -> dict[str, Any]:
        n = min(int(4100 * self.r() ** 1.3), 4099)
        site = SITES[n % len(SITES)]
        model = MODELS[0][0] if n % 10 < 5 else (MODELS[1][0] if n % 10 < 7 else MODELS[2][0])
        return {
            "rid": self.hexid(16), "cp": f"CP-US-{10000 + n:05d}", "site": site, "model": model,
            "connector": 1 + (n % 2 if model != "Voltra DC150" else 0),
            "user": f"d-{self.between(100000, 999999)}",
            "tag": self.hexid(8 if n % 4 else 14).upper()
            if model != "Voltra DC150"
            else self.hexid(14),  # the Voltra DC chargers report card UIDs in lowercase
            "ua": self.weighted(APPS),
            "ip": f"{self.pick(['172.56', '98.97', '107.77', '24.155'])}."
            f"{self.between(1, 254)}.{self.between(1, 254)}",
        }


# --- flows ----------------------------------------------------------------------------------


def access(
    w: Fleet, t: datetime, c: dict[str, Any], method: str, path: str, status: int, took: int, upstream: str,
    size: int | None = None, extra: str = "",
) -> None:
    """One edge-gw (nginx) access line; the level follows the status."""
    level = "ERROR" if status >= 500 else ("WARN" if status >= 400 else "INFO")
    body = size if size is not None else (w.between(180, 2400) if status < 400 else w.between(90, 220))
    tail = f" {extra}" if extra else ""
    w.emit(t + ms(took), "edge-gw", level,
           f'{c["ip"]} - - [{nginx_time(t + ms(took))}] "{method} {path} '
           f'HTTP/1.1" {status} {body} "-" "{c["ua"]}" rt={took / 1000:.3f} upstream={upstream} '
           f"req_id={c['rid']}{tail}")


def flow_app_start(w: Fleet, t: datetime) -> None:
    """The app starts a session: account check, quote, RemoteStart, then the charger's StartTransaction."""
    c = w.ctx()
    c["session"] = "S-" + w.token(10)
    if w.fails("session->pg", t, c, path="/v2/sessions"):
        return
    if w.fails("session->mq", t, c):
        return
    took = w.lat(4, 20)
    if w.chance(0.3):
        w.emit(t + ms(took), "authz", "INFO",
               f'level=info msg="account ok" user={c["user"]} plan='
               f"{w.pick(['payg', 'payg', 'member', 'fleet'])} took={w.lat(1, 6)}ms")
    if w.fails("session->tariff", t + ms(took), c):
        return
    q = w.lat(6, 40)
    if w.chance(0.35):
        w.emit(t + ms(took + q), "tariff", "INFO",
               f"quote site={c['site']} connector={c['connector']} "
               f"energy=0.{w.between(29, 59)} USD/kWh idle=0.{w.between(10, 40)} USD/min ({q}ms)")
    took += q
    if w.fails("remote-start", t + ms(took), c):
        return
    rs = w.lat(300, 1800)
    if w.chance(0.4):
        w.emit(
            t + ms(took + rs), "ocpp-gateway", "INFO",
            f"cp={c['cp']} msg=RemoteStartTransaction connector={c['connector']} status=Accepted rtt={rs}ms",
        )
    took += rs
    if w.fails("ocpp->mq", t + ms(took), c, kind="start"):
        return
    took += w.lat(2000, 9000)
    w.emit(t + ms(took), "session-svc", "INFO",
           f"[amqp-listener-{w.between(1, 8)}] c.c.session.StartHandler : "
           f"session {c['session']} started cp={c['cp']} connector={c['connector']} user={c['user']} "
           f"site={c['site']}")
    access(w, t, c, "POST", "/v2/sessions", 201, took + w.lat(5, 30), "session-svc:8080")


def flow_rfid(w: Fleet, t: datetime) -> None:
    """A driver taps an RFID card at the charger: Authorize, then StartTransaction."""
    c = w.ctx()
    if w.fails("rfid-authorize", t, c):
        return
    took = w.lat(2, 12)
    if w.chance(0.15):
        w.emit(t + ms(took + 3), "ocpp-gateway", "INFO",
               f"cp={c['cp']} msg=Authorize idTag={c['tag']} status=Accepted")
    if w.fails("ocpp->mq", t + ms(took), c, kind="start"):
        return
    c["session"] = "S-" + w.token(10)
    w.emit(t + ms(took + w.lat(1500, 6000)), "session-svc", "INFO",
           f"[amqp-listener-{w.between(1, 8)}] "
           f"c.c.session.StartHandler : session {c['session']} started cp={c['cp']} connector="
           f"{c['connector']} idTag={c['tag'][:4]}**** site={c['site']}")


def flow_roaming(w: Fleet, t: datetime) -> None:
    """A partner's driver taps their card: authz does not know it, roaming asks the partner's hub."""
    c = w.ctx()
    hub, emsp = w.pick(EMSPS)
    c["hub"], c["emsp"] = hub, emsp
    if w.fails("roaming-authorize", t, c):
        return
    took = w.lat(120, 600)
    if w.chance(0.03):
        roam_reject(w, t, c, took, w.weighted([("NOT_ALLOWED", 6), ("BLOCKED", 3), ("EXPIRED", 1)]))
        return
    w.emit(
        t + ms(took), "roaming", "INFO",
        f"roaming.ocpi INFO realtime authorization token={emsp}*{c['tag'][:8]} via {hub}: ALLOWED ({took}ms)",
    )
    w.emit(t + ms(took + 4), "ocpp-gateway", "INFO",
           f"cp={c['cp']} msg=Authorize idTag={c['tag']} status=Accepted source=roaming")


def roam_reject(w: Fleet, t: datetime, c: dict[str, Any], took: int, answer: str) -> None:
    w.emit(t + ms(took), "roaming", "WARN",
           f"roaming.ocpi WARN realtime authorization token={c['emsp']}*"
           f"{c['tag'][:8]} via {c['hub']}: {answer} ({took}ms)")
    w.emit(t + ms(took + 4), "ocpp-gateway", "INFO",
           f"cp={c['cp']} msg=Authorize idTag={c['tag']} status=Invalid source=roaming")


def flow_stop(w: Fleet, t: datetime) -> None:
    """The charger stops a transaction: session closed, CDR written, priced, paid, driver notified."""
    c = w.ctx()
    c["session"] = "S-" + w.token(10)
    c["kwh"] = round(3 + 55 * w.r() ** 1.6, 2)
    if w.chance(0.25):
        w.emit(t, "ocpp-gateway", "INFO",
               f"cp={c['cp']} msg=StopTransaction transactionId="
               f"{w.between(1000000, 9999999)} meterStop={int(c['kwh'] * 1000)} reason="
               f"{w.weighted([('EVDisconnected', 6), ('Local', 3), ('Remote', 2)])}")
    if w.fails("ocpp->mq", t, c, kind="stop"):
        return
    t1 = t + ms(w.lat(20, 400))
    if w.fails("session->cdr", t1, c):
        return
    if w.chance(0.4):
        w.emit(t1, "session-svc", "INFO",
               f"[amqp-listener-{w.between(1, 8)}] c.c.session.StopHandler : "
               f"session {c['session']} completed cp={c['cp']} energy={c['kwh']}kWh duration="
               f"{w.between(9, 240)}m cdr=CDR-{w.token(8)}")
    t2 = t1 + ms(w.lat(200, 2500))
    price = round(c["kwh"] * (0.29 + 0.3 * w.r()), 2)
    c["price"] = price
    if w.fails("billing->psp", t2, c):
        return
    if w.chance(0.008):
        w.emit(
            t2 + ms(w.lat(300, 900)), "billing", "WARN",
            f"billing.charge WARN card declined session="
            f"{c['session']} amount={price} USD decline_code={w.pick(['insufficient_funds', 'do_not_honor'])}"
            " psp=paycore; retry in 24h",
        )
        return
    if w.chance(0.3):
        psp = w.lat(250, 900)
        w.emit(t2 + ms(psp), "billing", "INFO",
               f"billing.charge INFO charged session={c['session']} "
               f"amount={price} USD psp=paycore ref=pc_{w.hexid(14)} ({psp}ms via {EGRESS})")
    t3 = t2 + ms(w.lat(400, 1500))
    if w.fails("notifier->fcm", t3, c):
        return
    if w.chance(0.25):
        w.emit(t3, "notifier", "INFO",
               f"[notifier] push charging_complete user={c['user']} session="
               f"{c['session']} -> fcm ok message_id=0:{w.between(10**15, 10**16 - 1)}")


def flow_availability(w: Fleet, t: datetime) -> None:
    """The app's map polls a site's connector availability (locations reads the replica)."""
    c = w.ctx()
    path = f"/v2/sites/{c['site']}/availability"
    if w.fails("locations-threads", t, c, path=path):
        return
    took = w.lat(3, 25)
    if w.chance(0.2):
        w.emit(t + ms(took), "locations", "INFO",
               f"[http-nio-8080-exec-{w.between(1, 200)}] "
               f"c.c.locations.AvailabilityController : site={c['site']} connectors={w.between(2, 12)} "
               f"available={w.between(0, 6)} (pg-replica:5432 {w.lat(1, 9)}ms)")
    access(w, t, c, "GET", path, 200, took + w.lat(2, 9), "locations:8080")


def flow_search(w: Fleet, t: datetime) -> None:
    """The app searches chargers near an address: geocode, then a spatial query on the replica."""
    c = w.ctx()
    city = w.pick(CITIES)
    path = "/v2/sites?near=" + city.replace(" ", "+").replace(".", "") + f"&radius_km={w.pick([5, 10, 25])}"
    if w.fails("locations-threads", t, c, path=path):
        return
    if w.fails("locations->geocoder", t, c, path=path, city=city):
        return
    geo = w.lat(40, 220)
    took = geo + w.lat(5, 40)
    if w.chance(0.25):
        w.emit(t + ms(took), "locations", "INFO",
               f"[http-nio-8080-exec-{w.between(1, 200)}] "
               f'c.c.locations.SearchController : near="{city}" sites={w.between(3, 40)} geocoder='
               f"{geo}ms (maps.geoapi.example:443)")
    access(w, t, c, "GET", path, 200, took + w.lat(2, 9), "locations:8080")


FLOWS: list[tuple[Callable[[Fleet, datetime], None], float, float]] = [
    # flow, events per minute at the daily peak, share of its INFO lines the logs keep
    (flow_app_start, 3.0, 0.025), (flow_rfid, 3.5, 0.02), (flow_stop, 5.0, 0.035),
    (flow_availability, 8.0, 0.008), (flow_search, 1.5, 0.035), (flow_roaming, 2.0, 0.045),
]


def pod_name(service: str, version: str, i: int) -> str:
    """The name of replica ``i`` of a service's deployment at ``version`` (stable across restarts)."""
    return (
        f"{service}-{stable_token(f'{service}:{version}', 9)}-{stable_token(f'{service}:{version}:{i}', 5)}"
    )


def gw_heap(w: Fleet, t: datetime, i: int) -> float:
    """ocpp-gateway's resident memory per pod (MB): a slow leak in websocket session buffers."""
    kill = w.switch.get("oom", w.end)
    new = w.switch.get("DEP-3312", w.end)
    if t >= new:
        return 400 + 11.4 * (t - new).total_seconds() / 3600 + 6 * i
    if t >= kill:
        return 410 + 11.4 * (t - kill).total_seconds() / 3600 + 6 * i
    return 1958 - 5 * i + 11.4 * (t - w.start).total_seconds() / 3600


def background(w: Fleet) -> None:
    """Traffic and the periodic, harmless lines of every service over the whole span."""
    for minute, d in w.traffic(FLOWS):
        # The always-noisy one: chargers on flaky cellular links drop their websockets all day.
        for t in w.spread(minute, 0.11 + 0.05 * d):
            c = w.ctx()
            w.emit(t, "ocpp-gateway", "ERROR",
                   f"ws read failed cp={c['cp']}: websocket: close 1006 (abnormal closure): unexpected EOF")
            if w.chance(0.15):
                w.emit(t + timedelta(seconds=w.between(8, 90)), "ocpp-gateway", "INFO",
                       f"cp={c['cp']} connected from 100.64.{w.between(0, 255)}.{w.between(1, 254)} "
                       f'subprotocol=ocpp1.6 model="{c["model"]}"')
        for t in w.spread(minute, 0.05 * d):
            c = w.ctx()
            w.emit(
                t, "authz", "WARN", f'level=warn msg="unknown idTag" idTag={c["tag"].upper()} cp={c["cp"]}'
            )
        for t in w.spread(minute, 0.04 * d):
            w.emit(t, "notifier", "WARN",
                   f"[notifier] push failed user=d-{w.between(100000, 999999)}: "
                   "messaging/registration-token-not-registered; token removed")
        for t in w.spread(minute, 0.03 * d):
            c = w.ctx()
            access(w, t, c, "GET", "/v2/me", 401, w.lat(2, 9), "authz:8080")
        for t in w.spread(minute, 0.012):
            w.emit(t, "telemetry-ingest", "WARN",
                   f'level=warn msg="dropped duplicate meter value" '
                   f"cp=CP-US-{w.between(10000, 14099)} seq={w.between(1000, 99999)}")
        for t in w.spread(minute, 0.008):
            w.emit(t, "rabbitmq", "WARN",
                   f"[warning] <0.{w.between(9000, 30000)}.0> closing AMQP connection "
                   f"<0.{w.between(9000, 30000)}.0> (10.244.{w.between(0, 5)}.{w.between(2, 250)}:"
                   f"{w.between(32768, 60999)} -> 10.40.6.1{w.between(1, 3)}:5672, vhost: '/fleet', user: "
                   "'reports'): client unexpectedly closed TCP connection")
        for t in w.spread(minute, 0.006):
            w.emit(t, "postgres", "INFO",
                   f"LOG:  duration: {w.between(1200, 9000)}.{w.between(100, 999)} ms  "
                   "statement: SELECT date_trunc('day', started_at), site_id, sum(energy_wh) FROM sessions "
                   "GROUP BY 1, 2 (user=metabase)", instance="pg-replica-0")
        periodic(w, minute, d)
    w.info_keep = 1.0


def periodic(w: Fleet, minute: datetime, d: float) -> None:
    m = minute.minute
    if m % 20 == 0:
        t = minute + ms(w.between(0, 4000))
        if not w.fails("telemetry-flush", t, {}):
            w.emit(t, "telemetry-ingest", "INFO",
                   f'level=info msg="flushed meter values" '
                   f"rows={int(41000 * d * (0.9 + 0.2 * w.r()))} tsdb=tsdb-0:5432 took={w.lat(180, 900)}ms")
    if m == 13 and minute.hour % 2 == 0:
        for i in range(PODS["ocpp-gateway"]):
            t = minute + ms(w.between(0, 20000))
            ver = w.version("ocpp-gateway", t, INITIAL["ocpp-gateway"])
            if w.fails("gw-stats", t, {"i": i}):
                continue
            w.log(t, "ocpp-gateway", "INFO",
                  f"stats connected={w.between(1010, 1030)} msgs_in_30m="
                  f"{int(26000 * d * (0.9 + 0.2 * w.r()))} goroutines={w.between(2080, 2140)} "
                  f"heap_mb={int(gw_heap(w, t, i) * 0.82)}", pod=pod_name("ocpp-gateway", ver, i),
                  version=ver)
    if m % 30 == 7:
        t = minute + ms(w.between(0, 20000))
        dur = w.between(2600, 2700) / 10
        w.emit(
            t + timedelta(seconds=dur), "postgres", "INFO",
            f"LOG:  checkpoint complete: wrote "
            f"{w.between(900, 6000)} buffers; 0 WAL file(s) added, 0 removed, {w.between(1, 4)} recycled; "
            f"write={dur - 0.1:.3f} s, sync=0.0{w.between(10, 99)} s, total={dur:.3f} s",
        )
    if m == 22:
        w.emit(minute + ms(w.between(0, 20000)), "postgres", "INFO",
               f"LOG:  restartpoint complete: wrote "
               f"{w.between(800, 5000)} buffers; write={w.between(2500, 2700) / 10:.3f} s",
               instance="pg-replica-0")
    if m % 30 == 4:
        w.emit(minute + ms(w.between(0, 9000)), "tariff", "INFO",
               f"[scheduling-1] c.c.tariff.CacheWarmer : "
               f"tariff cache warm: {w.between(1138, 1146)} tariffs, {w.between(375, 380)} sites "
               "(tariff-cache:6379)")
    if m == 2:
        t = minute + ms(w.between(0, 8000))
        if not w.fails("billing-health", t, {}):
            w.emit(t, "billing", "INFO",
                   f"billing.health INFO psp paycore ok p95={w.between(380, 610)}ms "
                   "(api.paycore.example:443 via egress-proxy.infra.svc:3128)")
    if m == 6:
        w.emit(minute + ms(w.between(0, 8000)), "session-svc", "INFO",
               f"[scheduling-1] c.c.session.Reaper : "
               f"expired {w.between(0, int(3 + 12 * d))} unconfirmed reservations")
    if m == 9:
        w.emit(minute + ms(w.between(0, 8000)), "locations", "INFO",
               "[scheduling-1] c.c.locations.SiteCache "
               f": site registry refreshed: 380 sites, {w.between(4096, 4100)} connectors (pg-replica:5432 "
               f"{w.lat(40, 160)}ms)")
    if m % 15 == 11:
        t = minute + ms(w.between(0, 20000))
        if not w.fails("roaming-cdr", t, {}):
            w.emit(t, "roaming", "INFO",
                   f"roaming.cdr INFO pushed {w.between(int(4 + 30 * d), int(8 + 44 * d))} CDRs "
                   f"to e-roam (ocpi.e-roam.example:443) and {w.between(int(2 + 20 * d), int(6 + 30 * d))} "
                   "to gridhub "
                   "(api.gridhub.example:443): all accepted")
    if m == 47:
        w.emit(
            minute + ms(w.between(0, 9000)), "authz", "INFO",
            f'level=info msg="idTag cache reloaded" '
            f"entries={182100 + (minute - w.start).days * 140 + w.between(0, 60)} took={w.lat(800, 2400)}ms",
        )
        w.emit(minute + ms(w.between(9000, 20000)), "objstore", "INFO",
               f"PUT /cdr-exports/"
               f"{minute.astimezone(CST):%Y-%m-%d/h%H}.parquet 200 {w.between(200, 900)}KiB "
               f"accessKey=billing-export {w.lat(30, 200)}ms")
    if m == 0 and minute.hour % 4 == 0:
        w.emit(
            minute + ms(w.between(0, 4000)), "firmware-svc", "INFO",
            f'level=info msg="campaign scheduler tick" active={1 if w.fails("fw-active", minute, {}) else 0}',
        )
    if m == 30 and minute.hour % 2 == 0:
        t = minute + ms(w.between(0, 9000))
        if not w.fails("notifier-token", t, {}):
            w.emit(t, "notifier", "INFO",
                   "[notifier] fcm access token refreshed project=chargenet-prod expires_in=3599s")


ONE_OFFS = [  # (day, hh:mm, sec), service, level, message — the rare, harmless one-off errors
    (
        (1, "03:17", 12.4), "session-svc", "ERROR",
        "[http-nio-8080-exec-41] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception "
        'java.lang.NullPointerException: Cannot invoke "String.length()" because "vehicleLabel" is null',
    ),
    ((1, "10:52", 40.1), "postgres", "ERROR", "ERROR:  canceling autovacuum task"),
    (
        (1, "22:31", 5.0), "edge-gw", "ERROR",
        "upstream timed out (110: Connection timed out) while reading response header from upstream, "
        'client: 98.97.14.201, server: api.chargenet.example, request: "GET '
        '/v2/sessions/S-7KQ2MNR4XD/receipt HTTP/1.1", upstream: '
        '"http://10.244.2.57:8080/v2/sessions/S-7KQ2MNR4XD/receipt"',
    ),
    (
        (2, "04:08", 33.9), "firmware-svc", "ERROR",
        'level=error msg="vendor catalog sync failed" err="Get '
        "\\\"https://updates.voltra.example/catalog.json\\\": context deadline exceeded\" retry_in=1h",
    ),
    (
        (2, "16:44", 2.2), "tariff", "WARN",
        "[http-nio-8080-exec-17] c.c.tariff.QuoteController : quote for site-MN-2266 used default tariff: "
        "no tariff assigned to connector 2",
    ),
    (
        (2, "19:27", 48.0), "billing", "ERROR",
        "billing.charge ERROR charge session=S-UV3D8KP2QA failed: paycore 500 internal_error (request id "
        "pc_req_93fd1); queued for retry",
    ),
    (
        (3, "05:51", 19.6), "locations", "ERROR",
        "[http-nio-8080-exec-3] c.c.locations.SearchController : java.lang.IllegalArgumentException: "
        "radius_km must be between 1 and 100, was 400",
    ),
    (
        (3, "13:36", 7.0), "rabbitmq", "WARN",
        "[warning] <0.31822.0> Queue 'notify.push' in vhost '/fleet' has 1 unacked message older than 600s",
    ),
    (
        (3, "21:14", 51.5), "ocpp-gateway", "ERROR",
        'cp=CP-US-13077 msg=DataTransfer vendorId=com.voltra error="json: cannot unmarshal number into Go '
        'struct field .data of type string"',
    ),
]


def one_offs(w: Fleet) -> None:
    for (day, hm, sec), svc, level, text in ONE_OFFS:
        w.emit(w.at(day, hm, sec), svc, level, text)


# --- changes --------------------------------------------------------------------------------

DEPLOYS = [  # deploy_id, service, version, started (day, hh:mm), minutes, triggered_by, summary
    ("DEP-3301", "authz", "3.4.1", (1, "07:18"), 3, "spinnaker", "bump grpc-go to 1.61.1"),
    ("DEP-3302", "locations", "5.7.2", (1, "09:30"), 4, "spinnaker", "cluster map pins by zoom level"),
    ("DEP-3303", "locations", "5.7.3", (1, "14:58"), 4, "spinnaker", "fix pin colours for DC sites"),
    (
        "DEP-3304", "tariff", "4.3.0", (1, "15:10"), 3, "spinnaker",
        "time-of-use windows evaluated in each site's local time zone",
    ),
    ("DEP-3305", "tariff", "4.2.6", (1, "15:55"), 2, "oncall (j.okafor)", "rollback of 4.3.0"),
    (
        "DEP-3306", "notifier", "2.6.0", (1, "18:01"), 2, "spinnaker",
        "charging_complete push: new template with kWh and cost",
    ),
    (
        "DEP-3307", "telemetry-ingest", "2.7.5", (1, "20:30"), 2, "spinnaker",
        "tsdb writer: COPY instead of INSERT",
    ),
    (
        "DEP-3308", "session-svc", "7.4.2", (2, "09:22"), 4, "spinnaker",
        "start flow: charger name in push text",
    ),
    ("DEP-3309", "firmware-svc", "1.9.0", (2, "10:40"), 1, "spinnaker", "campaign dashboard API"),
    (
        "DEP-3310", "tariff", "4.3.1", (2, "12:55"), 3, "spinnaker",
        "time-of-use in local time again, with UTC fallback for sites without a time zone",
    ),
    ("DEP-3311", "roaming", "1.15.0", (2, "16:10"), 1, "spinnaker", "nightly CDR reconciliation job"),
    (
        "DEP-3312", "ocpp-gateway", "1.28.0", (3, "08:02"), 6, "spinnaker",
        "OCPP 2.0.1 TransactionEvent parsing",
    ),
    ("DEP-3313", "edge-gw", "2.14.1", (3, "11:20"), 3, "spinnaker", "per-API-key rate limits for partners"),
    (
        "DEP-3314", "billing", "3.1.0", (3, "15:00"), 3, "spinnaker",
        "store a tariff snapshot per CDR (migration V87)",
    ),
    ("DEP-3315", "locations", "5.8.0", (3, "16:45"), 4, "spinnaker", "availability endpoint: ETag support"),
    (
        "DEP-3316", "roaming", "1.15.1", (3, "18:50"), 1, "spinnaker",
        "OCPI 2.2.1 tariffs: send tariff_alt_text",
    ),
]

CHANGES = [  # change_id, service, key, old, new, by, when (day, hh:mm, sec), ticket
    ("CHG-7701", "ocpp-gateway", "ws.max_frame_kb", "64", "128", "r.haddad", (1, "06:30", 0), "OPS-2201"),
    ("CHG-7702", "billing", "psp.timeout_ms", "8000", "6000", "m.ferreira", (1, "15:05", 0), "PAY-318"),
    ("CHG-7704", "notifier", "push.batch_size", "100", "500", "s.nguyen", (1, "18:04", 30), "APP-977"),
    (
        "CHG-7706", "session-svc", "start.confirm_timeout_s", "90", "60", "l.brandt", (2, "08:50", 0),
        "APP-981",
    ),
    ("CHG-7709", "locations", "cache.site_ttl_s", "300", "600", "d.kim", (2, "11:15", 0), "APP-984"),
    ("CHG-7712", "authz", "idtag.normalize", "none", "uppercase", "t.varga", (2, "13:20", 40), "SEC-1192"),
    (
        "CHG-7713", "authz", "idtag.normalize", "uppercase", "none", "oncall (p.mensah)", (2, "14:04", 10),
        "INC-0931",
    ),
    (
        "CHG-7714", "session-svc", "hikari.maximum_pool_size", "40", "50", "l.brandt", (2, "21:40", 0),
        "APP-990",
    ),
    ("CHG-7716", "session-svc", "amqp.prefetch", "50", "100", "l.brandt", (3, "08:12", 0), "APP-993"),
    (
        "CHG-7717", "locations", "geocoder.timeout_ms", "10000", "1500", "oncall (a.rossi)",
        (3, "12:10", 30), "INC-0940",
    ),
    ("CHG-7718", "tariff", "cache.ttl_s", "300", "600", "j.okafor", (3, "14:40", 0), "PRC-114"),
    ("CHG-7719", "roaming", "ocpi.cdr_push_interval_min", "15", "10", "b.osei", (3, "18:55", 0), "ROAM-77"),
]

STARTUP = {  # how each service announces a new version
    "edge-gw": "starting edge-gw {v} (nginx/1.25.4) config checksum {c}",
    "ocpp-gateway": "level=info msg=starting service=ocpp-gateway version={v} commit={c} addr=:8443 (wss)",
    "authz": "level=info msg=starting service=authz version={v} commit={c} addr=:8080",
    "telemetry-ingest": "level=info msg=starting service=telemetry-ingest version={v} commit={c} "
    "queue=meter.values prefetch=2000",
    "firmware-svc": "level=info msg=starting service=firmware-svc version={v} commit={c} "
    "objstore=objstore.fleet.internal:9000 access_key=fw-signer-2025",
    "session-svc": "[main] c.c.session.SessionApplication : Started SessionApplication in {s} seconds "
    "(version {v}, commit {c})",
    "tariff": "[main] c.c.tariff.TariffApplication : Started TariffApplication in {s} seconds (version {v}, "
    "commit {c})",
    "locations": "[main] c.c.locations.LocationsApplication : Started LocationsApplication in {s} seconds "
    "(version {v}, commit {c})", "billing": "billing.app INFO starting billing {v} (commit {c}) workers=4",
    "roaming": "roaming.app INFO starting roaming {v} (commit {c}) ocpi=2.2.1 hubs=e-roam,gridhub",
    "notifier": "[notifier] starting notifier {v} (commit {c}) node=v20.11.0",
}


def changes(w: Fleet) -> None:
    """The deploys and config changes tables, the versions they install and their log lines."""
    for dep, svc, ver, (day, hm), dur, by, summary in DEPLOYS:
        started, finished, switch = w.install(svc, ver, day, hm, dur)
        w.switch[dep] = switch
        w.deploys.append(
            [dep, svc, ver, f"registry.chargenet.example/{svc}:{ver}", zulu(started), zulu(finished),
             "SUCCEEDED", by, summary]
        )
        for i in range(PODS[svc]):
            t = switch + timedelta(seconds=i * 20 + w.between(0, 9))
            text = STARTUP[svc].format(v=ver, c=w.hexid(7), s=f"{w.between(90, 160) / 10:.2f}")
            w.log(t, svc, "INFO", text, pod=pod_name(svc, ver, i), version=ver)
    for cid, svc, key, old, new, by, when, ticket in CHANGES:
        t = w.at(*when)
        w.changes.append([cid, svc, key, old, new, by, iso(t), ticket])
        w.emit(t + ms(w.between(1500, 4000)), svc, "INFO",
               f"config reloaded: {key}={new} (was {old}) change={cid}")
    w.migrations.extend(
        [[84, "84", "sessions idle fee columns", "V84__sessions_idle_fee.sql", "session-svc",
          "2026-01-20 10:11:42", 301, 1],
         [85, "85", "cdr export index", "V85__cdr_export_idx.sql", "billing", "2026-01-27 14:02:09",
          8812, 1],
         [86, "86", "sites timezone column", "V86__sites_timezone.sql", "locations",
          "2026-02-03 09:47:30", 190, 1]]
    )


# --- incidents ------------------------------------------------------------------------------


def f01_gateway_oom(w: Fleet) -> None:
    """ocpp-gateway's pods are OOMKilled one after another; the chargers' reconnect storm swamps authz."""
    kills = [w.at(1, "07:41", 12.3), w.at(1, "07:43", 40.8), w.at(1, "07:44", 29.1), w.at(1, "07:47", 3.6)]
    w.switch["oom"] = kills[0]
    storm0, storm1 = kills[0] + timedelta(seconds=20), w.at(1, "07:59", 30.0)
    ver = "1.27.3"
    for i, t in enumerate(kills):
        pod = pod_name("ocpp-gateway", ver, i)
        w.log(t, "ocpp-gateway", "ERROR",
              f"container ocpp-gateway in pod {pod} OOMKilled (exit code 137, "
              f"memory limit 2Gi); restarting, restart count=1", pod=pod, version=ver)
        w.log(t + timedelta(seconds=w.between(9, 14)), "ocpp-gateway", "INFO",
              STARTUP["ocpp-gateway"].format(v=ver, c="5e0c1a9"), pod=pod, version=ver)

    def down(t: datetime) -> float:  # share of chargers without a websocket at t
        lost = sum(1 for k in kills if k <= t) / 4
        back = max(0.0, min(1.0, (t - storm0).total_seconds() / (storm1 - storm0).total_seconds()))
        return max(0.0, lost * (1 - back**0.6))

    def authorize(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        if t < storm0 or not w.chance(min(0.85, 0.2 + down(t))):
            return False
        w.emit(t + ms(w.between(1, 30)), "authz", "ERROR",
               f'level=error msg="shedding load" path=/v1/authorize inflight=512 limit=512 cp={c["cp"]}')
        w.emit(t + ms(w.between(40, 80)), "ocpp-gateway", "WARN",
               f"cp={c['cp']} msg=Authorize idTag={c['tag']} "
               "failed: authz:8080 returned 503 Service Unavailable; answering Invalid")
        return True

    def remote(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        if not w.chance(down(t)):
            return False
        w.emit(t + ms(w.between(2, 9)), "session-svc", "WARN",
               f"[http-nio-8080-exec-{w.between(1, 200)}] "
               f"c.c.session.StartService : remote start for {c['cp']} not possible: charger not connected")
        access(w, t, c, "POST", "/v2/sessions", 409, w.between(15, 60), "session-svc:8080")
        return True

    w.on("rfid-authorize", kills[0], storm1, authorize)
    w.on("remote-start", kills[0], storm1, remote)
    for t in w.every(storm0, storm1, 3.0, 8.0):  # the storm itself, as the gateway samples it
        c = w.ctx()
        w.emit(t, "ocpp-gateway", "INFO",
               f'cp={c["cp"]} msg=BootNotification model="{c["model"]}" '
               f"firmware={FW[c['model']]} status=Accepted interval=300")
        if w.chance(0.35):
            w.emit(
                t + ms(w.between(20, 200)), "authz", "ERROR",
                f'level=error msg="shedding load" path=/v1/authorize inflight=512 limit=512 cp={c["cp"]}',
            )
    w.emit(kills[0] + timedelta(seconds=31), "authz", "WARN",
           'level=warn msg="request rate above limit" rps=2140 limit=600 source=ocpp-gateway')
    for svc, val in (("authz", 46.0), ("ocpp-gateway", 9.0), ("session-svc", 12.0)):
        w.bend("service_metrics", svc, "error_pct", kills[0] - timedelta(minutes=1), storm1,
               lambda t, v, val=val: val + v)
    w.bend("service_metrics", "authz", "rps", kills[0] - timedelta(minutes=1), storm1, lambda t, v: v * 7)
    w.bend("fleet_metrics", "fleet", "chargers_connected", kills[0] - timedelta(minutes=1), storm1,
           lambda t, v: v * (1 - down(t + timedelta(minutes=2.5))))
    q0, q1 = w.at(1, "07:45"), w.at(1, "08:00")
    incident(
        w, id="FLEET-01", kind="logs_only", service="authz", start=q0, end=q1, onset=kills[0],
        question="authz is throwing 503s and RFID starts are failing everywhere — 07:45 to 08:00 CT on "
        "Feb 10, 2026. What's the root cause?", cause_service="ocpp-gateway",
        root_cause="ocpp-gateway's pods were OOMKilled one after another from 07:41 (memory limit 2Gi, "
        "memory had been creeping up for days); every charger lost its websocket and ~4100 "
        "chargers reconnected at once, and the reconnect storm (BootNotification + Authorize) "
        "overloaded authz, which shed load with 503", key_terms=["ocpp-gateway", "oom"],
        distractors=["authz deploy DEP-3301 (3.4.1, grpc-go bump) at 07:18",
                     "ocpp-gateway websocket 1006 errors (always there)"],
        evidence=[logs_ev("ocpp-gateway", w.at(1, "07:35"), q1, "OOMKilled", level="ERROR"),
                  logs_ev("authz", q0, q1, "shedding load", level="ERROR"),
                  sql_ev("SELECT ts, chargers_connected FROM fleet_metrics WHERE chargers_connected < 3000 "
                         "AND ts BETWEEN "
                         f"'{zulu(w.at(1, '07:30'))}' AND '{zulu(q1)}' ORDER BY ts", "chargers_connected")],
    )


def f02_replica_lag(w: Fleet) -> None:
    """A BI query on the replica blocks WAL replay; the app shows stale availability for half an hour."""
    t0, t1 = w.at(1, "12:03", 40.6), w.at(1, "12:51", 9.3)
    caught = t1 + timedelta(seconds=95)
    w.emit(w.at(1, "11:58", 2.0), "postgres", "INFO",
           'LOG:  connection authorized: user=metabase database=fleet application_name="Metabase v0.48.6 '
           '[session-energy-by-site]"',
           instance="pg-replica-0")
    w.emit(
        t0, "postgres", "INFO", "LOG:  recovery still waiting after 1000.211 ms: recovery conflict on lock",
        instance="pg-replica-0", detail="Conflicting process: 48211.",
        context="WAL redo at 1A/6F0021B8 for Standby/LOCK: xid 91822734 db 16384 rel 17702",
    )
    w.emit(
        t1, "postgres", "INFO",
        "LOG:  duration: 3187412.077 ms  statement: SELECT s.site_id, date_trunc('hour', s.started_at), "
        "sum(c.energy_wh) FROM sessions s JOIN cdr c ON c.session_id = s.id WHERE s.started_at > now() - "
        "interval '400 days' GROUP BY 1, 2 (user=metabase)",
        instance="pg-replica-0",
    )
    w.emit(t1 + ms(4), "postgres", "INFO",
           "LOG:  recovery finished waiting after 2848695.412 ms: recovery conflict on lock",
           instance="pg-replica-0")

    def lag(t: datetime) -> float:
        if t < t0:
            return 0.0
        if t < t1:
            return (t - t0).total_seconds() + 1
        return max(0.0, (t1 - t0).total_seconds() * (1 - (t - t1).total_seconds() / 95))

    def remote(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        if not w.chance(min(0.5, lag(t) / 2400)):
            return False
        rs = w.lat(300, 1500)
        w.emit(
            t + ms(rs), "ocpp-gateway", "INFO",
            f"cp={c['cp']} msg=RemoteStartTransaction connector={c['connector']} status=Rejected rtt={rs}ms",
        )
        w.emit(t + ms(rs + 5), "session-svc", "WARN",
               f"[http-nio-8080-exec-{w.between(1, 200)}] "
               f"c.c.session.StartService : remote start rejected by {c['cp']} connector {c['connector']}: "
               "connector status Occupied")
        access(w, t, c, "POST", "/v2/sessions", 409, rs + 20, "session-svc:8080")
        return True

    w.on("remote-start", t0, caught, remote)
    w.bend("db_metrics", "pg-replica", "replication_lag_s", t0 - timedelta(minutes=5),
           caught + timedelta(minutes=5), lambda t, v: v + lag(t))
    w.bend("service_metrics", "session-svc", "error_pct", t0 + timedelta(minutes=5), t1, lambda t, v: v + 9)
    q0, q1 = w.at(1, "12:15"), w.at(1, "12:45")
    incident(
        w, id="FLEET-02", kind="metrics_deps", service="session-svc", start=q0, end=q1, onset=t0,
        question="Drivers keep getting 'charger occupied' after the app showed the charger as free. "
        "session-svc start rejections, 12:15 to 12:45 Central on 2026-02-10 — what's the cause?",
        cause_service="postgres",
        root_cause="WAL replay on the read replica pg-replica was blocked from 12:03 by a long Metabase "
        "query (recovery conflict on lock) and replication lag grew to ~47 minutes; locations "
        "reads connector availability from pg-replica, so the app showed occupied connectors as "
        "free and the chargers rejected the remote starts, until the query ended at 12:51",
        key_terms=["replica", "lag"],
        distractors=["locations deploy DEP-3302 (5.7.2) at 09:30",
                     "ocpp-gateway websocket 1006 errors (always there)"],
        evidence=[
            logs_ev("session-svc", q0, q1, "Occupied", level="WARN"),
            sql_ev(
                "SELECT ts, instance, replication_lag_s FROM db_metrics WHERE instance = 'pg-replica' AND "
                "replication_lag_s > 600 "
                f"AND ts BETWEEN '{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts", "pg-replica",
            ),
            sql_ev("SELECT caller, callee, address FROM dependencies WHERE caller = 'locations'",
                   "pg-replica:5432"),
        ],
    )


def f03_tariff_release(w: Fleet) -> None:
    """tariff 4.3.0 resolves time-of-use windows in the site's zone; legacy sites have none."""
    t0, t1 = w.switch["DEP-3304"], w.switch["DEP-3305"]

    def quote(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        if not legacy_site(c["site"]):
            return False
        took = w.lat(4, 14)
        w.emit(
            t + ms(took), "tariff", "ERROR",
            f"[http-nio-8080-exec-{w.between(1, 200)}] "
            "o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() for servlet [dispatcherServlet] "
            'threw exception java.lang.NullPointerException: Cannot invoke "java.time.ZoneId.getRules()" '
            'because "zone" is null',
            at="c.c.tariff.tou.TouWindowResolver.windowAt(TouWindowResolver.java:88)", site=c["site"],
        )
        w.emit(
            t + ms(took + 3), "session-svc", "ERROR",
            f"[http-nio-8080-exec-{w.between(1, 200)}] "
            "c.c.session.StartService : org.springframework.web.client.HttpServerErrorException$"
            'InternalServerError: 500 Internal Server Error on POST request for "http://tariff:8080/v1/quotes"',
            session=c["session"],
        )
        access(w, t, c, "POST", "/v2/sessions", 502, took + 11, "session-svc:8080")
        return True

    w.on("session->tariff", t0, t1, quote)
    w.bend("service_metrics", "tariff", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: v + 33)
    w.bend("service_metrics", "edge-gw", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: v + 4)
    q0, q1 = w.at(1, "15:20"), w.at(1, "15:45")
    incident(
        w, id="FLEET-03", kind="change", service="edge-gw", start=q0, end=q1, onset=t0,
        question="edge-gw: about a third of POST /v2/sessions are coming back 502 since ~15:15. Window "
        "15:20–15:45 CT, 10 Feb 2026. Root cause?", cause_service="tariff",
        root_cause="tariff 4.3.0 (deploy DEP-3304, 15:10) evaluates time-of-use windows in each site's "
        "time zone, and sites onboarded before 2024 have none: quotes for them threw "
        'NullPointerException ("zone" is null) and session-svc\'s starts failed with 500 from '
        "tariff, until the rollback DEP-3305 at 15:56", key_terms=["tariff", "4.3.0"],
        distractors=["locations deploy DEP-3303 (5.7.3) at 14:58",
                     "billing config change CHG-7702 (psp.timeout_ms) at 15:05"],
        evidence=[logs_ev("tariff", q0, q1, "NullPointerException", level="ERROR"),
                  logs_ev("session-svc", q0, q1, "http://tariff:8080/v1/quotes", level="ERROR"),
                  sql_ev("SELECT deploy_id, service, version, started_at, summary FROM deploys WHERE "
                         f"started_at BETWEEN '{zulu(w.at(1, '14:30'))}' AND '{zulu(q1)}'", "DEP-3304")],
    )


def f04_egress_proxy(w: Fleet) -> None:
    """The egress proxy refuses connections: pushes and card charges fail; a notifier release is nearby."""
    t0, t1 = w.at(1, "18:09", 31.4), w.at(1, "18:41", 2.0)
    backlog = {"push": 0, "charge": 0}

    def push(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        backlog["push"] += 1
        w.emit(
            t + ms(w.between(2, 8)), "notifier", "ERROR",
            f"[notifier] push charging_complete user={c['user']} "
            f"session={c['session']} failed: Error: tunneling socket could not be established, cause=connect "
            f"ECONNREFUSED {EGRESS} (fcm.googleapis.com:443); will retry (attempt 1/5)",
        )
        return True

    def charge(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        backlog["charge"] += 1
        w.emit(
            t + ms(w.between(2, 8)), "billing", "ERROR",
            f"billing.charge ERROR charge session={c['session']} "
            f"amount={c['price']} USD failed: ProxyError('Unable to connect to proxy', NewConnectionError("
            "'egress-proxy.infra.svc:3128: Failed to establish a new connection: [Errno 111] Connection "
            "refused')); queued for retry",
        )
        return push(w, t + ms(w.lat(400, 1500)), c) if w.chance(0.5) else True

    def health(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "billing", "WARN",
               "billing.health WARN psp paycore unreachable: ProxyError (egress-proxy.infra.svc:3128 "
               "Connection refused)")
        return True

    w.on("notifier->fcm", t0, t1, push)
    w.on("billing->psp", t0, t1, charge)
    w.on("billing-health", t0, t1, health)
    w.on("notifier-token", t0, t1, lambda w, t, c: True)
    for t in w.every(t0 + timedelta(seconds=50), t1, 60, 62):
        w.emit(t, "notifier", "WARN",
               f"[notifier] outbox backlog={backlog['push']} oldest={int((t - t0).total_seconds())}s")
    w.after.append(lambda: w.emit(t1 + timedelta(seconds=20), "notifier", "INFO",
                                  f"[notifier] outbox drained: {backlog['push']} pushes sent"))
    w.after.append(
        lambda: w.emit(t1 + timedelta(seconds=64), "billing", "INFO",
                       f"billing.retry INFO retry queue drained: {backlog['charge']} charges succeeded")
    )
    w.bend("service_metrics", "notifier", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 96.0)
    w.bend("service_metrics", "billing", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 88 + v)
    q0, q1 = w.at(1, "18:10"), w.at(1, "18:30")
    incident(
        w, id="FLEET-04", kind="trap_unrelated_change", service="notifier", start=q0, end=q1, onset=t0,
        question="Drivers stopped getting 'charging complete' pushes right after this evening's notifier "
        "release. notifier, 18:10 to 18:30 CT on Feb 10 2026 — is the release to blame?",
        cause_service="egress-proxy",
        root_cause="the egress proxy egress-proxy (10.30.0.8:3128), through which notifier reaches FCM and "
        "billing reaches the PSP, refused connections from 18:09 to 18:41 (connection refused), "
        "so pushes and card charges both failed; notifier 2.6.0 (DEP-3306, 18:02) was unrelated — "
        "its pushes went out normally until 18:09", key_terms=["egress-proxy", "connection refused"],
        distractors=["notifier deploy DEP-3306 (2.6.0, new charging_complete template) at 18:01",
                     "notifier config change CHG-7704 (push.batch_size) at 18:04"],
        evidence=[
            logs_ev("notifier", q0, q1, "ECONNREFUSED 10.30.0.8:3128", level="ERROR"),
            logs_ev("billing", q0, q1, "egress-proxy.infra.svc:3128", level="ERROR"),
            sql_ev(
                "SELECT caller, callee, address FROM dependencies WHERE callee = 'egress-proxy'", "notifier"
            ),
        ],
    )


def f05_consumer_gone(w: Fleet) -> None:
    """telemetry-ingest loses its consumers; the queue fills rabbitmq's memory and publishers block."""
    t_close, t_alarm, t_fix, t_clear = (
        w.at(2, "09:12", 40.2), w.at(2, "09:33", 10.7), w.at(2, "10:04", 30.0), w.at(2, "10:16", 2.5),
    )
    prec = (
        "PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: "
        "1800000 ms. This timeout value can be configured, see consumers doc guide to learn more"
    )
    for i, off in enumerate((0.0, 11.6)):
        t = t_close + timedelta(seconds=off)
        pod = pod_name("telemetry-ingest", "2.7.5", i)
        port = 51812 + 97 * i
        w.log(t, "rabbitmq", "ERROR",
              f"[error] <0.{8812 + i}.0> Channel error on connection <0.{8790 + i}.0> "
              f"(10.244.3.{41 + i}:{port} -> 10.40.6.12:5672, vhost: '/fleet', user: 'telemetry-ingest'), "
              f"channel 1: operation none caused a channel exception precondition_failed: {prec[22:]}",
              node="mq-2")
        w.log(t + ms(3), "telemetry-ingest", "ERROR",
              f'level=error msg="amqp channel closed" queue=meter.values '
              f'err="Exception (406) Reason: \\"{prec}\\""', pod=pod, version="2.7.5")
        w.log(t + ms(5), "telemetry-ingest", "WARN",
              'level=warn msg="consumer loop exited" queue=meter.values', pod=pod, version="2.7.5")

    def flush(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "telemetry-ingest", "INFO",
               f'level=info msg="flushed meter values" rows=0 tsdb=tsdb-0:5432 took={w.between(1, 4)}ms')
        return True

    def blocked(w: Fleet, t: datetime, c: dict[str, Any], kind: str) -> bool:
        msg = "StartTransaction" if kind == "start" else "StopTransaction"
        w.emit(t + ms(w.between(1, 20)), "ocpp-gateway", "WARN",
               f"cp={c['cp']} msg={msg} publish to exchange "
               "ocpp.events blocked: connection.blocked (low on memory); holding message")
        if kind == "start" and "session" in c:  # an app start: session-svc waits for the charger
            w.emit(
                t + timedelta(seconds=60), "session-svc", "WARN",
                f"[http-nio-8080-exec-{w.between(1, 200)}] "
                f"c.c.session.StartService : no StartTransaction for session {c['session']} from {c['cp']} "
                "within 60s; marking FAILED_TIMEOUT",
            )
            access(w, t, c, "POST", "/v2/sessions", 504, 60000 + w.between(3, 40), "session-svc:8080")
        return True

    w.on("telemetry-flush", t_close, t_fix, flush)
    w.on("ocpp->mq", t_alarm, t_clear, blocked)
    ban = "*" * 58
    for line in (
        "[warning] <0.501.0> memory resource limit alarm set on node 'rabbit@mq-1'.",
        f"[warning] <0.501.0> {ban}",
        "[warning] <0.501.0> *** Publishers will be blocked until this alarm clears ***",
        f"[warning] <0.501.0> {ban}",
    ):
        w.log(t_alarm, "rabbitmq", "WARN", line, node="mq-1")
    for t in w.every(t_alarm + timedelta(seconds=40), t_clear, 60, 62):
        w.emit(t, "ocpp-gateway", "WARN",
               f"amqp connection blocked by broker for "
               f"{int((t - t_alarm).total_seconds())}s (mq-1:5672); {w.between(2000, 9000)} messages held")
    for i in range(2):
        ver = "2.7.5"
        w.log(t_fix + timedelta(seconds=12 * i), "telemetry-ingest", "INFO",
              STARTUP["telemetry-ingest"].format(v=ver, c="a41c07e"),
              pod=pod_name("telemetry-ingest", ver, i), version=ver)
    w.log(t_clear, "rabbitmq", "INFO",
          "[info] <0.501.0> memory resource limit alarm cleared on node 'rabbit@mq-1'", node="mq-1")
    w.log(t_clear + ms(2), "rabbitmq", "INFO",
          "[info] <0.501.0> memory resource limit alarm cleared across the cluster", node="mq-1")
    w.switch["f05"] = t_close
    w.bend("service_metrics", "session-svc", "error_pct", t_alarm, t_clear, lambda t, v: v + 41)
    w.bend("service_metrics", "edge-gw", "error_pct", t_alarm, t_clear, lambda t, v: v + 6)
    q0, q1 = w.at(2, "09:38"), w.at(2, "09:58")
    incident(
        w, id="FLEET-05", kind="trap_late_symptom", service="session-svc", start=q0, end=q1, onset=t_close,
        question='App starts timing out ("charger didn\'t respond") — session-svc, 09:38 to 09:58 CST on '
        "11 Feb 2026. Why?", cause_service="telemetry-ingest",
        root_cause="at 09:12 rabbitmq closed telemetry-ingest's consumer channels on meter.values (delivery "
        "acknowledgement timed out) and telemetry-ingest never re-subscribed: with no consumer the "
        "queue grew until rabbitmq's memory alarm (09:33) blocked every publisher, so ocpp-gateway "
        "could not publish StartTransaction and session-svc's starts timed out, until telemetry-ingest "
        "was restarted at 10:04", key_terms=["telemetry-ingest", "consumer"],
        distractors=["session-svc deploy DEP-3308 (7.4.2) at 09:22",
                     "session-svc config change CHG-7706 (start.confirm_timeout_s 90 -> 60) at 08:50",
                     "rabbitmq's memory alarm (a consequence, 20 minutes after the cause)"],
        runbook="rabbitmq-alarms", runbook_query="rabbitmq memory alarm publishers blocked queue growing",
        evidence=[
            logs_ev("telemetry-ingest", w.at(2, "09:10"), q1, "PRECONDITION_FAILED", level="ERROR"),
            logs_ev("rabbitmq", w.at(2, "09:30"), q1, "memory resource limit alarm set", level="WARN"),
            sql_ev("SELECT ts, queue, messages_ready, consumers FROM queue_metrics WHERE consumers = 0 "
                   "AND queue = "
                   f"'meter.values' AND ts BETWEEN '{zulu(w.at(2, '09:00'))}' AND '{zulu(q1)}' ORDER BY ts",
                   "meter.values"),
        ],
    )


def f06_firmware_key(w: Fleet) -> None:
    """A key rotation removes the access key firmware-svc still presigns download URLs with."""
    t_add, t_rm = w.at(2, "11:04", 48.0), w.at(2, "11:05", 22.4)
    c0, c_pause = w.at(2, "11:30", 0.0), w.at(2, "11:56", 0.0)
    w.emit(
        t_add, "objstore", "INFO",
        "audit: admin=ops-k.lindqvist action=svcacct-add accessKey=fw-signer-2026 policy=fw-read-presign",
        node="objstore-0",
    )
    w.emit(
        t_rm, "objstore", "INFO",
        "audit: admin=ops-k.lindqvist action=svcacct-remove accessKey=fw-signer-2025 policy=fw-read-presign",
        node="objstore-0",
    )
    w.emit(c0, "firmware-svc", "INFO",
           'level=info msg="campaign started" campaign=FW-0211 model="Alpine AC22" from=3.2.0 to=3.2.1 '
           "targets=250 batch=15 every=2m")
    batch = 0
    t = c0
    while t < c_pause:
        batch += 1
        failed = 0
        for _ in range(15):
            c = w.ctx()
            cp = f"CP-US-{10000 + w.between(0, 409) * 10 + w.between(0, 4):05d}"  # an Alpine AC22
            tt = t + ms(w.between(500, 60000))
            date = tt.astimezone(UTC).strftime("%Y%m%d")
            w.emit(tt, "ocpp-gateway", "INFO",
                   f"cp={cp} msg=UpdateFirmware location=https://objstore.fleet."
                   f"internal:9000/fw-images/alpine-ac22/3.2.1.bin?X-Amz-Credential=fw-signer-2025%2F{date}"
                   "%2Fus-central%2Fs3%2Faws4_request status=Accepted")
            td = tt + timedelta(seconds=w.between(20, 90))
            w.emit(td, "objstore", "WARN",
                   f'GET /fw-images/alpine-ac22/3.2.1.bin 403 InvalidAccessKeyId "The '
                   f'Access Key Id you provided does not exist in our records." accessKey=fw-signer-2025 '
                   f"remote={c['ip']} {w.lat(1, 4)}ms")
            w.emit(td + timedelta(seconds=w.between(2, 6)), "ocpp-gateway", "WARN",
                   f"cp={cp} msg=FirmwareStatusNotification status=DownloadFailed")
            failed += 1
        w.emit(t + timedelta(seconds=100), "firmware-svc", "WARN",
               f'level=warn msg="campaign batch done" '
               f"campaign=FW-0211 batch={batch} installed=0 download_failed={failed}")
        t += timedelta(minutes=2)
    w.campaigns.append(
        ["FW-0211", "Alpine AC22", "3.2.0", "3.2.1", local_text(c0), 250, "PAUSED", 0, batch * 15]
    )
    w.emit(c_pause, "firmware-svc", "WARN",
           'level=warn msg="campaign paused" campaign=FW-0211 reason="failure ratio 1.00 above 0.20"')
    w.on("fw-active", c0, c_pause, lambda w, t, c: True)
    w.bend("service_metrics", "firmware-svc", "error_pct", c0, c_pause, lambda t, v: 100.0)
    q0, q1 = w.at(2, "11:35"), w.at(2, "11:55")
    incident(
        w, id="FLEET-06", kind="logs_only", service="ocpp-gateway", start=q0, end=q1, onset=t_rm,
        question="ocpp-gateway: chargers in firmware campaign FW-0211 all report DownloadFailed. "
        "2026-02-11 11:35-11:55 CT — what is wrong?", cause_service="firmware-svc",
        root_cause="firmware-svc presigned the firmware download URLs with access key fw-signer-2025, which "
        "objstore no longer had: the key rotation at 11:05 added fw-signer-2026 and removed "
        "fw-signer-2025, but firmware-svc (started 10:40) still used the old key, so every charger's "
        "download got 403 InvalidAccessKeyId", key_terms=["firmware-svc", "access key"],
        distractors=["firmware-svc deploy DEP-3309 (1.9.0, campaign dashboard API) at 10:40",
                     "locations config change CHG-7709 at 11:15"],
        evidence=[
            logs_ev("objstore", q0, q1, "InvalidAccessKeyId", level="WARN"),
            logs_ev(
                "objstore", w.at(2, "11:00"), q1, "svcacct-remove accessKey=fw-signer-2025", pattern="svcacct"
            ),
            logs_ev("ocpp-gateway", q0, q1, "fw-signer-2025", pattern="UpdateFirmware"),
        ],
    )


def f07_idtag_normalize(w: Fleet) -> None:
    """authz starts uppercasing idTags; the DC chargers report lowercase UIDs, stored as such."""
    t0, t1 = w.at(2, "13:20", 43.0), w.at(2, "14:04", 13.0)

    def authorize(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        if c["model"] != "Voltra DC150" or w.chance(0.1):  # a few Voltra cards were enrolled uppercase
            return False
        w.emit(t + ms(w.between(2, 9)), "authz", "WARN",
               f'level=warn msg="unknown idTag" idTag={c["tag"].upper()} cp={c["cp"]}')
        w.emit(t + ms(w.between(12, 30)), "ocpp-gateway", "INFO",
               f"cp={c['cp']} msg=Authorize idTag={c['tag']} status=Invalid")
        return True

    w.on("rfid-authorize", t0, t1, authorize)
    w.bend("fleet_metrics", "fleet", "start_fail_pct", t0, t1, lambda t, v: v + 11)
    q0, q1 = w.at(2, "13:25"), w.at(2, "13:50")
    incident(
        w, id="FLEET-07", kind="change", service="authz", start=q0, end=q1, onset=t0,
        question="RFID cards rejected ('card not recognised') at lots of DC fast chargers. authz, "
        "13:25–13:50 CST, 11-Feb-2026. What changed?", cause_service="authz",
        root_cause="config change CHG-7712 (13:20) set authz's idtag.normalize to uppercase: the Voltra "
        "DC150 "
        "chargers report card UIDs in lowercase and those cards are stored that way, so authz no "
        "longer found them (unknown idTag) and answered Invalid, until CHG-7713 reverted it at 14:04",
        key_terms=["authz", "chg-7712"],
        distractors=["tariff deploy DEP-3310 (4.3.1) at 12:55",
                     "authz 'unknown idTag' warnings (a few are there all day)"],
        evidence=[
            logs_ev("authz", q0, q1, "unknown idTag", level="WARN"),
            sql_ev("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM "
                   f"config_changes WHERE changed_at BETWEEN '{zulu(w.at(2, '12:30'))}' AND '{zulu(q1)}'",
                   "CHG-7712"),
        ],
    )


def f08_roaming_connections(w: Fleet) -> None:
    """roaming's new reconciliation job holds pg-core connections idle in transaction: max_connections hit."""
    t0, t_full, t1 = w.at(2, "22:10", 0.4), w.at(2, "22:13", 21.0), w.at(2, "22:44", 31.0)
    too_many = "FATAL:  sorry, too many clients already"
    w.emit(t0, "roaming", "INFO",
           "roaming.recon INFO cdr reconciliation started: period=2026-02-11 partners=6 workers=64 "
           "(pg-core:5432)")
    done = 0
    for t in w.every(t0 + timedelta(minutes=5), t1, 300, 302):
        done += w.between(700, 1100)
        w.emit(t, "roaming", "INFO",
               f"roaming.recon INFO reconciliation progress: {done}/9120 CDRs compared "
               f"(hub responses p95={w.between(38, 52) / 10:.1f}s)")

    def db(w: Fleet, t: datetime, c: dict[str, Any], path: str = "") -> bool:
        if w.chance(0.5):
            w.emit(t + ms(w.between(1, 20)), "postgres", "ERROR", too_many, user="session_svc")
        w.emit(
            t + timedelta(seconds=30), "session-svc", "ERROR",
            f"[http-nio-8080-exec-{w.between(1, 200)}] "
            "o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request "
            "timed out after 30000ms.",
        )
        access(w, t, c, "POST", path, 500, 30000 + w.between(5, 60), "session-svc:8080")
        return True

    def cdr(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(
            t + timedelta(seconds=30), "session-svc", "ERROR",
            f"[amqp-listener-{w.between(1, 8)}] "
            "o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request "
            f"timed out after 30000ms. (StopTransaction for {c['cp']} requeued)",
        )
        return True

    w.on("session->pg", t_full, t1, db, share=0.45)
    w.on("session->cdr", t_full, t1, cdr, share=0.45)
    for t in w.every(t_full + timedelta(seconds=30), t1, 90, 150):
        w.emit(t, "billing", "ERROR",
               f"billing.db ERROR psycopg.OperationalError: connection failed: {too_many} (pg-core:5432)")
        w.emit(t - ms(3), "postgres", "ERROR", too_many, user="billing")
    for i in range(3):
        w.emit(t1 + ms(40 * i), "postgres", "FATAL",
               "FATAL:  terminating connection due to administrator command", user="roaming",
               application_name="roaming-recon")
    w.emit(
        t1 - ms(900), "postgres", "INFO",
        "LOG:  statement: SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'roaming' "
        "AND state = 'idle in transaction'", user="oncall_dba",
    )
    w.emit(t1 + ms(300), "roaming", "ERROR",
           "roaming.recon ERROR cdr reconciliation aborted: psycopg.errors.AdminShutdown: terminating "
           "connection due to administrator command")
    w.bend("db_metrics", "pg-core", "connections", t0, t1,
           lambda t, v: min(300.0, v + min(128.0, (t - t0).total_seconds() / 1.5)) if t < t_full else 300.0)
    w.bend("db_connections", "roaming", "idle_in_transaction", t0, t1, lambda t, v: 128.0)
    w.bend("service_metrics", "session-svc", "error_pct", t_full, t1, lambda t, v: v + 37)
    w.bend("service_metrics", "session-svc", "p99_ms", t_full, t1, lambda t, v: 30000 + v)
    q0, q1 = w.at(2, "22:15"), w.at(2, "22:35")
    incident(
        w, id="FLEET-08", kind="metrics_deps", service="session-svc", start=q0, end=q1, onset=t0,
        question="session-svc is throwing DB connection timeouts, 22:15–22:35 CT on 2026-02-11. What's "
        "going on?", cause_service="roaming",
        root_cause="roaming 1.15.0's new nightly CDR reconciliation job (DEP-3311; started 22:10 with 64 "
        "workers) held ~128 connections to pg-core idle in transaction, so pg-core reached "
        "max_connections (300) at 22:13 and refused new connections ('sorry, too many clients "
        "already'); session-svc's pool timed out until the job's backends were terminated at 22:44",
        key_terms=["roaming", "connections"],
        distractors=["session-svc config change CHG-7714 (hikari.maximum_pool_size 40 -> 50) at 21:40",
                     "postgres 'too many clients' errors (the symptom at the database)"],
        runbook="pg-core-connections", runbook_query="postgres too many clients connection pool timeouts",
        evidence=[logs_ev("session-svc", q0, q1, "Connection is not available", level="ERROR"),
                  logs_ev("postgres", q0, q1, "too many clients", level="ERROR"),
                  sql_ev("SELECT ts, application, idle_in_transaction FROM db_connections "
                         "WHERE idle_in_transaction > 100 "
                         "AND application = "
                         f"'roaming' AND ts BETWEEN '{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts", "roaming")],
    )


def f09_quiet_night(w: Fleet) -> None:
    q0, q1 = w.at(3, "02:00"), w.at(3, "02:20")
    incident(
        w, id="FLEET-09", kind="no_incident", service="ocpp-gateway", start=q0, end=q1, onset=None,
        question="Got paged for the ocpp-gateway error rate at 02:04 CT on 2026-02-12. Can you look at "
        "02:00–02:20 and tell me whether anything is actually broken?", cause_service=None, root_cause=None,
        key_terms=[],
        distractors=["ocpp-gateway websocket 1006 errors (always there)",
                     "authz 'unknown idTag' warnings (always there)"],
        evidence=[], expected="FALLBACK",
        note="night traffic only: the usual 1006 closures and noise, metrics at baseline, no changes",
    )


def f10_mq_partition(w: Fleet) -> None:
    """A partial network partition between the rabbitmq nodes; pause_minority stops all three."""
    t0, t_all, t1 = w.at(3, "08:20", 5.3), w.at(3, "08:20", 19.0), w.at(3, "08:34", 41.0)
    w.switch["mq-down"], w.switch["mq-up"] = t_all, t1
    lines = [
        (0.0, "mq-1", "INFO", "[info] <0.207.0> node 'rabbit@mq-3' down: net_tick_timeout"),
        (
            0.4, "mq-3", "ERROR",
            "[error] <0.12411.0> Partial partition detected: * We saw DOWN from rabbit@mq-1 * We can still "
            "see rabbit@mq-2 which can see rabbit@mq-1 * pause_minority mode enabled We will therefore "
            "pause until the *entire* cluster recovers",
        ),
        (
            1.1, "mq-2", "ERROR",
            "[error] <0.11872.0> Partial partition detected: * We saw DOWN from rabbit@mq-3 * We can still "
            "see rabbit@mq-1 which can see rabbit@mq-3 * pause_minority mode enabled We will therefore "
            "pause until the *entire* cluster recovers",
        ),
        (
            2.0, "mq-3", "WARN",
            "[warning] <0.12411.0> Cluster minority/secondary status detected - awaiting recovery",
        ),
        (
            2.6, "mq-2", "WARN",
            "[warning] <0.11872.0> Cluster minority/secondary status detected - awaiting recovery",
        ),
        (8.9, "mq-1", "INFO", "[info] <0.207.0> rabbit on node 'rabbit@mq-2' down"),
        (
            13.7, "mq-1", "WARN",
            "[warning] <0.501.0> Cluster minority/secondary status detected - awaiting recovery",
        ),
    ]
    for off, node, level, text in lines:
        w.log(t0 + timedelta(seconds=off), "rabbitmq", level, text, node=node)
    for i, node in enumerate(MQ_NODES):
        w.log(t_all - ms(900 - 200 * i), "rabbitmq", "INFO",
              "[info] <0.501.0> Stopping RabbitMQ applications and their dependencies in the following "
              "order: rabbitmq_management, rabbitmq_prometheus, rabbit",
              node=node)
        w.log(t1 + ms(700 * i), "rabbitmq", "INFO",
              "[info] <0.501.0> Starting RabbitMQ 3.12.12 on Erlang 26.2.1", node=node)
        w.log(t1 + ms(700 * i + 4100), "rabbitmq", "INFO",
              "[info] <0.501.0> Server startup complete; 5 plugins started.", node=node)
    w.log(t1 + ms(1500), "rabbitmq", "INFO", "[info] <0.207.0> node 'rabbit@mq-3' up", node="mq-1")
    refused = "Connection refused (rabbitmq.fleet.svc:5672)"

    def publish(w: Fleet, t: datetime, c: dict[str, Any], kind: str) -> bool:
        msg = "StartTransaction" if kind == "start" else "StopTransaction"
        w.emit(t + ms(w.between(1, 20)), "ocpp-gateway", "ERROR",
               f"cp={c['cp']} msg={msg} amqp publish failed: "
               'Exception (504) Reason: "channel/connection is not open"; buffered')
        return True

    def session(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t + ms(w.between(2, 12)), "session-svc", "ERROR",
               f"[http-nio-8080-exec-{w.between(1, 200)}] "
               f"c.c.session.StartService : org.springframework.amqp.AmqpConnectException: "
               f"java.net.ConnectException: {refused}")
        access(w, t, c, "POST", "/v2/sessions", 503, w.between(15, 40), "session-svc:8080")
        return True

    def flush(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "telemetry-ingest", "INFO",
               f'level=info msg="flushed meter values" rows=0 tsdb=tsdb-0:5432 took={w.between(1, 4)}ms')
        return True

    w.on("ocpp->mq", t_all, t1, publish)
    w.on("session->mq", t_all, t1, session)
    w.on("telemetry-flush", t_all, t1, flush)
    for t in w.every(t_all + timedelta(seconds=2), t1, 20, 40):
        svc = w.pick(["billing", "notifier", "telemetry-ingest", "session-svc"])
        if svc == "billing":
            text = f"billing.consumer ERROR AMQPConnectionError: [Errno 111] {refused}; reconnecting in 10s"
        elif svc == "notifier":
            text = (
                "[notifier] amqp connection lost: Error: connect ECONNREFUSED "
                f"10.40.6.1{w.between(1, 3)}:5672; "
                "reconnecting"
            )
        elif svc == "telemetry-ingest":
            text = (
                f'level=error msg="amqp dial failed" err="dial tcp 10.40.6.1{w.between(1, 3)}:5672: connect: '
                'connection refused" retry_in=5s'
            )
        else:
            text = (
                f"[amqp-listener-{w.between(1, 8)}] o.s.a.r.l.SimpleMessageListenerContainer : Consumer "
                "raised "
                "exception, processing can restart if the connection factory supports it. Exception "
                "summary: "
                f"org.springframework.amqp.AmqpConnectException: java.net.ConnectException: {refused}"
            )
        w.emit(t, svc, "ERROR", text)
    for svc, val in (
        ("session-svc", 71.0), ("billing", 60.0), ("notifier", 55.0), ("ocpp-gateway", 38.0),
        ("edge-gw", 11.0), ("telemetry-ingest", 90.0),
    ):
        w.bend("service_metrics", svc, "error_pct", t_all, t1, lambda t, v, val=val: val + v)
    w.bend("fleet_metrics", "fleet", "start_fail_pct", t_all, t1, lambda t, v: 96.0)
    q0, q1 = w.at(3, "08:22"), w.at(3, "08:40")
    incident(
        w, id="FLEET-10", kind="system_wide", service=None, start=q0, end=q1, onset=t0,
        question="Everything is failing at once — starts, stops, billing, pushes. 2026-02-12T14:22Z to "
        "2026-02-12T14:40Z. What's the root cause?", cause_service="rabbitmq",
        root_cause="a partial network partition between the rabbitmq nodes at 08:20 (net_tick_timeout to "
        "rabbit@mq-3) made all three nodes pause under pause_minority, so the broker was down for "
        "every service — ocpp-gateway could not publish, session-svc, billing, notifier and "
        "telemetry-ingest lost their connections — until the cluster recovered at 08:34",
        key_terms=["rabbitmq", "partition"],
        distractors=["ocpp-gateway deploy DEP-3312 (1.28.0) at 08:02",
                     "session-svc config change CHG-7716 (amqp.prefetch) at 08:12"],
        evidence=[logs_ev("rabbitmq", w.at(3, "08:15"), q1, "Partial partition detected", level="ERROR"),
                  logs_ev("session-svc", q0, q1, "AmqpConnectException", level="ERROR"),
                  sql_ev("SELECT ts, node, running FROM mq_nodes WHERE running = 0 AND ts BETWEEN "
                         f"'{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts", "mq-3")],
    )


def f11_geocoder(w: Fleet) -> None:
    """The external geocoder hangs; locations spends its request threads waiting on it."""
    g0, full, fix, g1 = (
        w.at(3, "11:41", 20.0), w.at(3, "11:44", 2.3), w.at(3, "12:10", 33.0), w.at(3, "12:26", 0.0),
    )

    def geocode(w: Fleet, t: datetime, c: dict[str, Any], path: str, city: str) -> bool:
        thread = f"[http-nio-8080-exec-{w.between(1, 200)}] c.c.locations.geo.GeocoderClient"
        if t >= fix:
            w.emit(t + ms(1500), "locations", "WARN",
                   f'{thread} : geocoder request for "{city}" timed out after '
                   "1500ms (maps.geoapi.example:443); falling back to site-name match")
            return False
        w.emit(
            t + ms(10000), "locations", "WARN",
            f'{thread} : geocoder request for "{city}" timed out after 10000ms (maps.geoapi.example:443)',
        )
        access(w, t, c, "GET", path, 504, 8000, "locations:8080")
        return True

    def threads(w: Fleet, t: datetime, c: dict[str, Any], path: str) -> bool:
        if not w.chance(min(0.9, 0.3 + (t - full).total_seconds() / 300)):  # threads fill up over minutes
            return False
        access(w, t, c, "GET", path, 504, 8000, "locations:8080")
        return True

    w.on("locations->geocoder", g0, g1, geocode)
    w.on("locations-threads", full, fix, threads)
    w.emit(
        full, "locations", "WARN",
        "[http-nio-8080-Acceptor] o.a.tomcat.util.net.NioEndpoint : All threads (200) are currently busy, "
        "waiting. Increase maxThreads (200) or check the servlet status",
    )
    w.bend("service_metrics", "locations", "p99_ms", g0, fix, lambda t, v: 10000 + v)
    w.bend("service_metrics", "locations", "error_pct", full, fix, lambda t, v: v + 72)
    w.bend("service_metrics", "edge-gw", "error_pct", full, fix, lambda t, v: v + 38)
    q0, q1 = w.at(3, "11:45"), w.at(3, "12:05")
    incident(
        w, id="FLEET-11", kind="trap_noisy_service", service="edge-gw", start=q0, end=q1, onset=g0,
        question="edge-gw is returning 504s on the station map and search, 11:45–12:05 CT on Feb 12 2026. "
        "ocpp-gateway has been spitting errors all morning — is the gateway the problem?",
        cause_service="locations",
        root_cause="the external geocoder maps.geoapi.example:443 started hanging at 11:41; locations "
        "calls it "
        "synchronously with a 10 s timeout on its request threads, so searches held all 200 Tomcat "
        "threads and every locations endpoint (availability too) timed out at edge-gw with 504, "
        "until CHG-7717 cut geocoder.timeout_ms to 1500 at 12:10; the ocpp-gateway 1006 errors are "
        "the usual noise", key_terms=["locations", "geocoder"],
        distractors=["ocpp-gateway websocket 1006 errors (always there)",
                     "edge-gw deploy DEP-3313 (2.14.1, partner rate limits) at 11:20"],
        evidence=[
            logs_ev("locations", q0, q1, "maps.geoapi.example:443", level="WARN"),
            logs_ev(
                "locations", w.at(3, "11:40"), q1, "All threads (200) are currently busy", pattern="threads"
            ),
            sql_ev("SELECT ts, service, p99_ms FROM service_metrics WHERE service = 'locations' "
                   "AND p99_ms > 5000 "
                   "AND ts "
                   f"BETWEEN '{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts", "locations"),
        ],
    )


def f12_migration(w: Fleet) -> None:
    """billing 3.1.0's migration adds a NOT NULL column to cdr; session-svc's inserts no longer fit."""
    sw = w.switch["DEP-3314"]
    t_mig, t_fix, t_replay = sw - ms(4200), w.at(3, "15:43", 20.0), w.at(3, "15:49", 5.0)
    pod = pod_name("billing", "3.1.0", 0)
    w.log(t_mig, "billing", "INFO",
          'billing.migrate INFO Migrating schema "public" to version "87 - cdr tariff snapshot"', pod=pod,
          version="3.1.0")
    w.log(t_mig + ms(412), "billing", "INFO",
          'billing.migrate INFO Successfully applied 1 migration to schema "public", now at version v87 '
          "(execution time 00:00.412s)", pod=pod, version="3.1.0")
    w.migrations.append([87, "87", "cdr tariff snapshot", "V87__cdr_tariff_snapshot.sql", "billing",
                         local_text(t_mig) + ".120", 412, 1])
    w.migrations.append(
        [88, "88", "cdr tariff snapshot nullable", "V88__cdr_tariff_snapshot_nullable.sql", "oncall_dba",
         local_text(t_fix) + ".904", 96, 1]
    )
    parked = {"n": 0}
    notnull = 'null value in column "tariff_snapshot_id" of relation "cdr" violates not-null constraint'

    def insert(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        parked["n"] += 1
        w.emit(t + ms(w.between(2, 9)), "postgres", "ERROR", f"ERROR:  {notnull}", user="session_svc",
               detail=f"Failing row contains (CDR-{w.token(8)}, {c['session']}, {int(c['kwh'] * 1000)}, "
               "null, ...).")
        w.emit(t + ms(w.between(12, 30)), "session-svc", "ERROR",
               f"[amqp-listener-{w.between(1, 8)}] "
               "o.s.a.r.l.ConditionalRejectingErrorHandler : Execution of Rabbit message listener failed. "
               "org.springframework.dao.DataIntegrityViolationException: could not execute statement "
               f"[ERROR: {notnull}]")
        w.emit(t + timedelta(seconds=w.between(20, 40)), "session-svc", "WARN",
               f"[amqp-listener-{w.between(1, 8)}] "
               f"c.c.session.StopHandler : StopTransaction for session {c['session']} ({c['cp']}) "
               "dead-lettered to "
               "ocpp.events.dlq after 3 attempts")
        return True

    w.on("session->cdr", t_mig + ms(500), t_fix, insert)
    w.emit(
        t_fix - ms(96), "postgres", "INFO",
        "LOG:  statement: ALTER TABLE cdr ALTER COLUMN tariff_snapshot_id DROP NOT NULL", user="oncall_dba",
    )
    w.after.append(
        lambda: w.emit(
            t_replay, "session-svc", "INFO",
            f"[main] c.c.session.admin.DlqReplayer : replayed {parked['n']} messages from ocpp.events.dlq",
        )
    )
    w.bend("service_metrics", "session-svc", "error_pct", t_mig, t_fix, lambda t, v: v + 18)
    q0, q1 = w.at(3, "15:10"), w.at(3, "15:30")
    incident(
        w, id="FLEET-12", kind="trap_runbook_words", service="session-svc", start=q0, end=q1, onset=t_mig,
        question="Sessions stay 'Charging' in the app after drivers unplug — session-svc, 15:10 to 15:30 "
        "CST, "
        "Feb 12 (2026). Root cause please.", cause_service="billing",
        root_cause="billing 3.1.0 (DEP-3314) ran migration V87 at 15:01, adding a NOT NULL column "
        "tariff_snapshot_id to table cdr; session-svc writes the CDR when a StopTransaction arrives "
        "and does not set that column, so every stop failed with a not-null violation, was "
        "dead-lettered and the session stayed Charging, until V88 made the column nullable at 15:43",
        key_terms=["migration", "tariff_snapshot_id"],
        distractors=[
            "runbook stuck-sessions (charger connectivity, StopTransaction queued on the charger) matches "
            "the symptom's words", "ocpp-gateway websocket 1006 errors (always there)",
            "tariff config change CHG-7718 (cache.ttl_s) at 14:40",
        ],
        decoy_runbook="stuck-sessions",
        runbook_query="sessions stuck charging after unplug StopTransaction",
        evidence=[
            logs_ev("session-svc", q0, q1, "tariff_snapshot_id", level="ERROR"),
            logs_ev("postgres", q0, q1, "violates not-null constraint", level="ERROR"),
            sql_ev("SELECT version, description, installed_by, installed_on FROM schema_migrations WHERE "
                   "version = '87'", "cdr tariff snapshot"),
        ],
    )


def f13_quiet_deploy(w: Fleet) -> None:
    q0, q1 = w.at(3, "16:40"), w.at(3, "17:00")
    incident(
        w, id="FLEET-13", kind="no_incident", service="locations", start=q0, end=q1, onset=None,
        question="We shipped locations 5.8.0 at 16:45 CT on 2026-02-12 and I see a few errors around it. "
        "Is anything actually wrong between 16:40 and 17:00?", cause_service=None, root_cause=None,
        key_terms=[],
        distractors=["locations deploy DEP-3315 (5.8.0) at 16:45 (went out cleanly)",
                     "ocpp-gateway websocket 1006 errors (always there)"],
        evidence=[], expected="FALLBACK",
        note="a clean deploy: locations restarted with no errors, metrics at baseline, only the usual noise",
    )


def f14_partner_rejections(w: Fleet) -> None:
    """Partner EMSPs reject more of their own tokens; nothing on our side changed how we ask."""
    t0, t1 = w.at(3, "19:02", 0.0), w.at(3, "19:48", 0.0)

    def reject(w: Fleet, t: datetime, c: dict[str, Any]) -> bool:
        took = w.lat(120, 600)
        roam_reject(w, t, c, took, w.weighted([("NOT_ALLOWED", 7), ("BLOCKED", 2), ("EXPIRED", 1)]))
        return True

    w.on("roaming-authorize", t0, t1, reject, share=0.25)
    for hub in ("e-roam", "gridhub"):
        w.bend("roaming_stats", hub, "reject_ratio", t0, t1, lambda t, v: v + 0.24)
    q0, q1 = w.at(3, "19:05"), w.at(3, "19:25")
    incident(
        w, id="FLEET-14", kind="trap_unrelated_change", service="roaming", start=q0, end=q1, onset=t0,
        question="Roaming drivers are getting rejected a lot more since ~19:00 CT, Feb 12 2026 — roaming, "
        "19:05 to 19:25. We deployed roaming 1.15.1 at 18:50; is that it?",
        cause_service="partner EMSPs (external)",
        root_cause="not determinable from this data: both hubs (e-roam and gridhub) answered NOT_ALLOWED / "
        "BLOCKED for tokens of every partner EMSP, at normal latency; roaming asked as before — "
        "1.15.1 (DEP-3316) only changed the tariffs module and CHG-7719 only the CDR push interval",
        key_terms=[],
        distractors=["roaming deploy DEP-3316 (1.15.1) at 18:50",
                     "roaming config change CHG-7719 (ocpi.cdr_push_interval_min) at 18:55"],
        evidence=[
            logs_ev("roaming", q0, q1, "NOT_ALLOWED", pattern="authorization"),
            sql_ev("SELECT ts, hub, requests, rejected FROM roaming_stats WHERE rejected * 10 > requests "
                   "AND ts BETWEEN "
                   f"'{zulu(w.at(3, '18:30'))}' AND '{zulu(q1)}' ORDER BY ts", "gridhub"),
        ],
        expected="FALLBACK",
        note="the right answer is a FALLBACK (or the partners' side); blaming DEP-3316 or CHG-7719 is wrong",
    )


INCIDENTS = [
    f01_gateway_oom, f02_replica_lag, f03_tariff_release, f04_egress_proxy, f05_consumer_gone,
    f06_firmware_key, f07_idtag_normalize, f08_roaming_connections, f09_quiet_night, f10_mq_partition,
    f11_geocoder, f12_migration, f13_quiet_deploy, f14_partner_rejections,
]


# --- tables and runbooks --------------------------------------------------------------------

BASE = {  # rps, p50_ms, p99_ms, error_pct, cpu_pct at peak, mem_mb
    "edge-gw": (95, 12, 180, 0.3, 30, 310), "ocpp-gateway": (410, 2, 40, 0.9, 46, 0),
    "session-svc": (22, 35, 420, 0.2, 28, 1450), "authz": (60, 3, 25, 0.1, 12, 180),
    "tariff": (18, 9, 60, 0.05, 14, 900), "billing": (6, 320, 1400, 0.4, 10, 420),
    "locations": (70, 6, 90, 0.05, 24, 1100), "telemetry-ingest": (690, 1, 12, 0.01, 38, 520),
    "firmware-svc": (0.4, 20, 150, 0.1, 3, 90), "notifier": (6, 110, 600, 1.2, 8, 260),
    "roaming": (1.5, 240, 1900, 0.6, 6, 330),
}

DEPENDENCIES = engine.rows("""
    edge-gw          | session-svc  | http                 | session-svc:8080
    edge-gw          | locations    | http                 | locations:8080
    edge-gw          | authz        | http                 | authz:8080
    ocpp-gateway     | authz        | http                 | authz:8080
    ocpp-gateway     | rabbitmq     | amqp                 | mq-1..3:5672
    session-svc      | ocpp-gateway | grpc                 | ocpp-gateway:9090
    session-svc      | authz        | http                 | authz:8080
    session-svc      | tariff       | http                 | tariff:8080
    session-svc      | pg-core      | postgres             | pg-core:5432
    session-svc      | rabbitmq     | amqp                 | rabbitmq.fleet.svc:5672
    authz            | pg-core      | postgres             | pg-core:5432
    authz            | roaming      | http                 | roaming:8080
    tariff           | pg-core      | postgres             | pg-core:5432
    tariff           | tariff-cache | redis                | tariff-cache:6379
    billing          | rabbitmq     | amqp                 | rabbitmq.fleet.svc:5672
    billing          | pg-core      | postgres             | pg-core:5432
    billing          | tariff       | http                 | tariff:8080
    billing          | egress-proxy | http-connect         | 10.30.0.8:3128
    billing          | paycore      | https                | api.paycore.example:443 (via egress-proxy)
    billing          | objstore     | s3                   | objstore.fleet.internal:9000
    notifier         | rabbitmq     | amqp                 | rabbitmq.fleet.svc:5672
    notifier         | egress-proxy | http-connect         | 10.30.0.8:3128
    notifier         | fcm          | https                | fcm.googleapis.com:443 (via egress-proxy)
    locations        | pg-replica   | postgres             | pg-replica:5432
    locations        | geocoder     | https                | maps.geoapi.example:443
    telemetry-ingest | rabbitmq     | amqp                 | rabbitmq.fleet.svc:5672
    telemetry-ingest | tsdb         | postgres             | tsdb-0:5432
    firmware-svc     | objstore     | s3                   | objstore.fleet.internal:9000
    firmware-svc     | pg-core      | postgres             | pg-core:5432
    firmware-svc     | ocpp-gateway | grpc                 | ocpp-gateway:9090
    roaming          | pg-core      | postgres             | pg-core:5432
    roaming          | e-roam       | https                | ocpi.e-roam.example:443
    roaming          | gridhub      | https                | api.gridhub.example:443
    pg-replica       | pg-core      | postgres-replication | pg-core:5432
    dashboards       | pg-replica   | postgres             | pg-replica:5432
""")

POOLS = {  # pg-core application -> (active at peak, idle)
    "session-svc": (14, 104), "billing": (5, 33), "authz": (3, 17), "tariff": (2, 8), "roaming": (1, 3),
    "firmware-svc": (0, 3),
}


def tables(w: Fleet) -> None:
    svc_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 10):
        d = w.diurnal(t)
        for svc, (rps, p50, p99, err, cpu, mem) in BASE.items():
            if svc == "ocpp-gateway":
                mem_v = sum(gw_heap(w, t, i) for i in range(4)) / 4
            else:
                mem_v = mem * (0.96 + 0.08 * w.r())
            vals = {
                "rps": rps * d * (0.92 + 0.16 * w.r()) if svc != "ocpp-gateway" else rps * (0.6 + 0.4 * d),
                "p50_ms": p50 * (0.9 + 0.2 * w.r()), "p99_ms": p99 * (0.85 + 0.3 * w.r()) * (0.9 + 0.2 * d),
                "error_pct": err * (0.5 + w.r()), "cpu_pct": cpu * (0.45 + 0.55 * d) * (0.9 + 0.2 * w.r()),
                "mem_mb": mem_v,
            }
            row: list[Any] = [local_text(t), svc]
            for col in ("rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct", "mem_mb"):
                v = w.bent("service_metrics", svc, col, t, vals[col])
                row.append(round(min(100.0, v), 2)
                           if col == "error_pct"
                           else (round(v) if col.endswith(("_ms", "_mb")) else round(v, 1)))
            svc_rows.append(row)
    w.tables["service_metrics"] = (
        ["ts", "service", "rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct", "mem_mb"], svc_rows,
    )

    fleet_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        connected = w.bent("fleet_metrics", "fleet", "chargers_connected", t, 4100 - w.between(8, 40))
        fail = w.bent("fleet_metrics", "fleet", "start_fail_pct", t, 1.2 + 1.2 * w.r())
        fleet_rows.append([local_text(t), 4100, round(connected), round(1450 * d * (0.95 + 0.1 * w.r())),
                           round(5 * 52 * d * (0.9 + 0.2 * w.r())), round(min(100.0, fail), 1)])
    w.tables["fleet_metrics"] = (
        ["ts", "chargers_total", "chargers_connected", "sessions_active", "starts_5m", "start_fail_pct"],
        fleet_rows,
    )

    f05 = w.switch["f05"]
    alarm, fix, clear = w.at(2, "09:33", 10.7), w.at(2, "10:04", 30.0), w.at(2, "10:16", 2.5)
    down, up = w.switch["mq-down"], w.switch["mq-up"]

    def backlog(t: datetime, rate: float) -> float:
        if f05 <= t < alarm:
            return rate * (t - f05).total_seconds()
        if alarm <= t < fix:
            return rate * (alarm - f05).total_seconds()
        if fix <= t < clear + timedelta(minutes=3):
            return max(0.0, rate * (alarm - f05).total_seconds() * (1 - (t - fix).total_seconds() / 900))
        return 0.0

    q_rows: list[list[Any]] = []
    node_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 10):
        d = w.diurnal(t)
        outage = down <= t < up
        meter_rate = 300 + 380 * d
        for queue, pub, consumers in (
            ("meter.values", meter_rate, 2), ("ocpp.events", 21 * d, 3), ("session.events", 8 * d, 2),
            ("notify.push", 4 * d, 2),
        ):
            ready = w.between(0, int(40 + pub)) if queue == "meter.values" else w.between(0, 12)
            rate_in, rate_out, cons = pub * (0.95 + 0.1 * w.r()), pub * (0.95 + 0.1 * w.r()), consumers
            if queue == "meter.values" and backlog(t, meter_rate) > 0:
                ready = int(backlog(t, meter_rate))
                cons = 0 if t < fix else 2
                rate_out = 0.0 if t < fix else meter_rate * 1.8
                rate_in = 0.0 if alarm <= t < clear else rate_in
            elif alarm <= t < clear:
                rate_in = rate_out = 0.0
            if outage:
                ready, rate_in, rate_out, cons = 0, 0.0, 0.0, 0
            q_rows.append([local_text(t), queue, ready, 0 if cons == 0 else w.between(0, 60), cons,
                           round(rate_in, 1), round(rate_out, 1)])
        used_by_queue = 0.0034 * backlog(t, meter_rate)
        for i, node in enumerate(MQ_NODES):
            mem = (
                760
                + 40 * i
                + 60 * d
                + 30 * w.r()
                + (used_by_queue if node == "mq-1" else 0.3 * used_by_queue)
            )
            alarm_on = 1 if alarm <= t < clear else 0
            if alarm_on and node == "mq-1":
                mem = 3281 + 8 * w.r()
            running = 0 if outage or (node == "mq-3" and w.at(3, "08:20", 5.3) <= t < up) else 1
            node_rows.append([local_text(t), node, running, round(mem) if running else "", 3276, alarm_on,
                              "rabbit@mq-1,rabbit@mq-2" if running == 0 and node == "mq-3" else ""])
    w.tables["queue_metrics"] = (
        ["ts", "queue", "messages_ready", "messages_unacked", "consumers", "publish_per_s", "deliver_per_s"],
        q_rows,
    )
    w.tables["mq_nodes"] = (
        ["ts", "node", "running", "mem_used_mb", "mem_limit_mb", "mem_alarm", "partitioned_from"],
        node_rows,
    )

    db_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        for inst, conns, tps, cpu in (("pg-core", 176, 1900, 34), ("pg-replica", 38, 420, 22)):
            c = w.bent("db_metrics", inst, "connections", t, conns + 14 * d + w.between(0, 6))
            lag = w.bent(
                "db_metrics", inst, "replication_lag_s", t, 0.0 if inst == "pg-core" else 0.1 + 0.4 * w.r()
            )
            db_rows.append(
                [local_text(t), inst, round(c), 300, round(lag, 1), round(tps * d * (0.9 + 0.2 * w.r())),
                 round(cpu * (0.5 + 0.5 * d) * (0.9 + 0.2 * w.r()), 1)]
            )
    w.tables["db_metrics"] = (
        ["ts", "instance", "connections", "max_connections", "replication_lag_s", "tps", "cpu_pct"],
        db_rows,
    )

    pool_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 20):
        d = w.diurnal(t)
        for app, (active, idle) in POOLS.items():
            a = round(active * d * (0.6 + 0.8 * w.r()))
            iit = round(w.bent("db_connections", app, "idle_in_transaction", t, 1 if w.chance(0.05) else 0))
            pool_rows.append([local_text(t), "pg-core", app, a, idle - a + w.between(0, 2), iit])
    w.tables["db_connections"] = (
        ["ts", "instance", "application", "active", "idle", "idle_in_transaction"], pool_rows,
    )

    roam_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 15):
        d = w.diurnal(t)
        for hub in ("e-roam", "gridhub"):
            req = max(1, round(34 * d * (0.85 + 0.3 * w.r())))
            ratio = w.bent("roaming_stats", hub, "reject_ratio", t, 0.03 * (0.6 + 0.8 * w.r()))
            roam_rows.append([local_text(t), hub, req, round(req * ratio), w.between(280, 520)])
    w.tables["roaming_stats"] = (["ts", "hub", "requests", "rejected", "p95_ms"], roam_rows)

    w.tables["dependencies"] = (engine.columns("DEPENDENCIES"), [list(r) for r in DEPENDENCIES])
    w.tables["deploys"] = (
        engine.columns("DEPLOYS_ROLLOUT"), w.deploys,
    )
    w.tables["config_changes"] = (
        engine.columns("CONFIG_AUDIT"), sorted(w.changes, key=lambda r: r[6]),
    )
    w.tables["schema_migrations"] = (
        engine.columns("FLYWAY"), w.migrations,
    )
    d1 = w.at(1, "10:00")
    w.campaigns.insert(
        0, ["FW-0210", "Kestrel AC11", "2.9.2", "2.9.3", local_text(d1), 150, "COMPLETED", 147, 3]
    )
    w.tables["firmware_campaigns"] = (
        ["campaign_id", "model", "from_version", "to_version", "started_at", "targets", "status",
         "installed", "failed"],
        w.campaigns,
    )


def fw_0210(w: Fleet) -> None:
    """Day 1's firmware campaign, which went fine (the world's normal OTA traffic)."""
    t = w.at(1, "10:00")
    w.emit(t, "firmware-svc", "INFO",
           'level=info msg="campaign started" campaign=FW-0210 model="Kestrel AC11" from=2.9.2 to=2.9.3 '
           "targets=150 batch=25 every=10m")
    w.on("fw-active", t, t + timedelta(minutes=60), lambda w, t, c: True)
    for b in range(6):
        tb = t + timedelta(minutes=10 * b)
        for _ in range(25):
            cp = f"CP-US-{10000 + w.between(0, 409) * 10 + w.between(7, 9):05d}"
            td = tb + timedelta(seconds=w.between(30, 240))
            w.emit(td, "objstore", "INFO",
                   f"GET /fw-images/kestrel-ac11/2.9.3.bin 200 14.2MiB "
                   f"accessKey=fw-signer-2025 remote=100.64.{w.between(0, 255)}.{w.between(1, 254)} "
                   f"{w.between(9000, 60000)}ms")
            if w.chance(0.3):
                w.emit(td + timedelta(seconds=w.between(200, 400)), "ocpp-gateway", "INFO",
                       f"cp={cp} msg=FirmwareStatusNotification status=Installed")
        w.emit(tb + timedelta(minutes=9), "firmware-svc", "INFO",
               f'level=info msg="campaign batch done" '
               f"campaign=FW-0210 batch={b + 1} installed={25 if b != 3 else 22} download_failed=0")
    w.emit(t + timedelta(minutes=61), "firmware-svc", "INFO",
           'level=info msg="campaign completed" campaign=FW-0210 installed=147 failed=3 (offline)')


RUNBOOKS = {
    "fleet-overview": """# ChargeNet backend on-call overview

Owner: platform. Times are US Central (CST, UTC-6) unless a tool says otherwise; metric exports
are in Central wall time, deploys in UTC.

## Flow

- Chargers keep a websocket (OCPP 1.6) to ocpp-gateway. Authorize goes to authz (partner
  cards via roaming and the OCPI hubs); StartTransaction, StopTransaction and meter values are
  published to rabbitmq (exchange ocpp.events, queue meter.values).
- The app calls edge-gw (nginx). POST /v2/sessions goes to session-svc, which checks the
  account (authz), asks tariff for a quote and sends RemoteStartTransaction through
  ocpp-gateway; the session starts when the charger's StartTransaction arrives over rabbitmq.
- On StopTransaction session-svc writes the CDR (pg-core), billing prices and charges it
  (paycore, through the egress proxy) and notifier pushes the receipt (FCM, same proxy).
- locations serves the map and availability from the read replica pg-replica;
  telemetry-ingest consumes meter.values into tsdb; firmware-svc runs OTA campaigns with
  presigned objstore URLs.

## Where to look

- `dependencies` for every edge and address; `service_metrics`, `fleet_metrics`,
  `queue_metrics`, `mq_nodes`, `db_metrics`, `db_connections`, `roaming_stats` for the
  numbers; `deploys`, `config_changes`, `schema_migrations`, `firmware_campaigns` for changes.
""",
    "known-noise": """# Known noise in the fleet's logs

Owner: platform. These show up every day and do not mean drivers are affected.

## ocpp-gateway: websocket close 1006

- "ws read failed cp=...: websocket: close 1006 (abnormal closure): unexpected EOF" many
  times an hour, day and night: chargers on cellular links drop and reconnect. Only a
  fleet-wide drop in `fleet_metrics.chargers_connected` matters.

## authz: unknown idTag

- A few "unknown idTag" warnings an hour: cards that were never enrolled, or deleted.

## notifier, rabbitmq, postgres

- notifier "registration-token-not-registered": app uninstalled; the token is removed.
- rabbitmq "client unexpectedly closed TCP connection" from user 'reports': the nightly
  report jobs do not close their connections.
- pg-replica slow statements from user metabase: BI dashboards.
""",
    "rabbitmq-alarms": """# rabbitmq resource alarms

Owner: platform. The cluster is rabbit@mq-1..3 (vhost /fleet), memory high watermark
3276 MB per node.

## Symptoms

- rabbitmq logs "memory resource limit alarm set on node ..." and "Publishers will be blocked
  until this alarm clears". Every publishing connection is blocked, not only the one that
  filled the memory: ocpp-gateway logs "connection.blocked (low on memory)" and nothing it
  receives from chargers reaches the consumers.

## Finding the cause

- The alarm is a consequence. Look at `queue_metrics` for the queue whose messages_ready
  grew before the alarm, and at its consumers column: a queue with 0 consumers is a consumer
  that died or stopped subscribing. Read that consumer's log around the time its queue
  started to grow.

## Mitigation

- Restart or fix the consumer; the queue drains and the alarm clears by itself. Do not purge
  meter.values (billing disputes need it).
""",
    "pg-core-connections": """# pg-core connection exhaustion

Owner: platform DBA. pg-core has max_connections = 300; applications use pools
(session-svc HikariCP 40 per pod, billing 20 per pod, others small).

## Symptoms

- postgres "FATAL: sorry, too many clients already"; session-svc "HikariPool-1 - Connection is
  not available, request timed out after 30000ms"; billing psycopg OperationalError.
- `db_metrics.connections` for pg-core at 300.

## Finding the cause

- `db_connections` shows connections per application and state. Connections "idle in
  transaction" are held by a client that opened a transaction and is doing something else
  (a batch job waiting on an external API is the usual suspect). Compare with the same
  hour the day before.

## Mitigation

- Terminate the offending application's idle-in-transaction backends
  (pg_terminate_backend) and stop the job; do not raise max_connections during the incident.
""",
    "stuck-sessions": """# Sessions stuck in Charging

Owner: sessions team. Drivers say the app still shows "Charging" after they unplugged.

## Usual cause: the charger lost its connection

- A charger that is offline when the driver unplugs keeps its StopTransaction in its local
  queue and sends it when it reconnects. Look for websocket close 1006 for that charger in
  ocpp-gateway and for a BootNotification when it comes back.
- The session closes by itself once the StopTransaction arrives; nothing to do unless the
  charger stays offline for more than a day.

## Mitigation

- If the charger is back but the session is still open, close it from the ops console
  (Sessions -> Force stop); billing uses the last meter value.
""",
}


def build() -> Fleet:
    w = Fleet()
    changes(w)
    fw_0210(w)
    for simulate in INCIDENTS:
        simulate(w)
    one_offs(w)
    background(w)
    for report in w.after:
        report()
    tables(w)
    w.runbooks.update(RUNBOOKS)
    return w


def world() -> tuple[World, dict[str, Any], dict[str, Any]]:
    w = build()
    about = engine.manifest(NAME, "America/Chicago", "An EV-charging network backend",
                            "2026-02-10..12 US Central time", 14, "14 services, ~4100 chargers",
                            "request and charger")
    return w, about, truth_of(w, "fleet-world", "-06:00", (
        "Questions are asked in US Central time (CST, UTC-6) unless they say otherwise; metric tables are "
        "exported in Central wall time, deploys in UTC."))


main = engine.main(NAME, world, __name__)
