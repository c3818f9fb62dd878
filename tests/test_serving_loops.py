"""The serving adapter is the process's; the server enters its checkpointer once per event loop.

LangGraph's server keeps a checkpointer per event loop (it enters
``diagnosis_harness.serving.adapter.checkpointer``
on each). One loop leaving must not stop what the whole process shares: the trace writer keeps
recording the other loops' events until the last one has left.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import diagnosis_harness.serving.adapter


@pytest.fixture
def fresh_adapter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    diagnosis_harness.serving.adapter._build.cache_clear()
    try:
        yield
    finally:
        diagnosis_harness.serving.adapter._build.cache_clear()


def test_one_event_loop_leaving_keeps_the_trace_writer_for_the_others(fresh_adapter: None) -> None:
    entered, leave = threading.Event(), threading.Event()

    def another_loop() -> None:
        async def serve() -> None:
            async with diagnosis_harness.serving.adapter.checkpointer():
                entered.set()
                await asyncio.to_thread(leave.wait, 60)
        asyncio.run(serve())

    other = threading.Thread(target=another_loop)
    other.start()
    try:
        assert entered.wait(60)

        async def serve_briefly() -> None:
            async with diagnosis_harness.serving.adapter.checkpointer():
                pass

        asyncio.run(serve_briefly())  # this loop leaves; the other one still serves runs
        served = diagnosis_harness.serving.adapter.adapter()
        served._record_event("run-of-the-other-loop", 0, {"event": "metadata"})
    finally:
        leave.set()
        other.join(60)
    # The last loop left: everything handed to the writer was written before it stopped.
    assert served.services.store.events("run-of-the-other-loop") == [{"event": "metadata"}]
