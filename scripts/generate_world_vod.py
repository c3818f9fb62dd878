"""Write the held-out "vod" world: a Tokyo video-on-demand streaming platform.

Three days (2026-04-14..16, Japan Standard Time, UTC+09:00, Asia/Tokyo) of logs from 14 components,
the ops tables the streaming team's on-call engineer has (dependencies, deploys, config changes,
feature-flag audit, certificate inventory, schema migrations, batch runs, per-minute and 5-minute
metric exports) and the runbooks, with 14 incidents and traps described in truth.json.
Deterministic: stdlib only, one seeded random generator; run it again and every byte is the same.

    python scripts/generate_world_vod.py [OUT_DIR]   # writes OUT_DIR/vod/ (default tests/data/worlds)

The platform ("Kumo Video", AWS ap-northeast-1, apps on Nomad): apps and browsers call the nginx
**gateway** (api.kumo-video.example). **playback** (Go) starts sessions, issues license tokens and
resolves manifests, validates the access tokens **entitlement** (Rails + Sidekiq, Stripe and the app
stores, postgres pg-billing) signs, and publishes session and heartbeat events to **kafka**. Clients
fetch licenses from **drm-license** (Java; Widevine, PlayReady, FairPlay). Video segments come from
the CDN through the varnish **origin-shield**, which fetches misses from the just-in-time
**packager** (C++), which reads CMAF renditions from the Ceph RGW **objstore-gw**. **catalog**
(Java, postgres pg-catalog and its replica pg-catalog-ro) serves titles and the home rails,
**recommend** (python) the personal rails, **search** (Go) search, **profiles** (node) profiles,
continue-watching and resume points consumed from watch-events; **redis** keeps sessions and the
continue-watching cache.
"""

from __future__ import annotations

import heapq
import json
import sys
from datetime import UTC, datetime, timedelta, timezone
from functools import partialmethod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import inside, ms3, zulu, zulu_ms  # noqa: E402

NAME, SEED = "vod", 20260414
VOD_COMPONENTS = ("gateway origin-shield playback drm-license packager objstore-gw catalog entitlement "
                  "recommend search profiles kafka postgres redis").split()
MON = [*engine.MONTHS]
JST = timezone(timedelta(hours=9))
LOCAL = engine.Clock(JST, datetime(2026, 4, 14, tzinfo=JST))
DAY0, END = LOCAL.days(3)
at, loc, iso, wall = LOCAL.at, LOCAL.loc, LOCAL.iso, LOCAL.wall
wmin, clf = LOCAL.minute, LOCAL.clf


# the day's load in steps: (until the hour, load)
DAY_STEPS = ((1, 1.1), (2, 0.7), (5, 0.22), (7, 0.3), (9, 0.6), (12, 0.5), (13, 0.75), (18, 0.55), (19, 0.8),
             (20, 1.15), (23, 1.6))


def load(t: datetime) -> float:
    """Streaming traffic in Tokyo: a commute bump, lunch, a big prime time, quiet small hours."""
    return engine.stepped(DAY_STEPS, LOCAL.hour(t), 1.3)


# ---------------------------------------------------------------------------------------------
# Incident timeline (JST). Background generators consult these to break the right things.
# ---------------------------------------------------------------------------------------------

FPS_EXPIRED = (at(0, 9, 0, 0), at(0, 9, 51, 40))  # VOD-01 FairPlay certificate notAfter 00:00Z
REPLAY_WAIT = (at(0, 11, 38, 12), at(0, 12, 46, 31))  # VOD-02 BI query on pg-catalog-ro, replay waits
PUBLISH_NOON = at(0, 12, 0, 4)
VCL_HASH = (at(0, 14, 4, 10), at(0, 14, 58, 30))  # VOD-03 shield cache key keeps tok
PREPACK_FAIL = at(0, 19, 31, 49)  # VOD-04 prepackage of c-58213 failed validation
PREMIERE = (at(0, 20, 0, 0), at(0, 20, 52, 10))  # premiere of Shinkai Line ep 7 until re-packaged
POISON = (at(1, 7, 21, 30), at(1, 8, 26, 15))  # VOD-06 poison record, watch-history churns
PREFETCH = (at(1, 10, 52, 0), at(1, 11, 37, 20))  # VOD-07 playback.license_prefetch on
DRM_SAT = (at(1, 10, 53, 40), at(1, 11, 38, 30))  # drm-license worker pool saturated
SPRITE = (at(1, 12, 38, 0), at(1, 13, 46, 40))  # VOD-08 sprite-backfill, 64 workers
SLOWDOWN = (at(1, 12, 41, 5), at(1, 13, 46, 50))  # RGW per-user read-op limit tripping
SKEW = (at(1, 20, 3, 12), at(1, 20, 47, 30))  # VOD-09 entitlement az4 hosts stepped 16m43s back
SKEW_S = -1003
REASSIGN = (at(2, 9, 30, 0), at(2, 12, 41, 0))  # partition reassignment onto kafka-2
BURST = (at(2, 12, 8, 0), at(2, 13, 9, 0))  # VOD-11 kafka-2 gp2 burst balance at 0
NUKE = (at(2, 15, 2, 0), at(2, 15, 41, 30))  # VOD-12 varnish nuke_limit, Could not get storage
UHD_PUBLISH = at(2, 15, 0, 3)
LEAK = (at(2, 17, 36, 0), at(2, 21, 53, 0))  # catalog 3.8.0 leaks primary-pool connections
POOL_DRY = (at(2, 21, 3, 20), at(2, 21, 53, 0))  # VOD-13 catalog-primary pool exhausted
SEQ_MAX = (at(2, 22, 31, 4), at(2, 23, 22, 40))  # VOD-14 billing_events_id_seq at 2147483647


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class World(engine.Dataset):
    always_attrs = True

    def __init__(self) -> None:
        super().__init__(SEED, LOCAL, END)
        self.pid = 30500
        self.vxid = 88_400_000
        self.groups = dict(GROUPS)

    def b36(self, n: int) -> str:
        return self.code(n, "abcdefghijkmnpqrstuvwxyz23456789", "23456789")

    account = partialmethod(engine.Dataset.tagged, "acc_", 10, "b36")
    profile = partialmethod(engine.Dataset.tagged, "p_", 8, "b36")
    session = partialmethod(engine.Dataset.tagged, "ps_", 14, "b36")

    newpid = partialmethod(engine.Dataset.counter, "pid", 2, 60)


def world() -> tuple[World, dict, dict]:
    w = World()
    w.compose(change_tables,
              (gateway_bg, shield_bg, packager_bg, objstore_bg, playback_bg, drm_bg, catalog_bg,
               entitlement_bg, recommend_bg, search_bg, profiles_bg, kafka_bg, postgres_bg, redis_bg),
              (shield_vcl, prepackage, playback_flags, inc_poison, inc_skew, inc_replica, inc_reassign,
               inc_misc),
              (DEPLOYS, rollout))
    publish_rows = catalog_publish(w)
    metrics(w)
    batch_runs(w, publish_rows)
    return w, engine.manifest(NAME, "Asia/Tokyo", "A Tokyo video-on-demand streaming platform",
                              "2026-04-14..16 Japan Standard Time", 14, VOD_COMPONENTS), truth()

# ---------------------------------------------------------------------------------------------
# Titles, devices, instances
# ---------------------------------------------------------------------------------------------

# content ids: popular (new releases, cached at the shield) and the long tail (library titles)
HOT = [f"c-{n}" for n in (58102, 58117, 58226, 57930, 57988, 58001, 56410, 58155, 57702, 58190)]
PREMIERE_ID = "c-58213"
UHD_IDS = [f"c-{n}" for n in (61001, 61004, 61013, 61022, 61037, 61040, 61058, 61066)]
TITLE_NAMES = [
    "Shinkai Line", "Kitchen of Night", "Akane Detective Files", "Orbit Boys", "Snow Country Express",
    "The Last Ramen", "Harbour Lights", "Salaryman Zero",
]
QUERIES = ["進撃", "ドラマ 2026", "アニメ 新作", "shinkai line", "kitchen of night", "ジブリ", "韓国ドラマ",
           "刑事", "orbit boys", "料理", "ホラー 映画", "サッカー ハイライト"]

PLATFORMS = engine.table(None, "issss", """
# weight, platform, drm, manifest, user agent
22 | ios | fairplay | hls | KumoVideo/8.3.1 (iPhone; iOS 17.4.1; Scale/3.00)
6 | ipados | fairplay | hls | KumoVideo/8.3.1 (iPad; iPadOS 17.4.1; Scale/2.00)
7 | tvos | fairplay | hls | KumoVideo-tvOS/8.3.0 (AppleTV14,1; tvOS 17.4)
4 | safari | fairplay | hls | Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like
    Gecko) Version/17.4 Safari/605.1.15
20 | android | widevine | dash | KumoVideo-Android/8.2.7 (SM-S918B; Android 14)
12 | chrome | widevine | dash | Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like
    Gecko) Chrome/123.0.0.0 Safari/537.36
11 | androidtv | widevine | dash | KumoVideo-AndroidTV/6.2.0 (BRAVIA 4K VH2; Android 12)
6 | firetv | widevine | dash | KumoVideo-FireTV/6.1.4 (AFTKA; Fire OS 7.6)
7 | tizen | playready | dash | Mozilla/5.0 (SMART-TV; LINUX; Tizen 7.0) AppleWebKit/537.36
    KumoVideo-Tizen/5.9.2
5 | webos | playready | dash | Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 KumoVideo-webOS/5.8.0
""")
PLAT_W = [p[0] for p in PLATFORMS]
APPLE = ("ios", "ipados", "tvos", "safari")

INST = {
    # service: [(instance, host, ip, az)]
    "gateway": [("gw-1", "gw-1", "10.20.1.11", "apne1-az1"), ("gw-2", "gw-2", "10.20.2.11", "apne1-az2"),
                ("gw-3", "gw-3", "10.20.4.11", "apne1-az4")],
    "origin-shield": [("shield-1", "shield-1", "10.20.1.21", "apne1-az1"),
                      ("shield-2", "shield-2", "10.20.2.21", "apne1-az2"),
                      ("shield-3", "shield-3", "10.20.4.21", "apne1-az4")],
    "playback": [("playback-1", "app-az1-04", "10.20.1.34", "apne1-az1"),
                 ("playback-2", "app-az2-02", "10.20.2.36", "apne1-az2"),
                 ("playback-3", "app-az4-05", "10.20.4.31", "apne1-az4"),
                 ("playback-4", "app-az1-07", "10.20.1.38", "apne1-az1")],
    "drm-license": [("drm-1", "app-az1-02", "10.20.1.52", "apne1-az1"),
                    ("drm-2", "app-az2-05", "10.20.2.57", "apne1-az2"),
                    ("drm-3", "app-az4-02", "10.20.4.55", "apne1-az4")],
    "packager": [
        ("pkg-1", "pkg-1", "10.20.1.61", "apne1-az1"), ("pkg-2", "pkg-2", "10.20.2.61", "apne1-az2"),
        ("pkg-3", "pkg-3", "10.20.4.61", "apne1-az4"), ("pkg-4", "pkg-4", "10.20.1.62", "apne1-az1"),
    ],
    "catalog": [("catalog-1", "app-az1-03", "10.20.1.43", "apne1-az1"),
                ("catalog-2", "app-az2-04", "10.20.2.44", "apne1-az2"),
                ("catalog-3", "app-az4-03", "10.20.4.46", "apne1-az4")],
    "entitlement": [
        ("ent-a1", "ent-a1", "10.20.1.71", "apne1-az1"), ("ent-a2", "ent-a2", "10.20.2.71", "apne1-az2"),
        ("ent-b1", "ent-b1", "10.20.4.71", "apne1-az4"), ("ent-b2", "ent-b2", "10.20.4.72", "apne1-az4"),
    ],
    "recommend": [("reco-1", "app-az1-05", "10.20.1.81", "apne1-az1"),
                  ("reco-2", "app-az2-06", "10.20.2.83", "apne1-az2")],
    "search": [("search-1", "app-az1-06", "10.20.1.91", "apne1-az1"),
               ("search-2", "app-az4-04", "10.20.4.92", "apne1-az4")],
    "profiles": [("profiles-1", "app-az1-08", "10.20.1.101", "apne1-az1"),
                 ("profiles-2", "app-az2-07", "10.20.2.103", "apne1-az2"),
                 ("profiles-3", "app-az4-06", "10.20.4.105", "apne1-az4")],
    "objstore-gw": [("rgw-1", "ceph-rgw-1", "10.20.6.11", "apne1-az1"),
                    ("rgw-2", "ceph-rgw-2", "10.20.6.12", "apne1-az2"),
                    ("rgw-3", "ceph-rgw-3", "10.20.6.13", "apne1-az4")],
}
SKEWED = ("ent-b1", "ent-b2")


def inst(w: World, service: str) -> tuple[str, str, str, str]:
    return w.pick(INST[service])


def platform(w: World):
    return w.rng.choices(PLATFORMS, weights=PLAT_W)[0]


def content(w: World, hot_share: float = 0.7) -> str:
    if w.r() < hot_share:
        return w.pick(HOT)
    return f"c-{w.ri(10200, 55999)}"


def seg_path(w: World, cid: str, rung: str | None = None) -> str:
    rung = rung or w.pick(["v360", "v540", "v720", "v720", "v1080", "v1080", "v1080"])
    return f"/v/{cid}/cmaf/{rung}/seg-{w.ri(1, 1400):05d}.m4s"


# ---------------------------------------------------------------------------------------------
# Changes: deploys (UTC, the deploy pipeline), config changes (JST with offset), feature flags
# (UTC audit export), certificates (UTC), schema migrations (JST wall time)
# ---------------------------------------------------------------------------------------------

DEPLOYS = engine.table(at, "ssstisss", """
# id, service, version, start, seconds, status, by, summary
DEP-4410 | catalog | 3.7.4 | -1 15:20 | 260 | Succeeded | nomad-deploy | editorial rails: pinning
DEP-4411 | drm-license | 9.1.1 | 0 09:48:05 | 300 | Succeeded | m.sato | rolling restart (no code change):
    load staged FPS credential
DEP-4412 | profiles | 4.11.0 | 0 10:15 | 180 | Succeeded | nomad-deploy | kids profile avatars
DEP-4413 | search | 2.14.0 | 0 16:20 | 150 | Succeeded | nomad-deploy | ja tokenizer: long vowels
DEP-4414 | playback | 7.4.0 | 0 19:50 | 240 | Succeeded | nomad-deploy | heartbeat batching (5s -> 10s)
DEP-4415 | recommend | 3.2.0 | 1 09:30 | 200 | Succeeded | nomad-deploy | rail diversity re-ranker
DEP-4416 | packager | 5.2.0 | 1 12:50 | 330 | Succeeded | nomad-deploy | LL-HLS part hold-back tuning
DEP-4417 | entitlement | 12.3.0 | 1 16:10 | 280 | Succeeded | nomad-deploy | annual plan upgrade proration
DEP-4418 | search | 2.14.1 | 2 10:12 | 150 | Succeeded | nomad-deploy | synonyms refresh
DEP-4419 | drm-license | 9.1.2 | 2 14:10 | 300 | Succeeded | nomad-deploy | PlayReady SL3000 policy mapping
DEP-4420 | catalog | 3.8.0 | 2 17:30 | 270 | Succeeded | nomad-deploy | trending rail: per-region trending
DEP-4421 | catalog | 3.7.4 | 2 21:52 | 240 | Succeeded | r.kobayashi | rollback of 3.8.0
DEP-4422 | recommend | 3.2.1 | 2 22:20 | 200 | Succeeded | nomad-deploy | cold-start rail order
""")

CONFIG = [
    # id, service, key, from, to, author, applied, ticket, summary
    (
        "CHG-8801", "gateway", "limit_req.zone.api.rate", "800r/s", "1000r/s", "h.ito", at(0, 8, 40),
        "OPS-2210", "api rate limit per gateway node",
    ),
    (
        "CHG-8802", "recommend", "reco.candidates.max", "200", "300", "a.yamada", at(0, 13, 50), "RECO-311",
        "more candidates for the re-ranker",
    ),
    (
        "CHG-8803", "origin-shield", "vcl.vod_hash", 'querystring.filter(req.url, "tok")',
        "querystring.sort(req.url)", "gitops (shield-vcl#311)", at(0, 14, 4, 10), "CDN-877",
        "cache key: sort the query string instead of dropping tok (dedupe ?a&b vs ?b&a)",
    ),
    (
        "CHG-8804", "origin-shield", "vcl.vod_hash", "querystring.sort(req.url)",
        'querystring.filter(req.url, "tok")', "gitops (shield-vcl#313)", at(0, 14, 58, 30), "INC-5120",
        "revert shield-vcl#311",
    ),
    (
        "CHG-8805", "gateway", "limit_req.zone.sessions.rate", "2000r/s", "4000r/s", "h.ito", at(0, 19, 40),
        "OPS-2216", "premiere prep: session start rate limit",
    ),
    (
        "CHG-8806", "search", "index.shards", "3", "4", "y.nakamura", at(1, 2, 30), "SRCH-140",
        "nightly reindex with 4 shards",
    ),
    (
        "CHG-8807", "profiles", "avatar.cdn_host", "img1.kumo-video.example", "img.kumo-video.example",
        "t.mori", at(1, 7, 5), "PRF-77", "avatar host consolidation",
    ),
    (
        "CHG-8808", "profiles", "kafka.watch-history.offset[watch-events:7]", "48812331", "48812332",
        "t.mori (kafka-consumer-groups --reset-offsets)", at(1, 8, 26, 15), "INC-5131",
        "skip record at watch-events:7@48812331",
    ),
    (
        "CHG-8809", "catalog", "cache.title.ttl_s", "60", "120", "r.kobayashi", at(1, 10, 45), "CAT-902",
        "title cache ttl",
    ),
    (
        "CHG-8810", "objstore-gw", "transcode-batch.sprite-backfill.workers", "64", "8", "k.fujii",
        at(1, 13, 46, 40), "INC-5139", "throttle sprite backfill",
    ),
    (
        "CHG-8811", "entitlement", "chrony.server (ent hosts apne1-az4)",
        "169.254.169.123 (Amazon Time Sync)", "ntp-pci-2.kumo.internal", "ansible (net-infra#412)",
        at(1, 19, 58), "NET-412", "PCI segment: internal stratum-2 time source",
    ),
    (
        "CHG-8812", "entitlement", "chrony.server (ent hosts apne1-az4)", "ntp-pci-2.kumo.internal",
        "169.254.169.123 (Amazon Time Sync)", "ansible (net-infra#415)", at(1, 20, 47, 30), "INC-5144",
        "revert net-infra#412",
    ),
    (
        "CHG-8813", "kafka", "leader.replication.throttled.rate", "50MB/s", "200MB/s", "s.hayashi",
        at(2, 9, 25), "KAF-58", "faster reassignment onto kafka-2 (replaced broker)",
    ),
    (
        "CHG-8814", "kafka", "kafka-2.ebs.volume_type", "gp2", "gp3 (6000 iops, 500MB/s)", "s.hayashi",
        at(2, 13, 2), "INC-5152", "kafka-2 data volume to gp3",
    ),
    (
        "CHG-8815", "origin-shield", "beresp.grace (/v2160/)", "10s", "30s", "gitops (shield-vcl#318)",
        at(2, 14, 40), "CDN-889", "longer grace for 4K renditions",
    ),
    (
        "CHG-8816", "origin-shield", "varnishd.param.nuke_limit", "50", "1000",
        "d.kimura (varnishadm param.set)", at(2, 15, 41, 30), "INC-5155", "let big objects evict enough",
    ),
    (
        "CHG-8817", "entitlement", "stripe.api_key", "rk_live_…7Qx", "rk_live_…m2K", "finance-ops",
        at(2, 22, 25), "FIN-330", "quarterly restricted key rotation",
    ),
    (
        "CHG-8818", "postgres", "pg-billing: ALTER SEQUENCE billing_events_id_seq", "AS integer",
        "AS bigint MAXVALUE 9223372036854775807", "dba (s.ueda)", at(2, 23, 22, 40), "INC-5160",
        "sequence type follows the bigint column",
    ),
]

