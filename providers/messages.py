"""What travels beside a message's text: the prompt it was rendered from, as data.

A model reads the text. A rule-based model (the offline investigator) and the json agent
protocol need the *structure* behind it instead — which prompt, with which named values, which
tool call an observation answers — and must never recover it by scraping prompt wording. The
node that renders a prompt attaches its name and values here (``additional_kwargs``, which
chat-model clients do not send to the server); providers read them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage

KEY = "harness_input"
"""The ``additional_kwargs`` key of the structured side of a message."""

M = TypeVar("M", bound=BaseMessage)


@dataclass(frozen=True)
class PromptData:
    """A rendered prompt as data: its name and the values it was rendered with."""

    name: str
    values: Mapping[str, Any]


def text_of(message: BaseMessage) -> str:
    """The text content of a model message (joined when the provider sends parts)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)


def side_data(message: BaseMessage) -> dict[str, Any]:
    """The structured side of ``message`` ({} when it has none)."""
    data = message.additional_kwargs.get(KEY)
    return data if isinstance(data, dict) else {}


def with_side_data(message: M, **data: object) -> M:
    """``message`` with ``data`` merged into its structured side (a copy; the input is kept)."""
    merged = {**message.additional_kwargs, KEY: {**side_data(message), **data}}
    return message.model_copy(update={"additional_kwargs": merged})


def with_prompt(message: M, name: str, values: Mapping[str, Any]) -> M:
    """``message`` marked as prompt ``name`` rendered with ``values``."""
    return with_side_data(message, prompt={"name": name, "values": dict(values)})


def prompt_of(message: BaseMessage) -> PromptData | None:
    """The prompt ``message`` was rendered from, or None for free text."""
    prompt = side_data(message).get("prompt")
    if not isinstance(prompt, dict) or not isinstance(prompt.get("name"), str):
        return None
    values = prompt.get("values")
    return PromptData(prompt["name"], values if isinstance(values, dict) else {})

