"""Alert intake on the real ``langgraph dev`` server: the routes, the background run, one post.

One server for the module (``harness serve``, the offline investigator on the demo dataset,
``HARNESS_ALERTS_TOKEN`` set, the outcome posted to a local receiver). Each test uses its own
alert group, so runs never mix.
"""

from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from devserver import DevServer
from servekit import eventually, server_env
from test_alert_intake import Receiver, am_payload

from diagnosis_harness.runstore.store import RunStore

pytestmark = pytest.mark.slow
TOKEN = "alert-secret-" + uuid.uuid4().hex[:8]


@dataclass
class Served:
    server: DevServer
    receiver: Receiver
    store: RunStore


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("alerts")
    home = work / "home"
    receiver = Receiver()
    env = server_env(home, HARNESS_MODEL="offline", HARNESS_ALERTS_TOKEN=TOKEN,
                     HARNESS_NOTIFY_URL=f"{receiver.url}/hook")
    try:
        with DevServer(work / "cwd", env) as server:
            yield Served(server, receiver, RunStore(home / "runs.sqlite"))
    finally:
        receiver.close()


def post(url: str, data: bytes, auth: str | None = f"Bearer {TOKEN}") -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = auth
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_a_notification_sent_ten_times_starts_one_run_and_posts_its_outcome_once(
        served: Served) -> None:
    url = f"{served.server.url}/alerts/alertmanager"
    doc = am_payload(key=f"{{}}:{{alertname=\"PaymentErrors\",t=\"{uuid.uuid4().hex}\"}}",
                     summary="payment-service 5xx above 5 %")
    began = time.monotonic()
    status, first = post(url, json.dumps(doc).encode())
    assert status == 202 and first["action"] == "started", first
    assert time.monotonic() - began < 1.0
    basic = "Basic " + base64.b64encode(f"am:{TOKEN}".encode()).decode()
    repeats = [post(url, json.dumps(doc).encode(), auth=basic if i % 2 else f"Bearer {TOKEN}")
               for i in range(9)]
    assert {(s, a["action"], a["thread_id"]) for s, a in repeats} == \
        {(202, "duplicate", first["thread_id"])}
    run = eventually(lambda: (r := served.store.get_run(first["run_id"])) and r["finished_at"] and r)
    assert run["thread_id"] == first["thread_id"] and "PaymentErrors" in run["question"]
    hook = eventually(lambda: [p for p in served.receiver.posts
                               if p["body"]["run_id"] == first["run_id"]])
    assert hook[0]["body"]["release_outcome"] == run["release_outcome"]
    for _ in range(3):  # Alertmanager's repeat_interval resend after the run finished
        assert post(url, json.dumps(doc).encode())[1]["action"] == "duplicate"
    time.sleep(3)  # several delivery rounds
    assert len([p for p in served.receiver.posts if p["body"]["run_id"] == first["run_id"]]) == 1
    assert len(served.store.runs_for_thread(first["thread_id"])) == 1


def stored(served: Served) -> tuple[int, int, int]:
    """Rows of alert groups, outbox and runs: what a notification could have left behind."""
    from sqlalchemy import func, select

    from diagnosis_harness.runstore.schema import alert_groups, outbox, runs

    def count(conn: Any) -> tuple[int, int, int]:
        return tuple(int(conn.execute(select(func.count()).select_from(t)).scalar() or 0)
                     for t in (alert_groups, outbox, runs))  # type: ignore[return-value]

    return served.store._db.run(count, "count rows", write=False)


@pytest.mark.parametrize(("data", "auth", "code"), [
    (b"{}", None, 401),
    (b"{}", "Bearer wrong-token", 401),
    (b"x" * (300 * 1024), f"Bearer {TOKEN}", 413),
    (b"{not json", f"Bearer {TOKEN}", 422),
    (b'{"version": "3", "groupKey": "k", "status": "firing", "alerts": []}', f"Bearer {TOKEN}", 422),
], ids=["no-token", "wrong-token", "too-large", "not-json", "no-alerts"])  # TOKEN is random
def test_bad_input_is_a_4xx_and_starts_or_stores_nothing(served: Served, data: bytes,
                                                         auth: str | None, code: int) -> None:
    before = stored(served)
    status, answer = post(f"{served.server.url}/alerts/alertmanager", data, auth=auth)
    assert status == code, answer
    assert "error" in answer
    time.sleep(0.5)
    assert stored(served) == before


def test_an_unknown_alert_route_is_404(served: Served) -> None:
    status, _ = post(f"{served.server.url}/alerts/pagerduty", b"{}")
    assert status == 404


def test_without_a_configured_token_the_alert_routes_are_not_there(tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="offline",
               NO_PROXY="127.0.0.1,localhost")
    with DevServer(tmp_path / "cwd", env) as server:
        status, _ = post(f"{server.url}/alerts/alertmanager", json.dumps(am_payload()).encode())
        assert status == 404
        assert not RunStore(tmp_path / "home" / "runs.sqlite").alert_group(
            am_payload()["groupKey"])


