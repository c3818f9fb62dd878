"""Run a suite: every case an ordinary run of the CLI's runner, in bounded parallel workers.

Each case gets its own settings (its dataset, model and deadline laid over the eval's), its own
services (a fresh model seam: a replay script starts at its first answer) and its own thread;
all share the settings' run store and checkpointer, so ``harness runs show RUN_ID`` opens any
case's run. Up to ``workers`` cases run at once (async tasks; the models' calls overlap).

Before any run, :func:`preflight` checks every case's dataset (built now, once per folder)
and model spec: a problem is a :class:`~diagnosis_harness.eval.suite.SuiteError` naming the
case and the field. A run that fails (a model timing out, a store error) is that case's FAILED
result, never the end of the eval.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.contracts import Conclusion, ToolRecord
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.eval import manifest
from diagnosis_harness.eval.picture import Timeline, marked, timeline
from diagnosis_harness.eval.prices import PriceTable, load_prices
from diagnosis_harness.eval.scoring import (
    CaseResult,
    CitedRecord,
    RunView,
    Scorecard,
    Usage,
    Verdict,
    judge_case,
    summarise,
)
from diagnosis_harness.eval.suite import Case, Suite, SuiteError
from diagnosis_harness.nodes._release_text import shown_claims
from diagnosis_harness.nodes._triage import suspects
from diagnosis_harness.run.records import run_records
from diagnosis_harness.runstore.store import RunStore, open_run_store
from diagnosis_harness.session.runner import open_checkpointer, run_turn
from diagnosis_harness.session.services import Services, check_database, run_store_location

if TYPE_CHECKING:
    from diagnosis_harness.checkpoints.savers import HarnessCheckpointer

OnCase = Callable[[CaseResult, int, int], None]
"""Called as each case finishes (or is reused): ``(result, done, total)``."""


@dataclass(frozen=True)
class EvalPlan:
    """A checked suite: the settings each case runs with, and the eval's identity."""

    suite: Suite
    settings: Settings
    case_settings: Mapping[str, Settings]
    code_version: str
    prices: PriceTable

    def key(self, case: Case) -> manifest.CaseKey:
        """What a finished run of ``case`` must match to be reused by ``--resume``."""
        return manifest.CaseKey(suite=self.suite.name, case=case.id,
                                digest=self.suite.case_digest(case),
                                model=self.case_settings[case.id].model,
                                code_version=self.code_version)


def preflight(suite: Suite, settings: Settings) -> EvalPlan:
    """Check and prepare every case before any run; SuiteError names the case and field."""
    from diagnosis_harness.eval.prices import PriceError
    from diagnosis_harness.providers.replay import ReplayFileError, ReplayScript
    from diagnosis_harness.providers.seam import ModelSpecError, parse_model_spec
    from diagnosis_harness.tools.dataset.build import ensure_dataset
    from diagnosis_harness.tools.dataset.format import DatasetError

    per_case: dict[str, Settings] = {}
    built: set[str] = set()
    where = f"suite {suite.name}"
    for case in suite.cases:
        data = suite.dataset_dir(case)
        update: dict[str, Any] = {"model": suite.model_spec(case, settings.model)}
        if data is not None:
            update["data_dir"] = data
        if case.deadline_s is not None:
            update["deadline_s"] = case.deadline_s
        mine = settings.model_copy(update=update)
        try:
            spec = parse_model_spec(mine.model)
            if spec.provider == "replay":
                ReplayScript.from_file(spec.name)
        except (ModelSpecError, ReplayFileError) as exc:
            raise SuiteError(f"{where}: case {case.id}: model: {exc}") from None
        if data is not None and not data.is_dir():
            raise SuiteError(f"{where}: case {case.id}: dataset: {data} is not a folder")
        if str(data) not in built:
            try:
                ensure_dataset(mine)
            except DatasetError as exc:
                first = " ".join(str(exc).split())[:300]
                raise SuiteError(f"{where}: case {case.id}: dataset: {first}") from None
            built.add(str(data))
        per_case[case.id] = mine
    try:
        prices = load_prices(settings.price_table)
    except PriceError as exc:
        raise SuiteError(str(exc)) from None
    return EvalPlan(suite=suite, settings=settings, case_settings=per_case,
                    code_version=manifest.code_version(), prices=prices)


