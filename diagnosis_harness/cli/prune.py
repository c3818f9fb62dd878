"""``harness prune --older-than 7d``: delete old runs and threads from the shared stores.

What goes: every run that finished before the cutoff, with its trace (tool records, model calls,
receipts, verdicts, events), and every thread whose latest checkpoint is older than the cutoff,
with all its checkpoints. A run that never finished is left alone (whoever resumes or settles
it needs its row). The stores are the ones ``HARNESS_DATABASE_URL`` selects. Heavy modules are
imported inside the command, so ``harness --help`` stays fast.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from diagnosis_harness.cli.exits import Exit

if TYPE_CHECKING:
    from diagnosis_harness.control.settings import Settings

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> timedelta:
    """``90m``, ``12h``, ``7d``, ``2w`` (or seconds: ``30s``) as a timedelta; ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", text.lower())
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"--older-than {text!r}: use a positive number and a unit: "
                         "30s, 90m, 12h, 7d or 2w")
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"harness: {message}", err=True)
    raise typer.Exit(code)


def prune_runs(location: str | Path, before: datetime) -> tuple[int, int]:
    """Delete the runs finished before ``before`` and their trace rows: (runs, trace rows)."""
    from sqlalchemy import Connection, delete, select

    from diagnosis_harness.runstore.db import Database
    from diagnosis_harness.runstore.schema import events, model_calls, receipts, runs, tool_records, verdicts

    cutoff = before.astimezone(UTC).isoformat()  # the store's timestamps: ISO-8601 UTC text
    old = select(runs.c.run_id).where(runs.c.finished_at.is_not(None), runs.c.finished_at < cutoff)

    def prune(conn: Connection) -> tuple[int, int]:
        # Children first, then the rows: one transaction, so a reader never sees a half-pruned run.
        trace = sum(conn.execute(delete(table).where(table.c.run_id.in_(old))).rowcount
                    for table in (tool_records, model_calls, receipts, verdicts, events))
        return conn.execute(delete(runs).where(runs.c.run_id.in_(old))).rowcount, trace

    db = Database(location)
    try:
        done = db.run(prune, f"prune runs finished before {cutoff}")
        db.shrink(convert=True)  # the file shrinks by what was deleted (an older one: VACUUM)
        return done
    finally:
        db.close()


async def prune_threads(settings: Settings, before: datetime) -> int:
    """Delete the threads whose latest checkpoint is older than ``before``: how many."""
    from diagnosis_harness.session.runner import open_checkpointer

    async with open_checkpointer(settings) as saver:
        return await saver.delete_threads_before(before)


def prune(
    older_than: Annotated[str, typer.Option("--older-than", help="Age: 30s, 90m, 12h, 7d, 2w.")],
) -> None:
    """Delete runs (rows and trace) and threads (checkpoints) older than an age."""
    from diagnosis_harness.control.settings import SettingsError, load_settings
    from diagnosis_harness.runstore.store import RunPersistenceError
    from diagnosis_harness.session.services import database_problem, run_store_location

    try:
        age = parse_age(older_than)
        settings = load_settings()
    except (ValueError, SettingsError) as exc:
        _fail(str(exc), Exit.USAGE)
    if (problem := database_problem(settings)) is not None:
        _fail(problem, Exit.USAGE)
    before = datetime.now(UTC) - age
    try:
        pruned, trace = prune_runs(run_store_location(settings), before)
        import asyncio  # not at the top: `harness --help` imports this module

        threads = asyncio.run(prune_threads(settings, before))
    except RunPersistenceError as exc:
        _fail(str(exc), Exit.FAILED)
    typer.echo(f"pruned {pruned} runs finished before {before.isoformat(timespec='seconds')} "
               f"({trace} trace rows) and {threads} threads whose latest checkpoint is older")
