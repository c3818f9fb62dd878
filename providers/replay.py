"""Replay models (``--model replay:FILE``): scripted responses per role, for tests and users.

File format (docs/design.md §10)::

    {"router": [...], "agent": [...], "judge": [...], "repair": [...]}

Each entry is one response ``{"content": str, "tool_calls": [{"name", "args", "id"}],
"usage": {"input_tokens", "output_tokens"}}`` or an injected failure ``{"raise": "timeout" |
"transport" | "invalid_output" | "error"}``, consumed in order per role. A role that runs out
of entries raises :class:`ReplayExhausted`: a broken script is a test error and says so.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from diagnosis_harness.control.contracts import FailureClass
from diagnosis_harness.providers.errors import ModelCallError

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable

ROLES = ("router", "agent", "judge", "repair")
_RAISES = {
    "timeout": FailureClass.TIMEOUT,
    "transport": FailureClass.TRANSPORT,
    "invalid_output": FailureClass.INVALID_OUTPUT,
}


class ReplayFileError(ValueError):
    """A replay file cannot be read or is not in the replay format; says where and why."""


class ReplayExhausted(RuntimeError):
    """The script has no more entries for a role: the test or script is incomplete."""


def _check_entry(role: str, i: int, entry: object) -> dict[str, Any]:
    where = f"{role}[{i}]"
    if not isinstance(entry, dict):
        raise ReplayFileError(f"{where}: each entry must be a JSON object")
    if "raise" in entry:
        if set(entry) != {"raise"} or entry["raise"] not in (*_RAISES, "error"):
            raise ReplayFileError(
                f"{where}: an injected failure is exactly "
                '{"raise": "timeout"|"transport"|"invalid_output"|"error"}'
            )
        return entry
    unknown = set(entry) - {"content", "tool_calls", "usage"}
    if unknown:
        raise ReplayFileError(f"{where}: unknown keys {sorted(unknown)}")
    if not isinstance(entry.get("content", ""), str):
        raise ReplayFileError(f"{where}: content must be a string")
    calls = entry.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("args", {}), dict)
        for c in calls
    ):
        raise ReplayFileError(f"{where}: tool_calls must be a list of {{name, args, id}} objects")
    if not isinstance(entry.get("usage", {}), dict):
        raise ReplayFileError(f"{where}: usage must be an object")
    return entry


class ReplayScript:
    """The entries of every role and a cursor per role; safe to share between threads."""

    def __init__(self, entries: Mapping[str, Sequence[Any]], source: str = "<script>") -> None:
        if not isinstance(entries, Mapping):
            raise ReplayFileError(f"{source}: the replay file must hold one JSON object")
        unknown = set(entries) - set(ROLES)
        if unknown:
            raise ReplayFileError(f"{source}: unknown roles {sorted(unknown)}; use {list(ROLES)}")
        self.source = source
        self._entries: dict[str, list[dict[str, Any]]] = {}
        for role in ROLES:
            items = entries.get(role, [])
            if not isinstance(items, list):
                raise ReplayFileError(f"{source}: {role} must be a list of entries")
            self._entries[role] = [_check_entry(role, i, e) for i, e in enumerate(items)]
        self._cursor = dict.fromkeys(ROLES, 0)
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayScript:
        """Load and validate a replay file; any problem is a ReplayFileError naming the file."""
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ReplayFileError(f"replay file not found: {p}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ReplayFileError(f"cannot read replay file {p}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise ReplayFileError(f"replay file {p} is not valid JSON: {exc}") from None
        except RecursionError:
            raise ReplayFileError(f"replay file {p} is not valid JSON: nested too deeply") from None
        return cls(data, source=str(p))

    def consumed(self, role: str) -> int:
        """How many entries of ``role`` were used so far."""
        return self._cursor[role]

    def remaining(self, role: str) -> int:
        """How many entries of ``role`` are left."""
        return len(self._entries[role]) - self._cursor[role]

    def next(self, role: str) -> tuple[int, dict[str, Any]]:
        """Take the next entry of ``role`` (with its index) or raise ReplayExhausted."""
        with self._lock:
            i = self._cursor[role]
            if i >= len(self._entries[role]):
                raise ReplayExhausted(
                    f"replay script {self.source} has no entry left for role '{role}' "
                    f"(it had {len(self._entries[role])}): the script is incomplete"
                )
            self._cursor[role] = i + 1
            return i, self._entries[role][i]


def _to_message(role: str, index: int, entry: dict[str, Any]) -> AIMessage:
    kind = entry.get("raise")
    if kind == "error":
        raise RuntimeError(f"replay: injected unclassified crash ({role}[{index}])")
    if kind is not None:
        raise ModelCallError(_RAISES[kind], f"replay: injected {kind} ({role}[{index}])")
    usage = entry.get("usage", {})
    tin, tout = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    calls = [
        {"name": c["name"], "args": c.get("args", {}),
         "id": c.get("id") or f"call_{role}_{index}_{j}", "type": "tool_call"}
        for j, c in enumerate(entry.get("tool_calls", []))
    ]
    msg = AIMessage(content=entry.get("content", ""), tool_calls=calls)
    # Kept as given (even negative or missing): the budget, not the model, sanitises usage.
    msg.usage_metadata = {"input_tokens": tin, "output_tokens": tout,
                          "total_tokens": (tin or 0) + (tout or 0)}  # type: ignore[typeddict-item]
    return msg


class ReplayChatModel(BaseChatModel):
    """A chat model that answers from a :class:`ReplayScript` for one role."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: ReplayScript
    role: str

    @property
    def _llm_type(self) -> str:
        return "replay"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:  # noqa: D102
        return self.bind(**kwargs)

    def _answer(self) -> ChatResult:
        index, entry = self.script.next(self.role)
        return ChatResult(generations=[ChatGeneration(message=_to_message(self.role, index, entry))])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        return self._answer()

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        return self._answer()
