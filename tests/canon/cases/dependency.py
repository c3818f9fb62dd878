"""A dependency down: the first failing component's own log says why."""

from ..spec import Burst, Case, Deploy, Line
from ._world import edge, go, host, java, postgres

CASES = (
    Case(
        id="dependency-postgres-recovery", klass="dependency-down",
        title="orders-db backend OOM-killed; postgres restarts into recovery mode",
        day="2026-03-20", window=("10:15", "10:30"),
        question="orders API failing for everyone, {date} 10:15 to 10:30 UTC. Root cause please.",
        services=(java("orders", "order"), postgres("orders-db"), host("db-1"),
                  edge("edge", "/v1/orders")),
        onset="10:11:02", cause_service="orders-db",
        lines=(
            Line("10:11:00", "db-1", "kernel: Out of memory: Killed process 4412 (postgres) "
                 "total-vm:8811224kB, anon-rss:7340032kB", level="ERROR"),
            Line("10:11:02", "orders-db", "server process (PID 4412) was terminated by "
                 "signal 9: Killed"),
            Line("10:11:02", "orders-db", "terminating any other active server processes"),
            Line("10:11:03", "orders-db", "database system was interrupted; last known up at "
                 "2026-03-20 10:06:51 UTC"),
            Burst("10:11:04", "10:52", "orders-db", "the database system is in recovery mode",
                  level="FATAL", every_s=4),
            Burst("10:11:05", "10:52", "orders",
                  "org.postgresql.util.PSQLException: FATAL: the database system is in recovery "
                  "mode", every_s=4),
            Line("10:52:30", "orders-db", "database system is ready to accept connections"),
        ),
        changes=(Deploy("09:58", "orders", "6.0.2", "pagination on order history"),),
        runbooks=("dependency", "oom"),
        expect="SUCCESS", key_terms=("orders-db", "recovery"),
        root_cause="a postgres backend of orders-db was killed by the kernel OOM killer at 10:11; "
                   "postgres terminated all sessions and restarted in crash recovery ('the database "
                   "system is in recovery mode') until 10:52, so every orders query failed",
        distractors=("orders deploy 6.0.2 at 09:58",)),
    Case(
        id="dependency-redis-upgrade", klass="dependency-down",
        title="unattended-upgrades restarted redis, which failed to start again",
        day="2026-03-21", window=("06:30", "06:50"),
        question="sessions: users logged out / login loops on {short} between 06:30 and 06:50 UTC. Why?",
        services=(go("sessions", "session"), host("cache-1"), edge("edge", "/v1/login")),
        onset="06:25:14", cause_service="redis",
        lines=(
            Line("06:25:01", "cache-1", "unattended-upgrade[2211]: Packages that will be "
                 "upgraded: redis-server redis-tools"),
            Line("06:25:12", "cache-1", "systemd[1]: Stopping Advanced key-value store..."),
            Line("06:25:13", "cache-1", "redis[733]: Redis is now ready to exit, bye bye..."),
            Line("06:25:14", "cache-1", "redis[2290]: Fatal error, can't open config file "
                 "'/etc/redis/redis.conf': Permission denied", level="ERROR"),
            Line("06:25:14", "cache-1", "systemd[1]: redis-server.service: Failed with result "
                 "'exit-code'.", level="ERROR"),
            Burst("06:25:15", "07:15", "sessions",
                  "session lookup failed: dial tcp 10.0.2.31:6379: connect: connection refused",
                  every_s=4),
            Burst("06:25:20", "07:15", "edge", "GET /v1/login 502 rt=0.003", every_s=6),
        ),
        runbooks=("dependency", "endpoint"),
        expect="SUCCESS", key_terms=("redis", "upgrade"),
        root_cause="unattended-upgrades on cache-1 upgraded redis-server at 06:25 and restarted "
                   "it; redis then failed to start (can't open /etc/redis/redis.conf: Permission "
                   "denied), so sessions' connections are refused",
        distractors=()),
)
