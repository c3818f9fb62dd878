"""A feature flag turned on."""

from ..spec import Burst, Case, Deploy, Flag, Metric
from ._world import edge, go, java, py

CASES = (
    Case(
        id="flag-tax-engine", klass="feature-flag",
        title="new_tax_engine to 50% fails for Canary Islands addresses",
        day="2026-04-13", window=("10:10", "10:30"),
        question="checkout-api: some orders fail at the tax step, {date} 10:10–10:30 UTC. Why?",
        services=(java("checkout-api", "order"), edge(), go("payments", "payment")),
        onset="10:05:12", cause_service="checkout-api",
        lines=(
            Burst("10:05:12", "10:55", "checkout-api",
                  "order {id} failed: com.acme.tax.TaxCalculationException: no tax rule for "
                  "region ES-CN (engine=v2)", every_s=12),
        ),
        changes=(Flag("10:05", "new_tax_engine", "checkout-api", "0%", "50%"),
                 Deploy("09:30", "payments", "7.5.0", "SEPA mandates")),
        runbooks=("feature-flag", "deploy-regression"),
        expect="SUCCESS", key_terms=("new_tax_engine", "ES-CN"),
        root_cause="the new_tax_engine flag was raised to 50% at 10:05; the v2 tax engine has no "
                   "rule for region ES-CN, so orders on it fail with TaxCalculationException",
        distractors=("payments deploy 7.5.0 at 09:30",)),
    Case(
        id="flag-semantic-ranking", klass="feature-flag",
        title="semantic ranking flag on: every search calls the embedding service and times out",
        day="2026-04-14", window=("15:00", "15:20"),
        question="search timeouts between 15:00 and 15:20 UTC on {short}. Cause?",
        services=(go("search", "query"), py("embedder", "embedding"), edge("edge", "/v1/search")),
        onset="14:54:40", cause_service="search",
        lines=(
            Burst("14:54:40", "15:45", "search",
                  "rerank failed: embedder call: context deadline exceeded after 800ms",
                  every_s=4),
            Burst("14:54:40", "15:45", "embedder",
                  "request queue full ({n} waiting), shedding load", level="WARN", every_s=6),
        ),
        changes=(Flag("14:54", "search.semantic_ranking", "search", "off", "on"),),
        change_shape="single",
        metrics=(Metric("embedder", "requests_per_s", 5, 380, at="14:54"),),
        runbooks=("feature-flag",),
        expect="SUCCESS", key_terms=("semantic_ranking",),
        root_cause="search.semantic_ranking was turned on at 14:54; every search now calls the "
                   "embedder (5 -> 380 req/s), which sheds load, and searches time out on the "
                   "rerank call",
        distractors=("embedder's load shedding (the overloaded dependency, not the trigger)",)),
)
