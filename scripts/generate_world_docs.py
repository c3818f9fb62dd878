"""Write the held-out "docs" world: a B2B SaaS collaborative document editor.

Three days (2026-11-17..19, Tuesday to Thursday, UK time in November: GMT, UTC+00:00,
Europe/London) of logs from 14 components, the ops tables the on-call has (dependencies, deploys,
config changes, schema migrations, job runs, a certificate inventory, one wide per-minute metric
export with service-prefixed columns and one long per-instance export) and the runbooks, with 14
incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_docs.py [OUT_DIR]   # writes OUT_DIR/docs/ (default tests/data/worlds)

The product ("Quillpad", app.quillpad.app; EKS cluster eks-euw2, namespace quill-prod): browsers
come in through the **edge** (CloudFront, which connects over TLS to the origin origin.quillpad.app:
the nginx **ingress**, whose certificate cert-manager keeps). **collab** (Node, y-websocket
style CRDT sync) keeps live editing sessions over websockets and persists document updates in
**mongo** (replica set rs-docs: mongo-docs-0 primary, -1 and -2 secondaries); **docs-api**
(Django) serves documents, comments, sharing and search, keeps accounts and workspaces in
**postgres** (pg-main-0) and sessions in **redis** (redis-sess-0, sessions and presence);
**search** is an Elasticsearch cluster (es-master-0..2, es-data-0..2) fed by the **indexer** (Go)
from the SQS queue docs-index-events; **export** renders PDFs with a headless Chromium pool and
stores attachments and exports in S3; **auth** (Spring Boot) does SSO with customers' identity
providers (Okta, Entra ID, Google Workspace) over SAML/OIDC; **billing** (Rails) takes
subscription webhooks from the PayFlow payment provider; **notify** (Celery) sends mail through the
Postmark-like Mailwave API; **k8s** is the Kubernetes event stream (CronJobs and Jobs, cert-manager,
node problems, pod lifecycle).

Clocks as they come: edge (CloudFront standard log), export, auth and mongo write UTC, ingress and
postgres write Europe/London with the offset (+0000 / GMT in November), docs-api, notify and search
write local wall time without a zone, collab and indexer write epoch times, billing writes local time with
microseconds, redis writes its own day-month-year form, k8s events carry an epoch "first seen".
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import epoch_ms, every, inside, ms3, zulu, zulu_ms  # noqa: E402

NAME, SEED = "docs", 20261117
GMT = timezone(timedelta(0))
LOCAL = engine.Clock(GMT, datetime(2026, 11, 17, tzinfo=GMT))
DAY0, END = LOCAL.days(3)
at, lt, loc, wall = LOCAL.at, LOCAL.iso, LOCAL.loc, LOCAL.wall




def epoch(t: datetime) -> int:
    return int(t.timestamp())


# the day's load: (hour, load), straight lines between
DAY_CURVE = [(0, 0.08), (3, 0.04), (6, 0.07), (8, 0.45), (9.5, 0.95), (11, 1.0), (12.5, 0.8), (14, 1.0),
           (16.5, 0.9), (18, 0.45), (20, 0.25), (22, 0.15), (24, 0.08)]


def load(t: datetime) -> float:
    """Editors online: a B2B working day in the UK, a small US tail in the evening."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.08)


# What goes wrong (UK time, GMT)
SHM = (at(0, 10, 7, 20), at(0, 11, 2, 0))  # DOCS-01 export: chromium /dev/shm full, zombie renderers
OKTA = (at(0, 12, 58, 0), at(0, 13, 47, 0))  # DOCS-05 Okta's token endpoint answers 503 (external)
BURST = (at(0, 13, 52, 0), at(0, 14, 51, 0))  # DOCS-04 mongo-docs-0 EBS burst balance 0, disk await
YV2 = (at(0, 16, 2, 30), at(0, 16, 51, 0))  # DOCS-03 collab DEP-5120 update encoding v2
CERT = (at(1, 9, 0, 0), at(1, 9, 41, 30))  # DOCS-06 origin certificate expired; cert-manager failed
FLOOD = (at(1, 10, 58, 10), at(1, 11, 52, 0))  # DOCS-07 es-data-1 flood-stage, read_only_allow_delete
WHSEC = (at(1, 13, 2, 0), at(1, 13, 58, 0))  # DOCS-08 billing CFG-2307 test-mode webhook secret
HEAP = (at(1, 15, 1, 0), at(1, 15, 49, 0))  # DOCS-09 es-data-2 heap: fielddata on a terms agg
SLOT = (at(2, 9, 38, 0), at(2, 11, 4, 0))  # DOCS-10 billing-cdc stopped; slot retains WAL
PGFULL = (at(2, 10, 16, 40), at(2, 11, 4, 0))  # DOCS-10 the symptom: pg_wal full, PANIC, read-only
QUOTA = (at(2, 11, 31, 0), at(2, 12, 26, 0))  # DOCS-11 Mailwave monthly quota used by weekly-digest
KEYS = (at(2, 14, 12, 0), at(2, 14, 58, 0))  # DOCS-12 presence-cleanup CronJob runs KEYS on redis
SKEW = (at(2, 15, 52, 0), at(2, 16, 44, 0))  # DOCS-13 chrony stopped on ip-10-20-3-17: SAML NotBefore


class World(engine.Dataset):
    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)

    def doc(self) -> str:
        return "d_" + "".join(
            self.pick("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") for _ in range(11)
        )


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables, (background,), (incidents, metrics, job_runs), (DEPLOYS, rollout))
    return w, engine.manifest(
        NAME, "Europe/London", "Quillpad, a B2B collaborative document editor",
        "2026-11-17..19 UK time (GMT)", 14,
        "edge ingress collab docs-api mongo search indexer export redis "
        "auth billing notify k8s postgres".split(), dayfirst=True), truth()

PODS = {
    "collab": ["collab-6c9f7d8b5-2kxqv", "collab-6c9f7d8b5-8mzt4", "collab-6c9f7d8b5-wq7nr"],
    "docs-api": ["docs-api-7b5d9c6f8-4hvzk", "docs-api-7b5d9c6f8-9tq2m", "docs-api-7b5d9c6f8-xr6pl"],
    "export": ["export-5f8c7b9d6-j2wxn", "export-5f8c7b9d6-t7kqz"], "indexer": ["indexer-84d6f9c7b-6nmzp"],
    "auth": ["auth-6d7f8c9b4-5vq8s", "auth-6d7f8c9b4-mk3tz"],
    "billing": ["billing-web-7c8d9f6b5-zz4kq", "billing-worker-7c8d9f6b5-pq2lx"],
    "notify": ["notify-worker-5b7c9d8f6-h4rtw", "notify-worker-5b7c9d8f6-q9mvs"],
}
AUTH_NODES = {"auth-6d7f8c9b4-5vq8s": "ip-10-20-3-17", "auth-6d7f8c9b4-mk3tz": "ip-10-20-5-41"}

# deploy_id, service, version, start (UK), duration min, status, author, description
DEPLOYS = engine.table(at, "ssstisss", """
DEP-5109 | docs-api | 3.41.0 | -1 14:20 | 7 | succeeded | hpatel | comment threads API v2
DEP-5112 | indexer | 1.18.2 | -1 16:05 | 3 | succeeded | okeane | bulk batch size from config
DEP-5114 | export | 2.9.1 | 0 08:40 | 5 | succeeded | lmorgan | docx export: table borders
DEP-5117 | notify | 1.27.0 | 0 11:30 | 4 | succeeded | swright | mention digest template
DEP-5120 | collab | 4.8.0 | 0 16:02:30 | 6 | rolled_back | jbrennan | broadcast document updates with Y
    update encoding v2 (smaller frames); rolled back 16:51
DEP-5121 | collab | 4.7.3 | 0 16:49 | 3 | succeeded | jbrennan | rollback of DEP-5120
DEP-5124 | auth | 5.3.0 | 0 12:50 | 5 | succeeded | achowdhury | password reset email copy; SCIM group sync
    paging
DEP-5126 | search | es-8.15.3 | 1 07:10 | 35 | succeeded | okeane | rolling restart for JVM flags
DEP-5128 | billing | 7.12.0 | 1 12:40 | 6 | succeeded | rkaur | annual plan proration fix
DEP-5129 | docs-api | 3.42.0 | 1 14:48 | 7 | succeeded | hpatel | documents list: sort by last opened
DEP-5131 | docs-api | 3.42.1 | 2 10:02 | 6 | succeeded | hpatel | comment notifications batching
DEP-5133 | k8s | presence-cleanup-1.0.0 | 2 14:10 | 1 | succeeded | dmurphy | new CronJob presence-cleanup
    (every 5 min): remove stale presence:* keys
DEP-5135 | export | 2.9.2 | 2 15:30 | 5 | succeeded | lmorgan | font fallback for CJK
""")

BASE_VERSION = {
    "collab": "4.7.3", "docs-api": "3.41.0", "export": "2.9.0", "indexer": "1.18.2", "auth": "5.2.4",
    "billing": "7.11.3", "notify": "1.26.1",
}


def version(service: str, t: datetime) -> str:
    return engine.deployed(BASE_VERSION.get(service, ""), sorted(DEPLOYS, key=lambda d: d[3]), service, t,
                           60)  # its duration in minutes


# change_id, service, key, old, new, applied (UK), author, ticket
CONFIG = engine.table(at, "ssssstss", """
CFG-2284 | ingress | nginx.proxy-body-size | 25m | 50m | -1 11:15 | okeane | OPS-3310
CFG-2288 | export | chromium.launch_timeout_ms | 30000 | 45000 | -1 10:05 | lmorgan | OPS-3318
CFG-2290 | auth | scim.sync.page_size | 100 | 200 | 0 12:52 | achowdhury | OPS-3321
CFG-2293 | collab | ws.max_payload_bytes | 1048576 | 2097152 | 0 15:40 | jbrennan | OPS-3325
CFG-2296 | indexer | bulk.max_docs | 500 | 400 | 1 10:40 | okeane | OPS-3331
CFG-2301 | notify | digest.weekly.batch_size | 5000 | 20000 | 1 16:30 | swright | OPS-3336
CFG-2307 | billing | PAYFLOW_WEBHOOK_SECRET | whsec_live_****9f2c | whsec_test_****41ad | 1 13:02 | rkaur |
    OPS-3339
CFG-2309 | billing | PAYFLOW_WEBHOOK_SECRET | whsec_test_****41ad | whsec_live_****9f2c | 1 13:57 |
    oncall:tgreen | INC-1182
CFG-2312 | docs-api | api.rate_limit.tok_nw_7f31 | none | 1/10s /api/v1/search | 1 15:47 | oncall:tgreen |
    INC-1184
CFG-2315 | docs-api | COMMENT_NOTIFY_BATCH_SECONDS | 0 | 30 | 2 10:05 | hpatel | OPS-3344
CFG-2318 | redis | slowlog-log-slower-than | 10000 | 10000 | 2 08:00 | dmurphy | OPS-3347
CFG-2320 | collab | presence.ttl_seconds | 90 | 60 | 2 13:40 | dmurphy | OPS-3349
CFG-2323 | auth | saml.allowed_clock_skew_seconds | 180 | 180 | 2 15:20 | achowdhury | OPS-3352
""")

