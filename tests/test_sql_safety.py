"""Hostile SQL never reaches the data: every statement is refused and ops.sqlite is unchanged."""

from __future__ import annotations

import hashlib
import re
import sqlite3

import pytest
from graphkit import (
    INC_ROUTER,
    assert_stored,
    call,
    consumed,
    draft,
    go,
    judge,
    outcome,
    seen,
    tool_messages,
)

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends, SqliteOps
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.dataset.layout import OPS_DB
from diagnosis_harness.tools.results import SqlRejected
from diagnosis_harness.tools.sql_safety import normalise_sql, validate_select

S = Settings(_env_file=None)

HOSTILE = [
    # DDL
    "DROP TABLE payments",
    "CREATE TABLE x (a INT)",
    "CREATE TEMP TABLE x AS SELECT * FROM payments",
    "CREATE VIEW v AS SELECT * FROM payments",
    "CREATE TRIGGER t AFTER INSERT ON payments BEGIN DELETE FROM payments; END",
    "CREATE INDEX i ON payments(amount)",
    "ALTER TABLE payments ADD COLUMN pwned TEXT",
    # DML
    "DELETE FROM payments",
    "UPDATE payments SET status = 'AUTHORIZED'",
    "INSERT INTO deploys VALUES ('x','x','x','x','x','x','x')",
    "REPLACE INTO merchants (merchant_id) VALUES ('M9999')",
    "INSERT OR REPLACE INTO merchants (merchant_id) VALUES ('M1001')",
    "WITH x AS (SELECT 1) DELETE FROM payments",
    "WITH x AS (DELETE FROM payments RETURNING *) SELECT * FROM x",
    "SELECT * INTO backup FROM payments",
    "UPDATE payments SET amount = 0 RETURNING *",
    # several statements and comment tricks
    "SELECT 1; DROP TABLE payments",
    "SELECT 1; -- ",
    "SELECT 1 -- ; DROP TABLE payments",
    "/* */DROP TABLE payments",
    "SELECT 1 /* harmless? */",
    "SELECT * FROM payments WHERE 1=1 /*! ; DROP TABLE payments */",
    "SELECT 1;;",
    "SELECT 'a'; SELECT 'b'",
    # engine-level statements
    "ATTACH DATABASE '/tmp/pwn.db' AS pwn",
    "ATTACH '/tmp/pwn.db' AS pwn; CREATE TABLE pwn.t(a)",
    "DETACH DATABASE main",
    "PRAGMA writable_schema = ON",
    "PRAGMA table_info(payments)",
    "VACUUM INTO '/tmp/copy.db'",
    "VACUUM",
    "ANALYZE",
    "REINDEX",
    "BEGIN IMMEDIATE",
    "SAVEPOINT s1",
    "EXPLAIN SELECT * FROM payments",
    # extensions, file access, internals
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT \"load_extension\"('/tmp/evil.so')",
    "SELECT writefile('/tmp/x', 'owned')",
    "SELECT readfile('/etc/passwd')",
    "SELECT edit('x', 'vi')",
    "SELECT fts3_tokenizer('simple')",
    "SELECT sqlite_version()",
    "SELECT sqlite_compileoption_used('ENABLE_LOAD_EXTENSION')",
    "SELECT zeroblob(1000000000)",
    "SELECT * FROM sqlite_master",
    "SELECT name FROM sqlite_schema",
    "SELECT * FROM \"sqlite_master\"",
    "SELECT * FROM [sqlite_master]",
    "SELECT * FROM SQLITE_TEMP_MASTER",
    "SELECT * FROM main.payments",
    "SELECT * FROM temp.sqlite_temp_master",
    "SELECT * FROM pragma_table_info('payments')",
    "SELECT * FROM payments WHERE payment_id IN (SELECT name FROM sqlite_master)",
    "SELECT 1 UNION SELECT sql FROM sqlite_master",
    "WITH sqlite_master AS (SELECT 1) SELECT * FROM sqlite_master",
    "SELECT * FROM dbstat",
    "SELECT * FROM sqlite_stmt",
    "SELECT * FROM events",  # the log store is another database; not an operational table
    # quoting and case tricks
    "sElEcT * FrOm SqLiTe_MaStEr",
    "SELECT 'x' ; DROP TABLE \"payments\"",
    "SELECT * FROM payments WHERE status = 'x''; DROP TABLE payments; --'; DELETE FROM payments",
    # unicode tricks
    "SELECT 1；DROP TABLE payments",  # full-width semicolon
    "ＳＥＬＥＣＴ * FROM payments",  # full-width letters
    "SELECT * FROM sqlite\u200b_master",  # zero-width space
    "SELECT * FROM \u0455qlite_master",  # Cyrillic dze look-alike
    "SELECT * FROM payments\u202e",  # right-to-left override
    "SELECT 1\u00a0UNION SELECT sql FROM sqlite_master",  # no-break space
    "SELECT 1\x00; DROP TABLE payments",  # NUL byte
    # empty and junk
    "",
    "   ",
    "SELECT",
]

