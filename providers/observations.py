"""How the json protocol shows tool results to a model: compact lines, and older ones folded.

A tool result reaches the agent as the tool gate's JSON observation. A small model with a
4k-token context cannot keep every one of them verbatim, so the json protocol shows

- the latest result as one line per evidence item (``E2.1 row: change_id=CHG-2041, …``),
  clipped to the room the context leaves;
- every earlier result folded into the *findings so far*: each item's id and the start of its
  line, at a level of detail the context affords (down to the ids alone);
- the progress line the next call needs (which ``tool_call_id`` to name).

Only rendering changes: the observation itself (and what the harness recorded) stays as it was,
and an id the model was never shown is simply not one it can cite.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from diagnosis_harness import prompts

_SPACE = re.compile(r"\s+")
FOLD_LEVELS: tuple[tuple[int, int], ...] = ((8, 220), (5, 140), (3, 90), (2, 60), (1, 60), (0, 0))
"""(items per earlier result, characters per item) from most to least detail; 0 = ids only.

One item of 60 characters before ids only: a 4,096-token context with the statistics tools in
the prompt keeps the change row of an earlier result readable by the fifth result."""
LATEST_ITEM_CHARS = 420
"""The longest line one item of the latest result gets (a runbook passage is cut here)."""


def body_of(text: str) -> dict[str, Any] | None:
    """The observation's JSON object, or None for free text."""
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return body if isinstance(body, dict) else None


def is_gate_skip(body: dict[str, Any] | None) -> bool:
    """A call the tool gate answered without running it for a protocol error (no tool, no id).

    Such a call does not become the "previous observation" the next call must name.
    """
    return body is not None and isinstance(body.get("error"), str) and "tool" not in body


def _flat(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_flat(v)}" for k, v in value.items() if v is not None)
    if isinstance(value, list):
        return "; ".join(_flat(v) for v in value)
    return _SPACE.sub(" ", str(value)).strip()


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def item_line(item: dict[str, Any], scope: dict[str, Any], limit: int) -> str:
    """One evidence item as one line: id, kind, then its content as ``key=value`` pairs."""
    content = {k: v for k, v in item.items() if k not in ("evidence_id", "kind", "warning")
               and v is not None and scope.get(k) != v}  # the scope is the call's own
    if list(content) == [item.get("kind")] and isinstance(content[item["kind"]], dict):
        content = content[item["kind"]]  # "E2.1 row: a=1", not "E2.1 row: row=a=1"
    # The boundary's untrusted-text flag comes first and verbatim, so clipping never hides it.
    flag = f' {{"warning": {json.dumps(item["warning"])}}}' if item.get("warning") else ""
    head = f"{item.get('evidence_id')} {item.get('kind', 'item')}{flag}: "
    return head + clip(_flat(content), max(limit - len(head), 0))


@dataclass(frozen=True)
class Result:
    """One observation as the protocol reads it."""

    call_id: str
    text: str

    @cached_property
    def body(self) -> dict[str, Any] | None:
        """Its JSON object (None for free text)."""
        return body_of(self.text)

    @property
    def items(self) -> list[dict[str, Any]]:
        """Its evidence items (those with an id)."""
        items = (self.body or {}).get("items")
        return [i for i in items if isinstance(i, dict) and isinstance(i.get("evidence_id"), str)] \
            if isinstance(items, list) else []

    @property
    def stop_required(self) -> bool:
        """The harness asked the model to stop calling tools in this result."""
        return bool((self.body or {}).get("stop_required"))

    def headline(self) -> str:
        """What happened, without the items: found n, found nothing, failed, not executed."""
        body = self.body
        if body is None:
            return clip(_SPACE.sub(" ", self.text), 300)
        tool = body.get("tool", "the call")
        if is_gate_skip(body):
            return f"not executed: {clip(body['error'], 400)}"
        if body.get("status"):
            return f"{tool} not executed ({body['status']}): {clip(str(body.get('note', '')), 200)}"
        if isinstance(body.get("error"), dict):
            err = body["error"]
            return f"{tool} failed ({err.get('code')}): {clip(str(err.get('message', '')), 400)}"
        n = len([i for i in self.items if i.get("kind") != "empty"])
        if n == 0:
            cite = [i["evidence_id"] for i in self.items if i.get("kind") == "empty"]
            return (f"{tool} found nothing (no evidence) for {_flat(body.get('scope') or {})}"
                    + (f"; cite {cite[0]} for that absence" if cite else ""))
        return f"{tool} found {n} item(s)"

    def tail(self) -> list[str]:
        """The note and the stop instruction, if any."""
        body = self.body or {}
        out = [f"Note: {clip(_SPACE.sub(' ', str(body['note'])), 300)}"] if body.get("note") else []
        if self.stop_required:  # verbatim, as the harness wrote it
            out.append(json.dumps({k: body[k] for k in ("stop_required", "stop_reason",
                                                        "instruction") if k in body},
                                  ensure_ascii=False))
        return out

    def full(self, max_items: int, item_chars: int = LATEST_ITEM_CHARS) -> tuple[str, list[str]]:
        """The result shown in full (its first ``max_items`` items) and the ids it shows."""
        scope = (self.body or {}).get("scope") or {}
        items = self.items[:max_items]
        lines = [self.headline(), *(item_line(i, scope, item_chars) for i in items)]
        if len(self.items) > len(items):
            lines.append(f"({len(self.items) - len(items)} more item(s) not shown: the context "
                         "is full; narrow the next query)")
        return "\n".join([*lines, *self.tail()]), [i["evidence_id"] for i in items]

    def folded(self, max_items: int, item_chars: int) -> tuple[list[str], list[str]]:
        """The result folded into the findings: its items' lines (or ids) and the ids shown."""
        items = self.items
        if not items:
            return [], []
        ids = [i["evidence_id"] for i in items]
        if max_items == 0:
            return [f"{self.call_id}: {', '.join(ids)}"], ids
        scope = (self.body or {}).get("scope") or {}
        shown = items[:max_items]
        lines = [item_line(i, scope, item_chars) for i in shown]
        if len(items) > len(shown):
            lines.append(f"{self.call_id} also: {', '.join(ids[len(shown):])}")
        return lines, ids


def stub(result: Result) -> str:
    """An earlier result's own turn once folded: what happened, and where its facts went."""
    head = result.headline()
    where = prompts.phrase("json_result_folded_items") if result.items else "."
    return prompts.phrase("json_result_folded", call_id=result.call_id, headline=head, where=where)
