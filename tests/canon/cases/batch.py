"""A batch job overloading a database."""

from ..spec import Burst, Case, Config, Job, Metric
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
    Case(
        id="batch-backup-moved-to-peak", klass="batch-job",
        title="nightly-backup's cron moved to 09:00 UTC by a timezone change; pg_dump at peak",
        day="2026-04-16", window=("09:10", "09:30"),
        question="accounts API slow, {day} 09:10 to 09:30 UTC. What's happening?",
        services=(java("accounts", "profile"), postgres("accounts-db"),
                  edge("edge", "/v1/profile")),
        onset="09:02:00", cause_service="accounts-db",
        lines=(
            Burst("09:02:00", "09:55", "accounts", "slow request: GET /v1/profiles/{id} took "
                  "{n}30 ms", level="WARN", every_s=4),
        ),
        changes=(Job("09:00", "10:05", "nightly-backup", "accounts", "accounts-db primary "
                     "(pg_dump -Fc)", rows=0),
                 Job("2026-04-15 02:00", "2026-04-15 03:04", "nightly-backup", "accounts",
                     "accounts-db primary (pg_dump -Fc)", rows=0),
                 Config("2026-04-15 17:00", "accounts", "cron.timezone", "UTC", "Asia/Singapore",
                        by="platform", ticket="PLAT-330")),
        metrics=(Metric("accounts-db", "disk_read_mb_s", 40, 480, at="09:00"),
                 Metric("accounts-db", "io_wait_pct", 3, 61, at="09:01")),
        runbooks=("batch-job",),
        expect="SUCCESS", key_terms=("nightly-backup", "timezone"),
        root_cause="the nightly-backup pg_dump ran at 09:00 UTC instead of 02:00 after cron's "
                   "timezone was set to Asia/Singapore (PLAT-330); it saturates accounts-db's "
                   "disk reads at peak and queries slow down",
        distractors=()),
)
