"""Assertions over a run: the event grammar, and the four views of its outcome agreeing.

A run is explained four ways (docs/design.md §4): its RunState, its ReleaseOutcome (with the
fallback type or failure code), its row in the run store, and the events the client received.
:func:`assert_outcome` checks that they tell one story, then any outcome the test expects,
and lists every disagreement at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from diagnosis_harness._result import DiagnosisResult

PHASES = frozenset({"routing", "investigating", "collecting evidence", "writing the draft",
                    "checking evidence", "repairing citations", "judging", "revising"})
"""The phases a ``status`` event may name (docs/design.md §10)."""
STORED_STATUS = {"SUCCESS": "SUCCESS", "FALLBACK": "SUCCESS", "FAILED": "FAILED",
                 "CANCELLED": "CANCELLED"}
"""The run row's ``status`` of each ReleaseOutcome (docs/design.md §3)."""
_RUN_STATES = {"SUCCESS": {"SUCCESS"}, "FALLBACK": {"SUCCESS", "BUDGET_EXHAUSTED", "FAILED"},
               "FAILED": {"SUCCESS", "FAILED", "TIMED_OUT", "BUDGET_EXHAUSTED"},
               "CANCELLED": {"CANCELLED"}}
"""RunStates each ReleaseOutcome can come with (the outcome matrix of docs/design.md §4)."""
_ROW_KEYS = ("thread_id", "run_state", "release_outcome", "fallback_type", "failure_code",
             "stop_reason", "intent", "content")
_ANY: Any = object()  # the "not asked" default of str | None parameters: Any so it fits them


def event_grammar_problems(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """What in ``events`` breaks ``metadata → status* → (content | failure) → done``.

    A prefix ending before ``content``/``failure`` is grammatical: a cancelled run stops there.
    """
    kinds = [str(e.get("event")) for e in events]
    problems: list[str] = []
    if not kinds or kinds[0] != "metadata":
        problems.append(f"the first event must be metadata, got {kinds[:1] or 'no events'}")
    order = {"metadata": 0, "status": 1, "content": 2, "failure": 2, "done": 3}
    stage = -1
    for i, (kind, event) in enumerate(zip(kinds, events, strict=True)):
        if kind not in order:
            problems.append(f"event #{i + 1} has unknown type {kind!r}")
            continue
        rank = order[kind]
        if rank < stage or (rank == stage and kind != "status"):
            problems.append(f"event #{i + 1} ({kind}) out of order after {kinds[:i]}")
        stage = max(stage, rank)
        if kind == "status" and event.get("phase") not in PHASES:
            problems.append(f"event #{i + 1}: unknown status phase {event.get('phase')!r}")
    if "done" in kinds and not {"content", "failure"} & set(kinds):
        problems.append("done without a content or failure event before it")
    return problems


def assert_event_grammar(events: Iterable[Mapping[str, Any]]) -> None:
    """Fail with every problem if ``events`` break the event grammar."""
    problems = event_grammar_problems(list(events))
    if problems:
        raise AssertionError("event grammar broken:\n- " + "\n- ".join(problems))


def outcome_problems(result: DiagnosisResult, *, stored: bool = True) -> list[str]:
    """Where the run state, release outcome, stored run row and events of a run disagree."""
    out = result.to_json()
    events = list(result.events)
    problems = event_grammar_problems(events)
    by_kind = {e.get("event"): e for e in events}
    outcome = out["release_outcome"]
    meta = by_kind.get("metadata", {})
    for key in ("run_id", "thread_id", "model"):
        if meta.get(key) != out[key]:
            problems.append(f"metadata {key} is {meta.get(key)!r}, the result's {out[key]!r}")
    if out["run_state"] not in _RUN_STATES[outcome]:
        problems.append(f"run_state {out['run_state']} cannot come with release_outcome {outcome}")
    if (out["fallback_type"] is not None) != (outcome == "FALLBACK"):
        problems.append(f"fallback_type {out['fallback_type']} with release_outcome {outcome}")
    if (out["failure_code"] is not None) != (outcome == "FAILED"):
        problems.append(f"failure_code {out['failure_code']} with release_outcome {outcome}")
    published = outcome in ("SUCCESS", "FALLBACK")
    if published != bool(out["content"]):
        problems.append(f"content is {'missing' if published else 'present'} for {outcome}")
    content, failure, done = by_kind.get("content"), by_kind.get("failure"), by_kind.get("done")
    if outcome == "CANCELLED":
        if content or failure or done:
            problems.append("a cancelled run emitted content, failure or done")
    else:
        if done is None:
            problems.append(f"no done event for {outcome}")
        elif (done.get("release_outcome"), done.get("run_state")) != (outcome, out["run_state"]):
            problems.append(f"done says {done.get('release_outcome')}/{done.get('run_state')}, "
                            f"the result {outcome}/{out['run_state']}")
        if published and (content is None or
                          (content.get("text"), content.get("release_outcome"),
                           content.get("fallback_type"))
                          != (out["content"], outcome, out["fallback_type"])):
            problems.append("the content event does not carry the published content and outcome")
        if outcome == "FAILED" and (failure is None
                                    or failure.get("failure_code") != out["failure_code"]):
            problems.append(f"no failure event with failure_code {out['failure_code']}")
    if stored:
        problems += _stored_problems(result, out)
    return problems


def _stored_problems(result: DiagnosisResult, out: dict[str, Any]) -> list[str]:
    row = result.stored_run()
    if row is None:
        return [f"the run store has no row for run {result.run_id}"]
    problems = [f"stored {key} is {row.get(key)!r}, the result's {out[key]!r}"
                for key in _ROW_KEYS if row.get(key) != out[key]]
    if row.get("status") != STORED_STATUS[out["release_outcome"]]:
        problems.append(f"stored status {row.get('status')} for {out['release_outcome']}")
    if row.get("usage") != out["usage"]:
        problems.append(f"stored usage {row.get('usage')} differs from {out['usage']}")
    if result.stored_events() != out["events"]:
        problems.append("the stored events differ from the events the client received")
    return problems


def assert_outcome(result: DiagnosisResult, release_outcome: str | None = None, *,
                   run_state: str | None = None, fallback_type: str | None = _ANY,
                   failure_code: str | None = _ANY, stored: bool = True) -> None:
    """Fail unless the four views of ``result`` agree and it ended as expected.

    Checks the event grammar; that run state, release outcome, fallback type and failure code
    fit each other and the ``content``/``failure``/``done`` events; and (``stored``) that the
    run row and the recorded events say the same. Then any expectation given: e.g.
    ``assert_outcome(result, "FALLBACK", fallback_type="INSUFFICIENT_EVIDENCE")``.
    """
    problems = outcome_problems(result, stored=stored)
    expected = {"release_outcome": release_outcome, "run_state": run_state}
    expected = {k: v for k, v in expected.items() if v is not None}
    expected.update({k: v for k, v in (("fallback_type", fallback_type),
                                       ("failure_code", failure_code)) if v is not _ANY})
    out = result.to_json()
    problems += [f"expected {key} {value!r}, got {out[key]!r}"
                 for key, value in expected.items() if out[key] != value]
    if problems:
        summary = (f"run {result.run_id}: {out['run_state']} / {out['release_outcome']} / "
                   f"{out['fallback_type'] or out['failure_code'] or '-'}; events "
                   f"{result.event_kinds}; failure message: {result.failure_message!r}")
        raise AssertionError(f"{summary}\n- " + "\n- ".join(problems))
