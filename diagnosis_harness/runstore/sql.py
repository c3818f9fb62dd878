"""The run store: :class:`RunStore`, on SQLAlchemy Core, for SQLite and PostgreSQL alike.

See :mod:`diagnosis_harness.runstore.store` for what it promises. Run rows are written on the calling thread;
trace and event rows go through the :class:`~diagnosis_harness.runstore.writer.BatchWriter`.

:class:`RunStore` is the one run-store class. Its methods are split by concern over modules, as
parts it inherits (one class, not separate stores; none is used alone, and each uses the store's
``_db``, ``_text`` and readers, declared once in :mod:`~diagnosis_harness.runstore.part`): the
readers of rows and traces (:mod:`~diagnosis_harness.runstore.reads`), the lineage table
(:mod:`~diagnosis_harness.runstore.lineage`), run listing and timelines
(:mod:`~diagnosis_harness.runstore.history`), leases (:mod:`~diagnosis_harness.runstore.leases`) and
alert groups and the outbox (:mod:`~diagnosis_harness.runstore.alerts`). This module has the rest:
opening, the writers, the events reader.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, overload

from sqlalchemy import Connection, Table, Text, bindparam, func, select, update

from diagnosis_harness.control.budget import BudgetUsage, usage_count
from diagnosis_harness.control.contracts import (
    FailureClass,
    FailureCode,
    FallbackType,
    Intent,
    ReleaseOutcome,
    RunState,
    StopReason,
    StoredRunStatus,
    ToolRecord,
)
from diagnosis_harness.runstore.alerts import AlertRecords
from diagnosis_harness.runstore.db import RETRY_WINDOW_S, Database, Driver, Prepared
from diagnosis_harness.runstore.errors import RunPersistenceError
from diagnosis_harness.runstore.history import RunHistory
from diagnosis_harness.runstore.leases import RunLeases
from diagnosis_harness.runstore.lineage import LineageStore
from diagnosis_harness.runstore.reads import RunReads
from diagnosis_harness.runstore.schema import (
    USAGE_KEYS,
    model_calls,
    receipts,
    runs,
    tool_records,
    verdicts,
)
from diagnosis_harness.runstore.schema import events as events_table
from diagnosis_harness.runstore.values import MAX_COUNT, clamp_count, clean_text, enum_name, now_iso, to_json
from diagnosis_harness.runstore.writer import BatchWriter, Row, append_statement

T = TypeVar("T")

_REMEMBERED_RUNS = 2048  # runs whose event seqs and lost writes are kept in memory (LRU)

_FINISHED = ("finished_at", "status", "run_state", "release_outcome", "fallback_type",
             "failure_code", "stop_reason", "intent", "content", *USAGE_KEYS)
_FINISH = Prepared(update(runs).where(runs.c.run_id == bindparam("key", type_=Text),
                                      runs.c.finished_at.is_(None))
                   .values({name: bindparam(f"v_{name}", type_=runs.c[name].type)
                            for name in _FINISHED}))
"""The terminal fields, written once: the guard is in the UPDATE (``finished_at IS NULL``)."""
_EXISTS = Prepared(select(runs.c.run_id).where(runs.c.run_id == bindparam("key", type_=Text)))
_EVENTS = Prepared(select(events_table.c.seq, events_table.c.event)
                   .where(events_table.c.run_id == bindparam("key", type_=Text))
                   .order_by(events_table.c.seq))


def _start_statement(db: Database) -> Prepared:
    """The run row's INSERT: ``:run_id``, ``:thread_id``, ``:question``, ``:model_spec``, ``:started_at``."""
    thread_id = bindparam("thread_id", type_=Text)
    selected = select(
        bindparam("run_id", type_=Text), thread_id,
        # thread_seq orders a thread's turns; timestamps can tie, insertion order cannot.
        func.coalesce(func.max(runs.c.thread_seq), 0) + 1,
        bindparam("question", type_=Text), bindparam("model_spec", type_=Text),
        bindparam("started_at", type_=Text),
    ).where(runs.c.thread_id == thread_id)
    return Prepared(db.insert(runs).from_select(
        ["run_id", "thread_id", "thread_seq", "question", "model_spec", "started_at"], selected
    ).on_conflict_do_nothing(index_elements=[runs.c.run_id]))


