"""``--baseline``: the scorecard against an earlier one (its ``--json``), case by case.

A regression is a case that was RIGHT before and is WRONG or MISSED now; a fix the other way
round. The deltas are the summary's numbers now minus before (None where either is undefined).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from diagnosis_harness.eval.scoring import Scorecard, Verdict

_COMPARED = ("as_expected", "right", "wrong", "missed", "precision", "coverage",
             "abstention_rate", "tokens_total", "cost_total")


class BaselineError(ValueError):
    """A baseline file that is not an earlier ``harness eval --json``; names the file."""


class Change(BaseModel):
    """One case whose verdict changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    before: Verdict
    now: Verdict


class Comparison(BaseModel):
    """Deltas of the summary and the cases that changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    baseline: str
    deltas: dict[str, float | None]
    regressions: tuple[Change, ...]
    fixes: tuple[Change, ...]
    changed: tuple[Change, ...]
    """Every case whose verdict changed (regressions and fixes included)."""


def load_baseline(path: Path) -> Scorecard:
    """An earlier scorecard (the object ``harness eval --json`` printed)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return Scorecard.model_validate(data.get("scorecard", data) if isinstance(data, dict) else data)
    except FileNotFoundError:
        raise BaselineError(f"baseline {path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
        first = " ".join(str(exc).split())[:200]
        raise BaselineError(f"baseline {path}: not a `harness eval --json` scorecard: {first}") from None


def compare(now: Scorecard, before: Scorecard, name: str) -> Comparison:
    """``now`` against ``before``: summary deltas, regressions, fixes."""
    deltas: dict[str, float | None] = {}
    for key in _COMPARED:
        a, b = getattr(now.summary, key), getattr(before.summary, key)
        deltas[key] = None if a is None or b is None else round(a - b, 6)
    earlier = {c.id: c.verdict for c in before.cases}
    changed = [Change(id=c.id, before=earlier[c.id], now=c.verdict) for c in now.cases
               if c.id in earlier and earlier[c.id] is not c.verdict]
    bad = (Verdict.WRONG, Verdict.MISSED)
    return Comparison(
        baseline=name, deltas=deltas, changed=tuple(changed),
        regressions=tuple(c for c in changed if c.before is Verdict.RIGHT and c.now in bad),
        fixes=tuple(c for c in changed if c.before in bad and c.now is Verdict.RIGHT))
