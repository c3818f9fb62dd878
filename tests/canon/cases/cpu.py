"""CPU saturation: a noisy neighbour, or a CPU limit lowered."""

from ..spec import Burst, Case, Config, Line, Metric
from ._world import edge, go, host, java

CASES = (
    Case(
        id="cpu-noisy-neighbour", klass="cpu-saturation",
        title="a video-transcoder batch pod lands on pricing's node and takes its CPU",
        day="2026-04-08", window=("14:00", "14:20"),
        question="pricing latency through the roof, {date} 14:00–14:20 UTC. What's happening?",
        services=(java("pricing", "quote"), host("node-3"), edge("edge", "/v1/quotes")),
        onset="13:52:30", cause_service="video-transcoder",
        lines=(
            Line("13:51:58", "node-3", "kubelet[812]: pod media/video-transcoder-7f9c4-q2x8n "
                 "scheduled, containers started (requests cpu=100m, limits none)"),
            Burst("13:52:30", "14:45", "pricing",
                  "slow request: POST /v1/quotes took {n}40 ms", level="WARN", every_s=5),
            Burst("13:53:00", "14:45", "edge", "POST /v1/quotes 504 rt=5.001", every_s=11),
        ),
        metrics=(Metric("node-3", "cpu_used_pct", 38, 99, at="13:52", ramp_min=1, jitter=0.01),
                 Metric("pricing", "cpu_throttled_pct", 0, 0.5),
                 Metric("video-transcoder", "cpu_cores", 0, 7.6, at="13:52")),
        runbooks=("cpu",),
        expect="SUCCESS", key_terms=("transcoder", "node-3"),
        root_cause="a video-transcoder pod without a CPU limit was scheduled on node-3 at 13:52 and "
                   "uses ~7.6 cores; node-3's CPU saturates and pricing, on the same node, slows "
                   "to seconds per quote",
        distractors=()),
    Case(
        id="cpu-limit-lowered", klass="cpu-saturation",
        title="search's CPU limit 2 -> 200m; CFS throttling",
        day="2026-04-09", window=("11:30", "11:50"),
        question="search p95 jumped, 11:30 to 11:50 UTC {day}. Root cause?",
        services=(go("search", "query"), edge("edge", "/v1/search")),
        onset="11:26:00", cause_service="search",
        lines=(
            Burst("11:26:00", "12:15", "search",
                  "query slow duration_ms={n}00 index=products", level="WARN", every_s=5),
        ),
        changes=(Config("11:25", "search", "resources.limits.cpu", "2", "200m",
                        by="k8s-rightsizer", ticket="RS-4471"),),
        metrics=(Metric("search", "cpu_throttled_pct", 0.3, 88, at="11:26"),
                 Metric("search", "p95_ms", 90, 2400, at="11:26")),
        runbooks=("cpu", "deploy-regression"),
        expect="SUCCESS", key_terms=("200m", "cpu"),
        root_cause="search's CPU limit was lowered from 2 to 200m at 11:25 (RS-4471); the "
                   "container is throttled ~88% of the time and queries take seconds",
        distractors=()),
)