def test_a_real_prometheus_alert_through_a_real_alertmanager_is_investigated_and_posted_once(
        tmp_path: Any) -> None:
    """Prometheus (scraping an exporter, with an alert rule) → Alertmanager → the webhook → a
    diagnosis that reads the alert's series from the same Prometheus (``query_metrics``,
    HARNESS_PROMETHEUS_URL) and cites them → exactly one post."""
    import promkit

    from diagnosis_harness.control.contracts import EvidenceStatus, ToolRecord

    promkit.require_binaries("prometheus", "prometheus-alertmanager")
    rule = {"name": "payments", "rules": [{
        "alert": "PaymentErrorsHigh", "expr": "payment_errors > 3", "for": "0s",
        "labels": {"service": "payment-service"},
        "annotations": {"summary": "payment errors at {{ $value }}"}}]}
    receiver = Receiver()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="offline",
               HARNESS_ALERTS_TOKEN=TOKEN, HARNESS_NOTIFY_URL=f"{receiver.url}/hook",
               NO_PROXY="127.0.0.1,localhost")
    server = DevServer(tmp_path / "cwd", env)  # its URL is known before it starts
    store = RunStore(tmp_path / "home" / "runs.sqlite")
    try:
        with promkit.Exporter() as exporter, \
                promkit.Alertmanager(f"{server.url}/alerts/alertmanager", bearer_token=TOKEN,
                                     group_interval="1s", repeat_interval="2s") as am, \
                promkit.Prometheus(scrape_targets=[exporter], rules=[rule], alertmanager=am) as prom:
            exporter.set("payment_errors", 0, {"service": "payment-service"})
            promkit.wait_until(prom.targets_up, 15, "the exporter scraped")
            server.env["HARNESS_PROMETHEUS_URL"] = prom.url
            with server:
                # Some history before the alert, so the query's window (which ends a few
                # seconds before the call: samples still arriving) has points.
                promkit.wait_until(lambda: prom.query("count_over_time(payment_errors[1m]) > 8"),
                                   30, "ten scrapes of payment_errors")
                exporter.set("payment_errors", 9, {"service": "payment-service"})
                mine = eventually(lambda: [p for p in receiver.posts
                                           if p["body"]["alert"]["name"] == "PaymentErrorsHigh"], 90)
                run = store.get_run(mine[0]["body"]["run_id"])
                assert run is not None and "PaymentErrorsHigh" in run["question"]
                assert "payment errors at 9" in run["question"]  # the annotation, as its words
                # The diagnosis read the alert's own series from Prometheus and cites them.
                records = [ToolRecord.model_validate(r)
                           for r in store.trace(run["run_id"])["tool_records"]]
                metrics = [r for r in records if r.tool == "query_metrics"]
                assert [r.evidence_status for r in metrics] == [EvidenceStatus.EVIDENCE_FOUND]
                (series,) = [f for f in metrics[0].facts if f.kind == "metric_series"]
                assert series.data["labels"]["service"] == "payment-service"
                assert series.data["labels"]["job"] == "test" and series.data["points"] >= 1
                assert f"[{series.evidence_id}]" in mine[0]["body"]["content"]
                time.sleep(6)  # Alertmanager resends the group (repeat_interval 2 s): nothing new
                assert len([p for p in receiver.posts
                            if p["body"]["alert"]["name"] == "PaymentErrorsHigh"]) == 1
                assert len(store.runs_for_thread(run["thread_id"])) == 1
                group = store.alert_group(mine[0]["body"]["alert"]["group_key"])
                assert group is not None and group["notifications"] >= 2
    finally:
        receiver.close()


def test_resolved_while_the_run_is_going_cancels_it_and_nothing_is_posted(tmp_path: Any) -> None:
    from stub_openai import StubOpenAI

    receiver = Receiver()
    # The model holds every answer: the run is still investigating when the resolution arrives.
    with StubOpenAI(responder=lambda body: {"delay": 8.0, "content": "{}"}) as stub:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
        env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="openai:stub-model",
                   OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="test-key",
                   HARNESS_ALERTS_TOKEN=TOKEN, HARNESS_NOTIFY_URL=f"{receiver.url}/hook",
                   NO_PROXY="127.0.0.1,localhost")
        try:
            with DevServer(tmp_path / "cwd", env) as server:
                url = f"{server.url}/alerts/alertmanager"
                store = RunStore(tmp_path / "home" / "runs.sqlite")
                status, started = post(url, json.dumps(am_payload()).encode())
                assert (status, started["action"]) == (202, "started")
                eventually(lambda: stub.requests, 30)  # the run is asking the model
                status, resolved = post(url, json.dumps(am_payload(status="resolved")).encode())
                assert (status, resolved["action"], resolved["run_id"]) == \
                    (202, "cancelled", started["run_id"])
                row = eventually(lambda: (r := store.get_run(started["run_id"]))
                                 and r["finished_at"] and r, 30)
                assert (row["status"], row["release_outcome"], row["content"]) == \
                    ("CANCELLED", "CANCELLED", None)
                eventually(lambda: [p["state"] for p in store.posts(started["run_id"])]
                           == ["SKIPPED"], 10)
                time.sleep(2)
                assert receiver.posts == []
        finally:
            receiver.close()


def test_poison_notifications_are_refused_422_without_a_traceback(served: Served) -> None:
    """A deeply nested body (under the size limit), a year-1 ``startsAt`` and annotations too long
    for any question: each a 422 with the reason (Alertmanager does not retry a 4xx), nothing
    stored, and no traceback in the server's log."""
    from test_alert_poison import long_annotations, year_one

    nested = b'{"version": "4", "groupKey": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    too_long = am_payload(key=f"too-long-{uuid.uuid4().hex}", **long_annotations(100))
    before, logged = stored(served), len(served.server.log())
    for data, says in ((nested, "nests"), (year_one(), "year 1"),
                       (json.dumps(too_long).encode(), "question limit")):
        status, answer = post(f"{served.server.url}/alerts/alertmanager", data)
        assert (status, says in answer.get("error", "")) == (422, True), (status, answer)
    time.sleep(0.5)
    assert stored(served) == before
    log = served.server.log()[logged:]  # what the server wrote while answering them
    assert "Traceback" not in log and "RecursionError" not in log, log[-3000:]
