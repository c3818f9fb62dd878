"""``harness data load`` reads data the way people write it: sniffed CSV delimiters and headers,
every time-like column usable by SQL (or a load error naming column, row and value), unknown
log levels mapped, gzip and BOM, and runbooks in any Markdown under any file name."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.layout import KNOWLEDGE_DB, LOGS_DB, OPS_DB

LOG = {"ts": "2026-03-14T09:00:00Z", "service": "shop", "level": "INFO", "message": "ok"}


def dataset(root: Path, *, logs: list[dict] | None = None, tables: dict[str, str] | None = None,
            docs: dict[str, str] | None = None, manifest: dict | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "logs.jsonl").write_text("".join(json.dumps(e) + "\n" for e in (logs or [LOG])))
    for folder, files in (("tables", tables or {}), ("knowledge", docs or {})):
        (root / folder).mkdir(exist_ok=True)
        for name, text in files.items():
            (root / folder / name).write_text(text, encoding="utf-8")
    if manifest is not None:
        (root / "dataset.json").write_text(json.dumps(manifest))
    return root


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def test_semicolon_csv_with_spaces_in_headers_loads_with_safe_names_and_original_labels(tmp_path):
    src = dataset(tmp_path / "src", tables={"deploys.csv": (
        "Deploy ID;Service;Started At;Duration (s);Summary\n"
        'DEP-1;checkout-api;14/03/2026 09:49;62;"lowered; was 64"\n'  # quoted, as Excel does
    )})
    report = load_dataset(src, tmp_path / "built")
    assert rows(report.dest / OPS_DB, "SELECT * FROM deploys") == [
        ("DEP-1", "checkout-api", "2026-03-14T09:49:00Z", 62, "lowered; was 64")]
    assert [r[1] for r in rows(report.dest / OPS_DB, "PRAGMA table_info(deploys)")] == [
        "deploy_id", "Service", "started_at", "duration_s", "Summary"]
    assert report.info.column_labels == {"deploys": {
        "deploy_id": "Deploy ID", "started_at": "Started At", "duration_s": "Duration (s)"}}
    notes = "\n".join(report.info.notes)
    assert "fields separated by ';'" in notes and "'Started At' → started_at" in notes


@pytest.mark.parametrize(("written", "stored"), [
    ("2026-03-14 09:50:00", "2026-03-14T08:50:00Z"),   # naive: dataset.json's zone (+01:00)
    ("14/03/2026 09:49", "2026-03-14T08:49:00Z"),
    ("1773481740", "2026-03-14T09:49:00Z"),            # epoch seconds have no zone to assume
    ("1773481740000", "2026-03-14T09:49:00Z"),
    ('"Sat, 14 Mar 2026 09:49:00 +0000"', "2026-03-14T09:49:00Z"),
    ("2026-03-14T09:49:00Z", "2026-03-14T09:49:00Z"),
])
def test_every_time_column_is_stored_in_the_one_spelling_sql_compares(tmp_path, written, stored):
    src = dataset(tmp_path / "src", manifest={"name": "t", "timezone": "Europe/Berlin"},
                  tables={"deploys.csv": f"deploy_id,started_at,latency_ms\nDEP-1,{written},1800\n"})
    dest = load_dataset(src, tmp_path / "built").dest
    assert rows(dest / OPS_DB, "SELECT started_at, latency_ms FROM deploys "
                               "WHERE started_at BETWEEN '2026-03-14T08:00:00Z' AND "
                               "'2026-03-14T10:00:00Z'") == [(stored, 1800)]


def test_a_time_column_that_cannot_be_read_fails_the_load_naming_column_row_and_value(tmp_path):
    src = dataset(tmp_path / "src", tables={
        "deploys.csv": "deploy_id,Started At\nDEP-1,2026-03-14 09:50\nDEP-2,soon\n",
        "jobs.csv": "job,run_at\nJ-1,03/04/2026 10:00\nJ-2,05/04/2026 10:00\n"})
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    problems = caught.value.problems
    assert any(p.startswith("tables/deploys.csv:3: column 'Started At'") and "'soon'" in p
               for p in problems)
    assert any(p.startswith("tables/jobs.csv:1: column 'run_at'") and "'03/04/2026 10:00'" in p
               and "dayfirst" in p for p in problems)
    (src / "dataset.json").write_text(json.dumps({"dayfirst": True}))
    (src / "tables" / "deploys.csv").write_text("deploy_id,Started At\nDEP-1,2026-03-14 09:50\n")
    dest = load_dataset(src, tmp_path / "built").dest
    assert rows(dest / OPS_DB, "SELECT run_at FROM jobs") == [("2026-04-03T10:00:00Z",),
                                                              ("2026-04-05T10:00:00Z",)]


def test_durations_dates_and_text_that_merely_mention_dates_stay_what_they_are(tmp_path):
    src = dataset(tmp_path / "src", tables={"t.tsv": (
        "response_time\tday\tnote\n"
        "120\t14/03/2026\trestarted on 2026-03-14 after the deploy\n"
        "95\t15/03/2026\tfine\n")})
    dest = load_dataset(src, tmp_path / "built").dest
    assert rows(dest / OPS_DB, "SELECT * FROM t") == [
        (120, "2026-03-14", "restarted on 2026-03-14 after the deploy"), (95, "2026-03-15", "fine")]


def test_a_headerless_table_gets_numbered_columns(tmp_path):
    src = dataset(tmp_path / "src", tables={"samples.csv": "2026-03-14T09:00:00Z,12.5\n"
                                                           "2026-03-14T09:01:00Z,13.0\n"})
    report = load_dataset(src, tmp_path / "built")
    assert rows(report.dest / OPS_DB, "SELECT column_1, column_2 FROM samples") == [
        ("2026-03-14T09:00:00Z", 12.5), ("2026-03-14T09:01:00Z", 13.0)]
    assert any("no header row" in n for n in report.info.notes)


def test_unknown_log_levels_are_mapped_with_the_original_kept(tmp_path):
    logs = [{**LOG, "level": level, "message": f"m{i}"}
            for i, level in enumerate(["notice", "HTTP", "RETRY", "warning", "LOUD", "info"])]
    report = load_dataset(dataset(tmp_path / "src", logs=logs), tmp_path / "built")
    stored = rows(report.dest / LOGS_DB, "SELECT level, attrs FROM events ORDER BY id")
    assert [s[0] for s in stored] == ["INFO", "INFO", "INFO", "WARN", "INFO", "INFO"]
    assert [json.loads(s[1])["level_original"] if s[1] else None for s in stored] == [
        "notice", "HTTP", "RETRY", "warning", "LOUD", None]
    notes = "\n".join(report.info.notes)
    assert "level 'LOUD' read as INFO (unknown level) in 1 event(s)" in notes
    assert "level 'notice' read as INFO in 1 event(s)" in notes


def test_gzipped_logs_with_a_bom_load(tmp_path):
    src = dataset(tmp_path / "src")
    text = "\ufeff" + (src / "logs.jsonl").read_text()
    (src / "logs.jsonl").unlink()
    (src / "logs.jsonl.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    report = load_dataset(src, tmp_path / "built")
    assert report.info.events == 1 and report.info.services == ("shop",)


def test_an_export_in_another_format_is_named_once_not_line_by_line(tmp_path):
    ecs = Path(__file__).resolve().parent / "data" / "import" / "checkout-api-ecs.ndjson"
    src = dataset(tmp_path / "src")
    (src / "logs.jsonl").write_bytes(ecs.read_bytes())
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    assert len(caught.value.problems) == 1
    assert "looks like an Elasticsearch/ECS log export" in caught.value.problems[0]
    assert "harness data import" in caught.value.problems[0]


SETEXT = """---
owner: checkout
---
Checkout pool exhaustion
========================

