"""Schema-constrained answers over HTTP (``HARNESS_STRUCTURED_OUTPUT``), against the stub server.

What each mode sends for each role, exactly; how ``auto`` finds what a server accepts; and that
a constrained answer which still breaks the contract ends exactly as it did unconstrained.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from graphkit import INC, judge, ready_facts, router
from langgraph.checkpoint.memory import InMemorySaver
from stub_openai import StubOpenAI

from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.providers import structured
from diagnosis_harness.providers.seam import ModelSeam
from diagnosis_harness.runstore.store import RunStore
from diagnosis_harness.session.runner import Services, run_turn
from diagnosis_harness.tools.sql_safety import SqlRejected, validate_select

LOGS = {"service": INC["service"], "start": INC["start"], "end": INC["end"]}
SQL = {"sql": INC["evidence"][1]["args"]["sql"]}
NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}
ROUTER_SCHEMA = {
    "type": "object",
    "properties": {"intent": {"enum": ["DIAGNOSIS", "GENERAL"], "type": "string"},
                   "service": NULLABLE, "merchant": NULLABLE, "start": NULLABLE, "end": NULLABLE},
    "required": ["intent", "service", "merchant", "start", "end"],
    "additionalProperties": False}
VERDICT = {"enum": ["SUPPORTED", "UNSUPPORTED"], "type": "string"}
JUDGE_SCHEMA = {
    "type": "object",
    # The verdict first (a grammar writes keys in this order): asked for reasons first, the
    # 1.5B judge rationalised its way to SUPPORTED for wrong drafts.
    # Then a verdict per claim and on the root cause (docs/design.md §10), nullable: an answer
    # without them is the whole-draft form.
    "properties": {"verdict": VERDICT,
                   "claims": {"anyOf": [{"items": {
                       "type": "object",
                       "properties": {"index": {"minimum": 0, "type": "integer"},
                                      "verdict": VERDICT, "reason": {"type": "string"}},
                       "required": ["index", "verdict", "reason"],
                       "additionalProperties": False}, "type": "array"}, {"type": "null"}]},
                   "root_cause": {"anyOf": [{
                       "type": "object",
                       "properties": {"verdict": VERDICT, "reason": {"type": "string"}},
                       "required": ["verdict", "reason"], "additionalProperties": False},
                       {"type": "null"}]},
                   "reasons": {"items": {"type": "string"}, "type": "array"}},
    "required": ["verdict", "claims", "root_cause", "reasons"], "additionalProperties": False}
CLAIM = {"type": "object",
         "properties": {"statement": {"type": "string"},
                        "evidence_ids": {"items": {"type": "string"}, "minItems": 1,
                                         "type": "array"}},
         "required": ["statement", "evidence_ids"], "additionalProperties": False}
DRAFT_SCHEMA = {
    "type": "object",
    "properties": {
        "conclusion": {"anyOf": [
            {"type": "object",
             "properties": {"root_cause": {"type": "string"},
                            "claims": {"items": CLAIM, "minItems": 1, "type": "array"}},
             "required": ["root_cause", "claims"], "additionalProperties": False},
            {"type": "null"}]},
        "next_steps": {"items": {"type": "string"}, "type": "array"}},
    "required": ["conclusion", "next_steps"], "additionalProperties": False}

STATISTICS = ["compare_windows", "metric_shifts", "onset_timeline", "recent_changes"]
"""The statistics tools (docs/design.md §16.1), bound like every other tool."""


STATEMENT = {"type": "string", "pattern": r"^[ !#-;=-\[\]-~][ !#-\[\]-~]{0,299}$"}
"""A root cause or claim statement under a grammar: ≤ 300 printable ASCII characters, not
opening with '<' (an example's placeholder)."""


def grammar_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """What a grammar-decoding server is sent: strings ≤ 300 characters, arrays ≤ 5 items."""
    if "anyOf" in schema:
        return {"anyOf": [grammar_bounds(s) for s in schema["anyOf"]]}
    if schema.get("type") == "object":
        return {**schema, "properties": {
            k: STATEMENT if k in ("statement", "root_cause") and v.get("type") == "string"
            else grammar_bounds(v)
            for k, v in schema["properties"].items()}}
    if schema.get("type") == "array":
        return {**schema, "items": grammar_bounds(schema["items"]), "maxItems": 5}
    if schema.get("type") == "string" and "enum" not in schema:
        return {**schema, "maxLength": 300}
    return schema


def expected_format(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The response_format of the issue, spelled out (not computed by the code under test)."""
    if mode == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": grammar_bounds(schema)}
    return {"type": "json_object"}


def test_a_grammar_bounds_strings_and_arrays() -> None:
    bounded = expected_format("json_object_schema", "router_answer", ROUTER_SCHEMA)["schema"]
    assert bounded["properties"]["service"] == {"anyOf": [{"type": "string", "maxLength": 300},
                                                          {"type": "null"}]}
    assert bounded["properties"]["intent"] == ROUTER_SCHEMA["properties"]["intent"]  # an enum


def envelope(tool: str | None, args: dict[str, Any] | None = None, prev: str | None = None,
             draft: dict[str, Any] | None = None, gain: str = "GAINED") -> dict[str, Any]:
    if tool is None:
        return {"content": json.dumps({"type": "final", "draft": draft})}
    a = dict(args or {})
    if prev:
        a["previous_observation"] = {"tool_call_id": prev, "gain": gain, "note": "n"}
    return {"content": json.dumps({"type": "tool_call", "tool": tool, "args": a})}


CONCLUSION = {"root_cause": "pool exhausted after CHG-2041",
              "claims": [{"statement": "CHG-2041 lowered the pool size",
                          "evidence_ids": ["E2.1", "E9.9"]}]}
REPAIRED = {"conclusion": {"root_cause": "pool exhausted after CHG-2041",
                           "claims": [{"statement": "CHG-2041 lowered the pool size",
                                       "evidence_ids": ["E2.1"]}]}, "next_steps": ["x"]}
FULL_RUN = [router(merchant="M1001", start=INC["start"], end=INC["end"]),
            envelope("query_logs", LOGS), envelope("query_mysql", SQL, prev="call_1"),
            envelope(None, draft={"conclusion": CONCLUSION, "next_steps": ["x"]}),
            {"content": json.dumps(REPAIRED)}, judge()]
"""Router, three agent turns (logs, SQL, a draft citing an unknown id), repair, judge."""
ROLES = ["router", "agent", "agent", "agent", "repair", "judge"]


def serve(tmp_path: Path, answers: list[dict[str, Any]], *, refuse: dict[str, int] | None = None,
          **overrides: Any) -> tuple[StubOpenAI, Services]:
    stub = StubOpenAI([{"content": a["content"]} for a in answers], refuse=refuse)
    stub.__enter__()
    settings = load_settings(model="openai:local", home=tmp_path / "h", OPENAI_API_KEY="k",
                             OPENAI_BASE_URL=stub.base_url,
                             **{"agent_protocol": "json", **overrides})
    seam = ModelSeam(settings)
    return stub, Services.from_settings(settings, seam=seam,
                                        store=RunStore(tmp_path / "runs.sqlite"))


def served_run(tmp_path: Path, answers: list[dict[str, Any]], **overrides: Any
               ) -> tuple[StubOpenAI, Services, dict[str, Any]]:
    """One diagnosis against a stub serving ``answers``; the stub is stopped afterwards."""
    stub, services = serve(tmp_path, answers, **overrides)
    try:
        return stub, services, diagnose(services)
    finally:
        stub.__exit__()


def diagnose(services: Services) -> dict[str, Any]:
    import asyncio

    return asyncio.run(run_turn(services, INC["question"], checkpointer=InMemorySaver()))


def answered(stub: StubOpenAI) -> list[dict[str, Any]]:
    """The bodies of the run's requests (the probe's one-token requests left out)."""
    return [r["body"] for r in stub.requests if r["body"].get("max_tokens") != 1]


def agent_variants(body: dict[str, Any], mode: str) -> dict[str, dict[str, Any]]:
    """The envelope schema's variants of one agent request, by tool name (``final``)."""
    rf = body["response_format"]
    schema = rf["json_schema"]["schema"] if mode == "json_schema" else rf["schema"]
    variants = schema.get("anyOf", [schema])
    out = {}
    for v in variants:
        kind = v["properties"]["type"]["enum"][0]
        out[v["properties"]["tool"]["enum"][0] if kind == "tool_call" else "final"] = v
    return out


@pytest.mark.parametrize("mode", ["json_schema", "json_object_schema", "off"])
def test_each_role_sends_its_schema_in_the_configured_mode(tmp_path: Path, mode: str) -> None:
    stub, services, out = served_run(tmp_path, FULL_RUN, structured_output=mode)
    assert out["release_outcome"] == "SUCCESS"  # the repair dropped the unknown id E9.9
    bodies = answered(stub)
    assert len(bodies) == len(ROLES)
    sent = dict(zip(["router", "a1", "a2", "a3", "repair", "judge"], bodies, strict=True))
    assert sent["router"]["response_format"] == expected_format(mode, "router_answer",
                                                                 ROUTER_SCHEMA)
    assert sent["repair"]["response_format"] == expected_format(mode, "repair_answer",
                                                                 DRAFT_SCHEMA)
    assert sent["judge"]["response_format"] == expected_format(mode, "judge_answer", JUDGE_SCHEMA)
    if mode == "off":
        for key in ("a1", "a2", "a3"):
            assert sent[key]["response_format"] == {"type": "json_object"}
        return
    for key in ("a1", "a2", "a3"):
        rf = sent[key]["response_format"]
        assert rf["type"] == ("json_schema" if mode == "json_schema" else "json_object")
        if mode == "json_schema":
            assert (rf["json_schema"]["name"], rf["json_schema"]["strict"]) == (
                "agent_envelope", True)
    first, second, third = (agent_variants(sent[k], mode) for k in ("a1", "a2", "a3"))
    # The tool name is an enum, one variant per bound tool, each with that tool's arguments.
    assert sorted(first) == sorted(["final", *STATISTICS, "lookup_knowledge", "query_logs",
                                    "query_mysql"])
    logs_args = first["query_logs"]["properties"]["args"]
    # Strict json_schema needs every key (optional ones nullable); a grammar lets them be left
    # out, and leaves out an optional bounded number it could not bound (limit is 1..200).
    if mode == "json_schema":
        # (``attrs``: the dataset's attribute filters, offered when its logs carry attributes)
        assert logs_args["required"] == ["service", "start", "end", "pattern", "level", "limit",
                                         "offset", "attrs"]
        assert logs_args["properties"]["limit"] == {"anyOf": [
            {"maximum": 200, "minimum": 1, "type": "integer"}, {"type": "null"}]}
    else:
        assert logs_args["required"] == ["start", "end"]  # service is optional: every service
        assert sorted(set(logs_args["properties"]) - {"attrs"}) == [
            "end", "level", "pattern", "service", "start"]
        # The lean tool spec states no length (the tool checks it): the grammar's bound applies.
        assert logs_args["properties"]["service"] == {"type": "string", "maxLength": 300}
    # No result seen yet: no progress envelope, and a conclusion can only be null.
    assert "previous_observation" not in logs_args["properties"]
    assert first["final"]["properties"]["draft"]["properties"]["conclusion"] == {"type": "null"}
    # After call_1 the progress envelope is required and names call_1, and only call_1.
    # A grammar writes keys in schema order: the progress envelope comes first in the args and
    # its note (not empty) before the gain, so the model says what it saw before it judges it.
    mysql_args = second["query_mysql"]["properties"]["args"]
    assert list(mysql_args["properties"])[0] == mysql_args["required"][0] == "previous_observation"
    progress = mysql_args["properties"]["previous_observation"]
    assert progress == {"type": "object", "properties": {
        "tool_call_id": {"type": "string", "enum": ["call_1"]},
        "note": {"type": "string"} if mode == "json_schema" else {"type": "string",
                                                                    "minLength": 3,
                                                                    "maxLength": 120},
        "gain": {"type": "string", "enum": ["GAINED", "NO_GAIN"]}},
        "required": ["tool_call_id", "note", "gain"], "additionalProperties": False}
    assert list(progress["properties"]) == ["tool_call_id", "note", "gain"]
    assert third["lookup_knowledge"]["properties"]["args"]["properties"][
        "previous_observation"]["properties"]["tool_call_id"]["enum"] == ["call_2"]
    # The draft may cite only ids the model was shown: every fact of the two results here.
    conclusion = third["final"]["properties"]["draft"]["properties"]["conclusion"]["anyOf"][0]
    claim = conclusion["properties"]["claims"]["items"]
    facts = ready_facts(services.store.trace(out["run_id"]))
    assert claim["properties"]["evidence_ids"]["items"]["enum"] == list(facts)
    assert "E2.1" in facts and "E9.9" not in facts
    # Evidence first: cited ids before a claim's statement, the claims before the root cause.
    assert conclusion["required"] == ["claims", "root_cause"] == list(conclusion["properties"])
    assert claim["required"] == ["evidence_ids", "statement"] == list(claim["properties"])


def test_a_tool_repeated_verbatim_is_left_out_of_the_next_turns_schema(tmp_path: Path) -> None:
    # A small model answered "not executed" repeats the same call until the run saturates: the
    # turn after a DUPLICATE_SCOPE offers the tools not used yet and the draft, for that turn.
    answers = [router(merchant="M1001", start=INC["start"], end=INC["end"]),
               # (NO_GAIN: a call claimed GAINED and repeated at once saturates collection)
               envelope("query_logs", LOGS),
               envelope("query_logs", LOGS, prev="call_1", gain="NO_GAIN"),
               envelope("query_mysql", SQL, prev="call_2"),
               envelope(None, draft={"conclusion": None, "next_steps": ["x"]})]
    stub, services, out = served_run(tmp_path, answers, structured_output="json_object_schema")
    assert out["release_outcome"] == "FALLBACK"
    a1, a2, a3, a4 = (agent_variants(b, "json_object_schema") for b in answered(stub)[1:5])
    everything = sorted(["final", *STATISTICS, "lookup_knowledge", "query_logs", "query_mysql"])
    assert sorted(a1) == sorted(a2) == sorted(a4) == everything
    assert sorted(a3) == [t for t in everything if t != "query_logs"]  # after the repeat
    trace = services.store.trace(out["run_id"])
    # The gate still judged the repeat itself: not executed, nothing recorded for it.
    assert [r["tool"] for r in trace["tool_records"]] == ["query_logs", "query_mysql"]


def test_an_sql_argument_under_a_grammar_is_one_statement(tmp_path: Path) -> None:
    # A small model chains "…; SELECT …" and the SQL guard rejects the whole call: under a
    # grammar the sql string cannot hold a ';' (nor a quote or backslash JSON would escape).
    stub, services, out = served_run(tmp_path, FULL_RUN, structured_output="json_object_schema")
    assert out["release_outcome"] == "SUCCESS"
    second = agent_variants(answered(stub)[2], "json_object_schema")
    sql = second["query_mysql"]["properties"]["args"]["properties"]["sql"]
    one = re.compile(sql["pattern"])
    assert one.fullmatch(SQL["sql"])  # the demo's real query is admitted
    assert not one.fullmatch("SELECT 1 FROM deploys; SELECT 2 FROM config_changes")
    assert one.fullmatch("SELECT 1 FROM deploys LIMIT 10;")  # a statement may end with one
    assert not one.fullmatch("SELECT '摘要'") and not one.fullmatch("x" * 301)
    # The guard itself is unchanged: a ';' chain that reaches the tool is still rejected.
    with pytest.raises(SqlRejected, match="exactly one statement"):
        validate_select("SELECT 1 FROM deploys; SELECT 2 FROM deploys", ["deploys"])


def test_a_statement_under_a_grammar_cannot_be_an_examples_placeholder(tmp_path: Path) -> None:
    # The 1.5B model copied "<one sentence that follows from the claims>" as its root cause and
    # its judge called it SUPPORTED: under a grammar a statement cannot open with '<', and the
    # contract refuses a bare placeholder from any model (row 11: FALLBACK, not a publication).
    stub, services, out = served_run(tmp_path, FULL_RUN, structured_output="json_object_schema")
    final = agent_variants(answered(stub)[3], "json_object_schema")["final"]
    conclusion = final["properties"]["draft"]["properties"]["conclusion"]["anyOf"][0]
    for text in (conclusion["properties"]["root_cause"],
                 conclusion["properties"]["claims"]["items"]["properties"]["statement"]):
        pattern = re.compile(text["pattern"])
        assert pattern.fullmatch("pool exhausted after <n> ms: CHG-2041 set max_size 10")
        assert not pattern.fullmatch("<one sentence>") and not pattern.fullmatch("x" * 301)
    placeholder = json.dumps({"type": "final", "draft": {"conclusion": {
        "claims": [{"evidence_ids": ["E1.2"], "statement": "<what that item shows>"}],
        "root_cause": "<one sentence that follows from the claims>"}, "next_steps": []}})
    answers = [*FULL_RUN[:-3], {"content": placeholder}]
    stub, services, out = served_run(tmp_path / "placeholder", answers,
                                     structured_output="json_object_schema")
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "INSUFFICIENT_EVIDENCE")
    assert "<one sentence" not in out["content"] and "[E1.2]" in out["content"]
    assert not any(c["role"] == "judge" for c in services.store.trace(out["run_id"])["model_calls"])


