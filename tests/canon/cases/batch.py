"""A batch job overloading a database."""

from ..spec import Burst, Case, Job, Metric
from ._world import edge, java, postgres

CASES = (
    Case(
        id="batch-report-on-primary", klass="batch-job",
        title="monthly-revenue-report run by hand on the primary at peak",
        day="2026-04-15", window=("14:05", "14:25"),
        question="orders API slow, {date} 14:05 to 14:25 UTC — root cause?",
        services=(java("orders", "order"), postgres("orders-db"), edge("edge", "/v1/orders")),
        onset="14:01:30", cause_service="orders-db",
        lines=(
            Burst("14:01:30", "14:50", "orders", "slow request: GET /v1/orders took {n}90 ms",
                  level="WARN", every_s=4),
            Burst("14:03:00", "14:50", "orders-db",
                  "duration: {n}345.1 ms  statement: SELECT date_trunc('day', o.created_at),"
                  " sum(i.amount) FROM orders o JOIN order_items i ON i.order_id = o.id GROUP BY 1",
                  level="INFO", every_s=40),
        ),
        changes=(Job("14:00", "14:48", "monthly-revenue-report", "finance-reports",
                     "orders-db primary", by="c.mendes"),
                 Job("02:00", "02:31", "monthly-revenue-report", "finance-reports",
                     "orders-db replica")),
        metrics=(Metric("orders-db", "cpu_pct", 30, 97, at="14:01"),
                 Metric("orders-db", "active_sessions", 14, 96, at="14:01")),
        runbooks=("batch-job",),
        expect="SUCCESS", key_terms=("monthly-revenue-report", "primary"),
        root_cause="monthly-revenue-report was run by hand at 14:00 against the orders-db primary "
                   "(it normally runs at 02:00 on the replica); its full-table joins saturate the "
                   "primary's CPU and the orders API slows down",
        distractors=("the same report's nightly run at 02:00 on the replica",)),
)
