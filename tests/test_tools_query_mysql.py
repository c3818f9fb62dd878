"""query_mysql: real analytic SELECTs work, rows and time are capped, the SQLAlchemy path too."""

from __future__ import annotations

import csv
import time

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, ensure_dataset, load_dataset
from diagnosis_harness.tools.dataset.layout import OPS_DB
from diagnosis_harness.tools.query_mysql import query_mysql

S = Settings(_env_file=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


@pytest.fixture(scope="module")
def backends(built):
    with Backends.open(built) as opened:
        yield opened


def rows_of(result):
    return [i.data["row"] for i in result.items]


def demo_payments():
    with (demo_dataset_dir() / "tables" / "payments.csv").open() as handle:
        return list(csv.DictReader(handle))


def test_aggregate_matches_the_source_table(backends):
    result = query_mysql(backends, S, sql="""
        SELECT merchant_id, count(*) AS failed FROM payments
        WHERE error_code = 'TIMEOUT' AND created_at BETWEEN '2026-11-02T10:00:00Z'
          AND '2026-11-02T10:10:00Z'
        GROUP BY merchant_id ORDER BY failed DESC, merchant_id""")
    got = {r["merchant_id"]: r["failed"] for r in rows_of(result)}
    expected: dict[str, int] = {}
    for p in demo_payments():
        if p["error_code"] == "TIMEOUT" and "2026-11-02T10:00:00Z" <= p["created_at"] \
                <= "2026-11-02T10:10:00Z":
            expected[p["merchant_id"]] = expected.get(p["merchant_id"], 0) + 1
    assert got == expected and got["M1001"] > 0


@pytest.mark.parametrize(
    "sql",
    [
        "WITH recent AS (SELECT * FROM deploys WHERE started_at >= '2026-11-03T00:00:00Z') "
        "SELECT service, version FROM recent",
        "SELECT service FROM deploys UNION SELECT service FROM config_changes",
        "SELECT m.name, p.status, count(*) AS n FROM payments p JOIN merchants m "
        "ON m.merchant_id = p.merchant_id GROUP BY 1, 2",
        "SELECT payment_id, row_number() OVER (PARTITION BY merchant_id ORDER BY created_at) "
        "AS rn FROM payments LIMIT 3",
        "SELECT strftime('%H', created_at) AS hour, count(*) FROM payments GROUP BY hour",
        "SELECT * FROM merchants WHERE name LIKE 'Shop%'",
        "SELECT CASE WHEN waiting > 0 THEN 'starved' ELSE 'ok' END AS state, max(waiting) "
        "FROM pool_metrics GROUP BY state;",
        "(SELECT count(*) FROM certificates)",
    ],
)
def test_ordinary_analytic_queries_are_accepted(backends, sql):
    assert query_mysql(backends, S, sql=sql).items


def test_rows_are_capped_and_flagged(backends):
    few = Settings(_env_file=None, max_sql_rows=5)
    result = query_mysql(backends, few, sql="SELECT payment_id FROM payments")
    assert len(result.items) == 5 and result.truncated
    assert "first 5 rows" in result.note


def test_duplicate_column_names_and_nulls_survive(backends):
    result = query_mysql(backends, S, sql="""
        SELECT p.merchant_id, m.merchant_id, p.error_code FROM payments p
        JOIN merchants m ON m.merchant_id = p.merchant_id WHERE p.status = 'AUTHORIZED' LIMIT 1""")
    row = rows_of(result)[0]
    assert set(row) == {"merchant_id", "merchant_id_2", "error_code"}
    assert row["error_code"] is None


def test_runaway_query_is_interrupted_by_the_time_limit(backends):
    quick = Settings(_env_file=None, sql_timeout_s=0.2)
    began = time.monotonic()
    outcome = execute_tool(
        "query_mysql",
        # A cross join of real rows (a row generator from literals is refused as evidence).
        {"sql": "SELECT count(*) AS n FROM payments a, payments b, payments c, payments d"},
        tool_call_id="t", backends=backends, budget=Budget(BudgetLimits.from_settings(quick)),
        settings=quick, ready_count=0,
    )
    assert time.monotonic() - began < 3
    assert outcome.observation["error"]["code"] == "timeout"
    # The connection stays usable after an interrupted query.
    assert query_mysql(backends, S, sql="SELECT count(*) AS n FROM merchants").items


def test_sqlalchemy_url_path_reads_and_refuses_the_same_way(built):
    url = f"sqlite:///file:{built / OPS_DB}?mode=ro&uri=true"
    with Backends.open(built, ops_db_url=url, ops_tables=["deploys"]) as via_url:
        assert via_url.ops_schema().keys() == {"deploys"}
        result = query_mysql(via_url, S, sql="SELECT version FROM deploys WHERE "
                                             "service = 'payment-service' ORDER BY started_at")
        assert [r["version"] for r in rows_of(result)] == ["2.14.0", "2.13.4"]
        for hostile in ("SELECT * FROM merchants", "DELETE FROM deploys",
                        "SELECT name FROM sqlite_master"):
            outcome = execute_tool("query_mysql", {"sql": hostile}, tool_call_id="t",
                                   backends=via_url, budget=Budget(BudgetLimits.from_settings(S)),
                                   settings=S, ready_count=0)
            assert outcome.record.evidence_status is EvidenceStatus.ERROR


def test_sqlalchemy_url_errors_name_the_setting(built, tmp_path):
    with pytest.raises(BackendUnavailable, match="ops_tables: no such tables: nope"):
        Backends.open(built, ops_db_url=f"sqlite:///{built / OPS_DB}", ops_tables=["nope"])
    with pytest.raises(BackendUnavailable, match="ops_db_url"):
        Backends.open(built, ops_db_url="nosuchdriver://host/db")


def test_from_settings_builds_and_opens_the_configured_dataset(tmp_path):
    settings = Settings(_env_file=None, home=tmp_path / "home")
    ensure_dataset(settings)
    with Backends.from_settings(settings) as opened:
        assert "payments" in opened.ops_schema()
        assert opened.info.name == "payments-demo"


@pytest.mark.parametrize("clause", ["LIMIT 99999999999999999999",
                                    "LIMIT 5 OFFSET 123456789012345678901234"])
def test_a_row_count_past_the_largest_integer_is_refused_saying_so(backends, clause):
    # SQLite reads such a literal as a REAL and answered "datatype mismatch"; a small model
    # that asked for "all rows" this way could not tell what to change.
    outcome = execute_tool(
        "query_mysql", {"sql": f"SELECT change_id FROM config_changes {clause}"},
        tool_call_id="t", backends=backends, budget=Budget(BudgetLimits.from_settings(S)),
        settings=S, ready_count=0)
    error = outcome.observation["error"]
    assert "larger than the largest integer" in error["message"]
    assert "datatype mismatch" not in str(outcome.observation)
    # The largest integer itself is an ordinary (bounded) query.
    largest = "SELECT change_id FROM config_changes LIMIT 9223372036854775807"
    assert query_mysql(backends, S, sql=largest).items
