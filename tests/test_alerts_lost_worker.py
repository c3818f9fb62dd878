"""A worker killed with -9 loses no alert group: the survivor investigates each again, once.

Two real ``harness serve`` processes share one run store (a SQLite home, or PostgreSQL). The
victim's model (a local OpenAI-compatible stub) holds every answer, so its investigations are in
flight when the server process running them (the lease owner of their rows) is killed with
SIGKILL, with its process group. Alertmanager then re-sends the
groups' notifications to the survivor: each must start a new run (not be answered ``duplicate``
for ever), and each group's outcome must be posted exactly once (the lost run's queued posts
never go out). The figures — posts, duplicates, groups lost — are printed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer
from stub_openai import StubOpenAI
from test_alert_intake import Receiver, am_payload
from test_alerts_served import TOKEN, eventually, post

from diagnosis_harness.runstore.store import RunStore, open_run_store

pytestmark = pytest.mark.slow
GROUPS = 6


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _env(store_url: str | None, home: Path, receiver: Receiver) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(home), HARNESS_ALERTS_TOKEN=TOKEN,
               HARNESS_NOTIFY_URL=f"{receiver.url}/hook", NO_PROXY="127.0.0.1,localhost")
    if store_url:
        env["HARNESS_DATABASE_URL"] = store_url
    return env


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_a_killed_workers_alert_groups_are_investigated_again_by_the_survivor_once_each(
        where: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store_url = request.getfixturevalue("pg_url") if where == "postgres" else None
    home = tmp_path / "home"  # on SQLite both workers share it: one runs.sqlite
    receiver = Receiver()
    tag = uuid.uuid4().hex[:8]
    docs = [am_payload(key=f"{{}}:{{alertname=\"PaymentErrors\",g=\"{tag}-{i}\"}}")
            for i in range(GROUPS)]
    try:
        with StubOpenAI(responder=lambda body: {"delay": 60.0, "content": "{}"}) as stub:
            victim_env = {**_env(store_url, home, receiver), "HARNESS_MODEL": "openai:stub-model",
                          "OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "test-key"}
            victim = DevServer(tmp_path / "victim", victim_env).start()
            try:
                first = [post(f"{victim.url}/alerts/alertmanager", json.dumps(d).encode())[1]
                         for d in docs]
                assert [a["action"] for a in first] == ["started"] * GROUPS, first
                store = open_run_store(store_url or home / "runs.sqlite")
                # Its runs are investigating (rows written, model calls hanging) or queued (the
                # server runs a few at a time: those never got a row) …
                def owned() -> list[dict[str, Any]]:
                    return [lease for a in first for lease in
                            store.unfinished_runs(run_id=a["run_id"]) if lease["lease_owner"]]

                eventually(lambda: len(owned()) >= 2, 60)
                time.sleep(1.0)
                leases = owned()
                assert not any(store.get_run(a["run_id"]) and store.get_run(a["run_id"])[
                    "finished_at"] for a in first)  # none ended before the kill
                owners = {lease["lease_owner"] for lease in leases}
                assert len(owners) == 1  # host:pid:start-token of the server process running them
                worker = int(owners.pop().split(":")[1])
                print(f"\nkilled with {len(leases)} runs investigating and "
                      f"{sum(1 for a in first if store.get_run(a['run_id']) is None)} queued")
                os.killpg(os.getpgid(worker), signal.SIGKILL)  # … when the worker dies
                eventually(lambda: not _alive(worker), 10)
            finally:
                victim.stop()
            with DevServer(tmp_path / "survivor",
                           {**_env(store_url, home, receiver), "HARNESS_MODEL": "offline"}
                           ) as survivor:
                again = [post(f"{survivor.url}/alerts/alertmanager", json.dumps(d).encode())[1]
                         for d in docs]
                assert [a["action"] for a in again] == ["started"] * GROUPS, again
                assert {a["thread_id"] for a in again} == {a["thread_id"] for a in first}
                new_runs = {a["run_id"] for a in again}
                eventually(lambda: len({p["body"]["run_id"] for p in receiver.posts}) >= GROUPS,
                           120)
                time.sleep(4)  # further delivery rounds and resends post nothing more
                for d in docs:  # Alertmanager's repeat: the group's new run answered it
                    assert post(f"{survivor.url}/alerts/alertmanager",
                                json.dumps(d).encode())[1]["action"] == "duplicate"
                per_group = Counter(p["body"]["alert"]["group_key"] for p in receiver.posts)
                posts = sum(per_group.values())
                duplicates = sum(n - 1 for n in per_group.values() if n > 1)
                lost = sum(1 for d in docs if per_group[d["groupKey"]] == 0)
                print(f"\n{where}: groups {GROUPS}, posts {posts}, duplicates {duplicates}, "
                      f"groups lost {lost}")
                assert (posts, duplicates, lost) == (GROUPS, 0, 0)
                assert {p["body"]["run_id"] for p in receiver.posts} == new_runs
                with_rows = {lease["run_id"] for lease in leases}
                for a in first:  # the lost runs post nothing; those that had begun end FAILED
                    assert [p["state"] for p in store.posts(a["run_id"])] == ["SKIPPED"]
                    if a["run_id"] in with_rows:
                        row = eventually(lambda a=a: (r := store.get_run(a["run_id"]))
                                         and r["finished_at"] and r, 30)
                        assert row["failure_code"] == "RUN_ABANDONED"
                store.close()
    finally:
        receiver.close()


def test_a_claim_whose_worker_died_before_its_run_had_a_row_is_claimable_again(
        tmp_path: Path) -> None:
    """The window between the claim and the run's first node: a worker that dies there leaves a
    group ACTIVE with a run id that never gets a row."""
    from test_alert_intake import FakeServer, send

    from diagnosis_harness.control.settings import load_settings
    from diagnosis_harness.serving.alerts import Intake

    path = tmp_path / "runs.sqlite"
    doc = am_payload()
    script = f"""
