"""What an evidence tool is given and returns to the boundary, and the errors it may raise.

A tool returns a :class:`ToolResult` (scope + items); the boundary numbers the items into facts
(``E<k>.<i>``), measures bytes, caps the model's view and builds the canonical record. Tools
never see budgets, evidence ids or the model view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from diagnosis_harness.control.contracts import EMPTY_KIND

__all__ = ["EMPTY_KIND", "Item", "RelevanceLevel", "ResultTooLarge", "SqlRejected", "ToolArgs",
           "ToolInputError", "ToolResult", "clip", "clip_middle", "empty_text"]


class ToolArgs(BaseModel):
    """The arguments a model sends to an evidence tool: an argument the tool does not name is refused."""

    model_config = ConfigDict(extra="forbid")


class ToolInputError(ValueError):
    """The arguments are well-formed but unusable (bad window, rejected SQL…); ``code`` says which."""

    code = "invalid_input"


class SqlRejected(ToolInputError):
    """The SQL is not a single read-only SELECT over the allowed tables."""

    code = "rejected_sql"


class ResultTooLarge(ToolInputError):
    """The raw result would exceed ``max_tool_result_bytes``."""

    code = "result_too_large"


def empty_text(tool: str, scope: dict[str, Any]) -> str:
    """The text of an empty result's fact: the tool and the exact scope that matched nothing."""
    where = ", ".join(f"{k}={clip(str(v), 200)[0]}" for k, v in scope.items()
                      if v not in (None, "", [], {}))
    return f"{tool} found nothing for {where or 'its scope'}"


class RelevanceLevel:
    """Relevance levels of runbook passages (a plain namespace: values are stored as text)."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


@dataclass(frozen=True)
class Item:
    """One evidence item before numbering: a kind, a one-line text and structured content."""

    kind: str
    text: str
    data: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A tool's full answer for one normalised scope (empty ``items`` means NO_EVIDENCE)."""

    scope: dict[str, Any]
    items: list[Item] = field(default_factory=list)
    relevance: str | None = None
    """Best relevance level of the items (lookup_knowledge only)."""
    truncated: bool = False
    """More matched than the tool returned (row cap, event limit, clipped text)."""
    note: str | None = None
    """A short hint for the model (e.g. which services exist); never evidence."""
    rows_kind: str | None = None
    """Kind of the trailing items that are rows in time order, oldest first (``query_logs``'
    events): an observation cut to its byte limit keeps both ends of them, not only the oldest."""
    row_positions: tuple[int, ...] = ()
    """Each of those rows' 0-based position among everything that matched (for paging)."""


def clip(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters with an ellipsis, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[: max(limit - 1, 0)] + "…", True


_TOKEN = re.compile(r"\S+")
_KEY_WORD = re.compile(r"[\w$.]*(?:Exception|Error|Fault|Failure|Refused|Timeout)\b|[A-Z][A-Z_]*_[A-Z_\d]+"
                       r"|[A-Z]{2,}-\d+")
"""A token a reader looks for in a cut message: an exception or error class
(``sun.security…SunCertPathBuilderException``), an error code (``HA_ERR_FOUND_DUPP_KEY``,
``MY-001062``)."""
CUT = " … "


def clip_middle(text: str, limit: int, tail: int) -> str:
    """``text`` within ``limit`` characters: its start and its last ``tail`` or so, " … " between.

    The cut falls between words, never inside one (a player read "PKIX pat … h.SunCert…" and
    had to call again for the words cut); the tail reaches back to the exception that opens the
    line's last links, and exception names and error codes of the part left out stay, each
    between " … ": the head gives way to them. A text without spaces is cut by characters.
    """
    if len(text) <= limit:
        return text
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    # The tail: whole tokens from where the last ``tail`` characters begin, or the token that
    # straddles that point when it is a key word and fits.
    split = len(text) - tail
    after = [t for t in tokens if t[0] >= split]
    across = [t for t in tokens if t[0] < split < t[1]]
    if across and _KEY_WORD.search(text[across[0][0]:across[0][1]]) \
            and len(text) - across[0][0] <= limit // 2:
        after = [across[0], *after]
    if not after or len(tokens) < 3:
        head = max(limit - tail - len(CUT), 1)
        return f"{text[:head]}{CUT}{text[len(text) - tail:]}"
    # A chain of exceptions ends a Java line: the tail reaches back to the key word that opens
    # the last links ("SSLHandshakeException: PKIX path building failed: sun.…Exception: …"),
    # within two thirds of the limit.
    for start, end in reversed([t for t in tokens if t[1] <= after[0][0]]):
        if len(text) - start > limit * 2 // 3:
            break
        if _KEY_WORD.search(text[start:end]):
            after = [t for t in tokens if t[0] >= start]
    tail_text = text[after[0][0]:]
    room = limit - len(tail_text) - len(CUT)
    middle = [t for t in tokens if t[1] <= after[0][0]]
    # Key words of the left-out part, latest first (the deepest cause of a Java chain is last),
    # while at least half the room is left for the head.
    kept: list[str] = []
    for start, end in reversed(middle[1:]):
        word = text[start:end]
        if _KEY_WORD.search(word) and word not in kept and len(word) + len(CUT) <= room // 2 - sum(
                len(k) + len(CUT) for k in kept):
            kept.insert(0, word)
    room -= sum(len(k) + len(CUT) for k in kept)
    head_end = 0
    for _, end in middle:
        if end > room:
            break
        head_end = end
    if head_end == 0:
        head_end = max(room, 1)
    shown_head = text[:head_end]
    kept = [k for k in kept if k not in shown_head]
    return CUT.join([shown_head, *kept, tail_text])
