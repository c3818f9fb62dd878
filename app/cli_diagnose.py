"""``harness diagnose``: one turn with a live status line, a readable report or ``--json``.

Kept apart from ``cli.py`` so ``harness --help`` never imports LangGraph. This is the one
run-control module that reaches up to the graph runner: it is the command's entry point.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from harness.settings import Settings

EXIT_BY_OUTCOME = {"SUCCESS": 0, "FALLBACK": 0, "FAILED": 2, "CANCELLED": 130}


async def _run(settings: Settings, question: str, thread_id: str | None,
               on_event: Callable[[dict[str, Any]], None], services: Any) -> dict[str, Any]:
    from app.runner import open_checkpointer, run_turn

    async with open_checkpointer(settings) as saver:
        return await run_turn(services, question, thread_id=thread_id, checkpointer=saver,
                              on_event=on_event)


def run_cli_turn(settings: Settings, question: str, *, thread_id: str | None, as_json: bool,
                 usage_error: Callable[[str], NoReturn]) -> int:
    """Run the turn and print it; return the process exit code."""
    from rich.console import Console

    from app.services import Services
    from harness.runstore import RunPersistenceError
    from providers.replay import ReplayFileError
    from providers.seam import ModelSpecError
    from tools.dataset.format import DatasetError

    err = Console(stderr=True)
    try:
        services = Services.from_settings(settings)
    except (ModelSpecError, ReplayFileError, DatasetError, RunPersistenceError) as exc:
        usage_error(str(exc))
    status = err.status("starting…") if err.is_terminal and not as_json else None

    def on_event(event: dict[str, Any]) -> None:
        if event.get("event") == "status":
            if status is not None:
                status.update(f"{event['phase']}…")
            elif not as_json:
                err.print(f"[dim]… {event['phase']}[/dim]")

    try:
        if status is not None:
            status.start()
        out = asyncio.run(_run(settings, question, thread_id, on_event, services))
    except RunPersistenceError as exc:  # the checkpointer could not be opened: before any run
        usage_error(str(exc))
    except KeyboardInterrupt:
        err.print("cancelled")
        return EXIT_BY_OUTCOME["CANCELLED"]
    finally:
        if status is not None:
            status.stop()
    if as_json:
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        _print_human(out)
    return EXIT_BY_OUTCOME.get(out.get("release_outcome") or "FAILED", 2)


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
    sys.stdout.write("\n".join(lines) + "\n")
