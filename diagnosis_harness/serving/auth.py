"""One credential for the whole served app: LangGraph's custom auth (docs/security.md, the server).

``langgraph.json`` names :data:`auth` (``"auth": {"path": …, "disable_studio_auth": true}``), so
the server runs :func:`authenticate` on every request of its API — assistants, threads (list,
search, state, history, edits), runs (start, stream, join, approve/resume, cancel), crons, the
store, MCP and A2A — before any handler reads or writes anything. The alert routes
(``/alerts/*``, :mod:`diagnosis_harness.serving.alerts`) and the run page (``GET /runs/{run_id}``,
:mod:`diagnosis_harness.eval.runpage`) check the same credential themselves (:func:`admits`), so
one token opens every route:

- ``HARNESS_SERVER_TOKEN`` set: every request must carry it, as a bearer token or as basic
  auth's password (compared in constant time), from loopback too; anything else is 401.
- unset: only loopback clients are served (403 otherwise), whatever the server was told to bind
  — ``harness serve`` also refuses to listen beyond loopback without a token (:func:`serve_problem`).

``disable_studio_auth`` matters: without it ``langgraph dev`` lets any request that says
``x-auth-scheme: langsmith`` in as "the Studio user", past this handler. LangGraph's meta routes
(``/ok``, ``/info``, ``/docs``, ``/openapi.json``, ``/metrics``) and its UI assets are outside
custom auth: they carry no thread, run or report. The server's in-process client (the alert
intake starting and cancelling runs) does not pass through the network stack, so it needs no
credential. TLS is not here: beyond one machine, put the server behind a reverse proxy that
terminates it.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import ipaddress
from typing import Any

from langgraph_sdk import Auth

from diagnosis_harness.control.settings import Settings

OPERATOR = "operator"
"""The identity of a request that carried the server's token (recorded as ``user:operator``)."""


def authorized(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries the token (bearer, or basic auth's password)."""
    if not header or not token:
        return False
    scheme, _, value = header.partition(" ")
    secret = token.encode()
    if scheme.lower() == "bearer":
        return hmac.compare_digest(value.strip().encode(), secret)
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True)
        except ValueError:
            return False
        return hmac.compare_digest(decoded.partition(b":")[2], secret)
    return False


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address or ``localhost``) names this machine only."""
    if not host:
        return False
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def server_token(settings: Settings) -> str | None:
    """The server's token, or None when it is unset or empty."""
    token = settings.server_token
    return token.get_secret_value() if token is not None and token.get_secret_value() else None


def serve_problem(settings: Settings, host: str) -> str | None:
    """Why ``harness serve`` must not listen on ``host`` with these settings, or None."""
    if is_loopback(host) or server_token(settings) is not None:
        return None
    return (f"--host {host} listens beyond this machine, and the server's API (threads, runs, "
            "approvals) would be open to anyone who reaches it: set HARNESS_SERVER_TOKEN, or "
            "keep --host 127.0.0.1")


def admits(settings: Settings, header: str | None, client: str | None) -> int | None:
    """None when a request with this ``Authorization`` header from ``client`` may go on; else 401/403."""
    token = server_token(settings)
    if token is not None:
        return None if authorized(header, token) else 401
    return None if is_loopback(client) else 403


async def _settings() -> Settings:
    from diagnosis_harness.serving.adapter import adapter

    return (await asyncio.to_thread(adapter)).services.settings


auth = Auth()
"""What ``langgraph.json``'s ``auth.path`` loads."""


@auth.authenticate
async def authenticate(authorization: str | None, scope: dict[str, Any]) -> Auth.types.MinimalUserDict:
    """The request's user, or 401/403 before anything of the API runs."""
    settings = await _settings()
    client = (scope.get("client") or (None, None))[0]
    refused = admits(settings, authorization, client)
    if refused == 401:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="unauthorized: send the server's token (HARNESS_SERVER_TOKEN)",
            headers={"WWW-Authenticate": 'Bearer realm="harness"'})
    if refused is not None:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail="forbidden: this server has no HARNESS_SERVER_TOKEN and serves "
                                    "loopback clients only")
    # No token: the loopback user is anonymous (its runs record ``api``, docs/design.md §14).
    return {"identity": OPERATOR if server_token(settings) is not None else ""}
