"""``harness runs …``: look at past runs and decide paused ones (docs/design.md §12 and §14).

- ``runs list [--thread T] [--json]``: runs newest first (a thread's in turn order);
- ``runs show RUN_ID [--json]``: one run's timeline — events, model calls and attempt receipts,
  tool calls with their records and evidence ids, guard verdicts, usage, and its lineage
  (parent, fork point, segments, edits, approval);
- ``runs approve RUN_ID [--reject] [--note TEXT] [--data DIR]``: decide a run that awaits
  approval, and let it go on to its release here (its thread's checkpoints are in the home,
  whoever started it), as its record says — never as this shell's settings say;
- ``runs cancel RUN_ID``: end a paused run CANCELLED.

Everything is read from the run store of the settings' home; nothing is imported before a
command runs, so ``harness --help`` stays fast.
"""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from diagnosis_harness.cli.errors import load_cli_settings, usage_error
from diagnosis_harness.cli.exits import for_outcome
from diagnosis_harness.cli.runs import runs_app
from diagnosis_harness.control.terminal_text import printable, printable_json

if TYPE_CHECKING:
    from diagnosis_harness.control.settings import Settings
    from diagnosis_harness.runstore.store import RunStore
    from diagnosis_harness.session.services import Services


def _store(settings: Settings) -> RunStore:
    from diagnosis_harness.runstore.store import RunPersistenceError, open_run_store
    from diagnosis_harness.session.services import check_database, run_store_location

    where = run_store_location(settings)  # HARNESS_DATABASE_URL, else the home's SQLite file
    if isinstance(where, Path) and not where.exists():
        usage_error(f"no run store at {where}: no run was made with this HARNESS_HOME")
    try:
        check_database(settings)
        return open_run_store(where)
    except RunPersistenceError as exc:
        usage_error(str(exc))


def _print(value: Any) -> None:
    sys.stdout.write(printable_json(value, indent=1) + "\n")


def _echo(text: str) -> None:
    """One piece of human output: it quotes data, so its control characters are shown escaped."""
    typer.echo(printable(text))


