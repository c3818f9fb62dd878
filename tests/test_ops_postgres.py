"""The ops database on a real PostgreSQL server (tests/pg.py): same answers, same refusals.

The demo dataset's operational tables are copied into a fresh database, with real column types
(time columns as ``timestamptz``), and ``HARNESS_OPS_DB_URL`` points ``query_mysql`` at it.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from sqlalchemy.engine import make_url
from test_sql_safety import HOSTILE

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus
from diagnosis_harness.control.settings import Settings, load_settings
from diagnosis_harness.session.runner import run_turn
from diagnosis_harness.session.services import Services
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.backends.sqlalchemy import SqlAlchemyOps
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.dataset.layout import OPS_DB

pytestmark = pytest.mark.slow

TRUTH = json.loads((demo_dataset_dir() / "truth.json").read_text())
CASES = TRUTH["incidents"] + TRUTH["no_evidence"]
PG_TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text"}
TIME_COLUMNS = ("ts", "_at", "time")

PG_HOSTILE = [
    # PostgreSQL's own ways to write, escape the allow-list or outlive the query.
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT set_config('search_path', 'pg_catalog', false)",
    "SELECT nextval('payments_seq')",
    "SELECT setval('payments_seq', 1)",
    "SELECT lo_create(0)",
    "SELECT lo_unlink(1)",
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT pg_reload_conf()",
    "SELECT pg_advisory_lock(1)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT query_to_xml('SELECT * FROM pg_authid', true, false, '')",
    "SELECT table_to_xml('pg_authid', true, false, '')",
    "SELECT * FROM ts_stat('SELECT to_tsvector(rolpassword) FROM pg_authid')",
    "SELECT * FROM payments FOR UPDATE",
    "SELECT * FROM pg_authid",
    "SELECT * FROM pg_catalog.pg_authid",
    "SELECT * FROM information_schema.tables",
    "COPY payments TO '/tmp/pwn.csv'",
    "COPY (SELECT 1) TO PROGRAM 'touch /tmp/pwn'",
    "DO $$ BEGIN DELETE FROM payments; END $$",
    "CALL pwn()",
    "SET ROLE postgres",
    "RESET ALL",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    "LISTEN x",
    "NOTIFY x",
    "TRUNCATE payments",
    "WITH d AS MATERIALIZED (DELETE FROM payments RETURNING *) SELECT count(*) FROM d",
    "SELECT 1; COMMIT; DELETE FROM payments",
    "PREPARE p AS DELETE FROM payments",
]


def _pg_type(column: str, declared: str) -> str:
    if declared.upper() == "TEXT" and (column == "ts" or column.endswith(TIME_COLUMNS)):
        return "timestamptz"  # what a real ops database uses for times
    return PG_TYPES.get(declared.upper(), "text")


def copy_ops_tables(ops_file: Path, url: str) -> list[str]:
    """Copy every table of a built ops.sqlite into the PostgreSQL database at ``url``."""
    src = sqlite3.connect(ops_file)
    tables = [r[0] for r in src.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    with psycopg.connect(_libpq(url), autocommit=True) as dst:
        for table in tables:
            cols = [(r[1], r[2]) for r in src.execute(f'PRAGMA table_info("{table}")')]
            dst.execute(f'CREATE TABLE "{table}" ('
                        + ", ".join(f'"{c}" {_pg_type(c, t)}' for c, t in cols) + ")")
            rows = src.execute(f'SELECT * FROM "{table}"').fetchall()
            marks = ", ".join(["%s"] * len(cols))
            with dst.cursor() as cur:
                cur.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)
        dst.execute("CREATE SEQUENCE payments_seq")  # something nextval/setval could change
    src.close()
    return tables


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def content_hash(url: str) -> dict[str, Any]:
    """Every user table's rows (hashed), the sequence, the schemas' tables and large objects."""
    with psycopg.connect(_libpq(url), autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")]
        state: dict[str, Any] = {"tables": tables}
        for t in tables:
            state[t] = conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) "
                f"FROM {t} x").fetchone()
        state["seq"] = conn.execute("SELECT last_value, is_called FROM payments_seq").fetchone()
        state["large_objects"] = conn.execute(
            "SELECT count(*) FROM pg_largeobject_metadata").fetchone()
        state["read_only_default"] = conn.execute("SHOW default_transaction_read_only").fetchone()
    return state


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


@pytest.fixture(scope="module")
def ops_url(pg_server, built: Path) -> Iterator[str]:
    """A module-wide database holding the demo's ops tables."""
    with pg_server.database() as url:
        copy_ops_tables(built / OPS_DB, url)
        yield url


