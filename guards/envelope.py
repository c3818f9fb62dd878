"""The ``json`` agent protocol's envelope (docs/design.md §9): one JSON object per agent turn.

``{"type": "tool_call", "tool": NAME, "args": {...}}`` or ``{"type": "final", "draft": {...}}``.
A markdown code fence around it is stripped; nothing else is forgiven. A malformed envelope is
a protocol violation the tool gate reports back to the model, never a crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from diagnosis_harness.guards.parsing import NotJsonError, decode_json_object

INVALID_ENVELOPE = "__invalid_envelope__"
"""Tool name the json protocol's model (``diagnosis_harness.providers.json_protocol``) gives a malformed
envelope,
so the tool gate can count it as a protocol violation."""


@dataclass(frozen=True)
class Envelope:
    """One parsed agent turn."""

    kind: Literal["tool_call", "final"]
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    draft_text: str = ""
    """For ``final``: the draft re-serialised, to be parsed strictly by draft_parse."""


def parse_envelope(text: str | None) -> Envelope | str:
    """Parse one envelope; return it, or a short description of what is wrong with it."""
    if text is None or not text.strip():
        return "the reply is empty; send one JSON envelope"
    try:
        body = decode_json_object(text)
    except NotJsonError as exc:
        return f"the reply is not one JSON object ({exc})"
    kind = body.get("type")
    if kind == "tool_call":
        if set(body) != {"type", "tool", "args"}:
            return 'a tool call has exactly the keys "type", "tool" and "args"'
        if not isinstance(body["tool"], str) or not isinstance(body["args"], dict):
            return '"tool" must be a tool name and "args" an object'
        return Envelope("tool_call", tool=body["tool"], args=body["args"])
    if kind == "final":
        if set(body) != {"type", "draft"}:
            return 'a final answer has exactly the keys "type" and "draft"'
        return Envelope("final", draft_text=json.dumps(body["draft"], ensure_ascii=False))
    return '"type" must be "tool_call" or "final"'
