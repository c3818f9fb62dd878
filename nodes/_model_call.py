"""The budgeted model call every model-using node shares, and its retried JSON-answer form.

Prompts are rendered here with their name and values attached as data (see
:mod:`diagnosis_harness.providers.messages`), so a model that reads data (the offline investigator, the json
protocol's wrapper) never has to read prompt wording. Also off-loop I/O for the run store: the
dev server forbids blocking calls in async nodes.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda

from diagnosis_harness import prompts
from diagnosis_harness.control.budget import Budget, clamp_ints, clean_usage_metadata, usage_count
from diagnosis_harness.control.contracts import DiagnosisDraft, FailureClass, FailureCode, FallbackType, Role
from diagnosis_harness.control.retry import RetryPolicy, RetryResult, execute_with_retry
from diagnosis_harness.nodes._stops import Stop, stop_from_abort, stop_if_inactive
from diagnosis_harness.providers.errors import ModelCallError
from diagnosis_harness.providers.messages import text_of, with_prompt
from diagnosis_harness.providers.seam import classify_exception
from diagnosis_harness.run.context import RunContext
from diagnosis_harness.run.records import records_of
from diagnosis_harness.run.state import DiagnosisState
from diagnosis_harness.tools.model_view import model_text

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.runnables import Runnable

    from diagnosis_harness.control.contracts import ToolRecord

__all__ = ["ModelUnreachable", "ask_with_retry", "call_model", "label_outcome", "offload",
           "prompt_message", "system_prompt_message", "text_of", "under_review", "unreachable_after"]

T = TypeVar("T")
P = ParamSpec("P")


async def offload(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking I/O (SQLite) off the event loop: the dev server forbids blocking nodes."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def under_review(ctx: RunContext, state: DiagnosisState, *,
                       phase: str) -> tuple[DiagnosisDraft, list[ToolRecord]]:
    """The draft a judging or repairing node works on and this run's records, ``phase`` announced."""
    records = await offload(records_of, ctx, state)
    ctx.emitter.emit("status", phase=phase)
    return DiagnosisDraft.model_validate(state["draft"]), records


def prompt_message(name: str, /, **values: object) -> HumanMessage:
    """Prompt ``name`` rendered with ``values`` as a user turn, its name and values attached."""
    return with_prompt(HumanMessage(prompts.render(name, **values)), name, values)


def system_prompt_message(name: str, /, **values: object) -> SystemMessage:
    """Prompt ``name`` rendered with ``values`` as the system turn, its name and values attached."""
    return with_prompt(SystemMessage(prompts.render(name, **values)), name, values)


class ModelUnreachable(ModelCallError):
    """The model endpoint could not be reached: refused, broken, or a 5xx answer.

    A TRANSPORT failure (retried by a role's policy like any), which a run that still cannot
    reach the endpoint degrades on (docs/design.md §4).
    """

    def __init__(self, message: str) -> None:
        super().__init__(FailureClass.TRANSPORT, message)


def _unreachable(exc: BaseException) -> bool:
    """Whether a provider's exception says the endpoint is down, not that the call was wrong.

    Connection refused or broken (not a timeout: a slow model is no dead one) and 5xx are; a
    429, a 4xx, a timeout or an answer that does not parse are not.
    """
    if "openai" in sys.modules:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return False
        if isinstance(exc, openai.APIConnectionError):
            return True
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code >= 500
    if "httpx" in sys.modules:
        import httpx

        return isinstance(exc, httpx.ConnectError | httpx.RemoteProtocolError)
    return False


def unreachable_after(receipts: Sequence[Any]) -> bool:
    """Whether a role's attempts (``RetryResult.receipts``) ended on an unreachable endpoint."""
    failed = [r for r in receipts if r.outcome == "failed"]
    return bool(failed) and failed[-1].detail.startswith(f"{ModelUnreachable.__name__}:")


async def call_model(ctx: RunContext, role: Role, messages: Sequence[BaseMessage],
                     budget: Budget, *, attempt: int = 1,
                     tools: Sequence[Any] | None = None,
                     tool_choice: str | None = None,
                     chat: BaseChatModel | None = None,
                     stand_in: str | None = None) -> AIMessage:
    """One model call: usage into the budget, a row into the trace; errors record 0 tokens.

    The caller has already reserved the call in the budget and bounds it with a timeout. The
    seam's model speaks the agent protocol: what comes back is tool calls or text, always. A
    call that would not fit the model's context fails as BUDGET_EXHAUSTED, unsent.
    ``tool_choice`` ``"none"`` binds ``tools`` (the prompt prefix stays the same) but lets the
    model call none of them: the agent's final draft turn. ``chat`` replaces the seam's model
    (the offline investigator standing in for an unreachable one), named ``stand_in`` in the
    trace row's role. An endpoint that cannot be reached raises :class:`ModelUnreachable`.
    """
    chat = chat if chat is not None else ctx.seam.for_role(role)
    messages = _as_read(ctx, role, chat, messages)
    model: Runnable[LanguageModelInput, AIMessage] = chat
    if tools is not None:
        model = ctx.seam.bound(chat, tools, tool_choice)
    began = time.monotonic()
    failure: FailureClass | None = None
    usage: Mapping[str, Any] = {}
    try:
        # With a context budget: the answer's room, or ContextExceeded before anything is sent.
        options = ctx.seam.call_options(role, messages, tools)
        reply = await model.ainvoke(list(messages), config=_labelled(ctx, role.value, attempt),
                                    **options)
        # Validated once, before budget, trace or checkpoint see them (2**64 lost the row).
        reply.usage_metadata = clean_usage_metadata(reply.usage_metadata)  # type: ignore[assignment]
        reply.response_metadata = clamp_ints(reply.response_metadata)
        usage = reply.usage_metadata or {}
        budget.record_usage_metadata(usage)
        return reply
    except asyncio.CancelledError:
        failure = FailureClass.CANCELLED
        raise
    except BaseException as exc:
        failure = classify_exception(exc)
        if _unreachable(exc):
            raise ModelUnreachable(f"{type(exc).__name__}: {exc}"[:300]) from exc
        raise
    finally:
        # A queued trace write (never waits for the database): made here, not through a
        # worker thread, so no model call waits for a thread hop to be recorded.
        ctx.store.record_model_call(
            ctx.run_id, f"{role.value} ({stand_in})" if stand_in else role.value, attempt=attempt,
            input_tokens=usage_count(usage.get("input_tokens")) if failure is None else 0,
            output_tokens=usage_count(usage.get("output_tokens")) if failure is None else 0,
            duration_ms=int((time.monotonic() - began) * 1000), failure_class=failure)


