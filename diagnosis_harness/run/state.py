"""The graph's state: what one run has done, checkpointed (``progress`` aside) and serialisable.

Three schemas: :class:`InputState` (what a caller sends), :class:`OutputState` (what a caller
gets: the run fields of the CLI's ``--json`` object) and :class:`DiagnosisState` (everything).
Only ``messages`` and ``records`` accumulate; every other field is last-write-wins. A thread
keeps its state between turns, so ``route`` resets the per-run fields at the start of each turn
(``records`` with LangGraph's ``Overwrite([])``, which bypasses the reducer, ``messages`` with a
remove-all) and keeps ``last_success``.
Enum values are stored by name and records as plain dicts so that the state travels unchanged
through checkpointers, the dev server's API and Studio.

Checkpoints grow linearly with a run's steps: the two accumulating fields are LangGraph
``DeltaChannel`` channels, whose checkpoints store each step's writes once (the value is
rebuilt from them on read) instead of the whole list again at every step; ``records`` is a
compact index whose facts live in the run store (:mod:`diagnosis_harness.run.records`); ``progress`` is
derived and never checkpointed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


def accumulate_records(old: list[dict[str, Any]] | None,
                       new: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Append new record index entries (a new run starts from ``Overwrite([])``, not through here)."""
    return [*(old or []), *(new or [])]


def records_delta(state: list[dict[str, Any]], writes: Sequence[Any]) -> list[dict[str, Any]]:
    """The records channel's reducer over a batch of writes: each appended in order."""
    return reduce(accumulate_records, writes, state)


def messages_delta(state: list[AnyMessage], writes: Sequence[Any]) -> list[AnyMessage]:
    """The messages channel's reducer over a batch of writes: ``add_messages`` on each in order.

    A fold, so applying two batches one after the other equals applying them together, as a
    DeltaChannel requires. Ids are given before a write is saved (LangGraph does it for
    DeltaChannels), so a rebuilt value has the same ids every time.
    """
    return reduce(add_messages, writes, state)  # type: ignore[arg-type]


StopKind = Literal["controlled", "budget", "model_failure", "crash", "cancelled", "timed_out",
                   "invalid_input", "routing_unavailable", "model_unreachable", "follow_up"]
"""Why a node ended the loop; ``release.decide`` maps each kind to a row of the outcome matrix.

``controlled``: an evidence tool was called after STOP_REQUIRED; ``budget``: a run budget is
spent; ``model_failure``: the agent's one model call failed (classified); ``crash``: an
unclassified failure; ``cancelled`` / ``timed_out``: the lifecycle ended the run;
``invalid_input``: the question (or the agent's opening) is unusable; ``routing_unavailable``:
the router gave no usable answer within its attempts; ``model_unreachable``: the model endpoint
was unreachable and the offline investigator, standing in, wrote its draft (its triage ends the
run, never a root cause); ``follow_up``: a follow-up on a thread that the offline router read as
no incident (the offline investigator answers no follow-up).
"""


class Stop(TypedDict):
    """The stop signal a node writes for ``release`` (built by ``nodes._stops``; plain JSON)."""

    kind: StopKind
    run_state: str
    """The terminal RunState this stop asks for (its value)."""
    failure_code: str | None
    """The FailureCode a failure event would carry (its value), if any."""
    message: str
    """Why, in one line: shown in a failure event or a fallback's limitations."""
    failure_class: NotRequired[str]
    """For model failures: the FailureClass of the agent's call."""


class EvidenceVerdictData(TypedDict):
    """The evidence guard's verdict as stored in state (``guards.evidence.EvidenceVerdict``)."""

    passed: bool
    problems: list[dict[str, Any]]
    """One {evidence_id, claim_index, problem} per rejected citation."""


JudgeVerdict = Literal["SUPPORTED", "UNSUPPORTED", "UNAVAILABLE"]
"""The judge's answer, or UNAVAILABLE when no usable answer came within its attempts."""


class SemanticVerdictData(TypedDict, total=False):
    """The judge's verdict as stored in state: its answer, or why it is unavailable."""

    verdict: JudgeVerdict
    """The harness's ruling on the answer (``guards.semantic.ruling``): SUPPORTED publishes."""
    claims: list[dict[str, Any]]
    """Per-claim verdicts ``{index, verdict, reason}`` (0-based; absent: a whole-draft answer).
    Only SUPPORTED claims are published; the others stay here and in the trace."""
    root_cause: dict[str, Any]
    """``{verdict, reason}``: whether the root cause follows from the supported claims alone."""
    reasons: list[str]
    """The judge's reasons (an answer only)."""
    failure_class: str | None
    """Why the judge is unavailable (UNAVAILABLE only)."""
    attempts: int
    """How many attempts were made (UNAVAILABLE only)."""
    budget_exhausted: bool
    """Whether the run budget ended the attempts (UNAVAILABLE only)."""


class DraftErrorData(TypedDict):
    """Why the agent's final message is not a valid draft."""

    error: str
    """The DraftError class: EMPTY_DRAFT, INVALID_JSON or SCHEMA_INVALID."""
    detail: str


class InputState(TypedDict):
    """What a caller sends: one question (the thread carries earlier turns)."""

    question: str
    """The on-call engineer's question for this turn."""