FORGED = [
    # Evidence written by the query instead of read from the tables (issue: forged evidence).
    "SELECT 'pool exhausted by CHG-9999' AS finding",
    "SELECT 'pool exhausted by CHG-9999' AS finding FROM payments",
    "SELECT 10 AS max_size FROM pool_metrics",
    "SELECT status, 'caused by CHG-9999' AS why FROM payments",
    "SELECT NULL AS n FROM payments",
    "SELECT current_timestamp AS now FROM payments",
    "SELECT max(10) AS pool_max FROM pool_metrics",
    "SELECT -9999 AS n FROM payments",
    # the same through CTEs, derived tables, scalar subqueries, UNION arms and VALUES
    "WITH f AS (SELECT 'forged' AS finding) SELECT finding FROM f",
    "WITH f AS (SELECT 'pool exhausted' AS finding FROM payments) SELECT finding FROM f",
    "SELECT finding FROM (SELECT 'pool exhausted by CHG-9999' AS finding FROM payments)",
    "SELECT (SELECT 'pool exhausted') AS f, status FROM payments",
    "SELECT service FROM deploys UNION SELECT 'CHG-9999 exhausted the pool' FROM deploys",
    "SELECT service FROM deploys UNION ALL SELECT 'CHG' FROM deploys",
    "SELECT * FROM (VALUES ('pool exhausted by CHG-9999'))",
    "WITH f(x) AS (VALUES ('forged')) SELECT x FROM f",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 9999) "
    "SELECT count(*) AS max_size FROM c",
    # CASE / COALESCE / IIF returning literals
    "SELECT CASE WHEN 1 = 1 THEN 'forged' END AS f FROM payments",
    "SELECT CASE WHEN amount > 0 THEN 'pool exhausted by CHG-9999' END AS f FROM payments",
    "SELECT COALESCE(NULL, 'forged') AS f FROM payments",
    "SELECT COALESCE(error_code, 'pool exhausted by CHG-9999') AS f FROM payments",
    "SELECT IIF(amount > 0, 'pool exhausted', 'fine') AS f FROM payments",
    # concatenation, formats and text built from numbers
    "SELECT status || ' pool exhausted by CHG-9999' AS f FROM payments",
    "SELECT 'pool' || ' ' || 'exhausted' || status AS f FROM payments",
    "SELECT CASE WHEN amount > 0 THEN 'pool' END || ' ' || "
    "CASE WHEN amount > 0 THEN 'exhausted' END AS f FROM payments",
    "SELECT replace(status, status, 'pool exhausted') AS f FROM payments",
    "SELECT printf('%s pool exhausted', status) AS f FROM payments",
    "SELECT printf('%c%c', 80, 111) || status AS f FROM payments",
    "SELECT char(80, 111, 111, 108) || status AS f FROM payments",
    "SELECT x'706f6f6c' || status AS f FROM payments",
    "SELECT strftime('pool exhausted at %H', created_at) AS f FROM payments",
    "SELECT lower('POOL EXHAUSTED') AS f FROM payments",
    # prose in column names: SQLite reads an unknown "quoted name" as a string
    'SELECT "pool exhausted by CHG-9999" FROM payments',
    'SELECT status AS "pool exhausted by CHG-9999" FROM payments',
    "SELECT status = 'pool exhausted by CHG-9999' FROM payments",
]
"""Statements that would return text or numbers the query wrote itself."""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_corpus_is_large_enough():
    assert len(HOSTILE) >= 40
    assert len(set(HOSTILE)) == len(HOSTILE)
    assert len(FORGED) >= 30 and not set(FORGED) & set(HOSTILE)


