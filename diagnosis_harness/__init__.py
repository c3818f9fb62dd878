"""The public Python API of the diagnosis harness: ``__all__`` is the API, the rest is internal.

Three ways in, all the CLI's own machinery (same settings, runner, graph, run store):

- :func:`diagnose` / :func:`adiagnose`: one turn, as ``harness diagnose --json``, returned as a
  typed, frozen :class:`DiagnosisResult` (the ``--json`` fields plus the published root cause
  and claims with their evidence, or what a fallback was built from).
- LangGraph-native: :func:`build_graph` (your checkpointer) or :data:`graph`, run with
  ``context=make_context(...)`` through ``ainvoke`` / ``astream``;
  :meth:`DiagnosisResult.from_state` turns a run's final state into the same result.
- :class:`ReplayScript`: scripted model answers in Python, the JSON replay format of
  ``--model replay:FILE``; :func:`write_dataset`: a dataset folder from rows;
  :func:`assert_outcome` / :func:`assert_event_grammar`: what a test checks of every run.

The pytest plugin (``diagnosis_harness.pytest_plugin``, active once the package is installed)
wraps these in fixtures: ``harness_home``, ``harness_dataset``, ``replay_script``,
``harness_assert``. See "Scripting and testing" in the README.
"""

from __future__ import annotations

from diagnosis.context import RunContext
from diagnosis_harness._checks import assert_event_grammar, assert_outcome
from diagnosis_harness._dataset import check_dataset, write_dataset
from diagnosis_harness._result import (
    CheckedScope,
    Claim,
    DiagnosisResult,
    Evidence,
    FallbackReport,
    Usage,
)
from diagnosis_harness._run import ConfigurationError, adiagnose, build_graph, diagnose, make_context
from diagnosis_harness._script import ReplayScript, ScriptIncomplete
from graph.builder import graph
from harness.contracts import FailureCode, FallbackType, Intent, ReleaseOutcome, RunState, StopReason

# Shown by their public name in reprs and tracebacks, not by the module that defines them.
for _public in (ConfigurationError, ScriptIncomplete):
    _public.__module__ = __name__

__all__ = [
    "CheckedScope",
    "Claim",
    "ConfigurationError",
    "DiagnosisResult",
    "Evidence",
    "FailureCode",
    "FallbackReport",
    "FallbackType",
    "Intent",
    "ReleaseOutcome",
    "ReplayScript",
    "RunContext",
    "RunState",
    "ScriptIncomplete",
    "StopReason",
    "Usage",
    "adiagnose",
    "assert_event_grammar",
    "assert_outcome",
    "build_graph",
    "check_dataset",
    "diagnose",
    "graph",
    "make_context",
    "write_dataset",
]
