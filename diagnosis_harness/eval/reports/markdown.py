"""Markdown for a pull-request comment: the summary, the gates, regressions, the cases not as expected.

Nothing volatile is in it except the wall times of the summary line, so a bot can update
one comment per PR and the diff between two pushes is what changed.
"""

from __future__ import annotations

from diagnosis_harness.eval.baseline import Comparison
from diagnosis_harness.eval.scoring import AS_EXPECTED, Scorecard


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.4f}"


def _delta(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+g}"


def markdown(card: Scorecard, *, gate_failures: list[str] | None = None,
             comparison: Comparison | None = None) -> str:
    """The scorecard as a Markdown comment."""
    s = card.summary
    head = "❌" if gate_failures else "✅"
    lines = [f"### {head} harness eval `{card.suite}` — {s.as_expected}/{s.cases} as expected",
             "", f"model `{card.model}` · code `{card.code_version}`", "",
             "| precision | coverage | wrong | missed | abstention | AC@1 | AC@3 | tokens | cost |",
             "|---|---|---|---|---|---|---|---|---|",
             f"| {_ratio(s.precision)} | {_ratio(s.coverage)} | {s.wrong} | {s.missed} | "
             f"{_ratio(s.abstention_rate)} | {_ratio(s.ac_at_1)} | {_ratio(s.ac_at_3)} | "
             f"{s.tokens_total} | {_money(s.cost_total)} |", ""]
    if gate_failures:
        lines += ["**Gates failed:**", *[f"- {line}" for line in gate_failures], ""]
    if comparison is not None:
        d = comparison.deltas
        lines += [f"Against `{comparison.baseline}`: precision {_delta(d['precision'])}, "
                  f"coverage {_delta(d['coverage'])}, wrong {_delta(d['wrong'])}, "
                  f"tokens {_delta(d['tokens_total'])}.", ""]
        if comparison.regressions:
            lines += ["**Regressions** (right before, now wrong or missed):",
                      *[f"- `{c.id}`: {c.before} → {c.now}" for c in comparison.regressions], ""]
        if comparison.fixes:
            lines += ["**Fixes:**", *[f"- `{c.id}`: {c.before} → {c.now}" for c in comparison.fixes], ""]
    off = [c for c in card.cases if c.verdict not in AS_EXPECTED]
    if off:
        lines += ["| case | verdict | expected | outcome | why |", "|---|---|---|---|---|",
                  *[f"| `{c.id}` | {c.verdict} | {c.expected} | {c.outcome} | {_cell(c.why)} |"
                    for c in off], ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
