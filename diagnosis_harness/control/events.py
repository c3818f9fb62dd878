"""The client event stream (docs/design.md §5): ``metadata → status* → (content | failure) → done``.

:class:`EventEmitter` enforces the grammar for one run: ``content`` at most once, ``content``
and ``failure`` exclusive, nothing after ``done``, and nothing at all once the client is gone
(cancel). Each accepted event goes to LangGraph's custom stream writer (``custom`` events for
``langgraph dev`` clients), to the run's trace, and to the list returned in the graph output.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from diagnosis_harness.control.secrets import redact_value

Sink = Callable[[int, dict[str, Any]], object]
"""Receives (seq, event) for every accepted event: the run store's trace."""


def _stream_writer() -> Callable[[Any], None] | None:
    try:
        from langgraph.config import get_stream_writer

        return get_stream_writer()
    except Exception:  # noqa: BLE001 — outside a graph run (unit tests) there is no stream
        return None


class EventEmitter:
    """Accepts a run's events in grammar order and drops the late or forbidden ones."""

    def __init__(self, sink: Sink | None = None,
                 prior: list[dict[str, Any]] | None = None) -> None:
        """``prior``: what a resumed run already emitted, so numbering and grammar carry on."""
        self._sink = sink
        self._events: list[dict[str, Any]] = [dict(e) for e in prior or []]
        self._closed = any(e.get("event") == "done" for e in self._events)
        self._published = any(e.get("event") in ("content", "failure") for e in self._events)
        self._lock = threading.Lock()

    @property
    def events(self) -> list[dict[str, Any]]:
        """A copy of the accepted events, in order."""
        with self._lock:
            return [dict(e) for e in self._events]

    @property
    def started(self) -> bool:
        """Whether any event was accepted (without copying them, as :attr:`events` does)."""
        return bool(self._events)

    @property
    def closed(self) -> bool:
        """True after ``done`` or after the client went away."""
        return self._closed

    def close(self) -> None:
        """The client is gone (cancel/disconnect): accept nothing more, not even ``done``."""
        with self._lock:
            self._closed = True

    def emit(self, event: str, **fields: object) -> bool:
        """Emit one event; return False if the grammar or a closed stream dropped it."""
        with self._lock:
            if self._closed:
                return False
            if event in ("content", "failure"):
                if self._published:
                    return False
                self._published = True
            if event == "metadata" and self._events:
                return False
            # A provider's error text can echo a key: nothing unredacted leaves in an event.
            payload = redact_value({"event": event, **fields})
            self._events.append(payload)
            seq = len(self._events)
            if event == "done":
                self._closed = True
        writer = _stream_writer()
        if writer is not None:
            writer(payload)
        if self._sink is not None:
            self._sink(seq, payload)
        return True