class RunStore(RunReads, LineageStore, RunHistory, RunLeases, AlertRecords):
    """The run store on SQLite or PostgreSQL; thread-safe, and processes may share one database.

    ``start_run``, ``finish_run`` and the readers are synchronous; the ``record_*`` writes may
    be queued, but ``finish_run`` and every reader see them. Open one with
    ``RunStore(path_or_url)`` or :func:`~diagnosis_harness.runstore.store.open_run_store`.
    """

    def __init__(self, url_or_path: str | Path, *, retry_s: float = RETRY_WINDOW_S) -> None:
        """Open (and migrate) the database at a SQLite path or a ``postgresql+psycopg://`` URL."""
        self._db = Database(url_or_path, retry_s=retry_s)
        self.path = self._db.path
        """The SQLite file, or None for a server database."""
        self._db.run(lambda conn: None, "open the run store", write=False)
        self._writer = BatchWriter(self._db, self._note_lost)
        self._lock = threading.Lock()
        self._lost: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._seen: OrderedDict[str, set[int]] = OrderedDict()
        self._event_insert = Prepared(self._db.insert(events_table).on_conflict_do_nothing(
            index_elements=[events_table.c.run_id, events_table.c.seq]))
        self._appends = {table.name: append_statement(table)
                         for table in (tool_records, model_calls, receipts, verdicts)}
        self._start = _start_statement(self._db)

    @property
    def where(self) -> str:
        """The database, for messages (a URL without its password)."""
        return self._db.where

    def close(self) -> None:
        """Write what is queued and close the connection(s); a later call opens them again."""
        self._writer.flush(time.monotonic() + self._db.retry_s, "close the run store")
        self._db.close()

    # --- helpers --------------------------------------------------------------------------------

    @overload
    def _text(self, value: str) -> str: ...
    @overload
    def _text(self, value: T) -> T: ...
    def _text(self, value: object) -> object:
        return clean_text(value, keep_nul=self._db.is_sqlite)

    def _usable(self, what: str) -> None:
        # A store whose database fails for a reason that will not pass refuses at once rather
        # than queueing rows it cannot write; any success (start, finish, read) clears this.
        if (reason := self._db.broken) is not None:
            raise RunPersistenceError(f"run store at {self.where}: cannot {what}: {reason}")

    @staticmethod
    def _remember(memo: OrderedDict[str, T], run_id: str, value: T) -> T:
        """``memo[run_id]`` (set to ``value`` if absent), most recent; the oldest runs forgotten."""
        value = memo.setdefault(run_id, value)
        memo.move_to_end(run_id)
        while len(memo) > _REMEMBERED_RUNS:
            memo.popitem(last=False)
        return value

    def _note_lost(self, rows: list[Row], exc: RunPersistenceError) -> None:
        with self._lock:
            for row in rows:
                n, first = self._lost.pop(row.run_id, (0, str(exc)))
                self._remember(self._lost, row.run_id, (n + 1, first))

    def _append(self, table: Table, run_id: str, values: dict[str, Any], what: str) -> None:
        self._usable(what)
        params = {key: self._text(value) for key, value in values.items()}
        params.update(run_id=self._text(run_id), recorded_at=now_iso())
        self._writer.submit(Row(run_id, what, self._appends[table.name], params))

    def _read(self, fn: Callable[[Connection], T], what: str) -> T:
        deadline = time.monotonic() + self._db.retry_s
        self._writer.flush(deadline, what)  # a reader sees what was queued before it
        return self._db.run(fn, what, write=False, deadline=deadline)

    def _read_driver(self, fn: Callable[[Driver], T], what: str) -> T:
        """:meth:`_read` for :class:`~diagnosis_harness.runstore.db.Prepared` statements."""
        deadline = time.monotonic() + self._db.retry_s
        self._writer.flush(deadline, what)
        return self._db.run_driver(fn, what, write=False, deadline=deadline)

    # --- writers --------------------------------------------------------------------------------

    def start_run(self, run_id: str, thread_id: str, question: str, model_spec: str) -> bool:
        """Create the run row; a second start of the same run changes nothing (returns False)."""
        params = {"run_id": self._text(run_id), "thread_id": self._text(thread_id),
                  "question": self._text(question), "model_spec": self._text(model_spec),
                  "started_at": now_iso()}
        return self._db.run_driver(
            lambda driver: driver.execute(self._start, params).rowcount == 1, f"start run {run_id}")

    def finish_run(
        self,
        run_id: str,
        *,
        status: StoredRunStatus,
        run_state: RunState,
        release_outcome: ReleaseOutcome,
        fallback_type: FallbackType | None,
        failure_code: FailureCode | None,
        stop_reason: StopReason | None,
        intent: Intent | None,
        content: str | None,
        usage: BudgetUsage,
    ) -> bool:
        """Write the terminal fields once; True if this call wrote them (first terminal wins).

        Everything queued is written first; a run whose trace rows were lost is not finished
        (RunPersistenceError, once). The guard is in the UPDATE itself (``finished_at IS
        NULL``), so of several concurrent finishes exactly one writes. Finishing a run that was
        never started raises RunPersistenceError: a row without thread and question would hide
        a wiring bug. A transient failure (lock, lost connection) is retried within the
        store's retry window, flush included.
        """
        what = f"finish run {run_id}"
        key = self._text(run_id)
        deadline = time.monotonic() + self._db.retry_s
        self._writer.flush(deadline, what)
        with self._lock:
            lost = self._lost.pop(run_id, None)
        if lost is not None:
            raise RunPersistenceError(
                f"run store at {self.where}: cannot {what}: {lost[0]} of its trace writes were "
                f"lost ({lost[1]})")
        values = {
            "finished_at": now_iso(), "status": enum_name(status), "run_state": enum_name(run_state),
            "release_outcome": enum_name(release_outcome), "fallback_type": enum_name(fallback_type),
            "failure_code": enum_name(failure_code), "stop_reason": enum_name(stop_reason),
            "intent": enum_name(intent), "content": content,
            **{key: clamp_count(getattr(usage, key, 0)) for key in USAGE_KEYS},
        }
        params = {f"v_{name}": self._text(value) for name, value in values.items()}
        params["key"] = key

        def finish(driver: Driver) -> bool | None:
            if driver.execute(_FINISH, params).rowcount == 1:
                return True
            return None if not driver.rows(_EXISTS, {"key": key}) else False

        wrote = self._db.run_driver(finish, what, deadline=deadline)
        if wrote is None:
            raise RunPersistenceError(f"cannot finish run {run_id}: it was never started")
        return wrote

    def record_tool(self, run_id: str, record: ToolRecord,
                    observation: dict[str, Any] | None = None) -> None:
        """Write one canonical tool record (stored whole, as JSON) and its observation, now.

        Unlike the other trace rows this one is written before the call returns: a resumed run
        reuses it instead of running the tool again (:meth:`tool_record`), so a ``kill -9``
        right after a tool call must not lose it. Written through the queue, in order with what
        was queued before; a write that fails is reported like a lost queued row (the run
        cannot be finished), and a database that does not answer in time raises.
        """
        what = f"record a tool call of run {run_id}"
        self._append(tool_records, run_id, {
            "tool_call_id": record.tool_call_id, "tool": record.tool,
            "invocation_status": enum_name(record.invocation_status),
            "evidence_status": enum_name(record.evidence_status),
            "record": to_json(record.model_dump(mode="json"), "tool record"),
            "observation": None if observation is None else to_json(observation, "observation"),
        }, what)
        self._writer.flush(time.monotonic() + self._db.retry_s, what)

    def record_model_call(
        self,
        run_id: str,
        role: str,
        *,
        attempt: int,
        input_tokens: int,
        output_tokens: int,
        duration_ms: int,
        failure_class: FailureClass | None,
    ) -> None:
        """Queue one model call's usage and outcome (``failure_class`` None when it succeeded)."""
        self._append(model_calls, run_id, {
            "role": enum_name(role), "attempt": clamp_count(attempt),
            # Validated like the budget's: the trace and the run row always agree.
            "input_tokens": usage_count(input_tokens), "output_tokens": usage_count(output_tokens),
            "duration_ms": clamp_count(duration_ms),
            "failure_class": enum_name(failure_class),
        }, f"record a model call of run {run_id}")

    def record_receipt(self, run_id: str, receipt: dict[str, Any]) -> None:
        """Queue one retry-attempt receipt."""
        self._append(receipts, run_id, {"receipt": to_json(receipt, "retry receipt")},
                     f"record a retry receipt of run {run_id}")

    def record_verdict(self, run_id: str, guard: str, verdict: dict[str, Any]) -> None:
        """Queue one guard verdict (``guard`` names the guard, e.g. ``evidence``)."""
        self._append(verdicts, run_id, {"guard": guard, "verdict": to_json(verdict, "guard verdict")},
                     f"record a verdict of run {run_id}")

    def record_event(self, run_id: str, seq: int, event: dict[str, Any]) -> bool:
        """Queue the ``seq``-th emitted event; a seq this store already has returns False.

        The first write of a seq wins, like the run row: a re-executed node (resume after a
        crash) must not duplicate or overwrite what the client already received. Known seqs
        are the ones recorded through this store and those :meth:`events` read; the database
        ignores any other repeat as well. Never blocks on the database.
        """
        what = f"record event {seq} of run {run_id}"
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_COUNT:
            raise RunPersistenceError(f"cannot {what}: seq must be a non-negative integer")
        payload = self._text(to_json(event, "event"))
        params = {"run_id": self._text(run_id), "seq": seq, "event": payload, "recorded_at": now_iso()}
        with self._lock:
            seen = self._remember(self._seen, run_id, set())
            if seq in seen:
                return False
            self._usable(what)
            self._writer.submit(Row(run_id, what, self._event_insert, params))
            seen.add(seq)
        return True

    # --- readers (the others are RunReads) ------------------------------------------------------

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's events in seq order."""
        key = self._text(run_id)
        rows = self._read_driver(lambda driver: driver.rows(_EVENTS, {"key": key}),
                                 f"read events of run {run_id}")
        with self._lock:  # a resumed run's emitter goes on from these: they are known seqs now
            self._remember(self._seen, run_id, set()).update(seq for seq, _ in rows)
        return [json.loads(event) for _, event in rows]