def _services(home: Path, **overrides: Any) -> Services:
    return Services.from_settings(load_settings(model="offline", home=home, **overrides))


@pytest.fixture(scope="module")
def on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    services = _services(tmp_path_factory.mktemp("sqlite-home"))
    yield services
    services.backends.close()


@pytest.fixture(scope="module")
def on_postgres(tmp_path_factory: pytest.TempPathFactory, ops_url: str) -> Iterator[Services]:
    services = _services(tmp_path_factory.mktemp("pg-home"), ops_db_url=ops_url)
    yield services
    services.backends.close()


def diagnose(services: Services, question: str) -> dict[str, Any]:
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))


def _ids_masked(content: str | None) -> str:
    return re.sub(r"\bE\d+\.\d+\b", "E#", content or "")


def test_the_postgres_backend_is_really_postgres(on_postgres: Services) -> None:
    assert isinstance(on_postgres.backends.ops, SqlAlchemyOps)
    assert on_postgres.backends.ops.dialect == "postgres"
    assert "config_changes" in on_postgres.backends.ops_schema()


@pytest.mark.parametrize("incident", CASES, ids=lambda i: i["id"])
def test_demo_incidents_give_the_same_outcome_on_postgres_as_on_sqlite(
        on_sqlite: Services, on_postgres: Services, incident: dict[str, Any]) -> None:
    lite = diagnose(on_sqlite, incident["question"])
    pg = diagnose(on_postgres, incident["question"])
    assert pg["release_outcome"] == lite["release_outcome"] == incident["expected_outcome"]
    assert pg["fallback_type"] == lite["fallback_type"] == incident.get("fallback_type")
    # The offline investigator also compares a column named like a time ("timeouts", an
    # integer) with a timestamp: SQLite answers that with no match, PostgreSQL refuses it. Those
    # calls are ERROR records on PostgreSQL, and the only difference between the two runs.
    refused = [r for r in on_postgres.store.trace(pg["run_id"])["tool_records"]
               if r["invocation_status"] == "ERROR"]
    assert all("invalid input syntax for type bigint" in r["error"] for r in refused), refused
    if incident["expected_outcome"] == "SUCCESS":
        # The same report word for word, but for the evidence numbering.
        assert _ids_masked(pg["content"]) == _ids_masked(lite["content"])
        for term in incident["key_terms"]:
            assert term.lower() in pg["content"].splitlines()[0].lower()
    else:  # every fact the fallback shows was verified on SQLite too
        # (NOEV-1 found nothing at all: its fallback cites no fact on either backend.)
        facts = {line for line in _ids_masked(pg["content"]).splitlines() if "[E#]" in line}
        assert facts <= set(_ids_masked(lite["content"]).splitlines())
        assert pg["content"].startswith("No root cause is published")


def _outcome(backends: Backends, sql: str, settings: Settings, budget: Budget) -> Any:
    return execute_tool("query_mysql", {"sql": sql}, tool_call_id="h", settings=settings,
                        backends=backends, budget=budget, ready_count=0)


def test_hostile_sql_is_refused_or_read_only_and_postgres_is_unchanged(built: Path,
                                                                        ops_url: str) -> None:
    settings = Settings(_env_file=None, ops_db_url=ops_url, max_tool_calls=1000)
    budget = Budget(BudgetLimits.from_settings(settings))
    before = content_hash(ops_url)
    wrote_or_leaked = []
    with Backends.open(built, ops_db_url=ops_url) as backends:
        for sql in HOSTILE + PG_HOSTILE:
            outcome = _outcome(backends, sql, settings, budget)
            record, code = outcome.record, outcome.observation.get("error", {}).get("code")
            refused = (record.invocation_status is InvocationStatus.ERROR and not record.facts
                       and code in ("rejected_sql", "invalid_arguments"))
            if not refused:
                wrote_or_leaked.append((sql, code, [f.text for f in record.facts][:2]))
        # Afterwards the pooled connections are healthy, still read-only, and see the data.
        ok = _outcome(backends, "SELECT count(*) AS n FROM payments", settings, budget)
        assert ok.record.facts[0].data["row"]["n"] > 0
    assert wrote_or_leaked == []
    assert content_hash(ops_url) == before


