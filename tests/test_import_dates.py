"""Dates on import, and imports of real folders (issue 38).

A syslog that crosses New Year once put ``Dec 31 23:59:59`` and ``Jan  1 00:00:01`` 364 days
apart, Proxifier's October-then-July file was reversed, an OpenSSH ``Dec 10`` was dated in the
future, and the only notice was "read as 2026 (--year)". One bad file blocked a whole folder and
no option could be set per file. The fixtures are small files in those real shapes.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_dataset_import import imported, notes_of
from typer.testing import CliRunner

from diagnosis_harness.cli.main import app
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources

NEW_YEAR = ("Dec 31 23:59:58 web-01 cron[812]: (root) CMD (run-parts /etc/cron.hourly)\n"
            "Dec 31 23:59:59 web-01 kernel: [8812.551] eth0: link down\n"
            "Jan  1 00:00:01 web-01 sshd[1201]: error: connect to 10.0.0.9 port 22 failed\n")
PROXIFIER = ("[10.30 16:49:06] chrome.exe - proxy.cse.cuhk.edu.hk:5070 open through proxy "
             "proxy.cse.cuhk.edu.hk:5070 HTTPS\n"
             "[10.30 16:49:07] chrome.exe - proxy.cse.cuhk.edu.hk:5070 close, 0 bytes sent, "
             "0 bytes received, lifetime 00:01\n"
             "[07.26 09:12:33] chrome.exe - proxy.cse.cuhk.edu.hk:5070 error : Could not "
             "connect through proxy proxy.cse.cuhk.edu.hk:5070\n")
PROXIFIER_PATTERN = r"\[(?P<ts>[^\]]+)\] (?P<service>\S+) - (?P<message>.*)"
OPENSSH = ("Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping checking getaddrinfo for "
           "ns.example.net [173.234.31.186] failed - POSSIBLE BREAK-IN ATTEMPT!\n"
           "Dec 10 06:55:48 LabSZ sshd[24200]: Failed password for invalid user webmaster from "
           "173.234.31.186 port 38926 ssh2\n")
NGINX_GOOD = ('203.0.113.7 - - [20/Nov/2025:14:05:01 +0000] "POST /static/app.js HTTP/1.1" 502 157 '
              '"-" "curl/8.4"\n')


def _write(path: Path, text: str, written: datetime | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if written is not None:
        os.utime(path, (written.timestamp(), written.timestamp()))
    return path


def test_a_syslog_across_new_year_keeps_its_two_seconds(tmp_path: Path) -> None:
    source = _write(tmp_path / "src" / "syslog", NEW_YEAR, datetime(2026, 1, 2, 8, tzinfo=UTC))
    report, events = imported(tmp_path, source)
    stamps = [datetime.fromisoformat(e["ts"].replace("Z", "+00:00")) for e in events]
    assert [e["ts"] for e in events] == ["2025-12-31T23:59:58Z", "2025-12-31T23:59:59Z",
                                         "2026-01-01T00:00:01Z"]
    assert stamps[-1] - stamps[0] == timedelta(seconds=3)
    notes = notes_of(report)
    assert "3 time(s) without a year read as 2025..2026" in notes
    assert "'Jan  1 00:00:01' starts 2026 (the months jump back)" in notes


def test_proxifier_october_then_july_keeps_its_file_order(tmp_path: Path) -> None:
    source = _write(tmp_path / "src" / "Proxifier_2k.log", PROXIFIER)
    report, events = imported(tmp_path, source, pattern=PROXIFIER_PATTERN,
                               time_format="%m.%d %H:%M:%S", year=2025)
    assert [e["ts"] for e in events] == ["2025-10-30T16:49:06Z", "2025-10-30T16:49:07Z",
                                         "2026-07-26T09:12:33Z"]
    assert "read as 2025..2026 (the year given" in notes_of(report)


def test_an_openssh_december_file_is_not_dated_in_the_future(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    source = _write(tmp_path / "src" / "OpenSSH_2k.log",
                    OPENSSH.replace("Dec 10", (now + timedelta(days=4)).strftime("%b %d")))
    report, events = imported(tmp_path, source)
    written = datetime.fromisoformat(events[-1]["ts"].replace("Z", "+00:00"))
    assert written <= now  # four days ahead this year is last year's
    assert written.year == (now + timedelta(days=4)).year - 1
    assert f"read as {written.year} (the latest year that puts them before the file was written" \
        in notes_of(report)
    assert "WARNING" not in notes_of(report)


def test_a_time_after_the_import_is_warned_about_with_its_line(tmp_path: Path) -> None:
    source = _write(tmp_path / "src" / "auth.log", OPENSSH)
    future = datetime.now(UTC).year + 1
    report, _ = imported(tmp_path, source, year=future)
    notes = notes_of(report)
    assert "WARNING: 2 time(s) after the import time" in notes
    assert f"the first at {source}:1: check the year (--year) and the zone (--tz)" in notes


def test_a_folder_loads_every_good_file_and_names_the_bad_ones(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    _write(folder / "web" / "access.log", NGINX_GOOD * 2)
    _write(folder / "syslog", NEW_YEAR, datetime(2026, 1, 2, tzinfo=UTC))
    _write(folder / "broken" / "access.log", NGINX_GOOD + "GET / garbage\n" + NGINX_GOOD)
    report = import_sources([folder], tmp_path / "dataset", ImportOptions())
    assert report.events == 5
    assert report.left_out[0] == f"{folder / 'broken' / 'access.log'}:2: not a access line: " \
                                 "'GET / garbage'"
    loaded = load_dataset(tmp_path / "dataset", tmp_path / "built")
    assert loaded.info.events == 5
    # Through the CLI: the good files are imported, the bad one named, exit 64.
    result = CliRunner().invoke(app, ["data", "import", str(folder), "--into",
                                      str(tmp_path / "cli"), "--no-load"])
    assert result.exit_code == 64, result.output
    assert "left out 1 file(s)" in result.output and "broken/access.log:2:" in result.output
    assert "imported 5 log events from 2 log file(s)" in result.output
    assert (tmp_path / "cli" / "logs.jsonl").read_text().count("\n") == 5


def test_a_folder_of_only_bad_files_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    _write(folder / "access.log", "GET / garbage\n" + NGINX_GOOD)
    with pytest.raises(DatasetError, match=r"access.log:1: not a access line"):
        import_sources([folder], tmp_path / "dataset", ImportOptions(format="nginx"))
    assert not (tmp_path / "dataset").exists()


def test_per_file_options_come_from_a_small_mapping_file(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    _write(folder / "proxy" / "Proxifier_2k.log", PROXIFIER)
    _write(folder / "web" / "frontend.txt", NGINX_GOOD)
    options = _write(tmp_path / "import.toml", "\n".join([
        '["Proxifier*.log"]', f"pattern = '{PROXIFIER_PATTERN}'",
        'time_format = "%m.%d %H:%M:%S"', "year = 2025", "",
        '["web/*.txt"]', 'format = "nginx"', 'service = "edge"', ""]))
    result = CliRunner().invoke(app, ["data", "import", str(folder), "--into",
                                      str(tmp_path / "cli"), "--no-load", "--file-options",
                                      str(options)])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in (tmp_path / "cli" / "logs.jsonl").open()]
    assert [(e["service"], e["ts"]) for e in events] == [
        ("chrome.exe", "2025-10-30T16:49:06Z"), ("chrome.exe", "2025-10-30T16:49:07Z"),
        ("chrome.exe", "2026-07-26T09:12:33Z"), ("edge", "2025-11-20T14:05:01Z")]
    assert events[-1]["level"] == "ERROR"  # read as an access line: 502 → ERROR


@pytest.mark.parametrize(("text", "error"), [
    ('["*.log"]\nyeer = 2025\n', "unknown option 'yeer'"),
    ('["*.log"]\nyear = "2025"\n', "year must be an integer"),
    ('["*.log"]\nformat = "cobol"\n', "['*.log']"),
    ('["*.log"]\npattern = "(no ts group)"\n', "must capture the time"),
    ("not toml at all [\n", "is not valid TOML"),
])
def test_a_bad_mapping_file_is_refused_before_anything_is_read(tmp_path: Path, text: str,
                                                               error: str) -> None:
    source = _write(tmp_path / "logs" / "syslog", NEW_YEAR)
    options = _write(tmp_path / "import.toml", text)
    result = CliRunner().invoke(app, ["data", "import", str(source), "--into",
                                      str(tmp_path / "cli"), "--no-load", "--file-options",
                                      str(options)])
    assert result.exit_code == 64 and error in result.output, result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "cli").exists()