def test_under_native_tools_only_router_judge_and_repair_get_schemas(tmp_path: Path) -> None:
    answers = [FULL_RUN[0],
               {"content": ""},  # replaced below: native tool calls
               {"content": json.dumps({"conclusion": None, "next_steps": ["x"]})}]
    stub = StubOpenAI([{"content": answers[0]["content"]},
                       {"content": "", "tool_calls": [{"name": "query_logs", "args": LOGS}]},
                       answers[2]])
    with stub:
        settings = load_settings(model="openai:local", home=tmp_path / "h", OPENAI_API_KEY="k",
                                 OPENAI_BASE_URL=stub.base_url, structured_output="json_schema")
        services = Services.from_settings(settings, seam=ModelSeam(settings),
                                          store=RunStore(tmp_path / "runs.sqlite"))
        out = diagnose(services)
    assert out["release_outcome"] == "FALLBACK"
    router_body, *agent_bodies = [r["body"] for r in stub.requests]
    assert router_body["response_format"] == expected_format("json_schema", "router_answer",
                                                             ROUTER_SCHEMA)
    for body in agent_bodies:
        assert "response_format" not in body and body["tools"]
    assert ModelSeam(settings).response_format(Role.JUDGE) == expected_format(
        "json_schema", "judge_answer", JUDGE_SCHEMA)
    assert ModelSeam(settings).response_format(Role.REPAIR) == expected_format(
        "json_schema", "repair_answer", DRAFT_SCHEMA)


