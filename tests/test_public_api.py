"""The public Python API, used exactly as a user's test would: nothing but ``diagnosis_harness``.

This module imports only ``diagnosis_harness`` (its ``__all__``), the standard library, pytest
and langgraph — :func:`test_this_module_imports_only_the_public_api` reads its own source to
keep it so. Every run is on the demo dataset's INC-1 (pool exhaustion on payment-service after
CHG-2041) with scripted model answers, and checks what the CLI would report for the same script.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

import diagnosis_harness
from diagnosis_harness import (
    ConfigurationError,
    DiagnosisResult,
    ReplayScript,
    ScriptIncomplete,
    assert_event_grammar,
    assert_outcome,
    build_graph,
    diagnose,
    make_context,
)

Q = "payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on 2026-11-02 — why?"
SCOPE = {"service": "payment-service", "merchant": "M1001", "start": "2026-11-02T10:00:00+00:00",
         "end": "2026-11-02T10:10:00+00:00"}
LOGS = {"service": "payment-service", "start": "2026-11-02T09:50:00+00:00",
        "end": "2026-11-02T10:10:00+00:00", "pattern": "config reloaded"}
CHANGES = {"sql": "SELECT change_id, config_key, old_value, new_value, changed_at FROM config_changes "
                  "WHERE service = 'payment-service' AND changed_at BETWEEN '2026-11-02T09:00:00Z' "
                  "AND '2026-11-02T10:10:00Z'"}
ROOT_CAUSE = "payment-db pool exhausted after CHG-2041 lowered db.pool.max_size from 50 to 10"
CLAIMS = {"config reloaded with db.pool.max_size=10 (was 50)": ["E1.2"],
          "CHG-2041 changed db.pool.max_size from 50 to 10": ["E2.1"]}
USAGE = {"input_tokens": 100, "output_tokens": 20}
IDS = ("run_id", "thread_id")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One harness home for the module: the demo dataset is indexed once, runs stay apart."""
    return tmp_path_factory.mktemp("harness-home")


def investigation() -> ReplayScript:
    """Router and agent of INC-1 up to the draft: E1.x from the logs, E2.1 the config change."""
    return ReplayScript(usage=USAGE).route(**SCOPE).call("query_logs", LOGS).call("query_mysql",
                                                                                  CHANGES)


def success() -> ReplayScript:
    return investigation().draft(ROOT_CAUSE, CLAIMS, next_steps=["restore the pool size"]).judge()


def outcome_view(result: dict[str, Any]) -> dict[str, Any]:
    """A run's ``--json`` object without what differs between two runs (ids, and the same in
    the metadata event)."""
    view = {k: v for k, v in result.items() if k not in IDS}
    view["events"] = [{k: v for k, v in e.items() if k not in IDS} for e in result["events"]]
    return view


# --- the module's own imports ---------------------------------------------------------------


def test_this_module_imports_only_the_public_api() -> None:
    allowed = {"diagnosis_harness", "pytest", "langgraph", "__future__"} | sys.stdlib_module_names
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names
                    if a.name.split(".")[0] not in allowed or a.name.startswith("diagnosis_harness.")]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] not in allowed or module.startswith("diagnosis_harness."):
                bad.append(module)
            elif module == "diagnosis_harness":
                bad += [a.name for a in node.names if a.name not in diagnosis_harness.__all__]
    assert bad == []


def test_the_api_is_its_all_and_every_name_is_documented() -> None:
    namespace: dict[str, Any] = {}
    exec("from diagnosis_harness import *", namespace)  # noqa: S102 — what a user's star import gets
    assert sorted(set(namespace) - {"__builtins__"}) == sorted(diagnosis_harness.__all__)
    undocumented = [name for name in diagnosis_harness.__all__
                    if not (getattr(getattr(diagnosis_harness, name), "__doc__", None) or "").strip()]
    assert undocumented == []


# --- diagnose(): the four rows a user's regression suite needs -------------------------------


