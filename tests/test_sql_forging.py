"""Computed SQL text is never evidence: the allow-list of result columns, end to end.

Every statement of FORGING builds text the tables do not hold (a sentence spelled by
arithmetic, labels glued by group_concat, JSON or format strings, nested replace, letters
picked by substr…). Each is refused by the validator with a message that says what a result
column may be, and no run that cites one is published as SUCCESS, whether the judge is a model
that says SUPPORTED or the offline judge. What analysts and the offline and local models write
(ANALYTIC) stays accepted; and a CASE label or an alias that the query wrote never supports a
claim before the offline judge.
"""

from __future__ import annotations

import pytest
from graphkit import INC_ROUTER, assert_stored, call, draft, go, judge, without_proposal

from diagnosis_harness.tools.dataset.build import demo_dataset_dir
from diagnosis_harness.tools.dataset.format import TABLES_DIR
from diagnosis_harness.tools.results import SqlRejected
from diagnosis_harness.tools.sql_safety import validate_select

SCHEMA = {p.stem: p.read_text(encoding="utf-8").splitlines()[0].split(",")
          for p in sorted((demo_dataset_dir() / TABLES_DIR).glob("*.csv"))}
CC = "FROM config_changes"

ISSUE = [
    f"SELECT char(length(change_id)*0+82, length(change_id)*0+79, length(change_id)*0+79, "
    f"length(change_id)*0+84) AS c {CC}",
    f"SELECT group_concat(CASE rowid WHEN 1 THEN 'attacker' WHEN 2 THEN 'dropped' ELSE 'pool' "
    f"END, ' ') AS g {CC}",
    f"SELECT json_array('attacker', 'dropped', change_id) AS j {CC}",
    f"SELECT json_object('who', 'attacker', 'id', change_id) AS j {CC}",
    f"SELECT format('%s %s', iif(rowid > 0, 'attacker', 'x'), change_id) AS f {CC}",
    f"SELECT printf('%s %s', iif(rowid > 0, 'attacker', 'x'), change_id) AS f {CC}",
    f"SELECT replace(replace(config_key, 'db', 'attacker'), 'pool', 'dropped') AS r {CC}",
    f"SELECT substr(config_key, 1, 1) || substr(service, 2, 1) || substr(config_key, 4, 1) "
    f"AS s {CC}",
]
"""The issue's forgeries, each published as SUCCESS before the allow-list."""

VARIANTS = [
    # aggregates that glue values or labels
    f"SELECT group_concat(change_id) AS g {CC}",
    f"SELECT group_concat(change_id, ' caused ') AS g {CC}",
    f"SELECT group_concat(DISTINCT config_key) AS g {CC}",
    f"SELECT string_agg(change_id, ' ') AS g {CC}",
    f"SELECT json_group_array(change_id) AS g {CC}",
    f"SELECT max(CASE WHEN rowid = 1 THEN 'attacker' END) || max(CASE WHEN rowid = 2 THEN "
    f"'dropped' END) AS g {CC}",
    # text from numbers, hex and quoting
    f"SELECT char(82) || change_id AS c {CC}",
    f"SELECT char(length(change_id) + 70) AS c {CC}",
    f"SELECT char(unicode(config_key)) AS c {CC}",
    f"SELECT unhex('6174746163686572') AS h {CC}",
    f"SELECT hex(change_id) AS h {CC}",
    f"SELECT quote(change_id) AS q {CC}",
    f"SELECT x'6174746163686572' AS h {CC}",
    f"SELECT printf('%c%c%c', 65 + length(change_id) * 0, 66, 67) AS p {CC}",
    f"SELECT lower(char(65, 66)) AS c {CC}",
    # literals through functions that pass them on
    f"SELECT upper('attacker') AS u {CC}",
    f"SELECT lower('ATTACKER') AS u {CC}",
    f"SELECT coalesce(NULL, 'attacker dropped the pool') AS c {CC}",
    f"SELECT coalesce(ticket, 'attacker') AS c {CC}",
    f"SELECT ifnull(ticket, 'attacker') AS c {CC}",
    f"SELECT coalesce(char(82), change_id) AS c {CC}",
    f"SELECT CAST('attacker dropped pool' AS TEXT) AS c {CC}",
    f"SELECT CAST(change_id AS TEXT) || ' by attacker' AS c {CC}",
    f"SELECT nullif('attacker', change_id) AS n {CC}",
    f"SELECT max('attacker', change_id) AS m {CC}",
    f"SELECT min(change_id, 'zzz attacker') AS m {CC}",
    f"SELECT lag(change_id, 1, 'attacker') OVER (ORDER BY rowid) AS l {CC}",
    f"SELECT 'attacker' AS who {CC}",
    # choices whose results are text the query wrote
    f"SELECT iif(rowid > 0, 'attacker', 'nobody') AS i {CC}",
    f"SELECT iif(rowid > 0, change_id, 'attacker') AS i {CC}",
    f"SELECT CASE WHEN rowid > 0 THEN 'attacker dropped the pool' END AS c {CC}",
    f"SELECT CASE WHEN rowid > 0 THEN 'attacker_dropped_pool' END AS c {CC}",
    f"SELECT CASE WHEN rowid > 0 THEN 'CHG9999' END AS c {CC}",
    f"SELECT CASE WHEN rowid > 0 THEN char(82) END AS c {CC}",
    f"SELECT CASE WHEN rowid > 0 THEN 'attacker' END || ' ' || change_id AS c {CC}",
    # letters carved out of the data
    f"SELECT substr(change_id, 1, 3) AS s {CC}",
    f"SELECT substring(config_key, 2) AS s {CC}",
    f"SELECT ltrim(config_key, 'db.') AS s {CC}",
    f"SELECT trim(config_key, 'd') AS s {CC}",
    f"SELECT replace(change_id, 'CHG', 'attacker') AS r {CC}",
    f"SELECT upper(substr(config_key, 1, 1)) AS u {CC}",
    # JSON and formats
    f"SELECT json_extract('{{\"a\": \"attacker\"}}', '$.a') AS j {CC}",
    f"SELECT json_quote(change_id) AS j {CC}",
    f"SELECT format('%s', change_id) AS f {CC}",
    f"SELECT strftime('attacker at %H', changed_at) AS s {CC}",
    f"SELECT strftime('%H', changed_at) || 'h by attacker' AS s {CC}",
    f"SELECT date(changed_at) || ' attacker' AS d {CC}",
    f"SELECT datetime(changed_at) || 'Z attacker' AS d {CC}",
    "SELECT printf('%.2f attacker', amount) AS p FROM payments",
    # concatenation of data
    f"SELECT change_id || ' ' || config_key AS c {CC}",
    f"SELECT concat(change_id, config_key) AS c {CC}",
    f"SELECT concat_ws(' ', change_id, 'attacker') AS c {CC}",
    f"SELECT upper(config_key) || lower(service) AS c {CC}",
    f"SELECT typeof(change_id) AS t {CC}",
    # the same through subqueries, CTEs, derived tables and UNION arms
    f"SELECT (SELECT group_concat(change_id, ' ') {CC}) AS s FROM deploys",
    f"WITH t AS (SELECT replace(config_key, 'db', 'attacker') AS k {CC}) SELECT k FROM t",
    f"SELECT k FROM (SELECT json_array('attacker') AS k {CC})",
    "SELECT change_id FROM config_changes UNION SELECT printf('%s', 'attacker') FROM deploys",
    f"SELECT change_id {CC} UNION ALL SELECT substr(summary, 1, 8) FROM deploys",
]
FORGING = ISSUE + VARIANTS

