"""A store that fails mid-run: the run ends FAILED / RUN_PERSISTENCE_FAILED, the next one works.

PostgreSQL: the server is stopped while the agent collects evidence (run store and checkpointer
both lose it), then started again. SQLite: the checkpointer's file is full mid-run (SQLite's own
"database or disk is full", through ``max_page_count``), then the next run has room again.
Either way the client gets ``failure`` and ``done`` with the classified code, nothing is
published without its row, no traceback is printed, and the next run succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from graphkit import FULL_RUN, INC, kinds, services_for
from pg import PgServer

import diagnosis_harness.checkpoints.savers
from diagnosis_harness.runstore.store import open_run_store
from diagnosis_harness.session.runner import open_checkpointer, run_turn
from diagnosis_harness.session.services import Services


def again(services: Services) -> Services:
    """The same settings and run store, with a fresh replay script for the next run."""
    return Services(settings=services.settings,
                    seam=services_for(Path(services.settings.home), FULL_RUN).seam,
                    backends=services.backends, dataset=services.dataset, store=services.store)


async def turn(services: Services, **kw: Any) -> dict[str, Any]:
    """One turn as the CLI runs it: the checkpointer the settings select, opened for the turn."""
    async with open_checkpointer(services.settings) as saver:
        kw.setdefault("on_event", None)
        hook = kw.pop("with_saver", None)
        if hook is not None:
            kw["on_event"] = hook(saver)
        return await run_turn(services, INC["question"], checkpointer=saver, **kw)


def assert_failed_classified(out: dict[str, Any], services: Services) -> None:
    assert (out["run_state"], out["release_outcome"], out["failure_code"]) == (
        "FAILED", "FAILED", "RUN_PERSISTENCE_FAILED"), out
    assert out["content"] is None
    assert kinds(out)[-2:] == ["failure", "done"]
    failure = [e for e in out["events"] if e["event"] == "failure"][0]
    assert failure["failure_code"] == "RUN_PERSISTENCE_FAILED"
    assert "could not be recorded" in failure["message"]
    row = services.store.get_run(out["run_id"])
    assert row is None or row["status"] != "SUCCESS"  # never a success without its row


def assert_no_traceback(caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out


@pytest.mark.slow
def test_postgres_stopped_mid_run_fails_it_classified_and_the_next_run_works(
        pg_server: PgServer, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    # Bounded waits, so the test does not sit out the production ones (15 s each).
    monkeypatch.setattr(diagnosis_harness.checkpoints.savers, "CONNECTION_WAIT_S", 1.0)
    store = open_run_store(pg_url, retry_s=1.0)
    services = services_for(tmp_path / "home", FULL_RUN, database_url=pg_url)
    services = Services(settings=services.settings, seam=services.seam, backends=services.backends,
                        dataset=services.dataset, store=store)
    stopped: list[bool] = []

    def on_event(event: dict[str, Any]) -> None:
        if event.get("phase") == "collecting evidence" and not stopped:
            stopped.append(True)
            pg_server.stop()

    caplog.set_level(logging.WARNING)
    try:
        failed = asyncio.run(turn(services, on_event=on_event))
    finally:
        pg_server.start()
    assert stopped
    assert_failed_classified(failed, services)
    assert_no_traceback(caplog, capfd)

    after = asyncio.run(turn(again(services)))  # the server is back: same store, new checkpointer
    assert (after["release_outcome"], after["failure_code"]) == ("SUCCESS", None)
    assert store.get_run(after["run_id"])["status"] == "SUCCESS"
    assert store.events(after["run_id"]) == after["events"]


def test_a_full_sqlite_checkpointer_fails_the_run_classified_and_the_next_run_works(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        capfd: pytest.CaptureFixture[str]) -> None:
    services = services_for(tmp_path / "home", FULL_RUN)
    tasks: list[asyncio.Task[Any]] = []

    def fill_up(saver: Any) -> Any:
        def on_event(event: dict[str, Any]) -> None:
            if event.get("phase") == "collecting evidence" and not tasks:
                # No page more for this connection: SQLite answers "database or disk is full".
                tasks.append(asyncio.get_running_loop().create_task(
                    saver.conn.execute("PRAGMA max_page_count = 1")))
        return on_event

    caplog.set_level(logging.WARNING)
    failed = asyncio.run(turn(services, with_saver=fill_up))
    assert tasks
    assert_failed_classified(failed, services)
    assert "full" in [e for e in failed["events"] if e["event"] == "failure"][0]["message"]
    assert services.store.get_run(failed["run_id"])["status"] == "FAILED"  # the run store had room
    assert_no_traceback(caplog, capfd)

    after = asyncio.run(turn(again(services)))
    assert (after["release_outcome"], after["failure_code"]) == ("SUCCESS", None)
    assert services.store.get_run(after["run_id"])["status"] == "SUCCESS"
