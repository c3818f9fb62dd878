"""The model seam: the one place a chat model is built for a role (router, agent, judge, repair).

Specs: ``openai:NAME`` (any OpenAI-compatible endpoint through langchain-openai, with SDK
retries off and an explicit timeout), ``replay:FILE`` (scripted responses, docs/design.md §10) and
``offline`` (the rule-based investigator). langchain-openai is imported only when an
``openai:`` model is built: it costs seconds of start-up a CLI should not pay for ``--help``.

Specs are parsed by :mod:`diagnosis_harness.providers.specs`, a client's exceptions classified by
:mod:`diagnosis_harness.providers.failures` (both importable from here).

Under ``HARNESS_AGENT_PROTOCOL=json`` the agent's model is wrapped in
:class:`~diagnosis_harness.providers.json_protocol.JsonProtocolChatModel`, so every node sees one protocol:
native tool calls and drafts. Roles that answer JSON objects (router, judge, repair, and the
agent under the json protocol) ask an OpenAI-compatible server for JSON output, constrained by
their answer's schema where ``HARNESS_STRUCTURED_OUTPUT`` says the server takes one (see
:mod:`diagnosis_harness.providers.structured`; ``auto`` probes the server here, once per process, before any
run).
With ``HARNESS_MODEL_CONTEXT_TOKENS`` every call's prompt is estimated against the model's
context first (:mod:`diagnosis_harness.providers.context_window`).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from diagnosis_harness import prompts
from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers import structured
from diagnosis_harness.providers.context_window import completion_room, estimate_messages, texts_of
from diagnosis_harness.providers.failures import classify_exception
from diagnosis_harness.providers.specs import (
    ModelSpec,
    ModelSpecError,
    Provider,
    judge_settings,
    judge_spec,
    parse_model_spec,
)

if TYPE_CHECKING:
    import httpx
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import Runnable

    from diagnosis_harness.providers.json_protocol import Constrain
    from diagnosis_harness.providers.replay import ReplayScript

__all__ = [
    "ANSWER_TOKENS", "ModelSeam", "ModelSpec", "ModelSpecError", "Provider", "classify_exception",
    "judge_seam", "judge_settings", "judge_spec", "max_tokens_option", "parse_model_spec",
]

ANSWER_TOKENS: dict[Role, tuple[int, int]] = {
    Role.ROUTER: (256, 120), Role.JUDGE: (400, 150), Role.REPAIR: (900, 300),
    Role.AGENT: (1000, 300)}
"""Per role, with a context budget: (completion tokens allowed at most, the least worth asking)."""


def max_tokens_option(n: int) -> dict[str, Any]:
    """The completion cap as every OpenAI-compatible server reads it.

    langchain-openai renames ``max_tokens`` to ``max_completion_tokens``, which llama.cpp's
    servers ignore; ``max_tokens`` in the body is what they (and vLLM, Ollama) honour.
    """
    return {"extra_body": {"max_tokens": n}}


def _role_timeout(role: Role, settings: Settings) -> float:
    return {
        Role.ROUTER: settings.router_attempt_timeout_s,
        Role.AGENT: settings.agent_call_timeout_s,
        Role.JUDGE: settings.judge_attempt_timeout_s,
        Role.REPAIR: settings.repair_attempt_timeout_s,
    }[role]


_BOUND_SIZE = 64
"""At most this many bound models per seam (a few: one per role, loop and tool set)."""


class ModelSeam:
    """Builds the chat model of each role from one spec; tests and offline mode swap it here."""

    def __init__(self, settings: Settings, *, spec: str | None = None,
                 replay_script: ReplayScript | None = None) -> None:
        self.settings = settings
        self.spec = parse_model_spec(spec or settings.model)
        # One async HTTP client per event loop: langchain-openai's shared default client is
        # bound to the first loop that used it, so a second asyncio.run() in the same process
        # (scripts, tests) failed with "Event loop is closed".
        self._async_clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        # The chat model of each role is built once (per event loop for an openai model, which
        # holds that loop's client): building one per call cost every call a model's validation.
        self._models: dict[Role, BaseChatModel] = {}
        self._loop_models: weakref.WeakKeyDictionary[Any, dict[Role, BaseChatModel]] = (
            weakref.WeakKeyDictionary())
        # Each chat model with the tool specs bound to it (:meth:`bound`), by model and specs.
        self._bound: dict[tuple[int, str], tuple[BaseChatModel, Runnable[Any, AIMessage]]] = {}
        self._replay = replay_script
        if self.spec.provider == "replay" and self._replay is None:
            from diagnosis_harness.providers.replay import ReplayScript  # replay runs only

            self._replay = ReplayScript.from_file(self.spec.name)
        key = settings.openai_api_key
        if self.spec.provider == "openai" and (key is None or not key.get_secret_value().strip()):
            raise ModelSpecError(
                f"model {self.spec} needs an API key: set OPENAI_API_KEY (any non-empty value "
                "for a local OpenAI-compatible server that ignores it)"
            )
        # Outside any run: under ``auto`` this probes the server once per process.
        self.structured = (structured.resolve(settings, self.spec.name)
                           if self.spec.provider == "openai" else None)
        self.judge = judge_seam(settings)
        """The judge's own seam under ``HARNESS_JUDGE_MODEL`` (None: this seam's model judges)."""

    @property
    def label(self) -> str:
        """The models a run uses, as its record names them: the spec, and a separate judge's."""
        return str(self.spec) if self.judge is None else f"{self.spec}, judge {self.judge.spec}"

    @property
    def replay_script(self) -> ReplayScript | None:
        """The shared script of a ``replay:`` seam (tests read what each role consumed)."""
        return self._replay

    def seam_for(self, role: Role) -> ModelSeam:
        """The seam that serves ``role``: the judge's own under ``HARNESS_JUDGE_MODEL``, else this.

        The one place a role picks its seam; every method below asks it once and then works on
        that seam's own spec and settings.
        """
        return self.judge if role is Role.JUDGE and self.judge is not None else self

    def for_role(self, role: Role) -> BaseChatModel:
        """The chat model that serves ``role``, speaking the configured agent protocol.

        Built on first use and kept: models hold no state of a call (a replay script keeps its
        own position), and an openai model is kept per event loop, with that loop's client.
        """
        return self.seam_for(role)._for_role(role)

    def call_options(self, role: Role, messages: Sequence[Any],
                     tools: Sequence[Any] | None = None) -> dict[str, Any]:
        """Per-call options: with a context budget, the answer's room (or ContextExceeded).

        The json protocol's wrapper plans its own calls (it folds results to fit).
        """
        return self.seam_for(role)._call_options(role, messages, tools)

    def response_format(self, role: Role) -> dict[str, Any] | None:
        """What an ``openai:`` model of ``role`` is built to send (the json agent's is per turn)."""
        return self.seam_for(role)._response_format(role)

    def chat_model(self, role: Role) -> BaseChatModel:
        """The provider's own chat model for ``role``, before the agent protocol wraps it."""
        return self.seam_for(role)._chat_model(role)

    def _for_role(self, role: Role) -> BaseChatModel:
        models = self._models
        if self.spec.provider == "openai":
            try:
                models = self._loop_models.setdefault(asyncio.get_running_loop(), {})
            except RuntimeError:
                pass  # a synchronous caller: the SDK's own client, as _async_client says
        model = models.get(role)
        if model is None:
            model = models[role] = self._build(role)
        return model

    def _build(self, role: Role) -> BaseChatModel:
        model = self.chat_model(role)  # public: a test's seam records what each role saw
        if role is Role.AGENT and self.settings.agent_protocol == "json":
            # Here, not at the top: a chat-model class (~20 ms to build) only this protocol uses.
            from diagnosis_harness.providers.json_protocol import JsonProtocolChatModel

            return JsonProtocolChatModel(inner=model, render_prompt=prompts.render,
                                         constrain=self._constrain(),
                                         context_tokens=self.settings.model_context_tokens)
        return model

    def bound(self, chat: BaseChatModel, tools: Sequence[Any],
              tool_choice: str | None = None) -> Runnable[Any, AIMessage]:
        """``chat`` (one of this seam's models) with ``tools`` bound: the same object for the same two.

        The agent asks with the same specs every turn; binding them anew made a new model each
        call, and LangChain describes a new model to the callbacks afresh (``dumpd`` of the model
        with its tool specs, a signature read): ~0.15-0.3 ms of a served run's every agent turn.
        Kept here, with the models themselves: a bound model holds no state of a call, and it
        lives as long as the seam that built its model (no process-wide cache).
        """
        options: dict[str, Any] = {"parallel_tool_calls": False}
        if tool_choice is not None:
            options = {"tool_choice": tool_choice}  # no parallel calls when none may be made
        try:
            key = (id(chat), json.dumps([tools, tool_choice], sort_keys=True, ensure_ascii=False))
        except (TypeError, ValueError):  # specs that are not plain JSON (tool objects): bind anew
            return chat.bind_tools(tools, **options)
        found = self._bound.get(key)
        if found is None or found[0] is not chat:
            if len(self._bound) >= _BOUND_SIZE:
                self._bound.clear()  # models of many event loops (scripts, tests): start over
            found = self._bound[key] = (chat, chat.bind_tools(tools, **options))
        return found[1]

    def _call_options(self, role: Role, messages: Sequence[Any],
                      tools: Sequence[Any] | None) -> dict[str, Any]:
        limit = self.settings.model_context_tokens
        if limit is None or (role is Role.AGENT and self.settings.agent_protocol == "json"):
            return {}
        texts = texts_of(messages) + ([json.dumps(list(tools), default=str)] if tools else [])
        want, need = ANSWER_TOKENS[role]
        room = completion_room(estimate_messages(texts), limit, want=want, need=need,
                               what=f"the {role.value} call")
        return max_tokens_option(room) if self.spec.provider == "openai" else {}

    def _mode(self) -> structured.Mode:
        return self.structured.mode if self.structured is not None else "json_object"

    def _constrain(self) -> Constrain | None:
        """How the json protocol asks for its per-turn envelope schema (None: it does not)."""
        mode = self._mode()
        if self.spec.provider != "openai" or mode not in ("json_schema", "json_object_schema"):
            return None
        return lambda name, schema: structured.response_format(mode, name, schema)

    def _response_format(self, role: Role) -> dict[str, Any] | None:
        if not self._answers_json(role):
            return None  # native tool calls: no JSON mode
        if role is Role.AGENT:  # the wrapper sends each turn's schema; plain JSON mode otherwise
            return structured.response_format(
                "none" if self._mode() == "none" else "json_object", "agent_envelope", None)
        return structured.response_format(self._mode(), f"{role.value}_answer",
                                          structured.answer_schema(role))

    def _answers_json(self, role: Role) -> bool:
        return role is not Role.AGENT or self.settings.agent_protocol == "json"

    def _chat_model(self, role: Role) -> BaseChatModel:
        if self.spec.provider == "replay":
            assert self._replay is not None
            from diagnosis_harness.providers.replay import ReplayChatModel

            return ReplayChatModel(script=self._replay, role=role.value)
        if self.spec.provider == "openai":
            return self._openai(role)
        return self._offline(role)

    def _openai(self, role: Role) -> BaseChatModel:
        from langchain_openai import ChatOpenAI

        key = self.settings.openai_api_key
        return ChatOpenAI(
            http_async_client=self._async_client(),
            model=self.spec.name,
            api_key=key,
            base_url=self.settings.openai_base_url,
            max_retries=0,  # every attempt is the harness's, budgeted and recorded
            timeout=_role_timeout(role, self.settings),
            stream_usage=True,
            temperature=0,
            # JSON mode (with the answer's schema, where the server takes one) where the role
            # answers one JSON object; never with native tool calls.
            model_kwargs={"response_format": rf} if (rf := self.response_format(role)) else {},
        )

    def _async_client(self) -> httpx.AsyncClient | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None  # a synchronous caller: the SDK's own client is fine
        client = self._async_clients.get(loop)
        if client is None:
            import httpx

            client = httpx.AsyncClient()  # the openai client applies its own explicit timeout
            self._async_clients[loop] = client
        return client

    def _offline(self, role: Role) -> BaseChatModel:
        from diagnosis_harness.providers.offline import build_offline_model

        return build_offline_model(role, self.settings)


def judge_seam(settings: Settings) -> ModelSeam | None:
    """The seam of a separate judge; its spec or key problems name the judge's settings."""
    own = judge_settings(settings)
    if own is None:
        return None
    try:
        return ModelSeam(own)
    except ModelSpecError as exc:
        raise ModelSpecError(f"HARNESS_JUDGE_MODEL: {exc} (or HARNESS_JUDGE_API_KEY for the "
                             "judge's server alone)" if "API key" in str(exc)
                             else f"HARNESS_JUDGE_MODEL: {exc}") from None


