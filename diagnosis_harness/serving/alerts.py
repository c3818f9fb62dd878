"""Alert intake on the served app: ``POST /alerts/alertmanager`` and ``POST /alerts/generic``.

``langgraph.json`` mounts these routes as the server's custom HTTP routes (``"http": {"app":
…}``: :mod:`diagnosis_harness.eval.runpage`, which adds the run page), so the routes run
wherever the graph is served. A notification is authenticated
(``HARNESS_ALERTS_TOKEN``, or the server's one credential ``HARNESS_SERVER_TOKEN``, as a bearer
token or basic auth's password, constant-time compare: :mod:`diagnosis_harness.serving.auth`;
without ``HARNESS_ALERTS_TOKEN`` the routes answer 404), read up to ``HARNESS_ALERTS_MAX_BODY_BYTES``,
parsed (:mod:`diagnosis_harness.serving.alert_payload`) and handed to :class:`Intake`, which
turns it into its question and answers at once (202) while the run goes on in the server's
background. What a run could not use is refused with a 4xx, never accepted and then failed: a body
nested too deeply, a time outside the years 1970-8999, a question that does not fit the run's
limit even with the longest annotations clipped.

One investigation per alert group (:mod:`diagnosis_harness.runstore.alerts`): the group's row in
the run store decides, so several workers on one PostgreSQL start one run. A group whose run was
lost with its worker (kill -9) is claimable again (:mod:`diagnosis_harness.runstore.alert_sweep`).
A ``resolved`` notification cancels the group's active run (CANCELLED, nothing published) or is
recorded.
The run's outcome is queued in the outbox at intake and posted once the run has finished
(:mod:`diagnosis_harness.notify.deliver`, started with the app).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.notify.messages import targets
from diagnosis_harness.runstore import alert_sweep
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.runstore.worker import worker_id
from diagnosis_harness.serving.alert_payload import (
    AlertGroup,
    AlertPayloadError,
    parse_alertmanager,
    parse_generic,
    question_for,
    thread_secret,
)
from diagnosis_harness.serving.auth import authorized, server_token

log = logging.getLogger(__name__)

StartRun = Callable[[str, str], Awaitable[str]]
"""(thread id, question) → the started run's id."""
CancelRun = Callable[[str, str], Awaitable[None]]
"""(thread id, run id) → the run is cancelled."""

PARSERS = {"alertmanager": parse_alertmanager, "generic": parse_generic}


class Intake:
    """What one notification does: the dedup decision, the start or cancel, the queued posts."""

    def __init__(self, settings: Settings, store: RunStore, start_run: StartRun,
                 cancel_run: CancelRun, known_services: Sequence[str] = ()) -> None:
        self.settings = settings
        self.known_services = known_services
        self.store = store
        self.start_run = start_run
        self.cancel_run = cancel_run

    def question(self, group: AlertGroup) -> str:
        """The question the group's investigation asks, within the run's question limit.

        :class:`AlertPayloadError` when it cannot fit (the route answers 422; nothing starts).
        """
        return question_for(group, self.settings.alerts_service_labels,
                            self.settings.alerts_lookback_s, known_services=self.known_services,
                            max_bytes=self.settings.max_question_bytes)

    def _claim(self, group: AlertGroup) -> tuple[str | None, dict[str, Any]]:
        """The store's claim, after releasing the group if its last run was lost with its worker.

        Blocking I/O (and ``/proc``): called off the event loop.
        """
        alert_sweep.release_if_lost(self.store, group.group_key)
        return self.store.claim_alert_group(group.group_key, group.thread_id, group.firing,
                                            claimant=worker_id())

    async def handle(self, group: AlertGroup) -> dict[str, Any]:
        """Act on one notification; the answer's body (``action`` says what happened)."""
        thread = group.thread_id
        base = {"group_key": group.group_key, "thread_id": thread}
        if group.status == "resolved":
            before = await asyncio.to_thread(self.store.resolve_alert_group, group.group_key, thread)
            if before is not None and before["state"] == "ACTIVE" and before["run_id"]:
                try:
                    await self.cancel_run(thread, before["run_id"])
                except Exception as exc:  # noqa: BLE001 — a run that just ended cannot be cancelled
                    log.info("cancel of run %s: %s", before["run_id"], exc)
                return {**base, "action": "cancelled", "run_id": before["run_id"]}
            return {**base, "action": "recorded", "run_id": before and before["run_id"]}
        question = self.question(group)  # a question the run would refuse is a 422, not a claim
        claim, row = await asyncio.to_thread(self._claim, group)
        if claim is None:
            return {**base, "action": "duplicate", "run_id": row["run_id"]}
        try:
            run_id = await self.start_run(thread, question)
        except Exception:
            await asyncio.to_thread(self.store.drop_alert_claim, group.group_key, claim)
            raise
        context = {"name": group.name, "group_key": group.group_key, "labels": group.labels,
                   "source": group.source}
        posts = [(target, kind, context) for target, kind in targets(self.settings, group.issue)]
        await asyncio.to_thread(self.store.queue_posts, run_id, posts)
        if not await asyncio.to_thread(self.store.attach_alert_run, group.group_key, claim, run_id):
            await self.cancel_run(thread, run_id)  # resolved while it was being started
            return {**base, "action": "cancelled", "run_id": run_id}
        return {**base, "action": "started", "run_id": run_id}


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None when it is longer than ``limit`` (checked while reading)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def served() -> tuple[Settings, RunStore, list[str]]:
    """The served settings, run store and dataset services (the adapter's, off the loop)."""
    from diagnosis_harness.serving.adapter import adapter

    services = (await asyncio.to_thread(adapter)).services
    return services.settings, services.store, list(services.dataset.services)


