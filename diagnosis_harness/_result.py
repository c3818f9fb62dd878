"""DiagnosisResult: the CLI's ``--json`` object, typed and frozen, plus what a test asserts on.

The CLI fields (docs/design.md §10) come from the run exactly as ``harness diagnose --json``
prints them. The structured fields come from the run's final graph state and the records it
indexes (read from the run store): the published diagnosis (root cause, each claim with its
cited evidence and the records' text) and, for a fallback, what the run verifiably checked and
observed. Nothing here parses the prose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, PrivateAttr

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
    FailureCode,
    FallbackType,
    Intent,
    ReleaseOutcome,
    RunState,
    StopReason,
)
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.records import run_records
from diagnosis_harness.session.runner import OUTPUT_KEYS

if TYPE_CHECKING:
    from diagnosis_harness.providers.replay import ReplayScript
    from diagnosis_harness.runstore.store import RunStore

CLI_KEYS = (*OUTPUT_KEYS, "model")
"""The keys of ``harness diagnose --json`` (plus ``error`` after a crash outside the nodes)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Frozen):
    """What the run spent: model and tool calls, tokens, bytes."""

    model_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    bytes: int = 0


class Evidence(_Frozen):
    """One fact of this run's records, addressable by its evidence id ``E<k>.<i>``."""

    evidence_id: str
    tool: str
    """The evidence tool whose record holds the fact."""
    kind: str
    text: str
    """The fact's text as stored in the record (what the report shows next to the id)."""


class Claim(_Frozen):
    """One published claim and the evidence it cites."""

    statement: str
    evidence_ids: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    """The cited facts, in citation order."""


class CheckedScope(_Frozen):
    """One READY evidence call: which tool, over which scope, and what it found."""

    tool: str
    scope: dict[str, Any]
    status: str
    """EVIDENCE_FOUND or NO_EVIDENCE."""
    returned: int


class FallbackReport(_Frozen):
    """What a fallback is built from: only what this run verified."""

    fallback_type: FallbackType
    checked: tuple[CheckedScope, ...]
    """Every READY evidence call, in call order."""
    facts: tuple[Evidence, ...]
    """Every observed fact (READY + EVIDENCE_FOUND records), in call order."""
    empty_scopes: tuple[CheckedScope, ...]
    """The checked scopes that found nothing."""
    tool_errors: tuple[str, ...]
    """The error of each failed evidence call."""
    missing_context: tuple[str, ...]
    """For MISSING_REQUIRED_CONTEXT: what the question must add (service, merchant, window)."""


class DiagnosisResult(_Frozen):
    """One run of the harness: the ``--json`` fields, then the structured ones."""

    run_id: str
    thread_id: str
    intent: Intent | None
    run_state: RunState
    release_outcome: ReleaseOutcome
    fallback_type: FallbackType | None
    failure_code: FailureCode | None
    stop_reason: StopReason | None
    content: str | None
    events: tuple[dict[str, Any], ...]
    usage: Usage
    model: str
    error: str | None = None
    """Set after a crash outside the nodes (as in the CLI's ``--json``)."""

    root_cause: str | None = None
    """The published root cause: only for a DIAGNOSIS released as SUCCESS."""
    claims: tuple[Claim, ...] = ()
    """The published claims (SUCCESS only)."""
    next_steps: tuple[str, ...] = ()
    """The published next steps (SUCCESS only)."""
    fallback: FallbackReport | None = None
    """What the fallback was built from (FALLBACK only)."""
    suspects: tuple[dict[str, Any], ...] = ()
    """The triage digest of a fallback: ranked suspects, each with its evidence id (§16.2)."""
    scope: dict[str, Any] | None = None
    """The router's normalised scope: service, merchant, start, end, …"""
    previous_turn: str | None = None
    """The thread's earlier verified diagnosis this turn was shown (None: none)."""
    replay_consumed: dict[str, int] | None = None
    """For a replay model: how many answers each role used (roles that used none omitted)."""

    _store: RunStore | None = PrivateAttr(default=None)

    @property
    def event_kinds(self) -> list[str]:
        """The event types in order (``metadata``, ``status``, …)."""
        return [e.get("event", "") for e in self.events]

    @property
    def phases(self) -> list[str]:
        """The phases of the status events, in order."""
        return [e["phase"] for e in self.events if e.get("event") == "status"]

    @property
    def failure_message(self) -> str | None:
        """The ``failure`` event's message, if the run failed."""
        return next((e.get("message") for e in self.events if e.get("event") == "failure"), None)

    def to_json(self) -> dict[str, Any]:
        """Exactly the object ``harness diagnose --json`` prints for this run."""
        dumped = self.model_dump(mode="json")
        keys = [*CLI_KEYS, *(["error"] if self.error is not None else [])]
        out = {key: dumped[key] for key in keys}
        # The verified conclusion, as the draft stated it (the CLI has no records to resolve).
        out["root_cause"] = dumped["root_cause"]
        out["claims"] = [{"statement": c["statement"], "evidence_ids": c["evidence_ids"]}
                         for c in dumped["claims"]]
        return out

    def stored_run(self) -> dict[str, Any] | None:
        """The run's row in the run store (docs/design.md §10), or None if it has none."""
        return None if self._store is None else self._store.get_run(self.run_id)

    def stored_events(self) -> list[dict[str, Any]] | None:
        """The events the run store recorded for this run (None: no store at hand)."""
        return None if self._store is None else self._store.events(self.run_id)

    @classmethod
    def from_state(cls, values: Mapping[str, Any], context: RunContext) -> DiagnosisResult:
        """The result of a run driven through the graph yourself (``ainvoke`` / ``astream``).

        ``values`` is the graph's output, or better its full final state (the last ``values``
        chunk of ``astream``, or ``(await graph.aget_state(config)).values``): only the full
        state has the draft and the records behind the structured fields.
        """
        if values.get("run_id") != context.run_id or not values.get("release_outcome"):
            raise ValueError("these values are not the released state of this context's run")
        out = {key: values.get(key) for key in OUTPUT_KEYS}
        out.update(run_id=context.run_id, thread_id=context.thread_id or "",
                   events=context.emitter.events, model=str(context.seam.spec))
        return build_result(out, values, context.store, context.seam.replay_script)


