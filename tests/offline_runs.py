"""One offline diagnosis on a dataset written by a test: the services, and a run of one turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn


def offline_services(data: Path, home: Path, protocol: str = "tools") -> Services:
    """The offline default over ``data`` (a dataset folder), its state under ``home``."""
    return Services.from_settings(load_settings(model="offline", home=home, data_dir=data,
                                                agent_protocol=protocol))


ByProtocol = Callable[[str], Services]
"""An agent protocol's offline services over one dataset (see :func:`per_protocol`)."""


def per_protocol(write: Callable[[Path], Path], root: Path) -> ByProtocol:
    """Offline services by agent protocol over one dataset that ``write`` puts under
    ``root/data``: written on first use, each protocol's services (home ``root/PROTOCOL``) made once."""
    @cache
    def data() -> Path:
        return write(root / "data")

    @cache
    def services(protocol: str) -> Services:
        return offline_services(data(), root / protocol, protocol)
    return services


def nginx_502s(root: Path) -> Path:
    """A dataset folder under ``root``: nginx on 19 and 20 Nov 2026, 502s at 14:05 and 14:11."""
    from diagnosis_harness import write_dataset

    logs = [{"ts": f"2026-11-{day}T{clock}:00Z", "service": "nginx", "level": level,
             "message": f"POST /static/app.js HTTP/1.1 {status} 157"}
            for day in ("19", "20") for clock, level, status in (
                ("13:50", "INFO", 200), ("14:05", "ERROR", 502), ("14:11", "ERROR", 502),
                ("23:59", "INFO", 200))]
    return write_dataset(root / "data", logs=logs)


def diagnose(services: Services, question: str) -> dict[str, Any]:
    """One turn of a new thread: the result a caller of ``run_turn`` gets."""
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))
