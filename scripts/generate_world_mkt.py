"""Write the held-out "mkt" world: a Brazilian food-delivery marketplace.

Three days (2026-05-11..13, Brasília time, UTC-03:00, America/Sao_Paulo, no DST) of logs from 14
components, the ops tables the marketplace's SRE on-call has (dependencies, deploys, config changes,
feature-flag audit, DNS records, schema migrations, cron/batch runs, per-minute and 5-minute metric
exports) and the runbooks, with 14 incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_mkt.py [OUT_DIR]   # writes OUT_DIR/mkt/ (default tests/data/worlds)

The platform ("Rango", AWS sa-east-1, Kubernetes namespace mkt-prod): the consumer app calls the
ingress-nginx **ingress** (api.rango.com.br), which routes to **consumer-api** (node), the
restaurant panel **merchant-portal** (PHP/Laravel) and the PSP webhooks (webhooks.rango.com.br).
consumer-api asks **catalog** (Go, menus and search), **pricing** (python; delivery fee, coupons,
promotions; asks **geo** for distances) and **orders** (Java/Spring, **mysql** mysql-orders primary
with the replica mysql-orders-ro) to check out; orders charges through **payments** (Java; PIX and
card via the external PSP CobraPay) and publishes order events on **rabbitmq**. **dispatch** (Go)
matches ready orders with couriers, reading the orders replica, courier positions in **redis**
(redis-geo) fed by **courier-location** (Go, GPS ping ingest) and routes from **geo** (python, the
geocoding/maps adapter in front of the GeoPonto maps API). **notifications** (node) sends push, SMS
(TorpedoSMS) and WhatsApp from rabbitmq queues, and runs the marketing push campaigns.
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
from worlds.engine import epoch_ms, inside, ms3, utc, zulu, zulu_ms  # noqa: E402

NAME, SEED = "mkt", 20260511
MKT_COMPONENTS = ("ingress consumer-api merchant-portal orders payments dispatch courier-location pricing "
                  "notifications catalog geo mysql redis rabbitmq").split()
MON = [*engine.MONTHS]
NS = "mkt-prod"
BRT = timezone(timedelta(hours=-3))
LOCAL = engine.Clock(BRT, datetime(2026, 5, 11, tzinfo=BRT))
DAY0, END = LOCAL.days(3)
at, lt, loc, wall = LOCAL.at, LOCAL.iso, LOCAL.loc, LOCAL.wall
wmin, clf = LOCAL.minute, LOCAL.clf




def brdate(t: datetime) -> str:
    """The way the Brazilian back office exports a time: 11/05/2026 19:05:00 (day first)."""
    return loc(t).strftime("%d/%m/%Y %H:%M:%S")


# the day's load: (hour, load), straight lines between
DAY_CURVE = [(0, 0.30), (1, 0.16), (3, 0.06), (5, 0.05), (7, 0.14), (9, 0.22), (10.5, 0.45), (11.5, 0.85),
           (12.5, 1.0), (13.5, 0.70), (15, 0.35), (17, 0.40), (18.5, 0.85), (19.5, 1.15), (20.5, 1.20),
           (21.5, 0.85), (23, 0.45), (24, 0.30)]


def load(t: datetime) -> float:
    """Delivery traffic in Brazil: a dead night, breakfast, a lunch peak and the bigger dinner peak."""
    return engine.interpolated(DAY_CURVE, LOCAL.hour(t), 0.3)


# ---------------------------------------------------------------------------------------------
# What goes wrong (local BRT times)
# ---------------------------------------------------------------------------------------------

FIN_EXPORT = (at(0, 11, 19, 48), at(0, 12, 19, 22))  # merchant-portal finance export, trx open
MDL = (at(0, 11, 41, 5), at(0, 12, 19, 40))  # MKT-01 ALTER TABLE orders waits on the metadata lock
EVICT = (at(0, 14, 58, 20), at(0, 15, 47, 50))  # MKT-02 redis-geo at maxmemory, alive keys evicted
FLAG_RJ = (at(0, 19, 2, 0), at(0, 19, 51, 30))  # MKT-03 catalog.menu_index_v2 targeted at RJ
COUPON = (at(0, 21, 0, 0), at(0, 23, 7, 0))  # MKT-04 pricing compares coupon dates in UTC
PAYOUT = [at(d, 2, 0, 5) for d in range(3)]  # nightly repasse batch (MKT-05 quiet)
DNS = (at(1, 8, 30, 0), at(1, 9, 23, 40))  # MKT-06 legacy webhook LB deleted, TTL 86400 cached
REPL = (at(1, 11, 8, 41), at(1, 12, 11, 30))  # MKT-07 replica SQL thread stopped on 1062
SMS = (at(1, 14, 12, 0), at(1, 15, 6, 0))  # MKT-08 SMS provider not delivering (external)
CAMPAIGN = (at(1, 19, 5, 0), at(1, 19, 55, 40))  # push campaign flooding notifications.push
RABBIT = (at(1, 19, 14, 22), at(1, 19, 58, 10))  # MKT-09 rabbitmq memory alarm, publishers blocked
GEO0 = (at(1, 22, 3, 10), at(1, 23, 18, 30))  # MKT-10 geo caching (0,0) answers from GeoPonto
GEO_SYMPTOM = (at(1, 22, 27, 0), at(1, 23, 40, 0))  # dispatch: orders placed then come ready
KEEPALIVE = (at(2, 10, 58, 10), at(2, 11, 58, 40))  # MKT-12 consumer-api 5.12.0 keepAlive=false
HEAP = (at(2, 14, 44, 0), at(2, 15, 34, 30))  # MKT-13 orders heap exhausted, full GC
POOL = (at(2, 19, 26, 0), at(2, 20, 22, 30))  # MKT-14 payments PSP pool leaked on 3DS errors


def frac(t: datetime, span: tuple[datetime, datetime], ramp_s: float = 240.0) -> float:
    """0 outside the span, ramping up to 1 over ``ramp_s`` seconds after it starts."""
    if not inside(t, span):
        return 0.0
    return min(1.0, (t - span[0]).total_seconds() / ramp_s)


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class World(engine.Dataset):
    always_attrs = True

    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.order_no = 8_812_000

    def b36(self, n: int) -> str:
        return self.code(n, "abcdefghjkmnpqrstuvwxyz23456789", "23456789")

    def order(self) -> str:
        return f"ord_{self.counter('order_no', 1, 9)}"

    merchant = partialmethod(engine.Dataset.numbered, "mer_", 10000, 48999)

    courier = partialmethod(engine.Dataset.tagged, "cr_", 8, "b36")
    user = partialmethod(engine.Dataset.tagged, "usr_", 9, "b36")
    cart = partialmethod(engine.Dataset.tagged, "crt_", 10, "b36")

    def ip(self) -> str:
        return f"{self.pick(ISP)}.{self.ri(1, 254)}.{self.ri(1, 254)}"

    def phone(self) -> str:
        return f"+55{self.pick(['11', '21', '31', '51', '81', '41', '11', '11'])}9****{self.ri(1000, 9999)}"


def world() -> tuple[World, dict, dict]:
    w = World()
    change_tables(w)
    w.roll_out(DEPLOYS, rollout)
    leaks = leak_times(w)
    for p, times in leaks.items():
        for t in times:
            pay(w, t, "WARN", "psp-callback-3", "c.r.p.card.ThreeDsService",
                f"3DS callback for {w.order()}: ACS returned error ACS_TIMEOUT, aborting",
                p=next(x for x in PODS["payments"] if x[0] == p))
    restart = at(2, 20, 22, 30)
    for t in w.minutes():
        leased = {p: (sum(1 for x in ts if x <= t) if t < restart else 0) for p, ts in leaks.items()}
        ingress_bg(w, t)
        consumer_api_bg(w, t)
        portal_bg(w, t)
        orders_bg(w, t)
        payments_bg(w, t, leased)
        if (t < at(2, 9, 41) or t >= restart) and w.r() < 0.03 * load(t) + 0.005:
            pay(w, w.jit(t), "WARN", "psp-callback-3", "c.r.p.card.ThreeDsService",
                f"3DS callback for {w.order()}: ACS returned error ACS_TIMEOUT, aborting")
        dispatch_bg(w, t)
        courier_bg(w, t)
        pricing_bg(w, t)
        notifications_bg(w, t)
        catalog_bg(w, t)
        geo_bg(w, t)
        mysql_bg(w, t)
        redis_bg(w, t)
        rabbit_bg(w, t)
        k8s_bg(w, t)
    for step in (inc_mdl, inc_repl, inc_rabbit, inc_misc):
        step(w)
    extra = campaigns(w) + payout(w)
    metrics(w)
    batch_runs(w, extra)
    return w, engine.manifest(NAME, "America/Sao_Paulo", "A Brazilian food-delivery marketplace",
                              "2026-05-11..13 Brasília time", 14, MKT_COMPONENTS, dayfirst=True), truth()

ISP = ["177.92", "189.6", "200.158", "179.218", "187.45", "191.177", "201.17", "186.220", "170.80",
       "138.97"]
REGIONS = ["SP", "SP", "SP", "SP", "RJ", "RJ", "BH", "POA", "CWB", "REC"]
UA = ["Rango/9.14.2 (iPhone; iOS 17.4.1; Scale/3.00)", "Rango/9.14.2 (iPhone; iOS 18.1; Scale/3.00)",
      "okhttp/4.12.0 Rango-Android/9.14.1 (SM-A546E; Android 14)",
      "okhttp/4.12.0 Rango-Android/9.13.0 (moto g54 5G; Android 13)",
      "okhttp/4.12.0 Rango-Android/9.14.1 (Redmi Note 13; Android 14)",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 "
      "Safari/537.36"]
MERCHANT_UA = (
    "Mozilla/5.0 (Linux; Android 11; SM-T225) AppleWebKit/537.36 Chrome/123.0 Safari/537.36 "
    "RangoParceiro/4.2"
)
PSP_UA = "CobraPay-Webhooks/2.3 (+https://developers.cobrapay.example)"
CEPS = [
    "01310-100", "04538-133", "05426-200", "22071-000", "20040-020", "30130-110", "90010-150", "80010-010",
    "50030-230", "04094-050", "01452-000", "22640-102", "05001-100", "03164-000",
]

# Pods (name, node) per service; the hash part is the ReplicaSet's.
PODS = {
    "ingress": [("ingress-nginx-controller-7c9d5b8f4-2xq7k", "ip-10-42-1-21"),
                ("ingress-nginx-controller-7c9d5b8f4-m8vzt", "ip-10-42-2-37"),
                ("ingress-nginx-controller-7c9d5b8f4-tr4pw", "ip-10-42-3-12")],
    "consumer-api": [(f"consumer-api-6f8d9c7b54-{s}", n)
                     for s, n in (
                         ("4hx2m", "ip-10-42-1-44"), ("9kq7s", "ip-10-42-2-18"), ("b2nvw", "ip-10-42-3-51"),
                         ("x7p3d", "ip-10-42-1-63"),
                     )],
    "merchant-portal": [(f"merchant-portal-5d7c9f6b8-{s}", n)
                        for s, n in (("k2v9q", "ip-10-42-2-77"), ("w8m3z", "ip-10-42-3-29"))],
    "orders": [
        (f"orders-84b6f7d9c-{s}", n)
        for s, n in (("5tqzr", "ip-10-42-1-80"), ("h6d2x", "ip-10-42-2-91"), ("p3w8n", "ip-10-42-3-66"))
    ],
    "payments": [
        (f"payments-7b5c8d9f6-{s}", n) for s, n in (("c4r7m", "ip-10-42-4-12"), ("v9x2k", "ip-10-42-4-27"))
    ],
    "dispatch": [
        (f"dispatch-69c7d8b5f-{s}", n) for s, n in (("j8n4t", "ip-10-42-1-90"), ("q2w6h", "ip-10-42-3-14"))
    ],
    "courier-location": [
        (f"courier-location-5c6f7b8d9-{s}", n)
        for s, n in (("d4k8p", "ip-10-42-2-40"), ("r7t2m", "ip-10-42-3-88"), ("z3x9v", "ip-10-42-1-15"))
    ],
    "pricing": [
        (f"pricing-7d8c9b6f5-{s}", n) for s, n in (("f5h2k", "ip-10-42-2-55"), ("n8q4w", "ip-10-42-3-73"))
    ],
    "notifications": [(f"notifications-6c9b8d7f5-{s}", n)
                      for s, n in (("g3m7x", "ip-10-42-1-37"), ("s6v2p", "ip-10-42-2-64"))],
    "catalog": [
        (f"catalog-58d7c6b9f-{s}", n) for s, n in (("a7k3r", "ip-10-42-1-52"), ("y4p8d", "ip-10-42-3-40"))
    ],
    "geo": [(f"geo-7f6d5c8b9-{s}", n) for s, n in (("e2w5n", "ip-10-42-2-23"), ("u8r3j", "ip-10-42-3-95"))],
    "mysql": [("mysql-orders-0", "ip-10-42-5-10"), ("mysql-orders-ro-0", "ip-10-42-5-31")],
    "redis": [("redis-geo-0", "ip-10-42-5-44"), ("redis-sessions-0", "ip-10-42-5-52"),
              ("redis-orders-0", "ip-10-42-5-60")],
    "rabbitmq": [
        ("rabbitmq-0", "ip-10-42-5-71"), ("rabbitmq-1", "ip-10-42-5-72"), ("rabbitmq-2", "ip-10-42-5-73"),
    ],
}
UPSTREAM_IP = {
    "consumer-api": ["10.42.1.144", "10.42.2.118", "10.42.3.151", "10.42.1.163"],
    "merchant-portal": ["10.42.2.177", "10.42.3.129"], "payments": ["10.42.4.112", "10.42.4.127"],
}


def pod(w: World, service: str) -> tuple[str, str]:
    return w.pick(PODS[service])


def attrs_of(w: World, service: str, t: datetime, p: tuple[str, str] | None = None, **more: str) -> dict:
    name, node = p or pod(w, service)
    a = {"pod": name, "namespace": NS, "node": node}
    v = version(service, t)
    if v:
        a["version"] = v
    a.update(more)
    return a


# ---------------------------------------------------------------------------------------------
# Changes: deploys, config, flags, DNS, migrations, dependencies
# ---------------------------------------------------------------------------------------------

# (id, service, version, started (BRT), seconds, status, by, summary)
DEPLOYS = engine.table(at, "ssstisss", """
DEP-7288 | courier-location | 3.4.0 | -1 15:02 | 240 | Succeeded | argocd | keep the last 50 positions per
    courier as a trail (support tooling)