FLAGS = engine.table(at, "sssists", """
# flag, from, to, rollout %, by, at, comment
recommend.rail.diversity_boost | off | on | 10 | a.yamada | 0 10:30 | RECO-305 experiment
catalog.home.hero_autoplay | on | on | 100 | n.abe | 0 16:00 | 50% -> 100%
playback.license_prefetch | false | true | 100 | k.tanaka | 1 10:52 | PLAY-1188 faster next-episode start:
    prefetch licenses for the next 3 episodes
playback.license_prefetch | true | false | 0 | k.tanaka | 1 11:37:20 | INC-5136 rollback
profiles.kids_pin_v2 | off | on | 5 | t.mori | 1 18:30 | PRF-80 canary
search.query_rewrite_ja | on | on | 50 | y.nakamura | 2 09:15 | 25% -> 50%
playback.hevc_ladder.tvos | off | on | 20 | k.tanaka | 2 14:30 | PLAY-1201 HEVC for Apple TV
recommend.rail.diversity_boost | on | on | 50 | a.yamada | 2 21:00 | 10% -> 50%
""")

CERTS = [
    # name, service, kind, subject, serial, not_before, not_after, rotated_at, status, ticket
    (
        "fps-prod-2025", "drm-license", "FairPlay Streaming certificate",
        "CN=Kumo Video FPS, O=Kumo Video KK", "5e:1c:93:0a:77", datetime(2025, 4, 14, tzinfo=UTC),
        datetime(2026, 4, 14, tzinfo=UTC), datetime(2025, 4, 14, 2, 10, tzinfo=UTC), "active", "DRM-201",
    ),
    (
        "fps-prod-2026", "drm-license", "FairPlay Streaming certificate",
        "CN=Kumo Video FPS, O=Kumo Video KK", "6a:02:4d:f1:38", datetime(2026, 4, 1, tzinfo=UTC),
        datetime(2027, 4, 13, tzinfo=UTC), datetime(2026, 4, 10, 6, 12, tzinfo=UTC),
        "staged (vault secret/drm/fps, loaded at startup)", "DRM-244",
    ),
    (
        "playready-server-2026", "drm-license", "PlayReady server certificate", "CN=Kumo Video PlayReady",
        "33:90:c2:5b:0e", datetime(2026, 1, 5, tzinfo=UTC), datetime(2028, 1, 5, tzinfo=UTC),
        datetime(2026, 1, 6, 3, 0, tzinfo=UTC), "active", "DRM-230",
    ),
    (
        "widevine-service-2025", "drm-license", "Widevine service certificate",
        "CN=widevine.kumo-video.example", "71:aa:09:d2:6c", datetime(2025, 9, 1, tzinfo=UTC),
        datetime(2027, 9, 1, tzinfo=UTC), datetime(2025, 9, 2, 1, 30, tzinfo=UTC), "active", "DRM-215",
    ),
    (
        "api-kumo-video-example", "gateway", "TLS server (ACM)", "CN=*.kumo-video.example",
        "0b:7e:51:c4:90", datetime(2026, 3, 30, tzinfo=UTC), datetime(2026, 10, 27, tzinfo=UTC),
        datetime(2026, 4, 1, 1, 0, tzinfo=UTC), "active", "OPS-2190",
    ),
    (
        "origin-kumo-video-example", "origin-shield", "TLS server (CDN to shield)",
        "CN=origin.kumo-video.example", "4d:e8:13:72:af", datetime(2026, 4, 14, tzinfo=UTC),
        datetime(2026, 7, 13, tzinfo=UTC), at(1, 10, 40).astimezone(UTC), "active", "CDN-880",
    ),
    (
        "kafka-client-2026q2", "kafka", "mTLS client (internal CA)", "CN=kafka-clients.kumo.internal",
        "19:c0:5f:3e:d7", datetime(2026, 4, 15, 18, 0, tzinfo=UTC),
        datetime(2026, 7, 15, 18, 0, tzinfo=UTC), at(2, 3, 0).astimezone(UTC), "active", "KAF-55",
    ),
    (
        "pg-billing-server", "postgres", "TLS server (internal CA)", "CN=pg-billing.kumo.internal",
        "2f:61:b8:04:9e", datetime(2026, 2, 1, tzinfo=UTC), datetime(2027, 2, 1, tzinfo=UTC),
        datetime(2026, 2, 1, 4, 0, tzinfo=UTC), "active", "DBA-71",
    ),
    (
        "appstore-server-api-key", "entitlement", "App Store Server API signing key", "key id 7QK2M9XA41",
        "-", datetime(2025, 11, 20, tzinfo=UTC), datetime(2026, 11, 20, tzinfo=UTC),
        datetime(2025, 11, 20, 5, 0, tzinfo=UTC), "active", "ENT-640",
    ),
]

MIGRATIONS = [
    # rank, version, description, script, by, installed_on (JST wall), ms, schema
    (
        57, "57", "title availability region idx", "V57__title_availability_region_idx.sql",
        "flyway_catalog", at(-9, 10, 2, 11), 4210, "catalog",
    ),
    (
        58, "58", "trending counters", "V58__trending_counters.sql", "flyway_catalog", at(2, 17, 31, 40),
        912, "catalog",
    ),
    (
        1, "20260402031500", "add trial flag to plans", "20260402031500_add_trial_flag_to_plans.rb",
        "rails (entitlement)", at(-12, 12, 15, 30), 188, "billing",
    ),
    (
        2, "20260409101500", "billing events id to bigint", "20260409101500_billing_events_id_to_bigint.rb",
        "rails (entitlement)", at(-5, 2, 10, 4), 1834211, "billing",
    ),
    (
        3, "20260415073000", "annual proration credits", "20260415073000_annual_proration_credits.rb",
        "rails (entitlement)", at(1, 16, 12, 20), 341, "billing",
    ),
]


def change_tables(w: World) -> None:
    rows = []
    for did, svc, ver, start, dur, status, by, summary in DEPLOYS:
        img = f"registry.kumo.internal/vod/{svc}:{ver}"
        rows.append(
            [did, svc, ver, img, zulu(start), zulu(start + timedelta(seconds=dur)), status, by, summary]
        )
    w.table("deploys", engine.columns("DEPLOYS_ROLLOUT"), rows)
    w.table("config_changes",
            ["change_id", "service", "key", "from_value", "to_value", "author", "applied_at", "ticket",
             "summary"],
            [[c, s, k, a, b, who, iso(t), tk, sm] for c, s, k, a, b, who, t, tk, sm in CONFIG])
    w.table("feature_flags",
            ["flag_key", "environment", "from_state", "to_state", "rollout_pct", "changed_by", "changed_at",
             "comment"],
            [[f, "production", a, b, pct, who, zulu(t), cm] for f, a, b, pct, who, t, cm in FLAGS])
    w.table("certificates",
            ["cert_name", "service", "kind", "subject", "serial", "not_before", "not_after", "rotated_at",
             "status", "ticket"],
            [[n, s, k, sub, ser, zulu(nb), zulu(na), zulu(rot), st, tk]
             for n, s, k, sub, ser, nb, na, rot, st, tk in CERTS])
    w.table("schema_migrations", engine.columns("FLYWAY_SCHEMA"),
            [[r, v, d, s, by, wall(t), ms, 1, sch] for r, v, d, s, by, t, ms, sch in MIGRATIONS])
    dc = "service.apne1.kumo.internal"
    w.table("dependencies", engine.columns("DEPENDENCIES_VIA"),
            [["cdn", "origin-shield", "https",
              "origin.kumo-video.example:443 (CloudFront origin, shield-1..3)"],
             ["origin-shield", "packager", "http", f"packager.{dc}:8080 (varnish backends pkg-1..4)"],
             ["packager", "objstore-gw", "s3", f"rgw.{dc}:7480 bucket vod-cmaf (user svc-media)"],
             ["packager", "drm-license", "http", f"drm-license.{dc}:8443/cpix (content keys, cached)"],
             ["packager (prepackage job)", "objstore-gw", "s3",
              f"rgw.{dc}:7480 buckets vod-mezzanine (read), vod-packaged (write), user svc-media"],
             ["transcode-batch (sprite-backfill)", "objstore-gw", "s3",
              f"rgw.{dc}:7480 buckets vod-mezzanine, vod-sprites (user svc-media)"],
             ["gateway", "playback", "http", f"playback.{dc}:8080"],
             ["gateway", "catalog", "http", f"catalog.{dc}:8080"],
             ["gateway", "search", "http", f"search.{dc}:8090"],
             ["gateway", "recommend", "http", f"recommend.{dc}:8000"],
             ["gateway", "profiles", "http", f"profiles.{dc}:3000"],
             ["gateway", "entitlement", "http", f"entitlement.{dc}:3000"],
             ["gateway", "drm-license", "http", f"drm-license.{dc}:8443"],
             ["playback", "entitlement", "http", f"entitlement.{dc}:3000 (JWKS, entitlement check)"],
             ["playback", "catalog", "http", f"catalog.{dc}:8080/internal/v1/playable"],
             ["playback", "drm-license", "http",
              f"drm-license.{dc}:8443/internal/v1 (license tokens, prefetch)"],
             ["playback", "redis", "redis", "redis-session.kumo.internal:6379 (concurrent streams)"],
             ["playback", "kafka", "kafka",
              "kafka-1..3.kumo.internal:9093 topics playback.sessions (acks=all, sync), watch-events"],
             ["playback", "objstore-gw", "s3", f"rgw.{dc}:7480 bucket vod-packaged (premiere manifests)"],
             ["drm-license", "entitlement", "http", f"entitlement.{dc}:3000 (plan policy)"],
             ["catalog", "pg-catalog", "postgresql",
              "pg-catalog.kumo.internal:5432/catalog (pool catalog-primary)"],
             ["catalog", "pg-catalog-ro", "postgresql",
              "pg-catalog-ro.kumo.internal:5432/catalog (hot standby, pool catalog-replica: titles, "
              "playable)"],
             ["catalog", "recommend", "http", f"recommend.{dc}:8000 (for-you rail)"],
             ["catalog", "profiles", "http", f"profiles.{dc}:3000 (continue-watching rail)"],
             ["catalog", "kafka", "kafka", "kafka-1..3.kumo.internal:9093 topic catalog.changes"],
             ["recommend", "catalog", "http", f"catalog.{dc}:8080/internal/v1/titles:batchGet"],
             ["recommend", "kafka", "kafka",
              "kafka-1..3.kumo.internal:9093 topic watch-events group reco-events"],
             ["search", "kafka", "kafka",
              "kafka-1..3.kumo.internal:9093 topic catalog.changes group search-catalog"],
             ["profiles", "kafka", "kafka",
              "kafka-1..3.kumo.internal:9093 topic watch-events group watch-history"],
             ["profiles", "redis", "redis", "redis-profiles.kumo.internal:6379 (continue-watching cache)"],
             ["profiles", "pg-profiles", "postgresql", "pg-profiles.kumo.internal:5432/profiles"],
             ["entitlement", "pg-billing", "postgresql", "pg-billing.kumo.internal:5432/billing"],
             ["entitlement", "redis", "redis", "redis-session.kumo.internal:6379 (sessions, sidekiq)"],
             ["entitlement", "stripe", "https", "api.stripe.com:443 (external)"],
             ["entitlement", "app stores", "https",
              "api.storekit.itunes.apple.com, androidpublisher.googleapis.com (external)"]])


BASE_VERSION = {"playback": "7.3.2", "drm-license": "9.1.0", "packager": "5.1.3", "catalog": "3.7.4",
                "entitlement": "12.2.1", "recommend": "3.1.4", "search": "2.13.2", "profiles": "4.10.2"}


def version(service: str, t: datetime) -> str:
    return engine.deployed(BASE_VERSION[service], DEPLOYS, service, t)


def alloc(service: str, instance: str, t: datetime) -> str:
    """A Nomad allocation id: changes with each deploy of the service, stable otherwise."""
    n = sum(
        1 for _d, svc, _v, start, dur, *_ in DEPLOYS if svc == service and start + timedelta(seconds=dur) <= t
    )
    seed = f"{instance}/{n}"
    h = 0
    for c in seed:
        h = (h * 131 + ord(c)) % 4294967291
    return f"{h:08x}"[:8]


# ---------------------------------------------------------------------------------------------
# Log formats (each component writes its own; the collector's ts is JST)
# ---------------------------------------------------------------------------------------------


def zap(t: datetime, level: str, caller: str, msg: str, **extra) -> str:
    """Go services with zap's production encoder and ISO8601 UTC times (playback)."""
    d = {"level": level, "ts": zulu_ms(t), "caller": caller, "msg": msg}
    d.update(extra)
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False)


def log4j(t: datetime, level: str, thread: str, logger: str, msg: str) -> str:
    """drm-license: log4j2 '%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%t] %c{1.} - %m' in JST, no zone."""
    return f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')},{ms3(t)} {level:<5} [{thread}] {logger} - {msg}"


def glog(t: datetime, level: str, tid: int, src: str, msg: str) -> str:
    """packager: glog, host time (JST), no year, no zone."""
    lt = loc(t)
    return (
        f"{level[0]}{lt.month:02d}{lt.day:02d} {lt.strftime('%H:%M:%S')}.{lt.microsecond:06d} {tid:>6} "
        f"{src}] {msg}"
    )


def boot(t: datetime, level: str, thread: str, logger: str, msg: str) -> str:
    """catalog: Spring Boot 3 console pattern, ISO time with offset."""
    stamp = loc(t).isoformat(timespec="milliseconds")
    return f"{stamp} {level:>5} 1 --- [catalog] [{thread:>15}] {logger:<40} : {msg}"


def rails(t: datetime, level: str, pid: int, rid: str, msg: str) -> str:
    """entitlement web: Ruby Logger with tagged request ids, host local time (JST), no zone."""
    lt = loc(t)
    return (
        f"{level[0]}, [{lt.strftime('%Y-%m-%dT%H:%M:%S')}.{lt.microsecond:06d} #{pid}] {level:>5} -- : "
        f"[{rid}] {msg}"
    )


def sidekiq(t: datetime, level: str, pid: int, tid: str, cls: str, jid: str, msg: str, **kv) -> str:
    """entitlement jobs: Sidekiq 7 pretty formatter, UTC."""
    extra = "".join(f" {k}={v}" for k, v in kv.items())
    return f"{zulu_ms(t)} pid={pid} tid={tid} class={cls} jid={jid}{extra} {level}: {msg}"


def structlog(t: datetime, level: str, logger: str, event: str, **kv) -> str:
    """recommend: structlog JSONRenderer, UTC ISO times."""
    d = {"event": event}
    d.update(kv)
    u = t.astimezone(UTC)
    d.update({"level": level, "logger": logger, "timestamp": u.strftime("%Y-%m-%dT%H:%M:%S.%fZ")})
    return json.dumps(d, ensure_ascii=False)


def logfmt(t: datetime, level: str, caller: str, msg: str, **kv) -> str:
    """search: go-kit logfmt, UTC."""
    parts = [f"ts={zulu_ms(t)}", f"caller={caller}", f"level={level}", f'msg="{msg}"']
    for k, v in kv.items():
        s = str(v)
        parts.append(f'{k}="{s}"' if (" " in s or '"' in s or "=" in s or not s.isascii()) else f"{k}={s}")
    return " ".join(parts)


def pino(t: datetime, level: int, host: str, msg: str, **extra) -> str:
    """profiles: pino JSON, epoch milliseconds."""
    d = {"level": level, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": host}
    d.update(extra)
    d["msg"] = msg
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False)


def kafkaline(t: datetime, level: str, msg: str, logger: str) -> str:
    """kafka brokers (hosts on UTC): log4j '[%d] %p %m (%c)'."""
    u = t.astimezone(UTC)
    return f"[{u.strftime('%Y-%m-%d %H:%M:%S')},{ms3(u)}] {level} {msg} ({logger})"


def pgline(t: datetime, pid: int, who: str, sev: str, msg: str) -> str:
    who = f"{who} " if who else ""
    return f"{loc(t).strftime('%Y-%m-%d %H:%M:%S')}.{ms3(t)} JST [{pid}] {who}{sev}:  {msg}"


def redisline(t: datetime, role: str, mark: str, msg: str, pid: int = 1) -> str:
    lt = loc(t)
    stamp = f"{lt.day:02d} {MON[lt.month - 1]} {lt.year} {lt.strftime('%H:%M:%S')}.{ms3(t)}"
    return f"{pid}:{role} {stamp} {mark} {msg}"


def rgwline(t: datetime, thread: str, lvl: int, msg: str) -> str:
    """objstore-gw: ceph radosgw, UTC with numeric offset."""
    u = t.astimezone(UTC)
    return f"{u.strftime('%Y-%m-%dT%H:%M:%S')}.{ms3(u)}+0000 {thread} {lvl:>2} {msg}"


def level_of(status: int) -> str:
    if status >= 500:
        return "ERROR"
    if status >= 400:
        return "WARN"
    return "INFO"


