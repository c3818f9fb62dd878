"""A bad deploy: a regression right after a release."""

from ..spec import Burst, Case, Config, Deploy, Line, Metric
from ._world import edge, go, gokit, java, postgres, py

CASES = (
    Case(
        id="deploy-npe", klass="bad-deploy",
        title="checkout-api 4.2.0 throws NullPointerException on orders without a promo",
        day="2026-03-05", window=("14:05", "14:25"),
        question="checkout-api returning 500s on POST /v1/orders between 14:05 and 14:25 on {date}. "
                 "Root cause?",
        services=(java("checkout-api", "order"), edge(), go("payments", "payment"),
                  gokit("inventory", "reservation")),
        onset="14:01:20", cause_service="checkout-api",
        lines=(
            Line("14:00:58", "checkout-api", "Started CheckoutApplication v4.2.0 in 7.9 seconds"),
            Burst("14:01:20", "14:50", "checkout-api",
                  "Request processing failed: java.lang.NullPointerException: Cannot invoke "
                  "\"com.acme.checkout.Promo.code()\" because \"order.promo\" is null\n"
                  "\tat com.acme.checkout.PricingService.applyPromo(PricingService.java:88)",
                  every_s=5),
            Burst("14:01:21", "14:50", "edge", "POST /v1/orders 500 rt=0.041", every_s=6),
        ),
        changes=(Deploy("13:58", "checkout-api", "4.2.0", "promo engine v2, pricing refactor",
                        by="release-train"),
                 Config("13:40", "payments", "psp.timeout_ms", "4000", "3500")),
        metrics=(Metric("checkout-api", "http_5xx_per_min", 0, 11, at="14:01"),),
        runbooks=("deploy-regression", "triage", "known-noise"),
        expect="SUCCESS", key_terms=("4.2.0", "NullPointerException"),
        root_cause="checkout-api 4.2.0, deployed at 13:58, dereferences order.promo without a "
                   "null check (NullPointerException in PricingService.applyPromo): every order "
                   "without a promo fails with 500",
        distractors=("payments psp.timeout_ms change at 13:40",)),
    Case(
        id="deploy-go-panic", klass="bad-deploy",
        title="payments 7.3.0 panics with a nil pointer dereference and crash-loops",
        day="2026-03-06", window=("11:20", "11:40"),
        question="payment failures on payments, {short} 11:20–11:40 UTC — why?",
        services=(go("payments", "payment"), java("checkout-api", "order"),
                  edge("edge", "/v1/payments"), postgres("payments-db")),
        onset="11:16:40", cause_service="payments",
        lines=(
            Line("11:16:31", "payments", "starting payments version=7.3.0 commit=9f3ab12"),
            Burst("11:16:40", "12:05", "payments",
                  "panic: runtime error: invalid memory address or nil pointer dereference "
                  "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18] goroutine {n} "
                  "[running]: payments/internal/refund.(*Service).Quote", level="FATAL",
                  every_s=25),
            Burst("11:16:50", "12:05", "payments", "starting payments version=7.3.0 commit=9f3ab12",
                  level="INFO", every_s=25),
            Burst("11:16:45", "12:05", "checkout-api",
                  "payment call failed: I/O error on POST request for \"http://payments:8080/v1/"
                  "charges\": Connection reset", every_s=6),
        ),
        changes=(Deploy("11:14", "payments", "7.3.0", "refund quotes, new currency rounding"),),
        metrics=(Metric("payments", "restarts", 0, 2, at="11:17"),),
        runbooks=("deploy-regression",),
        expect="SUCCESS", key_terms=("7.3.0", "nil pointer"),
        root_cause="payments 7.3.0 (deployed 11:14) panics with a nil pointer dereference in "
                   "refund.(*Service).Quote and crash-loops; checkout's payment calls are reset",
        distractors=("checkout-api's connection resets (a caller)",)),
    Case(
        id="deploy-slow-query", klass="bad-deploy",
        title="search 2.9.0 ships a query that cannot use the index; latency, then timeouts",
        day="2026-03-07", window=("16:30", "16:50"),
        question="search: product search very slow and timing out, 16:30-16:50 on {day}. Why?",
        services=(gokit("search", "query"), edge("edge", "/v1/search"), postgres("catalog-db"),
                  py("recommender", "recommendation")),
        onset="16:24:00", cause_service="search",
        lines=(
            Line("16:22:40", "search", "search starting version=2.9.0 build=2026-03-07.3"),
            Burst("16:24:00", "17:20", "catalog-db",
                  "duration: {n}71.302 ms  statement: SELECT id, title FROM products WHERE "
                  "lower(title) LIKE lower($1) ORDER BY rank DESC LIMIT 50", level="INFO",
                  every_s=7),
            Burst("16:26:00", "17:20", "search",
                  "query failed: timeout: context deadline exceeded after 5s", level="ERROR",
                  every_s=9),
            Burst("16:26:05", "17:20", "edge", "GET /v1/search 504 rt=5.004", every_s=10),
        ),
        changes=(Deploy("16:20", "search", "2.9.0", "case-insensitive title search"),
                 Deploy("15:55", "recommender", "1.14.0", "model refresh")),
        metrics=(Metric("search", "p95_ms", 120, 5000, at="16:24", ramp_min=2),
                 Metric("catalog-db", "cpu_pct", 22, 96, at="16:24", ramp_min=2)),
        runbooks=("deploy-regression", "known-noise"),
        expect="SUCCESS", key_terms=("2.9.0", "lower(title)"),
        root_cause="search 2.9.0 (16:20) queries products with lower(title) LIKE, which cannot use "
                   "the title index; each query scans the table, catalog-db's CPU saturates and "
                   "searches time out",
        distractors=("recommender deploy 1.14.0 at 15:55",)),
)