def test_the_connection_layer_refuses_writes_even_without_the_validator(built: Path,
                                                                         ops_url: str) -> None:
    """Defence in depth: SQL that skipped validation still runs in a read-only transaction."""
    before = content_hash(ops_url)
    ops = SqlAlchemyOps(ops_url)
    run = dict(max_rows=10, row_bytes=lambda r: 8, max_bytes=10_000, timeout_s=2)
    try:
        # Statements: a server-side cursor takes queries only (DECLARE … CURSOR FOR DELETE fails).
        for sql in ("DELETE FROM payments", "CREATE TABLE pwn (a int)",
                    "UPDATE merchants SET name = 'x'", "DROP TABLE payments"):
            with pytest.raises(Exception, match="syntax error|read-only transaction"):
                ops.execute(sql, **run)
        # Queries that would write: the transaction is read-only.
        for sql in ("SELECT nextval('payments_seq')", "SELECT lo_create(0)",
                    "WITH d AS (DELETE FROM payments RETURNING 1) SELECT count(*) FROM d"):
            with pytest.raises(Exception, match="read-only transaction|data-modifying"):
                ops.execute(sql, **run)
        # Flipping the session default does not make the next query's transaction writable.
        ops.execute("SELECT set_config('default_transaction_read_only', 'off', false)", **run)
        with pytest.raises(Exception, match="read-only transaction"):
            ops.execute("SELECT nextval('payments_seq')", **run)
        assert ops.execute("SELECT count(*) FROM merchants", **run).rows[0][0] == 7
    finally:
        ops.close()
    assert content_hash(ops_url) == before


def test_the_statement_timeout_is_the_callers_and_cancels_on_the_server(built: Path,
                                                                          ops_url: str) -> None:
    quick = Settings(_env_file=None, ops_db_url=ops_url, sql_timeout_s=5)
    with Backends.open(built, ops_db_url=ops_url) as backends:
        slow = ("SELECT count(*) AS n FROM payments a, payments b, payments c, payments d, "
                "payments e, payments f")
        began = time.monotonic()
        # The caller has 0.3 s left (the run's deadline): that, not sql_timeout_s, is the limit.
        outcome = execute_tool("query_mysql", {"sql": slow}, tool_call_id="t", backends=backends,
                               settings=quick, ready_count=0, timeout_s=0.3,
                               budget=Budget(BudgetLimits.from_settings(quick)))
        took = time.monotonic() - began
        assert outcome.observation["error"]["code"] == "timeout", outcome.observation
        assert "0.3 s" in outcome.observation["error"]["message"]
        assert took < 2
        # The limit ended with its transaction: the next query on the same pool runs.
        again = execute_tool("query_mysql", {"sql": "SELECT count(*) AS n FROM merchants"},
                             tool_call_id="u", backends=backends, settings=quick, ready_count=0,
                             budget=Budget(BudgetLimits.from_settings(quick)))
        assert again.record.evidence_status is EvidenceStatus.EVIDENCE_FOUND


def test_row_caps_hold_on_a_large_postgres_table(built: Path, ops_url: str, pg_server) -> None:
    """A server-side cursor: a million-row result is cut at max_sql_rows without reading it all."""
    with psycopg.connect(_libpq(ops_url), autocommit=True) as conn:
        conn.execute("CREATE TABLE big AS SELECT g AS id, md5(g::text) AS v "
                     "FROM generate_series(1, 1000000) g")
    try:
        settings = Settings(_env_file=None, ops_db_url=ops_url, max_sql_rows=50)
        with Backends.open(built, ops_db_url=ops_url, ops_tables=["big"]) as backends:
            began = time.monotonic()
            outcome = _outcome(backends, "SELECT id, v FROM big", settings,
                               Budget(BudgetLimits.from_settings(settings)))
            assert time.monotonic() - began < 3
        assert outcome.record.returned_count == 50 and outcome.record.truncated
        assert "only the first 50 rows" in outcome.observation["note"]
    finally:
        with psycopg.connect(_libpq(ops_url), autocommit=True) as conn:
            conn.execute("DROP TABLE big")
