"""The public Python API of the diagnosis harness: ``__all__`` is the API, the rest is internal.

Three ways in, all the CLI's own machinery (same settings, runner, graph, run store):

- :func:`diagnose` / :func:`adiagnose`: one turn, as ``harness diagnose --json``, returned as a
  typed, frozen :class:`DiagnosisResult` (the ``--json`` fields plus the published root cause
  and claims with their evidence, or what a fallback was built from).
- LangGraph-native: :func:`build_graph` (your checkpointer) or :data:`diagnosis_graph`, run with
  ``context=make_context(...)`` through ``ainvoke`` / ``astream``;
  :meth:`DiagnosisResult.from_state` turns a run's final state into the same result.
- :func:`evaluate`: ``harness eval`` on a suite, returning a typed :class:`Scorecard` (its
  :class:`CaseResult` rows, each with a :class:`Verdict`); :class:`Gates` checks it.
- :class:`ReplayScript`: scripted model answers in Python, the JSON replay format of
  ``--model replay:FILE``; :func:`write_dataset`: a dataset folder from rows;
  :func:`assert_outcome` / :func:`assert_event_grammar`: what a test checks of every run.

The pytest plugin (``diagnosis_harness.pytest_plugin``, active once the package is installed)
wraps these in fixtures: ``harness_home``, ``harness_dataset``, ``replay_script``,
``harness_assert``. See "Scripting and testing" in the README.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name and the module that defines it. Imported on first use (PEP 562), so that
# `harness --help` or `import diagnosis_harness.control.settings` does not load LangGraph.
_EXPORTS: dict[str, str] = {
    "CheckedScope": "diagnosis_harness._result",
    "Claim": "diagnosis_harness._result",
    "CaseResult": "diagnosis_harness.eval.scoring",
    "ConfigurationError": "diagnosis_harness._run",
    "DiagnosisResult": "diagnosis_harness._result",
    "Evidence": "diagnosis_harness._result",
    "FailureCode": "diagnosis_harness.control.contracts",
    "FallbackReport": "diagnosis_harness._result",
    "FallbackType": "diagnosis_harness.control.contracts",
    "Gates": "diagnosis_harness.eval.gates",
    "Intent": "diagnosis_harness.control.contracts",
    "ReleaseOutcome": "diagnosis_harness.control.contracts",
    "ReplayScript": "diagnosis_harness._script",
    "RunContext": "diagnosis_harness.run.context",
    "RunState": "diagnosis_harness.control.contracts",
    "Scorecard": "diagnosis_harness.eval.scoring",
    "ScriptIncomplete": "diagnosis_harness._script",
    "StopReason": "diagnosis_harness.control.contracts",
    "Usage": "diagnosis_harness._result",
    "Verdict": "diagnosis_harness.eval.scoring",
    "adiagnose": "diagnosis_harness._run",
    "assert_event_grammar": "diagnosis_harness._checks",
    "assert_outcome": "diagnosis_harness._checks",
    "build_graph": "diagnosis_harness._run",
    "check_dataset": "diagnosis_harness._dataset",
    "diagnose": "diagnosis_harness._run",
    # The compiled graph (`diagnosis_harness.graph` is the package that wires it).
    "diagnosis_graph": "diagnosis_harness._run",
    "evaluate": "diagnosis_harness._eval",
    "make_context": "diagnosis_harness._run",
    "write_dataset": "diagnosis_harness._dataset",
}

__all__ = [
    "CaseResult",
    "CheckedScope",
    "Claim",
    "ConfigurationError",
    "DiagnosisResult",
    "Evidence",
    "FailureCode",
    "FallbackReport",
    "FallbackType",
    "Gates",
    "Intent",
    "ReleaseOutcome",
    "ReplayScript",
    "RunContext",
    "RunState",
    "Scorecard",
    "ScriptIncomplete",
    "StopReason",
    "Usage",
    "Verdict",
    "adiagnose",
    "assert_event_grammar",
    "assert_outcome",
    "build_graph",
    "check_dataset",
    "diagnose",
    "diagnosis_graph",
    "evaluate",
    "make_context",
    "write_dataset",
]

if TYPE_CHECKING:
    from diagnosis_harness._checks import assert_event_grammar, assert_outcome
    from diagnosis_harness._dataset import check_dataset, write_dataset
    from diagnosis_harness._eval import evaluate
    from diagnosis_harness._result import (
        CheckedScope,
        Claim,
        DiagnosisResult,
        Evidence,
        FallbackReport,
        Usage,
    )
    from diagnosis_harness._run import (
        ConfigurationError,
        adiagnose,
        build_graph,
        diagnose,
        diagnosis_graph,
        make_context,
    )
    from diagnosis_harness._script import ReplayScript, ScriptIncomplete
    from diagnosis_harness.control.contracts import (
        FailureCode,
        FallbackType,
        Intent,
        ReleaseOutcome,
        RunState,
        StopReason,
    )
    from diagnosis_harness.eval.gates import Gates
    from diagnosis_harness.eval.scoring import CaseResult, Scorecard, Verdict
    from diagnosis_harness.run.context import RunContext


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module_name), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