PROBE = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
         "additionalProperties": False}


@pytest.mark.parametrize(("refuse", "mode", "tried"), [
    ({}, "json_schema", ["json_schema"]),
    ({"json_schema": 500}, "json_object_schema", ["json_schema", "json_object_schema"]),
    ({"json_schema": 400}, "json_object_schema", ["json_schema", "json_object_schema"]),
    ({"json_schema": 500, "json_object_schema": 500}, "json_object",
     ["json_schema", "json_object_schema", "json_object"]),
    ({"json_schema": 400, "json_object_schema": 422, "json_object": 400}, "none",
     ["json_schema", "json_object_schema", "json_object"]),
    ({"json_schema": 404}, "json_object", ["json_schema"]),  # inconclusive: plain JSON mode
])
def test_auto_detects_once_what_the_server_accepts(tmp_path: Path, refuse: dict[str, int],
                                                   mode: str, tried: list[str]) -> None:
    stub, services = serve(tmp_path, FULL_RUN, refuse=refuse, structured_output="auto")
    try:
        seam = services.seam
        assert seam.structured is not None and seam.structured.mode == mode
        probes = [r["body"] for r in stub.requests]
        assert [b["response_format"] for b in probes] == [
            expected_format(m, "probe", PROBE) for m in tried]
        assert all(b["max_tokens"] == 1 for b in probes)
        # Once per process: another seam (another CLI turn, a test) asks nothing more.
        ModelSeam(services.settings)
        assert len(stub.requests) == len(tried)
        assert structured.describe(services.settings, "local").startswith(mode)
        # The run then sends what was detected (the router's request comes next).
        diagnose(services)
        router_body = stub.requests[len(tried)]["body"]
        expected = None if mode == "none" else expected_format(mode, "router_answer",
                                                               ROUTER_SCHEMA)
        assert router_body.get("response_format") == expected
    finally:
        stub.__exit__()


