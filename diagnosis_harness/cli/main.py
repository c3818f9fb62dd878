"""The ``harness`` command line (docs/design.md §12).

Heavy modules (langgraph, langchain-openai) are imported inside the commands that need them, so
``harness --help`` stays fast. Exit codes: :class:`diagnosis_harness.cli.exits.Exit`; a known
problem is one line naming it (``diagnosis_harness.cli.errors``), never a traceback.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from diagnosis_harness.cli import inspect as cli_inspect  # noqa: F401 — registers `runs list/show/approve/cancel` on runs_app
from diagnosis_harness.cli import signals
from diagnosis_harness.cli.alerts import alerts_app
from diagnosis_harness.cli.data import data_app
from diagnosis_harness.cli.errors import load_cli_settings, setup_logging, usage_error
from diagnosis_harness.cli.eval import eval_suite
from diagnosis_harness.cli.exits import Exit
from diagnosis_harness.cli.prune import prune
from diagnosis_harness.cli.runs import runs_app

EXIT_USAGE = Exit.USAGE  # what tests and callers compare a usage error with

app = typer.Typer(
    name="harness",
    help="Diagnose production incidents with an LLM agent that may only publish verified claims.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(data_app, name="data")
app.add_typer(alerts_app, name="alerts")  # `harness alerts test FILE` (docs/alerts.md)
app.add_typer(runs_app, name="runs")  # `harness runs …` (docs/design.md §14)

_debug = False  # --debug or HARNESS_LOG_LEVEL=DEBUG: tracebacks of handled and internal errors


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Log at debug level, with tracebacks.")] = False,
) -> None:
    """Diagnose production incidents with an LLM agent that may only publish verified claims."""
    global _debug
    _debug = setup_logging(debug)


def _usage_error(message: str) -> NoReturn:
    usage_error(message)


def _settings(**overrides: object):  # type: ignore[no-untyped-def]
    return load_cli_settings(**overrides)


@app.command()
def config(
    model: Annotated[str | None, typer.Option(help="Model spec to check.")] = None,
) -> None:
    """Print the effective settings (secrets masked) and check the model spec."""
    from diagnosis_harness.control.secrets import is_secret_name, redact, secret_field_names
    from diagnosis_harness.providers.seam import ModelSpecError, judge_settings, judge_spec, parse_model_spec
    from diagnosis_harness.providers.structured import (
        describe,  # probes the server under auto (a set-up check)
    )

    settings = _settings(model=model)
    try:
        spec = parse_model_spec(settings.model)
        judging_spec = judge_spec(settings)
    except ModelSpecError as exc:
        _usage_error(str(exc))
    values = settings.model_dump(mode="json")
    for secret in secret_field_names(type(settings)):  # every key/token/password, by name
        if values.get(secret) and is_secret_name(secret):
            values[secret] = "***"
    values["model_provider"] = spec.provider
    values["structured_output_detected"] = describe(
        settings, spec.name if spec.provider == "openai" else None, probe_now=True)
    if (judging := judge_settings(settings)) is not None and judging_spec is not None:
        values["judge_base_url_effective"] = judging.openai_base_url
        values["judge_structured_output_detected"] = describe(
            judging, judging_spec.name if judging_spec.provider == "openai" else None,
            probe_now=True)
    typer.echo(redact(json.dumps(values, indent=2, sort_keys=True)))  # URL passwords too


@app.command()
def diagnose(
    question: Annotated[str, typer.Argument(help="The incident question, in plain words.")],
    thread: Annotated[str | None, typer.Option("--thread", help="Continue this thread.")] = None,
    data: Annotated[Path | None, typer.Option("--data", help="Dataset folder (default: demo).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="offline | openai:NAME | replay:FILE")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Run one diagnosis turn; exit 0 SUCCESS/FALLBACK, 2 FAILED, 130/143 CANCELLED."""
    from diagnosis_harness.cli.startup import gc_paused

    with gc_paused():
        from diagnosis_harness.cli.diagnose import run_cli_turn

        settings = _settings(data_dir=data, model=model)
    raise typer.Exit(run_cli_turn(settings, question, thread_id=thread, as_json=as_json,
                                  usage_error=_usage_error))


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port to serve on; the command fails if it is busy.")] = 2024,
    host: Annotated[str, typer.Option(
        help="Interface to bind; beyond loopback only with HARNESS_SERVER_TOKEN.")] = "127.0.0.1",
    data: Annotated[Path | None, typer.Option("--data", help="Dataset folder (default: demo).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="offline | openai:NAME | replay:FILE")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="langgraph.json to serve.")] = None,
    reload: Annotated[bool, typer.Option("--reload/--no-reload", help="Restart when code changes.")] = False,
    log_level: Annotated[str | None, typer.Option(help="Server log level [default: WARNING].")] = None,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Runs the server works on at once.")] = 4,
) -> None:
    """Serve the graph for Studio, the SDK and curl (``langgraph dev``: offline, no browser)."""
    import importlib.util
    import os
    import socket

    from diagnosis_harness.providers.seam import ModelSpecError, judge_spec, parse_model_spec
    from diagnosis_harness.serving.auth import serve_problem
    from diagnosis_harness.session.services import database_problem

    settings = _settings(data_dir=data, model=model)  # malformed settings fail here, not in the server
    if (exposed := serve_problem(settings, host)) is not None:  # no open API beyond loopback
        _usage_error(exposed)
    try:
        parse_model_spec(settings.model)
        judge_spec(settings)
    except ModelSpecError as exc:
        _usage_error(str(exc))
    if (problem := database_problem(settings)) is not None:  # a shared database that does not answer
        _usage_error(problem)
    _preflight(settings)
    for module in ("langgraph_cli", "langgraph_api", "langgraph_runtime_inmem"):
        if importlib.util.find_spec(module) is None:
            _usage_error(f"serving needs {module}: pip install -e '.[dev]' (langgraph-cli[inmem])")
    if config is None:
        spec = importlib.util.find_spec("diagnosis_harness.graph")
        origin = spec.origin if spec is not None else None
        candidates = [Path(origin).resolve().parent.parent / "langgraph.json"] if origin else []
        config = next((c for c in [*candidates, Path("langgraph.json")] if c.is_file()), None)
        if config is None:
            _usage_error("no langgraph.json found: run from the project folder or pass --config")
    elif not config.is_file():
        _usage_error(f"--config {config}: no such file")
    # langgraph dev silently moves to another port when the one asked for is busy; a client or
    # Studio pointed at the asked-for port would then talk to something else. Check first,
    # exactly as langgraph dev does (SO_REUSEADDR + bind).
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            _usage_error(f"port {port} on {host} is not available ({exc.strerror}); "
                         "stop what uses it or pick another with --port")
    env = dict(os.environ, LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="1")
    if not any(os.environ.get(k) for k in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2")):
        env["LANGSMITH_TRACING"] = "false"  # no traces leave the machine unless asked for
    level = (log_level or os.environ.get("LOG_LEVEL") or "WARNING").upper()
    env["LOG_LEVEL"] = level  # the API's own logs; --server-log-level covers uvicorn's
    if model is not None:
        env["HARNESS_MODEL"] = model
    if data is not None:
        env["HARNESS_DATA_DIR"] = str(data.resolve())
    argv = [sys.executable, "-m", "langgraph_cli", "dev", "--config", str(config.resolve()),
            "--host", host, "--port", str(port), "--no-browser", "--n-jobs-per-worker", str(jobs),
            "--server-log-level", level]
    if not reload:
        argv.append("--no-reload")
    url = f"http://{host}:{port}"
    typer.echo(f"serving graph 'diagnosis' on {url} (model {settings.model}, home {settings.home})\n"
               f"Studio: https://smith.langchain.com/studio/?baseUrl={url}\n"
               f"API docs: {url}/docs", err=True)
    sys.stderr.flush()
    sys.stdout.flush()
    from diagnosis_harness.cli.serve_process import serve_child

    raise typer.Exit(serve_child(argv, env))


def _preflight(settings) -> None:  # type: ignore[no-untyped-def]
    """Open what the server will open (home, dataset, run store, checkpoints), then close it.

    A problem is one line here (exit 64), not a traceback in the server's log at its start.
    """
    import asyncio

    from diagnosis_harness.cli.diagnose import open_services
    from diagnosis_harness.cli.errors import problem
    from diagnosis_harness.session.runner import open_checkpointer

    services = open_services(settings, _usage_error)

    async def check() -> None:
        async with open_checkpointer(settings):
            pass

    try:
        asyncio.run(check())
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc, settings)) is None:
            raise
        _usage_error(line)
    finally:
        services.backends.close()
        close = getattr(services.store, "close", None)
        if close is not None:
            close()


