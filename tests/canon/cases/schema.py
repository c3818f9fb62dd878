"""A schema migration out of step with the code."""

from ..spec import Burst, Case, Deploy
from ._world import edge, java, postgres

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
)
