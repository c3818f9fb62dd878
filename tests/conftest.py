"""Shared fixtures: hermetic settings, a guard that forbids real network model calls, backends."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from pg import pg_server, pg_session_url, pg_url  # noqa: F401 — registers the PostgreSQL fixtures

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"tests may not reach the network ({host}); use a local stub")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No developer .env, no HARNESS_/OPENAI_ variables, no traffic off this machine."""
    for key in list(os.environ):
        if key.startswith(("HARNESS_", "OPENAI_")):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Run the test once per backend: run store and checkpointer on SQLite, then on PostgreSQL.

    A module opts in with ``pytestmark = pytest.mark.usefixtures("backend")``; graphkit's
    ``go``/``run``/``services_for`` then use the backend's store and checkpointer.
    """
    import graphkit

    if request.param == "postgres":
        chosen = graphkit.Backend("postgres", request.getfixturevalue("pg_session_url"))
    else:
        chosen = graphkit.Backend("sqlite")
    graphkit.BACKEND = chosen
    try:
        yield chosen
    finally:
        graphkit.BACKEND = None