def test_a_scripted_run_publishes_the_verified_diagnosis(home: Path) -> None:
    result = diagnose(Q, model=success(), home=home)
    assert_outcome(result, "SUCCESS", run_state="SUCCESS", fallback_type=None, failure_code=None)
    assert result.root_cause == ROOT_CAUSE
    assert [(c.statement, c.evidence_ids) for c in result.claims] == \
        [(s, tuple(ids)) for s, ids in CLAIMS.items()]
    [[reload], [change]] = [c.evidence for c in result.claims]
    assert (reload.evidence_id, reload.tool) == ("E1.2", "query_logs")
    assert "db.pool.max_size=10 (was 50)" in reload.text
    assert (change.evidence_id, change.tool) == ("E2.1", "query_mysql")
    assert 'change_id="CHG-2041"' in change.text
    assert f"E1.2: {reload.text}" in (result.content or "")  # the report shows the stored text
    assert result.next_steps == ("restore the pool size",)
    assert result.fallback is None and result.previous_turn is None
    assert result.scope is not None and result.scope["merchant"] == "M1001"
    assert result.replay_consumed == {"router": 1, "agent": 3, "judge": 1}
    assert result.usage.model_calls == 5 and result.usage.tool_calls == 2
    assert result.usage.input_tokens == 500 and result.usage.output_tokens == 100
    assert result.phases[-2:] == ["checking evidence", "judging"]
    row = result.stored_run()
    assert row is not None and row["status"] == "SUCCESS" and row["question"] == Q
    with pytest.raises(ValueError, match="frozen"):
        result.root_cause = "something else"  # type: ignore[misc]


def test_a_run_whose_collection_closed_passes_the_outcome_check(home: Path) -> None:
    # The tool budget closes collection after two calls: the agent's next turn is its final
    # draft turn, a status of its own. assert_outcome refused that phase as unknown, so every
    # user suite that checked such a run (the offline investigator's saturated runs too) failed.
    result = diagnose(Q, model=success(), home=home, settings={"max_tool_calls": 2})
    assert "writing the draft" in result.phases
    assert_outcome(result, "SUCCESS", run_state="SUCCESS")
    assert result.root_cause == ROOT_CAUSE


def test_a_null_conclusion_falls_back_to_what_the_run_verified(home: Path) -> None:
    script = investigation().call("query_logs", {**LOGS, "start": "2020-01-01T00:00:00+00:00",
                                                 "end": "2020-01-01T00:10:00+00:00"})
    result = diagnose(Q, model=script.draft(None, next_steps=["check the pool"]), home=home)
    assert_outcome(result, "FALLBACK", run_state="SUCCESS",
                   fallback_type="INSUFFICIENT_EVIDENCE")
    assert result.root_cause is None and result.claims == ()
    fallback = result.fallback
    assert fallback is not None and fallback.fallback_type == "INSUFFICIENT_EVIDENCE"
    assert [(c.tool, c.status) for c in fallback.checked] == [
        ("query_logs", "EVIDENCE_FOUND"), ("query_mysql", "EVIDENCE_FOUND"),
        ("query_logs", "NO_EVIDENCE")]
    assert [c.scope["start"] for c in fallback.empty_scopes] == ["2020-01-01T00:00:00Z"]
    facts = {f.evidence_id: f for f in fallback.facts}
    assert {"E1.1", "E1.2", "E2.1"} <= set(facts)
    assert "CHG-2041" in facts["E2.1"].text
    for fact in fallback.facts:  # the published fallback lists exactly these, verbatim
        assert f"[{fact.evidence_id}] {fact.text}" in (result.content or "")
    assert result.replay_consumed == {"router": 1, "agent": 4}  # no judge for a null conclusion


@pytest.mark.parametrize(("script", "failure_code", "says"), [
    (ReplayScript().fail("router", "timeout").fail("router", "timeout"), "ROUTING_UNAVAILABLE",
     "TIMEOUT"),
    (ReplayScript().route(**SCOPE).fail("agent", "timeout"), "INTERNAL_FAILURE", "TIMEOUT"),
], ids=["router", "agent"])
def test_an_injected_timeout_fails_the_run_without_content(
        home: Path, script: ReplayScript, failure_code: str, says: str) -> None:
    result = diagnose(Q, model=script, home=home)
    assert_outcome(result, "FAILED", run_state="FAILED", failure_code=failure_code)
    assert result.content is None and result.root_cause is None and result.fallback is None
    assert says in (result.failure_message or "")
    assert result.event_kinds[-2:] == ["failure", "done"]


def test_a_thread_carries_only_a_verified_diagnosis_into_its_next_turn(home: Path) -> None:
    first = diagnose(Q, model=success(), home=home, thread="incident-42")
    follow_up = ReplayScript().route(**SCOPE).draft(None)
    second = diagnose("is it still happening?", model=follow_up, home=home,
                      thread="incident-42")
    assert (first.thread_id, second.thread_id) == ("incident-42", "incident-42")
    assert second.run_id != first.run_id
    assert second.previous_turn is not None and ROOT_CAUSE in second.previous_turn
    assert_outcome(second, "FALLBACK", fallback_type="INSUFFICIENT_EVIDENCE")
    other = diagnose("is it still happening?", model=follow_up, home=home, thread="other")
    assert other.previous_turn is None