def test_every_hostile_statement_is_an_error_observation_and_ops_db_is_untouched(built):
    ops_file = built / OPS_DB
    before = digest(ops_file)
    budget = Budget(BudgetLimits.from_settings(Settings(_env_file=None, max_tool_calls=1000)))
    accepted = []
    with Backends.open(built) as backends:
        for sql in HOSTILE + FORGED:
            outcome = execute_tool("query_mysql", {"sql": sql}, tool_call_id="h", settings=S,
                                   backends=backends, budget=budget, ready_count=0)
            record = outcome.record
            # Refused by validation itself, not by some later accident of execution.
            code = outcome.observation.get("error", {}).get("code")
            if (record.invocation_status is not InvocationStatus.ERROR
                    or record.evidence_status is not EvidenceStatus.ERROR or record.facts
                    or code not in ("rejected_sql", "invalid_arguments")):
                accepted.append((sql, code))
        # The connection is still healthy and the data intact after the barrage.
        ok = execute_tool("query_mysql", {"sql": "SELECT count(*) AS n FROM payments"},
                          tool_call_id="ok", settings=S, backends=backends, budget=budget,
                          ready_count=0)
        assert ok.record.facts[0].data["row"]["n"] > 0
    assert accepted == []
    assert digest(ops_file) == before
    assert not any(p.name.startswith("pwn") for p in built.parent.iterdir())


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT 1; DROP TABLE payments", "exactly one statement"),
        ("SELECT 1 -- x", "comments are not allowed"),
        ("DELETE FROM payments", "only SELECT"),
        ("WITH x AS (DELETE FROM payments RETURNING *) SELECT * FROM x", "not allowed"),
        ("SELECT * INTO b FROM payments", "INTO is not allowed"),
        ("SELECT readfile('/etc/passwd')", "function 'readfile' is not allowed"),
        ("SELECT * FROM sqlite_master", "allowed tables: payments"),
        ("SELECT * FROM main.payments", "qualified table names"),
        ("SELECT * FROM pragma_table_info('payments')", "not allowed"),
        ("SELECT * FROM sqlite\u200b_master", "non-ASCII"),
    ],
)
def test_rejections_say_what_to_change(sql, reason):
    with pytest.raises(SqlRejected, match=reason):
        validate_select(sql, ["payments"])


def test_validated_sql_is_the_regenerated_statement():
    checked = validate_select("select  merchant_id,count(*)   from payments group by 1;",
                              ["payments"])
    assert checked.sql == "SELECT merchant_id, COUNT(*) FROM payments GROUP BY 1"
    assert checked.tables == ("payments",)
    # Unicode inside string literals is data, not a trick.
    assert validate_select("SELECT * FROM payments WHERE status = 'é—ok'", ["payments"]).tables


def test_connection_layer_refuses_even_without_the_validator(built):
    """Defence in depth: SQL that skipped validation still cannot write, attach or peek."""
    ops = SqliteOps(built / OPS_DB)
    try:
        for sql in ("DELETE FROM payments", "SELECT * FROM sqlite_master",
                    "ATTACH DATABASE ':memory:' AS x", "PRAGMA query_only = OFF",
                    "SELECT load_extension('x')", "CREATE TEMP TABLE t(a)"):
            with pytest.raises(sqlite3.DatabaseError):
                ops.execute(sql, max_rows=10, row_bytes=len, max_bytes=10_000, timeout_s=1)
        ok = ops.execute("SELECT count(*) FROM merchants", max_rows=10, row_bytes=lambda r: 8,
                         max_bytes=10_000, timeout_s=1)
        assert ok.rows[0][0] == 7
    finally:
        ops.close()


SCHEMA = {"payments": ["payment_id", "merchant_id", "status", "amount", "error_code",
                       "created_at"],
          "pool_metrics": ["ts", "active", "max_size", "waiting"]}


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT 'pool exhausted by CHG-9999' AS finding", "SELECT without FROM reads no data"),
        ("SELECT 10 AS max_size FROM pool_metrics", "column 1 (10) is a constant"),
        ("SELECT status, 'x' AS y FROM payments", "column 2 ('x') is not a value read from"),
        ("WITH f AS (SELECT 'x' AS a) SELECT a FROM f", "SELECT without FROM"),
        ("SELECT * FROM (VALUES ('x'))", "VALUES lists are constants"),
        ("SELECT COALESCE(error_code, 'caused by CHG-9') AS c FROM payments",
         "'caused by CHG-9' is not allowed; a result column may be a column"),
        ("SELECT status || ' caused it' AS c FROM payments", "is not a value read from the tables"),
        # Text built from data alone is refused too: the allow-list, not a list of bad words.
        ("SELECT COALESCE(error_code, 'none') AS code FROM payments", "'none' is not allowed"),
        ("SELECT merchant_id || ':' || status AS k FROM payments", "a result column may be"),
        ("SELECT printf('%.2f', avg(amount)) AS a FROM payments", "a result column may be"),
        ('SELECT "caused by CHG-9" FROM payments', "text values take single quotes"),
        ('SELECT status AS "caused by CHG-9" FROM payments', "must be a plain identifier"),
        ("SELECT status = 'caused by CHG-9' FROM payments", "name column 1 with AS"),
    ],
)
def test_forged_evidence_is_refused_saying_why(sql, reason):
    with pytest.raises(SqlRejected, match=re.escape(reason)):
        validate_select(sql, SCHEMA)


