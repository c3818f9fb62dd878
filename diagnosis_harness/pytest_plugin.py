"""pytest fixtures for your own regression tests of the harness (prompts, settings, datasets).

Registered through the ``pytest11`` entry point, so they are there in any project where the
package is installed:

- ``harness_home``: a fresh, empty harness home for the test (``HARNESS_HOME`` points at it,
  so :func:`~diagnosis_harness.diagnose` and a ``harness`` subprocess use it too).
- ``harness_dataset``: ``harness_dataset(folder)`` checks a dataset folder and returns it;
  ``harness_dataset(logs=[...], tables={...}, runbooks={...})`` writes one to a temp folder.
- ``replay_script``: an empty :class:`~diagnosis_harness.ReplayScript`.
- ``harness_assert``: :func:`~diagnosis_harness.assert_outcome` (the event grammar and the
  four outcome views agree, then the outcome you expect).

And one helper, :func:`eval_suite_tests`: an eval suite as one test per case, with the gates
as a test (``TestIncidents = eval_suite_tests("incidents.yaml")``).

Nothing is imported from the harness until a fixture is used: the plugin costs projects that
never use it nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from diagnosis_harness import ReplayScript


class DatasetFactory:
    """Makes the test's datasets: from a folder, or from rows written to a temp folder."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory

    def __call__(self, folder: str | Path | None = None, *, logs: Iterable[Mapping[str, Any]] = (),
                 tables: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                 runbooks: Mapping[str, str] | None = None, name: str | None = None,
                 description: str | None = None) -> Path:
        """A checked dataset folder: ``folder`` as it is, or one written from the rows."""
        from diagnosis_harness import check_dataset, write_dataset

        if folder is not None:
            if logs or tables or runbooks:
                raise TypeError("give a dataset folder or its rows, not both")
            return check_dataset(folder)
        return write_dataset(self._tmp.mktemp("harness-dataset"), logs=logs, tables=tables,
                             runbooks=runbooks, name=name, description=description)


@pytest.fixture
def harness_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh harness home (run store, checkpoints, dataset builds); ``HARNESS_HOME`` is it."""
    home = tmp_path_factory.mktemp("harness-home")
    monkeypatch.setenv("HARNESS_HOME", str(home))
    return home


@pytest.fixture
def harness_dataset(tmp_path_factory: pytest.TempPathFactory) -> DatasetFactory:
    """``harness_dataset(folder)`` or ``harness_dataset(logs=…, tables=…, runbooks=…)``."""
    return DatasetFactory(tmp_path_factory)


@pytest.fixture
def replay_script() -> ReplayScript:
    """An empty replay script to build the test's model answers on."""
    from diagnosis_harness import ReplayScript

    return ReplayScript()


@pytest.fixture
def harness_assert() -> Callable[..., None]:
    """``harness_assert(result, "FALLBACK", fallback_type=…)``: see ``assert_outcome``."""
    from diagnosis_harness import assert_outcome

    return assert_outcome


def eval_suite_tests(suite: str | Path, *, model: str | None = None, workers: int = 2,
                     settings: Mapping[str, Any] | None = None, max_wrong: int = 0,
                     min_precision: float | None = None, min_coverage: float | None = None,
                     strict: bool = True) -> type:
    """A test class for a suite: one test per case, and one for the gates.

    ``TestIncidents = eval_suite_tests("incidents.yaml", model="offline", min_coverage=0.8)``
    in a test module gives ``test_case[ID]`` per case and ``test_gates``. The suite runs once,
    on first use, in a fresh harness home (as :func:`~diagnosis_harness.evaluate`). A case
    fails when its run published a WRONG root cause, and with ``strict`` (default) whenever it
    is not as expected; ``test_gates`` asserts ``--max-wrong`` / ``--min-precision`` /
    ``--min-coverage``. The suite is read now, so a broken suite fails collection.
    """
    from diagnosis_harness import Gates, Scorecard, Verdict, evaluate
    from diagnosis_harness.eval.suite import load_suite

    loaded = load_suite(suite)
    gates = Gates(max_wrong=max_wrong, min_precision=min_precision, min_coverage=min_coverage)
    ran: dict[str, Scorecard] = {}

    def card(factory: pytest.TempPathFactory) -> Scorecard:
        if "card" not in ran:
            ran["card"] = evaluate(loaded, model=model, workers=workers, settings=settings,
                                   home=factory.mktemp("harness-eval"))
        return ran["card"]

    ids = [case.id for case in loaded.cases]

    class SuiteTests:
        @pytest.mark.parametrize("case_id", ids)
        def test_case(self, case_id: str, tmp_path_factory: pytest.TempPathFactory) -> None:
            result = next(c for c in card(tmp_path_factory).cases if c.id == case_id)
            where = f"(harness runs show {result.run_id})" if result.run_id else ""
            assert result.verdict is not Verdict.WRONG, \
                f"{case_id}: wrong root cause published: {result.why} {where}"
            if strict:
                assert result.verdict in (Verdict.RIGHT, Verdict.HONEST), \
                    f"{case_id}: {result.verdict}: {result.why} {where}"

        def test_gates(self, tmp_path_factory: pytest.TempPathFactory) -> None:
            failed = gates.failures(card(tmp_path_factory).summary)
            assert not failed, "; ".join(failed)

    return SuiteTests
