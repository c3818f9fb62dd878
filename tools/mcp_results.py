"""An MCP tool's answer as a :class:`~diagnosis_harness.tools.results.ToolResult`; a bounded runner.

Text content becomes facts: a text that is a JSON (or Python-literal) list of records gives one
fact per record, any other text one fact per non-empty line. Non-text content (images, files)
is counted in a note, never shown. The boundary then numbers, caps and records the facts exactly
as it does a built-in tool's. Whatever the server sends stays data under fixed keys (``value``,
``text``): it can never pose as an evidence id or a control field of the observation.
"""

from __future__ import annotations

import ast
import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from diagnosis_harness.tools.results import Item, ResultTooLarge, ToolResult, clip

T = TypeVar("T")

MAX_ITEMS = 200
"""Facts one MCP call yields at most; more are cut and the record flagged truncated."""
MAX_ITEM_TEXT = 2000
"""Characters kept of one line of text."""
_MAX_DEPTH = 32
_REPORT_GRACE_S = 0.2


def to_result(scope: dict[str, Any], content: str | list[str | dict[str, Any]], artifact: object,
              max_bytes: int) -> ToolResult:
    """The facts of one successful MCP call (``content``/``artifact`` of its ToolMessage)."""
    blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
    texts = [b["text"] for b in blocks
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    others = len(blocks) - len(texts)
    structured = artifact.get("structured_content") if isinstance(artifact, dict) else None
    if not texts and structured is not None:
        texts = [json.dumps(structured, ensure_ascii=False, default=str)]
    size = sum(len(t.encode("utf-8")) for t in texts)
    if size > max_bytes:
        raise ResultTooLarge(f"the MCP tool returned {size} bytes of text, over the "
                             f"{max_bytes}-byte limit; narrow the query")
    items: list[Item] = []
    clipped = False
    for text in texts:
        records = _records(text)
        if records is not None:
            items.extend(_record_item(r) for r in records)
            continue
        for line in text.splitlines():
            if line.strip():
                kept, cut = clip(line.strip(), MAX_ITEM_TEXT)
                clipped |= cut
                items.append(Item(kind="text", text=clip(kept, 300)[0], data={"text": kept}))
    notes = []
    if len(items) > MAX_ITEMS:
        notes.append(f"only the first {MAX_ITEMS} of {len(items)} items are shown; narrow the query")
    if others:
        notes.append(f"{others} non-text content block(s) (images, files) are not shown")
    return ToolResult(scope=scope, items=items[:MAX_ITEMS], truncated=len(items) > MAX_ITEMS or clipped,
                      note=" ".join(notes) or None)


def _record_item(value: object) -> Item:
    text = json.dumps(value, ensure_ascii=False)
    return Item(kind="record", text=clip(text, 300)[0], data={"value": value})


def _records(text: str) -> list[Any] | None:
    """The records of a text that is one JSON or Python-literal list/object, else None."""
    body = text.strip()
    if not body or body[0] not in "[{" or _depth(body) > _MAX_DEPTH:
        return None  # the depth check keeps both parsers far from their recursion limits
    try:
        value = json.loads(body)
    except ValueError:
        try:  # the reference servers print Python reprs: [{'id': 1, 'name': 'x'}]
            value = json.loads(json.dumps(ast.literal_eval(body), default=str))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(value, dict):
        return [value]
    return value if isinstance(value, list) else None


def _depth(text: str) -> int:
    depth = deepest = 0
    for char in text:  # counts brackets inside strings too: an over-estimate is safe
        if char in "[{(":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]})":
            depth -= 1
    return deepest


def one_line(exc: BaseException) -> str:
    """The first line of the innermost cause of ``exc`` (task groups wrap errors in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()
    return clip(f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__, 300)[0]


def run_bounded(factory: Callable[[], Awaitable[T]], timeout_s: float, what: str, *,
                cancel: bool = True) -> T:
    """Run a coroutine on a private event loop in its own thread; give up after ``timeout_s``.

    MCP sessions are async, the tool boundary is not (it runs in a worker thread). A session of
    its own on a loop of its own has no loop to share or get wrong, whoever calls. The caller
    waits ``timeout_s`` (and a beat for the loop to report), never more. With ``cancel`` the
    coroutine is cancelled then; its clean-up stops the server (the MCP SDK closes its stdin,
    then sends SIGTERM, then SIGKILL) in the background after the run moved on, even when the
    server ignores the cancel (a blocking sleep, a hung process). Pass ``cancel=False`` when the
    coroutine has timeouts of its own: a second cancel would cut that clean-up short and leave
    the server running.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    async def bounded() -> T:
        return await (asyncio.wait_for(factory(), timeout_s) if cancel else factory())

    def target() -> None:
        try:
            box["value"] = asyncio.run(bounded())
        except BaseException as exc:  # noqa: BLE001 — handed to the caller below
            box["error"] = exc
        finally:
            done.set()

    # A daemon thread: a server that never dies cannot keep the harness process alive.
    threading.Thread(target=target, name=f"mcp: {what}", daemon=True).start()
    if not done.wait(timeout_s + _REPORT_GRACE_S):
        raise TimeoutError(f"{what} took longer than {timeout_s:g} s")
    if "error" in box:
        error = box["error"]
        if isinstance(error, TimeoutError):
            raise TimeoutError(f"{what} took longer than {timeout_s:g} s") from None
        raise error
    return box["value"]  # type: ignore[no-any-return]