def skew_frac(t: datetime) -> float:
    """Share of token checks failing while the az4 entitlement hosts run 16m43s slow."""
    if not inside(t, SKEW):
        return 0.0
    return 0.12 + 0.4 * min(1.0, (t - SKEW[0]).total_seconds() / 900)


def drm_sat_frac(t: datetime) -> float:
    if not inside(t, DRM_SAT):
        return 0.0
    return min(0.55, 0.15 + (t - DRM_SAT[0]).total_seconds() / 600)


def pool_dry(t: datetime) -> bool:
    return inside(t, POOL_DRY)


# ---------------------------------------------------------------------------------------------
# gateway (nginx): access log in local time with upstream fields, and its error log
# ---------------------------------------------------------------------------------------------

ISP_PREFIX = ["126", "60", "153", "106", "49", "114", "219", "180", "133", "111"]
GW_ROUTES = [
    # weight, method, kind, upstream service, port
    (14, "GET", "home", "catalog", 8080), (10, "GET", "title", "catalog", 8080),
    (6, "GET", "search", "search", 8090), (6, "GET", "reco", "recommend", 8000),
    (7, "GET", "cw", "profiles", 3000), (9, "POST", "session", "playback", 8080),
    (20, "POST", "heartbeat", "playback", 8080), (2, "POST", "errors", "playback", 8080),
    (9, "POST", "license", "drm-license", 8443), (5, "POST", "token", "entitlement", 3000),
    (5, "GET", "ent", "entitlement", 3000), (0.7, "POST", "checkout", "entitlement", 3000),
    (0.7, "POST", "stripe", "entitlement", 3000),
]
GW_W = [r[0] for r in GW_ROUTES]
TOKEN_KINDS = ("session", "cw", "reco", "ent", "token", "home")


def gw_path(w: World, kind: str, plat) -> str:
    drm = plat[2]
    paths = {
        "home": f"/v1/home?profile={w.profile()}&locale=ja-JP", "title": f"/v1/titles/{content(w, 0.5)}",
        "search": f"/v1/search?q=%E3%81%{w.hexid(2)}%E3%{w.hexid(2)}&limit=30",
        "reco": f"/v1/recommendations?profile={w.profile()}&rail=for-you",
        "cw": f"/v1/profiles/{w.profile()}/continue-watching", "session": "/v1/playback/sessions",
        "heartbeat": "/v1/playback/heartbeat", "errors": "/v1/playback/errors",
        "license": {"fairplay": "/drm/fairplay/ckc", "widevine": "/drm/widevine/license",
                    "playready": "/drm/playready/rightsmanager.asmx"}[drm],
        "token": "/v1/auth/token", "ent": "/v1/entitlements/me", "checkout": "/v1/subscriptions",
        "stripe": "/webhooks/stripe",
    }
    return paths[kind]


def gw_fault(w: World, t: datetime, kind: str, plat) -> tuple[int, float] | None:
    """(status, request_time_s) for a broken request, or None."""
    drm = plat[2]
    if inside(t, FPS_EXPIRED) and kind == "license" and drm == "fairplay":
        return 500, w.ri(12, 40) / 1000
    if inside(t, (PUBLISH_NOON, REPLAY_WAIT[1])) and kind == "session" and w.r() < 0.1:
        return 403, w.ri(30, 90) / 1000
    if inside(t, PREMIERE) and kind == "session" and w.r() < (0.45 if t < at(0, 20, 20) else 0.3):
        return 404, w.ri(40, 140) / 1000
    if kind == "license" and w.r() < drm_sat_frac(t):
        return 503, w.ri(2, 30) / 1000
    if kind in TOKEN_KINDS and w.r() < skew_frac(t):
        return 401, w.ri(3, 20) / 1000
    if inside(t, BURST) and kind == "session":
        x = w.r()
        if x < 0.1:
            return 504, 6.0 + w.ri(0, 3) / 1000
        if x < 0.22:
            return 503, 5.0 + w.ri(2, 80) / 1000
    if pool_dry(t) and kind == "home" and w.r() < 0.6:
        return w.pick([503, 503, 504]), 5.0 + w.ri(1, 90) / 1000
    if inside(t, SEQ_MAX) and kind in ("checkout", "stripe") and w.r() < 0.92:
        return 500, w.ri(60, 400) / 1000
    return None


def gw_ok_time(w: World, t: datetime, kind: str) -> float:
    base = {"home": w.ri(40, 220), "title": w.ri(8, 60), "search": w.ri(20, 180), "reco": w.ri(30, 160),
            "cw": w.ri(6, 40), "session": w.ri(90, 320), "heartbeat": w.ri(3, 15), "errors": w.ri(2, 9),
            "license": w.ri(15, 70), "token": w.ri(20, 90), "ent": w.ri(8, 40), "checkout": w.ri(600, 2400),
            "stripe": w.ri(30, 160)}[kind]
    if inside(t, BURST) and kind == "session":
        base = w.ri(1400, 4900)
    if kind == "session" and inside(t, PREFETCH):
        base += w.ri(150, 900)
    if kind == "home" and inside(t, (POOL_DRY[0] - timedelta(minutes=6), POOL_DRY[1])):
        base = w.ri(900, 4800)
    return base / 1000


# the requests of an affected route during an incident (only their failures are logged)
FAULT_BOOST = [(FPS_EXPIRED, ("license",), 14), ((PUBLISH_NOON, REPLAY_WAIT[1]), ("session",), 20),
               (PREMIERE, ("session",), 12), (DRM_SAT, ("license",), 12), (SKEW, TOKEN_KINDS, 10),
               (BURST, ("session",), 22), (POOL_DRY, ("home",), 12), (SEQ_MAX, ("checkout", "stripe"), 4)]
GW_BY_KIND = {r[2]: r for r in GW_ROUTES}


def gateway_bg(w: World, t: datetime) -> None:
    """2xx are sampled 1:12 (nginx map on $status); every 4xx and 5xx is logged."""
    sampled = w.count(0.4 * load(t))
    boost = [k
             for span, kinds, rate in FAULT_BOOST
             if inside(t, span)
             for k in kinds
             for _ in range(w.count(rate * load(t) / len(kinds)))]
    n = sampled + w.count(8 * load(t))
    for i in range(n + len(boost)):
        tt = w.jit(t)
        if i < n:
            _wgt, method, kind, up, port = w.rng.choices(GW_ROUTES, weights=GW_W)[0]
        else:
            _wgt, method, kind, up, port = GW_BY_KIND[boost[i - n]]
        plat = platform(w)
        f = gw_fault(w, tt, kind, plat)
        status, rt = f if f else (200, gw_ok_time(w, tt, kind))
        if not f:
            x = w.r()
            if kind in ("heartbeat", "search", "home") and x < 0.03:
                status = 499
            elif kind == "title" and x < 0.05:
                status = 404
            elif kind in ("token", "ent", "cw") and x < 0.04:
                status = 401
            elif kind == "session" and x < 0.025:
                status = 429
            elif kind == "session" and x < 0.05:
                status = 201
        if i >= sampled and status < 400 or i >= n and not f:
            continue
        ui = w.pick(INST[up])
        ups = f"{ui[2]}:{port}"
        if status == 499:
            urt, body = "-", 0
        else:
            urt = f"{max(0.001, rt - w.ri(0, 3) / 1000):.3f}"
            body = (
                (w.ri(180, 48000) if method == "GET" else w.ri(40, 2400)) if status < 400 else w.ri(90, 420)
            )
        if status == 504:
            urt, body = f"{rt:.3f}", 167
        gi = inst(w, "gateway")
        ip = f"{w.pick(ISP_PREFIX)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
        ua = plat[4] if kind != "stripe" else "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
        if kind == "stripe":
            ip = f"54.187.{w.ri(174, 216)}.{w.ri(2, 254)}"
        msg = (
            f'{ip} - - [{clf(tt)}] "{method} {gw_path(w, kind, plat)} HTTP/1.1" {status} {body} "-" "{ua}" '
            f'rt={rt:.3f} uct="{"0.001" if status != 499 else "-"}" urt="{urt}" ups="{ups}" rid={w.hexid(32)}'
        )
        w.emit(tt, "gateway", level_of(status), msg, host=gi[1], stream="access", upstream=up)
    gateway_errlog(w, t)


def gw_err(w: World, t: datetime, level: str, lvl: str, msg: str, host: str | None = None) -> None:
    lt = loc(t)
    pid = w.ri(9000, 9007)
    line = f"{lt.strftime('%Y/%m/%d %H:%M:%S')} [{lvl}] {pid}#{pid}: *{w.ri(10**7, 9 * 10**8)} {msg}"
    w.emit(t, "gateway", level, line, host=host or inst(w, "gateway")[1], stream="error")


def gateway_errlog(w: World, t: datetime) -> None:
    if w.r() < 0.028 * (0.5 + load(t)):
        tt = w.jit(t)
        ip = f"{w.pick(ISP_PREFIX)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
        ui = w.pick(INST["catalog"])
        gw_err(
            w, tt, "WARN", "warn",
            f"an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{w.ri(1, 9)}/"
            f"{w.ri(10, 99)}/00000{w.ri(10000, 99999)} while reading upstream, client: {ip}, server: "
            f'api.kumo-video.example, request: "GET /v1/home?profile={w.profile()}&locale=ja-JP HTTP/1.1", '
            f'upstream: "http://{ui[2]}:8080/v1/home?profile={w.profile()}&locale=ja-JP", host: '
            '"api.kumo-video.example"',
        )
    if w.r() < 0.018:
        tt = w.jit(t)
        ip = f"{w.pick(ISP_PREFIX)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
        ui = w.pick(INST["recommend"])
        gw_err(
            w, tt, "ERROR", "error",
            f"upstream prematurely closed connection while reading response header from upstream, client: "
            f"{ip}, "
            f'server: api.kumo-video.example, request: "GET '
            f"/v1/recommendations?profile={w.profile()}&rail=for-you "
            f'HTTP/1.1", upstream: '
            f'"http://{ui[2]}:8000/v1/recommendations?profile={w.profile()}&rail=for-you", '
            'host: "api.kumo-video.example"',
        )
    if pool_dry(t) or inside(t, BURST):
        for _ in range(w.count(1.2 if pool_dry(t) else 0.6)):
            tt = w.jit(t)
            ip = f"{w.pick(ISP_PREFIX)}.{w.ri(0, 255)}.{w.ri(0, 255)}.{w.ri(1, 254)}"
            if pool_dry(t):
                ui, req, port = (
                    w.pick(INST["catalog"]), f"GET /v1/home?profile={w.profile()}&locale=ja-JP", 8080,
                )
            else:
                ui, req, port = w.pick(INST["playback"]), "POST /v1/playback/sessions", 8080
            gw_err(w, tt, "ERROR", "error",
                   f"upstream timed out (110: Connection timed out) while reading response header from "
                   f"upstream, "
                   f'client: {ip}, server: api.kumo-video.example, request: "{req} HTTP/1.1", upstream: '
                   f'"http://{ui[2]}:{port}{req.split(" ", 1)[1]}", host: "api.kumo-video.example"')


# ---------------------------------------------------------------------------------------------
# origin-shield (varnish 7.4): varnishncsa (hosts on UTC), varnishlog for fetch errors, health
# ---------------------------------------------------------------------------------------------

CDN_IPS = ["13.113.196.", "13.115.102.", "52.199.127.", "54.239.185.", "130.176.17."]


def uhd_share(t: datetime) -> float:
    """Share of segment requests for 2160p renditions: the 4K collection goes live at 15:00 on 4/16."""
    return 0.22 if t >= UHD_PUBLISH else 0.03


def shield_req(w: World, t: datetime):
    """(content id, path, is_hot, is_uhd) of one CDN fetch."""
    if w.r() < uhd_share(t):
        cid = w.pick(UHD_IDS)
        return cid, seg_path(w, cid, "v2160"), True, True
    hot = w.r() < 0.72
    cid = w.pick(HOT) if hot else f"c-{w.ri(10200, 55999)}"
    return cid, seg_path(w, cid), hot, False


def shield_fault(w: World, t: datetime, hot: bool, uhd: bool) -> tuple[str, int, int] | None:
    """(hitmiss, status, time_us) for a broken fetch, or None."""
    if inside(t, VCL_HASH) and w.r() < 0.2:
        return "miss", 503, w.ri(2_500_000, 4_100_000)
    if inside(t, SLOWDOWN) and not hot and w.r() < 0.55:
        return "miss", 503, w.ri(600_000, 1_900_000)
    if inside(t, NUKE) and uhd and w.r() < 0.62:
        return "miss", 503, w.ri(180_000, 900_000)
    return None


def shield_bg(w: World, t: datetime) -> None:
    sampled = w.count(0.3 * load(t))
    for i in range(sampled + w.count(7 * load(t))):
        tt = w.jit(t)
        cid, path, hot, uhd = shield_req(w, tt)
        f = shield_fault(w, tt, hot, uhd)
        if f:
            hm, status, us = f
            size = 282
        else:
            p_hit = 0.04 if inside(tt, VCL_HASH) else (0.97 if hot else 0.62)
            hm = "hit" if w.r() < p_hit else "miss"
            status = 200
            size = w.ri(14_000_000, 21_000_000) if uhd else w.ri(240_000, 4_800_000)
            us = w.ri(60, 900) if hm == "hit" else w.ri(18_000, 160_000)
            if hm == "miss" and inside(tt, VCL_HASH):
                us = w.ri(400_000, 2_400_000)
            if w.r() < 0.012:
                status, size, hm, us = 404, 0, "miss", w.ri(2_000, 9_000)
        if i >= sampled and status < 400:
            continue
        si = inst(w, "origin-shield")
        tok = f"st_{w.b36(22)}"
        msg = (
            f'{w.pick(CDN_IPS)}{w.ri(2, 250)} - - [{clf(tt, utc=True)}] "GET '
            f"http://origin.kumo-video.example{path}"
            f'?tok={tok} HTTP/1.1" {status} {size} "-" "Amazon CloudFront" {hm} {us}'
        )
        w.emit(tt, "origin-shield", level_of(status), msg, host=si[1], stream="ncsa")
    lt = loc(t)
    if lt.minute % 20 == 3:  # backend probes: only state changes are logged; a heartbeat line from one shield
        si = w.pick(INST["origin-shield"])
        w.emit(w.jit(t, 5), "origin-shield", "INFO",
               f"Backend_health - boot.pkg_{w.ri(1, 4)} Still healthy 4---X-RH 5 3 5 "
               f"{w.ri(2000, 6000) / 1e6:.6f} "
               f"{w.ri(2000, 6000) / 1e6:.6f} HTTP/1.1 200 OK", host=si[1], stream="vsl")
    if w.r() < 0.006:
        si, b = w.pick(INST["origin-shield"]), w.ri(1, 4)
        tt = w.jit(t)
        w.emit(tt, "origin-shield", "WARN",
               f"Backend_health - boot.pkg_{b} Went sick 4---X-R- 2 3 5 0.000000 0.004{w.ri(100, 999)} ",
               host=si[1], stream="vsl")
        w.emit(tt + timedelta(seconds=w.ri(8, 20)), "origin-shield", "INFO",
               f"Backend_health - boot.pkg_{b} Back healthy 4---X-RH 3 3 5 0.004{w.ri(100, 999)} "
               f"0.004{w.ri(100, 999)} HTTP/1.1 200 OK", host=si[1], stream="vsl")
    if inside(t, NUKE):
        for _ in range(w.count(5.5)):
            tt = w.jit(t)
            cid = w.pick(UHD_IDS)
            w.vxid += w.ri(3000, 90000)
            w.emit(
                tt, "origin-shield", "ERROR",
                f"vxid={w.vxid} BereqURL={seg_path(w, cid, 'v2160')} BerespStatus=200 "
                f'Length={w.ri(14_000_000, 21_000_000)} ExpKill="LRU_Exhausted" FetchError="Could not get '
                'storage" Timestamp=Error', host=w.pick(INST["origin-shield"])[1], stream="vsl",
            )
    if inside(t, VCL_HASH) and lt.minute % 4 == 0:
        si, b = w.pick(INST["origin-shield"]), w.ri(1, 4)
        tt = w.jit(t)
        w.emit(tt, "origin-shield", "WARN",
               f"Backend_health - boot.pkg_{b} Went sick 4---X-R- 2 3 5 0.000000 2.5{w.ri(10000, 99999)} ",
               host=si[1], stream="vsl")
        w.emit(tt + timedelta(seconds=w.ri(20, 50)), "origin-shield", "INFO",
               f"Backend_health - boot.pkg_{b} Back healthy 4---X-RH 3 3 5 1.9{w.ri(10000, 99999)} "
               f"2.1{w.ri(10000, 99999)} HTTP/1.1 200 OK", host=si[1], stream="vsl")


def shield_vcl(w: World) -> None:
    for t, name in ((VCL_HASH[0], "vod_20260414_0504_pr311"), (VCL_HASH[1], "vod_20260414_0558_pr313")):
        for i, si in enumerate(INST["origin-shield"]):
            tt = t + timedelta(milliseconds=300 + 420 * i)
            w.emit(
                tt, "origin-shield", "INFO",
                f"CLI telnet 10.20.9.5 51{w.ri(100, 999)} 10.20.{si[2].split('.')[2]}.21 6082 Rd vcl.load "
                f"{name} /etc/varnish/vod.vcl", host=si[1], stream="varnishd",
            )
            w.emit(
                tt + timedelta(milliseconds=900), "origin-shield", "INFO",
                f"CLI telnet 10.20.9.5 51{w.ri(100, 999)} 10.20.{si[2].split('.')[2]}.21 6082 Rd vcl.use "
                f"{name}", host=si[1], stream="varnishd",
            )
    t = at(2, 15, 41, 30)
    for i, si in enumerate(INST["origin-shield"]):
        w.emit(t + timedelta(milliseconds=200 + 300 * i), "origin-shield", "INFO",
               f"CLI telnet 10.20.9.5 51{w.ri(100, 999)} 10.20.{si[2].split('.')[2]}.21 6082 Rd param.set "
               "nuke_limit 1000", host=si[1], stream="varnishd")


# ---------------------------------------------------------------------------------------------
# packager (C++, glog) and objstore-gw (ceph radosgw beast frontend)
# ---------------------------------------------------------------------------------------------


def pk(w: World, t: datetime, level: str, src: str, msg: str, node: str | None = None,
       **attrs: str) -> None:
    pi = w.pick(INST["packager"]) if node is None else next(p for p in INST["packager"] if p[0] == node)
    w.emit(t, "packager", {"WARNING": "WARN"}.get(level, level), glog(t, level, w.ri(3100, 3164), src, msg),
           host=pi[1], version=version("packager", t), **attrs)


