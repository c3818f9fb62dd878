"""``HARNESS_DATABASE_URL`` on the command line: one setting moves run store and checkpoints.

A diagnosis and its follow-up on PostgreSQL (two CLI invocations: any worker may take the thread
on), ``harness prune``, and the start-up errors: a URL that is not PostgreSQL, or a server that
does not answer, is one line and exit 64 for every command, never a traceback or a password.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from graphkit import INC

from diagnosis_harness.cli.main import EXIT_USAGE, main
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import open_run_store
from diagnosis_harness.session.runner import open_checkpointer

UNREACHABLE = "postgresql://harness:s3cret@127.0.0.1:1/harness"


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    captured = capsys.readouterr()
    return int(exit_.value.code or 0), captured.out, captured.err


def test_a_diagnosis_and_its_follow_up_keep_rows_and_thread_in_postgres(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HARNESS_DATABASE_URL", pg_url)
    code, out, _ = cli(["diagnose", INC["question"], "--thread", "shared", "--json"], capsys)
    first = json.loads(out)
    assert (code, first["release_outcome"]) == (0, "SUCCESS")
    # Another invocation (another worker) continues the thread from the shared checkpoints.
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "another-home"))
    code, out, _ = cli(["diagnose", "and what changed right before?", "--thread", "shared", "--json"],
                       capsys)
    second = json.loads(out)
    assert code == 0
    store = open_run_store(pg_url)
    assert [r["run_id"] for r in store.runs_for_thread("shared")] == [first["run_id"], second["run_id"]]
    assert store.get_run(first["run_id"])["status"] == "SUCCESS"

    async def thread() -> list[Any]:
        async with open_checkpointer(load_settings(database_url=pg_url)) as saver:
            return [c async for c in saver.alist({"configurable": {"thread_id": "shared"}})]

    [latest] = asyncio.run(thread())
    values = latest.checkpoint["channel_values"]
    assert values["run_id"] == second["run_id"]
    assert values["previous_turn"].startswith(f"Question: {INC['question']}")  # turn 1, verified

    code, out, err = cli(["prune", "--older-than", "7d"], capsys)
    assert (code, err) == (0, "") and out.startswith("pruned 0 runs")
    code, out, _ = cli(["config"], capsys)
    assert json.loads(out)["database_url"] == "**********"  # never the password


@pytest.mark.parametrize("command", [["diagnose", "why?"], ["serve", "--port", "0"],
                                     ["prune", "--older-than", "7d"]])
@pytest.mark.parametrize(("url", "says"), [
    ("mysql://harness:s3cret@db/harness", "must be a postgresql://"),
    ("postgresql://harness:s3cret@127.0.0.1:abc/harness", "port that is not a number"),
    (UNREACHABLE, "is not reachable"),
])
def test_a_bad_or_unreachable_database_is_one_line_and_exit_64(
        command: list[str], url: str, says: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HARNESS_DATABASE_URL", url)
    started = time.monotonic()
    code, out, err = cli(command, capsys)
    assert code == EXIT_USAGE
    assert time.monotonic() - started < 10  # at once: nothing is retried at start
    assert says in err and "Traceback" not in err and out == ""
    assert len(err.strip().splitlines()) == 1 and "s3cret" not in err
