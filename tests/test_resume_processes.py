"""Real ``harness`` processes that are killed, terminated, resumed and run side by side.

docs/design.md §9 and §12: a ``harness diagnose`` killed with SIGKILL is continued by
``harness runs resume RUN_ID`` (or by the next turn on its thread) without running a finished
tool call again, with its usage and its event numbering going on and exactly one terminal row;
SIGTERM is a cancel (CANCELLED row, exit 143, no ``done``); ten processes on one home each get
the outcome that their row, their events and their thread's final checkpoint say.

The kill-and-resume tests run on both stores: the home's SQLite files, and one PostgreSQL
database (``HARNESS_DATABASE_URL``: run store and checkpointer) that the killed process and the
one that resumes it share, with more kill points there (one after each tool record, some in the
middle of a tool call).

The killed processes run ``tests/slow_harness.py``: the real CLI with slow evidence tools that
count, in a file, every execution the backends really made.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from datasetkit import demo_indexed_home
from graphkit import INC, kinds

from diagnosis_harness.cli.signals import BEFORE_RUN
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.session.hooked import session_graph as build_graph
from diagnosis_harness.session.runner import open_checkpointer
from diagnosis_harness.session.services import run_store_location

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SLOW = REPO / "tests" / "slow_harness.py"
Q = INC["question"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the demo dataset indexed once; each test runs on its own copy."""
    return demo_indexed_home(tmp_path_factory.mktemp("template"))