def rgw(w: World, t: datetime, status: int, user: str, method: str, key: str, size: int, agent: str,
        latency: float, level: str | None = None) -> None:
    ri = w.pick(INST["objstore-gw"])
    thread = f"7f{w.hexid(10)}"
    req = f"0x7f{w.hexid(10)}"
    src = {"svc-media": w.pick(INST["packager"])[2], "svc-playback": w.pick(INST["playback"])[2]}.get(
        user, f"10.20.7.{w.ri(11, 40)}"
    )
    msg = (
        f'beast: {req}: {src} - {user} [{clf(t, utc=True, millis=True)}] "{method} /{key} HTTP/1.1" {status} '
        f'{size} - "{agent}" - latency={latency:.9f}s'
    )
    w.emit(t, "objstore-gw", level or level_of(status), rgwline(t, thread, 1, msg), host=ri[1],
           cluster="ceph-media")


def pkg_agent(t: datetime) -> str:
    return f"kumo-packager/{version('packager', t)} aws-sdk-cpp/1.11.285"


SPRITE_AGENT = "aws-sdk-go-v2/1.30.3 os/linux lang/go#1.22.5 api/s3#1.58.2 sprite-backfill/0.9.1"


def s3key(path: str) -> str:
    # /v/c-31877/cmaf/v1080/seg-00042.m4s -> vod-cmaf/c-31877/v1080/seg-00042.cmfv
    _v, cid, _c, rung, seg = path.strip("/").split("/")
    return f"vod-cmaf/{cid}/{rung}/{seg.replace('.m4s', '.cmfv')}"


def packager_bg(w: World, t: datetime) -> None:
    ld = load(t)
    storm = inside(t, VCL_HASH)
    for _ in range(w.count((2.0 if storm else 0.22) * ld)):
        tt = w.jit(t)
        cid, path, hot, uhd = shield_req(w, tt)
        if inside(tt, SLOWDOWN) and not hot and w.r() < 0.6:
            continue  # logged as a failure below
        took = w.ri(900, 2600) if storm else w.ri(9, 70)
        origin = w.ri(5, 40) if not storm else w.ri(20, 200)
        fmt = w.pick(["dash", "hls", "hls"])
        size = w.ri(14_000_000, 21_000_000) if uhd else w.ri(240_000, 4_800_000)
        pk(w, tt, "INFO", "http_handler.cc:212",
           f"GET {path} -> {fmt} {size}B {took}ms (origin read {origin}ms)")
        if w.r() < 0.4:
            rgw(w, tt - timedelta(milliseconds=origin + 2), 200, "svc-media", "GET", s3key(path), size,
                pkg_agent(tt), origin / 1000 + w.ri(0, 999) / 1e6)
    if w.r() < 0.1 * (0.4 + ld):
        tt = w.jit(t)
        cid = content(w, 0.3)
        pk(w, tt, "WARNING", "rendition_map.cc:77",
           f"request for unknown rendition 'v4320' of {cid} (client probe), answering 404")
    if w.r() < 0.08 * (0.4 + ld):
        tt = w.jit(t)
        pk(w, tt, "ERROR", "http_handler.cc:388",
           f"write to client failed: Broken pipe (peer 10.20.{w.pick(['1', '2', '4'])}.21 closed) after "
           f"{w.ri(10_000, 900_000)} of {w.ri(1_000_000, 4_800_000)} bytes")
    if w.r() < 0.1 * (0.4 + ld):  # subtitle probes: optional tracks
        tt = w.jit(t)
        cid = content(w, 0.3)
        rgw(w, tt, 404, "svc-media", "HEAD", f"vod-cmaf/{cid}/subs/{w.pick(['en', 'ko', 'zh-Hant'])}.vtt",
            0, pkg_agent(tt), w.ri(300, 1900) / 1e6)
    if loc(t).minute % 30 == 11:
        tt = w.jit(t, 10)
        pk(w, tt, "INFO", "key_cache.cc:140",
           f"cpix key cache: {w.ri(4100, 4600)} entries, {w.ri(90, 260)} refreshed from drm-license in "
           f"{w.ri(40, 300)}ms")
    if storm:
        for p in INST["packager"]:
            for _ in range(w.count(1.2)):
                tt = w.jit(t)
                pk(w, tt, "WARNING", "work_queue.cc:96",
                   f"work queue depth {w.ri(300, 512)} over high-water mark 256, shedding request "
                   f"{seg_path(w, content(w, 0.7))}", node=p[0])
            for _ in range(w.count(0.9)):
                tt = w.jit(t)
                pk(w, tt, "ERROR", "segment_builder.cc:241",
                   f"segment deadline exceeded (2500ms) building {seg_path(w, content(w, 0.7))}, answering "
                   f"503", node=p[0])
    if inside(t, SLOWDOWN):
        for _ in range(w.count(4 * ld + 1.5)):
            tt = w.jit(t)
            cid = f"c-{w.ri(10200, 55999)}"
            path = seg_path(w, cid)
            key = s3key(path)
            pk(w, tt, "WARNING", "object_reader.cc:171",
               f"GET {key} returned 503 SlowDown, retry 1/3 in 200ms")
            if w.r() < 0.6:
                pk(w, tt + timedelta(milliseconds=700), "ERROR", "object_reader.cc:188",
                   f"GET {key} failed after 3 attempts: 503 SlowDown (Please reduce your request rate.); "
                   f"answering 503 for {path}")
            for k in range(1):
                rgw(w, tt + timedelta(milliseconds=k * 240), 503, "svc-media", "GET", key, 222,
                    pkg_agent(tt), 0.0)


PREPACK_RUNS = [
    # started, content id, title, ok
    (at(0, 19, 30, 40), PREMIERE_ID, "Shinkai Line #7", False),
    (at(0, 20, 44, 0), PREMIERE_ID, "Shinkai Line #7", True),
    (at(1, 20, 30, 0), "c-60121", "Kitchen of Night #3", True),
    (at(2, 19, 30, 0), "c-61190", "Orbit Boys #11", True),
]


def prepackage(w: World) -> None:
    node = "pkg-4"
    for start, cid, title, ok in PREPACK_RUNS:
        job = {"job": "prepackage"}
        pk(w, start, "INFO", "prepackage_main.cc:58",
           f"prepackage {cid} ({title}): renditions v360..v1080 + audio ja-2.0, ja-5.1; formats hls, dash",
           node=node, **job)
        t = start + timedelta(seconds=2)
        mezz = f"vod-mezzanine/{cid}/{cid}_mezz_v2.mxf"
        pk(w, t, "INFO", "mezzanine.cc:102", f"fetching s3://{mezz} (61.4 GiB, 64 parts)", node=node, **job)
        rgw(w, t + timedelta(milliseconds=300), 200, "svc-media", "GET", mezz + "?partNumber=1",
            1_030_792_151, pkg_agent(t), 4.118233)
        t += timedelta(seconds=w.ri(40, 60))
        if not ok:
            t = PREPACK_FAIL - timedelta(seconds=26)
            pk(w, t, "INFO", "mezzanine.cc:131",
               f"{cid}: probed mezzanine: video 3840x2160p23.976, audio tracks [ja-2.0]", node=node, **job)
            pk(w, t + timedelta(seconds=26), "ERROR", "validate.cc:64",
               f"prepackage {cid}: validation failed: audio rendition 'ja-5.1' missing from mezzanine "
               f"s3://{mezz} (found: ja-2.0); no manifests written to s3://vod-packaged/{cid}/", node=node,
               **job)
            pk(w, t + timedelta(seconds=26, milliseconds=4), "ERROR", "prepackage_main.cc:141",
               f"prepackage job finished: 0/1 titles packaged, 1 failed ({cid})", node=node, **job)
            continue
        pk(w, t, "INFO", "mezzanine.cc:131",
           f"{cid}: probed mezzanine: video 3840x2160p23.976, audio tracks [ja-2.0, ja-5.1]", node=node,
           **job)
        t += timedelta(seconds=w.ri(300, 420))
        for fmt in ("hls", "dash"):
            name = "master.m3u8" if fmt == "hls" else "manifest.mpd"
            rgw(w, t, 200, "svc-media", "PUT", f"vod-packaged/{cid}/{fmt}/{name}", w.ri(3000, 9000),
                pkg_agent(t), 0.021)
        pk(
            w, t + timedelta(milliseconds=40), "INFO", "prepackage_main.cc:141",
            f"prepackage job finished: 1/1 titles packaged ({cid}: {w.ri(2900, 3400)} segments, manifests in "
            f"s3://vod-packaged/{cid}/)", node=node, **job,
        )


def objstore_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.hour in (1, 2, 3) and w.r() < 0.3:  # the nightly sprite backfill (16 workers) writing previews
        tt = w.jit(t)
        cid = f"c-{w.ri(10200, 55999)}"
        rgw(w, tt, 200, "svc-media", "PUT", f"vod-sprites/{cid}/sprite_{w.ri(0, 40):03d}.jpg",
            w.ri(90_000, 400_000), SPRITE_AGENT, w.ri(8000, 40000) / 1e6)
    if lt.minute == 30 and lt.hour == 2:
        ri = INST["objstore-gw"][0]
        w.emit(w.jit(t, 5), "objstore-gw", "INFO",
               rgwline(t, f"7f{w.hexid(10)}", 0,
                       f"lifecycle: RGWLC::process(): ENTER: index: {w.ri(0, 31)} worker ix: 0"),
               host=ri[1], cluster="ceph-media")
        w.emit(
            t + timedelta(seconds=w.ri(400, 900)), "objstore-gw", "INFO",
            rgwline(
                t, f"7f{w.hexid(10)}", 0,
                f"lifecycle: RGWLC::process(): expired {w.ri(2000, 9000)} objects in bucket vod-sprites-tmp",
            ),
            host=ri[1], cluster="ceph-media",
        )
    if inside(t, SLOWDOWN):  # the backfill's own reads, refused the same way
        for _ in range(w.count(2)):
            tt = w.jit(t)
            cid = f"c-{w.ri(10200, 55999)}"
            rgw(w, tt, 503, "svc-media", "GET",
                f"vod-mezzanine/{cid}/{cid}_mezz_v{w.ri(1, 2)}.mxf?partNumber={w.ri(1, 64)}", 222,
                SPRITE_AGENT, 0.0)
        if w.r() < 0.7:
            ri = w.pick(INST["objstore-gw"])
            w.emit(
                w.jit(t), "objstore-gw", "WARN",
                rgwline(
                    t, f"7f{w.hexid(10)}", 2,
                    f"req {w.ri(10**6, 9 * 10**6)} 0.000000000s s3:get_obj ratelimit: user svc-media read "
                    f"ops "
                    f"over max-read-ops 12000/min on this gateway, returning 503 SlowDown",
                ),
                host=ri[1], cluster="ceph-media",
            )
    if inside(t, SPRITE) and not inside(t, SLOWDOWN):
        for _ in range(w.count(3)):
            tt = w.jit(t)
            cid = f"c-{w.ri(10200, 55999)}"
            rgw(w, tt, 200, "svc-media", "GET",
                f"vod-mezzanine/{cid}/{cid}_mezz_v1.mxf?partNumber={w.ri(1, 64)}",
                w.ri(900_000_000, 1_030_000_000), SPRITE_AGENT, w.ri(3_000_000, 6_000_000) / 1e6)


# ---------------------------------------------------------------------------------------------
# playback (Go, zap JSON, UTC)
# ---------------------------------------------------------------------------------------------

NOON_IDS = [f"c-{58301 + 3 * i}" for i in range(38)]
ZAP_LEVEL = {"debug": "DEBUG", "info": "INFO", "warn": "WARN", "error": "ERROR"}


def pb(w: World, t: datetime, level: str, caller: str, msg: str, node: str | None = None, **extra) -> None:
    pi = w.pick(INST["playback"]) if node is None else next(p for p in INST["playback"] if p[0] == node)
    w.emit(t, "playback", ZAP_LEVEL[level], zap(t, level, caller, msg, **extra), host=pi[1],
           alloc=alloc("playback", pi[0], t), version=version("playback", t))


def client_error(w: World, t: datetime, code: str, detail: str, plat=None, cid: str | None = None) -> None:
    plat = plat or platform(w)
    pb(w, t, "warn", "beacon/errors.go:58", "client error report", code=code, detail=detail,
       platform=plat[1], app=plat[4].split(" ")[0], content=cid or content(w), session=w.session())


def playback_bg(w: World, t: datetime) -> None:
    ld = load(t)
    for _ in range(w.count(0.2 * ld)):
        tt = w.jit(t)
        plat = platform(w)
        cid = content(w)
        if inside(tt, PREMIERE) and w.r() < 0.3:
            continue
        took = w.ri(60, 260)
        if inside(tt, BURST):
            took = w.ri(1300, 4900)
        elif inside(tt, PREFETCH):
            took += w.ri(150, 900)
        pb(w, tt, "info", "session/start.go:141", "session started", session=w.session(),
           account=w.account(), content=cid, platform=plat[1], drm=plat[2], manifest=plat[3], took_ms=took)
    if w.r() < 0.12 * ld:
        tt = w.jit(t)
        pb(w, tt, "debug", "events/producer.go:92", "watch-events batch produced", records=w.ri(200, 2400),
           bytes=w.ri(60_000, 700_000), took_ms=w.ri(3, 30))
    # noise: client beacons, stream limits, stale tokens, a slow entitlement check now and then
    for _ in range(w.count(0.09 * (0.4 + ld))):
        tt = w.jit(t)
        code, detail = w.pick(
            [("NET-1002", "segment download failed: timeout"),
             ("NET-1002", "segment download failed: timeout"),
             ("MEDIA-2004", "decoder error: MEDIA_ERR_DECODE"), ("DRM-3011", "offline license expired"),
             ("PLAYER-9001", "app backgrounded during startup")]
        )
        client_error(w, tt, code, detail)
    if w.r() < 0.05 * (0.4 + ld):
        client_error(w, w.jit(t), "DRM-3016", "license request failed: HTTP 403")
    if w.r() < 0.06 * ld:
        pb(w, w.jit(t), "warn", "session/limits.go:77", "concurrent stream limit reached",
           account=w.account(), active=w.pick([2, 4]), limit=w.pick([2, 4]),
           plan=w.pick(["standard", "premium"]))
    if w.r() < 0.05 * (0.4 + ld):
        plat = platform(w)
        pb(w, w.jit(t), "warn", "auth/jwt.go:64", "access token rejected",
           error="token has invalid claims: token is expired", kid="ent-2026-03",
           iss="https://auth.kumo-video.example", platform=plat[1])
    if w.r() < 0.012:
        pb(w, w.jit(t), "error", "entitlement/client.go:118",
           "entitlement check failed, serving cached decision",
           error="context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
           timeout_ms=800)
    # incidents
    if inside(t, FPS_EXPIRED):
        for _ in range(w.count(2.6 * ld)):
            plat = w.rng.choices([p for p in PLATFORMS if p[1] in APPLE], weights=[22, 6, 7, 4])[0]
            client_error(w, w.jit(t), "DRM-3016", "license request failed: HTTP 500", plat=plat)
    if inside(t, (PUBLISH_NOON, REPLAY_WAIT[1])):
        for _ in range(w.count(1.5)):
            cid = w.pick(NOON_IDS)
            pb(w, w.jit(t), "warn", "session/start.go:212", "title not playable", content=cid,
               reason="NOT_YET_AVAILABLE", catalog_status="SCHEDULED", account=w.account())
    if inside(t, PREMIERE):
        lam = 5 * ld if t < at(0, 20, 15) else 2.5 * ld
        for _ in range(w.count(lam)):
            tt = w.jit(t)
            pb(w, tt, "error", "manifest/resolve.go:88", "manifest resolve failed", content=PREMIERE_ID,
               key=f"vod-packaged/{PREMIERE_ID}/hls/master.m3u8",
               error="NoSuchKey: The specified key does not exist.", status=404, session=w.session())
            rgw(w, tt - timedelta(milliseconds=4), 404, "svc-playback", "GET",
                f"vod-packaged/{PREMIERE_ID}/{w.pick(['hls/master.m3u8', 'dash/manifest.mpd'])}", 219,
                f"kumo-playback/{version('playback', tt)} aws-sdk-go-v2/1.30.3", w.ri(400, 2000) / 1e6)
            if w.r() < 0.3:
                client_error(
                    w, tt + timedelta(milliseconds=300), "PLAYER-4040", "title unavailable", cid=PREMIERE_ID
                )
    if inside(t, PREFETCH):
        for _ in range(w.count(0.9 * ld)):
            pb(w, w.jit(t), "info", "license/prefetch.go:51", "license prefetch issued",
               content=content(w), next_episodes=3, took_ms=w.ri(40, 300))
        frac = drm_sat_frac(t)
        for _ in range(w.count(9 * ld * frac)):
            pb(w, w.jit(t), "error", "license/prefetch.go:77", "license prefetch failed",
               content=content(w), status=503,
               error="drm-license: 503 Service Unavailable (license-worker pool)", session=w.session())
        for _ in range(w.count(4 * ld * frac)):
            client_error(w, w.jit(t), "DRM-3016", "license request failed: HTTP 503")
    frac = skew_frac(t)
    if frac:
        for _ in range(w.count(8 * ld * frac)):
            plat = platform(w)
            pb(w, w.jit(t), "warn", "auth/jwt.go:64", "access token rejected",
               error="token has invalid claims: token is expired", kid="ent-2026-03",
               iss="https://auth.kumo-video.example", platform=plat[1])
    if inside(t, BURST):
        for _ in range(w.count(4 * ld)):
            pb(w, w.jit(t), "warn", "session/events.go:133", "session event publish slow",
               topic="playback.sessions", partition=w.pick([1, 4, 7, 10]), took_ms=w.ri(1200, 4900),
               acks="all")
        for _ in range(w.count(1.6 * ld)):
            pb(w, w.jit(t), "error", "session/start.go:167", "session start failed",
               error="kafka: publish to playback.sessions timed out after 5000ms", session=w.session())
    if inside(t, (POOL_DRY[0] + timedelta(minutes=2), POOL_DRY[1])) and w.r() < 0.3:
        pb(w, w.jit(t), "warn", "catalog/client.go:71", "catalog playable check slow",
           took_ms=w.ri(300, 900), content=content(w))


