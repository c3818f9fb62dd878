"""Out of memory after a memory or heap limit was lowered."""

from ..spec import Burst, Case, Config, Deploy, Line, Metric
from ._world import edge, go, host, java, py

CASES = (
    Case(
        id="oom-heap-lowered", klass="oom",
        title="-Xmx lowered 2g -> 512m for pricing; OutOfMemoryError, restarts",
        day="2026-03-16", window=("10:40", "11:00"),
        question="pricing keeps restarting and quotes fail, {date} 10:40-11:00 UTC. Why?",
        services=(java("pricing", "quote"), edge("edge", "/v1/quotes"), go("catalog", "product")),
        onset="10:37:12", cause_service="pricing",
        lines=(
            Line("10:31:40", "pricing", "JVM arguments: -Xms512m -Xmx512m -XX:+UseG1GC"),
            Burst("10:37:12", "11:30", "pricing",
                  "Exception in thread \"quote-worker-{n}\" java.lang.OutOfMemoryError: Java heap "
                  "space", every_s=30),
            Burst("10:37:40", "11:30", "pricing", "JVM arguments: -Xms512m -Xmx512m -XX:+UseG1GC",
                  level="INFO", every_s=30),
            Burst("10:37:20", "11:30", "edge", "POST /v1/quotes 503 rt=0.002", every_s=5),
        ),
        changes=(Config("10:30", "pricing", "jvm.heap.max", "2g", "512m", by="cost-bot",
                        ticket="FINOPS-31"),
                 Deploy("09:50", "catalog", "3.1.0", "catalog images")),
        metrics=(Metric("pricing", "heap_used_mb", 1100, 505, at="10:31", jitter=0.02),),
        runbooks=("oom", "known-noise"),
        expect="SUCCESS", key_terms=("heap", "512m"),
        root_cause="pricing's max heap was lowered from 2g to 512m at 10:30 (FINOPS-31); the "
                   "working set (~1.1 GB) no longer fits, the JVM throws OutOfMemoryError: Java "
                   "heap space and restarts",
        distractors=("catalog deploy 3.1.0 at 09:50",)),
    Case(
        id="oom-cgroup-limit", klass="oom",
        title="recommender's memory limit 1Gi -> 256Mi; the kernel OOM-kills gunicorn",
        day="2026-03-17", window=("18:00", "18:20"),
        question="recommender: recommendations missing on the home page, {short} 18:00-18:20 UTC. Cause?",
        services=(py("recommender", "recommendation"), host("node-9"), java("storefront", "page"),
                  edge("edge", "/v1/home")),
        onset="17:52:33", cause_service="recommender",
        lines=(
            Burst("17:52:33", "18:45", "node-9",
                  "kernel: Memory cgroup out of memory: Killed process {n}12 (gunicorn) "
                  "total-vm:912004kB, anon-rss:262144kB, file-rss:0kB, oom_score_adj:999",
                  level="ERROR", every_s=40),
            Burst("17:52:35", "18:45", "node-9",
                  "kubelet[812]: container recommender in pod recommender-6d9c7b-2xk4p "
                  "OOMKilled (exit code 137), restarting", level="WARN", every_s=40),
            Burst("17:52:40", "18:45", "storefront",
                  "recommendations unavailable: Read timed out calling http://recommender/v1/recs",
                  level="WARN", every_s=7),
        ),
        changes=(Config("17:48", "recommender", "resources.limits.memory", "1Gi", "256Mi",
                        by="k8s-rightsizer", ticket="RS-4410"),),
        metrics=(Metric("recommender", "memory_working_set_mb", 610, 256, at="17:49",
                        jitter=0.02),),
        runbooks=("oom",),
        expect="SUCCESS", key_terms=("256Mi", "memory"),
        root_cause="recommender's memory limit was lowered from 1Gi to 256Mi at 17:48 (RS-4410); "
                   "its gunicorn workers need ~600 MB, so the kernel OOM-kills them (exit 137) "
                   "and the pod restarts in a loop",
        distractors=("storefront's read timeouts (a caller)",)),
    Case(
        id="oom-leak-after-deploy", klass="oom",
        title="cart 5.1.0 caches every session's cart without eviction; heap fills over hours",
        day="2026-03-18", window=("17:00", "17:15"),
        question="cart service restarting and carts lost, {day}, 17:00 to 17:15 UTC. Why?",
        services=(java("cart", "cart"), edge("edge", "/v1/cart"), go("catalog", "product")),
        onset="16:54:20", cause_service="cart",
        baseline_h=5,
        lines=(
            Line("12:03:40", "cart", "Started CartApplication v5.1.0 in 6.7 seconds"),
            Burst("15:40:00", "16:54", "cart", "G1 Evacuation Pause took {n}0 ms, heap after GC "
                  "{n}%", level="WARN", every_s=60),
            Burst("16:54:20", "17:40", "cart",
                  "Handler dispatch failed; nested exception is java.lang.OutOfMemoryError: Java "
                  "heap space", every_s=20),
            Burst("16:54:50", "17:40", "cart", "Started CartApplication v5.1.0 in 6.9 seconds",
                  level="INFO", every_s=240),
        ),
        changes=(Deploy("12:00", "cart", "5.1.0", "in-memory cart cache (CartCache)"),),
        metrics=(Metric("cart", "heap_used_pct", 35, 99, at="12:04", ramp_min=290, jitter=0.02),),
        runbooks=("oom", "deploy-regression"),
        expect="SUCCESS", key_terms=("5.1.0", "OutOfMemoryError"),
        root_cause="cart 5.1.0 (deployed 12:00) keeps every cart in an in-memory cache that is "
                   "never evicted; heap use climbed from 12:04 until the JVM threw "
                   "OutOfMemoryError: Java heap space at 16:54 and restarts since",
        distractors=()),
)
