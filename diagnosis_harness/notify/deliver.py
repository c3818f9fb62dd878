"""The outbox's deliverer: posts each finished run's outcome to its targets, at least once.

Any worker may deliver any row: a post is leased in the run store (one deliverer at a time),
made with an explicit timeout and an ``Idempotency-Key`` header (the run and target, so a
receiver can drop the one duplicate a crash between post and record could make), and recorded
SENT. A receiver that fails or hangs gets the post again later (exponential backoff, capped),
also after a restart: the state is in the store, not in memory. A cancelled run's posts are
SKIPPED: a cancelled investigation publishes nothing. Nothing here touches the run itself.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
import uuid
from typing import Any

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.notify.messages import body_for, destination, outcome
from diagnosis_harness.runstore.store import RunStore

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 300.0
"""Longest wait between two attempts of one post."""
POLL_S = 1.0
"""How often the deliverer looks for due posts."""


def backoff_s(attempts: int) -> float:
    """The wait after ``attempts`` failed attempts: 1, 2, 4 … seconds, at most MAX_BACKOFF_S."""
    return float(min(2.0 ** attempts, MAX_BACKOFF_S))


class Deliverer:
    """Delivers due posts of one run store, in a background thread or one round at a time."""

    def __init__(self, store: RunStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.owner = f"deliverer-{uuid.uuid4().hex[:12]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Deliver in a daemon thread until :meth:`stop`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="harness-notify", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop after the current post (at most one post's timeout)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.settings.notify_timeout_s + 5)

    def _loop(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self.deliver_due()
            except Exception as exc:  # noqa: BLE001 — a store outage must not end the thread
                log.error("notification delivery: %s", exc)

    def deliver_due(self) -> int:
        """Make every due post once; return how many were sent."""
        lease_s = self.settings.notify_timeout_s * 2 + 5
        sent = 0
        for row in self.store.lease_due_posts(self.owner, lease_s):
            sent += self._deliver(row)
        return sent

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
                                             json.loads(row["context"])))
        error = self._post(where[0], where[1], body, f"{run_id}:{target}")
        if error is None:
            self.store.settle_post(run_id, target, self.owner, state="SENT")
            return 1
        log.warning("post of run %s to %s failed (attempt %s): %s", run_id, target,
                    row["attempts"] + 1, error)
        self.store.settle_post(run_id, target, self.owner, state="WAITING", error=error,
                               retry_in_s=backoff_s(int(row["attempts"])))
        return 0

    def _post(self, url: str, headers: dict[str, str], body: dict[str, Any], key: str) -> str | None:
        """POST once with the timeout; None on a 2xx, else the reason (never the URL: a secret)."""
        request = urllib.request.Request(
            url, data=json.dumps(body, ensure_ascii=False).encode(), method="POST",
            headers={"Content-Type": "application/json", "Idempotency-Key": key,
                     "User-Agent": "diagnosis-harness", **headers})
        try:
            with urllib.request.urlopen(request, timeout=self.settings.notify_timeout_s) as answer:
                answer.read(64 * 1024)
                return None
        except urllib.error.HTTPError as exc:
            return f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return f"{type(reason).__name__}: {reason}"[:200]
