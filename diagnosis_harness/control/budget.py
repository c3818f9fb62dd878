"""Budgets: model calls, tool calls, tokens and bytes, with usage kept in checkpointed state.

:class:`BudgetUsage` is the serialisable part that lives in the graph state, so a resumed run
continues from what it already spent. :class:`Budget` pairs it with the limits and is the only
thing that reserves or records; it never mutates a usage object it was given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel, ConfigDict

from diagnosis_harness.control.settings import Settings


class BudgetExhausted(Exception):
    """A reservation would exceed a limit; ``resource`` names which."""

    def __init__(self, resource: str, used: int, limit: int) -> None:
        super().__init__(f"{resource} budget exhausted ({used} of {limit} used)")
        self.resource = resource


class CallUsage(BaseModel):
    """The model and tool calls a run made and the tokens they took (an eval case's usage too)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.input_tokens + self.output_tokens


class BudgetUsage(CallUsage):
    """What a run has spent so far (checkpointed; never reset on resume)."""

    bytes: int = 0


@dataclass(frozen=True)
class BudgetLimits:
    """The ceilings of one run."""

    max_model_calls: int
    max_tool_calls: int
    max_tokens: int
    max_bytes: int

    @classmethod
    def from_settings(cls, settings: Settings) -> BudgetLimits:
        """Take the limits from settings."""
        return cls(
            max_model_calls=settings.max_model_calls,
            max_tool_calls=settings.max_tool_calls,
            max_tokens=settings.max_tokens,
            max_bytes=settings.max_run_bytes,
        )


MAX_USAGE_COUNT = 10**9
"""The most tokens one model call may report; larger claims are clamped to it.

A provider (or a hostile server) can report any number; SQLite stores at most 2**63 - 1 and a
run row with an overflowing number was lost. A billion tokens is far beyond any context window,
so clamping changes no real run, and it still exhausts every realistic token budget.
"""
_MAX_TOTAL = 2**62
"""Ceiling of any running total (still an SQLite INTEGER, whatever the number of calls)."""
FINAL_CALLS = 2
"""Model calls an investigation keeps for its end: the final draft turn and the judge's call.

Collection ends while they are still there (docs/design.md §6, *The final draft turn*): a run
whose budget ends its investigation is still asked for its draft, and the draft can be judged.
"""


def usage_count(value: object) -> int:
    """One usage number from a provider, validated: the only way usage enters budget or trace.

    Integers (and integral floats) are clamped to ``0..MAX_USAGE_COUNT``; +inf counts as the
    maximum. Missing values, booleans (``True`` is not one token), NaN, text and anything else
    count as 0 — the same in the budget and in the trace.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return MAX_USAGE_COUNT if value > 0 else 0
    return min(max(int(value), 0), MAX_USAGE_COUNT)



def clean_usage_metadata(meta: object) -> dict[str, Any] | None:
    """A model reply's LangChain ``usage_metadata``, every count through :func:`usage_count`.

    Token details included, so what is checkpointed with the reply is what the budget and the
    trace counted.
    """
    if not isinstance(meta, dict):
        return None
    tokens_in, tokens_out = usage_count(meta.get("input_tokens")), usage_count(
        meta.get("output_tokens"))
    clean: dict[str, Any] = {"input_tokens": tokens_in, "output_tokens": tokens_out,
                             "total_tokens": tokens_in + tokens_out}
    for key in ("input_token_details", "output_token_details"):
        details = meta.get(key)
        if isinstance(details, dict):
            clean[key] = {str(k): usage_count(v) for k, v in details.items()}
    return clean


@overload
def clamp_ints(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def clamp_ints(value: object) -> object: ...
def clamp_ints(value: object) -> object:
    """``value`` (plain JSON types) with integers beyond 64 bits clamped to the int64 range.

    Provider metadata kept with a reply (e.g. ``response_metadata["token_usage"]``) is
    checkpointed; a number no serialiser can store must not make the checkpoint fail.
    """
    if isinstance(value, dict):
        return {k: clamp_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clamp_ints(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return min(max(value, -(2**63)), 2**63 - 1)
    return value


class Budget:
    """Reserve-before, record-after accounting over a copy of the run's usage."""

    def __init__(self, limits: BudgetLimits, usage: BudgetUsage | None = None) -> None:
        self.limits = limits
        self.usage = usage if usage is not None else BudgetUsage()

    def _replace(self, **changes: int) -> None:
        self.usage = self.usage.model_copy(update=changes)

    def reserve_model_call(self) -> None:
        """Count one model call, or raise BudgetExhausted if calls or tokens are used up."""
        u, lim = self.usage, self.limits
        if u.model_calls >= lim.max_model_calls:
            raise BudgetExhausted("model_calls", u.model_calls, lim.max_model_calls)
        if u.tokens >= lim.max_tokens:
            raise BudgetExhausted("tokens", u.tokens, lim.max_tokens)
        self._replace(model_calls=u.model_calls + 1)

    def collection_closed(self, this_turn: int, final_turn: int, reserve: int) -> str | None:
        """Why another investigating agent turn would leave no room for the final one, or None.

        ``this_turn`` and ``final_turn`` are the estimated input tokens of the next agent call
        and of the final draft turn after it; ``reserve`` is what the draft's answer and the
        judge's call need beyond that. Another investigating turn is allowed only if it, the
        final turn and the judge all fit: :data:`FINAL_CALLS` model calls stay free, and the
        tokens for both turns and the reserve.
        """
        u, lim = self.usage, self.limits
        if u.model_calls + 1 + FINAL_CALLS > lim.max_model_calls:
            return (f"model_calls budget reached ({u.model_calls} of {lim.max_model_calls} used, "
                    f"{FINAL_CALLS} kept for the draft and its judge)")
        need = u.tokens + this_turn + final_turn + reserve
        if need > lim.max_tokens:
            return (f"tokens budget reached ({u.tokens} of {lim.max_tokens} used; another turn "
                    f"would leave too few for the draft and its judge: ~{need} needed)")
        return None

    def record_tokens(self, input_tokens: object, output_tokens: object) -> None:
        """Add a call's usage; missing or negative numbers count 0."""
        self._replace(
            input_tokens=min(self.usage.input_tokens + usage_count(input_tokens), _MAX_TOTAL),
            output_tokens=min(self.usage.output_tokens + usage_count(output_tokens), _MAX_TOTAL),
        )

    def record_usage_metadata(self, usage_metadata: object) -> None:
        """Record LangChain ``usage_metadata`` (a dict or None) of one model response."""
        meta = usage_metadata if isinstance(usage_metadata, dict) else {}
        self.record_tokens(meta.get("input_tokens"), meta.get("output_tokens"))

    def reserve_tool_call(self) -> None:
        """Count one evidence tool invocation, or raise BudgetExhausted."""
        u, lim = self.usage, self.limits
        if u.tool_calls >= lim.max_tool_calls:
            raise BudgetExhausted("tool_calls", u.tool_calls, lim.max_tool_calls)
        self._replace(tool_calls=u.tool_calls + 1)

    def reserve_bytes(self, n: int) -> None:
        """Count ``n`` bytes, or raise BudgetExhausted if the run would exceed its byte budget."""
        n = min(max(int(n), 0), _MAX_TOTAL)
        if self.usage.bytes + n > self.limits.max_bytes:
            raise BudgetExhausted("bytes", self.usage.bytes + n, self.limits.max_bytes)
        self._replace(bytes=self.usage.bytes + n)
