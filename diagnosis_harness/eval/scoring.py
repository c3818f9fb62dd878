"""Scoring: one run judged against its case, and the scorecard of a suite (docs/eval.md).

Precision first: a SUCCESS is right only when the published root cause contains what the case
asks for (and cites the evidence it names); any other SUCCESS is WRONG, the one result a gate
never lets through by default. Abstaining honestly (a FALLBACK the case expects) is fine.

A scorecard is deterministic for offline and replay models: the same suite gives the same
scorecard except for what :data:`VOLATILE` names (timings, and the ids of the runs made).
"""

from __future__ import annotations

import re
from enum import StrEnum
from statistics import median

from pydantic import BaseModel, ConfigDict, Field

from diagnosis_harness.control.budget import CallUsage
from diagnosis_harness.eval.picture import Timeline
from diagnosis_harness.eval.suite import Case, Expectation


class Verdict(StrEnum):
    """How a case's run compares with what the case expects."""

    RIGHT = "RIGHT"
    """SUCCESS expected and published, with the right root cause (and citations)."""
    WRONG = "WRONG"
    """A published SUCCESS whose cause is not the expected one, or where none was expected."""
    HONEST = "HONEST"
    """The expected FALLBACK (or the expected FAILED/CODE): the run honestly did not publish."""
    MISSED = "MISSED"
    """A cause was expected, the run published none (FALLBACK or FAILED)."""
    UNEXPECTED = "UNEXPECTED"
    """No cause expected and none published, but not the outcome expected (an unexpected
    FAILED, another fallback type, a cancelled run)."""


AS_EXPECTED = (Verdict.RIGHT, Verdict.HONEST)
VOLATILE = ("run_id", "thread_id", "wall_s", "wall_p50_s", "wall_p95_s", "wall_total_s")
"""The scorecard fields that differ between two runs of the same suite."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CitedRecord(_Frozen):
    """One piece of evidence a published claim cites, as the run store recorded it."""

    evidence_id: str
    tool: str
    text: str


class Usage(CallUsage):
    """What one case's run spent (from its run row)."""


class RunView(_Frozen):
    """What a case's run did, enough to judge it and to show it (the report's per-case row)."""

    outcome: str
    """``SUCCESS``, ``FALLBACK/TYPE``, ``FAILED/CODE`` or ``CANCELLED``."""
    intent: str | None = None
    """DIAGNOSIS, GENERAL (a SUCCESS that answers a general question publishes no cause) or None."""
    root_cause: str | None = None
    cited: tuple[CitedRecord, ...] = ()
    content: str | None = None
    verdicts: tuple[str, ...] = ()
    """The guards' and the judge's verdicts, one line each (``evidence: PASSED``, …)."""
    failure: str | None = None
    """The failure event's message (FAILED only)."""
    scope: dict[str, str | None] | None = None
    """The router's scope (service, merchant, start, end)."""
    picture: Timeline | None = None
    """Events per service over the scope's window and baseline (the report's incident picture)."""
    components: tuple[str, ...] = ()
    """The components the run points at, best first: the published cause's, then the ranked
    suspects' (nodes/_triage.py), each once — what AC@k is measured on."""


class CaseResult(_Frozen):
    """One case of the scorecard."""

    id: str
    question: str
    expected: str
    outcome: str
    verdict: Verdict
    why: str
    """One line: what decided the verdict."""
    tags: tuple[str, ...] = ()
    usage: Usage = Usage()
    cost: float | None = None
    """In the price table's currency; None when the model has no price."""
    run_id: str | None = None
    thread_id: str | None = None
    wall_s: float = 0.0
    run: RunView | None = None


class Summary(_Frozen):
    """The suite's numbers (docs/eval.md defines each)."""

    cases: int
    as_expected: int
    right: int
    wrong: int
    honest: int
    missed: int
    unexpected: int
    published: int
    """Cases that published a root cause (right + wrong; a GENERAL answer publishes none)."""
    expected_causes: int
    """Cases that expect a SUCCESS."""
    precision: float | None
    """right / published (None: nothing was published)."""
    coverage: float | None
    """right / expected causes (None: no case expects one)."""
    abstention_rate: float
    """Cases released as FALLBACK / cases."""
    wall_p50_s: float
    wall_p95_s: float
    wall_total_s: float
    tokens_total: int
    tokens_per_case: float
    cost_total: float | None
    cost_per_case: float | None
    ranked_cases: int = 0
    """Cases whose truth names the component at fault (a ``cause:<component>`` tag)."""
    ac_at_1: float | None = None
    """Share of ``ranked_cases`` whose true component the run points at first (None: none)."""
    ac_at_3: float | None = None
    """Share of ``ranked_cases`` whose true component is among the first three it points at."""


class Scorecard(_Frozen):
    """The result of ``harness eval`` / :func:`diagnosis_harness.evaluate`."""

    suite: str
    model: str
    code_version: str
    summary: Summary
    cases: tuple[CaseResult, ...] = Field(default=())

    def stable_json(self) -> dict[str, object]:
        """The scorecard without :data:`VOLATILE` fields: equal for two runs of the same suite."""
        stable = _strip(self.model_dump(mode="json"))
        assert isinstance(stable, dict)
        return stable