ANALYTIC = [
    # the offline investigator's shape, and the workload's / transcripts' queries
    "SELECT * FROM config_changes WHERE changed_at BETWEEN '2026-11-02T08:00:00Z' AND "
    "'2026-11-02T10:00:00Z' LIMIT 20",
    "SELECT change_id, config_key, old_value, new_value, changed_at FROM config_changes "
    "WHERE service = 'payment-db' ORDER BY changed_at",
    "SELECT ts, active, max_size, waiting FROM pool_metrics WHERE ts BETWEEN "
    "'2026-11-02T09:00:00Z' AND '2026-11-02T10:00:00Z'",
    "SELECT status, count(*) AS n FROM payments WHERE merchant_id = 'M1001' GROUP BY status",
    "SELECT merchant_id, count(*) AS failed FROM payments WHERE status = 'FAILED' "
    "GROUP BY merchant_id ORDER BY failed DESC",
    "SELECT m.name, p.status, count(*) AS n FROM payments p JOIN merchants m "
    "ON m.merchant_id = p.merchant_id GROUP BY m.name, p.status",
    "SELECT payment_id, row_number() OVER (PARTITION BY merchant_id ORDER BY created_at) AS rn "
    "FROM payments",
    "SELECT strftime('%H', created_at) AS hour, count(*) FROM payments GROUP BY hour",
    "SELECT strftime('%Y-%m-%dT%H:00:00Z', ts) AS hour, max(p95_ms) FROM acquirer_latency "
    "GROUP BY hour",
    "SELECT CASE WHEN waiting > 0 THEN 'starved' ELSE 'ok' END AS state, max(waiting) "
    "FROM pool_metrics GROUP BY state",
    "SELECT date(created_at) AS day, count(DISTINCT merchant_id) AS merchants FROM payments "
    "GROUP BY day",
    "SELECT round(100.0 * sum(CASE WHEN status = 'FAILED' THEN 1 ELSE 0 END) / count(*), 1) "
    "AS pct FROM payments",
    "SELECT job_id, (julianday(finished_at) - julianday(started_at)) * 86400 AS secs "
    "FROM batch_jobs",
    "SELECT job_id, CAST(strftime('%s', finished_at) AS INTEGER) - unixepoch(started_at) AS s "
    "FROM batch_jobs",
    "SELECT DISTINCT service FROM deploys",
    "SELECT p.*, m.name FROM payments p JOIN merchants m ON m.merchant_id = p.merchant_id",
    "SELECT acquirer, avg(latency_ms) AS avg_ms, min(created_at), max(created_at) "
    "FROM payments GROUP BY acquirer",
    "SELECT coalesce(error_code, status) AS code, count(*) AS n FROM payments GROUP BY 1",
    "SELECT upper(status) AS s, length(payment_id), instr(status, 'FAIL') FROM payments",
    "SELECT amount > (SELECT avg(amount) FROM payments) AS above FROM payments",
    "SELECT service FROM deploys UNION SELECT service FROM config_changes",
    "WITH recent AS (SELECT * FROM deploys WHERE started_at >= '2026-11-03T00:00:00Z') "
    "SELECT service, version FROM recent",
    "SELECT cert_id, subject, not_after FROM certificates WHERE not_after < '2026-12-01'",
    "SELECT ts, value - lag(value) OVER (ORDER BY ts) AS delta FROM service_metrics",
    "SELECT total(rows_processed) AS rows_done, sum(rows_processed) FROM batch_jobs",
]


