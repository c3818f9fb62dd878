"""What reaches the receivers of an alert run's outcome: escaped text, no redirect, no stall.

Real HTTP receivers on 127.0.0.1 and a real SQLite run store; the deliverer is the one the
served app runs (issue 37: injection into the posts, redirects, a slow receiver).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from httpkit import LocalServer, QuietHandler
from test_alert_intake import FakeServer, _due_now, am_payload, finish, send

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.notify.deliver import Deliverer
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.serving.alerts import Intake

HOSTILE_NAME = "<!channel> PaymentErrors <https://evil.example/login|Re-authenticate here> @oncall"
HOSTILE_CAUSE = ("root cause: pool exhausted [ev1] <!here> see ![x](https://track.example/p.png) "
                 "and [login](https://evil.example/login) cc @acme/sre <img src=x> https://evil.example")


class Recorder(LocalServer):
    """A local HTTP server that records every request; per path: a delay, a status, a Location."""

    def __init__(self, delay_s: float = 0.0, status: int = 200, location: str | None = None
                 ) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(QuietHandler):
            def _any(self) -> None:
                data = self.rfile.read(int(self.headers.get("content-length") or 0))
                time.sleep(delay_s)
                with outer.lock:
                    outer.requests.append({"method": self.command, "path": self.path,
                                           "headers": dict(self.headers), "at": time.monotonic(),
                                           "body": json.loads(data) if data else None})
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET = _any  # noqa: N815 — the stdlib's names

        super().__init__(Handler)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_run_store(tmp_path / "runs.sqlite")
    yield opened
    opened.close()


def hostile_alert(key: str = "{}:{alertname=\"hostile\"}") -> dict[str, Any]:
    doc = am_payload(key=key, github_issue="#7")
    for alert in doc["alerts"]:
        alert["labels"]["alertname"] = HOSTILE_NAME
    doc["commonLabels"]["alertname"] = HOSTILE_NAME
    return doc


def test_slack_and_github_posts_carry_hostile_alert_and_data_text_inert(store: RunStore) -> None:
    slack, github, hook = Recorder(), Recorder(), Recorder()
    try:
        settings = load_settings(slack_webhook_url=f"{slack.url}/slack",
                                 notify_url=f"{hook.url}/hook", github_repo="acme/shop",
                                 github_token="ghp-test-token", github_api_url=github.url)
        server = FakeServer(store)
        run_id = send(Intake(settings, store, server.start, server.cancel),
                      hostile_alert())["run_id"]
        finish_with(store, run_id, HOSTILE_CAUSE)
        assert Deliverer(store, settings).deliver_due() == 3
        (s,), (g,), (j,) = slack.requests, github.requests, hook.requests
        text = s["body"]["text"]
        assert text == s["body"]["blocks"][0]["text"]["text"]
        for raw in ("<!channel>", "<!here>", "<https://", "<img"):
            assert raw not in text  # Slack would ping the channel / render a link
        assert "&lt;!channel&gt;" in text and "&lt;https://evil.example/login|Re-authenticate" \
            " here&gt;" in text
        head = text.splitlines()[0]
        assert head.startswith("[SUCCESS] verified root cause") and "PaymentErrors" not in head
        assert "alert (as the alert sent it, unverified): &lt;!channel&gt; PaymentErrors" in text
        comment = g["body"]["body"]
        for raw in ("![x](", "[login](", "<img", "@acme", "@oncall", "https://evil", "<!here>"):
            assert raw not in comment  # an image, a link, a mention, an autolink, HTML
        assert "PaymentErrors" not in comment.splitlines()[0]
        # the generic receiver gets the data itself, unchanged and without markup
        assert j["body"]["content"] == HOSTILE_CAUSE and j["body"]["alert"]["name"] == HOSTILE_NAME
    finally:
        for r in (slack, github, hook):
            r.close()


def finish_with(store: RunStore, run_id: str, content: str) -> None:
    from diagnosis_harness.control.budget import BudgetUsage
    from diagnosis_harness.control.contracts import ReleaseOutcome, RunState, StoredRunStatus

    store.finish_run(run_id, status=StoredRunStatus.SUCCESS, run_state=RunState.SUCCESS,
                     release_outcome=ReleaseOutcome.SUCCESS, fallback_type=None,
                     failure_code=None, stop_reason=None, intent=None, content=content,
                     usage=BudgetUsage())


def test_a_redirecting_receiver_is_not_followed_and_the_post_stays_unsent(store: RunStore) -> None:
    elsewhere = Recorder()
    github = Recorder(status=302, location=f"{elsewhere.url}/steal")
    hook = Recorder(status=307, location=f"{elsewhere.url}/steal-hook")
    try:
        settings = load_settings(github_repo="acme/shop", github_token="ghp-secret-token-1",
                                 github_api_url=github.url, notify_url=f"{hook.url}/hook")
        server = FakeServer(store)
        run_id = send(Intake(settings, store, server.start, server.cancel),
                      am_payload(github_issue="#42"))["run_id"]
        finish(store, run_id)
        deliverer = Deliverer(store, settings)
        sent = []
        for _ in range(3):  # three attempts: each refused, none followed
            sent.append(deliverer.deliver_due())
            _due_now(store)
        assert sent == [0, 0, 0]
        assert elsewhere.requests == []  # the token (and the post) went nowhere else
        assert len(github.requests) == 3 and len(hook.requests) == 3
        assert {r["method"] for r in github.requests + hook.requests} == {"POST"}
        rows = {r["target"]: r for r in store.posts(run_id)}
        assert {r["state"] for r in rows.values()} == {"WAITING"}
        assert {r["attempts"] for r in rows.values()} == {3}
        assert "302" in rows["github:acme/shop#42"]["last_error"]
        assert "redirect" in rows["github:acme/shop#42"]["last_error"]
        assert all("127.0.0.1" not in r["last_error"] for r in rows.values())  # no URL (secret)
    finally:
        for r in (elsewhere, github, hook):
            r.close()


def test_a_slow_receiver_delays_no_other_targets_post_and_is_posted_once(tmp_path: Path) -> None:
    """Ten runs post to a receiver that takes 1.5 s per post (within its 4 s deadline); another
    run's Slack post is made at once meanwhile, and a second worker joining posts nothing twice."""
    slow, fast = Recorder(delay_s=1.5), Recorder()
    stores = [open_run_store(tmp_path / "runs.sqlite") for _ in range(2)]
    deliverers: list[Deliverer] = []
    try:
        settings = load_settings(notify_url=f"{slow.url}/hook", notify_timeout_s=4.0,
                                 slack_webhook_url=f"{fast.url}/slack")
        server = FakeServer(stores[0])
        intake = Intake(settings, stores[0], server.start, server.cancel)
        runs = [send(intake, am_payload(key=f"{{}}:{{g=\"{i}\"}}"))["run_id"] for i in range(11)]
        for run_id in runs[:10]:
            finish(stores[0], run_id)
        deliverers = [Deliverer(s, settings) for s in stores]
        deliverers[0].start()  # one worker first: the later run must not wait behind the slow posts
        time.sleep(3.0)  # the slow receiver is busy with the first runs' posts
        finished_at = time.monotonic()
        finish(stores[0], runs[10])
        deadline = time.monotonic() + 10
        later = f"{runs[10]}:slack"
        while time.monotonic() < deadline and not any(
                r["headers"]["Idempotency-Key"] == later for r in fast.requests):
            time.sleep(0.05)
        latest = [r["at"] for r in fast.requests if r["headers"]["Idempotency-Key"] == later]
        assert latest, "the fast receiver never got the later run's post"
        delay = latest[0] - finished_at
        print(f"\nslow receiver: the later run's Slack post arrived {delay:.2f} s after it finished")
        assert delay < 2.5  # one poll (1 s) and the post, not the slow receiver's queue (≥ 10 s)
        deliverers[1].start()  # a second worker joins while the slow posts are still being made
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len({r["body"]["run_id"] for r in slow.requests}) < 11:
            time.sleep(0.2)
        time.sleep(3.0)  # further rounds of both deliverers post nothing more
        keys = [r["headers"]["Idempotency-Key"] for r in slow.requests + fast.requests]
        print(f"posts: {len(keys)}, distinct: {len(set(keys))}, duplicates: "
              f"{len(keys) - len(set(keys))}")
        assert len(keys) == len(set(keys)) == 22  # 11 runs x 2 targets, each exactly once
        assert {p["state"] for run_id in runs for p in stores[0].posts(run_id)} == {"SENT"}
    finally:
        for d in deliverers:
            d.stop()
        for s in stores:
            s.close()
        slow.close()
        fast.close()


def test_a_receiver_that_trickles_its_answer_is_cut_at_the_posts_deadline(store: RunStore) -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()

    def trickle() -> None:  # one header byte every 0.3 s (about 9 s in all)
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.recv(65536)
            try:
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10:
                    if stop.is_set():
                        break
                    conn.send(bytes([byte]))
                    time.sleep(0.3)
            except OSError:
                pass
            conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
        settings = load_settings(notify_url=url, notify_timeout_s=1.0)
        server = FakeServer(store)
        run_id = send(Intake(settings, store, server.start, server.cancel), am_payload())["run_id"]
        finish(store, run_id)
        began = time.monotonic()
        assert Deliverer(store, settings).deliver_due() == 0
        took = time.monotonic() - began
        assert took < 2.5, took  # the 1 s deadline holds although every read got a byte
        (row,) = store.posts(run_id)
        assert row["state"] == "WAITING" and "deadline" in row["last_error"]
    finally:
        stop.set()
        listener.close()
