"""Studio's debugging workflows on the real dev server, through ``langgraph_sdk`` (docs/design.md §14).

Breakpoints and stepping continue the same harness run and end exactly as a straight run; time
travel forks a new run that records its parent and carries its usage; state edits are recorded
and never publish anything the guards did not check; input and run options are validated on
every turn. One server for the module.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from langgraph_sdk import get_client
from servekit import Streamed, assert_grammar, new_thread, stream
from studio_kit import (
    Studio,
    cosmic_cause,
    harness_cli,
    state,
    studio_fixture,
    usage,
)

pytestmark = pytest.mark.slow


studio = studio_fixture("studio")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def straight(studio: Studio, question: str) -> dict[str, Any]:
    """The values of an uninterrupted run of ``question`` on a thread of its own."""
    thread = await new_thread(studio.url)
    done = await stream(studio.url, thread, {"question": question})
    assert done.errors == [] and done.final["release_outcome"] == "SUCCESS", done.final
    return done.final


# --- breakpoints and stepping: the same run, the same ending -----------------------------------


def test_a_breakpoint_before_release_then_continue_ends_as_a_straight_run(studio: Studio) -> None:
    question = "payment timeouts, incident #201: why?"

    async def scenario() -> tuple[Any, ...]:
        reference = await straight(studio, question)
        thread = await new_thread(studio.url)
        paused = await stream(studio.url, thread, {"question": question}, interrupt_before=["release"])
        at_pause = await state(studio.url, thread)
        resumed = await stream(studio.url, thread, None)
        return reference, thread, paused, at_pause, resumed

    reference, thread, paused, at_pause, resumed = run(scenario())
    assert at_pause["next"] == ["release"]
    assert [e["event"] for e in paused.events if e["event"] != "status"] == ["metadata"]
    assert paused.server_run_id != resumed.server_run_id  # the server sees two runs …
    final = resumed.final
    run_id = final["run_id"]
    assert run_id == paused.server_run_id  # … the harness one, continued
    assert (final["release_outcome"], final["content"], final["usage"]) == \
        (reference["release_outcome"], reference["content"], reference["usage"])
    rows = studio.store.runs_for_thread(thread)
    assert [(r["run_id"], r["status"], r["release_outcome"]) for r in rows] == \
        [(run_id, "SUCCESS", "SUCCESS")]
    assert rows[0]["usage"] == reference["usage"]
    # One event stream across both server runs: numbered on, in grammar.
    assert paused.events + resumed.events == final["events"] == studio.store.events(run_id)
    assert_grammar(final["events"])
    segments = studio.store.lineage(run_id)["segments"]
    assert [(s["kind"], s["ended"]) for s in segments] == [("start", "paused"), ("continue", "SUCCESS")]
    assert segments[0]["next"] == ["release"] and segments[0]["waiting"] == "breakpoint"


def test_stepping_through_every_node_ends_as_a_straight_run(studio: Studio) -> None:
    question = "payment timeouts, incident #202: why?"

    async def scenario() -> tuple[dict[str, Any], str, list[Any]]:
        reference = await straight(studio, question)
        thread = await new_thread(studio.url)
        steps = [await stream(studio.url, thread, {"question": question}, interrupt_after="*")]
        while (await state(studio.url, thread))["next"]:
            steps.append(await stream(studio.url, thread, None, interrupt_after="*"))
            assert len(steps) < 40, "stepping never ends"
        return reference, thread, steps

    reference, thread, steps = run(scenario())
    assert len(steps) >= 9  # one server run per node executed
    assert all(step.errors == [] for step in steps)
    final = steps[-1].final
    assert (final["release_outcome"], final["content"], final["usage"]) == \
        (reference["release_outcome"], reference["content"], reference["usage"])
    rows = studio.store.runs_for_thread(thread)
    assert len(rows) == 1 and rows[0]["run_id"] == steps[0].server_run_id == final["run_id"]
    assert rows[0]["usage"] == reference["usage"]
    streamed = [e for step in steps for e in step.events]
    assert streamed == final["events"] == studio.store.events(final["run_id"])
    assert_grammar(streamed)
    assert len(studio.store.lineage(final["run_id"])["segments"]) == len(steps)


# --- time travel: a new run with its parent and its usage ---------------------------------------


async def checkpoint_before(url: str, thread: str, node: str) -> dict[str, Any]:
    history = await get_client(url=url).threads.get_history(thread, limit=50)
    return next(h for h in history if h["next"] == [node])


def test_a_fork_before_the_judge_is_a_new_run_that_carries_its_parents_usage(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread = await new_thread(studio.url)
        parent = await stream(studio.url, thread, {"question": "payment timeouts, incident #203: why?"})
        before = await checkpoint_before(studio.url, thread, "semantic_guard")
        fork = await stream(studio.url, thread, None, checkpoint_id=before["checkpoint"]["checkpoint_id"])
        return thread, parent, before, fork

    thread, parent, before, fork = run(scenario())
    parent_id, fork_id = parent.final["run_id"], fork.final["run_id"]
    assert fork.errors == [] and fork_id == fork.server_run_id != parent_id
    assert [r["run_id"] for r in studio.store.runs_for_thread(thread)] == [parent_id, fork_id]
    lineage = studio.store.lineage(fork_id)
    checkpoint_id = before["checkpoint"]["checkpoint_id"]
    assert (lineage["parent_run_id"], lineage["fork_checkpoint_id"]) == (parent_id, checkpoint_id)
    carried = before["values"]["usage"]
    assert lineage["inherited"]["usage"] == carried and carried["model_calls"] == 3
    # No fresh budget: the fork's usage is the checkpoint's plus its own judge call.
    assert usage(fork.final) == {**carried, "model_calls": carried["model_calls"] + 1,
                                 "input_tokens": carried["input_tokens"] + 11,
                                 "output_tokens": carried["output_tokens"] + 7}
    assert studio.store.get_run(fork_id)["usage"] == usage(fork.final)
    assert fork.final["release_outcome"] == "SUCCESS"
    assert fork.final["content"] == parent.final["content"]
    assert_grammar(fork.events)
    assert fork.events[0] == {"event": "metadata", "run_id": fork_id, "thread_id": thread,
                              "model": "openai:stub-model"}
    assert studio.store.get_run(parent_id)["usage"] == usage(parent.final)  # the parent untouched
    assert studio.store.children(parent_id) == [fork_id]

    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", fork_id)
    assert code == 0
    assert f"forked from run {parent_id} at checkpoint {checkpoint_id}" in out
    assert "segment 1: fork by api" in out and "verdict  judged_draft: SUPPORTED" in out
    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "list", "--thread", thread)
    assert code == 0 and f"fork of {parent_id}" in out.splitlines()[1]


# --- state edits: recorded, and nothing unchecked is published ---------------------------------


async def paused_before(studio: Studio, node: str, question: str) -> tuple[str, Streamed, dict[str, Any]]:
    thread = await new_thread(studio.url)
    paused = await stream(studio.url, thread, {"question": question}, interrupt_before=[node])
    return thread, paused, await state(studio.url, thread)


def cosmic(draft: dict[str, Any]) -> dict[str, Any]:
    edited = copy.deepcopy(draft)
    edited["conclusion"]["root_cause"] = cosmic_cause(edited["conclusion"]["root_cause"])
    return edited


def test_an_edited_draft_goes_through_the_guards_again_and_is_not_published(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused, values = await paused_before(studio, "evidence_guard",
                                                     "payment timeouts, incident #204: why?")
        await get_client(url=studio.url).threads.update_state(
            thread, {"draft": cosmic(values["values"]["draft"])}, as_node="draft_parse")
        return paused, await stream(studio.url, thread, None)

    paused, resumed = run(scenario())
    final = resumed.final
    # The judge refuses the edited draft; the refusal goes back to the agent once (its one
    # revision, docs/design.md §8), whose own draft is judged again and published.
    assert (final["run_id"], final["release_outcome"], final["fallback_type"]) == \
        (paused.server_run_id, "SUCCESS", None)
    assert "cosmic" not in final["content"]
    verdicts = studio.store.trace(final["run_id"])["verdicts"]
    assert [v["verdict"].get("verdict") for v in verdicts if v["guard"] == "semantic"] == \
        ["UNSUPPORTED", "SUPPORTED"]
    [sent_back] = [v["verdict"] for v in verdicts if v["guard"] == "revision"]
    assert "cosmic" in sent_back["refused_draft"]["conclusion"]["root_cause"]
    edits = studio.store.lineage(final["run_id"])["edits"]
    assert [(e["keys"], e["as_node"], e["edited_by"], e["run_segment"]) for e in edits] == \
        [(["draft"], "draft_parse", "api", 2)]


def test_a_draft_edited_after_the_judge_fails_as_tampered(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused, values = await paused_before(studio, "release",
                                                     "payment timeouts, incident #205: why?")
        assert values["values"]["semantic_verdict"]["verdict"] == "SUPPORTED"
        await get_client(url=studio.url).threads.update_state(
            thread, {"draft": cosmic(values["values"]["draft"])}, as_node="semantic_guard")
        return await stream(studio.url, thread, None)

    final = run(scenario()).final
    assert (final["run_state"], final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "FAILED", "EVIDENCE_TAMPERED", None)
    failure = next(e for e in final["events"] if e["event"] == "failure")
    assert "never judged this draft" in failure["message"]
    row = studio.store.get_run(final["run_id"])
    assert (row["status"], row["failure_code"], row["content"]) == ("FAILED", "EVIDENCE_TAMPERED", None)


def test_a_verdict_edited_to_supported_publishes_nothing(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused, values = await paused_before(studio, "release",
                                                     "payment timeouts, incident #206 (cosmic): why?")
        assert values["values"]["semantic_verdict"]["verdict"] == "UNSUPPORTED"
        await get_client(url=studio.url).threads.update_state(
            thread, {"semantic_verdict": {"verdict": "SUPPORTED", "reasons": ["trust me"]}},
            as_node="semantic_guard")
        return await stream(studio.url, thread, None)

    final = run(scenario()).final
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)
    failure = next(e for e in final["events"] if e["event"] == "failure")
    assert "the semantic_verdict in state is not one the semantic guard recorded" in failure["message"]
    edits = studio.store.lineage(final["run_id"])["edits"]
    assert [(e["keys"], e["as_node"]) for e in edits] == [(["semantic_verdict"], "semantic_guard")]


def test_an_edited_record_is_tampered_evidence(studio: Studio) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread, paused, values = await paused_before(studio, "release",
                                                     "payment timeouts, incident #207: why?")
        # The state holds the records' index (the facts are in the run store): the edit makes
        # the record claim evidence the tool never returned.
        record = copy.deepcopy(values["values"]["records"][0])
        record["evidence_ids"] = [*record["evidence_ids"], "E1.9"]
        client = get_client(url=studio.url)
        await client.threads.update_state(thread, {"records": [record]}, as_node="semantic_guard")
        refused = None
        try:
            await client.threads.update_state(thread, {"usage": {}}, as_node="semantic_guard")
        except Exception as exc:  # noqa: BLE001 — the SDK's HTTP error
            refused = exc
        return refused, await stream(studio.url, thread, None)

    refused, resumed = run(scenario())
    assert refused is not None and "usage cannot be edited" in str(refused)
    final = resumed.final
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)
    failure = next(e for e in final["events"] if e["event"] == "failure")
    assert "call_207" in failure["message"] and "not what the tool returned" in failure["message"]


# --- input and run options, every turn ---------------------------------------------------------


def test_a_misspelt_input_key_on_an_existing_thread_is_invalid_input(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> tuple[Any, ...]:
        thread = await new_thread(studio.url)
        first = await stream(studio.url, thread, {"question": "payment timeouts, incident #208: why?"})
        calls = len(studio.stub.requests)
        second = await stream(studio.url, thread, {"qestion": "and incident #209?"})
        return first, second, len(studio.stub.requests) - calls

    first, second, model_calls = run(scenario())
    assert first.final["release_outcome"] == "SUCCESS"
    final = second.final
    assert (final["run_id"], final["release_outcome"], final["failure_code"]) == \
        (second.server_run_id, "FAILED", "INVALID_INPUT")
    assert model_calls == 0  # refused before any model call; the last question did not run again
    failure = next(e for e in second.events if e["event"] == "failure")
    assert "unknown input key 'qestion'" in failure["message"]
    row = studio.store.get_run(final["run_id"])
    assert (row["status"], row["failure_code"]) == ("FAILED", "INVALID_INPUT")

    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", final["run_id"])
    assert code == 0
    assert "outcome: FAILED / INVALID_INPUT" in out
    assert "failed: INVALID_INPUT — unknown input key 'qestion'" in out
    code, shown, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", final["run_id"], "--json")
    story = json.loads(shown)
    assert [e["event"]["event"] for e in story["timeline"] if e["kind"] == "event"] == \
        ["metadata", "failure", "done"]
    assert story["run"]["failure_code"] == "INVALID_INPUT"


def test_run_options_can_lower_a_budget_but_never_raise_it_or_leave_the_allow_list(
        studio: Studio) -> None:
    async def one(context: dict[str, Any]) -> Any:
        thread = await new_thread(studio.url)
        return await stream(studio.url, thread, {"question": "payment timeouts, incident #210: why?"},
                            context=context)

    async def scenario() -> tuple[Any, ...]:
        schemas = await get_client(url=studio.url).assistants.get_schemas(
            (await get_client(url=studio.url).assistants.search(graph_id="diagnosis"))[0]["assistant_id"])
        return (schemas, await one({"max_model_calls": 2}), await one({"max_tool_calls": 1000}),
                await one({"model": "openai:gpt-5"}), await one({"dataset": "/etc"}))

    schemas, lowered, raised, model, dataset = run(scenario())
    offered = set(schemas["context_schema"]["properties"])
    assert {"model", "dataset", "max_model_calls", "deadline_s"} <= offered
    # Two model calls: the router and the agent's one turn, which is its final draft turn (the
    # budget leaves nothing to investigate with); the option lowered the budget.
    assert (lowered.final["stop_reason"], usage(lowered.final)["model_calls"]) == \
        ("BUDGET_LIMIT_REACHED", 2)
    assert studio.store.lineage(lowered.final["run_id"])["options"] == {"max_model_calls": 2}
    for refused, words in [(raised, "max_tool_calls=1000 would raise the server's budget (10)"),
                           (model, "model 'openai:gpt-5' is not offered"),
                           (dataset, "dataset '/etc' is not offered")]:
        assert (refused.final["release_outcome"], refused.final["failure_code"]) == \
            ("FAILED", "INVALID_INPUT")
        assert words in next(e for e in refused.events if e["event"] == "failure")["message"]
