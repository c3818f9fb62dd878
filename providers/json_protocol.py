"""The ``json`` agent protocol (``HARNESS_AGENT_PROTOCOL=json``) as a chat model wrapper.

For servers whose models do not emit native tool calls, the agent answers one JSON envelope per
turn (see :mod:`diagnosis_harness.guards.envelope`). This wrapper hides that from the graph: the ``model``
node
binds the tools and reads tool calls and drafts exactly as under native tool calling.

- ``bind_tools`` records the tool specs; they are rendered, one compact line per tool, into the
  protocol's own system prompt (``agent_json``), which replaces the node's ``agent_system``
  prompt, rendered with the same values (see :mod:`diagnosis_harness.providers.messages`; the specs themselves
  travel beside the text as data);
- the conversation goes to the wrapped model as plain text turns: its envelopes stay its own
  turns, each observation becomes a user turn naming the ``tool_call_id`` to cite next; the
  latest result is shown item by item, earlier ones folded into the findings so far
  (:mod:`diagnosis_harness.providers.observations`), so a whole run fits a small context;
- with ``context_tokens`` set, each call's prompt is estimated
(:mod:`diagnosis_harness.providers.context_window`), the
  findings and the latest result are cut to fit, the model is told to finish when no further
  round would fit, and a call that cannot fit at all raises ContextExceeded before anything is
  sent (the run ends as a classified BUDGET_EXHAUSTED fallback, not a server error);
- with ``constrain`` set (``HARNESS_STRUCTURED_OUTPUT``), each call asks the server for this
  turn's envelope schema (:func:`diagnosis_harness.providers.structured.envelope_schema`);
- the reply's envelope becomes a tool call (ids ``call_1``, ``call_2``… in conversation order)
  or the draft as text (:mod:`diagnosis_harness.providers.json_envelopes`). A malformed
  envelope becomes a pseudo tool call named
  :data:`diagnosis_harness.guards.envelope.INVALID_ENVELOPE`, which the tool gate counts as a
  protocol violation;
- the hints each turn gives a small model (the call to cite, tools not tried yet, where to look
  for what changed) are decided by :mod:`diagnosis_harness.providers.json_hints`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from diagnosis_harness import prompts
from diagnosis_harness.providers.context_window import (
    ContextExceeded,
    completion_room,
    estimate_messages,
    texts_of,
)
from diagnosis_harness.providers.json_envelopes import from_envelope, own_turn, tool_lines
from diagnosis_harness.providers.json_hints import (
    changes_bounds,
    last_call,
    next_step,
    repeated_tools,
    tool_names,
)
from diagnosis_harness.providers.messages import prompt_of, text_of, with_prompt, with_side_data
from diagnosis_harness.providers.observations import FOLD_LEVELS, Result, stub
from diagnosis_harness.providers.structured import envelope_schema

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable

PromptRenderer = Callable[..., str]
"""``render(name, **values) -> text``: the prompt package's renderer, handed in by the app."""
Constrain = Callable[[str, dict[str, Any]], "dict[str, Any] | None"]
"""``(name, schema) -> response_format`` for the server's mode (None: send none)."""
PROTOCOL_PROMPT = "agent_json"
"""The protocol's own system prompt: the agent's instructions with envelopes and tool specs."""
REPLACED_PROMPT = "agent_system"
"""The node's system prompt for native tool calling, which the protocol prompt replaces."""
FINAL_PROMPT = "agent_json_final"
"""The system prompt of a turn that may only send the draft: no tools, no investigation order."""
FINAL_PROMPT_KEYS = ("service", "merchant", "start", "end", "window_note")
FINAL_TURN_PROMPT = "agent_final"
"""The harness's own final-turn instruction (nodes/model.py): only the draft is left."""


@dataclass(frozen=True)
class Turn:
    """One prepared call: the plain turns, this turn's envelope schema and its token plan."""

    turns: list[BaseMessage]
    schema: dict[str, Any]
    estimate: int | None
    """Estimated prompt tokens (None: no context budget)."""
    max_tokens: int | None
    final_only: bool


