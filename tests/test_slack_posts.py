"""The Slack post a person reads at 3 a.m.: a few lines, no placeholders, no cut token, a link.

Real offline diagnoses on the demo data, their outcome posted through the real outbox and
deliverer to a real HTTP receiver on 127.0.0.1; the exact bodies are golden files
(``tests/data/golden/slack_*.txt``; ``REGOLD_REPORTS=1`` rewrites them, to be read by eye).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_alert_intake import am_payload, send
from test_alert_posts import Recorder

from diagnosis_harness.control.budget import BudgetUsage
from diagnosis_harness.control.contracts import (
    FailureCode,
    ReleaseOutcome,
    RunState,
    StoredRunStatus,
)
from diagnosis_harness.control.settings import SettingsError, load_settings
from diagnosis_harness.notify.deliver import Deliverer
from diagnosis_harness.notify.messages import readable
from diagnosis_harness.serving.alerts import Intake
from diagnosis_harness.session.runner import Services, run_turn

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
SUCCESS_Q = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on "
             "2026-11-02 — why?")
FALLBACK_Q = ("ledger write errors for merchant M2002 on ledger-service between 16:00 and 16:10 "
              "on 2026-11-04 — why?")
RUN_IDS = {"success": "0f6c2a8e-5b1d-4c3e-9a7f-000000000001",
           "fallback": "0f6c2a8e-5b1d-4c3e-9a7f-000000000002",
           "failed": "0f6c2a8e-5b1d-4c3e-9a7f-000000000003"}
PLACEHOLDERS = ("<n>", "<id>", "<ip>", "<dur>", "<hex>", "<str>", "<uuid>", "<ts>",
                "&lt;n&gt;", "&lt;id&gt;")


@pytest.fixture
def slack() -> Iterator[Recorder]:
    receiver = Recorder()
    yield receiver
    receiver.close()


def _golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("REGOLD_REPORTS"):
        path.write_text(actual + "\n", encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8").rstrip("\n")


ALERTS = {"success": "PaymentTimeouts", "fallback": "LedgerWriteErrors",
          "failed": "PaymentErrors"}


def _alert(kind: str) -> dict[str, object]:
    doc = am_payload(key=f'{{}}:{{alertname="{ALERTS[kind]}"}}')
    for labels in (doc["groupLabels"], doc["commonLabels"], *(a["labels"] for a in doc["alerts"])):
        labels["alertname"] = ALERTS[kind]
    return doc


def _post(tmp_path: Path, slack: Recorder, kind: str, public_url: str | None) -> str:
    """One alert whose run is ``kind``; the Slack text the receiver got for it."""
    settings = load_settings(model="offline", home=tmp_path / kind, public_url=public_url,
                             slack_webhook_url=f"{slack.url}/slack")
    services = Services.from_settings(settings)
    run_id = RUN_IDS[kind]

    async def diagnose(question: str, thread_id: str) -> str:
        out = await run_turn(services, question, thread_id=thread_id, run_id=run_id)
        assert out["release_outcome"] == kind.upper(), out["content"]
        return run_id

    async def timed_out(thread_id: str) -> str:  # its deadline passed: nothing published
        services.store.start_run(run_id, thread_id, "q", "offline")
        services.store.finish_run(run_id, status=StoredRunStatus.FAILED,
                                  run_state=RunState.TIMED_OUT,
                                  release_outcome=ReleaseOutcome.FAILED, fallback_type=None,
                                  failure_code=FailureCode.RUN_TIMED_OUT, stop_reason=None,
                                  intent=None, content=None, usage=BudgetUsage())
        return run_id

    async def start(thread_id: str, _question: str) -> str:
        if kind == "failed":
            return await timed_out(thread_id)
        return await diagnose(SUCCESS_Q if kind == "success" else FALLBACK_Q, thread_id)

    async def cancel(_thread: str, _run: str) -> None:
        raise AssertionError("nothing is cancelled here")

    try:
        send(Intake(settings, services.store, start, cancel), _alert(kind))
        assert Deliverer(services.store, settings).deliver_due() == 1
    finally:
        services.close()
    (request,) = [r for r in slack.requests if r["headers"]["Idempotency-Key"] ==
                  f"{run_id}:slack"]
    body = request["body"]
    assert body["text"] == body["blocks"][0]["text"]["text"]
    return str(body["text"])


@pytest.mark.parametrize("kind", ["success", "fallback", "failed"])
def test_the_slack_post_is_a_few_readable_lines_with_the_runs_link(
        tmp_path: Path, slack: Recorder, kind: str) -> None:
    text = _post(tmp_path, slack, kind, public_url="https://harness.example.com/")
    lines = text.splitlines()
    assert 3 <= len(lines) <= 6, text
    assert not any(p in text for p in PLACEHOLDERS), text  # masked values never show raw
    assert lines[-1] == f"Run: https://harness.example.com/runs/{RUN_IDS[kind]}"
    assert all(len(line) <= 300 for line in lines)
    _golden(f"slack_{kind}.txt", text)


def test_without_a_public_url_the_post_says_how_to_open_the_run(tmp_path: Path,
                                                                 slack: Recorder) -> None:
    text = _post(tmp_path, slack, "failed", public_url=None)
    assert text.splitlines()[-1] == f"Run: harness runs show {RUN_IDS['failed']}"  # whole id


def test_a_long_line_is_cut_at_a_word_and_placeholders_read_as_an_ellipsis() -> None:
    line = readable("Root cause: api: 5 ERROR events 'POST /v1/<id>/orders HTTP/<n> <n> "
                    "rt=<dur>' " + "upstream-connection-reset " * 20, limit=120)
    assert len(line) <= 120 and line.endswith("…")
    assert "<" not in line and "POST /v1/…/orders HTTP/… … rt=…" in line
    body = line.removesuffix("…")
    assert body.endswith("upstream-connection-reset")  # a whole word, not a cut token


@pytest.mark.parametrize("bad", ["ftp://harness.example.com", "https://ops:hunter2@harness.example.com",
                                 "https://harness.example.com/a b", "https://h.example/?x=1",
                                 "https://h.example/<!channel>", "harness.example.com"])
def test_a_public_url_that_could_leak_or_break_the_link_is_refused(bad: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings(public_url=bad)
    assert "HARNESS_PUBLIC_URL" in str(refused.value) and "hunter2" not in str(refused.value)


def test_the_public_url_loses_its_trailing_slash() -> None:
    assert load_settings(public_url=" https://h.example/harness/ ").public_url == \
        "https://h.example/harness"
