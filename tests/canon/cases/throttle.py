"""Rate limits, throttling and quotas."""

from ..spec import Burst, Case, Config, Deploy, Flag, Job, Line, Metric
from ._world import edge, events, go, java, py

CASES = (
    Case(
        id="ratelimit-edge-lowered", klass="rate-limit",
        title="edge limit_req rate lowered 500r/s -> 50r/s; clients get 429",
        day="2026-03-25", window=("12:00", "12:15"),
        question="mobile app requests rejected with 429 at edge, {date} 12:00–12:15 UTC. Why?",
        services=(edge(), java("checkout-api", "order"), go("catalog", "product")),
        onset="11:58:40", cause_service="edge",
        lines=(
            Burst("11:58:40", "12:40", "edge", "GET /v1/catalog 429 rt=0.000", every_s=2),
            Burst("11:58:41", "12:40", "edge", "POST /v1/orders 429 rt=0.000", every_s=5),
        ),
        changes=(Config("11:58", "edge", "limit_req.api.rate", "500r/s", "50r/s", by="sec-team",
                        ticket="SEC-51"),),
        metrics=(Metric("edge", "http_429_per_min", 0, 140, at="11:58"),),
        runbooks=("rate-limit",),
        expect="SUCCESS", key_terms=("limit_req", "50r/s"),
        root_cause="edge's limit_req rate for the api zone was lowered from 500r/s to 50r/s at "
                   "11:58 (SEC-51); normal traffic now exceeds it and is answered 429",
        distractors=()),
    Case(
        id="ratelimit-upstream-backfill", klass="rate-limit",
        title="an address backfill job floods the maps API; geocoder throttled",
        day="2026-03-26", window=("14:20", "14:40"),
        question="geocoder failing with 429s, {short} 14:20–14:40 UTC. What's the cause?",
        services=(py("geocoder", "address"), java("checkout-api", "order"), edge()),
        onset="14:16:10", cause_service="geocoder",
        lines=(
            Line("14:15:00", "geocoder", "address-backfill started: 1,840,000 addresses to "
                 "geocode, concurrency=64"),
            Burst("14:16:10", "15:05", "geocoder",
                  "maps api 429 Too Many Requests: rate limit exceeded (project=acme-prod, "
                  "limit=100/s)", every_s=3),
            Burst("14:16:30", "15:05", "checkout-api",
                  "address validation unavailable, accepting address unverified", level="WARN",
                  every_s=9),
        ),
        changes=(Job("14:15", "16:40", "address-backfill", "geocoder", "maps api",
                     by="d.kim", rows=1840000),),
        metrics=(Metric("geocoder", "maps_requests_per_s", 31, 100, at="14:15"),),
        runbooks=("rate-limit",),
        expect="SUCCESS", key_terms=("backfill", "429"),
        root_cause="the address-backfill job started at 14:15 by hand sends geocoder's requests "
                   "to the maps API past its 100/s limit; the API answers 429 and online address "
                   "lookups fail",
        distractors=("checkout-api 'address unverified' warnings",)),
    Case(
        id="quota-daily-translate", klass="quota",
        title="auto-translation flag burns the translate API's daily quota",
        day="2026-03-27", window=("16:00", "16:20"),
        question="reviews service: translations failing since about 16:00, {date} 16:00-16:20 UTC. Why?",
        services=(py("reviews", "review"), edge("edge", "/v1/reviews"), java("catalog", "product")),
        onset="15:52:00", cause_service="reviews",
        lines=(
            Burst("15:52:00", "16:45", "reviews",
                  "translate failed: 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric "
                  "'Characters' and limit 'Characters per day' of service "
                  "'translate.googleapis.com'", every_s=5),
        ),
        changes=(Flag("08:00", "auto_translate_reviews", "reviews", "off", "on"),),
        metrics=(Metric("reviews", "translate_chars_used_pct", 4, 100, at="08:00", ramp_min=472,
                        jitter=0.01),),
        runbooks=("quota", "rate-limit"),
        expect="SUCCESS", key_terms=("quota", "auto_translate_reviews"),
        root_cause="auto_translate_reviews was turned on at 08:00; it translates every review and "
                   "used up translate.googleapis.com's daily character quota by 15:52 "
                   "(RESOURCE_EXHAUSTED)",
        distractors=()),
    Case(
        id="quota-k8s-resourcequota", klass="quota",
        title="the team's ResourceQuota is full; the worker cannot scale and the queue backs up",
        day="2026-03-28", window=("12:30", "12:50"),
        question="thumbnailer falling behind, uploads without thumbnails, {date} 12:30-12:50 UTC. Why?",
        services=(py("thumbnailer", "thumbnail"), events(), edge("edge", "/v1/uploads")),
        onset="12:21:00", cause_service="thumbnailer",
        lines=(
            Burst("12:21:00", "13:15", "k8s-events",
                  "ReplicaSet media/thumbnailer-6b8d9c7f4 FailedCreate: Error creating: pods "
                  "\"thumbnailer-6b8d9c7f4-{id}\" is forbidden: exceeded quota: team-media-quota, "
                  "requested: cpu=500m, used: cpu=19800m, limited: cpu=20", level="WARN",
                  every_s=30),
            Burst("12:22:00", "13:15", "thumbnailer",
                  "job waited {n}s in queue thumbnails before start", level="WARN", every_s=15),
        ),
        changes=(Deploy("11:40", "video-encoder", "2.0.0", "encoder requests 4 CPUs per pod"),),
        metrics=(Metric("thumbnailer", "queue_depth", 15, 5200, at="12:21", ramp_min=30),
                 Metric("thumbnailer", "desired_replicas", 4, 16, at="12:20"),
                 Metric("thumbnailer", "ready_replicas", 4, 4)),
        runbooks=("quota", "queue-backlog"),
        expect="SUCCESS", key_terms=("exceeded quota", "team-media-quota"),
        root_cause="the media namespace's ResourceQuota team-media-quota (cpu=20) is used up "
                   "(video-encoder 2.0.0 now requests 4 CPUs a pod); the autoscaler wants 16 "
                   "thumbnailer pods but new ones are forbidden (exceeded quota), so the queue "
                   "backs up",
        distractors=()),
)
