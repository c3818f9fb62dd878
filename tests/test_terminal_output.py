"""Control characters from data never reach the operator's terminal raw (issue 37, item 7).

Found from outside: a log line carrying ``ESC[H ESC[J`` wiped the report off the screen in
``harness diagnose`` and ``harness runs show``. Here the demo dataset's log lines carry a screen
wipe, a bell, a carriage return and a C1 CSI; the real CLI runs in a subprocess, and its stdout
and stderr bytes are read: the sequences are shown escaped (``\\x1b[H``), the ``--json`` values
still hold the data exactly as it was, and rich markup from data prints as text.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from graphkit import INC
from rich.console import Console

from diagnosis_harness.control.terminal_text import inert_markup, printable, printable_json

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tools" / "demo_data"
HOSTILE = "\x1b[H\x1b[J\x07\x9b31m[bold red]WIPED[/bold red]\x1b]0;owned\x07 "
RAW = (b"\x1b", b"\x07", b"\r", b"\xc2\x9b")  # ESC, BEL, CR, and U+009B (CSI) in UTF-8


def _hostile_dataset(root: Path) -> Path:
    data = root / "data"
    shutil.copytree(DEMO, data, ignore=shutil.ignore_patterns("truth.json"))
    lines = []
    for line in (data / "logs.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        event["message"] = HOSTILE + event["message"]
        lines.append(json.dumps(event))
    (data / "logs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def _cli(home: Path, data: Path | None, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=str(REPO))
    if data is not None:
        env["HARNESS_DATA_DIR"] = str(data)
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          env=env, cwd=home.parent, timeout=180)


def _holds(value: object, text: str) -> bool:
    """Some string in the JSON ``value`` holds ``text``."""
    if isinstance(value, dict):
        return any(_holds(v, text) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, text) for v in value)
    return isinstance(value, str) and text in value


def _no_raw_controls(output: bytes) -> None:
    found = [raw for raw in RAW if raw in output]
    assert not found, f"raw control bytes {found} reached the terminal"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("hostile")
    home, data = root / "home", _hostile_dataset(root)
    home.mkdir()
    proc = _cli(home, data, "diagnose", INC["question"], "--json")
    assert proc.returncode == 0, proc.stderr
    _no_raw_controls(proc.stdout)
    out = json.loads(proc.stdout)
    # --json keeps the data exact: the escape is JSON's, not a rewrite of the values
    assert _holds(out, "\x1b[H\x1b[J\x07") and _holds(out, "\x9b")
    return home, data, out["run_id"]


def test_diagnose_shows_the_data_escape_sequences_escaped(hostile_run: tuple[Path, Path, str]
                                                          ) -> None:
    home, data, _ = hostile_run
    proc = _cli(home, data, "diagnose", INC["question"])
    assert proc.returncode == 0, proc.stderr
    _no_raw_controls(proc.stdout)
    _no_raw_controls(proc.stderr)
    text = proc.stdout.decode("utf-8")
    assert text.startswith("[SUCCESS]\nRoot cause: ")  # the report is still there, whole
    assert r"\x1b[H\x1b[J\x07" in text and r"\x9b" in text  # and says what the data held


def test_runs_show_and_list_show_them_escaped(hostile_run: tuple[Path, Path, str]) -> None:
    home, _, run_id = hostile_run
    shown = _cli(home, None, "runs", "show", run_id)
    assert shown.returncode == 0, shown.stderr
    _no_raw_controls(shown.stdout)
    assert r"\x1b[H\x1b[J" in shown.stdout.decode("utf-8")
    as_json = _cli(home, None, "runs", "show", run_id, "--json")
    assert as_json.returncode == 0, as_json.stderr
    _no_raw_controls(as_json.stdout)
    assert _holds(json.loads(as_json.stdout), "\x1b[H\x1b[J")  # the data, exact
    listed = _cli(home, None, "runs", "list")
    assert listed.returncode == 0 and run_id[:8] in listed.stdout.decode("utf-8")
    _no_raw_controls(listed.stdout)


def test_a_usage_error_quoting_a_file_name_is_escaped(tmp_path: Path) -> None:
    source = tmp_path / "app\x1b[2J\x07.log"
    source.write_text("this is not a log line the harness can read\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    proc = _cli(home, None, "data", "import", str(source), "--into", str(tmp_path / "out"),
                "--no-load")
    assert proc.returncode == 64
    _no_raw_controls(proc.stderr)
    assert r"app\x1b[2J\x07.log" in proc.stderr.decode("utf-8")


def test_the_escapes_keep_text_readable_and_json_exact() -> None:
    text = "naïve 東京 tab\there\nnext line \x1b[31m \r \x00 \x7f \x85 \ud800"
    shown = printable(text)
    assert shown == ("naïve 東京 tab\there\nnext line \\x1b[31m \\r \\0 \\x7f \\x85 \\ud800")
    shown.encode("utf-8")  # a lone surrogate no longer breaks a UTF-8 stream
    value = {"message": text}
    encoded = printable_json(value, indent=1)
    assert json.loads(encoded) == value
    assert not any(ch in encoded for ch in "\x1b\r\x00\x7f\x85\ud800")


def test_rich_markup_from_data_is_inert() -> None:
    screen = io.StringIO()
    console = Console(file=screen, width=200, force_terminal=True, color_system="truecolor",
                      highlight=False)
    data = "[bold red]WIPED[/bold red] [link=https://evil.example]login[/link] \x1b[2J"
    console.print(f"[bold]harness:[/bold] {inert_markup(data)}")
    out = screen.getvalue()
    assert "\x1b[1m" in out  # the harness's own style, on a terminal
    assert "[bold red]WIPED[/bold red] [link=https://evil.example]login[/link] \\x1b[2J" in out
    assert "\x1b]8;" not in out and "\x1b[2J" not in out  # no hyperlink, no screen wipe