app.command()(prune)
app.command("eval")(eval_suite)  # `harness eval SUITE` (docs/eval.md)


def main(argv: list[str] | None = None) -> NoReturn:
    """Run the CLI; usage errors exit 64 (not click's default 2, which means FAILED here).

    An error no command classified is one line too (exit 1); its traceback only at debug level.
    A SIGTERM or Ctrl-C before a command took it over (the run of ``diagnose``) is exit 143 or
    130 and one line (:mod:`diagnosis_harness.cli.signals`).
    """
    signals.start()
    setup_logging()  # until the --debug option is read: HARNESS_LOG_LEVEL
    args = sys.argv[1:] if argv is None else argv
    try:
        rv = app(args=args, standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):  # a signal outside a command (SIGTERM too)
        sys.exit(signals.stop_line(signals.before_start(args)))
    except Exception as exc:
        # typer vendors click: its usage errors are recognised by shape, not by import path.
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if show is None or code is None:
            _internal_error(exc)
        show()
        sys.exit(Exit.OK if type(exc).__name__ == "NoArgsIsHelpError" else Exit.USAGE)
    if rv == Exit.CANCELLED and not signals.announced():  # typer's 130 for a KeyboardInterrupt
        sys.exit(signals.stop_line(signals.before_start(args)))
    sys.exit(rv if isinstance(rv, int) else Exit.OK)


def _internal_error(exc: Exception) -> NoReturn:
    import logging

    from diagnosis_harness.cli.errors import problem
    from diagnosis_harness.control.terminal_text import printable

    try:
        line = problem(exc)
    except Exception:  # noqa: BLE001 — mapping must never hide the error it maps
        line = None
    if line is not None:  # a known problem that a command did not catch: still bad usage
        typer.echo(printable(f"harness: {line}"), err=True)
        logging.getLogger(__name__).debug("details", exc_info=exc)
        sys.exit(Exit.USAGE)
    text = " ".join(str(exc).split())
    logging.getLogger(__name__).error("internal error: %s: %s%s", type(exc).__name__, text,
                                      "" if _debug else " (run with --debug for the traceback)",
                                      exc_info=exc)
    sys.exit(Exit.INTERNAL)
