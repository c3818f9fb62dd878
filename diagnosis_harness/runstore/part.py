"""The base of the run store's parts: what each of them uses of the one RunStore class.

:class:`RunStore` is one class whose methods are split by concern over modules (reads, lineage,
history, leases, alerts); each part inherits :class:`StorePart`, which declares once what the
store provides to all of them: its database, its text cleaning and its readers. The store
overrides every method here; a part is never used alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, overload

from sqlalchemy import Connection

if TYPE_CHECKING:
    from diagnosis_harness.runstore.db import Database, Driver

T = TypeVar("T")


class StorePart:
    """A part of RunStore, not a store of its own: the store provides what is declared here."""

    _db: Database

    @overload
    def _text(self, value: str) -> str: ...
    @overload
    def _text(self, value: T) -> T: ...
    def _text(self, value: object) -> object:  # pragma: no cover — RunStore's
        raise NotImplementedError

    def _read(self, fn: Callable[[Connection], T], what: str) -> T:  # pragma: no cover — RunStore's
        raise NotImplementedError

    def _read_driver(self, fn: Callable[[Driver], T], what: str) -> T:  # pragma: no cover — RunStore's
        raise NotImplementedError
