"""Every store, dataset, filesystem, settings and replay problem is one line at the CLI.

docs/design.md §12: damaged or misplaced ``runs.sqlite``, ``checkpoints.sqlite`` or
``ops.sqlite``, a home that is a file, a ``.env`` that is not UTF-8, a ``logs.jsonl`` that
cannot be read, JSON nested deeper than a parser goes, a read-only or full filesystem: exit 64
(or 2 for a run that failed), one line on stderr that names the file or the setting, no
traceback — and the damaged file is left exactly as it was.

A few cases run as real ``harness`` processes (the process's promise: its exit code, nothing on
stdout, no traceback on stderr); the others run the same CLI in this process
(tests/clikit.py), each ~2 s of imports less.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from clikit import cli_here
from datasetkit import demo_indexed_home
from graphkit import INC

import diagnosis_harness.cli.main
from diagnosis_harness.runstore.store import RunStore

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tools" / "demo_data"
Q = INC["question"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the demo dataset indexed, and a run store and checkpoints with one run."""
    home = demo_indexed_home(tmp_path_factory.mktemp("template"))
    proc = _cli(home, home.parent, "diagnose", Q, "--json")
    assert proc.returncode == 0, proc.stderr
    for name in ("runs.sqlite", "checkpoints.sqlite"):  # everything in the main file, no WAL
        with sqlite3.connect(home / name) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    return home


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return env


def _cli(home: Path, cwd: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True, text=True,
                          env=_env(home, **extra), cwd=cwd, timeout=180)


def _cli_here(home: Path, cwd: Path, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str], *args: str,
              **extra: str) -> subprocess.CompletedProcess[str]:
    """:func:`_cli` in this process (tests/clikit.py): the same environment and folder."""
    return cli_here(monkeypatch, capsys, *args, cwd=cwd, env={"HARNESS_HOME": str(home), **extra})


def _ops(home: Path) -> Path:
    return next(home.glob("datasets/*/ops.sqlite"))


def _replace(path: Path, content: bytes | None) -> Path:
    """``path`` becomes a file holding ``content``, or a directory (None)."""
    if path.is_file():
        path.chmod(0o644)
        path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


