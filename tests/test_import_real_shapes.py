"""Dates whose year could be anywhere (issue 25, item 6): a two-digit year (Spark's
``17/06/09 20:10:40``, HDFS's ``081109 203615``) is refused naming the file, line and readings
unless ``--time-format`` says, and read right with it; unambiguous dates are read as before. The
sample lines are hand-written in those shapes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from diagnosis_harness.cli.main import app
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources
from diagnosis_harness.tools.dataset.layout import OPS_DB

SPARK = """\
17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Started daemon with process name: 4121@node-7
17/06/09 20:10:41 INFO spark.SecurityManager: Changing view acls to: yarn,analyst
17/06/09 20:10:44 WARN storage.BlockManager: Block rdd_2_3 already exists on this machine
"""
HDFS = """\
081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block blk_3886 terminating
081109 203807 222 INFO dfs.DataNode$PacketResponder: Received block blk_-6952 of size 67108864
081109 204005 35 WARN dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap updated
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "src" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def imported(tmp_path: Path, source: Path, **options):
    into = tmp_path / "dataset"
    report = import_sources([source], into, ImportOptions(**options))
    return report, [json.loads(line) for line in (into / "logs.jsonl").open(encoding="utf-8")]


@pytest.mark.parametrize(("name", "text", "value", "fmt"), [
    ("spark-executor.log", SPARK, "17/06/09 20:10:40", "%y/%m/%d %H:%M:%S"),
    ("datanode.log", HDFS, "081109 203615", "%y%m%d %H%M%S"),
])
def test_two_digit_years_are_refused_naming_the_line_and_the_readings(tmp_path, name, text,
                                                                     value, fmt):
    source = write(tmp_path, name, text)
    for options in ({}, {"skip_bad": True}):  # an ambiguity is no bad line to skip
        with pytest.raises(DatasetError) as caught:
            import_sources([source], tmp_path / "dataset", ImportOptions(**options))
        message = "\n".join(caught.value.problems)
        assert f"{source}:1: {value!r} has a two-digit year" in message
        assert f"--time-format '{fmt}'" in message and "never guesses" in message
    assert not (tmp_path / "dataset").exists()


def test_spark_dates_read_right_with_the_format(tmp_path):
    report, events = imported(tmp_path, write(tmp_path, "spark-executor.log", SPARK),
                              time_format="%y/%m/%d %H:%M:%S")
    assert [e["ts"] for e in events] == ["2017-06-09T20:10:40Z", "2017-06-09T20:10:41Z",
                                         "2017-06-09T20:10:44Z"]
    assert [e["level"] for e in events] == ["INFO", "INFO", "WARN"]
    assert events[2]["message"] == "storage.BlockManager: Block rdd_2_3 already exists on this machine"
    notes = "\n".join(report.sources[0].notes)
    assert "times read with --time-format '%y/%m/%d %H:%M:%S'" in notes
    assert "day-first" not in notes and "month-first" not in notes  # nothing was inferred


def test_hdfs_compact_times_are_found_and_read_with_the_format(tmp_path):
    report, events = imported(tmp_path, write(tmp_path, "datanode.log", HDFS),
                              time_format="%y%m%d %H%M%S")
    assert report.sources[0].format == "text"
    assert [e["ts"] for e in events] == ["2008-11-09T20:36:15Z", "2008-11-09T20:38:07Z",
                                         "2008-11-09T20:40:05Z"]
    assert events[2]["level"] == "WARN" and events[0]["message"].startswith("148 dfs.DataNode")


def test_a_time_format_that_does_not_match_is_a_bad_line(tmp_path):
    source = write(tmp_path, "messages", "Mar 14 09:50:12 web-01 sshd[881]: Accepted key\n")
    with pytest.raises(DatasetError, match=r"messages:1: bad time: 'Mar 14 09:50:12' does not match "
                                           r"--time-format '%y/%m/%d %H:%M:%S'"):
        import_sources([source], tmp_path / "d1", ImportOptions(time_format="%y/%m/%d %H:%M:%S"))
    source = write(tmp_path, "bad.log", "2017-06-09 20:11:00 INFO a\n" + SPARK)
    with pytest.raises(DatasetError, match=r"(?s)bad.log:1: does not start with a time in the "
                                           r"--time-format.*--skip-bad"):
        import_sources([source], tmp_path / "d2", ImportOptions(time_format="%y/%m/%d %H:%M:%S"))
    report, events = imported(tmp_path, source, time_format="%y/%m/%d %H:%M:%S", skip_bad=True)
    assert len(events) == 3 and report.sources[0].stats.bad_lines == 1


def test_unambiguous_dates_are_still_read_without_a_format(tmp_path):
    text = ("2017/06/09 20:10:40 INFO year first\n14/03/2026 09:50:00 INFO day over twelve\n"
            "Sat, 14 Mar 2026 09:51:00 +0000 INFO month name\n")
    _, events = imported(tmp_path, write(tmp_path, "app.log", text))
    assert [e["ts"] for e in events] == ["2017-06-09T20:10:40Z", "2026-03-14T09:50:00Z",
                                         "2026-03-14T09:51:00Z"]


def test_cli_refuses_a_bad_time_format_and_passes_a_good_one(tmp_path):
    source = write(tmp_path, "spark-executor.log", SPARK)
    runner = CliRunner()
    bad = runner.invoke(app, ["data", "import", str(source), "--into", str(tmp_path / "d"),
                              "--no-load", "--time-format", "%y/%m/%d %Q"])
    assert bad.exit_code == 64 and "%Q is not supported" in bad.output
    good = runner.invoke(app, ["data", "import", str(source), "--into", str(tmp_path / "d"),
                               "--no-load", "--time-format", "%y/%m/%d %H:%M:%S"])
    assert good.exit_code == 0, good.output
    assert "2017-06-09T20:10:40Z .. 2017-06-09T20:10:44Z" in good.output


def test_a_table_column_of_two_digit_years_is_kept_as_written_not_guessed(tmp_path):
    src = tmp_path / "ds"
    (src / "tables").mkdir(parents=True)
    (src / "logs.jsonl").write_text(json.dumps({"ts": "2026-03-14T09:00:00Z", "service": "shop",
                                                "level": "INFO", "message": "ok"}) + "\n")
    (src / "tables" / "deploys.csv").write_text("deploy_id,deployed_at\nD-1,14/03/26 09:49\n")
    report = load_dataset(src, tmp_path / "built")
    with sqlite3.connect(report.dest / OPS_DB) as conn:
        assert conn.execute("SELECT deployed_at FROM deploys").fetchall() == [("14/03/26 09:49",)]
    notes = "\n".join(report.info.notes)
    assert "column 'deployed_at' kept as text" in notes and "two-digit year" in notes
