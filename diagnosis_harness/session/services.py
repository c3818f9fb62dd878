"""What the runs of one process share: settings, model seam, tool backends, dataset, run store.

Built once per process by whoever runs the graph: the CLI for its one turn, the serving adapter
for all the runs of the server, tests for theirs; the MCP servers' tools are listed then too. A
run's own pieces (lifecycle, event emitter) are made per run by
:func:`diagnosis_harness.session.runner.new_context`.

Where state lives is one setting, ``HARNESS_DATABASE_URL``: unset, the run store and the
checkpointer are SQLite files under ``HARNESS_HOME`` (one machine); a ``postgresql://`` URL puts
both in that database, which any number of workers (CLI, scripts, server replicas) share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.db import PG_CONNECT_TIMEOUT_S
from diagnosis_harness.runstore.errors import describe
from diagnosis_harness.runstore.store import RunPersistenceError, RunStore, open_run_store

if TYPE_CHECKING:
    from diagnosis_harness.tools.backends import Backends
    from diagnosis_harness.tools.dataset.layout import DatasetInfo

RUN_STORE_FILE = "runs.sqlite"
"""The run store's file under the settings' home."""


def database_url(settings: Settings) -> str | None:
    """The shared database's URL (``HARNESS_DATABASE_URL``), or None for SQLite under the home."""
    return settings.database_url.get_secret_value() if settings.database_url is not None else None


def run_store_location(settings: Settings) -> str | Path:
    """What :func:`~diagnosis_harness.runstore.store.open_run_store` opens for these settings."""
    return database_url(settings) or Path(settings.home) / RUN_STORE_FILE


def check_database(settings: Settings) -> None:
    """Fail at once, with one line, when the shared database does not answer.

    The run store retries a lost connection for a while (a server restarting mid-run); at start
    there is nothing to wait for: a wrong URL or a server that is down is the user's to fix.
    No-op for SQLite (its files are made as needed).
    """
    url = database_url(settings)
    if url is None:
        return
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    shown = parsed.render_as_string(hide_password=True)
    try:
        import psycopg
    except ImportError as exc:
        raise RunPersistenceError("HARNESS_DATABASE_URL needs the postgres extra: "
                                  "pip install -e '.[postgres]' in the harness's repository") from exc
    conninfo = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(conninfo, connect_timeout=PG_CONNECT_TIMEOUT_S):
            pass
    except psycopg.Error as exc:
        raise RunPersistenceError(f"database {shown} is not reachable: {describe(exc)}") from exc


def database_problem(settings: Settings) -> str | None:
    """:func:`check_database` as a one-line message (None when the database answers)."""
    try:
        check_database(settings)
    except RunPersistenceError as exc:
        return str(exc)
    return None


@dataclass
class Services:
    """What runs share within one process: settings, models, backends, dataset, store."""

    settings: Settings
    seam: ModelSeam
    backends: Backends
    dataset: DatasetInfo
    store: RunStore
    mcp_tools: dict[str, Any] = field(default_factory=dict)
    """Evidence tools from MCP servers by harness name (``diagnosis_harness.tools.registry.ToolSpec``)."""

    def close(self) -> None:
        """Write what the run store has queued and close it and the backends (a clean exit).

        A SQLite file is left without its write-ahead log; nothing else changes.
        """
        try:
            self.store.close()
        finally:
            self.backends.close()

    @classmethod
    def from_settings(cls, settings: Settings, *, seam: ModelSeam | None = None,
                      store: RunStore | None = None) -> Services:
        """Open everything a run needs; errors are the classified ones of each piece.

        The run store is the one ``HARNESS_DATABASE_URL`` selects (RunPersistenceError, one
        line, when it cannot be opened).
        """
        from diagnosis_harness.tools.backends import Backends
        from diagnosis_harness.tools.dataset.build import ensure_dataset
        from diagnosis_harness.tools.mcp import load_mcp_tools

        seam = seam or ModelSeam(settings)
        ensure_dataset(settings)  # build (or reuse) first: opening backends never builds
        backends = Backends.from_settings(settings)  # honours ops_db_url / ops_tables
        Path(settings.home).mkdir(parents=True, exist_ok=True)
        try:
            mcp_tools = load_mcp_tools(settings)  # HARNESS_MCP_CONFIG; {} without one
            if store is None:
                check_database(settings)
                store = open_run_store(run_store_location(settings))
        except BaseException:
            backends.close()
            raise
        return cls(settings=settings, seam=seam, backends=backends, dataset=backends.info,
                   store=store, mcp_tools=mcp_tools)
