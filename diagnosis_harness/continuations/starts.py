"""What a stream starts from: a new turn, a continuation, or a re-run of a checkpoint (docs/design.md §14).

Every stream of the served graph is a server run of its own: a new question, a "Continue" after a
breakpoint or an ``interrupt()``, a re-run from an earlier checkpoint (time travel, a fork), a
resume after a state edit. :func:`describe_start` reads the thread's checkpoints and tells the
run-context resolver what it needs to map the stream onto a *harness* run:

- the input: a new turn, ``None`` (continue), or a ``Command`` carrying only ``resume`` (a
  turn's input is validated once, at the run's door: :func:`turn_problem`, called by
  :meth:`~diagnosis_harness.session.run_session.RunSession.begin`);
- the checkpoint it starts from, whether that is the thread's latest, what state it holds, what
  would run next and which ``interrupt()`` waits for an answer;
- the harness run that wrote that checkpoint (every checkpoint a stream writes carries its
  ``harness_run_id`` in its metadata; an edit's checkpoint carries none and names its parent);
- the state edits (``update_state``) between that run's last checkpoint and the start.

What is decided from it (same run, new run, refused) is :mod:`diagnosis_harness.continuations.resolve`.
Blocking nothing: the checkpointer is read with its async API, on the server's event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.pregel import Pregel

    from diagnosis_harness.run.context import RunContext

HARNESS_RUN_KEY = "harness_run_id"
"""The config (and so checkpoint) metadata key that names the harness run of a stream."""

INPUT_KEYS = frozenset({"question"})
"""A turn's input: exactly these keys (docs/design.md §10)."""

MAX_WALK = 200
"""How many edit checkpoints are followed back to the run that wrote the state (a bound)."""

InputKind = Literal["turn", "continue", "resume"]


class ContinuationRefused(ValueError):
    """A stream that must not start: it would change a decided run, or it carries more than an answer.

    Raised before anything runs; the thread and its runs stay as they were, and the client
    (server API, Studio, CLI) gets the message (a ValueError: the server shows its text).
    """


@dataclass(frozen=True)
class StreamStart:
    """What one stream starts from, as read from the thread's checkpoints."""

    input: object
    """The input the stream was given (a turn's, as the caller sent it: not yet validated)."""
    input_kind: InputKind
    thread_id: str | None
    resume: object = None
    """The answer a ``Command(resume=…)`` carries."""
    checkpoint_id: str | None = None
    """The checkpoint the stream starts from; None on an empty thread."""
    from_head: bool = True
    """Whether that checkpoint is the thread's latest."""
    owner_run_id: str | None = None
    """The harness run whose stream wrote that checkpoint (or the edited one's ancestor)."""
    values: dict[str, Any] = field(default_factory=dict)
    """The state at that checkpoint."""
    owns_state: bool = False
    """Whether that state is the owner run's own (its ``route`` ran), not the previous turn's."""
    next: tuple[str, ...] = ()
    """What runs next from there; empty when the thread's run went to its end."""
    interrupts: tuple[Any, ...] = ()
    """The values of the ``interrupt()`` calls waiting for an answer there."""
    edits: tuple[str, ...] = ()
    """Checkpoints made by state edits since the owner's last checkpoint, oldest first."""
    base_checkpoint_id: str | None = None
    """The owner's own checkpoint the start is on (under its edits, if any)."""


def turn_problem(value: object, max_bytes: int) -> str | None:
    """Why a turn's input is unusable (INVALID_INPUT), or None: the one check of a run's input.

    The input must be ``{"question": …}`` exactly, and the question non-empty UTF-8 text of at
    most ``max_bytes`` bytes (docs/design.md §4, §10).
    """
    if not isinstance(value, dict):
        return 'the input must be an object {"question": "…"}'
    unknown = sorted(set(value) - INPUT_KEYS)
    if unknown:
        return (f"unknown input key{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(k) for k in unknown)}: send exactly {{\"question\": \"…\"}}")
    if "question" not in value:
        return 'the input has no "question": send exactly {"question": "…"}'
    question = value["question"]
    if isinstance(question, bytes):  # the CLI hands over a question that is not UTF-8 as bytes
        return "the question is not valid UTF-8 text: retype it or fix the terminal's encoding"
    if not isinstance(question, str):
        return "the question must be text"
    if not question.strip():
        return "the question is empty: describe the incident (service, time window, symptom)"
    size = len(question.encode("utf-8"))
    if size > max_bytes:
        return (f"the question is {size} bytes; the limit is {max_bytes}: shorten it to the "
                "symptom, the service and the time window")
    return None


