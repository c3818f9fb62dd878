"""The thread checkpointer the settings select, for the CLI, scripts and the server alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from diagnosis_harness.checkpoints.savers import HarnessCheckpointer, sqlite_checkpointer
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.runstore.store import RunPersistenceError
from diagnosis_harness.session.services import database_url

CHECKPOINT_FILE = "checkpoints.sqlite"
"""The checkpointer's file under the settings' home (the CLI and the server share it)."""


class CheckpointStoreError(Exception):
    """The checkpoint store cannot be opened; the message names the file and why."""


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[HarnessCheckpointer]:
    """The thread checkpointer the settings select, for the CLI, scripts and the server alike.

    ``HARNESS_DATABASE_URL`` unset: SQLite at ``$HARNESS_HOME/checkpoints.sqlite`` (WAL,
    synchronous=NORMAL, the home's lock wait); a ``postgresql://`` URL: the Postgres saver on a
    connection pool, in the same database as the run store. Checkpoints are pruned when a run
    ends as ``HARNESS_CHECKPOINT_RETENTION`` says (:mod:`diagnosis_harness.checkpoints.savers`).
    A SQLite file that cannot be opened (a directory, not a database, damaged, a home that is a file) is a
    :class:`CheckpointStoreError` naming it, and the file is never changed to make it open; a
    database that cannot be reached raises RunPersistenceError with a one-line message.
    """
    url = database_url(settings)
    opened: AbstractAsyncContextManager[HarnessCheckpointer]
    if url is not None:
        try:
            from diagnosis_harness.checkpoints.postgres import postgres_checkpointer
        except ImportError as exc:  # the postgres extra is not installed
            raise RunPersistenceError("a PostgreSQL checkpointer needs the postgres extra: "
                                      "pip install -e '.[postgres]' in the harness's repository") from exc
        opened = postgres_checkpointer(url, retention=settings.checkpoint_retention)
    else:
        path = Path(settings.home) / CHECKPOINT_FILE
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CheckpointStoreError(f"HARNESS_HOME {settings.home}: cannot use it as the home "
                                       f"folder: {exc.strerror or exc}") from exc
        if path.is_dir():
            raise CheckpointStoreError(f"checkpoint store {path}: is a directory, not a SQLite file")
        opened = sqlite_checkpointer(path, retention=settings.checkpoint_retention)
    async with opened as saver:
        yield saver
