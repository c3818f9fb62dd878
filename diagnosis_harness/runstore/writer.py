"""The run store's background writer: trace and event rows written in order, in batches.

Callers (nodes on the event loop, the event sink) only queue a prepared statement; one thread
writes whatever is queued in one transaction, in queue order. A batch that fails transiently is
retried within the database's retry window; one that still fails is *lost*: the writer reports
each lost row's run to ``on_lost`` (the store refuses to finish that run) and goes on. A batch
that fails for a non-transient reason is written row by row so the good rows are kept.

:meth:`BatchWriter.flush` waits (bounded) until everything queued before it was written or
reported lost. The writer lingers a moment (:data:`LINGER_S`) after the first row of a batch, so
rows that come right behind it (a run's events, model call and tool record of one step) share
its transaction; a flush ends the linger at once. The thread exits after a few idle seconds and
is started again by the next row, so an idle store holds no thread; queued rows are flushed at
interpreter exit.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, Text, bindparam, func, insert, select

from diagnosis_harness.runstore.db import Database, Driver, Prepared
from diagnosis_harness.runstore.errors import RunPersistenceError

log = logging.getLogger(__name__)

MAX_BATCH = 256
"""Rows written per transaction at most."""

MAX_PENDING = 20_000
"""Rows that may wait in the queue; past that a write is refused (the database is not keeping up)."""

IDLE_EXIT_S = 5.0
"""How long the writer thread waits for work before it exits."""

LINGER_S = 0.003
"""How long the writer waits after a first row for more to share its transaction (a commit per
row cost a run step ~1 ms of CPU); a flush does not wait for it."""


def append_statement(table: Table) -> Prepared:
    """INSERT of one child row whose seq is the run's next: ``:run_id``, ``:recorded_at``, columns.

    seq is computed in the INSERT itself so the read and the write are one statement; the
    (run_id, seq) key turns a race into an error, and the writer retries the row alone.
    """
    columns = [c.name for c in table.columns if c.name not in ("run_id", "seq", "recorded_at")]
    run_id = bindparam("run_id", type_=Text)
    selected = select(
        run_id, func.coalesce(func.max(table.c.seq), 0) + 1,
        *(bindparam(name, type_=table.c[name].type) for name in columns),
        bindparam("recorded_at", type_=Text),
    ).where(table.c.run_id == run_id)
    return Prepared(insert(table).from_select(["run_id", "seq", *columns, "recorded_at"], selected))


@dataclass(frozen=True)
class Row:
    """One queued write: the run it belongs to, what it is (for messages), statement and values.

    Statements are built (and compiled) once per store and shared by its rows, so consecutive
    rows of one statement go to the database as one ``executemany``.
    """

    run_id: str
    what: str
    statement: Prepared
    params: dict[str, Any]

    def apply(self, driver: Driver) -> None:
        """Write this row alone."""
        driver.execute(self.statement, self.params)


def _write_in_runs(driver: Driver, batch: list[Row]) -> None:
    start = 0
    while start < len(batch):
        end = start + 1
        while end < len(batch) and batch[end].statement is batch[start].statement:
            end += 1
        driver.executemany(batch[start].statement, [row.params for row in batch[start:end]])
        start = end


LostHandler = Callable[[list[Row], RunPersistenceError], None]


class BatchWriter:
    """A FIFO of rows and the one thread that writes them."""

    def __init__(self, db: Database, on_lost: LostHandler) -> None:
        self._db = db
        self._on_lost = on_lost
        self._cv = threading.Condition()
        self._queue: deque[Row] = deque()
        self._queued = 0  # rows ever queued
        self._settled = 0  # rows written or reported lost, in queue order
        self._flushing = 0  # flushes waiting: the writer does not linger for them
        self._running = False
        self.retry_s = db.retry_s
        """How long a flush at exit may wait."""
        _writers.add(self)

    def submit(self, row: Row) -> None:
        """Queue one row; RunPersistenceError if too many rows are already waiting."""
        with self._cv:
            if len(self._queue) >= MAX_PENDING:
                raise RunPersistenceError(
                    f"run store at {self._db.where}: cannot {row.what}: "
                    f"{len(self._queue)} writes are waiting for the database", transient=True)
            self._queue.append(row)
            self._queued += 1
            if not self._running:
                try:
                    threading.Thread(target=self._loop, name="harness-runstore-writer",
                                     daemon=True).start()
                except RuntimeError as exc:  # the interpreter is shutting down
                    self._queue.pop()
                    self._queued -= 1
                    raise RunPersistenceError(f"cannot {row.what}: {exc}") from exc
                self._running = True
            self._cv.notify()

    def flush(self, deadline: float, what: str) -> None:
        """Wait until every row queued so far is written or reported lost, at most to ``deadline``."""
        with self._cv:
            target = self._queued
            self._flushing += 1
            self._cv.notify_all()  # a lingering writer writes now
            try:
                while self._settled < target:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise RunPersistenceError(
                            f"run store at {self._db.where}: cannot {what}: "
                            f"{target - self._settled} queued writes were not written in time",
                            transient=True)
                    self._cv.wait(left)
            finally:
                self._flushing -= 1

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._queue:
                    self._cv.wait(IDLE_EXIT_S)
                    if not self._queue:
                        self._running = False
                        return
                linger = time.monotonic() + LINGER_S
                while len(self._queue) < MAX_BATCH and not self._flushing:
                    left = linger - time.monotonic()
                    if left <= 0:
                        break
                    self._cv.wait(left)
                batch = [self._queue.popleft() for _ in range(min(MAX_BATCH, len(self._queue)))]
            try:
                self._write(batch)
            except Exception as exc:  # noqa: BLE001 — the writer must outlive any one bad batch
                self._lost(batch, RunPersistenceError(f"run store writer failed: {exc!r}"))
            with self._cv:
                self._settled += len(batch)
                self._cv.notify_all()

    def _write(self, batch: list[Row]) -> None:
        try:
            self._db.run_driver(lambda driver: _write_in_runs(driver, batch),
                                f"write {len(batch)} trace rows")
            return
        except RunPersistenceError as exc:
            if exc.transient or len(batch) == 1:
                self._lost(batch, exc)
                return
        for row in batch:  # a non-transient failure: keep what can be kept
            try:
                self._db.run_driver(row.apply, row.what)
            except RunPersistenceError as exc:
                self._lost([row], exc)

    def _lost(self, rows: list[Row], exc: RunPersistenceError) -> None:
        log.error("run store lost %d trace writes: %s", len(rows), exc)
        self._on_lost(rows, exc)


_writers: weakref.WeakSet[BatchWriter] = weakref.WeakSet()


@atexit.register
def _flush_all_at_exit() -> None:
    # The thread is a daemon (it must not keep a process alive); do not let it drop rows.
    for writer in list(_writers):
        try:
            writer.flush(time.monotonic() + writer.retry_s, "write the trace at exit")
        except RunPersistenceError as exc:
            log.error("%s", exc)