import asyncio, json, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.runstore.store import open_run_store
from diagnosis_harness.serving.alert_payload import parse_alertmanager
from diagnosis_harness.serving.alerts import Intake

async def start(thread_id, question):
    return "run-that-never-started"  # the server accepted it; the worker dies before it runs

async def cancel(thread_id, run_id):
    pass

store = open_run_store({str(path)!r})
group = parse_alertmanager({json.dumps(doc).encode()!r})
print(asyncio.run(Intake(load_settings(), store, start, cancel).handle(group))["action"])
"""
    dead = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert dead.stdout.strip() == "started", dead.stderr[-2000:]
    store = RunStore(path)
    try:
        server = FakeServer(store)
        intake = Intake(load_settings(), store, server.start, server.cancel)
        answer: dict[str, Any] = send(intake, doc)
        assert answer["action"] == "started" and answer["run_id"] == server.started[0]
        assert store.alert_group(doc["groupKey"])["run_id"] == server.started[0]
    finally:
        store.close()


def _dead_worker() -> str:
    """The worker id (``host:pid:start-token``) of a process that has exited."""
    ran = subprocess.run([sys.executable, "-c", "from diagnosis_harness.runstore.worker import "
                          "worker_id; print(worker_id())"], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.strip()


def test_the_sweep_settles_a_lost_group_its_run_and_its_posts_and_leaves_live_ones(
        tmp_path: Path) -> None:
    """Without any further notification: the deliverer's sweep releases the group whose run's
    worker died (claimable, posts SKIPPED, run FAILED / RUN_ABANDONED) and leaves alone a run a
    live worker holds and a run paused with no holder (awaiting approval)."""
    from test_alert_intake import FakeServer, send

    from diagnosis_harness.control.settings import load_settings
    from diagnosis_harness.notify.deliver import Deliverer
    from diagnosis_harness.runstore.worker import worker_id
    from diagnosis_harness.serving.alerts import Intake

    store = open_run_store(tmp_path / "runs.sqlite")
    try:
        settings = load_settings(notify_url="http://127.0.0.1:9/hook")
        server = FakeServer(store)
        intake = Intake(settings, store, server.start, server.cancel)
        lost, live, paused = (send(intake, am_payload(key=f"{{}}:{{g=\"{name}\"}}"))
                              for name in ("lost", "live", "paused"))
        assert store.claim_run(lost["run_id"], _dead_worker(), 60)
        assert store.claim_run(live["run_id"], worker_id(), 60)
        assert Deliverer(store, settings).sweep() == [lost["group_key"]]
        group = store.alert_group(lost["group_key"])
        assert (group["state"], group["firing"]) == ("DONE", None)
        assert [p["state"] for p in store.posts(lost["run_id"])] == ["SKIPPED"]
        row = store.get_run(lost["run_id"])
        assert (row["release_outcome"], row["failure_code"]) == ("FAILED", "RUN_ABANDONED")
        for kept in (live, paused):
            assert store.alert_group(kept["group_key"])["state"] == "ACTIVE"
            assert store.get_run(kept["run_id"])["finished_at"] is None
            assert [p["state"] for p in store.posts(kept["run_id"])] == ["WAITING"]
        assert send(intake, am_payload(key=lost["group_key"]))["action"] == "started"
        assert send(intake, am_payload(key=live["group_key"]))["action"] == "duplicate"
    finally:
        store.close()
