"""A dataset reads only regular files inside its folder: links out, FIFOs and devices are refused.

``knowledge/x.md -> /proc/self/environ`` once published the process environment (the API key)
in a FALLBACK. Every dataset reader (logs, tables, knowledge, dataset.json) and ``harness data
import`` refuse, before opening anything, a symbolic link that resolves outside the folder and
any FIFO, device or socket: one line naming the file, exit 64 at the CLI, ConfigurationError
from the API, never a hang. A link to another file inside the folder stays allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources

REPO = Path(__file__).resolve().parents[1]
LEAK = "sk-environ-LEAK-4711"
"""In the environment of every CLI run here: it must never reach any output."""
Q = "payment timeouts on payment-service since 10:00, why?"


def _dataset(tmp_path: Path) -> Path:
    src = tmp_path / "ds"
    shutil.copytree(demo_dataset_dir(), src)
    return src


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO), OPENAI_API_KEY=LEAK)
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)


def _fifo(path: Path) -> Path:
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def _link(path: Path, target: Path | str) -> Path:
    path.unlink(missing_ok=True)
    path.symlink_to(target)
    return path


CASES = {
    "environ in knowledge": (lambda s: _link(s / "knowledge" / "x.md", "/proc/self/environ"),
                             "knowledge/x.md: a symbolic link to /proc/"),
    "a file outside": (lambda s: _link(s / "knowledge" / "notes.md", s.parent / "outside.md"),
                       "knowledge/notes.md: a symbolic link to "),
    "a FIFO as logs.jsonl": (lambda s: _fifo(s / "logs.jsonl"),
                             "logs.jsonl: a FIFO (named pipe), not a regular file"),
    "/dev/zero as a table": (lambda s: _link(s / "tables" / "zero.csv", "/dev/zero"),
                             "tables/zero.csv: a symbolic link to /dev/zero"),
    "a folder linked out": (lambda s: (shutil.rmtree(s / "knowledge"),
                                       _link(s / "knowledge", s.parent / "elsewhere")),
                            "knowledge: a symbolic link to "),
    "a FIFO as a runbook": (lambda s: _fifo(s / "knowledge" / "pipe.md"),
                            "knowledge/pipe.md: a FIFO"),
    "a FIFO as dataset.json": (lambda s: _fifo(s / "dataset.json"), "dataset.json: a FIFO"),
}


@pytest.fixture
def outside(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text(f"# Secret\n\n{LEAK}\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.md").write_text(f"# S\n\n{LEAK}\n", encoding="utf-8")


@pytest.mark.parametrize("case", list(CASES))
def test_a_link_out_or_a_special_file_is_refused_at_load_naming_it(
        case: str, tmp_path: Path, outside: None) -> None:
    make, expected = CASES[case]
    src = _dataset(tmp_path)
    make(src)
    with pytest.raises(DatasetError) as refused:
        load_dataset(src, tmp_path / "build")
    assert refused.value.problems[0].startswith(expected), refused.value.problems
    assert not (tmp_path / "build").exists()


@pytest.mark.slow
@pytest.mark.parametrize("case", ["environ in knowledge", "a FIFO as logs.jsonl",
                                  "/dev/zero as a table"])
def test_the_cli_refuses_in_one_line_with_exit_64_and_never_hangs(
        case: str, tmp_path: Path, outside: None) -> None:
    make, expected = CASES[case]
    src = _dataset(tmp_path)
    make(src)
    for args in (["data", "load", str(src)], ["diagnose", Q, "--data", str(src), "--json"]):
        proc = _cli(tmp_path, *args)  # a FIFO that were opened would block: timeout fails
        assert proc.returncode == 64, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and expected in proc.stderr
        assert LEAK not in proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1  # diagnose: one line naming the file


def test_the_api_raises_a_configuration_error(tmp_path: Path) -> None:
    from diagnosis_harness import ConfigurationError, diagnose

    src = _dataset(tmp_path)
    _link(src / "knowledge" / "x.md", "/proc/self/environ")
    with pytest.raises(ConfigurationError, match="knowledge/x.md: a symbolic link"):
        diagnose(Q, data=src, home=tmp_path / "home", model="offline")


def test_a_link_inside_the_folder_stays_allowed(tmp_path: Path) -> None:
    src = _dataset(tmp_path)
    (src / "common").mkdir()
    (src / "common" / "pool.md").write_text("# Pool sizing\n\nKeep max_size at 50.\n",
                                            encoding="utf-8")
    _link(src / "knowledge" / "pool-sizing.md", "../common/pool.md")
    _link(src / "tables" / "payments_copy.csv", src / "tables" / "payments.csv")
    report = load_dataset(src, tmp_path / "build")
    assert "payments_copy" in report.info.tables
    assert report.info.passages > 0


def test_import_refuses_special_files_and_links_out_of_a_source_folder(tmp_path: Path) -> None:
    into = tmp_path / "into"
    pipe = _fifo(tmp_path / "app.log")
    with pytest.raises(DatasetError, match="app.log: a FIFO"):
        import_sources([pipe], into, ImportOptions())
    with pytest.raises(DatasetError, match="/dev/zero: a character device"):
        import_sources([Path("/dev/zero")], into, ImportOptions())
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "ok.log").write_text("2026-11-02T10:00:00Z ERROR pool exhausted\n",
                                   encoding="utf-8")
    _link(folder / "runbook.md", "/proc/self/environ")
    with pytest.raises(DatasetError) as refused:
        import_sources([folder], into, ImportOptions())
    assert refused.value.problems[0].startswith(f"{folder / 'runbook.md'}: a symbolic link to ")
    _fifo(folder / "runbook.md")
    with pytest.raises(DatasetError, match="runbook.md: a FIFO"):
        import_sources([folder], into, ImportOptions())
    assert not into.exists()
