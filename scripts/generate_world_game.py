"""Write the held-out "game" world: the backend of an online multiplayer game.

Three days (2026-12-01..03, US Pacific standard time, UTC-08:00, America/Los_Angeles) of logs from
14 components, the ops tables the live-ops on-call has (dependencies, deploys, config changes,
schema migrations, job runs, two metric exports in long format and two wide ones) and the
runbooks, with 14 incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_game.py [OUT_DIR]   # writes OUT_DIR/game/ (default tests/data/worlds)

The game ("Riftline", a 5v5 online shooter; GKE cluster gke-usw2, namespace riftline-prod): game
clients come in through the Envoy **edge** (api.riftline.gg, the chat websocket route chat-ws; every
/v1 request is checked by **auth** over ext_authz). **auth** (Java/Spring) signs players in with
Steam, PSN and Xbox Live and keeps a device denylist from anti-cheat; **matchmaker** (Go) forms
matches and asks the **allocator** (Agones-style fleet manager and allocator, Go) for a dedicated
game server from fleet ranked-usw2; **lobby** (node) keeps parties in **redis** (game-redis-0
primary, two replicas) and publishes lobby.events to **kafka** (three brokers); **leaderboard**
(Rust) keeps ranked boards as redis sorted sets; **inventory** (Kotlin) keeps loadouts and items in
**scylla** (profile-store, three nodes); **store** (python) sells coin packs through the PayCore
payment provider with receipts validated against the platform stores, on **postgres**
(pg-store-01); **chat** (Elixir/Phoenix) carries chat and presence over websockets; **telemetry**
(a Flink job, telemetry-enrich) reads telemetry.raw from kafka and writes parquet to S3.

Clocks as they come: edge, allocator, leaderboard, redis, inventory, kafka and chat write UTC (chat
only the time of day), auth writes local time with its offset, store, scylla and telemetry write
local wall time without a zone, postgres says PST, matchmaker and lobby write epoch times.
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

NAME, SEED = "game", 20261201
PST = timezone(timedelta(hours=-8))
LOCAL = engine.Clock(PST, datetime(2026, 12, 1, tzinfo=PST))
DAY0, END = LOCAL.days(3)
at, lt, loc, wall = LOCAL.at, LOCAL.iso, LOCAL.loc, LOCAL.wall
wmin = LOCAL.minute




def zulu_us(t: datetime) -> str:
    return utc(t).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# the day's load: (hour, load), straight lines between
DAY_CURVE = [(0, 0.6), (2, 0.38), (4, 0.2), (7, 0.16), (9, 0.26), (12, 0.42), (15, 0.52), (17, 0.78),
             (19, 1.0), (22, 0.95), (24, 0.6)]


def load(t: datetime) -> float:
    """Players online: a quiet early morning, a lunch bump, the evening peak from 18:00 to 22:00."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.6)


# What goes wrong (local PST times)
MAXMEM = (at(0, 8, 33, 40), at(0, 9, 21, 30))  # GAME-01 game-redis-0 at maxmemory, noeviction
IDLE = (at(0, 11, 12, 0), at(0, 12, 4, 30))  # GAME-02 edge CFG-4471 idle_timeout 60s on chat-ws
KAFKA3 = (at(0, 13, 52, 30), at(0, 14, 44, 0))  # GAME-03 kafka-3 log dir failed, lobby.events RF 2
STEAM = (at(1, 10, 4, 0), at(1, 10, 52, 0))  # GAME-05 Steam Web API answers 503 (external)
REPAIR = (at(1, 12, 58, 0), at(1, 13, 52, 0))  # GAME-06 scylla repair at full intensity, scylla-3 disk
SELECTOR = (at(1, 16, 12, 30), at(1, 16, 58, 30))  # GAME-07 matchmaker DEP-7713 pins build label
QUOTA = (at(1, 18, 48, 0), at(1, 19, 49, 0))  # GAME-08 node pool cannot grow: C2_CPUS quota
MIGR = (at(2, 5, 48, 10), at(2, 6, 58, 40))  # GAME-10 migration V2031 CREATE INDEX locks purchases
POOL = (at(2, 6, 14, 0), at(2, 6, 59, 10))  # GAME-10 the symptom: store's pool exhausted
TOKEN = (at(2, 9, 27, 0), at(2, 10, 8, 0))  # GAME-11 telemetry's AWS session credentials expired
PSN = (at(2, 13, 22, 10), at(2, 14, 10, 0))  # GAME-12 PSN client secret rotated, auth kept old one
HEAP = (at(2, 18, 2, 0), at(2, 18, 51, 0))  # GAME-13 denylist 9.6M entries: auth out of heap
RESYNC = (at(2, 20, 24, 0), at(2, 20, 58, 0))  # GAME-14 game-redis-2 full resync loop


class World(engine.Dataset):
    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.order_no = 8_812_000

    player = partialmethod(engine.Dataset.tagged, "p_", 10)

    def order(self) -> str:
        return f"ord_{self.counter('order_no', 1, 9)}"


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,), (incidents, metrics, job_runs), (DEPLOYS, rollout))
    return w, engine.manifest(
        NAME, "America/Los_Angeles", "The backend of Riftline, an online multiplayer shooter",
        "2026-12-01..03 US Pacific time", 14,
        "edge auth matchmaker allocator lobby leaderboard redis inventory scylla store postgres chat kafka "
        "telemetry".split(), dayfirst=False), truth()

PODS = {"edge": ["envoy-edge-5f7c9b6d4-h2kqz", "envoy-edge-5f7c9b6d4-wl8tn", "envoy-edge-5f7c9b6d4-x9c4r"],
        "auth": ["auth-7d8f6c5b9-4mzqp", "auth-7d8f6c5b9-k2v7s", "auth-7d8f6c5b9-tt9wd"],
        "matchmaker": ["matchmaker-6b4d9f7c8-8xq2n", "matchmaker-6b4d9f7c8-pz5km"],
        "allocator": ["agones-allocator-7c5f8d-2hxbq", "agones-controller-6d9b7f-q7lmc"],
        "lobby": ["lobby-5c8d7b9f6-6tkvr", "lobby-5c8d7b9f6-c9wzh"],
        "leaderboard": ["leaderboard-84f6d9c7b-jq4xw", "leaderboard-84f6d9c7b-s7n2d"],
        "inventory": ["inventory-6f9c8d7b5-fw3zp", "inventory-6f9c8d7b5-r8k6m"],
        "store": ["store-7b6c5d8f9-9pqlx", "store-7b6c5d8f9-hk2vt"],
        "chat": ["chat-5d7f9c6b8-2nvbx", "chat-5d7f9c6b8-m4qzr", "chat-5d7f9c6b8-wx7tl"]}

BASE_VERSION = {
    "edge": "envoy-1.32.3", "auth": "4.11.2", "matchmaker": "3.7.4", "allocator": "1.44.0-rl3",
    "lobby": "2.18.1", "leaderboard": "1.9.2", "inventory": "2.43.1", "store": "2.30.4", "chat": "5.6.0",
    "telemetry": "enrich-v56",
}

# deploy_id, service, version, start (local), duration min, status, author, description
DEPLOYS = engine.table(at, "ssstisss", """
DEP-7698 | chat | 5.6.0 | -1 15:10 | 6 | succeeded | mfischer | presence batching
DEP-7701 | inventory | 2.43.1 | -1 17:40 | 5 | succeeded | jokafor | loadout presets fix
DEP-7703 | leaderboard | 1.9.3 | 0 07:30 | 4 | succeeded | spatel | season 12 boards; season 11 snapshot job
    reads archive prefix lb:s11:archive
DEP-7705 | chat | 5.6.1 | 0 16:20 | 6 | succeeded | mfischer | emoji picker payloads
DEP-7706 | store | 2.30.5 | 0 17:05 | 5 | succeeded | lnguyen | holiday bundles catalog
DEP-7709 | auth | 4.12.0 | 1 09:55 | 5 | succeeded | dkim | PSN trophy sync endpoint; Spring Boot 3.3.6
DEP-7711 | inventory | 2.44.0 | 1 11:40 | 5 | succeeded | jokafor | cosmetics bundle grants
DEP-7713 | matchmaker | 3.8.0 | 1 16:12:30 | 3 | succeeded | rbianchi | winter patch prep: allocation
    requests pin the client build label riftline.gg/build=2026.12.2
DEP-7714 | matchmaker | 3.7.4 | 1 16:58:30 | 3 | succeeded | rbianchi | rollback of DEP-7713
DEP-7716 | store | 2.31.0 | 2 05:46:00 | 4 | succeeded | lnguyen | purchase history page; alembic migration
    2031
DEP-7718 | lobby | 2.19.0 | 2 11:00 | 5 | succeeded | aserrano | party size 5 behind flag
DEP-7720 | leaderboard | 1.9.4 | 2 15:35 | 4 | succeeded | spatel | friends board paging
""")


def version(service: str, t: datetime) -> str:
    return engine.deployed(BASE_VERSION.get(service, ""), DEPLOYS, service, t, 0)  # from its start


# change_id, service, key, old, new, applied (local), author, ticket
CONFIG = engine.table(at, "ssssstss", """
CFG-4458 | matchmaker | queues.ranked-5v5.skill_window_growth | 25/10s | 30/10s | -1 14:02 | rbianchi |
    LIVE-1180
CFG-4461 | chat | flags.profanity_filter_v2 | false | true | 0 10:50 | mfischer | LIVE-1192
CFG-4468 | redis | game-redis-0 maxmemory | 12gb | 16gb | 0 09:21:10 | oncall:tvu | INC-5521
CFG-4471 | edge | routes.chat-ws.idle_timeout | 3600s | 60s | 0 11:12 | hsato | OPS-2291 tighten idle
    timeouts on REST routes
CFG-4472 | edge | routes.chat-ws.idle_timeout | 60s | 3600s | 0 12:04 | oncall:tvu | INC-5523 revert
CFG-4473 | kafka | topic lobby.events min.insync.replicas | 2 | 1 | 0 14:41 | oncall:tvu | INC-5524
CFG-4474 | kafka | topic lobby.events replication.factor | 2 | 3 | 0 16:05 | bwalsh | INC-5524 follow-up
CFG-4475 | auth | psn.trophy_sync.enabled | false | true | 1 09:58 | dkim | LIVE-1201
CFG-4476 | store | flags.gift_cards | false | true | 1 12:10 | lnguyen | LIVE-1204
CFG-4477 | matchmaker | queues.casual.max_wait_s | 180 | 150 | 1 15:30 | rbianchi | LIVE-1206
CFG-4478 | allocator | gcp quota C2_CPUS us-west2 | 2800 | 4000 | 1 19:42 | oncall:ajames | INC-5530 (quota
    increase granted)
CFG-4479 | store | flags.holiday_bundle_banner | false | true | 2 06:17 | lnguyen | LIVE-1210
CFG-4480 | telemetry | enrich.geoip_db | GeoLite2-2026-11 | GeoLite2-2026-12 | 2 08:45 | cwright | DATA-388
CFG-4481 | auth | xbl.scopes | XboxLive.signin | XboxLive.signin XboxLive.offline_access | 2 13:05 | dkim |
    LIVE-1214
CFG-4484 | auth | denylist.source_version | latest | v8811 (pinned) | 2 18:46 | oncall:ajames | INC-5537
CFG-4485 | lobby | flags.party_max_size | 4 | 5 | 2 20:15 | aserrano | LIVE-1219
CFG-4486 | redis | game-redis-0 client-output-buffer-limit replica | 256mb 64mb 60 | 2gb 1gb 120 | 2 20:55 |
    oncall:ajames | INC-5539
""")

