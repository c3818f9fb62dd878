"""``harness eval SUITE``: run a suite of incidents and gate on the scorecard (docs/eval.md).

Exit codes: 0 every gate met, 4 a gate failed (``--max-wrong``, default 0;
``--min-precision``; ``--min-coverage``), 64 bad usage (a broken suite: one line naming the
case and the field, before any run), 130 interrupted. Heavy modules are imported inside the
command, so ``harness --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from diagnosis_harness.cli import signals
from diagnosis_harness.cli.errors import load_cli_settings, usage_error
from diagnosis_harness.control.exits import Exit

if TYPE_CHECKING:
    from diagnosis_harness.eval.baseline import Comparison
    from diagnosis_harness.eval.scoring import Scorecard

EXIT_INTERRUPTED = Exit.CANCELLED


def eval_suite(
    suite: Annotated[str, typer.Argument(help="A suite file (.yaml/.json/.jsonl/truth.json) or 'demo'.")],
    model: Annotated[str | None, typer.Option("--model", help="offline | openai:NAME | replay:FILE")] = None,
    workers: Annotated[int, typer.Option(help="Cases run at once.", min=1, max=64)] = 2,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for scorecard.json, junit.xml, report.md, report.html and --resume.")] = None,
    baseline: Annotated[Path | None, typer.Option(
        help="An earlier --json scorecard to compare with.")] = None,
    max_wrong: Annotated[int, typer.Option(help="Most wrong published causes allowed.", min=0)] = 0,
    min_precision: Annotated[float | None, typer.Option(
        help="Least precision at publish.", min=0, max=1)] = None,
    min_coverage: Annotated[float | None, typer.Option(help="Least coverage.", min=0, max=1)] = None,
    resume: Annotated[bool, typer.Option(help="Reuse the finished cases recorded in --out.")] = False,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML here.")] = None,
    markdown: Annotated[Path | None, typer.Option(help="Write the Markdown summary here.")] = None,
    html: Annotated[Path | None, typer.Option(help="Write the HTML report here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scorecard as JSON.")] = False,
) -> None:
    """Score the harness on a suite of incidents; exit 4 when a gate fails."""
    import asyncio

    from rich.console import Console

    from diagnosis_harness.cli.errors import check_home, problem
    from diagnosis_harness.eval.baseline import BaselineError, compare, load_baseline
    from diagnosis_harness.eval.gates import EXIT_GATE_FAILED, Gates
    from diagnosis_harness.eval.reports.terminal import LiveProgress, render
    from diagnosis_harness.eval.runner import preflight, run_eval
    from diagnosis_harness.eval.suite import SuiteError, load_suite

    if resume and out is None:
        usage_error("--resume needs --out DIR (where the finished cases are recorded)")
    settings = load_cli_settings(model=model)
    if (bad_home := check_home(settings)) is not None:
        usage_error(bad_home)
    gates = Gates(max_wrong=max_wrong, min_precision=min_precision, min_coverage=min_coverage)
    try:
        before = load_baseline(baseline) if baseline is not None else None
        plan = preflight(load_suite(suite), settings)
    except (SuiteError, BaselineError) as exc:
        usage_error(str(exc))
    err = Console(stderr=True)
    try:
        with LiveProgress(err, len(plan.suite.cases)) as progress:
            card = asyncio.run(run_eval(plan, workers=workers, out=out, resume=resume,
                                        on_case=progress.tick))
    except KeyboardInterrupt:
        code = signals.stop_line(  # EXIT_INTERRUPTED; 143 for SIGTERM
            "interrupted: finished cases are kept" + (" (--resume continues)" if out else ""))
        raise typer.Exit(code) from None
    except Exception as exc:  # noqa: BLE001 — the known ones become one line; others re-raised
        if (line := problem(exc, settings)) is None:
            raise
        usage_error(line)
    failures = gates.failures(card.summary)
    comparison = compare(card, before, str(baseline)) if before is not None else None
    _write_outputs(card, failures, comparison, out=out, junit=junit, markdown=markdown, html=html)
    if as_json:
        from diagnosis_harness.control.terminal_text import printable_json

        # as the scorecard file (manifest.as_json), with nothing a terminal would act on
        sys.stdout.write(printable_json(report_json(card, failures, comparison), indent=1,
                                        sort_keys=True) + "\n")
    else:
        console = Console()
        render(console if console.is_terminal else Console(width=140), card, failures)
        if comparison is not None and (comparison.regressions or comparison.fixes):
            from diagnosis_harness.control.terminal_text import printable

            for c in comparison.regressions:
                typer.echo(printable(f"regression {c.id}: {c.before} → {c.now}"))
            for c in comparison.fixes:
                typer.echo(printable(f"fix {c.id}: {c.before} → {c.now}"))
    raise typer.Exit(EXIT_GATE_FAILED if failures else 0)


def report_json(card: Scorecard, failures: list[str], comparison: Comparison | None
                ) -> dict[str, Any]:
    """The ``--json`` object: the scorecard, the gates, the comparison with a baseline."""
    return {"scorecard": card.model_dump(mode="json"),
            "gates": {"passed": not failures, "failures": failures},
            "comparison": comparison.model_dump(mode="json") if comparison is not None else None}


def _write_outputs(card: Scorecard, failures: list[str], comparison: Comparison | None, *, out: Path | None,
                   junit: Path | None, markdown: Path | None, html: Path | None) -> None:
    from diagnosis_harness.eval.manifest import as_json
    from diagnosis_harness.eval.reports.junit import junit_xml
    from diagnosis_harness.eval.reports.markdown import markdown as to_markdown

    files: dict[Path, str] = {}
    if out is not None:
        junit, markdown = junit or out / "junit.xml", markdown or out / "report.md"
        html = html or out / "report.html"
        files[out / "scorecard.json"] = as_json(report_json(card, failures, comparison))
    if junit is not None:
        files[junit] = junit_xml(card)
    if markdown is not None:
        files[markdown] = to_markdown(card, gate_failures=failures, comparison=comparison)
    if html is not None:
        from diagnosis_harness.eval.reports.html import eval_html

        files[html] = eval_html(card, gate_failures=failures)
    for path, text in files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            usage_error(f"cannot write {path}: {exc.strerror or exc}")
