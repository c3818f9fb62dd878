"""route: ask the router, and set the investigation scope — or send a refused input to release.

A run's input is validated, and its row created, once, at the run's door
(:meth:`diagnosis_harness.session.run_session.RunSession.begin`); route only reads the verdict
(``ctx.input_problem``). The router goes through the retry executor (its attempts, timeouts and
budget are the design's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.messages import RemoveMessage, SystemMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from diagnosis_harness import prompts
from diagnosis_harness.control.budget import BudgetExhausted
from diagnosis_harness.control.contracts import (
    CollectionState,
    FailureClass,
    FailureCode,
    Intent,
    Role,
    RouterAnswer,
    RunState,
)
from diagnosis_harness.control.retry import AttemptError, RetryResult
from diagnosis_harness.control.settings import zone_of
from diagnosis_harness.guards.incident import SYSTEM_WORDS, is_incident_question
from diagnosis_harness.guards.parsing import parse_answer
from diagnosis_harness.nodes._model_call import (
    ask_with_retry,
    offload,
    prompt_message,
    text_of,
    unreachable_after,
)
from diagnosis_harness.nodes._stops import stop, stop_from_budget
from diagnosis_harness.providers.messages import with_prompt
from diagnosis_harness.providers.offline.router import unwritten_readings
from diagnosis_harness.run.context import RunContext, run_context
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.tools.bounded import run_bounded
from diagnosis_harness.tools.registry import enabled_tools, tool_list
from diagnosis_harness.tools.stats.onset import onset_timeline

_FRESH_RUN: dict[str, Any] = {
    "stop": None, "model_unreachable": None, "intent": None, "scope": {}, "records": Overwrite([]),
    "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)],
    "collection_state": CollectionState.COLLECTING.value, "no_gain_streak": 0,
    "violation_streak": 0, "stop_delivered": False, "last_evidence_call": None,
    "progress": {}, "draft": None, "draft_error": None, "evidence_verdict": None,
    "repair_used": False, "revision_used": False, "draft_retry_used": False,
    "semantic_verdict": None, "run_state": None,
    "release_outcome": None,
    "content": None, "suspects": [], "fallback_type": None,
    "failure_code": None, "stop_reason": None, "events": [], "usage": {},
}


_SCHEMA = FailureClass.SCHEMA_INVALID


def _parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        raise AttemptError(_SCHEMA, f"time {value!r} is not ISO-8601") from None
    if stamp.tzinfo is None:
        raise AttemptError(_SCHEMA, f"time {value!r} has no UTC offset")
    return stamp



FAR_FUTURE = timedelta(days=1)
"""A window bound later than this after "now" cannot have evidence yet: it is dropped."""
_MERCHANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
"""A merchant id is one token (M1001, acme-eu, 4711); anything else was not read as an id."""


def _tolerate(answer: RouterAnswer, now: datetime
              ) -> tuple[datetime | None, datetime | None, str | None, list[str]]:
    """The router's optional fields, each wrong one dropped with a note (docs/design.md §10).

    A time that is not ISO-8601 with an offset is an unusable answer (retried); a window that
    ends before it starts, a bound in the far future or a merchant that is no id are dropped:
    the run goes on with the default lookback, and the report says why.
    """
    start, end = _parse_time(answer.start), _parse_time(answer.end)
    notes: list[str] = []
    if start and end and end <= start:
        notes.append(f"The time window read from the question ({start.isoformat()} to "
                     f"{end.isoformat()}) ends before it starts: ignored.")
        start = end = None
    horizon = now + FAR_FUTURE if now < datetime.max.replace(tzinfo=now.tzinfo) - FAR_FUTURE else None
    for name, bound in (("start", start), ("end", end)):
        if bound is not None and horizon is not None and bound > horizon:
            notes.append(f"The window {name} read from the question ({bound.isoformat()}) is "
                         "in the future: ignored.")
            start, end = (None, end) if name == "start" else (start, None)
    merchant = (answer.merchant or "").strip() or None
    if merchant is not None and not _MERCHANT_ID.fullmatch(merchant):
        # Not quoted: the value is the router's text, and the note is published.
        notes.append("The merchant read from the question is not an id (letters, digits, "
                     "'-', '_', '.', ':'): ignored.")
        merchant = None
    return start, end, merchant, notes


def _scope(answer: RouterAnswer, ctx: RunContext, question: str) -> dict[str, Any]:
    now = _now(ctx)
    start, end, merchant, notes = _tolerate(answer, _latest_evidence(ctx, now))
    named = start is not None or end is not None  # a window the question gave and we kept
    minutes = ctx.settings.lookback_minutes
    lookback = timedelta(minutes=minutes)
    dropped = (answer.start is not None and start is None) or (answer.end is not None
                                                              and end is None)
    latest = _latest_evidence(ctx, now)
    if end is not None and end > latest:
        # Read in another zone or past the data: nothing can be logged after "now".
        notes.append(f"The window's end read from the question ({end.isoformat()}) is after the "
                     f"latest data ({latest.isoformat()}): ended there.")
        end = latest
        if start is not None and start >= end:
            start = end - lookback
    if start is None and end is None:
        end, start = now, now - lookback
        notes.append(f"Using the last {minutes} minutes up to the dataset's latest event instead."
                     if dropped else f"The question names no time window: using the last "
                     f"{minutes} minutes up to the dataset's latest event.")
    elif end is None:
        assert start is not None
        end = start + lookback
        notes.append(f"No usable end time: using {minutes} minutes from the start." if dropped
                     else f"No end time given: using {minutes} minutes.")
    elif start is None:
        start = end - lookback
        notes.append(f"No usable start time: using {minutes} minutes up to the end." if dropped
                     else f"No start time given: using {minutes} minutes.")
    if named:  # what the reading assumed that the question did not write (docs/design.md §10)
        notes += unwritten_readings(question, start, end, now)
    service = _service_of(answer.service, ctx.dataset.services)
    if service is None and answer.service and answer.service.strip():
        notes.append("The question names the system, not one of its services: investigating "
                     "every service in the window.")
    return {"service": service, "merchant": merchant, "start": start.isoformat(),
            "end": end.isoformat(), "window_named": named, "window_note": " ".join(notes)}


def _service_of(named: str | None, known: Sequence[str]) -> str | None:
    """The router's service, or None for the whole system ("the shop", "the platform").

    A name the dataset does not know is kept (a service may log nothing because it is down)
    unless it is a word for the whole system: that question is a system-wide investigation.
    """
    service = (named or "").strip().lower() or None
    if service is None or service in (s.lower() for s in known):
        return service
    words = service.removeprefix("the ").split()
    return None if words and all(w in SYSTEM_WORDS for w in words) else service


def _now(ctx: RunContext) -> datetime:
    """Return "now": a file dataset's latest event (docs/design.md §11), else wall-clock time."""
    latest = getattr(ctx.dataset, "latest_ts", None)
    now = datetime.fromisoformat(latest) if latest else datetime.now(UTC)
    try:
        return now.astimezone(zone_of(ctx.settings.timezone))
    except OverflowError:  # an event at the end of the calendar, read in a zone east of UTC
        return now


