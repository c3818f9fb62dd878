"""``harness runs …``: the runs in the run store. ``resume`` continues an interrupted run.

A run is interrupted when its worker died (``kill -9``, a crash of the machine) before it
ended: its row stays unfinished. ``harness runs resume RUN_ID`` continues it from its last
checkpoint with the same run id and row — its events and usage go on, the tool calls it
finished are reused, not run again — and prints its end as ``harness diagnose`` does, with the
same exit codes. A run that has nothing to continue from is settled FAILED / RUN_ABANDONED
(exit 2); one that is unknown, already finished, or still running in a live worker is a usage
error (exit 64). See docs/design.md §9 and §12.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from diagnosis_harness.cli.errors import load_cli_settings, usage_error

if TYPE_CHECKING:
    from diagnosis_harness.control.settings import Settings

runs_app = typer.Typer(help="Runs in the run store: list, show a timeline, resume an interrupted one, "
                       "approve or cancel a paused one.",
                       no_args_is_help=True)


def _model_of(settings: Settings, run_id: str) -> str | None:
    """The model spec the run was started with, from its row (None if there is no such row)."""
    from diagnosis_harness.cli.errors import check_home, problem
    from diagnosis_harness.runstore.store import open_run_store
    from diagnosis_harness.session.services import check_database, run_store_location

    if (bad := check_home(settings)) is not None:
        usage_error(bad)
    try:
        check_database(settings)
        store = open_run_store(run_store_location(settings))  # HARNESS_DATABASE_URL or the home
        row = store.get_run(run_id)
        store.close()
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc, settings)) is None:
            raise
        usage_error(line)
    return None if row is None else str(row["model_spec"])


@runs_app.command("resume")
def resume(
    run_id: Annotated[str, typer.Argument(help="The run to continue (its run_id).")],
    data: Annotated[Path | None, typer.Option("--data", help="Dataset folder (default: demo).")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="Model spec [default: the one the run started with]")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Continue an interrupted run from its last checkpoint; exit as diagnose does."""
    from diagnosis_harness.cli.startup import gc_paused

    with gc_paused():  # imports and services: nothing to collect (cli/startup.py)
        from diagnosis_harness.cli.diagnose import cancelled_line, open_services, print_run, run_with_signals
        from diagnosis_harness.cli.errors import problem
        from diagnosis_harness.session.runner import open_checkpointer, resume_run

        settings = load_cli_settings(data_dir=data, model=model)
        if model is None and (started_with := _model_of(settings, run_id)) is not None:
            settings = load_cli_settings(data_dir=data, model=started_with)
        services = open_services(settings, usage_error)

    async def go() -> dict[str, Any]:
        async with open_checkpointer(settings) as saver:
            return await resume_run(services, run_id, checkpointer=saver)

    out = run_with_signals(go, lambda exc: problem(exc, settings), usage_error,
                           lambda: cancelled_line(services.store, run_id))
    raise typer.Exit(out if isinstance(out, int) else print_run(out, as_json))
