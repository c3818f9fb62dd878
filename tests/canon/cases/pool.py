"""Connection pool exhaustion after a config change lowered the pool's size."""

from ..spec import Burst, Case, Config, Deploy, Line, Metric
from ._world import edge, go, gokit, host, java, postgres

CASES = (
    Case(
        id="pool-config-reload", klass="db-pool",
        title="db.pool.max_size lowered 50 -> 5, reload logged, runbook present",
        day="2026-03-02", window=("10:00", "10:15"),
        question="checkout-api is timing out on order creation between 10:00 and 10:15 on {date} — why?",
        services=(java("checkout-api", "order"), edge(), go("payments", "payment"),
                  gokit("inventory", "reservation"), postgres("orders-db")),
        onset="09:55:40", cause_service="checkout-api",
        lines=(
            Line("09:53:12", "checkout-api", "config reloaded from /etc/checkout/application.yaml: "
                 "db.pool.max_size=5 (was 50)"),
            Line("09:53:12", "checkout-api", "HikariPool-1 - pool resized: maximumPoolSize=5"),
            Burst("09:55:40", "10:40", "checkout-api",
                  "timeout acquiring DB connection from pool (active=5/5, waiting={n}) after 30000 ms",
                  every_s=4),
            Burst("09:55:45", "10:40", "edge", "POST /v1/orders 504 rt=30.001", every_s=5),
        ),
        changes=(Config("09:53", "checkout-api", "db.pool.max_size", "50", "5", by="j.doe",
                        ticket="OPS-2210"),
                 Deploy("09:41", "inventory", "3.8.1", "new reservation metrics")),
        metrics=(Metric("checkout-api", "db_pool_active", 3, 5, at="09:55"),
                 Metric("checkout-api", "db_pool_max", 50, 5, at="09:53", jitter=0)),
        runbooks=("db-pool", "known-noise"),
        expect="SUCCESS", key_terms=("max_size", "5"),
        root_cause="config change lowered checkout-api's db.pool.max_size from 50 to 5 at 09:53 "
                   "(reload logged); the pool was exhausted (active=5/5) and order creation timed "
                   "out acquiring connections",
        distractors=("inventory deploy 3.8.1 at 09:41",)),
    Case(
        id="pool-hikari-single-table", klass="db-pool",
        title="hikari maximum-pool-size 40 -> 4 in a CMDB change log, no runbook",
        day="2026-03-03", window=("14:10", "14:30"),
        question="orders service: 'Connection is not available' errors, {day} 14:10 to 14:30 UTC. "
                 "What happened?",
        services=(java("orders", "order"), edge("gateway", "/api/orders"), go("shipping", "label"),
                  postgres("orders-db")),
        onset="14:06:05", cause_service="orders",
        lines=(
            Line("14:04:31", "orders", "Started OrdersApplication in 8.214 seconds (process running "
                 "for 9.1)"),
            Line("14:04:31", "orders", "HikariPool-1 - Start completed. maximumPoolSize=4, "
                 "minimumIdle=4"),
            Burst("14:06:05", "15:00", "orders",
                  "SQL Error: 0, SQLState: null; HikariPool-1 - Connection is not available, "
                  "request timed out after 30000ms.", every_s=3),
            Burst("14:06:10", "15:00", "gateway", "POST /api/orders 500 rt=30.112", every_s=4),
        ),
        changes=(Config("14:03", "orders", "spring.datasource.hikari.maximum-pool-size", "40", "4",
                        by="k.lee", ticket="CAP-118"),
                 Config("13:20", "shipping", "carrier.timeout_ms", "3000", "5000")),
        change_shape="single",
        metrics=(Metric("orders-db", "active_connections", 38, 6, at="14:04"),),
        runbooks=("known-noise",),
        expect="SUCCESS", key_terms=("maximum-pool-size", "4"),
        root_cause="orders was restarted at 14:04 with spring.datasource.hikari.maximum-pool-size "
                   "4 (was 40, change CAP-118); 4 connections could not serve the load and requests "
                   "timed out waiting for a connection",
        distractors=("shipping carrier.timeout_ms change at 13:20",)),
    Case(
        id="pool-pgx-logs-only", klass="db-pool",
        title="pgx max_conns 20 -> 2, only the service's own reload line shows it",
        day="2026-03-04", window=("08:30", "08:50"),
        question="Why is ledger slow and failing between 08:30 and 08:50 UTC on {short}?",
        services=(gokit("ledger", "entry"), go("payments", "payment"), host("db-2"),
                  edge("edge", "/v1/payments")),
        onset="08:24:50", cause_service="ledger",
        lines=(
            Line("08:22:03", "ledger", "config reloaded source=consul key=database.max_conns "
                 "old=20 new=2"),
            Burst("08:24:50", "09:20", "ledger",
                  "insert entry failed: failed to acquire connection: context deadline exceeded "
                  "(pool total_conns=2 max_conns=2 acquire_wait={ms}ms)", every_s=5),
            Burst("08:25:00", "09:20", "payments",
                  "ledger post failed: rpc error: code = DeadlineExceeded desc = context deadline "
                  "exceeded", level="WARN", every_s=6),
        ),
        change_shape="none",
        metrics=(Metric("ledger", "p95_ms", 40, 2900, at="08:25", ramp_min=3),),
        runbooks=("db-pool", "deploy-regression"),
        expect="SUCCESS", key_terms=("max_conns", "2"),
        root_cause="a consul config reload at 08:22 set ledger's database.max_conns from 20 to 2; "
                   "ledger's pgx pool (2/2) was exhausted and inserts timed out acquiring connections",
        distractors=("payments' DeadlineExceeded warnings (a caller, not the origin)",)),
)