def test_harness_config_reports_the_structured_output_mode(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from diagnosis_harness.cli.main import app

    with StubOpenAI([{"content": "{}"}], refuse={"json_schema": 500}) as stub:
        for key, value in {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "k",
                           "HARNESS_MODEL": "openai:cfg", "HARNESS_STRUCTURED_OUTPUT": "auto"
                           }.items():
            monkeypatch.setenv(key, value)
        shown = json.loads(CliRunner().invoke(app, ["config"]).stdout)
        assert shown["structured_output"] == "auto"
        assert shown["structured_output_detected"] == (
            "json_object_schema (detected (json_schema refused: HTTP 500))")
        monkeypatch.setenv("HARNESS_STRUCTURED_OUTPUT", "json_schema")
        shown = json.loads(CliRunner().invoke(app, ["config"]).stdout)
        assert shown["structured_output_detected"] == "json_schema (set)"
    monkeypatch.setenv("HARNESS_MODEL", "offline")
    shown = json.loads(CliRunner().invoke(app, ["config"]).stdout)
    assert shown["structured_output_detected"].startswith("n/a")


ROUTER_OK = FULL_RUN[0]
BROKEN: dict[str, tuple[list[dict[str, Any]], tuple[Any, ...]]] = {
    # The router's answer has a key the contract does not know, twice: unusable.
    "router answer with an extra key": (
        [{"content": json.dumps({**json.loads(ROUTER_OK["content"]), "why": "x"})}] * 2,
        ("FAILED", "FAILED", None, "ROUTING_UNAVAILABLE", None)),
    # Calls after the first without the progress envelope: three violations stop collection.
    "tool calls without the progress envelope": (
        [ROUTER_OK, envelope("query_logs", LOGS), envelope("query_mysql", SQL),
         envelope("lookup_knowledge", {"query": "pool"}), envelope("query_mysql", SQL),
         envelope("query_mysql", SQL, prev="call_1")],
        ("SUCCESS", "FALLBACK", "INSUFFICIENT_EVIDENCE", None, "PROGRESS_PROTOCOL_VIOLATED")),
    # A draft citing an id that does not exist, and a repair that rewrites the root cause.
    "a draft citing an invented id": (
        [ROUTER_OK, envelope("query_logs", LOGS),
         envelope(None, draft={"conclusion": {**CONCLUSION, "claims": [
             {"statement": "pool lowered", "evidence_ids": ["E7.7"]}]}, "next_steps": []}),
         {"content": json.dumps({**REPAIRED, "conclusion": {**REPAIRED["conclusion"],
                                                            "root_cause": "something else"}})}],
        ("SUCCESS", "FALLBACK", "EVIDENCE_VALIDATION_FAILED", None, None)),
    # The judge answers a verdict the contract does not have, twice.
    "a judge verdict outside the contract": (
        [ROUTER_OK, envelope("query_logs", LOGS), envelope("query_mysql", SQL, prev="call_1"),
         envelope(None, draft=REPAIRED)] + [{"content": json.dumps(
             {"verdict": "MAYBE", "reasons": []})}] * 2,
        ("SUCCESS", "FALLBACK", "SEMANTIC_UNAVAILABLE", None, None)),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_constrained_answer_that_breaks_the_contract_ends_as_it_did_unconstrained(
        tmp_path: Path, case: str) -> None:
    answers, expected = BROKEN[case]
    seen = {}
    for mode in ("off", "json_object_schema", "json_schema"):
        stub, services, out = served_run(tmp_path / mode, answers, structured_output=mode)
        trace = services.store.trace(out["run_id"])
        seen[mode] = ((out["run_state"], out["release_outcome"], out["fallback_type"],
                       out["failure_code"], out["stop_reason"]),
                      [(r["role"], r["outcome"], r.get("failure_class")) for r in trace["receipts"]],
                      out["usage"]["model_calls"], out["usage"]["tool_calls"])
    assert seen["off"][0] == expected
    assert seen["json_object_schema"] == seen["off"] == seen["json_schema"]


def test_a_400_about_another_parameter_is_not_a_refusal_of_the_format(tmp_path: Path) -> None:
    def reasoning_model(body: dict[str, Any]) -> dict[str, Any]:  # refuses max_tokens itself
        return {"status": 400, "message": "Unsupported parameter: 'max_tokens'; use "
                                          "'max_completion_tokens' instead."}

    with StubOpenAI(responder=reasoning_model) as stub:
        settings = load_settings(model="openai:o-model", home=tmp_path / "h", OPENAI_API_KEY="k",
                                 OPENAI_BASE_URL=stub.base_url, structured_output="auto")
        found = structured.probe(settings, "o-model")
        assert len(stub.requests) == 1
    assert (found.mode, found.detail) == ("json_object",
                                          "probe inconclusive (HTTP 400); plain JSON mode")
