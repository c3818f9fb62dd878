"""Lock contention: a DDL statement or a long transaction holding locks."""

from ..spec import Burst, Case, Deploy, Job, Line, Metric
from ._world import edge, gokit, java, postgres

CASES = (
    Case(
        id="lock-migration-alter", klass="lock-contention",
        title="a migration's ALTER TABLE orders waits behind a long read, and everything queues behind it",
        day="2026-03-30", window=("11:00", "11:20"),
        question="orders: requests hanging then failing, {date} between 11:00 and 11:20 UTC. Why?",
        services=(java("orders", "order"), postgres("orders-db"), edge("edge", "/v1/orders")),
        onset="10:57:03", cause_service="orders-db",
        lines=(
            Line("10:57:00", "orders-db", "statement: ALTER TABLE orders ADD COLUMN "
                 "fulfilment_sla interval NOT NULL DEFAULT '2 days'"),
            Burst("10:57:03", "11:42", "orders-db",
                  "process {n}8 still waiting for AccessShareLock on relation 16402 of "
                  "database 16384 after 1000.{n} ms", level="INFO",
                  every_s=5),
            Burst("10:57:05", "11:42", "orders",
                  "org.postgresql.util.PSQLException: ERROR: canceling statement due to lock "
                  "timeout", every_s=4),
            Line("11:42:10", "orders-db", "duration: 2710034.112 ms  statement: ALTER TABLE "
                 "orders ADD COLUMN fulfilment_sla interval NOT NULL DEFAULT '2 days'"),
        ),
        changes=(Deploy("10:55", "orders", "6.1.0", "fulfilment SLA field (migration V88)"),),
        tables={"schema_migrations": (
            {"version": "V87", "description": "add index on order_items.sku",
             "installed_on": "2026-03-23T09:10:00Z", "success": "true"},
            {"version": "V88", "description": "orders add fulfilment_sla",
             "installed_on": "2026-03-30T11:42:10Z", "success": "true"})},
        metrics=(Metric("orders-db", "lock_waiters", 0, 64, at="10:57", ramp_min=2),),
        runbooks=("locks", "deploy-regression"),
        expect="SUCCESS", key_terms=("ALTER TABLE", "lock"),
        root_cause="migration V88 of orders 6.1.0 ran ALTER TABLE orders ADD COLUMN ... NOT NULL "
                   "DEFAULT at 10:57; its ACCESS EXCLUSIVE lock request queued every query on "
                   "orders behind it, which then hit the lock timeout until it finished at 11:42",
        distractors=()),
    Case(
        id="lock-manual-job", klass="lock-contention",
        title="a hand-run reconciliation holds row locks on ledger; writes hit lock wait timeouts",
        day="2026-03-31", window=("16:00", "16:15"),
        question="ledger write errors on {short} 16:00–16:15 UTC — what's the root cause?",
        services=(gokit("ledger", "entry"), edge("edge", "/v1/transfers")),
        onset="15:54:20", cause_service="ledger",
        lines=(
            Burst("15:54:20", "16:40", "ledger",
                  "post entry failed: Error 1205 (HY000): Lock wait timeout exceeded; try "
                  "restarting transaction", every_s=4),
        ),
        changes=(Job("15:52", "16:37", "reconcile-march", "ledger", "ledger_entries",
                     by="f.otieno", rows=4200000),
                 Job("01:00", "01:14", "nightly-reconciliation", "ledger", "ledger_entries",
                     rows=1790000)),
        metrics=(Metric("ledger", "innodb_row_lock_waits", 0, 40, at="15:53"),),
        runbooks=("locks", "batch-job"),
        expect="SUCCESS", key_terms=("reconcile-march", "lock"),
        root_cause="the reconcile-march job, run by hand at 15:52, updates ledger_entries in one "
                   "long transaction and holds its row locks; ledger's writes wait and fail with "
                   "'Lock wait timeout exceeded' until it ends at 16:37",
        distractors=("the nightly reconciliation at 01:00",)),
)