class JsonProtocolChatModel(BaseChatModel):
    """The agent's chat model under the ``json`` protocol, around the provider's own model."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any  # Any: a pydantic field, and a Runnable type there would be validated
    """The provider's chat model (a Runnable), asked for JSON answers where the provider can."""
    render_prompt: PromptRenderer
    tool_specs: list[dict[str, Any]] = []
    """OpenAI-style specs of the bound tools, rendered into the protocol prompt."""
    constrain: Constrain | None = None
    """The response format of a schema for this server (None: the inner model's own)."""
    context_tokens: int | None = None
    """The model's context window (None: not tracked)."""
    answer_tokens: int = 700
    """Completion tokens kept free for the reply (a final draft fits)."""
    min_answer_tokens: int = 350
    """The least room a reply needs; below it the call is not sent."""
    round_tokens: int = 450
    """Room a further tool round needs (its envelope and a useful result); below it: finish."""

    @property
    def _llm_type(self) -> str:
        return "json-protocol"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:
        """Record the tools for the prompt; the wrapped model is never asked for tool calls."""
        return self.model_copy(update={"tool_specs": [convert_to_openai_tool(t) for t in tools]})

    def prepare(self, messages: Sequence[BaseMessage]) -> Turn:
        """Render the turns at the most detail the context affords, with this turn's schema.

        While another tool round is allowed, the most detailed rendering that leaves room for
        one wins: earlier results are folded further first; only when even their ids alone leave
        no room is the latest result cut (its first items kept). When only the draft is left
        (a stop was required, or no round fits any more) the system prompt becomes the draft's
        own (``agent_json_final``, no tools or investigation order) and the model's earlier
        calls lose their progress envelopes: the room goes to the findings the draft must cite.
        """
        results = [Result(m.tool_call_id, text_of(m)) for m in messages if isinstance(m, ToolMessage)]
        stop = any(r.stop_required for r in results) or any(
            (p := prompt_of(m)) is not None and p.name == FINAL_TURN_PROMPT for m in messages)
        plans = [(level, False) for level in FOLD_LEVELS] + [(FOLD_LEVELS[-1], True)]
        if not stop:
            for (max_items, chars), cut in plans:
                rendered = self._render(messages, results, max_items, chars, cut=cut)
                if rendered is not None and (rendered[2] is None
                                             or rendered[2] >= self.round_tokens):
                    return self._turn(rendered, results, final_only=False)
        for (max_items, chars), cut in plans:
            rendered = self._render(messages, results, max_items, chars, cut=cut, final=True)
            if rendered is None:
                continue
            if not stop:
                turns = rendered[0]
                turns[-1] = _append(turns[-1], prompts.phrase("json_context_full"))
                after = self._room(turns)
                if after is not None and after < 0:
                    continue  # the instruction itself must fit too: fold further first
            return self._turn(rendered, results, final_only=True)
        raise ContextExceeded(f"the agent's conversation does not fit the model's context of "
                              f"{self.context_tokens} tokens even with every result folded")

    def _turn(self, rendered: tuple[list[BaseMessage], list[str], int | None],
              results: list[Result], *, final_only: bool) -> Turn:
        turns, shown, _room = rendered
        estimate = max_tokens = None
        if self.context_tokens is not None:
            estimate = estimate_messages(texts_of(turns))
            max_tokens = completion_room(estimate, self.context_tokens,
                                         want=self.answer_tokens, need=self.min_answer_tokens,
                                         what="the agent's next turn")
        schema = envelope_schema(self.tool_specs, last_call=last_call(results),
                                 evidence_ids=shown, final_only=final_only,
                                 rest=repeated_tools(results, tool_names(self.tool_specs)))
        return Turn(turns, schema, estimate, max_tokens, final_only)

    def _render(self, messages: Sequence[BaseMessage], results: list[Result], max_items: int,
                chars: int, *, cut: bool, final: bool = False
                ) -> tuple[list[BaseMessage], list[str], int | None] | None:
        """Turns with earlier results folded at one level; None if they do not fit.

        Returns the turns, the evidence ids they show and the room left beyond the answer
        reserve (None: no context budget). ``cut`` lets the latest result lose items; ``final``
        renders the draft's turn (its own system prompt, no progress envelopes).
        """
        latest = results[-1] if results else None
        findings: list[str] = []
        shown: list[str] = []
        out: list[BaseMessage] = []
        at = -1
        since = None
        last_own = max((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=-1)
        for i, m in enumerate(messages):
            prompt = prompt_of(m)
            if isinstance(m, SystemMessage) and prompt and prompt.name == REPLACED_PROMPT:
                out.append(self._system(prompt.values, final=final))
                since = changes_bounds(prompt.values)
            elif isinstance(m, AIMessage):
                turn = AIMessage(content=own_turn(m, progress=i == last_own and not final))
                out.append(with_side_data(turn, tool_calls=[dict(c) for c in m.tool_calls])
                           if m.tool_calls else turn)
            elif isinstance(m, ToolMessage):
                result = Result(m.tool_call_id, text_of(m))
                side = {"observation": {"tool_call_id": m.tool_call_id, "content": result.text}}
                if latest is not None and m.tool_call_id == latest.call_id:
                    at = len(out)
                    out.append(with_side_data(HumanMessage(""), **side))  # filled in below
                else:
                    lines, ids = result.folded(max_items, chars)
                    findings += lines
                    shown += ids
                    out.append(with_side_data(HumanMessage(stub(result)), **side))
            else:
                out.append(m)
        if latest is None:
            room = self._room(out)
            return (out, shown, room) if room is None or room >= 0 else None
        after = (["", prompts.phrase("json_findings"), *findings] if findings else [])
        after.append(prompts.phrase("json_next_final") if final
                     else next_step(results, tool_names(self.tool_specs), changes=since))
        counts = range(len(latest.items), -1, -1) if cut else [len(latest.items)]
        for n in counts:
            body, ids = latest.full(n)
            text = prompts.phrase("json_result", call_id=latest.call_id, body=body,
                                  after="\n".join(after))
            out[at] = out[at].model_copy(update={"content": text})
            room = self._room(out)
            if room is None or room >= 0:
                return out, shown + ids, room
        return None

    def _room(self, turns: list[BaseMessage]) -> int | None:
        """Tokens left for the reply beyond the answer reserve (None: not tracked)."""
        if self.context_tokens is None:
            return None
        return self.context_tokens - estimate_messages(texts_of(turns)) - self.answer_tokens

    def _system(self, values: Mapping[str, Any], *, final: bool = False) -> SystemMessage:
        # The incident is in the first user turn (nodes/route.py); its values stay attached
        # as data. The protocol lists its tools from the bound specs.
        values = dict(values)
        if final:
            kept = {k: values.get(k, "") for k in FINAL_PROMPT_KEYS}
            return with_prompt(SystemMessage(self.render_prompt(FINAL_PROMPT)), FINAL_PROMPT, kept)
        since, until = changes_bounds(values) or ("", "")
        rendered = {k: v for k, v in values.items() if k not in (*FINAL_PROMPT_KEYS, "tool_list")}
        text = self.render_prompt(PROTOCOL_PROMPT, **rendered,
                                  tool_schemas=tool_lines(self.tool_specs),
                                  changes_from=since, changes_until=until)
        values["tool_schemas"] = json.dumps(self.tool_specs, separators=(",", ":"))
        return with_prompt(SystemMessage(text), PROTOCOL_PROMPT, values)

    def _kwargs(self, turn: Turn) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if self.constrain is not None and (rf := self.constrain("agent_envelope", turn.schema)):
            kwargs["response_format"] = rf
        if turn.max_tokens is not None:
            # As a body field: langchain-openai's own max_tokens becomes max_completion_tokens,
            # which llama.cpp's servers ignore.
            kwargs["extra_body"] = {"max_tokens": turn.max_tokens}
        return kwargs

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        turn = self.prepare(messages)
        reply = self.inner.invoke(turn.turns, **self._kwargs(turn))
        return _result(reply, messages, turn)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        turn = self.prepare(messages)
        reply = await self.inner.ainvoke(turn.turns, **self._kwargs(turn))
        return _result(reply, messages, turn)


def _result(reply: BaseMessage, history: Sequence[BaseMessage], turn: Turn) -> ChatResult:
    message = from_envelope(reply, history)
    # The context plan of this call, for the trace and the smoke script's figures.
    message.response_metadata["context"] = {"estimate": turn.estimate,
                                            "max_tokens": turn.max_tokens,
                                            "final_only": turn.final_only}
    return ChatResult(generations=[ChatGeneration(message=message)])


def _append(message: BaseMessage, line: str) -> BaseMessage:
    return message.model_copy(update={"content": f"{text_of(message)}\n{line}"})
