"""``harness data load`` and ``harness data import``: datasets the evidence tools read.

Heavy work happens in :mod:`diagnosis_harness.tools.dataset`; this module parses options, shows progress on a
terminal and prints what was loaded and what had to be assumed. Every failure is one clear
message and exit 64, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from diagnosis_harness.cli.errors import load_cli_settings, usage_error
from diagnosis_harness.control.terminal_text import printable


def _echo(text: str) -> None:
    # File names, notes and attributes come from the user's files: shown, never acted on.
    typer.echo(printable(text))


data_app = typer.Typer(help="Incident datasets the evidence tools read.", no_args_is_help=True)


def _load(directory: Path) -> None:
    """Build (or reuse) the dataset in ``directory`` and print what it holds."""
    from diagnosis_harness.cli.errors import check_home, problem
    from diagnosis_harness.tools.dataset.build import ensure_dataset
    from diagnosis_harness.tools.dataset.format import DatasetError
    from diagnosis_harness.tools.dataset.layout import dataset_info

    settings = load_cli_settings(data_dir=directory)
    if (bad_home := check_home(settings)) is not None:
        usage_error(bad_home)
    try:
        dest = ensure_dataset(settings)
    except DatasetError as exc:
        usage_error(str(exc))
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc, settings)) is None:
            raise
        usage_error(line)
    info = dataset_info(dest)
    _echo(f"loaded {info.name}: {info.events} log events from {len(info.services)} services, "
          f"{len(info.tables)} tables, {info.passages} runbook passages → {dest}")
    if info.attributes:
        _echo(f"log attributes query_logs can filter on: {', '.join(info.attributes[:15])}"
              + (" …" if len(info.attributes) > 15 else ""))
    for note in info.notes:
        _echo(f"  note: {note}")


@data_app.command("load")
def data_load(
    directory: Annotated[Path, typer.Argument(help="Dataset folder (logs.jsonl, tables/, knowledge/).")],
) -> None:
    """Index an incident dataset folder into the embedded backends."""
    _load(directory)


@data_app.command("import")
def data_import(
    sources: Annotated[list[Path], typer.Argument(help="Log exports, tables (.csv/.tsv), runbooks "
                                                       "(.md) or folders of them; .gz is fine.")],
    into: Annotated[Path, typer.Option("--into", help="Dataset folder to write (new or empty).")],
    fmt: Annotated[str | None, typer.Option(
        "--format", help="Log format instead of detecting it: ecs, loki, otel, k8s-events, json "
                         "(zap, logrus, bunyan…), native, kubectl (logs --timestamps), syslog, "
                         "nginx, nginx-error, apache-error, logfmt, text.")
    ] = None,
    pattern: Annotated[str | None, typer.Option(
        "--pattern", help="Regex for each log line, with named groups: ts (required), level, "
                          "service, message and any attribute.")] = None,
    tz: Annotated[str, typer.Option("--tz", help="Zone of times written without one.")] = "UTC",
    dayfirst: Annotated[bool | None, typer.Option(
        "--dayfirst/--monthfirst", help="How to read 03/04/2026 (default: as the file's "
                                        "unambiguous dates show, else an error).")] = None,
    time_format: Annotated[str | None, typer.Option(
        "--time-format", help="strptime-style format of the logs' times, e.g. '%y/%m/%d %H:%M:%S' "
                              "(needed for two-digit years); finds the time at the start of a "
                              "text line too.")] = None,
    year: Annotated[int | None, typer.Option(
        "--year", help="Year of times written without one, as in syslog (default: the file's).")
    ] = None,
    service: Annotated[str | None, typer.Option(
        "--service", help="Service of events that name none (default: from the file name).")] = None,
    name: Annotated[str | None, typer.Option("--name", help="Dataset name.")] = None,
    skip_bad: Annotated[bool, typer.Option(
        "--skip-bad", help="Skip unreadable lines (counted in the summary) instead of failing.")
    ] = False,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite an existing dataset folder.")
                       ] = False,
    load: Annotated[bool, typer.Option("--load/--no-load", help="Load the result right away.")
                    ] = True,
) -> None:
    """Convert your own exports into a dataset folder (format auto-detected), then load it."""
    from diagnosis_harness.control.settings import zone_of
    from diagnosis_harness.tools.dataset.format import DatasetError
    from diagnosis_harness.tools.dataset.importer import ImportOptions, ReadLimits, import_sources
    from diagnosis_harness.tools.dataset.sniff import canonical_format
    from diagnosis_harness.tools.dataset.text_logs import compile_pattern
    from diagnosis_harness.tools.time_format import TimeFormat

    try:
        zone_of(tz)
        if fmt is not None:
            canonical_format(fmt)
        if pattern is not None:
            compile_pattern(pattern)
        if time_format is not None:
            TimeFormat.parse(time_format)
    except ValueError as exc:
        usage_error(str(exc))
    settings = load_cli_settings()  # HARNESS_IMPORT_MAX_*: absurd values are refused here
    limits = ReadLimits(line_bytes=settings.import_max_line_bytes,
                        total_bytes=settings.import_max_bytes,
                        document_bytes=settings.import_max_document_bytes)
    options = ImportOptions(format=fmt, pattern=pattern, timezone=tz, dayfirst=dayfirst,
                            time_format=time_format, year=year, service=service, name=name,
                            skip_bad=skip_bad, replace=replace, limits=limits)
    try:
        with _progress() as progress:
            report = import_sources(list(sources), into, options, progress=progress)
    except DatasetError as exc:
        usage_error(str(exc))
    logs = [s for s in report.sources if s.kind == "logs"]
    other = len(report.sources) - len(logs)
    _echo(f"imported {report.events} log events from {len(logs)} log file(s) and {other} "
          f"table/runbook file(s) into {into}")
    for source in report.sources:
        _echo(f"  {source.summary()}".replace("\n", "\n  "))
    if load:
        _load(into)
        _echo(f'next: harness diagnose --data {into} "what went wrong on SERVICE between '
              'HH:MM and HH:MM on YYYY-MM-DD?"')


class _progress:
    """A progress bar on a terminal's stderr while an import runs; nothing when piped."""

    def __enter__(self) -> Any:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        console = Console(stderr=True)
        if not console.is_terminal:
            self._bar = None
            return None
        self._bar = Progress("importing", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                             console=console, transient=True)
        self._bar.start()
        task = self._bar.add_task("import", total=None)

        def update(done: int, total: int) -> None:
            assert self._bar is not None
            self._bar.update(task, completed=done, total=total)

        return update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
        sys.stderr.flush()
