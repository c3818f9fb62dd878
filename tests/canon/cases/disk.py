"""A full disk, filled after a log level change."""

from ..spec import Burst, Case, Config, Line, Metric
from ._world import edge, go, host, java, postgres

CASES = (
    Case(
        id="disk-postgres-log-statement", klass="disk-full",
        title="log_statement=all on orders-db fills its volume; writes fail with ENOSPC",
        day="2026-03-12", window=("15:00", "15:20"),
        question="orders: writes failing between 15:00 and 15:20 on {date}, what is going on?",
        services=(java("orders", "order"), postgres("orders-db"), edge("edge", "/v1/orders"),
                  host("db-1")),
        onset="14:56:30", cause_service="orders-db",
        lines=(
            Line("12:40:02", "orders-db", "parameter \"log_statement\" changed to \"all\""),
            Line("12:40:02", "orders-db", "received SIGHUP, reloading configuration files"),
            Burst("12:41:00", "14:56", "orders-db", "statement: SELECT * FROM order_items "
                  "WHERE order_id = {n}", level="INFO", every_s=20),
            Burst("14:56:30", "15:45", "orders-db",
                  "could not extend file \"base/16384/24611\": No space left on device",
                  every_s=6),
            Burst("14:56:31", "15:45", "orders",
                  "could not execute statement; SQL [n/a]; nested exception is org.postgresql."
                  "util.PSQLException: ERROR: could not extend file \"base/16384/24611\": No "
                  "space left on device", every_s=5),
            Line("14:50:11", "db-1", "kernel: EXT4-fs warning (device nvme1n1p1): ext4_dx_add_entry:"
                 " Directory index full!", level="WARN"),
        ),
        changes=(Config("12:40", "orders-db", "log_statement", "none", "all", by="dba.rui",
                        ticket="DBA-77"),),
        metrics=(Metric("orders-db", "disk_used_pct", 61, 100, at="12:40", ramp_min=136),),
        runbooks=("disk-full", "db-pool"),
        expect="SUCCESS", key_terms=("space", "log_statement"),
        root_cause="log_statement was set to 'all' on orders-db at 12:40 (DBA-77); statement "
                   "logging filled its data volume, which reached 100% at 14:56; writes then failed "
                   "with 'No space left on device'",
        distractors=("db-1 EXT4 'Directory index full' warning",)),
    Case(
        id="disk-debug-logging", klass="disk-full",
        title="checkout-api's root log level set to DEBUG fills the node's disk",
        day="2026-03-13", window=("13:00", "13:20"),
        question="checkout-api pods erroring from about 13:00 until 13:20 UTC on {day}. Cause?",
        services=(java("checkout-api", "order"), host("node-5"), go("payments", "payment"),
                  edge()),
        onset="12:57:10", cause_service="checkout-api",
        lines=(
            Line("11:05:00", "checkout-api", "Changing log level of logger 'ROOT' to DEBUG"),
            Burst("11:05:01", "12:57", "checkout-api",
                  "o.h.SQL - select o1_0.id,o1_0.status from orders o1_0 where o1_0.id=?",
                  level="DEBUG", every_s=3),
            Line("12:40:00", "node-5", "kubelet[812]: eviction manager: attempting to reclaim "
                 "ephemeral-storage", level="WARN"),
            Burst("12:57:10", "13:45", "checkout-api",
                  "Failed to write upload buffer /tmp/checkout/cart-{id}.json: java.io.IOException: "
                  "No space left on device", every_s=6),
            Burst("12:57:30", "13:45", "edge", "POST /v1/cart 500 rt=0.013", every_s=8),
        ),
        changes=(Config("11:05", "checkout-api", "logging.level.root", "INFO", "DEBUG",
                        by="m.ortiz", ticket="DBG-12"),),
        change_shape="single",
        metrics=(Metric("node-5", "disk_used_pct", 48, 100, at="11:05", ramp_min=112),),
        runbooks=("disk-full",),
        expect="SUCCESS", key_terms=("DEBUG", "space"),
        root_cause="checkout-api's root log level was set to DEBUG at 11:05; SQL debug logging "
                   "filled node-5's disk by 12:57, after which writes fail with 'No space left on "
                   "device'",
        distractors=()),
    Case(
        id="disk-wal-archive-failing", klass="disk-full",
        title="archive_command fails after a bucket rename; pg_wal fills the volume",
        day="2026-03-14", window=("03:20", "03:40"),
        question="orders-db refusing writes between 03:20 and 03:40 UTC on {date}. Why?",
        services=(postgres("orders-db"), java("orders", "order"), edge("edge", "/v1/orders")),
        onset="03:14:05", cause_service="orders-db",
        baseline_h=4,
        lines=(
            Burst("2026-03-13 23:40", "03:14", "orders-db",
                  "archive command failed with exit code 1; The failed archive command was: "
                  "wal-g wal-push pg_wal/00000001000004A2000000{n} "
                  "(bucket s3://acme-wal-archive-eu: NoSuchBucket)", level="WARN", every_s=60),
            Burst("03:14:05", "03:55", "orders-db",
                  "could not write to file \"pg_wal/xlogtemp.{n}\": No space left on device",
                  level="FATAL", every_s=10),
            Burst("03:14:06", "03:55", "orders",
                  "org.postgresql.util.PSQLException: FATAL: could not write to file "
                  "\"pg_wal/xlogtemp\": No space left on device", every_s=5),
        ),
        changes=(Config("2026-03-13 23:38", "orders-db", "archive_bucket",
                        "s3://acme-wal-archive-eu", "s3://acme-wal-archive-eu-1",
                        by="terraform", ticket="INFRA-871"),),
        metrics=(Metric("orders-db", "pg_wal_size_gb", 2, 200, at="2026-03-13 23:40", ramp_min=214),
                 Metric("orders-db", "disk_used_pct", 41, 100, at="2026-03-13 23:40", ramp_min=214)),
        runbooks=("disk-full", "replica-lag"),
        expect="SUCCESS", key_terms=("archive", "No space left"),
        root_cause="the WAL archive bucket was renamed at 23:38 (INFRA-871) but archive_command "
                   "still pushes to s3://acme-wal-archive-eu (NoSuchBucket); unarchived WAL piled "
                   "up in pg_wal until the volume was full at 03:14 and postgres could not write",
        distractors=()),
)