@pytest.fixture()
def home(template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "home"
    shutil.copytree(template, dest)
    return dest


@dataclass(frozen=True)
class Site:
    """Where a test's processes keep their state: a home, and on PostgreSQL a database URL."""

    home: Path
    url: str | None = None
    """``HARNESS_DATABASE_URL`` of every process (run store and checkpointer); None: SQLite."""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
        env.update(HARNESS_HOME=str(self.home), PYTHONPATH=str(REPO))
        if self.url is not None:
            env["HARNESS_DATABASE_URL"] = self.url
        return env

    def store(self) -> RunStore:
        """The run store the processes use, opened as the CLI opens it for these settings."""
        return open_run_store(run_store_location(load_settings(home=self.home,
                                                                database_url=self.url)))


@pytest.fixture()
def site(db: str, home: Path, request: pytest.FixtureRequest) -> Site:
    """The test's home, and a fresh PostgreSQL database when it is parametrised with ``postgres``."""
    return Site(home, request.getfixturevalue("pg_url") if db == "postgres" else None)


def harness(site: Site, log: Path, *args: str, delay: float | str = 0.0,
            after: float | str = 0.0) -> subprocess.Popen[str]:
    """Start the CLI (with slow, counted tools) on ``site``; delays as ``slow_harness`` takes them."""
    return subprocess.Popen([sys.executable, str(SLOW), str(log), str(delay), str(after), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=site.env(), cwd=site.home.parent, preexec_fn=at_a_terminal)


def at_a_terminal() -> None:
    """In the child: SIGINT delivered as at a terminal's Ctrl-C.

    A suite started as a background job (``cmd &`` in a script) inherits SIGINT ignored, and so
    would every process it starts: the Ctrl-C tests would then test nothing but that.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def finish(proc: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


def executions(log: Path) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """How often each tool call id was started and finished by a backend, over every process."""
    lines = log.read_text(encoding="utf-8").split() if log.exists() else []
    pairs = list(zip(lines[::2], lines[1::2], strict=True))
    return (collections.Counter(i for kind, i in pairs if kind == "start"),
            collections.Counter(i for kind, i in pairs if kind == "end"))


def wait_for(condition: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if found := condition():
            return found
        time.sleep(0.05)  # the kill windows are 0.8 s; polling faster only takes CPU from them
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def reference(template: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same question run without interruption: what every resumed run must end with.

    It runs on SQLite; a run resumed on PostgreSQL must end the same way (same outcome, content,
    usage and tool calls): the store a run is kept in changes nothing about the run.
    """
    home = tmp_path_factory.mktemp("reference") / "home"
    shutil.copytree(template, home)
    code, out, _ = finish(harness(Site(home), home.parent / "count.log", "diagnose", Q, "--json"))
    assert code == 0
    result = json.loads(out)
    store = Site(home).store()
    result["tool_call_ids"] = [r["tool_call_id"]
                               for r in store.trace(result["run_id"])["tool_records"]]
    store.close()
    assert len(result["tool_call_ids"]) >= 6 and result["release_outcome"] == "SUCCESS"
    return result


def _kill_during(site: Site, log: Path, k: int, where: str, *args: str) -> tuple[str, list[str]]:
    """Run ``diagnose`` and SIGKILL it at the kill point; the run id and the calls it stored.

    ``after-record``: right after the k-th tool record was stored, before the node's checkpoint
    (the gate sleeps there); ``mid-tool``: while the (k+1)-th tool call runs, k stored. Only
    that call waits: the calls before it run at full speed.
    """
    delay, after = ((0.0, f"0.8@offline_{k}") if where == "after-record"
                    else (f"0.8@offline_{k + 1}", 0.0))
    proc = harness(site, log, "diagnose", Q, "--json", *args, delay=delay, after=after)
    store = site.store()
    try:
        run_id = wait_for(lambda: next((r["run_id"] for r in store.unfinished_runs()), None),
                          what="the run row")

        def stored() -> list[str]:
            return [r["tool_call_id"] for r in store.trace(run_id)["tool_records"]]

        if where == "after-record":
            wait_for(lambda: len(stored()) >= k, what=f"tool record {k}")
        else:
            wait_for(lambda: executions(log)[0][f"offline_{k + 1}"] >= 1,
                     what=f"tool call {k + 1} running")
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        kept = stored()
        assert len(kept) == k, kept  # the kill landed where it was meant to
        assert store.get_run(run_id)["finished_at"] is None  # left RUNNING by a dead worker
        # ... still leased to it: whoever continues must take the lease over, not wait it out.
        lease = store.unfinished_runs(run_id=run_id)[0]
        assert lease["lease_owner"].split(":")[1] == str(proc.pid)
        assert lease["lease_expires_ms"] > time.time() * 1000
        return run_id, kept
    finally:
        store.close()


def _check_continued(site: Site, log: Path, run_id: str, kept: list[str],
                     events_before: list[dict[str, Any]], reference: dict[str, Any]) -> None:
    store = site.store()
    row = store.get_run(run_id)
    trace = store.trace(run_id)
    started, ended = executions(log)
    assert row["release_outcome"] == reference["release_outcome"]
    assert row["content"] == reference["content"]
    assert row["usage"] == reference["usage"]  # usage went on from what the checkpoint held
    ids = [r["tool_call_id"] for r in trace["tool_records"]]
    assert ids == reference["tool_call_ids"]  # each call stored once, in order
    assert all(ended[i] == 1 for i in ids)  # no tool call finished twice
    assert all(started[i] == 1 for i in kept)  # what was stored before the kill never re-ran
    events = store.events(run_id)
    assert events[:len(events_before)] == events_before  # numbering went on
    assert kinds({"events": events}) == ["metadata", "status*", "content", "done"]
    assert sum(e["event"] == "done" for e in events) == 1
    assert store.unfinished_runs(row["thread_id"]) == []
    store.close()


SQLITE_KILL_POINTS = [(1, "after-record"), (2, "after-record"), (4, "after-record"), (2, "mid-tool")]
# On PostgreSQL: after the first, a middle and the last of the reference's 7 tool records, and in
# the middle of a tool call. (It swept all 7 records and 3 mid-call points, ~80 s of CI for points
# the store writes alike: a record and its checkpoint are the same two writes after any call.)
POSTGRES_KILL_POINTS = [(1, "after-record"), (4, "after-record"), (7, "after-record"),
                        (3, "mid-tool")]
KILL_POINTS = ([pytest.param("sqlite", k, w, id=f"sqlite-{w}-{k}") for k, w in SQLITE_KILL_POINTS]
               + [pytest.param("postgres", k, w, id=f"postgres-{w}-{k}")
                  for k, w in POSTGRES_KILL_POINTS])


@pytest.mark.parametrize(("db", "k", "where"), KILL_POINTS)
def test_a_killed_run_is_resumed_without_running_a_finished_tool_call_again(
        site: Site, reference: dict[str, Any], k: int, where: str) -> None:
    assert k <= len(reference["tool_call_ids"]) - (where == "mid-tool")  # a point the run reaches
    log = site.home.parent / "count.log"
    run_id, kept = _kill_during(site, log, k, where)
    store = site.store()
    events_before = store.events(run_id)
    store.close()
    code, out, err = finish(harness(site, log, "runs", "resume", run_id, "--json"))
    assert code == 0, err
    result = json.loads(out)
    assert (result["run_id"], result["release_outcome"]) == (run_id, "SUCCESS")
    assert result["usage"] == reference["usage"]
    _check_continued(site, log, run_id, kept, events_before, reference)
    # Counted at the backends, over both processes: every call ran once; only one cut short by
    # the kill (never stored) ran a second time.
    cut_short = [f"offline_{k + 1}"] if where == "mid-tool" else []
    assert executions(log)[0] == collections.Counter(reference["tool_call_ids"] + cut_short)
    store = site.store()
    assert store.events(run_id) == result["events"]  # what B emitted was numbered on from A's
    assert len(store.runs_for_thread(result["thread_id"])) == 1
    store.close()
    if (k, where) != (1, "after-record"):
        return
    # A second resume finds it finished: one line, exit 64.
    code, out, err = finish(harness(site, log, "runs", "resume", run_id))
    assert (code, out) == (64, "")
    assert err.strip().splitlines() == [f"harness: run {run_id} already finished: SUCCESS"]


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_a_run_left_running_by_a_dead_process_is_continued_by_the_next_turn_on_its_thread(
        site: Site, reference: dict[str, Any]) -> None:
    log = site.home.parent / "count.log"
    run_id, kept = _kill_during(site, log, 2, "after-record", "--thread", "T")
    store = site.store()
    events_before = store.events(run_id)
    store.close()
    code, out, err = finish(harness(site, log, "diagnose", "and what about M1002?", "--json",
                                    "--thread", "T"))
    assert code == 0, err
    assert f"run {run_id} of thread T was left running" in err
    _check_continued(site, log, run_id, kept, events_before, reference)
    store = site.store()
    rows = store.runs_for_thread("T")
    store.close()
    assert [r["run_id"] for r in rows] == [run_id, json.loads(out)["run_id"]]
    assert all(r["finished_at"] for r in rows)


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum`` (Linux: SigCgt)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signum - 1) & 1)