async def _start_in_server(thread_id: str, question: str) -> str:
    from langgraph_sdk import get_client

    client = get_client()  # no URL: this server, in-process
    run = await client.runs.create(thread_id, "diagnosis", input={"question": question},
                                   if_not_exists="create", multitask_strategy="reject")
    return str(run["run_id"])


async def _cancel_in_server(thread_id: str, run_id: str) -> None:
    from langgraph_sdk import get_client

    await get_client().runs.cancel(thread_id, run_id)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def receive(request: Request) -> JSONResponse:
    """Receive one alert notification on ``POST /alerts/{source}``.

    The part after the line of dashes is the route's OpenAPI entry (the server reads it as YAML).

    ---
    summary: Receive an alert notification (Alertmanager webhook v4, or the generic shape)
    description: 202 started, duplicate, cancelled or recorded; 4xx for a notification that is
      refused (nothing stored); 503 when the run could not be started (retry). See docs/alerts.md.
    """
    settings, store, known = await served()
    if settings.alerts_token is None or not settings.alerts_token.get_secret_value():
        return _error(404, "not found")
    source = request.path_params["source"]
    if source not in PARSERS:
        return _error(404, "not found")
    header = request.headers.get("authorization")  # the alerts token, or the server's (serving/auth.py)
    if not authorized(header, settings.alerts_token.get_secret_value()) and \
            not authorized(header, server_token(settings) or ""):
        return JSONResponse({"error": "unauthorized"}, status_code=401,
                            headers={"WWW-Authenticate": 'Bearer realm="harness alerts"'})
    body = await _read_body(request, settings.alerts_max_body_bytes)
    if body is None:
        return _error(413, f"the body is larger than {settings.alerts_max_body_bytes} bytes")
    try:
        group = PARSERS[source](body)
    except AlertPayloadError as exc:
        return _error(422 if body.strip() else 400, str(exc))
    # The group's thread id is keyed by the server's secret: not derivable from the group key.
    group = replace(group, thread_secret=await asyncio.to_thread(thread_secret, settings.home))
    try:
        answer = await Intake(settings, store, _start_in_server, _cancel_in_server,
                              known).handle(group)
    except AlertPayloadError as exc:  # its question cannot be asked: refused before any claim
        return _error(422, str(exc))
    except Exception as exc:  # noqa: BLE001 — the sender retries a 5xx; the claim was dropped
        log.error("alert intake of %s: %s", group.group_key, exc)
        return _error(503, "the investigation could not be started; retry")
    return JSONResponse(answer, status_code=202)


@asynccontextmanager
async def _lifespan(_app: Starlette) -> AsyncIterator[None]:
    from diagnosis_harness.notify.deliver import Deliverer

    settings, store, _ = await served()
    deliverer = Deliverer(store, settings)
    if targets(settings, issue="0") or settings.alerts_token is not None:
        deliverer.start()  # posts (also what a restart left), and the sweep of lost groups
    try:
        yield
    finally:
        await asyncio.to_thread(deliverer.stop)


app = Starlette(routes=[Route("/alerts/{source}", receive, methods=["POST"])], lifespan=_lifespan)
"""The custom routes ``langgraph.json`` mounts."""
