"""What the offline investigator is given, read as data — never as prompt wording.

A conversation is read the same way under both agent protocols: tool calls come from the
agent's native ``tool_calls`` or, under the ``json`` protocol, from the structured side of its
plain-text turns; observations from tool messages or from the structured side of the turns
that carry them. Prompts are read through the name and values the node attached.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from diagnosis_harness.providers.messages import PromptData, prompt_of, side_data, text_of


@functools.lru_cache(maxsize=512)
def _body(text: str) -> dict[str, Any]:
    """An observation's JSON body; anything else counts as an empty observation.

    Remembered by text: every agent turn reads the run's observations again (the n-th turn
    parses n of them). The offline investigator only reads a body, never changes it, so the
    turns of a run share one parsed copy.
    """
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return {}
    if not isinstance(body, dict):
        return {}
    items = body.get("items")
    if isinstance(items, list) and any(isinstance(i, dict) and i.get("kind") == "empty"
                                       for i in items):
        # "checked, found nothing" (a citable fact of an empty result) is no found item
        body = {**body, "items": [i for i in items
                                  if not (isinstance(i, dict) and i.get("kind") == "empty")]}
    return body


@dataclass
class Conversation:
    """The structured content of the messages a model was called with."""

    system: PromptData | None = None
    """The instructions of the conversation (its system prompt), as name and values."""
    last: PromptData | None = None
    """The prompt of the last message: what a one-shot role (router, judge, repair) answers."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """The agent's tool calls so far, in order: ``{"name", "args", "id"}``."""
    observations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The body of each observation, by the id of the tool call it answers."""

    @classmethod
    def read(cls, messages: Sequence[BaseMessage]) -> Conversation:
        """Read ``messages`` (native tool turns or the json protocol's plain turns)."""
        conv = cls(last=prompt_of(messages[-1]) if messages else None)
        for m in messages:
            side = side_data(m)
            if isinstance(m, SystemMessage) and conv.system is None:
                conv.system = prompt_of(m)
            elif isinstance(m, AIMessage):
                calls = m.tool_calls or side.get("tool_calls") or []
                conv.calls.extend(dict(c) for c in calls if isinstance(c, dict) and "name" in c)
            elif isinstance(m, ToolMessage):
                conv.observations[m.tool_call_id] = _body(text_of(m))
            elif isinstance(side.get("observation"), dict):
                seen = side["observation"]
                conv.observations[str(seen.get("tool_call_id"))] = _body(str(seen.get("content")))
        return conv

    def tool_specs(self, bound: Sequence[Any]) -> list[Any]:
        """The tool specs: those bound natively, else those the instructions were rendered with."""
        if bound:
            return list(bound)
        rendered = (self.system.values if self.system else {}).get("tool_schemas")
        try:
            specs = json.loads(rendered) if isinstance(rendered, str) else []
        except json.JSONDecodeError:
            return []
        return specs if isinstance(specs, list) else []