def _checkpoint_config(thread_id: str, checkpoint_id: str | None = None) -> RunnableConfig:
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _saver(graph: Pregel[Any, Any, Any, Any]) -> BaseCheckpointSaver[Any]:
    """The graph's checkpointer, once it is known not to be None.

    ``True``/``False`` (a subgraph's "inherit the parent's") never reach here: the served graph
    is compiled with its own saver.
    """
    return cast("BaseCheckpointSaver[Any]", graph.checkpointer)


async def describe_start(graph: Pregel[Any, Any, Any, Any], input: object,
                         config: RunnableConfig) -> StreamStart:
    """Describe the stream ``graph.astream(input, config)`` is about to run.

    Raises :class:`ContinuationRefused` for a ``Command`` that carries anything but ``resume``.
    """
    configurable = config.get("configurable") or {}
    thread_id = configurable.get("thread_id")
    thread_id = str(thread_id) if thread_id is not None else None
    kind: InputKind
    if input is None:
        kind = "continue"
    elif isinstance(input, Command):
        if input.update is not None or input.goto or input.graph is not None:
            raise ContinuationRefused("a Command may carry only resume (an answer to the interrupt "
                                      "that waits); edit state with update_state instead")
        kind = "resume"
    else:
        kind = "turn"
    resume = input.resume if isinstance(input, Command) else None
    if graph.checkpointer is None or thread_id is None:
        return StreamStart(input=input, input_kind=kind, thread_id=thread_id, resume=resume)
    # A turn starts from the head too: the resolver supersedes a run paused there.
    asked = None if kind == "turn" else configurable.get("checkpoint_id")
    snapshot = await graph.aget_state(_checkpoint_config(thread_id, asked))
    checkpoint_id = (snapshot.config.get("configurable") or {}).get("checkpoint_id")
    if checkpoint_id is None:  # an empty thread: nothing to continue
        return StreamStart(input=input, input_kind=kind, thread_id=thread_id, resume=resume)
    from_head = True
    if asked:
        head = await _saver(graph).aget_tuple(_checkpoint_config(thread_id))
        from_head = head is not None and head.config["configurable"]["checkpoint_id"] == asked
    owner, edits, base = await _owner(graph, thread_id, checkpoint_id, snapshot.metadata or {})
    values = dict(snapshot.values or {})
    return StreamStart(
        input=input, input_kind=kind, thread_id=thread_id, resume=resume,
        checkpoint_id=checkpoint_id, from_head=from_head, owner_run_id=owner, values=values,
        owns_state=owner is not None and values.get("run_id") == owner, next=tuple(snapshot.next),
        interrupts=tuple(getattr(i, "value", i) for i in snapshot.interrupts), edits=edits,
        base_checkpoint_id=base)


async def _owner(graph: Pregel[Any, Any, Any, Any], thread_id: str, checkpoint_id: str,
                 metadata: Mapping[str, object]) -> tuple[str | None, tuple[str, ...], str | None]:
    """The run that wrote ``checkpoint_id``, the edits on the way, the run's checkpoint under them."""
    edits: list[str] = []
    current = checkpoint_id
    for _ in range(MAX_WALK):
        owner = metadata.get(HARNESS_RUN_KEY)
        if isinstance(owner, str) and owner:
            return owner, tuple(reversed(edits)), current
        if metadata.get("source") == "update":
            edits.append(current)
        found = await _saver(graph).aget_tuple(_checkpoint_config(thread_id, current))
        parent = (found.parent_config or {}).get("configurable", {}) if found else {}
        if not parent.get("checkpoint_id"):
            break
        current = parent["checkpoint_id"]
        tup = await _saver(graph).aget_tuple(_checkpoint_config(thread_id, current))
        metadata = dict(tup.metadata) if tup is not None else {}
    return None, tuple(reversed(edits)), None


def stream_labels(ctx: RunContext, start: StreamStart) -> RunnableConfig:
    """Run name, tags and metadata of the stream (labelled traces; docs/design.md §14).

    ``harness_run_id`` in the metadata is also what every checkpoint of the stream records, so a
    later stream can tell which harness run wrote it.
    """
    begun = ctx.start.get("kind", "start")
    metadata = {HARNESS_RUN_KEY: ctx.run_id, "harness_thread_id": ctx.thread_id or "",
                "harness_start": begun}
    if ctx.labels.get("intent"):
        metadata["intent"] = ctx.labels["intent"]
    if ctx.start.get("parent_run_id"):
        metadata["harness_parent_run_id"] = ctx.start["parent_run_id"]
    return {"run_name": "diagnosis", "tags": ["diagnosis-harness", f"start:{begun}"],
            "metadata": metadata}
