"""The human approval gate on the real dev server (``HARNESS_APPROVAL=before_publish``, docs/design.md §14).

A verified report pauses at release with an ``interrupt()`` that carries the draft, the cited
evidence and the judge's verdict. An approval (Studio/SDK or ``harness runs approve``) publishes
it, a rejection publishes a fallback quoting the note, a cancel while paused publishes nothing,
and a decision is final. A report the guards reject never waits: approving cannot skip a guard.
One server for the module.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from servekit import Streamed, assert_grammar, new_thread, stream
from studio_kit import (
    Studio,
    harness_cli,
    state,
    studio_fixture,
)

pytestmark = pytest.mark.slow


studio = studio_fixture("approval", HARNESS_APPROVAL="before_publish")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def paused_for_approval(studio: Studio, incident: int) -> tuple[str, Streamed]:
    thread = await new_thread(studio.url)
    paused = await stream(studio.url, thread, {"question": f"payment timeouts, incident #{incident}: why?"})
    return thread, paused


def test_approving_publishes_the_verified_report_and_a_second_answer_is_refused(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused = await paused_for_approval(studio, 301)
        at_pause = await state(studio.url, thread)
        approved = await stream(studio.url, thread, None,
                                command={"resume": {"approve": True, "note": "pool metrics agree"}})
        again = await stream(studio.url, thread, None, command={"resume": {"approve": False}})
        return thread, paused, at_pause, approved, again

    thread, paused, at_pause, approved, again = run(scenario())
    run_id = paused.server_run_id
    # Paused at release: nothing published, the request carries what a reviewer needs.
    assert at_pause["next"] == ["release"]
    assert {"content", "failure", "done"}.isdisjoint(e["event"] for e in paused.events)
    [request] = paused.interrupts
    assert request["kind"] == "approval" and request["run_id"] == run_id
    assert request["draft"]["conclusion"]["root_cause"] == "connection pool exhaustion (incident #301)"
    assert request["verdict"]["verdict"] == "SUPPORTED"
    assert [e["evidence_id"] for e in request["evidence"]] == ["E1.1"]
    assert request["evidence"][0]["tool"] == "query_logs"
    final = approved.final
    assert (final["run_id"], final["release_outcome"], final["content"]) == \
        (run_id, "SUCCESS", request["report"])
    assert paused.events + approved.events == studio.store.events(run_id)
    assert_grammar(studio.store.events(run_id))
    row = studio.store.get_run(run_id)
    assert (row["status"], row["release_outcome"]) == ("SUCCESS", "SUCCESS")
    approval = studio.store.lineage(run_id)["approval"]
    assert (approval["state"], approval["decided_by"], approval["note"]) == \
        ("APPROVED", "api", "pool metrics agree")
    # A decision is final: a second answer is refused before anything runs.
    assert again.events == [] and "already decided: APPROVED by api" in str(again.errors)
    assert studio.store.get_run(run_id)["release_outcome"] == "SUCCESS"

    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", run_id)
    assert code == 0
    assert "approval: APPROVED by api" in out and "\u201cpool metrics agree\u201d" in out
    assert "paused before release (approval)" in out and "segment 2: continue by api" in out
    assert "published:" in out and "Root cause: connection pool exhaustion (incident #301)" in out


def test_a_rejection_from_the_cli_publishes_a_fallback_that_quotes_the_note(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    thread, paused = run(paused_for_approval(studio, 302))
    run_id = paused.server_run_id
    code, listed, _ = harness_cli(studio, monkeypatch, capsys, "runs", "list", "--thread", thread)
    assert code == 0 and "PAUSED" in listed and "approval PENDING" in listed
    code, out, err = harness_cli(studio, monkeypatch, capsys, "runs", "approve", run_id, "--reject",
                                 "--note", "the merchant is wrong")
    assert code == 0, err
    assert out.startswith(f"[FALLBACK / APPROVAL_REJECTED] run {run_id}")
    row = studio.store.get_run(run_id)
    assert (row["status"], row["release_outcome"], row["fallback_type"]) == \
        ("SUCCESS", "FALLBACK", "APPROVAL_REJECTED")
    assert "\u201cthe merchant is wrong\u201d" in row["content"]
    assert "Root cause:" not in row["content"]
    approval = studio.store.lineage(run_id)["approval"]
    assert approval["state"] == "REJECTED" and approval["decided_by"].startswith("cli")
    values = run(state(studio.url, thread))["values"]  # the server sees the CLI's ending
    assert (values["release_outcome"], values["content"]) == ("FALLBACK", row["content"])
    # A second decision, from the CLI this time, is refused with the first one named.
    code, _, err = harness_cli(studio, monkeypatch, capsys, "runs", "approve", run_id)
    assert code == 64 and "already decided: it ended FALLBACK (REJECTED by cli" in err


def test_a_cancel_while_paused_publishes_nothing_and_a_late_approval_is_refused(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    thread, paused = run(paused_for_approval(studio, 303))
    run_id = paused.server_run_id
    code, out, err = harness_cli(studio, monkeypatch, capsys, "runs", "cancel", run_id)
    assert code == 0 and out.strip() == f"[CANCELLED] run {run_id}", err
    late = run(stream(studio.url, thread, None, command={"resume": {"approve": True}}))
    assert late.events == [] and f"run {run_id} was already decided: CANCELLED" in str(late.errors)
    row = studio.store.get_run(run_id)
    assert (row["status"], row["run_state"], row["release_outcome"], row["content"]) == \
        ("CANCELLED", "CANCELLED", "CANCELLED", None)
    events = [e["event"] for e in studio.store.events(run_id)]
    assert {"content", "failure", "done"}.isdisjoint(events)


def test_a_new_turn_supersedes_a_run_paused_for_approval(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused = await paused_for_approval(studio, 304)
        nxt = await stream(studio.url, thread, {"question": "payment timeouts, incident #305: why?"})
        return paused, nxt

    paused, nxt = run(scenario())
    assert studio.store.get_run(paused.server_run_id)["release_outcome"] == "CANCELLED"
    assert studio.store.lineage(paused.server_run_id)["approval"]["state"] == "CANCELLED"
    assert nxt.interrupts and nxt.interrupts[0]["run_id"] == nxt.server_run_id  # it waits in turn


def test_a_malformed_answer_is_refused_and_the_run_keeps_waiting(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused = await paused_for_approval(studio, 306)
        bad = await stream(studio.url, thread, None, command={"resume": {"approve": "yes"}})
        good = await stream(studio.url, thread, None, command={"resume": {"approve": True}})
        return paused, bad, good

    paused, bad, good = run(scenario())
    assert bad.events == [] and 'answer the approval with {"approve": true|false' in str(bad.errors)
    assert good.final["release_outcome"] == "SUCCESS" and good.final["run_id"] == paused.server_run_id


def test_a_report_the_judge_rejects_never_waits_for_approval(studio: Studio) -> None:
    thread, cosmic = run(_cosmic(studio))
    assert cosmic.interrupts == []
    assert (cosmic.final["release_outcome"], cosmic.final["fallback_type"]) == \
        ("FALLBACK", "SEMANTIC_UNSUPPORTED")
    assert studio.store.lineage(cosmic.final["run_id"])["approval"] is None


async def _cosmic(studio: Studio) -> tuple[str, Streamed]:
    thread = await new_thread(studio.url)
    return thread, await stream(studio.url, thread,
                                {"question": "payment timeouts, incident #308 (cosmic): why?"})

