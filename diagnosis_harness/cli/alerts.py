"""``harness alerts test FILE``: what a saved alert notification would start and post.

The payload goes through the routes' own parser, question and target selection
(:mod:`diagnosis_harness.serving.alerts`), without a server and without touching the run store:
for setting up Alertmanager's receiver, or checking a saved notification.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from diagnosis_harness.cli.errors import load_cli_settings, usage_error
from diagnosis_harness.control.terminal_text import printable_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from diagnosis_harness.serving.alert_payload import AlertGroup

alerts_app = typer.Typer(help="Alert intake (docs/alerts.md).", no_args_is_help=True)


@alerts_app.command("test")
def test(
    file: Annotated[Path, typer.Argument(help="A saved notification (JSON).")],
    source: Annotated[str, typer.Option(
        "--source", help="alertmanager or generic (default: alertmanager if it has 'version').")
    ] = "",
) -> None:
    """Print what the notification would investigate and where the outcome would be posted."""
    from diagnosis_harness.notify.messages import targets
    from diagnosis_harness.serving.alert_payload import AlertPayloadError, question_for

    parsers = routes()

    try:
        data = file.read_bytes()
    except OSError as exc:
        usage_error(f"{file}: {exc.strerror}")
    settings = load_cli_settings()
    if len(data) > settings.alerts_max_body_bytes:
        usage_error(f"{file}: larger than HARNESS_ALERTS_MAX_BODY_BYTES "
                    f"({settings.alerts_max_body_bytes}); the route would answer 413")
    if not source:
        source = "alertmanager" if b'"version"' in data else "generic"
    if source not in parsers:
        usage_error(f"--source {source}: use alertmanager or generic")
    try:
        group = parsers[source](data)
        firing = group.status == "firing"
        # As Intake.question asks it (no dataset loaded here, so no known services)
        question = question_for(group, settings.alerts_service_labels, settings.alerts_lookback_s,
                                max_bytes=settings.max_question_bytes) if firing else None
    except AlertPayloadError as exc:
        usage_error(f"{file}: {exc} (the route would answer 4xx)")
    out = {
        "route": f"POST /alerts/{source}",
        "routes_enabled": settings.alerts_token is not None,
        "group_key": group.group_key, "thread_id": _thread_of(group, settings.home),
        "status": group.status,
        "firing_fingerprints": group.firing,
        "would": "start one investigation (unless the group's run is active or already "
                 "investigated these alerts)" if firing else "cancel the group's active run, "
                 "or record the resolution",
        "question": question,
        "flags": group.flags,
        "post_to": [target for target, _ in targets(settings, group.issue)] if firing else [],
    }
    typer.echo(printable_json(out, indent=2))  # alert labels are data


def routes() -> dict[str, Callable[[bytes], AlertGroup]]:
    """The routes' parsers by source, as ``serving.alerts.PARSERS`` has them (a test holds them equal).

    Not imported from there: ``serving.alerts`` brings the server, the run store and the LangGraph
    SDK (~0.6 s of imports) that a dry run never uses.
    """
    from diagnosis_harness.serving.alert_payload import parse_alertmanager, parse_generic

    return {"alertmanager": parse_alertmanager, "generic": parse_generic}


def _thread_of(group: AlertGroup, home: Path) -> str | None:
    """The group's thread on this home's server; None before a server made its secret (no write)."""
    from dataclasses import replace

    from diagnosis_harness.serving.alert_payload import THREAD_SECRET_FILE, thread_secret

    if not (Path(home) / THREAD_SECRET_FILE).exists():
        return None
    return replace(group, thread_secret=thread_secret(home)).thread_id
