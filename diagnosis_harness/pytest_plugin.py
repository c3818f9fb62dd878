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
