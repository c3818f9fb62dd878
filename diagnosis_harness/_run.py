"""Running the harness from Python: one call per turn, or the graph with a context you make.

Both paths are the CLI's: the same settings (environment, ``.env``, then the arguments given
here), the same :class:`~diagnosis_harness.session.services.Services`, the same runner and checkpointer for
:func:`adiagnose`, the same compiled graph for :func:`build_graph`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from diagnosis_harness._result import DiagnosisResult, build_result
from diagnosis_harness._script import ReplayScript, ScriptIncomplete, TrackedScript
from diagnosis_harness.control.settings import SettingsError, load_settings
from diagnosis_harness.providers.replay import ReplayFileError
from diagnosis_harness.providers.seam import ModelSeam, ModelSpecError, parse_model_spec
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.session.hooked import SessionGraph, session_graph
from diagnosis_harness.session.runner import new_context, open_checkpointer, run_turn
from diagnosis_harness.session.services import Services
from diagnosis_harness.tools.dataset.format import DatasetError

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

Model = str | ReplayScript | Mapping[str, Any] | None
"""A model spec (``offline``, ``openai:NAME``, ``replay:FILE``), a :class:`ReplayScript`, a
script in the JSON replay format, or None for the settings' ``HARNESS_MODEL``."""
INLINE_SPEC = "replay:inline"
"""The model spec of a script given as an object rather than a file."""


class ConfigurationError(ValueError):
    """What the CLI rejects as bad usage (exit 64); the message says what to fix.

    A malformed setting, an unknown model spec, a malformed replay script, a broken dataset.
    """


ConfigurationError.__module__ = "diagnosis_harness"  # shown by its public name in reprs and tracebacks


def _services(model: Model, data: str | Path | None, settings: Mapping[str, Any] | None,
              home: str | Path | None) -> tuple[Services, TrackedScript | None]:
    overrides: dict[str, Any] = dict(settings or {})
    if home is not None:
        overrides["home"] = Path(home)
    if data is not None:
        overrides["data_dir"] = Path(data)
    script: TrackedScript | None = None
    try:
        if isinstance(model, ReplayScript):
            script = model._engine()
        elif isinstance(model, Mapping):
            script = ReplayScript.from_dict(model)._engine("<dict>")
        elif isinstance(model, str):
            overrides["model"] = model
        elif model is not None:
            raise TypeError(f"model must be a spec string, a ReplayScript or a dict, not "
                            f"{type(model).__name__}")
        if script is not None:
            overrides["model"] = INLINE_SPEC
        resolved = load_settings(**overrides)
        spec = parse_model_spec(resolved.model)
        if script is None and spec.provider == "replay":
            # Read here, as the seam would, to track its shortfall.
            script = cast(TrackedScript, TrackedScript.from_file(spec.name))
        seam = ModelSeam(resolved, replay_script=script)
        return Services.from_settings(resolved, seam=seam), script
    except (SettingsError, ModelSpecError, ReplayFileError, DatasetError) as exc:
        raise ConfigurationError(str(exc)) from exc
    except ValueError as exc:  # a malformed script given as a dict
        raise ConfigurationError(str(exc)) from exc


async def adiagnose(question: str, *, thread: str | None = None, model: Model = None,
                    data: str | Path | None = None, settings: Mapping[str, Any] | None = None,
                    home: str | Path | None = None) -> DiagnosisResult:
    """Run one turn, exactly as ``harness diagnose --json`` does, and return its result.

    ``thread``: continue that thread (its checkpoints are in ``home``); None starts a new one
    (``result.thread_id`` names it). ``model``: a spec (``offline``, ``openai:NAME``,
    ``replay:FILE``), a :class:`ReplayScript` or a script dict; None: ``HARNESS_MODEL``.
    ``data``: a dataset folder (None: ``HARNESS_DATA_DIR``, else the demo). ``settings``:
    overrides of any setting by field name (``{"max_tool_calls": 3}``). ``home``: where the
    run store, checkpoints and dataset builds live (None: ``HARNESS_HOME``, else ``.harness``).

    Raises :class:`ConfigurationError` for what the CLI rejects with exit 64, and
    :class:`ScriptIncomplete` (with ``.result``) when a replay script ran out.
    """
    services, script = _services(model, data, settings, home)
    last: list[dict[str, Any]] = [{}]

    def keep(state: dict[str, Any]) -> None:
        last[0] = state

    try:
        async with open_checkpointer(services.settings) as saver:
            out = await run_turn(services, question, thread_id=thread, checkpointer=saver,
                                 on_state=keep)
    finally:
        services.backends.close()
    result = build_result(out, last[0], services.store, script)
    if script is not None and (short := script.shortfall) is not None:
        missing = ScriptIncomplete(short.role, short.call, short.scripted, short.source)
        missing.result = result
        raise missing
    return result


def diagnose(question: str, *, thread: str | None = None, model: Model = None,
             data: str | Path | None = None, settings: Mapping[str, Any] | None = None,
             home: str | Path | None = None) -> DiagnosisResult:
    """Synchronous :func:`adiagnose` (for scripts and tests; inside a loop, await adiagnose)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(adiagnose(question, thread=thread, model=model, data=data,
                                     settings=settings, home=home))
    raise RuntimeError("diagnose() cannot run inside a running event loop: "
                       "use `await adiagnose(...)`")


def make_context(*, thread: str | None = None, model: Model = None,
                 data: str | Path | None = None, settings: Mapping[str, Any] | None = None,
                 home: str | Path | None = None) -> RunContext:
    """The run context of one run of the graph: pass it as ``context=`` to ``ainvoke``/``astream``.

    Make one per run (it carries the run's id, deadline and events). ``thread`` must be the
    ``thread_id`` of the run's config; None makes a new one: use ``context.thread_id``.
    Arguments as for :func:`adiagnose`; the run is recorded in ``home``'s run store.
    """
    services, _ = _services(model, data, settings, home)
    return new_context(services, thread_id=thread or uuid.uuid4().hex)


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> SessionGraph:
    """The compiled diagnosis graph with your checkpointer (InMemorySaver, AsyncSqliteSaver, …).

    Every run needs ``context=make_context(...)``; the graph is async (``ainvoke``,
    ``astream``). Use a checkpointer to keep threads (follow-up turns) between runs.
    """
    return session_graph(checkpointer)


diagnosis_graph: SessionGraph = session_graph()
"""The compiled diagnosis graph without checkpointer: run it with ``context=make_context(...)``."""