def test_an_incomplete_script_names_the_role_and_call(home: Path) -> None:
    with pytest.raises(ScriptIncomplete) as raised:
        diagnose(Q, model=investigation(), home=home)  # no draft after the second call
    error = raised.value
    assert (error.role, error.call, error.scripted) == ("agent", 3, 2)
    assert "agent call #3" in str(error) and "2 agent answer(s)" in str(error)
    # The run itself still ended explainably, and its failure says why.
    assert_outcome(error.result, "FAILED", failure_code="INTERNAL_FAILURE")
    assert "agent call #3" in (error.result.failure_message or "")


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"model": "gpt-4"}, "unknown model spec"),
    ({"settings": {"max_tool_calls": 0}}, "HARNESS_MAX_TOOL_CALLS"),
    ({"model": "replay:missing.json"}, "replay file not found"),
    ({"data": "no-such-folder"}, "dataset directory not found"),
    ({"model": {"agent": [{"raise": "boom"}]}}, "agent[0]"),
])
def test_what_the_cli_rejects_as_usage_is_a_configuration_error(
        tmp_path: Path, kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigurationError, match=r".") as raised:
        diagnose(Q, home=tmp_path, **kwargs)
    assert says in str(raised.value)


def test_the_builder_writes_the_json_replay_format() -> None:
    script = (ReplayScript().route(service="s", start="2026-01-01T10:00:00+00:00")
              .call("query_logs", {"service": "s"})
              .call("lookup_knowledge", {"query": "q"}, gain="NO_GAIN", note="nothing new")
              .draft("r", [("claim", ["E1.1"])]).fail("judge", "timeout"))
    router = {"intent": "DIAGNOSIS", "service": "s", "merchant": None,
              "start": "2026-01-01T10:00:00+00:00", "end": None}
    assert script.to_dict() == {
        "router": [{"content": json.dumps(router)}],
        "agent": [
            {"content": "", "tool_calls": [{"name": "query_logs", "args": {"service": "s"},
                                            "id": "c1"}]},
            {"content": "", "tool_calls": [{"name": "lookup_knowledge", "id": "c2", "args": {
                "query": "q", "previous_observation": {"tool_call_id": "c1", "gain": "NO_GAIN",
                                                       "note": "nothing new"}}}]},
            {"content": json.dumps({"conclusion": {"root_cause": "r", "claims": [
                {"statement": "claim", "evidence_ids": ["E1.1"]}]}, "next_steps": []})}],
        "judge": [{"raise": "timeout"}],
        "repair": []}
    assert ReplayScript.from_dict(script.to_dict()).to_dict() == script.to_dict()


def test_a_bad_script_entry_is_refused_where_it_is_written() -> None:
    script = ReplayScript().route(**SCOPE)
    with pytest.raises(ValueError, match=r"router\[1\]"):
        script.raw("router", {"content": "{}", "extra": 1})
    assert script.count("router") == 1  # the refused entry was not added


META = {"event": "metadata", "run_id": "r", "thread_id": "t", "model": "offline"}
ROUTING = {"event": "status", "phase": "routing"}
CONTENT = {"event": "content", "release_outcome": "SUCCESS", "fallback_type": None, "text": "x"}
FAILURE = {"event": "failure", "failure_code": "INTERNAL_FAILURE", "message": "m"}
DONE = {"event": "done", "release_outcome": "SUCCESS", "run_state": "SUCCESS"}


@pytest.mark.parametrize(("events", "says"), [
    ([], "the first event must be metadata"),
    ([ROUTING, META], "the first event must be metadata"),
    ([META, META, ROUTING], "event #2 (metadata) out of order"),
    ([META, CONTENT, FAILURE, DONE], "event #3 (failure) out of order"),
    ([META, CONTENT, DONE, ROUTING], "event #4 (status) out of order"),
    ([META, ROUTING, DONE], "done without a content or failure"),
    ([META, {"event": "status", "phase": "thinking"}], "unknown status phase 'thinking'"),
])
def test_the_event_grammar_helper_names_what_is_wrong(events: list[dict[str, Any]],
                                                      says: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(says)):
        assert_event_grammar(events)