DEP-7289 | payments | 6.3.1 | -1 17:30 | 300 | Succeeded | argocd | PIX QR copy-and-paste payload v2
DEP-7290 | catalog | 3.9.0 | 0 09:31 | 260 | Succeeded | argocd | menus-v2 index writer (behind
    catalog.menu_index_v2)
DEP-7291 | orders | 9.3.0 | 0 11:40:20 | 2400 | Succeeded | argocd | delivery window fields for scheduled
    orders (flyway V212)
DEP-7292 | pricing | 7.8.0 | 0 18:50:10 | 210 | Succeeded | argocd | free-delivery banner rules
DEP-7293 | pricing | 7.8.1 | 0 23:02:30 | 200 | Succeeded | l.figueiredo | hotfix: coupon validity evaluated
    in America/Sao_Paulo
DEP-7294 | dispatch | 2.17.0 | 1 10:20 | 220 | Succeeded | argocd | offer ranking: prefer couriers heading
    back
DEP-7295 | merchant-portal | 2026.05.12-1 | 1 10:41 | 300 | Succeeded | argocd | opening-hours editor;
    Laravel 10.48.10
DEP-7296 | notifications | 4.21.0 | 1 14:05 | 240 | Succeeded | argocd | new WhatsApp order-status
    templates; OTP SMS copy in pt-BR
DEP-7297 | orders | 9.4.0 | 1 16:05 | 360 | Succeeded | argocd | merchant menu snapshot for order validation
DEP-7298 | geo | 1.21.1 | 1 23:14 | 180 | Succeeded | r.nakamura | hotfix: do not cache provider answers at
    (0,0); cache flushed
DEP-7299 | geo | 1.22.0 | 2 08:15 | 200 | Succeeded | argocd | validate GeoPonto answers (inside Brazil
    bounding box)
DEP-7300 | payments | 6.3.2 | 2 09:41 | 300 | Succeeded | argocd | PSP client: log acquirer return codes
DEP-7301 | consumer-api | 5.12.0 | 2 10:55:30 | 240 | Succeeded | argocd | undici 6 http client for internal
    calls; new pricing client
DEP-7302 | consumer-api | 5.11.3 | 2 11:56 | 180 | Succeeded | b.moreira | rollback of 5.12.0
DEP-7303 | orders | 9.4.0 | 2 15:31 | 200 | Succeeded | m.alves | rollout restart (heap)
DEP-7304 | orders | 9.4.1 | 2 17:40 | 360 | Succeeded | argocd | bound the menu snapshot cache (max 5k
    merchants)
DEP-7305 | payments | 6.3.3 | 2 20:18:30 | 260 | Succeeded | c.souza | hotfix: release PSP connection on 3DS
    callback error path
""")
BASE_VERSION = {
    "consumer-api": "5.11.3", "merchant-portal": "2026.05.06-2", "orders": "9.2.4", "payments": "6.3.0",
    "dispatch": "2.16.3", "courier-location": "3.3.2", "pricing": "7.7.4", "notifications": "4.20.1",
    "catalog": "3.8.2", "geo": "1.21.0", "ingress": "1.10.1",
}


def version(service: str, t: datetime) -> str:
    return engine.deployed(BASE_VERSION.get(service, ""), DEPLOYS, service, t, 0.5)  # half-way through


# (id, service, key, from, to, author, applied (BRT), ticket, summary)
CONFIG = engine.table(at, "sssssstss", """
CHG-4398 | ingress | proxy-body-size | 8m | 16m | j.prado | 0 08:10 | OPS-1402 | bigger menu photo uploads
    from the merchant portal
CHG-4399 | consumer-api | HOME_RAIL_LIMIT | 12 | 16 | a.costa | 0 10:05 | APP-771 | more restaurants on home
CHG-4400 | dispatch | offer.timeout_s | 45 | 40 | p.ribeiro | 0 14:40 | DSP-330 | shorter courier offer
    timeout at lunch
CHG-4401 | redis | redis-geo maxmemory | 2gb | 4gb | j.prado | 0 15:46:30 | OPS-1407 | redis-geo at
    maxmemory, allkeys-lru evicting courier keys
CHG-4402 | pricing | fee.small_order.threshold_brl | 20.00 | 25.00 | l.figueiredo | 0 20:30 | PRC-512 | small
    order fee threshold
CHG-4403 | ingress | dns webhooks.rango.com.br | lb-legacy-webhooks-1927.sa-east-1.elb.amazonaws.com |
    k8s-ingress-nlb-7731a2.elb.sa-east-1.amazonaws.com | j.prado | 1 07:55 | OPS-1411 | move PSP webhooks to
    the ingress NLB (record TTL 86400)
CHG-4404 | ingress | elb lb-legacy-webhooks-1927 | active | deleted | j.prado | 1 08:30 | OPS-1411 |
    decommission the legacy webhooks ELB
CHG-4405 | ingress | elb lb-legacy-webhooks-1927 | deleted | recreated (forwards to ingress NLB) | d.lima | 1
    09:23 | INC-2207 | bring the legacy webhooks address back until resolvers expire the old record
CHG-4406 | notifications | campaign.enqueue_rate_per_s | 2000 | 0 (unlimited) | marketing-ops | 1 18:40 |
    MKTG-88 | finish the Tuesday dinner push before 19:30
CHG-4407 | rabbitmq | policy notifications.push max-length | none | 200000 (reject-publish) | d.lima | 1
    20:04 | INC-2209 | cap the campaign queue; memory alarm
CHG-4408 | dispatch | route.max_km | 25 | 30 | p.ribeiro | 1 22:35 | INC-2210 | routes being refused, try a
    longer max
CHG-4409 | geo | cache FLUSH geocode:* | - | flushed | r.nakamura | 1 23:16 | INC-2210 | flush geocode cache
    (bad coordinates)
CHG-4410 | pricing | fee.surge.max_multiplier | 1.8 | 2.0 | l.figueiredo | 2 09:00 | PRC-519 | rain surge cap
CHG-4411 | catalog | search.synonyms | v41 | v42 | t.carvalho | 2 13:20 | CAT-890 | açaí/acai synonyms
CHG-4412 | payments | psp.pix.qr_expiry_s | 900 | 1200 | c.souza | 2 19:02 | PAY-644 | longer PIX QR expiry
    at dinner
""")

# (flag, from, to, rule, pct, by, at (BRT), comment)
FLAGS = engine.table(at, "ssssists", """
consumer-api.checkout.new_tip_screen | off | on | all | 10 | a.costa | 0 10:00 | APP-760 experiment
catalog.menu_index_v2 | off | on | region in [RJ] | 100 | t.carvalho | 0 19:02 | CAT-882 piloto BH 100%
catalog.menu_index_v2 | on | off | region in [RJ] | 0 | t.carvalho | 0 19:51:30 | revert: rule targeted RJ,
    pilot is BH (menus-v2 only has BH merchants)
dispatch.batching_v2 | off | on | region in [BH] | 50 | p.ribeiro | 1 16:00 | DSP-322
catalog.menu_index_v2 | off | on | region in [BH] | 100 | t.carvalho | 1 10:30 | CAT-882 piloto BH (retry)
pricing.dynamic_fee_v3 | off | on | region in [SP] | 20 | l.figueiredo | 2 08:00 | PRC-500
payments.pix_automatico | off | on | all | 5 | c.souza | 2 13:00 | PAY-630
""")

DNS_RECORDS = [
    (
        "api.rango.com.br", "CNAME", "k8s-ingress-nlb-7731a2.elb.sa-east-1.amazonaws.com", 60,
        "a8c1-ingress-old.elb.sa-east-1.amazonaws.com", at(-20, 10, 0), "j.prado", "OPS-1350",
    ),
    (
        "parceiro.rango.com.br", "CNAME", "k8s-ingress-nlb-7731a2.elb.sa-east-1.amazonaws.com", 300,
        "a8c1-ingress-old.elb.sa-east-1.amazonaws.com", at(-20, 10, 5), "j.prado", "OPS-1350",
    ),
    (
        "img.rango.com.br", "CNAME", "d3k9x2m1p7.cloudfront.net", 3600, "", at(-90, 9, 0), "j.prado",
        "OPS-1011",
    ),
    (
        "webhooks.rango.com.br", "CNAME", "k8s-ingress-nlb-7731a2.elb.sa-east-1.amazonaws.com", 86400,
        "lb-legacy-webhooks-1927.sa-east-1.elb.amazonaws.com", at(1, 7, 55), "j.prado", "OPS-1411",
    ),
    (
        "mysql-orders.db.rango.internal", "CNAME", "mysql-orders-0.mysql.mkt-prod.svc.cluster.local", 30,
        "", at(-60, 14, 0), "dba", "DBA-201",
    ),
    (
        "mysql-orders-ro.db.rango.internal", "CNAME", "mysql-orders-ro-0.mysql.mkt-prod.svc.cluster.local",
        30, "", at(-60, 14, 0), "dba", "DBA-201",
    ),
    (
        "status.rango.com.br", "CNAME", "rango.statuspage.example", 300, "", at(-120, 9, 0), "j.prado",
        "OPS-900",
    ),
    ("links.rango.com.br", "A", "18.231.44.17", 300, "18.231.40.2", at(2, 13, 45), "a.costa", "APP-780"),
]

# (rank, version, description, script, by, installed_on, ms, success, schema)
MIGRATIONS = engine.table(at, "isssstiis", """
209 | 209 | payments pix end to end id | V209__payments_pix_e2e_id.sql | flyway_orders | -9 10:02:11 | 812 |
    1 | orders
210 | 210 | order items notes length | V210__order_items_notes_length.sql | flyway_orders | -6 14:30:40 |
    40210 | 1 | orders
211 | 211 | courier tips table | V211__courier_tips.sql | flyway_orders | -2 16:01:09 | 301 | 1 | orders
212 | 212 | orders add delivery window | V212__orders_add_delivery_window.sql | flyway_orders | 0 12:19:41 |
    2316402 | 1 | orders
213 | 213 | order status history created idx | V213__order_status_history_created_idx.sql | flyway_orders | 1
    16:06:30 | 18220 | 1 | orders