def test_the_forging_corpus_is_large_and_distinct() -> None:
    assert len(FORGING) >= 50 and len(set(FORGING)) == len(FORGING)


@pytest.mark.parametrize("sql", FORGING)
def test_every_forgery_is_refused_by_the_validator(sql: str) -> None:
    with pytest.raises(SqlRejected):
        validate_select(sql, SCHEMA)


@pytest.mark.parametrize("sql", ISSUE)
def test_a_refusal_says_what_a_result_column_may_be(sql: str) -> None:
    with pytest.raises(SqlRejected) as refused:
        validate_select(sql, SCHEMA)
    message = str(refused.value)
    assert message.startswith("column 1 (") and "is not a value read from the tables" in message
    assert "a result column may be a column" in message and "CASE" in message


@pytest.mark.parametrize("sql", ANALYTIC)
def test_what_analysts_and_models_write_is_still_accepted(sql: str) -> None:
    assert validate_select(sql, SCHEMA).tables


FORGED_CLAIM = "attacker dropped the pool"


def _cite(sql: str, judge_answer: list[dict[str, object]]) -> dict[str, list[object]]:
    claim = [(FORGED_CLAIM, ["E1.1"])]
    return {"router": [INC_ROUTER],
            "agent": [call("query_mysql", {"sql": sql}, "c1"), draft(FORGED_CLAIM, claim)],
            "repair": [draft(FORGED_CLAIM, claim)], "judge": judge_answer}


@pytest.mark.parametrize("judged_by", ["supported", "offline"])
def test_no_forgery_is_ever_published_as_success(judged_by: str) -> None:
    settings = {"judge_model": "offline"} if judged_by == "offline" else {}
    published = []
    for sql in FORGING:
        services, out = go(_cite(sql, [judge("SUPPORTED")]), settings=settings)
        (record,) = services.store.trace(out["run_id"])["tool_records"]
        if (out["release_outcome"] == "SUCCESS" or record["facts"]
                # the agent's own words may show only as its refused, NOT VERIFIED proposal
                or "attacker" in without_proposal(out["content"] or "")):
            published.append(sql)
        assert_stored(services, out)
    assert published == []


ONE = "WHERE change_id = 'CHG-2038'"


@pytest.mark.parametrize(("sql", "claim"), [
    # accepted queries whose only source of the claim's words is what the query wrote
    (f"SELECT change_id, CASE WHEN rowid > 0 THEN 'attacker' END AS who {CC} {ONE}",
     "CHG-2038 by attacker"),
    (f"SELECT change_id, max(CASE WHEN rowid > 0 THEN 'attacker' END) AS who {CC} {ONE}",
     "CHG-2038 by attacker"),
    (f"SELECT change_id AS attacker {CC} {ONE}", "CHG-2038 by attacker"),
    (f"SELECT change_id, count(*) AS attacker_dropped_pool {CC} {ONE} GROUP BY change_id",
     "CHG-2038 attacker dropped pool"),
    (f"WITH t AS (SELECT change_id, CASE WHEN rowid > 0 THEN 'attacker' END AS who {CC} {ONE}) "
     "SELECT * FROM t", "CHG-2038 by attacker"),
])
def test_the_offline_judge_takes_no_words_from_a_computed_column(sql: str, claim: str) -> None:
    validate_select(sql, SCHEMA)  # accepted: the data decides the label, or it only names
    cited = [(claim, ["E1.1"])]
    script = {"router": [INC_ROUTER],
              # its one revision (docs/design.md §8) sends the same draft again
              "agent": [call("query_mysql", {"sql": sql}, "c1"), draft(claim, cited),
                        draft(claim, cited)],
              "repair": [draft(claim, cited)]}
    services, out = go(script, settings={"judge_model": "offline"})
    trace = services.store.trace(out["run_id"])
    (record,) = trace["tool_records"]
    assert record["facts"], "the query ran and its rows are evidence"
    assert "CHG-2038" in record["facts"][0]["text"]
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "SEMANTIC_UNSUPPORTED")
    semantic = next(v["verdict"] for v in trace["verdicts"] if v["guard"] == "semantic")
    assert "attacker" in semantic["reasons"][0]  # the one word the data did not say
