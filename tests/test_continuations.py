"""Continuations in-process (docs/design.md §14): run time across pauses, the CLI's approval, labels.

The graph here is the served one — built with the run resolver, on a real checkpointer — driven
without the dev server, so a test can move the run's clock and watch every invocation's labels.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock
from uuid import uuid4

import pytest
from graphkit import FULL_RUN, INC, ManualClock, demo_home, services_for
from langchain_core.callbacks import AsyncCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import InvalidUpdateError

from diagnosis_harness.control.contracts import DiagnosisDraft, ToolRecord
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.guards.release_check import check_publication, check_records, draft_digest, judged
from diagnosis_harness.session import runner
from diagnosis_harness.session.hooked import session_graph as build_graph
from diagnosis_harness.session.options import RunOptions, read_options
from diagnosis_harness.session.runner import new_context
from diagnosis_harness.session.starts import RunResolver, ServicesByOptions


def served_graph(services: Any, saver: Any) -> Any:
    resolver = RunResolver(ServicesByOptions(services), services, actor="test")
    return build_graph(saver, resolve_context=resolver, edit_log=services.store)


async def drive(graph: Any, input: Any, thread: str, **kw: Any) -> dict[str, Any]:
    """One stream as the server runs it (a fresh server run id each time); the last values."""
    config = {"configurable": {"thread_id": thread}, "metadata": {"run_id": uuid4().hex}}
    final: dict[str, Any] = {}
    async for mode, chunk in graph.astream(input, config, stream_mode=["values", "custom"], **kw):
        if mode == "values":
            final = chunk
    return final


# --- the deadline counts run time, not time spent paused ----------------------------------------


def test_time_spent_paused_does_not_count_toward_the_deadline_and_run_time_adds_up() -> None:
    clock = ManualClock()
    twice = {role: entries * 2 for role, entries in FULL_RUN.items()}
    services = services_for(demo_home(), twice, deadline_s=60)
    graph = served_graph(services, InMemorySaver())
    seam: Any = services.seam
    # Each run's router takes 50 s of its first stream; the second run's judge, after the
    # pause, answers 15 s into its stream.
    seam.on_call = lambda role, n: clock.advance({"router": 50, "judge": 15 * (n == 2)}.get(role, 0))

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        out = []
        for thread in ("patient", "slow"):
            await drive(graph, {"question": INC["question"]}, thread, interrupt_before=["semantic_guard"])
            clock.advance(1000)  # paused for a quarter of an hour: not run time
            out.append(await drive(graph, None, thread))
        return out[0], out[1]

    with mock.patch.object(runner, "RunLifecycle", partial(RunLifecycle, clock=clock)):
        patient, slow = asyncio.run(scenario())
    assert (patient["run_state"], patient["release_outcome"]) == ("SUCCESS", "SUCCESS")
    # 50 s before the pause + 15 s after it > 60 s: the judge's late answer is dropped.
    assert (slow["run_state"], slow["release_outcome"], slow["failure_code"]) == \
        ("TIMED_OUT", "FAILED", "RUN_TIMED_OUT")
    lineage = services.store.lineage(slow["run_id"])
    assert [s["ended"] for s in lineage["segments"]] == ["paused", "TIMED_OUT"]
    assert lineage["run_time_ms"] >= 65_000 and lineage["run_time_ms"] < 1_000_000


def test_a_run_paused_before_its_first_node_is_continued_not_forked() -> None:
    services = services_for(demo_home(), FULL_RUN)
    graph = served_graph(services, InMemorySaver())

    async def scenario() -> dict[str, Any]:
        await drive(graph, {"question": INC["question"]}, "t-first", interrupt_before=["route"])
        return await drive(graph, None, "t-first")

    final = asyncio.run(scenario())
    rows = services.store.runs_for_thread("t-first")
    assert [(r["run_id"], r["release_outcome"]) for r in rows] == [(final["run_id"], "SUCCESS")]
    segments = services.store.lineage(final["run_id"])["segments"]
    assert [(s["kind"], s["ended"]) for s in segments] == [("start", "paused"), ("continue", "SUCCESS")]
    assert [e["event"] for e in services.store.events(final["run_id"])][:2] == ["metadata", "status"]


def test_an_edit_of_an_earlier_checkpoint_of_a_paused_run_forks_it() -> None:
    """Going on from an edited *earlier* checkpoint must not hand the paused run back its budget."""
    services = services_for(demo_home(), {role: entries * 2 for role, entries in FULL_RUN.items()})
    graph = served_graph(services, InMemorySaver())
    config = {"configurable": {"thread_id": "t-back"}}

    async def scenario() -> tuple[str, dict[str, Any], dict[str, Any]]:
        await drive(graph, {"question": INC["question"]}, "t-back", interrupt_before=["semantic_guard"])
        paused = (await graph.aget_state(config)).values
        history = [h async for h in graph.aget_state_history(config)]
        earlier = next(h for h in history if h.next == ("tool_gate",))
        await graph.aupdate_state(earlier.config, {"previous_turn": "edited"}, as_node="model")
        return paused["run_id"], earlier.values["usage"], await drive(graph, None, "t-back")

    paused_id, carried, final = asyncio.run(scenario())
    assert final["run_id"] != paused_id and final["release_outcome"] == "SUCCESS"
    lineage = services.store.lineage(final["run_id"])
    assert lineage["parent_run_id"] == paused_id and lineage["inherited"]["usage"] == carried
    assert [(e["keys"], e["as_node"]) for e in lineage["edits"]] == [(["previous_turn"], "model")]
    assert services.store.get_run(paused_id)["finished_at"] is None  # the paused run is not reused


# --- the CLI: a paused diagnosis, then `harness runs approve` ------------------------------------


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from diagnosis_harness.cli.main import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(argv)
    out = capsys.readouterr()
    return int(done.value.code or 0), out.out, out.err


def test_the_cli_pauses_for_approval_and_runs_approve_releases_the_same_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for key in [k for k in __import__("os").environ if k.startswith(("HARNESS_", "OPENAI_"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HARNESS_HOME", str(demo_home()))
    monkeypatch.setenv("HARNESS_APPROVAL", "before_publish")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["diagnose", "--json", INC["question"]], capsys)
    assert code == 3, err  # paused: the offline investigator's verified report awaits approval
    paused = json.loads(out)
    assert paused["paused"] is True and paused["release_outcome"] is None
    assert [e["event"] for e in paused["events"]][-1] == "status"
    code, out, err = cli(["runs", "approve", paused["run_id"], "--note", "ok", "--json"], capsys)
    assert code == 0, err
    done = json.loads(out)
    assert (done["run_id"], done["release_outcome"]) == (paused["run_id"], "SUCCESS")
    assert done["content"].startswith("Root cause:")
    code, out, _ = cli(["runs", "show", paused["run_id"]], capsys)
    assert code == 0 and "approval: APPROVED by cli" in out and "\u201cok\u201d" in out


def test_a_new_cli_turn_supersedes_the_threads_run_paused_for_approval() -> None:
    from graphkit import run as cli_turn

    twice = {role: entries * 2 for role, entries in FULL_RUN.items()}
    services = services_for(demo_home(), twice, approval="before_publish")
    saver = InMemorySaver()
    first = cli_turn(services, INC["question"], checkpointer=saver, thread_id="t-cli-pause")
    second = cli_turn(services, INC["question"], checkpointer=saver, thread_id="t-cli-pause")
    assert first["paused"] and second["paused"]
    row = services.store.get_run(first["run_id"])
    assert (row["status"], row["release_outcome"], row["content"]) == ("CANCELLED", "CANCELLED", None)
    approval = services.store.lineage(first["run_id"])["approval"]
    assert (approval["state"], approval["note"]) == ("CANCELLED", "a new turn was started on its thread")
    assert services.store.lineage(second["run_id"])["approval"]["state"] == "PENDING"


# --- edits and options are checked ------------------------------------------------------------


def test_edits_of_run_control_or_of_unknown_keys_are_refused() -> None:
    services = services_for(demo_home(), FULL_RUN)
    graph = served_graph(services, InMemorySaver())
    asyncio.run(drive(graph, {"question": INC["question"]}, "t-edit", interrupt_before=["release"]))
    config = {"configurable": {"thread_id": "t-edit"}}
    for values, words in [({"usage": {"model_calls": 0}}, "usage cannot be edited"),
                          ({"run_id": "other"}, "run_id cannot be edited"),
                          ({"content": "published!"}, "content cannot be edited"),
                          ({"scope": {"service": "x"}}, "scope cannot be edited"),
                          ({"elapsed_s": 0.0}, "elapsed_s cannot be edited"),
                          ({"drfat": {}}, "no such state key: drfat")]:
        with pytest.raises(InvalidUpdateError, match=words):
            asyncio.run(graph.aupdate_state(config, values, as_node="semantic_guard"))
    graph.update_state(config, {"previous_turn": "a note"}, as_node="semantic_guard")
    head = graph.get_state(config).config["configurable"]["checkpoint_id"]
    edited = services.store.state_edit("t-edit", head)
    assert (edited["keys"], edited["as_node"], edited["edited_by"]) == \
        (["previous_turn"], "semantic_guard", "local")


def test_run_options_are_checked_against_what_the_server_offers() -> None:
    settings = load_settings(model="offline", serve_models="replay:x.json", max_tool_calls=10)
    assert read_options({"model": "replay:x.json", "max_tool_calls": 3}, settings) == \
        (RunOptions(model="replay:x.json", max_tool_calls=3), None)
    for raw, words in [({"temperature": 2}, "temperature: Extra inputs are not permitted"),
                       ({"max_tool_calls": 0}, "greater than 0"),
                       ({"max_tool_calls": 11}, "would raise the server's budget (10)"),
                       ({"model": "openai:gpt-5"}, "is not offered by this server"),
                       ({"dataset": "/etc/passwd"}, "dataset '/etc/passwd' is not offered"),
                       ("fast", "must be an object")]:
        options, problem = read_options(raw, settings)
        assert options == RunOptions() and problem is not None and words in problem


# --- what release checks, pure -----------------------------------------------------------------


RECORD = ToolRecord.model_validate({
    "tool_call_id": "c1", "tool": "query_logs", "args": {}, "scope": {"service": "s"},
    "invocation_status": "READY", "evidence_status": "EVIDENCE_FOUND", "ready_index": 1,
    "facts": [{"evidence_id": "E1.1", "kind": "event", "text": "pool exhausted"}]})
DRAFT = DiagnosisDraft.model_validate(
    {"conclusion": {"root_cause": "pool", "claims": [{"statement": "s", "evidence_ids": ["E1.1"]}]},
     "next_steps": ["raise it"]})


def test_release_trusts_only_what_the_store_recorded() -> None:
    stored = [RECORD.model_dump(mode="json")]
    edited = RECORD.model_copy(update={"facts": [RECORD.facts[0].model_copy(update={"text": "x"})]})
    assert check_records([RECORD], stored) == []
    assert check_records([edited], stored) == ["record c1 (query_logs) is not what the tool returned in "
                                               "this run"]
    verdicts = [{"guard": "judged_draft", "verdict": judged(DRAFT, [RECORD], "SUPPORTED")}]
    assert check_publication(DRAFT.model_dump(), [RECORD], verdicts) == []
    # Another next step is another draft: the judgement was not given for it.
    other = DRAFT.model_copy(update={"next_steps": ["rm -rf /"]})
    assert draft_digest(other, [RECORD]) != draft_digest(DRAFT, [RECORD])
    assert check_publication(other.model_dump(), [RECORD], verdicts) == \
        ["the independent judge never judged this draft with this evidence"]
    later = [*verdicts, {"guard": "judged_draft", "verdict": judged(DRAFT, [RECORD], "UNSUPPORTED")}]
    assert check_publication(DRAFT.model_dump(), [RECORD], later) == \
        ["the independent judge answered UNSUPPORTED for this draft"]
    assert check_publication({"conclusion": None}, [RECORD], verdicts) == \
        ["the draft in state is not a valid draft"]


# --- labelled traces ---------------------------------------------------------------------------


class Labels(AsyncCallbackHandler):
    """Keeps the name, tags and metadata of every chain and chat-model invocation."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, list[str], dict[str, Any]]] = []

    async def on_chain_start(self, serialized: Any, inputs: Any, *, tags: Any = None,
                             metadata: Any = None, name: str | None = None, **kw: Any) -> None:
        self.seen.append(("chain", name or "", list(tags or []), dict(metadata or {})))

    async def on_chat_model_start(self, serialized: Any, messages: Any, *, tags: Any = None,
                                  metadata: Any = None, name: str | None = None, **kw: Any) -> None:
        self.seen.append(("model", name or "", list(tags or []), dict(metadata or {})))