def _latest_evidence(ctx: RunContext, now: datetime) -> datetime:
    """The latest time any evidence source can speak of: "now", or the wall clock if later.

    The wall clock counts where a live source (Prometheus, docs/design.md §17) is configured:
    an alert's window up to this minute is not in the future there, even when the dataset's
    events end earlier.
    """
    if getattr(ctx.backends, "prometheus", None) is None:
        return now
    return max(now, datetime.now(UTC))


def _missing(scope: dict[str, Any], required: Sequence[str]) -> list[str]:
    """Required context the question lacks (docs/design.md §4 row 2, §16.2).

    A window stands in for a service: a question that names no service but gives a window is a
    system-wide investigation of that window. Only a question with neither has nothing to scope
    by and misses "service".
    """
    have = {"service": scope.get("service") or scope.get("window_named"),
            "merchant": scope.get("merchant"), "window": scope.get("window_named")}
    return [name for name in required if not have.get(name)]


def router_values(question: str, dataset: object, now: datetime) -> dict[str, str]:
    """The router prompt's values: the question, the data's services and examples, ``now``.

    The example names a service of the list it gives (a name not in it was copied), and an id
    is exemplified only where the data has one: a default ``M1001`` and an example question
    "for merchant …" had a player look for a merchant in a hospital's question. The times
    share ``now``'s offset: small models copy an example's offset.
    """
    example = now.replace(hour=9, minute=0, second=0, microsecond=0)
    services = tuple(getattr(dataset, "services", None) or ())
    examples = getattr(dataset, "examples", None) or {}
    named = examples.get("service")
    example_service = str(named) if named in services else services[0] if services else "api"
    merchant = examples.get("merchant")
    return {"question": question, "known_services": ", ".join(services) or "(none)",
            "now": now.isoformat(), "example_start": example.isoformat(),
            "example_end": (example + timedelta(minutes=30)).isoformat(),
            "example_service": example_service,
            "merchant_example": f" (for example {json.dumps(merchant)})" if merchant else ""}