# service, version, description, applied (local), duration s, status
MIGRATIONS = engine.table(at, "ssstis", """
store | V2029 | ALTER TABLE wallets ADD COLUMN gift_balance_cents bigint | -1 17:06 | 1 | success
store | V2030 | CREATE TABLE gift_cards (code text primary key, ...) | 0 17:06 | 1 | success
store | V2031 | CREATE INDEX purchases_player_created_idx ON purchases (player_id, created_at) | 2 05:48:10 |
    4230 | success
""")

DEPENDENCIES = engine.table(None, "sssss", """
edge | auth | grpc ext_authz | auth-authz.riftline-prod.svc:9001 | every /v1 request is checked (timeout 1s,
    failure_mode_allow=false)
edge | auth | http | auth.riftline-prod.svc:8080 | route /v1/auth (sign-in)
edge | matchmaker | http | matchmaker.riftline-prod.svc:8080 | route /v1/matchmaking
edge | lobby | http | lobby.riftline-prod.svc:3000 | route /v1/lobby
edge | leaderboard | http | leaderboard.riftline-prod.svc:8080 | route /v1/leaderboard
edge | inventory | http | inventory.riftline-prod.svc:8080 | route /v1/inventory
edge | store | http | store.riftline-prod.svc:8000 | route /v1/store
edge | chat | websocket | chat.riftline-prod.svc:4000 | route chat-ws (/ws/chat)
auth | steam | https | api.steampowered.com:443 | external: ISteamUserAuth/AuthenticateUserTicket
auth | psn | https | auth.api.playstation.example:443 | external: OAuth token exchange
auth | xbox-live | https | user.auth.xboxlive.example:443 | external: XSTS tokens
auth | scylla | cql | 10.40.12.21:9042,10.40.12.22:9042,10.40.12.23:9042 | keyspace profiles (account links)
matchmaker | allocator | grpc mTLS | agones-allocator.agones-system.svc:443 | GameServerAllocation for fleet
    ranked-usw2
lobby | matchmaker | http | matchmaker.riftline-prod.svc:8080 | tickets
lobby | redis | resp | 10.40.9.12:6379 | db 2: party state (timeout 500 ms)
lobby | kafka | kafka | kafka-1:9092,kafka-2:9092,kafka-3:9092 | produces lobby.events
    (replication.factor=2, min.insync.replicas=2, acks=all)
leaderboard | redis | resp | 10.40.9.12:6379 | db 0: ranked boards as sorted sets
inventory | scylla | cql | 10.40.12.21:9042,10.40.12.22:9042,10.40.12.23:9042 | keyspace inventory,
    LOCAL_QUORUM, request timeout 800 ms
inventory | kafka | kafka | kafka-1:9092,kafka-2:9092,kafka-3:9092 | produces inventory.events (RF 3)
store | postgres | postgres | pg-store-01:5432/storedb | SQLAlchemy pool size 20, overflow 10
store | paycore | https | api.paycore.example:443 | external: payments and webhooks
store | receipts | https | buy.itunes.example:443,androidpublisher.example:443 | external: receipt
    validation
store | inventory | http | inventory.riftline-prod.svc:8080 | grant purchased items
store | kafka | kafka | kafka-1:9092,kafka-2:9092,kafka-3:9092 | produces purchase.events (RF 3)
chat | redis | resp | 10.40.9.12:6379 | db 3: presence
chat | kafka | kafka | kafka-1:9092,kafka-2:9092,kafka-3:9092 | consumes lobby.events (party invites),
    chat.fanout
telemetry | kafka | kafka | kafka-1:9092,kafka-2:9092,kafka-3:9092 | consumes telemetry.raw (RF 3)
telemetry | s3 | https | s3://riftline-telemetry-raw | parquet sink (web identity credentials)
allocator | kubernetes | https | gke-usw2 control plane | GameServer pods, fleet ranked-usw2
allocator | gcp-compute | https | node pool gs-c2-usw2 (c2-standard-16) | node pool autoscaling for game
    servers (shares the C2_CPUS region quota with pool gs-c2-casual)
redis | redis | resp | 10.40.9.31:6379,10.40.9.33:6379 | replicas game-redis-1, game-redis-2
""")


def change_tables(w: World) -> None:
    w.table("deploys", engine.columns("DEPLOYS_AUTHORED"),
            [[d, s, v, zulu(st), zulu(st + timedelta(minutes=dur)), status, a, desc]
             for d, s, v, st, dur, status, a, desc in DEPLOYS])
    w.table(
        "config_changes", engine.columns("CONFIG_APPLIED"),
        [[c, s, k, o, n, loc(t).isoformat(timespec="seconds"), a, tk] for c, s, k, o, n, t, a,
         tk in CONFIG],
    )
    w.table("schema_migrations", engine.columns("MIGRATIONS_APPLIED"),
            [[s, v, d, wall(t), dur, st] for s, v, d, t, dur, st in MIGRATIONS])
    w.table("dependencies", engine.columns("DEPENDENCIES_PURPOSE"), [list(d) for d in DEPENDENCIES])


# ---------------------------------------------------------------- native log formats


def envoy_access(
    w: World, t: datetime, method: str, path: str, status: int, flags: str = "-", dur: int | None = None,
    upstream: str = "10.40.3.12:8080", proto: str = "HTTP/2",
) -> None:
    dur = dur if dur is not None else w.ri(4, 60)
    rx, tx = w.ri(0, 900), w.ri(60, 4200) if status < 400 else w.ri(0, 120)
    ua = w.pick(
        ["RiftlineClient/1.42.0 (Win64)", "RiftlineClient/1.42.0 (PS5)", "RiftlineClient/1.42.0 (XSX)"]
    )
    ip = f"{w.ri(24, 201)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
    msg = (
        f'[{zulu_ms(t)}] "{method} {path} {proto}" {status} {flags} {rx} {tx} {dur} '
        f'{max(dur - w.ri(0, 3), 0) if status != 403 else "-"} "{ip}" "{ua}" "{w.hexid(8)}-{w.hexid(4)}" '
        f'"api.riftline.gg" "{upstream if status != 403 else "-"}"'
    )
    w.emit(t, "edge", "WARN" if status >= 500 else "INFO", msg, pod=w.pick(PODS["edge"]))


def envoy_log(w: World, t: datetime, level: str, comp: str, src: str, msg: str) -> None:
    lv = {"DEBUG": "debug", "INFO": "info", "WARN": "warning", "ERROR": "error"}[level]
    text = f"[{utc(t).strftime('%Y-%m-%d %H:%M:%S')}.{ms3(t)}][{w.ri(10, 40)}][{lv}][{comp}] [{src}] {msg}"
    w.emit(t, "edge", level, text, pod=w.pick(PODS["edge"]))


def spring(
    w: World, t: datetime, level: str, thread: str, logger: str, msg: str, pod: str | None = None
) -> None:
    lv = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARN", "ERROR": "ERROR", "FATAL": "ERROR"}[level]
    stamp = loc(t).isoformat(timespec="milliseconds")
    text = f"{stamp} {lv:>5} 1 --- [auth] [{thread:>15}] {logger:<38} : {msg}"
    w.emit(t, "auth", level, text, pod=pod or w.pick(PODS["auth"]))


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    rec = {"level": level.lower(), "ts": round(t.timestamp(), 6), "caller": caller, "msg": msg}
    rec.update(kv)
    w.emit(t, "matchmaker", level, json.dumps(rec, separators=(",", ":")), pod=w.pick(PODS["matchmaker"]))