async def run_eval(plan: EvalPlan, *, workers: int = 2, out: Path | None = None,
                   resume: bool = False, on_case: OnCase | None = None) -> Scorecard:
    """Run the plan's cases (reusing finished ones with ``resume``) and score the suite."""
    suite = plan.suite
    reused = manifest.finished(out) if (out is not None and resume) else {}
    if out is not None and not resume:
        manifest.start_fresh(out)
    results: dict[str, CaseResult] = {}
    total, done = len(suite.cases), 0
    todo = []
    for case in suite.cases:
        if (hit := reused.get(plan.key(case))) is not None:
            results[case.id] = hit
            done += 1
            if on_case is not None:
                on_case(hit, done, total)
        else:
            todo.append(case)
    if todo:
        check_database(plan.settings)
        store = open_run_store(run_store_location(plan.settings))
        gate = asyncio.Semaphore(max(1, workers))
        lock = asyncio.Lock()

        async def one(case: Case, saver: HarnessCheckpointer) -> None:
            nonlocal done
            async with gate:
                result = await run_case(plan, case, store, saver)
            async with lock:
                results[case.id] = result
                done += 1
                if out is not None:
                    await asyncio.to_thread(manifest.record, out, plan.key(case), result)
                if on_case is not None:
                    on_case(result, done, total)

        try:
            async with open_checkpointer(plan.settings) as saver:
                await asyncio.gather(*(one(case, saver) for case in todo))
        finally:
            close = getattr(store, "close", None)
            if close is not None:
                close()
    ordered = [results[c.id] for c in suite.cases]
    models = sorted({plan.case_settings[c.id].model for c in suite.cases})
    label = models[0] if len(models) == 1 else f"{len(models)} models, set per case"
    return Scorecard(suite=suite.name, model=label,
                     code_version=plan.code_version, summary=summarise(ordered),
                     cases=tuple(ordered))


async def run_case(plan: EvalPlan, case: Case, store: RunStore, saver: HarnessCheckpointer) -> CaseResult:
    """One case: its earlier turns, then its question, on its own thread; judged and priced."""
    settings = plan.case_settings[case.id]
    began = time.monotonic()
    last: list[dict[str, Any]] = [{}]
    services: Services | None = None
    try:
        services = await asyncio.to_thread(Services.from_settings, settings, store=store)
        thread: str | None = None
        for earlier in case.thread:
            thread = (await run_turn(services, earlier, thread_id=thread, checkpointer=saver))["thread_id"]
        out = await run_turn(services, case.question, thread_id=thread, checkpointer=saver,
                             on_state=lambda state: last.__setitem__(0, state))
        view = await asyncio.to_thread(run_view, store, out, last[0])
        view = view.model_copy(update={"picture": await asyncio.to_thread(_picture, services, view)})
    except Exception as exc:  # noqa: BLE001 — a case that cannot run is its own FAILED result
        wall = time.monotonic() - began
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        view = RunView(outcome="FAILED/INTERNAL_FAILURE", failure=reason)
        verdict, why = judge_case(case, view)
        return CaseResult(id=case.id, question=case.question, expected=case.expect.outcome,
                          outcome=view.outcome,
                          verdict=verdict, why=f"{why}: {reason}", tags=case.tags,
                          cost=plan.prices.cost(settings.model, 0, 0), wall_s=round(wall, 3),
                          run=view)
    finally:
        if services is not None:
            services.backends.close()
    wall = time.monotonic() - began
    row = await asyncio.to_thread(store.get_run, out["run_id"]) or {}
    used = row.get("usage") or out.get("usage") or {}
    usage = Usage(**{k: int(used.get(k) or 0) for k in Usage.model_fields})
    verdict, why = judge_case(case, view)
    return CaseResult(id=case.id, question=case.question, expected=case.expect.outcome, outcome=view.outcome,
                      verdict=verdict, why=why, tags=case.tags, usage=usage,
                      cost=plan.prices.cost(settings.model, usage.input_tokens, usage.output_tokens),
                      run_id=out["run_id"], thread_id=out["thread_id"], wall_s=round(wall, 3),
                      run=view)