# service, version, description, applied (UK), duration s, status
MIGRATIONS = engine.table(at, "ssstis", """
docs-api | comments.0042_thread_resolved_at | ALTER TABLE comments_thread ADD COLUMN resolved_at | -1 14:22 |
    2 | applied
billing | 20261117093000 | AddDunningStepToSubscriptions | 0 09:30 | 1 | applied
docs-api | workspaces.0019_sso_domain_idx | CREATE INDEX CONCURRENTLY workspaces_sso_domain_idx | 1 14:50 |
    38 | applied
billing | 20261118124000 | CreateWebhookDeliveries | 1 12:42 | 1 | applied
docs-api | comments.0043_notify_batch | ALTER TABLE comments_comment ADD COLUMN notify_batch_id | 2 10:04 | 1
    | applied
""")

DEPENDENCIES = engine.table(None, "sssss", """
edge | ingress | https | origin.quillpad.app:443 (NLB, TLS passthrough to the ingress) | every request; TLS
    to the origin with certificate quill-prod/origin-tls
ingress | collab | websocket | collab.quill-prod.svc:1234 | location /collab (y-websocket)
ingress | docs-api | http | docs-api.quill-prod.svc:8000 | location /api
ingress | export | http | export.quill-prod.svc:3000 | location /export and /attachments
ingress | auth | http | auth.quill-prod.svc:8080 | location /sso, /oauth2, /saml
ingress | billing | http | billing.quill-prod.svc:3000 | location /billing and /webhooks/payflow
collab | mongo | mongodb | rs-docs/mongo-docs-0,mongo-docs-1,mongo-docs-2:27017 | load document state,
    append updates (collection doc_updates)
collab | redis | resp | redis-sess-0:6379 | session check on connect; presence:* keys
collab | docs-api | http | docs-api.quill-prod.svc:8000 | permission check on connect
collab | sqs | https | sqs.eu-west-2 docs-index-events | document changed events
docs-api | mongo | mongodb | rs-docs:27017 | documents, comments, revisions
docs-api | postgres | postgresql | pg-main-0:5432/quill | accounts, workspaces, members, sharing
docs-api | redis | resp | redis-sess-0:6379 | sessions (django cache sessions)
docs-api | search | https | es-data-0..2:9200 index docs-v7 | search panel queries
docs-api | sqs | https | sqs.eu-west-2 notify-events | comment and share notifications
indexer | sqs | https | sqs.eu-west-2 docs-index-events | consumes document changed events
indexer | mongo | mongodb | rs-docs (secondaryPreferred) | reads the document text
indexer | search | https | es-data-0..2:9200 | _bulk into docs-v7
export | mongo | mongodb | rs-docs:27017 | document snapshot for rendering
export | s3 | https | s3 quill-prod-exports, quill-prod-attachments | exports and attachments
export | redis | resp | redis-sess-0:6379 | session check
auth | okta | https | customer Okta orgs (*.okta.com) | OIDC / SAML SSO (external)
auth | entra | https | login.microsoftonline.com | OIDC SSO (external)
auth | google | https | accounts.google.com | OIDC SSO (external)
auth | postgres | postgresql | pg-main-0:5432/quill | users, sso_connections
auth | redis | resp | redis-sess-0:6379 | creates sessions
billing | postgres | postgresql | pg-main-0:5432/billing | subscriptions, invoices
billing | payflow | https | api.payflow.com | payment provider (external); webhooks in
notify | sqs | https | sqs.eu-west-2 notify-events | consumes notifications
notify | mailwave | https | api.mailwave.io/v1/email | email API (external)
notify | postgres | postgresql | pg-main-0:5432/quill | email preferences, suppressions
k8s | postgres | postgresql | pg-main-0:5432 | billing-cdc (logical replication slot billing_cdc)
k8s | redis | resp | redis-sess-0:6379 | session-gc, presence-cleanup
k8s | notify | sqs | notify-events | weekly-digest enqueues digests
k8s | search | https | es-data-0..2:9200 | es-snapshot to s3
mongo | mongo | mongodb | mongo-docs-1, mongo-docs-2 | replication
""")


def change_tables(w: World) -> None:
    w.table("deploys", engine.columns("DEPLOYS_AUTHORED"),
            [[d, s, v, zulu(st), zulu(st + timedelta(minutes=dur)), status, a, desc]
             for d, s, v, st, dur, status, a, desc in sorted(DEPLOYS, key=lambda d: d[3])])
    w.table(
        "config_changes", engine.columns("CONFIG_APPLIED"),
        [[c, s, k, o, n, loc(t).isoformat(timespec="seconds"), a, tk] for c, s, k, o, n, t, a,
         tk in CONFIG],
    )
    w.table("schema_migrations", engine.columns("MIGRATIONS_APPLIED"),
            [[s, v, d, wall(t), dur, st] for s, v, d, t, dur, st in MIGRATIONS])
    w.table("dependencies", engine.columns("DEPENDENCIES_PURPOSE"), [list(d) for d in DEPENDENCIES])
    w.table("certificates",
            ["name", "namespace", "dns_names", "issuer", "not_before", "not_after", "renewal_status",
             "last_attempt"],
            [["origin-tls", "quill-prod", "origin.quillpad.app", "letsencrypt-dns01",
              "2026-08-20T09:00:00Z", "2026-11-18T09:00:00Z",
              "Failed: DNS-01 challenge: AccessDenied route53:ChangeResourceRecordSets",
              "2026-11-18T08:30:00Z"],
             ["app-tls", "quill-prod", "app.quillpad.app", "acm", "2026-06-02T00:00:00Z",
              "2027-07-01T23:59:59Z", "Issued", "2026-06-02T00:00:00Z"],
             ["es-transport", "search", "es-*.search.svc", "quill-internal-ca", "2026-05-11T10:00:00Z",
              "2027-05-11T10:00:00Z", "Issued", "2026-05-11T10:00:00Z"],
             ["mongo-x509", "data", "mongo-docs-*.data.svc", "quill-internal-ca", "2026-09-01T08:00:00Z",
              "2027-09-01T08:00:00Z", "Issued", "2026-09-01T08:00:00Z"],
             ["saml-sp-signing", "quill-prod", "sso.quillpad.app", "self-signed", "2026-01-15T00:00:00Z",
              "2028-01-15T00:00:00Z", "Issued", "2026-01-15T00:00:00Z"],
             ["payflow-webhook", "quill-prod", "-", "payflow", "2025-03-01T00:00:00Z", "",
              "Static secret", "2025-03-01T00:00:00Z"]])


# ---------------------------------------------------------------- native log formats


def nginx(w: World, t: datetime, method: str, path: str, status: int, rt: float, upstream: str,
          level: str | None = None) -> None:
    if level is None:
        level = "ERROR" if status >= 500 else "INFO"
    ip = f"10.20.{w.pick([1, 2, 4])}.{w.ri(10, 60)}"
    stamp = loc(t).strftime("%d/%b/%Y:%H:%M:%S +0000")
    msg = (
        f'{ip} - - [{stamp}] "{method} {path} HTTP/1.1" {status} {w.ri(120, 30000)} "-" '
        f'"Mozilla/5.0" rt={rt:.3f} uct="0.001" urt="{rt:.3f}" upstream={upstream} req_id={w.hexid(16)}'
    )
    w.emit(t, "ingress", level, msg)


def nginx_err(w: World, t: datetime, level: str, sev: str, msg: str) -> None:
    stamp = loc(t).strftime("%Y/%m/%d %H:%M:%S")
    w.emit(t, "ingress", level, f"{stamp} [{sev}] 31#31: *{w.ri(100000, 999999)} {msg}")


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def pino(w: World, t: datetime, level: str, msg: str, pod: int | None = None, **kv) -> None:
    pods = PODS["collab"]
    host = pods[pod if pod is not None else w.ri(0, len(pods) - 1)]
    rec = {"level": PINO[level], "time": epoch_ms(t), "pid": 1, "hostname": host, **kv, "msg": msg}
    w.emit(t, "collab", level, json.dumps(rec, separators=(",", ":")))


