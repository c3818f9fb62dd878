"""The gates of ``harness eval``: what makes a scorecard fail CI (exit 4).

``max_wrong`` (default 0) is the precision-first gate: one wrong published root cause fails
the suite. ``min_precision`` and ``min_coverage`` are optional floors; a precision that is
undefined (nothing published) passes its gate, since nothing wrong was published, and a
coverage that is undefined (no case expects a cause) passes too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from diagnosis_harness.control.exits import Exit
from diagnosis_harness.eval.scoring import Summary

EXIT_GATE_FAILED = Exit.GATE_FAILED
"""``harness eval``'s exit code when a gate fails (docs/design.md §12)."""


class Gates(BaseModel):
    """The thresholds a scorecard must meet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_wrong: int = Field(default=0, ge=0)
    min_precision: float | None = Field(default=None, ge=0, le=1)
    min_coverage: float | None = Field(default=None, ge=0, le=1)

    def failures(self, summary: Summary) -> list[str]:
        """One line per gate the summary does not meet (empty: all met)."""
        failed = []
        if summary.wrong > self.max_wrong:
            failed.append(f"{summary.wrong} wrong published root cause(s), at most "
                          f"{self.max_wrong} allowed (--max-wrong)")
        if self.min_precision is not None and summary.precision is not None \
                and summary.precision < self.min_precision:
            failed.append(f"precision {summary.precision:.3f} < {self.min_precision} (--min-precision)")
        if self.min_coverage is not None and summary.coverage is not None \
                and summary.coverage < self.min_coverage:
            failed.append(f"coverage {summary.coverage:.3f} < {self.min_coverage} (--min-coverage)")
        return failed