@runs_app.command("list")
def list_runs(
    thread: Annotated[str | None, typer.Option("--thread", help="Only this thread's runs.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many runs.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List runs, newest first (a thread's in turn order)."""
    from diagnosis_harness.session.report import render_list

    rows = _store(load_cli_settings()).list_runs(thread_id=thread, limit=limit)
    if as_json:
        _print(rows)
    else:
        _echo(render_list(rows))


@runs_app.command("show")
def show(
    run_id: Annotated[str, typer.Argument(help="The run id (as `runs list` or --json shows it).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    as_html: Annotated[bool, typer.Option(
        "--html", help="Print the run view as one self-contained HTML page (as in `harness eval`).")
    ] = False,
    data: Annotated[Path | None, typer.Option(
        "--data", help="The run's dataset, for the incident picture of --html (default: demo).")] = None,
) -> None:
    """Show one run: outcome, usage, lineage and its whole timeline."""
    from diagnosis_harness.session.report import render_story, run_story

    if as_html:
        _show_html(run_id, data)
        return
    store = _store(load_cli_settings())
    story = run_story(store, run_id)
    if story is None:
        usage_error(f"no run {run_id} in the run store")
    posts = store.posts(run_id) if hasattr(store, "posts") else []  # the outbox (docs/alerts.md)
    if as_json:
        _print({**story, "posts": posts})
    else:
        _echo(render_story(story))
        for post in posts:
            _echo(f"post to {post['target']}: {post['state']} after {post['attempts']} "
                  f"attempt(s)" + (f" (last error: {post['last_error']})"
                                   if post["last_error"] else ""))


def _paused_run(store: RunStore, run_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    from diagnosis_harness.continuations.resolve import paused_run
    from diagnosis_harness.continuations.starts import ContinuationRefused

    try:
        return paused_run(store, run_id)
    except ContinuationRefused as exc:
        usage_error(str(exc))


def _show_html(run_id: str, data: Path | None) -> None:
    from diagnosis_harness.eval.reports.html import run_html
    from diagnosis_harness.eval.runview import stored_run_view

    settings = load_cli_settings(data_dir=data)
    found = stored_run_view(settings, _store(settings), run_id)
    if found is None:
        usage_error(f"no run {run_id} in the run store")
    question, view = found
    sys.stdout.write(printable(run_html(question, view, run_id=run_id, title=f"harness run {run_id}")))


@runs_app.command("approve")
def approve(
    run_id: Annotated[str, typer.Argument(help="The run that awaits approval.")],
    reject: Annotated[bool, typer.Option("--reject", help="Reject: a fallback quoting the note.")] = False,
    note: Annotated[str, typer.Option("--note", help="Why; quoted in the run's record.")] = "",
    data: Annotated[Path | None, typer.Option(
        "--data", help="Dataset folder [default: the one the run's report was verified on].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run's result as JSON.")] = False,
) -> None:
    """Approve (or --reject) a verified report that awaits approval, and release the run.

    Everything about the gate comes from the run's record, not from this shell: the run goes on
    with the model it started with, on the data its report was verified on (other data is
    refused before anything runs), and the decision is recorded first, so of two approvers
    exactly one decides and the other is refused with one line (docs/design.md §14).
    """
    import asyncio  # not at the top: `harness --help` imports this module

    from diagnosis_harness.cli.diagnose import open_services
    from diagnosis_harness.continuations.approval import other_data, record_decision
    from diagnosis_harness.continuations.starts import ContinuationRefused
    from diagnosis_harness.runstore.lineage import approval_of, options_of

    row, lineage = _paused_run(_store(load_cli_settings()), run_id)
    approval = approval_of(lineage)
    state, asked = approval.get("state"), "REJECTED" if reject else "APPROVED"
    if not approval:
        usage_error(f"run {run_id} does not await approval (it is paused at a breakpoint): continue it "
              "from Studio or the SDK")
    if state not in ("PENDING", asked):  # decided, its release cut short: that decision stands
        usage_error(f"run {run_id} was already decided: {state} by "
                    f"{approval.get('decided_by') or 'unknown'}; a decision is final")
    recorded_dir = (approval.get("dataset") or {}).get("data_dir")
    settings = load_cli_settings(model=str(row["model_spec"]),
                                 data_dir=data or (Path(recorded_dir) if recorded_dir else None))
    services = open_services(settings, usage_error)
    if options_of(lineage).get("dataset") in (None, "default") and \
            (why := other_data(approval, services.dataset.fingerprint)) is not None:
        usage_error(f"run {run_id}: {why}")
    if state == "PENDING" and (refused := record_decision(
            services.store, run_id, approve=not reject, note=note, by=_actor())) is not None:
        usage_error(refused)
    try:
        out = asyncio.run(_resume(services, row["thread_id"], {"approve": not reject, "note": note}))
    except ContinuationRefused as exc:
        usage_error(str(exc))
    if as_json:
        _print(out)
    else:
        _echo(f"[{out.get('release_outcome')}"
              f"{' / ' + out['fallback_type'] if out.get('fallback_type') else ''}] run {run_id}")
        if out.get("content"):
            _echo(out["content"])
    raise typer.Exit(for_outcome(out.get("release_outcome")))


@runs_app.command("cancel")
def cancel(
    run_id: Annotated[str, typer.Argument(help="A paused run (a breakpoint or awaiting approval).")],
) -> None:
    """End a paused run CANCELLED: nothing is published, a later resume is refused."""
    from diagnosis_harness.continuations.lineage import cancel_paused

    settings = load_cli_settings()
    store = _store(settings)
    row, _ = _paused_run(store, run_id)
    import asyncio

    usage = asyncio.run(_usage_at_head(settings, row["thread_id"], run_id))
    if not cancel_paused(store, run_id, by=_actor(), why="cancelled from the command line",
                         usage=usage):
        usage_error(f"run {run_id} ended meanwhile; nothing was changed")
    typer.echo(f"[CANCELLED] run {run_id}")


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # noqa: BLE001 — no user name (a container): still the command line
        return "cli"


async def _usage_at_head(settings: Settings, thread_id: str, run_id: str) -> dict[str, Any] | None:
    from diagnosis_harness.graph.builder import build_graph
    from diagnosis_harness.session.runner import open_checkpointer

    async with open_checkpointer(settings) as saver:
        values = (await build_graph(saver).aget_state({"configurable": {"thread_id": thread_id}})).values
    return values.get("usage") if values.get("run_id") == run_id else None


async def _resume(services: Services, thread_id: str, answer: dict[str, Any]) -> dict[str, Any]:
    """Continue the thread's paused run with ``answer``; its output fields (as ``diagnose --json``)."""
    from langgraph.types import Command

    from diagnosis_harness.graph.builder import build_graph
    from diagnosis_harness.session.run_session import RunSession
    from diagnosis_harness.session.runner import OUTPUT_KEYS, open_checkpointer
    from diagnosis_harness.session.starts import RunResolver, ServicesByOptions

    resolver = RunResolver(ServicesByOptions(services), services, actor=_actor())
    final: dict[str, Any] = {}
    async with open_checkpointer(services.settings) as saver:
        session = RunSession(build_graph(saver), resolve_context=resolver)
        async for mode, chunk in session.stream(Command(resume=answer),
                                                {"configurable": {"thread_id": thread_id}},
                                                stream_mode=["custom", "values"]):
            if mode == "values":
                final = chunk
    return {key: final.get(key) for key in OUTPUT_KEYS}
