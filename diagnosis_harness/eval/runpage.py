"""The served app's custom routes: the alert routes, and ``GET /runs/{run_id}``, a run's page.

``langgraph.json`` mounts :data:`app` (``"http": {"app": …}``). It is the alert intake's app
(:mod:`diagnosis_harness.serving.alerts`, its routes and its lifespan: the outbox's deliverer)
with one more route: the run view of ``harness runs show RUN_ID --html``, the page each alert
post links to (``HARNESS_PUBLIC_URL/runs/RUN_ID``, docs/alerts.md). It lives here, above
``serving``, because the run view is the report's (this package's) and layers import down only.

The page is behind the server's one credential (:func:`diagnosis_harness.serving.auth.admits`):
``HARNESS_SERVER_TOKEN`` as a bearer token or basic auth's password, or without it loopback
clients only — exactly as every thread and run of the API. An unknown run is 404, whatever the
id looks like; the page is built off the event loop (it reads the run store and the thread's
checkpoints).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.serving import alerts
from diagnosis_harness.serving.auth import admits

log = logging.getLogger(__name__)
_HISTORY = 50
"""Checkpoints of the run's thread searched for its state (a thread keeps its latest by default)."""
_HEADERS = {
    # The page is self-contained (inline styles, inline SVG): nothing else may load or run.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


async def _state(thread_id: str, run_id: str) -> dict[str, Any]:
    """The run's graph state, from this server's own checkpoints (its in-process client)."""
    from langgraph_sdk import get_client

    try:
        for snapshot in await get_client().threads.get_history(thread_id, limit=_HISTORY):
            values = snapshot.get("values") or {}
            if isinstance(values, dict) and values.get("run_id") == run_id:
                return values
    except Exception as exc:  # noqa: BLE001 — the page without the draft, from the run store
        log.info("run page %s: no state from the server: %s", run_id, exc)
    return {}


def _page(settings: Settings, store: RunStore, run_id: str, state: dict[str, Any]) -> str | None:
    from diagnosis_harness.eval.reports.html import run_html
    from diagnosis_harness.eval.runview import stored_run_view

    found = stored_run_view(settings, store, run_id, state)
    if found is None:
        return None
    question, view = found
    return run_html(question, view, run_id=run_id, title=f"harness run {run_id}")


async def run_page(request: Request) -> Response:
    """Answer ``GET /runs/{run_id}`` with the run's page.

    The part after the line of dashes is the route's OpenAPI entry (the server reads it as YAML).

    ---
    summary: One run's view (as harness runs show RUN_ID --html)
    description: 200 an HTML page; 401 or 403 without the server's credential; 404 for an unknown
      run. See docs/serving.md.
    """
    settings, store, _ = await alerts.served()
    client = request.client.host if request.client else None
    refused = admits(settings, request.headers.get("authorization"), client)
    if refused == 401:
        # Basic: a browser opening the link from a post asks for it (any user, the token as the
        # password); a bearer token is accepted as well.
        return JSONResponse({"error": "unauthorized: send the server's token (HARNESS_SERVER_TOKEN)"},
                            status_code=401,
                            headers={"WWW-Authenticate": 'Basic realm="harness", charset="UTF-8"'})
    if refused is not None:
        return JSONResponse({"error": "forbidden: this server has no HARNESS_SERVER_TOKEN and "
                                      "serves loopback clients only"}, status_code=403)
    run_id = request.path_params["run_id"]
    row = await asyncio.to_thread(store.get_run, run_id)
    if row is None:
        return JSONResponse({"error": "no such run"}, status_code=404)
    state = await _state(str(row["thread_id"]), run_id)
    page = await asyncio.to_thread(_page, settings, store, run_id, state)
    if page is None:
        return JSONResponse({"error": "no such run"}, status_code=404)
    return HTMLResponse(page, headers=_HEADERS)


app = Starlette(routes=[*alerts.app.routes, Route("/runs/{run_id}", run_page, methods=["GET"])],
                lifespan=alerts.app.router.lifespan_context)
"""The custom routes ``langgraph.json`` mounts: the alert routes and the run page."""
