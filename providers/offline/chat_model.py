"""The offline investigator as a LangChain chat model, one instance per role (tokens: 0).

It reads its input as data (see :mod:`diagnosis_harness.providers.offline.conversation`): the role, the name
and
values of the prompt it was called with, the bound tool specs, the JSON bodies of observations.
Rewording a prompt changes nothing it does. It answers the way the agent protocol asks:
with tools bound natively it makes native tool calls and writes its draft as JSON text; with
no tools bound (the ``json`` protocol's wrapper keeps them) it writes one JSON envelope a turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from diagnosis_harness.control.contracts import FailureClass, Role
from diagnosis_harness.providers.errors import ModelCallError
from diagnosis_harness.providers.offline.conversation import Conversation
from diagnosis_harness.providers.offline.investigator import next_step
from diagnosis_harness.providers.offline.judge import judge
from diagnosis_harness.providers.offline.repair import repair
from diagnosis_harness.providers.offline.router import answer as route

if TYPE_CHECKING:
    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable


class OfflineChatModel(BaseChatModel):
    """One role of the offline investigator."""

    role: str
    tool_specs: list[Any] = []
    """The tools bound natively (empty: answer in JSON envelopes)."""

    @property
    def _llm_type(self) -> str:
        return "offline"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:  # noqa: D102
        return self.model_copy(update={"tool_specs": list(tools)})

    def _reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        conv = Conversation.read(messages)
        if self.role == Role.AGENT.value:
            return self._agent_turn(conv)
        prompt = conv.last
        if prompt is None:
            # Free text: the offline model reads prompts only as data, never their wording.
            raise ModelCallError(FailureClass.INVALID_OUTPUT,
                                 f"offline {self.role}: the prompt carries no structured values")
        values = prompt.values
        if self.role == Role.ROUTER.value:
            return AIMessage(json.dumps(route(values)))
        if self.role == Role.JUDGE.value:
            return AIMessage(json.dumps(judge(str(values.get("payload", "")))))
        repaired = repair(str(values.get("draft", "")), str(values.get("available_evidence", "")))
        return AIMessage(json.dumps(repaired) if repaired is not None else "")

    def _agent_turn(self, conv: Conversation) -> AIMessage:
        if conv.system is None:
            raise ModelCallError(FailureClass.INVALID_OUTPUT,
                                 "offline agent: the instructions carry no structured values")
        native = bool(self.tool_specs)
        step = next_step(conv, conv.tool_specs(self.tool_specs))
        if "draft" in step:
            draft = step["draft"]
            # UTF-8 as a model writes it: an escaped "—" would count 6 bytes under native tools
            # and 3 once the JSON protocol's envelope is unwrapped, and the run's bytes differ.
            return AIMessage(json.dumps(draft if native else {"type": "final", "draft": draft},
                                        ensure_ascii=False))
        if not native:
            return AIMessage(json.dumps({"type": "tool_call", "tool": step["tool"],
                                         "args": step["args"]}))
        return AIMessage("", tool_calls=[{"name": step["tool"], "args": step["args"],
                                          "id": f"offline_{len(conv.calls) + 1}",
                                          "type": "tool_call"}])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        message = self._reply(messages)
        message.usage_metadata = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        # On the caller's event loop: the offline model reads its messages and nothing else (no
        # I/O, nothing that blocks), and the library's default trip to a worker thread cost a
        # served run's every model call ~0.1 ms of CPU, about as much as the call's own work.
        return self._generate(messages, stop, **kwargs)