@pytest.mark.parametrize(
    "sql",
    [
        # Values read from the tables, with literals only where they decide, not where they say.
        "SELECT CASE WHEN waiting > 0 THEN 'starved' ELSE 'ok' END AS state, max(waiting) "
        "FROM pool_metrics GROUP BY state",
        "SELECT error_code, count(*) AS n FROM payments GROUP BY 1",
        "SELECT merchant_id, status AS k FROM payments WHERE merchant_id || status = 'M1FAILED'",
        "SELECT round(avg(amount), 2) AS avg_amount, count(1) FROM payments",
        "SELECT strftime('%Y-%m-%dT%H', created_at) AS hour FROM payments",
        "SELECT date(created_at, '+1 day') AS next_day, rowid FROM payments",
        "SELECT status FROM payments p WHERE EXISTS (SELECT 1 FROM pool_metrics) "
        "AND status IN (SELECT 'FAILED')",
        "SELECT amount > (SELECT avg(amount) FROM payments) AS above FROM payments",
        "SELECT instr(status, 'AUTH'), length(status) FROM payments",
    ],
)
def test_values_read_from_tables_stay_citable(sql):
    assert validate_select(sql, SCHEMA).tables


@pytest.mark.parametrize("sql", [
    "SELECT * FROM payments WHERE ts >= '2026-11-02T09:00:00Z'",
    "SELECT status FROM payments p ORDER BY p.ts",
    "SELECT status FROM payments WHERE merchant_id IN (SELECT waiting FROM payments)",
])
def test_a_column_the_one_table_lacks_is_refused_naming_its_columns(sql):
    # `ts` is a column of pool_metrics, so the allow-list of all columns lets it through; the
    # query reads payments only, where the database would fail with "no such column".
    with pytest.raises(SqlRejected) as refused:
        validate_select(sql, SCHEMA)
    assert str(refused.value).startswith("table payments has no column ")
    assert "its columns: payment_id, merchant_id, status, amount, error_code, created_at" in str(
        refused.value)


@pytest.mark.parametrize("sql", [
    "SELECT status AS s, count(*) AS n FROM payments GROUP BY s ORDER BY n",
    "SELECT p.status, rowid FROM payments p WHERE p.created_at >= '2026-11-02T09:00:00Z'",
    "SELECT s FROM (SELECT status AS s FROM payments)",
    "SELECT ts, waiting FROM pool_metrics WHERE ts IN (SELECT created_at FROM payments)",
])
def test_columns_of_the_tables_read_and_names_the_query_defines_pass(sql):
    assert validate_select(sql, SCHEMA).tables


def test_deeply_nested_sql_is_a_rejection_not_a_crash():
    sql = "SELECT " + "(" * 3000 + "amount" + ")" * 3000 + " AS a FROM payments"
    with pytest.raises(SqlRejected):
        validate_select(sql, SCHEMA)
    assert normalise_sql(sql)  # the scope of such a call is still computable


def test_a_forged_select_cited_by_the_agent_is_never_published_as_success():
    """End to end: the agent runs the forgery, cites it, the judge would agree — no SUCCESS."""
    forged = "SELECT 'pool exhausted by CHG-9999' AS finding"
    claim = [("the pool was exhausted by CHG-9999", ["E1.1"])]
    script = {"router": [INC_ROUTER],
              "agent": [call("query_mysql", {"sql": forged}, "c1"),
                        draft("payment-db pool exhausted by CHG-9999", claim)],
              "repair": [draft("payment-db pool exhausted by CHG-9999", claim)],
              "judge": [judge("SUPPORTED")]}
    services, out = go(script)
    assert out["release_outcome"] != "SUCCESS"
    assert outcome(out) == ("SUCCESS", "FALLBACK", "EVIDENCE_VALIDATION_FAILED", None)
    assert "Root cause" not in (out["content"] or "")
    (record,) = services.store.trace(out["run_id"])["tool_records"]
    assert record["invocation_status"] == "ERROR" and record["facts"] == []
    assert record["error"].startswith("rejected_sql: SELECT without FROM reads no data")
    # The agent was told why, as an observation it can act on.
    observation = tool_messages(seen(services)[1])[0].content
    assert "rejected_sql" in observation and "reads no data" in observation
    assert "judge" not in consumed(services)
    assert_stored(services, out)


def test_an_unquoted_unknown_column_is_not_told_about_quotes():
    # Seen with the local model: `WHERE time >= …` on config_changes was answered with the
    # double-quote hint, three times; the table's columns are what it needed.
    with pytest.raises(SqlRejected) as refused:
        validate_select("SELECT * FROM payments WHERE time >= '2026-11-05T01:00:00Z'", SCHEMA)
    assert str(refused.value).startswith("table payments has no column 'time'; its columns: ")
    assert "quotes" not in str(refused.value)
    # Across two tables there is no one list to give; still no quote hint for a bare name.
    with pytest.raises(SqlRejected, match=r"^unknown column 'time'$"):
        validate_select("SELECT p.status FROM payments p JOIN pool_metrics m ON m.ts = p.time",
                        SCHEMA)