def _truncate(path: Path) -> Path:
    data = path.read_bytes()
    return _replace(path, data[: len(data) // 2])


def _dataset(tmp: Path, logs: bytes | None) -> Path:
    data = tmp / "data"
    shutil.copytree(DEMO, data, ignore=shutil.ignore_patterns("truth.json"))
    _replace(data / "logs.jsonl", logs)
    return data


DEEP = b"[" * 100_000 + b"]" * 100_000

Case = Callable[[Path, Path], tuple[list[str], dict[str, str], Path | None, str]]
"""(home, tmp) → (extra CLI args, extra env, the damaged file to keep unchanged, what the line names)."""

CASES: dict[str, Case] = {
    "runs.sqlite not a database": lambda h, t: (
        [], {}, _replace(h / "runs.sqlite", b"not a database " * 100), "runs.sqlite"),
    "runs.sqlite truncated": lambda h, t: ([], {}, _truncate(h / "runs.sqlite"), "runs.sqlite"),
    "runs.sqlite a directory": lambda h, t: (
        [], {}, _replace(h / "runs.sqlite", None), "runs.sqlite"),
    "checkpoints.sqlite not a database": lambda h, t: (
        [], {}, _replace(h / "checkpoints.sqlite", b"x" * 5000), "checkpoints.sqlite"),
    "checkpoints.sqlite truncated": lambda h, t: (
        [], {}, _truncate(h / "checkpoints.sqlite"), "checkpoints.sqlite"),
    "checkpoints.sqlite a directory": lambda h, t: (
        [], {}, _replace(h / "checkpoints.sqlite", None), "checkpoints.sqlite"),
    "ops.sqlite not a database": lambda h, t: (
        [], {}, _replace(_ops(h), b"\0garbage" * 512), "ops.sqlite"),
    "ops.sqlite truncated": lambda h, t: ([], {}, _truncate(_ops(h)), "ops.sqlite"),
    "HARNESS_HOME a file": lambda h, t: (
        [], {"HARNESS_HOME": str(_replace(t / "home-file", b"x"))}, t / "home-file",
        "HARNESS_HOME"),
    ".env not UTF-8": lambda h, t: (
        [], {}, _replace(t / ".env", b"HARNESS_DEADLINE_S=\xff\xfe9\n"), ".env"),
    "logs.jsonl a directory": lambda h, t: (
        ["--data", str(_dataset(t, None))], {}, None, "logs.jsonl"),
    "logs.jsonl not UTF-8": lambda h, t: (
        ["--data", str(_dataset(t, b'{"ts": "\xff\xfe"}\n'))], {}, t / "data" / "logs.jsonl",
        "logs.jsonl"),
    "logs.jsonl nested too deeply": lambda h, t: (
        ["--data", str(_dataset(t, DEEP + b"\n"))], {}, t / "data" / "logs.jsonl", "logs.jsonl"),
    "replay file nested too deeply": lambda h, t: (
        ["--model", f"replay:{_replace(t / 'deep.json', DEEP)}"], {}, t / "deep.json",
        "deep.json"),
    "ops database URL unsupported": lambda h, t: (
        [], {"HARNESS_OPS_DB_URL": "mssql://nobody@nowhere/x"}, None, "ops_db_url"),
}


IN_A_PROCESS = frozenset({"runs.sqlite not a database", "logs.jsonl nested too deeply"})
"""The cases run as a real ``harness`` process: a store, and a parser's depth in a fresh one."""


def _one_line(proc: subprocess.CompletedProcess[str], names: str) -> str:
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("harness: ") and names in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_store_dataset_or_setting_is_one_line_and_exit_64(
        case: str, template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(template, home)
    args, env, damaged, names = CASES[case](home, tmp_path)
    before = damaged.read_bytes() if damaged is not None and damaged.is_file() else None
    command = ("diagnose", Q, "--json", *args)
    extra = {k: v for k, v in env.items() if k != "HARNESS_HOME"}
    where = Path(env.get("HARNESS_HOME", home))
    proc = (_cli(where, tmp_path, *command, **extra) if case in IN_A_PROCESS
            else _cli_here(where, tmp_path, monkeypatch, capsys, *command, **extra))
    assert proc.returncode == 64, proc.stderr
    assert proc.stdout == ""
    _one_line(proc, names)
    if before is not None:
        assert damaged is not None and damaged.read_bytes() == before  # never "repaired"


def test_a_question_that_is_not_utf8_gets_a_failed_run_row(template: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(template, home)
    question = "payment timeouts on payment-service \udcff why?"  # how a shell passes byte 0xff
    proc = subprocess.run([sys.executable, "-m", "diagnosis_harness", "diagnose", question, "--json"],
                          capture_output=True, env=_env(home), cwd=tmp_path, timeout=180)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    assert (out["release_outcome"], out["failure_code"]) == ("FAILED", "INVALID_INPUT")
    failure = next(e for e in out["events"] if e["event"] == "failure")
    assert "not valid UTF-8" in failure["message"]
    row = RunStore(home / "runs.sqlite").get_run(out["run_id"])
    assert (row["status"], row["failure_code"]) == ("FAILED", "INVALID_INPUT")


def test_an_internal_error_is_one_line_with_the_traceback_only_at_debug_level(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = textwrap.dedent("""
        import sys
        import diagnosis_harness.cli.main
        def broken(**kw):
            raise ZeroDivisionError("a bug")
        diagnosis_harness.cli.main.load_cli_settings = broken
        diagnosis_harness.cli.main.main(sys.argv[1:])
    """)
    run = [sys.executable, "-c", code]
    proc = subprocess.run([*run, "config"], capture_output=True, text=True, env=_env(tmp_path),
                          cwd=tmp_path, timeout=60)
    assert proc.returncode == 1
    line = _one_line(proc, "internal error: ZeroDivisionError: a bug")
    assert "--debug" in line
    # At debug level the traceback follows: the same patched CLI, in this process.
    def broken(**kw: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(diagnosis_harness.cli.main, "load_cli_settings", broken)
    for debug in (["--debug", "config"], ["config"]):
        extra = {} if debug[0] == "--debug" else {"HARNESS_LOG_LEVEL": "DEBUG"}
        proc = _cli_here(tmp_path, tmp_path, monkeypatch, capsys, *debug, **extra)
        assert proc.returncode == 1 and "Traceback" in proc.stderr, proc.stderr


def test_resume_of_an_unknown_run_is_one_line(template: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(template, home)
    proc = _cli_here(home, tmp_path, monkeypatch, capsys, "runs", "resume", "no-such-run")
    assert proc.returncode == 64
    _one_line(proc, "no run no-such-run in the run store at")


# --- filesystems: read-only, full (a tmpfs in a private mount namespace) ---------------------


def _namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "-r", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


SCRIPT = """
set -u
mnt=$1; tpl=$2; out=$3; q=$4; mode=$5
mount -t tmpfs -o size=64m tmpfs "$mnt" || exit 90
cp -r "$tpl" "$mnt/home"
run() {{
  HARNESS_HOME="$mnt/home" {python} -m diagnosis_harness diagnose "$q" --json >"$out/$1.out" 2>"$out/$1.err"
  echo $? >"$out/$1.rc"
}}
if [ "$mode" = ro ]; then
  mount -o remount,ro "$mnt"; run broken; mount -o remount,rw "$mnt"
else
  dd if=/dev/zero of="$mnt/fill" bs=1M 2>/dev/null; run broken; rm -f "$mnt/fill"
fi
run again
check="import sqlite3, sys; c = sqlite3.connect(sys.argv[1])
print(c.execute('PRAGMA integrity_check').fetchone()[0])"
for f in runs checkpoints; do
  {python} -c "$check" "$mnt/home/$f.sqlite" >"$out/$f.check"
done
"""


@pytest.mark.skipif(not _namespaces(), reason="needs unshare (a private mount namespace)")
@pytest.mark.parametrize("mode", ["ro", "full"])
def test_a_read_only_or_full_filesystem_is_one_line_and_the_store_survives(
        mode: str, template: Path, tmp_path: Path) -> None:
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    script = tmp_path / "fs.sh"
    script.write_text(SCRIPT.format(python=sys.executable))
    proc = subprocess.run(["unshare", "-m", "-r", "bash", str(script), str(mnt), str(template),
                           str(out), Q, mode], capture_output=True, text=True,
                          env=_env(template), cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    code = int((out / "broken.rc").read_text())
    broken = subprocess.CompletedProcess([], code, (out / "broken.out").read_text(),
                                         (out / "broken.err").read_text())
    assert code in (64, 2), broken.stderr
    line = _one_line(broken, str(mnt / "home"))
    if code == 2:  # the run had a row and failed: its output says why, the outcome stays honest
        assert json.loads(broken.stdout)["release_outcome"] == "FAILED"
    assert ("read-only" if mode == "ro" else "no space left") in line.lower(), line
    assert (out / "again.rc").read_text().strip() == "0", (out / "again.err").read_text()
    assert (out / "runs.check").read_text().strip() == "ok"
    assert (out / "checkpoints.check").read_text().strip() == "ok"


def test_the_server_start_maps_the_same_problems(template: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(template, home)
    _replace(home / "checkpoints.sqlite", b"x" * 5000)
    proc = _cli(home, tmp_path, "serve", "--port", "1")
    assert proc.returncode == 64
    _one_line(proc, "checkpoints.sqlite")

