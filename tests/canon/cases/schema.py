"""A schema migration out of step with the code."""

from ..spec import Burst, Case, Deploy, Line
from ._world import edge, gokit, java, postgres

CASES = (
    Case(
        id="schema-column-dropped", klass="schema-migration",
        title="migration V57 drops products.legacy_sku while catalog still reads it",
        day="2026-04-21", window=("10:30", "10:45"),
        question="catalog errors on product pages from 10:30 to 10:45 UTC, {date}. Why?",
        services=(java("catalog", "product"), postgres("catalog-db"), edge("edge", "/v1/products")),
        onset="10:26:04", cause_service="catalog",
        lines=(
            Burst("10:26:04", "11:10", "catalog",
                  "org.postgresql.util.PSQLException: ERROR: column p.legacy_sku does not exist",
                  every_s=4),
        ),
        changes=(Deploy("10:25", "catalog-migrations", "V57", "drop products.legacy_sku"),),
        tables={"schema_migrations": (
            {"version": "V56", "description": "add products.gtin", "installed_on":
             "2026-04-14T09:00:00Z", "success": "true"},
            {"version": "V57", "description": "drop column products.legacy_sku", "installed_on":
             "2026-04-21T10:26:00Z", "success": "true"})},
        runbooks=("schema-migration", "deploy-regression"),
        expect="SUCCESS", key_terms=("V57", "legacy_sku"),
        root_cause="migration V57 dropped products.legacy_sku at 10:26, but the running catalog "
                   "still selects it; every product query fails with 'column p.legacy_sku does "
                   "not exist'",
        distractors=()),
    Case(
        id="schema-code-before-migration", klass="schema-migration",
        title="billing 8.0.0 reads customer_tier; its migration job failed, the column is missing",
        day="2026-04-22", window=("13:10", "13:30"),
        question="billing: invoice runs erroring {short}, 13:10-13:30 UTC — why?",
        services=(gokit("billing", "invoice"), gokit("billing-migrate", "migration"),
                  edge("edge", "/v1/invoices")),
        onset="13:06:40", cause_service="billing",
        lines=(
            Line("13:05:12", "billing-migrate", "migration 0091_add_customer_tier failed: Error "
                 "1142 (42000): ALTER command denied to user 'billing_app'@'10.0.%' for table "
                 "'customers'", level="ERROR"),
            Line("13:06:30", "billing", "billing starting version=8.0.0"),
            Burst("13:06:40", "13:55", "billing",
                  "invoice run failed: Error 1054 (42S22): Unknown column 'customer_tier' in "
                  "'field list'", every_s=5),
        ),
        changes=(Deploy("13:05", "billing", "8.0.0", "tiered pricing (needs migration 0091)"),),
        runbooks=("schema-migration",),
        expect="SUCCESS", key_terms=("8.0.0", "customer_tier"),
        root_cause="billing 8.0.0 (13:05) reads customers.customer_tier, but its migration 0091 "
                   "failed (ALTER command denied to billing_app), so the column does not exist and "
                   "every invoice run fails with Unknown column 'customer_tier'",
        distractors=()),
)