def _as_read(ctx: RunContext, role: Role, chat: BaseChatModel,
             messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    """The agent's messages as ``chat`` reads them: tool results compacted for a text model.

    State keeps each observation as structured JSON (the offline investigator and the json
    protocol read that); the seam's own ``openai:`` agent under native tool calls reads
    :func:`~diagnosis_harness.tools.model_view.model_text`'s lines, a fraction of the tokens.
    Any other model in its place reads the structure, as before.
    """
    if role is not Role.AGENT or ctx.seam.spec.provider != "openai" \
            or ctx.settings.agent_protocol == "json" or chat is not ctx.seam.for_role(role):
        return messages
    args = {c["id"]: c["args"] for m in messages if isinstance(m, AIMessage)
            for c in m.tool_calls if c.get("id")}
    return [m.model_copy(update={"content": model_text(m.content, args.get(m.tool_call_id))})
            if isinstance(m, ToolMessage) and isinstance(m.content, str) else m for m in messages]


def _labelled(ctx: RunContext, name: str, attempt: int | None = None,
              **extra: str | None) -> RunnableConfig:
    """Run name, tags and metadata of one invocation (docs/design.md §14: labelled traces).

    Callbacks and the graph's own labels come from the node's config; these are added to them.
    Tracing is off unless a user turns on LangSmith or OpenTelemetry: nothing leaves the process.
    """
    metadata: dict[str, Any] = {**ctx.labels, "harness_run_id": ctx.run_id,
                                "harness_thread_id": ctx.thread_id or ""}
    if attempt is not None:
        metadata["attempt"] = attempt
    metadata.update({k: v for k, v in extra.items() if v is not None})
    tags = [f"harness:{name}", *(f"{k}:{metadata[k]}" for k in ("intent", "outcome") if metadata.get(k))]
    return {"run_name": name, "tags": tags, "metadata": metadata}


def _published(summary: dict[str, Any]) -> dict[str, Any]:
    return summary


async def label_outcome(ctx: RunContext, outcome: str, fallback: FallbackType | None,
                        failure: FailureCode | None) -> None:
    """Leave the run's outcome on its trace: a ``publish`` invocation labelled with it.

    Trace tools index invocations by name, tags and metadata; the outcome is known only here,
    after every other invocation of the run started, so release adds one that carries it.
    """
    summary = {"outcome": outcome, "fallback_type": fallback.value if fallback else None,
               "failure_code": failure.value if failure else None}
    await RunnableLambda(_published, name="publish").ainvoke(
        summary, config=_labelled(ctx, "publish", None, **summary))


async def ask_with_retry(ctx: RunContext, role: Role, prompt: str | BaseMessage, budget: Budget,
                         parse: Callable[[str], T]) -> tuple[RetryResult[T], Stop | None]:
    """One JSON answer from ``role`` under its retry policy (router, judge or repair).

    ``prompt`` is best a :func:`prompt_message` (text alone reaches only models that read it).
    ``parse`` turns the reply text into the value or raises a classified AttemptError. Receipts
    go to the trace off the event loop. Returns the result and the stop to write, if the run
    ended meanwhile (cancel, deadline): an answer that arrives after that is dropped.
    """
    async def attempt(timeout: float) -> T:
        message = prompt if isinstance(prompt, BaseMessage) else HumanMessage(prompt)
        reply = await call_model(ctx, role, [message], budget, attempt=budget.usage.model_calls)
        return parse(text_of(reply))

    result = await execute_with_retry(
        attempt, role=role.value, policy=RetryPolicy.for_role(role.value, ctx.settings),
        lifecycle=ctx.lifecycle, budget=budget, classify=classify_exception)
    for receipt in result.receipts:  # off the event loop: the dev server forbids blocking I/O
        await offload(ctx.store.record_receipt, ctx.run_id, receipt.to_dict())
    if result.abort is not None:
        return result, stop_from_abort(result.abort)
    return result, stop_if_inactive(ctx)
