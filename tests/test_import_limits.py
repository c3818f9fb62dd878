"""``harness data import`` on hostile files: a classified ``file:line`` refusal, never a crash.

Found from outside (issue 37, item 7): ``"ts": 1e30`` in an import was an internal error
(exit 1, an OverflowError), NaN and infinity another (a StopIteration).

One case of each parametrised refusal runs as a real ``harness`` process (exit 64, no
traceback); the others run the same CLI in this process (tests/clikit.py), ~1 s of imports less
each. The limits measured in time and memory run in processes of their own.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from clikit import cli_here

REPO = Path(__file__).resolve().parents[1]


def _harness(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(cwd / "home"), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


class Here:
    """:func:`_harness` in this process: the same home, folder and CLI (tests/clikit.py)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.monkeypatch, self.capsys = monkeypatch, capsys

    def __call__(self, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return cli_here(self.monkeypatch, self.capsys, *args, cwd=cwd,
                        env={"HARNESS_HOME": str(cwd / "home")})


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Here:
    return Here(monkeypatch, capsys)


@pytest.mark.parametrize("ts", ["1e30", "-1e30", "NaN", "Infinity", "-Infinity", "1e400",
                                "1" + "0" * 400, "99999999999999999999"],
                         ids=["1e30", "-1e30", "nan", "inf", "-inf", "1e400", "10^400", "1e20-1"])
def test_an_absurd_epoch_time_is_a_file_line_error(tmp_path: Path, ts: str, here: Here) -> None:
    good = '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "ok"}'
    bad = f'{{"ts": {ts}, "level": "ERROR", "service": "api", "message": "boom"}}'
    (tmp_path / "api.jsonl").write_text(f"{good}\n{bad}\n", encoding="utf-8")
    cli = _harness if ts == "1e30" else here  # one real process; the same CLI in-process
    proc = cli(tmp_path, "data", "import", "api.jsonl", "--into", "out", "--no-load")
    assert proc.returncode == 64, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "api.jsonl:2: bad time: " in proc.stderr and "1 unreadable line(s)" in proc.stderr
    assert "not a plausible epoch time" in proc.stderr
    assert not (tmp_path / "out").exists()  # nothing half-written
    skipped = cli(tmp_path, "data", "import", "api.jsonl", "--into", "out", "--no-load",
                  "--skip-bad")
    assert skipped.returncode == 0, skipped.stderr
    assert "1 events" in skipped.stdout and "1 unreadable line(s) skipped" in skipped.stdout


def test_an_absurd_epoch_time_in_a_table_is_a_file_line_problem(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "tables").mkdir(parents=True)
    (data / "logs.jsonl").write_text(
        '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "ok"}\n',
        encoding="utf-8")
    (data / "tables" / "deploys.csv").write_text(
        "deploy_id,service,deployed_at\nD1,api,1762077600\nD2,api,99999999999999999999999\n",
        encoding="utf-8")
    proc = _harness(tmp_path, "data", "load", str(data))
    assert proc.returncode == 64, proc.stderr
    assert "internal error" not in proc.stderr
    assert "tables/deploys.csv:3: column 'deployed_at'" in proc.stderr


# --- caps on lines and bytes (a gzip bomb: 200 KB holding one 200 MB line ran 240 s at 550 MB) --

_PEAK_RSS = (
    "import resource, subprocess, sys, time\n"
    "start = time.monotonic()\n"
    "proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)\n"
    "took = time.monotonic() - start\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024\n"
    "sys.stdout.write(f'{proc.returncode} {took:.2f} {peak}\\n' + proc.stderr)\n"
)


def _measured(cwd: Path, *args: str, **env_extra: str) -> tuple[int, float, int, str]:
    """Exit code, wall seconds, peak RSS (MiB) of one CLI process, and its stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(cwd / "home"), PYTHONPATH=str(REPO), **env_extra)
    proc = subprocess.run([sys.executable, "-c", _PEAK_RSS, sys.executable, "-m",
                           "diagnosis_harness", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=180)
    head, _, stderr = proc.stdout.partition("\n")
    code, took, peak = head.split()
    return int(code), float(took), int(peak), stderr


def _gzip_one_line(path: Path, head: bytes, size: int) -> Path:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip container
    with path.open("wb") as out:
        out.write(packer.compress(head))
        chunk = b"x" * (1 << 20)
        for _ in range(size >> 20):
            out.write(packer.compress(chunk))
        out.write(packer.compress(b'"}\n') + packer.flush())
    return path


@pytest.mark.slow
@pytest.mark.parametrize("head", [
    b'{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "',
    b"2026-11-02T10:00:00Z ERROR api connection reset ",
], ids=["json-line", "text-line"])
def test_a_gzip_holding_one_200_mb_line_is_refused_fast_in_bounded_memory(
        tmp_path: Path, head: bytes) -> None:
    bomb = _gzip_one_line(tmp_path / "api.log.gz", head, 200 << 20)
    assert bomb.stat().st_size < 300_000
    code, took, peak, stderr = _measured(tmp_path, "data", "import", bomb.name, "--into", "out",
                                         "--no-load")
    assert code == 64, stderr
    assert "api.log.gz:1: a line longer than 1 MiB" in stderr
    assert "HARNESS_IMPORT_MAX_LINE_BYTES" in stderr and "internal error" not in stderr
    assert took < 10, f"refused after {took:.1f} s"
    assert peak < 200, f"peak RSS {peak} MiB"  # the line alone would be 200 MiB
    assert not (tmp_path / "out").exists()


def test_the_line_limit_is_a_setting_and_is_exact(tmp_path: Path) -> None:
    line = '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "%s"}'
    fits = line % ("x" * (200 - len(line % "")))
    assert len(fits) == 200
    (tmp_path / "api.jsonl").write_text(f"{fits}\n{fits}x\n", encoding="utf-8")
    code, _, _, stderr = _measured(tmp_path, "data", "import", "api.jsonl", "--into", "out",
                                   "--no-load", HARNESS_IMPORT_MAX_LINE_BYTES="200")
    assert code == 64 and "api.jsonl:2: a line longer than 200 bytes" in stderr, stderr
    (tmp_path / "api.jsonl").write_text(f"{fits}\n{fits}\n", encoding="utf-8")
    code, _, _, stderr = _measured(tmp_path, "data", "import", "api.jsonl", "--into", "out",
                                   "--no-load", HARNESS_IMPORT_MAX_LINE_BYTES="200")
    assert code == 0, stderr


def test_decompressed_bytes_are_capped_across_sources(tmp_path: Path) -> None:
    line = '{"ts": "2026-11-02T10:00:%02dZ", "level": "ERROR", "service": "api", "message": "m"}\n'
    (tmp_path / "src").mkdir()
    size = len(line % 0)  # 84 bytes
    (tmp_path / "src" / "a.jsonl").write_text("".join(line % s for s in range(10)))
    with gzip.open(tmp_path / "src" / "b.jsonl.gz", "wt") as out:
        out.write("".join(line % s for s in range(10, 20)))
    (tmp_path / "src" / "runbook.md").write_text("# Runbook\n\nRestart it.\n")
    code, _, _, stderr = _measured(tmp_path, "data", "import", "src", "--into", "out", "--no-load",
                                   HARNESS_IMPORT_MAX_BYTES="1200")
    assert code == 64, stderr
    over = (1200 - 10 * size) // size + 1  # the line of b.jsonl.gz that passes 1200 bytes
    assert f"b.jsonl.gz:{over}: the import has read more than 1200 bytes (decompressed)" in stderr
    assert "HARNESS_IMPORT_MAX_BYTES" in stderr and not (tmp_path / "out").exists()
    code, _, _, stderr = _measured(tmp_path, "data", "import", "src", "--into", "out", "--no-load",
                                   HARNESS_IMPORT_MAX_BYTES=str(20 * size + 30))  # and the runbook
    assert code == 0, stderr


def test_a_json_document_read_whole_is_capped(tmp_path: Path) -> None:
    record = '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "m"}'
    (tmp_path / "export.json").write_text("[\n" + ",\n".join([record] * 50) + "\n]\n")
    code, _, _, stderr = _measured(tmp_path, "data", "import", "export.json", "--into", "out",
                                   "--no-load", HARNESS_IMPORT_MAX_DOCUMENT_BYTES="2000")
    assert code == 64, stderr
    assert "export.json:1: a JSON document larger than 2000 bytes" in stderr
    code, _, _, stderr = _measured(tmp_path, "data", "import", "export.json", "--into", "out",
                                   "--no-load")
    assert code == 0, stderr


def test_a_table_or_runbook_with_an_overlong_line_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "api.jsonl").write_text(
        '{"ts": "2026-11-02T10:00:00Z", "level": "ERROR", "service": "api", "message": "m"}\n')
    (tmp_path / "src" / "notes.md").write_text("# Notes\n\n" + "y" * 5000 + "\n")
    code, _, _, stderr = _measured(tmp_path, "data", "import", "src", "--into", "out", "--no-load",
                                   HARNESS_IMPORT_MAX_LINE_BYTES="4096")
    assert code == 64 and "notes.md:3: a line longer than 4 KiB" in stderr, stderr


@pytest.mark.parametrize(("name", "text", "says"), [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "deep.json:1: invalid JSON: nested too deeply"),
    ("deep.jsonl", '{"ts": "2026-11-02T10:00:00Z", "message": "m"}\n{"ts": "2026-11-02T10:00:01Z", '
                   '"message": "m", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "deep.jsonl:2: not a json JSON record: nested too deeply"),
])
def test_json_nested_deeper_than_the_parser_is_a_file_line_error(tmp_path: Path, name: str,
                                                                  text: str, says: str,
                                                                  here: Here) -> None:
    (tmp_path / name).write_text(text + "\n", encoding="utf-8")
    cli = _harness if name == "deep.json" else here  # the parser's depth in a fresh process too
    proc = cli(tmp_path, "data", "import", name, "--into", "out", "--no-load")
    assert proc.returncode == 64 and says in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_gzip_of_100_mb_of_newlines_is_refused_fast(tmp_path: Path) -> None:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    with (tmp_path / "blank.log.gz").open("wb") as out:
        for _ in range(100):
            out.write(packer.compress(b"\n" * (1 << 20)))
        out.write(packer.flush())
    code, took, _, stderr = _measured(tmp_path, "data", "import", "blank.log.gz", "--into", "out",
                                      "--no-load")
    assert code == 64 and "blank.log.gz: only blank lines in its first 10,000 lines" in stderr
    assert took < 10, f"refused after {took:.1f} s"  # sampling every newline took 110 s


def test_an_event_joins_at_most_a_megabyte_of_continuation_lines_and_says_so(tmp_path: Path
                                                                              ) -> None:
    """150 stack-trace lines of 500 KB each were one 75 MB message, which the loader reads whole."""
    with (tmp_path / "api.log").open("w", encoding="utf-8") as out:
        out.write("2026-11-02T10:00:00Z ERROR api boom\n")
        out.writelines("    at " + "y" * 500_000 + "\n" for _ in range(150))
        out.write("2026-11-02T10:00:01Z INFO api ok\n")
    proc = _harness(tmp_path, "data", "import", "api.log", "--into", "out", "--no-load")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in (tmp_path / "out" / "logs.jsonl").open()]
    assert [e["level"] for e in events] == ["ERROR", "INFO"]
    message = events[0]["message"]
    assert len(message) < 1_100_000
    assert message.endswith("… 148 more line(s) not kept (an event joins at most 200 lines and "
                            "1,048,576 characters)")


@pytest.mark.parametrize(("line", "cut"), [
    (b"12345\n", False), (b"12345\r\n", False), (b"12345", False),
    (b"123456\n", True), (b"123456\r\n", True), (b"1234567890", True),
])
def test_the_line_limit_counts_bytes_without_the_line_break(line: bytes, cut: bool) -> None:
    from diagnosis_harness.tools.dataset.sniff import bounded_lines

    first = next(bounded_lines(io.BytesIO(line + b"\nnext\n"), 5))
    assert first[1] is cut and len(first[0]) <= 7
