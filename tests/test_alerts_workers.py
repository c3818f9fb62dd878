"""Two real servers on one PostgreSQL: one alert group, sent to both at once → one run, one post.

Each ``harness serve`` has its own in-memory LangGraph runtime; what they share is the run store
and checkpointer on PostgreSQL, where the alert group's row decides who starts the run and the
outbox's lease decides who posts it.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer
from test_alert_intake import Receiver, am_payload
from test_alerts_served import TOKEN, eventually, post

from diagnosis_harness.runstore.store import open_run_store
from diagnosis_harness.serving.alert_payload import THREAD_SECRET_FILE, thread_secret

pytestmark = pytest.mark.slow


def test_two_workers_on_one_postgres_start_one_run_and_post_once(pg_url: str, tmp_path: Path
                                                                 ) -> None:
    receiver = Receiver()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_MODEL="offline", HARNESS_ALERTS_TOKEN=TOKEN, HARNESS_DATABASE_URL=pg_url,
               HARNESS_NOTIFY_URL=f"{receiver.url}/hook", NO_PROXY="127.0.0.1,localhost")
    doc = am_payload(key=f"{{}}:{{alertname=\"PaymentErrors\",t=\"{uuid.uuid4().hex}\"}}")
    # Replicas sharing a run store share the secret of alert thread ids (docs/alerts.md).
    secret = thread_secret(tmp_path / "home-a")
    (tmp_path / "home-b").mkdir()
    (tmp_path / "home-b" / THREAD_SECRET_FILE).write_text(secret)
    try:
        with DevServer(tmp_path / "a", {**env, "HARNESS_HOME": str(tmp_path / "home-a")}) as a, \
                DevServer(tmp_path / "b", {**env, "HARNESS_HOME": str(tmp_path / "home-b")}) as b:
            barrier = threading.Barrier(10)
            answers: list[tuple[int, dict[str, Any]]] = []

            def send(i: int) -> None:
                barrier.wait()
                server = (a, b)[i % 2]
                answers.append(post(f"{server.url}/alerts/alertmanager", json.dumps(doc).encode()))

            threads = [threading.Thread(target=send, args=(i,)) for i in range(10)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            assert sorted(a["action"] for _, a in answers) == ["duplicate"] * 9 + ["started"]
            assert {s for s, _ in answers} == {202}
            run_id = next(a["run_id"] for _, a in answers if a["action"] == "started")
            store = open_run_store(pg_url)
            try:
                eventually(lambda: (r := store.get_run(run_id)) and r["finished_at"])
                eventually(lambda: receiver.posts, 30)
                time.sleep(4)  # both deliverers poll every second: neither posts again
                assert [p["body"]["run_id"] for p in receiver.posts] == [run_id]
                assert {a["thread_id"] for _, a in answers} == {answers[0][1]["thread_id"]}
                assert len(store.runs_for_thread(answers[0][1]["thread_id"])) == 1
                assert [p["state"] for p in store.posts(run_id)] == ["SENT"]
            finally:
                store.close()
    finally:
        receiver.close()
