"""Replica lag after a large write on the primary."""

from ..spec import Burst, Case, Job, Metric
from ._world import edge, gokit, java, postgres

CASES = (
    Case(
        id="replica-lag-backfill", klass="replica-lag",
        title="a backfill on the primary makes the read replica lag ten minutes behind",
        day="2026-04-01", window=("13:30", "13:50"),
        question="accounts: users don't see their just-saved changes, {date} 13:30 to 13:50 UTC. Why?",
        services=(java("accounts", "profile"), postgres("accounts-db"), edge("edge", "/v1/profile")),
        onset="13:22:00", cause_service="accounts-db",
        lines=(
            Burst("13:22:00", "14:15", "accounts",
                  "read-after-write check failed for profile {id}: not found on replica "
                  "accounts-db-replica-1 (replay lag {n}s)", level="WARN", every_s=6),
        ),
        changes=(Job("13:20", "14:30", "backfill-profile-search-vector", "accounts",
                     "accounts-db primary", by="j.alvarez", rows=38000000),),
        metrics=(Metric("accounts-db", "replica_lag_s", 0.2, 640, at="13:21", ramp_min=20),
                 Metric("accounts-db", "wal_mb_per_min", 40, 900, at="13:20")),
        runbooks=("replica-lag",),
        expect="SUCCESS", key_terms=("lag", "backfill"),
        root_cause="the backfill-profile-search-vector job started at 13:20 rewrites 38M rows on "
                   "accounts-db's primary; the replica cannot replay that WAL fast enough and "
                   "lags up to ~10 minutes, so reads served by the replica are stale",
        distractors=()),
    Case(
        id="replica-lag-purge-job", klass="replica-lag",
        title="a bulk purge on the MySQL primary; orders reads from the replica go stale",
        day="2026-04-02", window=("22:10", "22:30"),
        question="orders created but 'not found' right after, {short} 22:10-22:30 UTC — why?",
        services=(gokit("orders", "order"), edge("edge", "/v1/orders")),
        onset="22:04:30", cause_service="orders-db",
        lines=(
            Burst("22:04:30", "22:55", "orders",
                  "get order after create: sql: no rows in result set (reader=orders-db-ro)",
                  level="WARN", every_s=5),
        ),
        changes=(Job("22:00", "23:10", "purge-old-carts", "orders", "orders-db primary",
                     by="scheduler", rows=52000000),),
        metrics=(Metric("orders-db-ro", "seconds_behind_source", 0, 420, at="22:03", ramp_min=25),
                 Metric("orders-db", "rows_deleted_per_s", 0, 14000, at="22:00")),
        runbooks=("replica-lag", "batch-job"),
        expect="SUCCESS", key_terms=("purge-old-carts", "replica"),
        root_cause="the purge-old-carts job deleted ~52M rows on orders-db's primary from 22:00; "
                   "the replica orders-db-ro fell minutes behind (seconds_behind_source up to "
                   "~420) and orders read just-created orders from it and found nothing",
        distractors=()),
)
