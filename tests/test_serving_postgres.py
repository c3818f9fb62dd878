"""The served graph on PostgreSQL: ``harness serve`` with ``HARNESS_DATABASE_URL``, and a server
that brings its own checkpointer (``langgraph.server.json``) with the shared run store.

Both run the real ``langgraph dev`` server with the offline investigator on the demo data and
are driven through the SDK. With the harness's checkpointer the server finds every cleanup method
it asks for (no warning about ``aprune`` or ``adelete_for_runs``) and a finished run leaves one
checkpoint; with the server's own checkpointer the graph still keeps its rows in the shared store
and blocks nothing on the server's event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import servekit
from devserver import DevServer
from graphkit import INC
from langgraph_sdk import get_client
from pg import PgServer

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.session.runner import open_checkpointer

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CLEANUP_WARNINGS = ("missing adelete_thread", "missing adelete_for_runs", "missing aprune")


@pytest.fixture(scope="module")
def database(pg_server: PgServer) -> Iterator[str]:
    with pg_server.database() as url:
        yield url


def server_env(home: Path, url: str) -> dict[str, str]:
    return servekit.server_env(home, HARNESS_DATABASE_URL=url)


async def diagnose(url: str) -> tuple[str, str, list[dict[str, Any]], dict[str, Any]]:
    """One turn on a new thread, as a client streams it: (thread, run id, events, final state)."""
    client = get_client(url=url)
    thread = str((await client.threads.create())["thread_id"])
    run_id, events, final = "", [], {}
    async for part in client.runs.stream(thread, "diagnosis", input={"question": INC["question"]},
                                         stream_mode=["custom", "values"]):
        if part.event == "metadata":
            run_id = part.data["run_id"]
        elif part.event == "custom":
            events.append(part.data)
        elif part.event == "values":
            final = part.data
    return thread, run_id, events, final


def stored_events(store: RunStore, run_id: str, count: int) -> list[dict[str, Any]]:
    """The run's trace once every event landed (the server writes it just after streaming)."""
    deadline = time.monotonic() + 10
    while len(events := store.events(run_id)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return events


def test_harness_serve_keeps_rows_and_checkpoints_in_postgres_with_no_cleanup_warning(
        database: str, tmp_path: Path) -> None:
    # The server keeps a thread's history for Studio unless told otherwise: here it is told.
    env = {**server_env(tmp_path / "home", database), "HARNESS_CHECKPOINT_RETENTION": "latest"}
    with DevServer(tmp_path / "cwd", env) as server:
        thread, run_id, events, final = asyncio.run(diagnose(server.url))
        log = server.log()
    assert final["release_outcome"] == "SUCCESS" and final["run_id"] == run_id
    store = open_run_store(database)
    row = store.get_run(run_id)
    assert row is not None and (row["thread_id"], row["status"]) == (thread, "SUCCESS")
    assert stored_events(store, run_id, len(events)) == events
    assert "Using custom checkpointer: PostgresCheckpointer" in log
    assert not [w for w in CLEANUP_WARNINGS if w in log], log[-3000:]

    async def kept() -> list[Any]:  # the server's checkpoints, in the same database
        async with open_checkpointer(load_settings(database_url=database)) as saver:
            return [c async for c in saver.alist({"configurable": {"thread_id": thread}})]

    [latest] = asyncio.run(kept())
    assert latest.checkpoint["channel_values"]["release_outcome"] == "SUCCESS"


def test_a_server_with_its_own_checkpointer_serves_the_graph_on_the_shared_run_store(
        database: str, tmp_path: Path) -> None:
    config = ("--config", str(REPO / "langgraph.server.json"))
    with DevServer(tmp_path / "cwd", server_env(tmp_path / "home", database), args=config) as server:
        thread, run_id, events, final = asyncio.run(diagnose(server.url))
        log = server.log()
    assert "custom checkpointer" not in log  # the server's own
    assert "Blocking call" not in log and "BlockingError" not in log, log[-3000:]
    assert final["release_outcome"] == "SUCCESS"
    store = open_run_store(database)
    row = store.get_run(run_id)
    assert row is not None and (row["thread_id"], row["status"]) == (thread, "SUCCESS")
    assert stored_events(store, run_id, len(events)) == events
