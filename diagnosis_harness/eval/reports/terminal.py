"""The terminal view: a live progress bar while cases run, then a table and the summary.

The table's ``calls`` column is model calls / tool calls; ``run`` starts the run id
(``harness runs show`` takes the whole id, in ``--json``).
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from diagnosis_harness.control.terminal_text import inert_markup
from diagnosis_harness.eval.scoring import AS_EXPECTED, CaseResult, Scorecard, Verdict

_STYLE = {Verdict.RIGHT: "green", Verdict.HONEST: "green", Verdict.WRONG: "bold red",
          Verdict.MISSED: "yellow", Verdict.UNEXPECTED: "yellow"}


class LiveProgress:
    """A progress bar on stderr (only on a terminal): one tick per finished case."""

    def __init__(self, console: Console, total: int) -> None:
        self._progress = Progress(TextColumn("eval"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[last]}"), TimeElapsedColumn(),
                                  console=console, transient=True,
                                  disable=not console.is_terminal)
        self._task = self._progress.add_task("eval", total=total, last="")

    def __enter__(self) -> LiveProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def tick(self, result: CaseResult, done: int, total: int) -> None:
        """Show one more finished case."""
        self._progress.update(self._task, completed=done,
                              last=inert_markup(f"{result.id} {result.verdict}"))


def ratio(value: float | None) -> str:
    """A ratio with three decimals, ``n/a`` when undefined."""
    return "n/a" if value is None else f"{value:.3f}"


def render(console: Console, card: Scorecard, gate_failures: list[str]) -> None:
    """Print the per-case table, the summary and the gates."""
    table = Table(title=inert_markup(f"harness eval {card.suite} · {card.model}"), box=box.SIMPLE_HEAD,
                  pad_edge=False)
    for col in ("case", "outcome", "verdict", "calls", "tokens", "wall s", "run"):
        table.add_column(col, justify="right" if col in ("calls", "tokens", "wall s") else "left",
                         overflow="fold", no_wrap=col != "outcome")
    for c in card.cases:
        table.add_row(inert_markup(c.id), inert_markup(c.outcome), f"[{_STYLE[c.verdict]}]{c.verdict}[/]",
                      f"{c.usage.model_calls}/{c.usage.tool_calls}", str(c.usage.tokens),
                      f"{c.wall_s:.2f}", (c.run_id or "-")[:8])
    console.print(table)
    s = card.summary
    cost = "unknown" if s.cost_total is None else f"{s.cost_total:.4f}"
    console.print(f"{s.as_expected}/{s.cases} as expected · precision {ratio(s.precision)} · "
                  f"coverage {ratio(s.coverage)} · wrong {s.wrong} · missed {s.missed} · "
                  f"abstention {ratio(s.abstention_rate)} · wall p50 {s.wall_p50_s:.2f}s "
                  f"p95 {s.wall_p95_s:.2f}s · tokens {s.tokens_total} "
                  f"({s.tokens_per_case:g}/case) · cost {cost} · AC@1 {ratio(s.ac_at_1)} "
                  f"AC@3 {ratio(s.ac_at_3)} (of {s.ranked_cases})", highlight=False)
    for c in card.cases:
        if c.verdict not in AS_EXPECTED:
            console.print(f"[{_STYLE[c.verdict]}]{c.verdict}[/] {inert_markup(f'{c.id}: {c.why}')}",
                          markup=True)
    for line in gate_failures:
        console.print(f"[bold red]gate failed:[/] {inert_markup(line)}")
