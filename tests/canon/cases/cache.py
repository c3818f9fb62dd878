"""Cache TTL or eviction changes: the hit rate collapses and the database takes the reads."""

from ..spec import Burst, Case, Config, Metric
from ._world import edge, go, host, java, postgres

CASES = (
    Case(
        id="cache-ttl-shortened", klass="cache",
        title="catalog.cache.ttl_seconds 3600 -> 5; the database takes every read",
        day="2026-04-06", window=("10:00", "10:20"),
        question="catalog slow, product pages timing out at edge, {date} 10:00-10:20 UTC. Why?",
        services=(go("catalog", "product"), postgres("catalog-db"), edge("edge", "/v1/products")),
        onset="09:51:30", cause_service="catalog",
        lines=(
            Burst("09:51:30", "10:45", "catalog",
                  "product query slow duration_ms={n}00 cache=miss", level="WARN", every_s=4),
            Burst("09:53:00", "10:45", "edge", "GET /v1/products 504 rt=10.000", every_s=9),
        ),
        changes=(Config("09:50", "catalog", "catalog.cache.ttl_seconds", "3600", "5",
                        by="p.silva", ticket="CAT-202"),),
        metrics=(Metric("catalog", "cache_hit_ratio", 0.97, 0.08, at="09:51"),
                 Metric("catalog-db", "queries_per_s", 300, 4100, at="09:51")),
        runbooks=("cache",),
        expect="SUCCESS", key_terms=("ttl_seconds", "cache"),
        root_cause="catalog.cache.ttl_seconds was changed from 3600 to 5 at 09:50 (CAT-202); the "
                   "cache hit ratio fell from 97% to 8% and catalog-db took ~14x the reads, so "
                   "product queries slowed and timed out",
        distractors=()),
    Case(
        id="cache-maxmemory-evictions", klass="cache",
        title="redis maxmemory 4gb -> 512mb; session keys evicted, users logged out",
        day="2026-04-07", window=("19:00", "19:20"),
        question="sessions: users randomly logged out, {short} 19:00 to 19:20 UTC. Why?",
        services=(java("sessions", "session"), host("cache-2"), edge("edge", "/v1/account")),
        onset="18:46:00", cause_service="redis",
        lines=(
            Burst("18:46:00", "19:45", "sessions",
                  "session {id} not found in redis, redirecting to login", level="WARN",
                  every_s=3),
            Burst("18:46:00", "19:45", "edge", "GET /v1/account 302 rt=0.004", every_s=5),
        ),
        changes=(Config("18:44", "redis", "maxmemory", "4gb", "512mb", by="infra-tf",
                        ticket="INFRA-908"),),
        metrics=(Metric("redis", "evicted_keys_per_s", 0, 220, at="18:45"),
                 Metric("redis", "used_memory_mb", 2900, 512, at="18:45", jitter=0.01)),
        runbooks=("cache", "known-noise"),
        expect="SUCCESS", key_terms=("maxmemory", "evict"),
        root_cause="redis' maxmemory was lowered from 4gb to 512mb at 18:44 (INFRA-908); ~2.9 GB "
                   "of sessions no longer fit, redis evicts session keys and users are sent back "
                   "to login",
        distractors=()),
)
