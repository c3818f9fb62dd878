"""Locate rule: a failure whose text reads like instructions to an AI is not taken at its word.

Needs: the onset timeline's failure rows (``failures.Failures``), each with the boundary's
``warning`` where ``tools/untrusted.py`` flagged its text as addressed to an AI.
Concludes: abstain — one flagged failure row leaves the whole timeline unlocalized: which
component failed first would rest on text written to steer the reader.
Failure class: none of its own; it guards every localized conclusion.
Canon cases: none (no canon case carries text addressed to an AI); it guards every localized
conclusion on the worlds and in tests/test_localize.py.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.failures import Failures, flagged
from diagnosis_harness.providers.offline.localize import Abstain, Root


def decide(failures: Failures, service: str | None, root: Root | None) -> Abstain | None:
    """Abstain when any failure row of the timeline was flagged by the boundary."""
    if any(flagged(r) for rows in failures.rows.values() for r in rows):
        return Abstain("a failure whose text reads like instructions to an AI cannot be taken "
                       "at its word")
    return None
