"""Replica lag after a large write on the primary."""

from ..spec import Burst, Case, Job, Metric
from ._world import edge, java, postgres

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
)