def run_view(store: RunStore, out: Mapping[str, Any], state: Mapping[str, Any]) -> RunView:
    """What the run published and why, from its output, its final state and the run store."""
    release = out.get("release_outcome") or "FAILED"
    detail = out.get("fallback_type") or out.get("failure_code")
    outcome = f"{release}/{detail}" if detail and release != "SUCCESS" else release
    own = state if state.get("run_id") == out.get("run_id") else {}
    conclusion = (own.get("draft") or {}).get("conclusion") or {}
    root_cause: str | None = None
    cited: tuple[CitedRecord, ...] = ()
    records = run_records(store, str(out["run_id"]), own.get("records")) if out.get("run_id") else []
    if release == "SUCCESS" and out.get("intent") == "DIAGNOSIS" and conclusion:
        root_cause = conclusion.get("root_cause")
        facts = {f.evidence_id: CitedRecord(evidence_id=f.evidence_id, tool=r.tool, text=f.text)
                 for r in records for f in r.facts}
        # As the report shows them: a claim the judge did not support cites no evidence here.
        shown, _ = shown_claims(Conclusion.model_validate(conclusion), own.get("semantic_verdict"))
        ids = dict.fromkeys(e for c in shown for e in c.evidence_ids)
        cited = tuple(facts[e] for e in ids if e in facts)
    failure = next((e.get("message") for e in out.get("events") or []
                    if e.get("event") == "failure"), None)
    scope = own.get("scope") or None
    return RunView(outcome=outcome, intent=out.get("intent"), root_cause=root_cause, cited=cited,
                   content=out.get("content"),
                   verdicts=tuple(_verdict_line(v) for v in store.trace(str(out["run_id"]))["verdicts"]
                                  if v.get("guard") != "judged_draft"),
                   failure=out.get("error") or failure,
                   components=components(root_cause, records),
                   scope={k: scope.get(k) for k in ("service", "merchant", "start", "end")}
                   if isinstance(scope, Mapping) else None)


_LEAD = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]{0,63}):\s")
"""A published cause's component, as both offline drafts and most models lead with it."""
_ORIGIN = re.compile(r"\b(?:service|host)=\"?([A-Za-z0-9][A-Za-z0-9._-]{0,63})")
"""The components a published cause names as its trigger's or origin's (``service=…`` of a
change row, ``host=…`` of a located failure), after the failing component it leads with."""


def components(root_cause: str | None, records: Sequence[ToolRecord]) -> tuple[str, ...]:
    """The components a run points at, best first: the published cause's, then the suspects'.

    The suspects are ranked as the report's digest ranks them (nodes/_triage.py); each
    component is listed once, at its best rank.
    """
    lead = _LEAD.match(root_cause or "")
    named = [lead.group(1)] if lead else []
    named += _ORIGIN.findall(root_cause or "")  # the trigger's: "after … service=recommender"
    named += [str(s["service"]) for s in suspects(list(records)) if s.get("service")]
    return tuple(dict.fromkeys(named))


def _picture(services: Services, view: RunView) -> Timeline | None:
    with services.backends.lock:
        return timeline(services.backends.logs, view.scope,
                        marked((c.tool, c.evidence_id, c.text) for c in view.cited))


def _verdict_line(entry: Mapping[str, Any]) -> str:
    verdict = entry.get("verdict") or {}
    word = verdict.get("verdict") or ("PASSED" if verdict.get("passed") else "FAILED")
    notes = verdict.get("reasons") or verdict.get("problems") or []
    return f"{entry.get('guard')}: {word}" + (f" — {'; '.join(map(str, notes))}" if notes else "")


def failed_cases(card: Scorecard) -> list[CaseResult]:
    """The cases that are not as expected, in suite order."""
    return [c for c in card.cases if c.verdict not in (Verdict.RIGHT, Verdict.HONEST)]
