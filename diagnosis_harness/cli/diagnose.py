"""``harness diagnose``: one turn with a live status line, a readable report or ``--json``.

Kept apart from ``cli/main.py`` so ``harness --help`` never imports LangGraph: the runner is
imported inside the command. ``harness runs resume`` (``cli/runs.py``) shares its printing and
its signal handling.

Signals: Ctrl-C (SIGINT) and SIGTERM cancel the run where it is — CANCELLED row, no ``content``
and no ``done`` — and exit 130 and 143 with one line saying so; one that comes before the run row
exists says that nothing was recorded. A signal after release has decided changes nothing
(:mod:`diagnosis_harness.cli.signals`).
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NoReturn

from diagnosis_harness.cli import signals
from diagnosis_harness.cli.exits import Exit, for_outcome
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.control.terminal_text import printable, printable_json

if TYPE_CHECKING:
    from diagnosis_harness.runstore.store import RunStore
    from diagnosis_harness.session.services import Services

Problem = Callable[[BaseException], str | None]


def open_services(settings: Settings, usage_error: Callable[[str], NoReturn]) -> Services:
    """The process's services, or a one-line usage error (exit 64) naming what is wrong."""
    from diagnosis_harness.cli.errors import check_home, problem
    from diagnosis_harness.session.services import Services

    if (bad_home := check_home(settings)) is not None:
        usage_error(bad_home)
    try:
        services = Services.from_settings(settings)
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc, settings)) is None:
            raise
        usage_error(line)
    if services.mcp_tools and settings.model.strip() == "offline":
        # The offline investigator follows its own fixed steps over the built-in tools only.
        print(f"harness: note: the offline model never calls the {len(services.mcp_tools)} MCP "
              "tool(s) of HARNESS_MCP_CONFIG; use --model openai:NAME to use them", file=sys.stderr)
    return services


def run_with_signals(make: Callable[[], Awaitable[dict[str, Any]]],
                     problem: Problem, usage_error: Callable[[str], NoReturn],
                     on_cancel: Callable[[], str]) -> dict[str, Any] | int:
    """Run ``make()`` to its end; the exit code of a cancel (130, 143) or a usage error.

    The first SIGTERM or Ctrl-C cancels the run's task (:func:`signals.cancelling`), and the
    runner settles its row CANCELLED; one before the task is under way (``asyncio.run``
    starting) is a KeyboardInterrupt, the same end. ``on_cancel`` says, in one line, what the
    cancel left (no row, or the row CANCELLED). Once the run has ended, a signal changes
    nothing. An error before the run could start (a checkpoint store that cannot be opened, a
    run store that cannot take its row) is a one-line usage error.
    """

    async def main() -> dict[str, Any]:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        def cancel() -> None:  # in the loop, not in the interrupted frame; wakes it up
            loop.call_soon_threadsafe(task.cancel)

        with signals.cancelling(cancel):
            return await make()

    try:
        return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        signals.hold()
        return signals.stop_line(on_cancel())
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc)) is None:
            raise
        usage_error(line)


def cancelled_line(store: RunStore, run_id: str) -> str:
    """What a cancel left of run ``run_id``, read from the run store: no row, or its state."""
    try:
        row = store.get_run(run_id)
    except Exception as exc:  # noqa: BLE001 — the line must still be printed
        return f"cancelled: run {run_id} (its row could not be read: {type(exc).__name__})"
    if row is None:
        return signals.BEFORE_RUN
    return f"cancelled: run {run_id} is {row['run_state']}, nothing more is published"


def run_cli_turn(settings: Settings, question: str, *, thread_id: str | None, as_json: bool,
                 usage_error: Callable[[str], NoReturn]) -> int:
    """Run the turn and print it; return the process exit code."""
    from diagnosis_harness.cli.startup import gc_paused

    with gc_paused():  # imports and services: nothing to collect (cli/startup.py)
        from rich.console import Console

        from diagnosis_harness.cli.errors import problem
        from diagnosis_harness.session.runner import open_checkpointer, run_turn

        err = Console(stderr=True)
        services = open_services(settings, usage_error)
    status = err.status("starting…") if err.is_terminal and not as_json else None

    def on_event(event: dict[str, Any]) -> None:
        if event.get("event") == "status":
            if status is not None:
                status.update(f"{event['phase']}…")
            elif not as_json:
                err.print(f"[dim]… {event['phase']}[/dim]")

    run_id = uuid.uuid4().hex  # known here: a cancel's line says whether its row exists

    async def turn() -> dict[str, Any]:
        async with open_checkpointer(settings) as saver:
            return await run_turn(services, question, thread_id=thread_id, checkpointer=saver,
                                  on_event=on_event, run_id=run_id)

    try:
        if status is not None:
            status.start()
        out = run_with_signals(turn, lambda exc: problem(exc, settings), usage_error,
                               lambda: cancelled_line(services.store, run_id))
    finally:
        if status is not None:
            status.stop()
        services.close()
    if isinstance(out, int):
        return out
    return print_run(out, as_json)


def print_run(out: dict[str, Any], as_json: bool) -> int:
    """Print a run's end (report or ``--json``) and return its exit code.

    What went wrong outside the run's own events (a crash, a final checkpoint that could not
    be written) is one line on stderr as well. Control characters from data are shown escaped
    (:mod:`diagnosis_harness.control.terminal_text`), in ``--json`` too.
    """
    for key in ("error", "checkpoint_error"):
        if out.get(key):
            sys.stderr.write(printable(f"harness: {out[key]}") + "\n")
    if as_json:
        sys.stdout.write(printable_json(out) + "\n")
    elif out.get("paused"):
        sys.stdout.write(f"[PAUSED] the verified report awaits approval: harness runs show "
                         f"{out['run_id']}, then harness runs approve {out['run_id']} "
                         "(or --reject --note …)\n")
    else:
        _print_human(out)
    if out.get("paused"):
        return Exit.PAUSED
    return for_outcome(out.get("release_outcome"))


def _print_human(out: dict[str, Any]) -> None:
    outcome = out.get("release_outcome")
    head = f"[{outcome}{' / ' + out['fallback_type'] if out.get('fallback_type') else ''}]"
    lines = [head]
    if out.get("content"):
        lines.append(out["content"])
    elif out.get("failure_code"):
        failure: dict[str, Any] = next(
            (e for e in out.get("events", []) if e.get("event") == "failure"), {})
        lines.append(f"Failed ({out['failure_code']}): {failure.get('message', '')}")
    usage = out.get("usage") or {}
    lines.append("")
    model = out.get("model")
    if model == "offline":
        model = "offline (rule-based investigator, no LLM was used)"
    lines.append(f"model: {model} · run {out.get('run_id')} · thread "
                 f"{out.get('thread_id')} · {usage.get('model_calls', 0)} model calls, "
                 f"{usage.get('tool_calls', 0)} tool calls, "
                 f"{usage.get('input_tokens', 0) + usage.get('output_tokens', 0)} tokens")
    sys.stdout.write(printable("\n".join(lines)) + "\n")  # the report quotes data
