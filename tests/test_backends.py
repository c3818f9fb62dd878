"""The backends package: one SQLite deadline and one URL→dialect map, whichever way ops is reached."""

from __future__ import annotations

import time

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.backends.sqlalchemy import url_dialect
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.dataset.layout import OPS_DB
from diagnosis_harness.tools.query_mysql import QueryMysqlArgs, query_mysql

# A cross join of real rows (a row generator from literals is refused as evidence).
RUNAWAY = "SELECT count(*) AS n FROM payments a, payments b, payments c, payments d"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


@pytest.mark.parametrize("via", ["embedded", "url"])
def test_a_runaway_query_times_out_the_same_way_embedded_or_by_url(built, via: str) -> None:
    url = f"sqlite:///file:{built / OPS_DB}?mode=ro&uri=true" if via == "url" else None
    quick = Settings(_env_file=None, sql_timeout_s=0.2)
    with Backends.open(built, ops_db_url=url) as backends:
        began = time.monotonic()
        outcome = execute_tool("query_mysql", {"sql": RUNAWAY}, tool_call_id="t",
                               backends=backends, settings=quick, ready_count=0,
                               budget=Budget(BudgetLimits.from_settings(quick)))
        assert time.monotonic() - began < 3
        assert outcome.observation["error"]["code"] == "timeout"
        assert "narrow it down" in outcome.observation["error"]["message"]
        # The deadline is lifted afterwards: the next (quick) query on the same backend runs.
        assert query_mysql(backends, quick, sql="SELECT count(*) AS n FROM merchants").items


@pytest.mark.parametrize(("url", "dialect"), [
    ("sqlite:///ops.sqlite", "sqlite"),
    ("mysql+pymysql://reader@db/ops", "mysql"),
    ("mariadb://reader@db/ops", "mysql"),
    ("postgresql+psycopg://reader@db/ops", "postgres"),
    ("PostgreSQL://reader@db/ops", "postgres"),
])
def test_a_url_is_read_in_its_database_s_sql_dialect(url: str, dialect: str) -> None:
    assert url_dialect(url) == dialect


def test_an_unsupported_database_is_refused_naming_the_setting() -> None:
    with pytest.raises(BackendUnavailable, match="ops_db_url: unsupported database 'mssql'"):
        url_dialect("mssql+pyodbc://reader@db/ops")


def test_the_scope_and_the_backend_agree_on_the_dialect(built) -> None:
    url = f"sqlite:///file:{built / OPS_DB}?mode=ro&uri=true"
    settings = Settings(_env_file=None, ops_db_url=url)
    with Backends.open(built, ops_db_url=url) as backends:
        assert backends.ops.dialect == url_dialect(url) == "sqlite"
    spelled = [QueryMysqlArgs(sql=sql).scope(settings) for sql in
               ("select  count(*) from merchants", "SELECT COUNT(*)\nFROM merchants")]
    assert spelled[0] == spelled[1]  # one canonical spelling: the duplicate-scope gate sees one query
