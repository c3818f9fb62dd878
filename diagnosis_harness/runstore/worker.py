"""Which worker runs a run: its identity, whether it is still alive, and the heartbeat.

A worker is one process: ``host:pid:start-token``. The start token is the process's start time
as the kernel counts it (``/proc/<pid>/stat``), so a recycled pid is never taken for the worker
that died, and a worker on the same host can tell at once that an owner is gone instead of
waiting for its lease to expire. Elsewhere (another host, no ``/proc``) only the lease says so.

While a run executes, a :class:`Heartbeat` renews its lease on the run row every third of the
lease (``HARNESS_LEASE_S``). A run whose owner stopped renewing is stale (:func:`is_stale`):
the next worker that touches its thread, or ``harness runs resume``, takes it over
(docs/design.md §9).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from typing import Any

from diagnosis_harness.runstore.store import RunPersistenceError, RunStore

log = logging.getLogger(__name__)

FIRST_CLAIM_POLL_S = 0.1
"""How often a heartbeat tries its first claim while the run row does not exist yet."""

_fallback_token = uuid.uuid4().hex[:12]


def _start_token(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (``/proc``), or None if there is no such process.

    A zombie (killed, not yet reaped) counts as gone.
    """
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # the command name may hold spaces
    if not fields or fields[0] in ("Z", "X"):
        return None
    return fields[19] if len(fields) > 19 else None


def worker_id() -> str:
    """The lease owner name of this process, ``host:pid:start-token`` (per call: a fork differs)."""
    pid = os.getpid()
    token = _start_token(pid) if os.path.isdir("/proc") else None
    return f"{socket.gethostname()}:{pid}:{token or 't' + _fallback_token}"


def owner_dead(owner: str | None) -> bool:
    """True when ``owner`` is a worker of this host that is provably no longer running."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if token.startswith("t"):  # no /proc token: only a vanished pid proves anything
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False
    return _start_token(pid) != token


def is_stale(lease: dict[str, Any], now_ms: int | None = None) -> bool:
    """Whether an unfinished run's owner is gone: its lease expired or it provably died.

    A run with no owner is not stale: it is paused (or from before leases) and is continued
    only when asked (``harness runs resume``).
    """
    owner = lease.get("lease_owner")
    if not owner:
        return False
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    expires = lease.get("lease_expires_ms")
    return (expires is not None and expires < now_ms) or owner_dead(owner)


class Heartbeat:
    """Keeps one run's lease while it executes: a daemon thread that renews the claim.

    The first claim is tried every :data:`FIRST_CLAIM_POLL_S` until the run row exists (the
    run's door, RunSession.begin, creates it), then renewed every third of ``lease_s``. A renewal that
    fails because another worker took the run over ends the heartbeat (logged); one that fails
    because the store does not answer is retried at the next beat. :meth:`stop` ends it and
    gives the lease up when the run stopped without a terminal row (a pause).
    """

    def __init__(self, store: RunStore, run_id: str, lease_s: float,
                 owner: str | None = None) -> None:
        self.store = store
        self.run_id = run_id
        self.lease_s = lease_s
        self.owner = owner
        """This worker; found by the thread when not given (it reads /proc: no event loop may)."""
        self.held = False
        """True once the lease was claimed (and not lost since)."""
        self.lost = False
        """True when another worker took the run over."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Heartbeat:
        """Start the thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, daemon=True,
                                            name=f"harness-lease-{self.run_id[:8]}")
            self._thread.start()
        return self

    def _beat(self) -> bool:
        assert self.owner is not None
        try:
            claimed = self.store.claim_run(self.run_id, self.owner, self.lease_s)
        except RunPersistenceError as exc:
            log.warning("run %s: lease not renewed: %s", self.run_id, exc)
            return True
        if claimed:
            self.held = True
            return True
        if self.held:  # we had it and someone else has it now (or the row was finished)
            self.held = False
            self.lost = True
            log.info("run %s: lease given up (finished, or taken over by another worker)",
                     self.run_id)
            return False
        return True  # no row yet: the run's first node has not created it

    def _loop(self) -> None:
        if self.owner is None:
            self.owner = worker_id()
        while not self._stop.is_set():
            if not self._beat():
                return
            wait = self.lease_s / 3 if self.held else FIRST_CLAIM_POLL_S
            self._stop.wait(max(wait, 0.05))

    def stop(self) -> None:
        """Stop renewing and give the lease up if the run is still ours (blocking I/O)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.lease_s)
        if self.held and self.owner is not None:
            try:
                self.store.release_lease(self.run_id, self.owner)
            except RunPersistenceError as exc:
                log.warning("run %s: lease not released: %s", self.run_id, exc)
            self.held = False
