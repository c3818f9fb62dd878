"""The ``harness`` exit codes: :mod:`diagnosis_harness.control.exits`, re-exported here."""

from __future__ import annotations

from diagnosis_harness.control.exits import Exit, for_outcome

__all__ = ["Exit", "for_outcome"]