def agones(w: World, t: datetime, level: str, source: str, msg: str, pod: int = 0, **kv) -> None:
    sev = {"DEBUG": "debug", "INFO": "info", "WARN": "warning", "ERROR": "error"}[level]
    rec = dict(kv)
    rec.update({"message": msg, "severity": sev, "source": source, "time": zulu_us(t)})
    w.emit(t, "allocator", level, json.dumps(rec, separators=(",", ":")), pod=PODS["allocator"][pod])


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def pino(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    pod = w.pick(PODS["lobby"])
    rec = {"level": PINO[level], "time": int(t.timestamp() * 1000), "pid": 1, "hostname": pod}
    rec.update(kv)
    rec["msg"] = msg
    w.emit(t, "lobby", level, json.dumps(rec, separators=(",", ":")), pod=pod)


def rust(w: World, t: datetime, level: str, target: str, msg: str) -> None:
    text = f"{zulu_us(t)} {level:>5} {target}: {msg}"
    w.emit(t, "leaderboard", level, text, pod=w.pick(PODS["leaderboard"]))


def rds(w: World, t: datetime, level: str, msg: str, inst: str = "game-redis-0", role: str = "M") -> None:
    sym = {"DEBUG": ".", "INFO": "*", "WARN": "#", "ERROR": "#"}[level]
    pid = {"game-redis-0": 1, "game-redis-1": 1, "game-redis-2": 1}[inst]
    text = f"{pid}:{role} {utc(t).strftime('%d %b %Y %H:%M:%S')}.{ms3(t)} {sym} {msg}"
    w.emit(t, "redis", level, text, pod=inst)


def kotlin(w: World, t: datetime, level: str, thread: str, logger: str, msg: str) -> None:
    text = f"{utc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)} [{thread}] {level:<5} {logger} - {msg}"
    w.emit(t, "inventory", level, text, pod=w.pick(PODS["inventory"]))


def scylla(
    w: World, t: datetime, level: str, node: int, shard: int, group: str, module: str, msg: str
) -> None:
    text = f"{level:<5} {wall(t)},{ms3(t)} [shard {shard:>2}:{group}] {module} - {msg}"
    w.emit(t, "scylla", level, text, host=f"scylla-{node}")


PYLV = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def py(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    text = f"{wall(t)},{ms3(t)} {PYLV[level]} [{logger}] {msg}"
    w.emit(t, "store", level, text, pod=w.pick(PODS["store"]))


PGLV = {"DEBUG": "DEBUG", "INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}


def pg(
    w: World, t: datetime, level: str, msg: str, pid: int | None = None, who: str = "", tag: str = ""
) -> None:
    pid = pid or w.ri(3000, 29999)
    prefix = f"{wall(t)}.{ms3(t)} PST [{pid}] {who + ' ' if who else ''}"
    text = f"{prefix}{tag or PGLV[level]}:  {msg}"
    w.emit(t, "postgres", level, text, host="pg-store-01")


def ex(w: World, t: datetime, level: str, msg: str, meta: str = "") -> None:
    lv = {"DEBUG": "debug", "INFO": "info", "WARN": "warning", "ERROR": "error"}[level]
    text = f"{utc(t).strftime('%H:%M:%S')}.{ms3(t)} {meta + ' ' if meta else ''}[{lv}] {msg}"
    w.emit(t, "chat", level, text, pod=w.pick(PODS["chat"]))


def kafka(w: World, t: datetime, level: str, msg: str, logger: str, broker: int) -> None:
    text = f"[{utc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)}] {level} {msg} ({logger})"
    w.emit(t, "kafka", level, text, host=f"kafka-{broker}")


def flink(w: World, t: datetime, level: str, logger: str, msg: str, tm: int = 1) -> None:
    text = f"{wall(t)},{ms3(t)} {level:<5} {logger} [] - {msg}"
    w.emit(t, "telemetry", level, text, pod=f"telemetry-enrich-taskmanager-{tm}")


JOB_ID = "9f3c2a71b0d84e6c8a5f1e2d3c4b5a69"

# ---------------------------------------------------------------- background

BOARDS = ["ranked-5v5-s12", "ranked-duo-s12", "casual-kills-weekly", "tournament-dec"]
SKUS = ["coins_500", "coins_1200", "coins_2500", "coins_6500", "bundle_frostbite", "battlepass_s12"]
PRICES = {"coins_500": "4.99", "coins_1200": "9.99", "coins_2500": "19.99", "coins_6500": "49.99",
          "bundle_frostbite": "14.99", "battlepass_s12": "9.99"}
EDGE_PATHS = engine.table(None, "sss", """
POST | /v1/auth/session/refresh | 10.40.3.21:8080
GET | /v1/inventory/loadout | 10.40.5.14:8080
GET | /v1/store/catalog | 10.40.6.18:8000
GET | /v1/leaderboard/ranked-5v5-s12/around-me | 10.40.4.9:8080
POST | /v1/matchmaking/tickets | 10.40.3.40:8080
GET | /v1/lobby/party | 10.40.7.22:3000
POST | /v1/leaderboard/scores | 10.40.4.9:8080
GET | /v1/profile/me | 10.40.5.14:8080
""")


def background(w: World, t: datetime) -> None:  # noqa: C901 — one minute of an ordinary day
    ld = load(t)
    m = loc(t).minute
    h = loc(t).hour

    # edge: sampled access log (1:5000), the odd 5xx on two routes, chat websockets
    for _ in range(w.count(1.05 * ld)):
        tt = w.jit(t)
        method, path, up = w.pick(EDGE_PATHS)
        if inside(tt, HEAP) and path.startswith("/v1/") and not path.startswith("/v1/auth"):
            envoy_access(w, tt, method, path, 403, "UAEX", dur=w.ri(990, 1010))
            continue
        status = 200 if w.r() > 0.05 else w.pick([400, 401, 404, 429])
        envoy_access(w, tt, method, path, status, upstream=up)
    if w.r() < 0.035:
        tt = w.jit(t)
        if w.r() < 0.5:
            envoy_access(
                w, tt, "GET", "/v1/store/catalog", 503, "UF", dur=w.ri(1, 3), upstream="10.40.6.18:8000"
            )
        else:
            envoy_access(
                w, tt, "POST", "/v1/matchmaking/tickets", 504, "UT", dur=15000, upstream="10.40.3.40:8080"
            )
    if w.r() < 0.45 * ld and not inside(t, IDLE):
        tt = w.jit(t)
        envoy_access(
            w, tt, "GET", "/ws/chat", 101, "-", dur=w.ri(120_000, 3_400_000), upstream="10.40.8.31:4000",
            proto="HTTP/1.1",
        )
    if m % 30 == 7:
        envoy_log(
            w, w.jit(t, 5), "INFO", "main", "source/server/server.cc:1010",
            f"stats flushed: {w.ri(9000, 9800)} counters, {w.ri(2100, 2300)} gauges, {w.ri(700, 760)} "
            "histograms",
        )

    # auth: sign-ins, failed passwords and expired Steam tickets (normal), the denylist refresh
    for _ in range(w.count(0.6 * ld)):
        tt = w.jit(t)
        prov = w.pick(["steam", "steam", "psn", "xbl", "epic"])
        if prov == "steam" and inside(tt, STEAM):
            continue
        if prov == "psn" and inside(tt, PSN):
            continue
        if inside(tt, HEAP):
            continue
        spring(w, tt, "INFO", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.login.LoginController",
               f"login ok provider={prov} player={w.player()} session_ttl=3600s")
    if w.r() < 0.14 * ld + 0.02:
        spring(w, w.jit(t), "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.login.PasswordLoginHandler",
               f"login rejected provider=riftline reason=bad_credentials player={w.player()} "
               f"attempts={w.ri(1, 4)}")
    if w.r() < 0.07 * ld + 0.015:
        spring(w, w.jit(t), "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.steam.SteamTicketValidator",
               f"Steam ticket rejected: k_EResultExpired (ticket age {w.ri(61, 900)}s) player={w.player()}")
    if m in (2, 32) and not (HEAP[0] <= t < HEAP[1] + timedelta(minutes=30)):
        v, n = denylist_at(t)
        if t >= CFG_TIME["CFG-4484"]:  # pinned to the export before the ban wave
            v, n = denylist_at(at(2, 17, 50))
        spring(w, w.jit(t, 10), "INFO", "denylist-refresh", "g.r.auth.denylist.DenylistRefresher",
               f"loaded device denylist v{v} ({n} entries, {n * 204 // 1048576} MiB)")

    # matchmaker: matches formed, tickets that expire at night
    for _ in range(w.count(0.55 * ld)):
        tt = w.jit(t)
        if inside(tt, SELECTOR) or inside(tt, QUOTA):
            continue
        zap(w, tt, "INFO", "pool/matcher.go:311", "match formed",
            queue=w.pick(["ranked-5v5", "casual", "ranked-duo"]), match=f"m-{w.hexid(12)}", players=10,
            wait_s=round(5 + w.r() * 70, 1), spread=w.ri(40, 260))
    if w.r() < 0.09:
        zap(w, w.jit(t), "WARN", "pool/expiry.go:88", "ticket expired without match",
            queue=w.pick(["ranked-duo", "tournament"]), ticket=f"t-{w.hexid(12)}", waited_s=180)

    # allocator: allocations and fleet autoscaler status
    for _ in range(w.count(0.3 * ld)):
        tt = w.jit(t)
        if inside(tt, SELECTOR) or inside(tt, QUOTA):
            continue
        agones(w, tt, "INFO", "*allocation.Allocator", "GameServerAllocation fulfilled",
               gs=f"ranked-usw2-{w.hexid(5)}-{w.hexid(5)}", fleet="ranked-usw2", latencyMs=w.ri(6, 40))
    if w.r() < 0.15 * ld:
        agones(w, w.jit(t), "INFO", "*gameservers.Controller", "GameServer shutdown (match ended)", pod=1,
               gsKey=f"riftline-gs/ranked-usw2-{w.hexid(5)}-{w.hexid(5)}")
    if m % 10 == 0:
        cap = fleet_state(t)
        agones(w, w.jit(t, 5), "INFO", "*fleetautoscalers.Controller", "fleetautoscaler sync", pod=1,
               fleet="ranked-usw2", desired=cap["desired"], current=cap["current"], ready=cap["ready"],
               allocated=cap["allocated"], pending=cap["pending"])

    # lobby: parties
    for _ in range(w.count(0.38 * ld)):
        tt = w.jit(t)
        if inside(tt, KAFKA3) or inside(tt, RESYNC) or inside(tt, MAXMEM):
            continue
        if w.r() < 0.5:
            pino(w, tt, "INFO", "party created", partyId=f"pty_{w.hexid(10)}", leader=w.player(),
                 size=w.ri(1, 4))
        else:
            pino(w, tt, "INFO", "server assigned", partyId=f"pty_{w.hexid(10)}", match=f"m-{w.hexid(12)}",
                 addr=f"34.102.{w.ri(10, 250)}.{w.ri(1, 254)}:{w.ri(7000, 7999)}")
    if w.r() < 0.06:
        pino(w, w.jit(t), "WARN", "invite expired", partyId=f"pty_{w.hexid(10)}", ttlSec=120)

    # leaderboard: score submits, slow range reads, hourly rollup
    for _ in range(w.count(0.45 * ld)):
        tt = w.jit(t)
        if inside(tt, MAXMEM):
            continue
        rust(w, tt, "INFO", "leaderboard::submit",
             f"score accepted board={w.pick(BOARDS)} player={w.player()} score={w.ri(800, 4200)} "
             f"rank={w.ri(1, 90000)}")
    if w.r() < 0.035:
        rust(w, w.jit(t), "WARN", "leaderboard::redis",
             f"slow command ZREVRANGE board=ranked-5v5-s12 took {w.ri(110, 240)}ms (threshold 100ms)")
    if m == 5:
        rust(w, w.jit(t, 20), "INFO", "leaderboard::rollup",
             f"hourly rollup done boards=4 members={w.ri(410_000, 440_000)} took={w.ri(900, 2400)}ms")

    # redis: periodic RDB saves on the primary
    if m in (11, 41) and not inside(t, MAXMEM):
        tt = w.jit(t, 5)
        rds(w, tt, "INFO", f"{w.ri(10000, 40000)} changes in 300 seconds. Saving...")
        pidn = w.ri(4000, 9000)
        rds(w, tt + timedelta(milliseconds=40), "INFO", f"Background saving started by pid {pidn}")
        t2 = tt + timedelta(seconds=w.ri(50, 80))
        rds(w, t2, "INFO", "DB saved on disk", role="C")
        rds(w, t2, "INFO",
            f"Fork CoW for RDB: current {w.ri(40, 90)} MB, peak {w.ri(90, 140)} MB, "
            f"average {w.ri(30, 70)} MB", role="C")
        rds(w, t2 + timedelta(milliseconds=120), "INFO", "Background saving terminated with success")

    # inventory
    for _ in range(w.count(0.45 * ld)):
        tt = w.jit(t)
        if inside(tt, REPAIR) and w.r() < 0.6:
            continue
        if w.r() < 0.55:
            kotlin(w, tt, "INFO", f"ktor-worker-{w.ri(1, 16)}", "g.r.inventory.LoadoutRoutes",
                   f"loadout saved player={w.player()} slots={w.ri(3, 8)} took={w.ri(4, 30)}ms")
        else:
            kotlin(
                w, tt, "INFO", f"ktor-worker-{w.ri(1, 16)}", "g.r.inventory.GrantService",
                f"items granted player={w.player()} source={w.pick(['match_reward', 'battlepass', 'store'])} "
                f"count={w.ri(1, 3)}",
            )

    # scylla: compactions, the bot account's large partition
    if w.r() < 0.14:
        node = w.ri(1, 3)
        scylla(
            w, w.jit(t), "INFO", node, w.ri(0, 7), "comp", "compaction",
            f"[Compact inventory.items {w.hexid(8)}-{w.hexid(4)}] Compacted {w.ri(2, 6)} sstables to "
            f"[/var/lib/scylla/data/inventory/items-{w.hexid(8)}/me-{w.ri(3000, 9999)}-big-Data.db:level=0]. "
            f"{w.ri(20, 400)}MB to {w.ri(15, 380)}MB (~{w.ri(70, 99)}% of original)",
        )
    if w.r() < 0.02:
        scylla(w, w.jit(t), "WARN", w.ri(1, 3), w.ri(0, 7), "comp", "large_data",
               "Writing large partition inventory/items: (p_b0tfarm01) "
               f"({w.ri(180, 260)}MB) to me-{w.ri(3000, 9999)}-big-Data.db")

    # store: purchases, declines, webhook retries that succeed
    for _ in range(w.count(0.3 * ld)):
        tt = w.jit(t)
        if inside(tt, MIGR) or inside(tt, POOL):
            continue
        sku = w.pick(SKUS)
        py(w, tt, "INFO", "store.purchases",
           f"purchase completed order={w.order()} sku={sku} amount_usd={PRICES[sku]} provider=paycore "
           f"player={w.player()}")
    if w.r() < 0.04 * ld + 0.01:
        py(w, w.jit(t), "WARN", "store.payments",
           f"payment declined order={w.order()} provider=paycore code=card_declined "
           "decline_code=insufficient_funds")
    if w.r() < 0.025:
        tt = w.jit(t)
        py(w, tt, "WARN", "store.webhooks",
           f"paycore webhook evt_{w.hexid(14)} delivery retry {w.ri(1, 2)}/5 after timeout; will retry")
        py(w, tt + timedelta(seconds=w.ri(30, 90)), "INFO", "store.webhooks",
           "paycore webhook processed type=charge.succeeded")

    # postgres: checkpoints, the usual slow history query, autovacuum
    if m % 15 == 3:
        tt = w.jit(t, 3)
        pg(w, tt, "INFO", "checkpoint starting: time", pid=412)
        pg(w, tt + timedelta(seconds=w.ri(20, 50)), "INFO",
           f"checkpoint complete: wrote {w.ri(300, 4000)} buffers ({w.r() * 3:.1f}%); 0 WAL file(s) added, "
           f"{w.ri(0, 3)} removed, {w.ri(1, 4)} recycled; write={w.ri(20, 50)}.{w.ri(100, 999)} s, "
           f"sync=0.{w.ri(10, 99)}1 s, total={w.ri(20, 50)}.{w.ri(100, 999)} s", pid=412)
    if w.r() < 0.03:
        pg(w, w.jit(t), "INFO",
           f"duration: {w.ri(1000, 2400)}.{w.ri(100, 999)} ms  statement: SELECT p.order_id, p.sku, "
           "p.amount_cents, "
           f"p.created_at FROM purchases p WHERE p.player_id = $1 ORDER BY p.created_at DESC LIMIT 50",
           who="store@storedb")
    if w.r() < 0.006:
        pg(w, w.jit(t), "INFO",
           f'automatic vacuum of table "storedb.public.wallets": index scans: 1 pages: 0 removed, '
           f"{w.ri(20000, 40000)} remain")

    # chat: connects, disconnects, rate limits
    for _ in range(w.count(0.35 * ld)):
        tt = w.jit(t)
        if inside(tt, IDLE):
            continue
        if w.r() < 0.5:
            ex(w, tt, "INFO",
               f"CONNECTED TO RiftlineChatWeb.UserSocket in {w.ri(200, 900)}µs "
               "Transport: :websocket Serializer: Phoenix.Socket.V2.JSONSerializer",
               meta=f"player_id={w.player()}")
        else:
            ex(w, tt, "INFO",
               f"socket closed code=1001 (going away) duration={w.ri(300, 9000)}.{w.ri(0, 9)}s",
               meta=f"player_id={w.player()}")
    if w.r() < 0.05:
        ex(w, w.jit(t), "WARN",
           f"rate limited: {w.ri(11, 40)} messages in 10s (limit 10) channel=party:pty_{w.hexid(10)}",
           meta=f"player_id={w.player()}")

    # kafka: group rebalances and segment deletion
    if m == 17 and h % 2 == 0:
        b = w.ri(1, 3)
        kafka(
            w, w.jit(t, 20), "INFO",
            f"[UnifiedLog partition=telemetry.raw-{w.ri(0, 11)}, dir=/var/lib/kafka/data] Deleting segments "
            "due "
            f"to log start offset {w.ri(10**8, 9 * 10**8)} breach: "
            f"LogSegment(baseOffset={w.ri(10**7, 9 * 10**7)}, "
            f"size={w.ri(900, 1073)}741824)", "kafka.log.UnifiedLog", b,
        )
    if w.r() < 0.02:
        kafka(
            w, w.jit(t), "INFO",
            "[GroupCoordinator 2]: Preparing to rebalance group telemetry-enrich in state PreparingRebalance "
            f"with old generation {w.ri(400, 900)} (__consumer_offsets-{w.ri(0, 49)}) (reason: Updating "
            "metadata "
            "for member consumer-telemetry-enrich)", "kafka.coordinator.group.GroupCoordinator", 2,
        )

    # telemetry (always noisy): checkpoints, expired checkpoints, late events, poisoned records
    if m % 6 == 0 and not inside(t, TOKEN):
        flink(w, w.jit(t, 30), "INFO", "org.apache.flink.runtime.checkpoint.CheckpointCoordinator",
              f"Completed checkpoint {checkpoint_no(t)} for job {JOB_ID} ({w.ri(80, 400)}MB in "
              f"{w.ri(900, 9000)} ms).")
    if w.r() < 0.022:
        flink(w, w.jit(t), "WARN", "org.apache.flink.runtime.checkpoint.CheckpointCoordinator",
              f"Checkpoint {checkpoint_no(t)} of job {JOB_ID} expired before completing.")
    if w.r() < 0.06:
        flink(w, w.jit(t), "WARN", "gg.riftline.telemetry.enrich.LateEventFilter",
              f"Dropping {w.ri(3, 400)} late events older than watermark - 300s (client clock skew) "
              f"partition={w.ri(0, 11)}", tm=w.ri(1, 4))
    if w.r() < 0.03:
        flink(
            w, w.jit(t), "ERROR", "gg.riftline.telemetry.enrich.DecodeFunction",
            f"Failed to deserialize record from telemetry.raw partition {w.ri(0, 11)} offset "
            f"{w.ri(10**8, 9 * 10**8)}: unknown schema id 0 (client build 1.38.x); sent to dead letter topic",
            tm=w.ri(1, 4),
        )


def denylist_exports() -> list[tuple[datetime, datetime, int, int]]:
    """Anti-cheat's denylist exports (start, finish, entries, version), every 6 h at :30."""
    out = []
    for d in (-1, 0, 1, 2):
        for hh in (5, 11, 17, 23):
            if d == -1 and hh < 23:
                continue
            big = d == 2 and hh == 17
            start = at(d, hh, 30)
            entries = 9_612_441 if big else 212_905 + d * 310 + hh * 11
            out.append((start, start + timedelta(seconds=1500 if big else 100), entries, 8801 + len(out)))
    return out


def denylist_at(t: datetime) -> tuple[int, int]:
    """The version and size of the newest finished export at t."""
    done = [(v, n) for _s, f, n, v in denylist_exports() if f <= t]
    return done[-1]


def checkpoint_no(t: datetime) -> int:
    return 18200 + int((t - DAY0).total_seconds() // 180)


def fleet_state(t: datetime) -> dict:
    ld = load(t)
    allocated = int(1250 * ld)
    desired = int(allocated * 1.12) + 20
    if inside(t, QUOTA):
        current = 1296
        pending = max(desired - current, 0) + 40
        ready = 0
        allocated = 1188 + int((t - QUOTA[0]).total_seconds() // 600)
    else:
        current = desired
        pending = 0
        ready = desired - allocated
    return {
        "desired": desired, "current": current, "ready": ready, "allocated": allocated, "pending": pending,
    }


def rollout(w: World, t0: datetime, service: str, ver: str, dur: int) -> None:
    step = dur * 60 / 3
    for i in range(3):
        tt = t0 + timedelta(seconds=step * i + w.ri(5, 30))
        if service == "auth":
            spring(w, tt, "INFO", "main", "g.r.auth.AuthApplication",
                   f"Started AuthApplication v{ver} in {w.ri(11, 17)}.{w.ri(100, 999)} seconds (process "
                   "running for "
                   f"{w.ri(12, 19)}.{w.ri(100, 999)})", pod=PODS["auth"][i])
        elif service == "matchmaker":
            zap(w, tt, "INFO", "cmd/matchmaker/main.go:64", "starting matchmaker", version=ver,
                pools=["ranked-5v5", "ranked-duo", "casual", "tournament"])
        elif service == "lobby":
            pino(w, tt, "INFO", "lobby listening", port=3000, version=ver)
        elif service == "leaderboard":
            rust(w, tt, "INFO", "leaderboard", f"starting leaderboard v{ver} listen=0.0.0.0:8080")
        elif service == "inventory":
            kotlin(w, tt, "INFO", "main", "io.ktor.server.Application",
                   f"Application started in {w.ri(3, 9)}.{w.ri(100, 999)} seconds. version={ver}")
        elif service == "store":
            py(w, tt, "INFO", "gunicorn.error", f"Booting worker with pid: {w.ri(100, 999)} (store {ver})")
        elif service == "chat":
            ex(w, tt, "INFO",
               f"Running RiftlineChatWeb.Endpoint with Bandit 1.5.7 at :::4000 (http) vsn={ver}")


def incidents(w: World) -> None:  # noqa: C901 — fourteen stories, told in order
    # ---- GAME-01 season 11 snapshot fills game-redis-0 to maxmemory (noeviction): writes refused
    t0 = at(0, 8, 0, 2)
    rust(w, t0, "INFO", "leaderboard::season",
         "season snapshot started season=11 boards=48 target=lb:s11:archive:* (cron "
         "leaderboard-season-snapshot)")
    for i, tt in enumerate(every((at(0, 8, 5), at(0, 8, 31)), 300)):
        rust(w, w.jit(tt, 20), "INFO", "leaderboard::season",
             f"season snapshot progress season=11 boards_done={(i + 1) * 8}/48 "
             f"members_copied={(i + 1) * 1_570_000}")
    rust(
        w, at(0, 8, 31, 41), "INFO", "leaderboard::season",
        "season snapshot finished season=11: wrote 48 archive keys lb:s11:archive:* (9,412,880 members, no "
        "TTL)",
    )
    for tt in every(MAXMEM, 20):
        if w.r() < 0.75:
            rust(
                w, w.jit(tt, 20), "ERROR", "leaderboard::submit",
                f"score submit failed board={w.pick(BOARDS[:2])} player={w.player()}: redis error: OOM "
                "command not "
                "allowed when used memory > 'maxmemory'. (maxmemory-policy noeviction, used_memory=12.00G)",
            )
        if w.r() < 0.3:
            envoy_access(w, w.jit(tt, 20), "POST", "/v1/leaderboard/scores", 500, "-", dur=w.ri(3, 9),
                         upstream="10.40.4.9:8080")
        if w.r() < 0.25:
            pino(w, w.jit(tt, 20), "ERROR", "party state write failed", partyId=f"pty_{w.hexid(10)}",
                 err="ReplyError: OOM command not allowed when used memory > 'maxmemory'.")
        if w.r() < 0.3:
            pino(w, w.jit(tt, 20), "INFO", "server assigned", partyId=f"pty_{w.hexid(10)}",
                 match=f"m-{w.hexid(12)}", addr=f"34.102.{w.ri(10, 250)}.{w.ri(1, 254)}:{w.ri(7000, 7999)}")
    rust(
        w, at(0, 9, 4, 12), "WARN", "leaderboard::rollup",
        "hourly rollup failed: OOM command not allowed when used memory > 'maxmemory'.; will retry next "
        "hour",
    )
    rust(w, at(0, 9, 18, 30), "INFO", "leaderboard::season",
         "season archive exported to gs://riftline-lb-archive/s11/ and 48 keys lb:s11:archive:* deleted "
         "(oncall)")
    rds(w, at(0, 9, 21, 10), "INFO",
        "CONFIG SET maxmemory 17179869184 by client id=88121 addr=10.40.2.5:50122")

    # ---- GAME-02 edge CFG-4471: idle_timeout 60s also lands on the chat websocket route
    envoy_log(
        w, at(0, 11, 12, 0), "INFO", "config",
        "source/extensions/config_subscription/grpc/grpc_subscription_impl.cc:138",
        "rds: loading new configuration: config_name=edge_routes version_info=cfg-4471 "
        "hash=7c1f0e2a9d41b3c6",
    )
    envoy_log(w, at(0, 11, 12, 1), "INFO", "router", "source/common/router/rds_impl.cc:201",
              "rds: route chat-ws updated: idle_timeout 3600s -> 60s (version_info=cfg-4471)")
    for tt in every((IDLE[0] + timedelta(seconds=60), IDLE[1] + timedelta(seconds=60)), 8):
        tt = w.jit(tt, 8)
        p = w.player()
        ex(w, tt, "WARN",
           f"socket closed abnormally code=1006 duration=60.{w.ri(0, 9)}s transport=websocket",
           meta=f"player_id={p}")
        if w.r() < 0.6:
            ex(w, tt + timedelta(seconds=w.ri(1, 4)), "INFO",
               f"CONNECTED TO RiftlineChatWeb.UserSocket in {w.ri(200, 900)}µs Transport: :websocket "
               "Serializer: Phoenix.Socket.V2.JSONSerializer", meta=f"player_id={p}")
        if w.r() < 0.35:
            envoy_access(
                w, tt, "GET", "/ws/chat", 101, "SI", dur=60000 + w.ri(0, 9), upstream="10.40.8.31:4000",
                proto="HTTP/1.1",
            )
    for tt in every((IDLE[0] + timedelta(minutes=3), IDLE[1]), 120):
        ex(w, w.jit(tt, 30), "WARN",
           f"presence diff storm channel=presence:global leaves={w.ri(1400, 2600)} "
           f"joins={w.ri(1300, 2500)} in 10s")
    envoy_log(
        w, at(0, 12, 4, 2), "INFO", "config",
        "source/extensions/config_subscription/grpc/grpc_subscription_impl.cc:138",
        "rds: loading new configuration: config_name=edge_routes version_info=cfg-4472 "
        "hash=1e88a04b5c2f97d3",
    )
    ex(w, at(0, 10, 50, 30), "INFO", "feature flag profanity_filter_v2 enabled (CFG-4461)")

    # ---- GAME-03 kafka-3 loses its log dir; lobby.events (RF 2, min ISR 2) refuses writes
    kafka(w, KAFKA3[0], "ERROR",
          "Error while appending records to lobby.events-2 in dir /var/lib/kafka/data java.io.IOException: "
          "Input/output error", "kafka.server.LogDirFailureChannel", 3)
    kafka(w, KAFKA3[0] + timedelta(milliseconds=40), "WARN",
          "[ReplicaManager broker=3] Stopping serving replicas in dir /var/lib/kafka/data",
          "kafka.server.ReplicaManager", 3)
    kafka(w, KAFKA3[0] + timedelta(milliseconds=310), "ERROR",
          "Shutdown broker because all log dirs in /var/lib/kafka/data have failed", "kafka.log.LogManager",
          3)
    kafka(w, KAFKA3[0] + timedelta(seconds=6), "INFO",
          "[Controller id=2] Broker 3 is offline; electing new leaders for 58 partitions",
          "kafka.controller.KafkaController", 2)
    for part, leader in ((2, 1), (5, 2), (8, 1)):
        kafka(
            w, KAFKA3[0] + timedelta(seconds=9 + part), "INFO",
            f"[Partition lobby.events-{part} broker={leader}] Shrinking ISR from {leader},3 to {leader}. "
            "Leader: "
            f"(highWatermark: {w.ri(10**6, 9 * 10**6)}, endOffset: {w.ri(10**6, 9 * 10**6)}). Out of sync "
            "replicas: (brokerId: 3).", "kafka.cluster.Partition", leader,
        )
    for tt in every((KAFKA3[0] + timedelta(seconds=20), KAFKA3[1]), 90):
        kafka(
            w, w.jit(tt, 60), "WARN",
            f"[ReplicaFetcher replicaId={w.ri(1, 2)}, leaderId=3, fetcherId=0] Error in "
            "response for fetch request: java.io.IOException: Connection to 3 was disconnected before the "
            "response was read", "kafka.server.ReplicaFetcherThread", w.ri(1, 2),
        )
    for tt in every((KAFKA3[0] + timedelta(seconds=12), KAFKA3[1]), 15):
        if w.r() < 0.8:
            pino(
                w, w.jit(tt, 15), "ERROR", "failed to publish lobby event", topic="lobby.events",
                partition=w.pick([2, 5, 8]), event=w.pick(["party.invite", "party.join", "party.ready"]),
                err="KafkaJSProtocolError: Messages are rejected since there are fewer in-sync replicas "
                    "than required", type="NOT_ENOUGH_REPLICAS", retriable=True,
            )
        if w.r() < 0.35:
            pino(w, w.jit(tt, 15), "WARN", "party invite not delivered", partyId=f"pty_{w.hexid(10)}",
                 reason="publish failed after 5 retries")
        if w.r() < 0.4:
            pino(w, w.jit(tt, 15), "INFO", "party created", partyId=f"pty_{w.hexid(10)}", leader=w.player(),
                 size=1)
    for tt in every((KAFKA3[0] + timedelta(seconds=30), KAFKA3[1]), 240):
        flink(w, w.jit(tt, 60), "WARN", "org.apache.kafka.clients.NetworkClient",
              "[Consumer clientId=telemetry-enrich-0, groupId=telemetry-enrich] Connection to node 3 "
              "(kafka-3.kafka-headless/10.40.14.13:9092) could not be established. Broker may not be "
              "available.", tm=w.ri(1, 4))
    kafka(
        w, at(0, 14, 41, 20), "INFO", "[Admin] Altered config min.insync.replicas=1 for topic lobby.events",
        "kafka.server.ConfigAdminManager", 2,
    )
    kafka(w, at(0, 15, 31, 0), "INFO",
          "[KafkaServer id=3] started (replacement volume, log dir /var/lib/kafka/data)",
          "kafka.server.KafkaServer", 3)

    # ---- GAME-05 Steam Web API 503s (external); the auth deploy DEP-7709 at 09:55 is unrelated
    for tt in every(STEAM, 10):
        tt = w.jit(tt, 10)
        if w.r() < 0.7:
            code = w.pick(["HTTP 503 Service Unavailable", "HTTP 503 Service Unavailable",
                           "Read timed out after 5000 ms"])
            spring(w, tt, "WARN", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.steam.SteamTicketValidator",
                   f"Steam ticket validation failed: {code} from api.steampowered.com "
                   "(ISteamUserAuth/AuthenticateUserTicket/v1), attempt 3/3")
            spring(w, tt + timedelta(milliseconds=5), "ERROR", f"nio-8080-exec-{w.ri(1, 40)}",
                   "g.r.auth.login.LoginController",
                   "login failed provider=steam player=- reason=idp_unavailable")
        if w.r() < 0.3:
            envoy_access(
                w, tt, "POST", "/v1/auth/steam", 503, "-", dur=w.ri(5000, 15100), upstream="10.40.3.21:8080"
            )
        if w.r() < 0.5:
            spring(w, tt, "INFO", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.login.LoginController",
                   f"login ok provider=steam player={w.player()} session_ttl=3600s")

    # ---- GAME-06 weekly scylla repair at full intensity saturates scylla-3's disk; inventory times out
    for node in (1, 2, 3):
        scylla(w, at(1, 12, 50, 4) + timedelta(milliseconds=node * 70), "INFO", node, 0, "main", "repair",
               "repair[5b1c9e0d-7a42-4c1e-9d3f-2e8b6a1c4d70]: starting user-requested repair for keyspace "
               "inventory, repair id 412, options {intensity: 0 (max), parallel: 0 (max), ranges: 768}")
    for tt in every(REPAIR, 60):
        if w.r() < 0.5:
            scylla(
                w, w.jit(tt), "WARN", 3, w.ri(0, 7), "stmt", "reader_concurrency_semaphore",
                "(rate limiting dropped messages) Semaphore _read_concurrency_sem with 100/100 count and "
                f"{w.ri(9, 10)}8765432/10485760 memory resources: timed out, dumping permit diagnostics",
            )
    for tt in every(REPAIR, 12):
        tt = w.jit(tt, 12)
        p = w.player()
        if w.r() < 0.7:
            kotlin(
                w, tt, "ERROR", f"ktor-worker-{w.ri(1, 16)}", "g.r.inventory.LoadoutRoutes",
                f"loadout save failed player={p}: com.datastax.oss.driver.api.core.DriverTimeoutException: "
                "Query timed out after PT0.8S",
            )
        if w.r() < 0.5:
            kotlin(w, tt, "WARN", "s0-io-3", "c.d.o.d.internal.core.pool.ChannelPool",
                   f"[s0|/10.40.12.23:9042] slow response for inventory.items read {w.ri(820, 1500)} ms "
                   "(LOCAL_QUORUM)")
        if w.r() < 0.3:
            envoy_access(w, tt, "PUT", "/v1/inventory/loadout", 504, "UT", dur=w.ri(1500, 2500),
                         upstream="10.40.5.14:8080")
    scylla(
        w, at(1, 13, 52, 10), "INFO", 1, 0, "main", "repair",
        "repair[5b1c9e0d-7a42-4c1e-9d3f-2e8b6a1c4d70]: paused by scylla-manager (intensity lowered to 1)",
    )
    scylla(
        w, at(1, 14, 31, 0), "INFO", 1, 0, "main", "repair",
        "repair[5b1c9e0d-7a42-4c1e-9d3f-2e8b6a1c4d70]: repair id 412 finished, keyspace inventory, 768/768 "
        "ranges",
    )

    # ---- GAME-07 matchmaker DEP-7713 asks for GameServers with build=2026.12.2; the fleet runs 2026.11.4
    sel = "agones.dev/fleet=ranked-usw2,riftline.gg/build=2026.12.2"
    for tt in every(SELECTOR, 10):
        tt = w.jit(tt, 10)
        if w.r() < 0.75:
            zap(w, tt, "ERROR", "alloc/client.go:144", "allocation failed", match=f"m-{w.hexid(12)}",
                selector=sel,
                error="rpc error: code = ResourceExhausted desc = there is no available GameServer to "
                      "allocate")
            zap(w, tt + timedelta(milliseconds=4), "WARN", "pool/matcher.go:402",
                "match dissolved, tickets requeued", tickets=10, reason="no_server")
        if w.r() < 0.4:
            agones(
                w, tt, "WARN", "*allocation.Allocator",
                f"allocation unsatisfied: no Ready GameServer matches selector {sel}", fleet="ranked-usw2",
                fleetBuild="2026.11.4", ready=w.ri(180, 240),
            )
        if w.r() < 0.25:
            pino(w, tt, "WARN", "match found but no server assigned after 60s",
                 partyId=f"pty_{w.hexid(10)}")

    # ---- GAME-08 evening peak: node pool gs-c2-usw2 cannot grow (C2_CPUS quota), no Ready GameServers
    for tt in every((QUOTA[0], QUOTA[1]), 150):
        agones(w, w.jit(tt, 30), "WARN", "*nodepools.Watcher",
               f"nodepool gs-c2-usw2: scale-up 166 -> {w.ri(172, 181)} nodes failed: GCE quota "
               "exceeded: "
               "Quota 'C2_CPUS' exceeded. Limit: 2800.0 in region us-west2.", pod=1)
    for tt in every((QUOTA[0] + timedelta(minutes=2), QUOTA[1]), 45):
        agones(w, w.jit(tt, 45), "WARN", "*gameservers.Controller",
               f"GameServer pod Pending {w.ri(60, 900)}s: 0/166 nodes are available: 166 Insufficient cpu.",
               pod=1, gsKey=f"riftline-gs/ranked-usw2-{w.hexid(5)}-{w.hexid(5)}")
    for tt in every((QUOTA[0] + timedelta(minutes=4), QUOTA[1]), 10):
        tt = w.jit(tt, 10)
        if w.r() < 0.8:
            zap(w, tt, "ERROR", "alloc/client.go:144", "allocation failed", match=f"m-{w.hexid(12)}",
                selector="agones.dev/fleet=ranked-usw2",
                error="rpc error: code = ResourceExhausted desc = there is no available GameServer to "
                      "allocate")
        if w.r() < 0.45:
            agones(
                w, tt, "ERROR", "*allocation.Allocator", "allocation failed: no Ready GameServer in fleet",
                fleet="ranked-usw2", ready=0, pending=w.ri(90, 130),
            )
        if w.r() < 0.35:
            pino(w, tt, "WARN", "match found but no server assigned after 60s",
                 partyId=f"pty_{w.hexid(10)}")
        if w.r() < 0.2:
            zap(w, tt, "INFO", "pool/matcher.go:311", "match formed", queue="ranked-5v5",
                match=f"m-{w.hexid(12)}", players=10, wait_s=round(60 + w.r() * 200, 1),
                spread=w.ri(40, 260))
    agones(w, at(1, 19, 43, 30), "INFO", "*nodepools.Watcher",
           "nodepool gs-c2-usw2: scale-up 166 -> 200 nodes succeeded", pod=1)

    # ---- GAME-10 store 2.31.0's migration V2031 builds an index without CONCURRENTLY: purchases locked
    py(w, at(2, 5, 48, 9), "INFO", "alembic.runtime.migration",
       "Running upgrade 2030 -> 2031, add purchases (player_id, created_at) index (V2031)")
    pg(w, MIGR[0], "INFO",
       "statement: CREATE INDEX purchases_player_created_idx ON purchases (player_id, created_at)",
       pid=21840, who="store_migrator@storedb")
    waiters = []
    for tt in every((MIGR[0] + timedelta(seconds=40), MIGR[1]), 75):
        tt = w.jit(tt, 60)
        pid = w.ri(22000, 29999)
        waiters.append(pid)
        pg(w, tt, "INFO",
           f"process {pid} still waiting for RowExclusiveLock on relation 16544 of database 16402 "
           f"after 1000.{w.ri(10, 99)}1 ms", pid=pid, who="store@storedb")
        pg(w, tt, "INFO",
           f"Process holding the lock: 21840. Wait queue: {', '.join(map(str, waiters[-6:]))}.", pid=pid,
           who="store@storedb", tag="DETAIL")
        pg(w, tt, "INFO",
           "INSERT INTO purchases (order_id, player_id, sku, amount_cents, provider, created_at) VALUES "
           "($1, $2, $3, $4, $5, now())", pid=pid, who="store@storedb", tag="STATEMENT")
    for tt in every((MIGR[0] + timedelta(minutes=2), POOL[0]), 40):
        if w.r() < 0.5:
            envoy_access(w, w.jit(tt, 40), "POST", "/v1/store/purchase", 504, "UT", dur=15000,
                         upstream="10.40.6.18:8000")
    for tt in every(POOL, 6):
        tt = w.jit(tt, 6)
        if w.r() < 0.7:
            path = w.pick(["POST /v1/store/purchase", "GET /v1/store/catalog", "GET /v1/store/wallet"])
            py(w, tt, "ERROR", "store.api",
               f"500 {path}: sqlalchemy.exc.TimeoutError: QueuePool limit of size 20 overflow 10 reached, "
               "connection "
               "timed out, timeout 30.00")
        if w.r() < 0.3:
            envoy_access(w, tt, "GET", "/v1/store/catalog", 500, "-", dur=30000 + w.ri(1, 40),
                         upstream="10.40.6.18:8000")
    py(w, at(2, 6, 17, 20), "INFO", "store.flags", "flag holiday_bundle_banner=true (CFG-4479)")
    pg(w, MIGR[1], "INFO",
       "duration: 4230512.331 ms  statement: CREATE INDEX purchases_player_created_idx ON purchases "
       "(player_id, created_at)", pid=21840, who="store_migrator@storedb")
    py(w, MIGR[1] + timedelta(seconds=2), "INFO", "alembic.runtime.migration",
       "upgrade 2030 -> 2031 done in 4230.5s")

    # ---- GAME-11 telemetry: the credential refresher died at 03:27; the session token expires at 09:27
    flink(w, at(2, 3, 27, 4), "WARN", "gg.riftline.telemetry.aws.RefreshingCredentials",
          "credentials refresh thread aws-creds-refresh exited: java.lang.NoClassDefFoundError: "
          "org/apache/http/conn/ssl/SSLConnectionSocketFactory; current session credentials valid until "
          "2026-12-03T17:27:00Z", tm=2)
    for tt in every(TOKEN, 20):
        tt = w.jit(tt, 20)
        if w.r() < 0.8:
            flink(w, tt, "ERROR", "gg.riftline.telemetry.sink.S3ParquetSink",
                  "PutObject failed for "
                  f"s3://riftline-telemetry-raw/raw/dt=2026-12-03/hr=17/part-{w.ri(0, 11)}-"
                  f"{checkpoint_no(tt)}.parquet: com.amazonaws.services.s3.model.AmazonS3Exception: The "
                  "provided "
                  "token has expired. (Service: Amazon S3; Status Code: 400; Error Code: ExpiredToken; "
                  "Request ID: "
                  f"{w.hexid(16).upper()})", tm=w.ri(1, 4))
        if w.r() < 0.12:
            flink(w, tt, "INFO", "org.apache.flink.runtime.executiongraph.ExecutionGraph",
                  f"Job telemetry-enrich ({JOB_ID}) switched from state RUNNING to RESTARTING.")
        if w.r() < 0.1:
            flink(w, tt, "WARN", "org.apache.flink.runtime.checkpoint.CheckpointFailureManager",
                  f"Failed to trigger or complete checkpoint {checkpoint_no(tt)} for job {JOB_ID}. "
                  "(0 consecutive failed attempts so far)")
    flink(w, at(2, 10, 8, 5), "INFO", "gg.riftline.telemetry.aws.RefreshingCredentials",
          "assumed role riftline-telemetry-writer via web identity, session credentials valid until "
          "2026-12-03T19:08:05Z (taskmanagers restarted)")

    # ---- GAME-12 the vault job rotates the PSN client secret; auth only reads it at startup
    spring(w, at(1, 9, 55, 40), "INFO", "main", "g.r.auth.psn.PsnOAuthClient",
           "loaded PSN client credentials from vault secret/auth/psn-oauth (version 13)")
    for tt in every(PSN, 10):
        tt = w.jit(tt, 10)
        if w.r() < 0.7:
            spring(w, tt, "ERROR", f"nio-8080-exec-{w.ri(1, 40)}", "g.r.auth.psn.PsnOAuthClient",
                   "PSN token exchange failed: 401 invalid_client (Client authentication failed) "
                   "client_id=riftline-prod-usw")
            spring(
                w, tt + timedelta(milliseconds=3), "WARN", f"nio-8080-exec-{w.ri(1, 40)}",
                "g.r.auth.login.LoginController", "login failed provider=psn reason=idp_error status=401",
            )
        if w.r() < 0.3:
            envoy_access(
                w, tt, "POST", "/v1/auth/psn", 502, "-", dur=w.ri(80, 300), upstream="10.40.3.21:8080"
            )
    for i in range(3):
        spring(
            w, at(2, 14, 8, 0) + timedelta(seconds=40 * i), "INFO", "main", "g.r.auth.psn.PsnOAuthClient",
            "loaded PSN client credentials from vault secret/auth/psn-oauth (version 14)",
            pod=PODS["auth"][i],
        )

    # ---- GAME-13 anti-cheat's ban wave makes the denylist 9.6M entries; auth runs out of heap
    prev_v, prev_n = denylist_at(at(2, 17, 50))
    spring(
        w, HEAP[0], "INFO", "denylist-refresh", "g.r.auth.denylist.DenylistRefresher",
        f"loaded device denylist v8812 (9612441 entries, 1869 MiB) — previous v{prev_v} had {prev_n} entries",
    )
    for tt in every((HEAP[0] + timedelta(seconds=50), HEAP[1]), 20):
        pod = w.pick(PODS["auth"])
        tt = w.jit(tt, 20)
        r = w.r()
        if r < 0.3:
            spring(w, tt, "WARN", "GC Thread#0", "gc",
                   f"GC({w.ri(4000, 9000)}) Pause Full (G1 Compaction Pause) "
                   f"{w.ri(1990, 2040)}M->{w.ri(1960, 2030)}M"
                   f"(2048M) {w.ri(2100, 6800)}.{w.ri(100, 999)}ms", pod=pod)
        elif r < 0.65:
            spring(w, tt, "ERROR", f"grpc-authz-{w.ri(1, 32)}", "g.r.auth.authz.ExtAuthzService",
                   "check failed: java.lang.OutOfMemoryError: Java heap space", pod=pod)
        elif r < 0.75:
            spring(w, tt, "FATAL", "main", "g.r.auth.AuthApplication",
                   "Terminating due to java.lang.OutOfMemoryError: Java heap space "
                   "(-XX:+ExitOnOutOfMemoryError)", pod=pod)
            spring(w, tt + timedelta(seconds=w.ri(25, 40)), "INFO", "denylist-refresh",
                   "g.r.auth.denylist.DenylistRefresher",
                   "loaded device denylist v8812 (9612441 entries, 1869 MiB) at startup", pod=pod)
        if w.r() < 0.5:
            envoy_log(
                w, tt, "WARN", "ext_authz", "source/extensions/filters/http/ext_authz/ext_authz.cc:462",
                "ext_authz check to cluster auth_authz failed: upstream request timeout (1000ms); denying "
                "request (failure_mode_allow=false)",
            )
        for _ in range(2):
            method, path, _up = w.pick(EDGE_PATHS[1:])
            envoy_access(w, w.jit(tt, 20), method, path, 403, "UAEX", dur=w.ri(990, 1010))
        if w.r() < 0.3:
            envoy_access(
                w, w.jit(tt, 20), "POST", w.pick(["/v1/auth/steam", "/v1/auth/psn", "/v1/auth/xbl"]), 503,
                "UF", dur=w.ri(1, 4), upstream="10.40.3.21:8080",
            )
    spring(w, at(2, 18, 47, 0), "INFO", "denylist-refresh", "g.r.auth.denylist.DenylistRefresher",
           f"denylist source pinned to v{prev_v} (CFG-4484): loaded {prev_n} entries")

    # ---- GAME-14 game-redis-2 restarts after a node drain; the primary's full resync loops on the
    #      replica output buffer limit, saturating its network and forking every few minutes
    rds(w, at(2, 20, 22, 30), "INFO", "Connection with replica 10.40.9.33:6379 lost.")
    cyc = 0
    for tt in every(RESYNC, 330):
        cyc += 1
        pidn = 5121 + cyc * 7
        rds(w, tt, "INFO", "Replica 10.40.9.33:6379 asks for synchronization")
        rds(w, tt, "INFO", "Full resync requested by replica 10.40.9.33:6379")
        rds(w, tt + timedelta(milliseconds=2), "INFO", "Starting BGSAVE for SYNC with target: disk")
        rds(w, tt + timedelta(milliseconds=1900), "INFO", f"Background saving started by pid {pidn}")
        rds(w, tt + timedelta(seconds=3), "INFO",
            "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk",
            inst="game-redis-2", role="S")
        if tt + timedelta(seconds=200) < RESYNC[1]:
            rds(
                w, tt + timedelta(seconds=w.ri(150, 200)), "WARN",
                f"Client id={w.ri(90000, 99999)} addr=10.40.9.33:{w.ri(40000, 60000)} laddr=10.40.9.12:6379 "
                "fd=41 "
                "name= age=180 idle=0 flags=S db=0 sub=0 psub=0 cmd=psync user=default "
                "scheduled to be closed ASAP for overcoming of output buffer limits.",
            )
            rds(w, tt + timedelta(seconds=201), "INFO", "Connection with replica 10.40.9.33:6379 lost.")
    rds(
        w, at(2, 20, 55, 5), "INFO",
        "CONFIG SET client-output-buffer-limit 'replica 2gb 1gb 120' by client id=88544 "
        "addr=10.40.2.5:51800",
    )
    rds(w, RESYNC[1], "INFO", "Synchronization with replica 10.40.9.33:6379 succeeded")
    for tt in every((RESYNC[0] + timedelta(seconds=5), RESYNC[1]), 10):
        tt = w.jit(tt, 10)
        if w.r() < 0.6:
            pino(w, tt, "ERROR", "party state write failed", partyId=f"pty_{w.hexid(10)}",
                 err="Command timed out", addr="10.40.9.12:6379", timeoutMs=500)
        if w.r() < 0.35:
            pino(w, tt, "WARN", "join party slow", partyId=f"pty_{w.hexid(10)}", tookMs=w.ri(1500, 4800))
        if w.r() < 0.3:
            pino(w, tt, "INFO", "party created", partyId=f"pty_{w.hexid(10)}", leader=w.player(),
                 size=w.ri(1, 4))
        if w.r() < 0.15:
            rust(w, tt, "WARN", "leaderboard::redis",
                 f"command ZADD board=ranked-5v5-s12 took {w.ri(600, 1900)}ms (threshold 100ms)")


# ---------------------------------------------------------------- metrics

SVC_BASE = {  # rps at the evening peak, p50, p99 (ms)
    "edge": (7200, 18, 140), "auth": (900, 22, 160), "matchmaker": (400, 9, 60), "lobby": (700, 6, 45),
    "leaderboard": (1200, 3, 28), "inventory": (1500, 8, 70), "store": (120, 40, 380),
    "chat": (2500, 2, 20),
}


SVC_EFFECTS = [(svcs.split(), [globals()[span] for span in spans.split()], effect)
               for svcs, spans, *effect in engine.data_table(NAME, "svc_effects.txt", None, "ssfff")]
"""What goes wrong for a service during an incident: worlds_data/game/svc_effects.txt."""


def svc_effect(service: str, t: datetime) -> tuple[float, float, float]:
    """(rps factor, error percent added, p99 factor) of what goes wrong at t: the first row of
    :data:`SVC_EFFECTS` naming the service and a span ``t`` is in."""
    for services, spans, (rps, err, p99) in SVC_EFFECTS:
        if service in services and any(inside(t, span) for span in spans):
            return rps, err, p99
    return 1.0, 0.0, 1.0


def metrics(w: World) -> None:  # noqa: C901 — the four metric exports
    rng = random.Random(SEED + 1)
    svc_rows: list[list] = []
    redis_rows: list[list] = []
    sync_full = {"game-redis-0": 14, "game-redis-1": 0, "game-redis-2": 0}
    t = DAY0
    last_cycle = None
    while t < END:
        ld = load(t)
        for svc, (rps, p50, p99) in SVC_BASE.items():
            f, err, p99f = svc_effect(svc, t)
            svc_rows.append([wmin(t), svc, round(rps * ld * f * (0.93 + rng.random() * 0.14), 1),
                             round(0.2 + rng.random() * 0.5 + err * (0.85 + rng.random() * 0.3), 2),
                             round(p50 * (0.9 + rng.random() * 0.2) * min(p99f, 3.0), 1),
                             round(p99 * (0.85 + rng.random() * 0.3) * p99f, 1)])
        # redis: game-redis-0 primary, 1 and 2 replicas
        used = 9700 + 60 * ld + rng.random() * 40
        if at(0, 8, 0) <= t < MAXMEM[0]:
            used += 2588 * (t - at(0, 8, 0)).total_seconds() / (MAXMEM[0] - at(0, 8, 0)).total_seconds()
        elif MAXMEM[0] <= t < at(0, 9, 18, 30):
            used = 12288.0
        used = min(used, 12288.0)
        maxmem = 12288 if t < CFG_TIME["CFG-4468"] else 16384
        rejected = int(180 + rng.random() * 90) if inside(t, MAXMEM) else 0
        net = 60 + 180 * ld + rng.random() * 30
        fork = rng.randint(90, 160)
        replicas = 2
        lat = 0.4 + rng.random() * 0.5
        if inside(t, RESYNC):
            cycle = int((t - RESYNC[0]).total_seconds() // 330)
            if cycle != last_cycle:
                sync_full["game-redis-0"] += 1
                last_cycle = cycle
            net = 930 + rng.random() * 60
            fork = rng.randint(1700, 2300)
            replicas = 1
            lat = 180 + rng.random() * 500
        for inst in ("game-redis-0", "game-redis-1", "game-redis-2"):
            primary = inst == "game-redis-0"
            down = inst == "game-redis-2" and at(2, 20, 22, 30) <= t < RESYNC[1]
            redis_rows.append(
                [wall(t), inst, "master" if primary else "replica",
                 round(used - (0 if primary else 3), 1), maxmem,
                 int((900 + 700 * ld) * (0.95 + rng.random() * 0.1)) if primary else rng.randint(8, 14),
                 int((38000 + 52000 * ld) * (0.95 + rng.random() * 0.1))
                 if primary
                 else rng.randint(20, 90), round(net if primary else 4 + rng.random() * 3, 1),
                 replicas if primary else 0, sync_full[inst], fork if primary else 0,
                 round(lat if primary else 0.3 + rng.random() * 0.2, 2), rejected if primary else 0,
                 0 if down else 1]
            )
        t += timedelta(minutes=2)
    w.table("svc_metrics", ["minute", "service", "rps", "error_pct", "p50_ms", "p99_ms"], svc_rows)
    w.table("redis_metrics",
            ["time", "instance", "role", "used_memory_mb", "maxmemory_mb", "connected_clients",
             "ops_per_sec", "net_out_mbps", "connected_replicas", "sync_full", "latest_fork_ms",
             "latency_p99_ms", "rejected_writes", "up"],
            redis_rows)

    # long format, epoch seconds: infrastructure KPIs every 5 minutes
    kpi: list[list] = []
    t = DAY0
    lag = 2000.0
    while t < END:
        ep = int(t.timestamp())
        ld = load(t)
        for node in (1, 2, 3):
            disk = 18 + 30 * ld + rng.random() * 8
            rlat = 4 + 6 * ld + rng.random() * 3
            if inside(t, REPAIR):
                disk, rlat = (
                    (97 + rng.random() * 3, 700 + rng.random() * 800)
                    if node == 3
                    else (55 + rng.random() * 10, 30 + rng.random() * 25)
                )
            elif at(1, 12, 50) <= t < at(1, 14, 31):
                disk = disk + 15
            kpi += [[ep, f"scylla-{node}", "disk_util_pct", round(disk, 1)],
                    [ep, f"scylla-{node}", "read_latency_p99_ms", round(rlat, 1)],
                    [ep, f"scylla-{node}", "pending_compactions",
                     rng.randint(0, 6) + (40 if inside(t, REPAIR) else 0)]]
        for b in (1, 2, 3):
            dead = b == 3 and KAFKA3[0] <= t < at(0, 15, 31)
            urp = 0
            if b in (1, 2) and KAFKA3[0] <= t < at(0, 15, 31):
                urp = 29 if b == 1 else 29 + (0 if t < at(0, 15, 0) else -10)
            kpi += [[ep, f"kafka-{b}", "under_replicated_partitions", urp],
                    [ep, f"kafka-{b}", "offline_log_dirs", 1 if dead else 0],
                    [ep, f"kafka-{b}", "bytes_in_per_sec",
                     0 if dead else int((9e6 + 2.2e7 * ld) * (0.9 + rng.random() * 0.2))]]
        conns, waits, xact = rng.randint(6, 14), 0, round(rng.random() * 2, 1)
        if inside(t, MIGR):
            conns = min(30, 8 + int((t - MIGR[0]).total_seconds() // 50))
            waits = min(30, 1 + int((t - MIGR[0]).total_seconds() // 55))
            xact = round((t - MIGR[0]).total_seconds(), 0)
        kpi += [[ep, "pg-store-01", "active_connections", conns], [ep, "pg-store-01", "lock_waits", waits],
                [ep, "pg-store-01", "longest_xact_s", xact]]
        cap = fleet_state(t)
        kpi += [
            [ep, "fleet/ranked-usw2", "gameservers_ready", cap["ready"]],
            [ep, "fleet/ranked-usw2", "gameservers_allocated", cap["allocated"]],
            [ep, "fleet/ranked-usw2", "gameservers_pending", cap["pending"]],
            [ep, "fleet/ranked-usw2", "nodes", 166 if inside(t, QUOTA) else int(cap["desired"] / 7.8) + 4],
        ]
        if inside(t, TOKEN):
            lag += 420_000 * 5
        elif t >= TOKEN[1] and lag > 5000:
            lag = max(2000.0, lag - 1_300_000 * 5)
        else:
            lag = 1500 + rng.random() * 2500
        kpi.append([ep, "consumer/telemetry-enrich", "lag_records", int(lag)])
        t += timedelta(minutes=5)
    w.table("kpi_metrics", ["timestamp", "cmdb_id", "kpi_name", "value"], kpi)

    # long format, ISO times: pod resources every 15 minutes
    pods = [(s, p)
            for s in ("auth", "matchmaker", "lobby", "leaderboard", "inventory", "store", "chat")
            for p in PODS[s]]
    restarts = {p: 0 for _s, p in pods}
    rows: list[list] = []
    t = DAY0
    while t < END:
        ld = load(t)
        for svc, pod in pods:
            cpu = (
                {"auth": 900, "matchmaker": 700, "lobby": 400, "leaderboard": 500, "inventory": 800,
                 "store": 300, "chat": 600}[svc]
                * (0.3 + ld)
                * (0.9 + rng.random() * 0.2)
            )
            mem = {"auth": 1350, "matchmaker": 620, "lobby": 310, "leaderboard": 140, "inventory": 900,
                   "store": 420, "chat": 780}[svc] * (0.95 + rng.random() * 0.08)
            if svc == "auth" and inside(t, HEAP):
                restarts[pod] += rng.randint(1, 2)
                mem, cpu = 2030 + rng.random() * 18, 1900 + rng.random() * 100
            rows += [[zulu(t), pod, "cpu_millicores", int(cpu)], [zulu(t), pod, "memory_mib", int(mem)],
                     [zulu(t), pod, "restarts", restarts[pod]]]
        t += timedelta(minutes=15)
    w.table("pod_metrics", ["time", "pod", "metric", "value"], rows)


CFG_TIME = {c[0]: c[5] for c in CONFIG}


def job_runs(w: World) -> None:
    rng = random.Random(SEED + 2)
    rows: list[list] = []
    n = 60_100

    def run(job: str, svc: str, start: datetime, secs: int, status: str, detail: str) -> None:
        nonlocal n
        n += rng.randint(1, 4)
        rows.append(
            [f"run-{n}", job, svc, wall(start), wall(start + timedelta(seconds=secs)), status, detail]
        )

    for d in range(3):
        run("scylla-manager-backup", "scylla", at(d, 1, 0), rng.randint(2100, 2600), "success",
            "snapshot + upload to gs://riftline-scylla-backup, keyspaces inventory, profiles")
        run("store-refund-reconcile", "store", at(d, 2, 0), rng.randint(200, 400), "success",
            f"reconciled {rng.randint(40, 90)} refunds with paycore")
        run("matchmaker-rating-decay", "matchmaker", at(d, 4, 0), rng.randint(60, 140), "success",
            f"decayed ratings of {rng.randint(9000, 14000)} inactive players")
        for hh in (0, 6, 12, 18):
            run("telemetry-compaction", "telemetry", at(d, hh, 30), rng.randint(600, 1300), "success",
                "compacted parquet partitions of s3://riftline-telemetry-raw (previous 6 h)")
        run("leaderboard-season-snapshot", "leaderboard", at(d, 8, 0), 1901 if d == 0 else 3, "success",
            "season 11: 48 boards, 9,412,880 members -> lb:s11:archive:* (no TTL)"
            if d == 0
            else "no season ended; nothing to do")
        for hh in range(24):
            failed = d == 0 and hh == 9
            run("leaderboard-hourly-rollup", "leaderboard", at(d, hh, 5), rng.randint(1, 3),
                "failed" if failed else "success",
                "OOM command not allowed when used memory > 'maxmemory'" if failed else "4 boards")
    for start, fin, entries, v in denylist_exports():
        if start >= DAY0:
            run(
                "anticheat-denylist-export", "auth", start, int((fin - start).total_seconds()), "success",
                f"exported {entries:,} device ids as denylist v{v} to gs://riftline-anticheat/denylist/latest"
                + (" (ban wave BW-1203)" if entries > 1_000_000 else ""),
            )
    run("vault-rotate-steam-webapi-key", "auth", at(0, 13, 20), 95, "success",
        "rotated secret/auth/steam-webapi to version 9; previous key stays valid 7 days")
    run("scylla-repair-inventory", "scylla", at(1, 12, 50), 6060, "success",
        "scylla-manager repair keyspace inventory, intensity 0 (max), parallel 0 (max); weekly task moved "
        "from Sun 03:00 to Wed 12:50 (LIVE-1199); paused 13:52 and resumed with intensity 1")
    run("vault-rotate-psn-client-secret", "auth", at(2, 13, 20, 5), 125, "success",
        "rotated secret/auth/psn-oauth client_secret to version 14; previous secret revoked at PSN")
    run("gke-nodepool-upgrade", "kubernetes", at(2, 20, 0), 6000, "success",
        "pool-default surge upgrade 1.31.3-gke.1100 -> 1.31.4-gke.1050, draining nodes one at a time")
    rows.sort(key=lambda r: (r[3], r[0]))
    w.table("job_runs", ["run_id", "job", "service", "started_at", "finished_at", "status", "detail"], rows)


# ---------------------------------------------------------------- runbooks

DOCS = {
    "oncall-overview": """# Riftline live-ops on-call overview

Riftline's backend runs in GKE cluster gke-usw2 (namespace riftline-prod) plus three ScyllaDB nodes, three
Kafka brokers and pg-store-01 on VMs. Times in tickets and on the status page are US Pacific (PST).

## Request path

Game clients reach the Envoy edge at api.riftline.gg. Every /v1 request is first checked by auth over
ext_authz (failure_mode_allow=false: if auth cannot answer, the edge answers 403 with flag UAEX). Chat
uses the websocket route chat-ws. Sign-in goes through auth, which talks to Steam, PSN and Xbox Live.

## Matches

The matchmaker forms matches from tickets and asks the allocator for a GameServer from fleet
ranked-usw2 (node pool gs-c2-usw2). The lobby keeps parties in game-redis (db 2) and publishes
lobby.events to Kafka; chat delivers party invites from lobby.events.

## Data stores

game-redis-0 is the primary for leaderboard (db 0), lobby (db 2) and chat presence (db 3), with
replicas game-redis-1 and game-redis-2. inventory keeps loadouts and items in the ScyllaDB cluster
profile-store (scylla-1..3). store uses pg-store-01 (storedb) and the PayCore payment API. telemetry is
the Flink job telemetry-enrich (telemetry.raw -> S3).

## Where to look

Tables: dependencies, deploys (UTC), config_changes, schema_migrations, job_runs, svc_metrics (per
service, 2 min), redis_metrics, kpi_metrics (infrastructure KPIs, long format) and pod_metrics (pods,
long format).
""",
    "known-noise": """# Known noise (ignore unless something else is wrong)

These show up every day and are not incidents on their own.

## telemetry

The Flink job telemetry-enrich always logs WARN "Checkpoint N ... expired before completing", WARN
"Dropping N late events older than watermark" (client clock skew) and ERROR "Failed to deserialize record
... unknown schema id 0" (old 1.38 clients; records go to the dead letter topic). Only a stop of
"Completed checkpoint" lines or a growing consumer lag is worth a look.

## auth, chat, matchmaker, lobby

auth: "login rejected ... bad_credentials" and "Steam ticket rejected: k_EResultExpired" are players.
chat: "rate limited" is a spam filter. matchmaker: "ticket expired without match" in small queues at
night. lobby: "invite expired".

## store, scylla, leaderboard, edge

store: "payment declined ... card_declined" and PayCore webhook retries that then succeed. scylla:
"Writing large partition inventory/items: (p_b0tfarm01)" is a known bot account. leaderboard: the odd
"slow command ZREVRANGE". edge: a few 503 UF on /v1/store/catalog and 504 UT on matchmaking tickets per
hour.
""",
    "auth-idp-outage": """# Sign-in failing for one platform (Steam / PSN / Xbox)

When players on one platform cannot sign in while the others can, it is almost always the platform's
identity provider having an outage.

## What to do

Check the provider's status page (Steam, PSN, Xbox Live) and the auth WARN lines for that provider.
If the provider is degraded there is nothing to fix on our side: post in #status, put the login
banner up for that platform and wait it out. Do not restart auth; restarts drop sessions of every
platform.
""",
    "redis-memory": """# game-redis memory full ("OOM command not allowed")

game-redis-0 runs with maxmemory-policy noeviction: when used memory reaches maxmemory, every write is
refused with "OOM command not allowed when used memory > 'maxmemory'" while reads still work, so
leaderboard score submits and lobby party writes fail.

## What to do

Look for what grew (redis_metrics used_memory_mb, big keys, the leaderboard season snapshot job in
job_runs). Export and delete archive keys that should not live in redis, then, if needed, raise
maxmemory with a config change. Never switch the policy to an evicting one: boards would silently
lose members.
""",
    "fleet-capacity": """# Players stuck on "Finding server"

Matches are formed but no game server is handed out: the matchmaker logs "allocation failed ... there is
no available GameServer to allocate".

## What to check

1. kpi_metrics for fleet/ranked-usw2: gameservers_ready at 0 and gameservers_pending growing means the
   fleet cannot grow; the allocator logs why (node pool scale-up failures, Insufficient cpu, quota).
2. A GCE quota error on node pool gs-c2-usw2 needs a quota increase request (the cloud team, P1).
3. If ready game servers exist but allocations still fail, compare the allocation selector with the
   fleet's labels (a recent matchmaker change).
""",
}


# ---------------------------------------------------------------- truth


def z(t: datetime) -> str:
    return zulu(t)


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


main = engine.main(NAME, world, __name__, DOCS)
