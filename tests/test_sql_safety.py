"""Hostile SQL never reaches the data: every statement is refused and ops.sqlite is unchanged."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from harness.budget import Budget, BudgetLimits
from harness.contracts import EvidenceStatus, InvocationStatus
from harness.settings import Settings
from tools.backends import Backends, SqliteOps
from tools.boundary import execute_tool
from tools.dataset.build import demo_dataset_dir, load_dataset
from tools.dataset.layout import OPS_DB
from tools.results import SqlRejected
from tools.sql_safety import validate_select

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


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_corpus_is_large_enough():
    assert len(HOSTILE) >= 40
    assert len(set(HOSTILE)) == len(HOSTILE)


def test_every_hostile_statement_is_an_error_observation_and_ops_db_is_untouched(built):
    ops_file = built / OPS_DB
    before = digest(ops_file)
    budget = Budget(BudgetLimits.from_settings(Settings(_env_file=None, max_tool_calls=1000)))
    accepted = []
    with Backends.open(built) as backends:
        for sql in HOSTILE:
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