def stored_runs(home: Path) -> list[str]:
    """The run ids in the home's run store, read without creating it (none: no file, no table)."""
    path = home / "runs.sqlite"
    if not path.exists():
        return []
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return [run_id for (run_id,) in conn.execute("SELECT run_id FROM runs")]
    except sqlite3.OperationalError:  # the schema is not written yet
        return []
    finally:
        conn.close()


def _ended_by_signal(home: Path, proc: subprocess.Popen[str], signum: int,
                     code: int) -> dict[str, Any] | None:
    """Signal ``proc``, let it end; check what every cancel ends with; its row (or None)."""
    proc.send_signal(signum)
    got, out, err = finish(proc, timeout=60)
    assert (got, out) == (code, ""), err
    run_ids = stored_runs(home)
    if not run_ids:  # the request is not lost silently: the line says nothing was recorded
        assert err.splitlines() == ["harness: cancelled before the run started; nothing was recorded"]
        return None
    assert len(run_ids) == 1
    store = Site(home).store()
    row = store.get_run(run_ids[0])
    events = [e["event"] for e in store.events(row["run_id"])]
    store.close()
    assert (row["status"], row["run_state"], row["release_outcome"], row["content"]) == (
        "CANCELLED", "CANCELLED", "CANCELLED", None)
    assert "done" not in events and "content" not in events
    assert err.splitlines() == [f"harness: cancelled: run {row['run_id']} is CANCELLED, "
                                "nothing more is published"]
    return row


def test_sigterm_cancels_a_running_diagnosis(home: Path) -> None:
    log = home.parent / "count.log"
    proc = harness(Site(home), log, "diagnose", Q, "--json", delay=1.5)
    wait_for(lambda: executions(log)[0]["offline_1"], what="the first tool call")
    row = _ended_by_signal(home, proc, signal.SIGTERM, 143)
    assert row is not None
    store = Site(home).store()
    assert store.events(row["run_id"])[0]["event"] == "metadata"
    store.close()
    assert executions(log)[0]["offline_2"] == 0  # nothing was queried after the cancel


# Seconds after the process starts; the first tool call then sleeps longer than the last point,
# so every point lands before release whatever the machine's load (it only delays the run).
SIGNAL_POINTS = [0.05, 0.3, 1.0, 2.0, 4.0, 6.0]


@pytest.mark.parametrize("after", SIGNAL_POINTS)
def test_sigterm_at_any_moment_ends_143_with_no_row_or_a_cancelled_row(home: Path,
                                                                        after: float) -> None:
    """Issue 25: in the first seconds (imports, settings, services, run store) SIGTERM used to
    kill ``diagnose`` by the default handler: exit -15, no row, nothing said."""
    log = home.parent / "count.log"
    start = time.monotonic()
    proc = harness(Site(home), log, "diagnose", Q, "--json", delay=f"{SIGNAL_POINTS[-1] + 1}@offline_1")
    # Before its first line runs, no program can catch a signal (the interpreter starting):
    # the earliest point is the moment the process catches SIGTERM, however late load makes it.
    wait_for(lambda: catches(proc.pid, signal.SIGTERM), timeout=10, what="the SIGTERM handler")
    if after == SIGNAL_POINTS[0]:  # caught before the process opened anything of its home
        assert not [fd for fd in Path(f"/proc/{proc.pid}/fd").iterdir()
                    if str(home) in os.path.realpath(fd)]
    time.sleep(max(0.0, start + after - time.monotonic()))
    row = _ended_by_signal(home, proc, signal.SIGTERM, 143)
    if after == SIGNAL_POINTS[0]:
        assert row is None  # LangGraph alone takes longer to import than that


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_once_the_run_row_exists_settles_it_cancelled(home: Path, signum: int,
                                                               code: int) -> None:
    log = home.parent / "count.log"
    proc = harness(Site(home), log, "diagnose", Q, "--json", delay="5@offline_1")

    wait_for(lambda: stored_runs(home), what="the run row")
    assert _ended_by_signal(home, proc, signum, code) is not None


