"""Traps: the honest answer is that this data does not show a cause."""

from ..spec import Burst, Case, Config, Deploy, Line
from ._world import edge, go, gokit, java, noisy, postgres, py

CASES = (
    Case(
        id="trap-unrelated-change-shared-words", klass="trap-unrelated-change",
        title="inventory's warehouse calls time out; the only change is edge's proxy timeout",
        day="2026-04-22", window=("10:00", "10:20"),
        question="inventory timeouts between 10:00 and 10:20 UTC on {date}. Why?",
        services=(gokit("inventory", "reservation"), edge(), java("checkout-api", "order")),
        expect="FALLBACK",
        lines=(
            Burst("09:57:00", "10:40", "inventory",
                  "warehouse stock sync failed: Get \"https://wms.partner.example/api/stock\": "
                  "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                  every_s=6),
        ),
        changes=(Config("09:50", "edge", "proxy_read_timeout", "60s", "30s", by="netops",
                        ticket="NET-77"),),
        runbooks=("rate-limit", "known-noise"),
        distractors=("edge proxy_read_timeout change at 09:50 (shares 'timeout', another service, "
                     "not on inventory's path to the partner)",)),
    Case(
        id="trap-unrelated-deploy-shared-words", klass="trap-unrelated-change",
        title="payments resets from the PSP; an unrelated notifications deploy mentions connections",
        day="2026-04-23", window=("13:00", "13:15"),
        question="payments: 'connection reset by peer' errors, {short} 13:00-13:15 UTC. Root cause?",
        services=(go("payments", "payment"), py("notifications", "message"), edge()),
        expect="FALLBACK",
        lines=(
            Burst("12:58:10", "13:35", "payments",
                  "authorize failed: read tcp 10.0.4.12:{n}22->203.0.113.40:443: read: connection "
                  "reset by peer", every_s=9),
        ),
        changes=(Deploy("12:52", "notifications", "2.8.0",
                        "connection pooling for the SMTP client; reset idle connections"),),
        runbooks=("dependency",),
        distractors=("notifications deploy 2.8.0 at 12:52 (its summary says 'connection' and "
                     "'reset'; payments does not call it)",)),
    Case(
        id="trap-generic-error", klass="trap-generic-error",
        title="a generic 'giving up' error and nothing that explains it",
        day="2026-04-24", window=("15:30", "15:45"),
        question="ledger errors between 15:30 and 15:45 UTC on {date} — what's the root cause?",
        services=(java("ledger", "entry"), edge("edge", "/v1/transfers")),
        expect="FALLBACK",
        lines=(
            Burst("15:31:00", "15:52", "ledger",
                  "Unexpected exception, tries=3, giving up", every_s=30),
        ),
        runbooks=("triage",),
        distractors=("the error restated is not a root cause",)),
    Case(
        id="trap-change-after-onset", klass="trap-change-after-onset",
        title="errors start at 10:02; the same service deploys at 10:09",
        day="2026-04-27", window=("10:00", "10:20"),
        question="shipping label failures on shipping, {day} 10:00–10:20 UTC. Why?",
        services=(java("shipping", "label"), edge("edge", "/v1/labels"), go("orders", "order")),
        expect="FALLBACK",
        lines=(
            Burst("10:02:15", "10:45", "shipping",
                  "label purchase failed: carrier API returned 500 Internal Server Error",
                  every_s=7),
        ),
        changes=(Deploy("10:09", "shipping", "3.3.0", "label PDF compression"),),
        runbooks=("deploy-regression",),
        distractors=("shipping deploy 3.3.0 at 10:09, seven minutes after the first error",)),
    Case(
        id="trap-noisy-service", klass="trap-noisy-service",
        title="reporting logs the same refresh error all day, at the same rate as in the window",
        day="2026-04-28", window=("11:00", "11:20"),
        question="reporting errors between 11:00 and 11:20 UTC on {date}, what's wrong?",
        services=(noisy(py("reporting", "report"), "materialized view refresh failed: canceling "
                        "statement due to statement timeout (mv_daily_kpis)", every_s=90),
                  postgres("reports-db"), edge("edge", "/v1/reports")),
        expect="FALLBACK",
        runbooks=("known-noise",),
        distractors=("the refresh error, as frequent all day as in the window",)),
    Case(
        id="trap-quiet-window", klass="trap-quiet-window",
        title="nothing happened: ordinary traffic, routine warnings",
        day="2026-04-29", window=("03:00", "03:15"),
        question="payments problems between 03:00 and 03:15 UTC on {date}? What happened?",
        services=(go("payments", "payment"), java("checkout-api", "order"), edge()),
        expect="FALLBACK/INSUFFICIENT_EVIDENCE",
        runbooks=("known-noise", "triage"),
        distractors=()),
    Case(
        id="trap-quiet-after-change", klass="trap-quiet-window",
        title="a config change an hour before, and nothing wrong after it",
        day="2026-04-30", window=("16:00", "16:15"),
        question="is anything broken on catalog between 16:00 and 16:15 UTC, {short}?",
        services=(go("catalog", "product"), edge("edge", "/v1/catalog")),
        expect="FALLBACK/INSUFFICIENT_EVIDENCE",
        lines=(Line("15:05:00", "catalog", "config reloaded key=catalog.page_size old=50 new=60"),),
        changes=(Config("15:05", "catalog", "catalog.page_size", "50", "60"),),
        runbooks=("cache",),
        distractors=("catalog.page_size change at 15:05 (nothing failed after it)",)),
    Case(
        id="trap-mitigation-after-onset", klass="trap-change-after-onset",
        title="pool timeouts with no change before them; on-call raised the pool size after",
        day="2026-05-04", window=("14:00", "14:20"),
        question="checkout-api timeouts on {date} from 14:00 to 14:20 UTC. Root cause?",
        services=(java("checkout-api", "order"), edge(), go("payments", "payment")),
        expect="FALLBACK",
        lines=(
            Burst("14:02:10", "14:40", "checkout-api",
                  "timeout acquiring DB connection from pool (active=20/20, waiting={n}) after "
                  "30000 ms", every_s=6),
            Line("14:11:30", "checkout-api", "config reloaded from /etc/checkout/application.yaml: "
                 "db.pool.max_size=40 (was 20)"),
        ),
        changes=(Config("14:11", "checkout-api", "db.pool.max_size", "20", "40", by="oncall",
                        ticket="INC-5521"),),
        runbooks=("db-pool",),
        distractors=("on-call's db.pool.max_size 20 -> 40 at 14:11, nine minutes after the first "
                     "timeout (a mitigation, not the cause)",)),
    Case(
        id="trap-noisy-service-after-deploy", klass="trap-noisy-service",
        title="fraud logs model-cache misses all day; a deploy an hour before changed nothing",
        day="2026-05-05", window=("10:30", "10:45"),
        question="fraud errors {short} between 10:30 and 10:45 UTC — caused by the deploy?",
        services=(noisy(py("fraud", "score"), "feature fetch failed for merchant {n}: "
                        "KeyError: 'mcc_risk_v3' (falling back to defaults)", every_s=60),
                  java("checkout-api", "order"), edge()),
        expect="FALLBACK",
        changes=(Deploy("09:30", "fraud", "4.8.1", "dependency bumps"),),
        runbooks=("known-noise", "deploy-regression"),
        distractors=("fraud deploy 4.8.1 at 09:30: the same error at the same rate before and "
                     "after it",)),
    Case(
        id="trap-edge-502-nothing-behind", klass="trap-generic-error",
        title="edge 502s on one path; the upstream's own logs show nothing unusual",
        day="2026-05-06", window=("16:40", "16:55"),
        question="edge returning 502 on /v1/cart, {date} 16:40-16:55 UTC. Why?",
        services=(edge(), java("cart", "cart"), go("catalog", "product")),
        expect="FALLBACK",
        lines=(Burst("16:41:00", "16:52", "edge", "GET /v1/cart 502 rt=0.001", every_s=20),),
        runbooks=("dependency", "known-noise"),
        distractors=("the 502s restated: nothing in this data says why cart did not answer",)),
)
