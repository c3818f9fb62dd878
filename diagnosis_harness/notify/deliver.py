"""The outbox's deliverer: posts each finished run's outcome to its targets, at least once.

Any worker may deliver any row. A post is leased in the run store just before it is made, one
post at a time, for longer than the post's overall deadline (``HARNESS_NOTIFY_TIMEOUT_S``,
enforced by closing the connection), so a slow receiver's lease never runs out while its post
is in flight and no second deliverer makes it again. Each target is a *lane* of its own thread:
a slow or hanging receiver holds up only its own posts, never another target's.

A post carries an ``Idempotency-Key`` header (the run and target, so a receiver can drop the one
duplicate a crash between post and record could make) and is recorded SENT only on a 2xx. A
redirect is never followed: a 3xx is a failed attempt like a 5xx (a followed redirect would send
the GitHub token to wherever the ``Location`` points, and turn the POST into a GET). Environment
proxies are not used. A receiver that fails or hangs gets the post again later (exponential
backoff, capped), also after a restart: the state is in the store, not in memory. A cancelled
run's posts are SKIPPED: a cancelled investigation publishes nothing. Nothing here touches the
run itself, except the sweep of runs whose worker died (:meth:`Deliverer.sweep`).
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import socket
import ssl
import threading
import time
import uuid
from typing import Any
from urllib.parse import unquote, urlsplit

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.notify.messages import body_for, destination, outcome
from diagnosis_harness.runstore import alert_sweep
from diagnosis_harness.runstore.store import RunStore

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 300.0
"""Longest wait between two attempts of one post."""
POLL_S = 1.0
"""How often the deliverer looks for due posts."""
LEASE_MARGIN_S = 30.0
"""A post's lease outlasts its deadline by this much (recording the attempt takes a moment)."""
SWEEP_S = 15.0
"""How often the deliverer's thread sweeps alert groups whose run's worker died."""
READ_LIMIT = 64 * 1024
"""Bytes of a receiver's answer read (and ignored)."""


def backoff_s(attempts: int) -> float:
    """The wait after ``attempts`` failed attempts: 1, 2, 4 … seconds, at most MAX_BACKOFF_S."""
    return float(min(2.0 ** attempts, MAX_BACKOFF_S))


