"""Between the json protocol's envelopes and chat messages (see :mod:`diagnosis_harness.guards.envelope`).

A reply's envelope becomes the same tool call (ids ``call_1``, ``call_2``… in conversation
order) or draft that native tool calling gives, a malformed one a pseudo tool call the tool gate
counts as a protocol violation; the model's own earlier turns are shown again clipped, without
the progress envelopes that only the latest call needs; the bound tools are written one line
each into the protocol's system prompt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from diagnosis_harness.guards.envelope import INVALID_ENVELOPE, parse_envelope
from diagnosis_harness.providers.messages import text_of
from diagnosis_harness.providers.observations import clip

MAX_OWN_TURN_CHARS = 600
"""A reply of the model's longer than this (rambling, not an envelope) is shown clipped."""


def from_envelope(reply: BaseMessage, history: Sequence[BaseMessage]) -> AIMessage:
    """Turn an envelope reply into the same tool call or draft as native tools would give."""
    text = text_of(reply)
    usage = getattr(reply, "usage_metadata", None)
    n = 1 + sum(len(m.tool_calls) for m in history if isinstance(m, AIMessage))
    envelope = parse_envelope(text)
    if isinstance(envelope, str):  # malformed: the tool gate counts it as a protocol violation
        calls = [{"name": INVALID_ENVELOPE, "args": {"problem": envelope}, "id": f"call_{n}"}]
        return AIMessage(content=text, tool_calls=calls, usage_metadata=usage)
    if envelope.kind == "tool_call":
        calls = [{"name": envelope.tool, "args": envelope.args, "id": f"call_{n}"}]
        return AIMessage(content=text, tool_calls=calls, usage_metadata=usage)
    return AIMessage(content=envelope.draft_text, usage_metadata=usage)


def tool_lines(specs: Sequence[dict[str, Any]]) -> str:
    """One line per tool: its name, arguments (``?`` = optional) and first sentence.

    A ``Tables:`` paragraph of a description (the SQL tool's allowed tables) is kept whole.
    """
    lines = []
    for spec in specs:
        fn = spec.get("function", spec)
        params = fn.get("parameters") or {}
        required = set(params.get("required", []))
        args = [a if a in required else f"{a}?" for a in params.get("properties", {})
                if a != "previous_observation"]
        paragraphs = str(fn.get("description", "")).split("\n\n")
        first = " ".join(paragraphs[0].split()).split(". ")[0].rstrip(".")
        extra = [" ".join(p.split()) for p in paragraphs[1:] if p.strip().startswith("Tables:")]
        lines.append(" ".join([f"- {fn['name']}({', '.join(args)}): {first}.", *extra]))
    return "\n".join(lines)


def own_turn(message: AIMessage, *, progress: bool) -> str:
    """One of the model's own turns as it is shown again, clipped.

    A tool call loses its progress envelope unless ``progress`` (the latest call, the pattern
    of the next one).

    Repeated every turn, the envelopes' notes cost a small context more than a result does.
    """
    calls = message.tool_calls
    if progress or len(calls) != 1 or calls[0]["name"] == INVALID_ENVELOPE:
        return clip(text_of(message), MAX_OWN_TURN_CHARS)
    args = {k: v for k, v in calls[0]["args"].items() if k != "previous_observation"}
    return clip(json.dumps({"type": "tool_call", "tool": calls[0]["name"], "args": args}),
                MAX_OWN_TURN_CHARS)