def test_a_signal_before_the_run_is_130_for_ctrl_c(home: Path) -> None:
    proc = harness(Site(home), home.parent / "count.log", "diagnose", Q, "--json")
    wait_for(lambda: catches(proc.pid, signal.SIGTERM), timeout=10, what="the SIGTERM handler")
    assert _ended_by_signal(home, proc, signal.SIGINT, 130) is None


@pytest.mark.parametrize("error, printed", [("RuntimeError('Event loop is closed')", False),
                                             ("ValueError('a real bug')", True)])
def test_a_worker_thread_answering_the_loop_a_signal_closed_prints_no_traceback(
        error: str, printed: bool) -> None:
    """CI caught it once: SIGTERM while the run store opened closed ``asyncio.run``'s loop, and
    aiosqlite's thread, answering late, died with a traceback under the one stop line."""
    code = ("import os, signal, threading, time; from diagnosis_harness.cli import signals; "
            "signals.install()\n"
            "try:\n    os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n"
            "except KeyboardInterrupt:\n    pass\n"
            f"def late():\n    raise {error}\n"
            "t = threading.Thread(target=late); t.start(); t.join()")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert ("Traceback" in shown.stderr) is printed, shown.stderr


def test_a_sigterm_a_library_wraps_in_its_own_error_still_ends_143_in_one_line() -> None:
    """CI caught it: SIGTERM while pydantic-core built ``Settings``' validators came out as
    ``SchemaError: … KeyboardInterrupt``, which ``except KeyboardInterrupt`` missed: a traceback."""
    code = ("import os, signal, sys, types\n"
            "def wrapping(argv):\n"
            "    try:\n        os.kill(os.getpid(), signal.SIGTERM)\n"
            "    except KeyboardInterrupt:\n"
            "        raise RuntimeError('Error building validator: KeyboardInterrupt: ') from None\n"
            "sys.modules['diagnosis_harness.cli.main'] = types.SimpleNamespace(main=wrapping)\n"
            "from diagnosis_harness.cli import entry\nentry.main(['diagnose', 'why?'])")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert (shown.returncode, shown.stderr) == (143, f"harness: {BEFORE_RUN}\n"), shown


def test_the_console_script_catches_sigterm_before_it_imports_the_cli() -> None:
    """What the entry point imports before its handler is in: nothing of typer or LangGraph."""
    code = ("import sys; from diagnosis_harness.cli import entry; entry.signals.install(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'typer', 'click', 'rich', 'pydantic', 'langgraph', 'langchain_core'}))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert shown.stdout.strip() == "[]"
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'harness = "diagnosis_harness.cli.entry:main"' in pyproject


def test_ten_processes_on_one_home_agree_on_every_run(home: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-m", "diagnosis_harness", "diagnose", Q, "--json",
                               "--thread", f"T{i}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=Site(home).env(),
                              cwd=home.parent)
             for i in range(10)]
    results = [finish(p, timeout=300) for p in procs]
    store = Site(home).store()

    async def checkpoints() -> dict[str, dict[str, Any]]:
        async with open_checkpointer(load_settings(home=home)) as saver:
            graph = build_graph(saver)
            return {f"T{i}": (await graph.aget_state({"configurable": {"thread_id": f"T{i}"}})).values
                    for i in range(10)}

    saved = asyncio.run(checkpoints())
    for i, (code, out, err) in enumerate(results):
        assert "locked" not in err, err
        result = json.loads(out)
        assert code == {"SUCCESS": 0, "FALLBACK": 0}.get(result["release_outcome"], 2), err
        assert result["release_outcome"] == "SUCCESS" and "checkpoint_error" not in result
        row = store.get_run(result["run_id"])
        for key in ("run_state", "release_outcome", "fallback_type", "failure_code", "content",
                    "usage"):
            assert row[key] == result[key], key
        assert store.events(result["run_id"]) == result["events"]
        state = saved[f"T{i}"]
        assert (state["run_id"], state["release_outcome"], state["content"]) == (
            result["run_id"], result["release_outcome"], result["content"])
    store.close()