""")
V212 = (
    "ALTER TABLE `orders` ADD COLUMN `delivery_window_start` DATETIME NULL, ADD COLUMN "
    "`delivery_window_end` DATETIME NULL, ALGORITHM=INPLACE, LOCK=NONE"
)

DEPENDENCIES = engine.rows("""
    app | ingress | https | api.rango.com.br:443 (ingress-nginx, NLB k8s-ingress-nlb-7731a2)
    merchant tablets | ingress | https | parceiro.rango.com.br:443
    CobraPay (PSP) | ingress | https | webhooks.rango.com.br:443 (PIX and card webhooks)
    ingress | consumer-api | http | consumer-api.mkt-prod.svc:3000
    ingress | merchant-portal | http | merchant-portal.mkt-prod.svc:8080 (php-fpm behind nginx)
    ingress | payments | http | payments.mkt-prod.svc:8080 (/webhooks/psp/*)
    consumer-api | catalog | http | catalog.mkt-prod.svc:8080
    consumer-api | pricing | http | pricing.mkt-prod.svc:8080 (cart quote, coupons)
    consumer-api | orders | http | orders.mkt-prod.svc:8080
    consumer-api | geo | http | geo.mkt-prod.svc:8000 (address autocomplete)
    consumer-api | redis | redis | redis-sessions.mkt-prod.svc:6379
    merchant-portal | orders | http | orders.mkt-prod.svc:8080 (/internal/orders/*)
    merchant-portal | mysql | mysql | mysql-orders.db.rango.internal:3306 (portal_ro, reports)
    merchant-portal | catalog | http | catalog.mkt-prod.svc:8080 (menu sync)
    orders | mysql | mysql | mysql-orders.db.rango.internal:3306 (primary)
    orders | payments | http | payments.mkt-prod.svc:8080
    orders | pricing | http | pricing.mkt-prod.svc:8080 (re-quote)
    orders | rabbitmq | amqp | rabbitmq.mkt-prod.svc:5672 (exchange orders.events)
    orders | redis | redis | redis-orders.mkt-prod.svc:6379 (idempotency keys)
    payments | CobraPay (PSP) | https | api.cobrapay.example:443 (PIX, cards, 3DS)
    payments | mysql | mysql | mysql-orders.db.rango.internal:3306 (payments schema)
    pricing | geo | http | geo.mkt-prod.svc:8000 (distance matrix)
    pricing | redis | redis | redis-orders.mkt-prod.svc:6379 (coupon counters)
    dispatch | mysql | mysql | mysql-orders-ro.db.rango.internal:3306 (replica, order details)
    dispatch | redis | redis | redis-geo.mkt-prod.svc:6379 (courier positions, courier:alive:*)
    dispatch | geo | http | geo.mkt-prod.svc:8000 (geocode drop-off, routes)
    dispatch | rabbitmq | amqp | rabbitmq.mkt-prod.svc:5672 (queue dispatch.order-ready)
    courier-location | redis | redis | redis-geo.mkt-prod.svc:6379 (GEOADD couriers:geo:*)
    courier-location | rabbitmq | amqp | rabbitmq.mkt-prod.svc:5672 (exchange courier.events)
    notifications | rabbitmq | amqp | rabbitmq.mkt-prod.svc:5672 (queues notifications.*)
    notifications | TorpedoSMS (SMS provider) | https | api.torpedosms.example:443
    notifications | Meta WhatsApp Cloud API | https | graph.facebook.com:443
    notifications | FCM / APNs | https | fcm.googleapis.com:443, api.push.apple.com:443
    geo | GeoPonto (maps API) | https | api.geoponto.example:443 (geocode, distance matrix)
    geo | redis | redis | redis-orders.mkt-prod.svc:6379 (geocode:* cache, ttl 86400)
    catalog | opensearch | https | search-rango-menus.sa-east-1.es.amazonaws.com:443 (menus, menus-v2)
""")


def change_tables(w: World) -> None:
    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"),
            [[d, s, v, f"123456789012.dkr.ecr.sa-east-1.amazonaws.com/rango/{s}:{v}", zulu(t0),
              zulu(t0 + timedelta(seconds=dur)), st, by, summ]
             for d, s, v, t0, dur, st, by, summ in DEPLOYS])
    w.table("config_changes", engine.columns("CONFIG_SUMMARY"),
            [[c, s, k, a, b, who, loc(t).isoformat(timespec="seconds"), tk, summ]
             for c, s, k, a, b, who, t, tk, summ in CONFIG])
    w.table("feature_flags",
            ["flag_key", "environment", "from_state", "to_state", "targeting_rule", "rollout_pct",
             "changed_by", "changed_at", "comment"],
            [[f, "production", a, b, rule, pct, who, zulu(t), cm]
             for f, a, b, rule, pct, who, t, cm in sorted(FLAGS, key=lambda x: x[6])])
    w.table(
        "dns_records",
        ["record_name", "type", "value", "ttl_s", "previous_value", "updated_at", "updated_by", "ticket"],
        [[n, ty, v, ttl, prev, zulu(t), who, tk] for n, ty, v, ttl, prev, t, who, tk in DNS_RECORDS],
    )
    w.table("schema_migrations", engine.columns("FLYWAY_SCHEMA"),
            [[r, v, d, sc, by, wall(t), ms, ok, sch] for r, v, d, sc, by, t, ms, ok, sch in MIGRATIONS])
    w.table("dependencies", engine.columns("DEPENDENCIES_VIA"), [list(d) for d in DEPENDENCIES])


# ---------------------------------------------------------------------------------------------
# Log formats
# ---------------------------------------------------------------------------------------------


def level_of(status: int) -> str:
    return "ERROR" if status >= 500 else "WARN" if status >= 400 else "INFO"


def ingress(w: World, t: datetime, method: str, path: str, status: int, upstream: str, rt: float,
            ua: str | None = None, client: str | None = None, size: int | None = None) -> None:
    p = pod(w, "ingress")
    port = {"consumer-api": 3000}.get(upstream, 8080)
    addr = w.pick(UPSTREAM_IP.get(upstream, ["10.42.1.10"]))
    size = size if size is not None else (w.ri(180, 9000) if status < 400 else w.ri(60, 240))
    urt = "-" if status == 499 else f"{max(0.001, rt - 0.001):.3f}"
    ustatus = "-" if status == 499 else str(status)
    msg = (
        f'{client or w.ip()} - - [{clf(t)}] "{method} {path} HTTP/2.0" {status} {size} "-" '
        f'"{ua or w.pick(UA)}" {w.ri(40, 900)} {rt:.3f} [{NS}-{upstream}-{port}] [] {addr}:{port} {size} '
        f"{urt} {ustatus} {w.hexid(32)}"
    )
    w.emit(t, "ingress", level_of(status), msg, pod=p[0], namespace="ingress-nginx", node=p[1],
           upstream=upstream, status=str(status))


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}


def capi(w: World, t: datetime, level: str, msg: str, p=None, **extra) -> None:
    p = p or pod(w, "consumer-api")
    body = {"level": PINO[level], "time": epoch_ms(t), "pid": 1, "hostname": p[0]}
    body.update(extra)
    body["msg"] = msg
    w.emit(t, "consumer-api", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "consumer-api", t, p))


LARAVEL = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def portal(w: World, t: datetime, level: str, msg: str, ctx: dict | None = None, p=None, **more) -> None:
    c = json.dumps(ctx or {}, ensure_ascii=False, separators=(",", ":")) if ctx else "[]"
    w.emit(t, "merchant-portal", level, f"[{wall(t)}] production.{LARAVEL[level]}: {msg} {c}",
           **attrs_of(w, "merchant-portal", t, p, **more))


def spring(t: datetime, level: str, app: str, thread: str, logger: str, msg: str) -> str:
    lt = loc(t)
    return (
        f"{lt.strftime('%Y-%m-%dT%H:%M:%S')}.{ms3(lt)}-03:00 {level:>5} 1 --- [{app}] "
        f"[{thread[-15:]:>15}] {logger:<40} : {msg}"
    )


def orders_log(w: World, t: datetime, level: str, thread: str, logger: str, msg: str, p=None) -> None:
    w.emit(t, "orders", level, spring(t, level, "orders", thread, logger, msg),
           **attrs_of(w, "orders", t, p))


def pay(w: World, t: datetime, level: str, thread: str, logger: str, msg: str, p=None) -> None:
    u = utc(t)
    trace = w.hexid(16)
    line = (
        f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{ms3(u)} {level:<5} "
        f"[payments,{trace},{trace[:8]}{w.hexid(8)}] 1 --- "
        f"[{thread}] {logger} : {msg}"
    )
    w.emit(t, "payments", level, line, **attrs_of(w, "payments", t, p, trace_id=trace))


def zap(w: World, t: datetime, level: str, caller: str, msg: str, p=None, **kv) -> None:
    body = {"level": level.lower(), "ts": zulu_ms(t), "caller": caller, "msg": msg}
    body.update(kv)
    w.emit(t, "dispatch", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "dispatch", t, p))


def logfmt_val(v) -> str:
    s = str(v)
    return f'"{s}"' if (" " in s or "=" in s or s == "") else s


def cloc(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    parts = [f"ts={zulu_ms(t)}", f"level={level.lower()}", f"caller={caller}", f"msg={logfmt_val(msg)}"]
    parts += [f"{k}={logfmt_val(v)}" for k, v in kv.items()]
    w.emit(t, "courier-location", level, " ".join(parts), **attrs_of(w, "courier-location", t))


PYLEVEL = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}


def pricing(w: World, t: datetime, level: str, logger: str, msg: str) -> None:
    lt = loc(t)
    w.emit(t, "pricing", level,
           f"{lt.strftime('%Y-%m-%d %H:%M:%S')},{ms3(lt)} {PYLEVEL[level]} [{logger}] {msg}",
           **attrs_of(w, "pricing", t))


def notif(w: World, t: datetime, level: str, msg: str, **extra) -> None:
    body = {"level": level.lower().replace("warn", "warn"), "message": msg, "service": "notifications"}
    body.update(extra)
    body["timestamp"] = zulu_ms(t)
    w.emit(t, "notifications", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "notifications", t))


def catalog(w: World, t: datetime, level: str, msg: str, **kv) -> None:
    lt = loc(t)
    body = {"time": lt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{lt.microsecond:06d}-03:00", "level": level,
            "msg": msg}
    body.update(kv)
    w.emit(t, "catalog", level, json.dumps(body, ensure_ascii=False, separators=(",", ":")),
           **attrs_of(w, "catalog", t))


def geo(w: World, t: datetime, level: str, msg: str, worker: int | None = None) -> None:
    u = utc(t)
    lv = PYLEVEL[level]
    w.emit(t, "geo", level,
           f"[{u.strftime('%Y-%m-%d %H:%M:%S')} +0000] [{worker or w.ri(11, 18)}] [{lv}] {msg}",
           **attrs_of(w, "geo", t))


def geo_access(w: World, t: datetime, client: str, path: str, status: int = 200) -> None:
    reason = {200: "OK", 404: "Not Found", 422: "Unprocessable Entity", 503: "Service Unavailable"}[status]
    w.emit(t, "geo", level_of(status),
           f'INFO:     {client}:{w.ri(32768, 60999)} - "GET {path} HTTP/1.1" {status} {reason}',
           **attrs_of(w, "geo", t, stream="access"))


MYSQL_LV = {"INFO": "Note", "WARN": "Warning", "ERROR": "ERROR", "FATAL": "ERROR"}


def mysql(w: World, t: datetime, level: str, thread: int, code: str, sub: str, msg: str,
          host: str = "mysql-orders-0", **more) -> None:
    u = utc(t)
    lv = "System" if sub.startswith("!") else MYSQL_LV[level]
    sub = sub.lstrip("!")
    line = f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{u.microsecond:06d}Z {thread} [{lv}] [{code}] [{sub}] {msg}"
    node = dict(PODS["mysql"])[host]
    more.setdefault("container", "mysqld")
    w.emit(t, "mysql", level, line, pod=host, namespace=NS, node=node, **more)


def mysql_watch(w: World, t: datetime, level: str, msg: str, host: str = "mysql-orders-0") -> None:
    u = utc(t)
    node = dict(PODS["mysql"])[host]
    w.emit(t, "mysql", level, f"{u.strftime('%Y-%m-%dT%H:%M:%SZ')} mdl-watch[{host}]: {msg}", pod=host,
           namespace=NS, node=node, container="mdl-watch")


def redis(
    w: World, t: datetime, inst: str, mark: str, msg: str, level: str = "INFO", role: str = "M", pid: int = 1
) -> None:
    u = utc(t)
    node = dict(PODS["redis"])[inst]
    w.emit(t, "redis", level,
           f"{pid}:{role} {u.day:02d} {MON[u.month - 1]} {u.year} {u.strftime('%H:%M:%S')}.{ms3(u)} {mark} "
           f"{msg}", pod=inst, namespace=NS, node=node)


def rabbit(
    w: World, t: datetime, level: str, msg: str, node_name: str = "rabbitmq-0", proc: str | None = None
) -> None:
    u = utc(t)
    lv = {"INFO": "info", "WARN": "warning", "ERROR": "error", "FATAL": "critical"}[level]
    node = dict(PODS["rabbitmq"])[node_name]
    w.emit(t, "rabbitmq", level,
           f"{u.strftime('%Y-%m-%d %H:%M:%S')}.{u.microsecond:06d}+00:00 [{lv}] {proc or w.erl()} {msg}",
           pod=node_name, namespace=NS, node=node)


def k8s(w: World, t: datetime, service: str, level: str, reason: str, msg: str, kind: str, obj: str,
        count: int = 1) -> None:
    w.emit(
        t, service, level, f"{reason}: {msg}", reason=reason, object_kind=kind, object_name=obj,
        namespace=NS, count=str(count), component="kubelet" if kind == "Pod" else "deployment-controller",
        source="k8s-events",
    )


def erl(self: World) -> str:
    return f"<0.{self.ri(300, 48000)}.0>"


World.erl = erl  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# Background traffic, minute by minute, with what the incidents do to it
# ---------------------------------------------------------------------------------------------

COUPONS = ["PRIMEIRA10", "FRETEGRATIS-SP", "SEGUNDOU15", "PIZZA20", "JANTAR20", "ALMOCO12"]
BG = 0.42  # background volume (access logs and app chatter are sampled)
SEARCH_Q = [
    "pizza", "hamburguer", "açaí", "sushi", "marmita", "pastel", "esfiha", "poke", "churrasco", "padaria",
]


def geo_broken(t: datetime) -> bool:
    return inside(t, GEO0)


def ingress_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (3.2 * L + 0.4))):
        tt = w.jit(t)
        r = w.r()
        if r < 0.22:
            path, up, rt = (
                f"/v1/home?lat=-23.{w.ri(4000, 7000)}&lng=-46.{w.ri(5000, 7500)}", "consumer-api", 0.07,
            )
            method = "GET"
        elif r < 0.40:
            path, up, rt, method = f"/v1/merchants/{w.merchant()}/menu", "consumer-api", 0.05, "GET"
        elif r < 0.50:
            path, up, rt, method = (
                f"/v1/search?q={w.pick(['pizza', 'sushi', 'acai', 'lanche', 'marmita'])}&page=1",
                "consumer-api", 0.09, "GET",
            )
        elif r < 0.62:
            path, up, rt, method = "/v1/cart/quote", "consumer-api", 0.12, "POST"
        elif r < 0.70:
            path, up, rt, method = "/v1/checkout", "consumer-api", 0.34, "POST"
        elif r < 0.80:
            path, up, rt, method = f"/v1/orders/{w.order()}/tracking", "consumer-api", 0.03, "GET"
        elif r < 0.84:
            path, up, rt, method = "/v1/auth/otp", "consumer-api", 0.21, "POST"
        elif r < 0.93:
            path, up, rt, method = "/api/v2/pedidos?status=novo", "merchant-portal", 0.05, "GET"
        elif r < 0.96:
            path, up, rt, method = f"/api/v2/pedidos/{w.order()}/aceitar", "merchant-portal", 0.14, "POST"
        else:
            path, up, rt, method = "/webhooks/psp/pix", "payments", 0.02, "POST"
        status = 200
        ua = client = None
        rt = rt * (0.6 + w.r())
        if up == "merchant-portal":
            ua = MERCHANT_UA
        if up == "payments":
            if inside(tt, DNS):  # the PSP still resolves the deleted legacy ELB: nothing arrives here
                continue
            ua, client = PSP_UA, f"34.95.{w.ri(128, 131)}.{w.ri(2, 250)}"
        b = w.r()
        if path == "/v1/checkout" and inside(tt, MDL) and tt >= MDL[0] + timedelta(minutes=2):
            status, rt = (504, 30.0 + w.r()) if b < 0.7 else (503, 10.0 + w.r())
        elif path == "/v1/checkout" and inside(tt, RABBIT) and b < 0.85:
            status, rt = 503, 5.0 + w.r()
        elif path == "/v1/checkout" and inside(tt, POOL) and b < 0.45:
            status, rt = 503, 3.1 + w.r()
        elif path == "/v1/checkout" and inside(tt, HEAP) and b < 0.3:
            status, rt = 504, 10.0 + w.r()
        elif path.endswith("/tracking") and inside(tt, MDL) and b < 0.5:
            status, rt = 504, 30.0
        elif up == "merchant-portal" and inside(tt, MDL) and b < 0.6:
            status, rt = 500, 5.0 + w.r()
        elif path.endswith("/aceitar") and inside(tt, HEAP) and b < 0.85:
            status, rt = 504, 5.0 + w.r()
        elif path.endswith("/menu") and inside(tt, FLAG_RJ) and b < 0.2:
            status = 404
        elif path == "/v1/cart/quote" and inside(tt, COUPON) and b < 0.18:
            status = 422
        elif path == "/v1/cart/quote" and inside(tt, KEEPALIVE) and b < 0.6 * frac(tt, KEEPALIVE, 600):
            status, rt = 503, 0.004 + w.r() * 0.01
        elif b < 0.012:
            status, rt = 499, rt * 8
        elif b < 0.03 and up == "consumer-api":
            status = 401
        elif b < 0.038:
            status = 404
        elif b < 0.0405:
            status, rt = w.pick([502, 503]), 0.002
        ingress(w, tt, method, path, status, up, rt, ua, client)


def consumer_api_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.4 * L + 0.2))):
        tt = w.jit(t)
        r = w.r()
        if r < 0.55:
            url = w.pick(
                ["/v1/home", "/v1/cart/quote", "/v1/checkout", f"/v1/merchants/{w.merchant()}/menu",
                 "/v1/search"]
            )
            method = "POST" if url in ("/v1/cart/quote", "/v1/checkout") else "GET"
            capi(w, tt, "INFO", "request completed", req={"id": w.hexid(12), "method": method, "url": url},
                 res={"statusCode": 200}, responseTime=w.ri(18, 420))
        elif r < 0.70:
            capi(w, tt, "WARN", f"upstream catalog slow ({w.ri(700, 1400)}ms), serving cached home rail",
                 region=w.pick(REGIONS))
        elif r < 0.80:
            capi(w, tt, "INFO", f"access token expired for {w.user()}, answering 401")
        elif r < 0.86:
            capi(
                w, tt, "WARN", "geo autocomplete rate limited, returning cached suggestions", cep=w.pick(CEPS)
            )
        elif r < 0.90:
            capi(w, tt, "INFO", f"otp sent to {w.phone()} via sms", provider="torpedosms")
    if w.r() < 0.025:
        capi(w, w.jit(t), "ERROR",
             "unhandled rejection in tip screen: TypeError: Cannot read properties of undefined (reading "
             "'amount')",
             err={"type": "TypeError",
                  "stack": "TypeError: Cannot read properties of undefined (reading 'amount')\n    at "
                  "tipSummary (/app/dist/checkout/tips.js:41:27)"})
    # incidents
    if inside(t, MDL) and t >= MDL[0] + timedelta(minutes=2):
        for _ in range(w.count(2.2 * L)):
            capi(w, w.jit(t), "ERROR",
                 f"checkout failed for {w.cart()}: orders POST /orders timed out after 10000ms",
                 err={"type": "TimeoutError", "code": "UND_ERR_HEADERS_TIMEOUT"})
    if inside(t, RABBIT):
        for _ in range(w.count(2.0 * L)):
            capi(w, w.jit(t), "ERROR",
                 f"checkout failed for {w.cart()}: orders answered 503 ORDER_EVENTS_UNAVAILABLE")
    if inside(t, FLAG_RJ):
        for _ in range(w.count(1.2 * L)):
            capi(w, w.jit(t), "WARN", f"catalog answered 404 MENU_NOT_FOUND for {w.merchant()}",
                 region="RJ")
    if inside(t, COUPON):
        for _ in range(w.count(1.0 * L)):
            capi(w, w.jit(t), "INFO",
                 f"quote for {w.cart()}: coupon JANTAR20 rejected by pricing (COUPON_EXPIRED)")
    if inside(t, KEEPALIVE):
        f = frac(t, KEEPALIVE, 600)
        for _ in range(w.count(3.0 * L * f)):
            capi(
                w, w.jit(t), "ERROR",
                f"quote failed for {w.cart()}: connect EADDRNOTAVAIL 10.43.12.7:8080 - Local (0.0.0.0:0)",
                err={
                    "type": "Error", "code": "EADDRNOTAVAIL", "syscall": "connect", "address": "10.43.12.7",
                    "port": 8080,
                },
            )
        if t.minute % 5 == 0:
            for p in PODS["consumer-api"]:
                capi(w, w.jit(t, 10), "WARN",
                     f"socket stats: {int(9000 + 19000 * f) + w.ri(0, 300)} sockets in TIME_WAIT, "
                     f"ephemeral ports 32768-60999 in use {int(8000 + 19900 * f)}/28232", p=p)
    if inside(t, HEAP):
        for _ in range(w.count(0.8 * L)):
            capi(w, w.jit(t), "WARN", f"orders slow: GET /orders/{w.order()} took {w.ri(4000, 11000)}ms")
    if inside(t, POOL):
        for _ in range(w.count(1.4 * L)):
            capi(w, w.jit(t), "ERROR",
                 f"checkout failed for {w.cart()}: payments answered 503 PSP_UNAVAILABLE (card)")
    if inside(t, SMS):
        for _ in range(w.count(1.5 * L)):
            capi(w, w.jit(t), "INFO", f"otp resend requested by {w.phone()} (attempt {w.ri(2, 4)})")


def portal_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (0.9 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        if r < 0.5:
            o, m = w.order(), w.merchant()
            portal(w, tt, "INFO", f"Pedido {o} aceito pela loja {m}",
                   {"user_id": w.ri(1000, 90000), "tempo_aceite_s": w.ri(8, 160)})
        elif r < 0.8:
            portal(w, tt, "WARN",
                   "Deprecated: Creation of dynamic property App\\Support\\Legacy\\Cardapio::$itens is "
                   "deprecated in /var/www/app/Support/Legacy/Cardapio.php on line 88")
        else:
            portal(w, tt, "WARN",
                   "Job App\\Jobs\\SyncMenuToCatalog failed, releasing back onto queue (attempt "
                   f"{w.ri(1, 3)}/5)", {"merchant_id": w.ri(10000, 48999)})
    if w.r() < 0.03:
        portal(w, w.jit(t), "ERROR",
               f"Unable to generate thumbnail for upload upl_{w.b36(8)}: unsupported image type image/heic",
               {"exception": "[object] (Intervention\\Image\\Exception\\NotSupportedException(code: 0))"})
    if inside(t, MDL) and t >= MDL[0] + timedelta(minutes=1):
        for _ in range(w.count(1.6 * L)):
            m = w.ri(10000, 48999)
            portal(w, w.jit(t), "ERROR",
                   "SQLSTATE[HY000]: General error: 3024 Query execution was interrupted, maximum "
                   "statement execution time exceeded (SQL: select * from `orders` where `merchant_id` = "
                   f"{m} and `status` in (novo, aceito))",
                   {"exception": "[object] (Illuminate\\Database\\QueryException(code: HY000))"})
    if inside(t, HEAP):
        for _ in range(w.count(2.2 * L)):
            o = w.order()
            portal(
                w, w.jit(t), "ERROR",
                "cURL error 28: Operation timed out after 5001 milliseconds with 0 bytes received "
                f"(see https://curl.haxx.se/libcurl/c/libcurl-errors.html) for http://orders.mkt-prod.svc:8080/internal/orders/{o}/accept",
                {"exception": "[object] (GuzzleHttp\\Exception\\ConnectException(code: 0))"},
            )
            if w.r() < 0.5:
                portal(w, w.jit(t), "WARN", f"Aceite do pedido {o} falhou, o tablet vai tentar de novo",
                       {"tentativa": w.ri(2, 4)})


def orders_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.1 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        th = f"http-nio-8080-exec-{w.ri(1, 40)}"
        if r < 0.5:
            orders_log(w, tt, "INFO", th, "c.r.orders.checkout.OrderService",
                       f"Order {w.order()} created for merchant {w.merchant()} total=BRL "
                       f"{w.ri(18, 160)}.{w.ri(0, 99):02d} "
                       f"payment={w.pick(['PIX', 'PIX', 'CARD', 'CARD', 'CARD', 'VR'])}")
        elif r < 0.8:
            orders_log(w, tt, "INFO", f"order-events-{w.ri(1, 4)}", "c.r.orders.status.StatusPublisher",
                       f"Order {w.order()} status "
                       f"{w.pick(['ACCEPTED', 'PREPARING', 'READY', 'PICKED_UP', 'DELIVERED'])}")
        elif r < 0.92:
            orders_log(w, tt, "WARN", th, "c.r.orders.persistence.OrderRepository",
                       f"Optimistic lock conflict on order {w.order()} (version {w.ri(2, 6)}), retrying")
        else:
            orders_log(w, tt, "WARN", th, "c.r.orders.pricing.RequoteClient",
                       f"re-quote for {w.order()} differs from cart by BRL 0.{w.ri(1, 99):02d} (rounding), "
                       "keeping cart total")
    if inside(t, MDL) and t >= MDL[0] + timedelta(minutes=1):
        for _ in range(w.count(2.4 * L)):
            p = w.pick(PODS["orders"])
            th = f"http-nio-8080-exec-{w.ri(1, 40)}"
            if w.r() < 0.5:
                orders_log(w, w.jit(t), "ERROR", th, "com.zaxxer.hikari.pool.HikariPool",
                           f"HikariPool-1 - Connection is not available, request timed out after 30000ms "
                           f"(total=40, active=40, idle=0, waiting={w.ri(80, 160)})", p=p)
            else:
                orders_log(w, w.jit(t), "ERROR", th, "c.r.orders.checkout.OrderService",
                           f"Failed to create order for {w.cart()}: "
                           "org.springframework.dao.DataAccessResourceFailureException: "
                           "Unable to acquire JDBC Connection", p=p)
    if inside(t, RABBIT):
        for _ in range(w.count(2.2 * L)):
            orders_log(
                w, w.jit(t), "ERROR", f"http-nio-8080-exec-{w.ri(1, 40)}",
                "c.r.orders.events.OrderEventPublisher",
                f"Timed out publishing OrderCreated for {w.order()} after 5000 ms (connection blocked), "
                "rolling back",
            )
    if inside(t, HEAP):
        if w.r() < 0.5:
            orders_log(w, w.jit(t), "WARN", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.HikariPool",
                       "HikariPool-1 - Thread starvation or clock leap detected (housekeeper "
                       f"delta={w.ri(8, 52)}s).")
        for _ in range(w.count(0.6 * L)):
            orders_log(w, w.jit(t), "WARN", f"http-nio-8080-exec-{w.ri(1, 40)}",
                       "c.r.orders.web.SlowRequestFilter",
                       f"Slow request POST /internal/orders/{w.order()}/accept took {w.ri(5200, 14000)} ms")


def payments_bg(w: World, t: datetime, leased: dict) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.0 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        th = f"http-nio-8080-exec-{w.ri(1, 30)}"
        if r < 0.3:
            txid = w.hexid(26)
            pay(
                w, tt, "INFO", th, "c.r.p.pix.PixChargeService",
                f"PIX charge created txid={txid} amount={w.ri(18, 160)}.{w.ri(0, 99):02d} order={w.order()}",
            )
            if not inside(tt, DNS):
                pay(w, tt + timedelta(seconds=w.ri(20, 140)), "INFO", f"webhook-{w.ri(1, 8)}",
                    "c.r.p.pix.PixWebhookController",
                    f"PIX webhook received txid={txid} status=CONCLUIDA "
                    f"endToEndId=E{w.ri(10000000, 99999999)}2026{w.hexid(10)}")
        elif r < 0.6:
            pay(w, tt, "INFO", th, "c.r.p.card.CardPaymentService",
                f"card authorized order={w.order()} psp_id=ch_{w.b36(12)} "
                f"brand={w.pick(['visa', 'mastercard', 'elo', 'amex'])} "
                f"3ds={w.pick(['frictionless', 'frictionless', 'challenge'])}")
        elif r < 0.78:
            code, why = w.pick([("51", "insufficient funds"), ("05", "do not honour"),
                                ("57", "transaction not permitted"), ("54", "expired card")])
            pay(w, tt, "WARN", th, "c.r.p.card.CardPaymentService",
                f"card declined order={w.order()} acquirer_code={code} ({why})")
        elif r < 0.9:
            pay(w, tt, "WARN", th, "c.r.p.psp.CobraPayClient",
                "PSP call POST /v2/charges timed out after 3000 ms, retry 1/2 succeeded in "
                f"{w.ri(180, 900)} ms")
        else:
            pay(w, tt, "INFO", th, "c.r.p.card.ThreeDsService",
                f"3DS challenge completed order={w.order()} eci=05")
    if w.r() < 0.02:
        pay(w, w.jit(t), "ERROR", "refund-worker-1", "c.r.p.refund.RefundService",
            f"PSP refund failed for {w.order()}: 409 REFUND_ALREADY_REQUESTED")
    if w.r() < 0.02 and not inside(t, DNS):
        pay(w, w.jit(t), "WARN", "pix-poller-1", "c.r.p.pix.PixStatusPoller",
            f"PIX charge txid={w.hexid(26)} still ATIVA after 300s with no webhook, scheduling status poll")
    if inside(t, DNS):
        for _ in range(w.count(1.8 * L + 0.3)):
            txid = w.hexid(26)
            pay(w, w.jit(t), "WARN", "pix-poller-1", "c.r.p.pix.PixStatusPoller",
                f"PIX charge txid={txid} still ATIVA after 300s with no webhook, scheduling status poll")
            if w.r() < 0.7:
                pay(w, w.jit(t), "WARN", "pix-poller-2", "c.r.p.pix.PixStatusPoller",
                    f"status poll txid={txid} -> CONCLUIDA (paid {w.ri(4, 9)} min ago), webhook never "
                    "arrived")
            else:
                pay(w, w.jit(t), "ERROR", "pix-poller-2", "c.r.p.pix.PixStatusPoller",
                    f"order {w.order()} cancelled: PIX txid={txid} not confirmed before the order's 10 "
                    "min payment deadline")
    # the PSP http connection pool (6.3.2 leaks one connection per 3DS callback error)
    if t.minute % 10 == 0:
        for p in PODS["payments"]:
            n = leased[p[0]]
            pend = 0 if n < 20 else w.ri(40, 120)
            pay(w, w.jit(t, 5), "INFO", "pool-stats", "c.r.p.psp.PspHttpClient",
                f"psp http pool stats [leased: {min(20, n + w.ri(0, 3))}; pending: {pend}; available: "
                f"{max(0, 20 - n - 2)}; max: 20]", p=p)
    if inside(t, POOL):
        for p in PODS["payments"]:
            if leased[p[0]] >= 20:
                for _ in range(w.count(1.6 * L)):
                    pay(w, w.jit(t), "ERROR", f"http-nio-8080-exec-{w.ri(1, 30)}",
                        "c.r.p.psp.CobraPayClient",
                        f"PSP call failed for {w.order()}: "
                        "org.apache.hc.core5.http.ConnectionRequestTimeoutException: "
                        f"Timeout deadline: 3000 MILLISECONDS, actual: {w.ri(3001, 3009)} MILLISECONDS - "
                        "psp http connection pool "
                        f"exhausted [leased: 20; pending: {w.ri(40, 120)}; available: 0; max: 20]", p=p)


def dispatch_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.2 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        o = w.order()
        if r < 0.45:
            zap(w, tt, "INFO", "matcher/offer.go:112", "order offered to courier", order_id=o,
                courier_id=w.courier(), eta_s=w.ri(240, 1500), radius_km=3.0)
        elif r < 0.75:
            zap(w, tt, "INFO", "matcher/offer.go:188", "courier accepted offer", order_id=o,
                courier_id=w.courier())
        elif r < 0.85:
            zap(w, tt, "INFO", "matcher/offer.go:201", "courier rejected offer", order_id=o,
                courier_id=w.courier(), reason=w.pick(["too_far", "timeout", "busy"]))
        elif r < 0.93:
            zap(w, tt, "WARN", "matcher/candidates.go:77", "no eligible couriers within radius, widening",
                order_id=o, radius_km=3.0, next_radius_km=5.0, candidates=w.ri(0, 6), alive=w.ri(1, 6),
                region=w.pick(REGIONS))
        else:
            zap(w, tt, "WARN", "store/orders.go:54", "order not found on replica, retrying", order_id=o,
                attempt=1, replica="mysql-orders-ro")
    if w.r() < 0.03:
        zap(w, w.jit(t), "ERROR", "push/courier.go:63", "offer push failed: courier app token unregistered",
            courier_id=w.courier(), error="messaging/registration-token-not-registered")
    if inside(t, EVICT):
        for _ in range(w.count(1.6 * L + 0.4)):
            zap(w, w.jit(t), "WARN", "matcher/candidates.go:77",
                "no eligible couriers within radius, widening", order_id=w.order(), radius_km=3.0,
                next_radius_km=5.0, candidates=w.ri(8, 31), alive=0, region=w.pick(REGIONS))
        if t >= EVICT[0] + timedelta(minutes=10):
            for _ in range(w.count(0.9 * L + 0.2)):
                zap(w, w.jit(t), "ERROR", "matcher/escalate.go:31",
                    "order unassigned after 10m, escalating to ops", order_id=w.order(),
                    attempts=w.ri(4, 9), last_candidates=w.ri(8, 31), last_alive=0)
    if inside(t, REPL) and t >= REPL[0] + timedelta(minutes=1):
        for _ in range(w.count(2.0 * L)):
            o = w.order()
            zap(w, w.jit(t), "WARN", "store/orders.go:54", "order not found on replica, retrying",
                order_id=o, attempt=w.ri(1, 3), replica="mysql-orders-ro")
            if w.r() < 0.6:
                zap(w, w.jit(t), "ERROR", "matcher/loop.go:140",
                    "order not found after 3 retries, leaving unassigned", order_id=o,
                    replica="mysql-orders-ro", queue="dispatch.order-ready")
    if inside(t, GEO_SYMPTOM):
        f = min(1.0, (t - GEO_SYMPTOM[0]).total_seconds() / 900)
        if t >= GEO_SYMPTOM[0] + timedelta(minutes=45):
            f = max(0.0, 1 - (t - GEO_SYMPTOM[0] - timedelta(minutes=45)).total_seconds() / 1700)
        for _ in range(w.count(2.2 * L * f)):
            zap(w, w.jit(t), "ERROR", "route/plan.go:96", "cannot offer order: route distance exceeds max",
                order_id=w.order(), dist_km=round(7800 + w.r() * 900, 1),
                max_km=30 if t >= at(1, 22, 35) else 25, dropoff="(0.000000,0.000000)",
                merchant_id=w.merchant())


def courier_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.6 * L + 0.3))):
        tt = w.jit(t)
        r = w.r()
        c = w.courier()
        if r < 0.45:
            cloc(w, tt, "WARN", "ingest/pings.go:141", "dropping out-of-order ping", courier=c,
                 seq=w.ri(1000, 99999), last_seq=w.ri(1000, 99999), lag_ms=w.ri(900, 42000))
        elif r < 0.75:
            cloc(w, tt, "WARN", "ingest/pings.go:168", "gps accuracy too low, ignoring", courier=c,
                 accuracy_m=w.ri(120, 2400), app=w.pick(["RangoEntregador/6.2.1", "RangoEntregador/6.1.9"]))
        elif r < 0.95:
            cloc(w, tt, "INFO", "ingest/flush.go:52", "pings flushed", batch=w.ri(200, 900),
                 geoadd_ms=w.ri(1, 9), key=f"couriers:geo:{w.pick(REGIONS)}")
        else:
            cloc(w, tt, "WARN", "ingest/stream.go:88", "courier stream idle, closing", courier=c,
                 idle_s=w.ri(61, 300))
    if w.r() < 0.08:
        cloc(w, w.jit(t), "ERROR", "ingest/stream.go:97", "grpc stream reset by client", code="Canceled",
             courier=w.courier(), err="rpc error: code = Canceled desc = context canceled")


def pricing_bg(w: World, t: datetime) -> None:
    L = load(t)
    fixed = t >= at(0, 23, 4)
    tz = "America/Sao_Paulo" if fixed else "UTC"
    today = (loc(t) if fixed else utc(t)).strftime("%Y-%m-%d")
    for _ in range(w.count(BG * (0.9 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        c = w.cart()
        if r < 0.6:
            pricing(w, tt, "INFO", "pricing.quote",
                    f"quote {c} subtotal={w.ri(18, 160)}.{w.ri(0, 99):02d} "
                    f"fee={w.ri(0, 12)}.{w.pick(['00', '49', '90', '99'])} "
                    f"distance_km={w.ri(1, 9)}.{w.ri(0, 9)} surge=1.{w.ri(0, 3)}")
        elif r < 0.8:
            cp = w.pick(["PIZZA20", "ALMOCO12", "SEGUNDOU15"])
            pricing(w, tt, "WARN", "pricing.coupons",
                    f"coupon {cp} rejected for {c}: COUPON_MIN_ORDER "
                    f"(subtotal={w.ri(12, 29)}.{w.ri(0, 99):02d} min=30.00)")
        elif r < 0.9:
            pricing(w, tt, "WARN", "pricing.coupons",
                    f"coupon PRIMEIRA10 rejected for {c}: COUPON_ALREADY_USED (user {w.user()})")
        elif r < 0.95:
            pricing(w, tt, "WARN", "pricing.coupons",
                    f"coupon {w.pick(['MAES30', 'DIADASMAES'])} rejected for {c}: COUPON_EXPIRED "
                    f"(valid_until=2026-05-10 today={today} tz={tz})")
        else:
            pricing(w, tt, "WARN", "pricing.distance",
                    f"geo distance-matrix slow ({w.ri(600, 1500)} ms), using haversine estimate")
    if inside(t, COUPON) and t < at(0, 23, 4):
        for _ in range(w.count(1.6 * L)):
            pricing(w, w.jit(t), "WARN", "pricing.coupons",
                    f"coupon JANTAR20 rejected for {w.cart()}: COUPON_EXPIRED "
                    f"(valid_until=2026-05-11 today={today} tz=UTC)")
    lt = loc(t)
    if lt.hour == 21 and lt.minute == 0 and not fixed:
        ended = {0: "JANTAR20, SEGUNDOU15", 1: "TERCA-PIZZA", 2: "QUARTOU10"}[(t - DAY0).days]
        pricing(w, t + timedelta(milliseconds=212), "INFO", "pricing.promo_calendar",
                f"promo calendar rolled over to {today} (tz=UTC): campaigns ended: {ended}")
    if lt.hour == 0 and lt.minute == 0:
        pricing(w, t + timedelta(milliseconds=340), "INFO", "pricing.promo_calendar",
                f"daily coupon counters reset for {lt.strftime('%Y-%m-%d')}")


def notifications_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.2 * L + 0.15))):
        tt = w.jit(t)
        r = w.r()
        if r < 0.35:
            notif(w, tt, "INFO", "push sent", channel="push", kind="order_status", order=w.order(),
                  platform=w.pick(["fcm", "apns"]))
        elif r < 0.55:
            notif(w, tt, "INFO", "whatsapp sent", channel="whatsapp",
                  template=w.pick(["pedido_confirmado", "pedido_a_caminho", "pedido_entregue"]),
                  wamid=f"wamid.HBgM{w.b36(20)}")
        elif r < 0.72:
            sid = f"sms_{w.b36(10)}"
            notif(w, tt, "INFO", "sms accepted by provider", channel="sms", provider="torpedosms", id=sid,
                  to=w.phone(), kind="otp")
            fail = 0.62 if inside(tt, SMS) else 0.04
            if w.r() < fail:
                st, err = w.pick(
                    [("UNDELIVERED", "EC-0203"), ("EXPIRED", "EC-0410"), ("UNDELIVERED", "EC-0207")]
                )
                notif(w, tt + timedelta(seconds=w.ri(30, 300)), "WARN",
                      f"sms dlr: {sid} status={st} err={err}", channel="sms", provider="torpedosms",
                      carrier=w.pick(["VIVO", "CLARO", "TIM", "OI"]))
            else:
                notif(w, tt + timedelta(seconds=w.ri(3, 20)), "INFO", f"sms dlr: {sid} status=DELIVERED",
                      channel="sms", provider="torpedosms")
        elif r < 0.85:
            notif(w, tt, "WARN", "whatsapp template rate limit hit (131056), requeue in 30s",
                  channel="whatsapp", template="pedido_a_caminho")
        else:
            notif(w, tt, "WARN", f"APNs BadDeviceToken for device dev_{w.b36(12)}, unregistering",
                  channel="push")
    if w.r() < 0.025:
        notif(w, w.jit(t), "ERROR", "FCM send failed: messaging/internal-error, will retry", channel="push",
              attempt=1)


def catalog_bg(w: World, t: datetime) -> None:
    L = load(t)
    for _ in range(w.count(BG * (1.0 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        reg = w.pick(REGIONS)
        idx = "menus-v2" if (reg == "BH" and tt >= at(1, 10, 30)) else "menus"
        if r < 0.5:
            catalog(w, tt, "INFO", "menu served", merchant=w.merchant(), region=reg, index=idx,
                    items=w.ri(14, 220), took_ms=w.ri(4, 60))
        elif r < 0.75:
            catalog(w, tt, "INFO", "search", q=w.pick(SEARCH_Q), region=reg, hits=w.ri(3, 400),
                    took_ms=w.ri(8, 140))
        elif r < 0.92:
            catalog(w, tt, "WARN", "menu item image missing", merchant=w.merchant(), sku=f"sku_{w.b36(8)}")
        else:
            catalog(w, tt, "WARN", "opensearch slow query", took_ms=w.ri(900, 2600), index="menus",
                    q=w.pick(SEARCH_Q))
    if t.minute % 15 == 2 and w.r() < 0.4:
        catalog(w, w.jit(t, 20), "ERROR", "opensearch bulk partial failure", index="menus", failed=1,
                total=w.ri(300, 800), reason="version_conflict_engine_exception")
    if inside(t, FLAG_RJ):
        for _ in range(w.count(2.0 * L)):
            m = w.merchant()
            tt = w.jit(t)
            catalog(w, tt, "INFO", "menu query", merchant=m, region="RJ", index="menus-v2", hits=0,
                    flag="catalog.menu_index_v2")
            catalog(w, tt + timedelta(milliseconds=3), "WARN", "menu empty, returning MENU_NOT_FOUND",
                    merchant=m, region="RJ", index="menus-v2")


def geo_bg(w: World, t: datetime) -> None:
    L = load(t)
    bad = geo_broken(t)
    for _ in range(w.count(BG * (1.1 * L + 0.1))):
        tt = w.jit(t)
        r = w.r()
        if r < 0.4:
            geo_access(w, tt, w.pick(["10.42.2.155", "10.42.3.173", "10.42.1.190"]),
                       f"/v1/distance?from=-23.{w.ri(4000, 7000)},-46.{w.ri(5000, 7500)}"
                       f"&to=-23.{w.ri(4000, 7000)},-46.{w.ri(5000, 7500)}")
        elif r < 0.65:
            cep = w.pick(CEPS)
            if bad and w.r() < 0.7:
                geo(w, tt, "INFO",
                    f"geocode cep={cep} -> (0.000000,0.000000) source=geoponto cached ttl=86400s")
            elif w.r() < 0.6:
                geo(w, tt, "INFO",
                    f"geocode cep={cep} -> (-23.{w.ri(4000, 7000)},-46.{w.ri(5000, 7500)}) source=cache")
            else:
                geo(w, tt, "INFO",
                    f"geocode cep={cep} -> (-23.{w.ri(4000, 7000)},-46.{w.ri(5000, 7500)}) "
                    "source=geoponto cached ttl=86400s")
        elif r < 0.85:
            geo(w, tt, "WARN",
                f"GeoPonto 429 Too Many Requests, retrying in {w.pick([250, 500])}ms (attempt 1/3)")
        else:
            geo(
                w, tt, "WARN",
                f"low-confidence geocode for cep={w.pick(CEPS)} (precision=CIDADE), returning city centroid",
            )
    if w.r() < 0.02:
        geo(w, w.jit(t), "ERROR",
            "GeoPonto timeout after 2000ms for /distancematrix, serving haversine fallback")
    if inside(t, GEO_SYMPTOM) and t >= at(1, 22, 27):
        for _ in range(w.count(1.0 * L)):
            geo_access(w, w.jit(t), "10.42.1.190",
                       f"/v1/route?order=ord_{w.ri(8830000, 8839999)}"
                       f"&from=-23.{w.ri(4000, 7000)},-46.{w.ri(5000, 7500)}&to=0.000000,0.000000")


def mysql_bg(w: World, t: datetime) -> None:
    if w.r() < 0.12:
        mysql(w, w.jit(t), "WARN", w.ri(88000, 99000), "MY-013360", "Server",
              "Plugin mysql_native_password reported: ''mysql_native_password' is deprecated and will be "
              "removed in a future release. Please use caching_sha2_password instead'")
    if w.r() < 0.05:
        mysql(w, w.jit(t), "INFO", w.ri(88000, 99000), "MY-010914", "Server",
              f"Aborted connection {w.ri(88000, 99000)} to db: 'orders' user: "
              f"'{w.pick(['portal_ro', 'orders_app', 'dispatch_ro'])}' "
              f"host: '10.42.{w.ri(1, 3)}.{w.ri(10, 200)}' (Got an error reading communication packets).",
              host=w.pick(["mysql-orders-0", "mysql-orders-ro-0"]))
    if w.r() < 0.015:
        mysql(w, w.jit(t), "WARN", 0, "MY-010055", "Server",
              f"IP address '10.42.{w.ri(1, 3)}.{w.ri(10, 200)}' could not be resolved: Name or service not "
              "known")
    if t.minute % 10 == 0 and not inside(t, MDL):
        mysql_watch(w, w.jit(t, 5), "INFO",
                    f"processlist: {w.ri(30, 90)} threads, 0 waiting for locks, longest trx {w.ri(1, 40)}s")
    if w.r() < 0.06 * load(t):
        q = w.r() * 2 + 1.1
        mysql(w, w.jit(t), "INFO", w.ri(88000, 99000), "slow-log", "Server",
              f"# User@Host: portal_ro[portal_ro] @ [10.42.2.177]\n# Query_time: {q:.6f}  Lock_time: "
              "0.000004 Rows_sent: 50  "
              f"Rows_examined: {w.ri(200000, 900000)}\nSELECT * FROM orders WHERE merchant_id = "
              f"{w.ri(10000, 48999)} ORDER BY created_at DESC LIMIT 50;", container="slow-log")


def redis_bg(w: World, t: datetime) -> None:
    for inst, every in (("redis-geo-0", 23), ("redis-sessions-0", 31), ("redis-orders-0", 47)):
        m = int((t - DAY0).total_seconds() // 60)
        if m % every == 0:
            tt = w.jit(t, 30)
            changes = w.ri(1000, 90000)
            redis(w, tt, inst, "*",
                  f"{10000 if changes > 10000 else 100} changes in {60 if changes > 10000 else 300} "
                  "seconds. Saving...")
            pid = w.ri(200, 30000)
            redis(w, tt + timedelta(milliseconds=3), inst, "*", f"Background saving started by pid {pid}")
            redis(w, tt + timedelta(milliseconds=w.ri(300, 2400)), inst, "*", "DB saved on disk", role="C",
                  pid=pid)
            redis(w, tt + timedelta(milliseconds=w.ri(2500, 3000)), inst, "*",
                  "Background saving terminated with success")


def rabbit_bg(w: World, t: datetime) -> None:
    if w.r() < 0.12:
        n = w.pick(PODS["rabbitmq"])[0]
        src = f"10.42.{w.ri(1, 3)}.{w.ri(10, 200)}:{w.ri(32768, 60999)}"
        rabbit(
            w, w.jit(t), "WARN",
            f"closing AMQP connection {w.erl()} ({src} -> 10.42.5.{71 + int(n[-1])}:5672, vhost: '/', "
            f"user: '{w.pick(['notifications', 'dispatch', 'orders'])}'):\nclient unexpectedly closed TCP "
            "connection", node_name=n,
        )
    if w.r() < 0.12:
        n = w.pick(PODS["rabbitmq"])[0]
        src = f"10.42.{w.ri(1, 3)}.{w.ri(10, 200)}:{w.ri(32768, 60999)}"
        conn = w.erl()
        rabbit(w, w.jit(t), "INFO",
               f"accepting AMQP connection {conn} ({src} -> 10.42.5.{71 + int(n[-1])}:5672)", node_name=n)
    if w.r() < 0.018:
        n = w.pick(PODS["rabbitmq"])[0]
        rabbit(
            w, w.jit(t), "ERROR",
            f"closing AMQP connection {w.erl()} (10.42.{w.ri(1, 3)}.{w.ri(10, 200)}:{w.ri(32768, 60999)} -> "
            f"10.42.5.{71 + int(n[-1])}:5672):\nmissed heartbeats from client, timeout: 60s", node_name=n,
        )


def k8s_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.minute == 0 and lt.hour in (11, 18):
        k8s(w, t + timedelta(seconds=14), "consumer-api", "INFO", "SuccessfulRescale",
            "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            "HorizontalPodAutoscaler", "consumer-api")
    if lt.minute == 0 and lt.hour in (15, 23):
        k8s(w, t + timedelta(seconds=20), "consumer-api", "INFO", "SuccessfulRescale",
            "New size: 4; reason: All metrics below target", "HorizontalPodAutoscaler", "consumer-api")
    if w.r() < 0.012:
        p = w.pick(PODS["merchant-portal"])
        k8s(w, w.jit(t), "merchant-portal", "WARN", "Unhealthy",
            "Readiness probe failed: HTTP probe failed with statuscode: 503", "Pod", p[0], count=w.ri(1, 3))


# ---------------------------------------------------------------------------------------------
# One-off events: rollouts, batches and the incidents' own lines
# ---------------------------------------------------------------------------------------------

STARTUP = {
    "consumer-api": lambda w, t, v, p: capi(
        w, t, "INFO", f"server listening on :3000 (consumer-api {v}, node v20.12.2)", p=p
    ),
    "merchant-portal": lambda w, t, v, p: portal(w, t, "INFO", f"php-fpm ready, release {v}", p=p),
    "orders": lambda w, t, v, p: orders_log(
        w, t, "INFO", "main", "c.r.orders.OrdersApplication",
        f"Started OrdersApplication in {w.ri(18, 31)}.{w.ri(100, 999)} seconds (process running for "
        f"{w.ri(32, 40)}.{w.ri(1, 9)})", p=p,
    ),
    "payments": lambda w, t, v, p: pay(
        w, t, "INFO", "main", "c.r.p.PaymentsApplication",
        f"Started PaymentsApplication in {w.ri(16, 26)}.{w.ri(100, 999)} seconds", p=p,
    ),
    "dispatch": lambda w, t, v, p: zap(
        w, t, "INFO", "cmd/dispatch/main.go:71", "dispatch started", p=p, version=v
    ),
    "pricing": lambda w, t, v, p: pricing(w, t, "INFO", "uvicorn.error", "Application startup complete."),
    "notifications": lambda w, t, v, p: notif(
        w, t, "INFO",
        f"notifications {v} consuming notifications.push, notifications.sms, notifications.whatsapp",
    ),
    "catalog": lambda w, t, v, p: catalog(w, t, "INFO", "catalog started", version=v),
    "geo": lambda w, t, v, p: geo(w, t, "INFO", f"Booting worker with pid: {w.ri(11, 18)}"),
    "courier-location": lambda w, t, v, p: cloc(
        w, t, "INFO", "cmd/ingest/main.go:44", "ingest started", version=v
    ),
}


def rollout(w: World, t0: datetime, service: str, ver: str, dur: int) -> None:
    pods = PODS[service]
    step = dur / len(pods)
    k8s(w, t0, service, "INFO", "ScalingReplicaSet", f"Scaled up replica set {service}-{w.hexid(9)} to 1",
        "Deployment", service)
    for i, p in enumerate(pods):
        ts = t0 + timedelta(seconds=i * step + w.ri(2, 8))
        k8s(
            w, ts, service, "INFO", "Pulled",
            f'Successfully pulled image "123456789012.dkr.ecr.sa-east-1.amazonaws.com/rango/{service}:{ver}" '
            f"in {w.ri(2, 9)}.{w.ri(100, 999)}s", "Pod", p[0],
        )
        k8s(w, ts + timedelta(seconds=1), service, "INFO", "Started", f"Started container {service}", "Pod",
            p[0])
        if service == "orders" and ver == "9.3.0":
            return  # the first new pod runs the V212 migration and stays unready (MKT-01)
        STARTUP[service](w, ts + timedelta(seconds=w.ri(6, 20)), ver, p)
        if service == "consumer-api":
            ka = "false" if ver == "5.12.0" else "true"
            capi(w, ts + timedelta(seconds=21), "INFO",
                 f"pricing client ready keepAlive={ka} connections="
                 f"{'unlimited' if ka == 'false' else '128'} pipelining=1", p=p)
        k8s(w, ts + timedelta(seconds=w.ri(25, 40)), service, "INFO", "Killing",
            f"Stopping container {service}", "Pod", p[0])


def inc_mdl(w: World) -> None:
    portal(w, FIN_EXPORT[0], "INFO",
           "Gerando relatório financeiro (abril/2026) para 1284 lojas: START TRANSACTION WITH CONSISTENT "
           "SNAPSHOT", {"job": "App\\Jobs\\MerchantFinanceExport", "connection": "mysql_reports"},
           container="queue-worker")
    newpod = ("orders-7f9b6c5d8-q8w2e", "ip-10-42-1-80")
    t = MDL[0]
    for i, line in enumerate(
        ["Flyway Community Edition 10.10.0 by Redgate",
         "Database: jdbc:mysql://mysql-orders.db.rango.internal:3306/orders (MySQL 8.0)",
         "Current version of schema `orders`: 211",
         'Migrating schema `orders` to version "212 - orders add delivery window"']
    ):
        orders_log(
            w, t - timedelta(seconds=3 - i), "INFO", "main",
            "o.f.core.internal.command.DbMigrate" if i == 3 else "o.f.c.i.license.VersionPrinter", line,
            p=newpod,
        )
    ts = MDL[0] + timedelta(seconds=75)
    n = 0
    while ts < MDL[1] - timedelta(seconds=30):
        n += 1
        k8s(w, ts, "orders", "WARN", "Unhealthy",
            'Startup probe failed: Get "http://10.42.1.181:8080/actuator/health/readiness": dial tcp '
            "10.42.1.181:8080: connect: connection refused", "Pod", newpod[0], count=n)
        ts += timedelta(seconds=60)
    ts = MDL[0] + timedelta(seconds=50)
    while ts < MDL[1] - timedelta(seconds=25):
        age = (ts - MDL[0]).total_seconds()
        trx = (ts - FIN_EXPORT[0]).total_seconds()
        waiting = min(238, int(30 + age / 4))
        mysql_watch(
            w, ts, "WARN",
            f"processlist: {waiting + w.ri(18, 30)} threads, {waiting} in state 'Waiting for table "
            "metadata lock' "
            "on orders.orders; first waiter thread 91877 flyway_orders "
            f"({int(age // 60)}m{int(age % 60):02d}s): {V212}; "
            f"open trx holding the lock: thread 88121 portal_ro@10.42.2.177 trx active {int(trx)}s, state "
            "Sleep",
        )
        ts += timedelta(seconds=60)
    kill = MDL[1] - timedelta(seconds=20)
    mysql_watch(w, kill, "WARN",
                "KILL 88121 issued by dba.rmartins (trx blocking ALTER TABLE on orders.orders for "
                f"{int((kill - MDL[0]).total_seconds())}s)")
    mysql(w, kill + timedelta(milliseconds=400), "INFO", 88121, "MY-010914", "Server",
          "Aborted connection 88121 to db: 'orders' user: 'portal_ro' host: '10.42.2.177' (Got an error "
          "writing communication packets).")
    portal(
        w, FIN_EXPORT[1], "ERROR",
        "Relatório financeiro falhou: SQLSTATE[HY000]: General error: 2013 Lost connection to MySQL server "
        "during query",
        {"job": "App\\Jobs\\MerchantFinanceExport",
         "exception": "[object] (Illuminate\\Database\\QueryException(code: HY000))"},
        container="queue-worker",
    )
    done = MDL[1] + timedelta(seconds=1)
    mysql(w, done, "INFO", 91877, "slow-log", "Server",
          "# User@Host: flyway_orders[flyway_orders] @ [10.42.1.181]\n# Query_time: 2316.402118  "
          "Lock_time: 2311.880562 Rows_sent: 0  "
          f"Rows_examined: 0\nuse orders;\n{V212};", container="slow-log")
    orders_log(w, done + timedelta(milliseconds=300), "INFO", "main", "o.f.core.internal.command.DbMigrate",
               "Successfully applied 1 migration to schema `orders`, now at version v212 (execution time "
               "38:36.402s)", p=newpod)
    STARTUP["orders"](w, done + timedelta(seconds=19), "9.3.0", newpod)


def inc_repl(w: World) -> None:
    t = REPL[0]
    h = "mysql-orders-ro-0"
    mysql(w, t, "ERROR", 14, "MY-010584", "Repl",
          "Replica SQL for channel '': Worker 1 failed executing transaction 'ANONYMOUS' at source log "
          "mysql-bin.004213, end_log_pos 88310231; Could not execute Write_rows event on table "
          "orders.order_status_history; Duplicate entry '8835112-READY' for key "
          "'order_status_history.uq_order_status', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; "
          "the event's source log mysql-bin.004213, end_log_pos 88310231, Error_code: MY-001062", host=h)
    mysql(
        w, t + timedelta(milliseconds=2), "WARN", 13, "MY-010584", "Repl",
        "Replica SQL for channel '': ... The replica coordinator and worker threads are stopped, possibly "
        "leaving data in inconsistent state. A restart should restore consistency automatically, although "
        "using non-transactional storage for data or info tables or DDL queries could lead to problems. In "
        "such cases you have to examine your data (see documentation for details). Error_code: "
        "MY-001756", host=h,
    )
    mysql(w, t + timedelta(milliseconds=3), "ERROR", 13, "MY-010586", "Repl",
          "Error running query, replica SQL thread aborted. Fix the problem, and restart the replica SQL "
          "thread with \"START REPLICA\". We stopped at log 'mysql-bin.004213' position 88309877", host=h)
    r = at(1, 12, 10, 58)
    mysql(
        w, r, "INFO", 19, "MY-010597", "!Repl",
        "Replica SQL thread for channel '' initialized, starting replication in log 'mysql-bin.004213' at "
        "position 88310231, relay log './mysql-orders-ro-0-relay-bin.000512' position: 41220331", host=h,
    )


def inc_rabbit(w: World) -> None:
    c0, c1 = CAMPAIGN
    notif(w, c0, "INFO",
          "campaign campanha-jantar-terca started: audience 1910000 devices, queue notifications.push, "
          "enqueue rate unlimited", campaign="campanha-jantar-terca", job="push-campaign")
    total = 0
    t = c0 + timedelta(minutes=1)
    while t < RABBIT[0]:
        total += 190_000 + w.ri(-4000, 4000)
        notif(w, t + timedelta(seconds=w.ri(0, 5)), "INFO",
              f"campaign campanha-jantar-terca: enqueued {total}/1910000", campaign="campanha-jantar-terca")
        t += timedelta(minutes=1)
    a = RABBIT[0]
    rabbit(w, a, "WARN",
           "memory resource limit alarm set on node 'rabbit@rabbitmq-0.rabbitmq-nodes.mkt-prod'.",
           proc="<0.487.0>")
    rabbit(w, a + timedelta(milliseconds=1), "WARN",
           "\n**********************************************************\n*** Publishers will be blocked "
           "until this alarm clears "
           "***\n**********************************************************", proc="<0.487.0>")
    for p in PODS["orders"]:
        orders_log(
            w, a + timedelta(milliseconds=w.ri(20, 900)), "WARN", "AMQP Connection 10.42.5.71:5672",
            "c.r.orders.events.BlockedListener", "RabbitMQ connection blocked by broker: low on memory",
            p=p,
        )
    notif(w, a + timedelta(milliseconds=640), "WARN",
          "amqp connection blocked by broker: low on memory, campaign publisher paused",
          campaign="campanha-jantar-terca", enqueued=total)
    t = a + timedelta(seconds=30)
    while t < RABBIT[1]:
        cloc(w, w.jit(t), "ERROR", "publish/amqp.go:73",
             "publish courier.events blocked (connection.blocked: low on memory), dropping batch",
             batch=w.ri(200, 800))
        if w.r() < 0.5:
            zap(w, w.jit(t), "INFO", "consume/ready.go:40", "queue idle, no order-ready messages",
                queue="dispatch.order-ready", idle_s=w.ri(60, 300))
        t += timedelta(seconds=w.ri(60, 110))
    notif(w, c1, "INFO",
          f"campaign campanha-jantar-terca aborted by d.lima: enqueued {total}/1910000, queue purged",
          campaign="campanha-jantar-terca")
    rabbit(w, RABBIT[1], "INFO",
           "memory resource limit alarm cleared on node 'rabbit@rabbitmq-0.rabbitmq-nodes.mkt-prod'",
           proc="<0.487.0>")
    rabbit(w, RABBIT[1] + timedelta(milliseconds=2), "INFO",
           "memory resource limit alarm cleared across the cluster", proc="<0.487.0>")


SMALL_CAMPAIGNS = [(d, hh, mm, name, n)
                   for d, hh, mm, name, n in (
                       (0, 11, 0, "almoco-segunda", 42000), (0, 18, 30, "jantar-segunda-sp", 61000),
                       (1, 11, 0, "almoco-terca", 39000), (1, 18, 30, "sobremesa-terca", 28000),
                       (2, 11, 0, "almoco-quarta", 45000), (2, 18, 30, "jantar-quarta-rj", 52000),
                   )]


def campaigns(w: World) -> list[list]:
    rows = []
    for d, hh, mm, name, n in SMALL_CAMPAIGNS:
        t0 = at(d, hh, mm)
        t1 = t0 + timedelta(seconds=n // 2000 + 4)
        notif(
            w, t0, "INFO",
            f"campaign {name} started: audience {n} devices, queue notifications.push, enqueue rate 2000/s",
            campaign=name, job="push-campaign",
        )
        notif(w, t1, "INFO", f"campaign {name} finished: enqueued {n}/{n}", campaign=name)
        rows.append(["push-campaign", "notifications", brdate(t0), brdate(t1), "COMPLETED", n,
                     f"campaign {name} (rate 2000/s)"])
    rows.append(
        ["push-campaign", "notifications", brdate(CAMPAIGN[0]), brdate(CAMPAIGN[1]), "ABORTED", 1544000,
         "campaign campanha-jantar-terca (rate unlimited, audience 1910000); aborted by on-call, queue "
         "purged"]
    )
    return rows


def payout(w: World) -> list[list]:
    rows = []
    for t0 in PAYOUT:
        cyc = (loc(t0) - timedelta(days=1)).strftime("%Y-%m-%d")
        portal(w, t0, "INFO", f"Repasse diário iniciado: 3120 lojas, ciclo {cyc}",
               {"job": "App\\Jobs\\DailyPayout"}, container="queue-worker")
        ts = t0
        for i in range(20):
            ts += timedelta(seconds=w.ri(30, 70))
            m = w.merchant()
            if i % 5 in (1, 3):
                portal(
                    w, ts, "ERROR", f"Repasse recusado pelo banco para {m}: AC04 conta encerrada",
                    {"job": "App\\Jobs\\DailyPayout", "banco": w.pick(["341", "237", "260", "033", "104"])},
                    container="queue-worker",
                )
            else:
                portal(w, ts, "WARN", f"Repasse ignorado para {m}: conta bancária pendente de validação",
                       {"job": "App\\Jobs\\DailyPayout"}, container="queue-worker")
        ts += timedelta(seconds=w.ri(40, 90))
        portal(
            w, ts, "INFO", f"Repasse diário concluído: 3112 pagas, 12 ignoradas, 8 recusadas, ciclo {cyc}",
            {"job": "App\\Jobs\\DailyPayout"}, container="queue-worker",
        )
        rows.append(
            ["repasse-diario", "merchant-portal", brdate(t0), brdate(ts), "COMPLETED_WITH_ERRORS", 3112,
             "12 skipped (bank account pending), 8 refused by bank (AC04)"]
        )
    return rows


def inc_misc(w: World) -> None:
    # MKT-10: GeoPonto starts answering (0,0); geo caches it
    geo(w, GEO0[0], "WARN",
        "GeoPonto response for cep=04538-133 carries unknown field 'precisao' (ignored)")
    geo(w, at(1, 23, 16, 2), "INFO", "cache flush geocode:* by r.nakamura: 18231 keys deleted")
    # MKT-13: liveness probes on the orders pods while the heap is full
    ts = HEAP[0] + timedelta(minutes=9)
    n = 0
    while ts < HEAP[1] - timedelta(minutes=4):
        n += 1
        p = w.pick(PODS["orders"])
        k8s(w, ts, "orders", "WARN", "Unhealthy",
            f'Liveness probe failed: Get "http://10.42.{p[1][-4]}.180:8080/actuator/health/liveness": '
            "context deadline exceeded (Client.Timeout exceeded while awaiting headers)", "Pod", p[0],
            count=n)
        ts += timedelta(seconds=w.ri(80, 200))
    # MKT-12: pricing sees the new connections arrive
    ts = KEEPALIVE[0] + timedelta(minutes=3)
    while ts < KEEPALIVE[1]:
        pricing(w, w.jit(ts), "INFO", "uvicorn.access",
                f"connections open: {w.ri(2400, 4100)} (accepted {w.ri(300, 520)}/s, keep-alive reuse 0%)")
        ts += timedelta(minutes=5)


def leak_times(w: World) -> dict[str, list[datetime]]:
    """When each payments pod (6.3.2) leaks a PSP connection: at every 3DS callback error."""
    out = {}
    for p, last in zip(PODS["payments"], (at(2, 19, 25, 40), at(2, 19, 30, 50)), strict=True):
        ts = sorted(at(2, 9, 50) + timedelta(seconds=w.ri(0, 34000)) for _ in range(19))
        out[p[0]] = [*ts, last]
    return out


# ---------------------------------------------------------------------------------------------
# Metric exports and batch runs
# ---------------------------------------------------------------------------------------------


def metrics(w: World) -> None:
    g = random.Random(SEED + 1)
    redis_rows, db_rows, jvm_rows, broker_rows = [], [], [], []
    t = DAY0
    heap_floor_t0 = at(1, 16, 8)
    while t < END:
        L = load(t)
        mn = wmin(t)
        # redis
        if t < EVICT[0]:
            geo_mem = 1610 + 438 * (t - DAY0).total_seconds() / (EVICT[0] - DAY0).total_seconds()
            geo_max, ev = 2048, 0
        elif t < at(0, 15, 46, 30):
            geo_mem, geo_max, ev = 2047.6, 2048, g.randint(3000, 9000)
        else:
            geo_mem = min(2260 + 120 * L, 2048 + (t - at(0, 15, 46, 30)).total_seconds() / 60 * 8)
            geo_max, ev = 4096, 0
        geo_keys = (
            52000
            + int(9000 * L)
            - (g.randint(15000, 24000) if inside(t, EVICT) and t < at(0, 15, 46, 30) else 0)
        )
        redis_rows.append(
            [mn, "redis-geo",
             round(geo_mem + g.uniform(-2, 2), 1) if geo_mem < 2047 else round(geo_mem, 1), geo_max, ev,
             geo_keys, int(4200 * L + 300 + g.randint(0, 200)), 31 + g.randint(0, 6)]
        )
        redis_rows.append(
            [mn, "redis-sessions", round(612 + 80 * L + g.uniform(-5, 5), 1), 2048, 0,
             410000 + int(90000 * L), int(2600 * L + 200 + g.randint(0, 150)), 64 + g.randint(0, 8)]
        )
        redis_rows.append(
            [mn, "redis-orders", round(380 + 60 * L + g.uniform(-5, 5), 1), 1024, 0,
             88000 + int(30000 * L), int(1900 * L + 150 + g.randint(0, 120)), 48 + g.randint(0, 6)]
        )
        # mysql
        mdl = inside(t, MDL) and t >= MDL[0] + timedelta(seconds=50)
        running = (
            min(238, int(30 + (t - MDL[0]).total_seconds() / 4)) + g.randint(5, 20)
            if mdl
            else int(4 + 10 * L + g.randint(0, 5))
        )
        db_rows.append([mn, "mysql-orders", "primary", min(600, running + 120 + int(90 * L)), running,
                        int((2600 * L + 200) * (0.15 if mdl else 1)) + g.randint(0, 90), "", "", ""])
        if inside(t, REPL) and t < at(1, 12, 10, 58):
            sql_run, lag = "No", ""
        elif inside(t, REPL):
            sql_run, lag = "Yes", max(0, int(3737 - (t - at(1, 12, 10, 58)).total_seconds() * 120))
        else:
            sql_run, lag = "Yes", g.choice([0, 0, 0, 0, 1])
        db_rows.append(
            [mn, "mysql-orders-ro", "replica", 60 + int(50 * L) + g.randint(0, 10),
             int(2 + 6 * L + g.randint(0, 3)), int(1500 * L + 120) + g.randint(0, 60), "Yes", sql_run,
             lag]
        )
        # jvm: orders (heap floor creeps after 9.4.0 until the restart), payments
        if t >= heap_floor_t0 and t < HEAP[1]:
            floor = 1200 + 2780 * min(
                1.0, (t - heap_floor_t0).total_seconds() / (HEAP[0] - heap_floor_t0).total_seconds()
            )
        elif at(2, 17, 40) > t >= HEAP[1]:
            floor = (
                1200 + 2780 * (t - HEAP[1]).total_seconds() / (HEAP[0] - heap_floor_t0).total_seconds() * 1.0
            )
        else:
            floor = 1200
        if inside(t, HEAP):
            heap, gcp, gcc = 4020 + g.randint(0, 70), g.randint(21000, 47000), g.randint(9, 19)
        else:
            heap = min(4050, floor + g.uniform(0, 1400) * (1 - (floor - 1200) / 3400))
            gcp, gcc = g.randint(20, 120) + (int((floor - 1200) / 6) if floor > 3000 else 0), g.randint(2,
                                                                                                        6)
        pool = 40 if mdl else min(40, int(4 + 14 * L + g.randint(0, 4)))
        jvm_rows.append([mn, "orders", int(heap), 4096, round(100 * heap / 4096, 1), gcp, gcc,
                         int(30 + 90 * L) + g.randint(0, 10), pool, 40])
        ph = 900 + g.randint(0, 1100)
        jvm_rows.append(
            [mn, "payments", ph, 3072, round(100 * ph / 3072, 1), g.randint(15, 90), g.randint(1, 5),
             int(20 + 60 * L) + g.randint(0, 8), int(3 + 8 * L + g.randint(0, 3)), 30]
        )
        # rabbitmq nodes
        for i, n in enumerate(("rabbitmq-0", "rabbitmq-1", "rabbitmq-2")):
            mem = 1100 + 260 * L + g.randint(-40, 40) + (i * 60)
            alarm = 0
            blocked = 0
            if i == 0 and inside(t, CAMPAIGN) or (i == 0 and inside(t, RABBIT)):
                mem = min(3290, 1400 + (t - CAMPAIGN[0]).total_seconds() / 60 * 210)
                if inside(t, RABBIT):
                    mem, alarm, blocked = 3276 + g.randint(2, 30), 1, 41 + g.randint(0, 6)
            elif inside(t, RABBIT):
                blocked = 41 + g.randint(0, 6)
            broker_rows.append([mn, n, int(mem), 3276, alarm, 118 + g.randint(0, 12) + (i * 3), blocked])
        t += timedelta(minutes=1)
    w.table("redis_metrics",
            ["minute", "instance", "used_memory_mb", "maxmemory_mb", "evicted_keys", "keys", "ops_per_s",
             "connected_clients"],
            redis_rows)
    w.table("db_metrics",
            ["minute", "instance", "role", "threads_connected", "threads_running", "qps",
             "replica_io_running", "replica_sql_running", "seconds_behind_source"],
            db_rows)
    w.table("jvm_metrics",
            ["minute", "service", "heap_used_mb", "heap_max_mb", "heap_used_pct", "gc_pause_ms", "gc_count",
             "threads_busy", "db_pool_active", "db_pool_max"],
            jvm_rows)
    w.table(
        "broker_metrics",
        ["minute", "node", "mem_used_mb", "mem_limit_mb", "mem_alarm", "connections",
         "blocked_connections"],
        broker_rows,
    )
    # 5-minute service and queue metrics
    svc_rows, q_rows = [], []
    base = {"ingress": (9000, 180), "consumer-api": (7000, 160), "merchant-portal": (1800, 220),
            "orders": (2600, 120), "payments": (900, 380), "dispatch": (1500, 60),
            "courier-location": (30000, 12), "pricing": (3100, 45), "notifications": (2200, 90),
            "catalog": (5200, 40), "geo": (3300, 70)}
    t = DAY0
    while t < END:
        L = load(t)
        for svc, (rpm, p95) in base.items():
            err = 0.3 + g.uniform(0, 0.4)
            lat = p95 * (0.8 + 0.4 * L) + g.randint(0, 15)
            cpu = 18 + 45 * L + g.uniform(-3, 3)
            req = rpm * L + rpm * 0.05
            if svc in ("consumer-api", "ingress", "orders") and inside(t, MDL):
                err, lat = err + 9, lat * 30
            if svc == "merchant-portal" and (inside(t, MDL) or inside(t, HEAP)):
                err, lat = err + 14, lat * 20
            if svc in ("consumer-api", "orders", "ingress") and inside(t, RABBIT):
                err, lat = err + 11, lat * 12
            if svc == "consumer-api" and inside(t, KEEPALIVE):
                err, cpu = err + 18 * frac(t, KEEPALIVE, 600), cpu + 20
            if svc == "pricing" and inside(t, KEEPALIVE):
                cpu = cpu + 25
            if svc == "orders" and inside(t, HEAP):
                lat, cpu = lat * 40, 96 + g.uniform(0, 3)
            if svc == "payments" and inside(t, POOL):
                err, lat = err + 35, 3000 + g.randint(0, 60)
            if svc == "dispatch" and (inside(t, EVICT) or inside(t, REPL) or inside(t, GEO_SYMPTOM)):
                err = err + 12
            if svc == "catalog" and inside(t, FLAG_RJ):
                err = err + 6
            svc_rows.append([wall(t), svc, int(req), int(lat), round(err, 2), round(min(99.0, cpu), 1)])
        for q, rate in (
            ("dispatch.order-ready", 30), ("notifications.push", 60), ("notifications.sms", 8),
            ("notifications.whatsapp", 25), ("courier.events.analytics", 400),
        ):
            ready = g.randint(0, int(rate * L) + 3)
            pub = round(rate * L + g.uniform(0, 2), 1)
            if q == "notifications.push" and inside(t, CAMPAIGN):
                ready = min(1_496_000, int((t - CAMPAIGN[0]).total_seconds() * 3100))
                pub = 0.0 if inside(t, RABBIT) else 31000.0
            if q == "dispatch.order-ready" and inside(t, RABBIT):
                pub = 0.0
            q_rows.append([wall(t), q, ready, g.randint(0, 40), pub, round(rate * L + g.uniform(0, 2), 1)])
        t += timedelta(minutes=5)
    w.table("svc_metrics", engine.columns("SERVICE_BUCKETS"), svc_rows)
    w.table(
        "queue_metrics",
        ["bucket_start", "queue", "messages_ready", "messages_unacked", "publish_per_s", "deliver_per_s"],
        q_rows,
    )


def batch_runs(w: World, extra: list[list]) -> None:
    rows = list(extra)
    g = random.Random(SEED + 2)
    for t in w.minutes():
        if t.minute % 15 == 0:
            t1 = t + timedelta(seconds=g.randint(20, 90))
            rows.append(["menu-sync", "catalog", brdate(t + timedelta(seconds=2)), brdate(t1), "COMPLETED",
                         g.randint(40, 900), ""])
        if loc(t).hour == 3 and t.minute == 30:
            rows.append(
                ["orders-archive", "orders", brdate(t), brdate(t + timedelta(minutes=g.randint(6, 11))),
                 "COMPLETED", g.randint(90000, 140000),
                 "orders older than 180 days to s3://rango-archive/orders/"]
            )
        if loc(t).hour == 4 and t.minute == 0:
            rows.append(["cep-cache-warm", "geo", brdate(t), brdate(t + timedelta(minutes=g.randint(3, 7))),
                         "COMPLETED", g.randint(14000, 19000), "top CEPs re-geocoded"])
    rows.append(
        ["merchant-finance-export", "merchant-portal", brdate(FIN_EXPORT[0]), brdate(FIN_EXPORT[1]),
         "FAILED", 0,
         "relatório financeiro abril/2026 (1284 lojas); SQLSTATE[HY000] 2013 Lost connection to MySQL "
         "server during query"]
    )
    rows.append(
        ["courier-weekly-payout", "payments", brdate(at(2, 6, 0)), brdate(at(2, 6, 14, 31)), "COMPLETED",
         18412, "PIX payouts to couriers"]
    )
    rows.sort(key=lambda r: (datetime.strptime(r[2], "%d/%m/%Y %H:%M:%S"), r[0]))
    w.table("batch_runs", engine.columns("BATCH_RUNS"), rows)


# ---------------------------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------------------------

DOCS = {
    "oncall-overview": """# Rango marketplace: visão geral do plantão (on-call overview)

Owner: SRE marketplace (São Paulo). Times are Brasília time (BRT, UTC-03:00, America/Sao_Paulo, no
DST) unless a tool says otherwise. The team writes dates day first (11/05, 11/05/2026, 11 mai).
Careful, the components write their own clocks:

- ingress (ingress-nginx), merchant-portal (Laravel), orders (Spring Boot), pricing (python) and catalog
  write BRT (`-0300` / `-03:00`);
- payments (logback), dispatch (zap), courier-location (logfmt), notifications (winston), geo (gunicorn),
  mysql, redis and rabbitmq write UTC (`Z`, `+0000`, `+00:00`); consumer-api (pino) writes epoch ms;
- tables: `deploys`, `feature_flags` and `dns_records` are UTC, `config_changes` carry their offset,
  metric exports (`*_metrics`), `batch_runs` and `schema_migrations` are BRT wall time (batch_runs day
  first, as the back office exports it).

## Flow

- The app calls `api.rango.com.br` -> **ingress** -> **consumer-api** (node): home, menus and search
  from **catalog** (Go, OpenSearch indexes `menus` and, behind the flag `catalog.menu_index_v2`,
  `menus-v2`), cart quote and coupons from **pricing** (python, which asks **geo** for distances),
  checkout through **orders** (Java, mysql `mysql-orders` primary).
- **orders** charges through **payments** (PIX and card via the PSP CobraPay; the PSP confirms PIX by
  webhook on `webhooks.rango.com.br`), publishes `orders.events` on **rabbitmq**.
- Restaurants use **merchant-portal** (`parceiro.rango.com.br`, Laravel) to accept orders (it calls
  orders' `/internal/orders/*`) and run reports on `mysql-orders` (user portal_ro).
- **dispatch** (Go) takes `dispatch.order-ready`, reads the order from the replica `mysql-orders-ro`,
  finds couriers in **redis** (redis-geo: `couriers:geo:*` and the `courier:alive:*` keys written by
  **courier-location**) and plans the route with **geo**.
- **geo** (python) is the adapter in front of the GeoPonto maps API; it caches geocodes in redis for
  24 h. **notifications** (node) sends push, SMS (TorpedoSMS, OTP codes) and WhatsApp from rabbitmq
  and runs the marketing push campaigns (`push-campaign` in `batch_runs`).

## Where to look

- `dependencies` for who calls what; `svc_metrics`, `redis_metrics`, `db_metrics`, `jvm_metrics`,
  `broker_metrics`, `queue_metrics` for numbers; `deploys`, `config_changes`, `feature_flags`,
  `dns_records`, `schema_migrations`, `batch_runs` for changes.
""",
    "known-noise": """# Known noise (ruído conhecido)

These appear every day and do not by themselves mean customers are affected.

- courier-location: `dropping out-of-order ping` and `gps accuracy too low, ignoring` all day (old
  courier phones, tunnels), `grpc stream reset by client` when the courier app goes to background.
  It always warns; it is almost never the cause.
- dispatch: `no eligible couriers within radius, widening` a few times an hour (far-away restaurants),
  `order not found on replica, retrying` (attempt 1, replica lag of a second), `offer push failed`.
- geo: `GeoPonto 429 Too Many Requests, retrying` (retries succeed), `low-confidence geocode`.
- payments: `card declined` (51, 05, 57, 54), `PSP call ... timed out after 3000 ms, retry 1/2
  succeeded`, refunds already requested, the odd `still ATIVA after 300s with no webhook`.
- merchant-portal: the `Cardapio::$itens` deprecation, `SyncMenuToCatalog failed, releasing back onto
  queue`, HEIC thumbnails, readiness probe 503s; the nightly repasse at 02:00 always has a dozen skipped
  merchants and a handful of AC04 refusals.
- mysql: the `mysql_native_password is deprecated` warning, aborted connections, slow report queries
  from portal_ro. rabbitmq: `client unexpectedly closed TCP connection`, `missed heartbeats from client`.
- notifications: WhatsApp template rate limit (131056), APNs BadDeviceToken, FCM internal errors, a few
  percent of SMS `UNDELIVERED`.
- consumer-api: `upstream catalog slow`, the tip screen TypeError, expired tokens. pricing: coupon
  rejections (min order, already used, expired Dia das Mães coupons). catalog: images missing,
  OpenSearch slow queries and a bulk `version_conflict_engine_exception` now and then.
""",
    "mysql-metadata-lock": """# MySQL: everything on a table hangs (metadata lock)

## Symptoms

Queries on one table hang until the client gives up (Hikari `Connection is not available`, PHP `3024
maximum statement execution time exceeded`), checkout and order screens time out, `threads_running`
on `mysql-orders` climbs, while CPU on the database is low.

## How to confirm

- `mdl-watch` lines in the mysql logs: many threads in `Waiting for table metadata lock`. The first
  waiter is usually a DDL (`ALTER TABLE` from a flyway migration in a deploy); it waits for an open
  transaction on the table, often a long report or an idle session (`state Sleep`).
- `schema_migrations` and `deploys` for a migration started around the onset.

## What to do

Kill the transaction that holds the lock (never the ALTER first), let the migration finish; run DDL on
big tables with gh-ost, outside meal peaks.
""",
    "mysql-replication": """# MySQL: replica stopped / stale reads (replicação parada)

## Symptoms

Services that read `mysql-orders-ro` (dispatch) do not find rows that exist on the primary: new
orders `not found on replica`, couriers not dispatched.

## How to confirm

- `db_metrics`: `replica_sql_running = No` and `seconds_behind_source` empty (NULL) for
  `mysql-orders-ro`; normal lag is 0-1 s.
- mysql logs on mysql-orders-ro-0: `Replica SQL for channel ''` errors with the `Error_code` (1062
  duplicate entry is the usual one) and `replica SQL thread aborted`.

## What to do

DBA: inspect the failing event, skip or fix it, `START REPLICA`; point dispatch at the primary while
the replica catches up.
""",
    "rabbitmq-memory-alarm": """# RabbitMQ memory alarm (publishers blocked)

## Symptoms

Everything that publishes hangs at once: checkout (orders publishes `OrderCreated` before answering),
courier events, notifications. Consumers are fine but have nothing to consume.

## How to confirm

- rabbitmq logs: `memory resource limit alarm set on node` and `Publishers will be blocked until this
  alarm clears`; `broker_metrics.mem_alarm = 1`, `blocked_connections` > 0.
- `queue_metrics`: which queue holds the messages (usually a campaign on `notifications.push`);
  `batch_runs` for the push-campaign run.

## What to do

Stop the producer, purge or cap the queue (`max-length` policy), never raise the watermark blindly.
""",
    "pix-confirmacao-atrasada": """# PIX: confirmação atrasada (PIX payments confirmed late)

## Symptoms

Customers pay the PIX QR code but the order stays "aguardando pagamento"; payments logs `still ATIVA
after 300s with no webhook` and the status poller confirms the payment minutes later.

## Cause (usually)

Slowness at the PSP or at BACEN's SPI: the PSP delivers its webhooks late. It happens a few times a
month, usually for 10-20 minutes at the start of the month.

## What to do

Check the CobraPay status page and open a ticket with the PSP; nothing to change on our side, the
poller confirms the payments. Tell support to wait before cancelling.
""",
}


# ---------------------------------------------------------------------------------------------
# Truth
# ---------------------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, lt, globals())


# ---------------------------------------------------------------------------------------------
# Assemble
# ---------------------------------------------------------------------------------------------


main = engine.main(NAME, world, __name__, DOCS)