def playback_flags(w: World) -> None:
    for t, val, rev in ((PREFETCH[0], "true", 2231), (PREFETCH[1], "false", 2232)):
        for i, p in enumerate(INST["playback"]):
            pb(w, t + timedelta(milliseconds=400 + 170 * i + w.ri(0, 900)), "info", "flags/watch.go:40",
               "feature flags updated", node=p[0], changed=f"playback.license_prefetch={val}",
               revision=rev)


# ---------------------------------------------------------------------------------------------
# drm-license (Java 21, log4j2, JST wall time)
# ---------------------------------------------------------------------------------------------

DRM_PKG = "c.k.drm"
FPS_TRACE = (
    "com.kumo.drm.fairplay.FpsCredentialException: FPS certificate fps-prod-2025 expired at "
    "2026-04-14T00:00:00Z\n\tat "
    "com.kumo.drm.fairplay.FpsCredentialStore.require(FpsCredentialStore.java:97)\n\tat "
    "com.kumo.drm.fairplay.CkcService.issue(CkcService.java:142)\n\tat "
    "com.kumo.drm.http.FairPlayHandler.handle(FairPlayHandler.java:61)\n\tat "
    "com.kumo.drm.http.LicenseTask.run(LicenseTask.java:44)\n\t... 9 common frames omitted"
)


def dl(
    w: World, t: datetime, level: str, thread: str, logger: str, msg: str, node: str | None = None
) -> None:
    di = w.pick(INST["drm-license"]) if node is None else next(p for p in INST["drm-license"] if p[0] == node)
    w.emit(t, "drm-license", level, log4j(t, level, thread, logger, msg), host=di[1],
           alloc=alloc("drm-license", di[0], t), version=version("drm-license", t))


def drm_bg(w: World, t: datetime) -> None:
    ld = load(t)
    worker = f"license-worker-{w.ri(1, 200)}"
    for _ in range(w.count(0.2 * ld * (2.6 if inside(t, PREFETCH) else 1))):
        tt = w.jit(t)
        plat = platform(w)
        cid = content(w)
        src = "prefetch" if inside(tt, PREFETCH) and w.r() < 0.6 else "client"
        if plat[2] == "fairplay":
            if inside(tt, FPS_EXPIRED):
                continue
            dl(w, tt, "INFO", f"license-worker-{w.ri(1, 200)}", f"{DRM_PKG}.fairplay.CkcService",
               f"CKC issued content={cid} asset_id={w.hexid(16)} lease=86400 hdcp=TYPE_1 source={src} "
               f"took={w.ri(9, 60)}ms")
        elif plat[2] == "widevine":
            dl(w, tt, "INFO", f"license-worker-{w.ri(1, 200)}", f"{DRM_PKG}.widevine.LicenseService",
               f"Widevine license issued content={cid} device={w.hexid(12)} security_level=L1 policy="
               f"{w.pick(['hd', 'uhd', 'sd'])} source={src} took={w.ri(12, 70)}ms")
        else:
            dl(w, tt, "INFO", f"license-worker-{w.ri(1, 200)}", f"{DRM_PKG}.playready.LicenseService",
               f"PlayReady license issued content={cid} client_sl=2000 policy={w.pick(['hd', 'sd'])} "
               f"source={src} "
               f"took={w.ri(15, 80)}ms")
    for _ in range(w.count(0.08 * (0.4 + ld))):
        dl(w, w.jit(t), "WARN", worker, f"{DRM_PKG}.widevine.PolicyResolver",
           f"Widevine license downgraded content={content(w)}: policy hd requires L1, device "
           f"security_level=L3; "
           "sd policy issued")
    if w.r() < 0.012:
        dl(w, w.jit(t), "ERROR", worker, f"{DRM_PKG}.playready.LicenseService",
           f"PlayReady license refused: client certificate revoked (RevInfo v{w.ri(40, 44)}), model="
           f"{w.pick(['SMART-TV 2017', 'BDP-S3700', 'Hisense-H55'])} content={content(w)}")
    lt = loc(t)
    if lt.minute == 0 and lt.hour % 6 == 0:
        tt = w.jit(t, 3)
        fps = (
            "fps-prod-2026 valid until 2027-04-13T00:00:00Z"
            if t >= FPS_EXPIRED[1]
            else ("fps-prod-2025 valid until 2026-04-14T00:00:00Z")
        )
        level = "WARN" if t < FPS_EXPIRED[0] else "INFO"
        if level == "WARN":
            left = int((FPS_EXPIRED[0] - tt).total_seconds())
            dl(w, tt, "WARN", "credential-check", f"{DRM_PKG}.credentials.ExpiryCheck",
               f"credential fps-prod-2025 expires at 2026-04-14T00:00:00Z (in "
               f"{left // 3600}h{left % 3600 // 60:02d}m); "
               "staged fps-prod-2026 is picked up at the next restart")
        dl(w, tt + timedelta(milliseconds=3), "INFO", "credential-check",
           f"{DRM_PKG}.credentials.ExpiryCheck",
           f"credential check: {fps}; playready-server-2026 valid until 2028-01-05T00:00:00Z; "
           "widevine-service-2025 valid until 2027-09-01T00:00:00Z")
    if inside(t, FPS_EXPIRED):
        for _ in range(w.count(3.0 * ld)):
            tt = w.jit(t)
            now = tt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            dl(w, tt, "ERROR", f"license-worker-{w.ri(1, 200)}", f"{DRM_PKG}.http.FairPlayHandler",
               f"CKC generation failed content={content(w)} spc_len={w.ri(2800, 3400)} (now {now}): 500 "
               f"FPS_CREDENTIAL_EXPIRED\n{FPS_TRACE}")
    if inside(t, DRM_SAT):
        frac = drm_sat_frac(t)
        for sec in range(0, 60, 20):
            dl(w, t + timedelta(seconds=sec, milliseconds=w.ri(0, 900)), "WARN", "pool-monitor",
               f"{DRM_PKG}.http.WorkerPoolMonitor",
               f"license-worker thread pool saturated: active=200/200, queued={w.ri(960, 1000)}/1000, "
               f"rejected last 20s={w.ri(300, 1400)}")
        for _ in range(w.count(6 * ld * frac)):
            tt = w.jit(t)
            dl(
                w, tt, "ERROR", f"http-nio-8443-exec-{w.ri(1, 64)}", f"{DRM_PKG}.http.LicenseEndpoint",
                "license request rejected, answering 503\njava.util.concurrent.RejectedExecutionException: "
                f"Task com.kumo.drm.http.LicenseTask@{w.hexid(7)} rejected from "
                "java.util.concurrent.ThreadPoolExecutor@6d3af739[Running, pool size = 200, active threads = "
                "200, queued tasks = 1000, completed tasks = "
                f"{48_100_000 + int((tt - DAY0).total_seconds() * 3)}]"
                "\n\tat java.base/java.util.concurrent.ThreadPoolExecutor$AbortPolicy.rejectedExecution"
                "(ThreadPoolExecutor.java:2081)"
                "\n\tat java.base/java.util.concurrent.ThreadPoolExecutor.execute"
                "(ThreadPoolExecutor.java:1376)"
                "\n\tat com.kumo.drm.http.LicenseEndpoint.submit(LicenseEndpoint.java:88)",
            )


def drm_start(w: World, t: datetime, ver: str, node: str) -> None:
    fps = ("fps-prod-2026", "2026-04-01T00:00:00Z", "2027-04-13T00:00:00Z")
    dl(w, t, "INFO", "main", f"{DRM_PKG}.DrmLicenseServer", f"Starting drm-license {ver} on Java 21.0.2",
       node=node)
    dl(w, t + timedelta(seconds=3), "INFO", "main", f"{DRM_PKG}.credentials.CredentialLoader",
       f"Loaded FPS credential {fps[0]} (valid {fps[1]}..{fps[2]}) from vault secret/drm/fps", node=node)
    dl(w, t + timedelta(seconds=4), "INFO", "main", f"{DRM_PKG}.http.WorkerPool",
       "license-worker thread pool: core=200 max=200 queue=1000 (AbortPolicy)", node=node)
    dl(w, t + timedelta(seconds=6), "INFO", "main", f"{DRM_PKG}.DrmLicenseServer",
       "Started DrmLicenseServer in 7.9 seconds, listening on :8443", node=node)


# ---------------------------------------------------------------------------------------------
# catalog (Spring Boot 3, console, JST with offset)
# ---------------------------------------------------------------------------------------------

CAT = "c.k.catalog"
LEAK_TRACE = (
    "java.lang.Exception: Apparent connection leak detected\n\tat "
    "com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:127)\n\tat "
    "org.springframework.jdbc.datasource.DataSourceUtils.fetchConnection(DataSourceUtils.java:160)\n\tat "
    "com.kumo.catalog.rails.TrendingRailRepository.fetch(TrendingRailRepository.java:88)\n\tat "
    "com.kumo.catalog.rails.TrendingRailService.regional(TrendingRailService.java:54)\n\tat "
    "com.kumo.catalog.home.HomeController.home(HomeController.java:71)"
)
POOL_TRACE = (
    "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection\n\tat "
    "org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)\n\tat "
    "com.kumo.catalog.rails.EditorialRailRepository.load(EditorialRailRepository.java:41)\n\tat "
    "com.kumo.catalog.home.HomeController.home(HomeController.java:66)\nCaused by: "
    "java.sql.SQLTransientConnectionException: catalog-primary - Connection is not available, request "
    "timed out after 5000ms (total=30, active=30, idle=0, waiting={waiting})\n\tat "
    "com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:686)\n\t... 58 common frames "
    "omitted"
)


def ct(w: World, t: datetime, level: str, logger: str, msg: str, thread: str | None = None,
       node: str | None = None) -> None:
    ci = w.pick(INST["catalog"]) if node is None else next(p for p in INST["catalog"] if p[0] == node)
    thread = thread or f"nio-8080-exec-{w.ri(1, 200)}"
    w.emit(t, "catalog", level, boot(t, level, thread, logger, msg), host=ci[1],
           alloc=alloc("catalog", ci[0], t), version=version("catalog", t))


def catalog_bg(w: World, t: datetime) -> None:
    ld = load(t)
    dry = pool_dry(t)
    for _ in range(w.count(0.15 * ld)):
        tt = w.jit(t)
        if dry and w.r() < 0.7:
            continue
        ct(w, tt, "INFO", f"{CAT}.home.HomeController",
           f"GET /v1/home profile={w.profile()} rails={w.ri(9, 14)} "
           f"took={w.ri(30, 240) if not dry else w.ri(900, 4900)}ms")
    for _ in range(w.count(0.08 * ld)):
        tt = w.jit(t)
        if dry and w.r() < 0.8:
            continue
        n = w.ri(20, 50)
        ct(w, tt, "INFO", f"{CAT}.api.TitleBatchController",
           f"POST /internal/v1/titles:batchGet ids={n} found={n - w.pick([0, 0, 0, 1, 2])} "
           f"took={w.ri(6, 40)}ms")
    for _ in range(w.count(0.08 * ld)):
        tt = w.jit(t)
        cid = content(w)
        status = "PUBLISHED"
        if inside(tt, (PUBLISH_NOON, REPLAY_WAIT[1])) and w.r() < 0.5:
            cid, status = w.pick(NOON_IDS), "COMING_SOON"
        ct(w, tt, "INFO", f"{CAT}.api.TitleController",
           f"GET /v1/titles/{cid} 200 status={status} source=replica took={w.ri(3, 30)}ms")
    for _ in range(w.count(0.08 * (0.4 + ld))):
        ct(w, w.jit(t), "WARN", f"{CAT}.artwork.ArtworkResolver",
           f"No artwork for title {content(w, 0.3)} locale=en-US, falling back to ja-JP")
    lt = loc(t)
    if lt.minute % 15 == 2:
        ct(w, w.jit(t, 10), "INFO", f"{CAT}.events.ChangePublisher",
           f"published {w.ri(3, 90)} changes to catalog.changes in {w.ri(5, 40)}ms", thread="change-pub-1")
    if inside(t, LEAK) and version("catalog", t) == "3.8.0":
        for _ in range(w.count(0.45 * ld)):
            tt = w.jit(t)
            ct(w, tt, "WARN", "com.zaxxer.hikari.pool.ProxyLeakTask",
               f"Connection leak detection triggered for org.postgresql.jdbc.PgConnection@{w.hexid(7)} on "
               f"thread "
               f"http-nio-8080-exec-{w.ri(1, 200)}, stack trace follows\n{LEAK_TRACE}",
               thread="catalog-primary housekeeper")
    if dry:
        for _ in range(w.count(2.5 * ld)):
            tt = w.jit(t)
            ct(w, tt, "WARN", "com.zaxxer.hikari.pool.HikariPool",
               f"catalog-primary - Connection is not available, request timed out after 5000ms (total=30, "
               f"active=30, "
               f"idle=0, waiting={w.ri(40, 140)})")
        for _ in range(w.count(2.5 * ld)):
            tt = w.jit(t)
            ct(w, tt, "ERROR", "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
               "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception "
               "[Request processing failed: " + POOL_TRACE.format(waiting=w.ri(40, 140)) + "]")


PUBLISHES = [
    # at, titles, note
    (PUBLISH_NOON, 38, "daily noon drop"), (PREMIERE[0], 4, f"premiere {PREMIERE_ID} Shinkai Line #7"),
    (at(1, 12, 0, 3), 29, "daily noon drop"), (at(1, 21, 0, 2), 3, "premiere c-60121 Kitchen of Night #3"),
    (at(2, 12, 0, 5), 31, "daily noon drop"), (UHD_PUBLISH, 120, "collection 4k-hdr-spring (UHD)"),
    (at(2, 20, 0, 1), 5, "premiere c-61190 Orbit Boys #11"),
]


def catalog_publish(w: World) -> list[list]:
    """The publish job every 30 minutes; returns its batch_runs rows."""
    rows = []
    t = DAY0
    n = 0
    special = {p[0].replace(second=0, microsecond=0): p for p in PUBLISHES}
    while t < END:
        n += 1
        key = t
        sp = special.get(key)
        start = sp[0] if sp else t + timedelta(seconds=w.ri(1, 4))
        titles = sp[1] if sp else w.pick([0, 0, 0, 1, 1, 2, 3])
        took = 2 + titles // 4 + w.ri(0, 2)
        ct(w, start + timedelta(seconds=took), "INFO", f"{CAT}.publish.PublishJob",
           f"catalog-publish: {titles} titles SCHEDULED -> PUBLISHED on pg-catalog (primary)"
           + (f", {sp[2]}" if sp else ""), thread="scheduling-1", node="catalog-1")
        rows.append([f"BR-{30000 + n}", "catalog-publish", "catalog", wall(start),
                     wall(start + timedelta(seconds=took)), "COMPLETED", titles, sp[2] if sp else ""])
        t += timedelta(minutes=30)
    return rows


# ---------------------------------------------------------------------------------------------
# entitlement (Rails web: Ruby Logger in host local time; Sidekiq: UTC)
# ---------------------------------------------------------------------------------------------

SEQ_TRACE = (
    "ActiveRecord::StatementInvalid (PG::SequenceGeneratorLimitExceeded: ERROR:  nextval: reached maximum "
    "value of sequence \"billing_events_id_seq\" (2147483647)\n):\napp/models/billing_event.rb:41:in "
    "`record!'\napp/services/checkout/activate_subscription.rb:88:in "
    "`call'\napp/controllers/v1/subscriptions_controller.rb:27:in `create'"
)


def host_clock(instance: str, t: datetime) -> datetime:
    """What the host's own clock reads: the az4 entitlement hosts run 16m43s slow during the skew."""
    if instance in SKEWED and inside(t, SKEW):
        return t + timedelta(seconds=SKEW_S)
    return t


def en(w: World, t: datetime, level: str, msg: str, node: str | None = None, rid: str | None = None) -> str:
    ei = w.pick(INST["entitlement"]) if node is None else next(p for p in INST["entitlement"] if p[0] == node)
    w.emit(t, "entitlement", level, rails(host_clock(ei[0], t), level, w.ri(40, 47), rid or w.uuid(), msg),
           host=ei[1], process="web", version=version("entitlement", t))
    return ei[0]


def sk(w: World, t: datetime, level: str, cls: str, msg: str, node: str | None = None, **kv) -> None:
    ei = w.pick(INST["entitlement"]) if node is None else next(p for p in INST["entitlement"] if p[0] == node)
    w.emit(t, "entitlement", level,
           sidekiq(host_clock(ei[0], t), level, w.ri(60, 63), w.b36(4), cls, w.hexid(24), msg, **kv),
           host=ei[1], process="sidekiq", version=version("entitlement", t))


def billing_id(t: datetime) -> int:
    """billing_events ids climb about 0.8 a second and reach the int4 sequence maximum at SEQ_MAX."""
    return 2_147_483_647 - int((SEQ_MAX[0] - t).total_seconds() * 0.8)


