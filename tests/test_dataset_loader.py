"""Loading a dataset folder: validation with file:line problems, idempotence, atomic replace."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, ensure_dataset, load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.layout import KNOWLEDGE_DB, LOGS_DB, OPS_DB, dataset_info

GOOD_LOGS = [
    {"ts": "2026-01-05T10:00:00+00:00", "service": "Shop-API", "level": "info",
     "message": "order o-1 created", "attrs": {"merchant": "M1"}},
    {"ts": "2026-01-05T12:01:00+02:00", "service": "shop-api", "level": "ERROR",
     "message": "order o-2 failed: db timeout"},
]
GOOD_CSV = (
    "order_id,merchant,amount,created_at,code\n"
    "o-1,M1,12.50,2026-01-05T10:00:00+00:00,007\n"
    "o-2,M1,3,2026-01-05T12:01:00+02:00,\n"
)
GOOD_DOC = (
    "# Database timeouts\n\nIntro text.\n\n"
    "## Symptoms\n\nQueries time out.\n\n"
    "## Fix\n\nRestart nothing.\n"
)


def write_dataset(root: Path, *, logs: list | None = None, csv: str = GOOD_CSV,
                  doc: str = GOOD_DOC, extra_lines: list[str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(e) for e in (GOOD_LOGS if logs is None else logs)]
    (root / "logs.jsonl").write_text("\n".join(lines + (extra_lines or [])) + "\n")
    (root / "tables").mkdir(exist_ok=True)
    (root / "tables" / "orders.csv").write_text(csv)
    (root / "knowledge").mkdir(exist_ok=True)
    (root / "knowledge" / "db-timeouts.md").write_text(doc)
    (root / "dataset.json").write_text(json.dumps({"name": "Shop Test", "description": "tiny"}))
    return root


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def test_load_builds_three_backends_with_normalised_data(tmp_path):
    src = write_dataset(tmp_path / "src")
    report = load_dataset(src, tmp_path / "built")
    dest = report.dest
    assert report.rebuilt
    assert rows(dest / LOGS_DB, "SELECT service, level FROM events ORDER BY id") == [
        ("shop-api", "INFO"), ("shop-api", "ERROR")]
    # +02:00 became UTC, the integer-looking code with a leading zero stayed text, '' is NULL.
    assert rows(dest / OPS_DB, "SELECT order_id, amount, created_at, code FROM orders") == [
        ("o-1", 12.5, "2026-01-05T10:00:00Z", "007"), ("o-2", 3.0, "2026-01-05T10:01:00Z", None)]
    assert rows(dest / KNOWLEDGE_DB, "SELECT section FROM passages ORDER BY id") == [
        ("",), ("Symptoms",), ("Fix",)]
    info = report.info
    assert info.name == "Shop Test"
    assert info.services == ("shop-api",)
    assert info.latest_ts == "2026-01-05T10:01:00Z"
    assert info.tables == ("orders",)
    assert dataset_info(dest) == info
    # query_mysql's database holds only the CSV tables: logs and runbooks are out of its reach.
    assert rows(dest / OPS_DB, "SELECT name FROM sqlite_schema WHERE type='table'") == [("orders",)]


def test_unchanged_folder_is_not_rebuilt(tmp_path):
    src = write_dataset(tmp_path / "src")
    first = load_dataset(src, tmp_path / "built")
    inode = (first.dest / LOGS_DB).stat().st_ino
    second = load_dataset(src, tmp_path / "built")
    assert not second.rebuilt
    assert (second.dest / LOGS_DB).stat().st_ino == inode
    # Touching a file (new mtime, same bytes) falls back to the content fingerprint: no rebuild.
    (src / "logs.jsonl").write_bytes((src / "logs.jsonl").read_bytes())
    assert not load_dataset(src, tmp_path / "built").rebuilt


def test_changed_folder_replaces_old_data(tmp_path):
    src = write_dataset(tmp_path / "src")
    load_dataset(src, tmp_path / "built")
    write_dataset(src, logs=[{"ts": "2026-02-01T00:00:00Z", "service": "billing",
                              "level": "WARN", "message": "new data"}])
    report = load_dataset(src, tmp_path / "built")
    assert report.rebuilt
    assert rows(report.dest / LOGS_DB, "SELECT service, message FROM events") == [
        ("billing", "new data")]
    assert report.info.services == ("billing",)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".built.")]
    assert leftovers == [".built.lock"]  # no build or old directories left behind


def test_broken_dataset_names_every_problem_and_keeps_previous_build(tmp_path):
    src = write_dataset(tmp_path / "src")
    good = load_dataset(src, tmp_path / "built")
    with Backends.open(good.dest) as backends:
        before = backends.info

    write_dataset(
        src,
        extra_lines=[
            '{"ts": "2026-01-05T10:02:00Z", "service": "shop-api", "level": "INFO"',  # line 3
            json.dumps({"ts": "yesterday", "service": "s", "level": "INFO", "message": "m"}),
            json.dumps({"ts": "2026-01-05T10:02:00", "service": "s", "level": "INFO",
                        "message": "naive"}),
            json.dumps({"ts": "2026-01-05T10:02:00Z", "service": "s", "level": "LOUD",
                        "message": "m", "host": "h1"}),
        ],
        csv=GOOD_CSV + "o-3,M1\n",
        doc="no heading here\n\n## Section\n\ntext\n",
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    message = str(caught.value)
    for expected in ("logs.jsonl:3: invalid JSON", "logs.jsonl:4: bad ts",
                     "logs.jsonl:5: bad ts", "no UTC offset", "logs.jsonl:6: unknown key 'host'",
                     "tables/orders.csv:4: expected 5 fields, got 2",
                     "knowledge/db-timeouts.md:1: no title"):
        assert expected in message, expected
    assert len(caught.value.problems) == 6
    # The previous good build is still there and still opens with its old content.
    with Backends.open(tmp_path / "built") as backends:
        assert backends.info == before
    assert [p for p in tmp_path.iterdir() if ".build-" in p.name] == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("[1, 2]", "each line must be a JSON object"),
        ('{"ts": "2026-01-05T10:00:00Z", "service": "s", "level": "INFO"}', "missing key 'message'"),
        ('{"ts": "2026-01-05T10:00:00Z", "service": " ", "level": "INFO", "message": "m"}',
         "'service' must be a non-empty string"),
        ('{"ts": "2026-01-05T10:00:00Z", "service": "s", "level": "INFO", "message": "m", '
         '"attrs": [1]}', "'attrs' must be a JSON object"),
    ],
)
def test_each_bad_log_line_is_reported_with_its_line(tmp_path, line, problem):
    src = write_dataset(tmp_path / "src", extra_lines=[line])
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    assert caught.value.problems == [f"logs.jsonl:3: {problem}"]
    assert not (tmp_path / "built").exists()


def test_missing_logs_and_bad_table_names_are_reported(tmp_path):
    src = write_dataset(tmp_path / "src")
    (src / "logs.jsonl").unlink()
    (src / "tables" / "bad-name.csv").write_text("a\n1\n")
    (src / "tables" / "dupe.csv").write_text("a,A\n1,2\n")
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    problems = caught.value.problems
    assert any(p.startswith("logs.jsonl:1: missing") for p in problems)
    assert any(p.startswith("tables/bad-name.csv:1:") for p in problems)
    assert "tables/dupe.csv:1: duplicate column 'A'" in problems


def test_refuses_to_replace_a_directory_it_did_not_build(tmp_path):
    src = write_dataset(tmp_path / "src")
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(DatasetError, match="not a backend directory"):
        load_dataset(src, precious)
    assert (precious / "notes.txt").read_text() == "keep me"


def test_not_a_directory_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetError, match="not a directory"):
        load_dataset(tmp_path / "nope", tmp_path / "built")


def test_ensure_dataset_builds_the_demo_once_under_home(tmp_path):
    settings = Settings(_env_file=None, home=tmp_path / "home", data_dir=None)
    built = ensure_dataset(settings)
    assert built.parent == tmp_path / "home" / "datasets"
    assert built.name.startswith("payments-demo-")
    inode = (built / LOGS_DB).stat().st_ino
    assert ensure_dataset(settings) == built
    assert (built / LOGS_DB).stat().st_ino == inode  # second call reused the build
    info = dataset_info(built)
    assert "payment-service" in info.services
    assert info.latest_ts is not None and info.latest_ts.startswith("2026-11-06T17:")


def test_ensure_dataset_uses_data_dir_and_reports_a_missing_one(tmp_path):
    src = write_dataset(tmp_path / "src")
    settings = Settings(_env_file=None, home=tmp_path / "home", data_dir=src)
    built = ensure_dataset(settings)
    assert built.name.startswith("shop-test-")
    assert dataset_info(built).services == ("shop-api",)
    missing = Settings(_env_file=None, home=tmp_path / "home", data_dir=tmp_path / "gone")
    with pytest.raises(DatasetError, match="HARNESS_DATA_DIR"):
        ensure_dataset(missing)


def test_demo_dataset_ships_in_the_documented_format():
    demo = demo_dataset_dir()
    assert (demo / "logs.jsonl").is_file()
    assert sorted(p.name for p in (demo / "knowledge").glob("*.md"))
    assert (demo / "tables" / "payments.csv").is_file()
    assert json.loads((demo / "dataset.json").read_text())["name"] == "payments-demo"


def test_a_table_too_wide_for_the_database_is_named_not_the_home(tmp_path):
    src = write_dataset(tmp_path / "src")
    header = ",".join(f"c{i}" for i in range(2100))
    (src / "tables" / "wide.csv").write_text(header + "\n" + ",".join("1" * 2100) + "\n")
    with pytest.raises(DatasetError) as caught:
        load_dataset(src, tmp_path / "built")
    [problem] = caught.value.problems
    assert problem.startswith("tables/wide.csv:1: 2100 columns")