def test_every_invocation_carries_the_runs_labels_and_release_labels_the_outcome() -> None:
    services = services_for(demo_home(), FULL_RUN)
    ctx = new_context(services, thread_id="t-labels")
    labels = Labels()
    graph = build_graph(InMemorySaver())

    async def scenario() -> None:
        async for _ in graph.astream({"question": INC["question"]},
                                     {"configurable": {"thread_id": "t-labels"}, "callbacks": [labels]},
                                     context=ctx):
            pass

    asyncio.run(scenario())
    root = labels.seen[0]
    assert root[1] == "diagnosis" and "diagnosis-harness" in root[2]
    assert root[3]["harness_run_id"] == ctx.run_id and root[3]["harness_thread_id"] == "t-labels"
    assert all(m["harness_run_id"] == ctx.run_id for _, _, _, m in labels.seen)
    models = [(name, tags, meta) for kind, name, tags, meta in labels.seen if kind == "model"]
    assert [name for name, _, _ in models] == ["router", "agent", "agent", "agent", "judge"]
    assert all(meta["intent"] == "DIAGNOSIS" and "intent:DIAGNOSIS" in tags for name, tags, meta in models
               if name != "router")
    publish = [(tags, meta) for kind, name, tags, meta in labels.seen if name == "publish"]
    assert len(publish) == 1
    assert "outcome:SUCCESS" in publish[0][0] and publish[0][1]["outcome"] == "SUCCESS"
