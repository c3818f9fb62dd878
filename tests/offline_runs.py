"""One offline diagnosis on a dataset written by a test: the services, and a run of one turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn


def offline_services(data: Path, home: Path, protocol: str = "tools") -> Services:
    """The offline default over ``data`` (a dataset folder), its state under ``home``."""
    return Services.from_settings(load_settings(model="offline", home=home, data_dir=data,
                                                agent_protocol=protocol))


def diagnose(services: Services, question: str) -> dict[str, Any]:
    """One turn of a new thread: the result a caller of ``run_turn`` gets."""
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))
