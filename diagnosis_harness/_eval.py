"""``evaluate()``: ``harness eval`` from Python, returning the typed :class:`Scorecard`.

The same suite loader, runner and scoring as the CLI: cases run as ordinary runs in the
settings' run store (``home``), with the same bounded workers, ``out`` folder and ``resume``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from diagnosis_harness._run import ConfigurationError
from diagnosis_harness.control.settings import SettingsError, load_settings
from diagnosis_harness.eval.runner import preflight, run_eval
from diagnosis_harness.eval.scoring import Scorecard
from diagnosis_harness.eval.suite import Suite, SuiteError, load_suite


def evaluate(suite: str | Path | Suite, *, model: str | None = None, workers: int = 2,
             home: str | Path | None = None, settings: Mapping[str, Any] | None = None,
             out: str | Path | None = None, resume: bool = False) -> Scorecard:
    """Run a suite (a file, ``"demo"`` or a loaded :class:`~diagnosis_harness.eval.suite.Suite`).

    ``model``: the spec for cases that name none (None: ``HARNESS_MODEL``); ``settings``:
    overrides by field name; ``home``: where runs are recorded; ``out`` and ``resume`` as
    ``--out`` and ``--resume``. Check gates with ``Gates(...).failures(card.summary)``.
    Raises :class:`ConfigurationError` for a broken suite or bad settings (the CLI's exit 64).
    """
    overrides: dict[str, Any] = dict(settings or {})
    if home is not None:
        overrides["home"] = Path(home)
    if model is not None:
        overrides["model"] = model
    try:
        plan = preflight(suite if isinstance(suite, Suite) else load_suite(suite),
                         load_settings(**overrides))
    except (SuiteError, SettingsError) as exc:
        raise ConfigurationError(str(exc)) from exc
    coro = run_eval(plan, workers=workers, out=Path(out) if out is not None else None, resume=resume)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise RuntimeError("evaluate() cannot run inside a running event loop")