Applies to checkout-api.

How to confirm
--------------

### Recent deploys

Look for a deploy that lowered max_connections.

```bash
# count pending acquires
grep pending checkout.log
```

Mitigation
----------
Roll back. ##
"""


def test_runbooks_in_any_markdown_and_any_file_name(tmp_path):
    src = dataset(tmp_path / "src", docs={
        "Checkout Pool (v2).md": SETEXT,
        "notes.markdown": "Escalate after 15 minutes.\n",
        "atx.md": "## Title with closing hashes ##\n\nintro\n\n#### Deep\n\nbody\n"})
    report = load_dataset(src, tmp_path / "built")
    passages = rows(report.dest / KNOWLEDGE_DB,
                    "SELECT doc_id, title, section, body FROM passages ORDER BY id")
    assert [p for p in passages if p[0] == "atx"] == [
        ("atx", "Title with closing hashes", "", "intro"),
        ("atx", "Title with closing hashes", "Deep", "body")]
    checkout = [p for p in passages if p[0] == "checkout-pool-v2"]
    assert [(p[1], p[2]) for p in checkout] == [
        ("Checkout pool exhaustion", ""),
        ("Checkout pool exhaustion", "How to confirm > Recent deploys"),
        ("Checkout pool exhaustion", "Mitigation")]
    assert "# count pending acquires" in checkout[1][3]  # a comment in a code fence, not a heading
    assert ("notes", "notes", "", "Escalate after 15 minutes.") in passages
    assert report.info.documents == 3