DJLV = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def django(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    stamp = loc(t).strftime("%Y-%m-%d %H:%M:%S,") + ms3(t)
    w.emit(t, "docs-api", level, f"[{stamp}] {DJLV[level]} {logger}: {msg}")


MGLV = {"DEBUG": "D1", "INFO": "I", "WARN": "W", "ERROR": "E", "FATAL": "F"}


def mongo(
    w: World, t: datetime, level: str, comp: str, mid: int, msg: str, attr: dict, host: str = "mongo-docs-0"
) -> None:
    rec = {"t": {"$date": zulu_ms(t).replace("Z", "+00:00")}, "s": MGLV[level], "c": comp, "id": mid,
           "ctx": attr.pop("_ctx", "conn" + str(w.ri(1000, 9999))), "msg": msg, "attr": attr}
    w.emit(t, "mongo", level, json.dumps(rec, separators=(",", ":")), host=host)


ESLV = {"DEBUG": "DEBUG", "INFO": "INFO ", "WARN": "WARN ", "ERROR": "ERROR", "FATAL": "FATAL"}


def es(w: World, t: datetime, level: str, logger: str, node: str, msg: str) -> None:
    stamp = loc(t).strftime("%Y-%m-%dT%H:%M:%S,") + ms3(t)
    w.emit(t, "search", level, f"[{stamp}][{ESLV[level]}][{logger}] [{node}] {msg}")


def zap(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    rec = {"level": level.lower(), "ts": round(t.timestamp(), 3), "caller": caller, "msg": msg, **kv}
    w.emit(t, "indexer", level, json.dumps(rec, separators=(",", ":")))


def logfmt(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    pod = PODS["export"][w.ri(0, 1)]
    parts = [f"time={zulu_ms(t)}", f"level={level.lower()}", f"pod={pod}", f'msg="{msg}"']
    for k, v in kv.items():
        sv = str(v)
        parts.append(f'{k}="{sv}"' if " " in sv else f"{k}={sv}")
    w.emit(t, "export", level, " ".join(parts))


def rds(w: World, t: datetime, level: str, msg: str, mark: str = "*") -> None:
    stamp = loc(t).strftime("%d %b %Y %H:%M:%S.") + ms3(t)
    w.emit(t, "redis", level, f"1:M {stamp} {mark} {msg}")


def spring(w: World, t: datetime, level: str, logger: str, msg: str, pod: str | None = None,
           thread: str | None = None) -> None:
    pod = pod or PODS["auth"][w.ri(0, 1)]
    thread = thread or f"nio-8080-exec-{w.ri(1, 24)}"
    lv = {"FATAL": "ERROR"}.get(level, level)
    w.emit(
        t, "auth", level, f"{zulu_ms(t)} {lv:>5} 1 --- [auth] [{thread:>15}] {logger:<40} : {msg}", pod=pod
    )


RBLV = {"DEBUG": "D", "INFO": "I", "WARN": "W", "ERROR": "E", "FATAL": "F"}


def rails(w: World, t: datetime, level: str, msg: str, req: str | None = None) -> None:
    stamp = loc(t).strftime("%Y-%m-%dT%H:%M:%S.%f")
    tag = f"[{req}] " if req else ""
    w.emit(t, "billing", level,
           f"{RBLV[level]}, [{stamp} #{w.pick([7, 9, 12])}] {level:>5} -- : {tag}{msg}")


CELV = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def celery(w: World, t: datetime, level: str, msg: str, worker: str | None = None) -> None:
    stamp = loc(t).strftime("%Y-%m-%d %H:%M:%S,") + ms3(t)
    worker = worker or f"ForkPoolWorker-{w.ri(1, 8)}"
    w.emit(t, "notify", level, f"[{stamp}: {CELV[level]}/{worker}] {msg}")


def kev(
    w: World, t: datetime, level: str, etype: str, reason: str, obj: str, msg: str, ns: str = "quill-prod"
) -> None:
    w.emit(t, "k8s", level, f"{etype} {reason} {ns}/{obj} {msg} (first seen {epoch(t)})")


PGLV = {"DEBUG": "DEBUG", "INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}


def pg(
    w: World, t: datetime, level: str, msg: str, who: str = "", pid: int | None = None,
    lv: str | None = None
) -> None:
    stamp = loc(t).strftime("%Y-%m-%d %H:%M:%S.") + ms3(t) + " GMT"
    pid = pid or w.ri(20000, 40000)
    w.emit(t, "postgres", level, f"{stamp} [{pid}] {who}{lv or PGLV[level]}:  {msg}")


# ---------------------------------------------------------------- an ordinary minute

API_PATHS = engine.table(None, "ssf", """
GET | /api/v1/documents/{d} | 0.3
GET | /api/v1/documents/{d}/comments | 0.16
POST | /api/v1/documents/{d}/comments | 0.05
GET | /api/v1/workspaces/ws_{n}/documents?sort=updated | 0.14
GET | /api/v1/search?q=... | 0.1
PATCH | /api/v1/documents/{d}/sharing | 0.03
GET | /api/v1/me | 0.12
POST | /api/v1/client-errors | 0.02
""")
CF_POPS = ["LHR62-C2", "LHR50-P3", "MAN51-C1", "DUB56-P1", "AMS58-P4"]
WORKSPACES = ["harbour-legal", "northwind-analytics", "brightside-health", "kestrel-media", "oakridge-uni",
              "tessellate", "acme-consulting", "fenwick-partners"]
OKTA_ORGS = ["harbour-legal", "acme-consulting", "kestrel-media", "fenwick-partners"]
ENTRA_ORGS = ["oakridge-uni", "brightside-health"]
GOOGLE_ORGS = ["tessellate", "northwind-analytics"]


def api_path(w: World) -> tuple[str, str]:
    x = w.r() * sum(p[2] for p in API_PATHS)
    for m, p, wt in API_PATHS:
        x -= wt
        if x <= 0:
            return m, p.format(d=w.doc(), n=w.ri(1000, 9999))
    return "GET", "/api/v1/me"


def cf(w: World, t: datetime, method: str, path: str, status: int, dur: float, result: str = "Miss",
       detail: str | None = None) -> None:
    level = "ERROR" if status >= 500 else "INFO"
    ip = f"{w.pick(['81.2.69', '86.14.212', '51.148.9', '62.30.118', '90.221.37'])}.{w.ri(2, 250)}"
    rtype = "Error" if status >= 500 else result
    fields = [
        loc(t).strftime("%Y-%m-%d"), loc(t).strftime("%H:%M:%S"), w.pick(CF_POPS), str(w.ri(300, 40000)),
        ip, method, "d3q8x1lpk2n7v.cloudfront.net", path.split("?")[0], str(status), "-", "Mozilla/5.0",
        "-", "-", rtype, w.hexid(20) + "==", "app.quillpad.app", "https", str(w.ri(200, 900)), f"{dur:.3f}",
        "-", "TLSv1.3", "TLS_AES_128_GCM_SHA256", rtype, "HTTP/2.0", "-", "-", str(w.ri(20000, 65000)),
        f"{dur * 0.9:.3f}", detail or rtype, "application/json",
    ]
    w.emit(t, "edge", level, "\t".join(fields))


VACUUMED = ["sessions_audit", "documents_acl", "workspace_members"]


def checkpoint_done(
    w: World, t0: datetime, buffers: int, added: int, removed: int, recycled: int, spread_s: float
) -> None:
    """Postgres' "checkpoint complete" line, logged when the checkpoint's write and sync are done."""
    write = spread_s * (0.9 + 0.1 * w.r())
    sync = 0.01 + w.r() * 0.8
    total = write + sync + 0.002
    pg(w, t0 + timedelta(seconds=total), "INFO",
       f"checkpoint complete: wrote {buffers} buffers ({buffers / 163.84:.1f}%); {added} WAL file(s) "
       f"added, {removed} removed, {recycled} recycled; write={write:.3f} s, sync={sync:.3f} s, "
       f"total={total:.3f} s", pid=412)


def background(w: World, t: datetime) -> None:  # noqa: C901 — one minute of an ordinary day
    lo = loc(t)
    L = load(t)
    if inside(t, CERT):  # nothing gets past the edge
        L *= 0.03
    hh, mm = lo.hour, lo.minute
    # edge (CloudFront standard log, sampled 1:2000)
    for _ in range(w.count(0.6 * L + 0.08)):
        m, p = api_path(w)
        ts = w.jit(t)
        if inside(ts, CERT):
            continue
        status = 200 if w.r() > 0.01 else w.pick([404, 403])
        cf(w, ts, m, p, status, 0.02 + w.r() * 0.15)
    if w.r() < 0.012:
        cf(w, w.jit(t), "POST", "/export/pdf", 504, 30.0, detail="OriginReadTimeout")
    # ingress (nginx access, sampled)
    for _ in range(w.count(0.7 * L + 0.06)):
        m, p = api_path(w)
        ts = w.jit(t)
        if inside(ts, CERT):
            continue
        nginx(w, ts, m, p, 200 if w.r() > 0.02 else 404, 0.01 + w.r() * 0.12, "10.20.6.21:8000")
    if w.r() < 0.25 * L + 0.02:
        nginx(w, w.jit(t), "GET", "/collab/" + w.doc(), 101, 300 + w.r() * 3000, "10.20.6.40:1234")
    if w.r() < 0.02:
        nginx_err(w, w.jit(t), "WARN", "warn",
                  "an upstream response is buffered to a temporary file "
                  "/var/cache/nginx/proxy_temp/4/21/0000081214 while reading upstream, client: 10.20.1.33, "
                  'server: origin.quillpad.app, request: "GET /attachments/a_91f2 HTTP/1.1"')
    # collab
    for _ in range(w.count(0.5 * L + 0.04)):
        x = w.r()
        ts = w.jit(t)
        if x < 0.35:
            pino(w, ts, "INFO", "client connected", doc=w.doc(), clients=w.ri(1, 9))
        elif x < 0.65:
            pino(w, ts, "INFO", "client disconnected", doc=w.doc(), code=w.pick([1000, 1001, 1001, 1006]))
        else:
            pino(w, ts, "INFO", "persisted updates", doc=w.doc(), updates=w.ri(3, 80), ms=w.ri(4, 25))
    if w.r() < 0.045:
        pino(w, w.jit(t), "WARN", "ping timeout, terminating socket", doc=w.doc(), idleMs=30000)
    if w.r() < 0.03:
        pino(w, w.jit(t), "WARN", "awareness update for unknown client dropped", doc=w.doc(),
             clientID=w.ri(10**8, 10**9))
    # docs-api (django)
    for _ in range(w.count(0.7 * L + 0.06)):
        m, p = api_path(w)
        django(w, w.jit(t), "INFO", "django.server", f'"{m} {p} HTTP/1.1" 200 {w.ri(200, 60000)}')
    if w.r() < 0.08 * L + 0.01:
        django(w, w.jit(t), "WARN", "django.request", f"Not Found: /api/v1/documents/{w.doc()}")
    if w.r() < 0.012:
        django(w, w.jit(t), "WARN", "django.security.csrf",
               "Forbidden (CSRF token from the 'X-Csrftoken' HTTP header incorrect.): /api/v1/me")
    # mongo
    if w.r() < 0.08 * L + 0.015:
        mongo(w, w.jit(t), "INFO", "COMMAND", 51803, "Slow query",
              {"type": "command", "ns": "quill.doc_updates", "command": {"find": "doc_updates"},
               "planSummary": "IXSCAN { docId: 1, seq: 1 }", "docsExamined": w.ri(200, 5000),
               "durationMillis": w.ri(101, 380)})
    if mm % 20 == 3:
        mongo(w, w.jit(t, 5), "INFO", "WTCHKPT", 22430, "WiredTiger message",
              {"_ctx": "Checkpointer",
               "message": {"ts_sec": epoch(t), "category": "WT_VERB_CHECKPOINT_PROGRESS",
                           "msg": f"saving checkpoint snapshot min: {w.ri(10**5, 10**6)}"}})
    if w.r() < 0.05:
        mongo(w, w.jit(t), "INFO", "NETWORK", 22943, "Connection accepted",
              {"remote": f"10.20.6.{w.ri(10, 60)}:{w.ri(30000, 60000)}", "connectionCount": w.ri(380, 460)})
    # search
    if mm % 6 == 0 and not inside(t, HEAP):
        node = w.pick(["es-data-0", "es-data-1", "es-data-2"])
        es(w, w.jit(t), "INFO", "o.e.m.j.JvmGcMonitorService", node,
           f"[gc][{w.ri(10000, 99999)}] overhead, spent [{w.ri(260, 420)}ms] collecting in the last [1s]")
    if w.r() < 0.025 * L + 0.006:
        node = w.pick(["es-data-0", "es-data-1", "es-data-2"])
        es(
            w, w.jit(t), "WARN", "i.s.s.query", node,
            f"[docs-v7][{w.ri(0, 5)}] took[{w.ri(1000, 2400)}ms], took_millis[{w.ri(1000, 2400)}], total_hits"
            f"[{w.ri(10, 900)} hits], search_type[QUERY_THEN_FETCH], total_shards[6]",
        )
    if mm == 17 and hh % 2 == 0 and t < FLOOD[0] - timedelta(minutes=40):
        es(w, w.jit(t), "INFO", "o.e.c.r.a.DiskThresholdMonitor", "es-master-1",
           "low disk watermark [85%] exceeded on [es-data-1][Qx8WcN3kR0e2][/usr/share/elasticsearch/data] "
           f"free: {w.ri(70, 74)}.{w.ri(0, 9)}gb[14.{w.ri(0, 9)}%], replicas will not be assigned to this "
           "node")
    # indexer: always noisy
    if not inside(t, FLOOD):
        for _ in range(w.count(0.4 * L + 0.1)):
            zap(w, w.jit(t), "INFO", "bulk/worker.go:141", "bulk request completed", index="docs-v7",
                docs=w.ri(1, 400), took_ms=w.ri(12, 180))
    if w.r() < 0.11:
        zap(w, w.jit(t), "ERROR", "bulk/worker.go:198", "document rejected by elasticsearch",
            index="docs-v7", doc_id=w.doc(),
            error="mapper_parsing_exception: failed to parse field [meta.due] of type [date]")
    if w.r() < 0.06:
        zap(w, w.jit(t), "WARN", "extract/text.go:77",
            "document text exceeds 10485760 bytes; indexing title and metadata only", doc_id=w.doc())
    if w.r() < 0.025:
        zap(w, w.jit(t), "WARN", "queue/sqs.go:64", "sqs receive failed, retrying",
            queue="docs-index-events", error="read: connection reset by peer", attempt=1)
    # export
    for _ in range(w.count(0.3 * L + 0.02)):
        x = w.r()
        if x < 0.45:
            logfmt(w, w.jit(t), "INFO", "pdf export complete", doc=w.doc(), pages=w.ri(1, 60),
                   render_ms=w.ri(900, 9000), s3_key=f"exports/{w.hexid(12)}.pdf")
        else:
            logfmt(w, w.jit(t), "INFO", "attachment stored", bucket="quill-prod-attachments",
                   bytes=w.ri(20000, 9000000))
    if w.r() < 0.03 * L + 0.004:
        logfmt(w, w.jit(t), "WARN", "external image timed out, rendering without it", doc=w.doc(),
               url="https://i.imgur.com/...", timeout_ms=8000)
    # redis
    if mm % 30 == 6:
        rds(w, w.jit(t, 2), "INFO", "100 changes in 300 seconds. Saving...")
        pid = w.ri(20000, 60000)
        rds(w, w.jit(t + timedelta(seconds=2), 1), "INFO", f"Background saving started by pid {pid}")
        rds(w, w.jit(t + timedelta(seconds=9), 3), "INFO", "DB saved on disk", mark="*")
        rds(w, w.jit(t + timedelta(seconds=13), 1), "INFO", "Background saving terminated with success")
    # auth
    for _ in range(w.count(0.3 * L + 0.02)):
        org = w.pick(WORKSPACES)
        idp = "okta" if org in OKTA_ORGS else ("entra" if org in ENTRA_ORGS else "google")
        ts = w.jit(t)
        if idp == "okta" and (inside(ts, OKTA) or inside(ts, SKEW)):
            continue
        spring(w, ts, "INFO", "c.q.auth.sso.SsoLoginHandler",
               f"SSO login succeeded connection={org}-{idp} user=u_{w.hexid(8)} protocol="
               f"{'saml' if idp == 'okta' else 'oidc'}")
    if w.r() < 0.03 * L + 0.003:
        spring(w, w.jit(t), "WARN", "c.q.auth.saml.SamlResponseValidator",
               f"SAML response rejected for connection={w.pick(OKTA_ORGS)}-okta: user not assigned to "
               "the application (StatusCode Responder/RequestDenied)")
    if w.r() < 0.03 * L + 0.004:
        spring(w, w.jit(t), "WARN", "c.q.auth.local.PasswordLogin", "login failed reason=bad_credentials")
    # billing
    if w.r() < 0.08 * L + 0.01 and not inside(t, WHSEC):
        ts = w.jit(t)
        req = w.hexid(8) + "-" + w.hexid(4)
        ev = w.pick(["invoice.paid", "customer.subscription.updated", "invoice.created",
                     "charge.succeeded"])
        rails(w, ts, "INFO", f'Started POST "/webhooks/payflow" for 3.18.12.{w.ri(10, 90)}', req)
        rails(
            w, ts + timedelta(milliseconds=40), "INFO", f"Processing PayFlow event {ev} evt_{w.hexid(14)}",
            req,
        )
        rails(w, ts + timedelta(milliseconds=w.ri(60, 200)), "INFO",
              "Completed 200 OK in 83ms (Views: 0.2ms | ActiveRecord: 11.4ms)", req)
    if w.r() < 0.01:
        rails(w, w.jit(t), "WARN",
              "PayFlow API request retried after Net::ReadTimeout (attempt 2 succeeded)")
    # notify
    if not inside(t, QUOTA):
        for _ in range(w.count(0.3 * L + 0.02)):
            celery(w, w.jit(t), "INFO",
                   f"Task notify.tasks.send_email[{w.hexid(8)}-{w.hexid(4)}] succeeded in "
                   f"0.{w.ri(12, 90)}s: {{'provider': 'mailwave', 'status': 202}}")
    if w.r() < 0.035 * L + 0.005:
        celery(w, w.jit(t), "WARN",
               "recipient suppressed (hard bounce), skipping: r***@"
               + w.pick(["gmail.com", "outlook.com", "harbourlegal.co.uk"]))
    # k8s events: cronjobs
    if mm % 10 == 0:
        n = epoch(t) // 60
        kev(w, w.jit(t, 3), "INFO", "Normal", "SuccessfulCreate", "cronjob/session-gc",
            f"Created job session-gc-{n}")
        kev(w, w.jit(t + timedelta(seconds=30), 10), "INFO", "Normal", "Completed", f"job/session-gc-{n}",
            "Job completed")
    if w.r() < 0.015:
        kev(w, w.jit(t), "WARN", "Warning", "Unhealthy", f"pod/{w.pick(PODS['export'])}",
            "Readiness probe failed: HTTP probe failed with statuscode: 503")
    # postgres
    if mm % 15 == 2 and not inside(t, (SLOT[0], at(2, 11, 0))):
        t0 = w.jit(t, 2)
        pg(w, t0, "INFO", "checkpoint starting: time", pid=412)
        checkpoint_done(w, t0, w.ri(200, 4000), 0, w.ri(0, 3), w.ri(8, 20), 780.0)
    if w.r() < 0.04:
        pg(w, w.jit(t), "INFO",
           f'automatic vacuum of table "quill.public.{w.pick(VACUUMED)}": index scans: 1',
           pid=w.ri(20000, 40000))
    if w.r() < 0.02 * L + 0.002:
        pg(w, w.jit(t), "INFO",
           f"duration: {w.ri(1000, 2600)}.{w.ri(100, 999)} ms  statement: SELECT "
           "d.id FROM documents_acl d JOIN workspace_members m ON ...", who="quill@quill ")
    if w.r() < 0.01:
        pg(w, w.jit(t), "ERROR", 'duplicate key value violates unique constraint "workspace_members_pkey"',
           who="quill@quill ")


# ---------------------------------------------------------------- deploys and incidents


def rollout(w: World, t0: datetime, service: str, ver: str, dur: int) -> None:
    pods = PODS.get(service)
    if service == "k8s":
        kev(w, t0, "INFO", "Normal", "Created", "cronjob/presence-cleanup",
            "CronJob created (schedule */5 * * * *)")
        return
    if service == "search":
        for i, node in enumerate(["es-data-0", "es-data-1", "es-data-2"]):
            ts = t0 + timedelta(minutes=10 * i + 1)
            es(w, ts, "INFO", "o.e.n.Node", node, "stopping ...")
            es(w, ts + timedelta(minutes=2), "INFO", "o.e.n.Node", node, "started {" + node + "}")
            es(w, ts + timedelta(minutes=6), "INFO", "o.e.c.r.a.AllocationService", "es-master-1",
               'current.health="GREEN" message="Cluster health status changed from [YELLOW] to [GREEN]"')
        return
    kev(w, t0, "INFO", "Normal", "ScalingReplicaSet", f"deployment/{service.split('-web')[0]}",
        f"Scaled up replica set {service}-{w.hexid(9)} to 1 (image quill/{service}:{ver})")
    for i, pod in enumerate(pods or []):
        ts = t0 + timedelta(seconds=int(dur * 60 * (i + 1) / (len(pods) + 1)))
        kev(w, ts, "INFO", "Normal", "Started", f"pod/{pod}", f"Started container {service.split('-')[0]}")
        if service == "collab":
            pino(w, ts + timedelta(seconds=4), "INFO", f"collab {ver} listening on :1234", pod=i)
        elif service == "docs-api":
            django(w, ts + timedelta(seconds=5), "INFO", "gunicorn.error",
                   f"Booting worker with pid: {w.ri(8, 40)}")
        elif service == "auth":
            spring(w, ts + timedelta(seconds=20), "INFO", "c.q.auth.AuthApplication",
                   f"Started AuthApplication {ver} in 18.4 seconds (process running for 19.9)", pod=pod,
                   thread="main")
        elif service == "billing" or service == "billing-web":
            rails(w, ts + timedelta(seconds=8), "INFO", f"Puma starting in cluster mode... version {ver}")
        elif service == "export":
            logfmt(w, ts + timedelta(seconds=6), "INFO", "browser pool ready", version=ver, pages=8)
        elif service == "notify":
            celery(w, ts + timedelta(seconds=6), "INFO", f"celery@{pod} ready. (notify {ver})",
                   worker="MainProcess")
        elif service == "indexer":
            zap(
                w, ts + timedelta(seconds=3), "INFO", "cmd/indexer/main.go:52", "indexer started",
                version=ver
            )


def incidents(w: World) -> None:  # noqa: C901 — the stories, told in order
    # ---- DOCS-01 export: Chromium's /dev/shm (64 MB default) fills; renderers crash, relaunch fails
    logfmt(w, at(0, 10, 3, 12), "INFO", "pdf export started", doc="d_HbrBundle380", pages=380,
           workspace="harbour-legal", job="exp_7e21c0")
    logfmt(w, at(0, 10, 4, 40), "INFO", "pdf export started", doc="d_HbrBundle381", pages=412,
           workspace="harbour-legal", job="exp_7e21c4")
    logfmt(w, at(0, 10, 7, 20), "ERROR", "page crashed: Protocol error (Page.printToPDF): Target closed",
           doc="d_HbrBundle380", job="exp_7e21c0")
    for ts in every(SHM, 23):
        ts = w.jit(ts, 20)
        if ts >= SHM[1] - timedelta(minutes=2):
            break
        x = w.r()
        if x < 0.55:
            logfmt(
                w, ts, "ERROR",
                "browser launch failed: Failed to launch the browser process! "
                "[0100/101234.5:ERROR:platform_shared_memory_region_posix.cc(217)] Creating shared memory "
                "in /dev/shm/.org.chromium.Chromium.XXXXXX failed: No space left on device (28)",
                doc=w.doc(),
                attempt=w.ri(1, 3),
            )
        elif x < 0.85:
            logfmt(w, ts, "ERROR", "pdf export failed", doc=w.doc(), job=f"exp_{w.hexid(6)}",
                   error="Protocol error (Target.createTarget): Target closed", pool_free=0)
        else:
            logfmt(w, ts, "WARN", "renderer process exited unexpectedly, pruning from pool",
                   pid=w.ri(300, 2000), signal="SIGBUS")
        if w.r() < 0.5:
            cf(w, ts + timedelta(milliseconds=300), "POST", "/export/pdf", 500, 2.1 + w.r())
            nginx(w, ts + timedelta(milliseconds=200), "POST", "/export/pdf", 500, 2.0 + w.r(),
                  "10.20.6.77:3000")
    logfmt(
        w, at(0, 10, 31, 5), "WARN", "df /dev/shm: 64M size, 64M used, 0 avail (100%)",
        pod=PODS["export"][0]
    )
    for i, pod in enumerate(PODS["export"]):
        ts = at(0, 10, 58, 30) + timedelta(seconds=50 * i)
        kev(w, ts, "INFO", "Normal", "Killing", f"pod/{pod}", "Stopping container export (rollout restart)")
        kev(w, ts + timedelta(seconds=25), "INFO", "Normal", "Started",
            f"pod/{pod.replace('j2wxn', 'p8dkc').replace('t7kqz', 'z5hwr')}",
            "Started container export (volume dshm: emptyDir medium=Memory sizeLimit=1Gi)")
    logfmt(w, at(0, 11, 2, 10), "INFO", "browser pool ready", version="2.9.1", pages=8, shm="1.0G")

    # ---- DOCS-05 Okta's token endpoint answers 503 (external); Entra and Google fine
    for ts in every(OKTA, 28):
        ts = w.jit(ts, 25)
        org = w.pick(OKTA_ORGS)
        if w.r() < 0.7:
            spring(
                w, ts, "ERROR", "c.q.auth.oidc.OktaTokenClient",
                f"token exchange failed connection={org}-okta: HTTP 503 Service Unavailable from "
                f'https://{org}.okta.com/oauth2/v1/token after 3 attempts (body: {{"errorCode":"E0000009",'
                '"errorSummary":"Internal Server Error"}})',
            )
        else:
            spring(
                w, ts, "WARN", "c.q.auth.sso.SsoLoginHandler",
                f"SSO login failed connection={org}-okta reason=idp_unavailable; user sent to /sso/error",
            )
        if w.r() < 0.3:
            cf(w, ts, "GET", "/sso/callback", 502, 9.0 + w.r())
    spring(
        w, at(0, 13, 12, 40), "WARN", "c.q.auth.oidc.OidcDiscovery",
        "metadata refresh for https://acme-consulting.okta.com/.well-known/openid-configuration took 8123 "
        "ms",
    )
    spring(w, at(0, 12, 55, 20), "INFO", "c.q.auth.scim.ScimGroupSync",
           "SCIM group sync page_size=200 for connection=tessellate-google (3 pages)")

    # ---- DOCS-04 mongo-docs-0's EBS burst balance empty: disk await, slow finds and persists
    for ts in every(BURST, 19):
        ts = w.jit(ts, 15)
        L = load(ts)
        if w.r() < 0.8 * L + 0.2:
            coll = w.pick(["doc_updates", "doc_updates", "documents", "comments"])
            mongo(w, ts, "INFO", "COMMAND", 51803, "Slow query",
                  {"type": "command", "ns": f"quill.{coll}", "command": {"find": coll},
                   "planSummary": "IXSCAN { docId: 1, seq: 1 }", "docsExamined": w.ri(200, 5000),
                   "storage": {
                       "data": {
                           "bytesRead": w.ri(10**6, 9 * 10**6), "timeReadingMicros": w.ri(800000, 3900000),
                       }
                   },
                   "durationMillis": w.ri(900, 4200)})
        if w.r() < 0.5:
            pino(w, ts + timedelta(milliseconds=400), "WARN", "slow document load", doc=w.doc(),
                 ms=w.ri(2500, 9000), source="mongo")
        if w.r() < 0.3:
            pino(w, ts + timedelta(milliseconds=700), "WARN", "persist queue backing up",
                 pending=w.ri(200, 3000), oldestMs=w.ri(3000, 20000))
        if w.r() < 0.25:
            django(w, ts + timedelta(milliseconds=300), "WARN", "quill.db.mongo",
                   f"slow mongo read documents.find took {w.ri(1500, 5000)}ms (rs-docs primary)")
    mongo(w, at(0, 14, 6, 2), "WARN", "STORAGE", 22430, "WiredTiger message",
          {"_ctx": "Checkpointer",
           "message": {
               "ts_sec": epoch(at(0, 14, 6, 2)), "msg": "Checkpoint has been running for 64 seconds",
           }})
    mongo(w, at(0, 14, 51, 0), "INFO", "REPL", 21358, "Replica set state transition",
          {"_ctx": "ReplCoord-4", "newState": "SECONDARY", "oldState": "PRIMARY"})
    mongo(w, at(0, 14, 51, 2), "INFO", "REPL", 21358, "Replica set state transition",
          {"_ctx": "ReplCoord-1", "newState": "PRIMARY", "oldState": "SECONDARY"}, host="mongo-docs-1")

    # ---- DOCS-03 collab DEP-5120: updates broadcast with Y update encoding v2; web clients decode v1
    for i in range(3):
        pino(w, at(0, 16, 3, 30) + timedelta(seconds=110 * i), "INFO",
             "sync protocol: broadcasting document updates with encoding v2 (Y_UPDATE_ENCODING=v2)", pod=i)
    for ts in every((at(0, 16, 4, 0), at(0, 16, 50, 30)), 9):
        ts = w.jit(ts, 8)
        x = w.r()
        if x < 0.4:
            pino(w, ts, "WARN", "client closed socket after sync error", doc=w.doc(), code=4400,
                 reason="Y.applyUpdate failed: Unexpected end of array")
        elif x < 0.7:
            pino(w, ts, "INFO", "client connected", doc=w.doc(), clients=w.ri(1, 9), resync=True)
        elif x < 0.85:
            django(w, ts, "WARN", "quill.client_errors",
                   f'client error report: collab sync failed doc={w.doc()} err="Unexpected end of array" '
                   "app=web-2026.11.2 (expects update encoding v1)")
        else:
            pino(
                w, ts, "WARN", "resync storm: full state requested", doc=w.doc(),
                requestsPerMin=w.ri(30, 200)
            )
    for i in range(3):
        pino(w, at(0, 16, 50, 0) + timedelta(seconds=20 * i), "INFO",
             "collab 4.7.3 listening on :1234 (update encoding v1)", pod=i)

    # ---- DOCS-06 origin certificate expired at 09:00; cert-manager renewals failing since the 16th
    t = DAY0 + timedelta(minutes=30)
    while t < at(1, 9, 40):
        kev(w, w.jit(t, 40), "WARN", "Warning", "Failed",
            "certificaterequest/origin-tls-" + str(epoch(t) % 99991),
            "cert-manager: DNS-01 challenge for origin.quillpad.app failed: AccessDenied: user "
            "arn:aws:sts::4120:assumed-role/cert-manager is not authorized to perform "
            "route53:ChangeResourceRecordSets (renewal was due 2026-10-19)")
        t += timedelta(hours=1)
    for ts in every(CERT, 5):
        ts = w.jit(ts, 4.8)
        m, p = api_path(w)
        if w.r() < 0.5:
            cf(w, ts, m, p, 502, 0.04 + w.r() * 0.05, detail="OriginCommError")
        if w.r() < 0.35:
            nginx_err(
                w, ts + timedelta(milliseconds=20), "ERROR", "info",
                "SSL_do_handshake() failed (SSL: error:0A000415:SSL routines::sslv3 alert certificate "
                "expired:SSL alert number 45) while SSL handshaking, client: "
                f"130.176.{w.ri(1, 220)}.{w.ri(2, 250)}"
                ", server: 0.0.0.0:443",
            )
    kev(w, at(1, 9, 38, 12), "INFO", "Normal", "Issuing", "certificate/origin-tls",
        "The certificate has been successfully issued (DNS-01 after IAM policy fix OPS-3333)")
    nginx_err(w, at(1, 9, 41, 20), "INFO", "notice",
              "signal process started (reload: new certificate quill-prod/origin-tls notAfter=2027-02-16 "
              "08:38:12 GMT)")
    pino(w, at(1, 9, 30, 0), "WARN", "no clients connected for 25 minutes", pod=0)

    # ---- DOCS-07 es-data-1 at the flood stage watermark: docs-v7 read-only, indexer bulk 429
    es(w, at(1, 10, 21, 4), "INFO", "o.e.c.m.MetadataCreateIndexService", "es-master-1",
       "[docs-v8] creating index, cause [api], templates [docs-template], shards [6]/[1]")
    es(w, at(1, 10, 21, 30), "INFO", "o.e.i.r.TransportReindexAction", "es-master-1",
       "reindex task [Qx8WcN3kR0e2:8812044] started: source [docs-v7] dest [docs-v8] slices [auto]")
    es(w, at(1, 10, 44, 50), "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-master-1",
       "high disk watermark [90%] exceeded on [es-data-1][Qx8WcN3kR0e2][/usr/share/elasticsearch/data] "
       "free: 49.6gb[9.7%], shards will be relocated away from this node; currently relocating away shards "
       "totalling [0] bytes")
    es(w, at(1, 10, 58, 10), "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-master-1",
       "flood stage disk watermark [95%] exceeded on "
       "[es-data-1][Qx8WcN3kR0e2][/usr/share/elasticsearch/data] free: 24.8gb[4.9%], all indices on this "
       "node will be marked read-only")
    for ts in every((at(1, 10, 58, 20), at(1, 11, 52)), 11):
        ts = w.jit(ts, 10)
        zap(w, ts, "ERROR", "bulk/worker.go:176", "bulk request failed, will retry", index="docs-v7",
            status=429, docs=w.ri(20, 400),
            error="cluster_block_exception: index [docs-v7] blocked by: [TOO_MANY_REQUESTS/12/disk usage "
                  "exceeded flood-stage watermark, index has read-only-allow-delete block]")
        if w.r() < 0.2:
            zap(w, ts + timedelta(seconds=2), "WARN", "queue/sqs.go:90",
                "in-flight messages at limit, pausing receive", queue="docs-index-events", in_flight=12000)
    es(w, at(1, 11, 49, 0), "INFO", "o.e.t.TaskManager", "es-master-1",
       "task [Qx8WcN3kR0e2:8812044] cancelled (reason: by user request) [reindex from [docs-v7] to "
       "[docs-v8]]")
    es(w, at(1, 11, 50, 20), "INFO", "o.e.c.m.MetadataDeleteIndexService", "es-master-1",
       "[docs-v8/8kXj2aL0Q3yP7wVf] deleting index")
    es(w, at(1, 11, 52, 0), "INFO", "o.e.c.s.IndexScopedSettings", "es-master-1",
       "updating [index.blocks.read_only_allow_delete] from [true] to [null] on [docs-v7]")
    zap(w, at(1, 11, 53, 0), "INFO", "bulk/worker.go:141", "backlog draining", queue="docs-index-events",
        visible=48211)

    # ---- DOCS-08 billing CFG-2307: test-mode webhook secret; every PayFlow webhook 400
    rails(w, at(1, 13, 2, 40), "INFO",
          "Configuration reloaded (PAYFLOW_WEBHOOK_SECRET from secrets/billing-payflow, source CFG-2307)")
    for ts in every((at(1, 13, 3), WHSEC[1]), 25):
        ts = w.jit(ts, 20)
        req = w.hexid(8) + "-" + w.hexid(4)
        ev = w.pick(["invoice.paid", "checkout.session.completed", "customer.subscription.updated"])
        rails(w, ts, "INFO", f'Started POST "/webhooks/payflow" for 3.18.12.{w.ri(10, 90)}', req)
        rails(
            w, ts + timedelta(milliseconds=12), "ERROR",
            "PayFlow::SignatureVerificationError (No signatures found matching the expected signature for "
            f"payload; event {ev}, signing secret whsec_test_****41ad)", req,
        )
        rails(w, ts + timedelta(milliseconds=15), "INFO", "Completed 400 Bad Request in 4ms", req)
        if w.r() < 0.15:
            django(w, ts + timedelta(seconds=5), "WARN", "quill.billing",
                   f"workspace ws_{w.ri(1000, 9999)} checkout returned but plan still free (waiting for "
                   "webhook)")
    rails(w, at(1, 13, 57, 30), "INFO",
          "Configuration reloaded (PAYFLOW_WEBHOOK_SECRET from secrets/billing-payflow, source CFG-2309)")
    rails(w, at(1, 13, 59, 0), "INFO", "PayFlow redelivered 214 failed events (webhook endpoint we_1Qp)")

    # ---- DOCS-09 es-data-2 heap: deep-paging aggregations from one API token; old GC, breaker trips
    for ts in every(HEAP, 14):
        ts = w.jit(ts, 12)
        x = w.r()
        if x < 0.3:
            es(
                w, ts, "WARN", "o.e.m.j.JvmGcMonitorService", "es-data-2",
                f"[gc][old][{w.ri(30000, 39999)}][{w.ri(100, 400)}] duration [{w.ri(3, 11)}.{w.ri(0, 9)}s], "
                f"collections [1]/[{w.ri(5, 12)}.{w.ri(0, 9)}s], total [{w.ri(3, 11)}.{w.ri(0, 9)}s]; memory "
                f"[{w.ri(15, 15)}.{w.ri(5, 9)}gb]->[{w.ri(14, 15)}.{w.ri(0, 9)}gb]/[16gb], all_pools "
                f"{{[old] heap used "
                f"{w.ri(95, 98)}%}}",
            )
        elif x < 0.5:
            es(w, ts, "WARN", "o.e.i.b.HierarchyCircuitBreakerService", "es-data-2",
               "[parent] Data too large, data for [<transport_request>] would be "
               f"[{w.ri(16400, 16900)}000000/15.{w.ri(3, 7)}gb], which is larger than the limit of "
               "[16320875724/15.1gb], real usage: heap used 97%")
        elif x < 0.75:
            es(w, ts, "WARN", "i.s.s.query", "es-data-2",
               f"[docs-v7][{w.ri(3, 4)}] took[{w.ri(8, 29)}s], search_type[QUERY_THEN_FETCH], "
               'source[{"from":9000,"size":1000,"aggregations":{"by_term":{"terms":{"field":'
               '"body.keyword","size":50000}}}}], id[api-token:tok_nw_7f31]')
        else:
            django(
                w, ts, "WARN", "quill.search",
                f"search backend timeout after 10000ms q={w.pick(['budget', 'contract', 'roadmap', 'okr'])} "
                f"workspace=ws_{w.ri(1000, 9999)} (es node es-data-2)",
            )
        if w.r() < 0.25:
            nginx(w, ts, "GET", "/api/v1/search?q=...", 504, 10.0, "10.20.6.21:8000")
    django(w, at(1, 15, 47, 10), "INFO", "quill.api.ratelimit",
           "rate limit applied to api token tok_nw_7f31 (northwind-analytics): 1 req/10s on /api/v1/search")

    # ---- DOCS-10 billing-cdc OOMKilled at 09:38: slot billing_cdc inactive, WAL kept, pg_wal full at 10:16
    kev(w, at(2, 9, 38, 0), "WARN", "Warning", "OOMKilling", "pod/billing-cdc-5c6d7f8b9-w2lqx",
        "Memory cgroup out of memory: Killed process 1 (java) total-vm:4812344kB (limit 2Gi)")
    pg(w, at(2, 9, 38, 1), "INFO", "could not receive data from client: Connection reset by peer",
       who="cdc@billing [billing_cdc] ", pid=30112)
    pg(w, at(2, 9, 38, 1), "INFO", "unexpected EOF on standby connection",
       who="cdc@billing [billing_cdc] ", pid=30112)
    t = at(2, 9, 40)
    while t < at(2, 10, 16):
        kev(w, w.jit(t, 30), "WARN", "Warning", "BackOff", "pod/billing-cdc-5c6d7f8b9-w2lqx",
            "Back-off restarting failed container connector (CrashLoopBackOff)")
        t += timedelta(minutes=5)
    t = at(2, 9, 42, 0)
    while t < at(2, 10, 16):
        added = w.ri(140, 190)
        pg(w, t, "INFO", "checkpoint starting: wal", pid=412)
        checkpoint_done(w, t, w.ri(9000, 30000), added, 0, 0, 150.0)
        t += timedelta(minutes=5)
    pg(w, at(2, 10, 16, 40), "FATAL",
       'could not write to file "pg_wal/xlogtemp.412": No space left on device', pid=412, lv="PANIC")
    pg(w, at(2, 10, 16, 41), "INFO", "checkpointer process (PID 412) was terminated by signal 6: Aborted",
       pid=1)
    pg(w, at(2, 10, 16, 41), "INFO", "terminating any other active server processes", pid=1)
    for i, ts in enumerate(every((at(2, 10, 17), at(2, 10, 58)), 150)):
        pg(w, ts, "INFO", "database system was interrupted; last known up at 2026-11-19 10:12:03 GMT",
           pid=5000 + i)
        pg(w, ts + timedelta(seconds=3), "FATAL",
           f'could not write to file "pg_wal/xlogtemp.{5000 + i}": No space left on device', pid=5000 + i)
        pg(w, ts + timedelta(seconds=4), "INFO",
           f"startup process (PID {5000 + i}) exited with exit code 1", pid=1)
    pg(w, at(2, 10, 58, 30), "INFO", "database system is ready to accept connections", pid=1)
    pg(w, at(2, 11, 1, 10), "INFO", "statement: SELECT pg_drop_replication_slot('billing_cdc');",
       who="postgres@postgres [psql] ")
    for ts in every((at(2, 10, 16, 45), at(2, 10, 58, 30)), 9):
        ts = w.jit(ts, 8)
        x = w.r()
        if x < 0.45:
            django(
                w, ts, "ERROR", "django.request",
                f"Internal Server Error: /api/v1/documents/{w.doc()}\n"
                'django.db.utils.OperationalError: connection to server at "pg-main-0" (10.20.7.12), port '
                "5432 failed: FATAL:  the database system is in recovery mode",
            )
            nginx(w, ts, "GET", "/api/v1/documents/" + w.doc(), 500, 0.05, "10.20.6.21:8000")
        elif x < 0.65:
            spring(w, ts, "ERROR", "o.h.engine.jdbc.spi.SqlExceptionHelper",
                   "Connection to pg-main-0:5432 refused. Check that the hostname and port are correct")
        elif x < 0.8:
            pino(w, ts, "ERROR", "permission check failed", doc=w.doc(), status=500, upstream="docs-api")
        else:
            celery(
                w, ts, "ERROR",
                "Task notify.tasks.send_email raised OperationalError: could not connect to server "
                "pg-main-0",
            )
    django(w, at(2, 10, 6, 0), "INFO", "quill.comments",
           "comment notifications batched every 30s (CFG-2315)")

    # ---- DOCS-11 weekly-digest spends Mailwave's monthly quota; transactional mail refused from 11:31
    for ts in every((at(2, 6, 0), QUOTA[0]), 60):
        celery(w, w.jit(ts, 50), "INFO",
               f"Task notify.tasks.send_digest_batch[{w.hexid(8)}] succeeded in "
               f"{w.ri(40, 58)}.{w.ri(1, 9)}s: {{'sent': 20000, 'provider': 'mailwave'}}")
    celery(w, at(2, 11, 31, 0), "ERROR",
           'Mailwave API 429: {"ErrorCode": 4060, "Message": "Monthly sending quota of 2500000 messages '
           'reached for account quillpad-prod; resets 2026-12-01"}')
    for ts in every((at(2, 11, 31, 5), QUOTA[1]), 15):
        ts = w.jit(ts, 14)
        kind = w.pick(["share_invite", "mention", "comment_reply", "password_reset", "digest"])
        celery(w, ts, "ERROR",
               f"Task notify.tasks.send_email[{w.hexid(8)}-{w.hexid(4)}] failed: "
               f"MailwaveError(429, 'monthly sending quota reached') template={kind}; will not retry")
        if w.r() < 0.2:
            celery(w, ts + timedelta(seconds=1), "WARN",
                   f"notify-events backlog {w.ri(2000, 90000)} messages, oldest 0:{{:02d}}:00".format(
                       w.ri(1, 50)
                   ))
    celery(
        w, at(2, 12, 26, 0), "INFO",
        "Mailwave account quillpad-prod: quota raised to 5000000 (support ticket MW-88123); resuming sends",
    )

    # ---- DOCS-12 presence-cleanup CronJob runs KEYS presence:<ws>:* for every workspace: redis blocked
    for ts in every((at(2, 14, 12), KEYS[1]), 300):
        n = epoch(ts) // 60
        kev(w, ts, "INFO", "Normal", "SuccessfulCreate", "cronjob/presence-cleanup",
            f"Created job presence-cleanup-{n}")
        if ts > at(2, 14, 16):
            kev(w, ts + timedelta(seconds=2), "WARN", "Warning", "TooManyMissedTimes",
                "cronjob/presence-cleanup",
                "previous job presence-cleanup still running (concurrencyPolicy Allow); 2 active jobs")
    rds(w, at(2, 14, 13, 30), "WARN",
        "Client id=881244 addr=10.20.5.88:51422 laddr=10.20.7.30:6379 name=presence-cleanup cmd=keys: "
        "blocked the event loop for 4412 ms (latency-monitor: command)",
        mark="#")
    for ts in every((at(2, 14, 14), KEYS[1]), 50):
        rds(w, w.jit(ts, 40), "WARN",
            f"Client id={w.ri(881000, 889999)} name=presence-cleanup cmd=keys: blocked "
            f"the event loop for {w.ri(3100, 6800)} ms (latency-monitor: command)", mark="#")
    for ts in every(KEYS, 7):
        ts = w.jit(ts, 6)
        x = w.r()
        if x < 0.25:
            django(w, ts, "ERROR", "django.request",
                   "Internal Server Error: /api/v1/me\nredis.exceptions.TimeoutError: Timeout reading from "
                   "redis-sess-0:6379")
            nginx(w, ts, "GET", "/api/v1/me", 500, 5.0, "10.20.6.21:8000")
        elif x < 0.45:
            pino(w, ts, "ERROR", "session lookup failed, closing socket", doc=w.doc(),
                 err="Command timed out after 3000ms (ioredis)")
        elif x < 0.6:
            logfmt(w, ts, "ERROR", "session check failed", err="redis: connection pool timeout", status=401)
        elif x < 0.75:
            spring(w, ts, "ERROR", "c.q.auth.session.RedisSessionStore",
                   "QueryTimeoutException: Redis command timed out; nested exception is "
                   "io.lettuce.core.RedisCommandTimeoutException: Command timed out after 3 second(s)")
        elif x < 0.9:
            cf(w, ts, "GET", "/api/v1/me", 502, 5.2, detail="OriginReadTimeout")
        else:
            django(
                w, ts, "WARN", "quill.session",
                "session cache miss fallback: user logged out (redis timeout)"
            )
    kev(w, at(2, 14, 57, 30), "INFO", "Normal", "Deleted", "cronjob/presence-cleanup",
        "CronJob deleted by oncall:tgreen (INC-1191)")

    # ---- DOCS-13 chrony stopped on ip-10-20-3-17 since 06:10: auth pod there rejects SAML (NotBefore)
    kev(w, at(2, 6, 10, 4), "INFO", "Normal", "NodeUpdated", "node/ip-10-20-3-17",
        "unattended-upgrades: restarted services: containerd.service (chronyd.service left inactive)",
        ns="kube-system")
    t = at(2, 6, 40)
    while t < SKEW[1]:
        off = (t - at(2, 6, 10)).total_seconds() / 3600 * 19.0
        kev(w, w.jit(t, 20), "WARN", "Warning", "NTPProblem", "node/ip-10-20-3-17",
            f"node-problem-detector: NTP service is not running; estimated clock offset -{off:.0f}s",
            ns="kube-system")
        t += timedelta(minutes=30)
    pod = PODS["auth"][0]
    for ts in every(SKEW, 20):
        ts = w.jit(ts, 18)
        off = (ts - at(2, 6, 10)).total_seconds() / 3600 * 19.0
        skewed = ts - timedelta(seconds=off)
        org = w.pick(OKTA_ORGS)
        nb = zulu(ts - timedelta(seconds=w.ri(1, 5)))
        msg = (
            f"SAML response validation failed for connection={org}-okta: Assertion is not yet valid "
            f"(NotBefore {nb}, now {zulu(skewed)}, allowed clock skew 180s)"
        )
        stamp = zulu_ms(skewed)
        w.emit(ts, "auth", "ERROR",
               f"{stamp} ERROR 1 --- [auth] [nio-8080-exec-{w.ri(1, 24):>2}] "
               f"{'c.q.auth.saml.SamlResponseValidator':<40} : {msg}", pod=pod)
        if w.r() < 0.5:
            spring(w, ts + timedelta(seconds=2), "INFO", "c.q.auth.sso.SsoLoginHandler",
                   f"SSO login succeeded connection={org}-okta user=u_{w.hexid(8)} protocol=saml",
                   pod=PODS["auth"][1])
    kev(w, at(2, 16, 43, 0), "INFO", "Normal", "Killing", f"pod/{pod}",
        "Stopping container auth (drained node ip-10-20-3-17, INC-1193)")
    spring(w, at(2, 16, 44, 0), "INFO", "c.q.auth.AuthApplication",
           "Started AuthApplication 5.3.0 in 18.1 seconds (process running for 19.6)",
           pod="auth-6d7f8c9b4-r7hnd", thread="main")


# ---------------------------------------------------------------- metric exports, job runs


def burst_balance(t: datetime) -> float:
    if at(0, 6) <= t < BURST[0]:
        return max(0.0, 100.0 * (BURST[0] - t).total_seconds() / (BURST[0] - at(0, 6)).total_seconds())
    if inside(t, BURST):
        return 0.0
    if BURST[1] <= t < BURST[1] + timedelta(hours=10):
        return min(100.0, (t - BURST[1]).total_seconds() / 360)
    return 100.0


def wal_gb(t: datetime) -> float:
    if SLOT[0] <= t < PGFULL[0]:
        return 1.3 + 18.7 * (t - SLOT[0]).total_seconds() / (PGFULL[0] - SLOT[0]).total_seconds()
    if PGFULL[0] <= t < at(2, 11, 1, 10):
        return 20.0
    return 1.3


def es1_disk(t: datetime) -> float:
    if at(1, 10, 21) <= t < FLOOD[0]:
        return 86.2 + 8.9 * (t - at(1, 10, 21)).total_seconds() / (FLOOD[0] - at(1, 10, 21)).total_seconds()
    if FLOOD[0] <= t < at(1, 11, 50, 20):
        return 95.1
    return 86.2


def clock_offset(t: datetime) -> float:
    if t < at(2, 6, 10):
        return 0.0
    return -(t - at(2, 6, 10)).total_seconds() / 3600 * 19.0


def metrics(w: World) -> None:  # noqa: C901 — the two metric exports
    cols = [
        "minute", "edge_requests", "edge_5xx_pct", "ingress_p95_ms", "collab_ws_connections",
        "collab_sync_p95_ms", "collab_cpu_pct", "docs_api_rps", "docs_api_p95_ms", "docs_api_5xx",
        "mongo_query_p95_ms", "mongo_disk_await_ms", "search_query_p95_ms", "indexer_queue_visible",
        "export_failed", "redis_p99_ms", "redis_connected_clients", "auth_logins_ok", "auth_logins_failed",
        "billing_webhooks_4xx", "notify_sent", "notify_failed", "pg_active_connections",
    ]
    rows = []
    backlog = 300.0
    t = DAY0
    g = w.rng.gauss
    while t < END:
        L = load(t)
        edge = L * 42000 + 900 + g(0, 400)
        e5 = max(0.0, 0.05 + g(0, 0.02))
        ing95 = 85 + g(0, 6)
        ws = L * 5200 + 150 + g(0, 60)
        sync95 = 38 + g(0, 4)
        ccpu = 18 + 35 * L + g(0, 3)
        rps = L * 610 + 20 + g(0, 10)
        api95 = 140 + 30 * L + g(0, 8)
        api5 = max(0, int(g(0.4, 0.6)))
        m95 = 24 + 10 * L + g(0, 3)
        await_ms = 1.8 + g(0, 0.3)
        s95 = 180 + 90 * L + g(0, 15)
        exf = max(0, int(g(0.1, 0.4)))
        r99 = 0.9 + g(0, 0.1)
        rcl = int(1900 + 900 * L + g(0, 30))
        aok = max(0, int(L * 95 + g(0, 5)))
        afail = max(0, int(L * 3 + g(0, 1.2)))
        b4 = 0
        ns = max(0, int(L * 260 + 6 + g(0, 10)))
        nf = max(0, int(g(0.3, 0.5)))
        pgc = int(60 + 80 * L + g(0, 4))
        inflow = L * 900 + 40
        drain = inflow + 5 + g(0, 20)
        if inside(t, SHM):
            exf = w.ri(8, 16)
        if inside(t, OKTA):
            afail += int(aok * 0.5)
            aok = int(aok * 0.5)
        if inside(t, BURST):
            await_ms = 30 + w.r() * 32
            m95 = 900 + w.r() * 3100
            sync95 = 2000 + w.r() * 6000
            api95 = 1500 + w.r() * 2500
            ccpu += 6
        if inside(t, (YV2[0] + timedelta(minutes=1), YV2[1])):
            ccpu = 80 + w.r() * 15
            ws *= 0.82
            sync95 = 60 + w.r() * 40
        if inside(t, CERT):
            e5 = 99.0 + w.r()
            rps = 2 + w.r() * 3
            ws = 20 + w.r() * 10
            aok = afail = 0
            ing95 = 40 + g(0, 5)
        if inside(t, FLOOD):
            drain = 0.0
        if inside(t, WHSEC):
            b4 = w.ri(2, 5)
        if inside(t, HEAP):
            s95 = 8000 + w.r() * 12000
            api95 = 900 + w.r() * 1400
        if inside(t, PGFULL):
            api5 = int(rps * 0.5 * 60) // 60 + w.ri(80, 140)
            pgc = 0
            aok, afail = 0, aok + afail
            e5 = 18 + w.r() * 8
        if inside(t, QUOTA):
            ns, nf = 0, w.ri(3, 7)
        if at(2, 6) <= t < QUOTA[0]:
            ns += 333
        if inside(t, KEYS):
            r99 = 3000 + w.r() * 3800
            api95 = 2500 + w.r() * 3000
            api5 = w.ri(20, 70)
            sync95 = 900 + w.r() * 2000
            rcl = int(rcl * 1.9)
            e5 = 4 + w.r() * 6
        if inside(t, SKEW):
            afail += int(aok * 0.3)
            aok = int(aok * 0.7)
        backlog = max(150.0, backlog + inflow - drain)
        rows.append(
            [loc(t).strftime("%Y-%m-%d %H:%M"), int(edge), round(e5, 2), round(ing95, 1), int(ws),
             round(sync95, 1), round(ccpu, 1), round(rps, 1), round(api95, 1), api5, round(m95, 1),
             round(await_ms, 2), round(s95, 1), int(backlog), exf, round(r99, 2), rcl, aok, afail, b4,
             ns, nf, pgc]
        )
        t += timedelta(minutes=1)
    w.table("app_metrics", cols, rows)

    long_rows = []
    t = DAY0
    while t < END:
        ep = epoch(t)
        L = load(t)
        for i in range(3):
            inst = f"mongo-docs-{i}"
            prim = (i == 0) != (BURST[1] <= t < at(1, 0))
            aw = 1.6 + w.r() * 0.6
            bb = 100.0
            if i == 0:
                bb = burst_balance(t)
                if inside(t, BURST):
                    aw = 30 + w.r() * 32
            long_rows.append([ep, inst, "disk_await_ms", round(aw, 2)])
            long_rows.append([ep, inst, "ebs_burst_balance_pct", round(bb, 1)])
            long_rows.append([ep, inst, "cpu_pct", round((30 if prim else 12) + 25 * L + w.r() * 5, 1)])
        for i in range(3):
            inst = f"es-data-{i}"
            heap = 52 + 20 * w.r()
            if i == 2 and inside(t, HEAP):
                heap = 95 + 3 * w.r()
            disk = es1_disk(t) if i == 1 else 61.0 + i * 3 + w.r() * 0.3
            gc = int(w.r() * 60) if not (i == 2 and inside(t, HEAP)) else w.ri(3000, 11000)
            long_rows.append([ep, inst, "jvm_heap_used_pct", round(heap, 1)])
            long_rows.append([ep, inst, "disk_used_pct", round(disk, 1)])
            long_rows.append([ep, inst, "gc_old_time_ms", gc])
        wal = wal_gb(t)
        long_rows.append([ep, "pg-main-0", "wal_retained_gb", round(wal + w.r() * 0.05, 2)])
        long_rows.append([ep, "pg-main-0", "pg_wal_volume_used_pct", round(min(100.0, wal / 20 * 100), 1)])
        long_rows.append(
            [ep, "pg-main-0", "replication_slot_active", 0 if SLOT[0] <= t < at(2, 11, 1, 10) else 1]
        )
        r99 = 3000 + w.r() * 3800 if inside(t, KEYS) else 0.8 + w.r() * 0.3
        long_rows.append([ep, "redis-sess-0", "cpu_pct",
                          100.0 if inside(t, KEYS) else round(8 + 20 * L, 1)])
        long_rows.append([ep, "redis-sess-0", "latency_p99_ms", round(r99, 2)])
        long_rows.append([ep, "redis-sess-0", "used_memory_mb", round(4100 + 300 * L + w.r() * 20, 0)])
        long_rows.append([ep, "ip-10-20-3-17", "clock_offset_s", round(clock_offset(t), 1)])
        long_rows.append([ep, "ip-10-20-5-41", "clock_offset_s", round(w.r() * 0.02, 3)])
        for pod in PODS["export"]:
            shm = 64 if inside(t, (SHM[0], at(0, 10, 58, 30))) else 4 + w.r() * 14
            long_rows.append([ep, pod, "dev_shm_used_mb", round(shm, 1)])
        t += timedelta(minutes=5)
    w.table("host_metrics", ["ts", "instance", "metric_name", "value"], long_rows)


def job_runs(w: World) -> None:
    rows = []
    n = 41000

    def add(job: str, ns: str, start: datetime, end: datetime | None, status: str, detail: str) -> None:
        nonlocal n
        n += 1
        rows.append([f"run-{n}", job, ns, wall(start), wall(end) if end else "", status, detail])

    for d in range(3):
        add("pg-basebackup", "data", at(d, 2, 0), at(d, 2, 41 + d), "succeeded",
            "pg-main-0 base backup to s3://quill-prod-pgbackup (38.2 GB)")
        if d == 0:
            add("revisions-compaction", "quill-prod", at(0, 3, 0), at(0, 3, 12), "failed",
                "mongo cursor killed (CursorNotFound) after 12 min")
            add("revisions-compaction", "quill-prod", at(0, 6, 0), at(0, 13, 40), "succeeded",
                "manual re-run by okeane: rewrote 41.2M doc_revisions on rs-docs primary mongo-docs-0")
        else:
            add("revisions-compaction", "quill-prod", at(d, 3, 0), at(d, 3, 48), "succeeded",
                "rewrote 0.6M doc_revisions on rs-docs primary")
        add("billing-dunning", "quill-prod", at(d, 8, 0), at(d, 8, 3), "succeeded",
            f"{w.ri(20, 60)} reminders")
        for h in range(0, 24, 6):
            add("es-snapshot", "search", at(d, h, 30), at(d, h, 30 + w.ri(6, 14)), "succeeded",
                "snapshot of docs-v7 to s3 repository quill-es-snapshots")
        for h in range(24):
            st = at(d, h, 15)
            add("usage-rollup", "quill-prod", st, st + timedelta(seconds=w.ri(30, 90)), "succeeded",
                f"{w.ri(1800, 1950)} workspaces")
    add("weekly-digest", "quill-prod", at(2, 6, 0), at(2, 11, 31), "succeeded",
        "enqueued 1912400 digest emails to notify-events (batch_size 20000 since CFG-2301; was 5000) for "
        "1912 workspaces via Mailwave")
    add("reindex docs-v7->docs-v8 (manual)", "search", at(1, 10, 21), at(1, 11, 49), "cancelled",
        "reindex task Qx8WcN3kR0e2:8812044 by okeane; docs-v8 allocated 4 of 6 primaries on es-data-1")
    for i, ts in enumerate(every((at(2, 14, 12), KEYS[1]), 300)):
        end = ts + timedelta(minutes=9 + i % 3)
        add("presence-cleanup", "quill-prod", ts, min(end, at(2, 14, 57)),
            "failed" if end > at(2, 14, 57) else "succeeded",
            "KEYS presence:<workspace>:* then DEL for 1912 workspaces on redis-sess-0")
    rows.sort(key=lambda r: (r[3], r[0]))
    w.table("job_runs", ["run_id", "job", "namespace", "started_at", "finished_at", "status", "detail"],
            rows)

    slow = []
    sid = 71000
    for t in w.minutes():
        if w.r() < 0.03:
            sid += 1
            cmd = w.pick(
                [f"HGETALL sess:{w.hexid(16)}", "INFO all", f"SMEMBERS ws:members:ws_{w.ri(1000, 9999)}",
                 f"DEL presence:ws_{w.ri(1000, 9999)}:{w.doc()}"]
            )
            slow.append([sid, epoch(w.jit(t)), w.ri(10100, 24000), cmd,
                         f"10.20.6.{w.ri(10, 60)}:{w.ri(30000, 60000)}",
                         w.pick(["docs-api", "collab", "auth", "session-gc"])])
        if inside(t, KEYS):
            for _ in range(w.ri(1, 2)):
                sid += 1
                slow.append([sid, epoch(w.jit(t)), w.ri(3100000, 6800000),
                             f"KEYS presence:ws_{w.ri(1000, 9999)}:*", f"10.20.5.88:{w.ri(40000, 60000)}",
                             "presence-cleanup"])
    w.table("redis_slowlog", ["id", "ts", "duration_us", "command", "client_addr", "client_name"], slow)


# ---------------------------------------------------------------- runbooks

DOCS = {
    "oncall-overview": """# Quillpad on-call overview

Quillpad is a collaborative document editor sold to businesses; most users are in the UK and Ireland,
so traffic follows the UK working day (GMT in winter). Everything runs in EKS cluster eks-euw2
(eu-west-2), namespace quill-prod, except the data tier (namespace data) and search.

## Request path

Browsers reach CloudFront (the edge), which connects to the origin origin.quillpad.app: the nginx
ingress, which terminates TLS with the cert-manager certificate quill-prod/origin-tls. The ingress
routes /collab to collab (websockets), /api to docs-api, /export and /attachments to export, /sso to
auth and /billing and /webhooks/payflow to billing.

## Components

collab keeps live editing sessions and appends updates to MongoDB rs-docs (mongo-docs-0 is normally
primary). docs-api (Django) serves documents, comments, sharing and search; it keeps accounts and
workspaces in postgres pg-main-0 and sessions in redis-sess-0. The indexer reads docs-index-events from
SQS and bulk-indexes into the Elasticsearch index docs-v7. export renders PDFs with headless Chromium.
auth does SSO (Okta, Entra ID, Google). billing takes PayFlow webhooks. notify sends email through
Mailwave. billing-cdc streams billing tables from postgres through logical replication slot billing_cdc.

## Where to look

Deploys, config_changes, schema_migrations and job_runs are in the ops database; app_metrics is the
per-minute dashboard export (UK time), host_metrics the per-instance export (epoch seconds),
certificates the cert inventory, redis_slowlog the SLOWLOG GET dump. Kubernetes events (CronJobs,
cert-manager, node problems) are the k8s service.
""",
    "known-noise": """# Known noise (ignore unless something else is wrong)

These show up every day and are not incidents on their own.

## indexer

The indexer is always noisy: ERROR "document rejected by elasticsearch ... mapper_parsing_exception:
failed to parse field [meta.due]" (old templates with free-text due dates, retried from the DLQ), WARN
"document text exceeds 10485760 bytes; indexing title and metadata only" and the odd "sqs receive
failed, retrying". Only a stop of "bulk request completed" lines or a growing docs-index-events backlog
matters.

## collab, docs-api, auth

collab: "ping timeout, terminating socket" (laptops going to sleep) and "awareness update for unknown
client dropped". docs-api: "Not Found" for deleted documents and the odd CSRF warning. auth: "user not
assigned to the application" (customer IdP config) and bad_credentials.

## export, edge, notify, others

export: "external image timed out, rendering without it" and readiness probe failures when busy; the
edge shows a few 504 OriginReadTimeout on /export/pdf every hour (big exports). notify: hard-bounce
suppressions. billing: PayFlow API retries that succeed. postgres: duplicate key on
workspace_members_pkey (double-click on invite). cert-manager warnings need a look at the certificate
inventory.
""",
    "sso-idp-outage": """# SSO identity provider outage

Customers sign in through their own identity provider (Okta, Entra ID, Google Workspace).

## Symptoms

SSO logins fail for customers of one provider only; auth logs token exchange or metadata errors with
HTTP 5xx from the provider's domain (*.okta.com, login.microsoftonline.com); other providers and
password logins are fine.

## What to do

Check the provider's status page. If the provider is down there is nothing to fix on our side: post on
the status page, tell customer success, and wait for the provider to recover. Do not restart auth.
""",
    "search-cluster": """# Search cluster (Elasticsearch) health

Cluster quill-search: es-master-0..2, es-data-0..2, index docs-v7 (6 primaries, 1 replica).

## Disk watermarks

Low (85%): no new replicas on the node. High (90%): shards move away. Flood stage (95%):
Elasticsearch marks every index with a shard on that node read-only (index.blocks.read_only_allow_delete)
and writes fail with cluster_block_exception (429) while searches keep working. Free space (cancel a
reindex, delete a temporary index, add disk), then clear the block on docs-v7; the indexer retries and
drains the backlog by itself.

## Heap and GC

Long old-generation GCs and parent circuit breaker trips on one node point to an expensive query
pattern (deep paging, huge terms aggregations). Find it in the search slowlog (id[] is the API token)
and rate-limit the caller.
""",
    "mongo-storage": """# MongoDB rs-docs storage

rs-docs runs on gp2 EBS volumes (1 TB each, 3,000 baseline IOPS, bursting to higher rates on credits).

## Burst credits

A long heavy job on the primary (revisions-compaction, a resync) can spend the EBS burst balance; when
it reaches 0 the volume drops to baseline IOPS, disk await climbs from ~2 ms to tens of ms and every
query on the primary is slow (collab loads and persists, docs-api reads). Watch ebs_burst_balance_pct
and disk_await_ms in host_metrics.

## What to do

Step the primary down (rs.stepDown()) so a secondary with full credits takes over, and stop the heavy
job; longer term: gp3 with provisioned IOPS.
""",
}


# ---------------------------------------------------------------- truth


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


main = engine.main(NAME, world, __name__, DOCS)