class Deliverer:
    """Delivers due posts of one run store, in a background thread or one round at a time."""

    def __init__(self, store: RunStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.owner = f"deliverer-{uuid.uuid4().hex[:12]}"
        self.deadline_s = settings.notify_timeout_s
        self.lease_s = self.deadline_s + LEASE_MARGIN_S
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lanes: dict[str, threading.Thread] = {}
        self._lanes_lock = threading.Lock()

    def start(self) -> None:
        """Deliver in a daemon thread until :meth:`stop`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="harness-notify", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop after the posts in flight (each ends by its deadline)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.lease_s)
        for lane in self._running_lanes():
            lane.join(self.lease_s)

    def _loop(self) -> None:
        last_sweep = 0.0
        while not self._stop.wait(POLL_S):
            try:
                if time.monotonic() - last_sweep >= SWEEP_S:
                    last_sweep = time.monotonic()
                    self.sweep()
                self._dispatch()
            except Exception as exc:  # noqa: BLE001 — a store outage must not end the thread
                log.error("notification delivery: %s", exc)

    def sweep(self) -> list[str]:
        """Release alert groups whose run was lost with its worker (``runstore.alert_sweep``)."""
        return alert_sweep.sweep(self.store)

    def deliver_due(self) -> int:
        """One round, waited for: every due post made once; how many were sent."""
        results: list[int] = []
        for lane in self._dispatch(results):
            lane.join()
        return sum(results)

    def _running_lanes(self) -> list[threading.Thread]:
        with self._lanes_lock:
            return [lane for lane in self._lanes.values() if lane.is_alive()]

    def _dispatch(self, results: list[int] | None = None) -> list[threading.Thread]:
        """Start a lane for each target with due posts, unless that target's lane is still busy."""
        with self._lanes_lock:
            busy = {target for target, lane in self._lanes.items() if lane.is_alive()}
        due: dict[str, list[str]] = {}
        for run_id, target in self.store.due_posts(busy=busy):
            due.setdefault(target, []).append(run_id)
        started = []
        with self._lanes_lock:
            for target, run_ids in due.items():
                lane = self._lanes.get(target)
                if lane is not None and lane.is_alive():
                    continue  # this receiver is still busy: its posts wait, the others go on
                lane = threading.Thread(target=self._lane, args=(target, run_ids, results),
                                        name="harness-notify-lane", daemon=True)
                self._lanes[target] = lane
                lane.start()
                started.append(lane)
        return started

    def _lane(self, target: str, run_ids: list[str], results: list[int] | None) -> None:
        sent = 0
        try:
            for run_id in run_ids:
                if self._stop.is_set():
                    break
                row = self.store.lease_post(run_id, target, self.owner, self.lease_s)
                if row is not None:  # else another deliverer has it, or it was made meanwhile
                    sent += self._deliver(row)
        except Exception as exc:  # noqa: BLE001 — a store outage: the lease runs out, retried later
            log.error("notification delivery to %s: %s", target, exc)
        if results is not None:
            results.append(sent)

    def _deliver(self, row: dict[str, Any]) -> int:
        run_id, target = row["run_id"], row["target"]
        run = self.store.get_run(run_id) or {}
        if run.get("status") == "CANCELLED" or run.get("release_outcome") == "CANCELLED":
            self.store.settle_post(run_id, target, self.owner, state="SKIPPED",
                                   error="the run was cancelled: nothing is published")
            return 0
        where = destination(self.settings, target, row["kind"])
        if where is None:
            self.store.settle_post(run_id, target, self.owner, state="SKIPPED",
                                   error="the target is no longer configured")
            return 0
        body = body_for(row["kind"], outcome(run, self.store.tool_records(run_id),
                                             json.loads(row["context"]), self.settings))
        error = post_once(where[0], {"Idempotency-Key": f"{run_id}:{target}", **where[1]},
                          json.dumps(body, ensure_ascii=False).encode(), self.deadline_s)
        if error is None:
            self.store.settle_post(run_id, target, self.owner, state="SENT")
            return 1
        log.warning("post of run %s to %s failed (attempt %s): %s", run_id, target,
                    row["attempts"] + 1, error)
        self.store.settle_post(run_id, target, self.owner, state="WAITING", error=error,
                               retry_in_s=backoff_s(int(row["attempts"])))
        return 0


def post_once(url: str, headers: dict[str, str], data: bytes, deadline_s: float) -> str | None:
    """POST once, within ``deadline_s`` overall; None on a 2xx, else why (never the URL: a secret).

    A 3xx is refused, not followed. The deadline covers connecting, sending and the answer: a
    timer shuts the socket down when it passes, so a receiver that trickles its answer byte by
    byte cannot hold the post (and its lease) longer.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "the target's URL is not http(s)://host/…"
    try:
        port = parts.port
    except ValueError:
        return "the target's URL has an invalid port"
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, port, timeout=deadline_s,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, port, timeout=deadline_s)
    sent = {"Content-Type": "application/json", "User-Agent": "diagnosis-harness", **headers}
    if parts.username is not None:  # credentials in the URL: basic auth to that origin only
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        sent.setdefault("Authorization", "Basic " + base64.b64encode(pair.encode()).decode())
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        if conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    timer = threading.Timer(deadline_s, expire)
    timer.daemon = True
    timer.start()
    late = f"no complete answer within the post's deadline ({deadline_s:g} s)"
    try:
        conn.connect()
        if expired.is_set():
            return late
        conn.request("POST", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                     body=data, headers=sent)
        answer = conn.getresponse()
        answer.read(READ_LIMIT)
        status = answer.status
    except (OSError, http.client.HTTPException) as exc:
        return late if expired.is_set() else f"{type(exc).__name__}: {exc}"[:200]
    finally:
        timer.cancel()
        conn.close()
    if expired.is_set():
        return late
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return f"HTTP {status}: a redirect, refused and not followed (configure the final URL)"
    return f"HTTP {status}"