def build_result(out: Mapping[str, Any], state: Mapping[str, Any] | None, store: RunStore | None,
                 script: ReplayScript | None = None) -> DiagnosisResult:
    """The result of a run from the runner's output and its last full graph state."""
    fields = dict(out)
    fields["usage"] = fields.get("usage") or BudgetUsage().model_dump()
    own = dict(state) if state and state.get("run_id") == out.get("run_id") else {}
    published = out.get("release_outcome") in ("SUCCESS", "FALLBACK")  # only these show facts
    records = [] if store is None or not published else [
        r.model_dump(mode="json") for r in run_records(store, str(out.get("run_id")), own.get("records"))]
    fields.update(_structured(fields, own, records))
    if script is not None:
        fields["replay_consumed"] = {role: n for role in ("router", "agent", "judge", "repair")
                                     if (n := script.consumed(role))}
    result = DiagnosisResult.model_validate(fields)
    result._store = store
    return result


def _structured(out: Mapping[str, Any], state: Mapping[str, Any],
                records: list[dict[str, Any]]) -> dict[str, Any]:
    facts = {f["evidence_id"]: Evidence(evidence_id=f["evidence_id"], tool=r["tool"],
                                        kind=f.get("kind", ""), text=f["text"])
             for r in records for f in r.get("facts") or []}
    fields: dict[str, Any] = {"scope": state.get("scope"),
                              "previous_turn": state.get("previous_turn")}
    outcome, draft = out.get("release_outcome"), state.get("draft") or {}
    conclusion = draft.get("conclusion")
    if outcome == "SUCCESS" and out.get("intent") == "DIAGNOSIS" and conclusion:
        fields["root_cause"] = conclusion["root_cause"]
        fields["claims"] = [Claim(statement=c["statement"], evidence_ids=tuple(c["evidence_ids"]),
                                  evidence=tuple(facts[e] for e in c["evidence_ids"] if e in facts))
                            for c in conclusion["claims"]]
        fields["next_steps"] = draft.get("next_steps") or []
    if outcome == "FALLBACK" and out.get("fallback_type"):
        fields["fallback"] = _fallback(out["fallback_type"], state, records, facts)
    return fields


def _fallback(fallback_type: str, state: Mapping[str, Any], records: list[dict[str, Any]],
              facts: dict[str, Evidence]) -> FallbackReport:
    """The SafeFallback's sources: READY records only, as release's progress snapshot has them."""
    ready = [r for r in records if r.get("invocation_status") == "READY"]
    checked = [CheckedScope(tool=r["tool"], scope=r.get("scope") or {},
                            status=r["evidence_status"], returned=r.get("returned_count", 0))
               for r in ready]
    found = [facts[f["evidence_id"]] for r in ready if r["evidence_status"] == "EVIDENCE_FOUND"
             for f in r.get("facts") or []]
    return FallbackReport(
        fallback_type=FallbackType(fallback_type), checked=tuple(checked), facts=tuple(found),
        empty_scopes=tuple(c for c in checked if c.status == "NO_EVIDENCE"),
        tool_errors=tuple(str(r.get("error")) for r in records
                          if r.get("invocation_status") == "ERROR"),
        missing_context=tuple((state.get("scope") or {}).get("missing") or ()))