def entitlement_bg(w: World, t: datetime) -> None:
    ld = load(t)
    for _ in range(w.count(0.09 * ld)):
        tt = w.jit(t)
        rid = w.uuid()
        path, ctrl = w.pick([('POST "/v1/auth/token"', "V1::TokensController#create as JSON"),
                             ('GET "/v1/entitlements/me"', "V1::EntitlementsController#show as JSON"),
                             ('GET "/v1/entitlements/me"', "V1::EntitlementsController#show as JSON"),
                             ('GET "/.well-known/jwks.json"', "Jwks::KeysController#index as JSON")])
        node = en(w, tt, "INFO",
                  f"Started {path} for 10.20.{w.pick(['1', '2', '4'])}.11 at "
                  f"{loc(tt).strftime('%Y-%m-%d %H:%M:%S')} +0900", rid=rid)
        en(w, tt + timedelta(milliseconds=2), "INFO", f"Processing by {ctrl}", node=node, rid=rid)
        took = w.ri(6, 60)
        en(
            w, tt + timedelta(milliseconds=took), "INFO",
            f"Completed 200 OK in {took}ms (Views: {w.ri(1, 9) / 10}ms | ActiveRecord: {w.ri(10, 90) / 10}ms "
            f"| "
            f"Allocations: {w.ri(900, 6000)})", node=node, rid=rid,
        )
    for _ in range(w.count(0.07 * ld)):
        tt = w.jit(t)
        cls = w.pick(["StripeWebhookJob", "StripeWebhookJob", "RenewalChargeJob",
                      "AppStoreNotificationJob"])
        if inside(tt, SEQ_MAX) and cls != "AppStoreNotificationJob":
            continue
        sk(w, tt, "INFO", cls, f"done: billing event recorded id={billing_id(tt)}",
           elapsed=f"{w.ri(40, 900) / 1000}")
    if w.r() < 0.06 * (0.4 + ld):
        en(w, w.jit(t), "WARN",
           f"Stripe::CardError: Your card was declined. (request req_{w.b36(14)}; code: card_declined; "
           f"decline_code: {w.pick(['insufficient_funds', 'do_not_honor', 'expired_card'])}) "
           f"customer=cus_{w.b36(14)}")
    if w.r() < 0.02:
        tt = w.jit(t)
        sk(w, tt, "WARN", "StripeWebhookJob",
           f"duplicate Stripe event evt_{w.b36(24)} ignored (index_billing_events_on_stripe_event_id)")
        pg(w, tt - timedelta(milliseconds=5), "pg-billing", w.newpid(), "entitlement@billing", "ERROR",
           'duplicate key value violates unique constraint "index_billing_events_on_stripe_event_id"')
    if w.r() < 0.014:
        sk(w, w.jit(t), "ERROR", "AppStoreNotificationJob",
           f"fail: App Store notification for unknown originalTransactionId "
           f"2000000{w.ri(100000000, 999999999)} "
           "(environment=Sandbox) - dropped", elapsed=f"{w.ri(10, 90) / 1000}")
    lt = loc(t)
    if lt.minute == 15:
        due = w.ri(300, 900) if lt.hour in (0, 1) else w.ri(20, 120)
        failed = max(1, int(due * w.ri(3, 7) / 100))
        if not inside(t, SEQ_MAX):
            sk(w, w.jit(t, 30), "INFO", "RenewalSweepJob",
               f"renewals due: {due}, charged: {due - failed}, failed: {failed} (card_declined)",
               node="ent-a1")
    # incidents
    frac = skew_frac(t)
    if frac:
        for _ in range(w.count(6 * ld * frac)):
            tt = w.jit(t)
            rid = w.uuid()
            node = w.pick(INST["entitlement"])[0]
            err = (
                "JWT::ExpiredSignature: Signature has expired"
                if node in SKEWED
                else "JWT::ImmatureSignature: Signature nbf has not been reached"
            )
            en(w, tt, "WARN", f"refresh token rejected: {err} (kid=ent-2026-03)", node=node, rid=rid)
            en(w, tt + timedelta(milliseconds=3), "INFO",
               f"Completed 401 Unauthorized in {w.ri(3, 12)}ms "
               f"(Views: 0.2ms | ActiveRecord: {w.ri(5, 30) / 10}ms | Allocations: {w.ri(600, 1400)})",
               node=node, rid=rid)
    if inside(t, SEQ_MAX):
        for _ in range(w.count(1.6 * ld)):
            tt = w.jit(t)
            rid = w.uuid()
            node = en(w, tt, "INFO",
                      f'Started POST "/v1/subscriptions" for 10.20.{w.pick(["1", "2", "4"])}.11 '
                      f"at {loc(tt).strftime('%Y-%m-%d %H:%M:%S')} +0900", rid=rid)
            en(w, tt + timedelta(milliseconds=w.ri(700, 2300)), "ERROR", SEQ_TRACE, node=node, rid=rid)
            en(w, tt + timedelta(milliseconds=2400), "INFO",
               f"Completed 500 Internal Server Error in {w.ri(700, 2400)}ms (ActiveRecord: "
               f"{w.ri(20, 90) / 10}ms | "
               f"Allocations: {w.ri(9000, 20000)})", node=node, rid=rid)
            pg(w, tt + timedelta(milliseconds=w.ri(600, 2200)), "pg-billing", w.newpid(),
               "entitlement@billing", "ERROR",
               'nextval: reached maximum value of sequence "billing_events_id_seq" (2147483647)')
        for _ in range(w.count(2.2 * ld)):
            tt = w.jit(t)
            sk(w, tt, "ERROR", "StripeWebhookJob",
               "fail: PG::SequenceGeneratorLimitExceeded: ERROR:  nextval: reached maximum value of "
               "sequence "
               f'"billing_events_id_seq" (2147483647) (event evt_{w.b36(24)}, '
               f"type {w.pick(['invoice.paid', 'customer.subscription.updated', 'invoice.paid'])})",
               elapsed=f"{w.ri(20, 90) / 1000}", retry_count=w.ri(0, 4))


# ---------------------------------------------------------------------------------------------
# recommend (python, structlog JSON, UTC) — noisy all day
# ---------------------------------------------------------------------------------------------


def rc(w: World, t: datetime, level: str, logger: str, event: str, **kv) -> None:
    ri = w.pick(INST["recommend"])
    lvl = {"debug": "DEBUG", "info": "INFO", "warning": "WARN", "error": "ERROR"}[level]
    w.emit(t, "recommend", lvl, structlog(t, level, logger, event, **kv), host=ri[1],
           alloc=alloc("recommend", ri[0], t), version=version("recommend", t))


def recommend_bg(w: World, t: datetime) -> None:
    ld = load(t)
    dry = pool_dry(t)
    for _ in range(w.count(0.13 * ld)):
        tt = w.jit(t)
        if dry and w.r() < 0.6:
            continue
        rc(w, tt, "info", "reco.api", "recommendations served", profile=w.profile(), rail="for-you",
           items=w.ri(20, 40), took_ms=w.ri(30, 160))
    for _ in range(w.count(0.13 * (0.4 + ld))):
        rc(w, w.jit(t), "warning", "reco.features", "feature store miss, using popular fallback",
           profile=w.profile(), missing=w.pick(["watch_vector", "genre_affinity", "watch_vector"]))
    for _ in range(w.count(0.07 * (0.4 + ld))):
        rc(w, w.jit(t), "error", "reco.catalog", "catalog batchGet partial result", requested=w.ri(30, 50),
           missing=w.ri(1, 4), reason="titles expired or not in region")
    lt = loc(t)
    if lt.minute == 7:
        rc(w, w.jit(t, 20), "error", "reco.index", "candidate index stale, keeping previous snapshot",
           age_s=w.ri(3601, 3690), snapshot=f"cand-{loc(t).strftime('%Y%m%d')}-{w.ri(1, 23):02d}")
    if lt.minute == 9:
        rc(w, w.jit(t, 30), "info", "reco.index", "candidate index refreshed",
           items=w.ri(180_000, 190_000), took_s=round(w.ri(20, 90) / 1.0, 1))
    if w.r() < 0.03 * ld:
        rc(w, w.jit(t), "warning", "reco.rank", "ranking over budget", took_ms=w.ri(200, 600),
           budget_ms=150, candidates=w.ri(200, 300))
    if dry:
        for _ in range(w.count(3.5 * ld)):
            rc(w, w.jit(t), "error", "reco.catalog", "catalog batchGet failed",
               status=w.pick([503, 503, 504]),
               error=w.pick(["503 Service Unavailable", "ReadTimeout(5.0s)"]), requested=w.ri(30, 50))
        for _ in range(w.count(1.5 * ld)):
            rc(w, w.jit(t), "warning", "reco.api", "serving popular fallback rail: catalog unavailable",
               profile=w.profile())


# ---------------------------------------------------------------------------------------------
# search (Go, go-kit logfmt, UTC)
# ---------------------------------------------------------------------------------------------


def sr(w: World, t: datetime, level: str, caller: str, msg: str, **kv) -> None:
    si = w.pick(INST["search"])
    lvl = {"debug": "DEBUG", "info": "INFO", "warn": "WARN", "error": "ERROR"}[level]
    w.emit(
        t, "search", lvl, logfmt(t, level, caller, msg, **kv), host=si[1], alloc=alloc("search", si[0], t),
        version=version("search", t),
    )