def _strip(value: object) -> object:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def judge_case(case: Case, run: RunView) -> tuple[Verdict, str]:
    """The verdict of one run against its case, and why, in one line."""
    expect = case.expect
    release, _, detail = run.outcome.partition("/")
    if release == "SUCCESS" and run.intent != "DIAGNOSIS":
        kind = Verdict.MISSED if expect.release == "SUCCESS" else Verdict.UNEXPECTED
        return kind, f"answered as {run.intent or 'no'} intent, published no root cause"
    if release == "SUCCESS":
        if expect.release != "SUCCESS":
            return Verdict.WRONG, f"published a root cause where {expect.outcome} was expected"
        problem = cause_problem(expect, run)
        return (Verdict.WRONG, problem) if problem else (Verdict.RIGHT, "the expected root cause")
    if expect.release == "SUCCESS":
        return Verdict.MISSED, f"expected a root cause, got {run.outcome}"
    if release == expect.release and expect.detail in (None, detail):
        return Verdict.HONEST, f"{run.outcome} as expected"
    return Verdict.UNEXPECTED, f"expected {expect.outcome}, got {run.outcome}"


def cause_problem(expect: Expectation, run: RunView) -> str | None:
    """Why a published root cause is not the expected one (None: it is)."""
    match = expect.root_cause
    text = (run.root_cause or "").lower()
    if match is not None:
        missing = [t for t in match.all if t.lower() not in text]
        if missing:
            return f"root cause does not name {', '.join(missing)}"
        if match.any and not any(t.lower() in text for t in match.any):
            return f"root cause names none of {', '.join(match.any)}"
        if match.regex and not re.search(match.regex, run.root_cause or "", re.IGNORECASE):
            return f"root cause does not match /{match.regex}/"
    for want in expect.cites:
        if not any(want.contains.lower() in r.text.lower() and want.tool in (None, r.tool)
                   for r in run.cited):
            where = f" from {want.tool}" if want.tool else ""
            return f"no cited evidence{where} contains {want.contains!r}"
    return None


def summarise(results: list[CaseResult]) -> Summary:
    """The summary of a suite's case results."""
    count = {v: sum(1 for r in results if r.verdict is v) for v in Verdict}
    published = count[Verdict.RIGHT] + count[Verdict.WRONG]
    expected = sum(1 for r in results if r.expected == "SUCCESS")
    walls = sorted(r.wall_s for r in results)
    tokens = sum(r.usage.tokens for r in results)
    costs = [r.cost for r in results]
    cost_total = None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6)
    n = len(results)
    ranks = [rank_of_cause(r) for r in results if cause_component(r.tags) is not None]
    return Summary(
        ranked_cases=len(ranks),
        ac_at_1=round(sum(1 for k in ranks if k == 1) / len(ranks), 4) if ranks else None,
        ac_at_3=round(sum(1 for k in ranks if k is not None and k <= 3) / len(ranks), 4)
        if ranks else None,
        cases=n, as_expected=count[Verdict.RIGHT] + count[Verdict.HONEST],
        right=count[Verdict.RIGHT], wrong=count[Verdict.WRONG], honest=count[Verdict.HONEST],
        missed=count[Verdict.MISSED], unexpected=count[Verdict.UNEXPECTED], published=published,
        expected_causes=expected,
        precision=round(count[Verdict.RIGHT] / published, 4) if published else None,
        coverage=round(count[Verdict.RIGHT] / expected, 4) if expected else None,
        abstention_rate=round(sum(1 for r in results if r.outcome.startswith("FALLBACK")) / n, 4)
        if n else 0.0,
        wall_p50_s=round(median(walls), 3) if walls else 0.0,
        wall_p95_s=round(_percentile(walls, 0.95), 3), wall_total_s=round(sum(walls), 3),
        tokens_total=tokens, tokens_per_case=round(tokens / n, 1) if n else 0.0,
        cost_total=cost_total,
        cost_per_case=round(cost_total / n, 6) if cost_total is not None and n else None)


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (0.0 for no values)."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-int(q * 100) * len(sorted_values) // 100))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def cause_component(tags: tuple[str, ...] | list[str]) -> str | None:
    """The component at fault a case's tags name (``cause:<component>``), if any.

    Its first word: a truth may say more ("paylane (external PSP)").
    """
    said = next((t.removeprefix("cause:").split() for t in tags if t.startswith("cause:")), None)
    return said[0] if said else None


def rank_of_cause(result: CaseResult) -> int | None:
    """Where the case's true component stands among those its run points at (1 = first).

    A component matches its instances and the service it is one of, either way
    (``orders-db`` and ``orders-db-1``; ``broker`` and ``broker-2``), case-insensitively.
    None: the run does not point at it (or did not run).
    """
    truth = (cause_component(result.tags) or "").lower()
    if not truth or result.run is None:
        return None
    for n, component in enumerate(result.run.components, 1):
        c = component.lower()
        if c == truth or _instance(c, truth) or _instance(truth, c):
            return n
    return None


def _instance(name: str, of: str) -> bool:
    """Whether ``name`` is an instance of ``of``: a numbered one, or one of its roles.

    ``of`` and a numbered suffix (``-2``, ``-b1``), or a role suffix (``orders-db-ro``, its
    read replica).
    """
    return re.fullmatch(rf"{re.escape(of)}-(?:[a-z]?\d+[a-z0-9]*|ro|rw|replica|primary)", name) \
        is not None
