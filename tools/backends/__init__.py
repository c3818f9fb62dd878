"""Read-only handles on a built dataset: the log store, the runbook index, the ops database.

And, when ``HARNESS_PROMETHEUS_URL`` is set, a read-only client of that Prometheus
(:mod:`diagnosis_harness.tools.backends.prometheus`; it opens no connection until used).

``Backends.open(dir)`` is cheap (three SQLite opens) and must be closed. The pieces live in
:mod:`diagnosis_harness.tools.backends.sqlite` (read-only, hardened SQLite; the embedded ops database) and
:mod:`diagnosis_harness.tools.backends.sqlalchemy` (the ops database at a URL); this module only assembles
them,
and neither of them imports it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends.prometheus import Prometheus
from diagnosis_harness.tools.backends.sqlite import (
    BackendUnavailable,
    OpsBackend,
    OpsResult,
    SqliteOps,
    fetch_capped,
    harden_sqlite,
    open_readonly,
    ro_uri,
)
from diagnosis_harness.tools.dataset.layout import (
    KNOWLEDGE_DB,
    LOGS_DB,
    OPS_DB,
    DatasetInfo,
    dataset_dir,
    dataset_info,
)

__all__ = [
    "BackendUnavailable", "Backends", "OpsBackend", "OpsResult", "SqliteOps", "fetch_capped",
    "harden_sqlite", "open_readonly", "ro_uri",
]


class Backends:
    """The three read-only backends of one built dataset (close when done)."""

    def __init__(
        self, directory: Path, logs: sqlite3.Connection, knowledge: sqlite3.Connection,
        ops: OpsBackend, info: DatasetInfo,
    ) -> None:
        self.directory = directory
        self.logs = logs
        self.knowledge = knowledge
        self.ops = ops
        self.info = info
        self.lock = threading.RLock()
        """Serialises use of the connections across threads (tool calls are serial anyway)."""
        self.prometheus: Prometheus | None = None
        """The Prometheus server ``query_metrics`` reads (``HARNESS_PROMETHEUS_URL``), if any."""

    @classmethod
    def open(cls, directory: Path, *, ops_db_url: str | None = None,
             ops_tables: Sequence[str] | None = None) -> Backends:
        """Open a built backend dir; ``ops_db_url`` swaps the embedded ops DB for a real one."""
        directory = Path(directory)
        try:
            info = dataset_info(directory)
        except FileNotFoundError as exc:
            raise BackendUnavailable(str(exc)) from None
        logs = open_readonly(directory / LOGS_DB)
        knowledge = open_readonly(directory / KNOWLEDGE_DB)
        try:
            if ops_db_url:
                # Imported here: SQLAlchemy costs start-up time that most runs (the embedded
                # ops database) never need.
                from diagnosis_harness.tools.backends.sqlalchemy import SqlAlchemyOps

                ops: OpsBackend = SqlAlchemyOps(ops_db_url, ops_tables)
            else:
                try:
                    ops = SqliteOps(directory / OPS_DB)
                except sqlite3.Error as exc:  # a damaged file: say which, never rewrite it
                    raise BackendUnavailable(f"{directory / OPS_DB}: cannot open: {exc}") from None
        except Exception:
            logs.close()
            knowledge.close()
            raise
        return cls(directory, logs, knowledge, ops, info)

    @classmethod
    def from_settings(cls, settings: Settings) -> Backends:
        """Open the built dataset ``settings`` names, with its ops settings (never builds it)."""
        directory = dataset_dir(settings)
        url = settings.ops_db_url.get_secret_value() if settings.ops_db_url else None
        tables = [t.strip() for t in (settings.ops_tables or "").split(",") if t.strip()]
        backends = cls.open(directory, ops_db_url=url, ops_tables=tables or None)
        if settings.prometheus_url:
            backends.prometheus = Prometheus(settings.prometheus_url,
                                             timeout_s=settings.prometheus_timeout_s)
        return backends

    def ops_schema(self) -> dict[str, list[str]]:
        """Tables ``query_mysql`` may read, with their columns."""
        return self.ops.schema()

    def close(self) -> None:
        """Close every connection."""
        self.logs.close()
        self.knowledge.close()
        self.ops.close()

    def __enter__(self) -> Backends:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