def search_bg(w: World, t: datetime) -> None:
    ld = load(t)
    for _ in range(w.count(0.2 * ld)):
        sr(w, w.jit(t), "info", "query.go:88", "query", q=w.pick(QUERIES), hits=w.ri(0, 400),
           took=f"{w.ri(8, 120)}ms")
    lt = loc(t)
    nightly = lt.hour == 3 and lt.minute < 40
    for _ in range(w.count(0.05 * (0.4 + ld) * (3 if nightly else 1))):
        sr(w, w.jit(t), "warn", "query.go:97", "slow query", took=f"{w.ri(800, 2400)}ms",
           threshold="800ms", q_sha1=w.hexid(10), terms=w.ri(1, 4))
    if lt.minute % 15 == 4:
        sr(w, w.jit(t, 20), "info", "indexer/consumer.go:61", "catalog.changes applied",
           records=w.ri(3, 90), lag=w.ri(0, 40), group="search-catalog")
    if lt.minute == 0:
        tt = w.jit(t, 15)
        gen = int((t - DAY0).total_seconds() // 3600) + 9100
        if lt.hour == 3:
            sr(w, tt - timedelta(seconds=8), "info", "indexer/full.go:33", "full reindex started",
               target=f"titles_v{gen}", shards=4 if t > at(1, 2, 30) else 3)
            sr(w, tt - timedelta(seconds=2), "info", "indexer/full.go:71", "full reindex built",
               docs=w.ri(212_000, 214_000), took="1m48s")
        sr(w, tt, "info", "indexer/alias.go:40", "alias swap", alias="titles",
           **{"from": f"titles_v{gen - 1}", "to": f"titles_v{gen}"})
        sr(w, tt + timedelta(milliseconds=40), "error", "indexer/alias.go:58",
           "alias swap cancelled in-flight queries", cancelled=w.ri(2, 9 if lt.hour != 3 else 30),
           err="context canceled")


# ---------------------------------------------------------------------------------------------
# profiles (node, pino, epoch ms; kafkajs logs through pino)
# ---------------------------------------------------------------------------------------------


def pr(w: World, t: datetime, level: int, msg: str, node: str | None = None, **extra) -> None:
    pi = w.pick(INST["profiles"]) if node is None else next(p for p in INST["profiles"] if p[0] == node)
    lvl = {20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR"}[level]
    w.emit(t, "profiles", lvl, pino(t, level, f"{pi[0]}-{alloc('profiles', pi[0], t)[:5]}", msg, **extra),
           host=pi[1], alloc=alloc("profiles", pi[0], t), version=version("profiles", t))


def profiles_bg(w: World, t: datetime) -> None:
    ld = load(t)
    stale = inside(t, (POISON[0] + timedelta(minutes=2), at(1, 8, 27, 30)))
    for _ in range(w.count(0.1 * ld)):
        pr(w, w.jit(t), 30, "continue-watching served", profile=w.profile(), items=w.ri(0, 20),
           source="redis" if w.r() < 0.9 else "postgres", took_ms=w.ri(2, 30))
    if not stale:
        for _ in range(w.count(0.08 * ld)):
            part = w.ri(0, 11)
            pr(w, w.jit(t), 30, "resume points applied", topic="watch-events", partition=part,
               records=w.ri(50, 900),
               lastOffset=str(48_800_000 + int((t - DAY0).total_seconds() // 20) + part))
    for _ in range(w.count(0.08 * (0.4 + ld))):
        pr(w, w.jit(t), 40, "avatar not found, using default", profile=w.profile(), avatar=f"av_{w.b36(6)}")
    if w.r() < 0.03 * ld:
        pr(w, w.jit(t), 40, "profile PIN attempts exceeded", profile=w.profile(), attempts=5, lockout_s=300)
    frac = skew_frac(t)
    if frac:
        for _ in range(w.count(4 * ld * frac)):
            pr(w, w.jit(t), 40, "access token rejected",
               err={"type": "TokenExpiredError", "message": "jwt expired",
                    "expiredAt": zulu(t - timedelta(seconds=w.ri(103, 400)))},
               route="/v1/profiles/:id/continue-watching")
    elif w.r() < 0.04 * (0.4 + ld):
        pr(w, w.jit(t), 40, "access token rejected",
           err={"type": "TokenExpiredError", "message": "jwt expired",
                "expiredAt": zulu(t - timedelta(seconds=w.ri(60, 86000)))},
           route="/v1/profiles/:id/continue-watching")


# ---------------------------------------------------------------------------------------------
# kafka (3 brokers, hosts on UTC), postgres (4 instances, JST), redis (2 instances, JST)
# ---------------------------------------------------------------------------------------------

TOPICS = {"watch-events": 12, "playback.sessions": 12, "catalog.changes": 6, "entitlement.changes": 6}
GROUPS = {  # group: (coordinator broker, __consumer_offsets partition, members, generation at DAY0)
    "watch-history": (2, 17, 3, 4398), "reco-events": (1, 28, 2, 311), "search-catalog": (3, 5, 2, 902),
}


def kf(w: World, t: datetime, level: str, msg: str, logger: str, broker: int = 1) -> None:
    w.emit(t, "kafka", level, kafkaline(t, level, msg, logger), broker=str(broker), host=f"kafka-{broker}")


def group_rebalance(
    w: World, t: datetime, group: str, reason: str, members: int | None = None, member: str | None = None
) -> None:
    coord, part, n, gen = w.groups[group]
    members = members or n
    w.groups[group] = (coord, part, n, gen + 1)
    gc = "kafka.coordinator.group.GroupCoordinator"
    kf(w, t, "INFO",
       f"[GroupCoordinator {coord}]: Preparing to rebalance group {group} in state "
       f"PreparingRebalance with old generation {gen} (__consumer_offsets-{part}) (reason: {reason})", gc,
       coord)
    t2 = t + timedelta(milliseconds=w.ri(2500, 3200))
    kf(w, t2, "INFO",
       f"[GroupCoordinator {coord}]: Stabilized group {group} generation {gen + 1} "
       f"(__consumer_offsets-{part}) with {members} members", gc, coord)
    leader = member or f"{'kafkajs-profiles-1' if group == 'watch-history' else 'rdkafka'}-{w.uuid()}"
    kf(w, t2 + timedelta(milliseconds=w.ri(5, 40)), "INFO",
       f"[GroupCoordinator {coord}]: Assignment received from leader {leader} for group {group} for "
       f"generation "
       f"{gen + 1}. The group has {members} members, 0 of which are static.", gc, coord)


def kafka_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    if lt.minute % 20 == 6:
        b = w.ri(1, 3)
        topic = w.pick(list(TOPICS))
        p = w.ri(0, TOPICS[topic] - 1)
        kf(w, w.jit(t), "INFO",
           f"[LocalLog partition={topic}-{p}, dir=/var/lib/kafka/data] Rolled new log segment "
           f"at offset {w.ri(10**7, 9 * 10**7)} in {w.ri(1, 6)} ms.", "kafka.log.LocalLog", b)
    if lt.minute % 30 == 1:
        b = w.ri(1, 3)
        kf(w, w.jit(t), "INFO",
           f"[GroupMetadataManager brokerId={b}] Removed 0 expired offsets in {w.ri(0, 3)} milliseconds.",
           "kafka.coordinator.group.GroupMetadataManager", b)
    if lt.minute == 44:
        b = w.ri(1, 3)
        topic = w.pick(list(TOPICS))
        p = w.ri(0, TOPICS[topic] - 1)
        kf(w, w.jit(t), "INFO",
           f"[UnifiedLog partition={topic}-{p}, dir=/var/lib/kafka/data] Deleting segment "
           f"LogSegment(baseOffset={w.ri(10**7, 9 * 10**7)}, size={w.ri(900_000_000, 1_073_000_000)}, "
           f"lastModifiedTime={int((t - timedelta(days=3)).timestamp() * 1000)}, "
           f"largestRecordTimestamp=Some("
           f"{int((t - timedelta(days=3)).timestamp() * 1000)})) due to retention time 259200000ms breach "
           f"based on "
           "the largest record timestamp in the segment", "kafka.log.UnifiedLog", b)
    if w.r() < 0.0016:  # a recommend consumer now and then misses its session timeout during a long GC
        group_rebalance(
            w, w.jit(t), "reco-events", f"removing member rdkafka-{w.uuid()} on heartbeat expiration",
            members=1,
        )
        group_rebalance(
            w, w.jit(t + timedelta(seconds=40), 10), "reco-events",
            f"Adding new member rdkafka-{w.uuid()} with group instance id None; client reason: not provided",
        )


def pg(w: World, t: datetime, inst_: str, pid: int, who: str, sev: str, msg: str) -> None:
    level = {"LOG": "INFO", "DETAIL": "INFO", "STATEMENT": "INFO", "WARNING": "WARN", "ERROR": "ERROR",
             "FATAL": "FATAL"}[sev]
    w.emit(t, "postgres", level, pgline(t, pid, who, sev, msg), instance=inst_, host=inst_)


PG = engine.table(None, "si", """
pg-catalog | 4
pg-catalog-ro | 11
pg-billing | 19
pg-profiles | 26
""")


def postgres_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    for inst_, chk in PG:
        if lt.minute == chk * 2:
            tt = w.jit(t, 5)
            kind = "restartpoint" if inst_.endswith("-ro") else "checkpoint"
            pg(w, tt, inst_, 58, "", "LOG", f"{kind} starting: time")
            bufs = w.ri(2000, 26000)
            write, sync = w.ri(120000, 269000) / 1000, w.ri(10, 990) / 1000
            pg(w, tt + timedelta(seconds=write + sync), inst_, 58, "", "LOG",
               f"{kind} complete: wrote {bufs} buffers ({bufs / 2621.44:.1f}%); 0 WAL file(s) added, 0 "
               f"removed, "
               f"{w.ri(2, 14)} recycled; write={write:.3f} s, sync={sync:.3f} s, "
               f"total={write + sync + 0.004:.3f} s")
    if w.r() < 0.012:
        inst_ = w.pick(["pg-catalog", "pg-billing", "pg-profiles"])
        db = inst_.split("-")[1]
        pg(w, w.jit(t), inst_, w.newpid(), f"metabase@{db}", "LOG",
           "could not receive data from client: Connection reset by peer")
    if w.r() < 0.012:
        inst_, table = w.pick([("pg-profiles", "profiles.public.resume_points"),
                               ("pg-billing", "billing.public.billing_events"),
                               ("pg-catalog", "catalog.public.trending_counters")])
        pg(w, w.jit(t), inst_, w.newpid(), "", "LOG",
           f'automatic vacuum of table "{table}": index scans: 1, pages: 0 removed, {w.ri(9000, 90000)} '
           f"remain, "
           f"tuples: {w.ri(1000, 40000)} removed, {w.ri(10**6, 9 * 10**6)} remain, elapsed: "
           f"{w.ri(2, 40)}.{w.ri(10, 99)} s")
    if lt.hour == 2 and lt.minute == 0:
        for inst_ in ("pg-catalog", "pg-billing"):
            pg(w, t + timedelta(seconds=w.ri(1, 9)), inst_, w.newpid(), "replicator@[unknown]", "LOG",
               "received replication command: BASE_BACKUP ( LABEL 'nightly', CHECKPOINT 'fast', WAIT 0, "
               "MANIFEST 'yes')")


def redis_bg(w: World, t: datetime) -> None:
    lt = loc(t)
    for inst_, mnt in (("redis-session", 8), ("redis-profiles", 23)):
        if lt.minute == mnt:
            tt = w.jit(t, 10)
            pid = w.ri(1000, 30000)
            for msg, role, dt in (
                (f"{w.ri(100, 9000)} changes in 300 seconds. Saving...", "M", 0),
                (f"Background saving started by pid {pid}", "M", 0), ("DB saved on disk", "C", w.ri(4, 30)),
                ("Background saving terminated with success", "M", w.ri(31, 40)),
            ):
                t2 = tt + timedelta(seconds=dt)
                w.emit(t2, "redis", "INFO", redisline(t2, role, "*", msg, pid=pid if role == "C" else 1),
                       instance=inst_, host=f"{inst_}-0")


# ---------------------------------------------------------------------------------------------
# Rollouts: each instance restarts with a start line in its own format
# ---------------------------------------------------------------------------------------------


def rollout(w: World, t: datetime, service: str, ver: str, _seconds: int) -> None:
    for i, (name, _host, _ip, _az) in enumerate(INST[service]):
        st = t + timedelta(seconds=20 + i * 55 + w.ri(0, 9))
        if service == "playback":
            pb(w, st, "info", "cmd/playback/main.go:61", "playback starting", node=name, version=ver,
               addr=":8080")
        elif service == "drm-license":
            drm_start(w, st, ver, name)
        elif service == "packager":
            pk(w, st, "INFO", "main.cc:44",
               f"kumo-packager {ver} starting: 48 worker threads, work queue 512, high-water 256",
               node=name)
        elif service == "catalog":
            ct(w, st, "INFO", f"{CAT}.CatalogApplication",
               f"Started CatalogApplication v{ver} in "
               f"{w.ri(14, 22)}.{w.ri(100, 999)} seconds (process running for {w.ri(15, 24)}.2)",
               thread="main", node=name)
            ct(w, st + timedelta(milliseconds=40), "INFO", "com.zaxxer.hikari.HikariDataSource",
               "catalog-primary - Start completed. (maximumPoolSize=30, leakDetectionThreshold=60000)",
               thread="main", node=name)
        elif service == "entitlement":
            en(w, st, "INFO",
               f"Puma starting in cluster mode... Version 6.4.2, entitlement {ver}, workers: 4", node=name,
               rid="boot")
        elif service == "recommend":
            rc(w, st, "info", "reco.main", "recommend starting", version=ver, workers=4, port=8000)
        elif service == "search":
            sr(w, st, "info", "main.go:39", "search starting", version=ver, addr=":8090", index="titles")
        elif service == "profiles":
            pr(w, st, 30, "profiles listening", node=name, version=ver, port=3000)
    if service == "recommend":
        group_rebalance(
            w, t + timedelta(seconds=22), "reco-events",
            f"Adding new member rdkafka-{w.uuid()} with group instance id None; client reason: not provided",
        )
    if service == "search":
        group_rebalance(
            w, t + timedelta(seconds=23), "search-catalog",
            f"Adding new member rdkafka-{w.uuid()} with group instance id None; client reason: not provided",
        )
    if service == "profiles":
        for i in range(3):
            group_rebalance(
                w, t + timedelta(seconds=21 + i * 55), "watch-history",
                f"Adding new member kafkajs-profiles-{i + 1}-{w.uuid()} with group instance id None; "
                "client reason: not provided",
            )


# ---------------------------------------------------------------------------------------------
# Incidents: the lines only a failure writes
# ---------------------------------------------------------------------------------------------

POISON_VALUE = {
    "profile": "p_7hq3tz2k", "content": "c-57930", "positionMs": "NaN", "app": "KumoVideo-AndroidTV/6.2.0",
}
POISON_ERR = {
    "type": "RangeError", "message": "Invalid time value",
    "stack": "RangeError: Invalid time value\n    at Date.toISOString (<anonymous>)\n    at toResumePoint "
    "(/app/dist/history/resume.js:41:38)\n    at handleWatchEvent (/app/dist/history/consumer.js:77:21)",
}


def inc_poison(w: World) -> None:
    """A record that always throws, retried in-process: each member that gets watch-events-7 stops
    heartbeating, is removed, and the group rebalances again and again until the offset is skipped."""
    a, _b = POISON
    stop = at(1, 8, 24, 0)
    names = {1: "profiles-1", 2: "profiles-2", 3: "profiles-3"}
    mids = {m: f"kafkajs-profiles-{m}-{w.uuid()}" for m in names}
    active = {1, 2, 3}
    state = {"holder": None}
    queue: list[tuple[datetime, int, str, int]] = []
    n = [0]

    def push(t: datetime, kind: str, m: int) -> None:
        n[0] += 1
        heapq.heappush(queue, (t, n[0], kind, m))

    def joined(t: datetime) -> None:
        members = sorted(active)
        for i, m in enumerate(members):
            parts = [p for p in range(12) if p % len(members) == i]
            pr(w, t + timedelta(milliseconds=w.ri(50, 900)), 30,
               "[ConsumerGroup] Consumer has joined the group", node=names[m], logger="kafkajs",
               groupId="watch-history", memberId=mids[m], leaderId=mids[members[0]],
               isLeader=m == members[0], memberAssignment={"watch-events": parts},
               groupProtocol="RoundRobinAssigner", duration=w.ri(2400, 3400))

    def holder_after(t: datetime) -> None:
        members = sorted(active)
        if not members:
            state["holder"] = None
            return
        m = members[7 % len(members)]
        state["holder"] = m
        push(t + timedelta(milliseconds=3500), "stuck", m)

    def stuck(t: datetime, m: int) -> None:
        for k in range(5):
            pr(w, t + timedelta(seconds=k * 50, milliseconds=w.ri(0, 300)), 50,
               "watch event handler failed, retrying", node=names[m], topic="watch-events", partition=7,
               offset="48812331", attempt=k + 1, maxAttempts=5, err=POISON_ERR, value=POISON_VALUE)
        push(t + timedelta(seconds=30, milliseconds=w.ri(0, 400)), "evict", m)
        push(t + timedelta(seconds=205, milliseconds=w.ri(0, 400)), "rejoin", m)

    push(a, "stuck", 2)
    state["holder"] = 2
    while queue:
        t, _n, kind, m = heapq.heappop(queue)
        if t >= stop:
            break
        if kind == "stuck":
            stuck(t, m)
        elif kind == "evict" and m in active:
            active.discard(m)
            coord, part, _members, gen = w.groups["watch-history"]
            kf(w, t, "INFO",
               f"[GroupCoordinator {coord}]: Member {mids[m]} in group watch-history has failed, "
               "removing it from the group", "kafka.coordinator.group.GroupCoordinator", coord)
            if active:
                for o in sorted(active):
                    pr(w, t + timedelta(milliseconds=w.ri(300, 2500)), 40,
                       "[Runner] The group is rebalancing, re-joining", node=names[o], logger="kafkajs",
                       groupId="watch-history", memberId=mids[o],
                       error="The group is rebalancing, so a rejoin is needed", retryCount=0)
                group_rebalance(w, t + timedelta(milliseconds=5), "watch-history",
                                f"removing member {mids[m]} on heartbeat expiration", members=len(active),
                                member=mids[min(active)])
                joined(t + timedelta(seconds=3))
            else:
                kf(w, t + timedelta(milliseconds=5), "INFO",
                   f"[GroupCoordinator {coord}]: Group watch-history with "
                   f"generation {gen + 1} is now empty (__consumer_offsets-{part})",
                   "kafka.coordinator.group.GroupCoordinator", coord)
                w.groups["watch-history"] = (coord, part, 3, gen + 1)
            holder_after(t + timedelta(seconds=3))
        elif kind == "rejoin":
            pr(w, t, 50, "[Connection] Response Heartbeat(key: 12, version: 3)", node=names[m],
               logger="kafkajs", broker="kafka-2.kumo.internal:9093", clientId=f"profiles-{m}",
               error="The coordinator is not aware of this member", correlationId=w.ri(10000, 99999),
               size=10)
            pr(w, t + timedelta(milliseconds=40), 50,
               "[Consumer] Crash: KafkaJSNumberOfRetriesExceeded: Invalid time value", node=names[m],
               logger="kafkajs", groupId="watch-history", retryCount=5)
            pr(w, t + timedelta(milliseconds=60), 30, "[Consumer] Restarting the consumer in 5000ms",
               node=names[m], logger="kafkajs", groupId="watch-history")
            t2 = t + timedelta(seconds=5, milliseconds=w.ri(0, 600))
            mids[m] = f"kafkajs-profiles-{m}-{w.uuid()}"
            active.add(m)
            group_rebalance(
                w, t2, "watch-history",
                f"Adding new member {mids[m]} with group instance id None; client reason: not provided",
                members=len(active), member=mids[min(active)],
            )
            joined(t2 + timedelta(seconds=3))
            if state["holder"] is None:
                holder_after(t2 + timedelta(seconds=3))
    coord, part, _m, gen = w.groups["watch-history"]
    for m in sorted(names):
        pr(w, stop + timedelta(seconds=m * 4), 30, "[Consumer] Stopped", node=names[m], logger="kafkajs",
           groupId="watch-history")
    kf(w, stop + timedelta(seconds=14), "INFO",
       f"[GroupCoordinator {coord}]: Group watch-history with generation "
       f"{gen + 1} is now empty (__consumer_offsets-{part})", "kafka.coordinator.group.GroupCoordinator",
       coord)
    w.groups["watch-history"] = (coord, part, 3, gen + 1)
    start = at(1, 8, 27, 0)
    active.clear()
    for m in sorted(names):
        mids[m] = f"kafkajs-profiles-{m}-{w.uuid()}"
        active.add(m)
        group_rebalance(
            w, start + timedelta(seconds=m * 6), "watch-history",
            f"Adding new member {mids[m]} with group instance id None; client reason: not provided",
            members=len(active), member=mids[1],
        )
    joined(start + timedelta(seconds=22))
    for k in range(12):
        pr(w, start + timedelta(seconds=30 + k * 7), 30, "resume points applied", topic="watch-events",
           partition=k, records=w.ri(80_000, 140_000),
           lastOffset=str(48_812_332 + w.ri(100_000, 200_000))
           if k == 7
           else str(48_800_000 + w.ri(100_000, 300_000)), catchUp=True)


def inc_skew(w: World) -> None:
    for node, pid in (("ent-b1", 812), ("ent-b2", 797)):
        ei = next(p for p in INST["entitlement"] if p[0] == node)

        def cl(
            t: datetime, level: str, msg: str, host_t: datetime, host: str = ei[1], pid: int = pid
        ) -> None:
            lt = loc(host_t)
            stamp = f"{MON[lt.month - 1]} {lt.day:2d} {lt.strftime('%H:%M:%S')}"
            w.emit(
                t, "entitlement", level, f"{stamp} {host} chronyd[{pid}]: {msg}", host=host, process="chronyd"
            )

        t = at(1, 19, 58, 4) + timedelta(seconds=w.ri(0, 20), milliseconds=w.ri(0, 999))
        cl(t, "INFO", "Source 169.254.169.123 removed", t)
        cl(t + timedelta(seconds=1), "INFO", "Added source 10.20.9.40", t + timedelta(seconds=1))
        t = SKEW[0] + timedelta(milliseconds=w.ri(0, 4000))
        cl(t - timedelta(seconds=2), "INFO", "Selected source 10.20.9.40 (ntp-pci-2.kumo.internal)", t)
        cl(t, "WARN", f"System clock wrong by {SKEW_S}.214561 seconds", t)
        cl(t + timedelta(milliseconds=2), "WARN", f"System clock was stepped by {SKEW_S}.214561 seconds",
           t + timedelta(seconds=SKEW_S))
        t = SKEW[1] + timedelta(milliseconds=w.ri(0, 4000))
        cl(t - timedelta(seconds=1), "INFO", "Source 10.20.9.40 removed", t + timedelta(seconds=SKEW_S))
        cl(t, "INFO", "Selected source 169.254.169.123", t + timedelta(seconds=SKEW_S))
        cl(t + timedelta(milliseconds=2), "WARN", f"System clock wrong by {-SKEW_S}.206118 seconds",
           t + timedelta(seconds=SKEW_S))
        cl(t + timedelta(milliseconds=4), "WARN", f"System clock was stepped by {-SKEW_S}.206118 seconds",
           t)


def inc_replica(w: World) -> None:
    pg(w, REPLAY_WAIT[0] - timedelta(seconds=32), "pg-catalog", w.newpid(), "", "LOG",
       'automatic vacuum of table "catalog.public.title_availability": index scans: 1, pages: 0 removed, '
       "48811 remain, tuples: 18234 removed, 2240190 remain, elapsed: 11.48 s")
    pg(w, REPLAY_WAIT[1], "pg-catalog-ro", 41877, "metabase@catalog", "LOG",
       "duration: 4099312.448 ms  statement: COPY (SELECT t.id, t.title, a.region, a.available_from, "
       "s.plays_7d FROM titles t JOIN title_availability a ON a.title_id = t.id JOIN play_stats s ON "
       "s.title_id = t.id) TO STDOUT WITH CSV HEADER")


def inc_reassign(w: World) -> None:
    kf(w, at(2, 9, 25, 2), "INFO",
       "[Admin Manager on Broker 1]: Updating broker 2 with new configuration : "
       "leader.replication.throttled.rate -> 209715200,follower.replication.throttled.rate -> 209715200",
       "kafka.server.ZkAdminManager", 1)
    for i, p in enumerate((1, 4, 7, 10)):
        for topic in ("watch-events", "playback.sessions"):
            t = REASSIGN[0] + timedelta(seconds=5 + i * 3, milliseconds=w.ri(0, 900))
            kf(w, t, "INFO",
               f"[Partition {topic}-{p} broker=2] Log loaded for partition {topic}-{p} with initial "
               "high watermark 0", "kafka.cluster.Partition", 2)
            t = REASSIGN[1] - timedelta(minutes=30 - i * 9, seconds=w.ri(0, 60))
            kf(w, t, "INFO",
               f"[Partition {topic}-{p} broker=1] ISR updated to 1,3,2 and version updated to "
               f"{w.ri(40, 90)}", "kafka.cluster.Partition", 1)
    kf(w, REASSIGN[1], "INFO",
       "[Controller id=1] Removed throttle configs for broker 2 after reassignment of 96 partitions",
       "kafka.controller.KafkaController", 1)


def inc_misc(w: World) -> None:
    # flyway V58 with catalog 3.8.0, and the sequence fix on pg-billing
    pg(w, at(2, 17, 31, 40), "pg-catalog", w.newpid(), "flyway_catalog@catalog", "LOG",
       "statement: CREATE TABLE trending_counters_region (title_id bigint NOT NULL, region text NOT NULL, "
       "plays_1h integer NOT NULL, PRIMARY KEY (title_id, region))")
    pg(w, SEQ_MAX[1] - timedelta(seconds=1), "pg-billing", w.newpid(), "dba@billing", "LOG",
       "statement: ALTER SEQUENCE billing_events_id_seq AS bigint MAXVALUE 9223372036854775807;")
    sk(w, SEQ_MAX[1] + timedelta(seconds=40), "INFO", "StripeWebhookJob",
       "done: billing event recorded id=2147483648", elapsed="0.212")
    # the DRM restart that loads the staged credential, and the premiere fix
    ct(w, PREMIERE[1] - timedelta(seconds=5), "INFO", f"{CAT}.cache.PlayableCache",
       f"evicted playable cache for {PREMIERE_ID} (manual, by m.sato)", thread="admin-3", node="catalog-1")


# ---------------------------------------------------------------------------------------------
# Metric exports (JST wall time): per-minute for the shield, kafka brokers and JVMs, 5-minute for
# services, databases, hosts and consumer lag; and batch runs
# ---------------------------------------------------------------------------------------------

BASE = {  # req/min at load 1, p95 ms, error %, cpu %
    "gateway": (52000, 240, 0.9, 38), "playback": (9000, 260, 0.6, 41), "drm-license": (4800, 60, 0.5, 35),
    "packager": (21000, 60, 0.2, 44), "catalog": (11000, 180, 0.3, 39), "entitlement": (3800, 60, 0.8, 30),
    "recommend": (4100, 160, 2.8, 52), "search": (2600, 110, 0.4, 26), "profiles": (5200, 25, 0.3, 22),
    "objstore-gw": (26000, 20, 0.6, 31),
}


def leaked(t: datetime) -> float:
    """Connections catalog 3.8.0 has leaked from catalog-primary (90 across 3 instances)."""
    if not inside(t, LEAK):
        return 0.0
    if t >= POOL_DRY[0]:
        return 90.0
    x = (t - LEAK[0]).total_seconds() / (POOL_DRY[0] - LEAK[0]).total_seconds()
    return 90.0 * x**1.6


# each incident in the service metrics (the curves are in svc_metric): worlds_data/vod/spells.txt
SPELLS = engine.spell_table(NAME, at, globals())


def svc_metric(w: World, t: datetime, svc: str) -> list:
    rpm, p95, err, cpu = BASE[svc]
    ld = load(t)
    r = rpm * ld * (0.9 + 0.2 * w.r())
    p = p95 * (0.85 + 0.3 * w.r())
    e = err * (0.6 + 0.8 * w.r())
    c = cpu * (0.5 + 0.5 * ld) * (0.9 + 0.2 * w.r())
    # the curves first; no spell below overlaps one of them but catalog's pool, which replaces its p95
    if inside(t, PREFETCH):
        if svc == "drm-license":
            r, p, c = r * 3.8, 2600 + 900 * w.r(), 96 + 3 * w.r()
            e = 100 * drm_sat_frac(t) + 2 * w.r()
        if svc == "playback":
            p, e = p + 500, e + 6 * drm_sat_frac(t) * 2
    if inside(t, SKEW):
        f = skew_frac(t)
        if svc in ("entitlement", "playback", "profiles"):
            e += 30 * f + w.r()
        if svc == "gateway":
            e += 12 * f
    if svc == "catalog" and inside(t, LEAK):
        p = p * (1 + leaked(t) / 60)
    row = {"r": r, "p": p, "e": e, "c": c}
    engine.spells(w.r, t, svc, row, SPELLS)
    r, p, e, c = row["r"], row["p"], row["e"], row["c"]
    return [wall(t), svc, round(r), round(p), round(e, 2), round(min(c, 99.5), 1)]


def metrics(w: World) -> None:
    svc_rows, db_rows, host_rows, lag_rows = [], [], [], []
    shield_rows, broker_rows, jvm_rows = [], [], []
    lag = {"watch-history": 0, "reco-events": 0, "search-catalog": 0}
    for t in w.minutes():
        ld = load(t)
        # per minute: shield
        for name, *_ in INST["origin-shield"]:
            rps = 3000 * ld * (0.9 + 0.2 * w.r())
            hit = 0.925 + 0.03 * w.r()
            nuked = rps * (1 - hit) * 60 * 0.8 * (0.9 + 0.2 * w.r())
            limited = 0
            b503 = 0.0
            used = 95.1 + 0.5 * w.r()
            if t >= UHD_PUBLISH:
                hit -= 0.05
            if inside(t, VCL_HASH):
                hit = 0.03 + 0.03 * w.r()
                b503 = rps * (1 - hit) * 0.2
            if inside(t, SLOWDOWN):
                b503 = rps * 0.28 * 0.55
                hit -= 0.02
            if inside(t, NUKE):
                limited = w.ri(300, 900)
                b503 = rps * uhd_share(t) * 0.6
            fetch = rps * (1 - hit)
            shield_rows.append(
                [wmin(t), name, round(rps), round(hit, 3), round(fetch), round(b503), round(nuked),
                 limited, round(used, 1)]
            )
        # per minute: kafka brokers
        for b in (1, 2, 3):
            p99 = 8 + 20 * w.r() * ld
            mbs = 14 * ld * (0.9 + 0.2 * w.r())
            await_ = 0.8 + 0.8 * w.r()
            burst: float | str = 100.0
            urp = 0
            if b == 2 and inside(t, REASSIGN):
                mbs += 190
            if b == 2 and t >= REASSIGN[0]:
                x = (t - REASSIGN[0]).total_seconds() / (BURST[0] - REASSIGN[0]).total_seconds()
                burst = max(0.0, 100.0 - 100.0 * x)
                await_ = 1.5 + 3 * x
                if t >= BURST[0]:
                    burst, await_ = 0.0, 150 + 110 * w.r()
                if t >= at(2, 13, 2):
                    burst = ""  # gp3 volumes have no burst bucket
                    await_ = 0.7 + 0.6 * w.r() if t >= BURST[1] else 60 + 40 * w.r()
            if inside(t, BURST):
                p99 = 2200 + 2600 * w.r() if b == 2 else 700 + 1100 * w.r()
            if b == 1 and inside(t, (REASSIGN[0] + timedelta(minutes=1), REASSIGN[1])):
                urp = 8
            broker_rows.append([wmin(t), f"kafka-{b}", round(p99, 1), round(mbs, 1), round(await_, 1),
                                burst if burst == "" else round(burst, 1), urp])
        # per minute: JVMs
        busy = 60 * ld * (0.8 + 0.4 * w.r())
        if inside(t, DRM_SAT):
            busy = 600
        elif inside(t, PREFETCH):
            busy = 420
        jvm_rows.append([wmin(t), "drm-license", round(busy), 600, "", "", round(2900 + 400 * w.r()),
                         round(8 + 10 * w.r())])
        pool = 6 + 14 * ld * (0.8 + 0.4 * w.r())
        pool = min(90, pool + leaked(t))
        jvm_rows.append(
            [wmin(t), "catalog", round(50 * ld * (0.8 + 0.4 * w.r()) + (300 if pool_dry(t) else 0)), 600,
             round(pool), 90, round(1800 + 500 * w.r()), round(6 + 8 * w.r())]
        )
        if loc(t).minute % 5 == 0:
            for svc in BASE:
                svc_rows.append(svc_metric(w, t, svc))
            for inst_, role, mx, tps in (
                ("pg-catalog", "primary", 300, 1900), ("pg-catalog-ro", "replica", 300, 3100),
                ("pg-billing", "primary", 200, 420), ("pg-profiles", "primary", 200, 2600),
            ):
                conns = round(mx * 0.3 * (0.6 + 0.4 * ld) * (0.9 + 0.2 * w.r()))
                lag_s: float | str = ""
                idle_tx = w.ri(0, 2)
                if role == "replica":
                    lag_s = round(0.2 + 0.6 * w.r(), 1)
                    if inside(t, REPLAY_WAIT):
                        lag_s = round((t - REPLAY_WAIT[0]).total_seconds() + w.r(), 1)
                    elif inside(t, (REPLAY_WAIT[1], REPLAY_WAIT[1] + timedelta(minutes=3))):
                        lag_s = round(40 * w.r(), 1)
                if inst_ == "pg-catalog" and inside(t, LEAK):
                    idle_tx += round(leaked(t))
                    conns = max(conns, 96 + idle_tx)
                db_rows.append([wall(t), inst_, role, conns, mx, round(tps * ld * (0.9 + 0.2 * w.r())),
                                round(20 + 30 * ld * (0.8 + 0.4 * w.r()), 1), lag_s, idle_tx,
                                round({"pg-catalog": 61.2, "pg-catalog-ro": 61.3, "pg-billing": 72.8,
                                       "pg-profiles": 48.1}[inst_]
                                      + 0.2 * w.r(), 1)])
            for service in ("gateway", "packager", "entitlement"):
                for name, host, _ip, az in INST[service]:
                    cpu = 35 * (0.5 + 0.5 * ld) * (0.85 + 0.3 * w.r())
                    if service == "packager" and inside(t, VCL_HASH):
                        cpu = 98 + 1.5 * w.r()
                    off = round((w.r() - 0.5) * 0.8, 2)
                    if name in SKEWED and inside(t, SKEW):
                        off = SKEW_S * 1000 - 214 + round(w.r(), 2)
                    host_rows.append([wall(t), host, service, az, round(cpu, 1), off])
            for b in (1, 2, 3):
                cpu = 30 * (0.5 + 0.5 * ld) * (0.85 + 0.3 * w.r())
                iowait = round(0.4 + w.r(), 1)
                if b == 2 and inside(t, BURST):
                    iowait = round(38 + 12 * w.r(), 1)
                host_rows.append(
                    [wall(t), f"kafka-{b}", "kafka", ["apne1-az1", "apne1-az2", "apne1-az4"][b - 1],
                     round(cpu + iowait, 1), round((w.r() - 0.5) * 0.8, 2)]
                )
            # consumer lag
            wh = lag["watch-history"]
            if inside(t, (POISON[0], at(1, 8, 27))):
                wh += round(26000 * ld * (0.9 + 0.2 * w.r()) * 5)
            elif wh > 20000:
                wh = max(0, wh - 900_000)
            else:
                wh = w.ri(50, 4000)
            lag["watch-history"] = wh
            lag_rows.append([wall(t), "watch-history", "watch-events", 12, wh])
            reco = w.ri(100, 9000) if not inside(t, BURST) else w.ri(9000, 40000)
            lag_rows.append([wall(t), "reco-events", "watch-events", 12, reco])
            lag_rows.append([wall(t), "search-catalog", "catalog.changes", 6,
                             w.ri(0, 300)
                             if not inside(t, (UHD_PUBLISH, UHD_PUBLISH + timedelta(minutes=6)))
                             else w.ri(4000, 9000)])
    w.table("svc_metrics", engine.columns("SERVICE_BUCKETS"), svc_rows)
    w.table("shield_metrics",
            ["minute", "node", "req_per_s", "hit_ratio", "backend_fetch_per_s", "backend_503_per_s",
             "n_lru_nuked", "n_lru_limited", "storage_used_gb"],
            shield_rows)
    w.table(
        "broker_metrics",
        ["minute", "broker", "produce_p99_ms", "bytes_in_mb_s", "disk_await_ms", "ebs_burst_balance_pct",
         "under_replicated_partitions"],
        broker_rows,
    )
    w.table("jvm_metrics",
            ["minute", "service", "threads_busy", "threads_max", "db_pool_active", "db_pool_max",
             "heap_used_mb", "gc_pause_ms"],
            jvm_rows)
    w.table("db_metrics",
            ["bucket_start", "instance", "role", "conns", "max_conns", "tps", "cpu_pct", "replay_lag_s",
             "idle_in_tx", "disk_used_pct"],
            db_rows)
    w.table("host_metrics", ["bucket_start", "host", "role", "az", "cpu_pct", "clock_offset_ms"], host_rows)
    w.table("consumer_lag", engine.columns("CONSUMER_LAG"), lag_rows)


def batch_runs(w: World, publish_rows: list[list]) -> None:
    rows = list(publish_rows)
    n = 31000
    for d in range(3):
        for job, runs_on, hh, mm, dur, items, detail in (
            ("pg-basebackup", "pg-catalog", 2, 0, 1900, 0, "pgbackrest full"),
            ("pg-basebackup", "pg-billing", 2, 0, 2400, 0, "pgbackrest full"),
            ("sprite-backfill", "transcode-batch", 1, 0, 11800, 0, "workers=16 s3_user=svc-media"),
            ("search-reindex", "search", 2, 59, 110, 0, "full reindex, alias swap at 03:00"),
            ("reco-model-train", "recommend", 4, 0, 5200, 0, "daily two-tower retrain"),
            ("stripe-payout-reconcile", "entitlement", 6, 0, 640, 0, ""),
        ):
            n += 1
            start = at(d, hh, mm)
            d_ = dur + w.ri(0, 120)
            it = items or {"sprite-backfill": w.ri(5200, 6100), "search-reindex": w.ri(212_000, 214_000),
                           "stripe-payout-reconcile": w.ri(1800, 2600)}.get(job, 0)
            rows.append(
                [f"BR-{n}", job, runs_on, wall(start), wall(start + timedelta(seconds=d_)), "COMPLETED",
                 it, detail]
            )
    for start, cid, title, ok in PREPACK_RUNS:
        n += 1
        dur = 90 if not ok else w.ri(380, 500)
        rows.append([f"BR-{n}", "prepackage", "packager (pkg-4)", wall(start),
                     wall(start + timedelta(seconds=dur)), "COMPLETED" if ok else "FAILED", 1 if ok else 0,
                     f"{cid} {title}" + ("" if ok else ": audio rendition ja-5.1 missing from mezzanine")])
    n += 1
    rows.append(
        [f"BR-{n}", "sprite-backfill", "transcode-batch", wall(SPRITE[0]), wall(SPRITE[1]), "ABORTED",
         18412,
         "workers=64 s3_user=svc-media (manual run: catch up 48210 library titles before the UI launch)"]
    )
    n += 1
    rows.append(
        [f"BR-{n}", "partition-reassign", "kafka", wall(REASSIGN[0]), wall(REASSIGN[1]), "COMPLETED", 96,
         "move 96 partitions of watch-events, playback.sessions onto kafka-2 (replaced broker), 1.8 TB"]
    )
    rows.sort(key=lambda r: (r[3], r[0]))
    w.table(
        "batch_runs", ["run_id", "job_name", "runs_on", "began", "finished", "result", "items", "detail"],
        rows,
    )


# ---------------------------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------------------------

DOCS = {
    "platform-overview": """# Kumo Video platform: on-call overview

Owner: streaming SRE (Tokyo). Times are Japan Standard Time (JST, UTC+09:00, Asia/Tokyo) unless a
tool says otherwise. Careful, the components write their own clocks:

- gateway (nginx) access and error logs, catalog, drm-license, packager (glog, no year), postgres,
  redis and the entitlement web (Rails) logs are in JST;
- playback, search, recommend, kafka, Sidekiq and the origin-shield `varnishncsa` lines are UTC,
  objstore-gw (ceph radosgw) writes `+0000`, profiles writes epoch milliseconds;
- tables: `deploys`, `feature_flags` and `certificates` are UTC, `config_changes` carry their
  offset, metric exports, `batch_runs` and `schema_migrations` are JST wall time.

## Flow

- Apps (iOS/iPadOS/tvOS, Android, Android TV, Fire TV, Tizen, webOS) and browsers call
  `api.kumo-video.example`: the nginx **gateway** (gw-1..3, one per AZ of ap-northeast-1).
- **playback** (Go) starts a session: checks the access token (signed by entitlement, JWKS),
  the plan (entitlement) and whether the title is playable (catalog), issues a license token,
  resolves the manifest and publishes `playback.sessions` synchronously (acks=all) before it
  answers; heartbeats go to `watch-events`.
- Clients get licenses from **drm-license** (Java): Widevine, PlayReady, FairPlay (CKC).
- Video segments: CloudFront -> **origin-shield** (varnish, shield-1..3) -> **packager** (just-in-time
  HLS/DASH from CMAF, pkg-1..4) -> **objstore-gw** (ceph radosgw, bucket `vod-cmaf`). Premieres are
  pre-packaged by the `prepackage` job into `vod-packaged/` and playback reads their manifests there.
- **catalog** (Java) serves titles (reads from the hot standby pg-catalog-ro), the home rails (from
  pg-catalog), publishes scheduled titles every 30 minutes and emits `catalog.changes` (search
  indexes them). **recommend** (python) the for-you rail, **search** (Go) search, **profiles** (node)
  profiles, continue-watching and resume points (consumer group `watch-history`).
- **entitlement** (Rails + Sidekiq, pg-billing) sign-in and tokens, plans, Stripe and app-store
  billing; runs on its own hosts ent-a1, ent-a2 (az1, az2) and ent-b1, ent-b2 (az4), PCI segment.
- **kafka** kafka-1..3; **redis** redis-session and redis-profiles.

## Where to look

- `dependencies` for who calls what; `svc_metrics`, `shield_metrics`, `broker_metrics`,
  `jvm_metrics`, `db_metrics`, `host_metrics`, `consumer_lag` for numbers; `deploys`,
  `config_changes`, `feature_flags`, `certificates`, `schema_migrations`, `batch_runs` for changes.
""",
    "known-noise": """# Known noise

These appear every day and do not by themselves mean viewers are affected.

- recommend: `feature store miss, using popular fallback` all day (new and guest profiles), `catalog
  batchGet partial result` (expired titles), `candidate index stale, keeping previous snapshot` once
  an hour; its error_pct sits around 2-4%.
- search: `alias swap cancelled in-flight queries` at every hourly index swap (more at the 03:00
  full reindex); `slow query` lines over 800 ms.
- gateway: 499 (client closed), 404 on old title ids, 401 on expired tokens, an occasional
  `upstream prematurely closed connection` from recommend, `buffered to a temporary file`.
- playback: client error reports (NET-1002 timeouts, MEDIA-2004 decoder errors, the odd DRM-3016
  with HTTP 403 for lapsed plans), `concurrent stream limit reached`, `access token rejected ...
  token is expired` from apps resuming with an old token.
- drm-license: `Widevine license downgraded` (L3 devices get SD), PlayReady refusals for revoked
  clients.
- packager: `unknown rendition 'v4320'` probes, `Broken pipe` when the shield closes a connection;
  objstore-gw: 404 on subtitle probes (`subs/*.vtt`).
- profiles: `avatar not found`, `profile PIN attempts exceeded`, expired tokens.
- entitlement: `Stripe::CardError ... card_declined`, duplicate Stripe events ignored (and postgres's
  duplicate key error for them), App Store sandbox notifications dropped.
- origin-shield: a packager backend going sick for a few seconds and back healthy.
""",
    "drm-credentials": """# drm-license: DRM credentials and their expiry

Owner: playback team. drm-license holds the FairPlay Streaming (FPS) certificate and key, the
PlayReady server certificate and the Widevine service certificate (see `certificates`).

- Credentials are read from vault (`secret/drm/*`) **at startup only**. A renewed certificate staged
  in vault is not used until drm-license is restarted (rolling restart, one allocation at a time).
- An expired FPS certificate breaks FairPlay only: iPhone, iPad, Apple TV and Safari cannot get a
  CKC (`FPS_CREDENTIAL_EXPIRED`, apps show DRM-3016); Widevine and PlayReady devices are fine.
- Check: `certificates` (not_after, staged renewals), drm-license `credential check` lines.
- Fix: rolling restart of drm-license (`nomad job restart -batch-size 1 drm-license`).
""",
    "catalog-replica": """# catalog: reads from the hot standby (pg-catalog-ro)

Owner: catalog team / DBA. catalog reads titles, availability and the playable check from the
streaming replica pg-catalog-ro; writes (publish, rails) go to pg-catalog.

- pg-catalog-ro runs with `max_standby_streaming_delay = -1` so that analysts' long queries are not
  cancelled. The price: a long query that conflicts with cleanup replayed from the primary makes
  replay wait until it ends — the replica falls behind silently (nothing in the logs).
- Symptom: titles published on the primary still look SCHEDULED / coming soon, edits "not showing".
- Check `db_metrics.replay_lag_s` for pg-catalog-ro; the query is in `pg_stat_activity` on the
  replica (often metabase). Cancel it with `pg_cancel_backend(pid)`; replay catches up in seconds.
""",
    "kafka-consumer-groups": """# kafka: a consumer group that keeps rebalancing

Owner: platform team. Consumer groups: `watch-history` (profiles, kafkajs), `reco-events`
(recommend), `search-catalog` (search).

- A group that rebalances every minute or two and makes no progress (lag growing on every
  partition) usually has one member that stops heartbeating: a handler stuck on one record
  (retrying in-process), a long GC, or a crash loop. The coordinator logs `has failed, removing it
  from the group` and `Preparing to rebalance group ... (reason: removing member ... on heartbeat
  expiration)`.
- Find the partition and offset the stuck member was on (the service's own error lines).
- A poison record: stop the group, skip it with `kafka-consumer-groups --reset-offsets --to-offset
  N+1 --topic topic:partition --execute`, start the group, file a bug for the producer.
""",
    "shield-503": """# origin-shield: 503 Backend fetch failed

Owner: CDN / video delivery team.

Symptoms: CloudFront and players get `503 Backend fetch failed` (varnish's synthetic error page),
`FetchError` in varnishlog, shield 503s in `shield_metrics.backend_503_per_s`.

- A varnish 503 means the backend fetch failed: the **packager** is down, overloaded or too slow
  (first_byte_timeout 3 s). Check the packager's CPU and work queue and recent packager deploys.
- Short term: scale the packager (`nomad job scale packager 8`) and, if a packager deploy is recent,
  roll it back.
- If only one shield node is affected, drain it from the CloudFront origin group.
""",
}


# ---------------------------------------------------------------------------------------------
# Truth
# ---------------------------------------------------------------------------------------------


def truth() -> dict:
    return engine.truth(NAME, at, iso, globals())


# ---------------------------------------------------------------------------------------------


main = engine.main(NAME, world, __name__, DOCS)
