"""The model's context window as a budget (``HARNESS_MODEL_CONTEXT_TOKENS``).

No tokenizer is loaded: the estimate is conservative by construction, so a call the harness
lets through is never one the server rejects for length. Small open models' tokenizers
(Qwen, Llama 3) split numbers into single digits, and timestamps and ids are digit-heavy, so
every digit counts as one token; other ASCII text counts one token per three characters (real
English and JSON run at about four); every byte of non-ASCII text counts as one token. Each
message adds the chat template's framing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from diagnosis_harness.control.contracts import FailureClass
from diagnosis_harness.providers.errors import ModelCallError

PER_MESSAGE = 8
"""Chat-template tokens around each message (role markers, separators), rounded up."""
REPLY_PRIMING = 8
"""Tokens the template adds to open the assistant's reply."""


class ContextExceeded(ModelCallError):
    """The call would not fit the model's context window; nothing was sent (never retried)."""

    def __init__(self, message: str) -> None:
        super().__init__(FailureClass.BUDGET_EXHAUSTED, message)


def estimate_text(text: str) -> int:
    """A conservative token count of ``text``."""
    digits = ascii_other = wide = 0
    for ch in text:
        if ch.isascii():
            if ch.isdigit():
                digits += 1
            else:
                ascii_other += 1
        else:
            wide += len(ch.encode("utf-8"))
    return digits + -(-ascii_other // 3) + wide


def estimate_messages(texts: Iterable[str]) -> int:
    """A conservative token count of a conversation of ``texts``, reply priming included."""
    return sum(estimate_text(t) + PER_MESSAGE for t in texts) + REPLY_PRIMING


def completion_room(prompt_tokens: int, context_tokens: int, *, want: int, need: int,
                    what: str) -> int:
    """The completion tokens to allow: up to ``want``, at least ``need``, or ContextExceeded."""
    room = context_tokens - prompt_tokens
    if room < need:
        raise ContextExceeded(
            f"{what} needs about {prompt_tokens} prompt tokens and at least {need} for the "
            f"answer; the model's context is {context_tokens} tokens (HARNESS_MODEL_CONTEXT_TOKENS)")
    return min(room, want)


def texts_of(messages: Sequence[Any]) -> list[str]:
    """The text of each message (content parts joined)."""
    out = []
    for m in messages:
        content = getattr(m, "content", m)
        if not isinstance(content, str):
            content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
        out.append(content)
    return out