def test_the_event_grammar_helper_accepts_a_finished_and_a_cancelled_stream() -> None:
    assert_event_grammar([META, ROUTING, ROUTING, CONTENT, DONE])
    assert_event_grammar([META, ROUTING, FAILURE, DONE])
    assert_event_grammar([META, ROUTING])  # cancelled: nothing after the last status


# --- the LangGraph-native path ----------------------------------------------------------------


async def _native(graph: Any, mode: str, question: str, *, thread: str, home: Path,
                  script: ReplayScript) -> tuple[DiagnosisResult, list[dict[str, Any]]]:
    """One run through the graph itself, as a LangGraph user drives it."""
    ctx = make_context(model=script, home=home, thread=thread)
    config = {"configurable": {"thread_id": ctx.thread_id}}
    streamed: list[dict[str, Any]] = []
    if mode == "ainvoke":
        output = await graph.ainvoke({"question": question}, config, context=ctx)
        assert output["run_id"] == ctx.run_id and output["events"] == ctx.emitter.events
        state = (await graph.aget_state(config)).values
    else:
        async for kind, chunk in graph.astream({"question": question}, config, context=ctx,
                                               stream_mode=["custom", "values"]):
            if kind == "custom":
                streamed.append(chunk)
            else:
                state = chunk
    return DiagnosisResult.from_state(state, ctx), streamed


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
@pytest.mark.parametrize("saver", ["InMemorySaver", "AsyncSqliteSaver"])
def test_the_graph_itself_gives_the_outcome_of_diagnose(tmp_path: Path, home: Path, mode: str,
                                                         saver: str) -> None:
    expected = outcome_view(diagnose(Q, model=success(), home=home).to_json())

    async def two_turns(checkpointer: Any) -> list[tuple[DiagnosisResult, list[Any]]]:
        graph = build_graph(checkpointer)
        first = await _native(graph, mode, Q, thread="t1", home=home, script=success())
        second = await _native(graph, mode, "and now?", thread="t1", home=home,
                               script=ReplayScript().route(**SCOPE).draft(None))
        return [first, second]

    async def main() -> list[tuple[DiagnosisResult, list[Any]]]:
        if saver == "InMemorySaver":
            return await two_turns(InMemorySaver())
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "checkpoints.db")) as sqlite:
            return await two_turns(sqlite)

    (first, streamed), (second, _) = asyncio.run(main())
    assert outcome_view(first.to_json()) == expected
    assert_outcome(first, "SUCCESS")
    assert first.root_cause == ROOT_CAUSE and [c.evidence_ids for c in first.claims] == \
        [("E1.2",), ("E2.1",)]
    if mode == "astream":
        assert streamed == list(first.events)  # the custom stream is the event stream
    # The checkpointer you chose keeps the thread: the next turn sees the verified diagnosis.
    assert second.previous_turn is not None and ROOT_CAUSE in second.previous_turn
    assert_outcome(second, "FALLBACK", fallback_type="INSUFFICIENT_EVIDENCE")


# --- the same script through the CLI ----------------------------------------------------------


@pytest.mark.parametrize(("script", "exit_code"), [
    (success(), 0),
    (ReplayScript().route(**SCOPE).call("query_logs", LOGS).fail("agent", "timeout"), 0),
    (ReplayScript().route(**SCOPE).fail("agent", "timeout"), 2),
], ids=["success", "fallback-after-timeout", "failed-timeout"])
def test_diagnose_and_the_cli_agree_on_the_same_script(tmp_path: Path, home: Path,
                                                       script: ReplayScript, exit_code: int) -> None:
    path = script.write(tmp_path / "script.json")
    assert json.loads(path.read_text(encoding="utf-8")) == script.to_dict()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "harness"), "diagnose", Q, "--model", f"replay:{path}",
         "--json"], env={**env, "HARNESS_HOME": str(home)}, cwd=tmp_path,
        capture_output=True, text=True, timeout=120)
    assert cli.returncode == exit_code, cli.stderr
    from_cli = json.loads(cli.stdout)
    from_file = diagnose(Q, model=f"replay:{path}", home=home).to_json()
    inline = diagnose(Q, model=script, home=home).to_json()
    assert list(from_file) == list(from_cli)  # the same keys, in the same order
    assert outcome_view(from_file) == outcome_view(from_cli)
    assert outcome_view(inline) == {**outcome_view(from_cli), "model": "replay:inline",
                                    "events": [{**e, "model": "replay:inline"} if
                                               e["event"] == "metadata" else e
                                               for e in outcome_view(from_cli)["events"]]}
