"""What an evidence tool is given and returns to the boundary, and the errors it may raise.

A tool returns a :class:`ToolResult` (scope + items); the boundary numbers the items into facts
(``E<k>.<i>``), measures bytes, caps the model's view and builds the canonical record. Tools
never see budgets, evidence ids or the model view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from diagnosis_harness.control.contracts import EMPTY_KIND

__all__ = ["EMPTY_KIND", "Item", "RelevanceLevel", "ResultTooLarge", "SqlRejected", "ToolArgs",
           "ToolInputError", "ToolResult", "clip", "empty_text"]


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
