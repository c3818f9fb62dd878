"""The canon: textbook incidents, one small world each, built on demand (docs/eval.md).

``python -m tests.canon build`` writes every case's dataset folder and ``truth.json`` into a
cache keyed by the specs' hash and prints the path of ``canon.json``, a ``harness eval`` suite
over all of them.
"""

from __future__ import annotations

from pathlib import Path

from .cases import all_cases
from .engine import build as _build
from .spec import Case

__all__ = ["Case", "all_cases", "build"]


def build(out: Path | None = None) -> Path:
    """Build the whole canon (or reuse the cached build); returns ``canon.json``."""
    return _build(all_cases(), out)