class OutputState(TypedDict, total=False):
    """What a caller gets back: the run's release decision and what was published."""

    run_id: str
    """Identifier of this run (one turn of a thread)."""
    thread_id: str | None
    """The conversation thread this run belongs to."""
    intent: str | None
    """DIAGNOSIS or GENERAL, as the router decided; None when routing never finished."""
    run_state: str
    """Core layer: the run's terminal RunState."""
    release_outcome: str
    """Release layer: SUCCESS, FALLBACK, FAILED or CANCELLED."""
    fallback_type: str | None
    """Which fallback was published, if any."""
    failure_code: str | None
    """Coarse failure reason, if the run failed."""
    stop_reason: str | None
    """Why evidence collection stopped, if it stopped early."""
    suspects: list[dict[str, Any]]
    """The triage digest of a fallback: ranked suspects from verified facts (§16.2)."""
    content: str | None
    """The published report or fallback text; None for FAILED and CANCELLED."""
    events: list[dict[str, Any]]
    """The events emitted to the client, in order."""
    usage: dict[str, int]
    """Budget usage of this run: model and tool calls, tokens, bytes."""


class DiagnosisState(InputState, OutputState, total=False):
    """Everything a run has done; checkpointed after every node."""

    previous_turn: str | None
    """The thread's last successful diagnosis, shown to the agent; never a fallback."""
    elapsed_s: float
    """The run's run time so far, in seconds, written after every node next to ``usage``: a run
    resumed in another process keeps its remaining deadline (docs/design.md §6)."""
    last_success: str | None
    """Kept across turns: summary of the latest DIAGNOSIS released as SUCCESS in this thread."""
    scope: dict[str, Any]
    """Normalised investigation scope from the router: service, merchant, start, end, note."""
    stop: Stop | None
    """Stop signal for release: kind, run_state, failure_code, message. None while running."""
    model_unreachable: str | None
    """Why the model endpoint could not be reached (the router's or the agent's call): from then
    on the offline investigator stands in, and the run ends FALLBACK / MODEL_UNREACHABLE."""
    messages: Annotated[list[AnyMessage], DeltaChannel(messages_delta)]
    """The agent's conversation: prompts, model turns, observations (model view only)."""
    records: Annotated[list[dict[str, Any]], DeltaChannel(records_delta)]
    """This run's tool records (control view), in call order, as a compact index: call id,
    tool, scope, statuses, evidence ids. The canonical records are in the run store
    (:func:`diagnosis_harness.run.records.run_records`)."""
    collection_state: str
    """COLLECTING or SATURATED."""
    no_gain_streak: int
    """Consecutive NO_GAIN observations."""
    violation_streak: int
    """Consecutive progress-protocol violations."""
    stop_delivered: bool
    """Whether STOP_REQUIRED was shown to the agent (exactly once)."""
    last_evidence_call: str | None
    """Tool-call id of the previous evidence call, which the next call's envelope must name."""
    progress: Annotated[dict[str, Any], UntrackedValue(dict)]
    """ProgressSnapshot of READY records: what was checked, facts, empty scopes. Derived from
    the records, so never checkpointed: ids only while collecting, with texts at release."""
    draft: dict[str, Any] | None
    """The parsed DiagnosisDraft, or None."""
    draft_error: DraftErrorData | None
    """Why the final message is not a valid draft: {error, detail}."""
    evidence_verdict: EvidenceVerdictData | None
    """The evidence guard's latest verdict."""
    repair_used: bool
    """Whether the one evidence repair was spent."""
    semantic_verdict: SemanticVerdictData | None
    """The judge's verdict, or {verdict: UNAVAILABLE, failure_class} after its attempts."""
    revision_used: bool
    """Whether the one revision was spent: a refused draft went back to the agent (or could
    not, its budget spent); a second refusal is final."""
    draft_retry_used: bool
    """Whether the one draft retry was spent: a final answer that was no valid draft went back
    to the agent with the parse error (or could not, its budget spent)."""


EditRule = Literal["control", "published", "checked", "model_view"]
"""How a state edit (``update_state``, Studio's editor) may touch a key (docs/design.md §14).

``control``: run control and identity (budget, deadline, loop counters, ids): refused.
``published``: release publishes it or decides the published text from it, and no recording
backs it: refused. ``checked``: release checks it against what the run store recorded when
the tools and guards ran (EVIDENCE_TAMPERED otherwise): editable, with a value of its type.
``model_view``: only the agent sees it; whatever comes of it passes the guards: editable.
"""

EDIT_RULES: dict[str, EditRule] = {
    "question": "control", "run_id": "control", "thread_id": "control", "usage": "control",
    "events": "control", "elapsed_s": "control", "last_success": "control",
    "collection_state": "control", "no_gain_streak": "control", "violation_streak": "control",
    "stop_delivered": "control", "last_evidence_call": "control", "repair_used": "control",
    "revision_used": "control", "draft_retry_used": "control",
    "progress": "control",
    "intent": "published", "scope": "published", "stop": "published", "stop_reason": "published",
    "draft_error": "published", "run_state": "published", "release_outcome": "published",
    "fallback_type": "published", "failure_code": "published", "content": "published",
    "suspects": "published", "model_unreachable": "published",
    "draft": "checked", "records": "checked", "evidence_verdict": "checked",
    "semantic_verdict": "checked",
    "messages": "model_view", "previous_turn": "model_view",
}
"""The edit rule of every state key. Complete by construction: a key of :class:`DiagnosisState`
without a rule stops the import (below), and ``tests/test_state_edits.py`` checks that every key
release reads to build what it publishes is ``control``, ``published`` or ``checked``."""

_unruled = set(DiagnosisState.__annotations__) ^ set(EDIT_RULES)
if _unruled:  # pragma: no cover — a new state key must say how an edit may touch it
    raise TypeError(f"state keys without an edit rule (or rules without a key): {sorted(_unruled)}")