async def route(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Decide: investigate, fall back for missing context, reply, or refuse the input."""
    ctx = run_context(runtime)
    update: dict[str, Any] = {**_FRESH_RUN, "run_id": ctx.run_id, "thread_id": ctx.thread_id,
                              "previous_turn": state.get("last_success")}
    question = state.get("question")
    if ctx.input_problem:  # found at the run's door: the input never reaches a model
        return {**update, "stop": stop("invalid_input", RunState.FAILED,
                                       FailureCode.INVALID_INPUT, ctx.input_problem)}
    assert isinstance(question, str)  # the door refuses anything else
    ctx.emitter.emit("status", phase="routing")
    budget = ctx.budget(None)
    try:
        budget.reserve_bytes(len(question.encode("utf-8")))  # the input counts toward run bytes
    except BudgetExhausted as exc:
        return {**update, "stop": stop_from_budget(exc)}
    now = _now(ctx)
    router_prompt = prompt_message("router", **router_values(question, ctx.dataset, now))

    def parse(text: str) -> dict[str, Any]:
        parsed = parse_answer(text, RouterAnswer)
        if parsed.value is None:
            raise AttemptError(parsed.failure or _SCHEMA, parsed.detail)
        answer = parsed.value
        # An incident question is never GENERAL: the capability reply is no diagnosis.
        intent = Intent.DIAGNOSIS if is_incident_question(question) else answer.intent
        return {"intent": intent,
                "scope": _scope(answer, ctx, question) if intent is Intent.DIAGNOSIS else {}}

    result, late = await ask_with_retry(ctx, Role.ROUTER, router_prompt, budget, parse)
    update["usage"] = budget.usage.model_dump()
    if late is not None:
        return {**update, "stop": late}
    if result.budget_exhausted:
        return {**update, "stop": stop("budget", RunState.BUDGET_EXHAUSTED,
                                       FailureCode.BUDGET_EXHAUSTED, "budget spent while routing")}
    if result.value is None and unreachable_after(result.receipts):
        # Degrade, don't fail: the offline router reads the question, the offline investigator
        # gathers the facts, and the run ends FALLBACK / MODEL_UNREACHABLE with their digest.
        update["model_unreachable"] = (
            f"the model endpoint was unreachable: the router's {len(result.receipts)} attempt(s) "
            f"failed ({result.receipts[-1].detail[:200]}); the offline router read the question")
        result = await _offline_route(ctx, router_prompt, parse)
    if result.value is None:
        return {**update, "stop": stop(
            "routing_unavailable", RunState.FAILED, FailureCode.ROUTING_UNAVAILABLE,
            f"the router gave no usable answer after {len(result.receipts)} attempt(s) "
            f"({result.failure_class})")}
    intent: Intent = result.value["intent"]
    scope = result.value["scope"]
    ctx.labels["intent"] = intent.value  # every later model call's trace carries it
    update.update(intent=intent.value, scope=scope)
    if intent is Intent.GENERAL and _offline_follow_up(ctx, state, update):
        # Never the capability reply as a SUCCESS answer to a follow-up (issue 41).
        return {**update, "stop": stop(
            "follow_up", RunState.SUCCESS, None,
            "the offline investigator does not answer follow-up questions")}
    if intent is Intent.GENERAL:
        return update
    missing = _missing(scope, ctx.settings.required_context)
    if missing:
        return {**update, "scope": {**scope, "missing": missing}}
    # Off the event loop: a question without a time reads the data's onsets (a short query).
    opening = await offload(_agent_opening, ctx, state, scope)
    size = sum(len(text_of(m).encode("utf-8")) for m in opening)
    if size > ctx.settings.max_agent_input_bytes:
        return {**update, "stop": stop(
            "invalid_input", RunState.FAILED, FailureCode.INVALID_INPUT,
            f"the agent's input would be {size} bytes; the limit is "
            f"{ctx.settings.max_agent_input_bytes}: shorten the question or start a new thread")}
    return {**update, "messages": [*update["messages"], *opening]}


def _offline_follow_up(ctx: RunContext, state: DiagnosisState, update: dict[str, Any]) -> bool:
    """Whether a GENERAL reading is the offline router's, of a question on a thread with a past turn.

    The offline router reads services, ids and times, not a conversation: a follow-up
    ("who made that change?") comes out GENERAL, and the capability reply is no answer to it.
    """
    offline = ctx.seam.seam_for(Role.ROUTER).spec.provider == "offline" \
        or bool(update.get("model_unreachable"))
    return offline and bool(state.get("last_success") or state.get("run_id"))


async def _offline_route(ctx: RunContext, prompt: Any,
                         parse: Any) -> RetryResult[dict[str, Any]]:
    """The offline router's reading of the question (no network, no tokens), as a result."""
    from diagnosis_harness.providers.offline import build_offline_model

    reply = await build_offline_model(Role.ROUTER, ctx.settings).ainvoke([prompt])
    try:
        return RetryResult(parse(text_of(reply)), None, ())
    except AttemptError as exc:
        return RetryResult(None, exc.failure_class, ())


def _agent_opening(ctx: RunContext, state: DiagnosisState, scope: dict[str, Any]) -> list[Any]:
    """The agent's system prompt and first user turn.

    The system prompt's text is the same for every run on the same data and settings (the
    tools offered, the rules): a provider can cache that prefix. The incident itself is in the
    first user turn; its values also travel with the system prompt as data, for the models that
    read data rather than wording (the offline investigator, the json protocol's own prompt).
    """
    previous = (state.get("last_success") or "none")
    limit = ctx.settings.max_previous_turn_bytes
    if len(previous.encode("utf-8")) > limit:
        previous = previous.encode("utf-8")[:limit].decode("utf-8", "ignore") + " …(truncated)"
    incident = {"service": scope["service"] or "(not given)",
                "merchant": scope.get("merchant") or "(not given)", "start": scope["start"],
                "end": scope["end"], "window_note": scope["window_note"] or ""}
    rules = {"tool_list": tool_list(enabled_tools(ctx.backends) | set(ctx.mcp_tools),
                                    ctx.mcp_tools),
             "max_tool_calls": ctx.settings.max_tool_calls}
    system = with_prompt(SystemMessage(prompts.render("agent_system", **rules)), "agent_system",
                         {**rules, **incident})
    return [system, prompt_message("agent_task", question=state["question"],
                                   previous_turn=previous, data_span=_data_span(ctx, scope),
                                   **incident)]


def _data_span(ctx: RunContext, scope: dict[str, Any]) -> str:
    """For a question that names no time: where the data is, instead of a blind look-back.

    The data's span, and where log patterns first went new or risen in the last
    ``HARNESS_MAX_LOG_WINDOW_MINUTES`` of it (``onset_timeline``'s first rows, a hint the agent
    can cite only by calling the tool itself). Bounded by a second and the run's deadline; a
    failure only leaves the onsets out.
    """
    if scope.get("window_named"):
        return ""
    first, latest = ctx.dataset.first_ts, ctx.dataset.latest_ts
    if not first or not latest:
        return ""
    text = (f"\nThe question names no time, so that window is only a guess. The data spans "
            f"{first} to {latest}: find where the anomalies start before you narrow down.")
    onsets = _onsets(ctx, datetime.fromisoformat(latest))
    if onsets:
        text += (f" Log patterns that first went new or risen in the last "
                 f"{ctx.settings.max_log_window_minutes} minutes of it (not evidence: call "
                 f"onset_timeline to cite them): {onsets}.")
    return text


def _onsets(ctx: RunContext, latest: datetime) -> str:
    window = timedelta(minutes=ctx.settings.max_log_window_minutes)
    try:
        start = max(latest - window, datetime.fromisoformat(str(ctx.dataset.first_ts)) + window / 2)
    except (OverflowError, ValueError):  # data at the calendar's ends: no hint, not a crash
        return ""
    if start >= latest:
        return ""
    try:
        result = run_bounded(lambda: onset_timeline(
            ctx.backends, ctx.settings, start=start.isoformat(), end=latest.isoformat()),
            ctx.backends, min(1.0, ctx.lifecycle.remaining()), "onsets")
    except Exception:  # noqa: BLE001 — a hint only: without it the agent looks for itself
        return ""
    rows = [i.data for i in result.items if i.kind == "onset"]
    severe = [r for r in rows if r.get("level") in ("WARN", "ERROR", "FATAL")]
    rows = (severe or rows)[:3]  # failures first: a busy system's new INFO lines are noise
    return "; ".join(f"{r.get('service')} {r.get('level')} from {r.get('onset')}" for r in rows)
