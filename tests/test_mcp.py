"""Evidence tools from MCP servers, end to end through the real graph.

Two real servers, started by the tests over stdio: the reference SQLite MCP server from the
package index (``mcp-server-sqlite``, whose write tools must stay blocked), and a misbehaving
FastMCP server of our own (``tests/data/mcp/misbehaving_server.py``: slow, huge, crashing,
failing, injecting) that is also served once over streamable HTTP.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from graphkit import (
    INC_ROUTER,
    call,
    consumed,
    demo_home,
    draft,
    judge,
    outcome,
    ready_facts,
    run,
    seen,
    services_for,
    tool_messages,
    without_proposal,
)

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.nodes.model import agent_tools
from diagnosis_harness.session.runner import new_context
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.mcp import load_mcp_tools
from diagnosis_harness.tools.mcp_config import McpUnavailable
from diagnosis_harness.tools.mcp_results import MAX_ITEMS, to_result

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
BAD_SERVER = Path(__file__).parent / "data" / "mcp" / "misbehaving_server.py"
TABLES = Path(__file__).resolve().parents[1] / "tools" / "demo_data" / "tables"
SQL = ("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM config_changes "
       "WHERE service = 'payment-service' AND changed_at BETWEEN '2026-11-02T09:00:00Z' "
       "AND '2026-11-02T10:10:00Z'")
ROOT_CAUSE = "payment-db pool exhausted after CHG-2041 lowered db.pool.max_size from 50 to 10"


def config(path: Path, **servers: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def sqlite_server(db: Path, **extra: Any) -> dict[str, Any]:
    """The reference SQLite server as a client config names it (its own console script)."""
    return {"command": str(BIN / "mcp-server-sqlite"), "args": ["--db-path", str(db)], **extra}


def bad_server(tag: str = "", *flags: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(BAD_SERVER), *flags, "--tag", tag or "x"],
            **extra}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def running(tag: str) -> list[int]:
    """PIDs of processes whose command line carries ``tag``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and tag.encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def stopped(tag: str) -> None:
    """Wait (up to 10 s: the SDK's stdin-close, SIGTERM, SIGKILL steps) until no process has ``tag``."""
    for _ in range(100):
        if not running(tag):
            return
        time.sleep(0.1)
    assert running(tag) == []


@pytest.fixture(scope="module")
def opsdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding INC-1's evidence: the demo's config changes and pool metrics."""
    path = tmp_path_factory.mktemp("mcp") / "ops.db"
    with sqlite3.connect(path) as db:
        for table in ("config_changes", "pool_metrics"):
            with (TABLES / f"{table}.csv").open(encoding="utf-8") as f:
                rows = list(csv.reader(f))
            db.execute(f"CREATE TABLE {table} ({', '.join(rows[0])})")
            db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows[1:])
    return path


@pytest.fixture(scope="module")
def opsdb_config(tmp_path_factory: pytest.TempPathFactory, opsdb: Path) -> Path:
    # The reference server marks none of its tools: the reads are vouched for one by one.
    return config(tmp_path_factory.mktemp("cfg") / "mcp.json", opsdb=sqlite_server(
        opsdb, allow_unmarked=["read_query", "list_tables", "describe_table"]))


BAD_TAG = f"mcp-test-{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def bad_tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The misbehaving server's read-only tools, listed once for the tests that only call them."""
    root = tmp_path_factory.mktemp("bad")
    cfg = config(root / "mcp.json", bad=bad_server(BAD_TAG, allow=[
        "incident_notes", "slow", "huge", "crash", "fail", "inject"]))
    return load_mcp_tools(Settings(_env_file=None, mcp_config=cfg, home=root / "home"))


def with_bad_tools(tools: dict[str, Any], script: dict[str, list[Any]], **settings: Any) -> Any:
    services = services_for(demo_home(), script, **settings)
    services.mcp_tools = tools  # as Services.from_settings would have listed them
    return services


def offered(services: Any) -> set[str]:
    return {s["function"]["name"] for s in agent_tools(new_context(services, thread_id=None))}


# --- the reference SQLite MCP server ----------------------------------------------------------

def test_a_diagnosis_cites_mcp_evidence_and_passes_both_guards(opsdb_config: Path) -> None:
    script = {"router": [INC_ROUTER],
              "agent": [call("mcp_opsdb_read_query", {"query": SQL}, "c1"),
                        draft(ROOT_CAUSE, [("CHG-2041 changed db.pool.max_size from 50 to 10 "
                                            "at 09:52", ["E1.1"])])],
              "judge": [judge("SUPPORTED")]}
    services = services_for(demo_home(), script, mcp_config=opsdb_config)
    assert {"mcp_opsdb_read_query", "mcp_opsdb_list_tables", "mcp_opsdb_describe_table"} <= offered(services)
    out = run(services, "payment timeouts for M1001 on payment-service 10:00-10:10 on 2026-11-02 — why?")
    assert outcome(out) == ("SUCCESS", "SUCCESS", None, None), out["content"]
    assert "[E1.1]" in out["content"] and ROOT_CAUSE in out["content"]
    # The canonical record: READY, one fact per row the server returned, numbered E1.i.
    trace = services.store.trace(out["run_id"])
    (record,) = trace["tool_records"]
    assert (record["tool"], record["invocation_status"], record["evidence_status"]) == (
        "mcp_opsdb_read_query", "READY", "EVIDENCE_FOUND")
    assert record["scope"] == {"query": SQL}
    assert [f["data"]["value"]["change_id"] for f in record["facts"]] == ["CHG-2041"]
    assert "CHG-2041" in ready_facts(trace)["E1.1"]
    # The model saw content only; the judge saw the stored fact behind the cited id.
    observation = json.loads(tool_messages(seen(services)[1])[0].content)
    assert set(observation) == {"tool", "scope", "items"}
    assert observation["items"][0]["evidence_id"] == "E1.1"
    judged = json.dumps([m.content for m in seen(services, "judge")[0]])
    assert "CHG-2041" in judged and "mcp_opsdb_read_query" in judged


def test_write_tools_are_never_offered_and_a_scripted_call_changes_nothing(
        opsdb: Path, opsdb_config: Path) -> None:
    before = digest(opsdb)
    script = {"router": [INC_ROUTER],
              "agent": [call("mcp_opsdb_write_query", {"query": "DELETE FROM config_changes"}, "c1"),
                        call("mcp_opsdb_create_table", {"query": "CREATE TABLE pwn (a)"}, "c2"),
                        call("write_query", {"query": "DROP TABLE config_changes"}, "c3"),
                        draft(None)]}
    services = services_for(demo_home(), script, mcp_config=opsdb_config)
    names = offered(services)
    assert not {n for n in names if any(w in n for w in ("write", "create", "insight"))}, names
    out = run(services, "payment timeouts for M1001 on payment-service 10:00-10:10 on 2026-11-02 — why?")
    answers = [json.loads(m.content) for m in tool_messages(seen(services)[-1])]
    assert [a["error"].split(";")[0] for a in answers] == [
        "unknown tool 'mcp_opsdb_write_query'", "unknown tool 'mcp_opsdb_create_table'",
        "unknown tool 'write_query'"]
    assert out["release_outcome"] == "FALLBACK"
    assert services.store.trace(out["run_id"])["tool_records"] == []  # nothing ran
    # Straight at the boundary too: an unknown name is an ERROR record, never a call.
    settings = Settings(_env_file=None)
    refused = execute_tool("mcp_opsdb_write_query", {"query": "DELETE FROM config_changes"},
                           tool_call_id="w", backends=services.backends, settings=settings,
                           budget=Budget(BudgetLimits.from_settings(settings)), ready_count=0,
                           extra_tools=services.mcp_tools)
    assert refused.observation["error"]["code"] == "unknown_tool"
    assert digest(opsdb) == before


def test_asking_for_an_unmarked_write_tool_by_the_read_only_list_fails_at_start(
        tmp_path: Path, opsdb: Path) -> None:
    cfg = config(tmp_path / "mcp.json", opsdb=sqlite_server(opsdb, allow=["write_query"]))
    with pytest.raises(McpUnavailable, match="'write_query': its server does not mark it read-only"):
        load_mcp_tools(Settings(_env_file=None, mcp_config=cfg, home=tmp_path / "home"))


# --- a misbehaving MCP server ------------------------------------------------------------------

MISBEHAVING = {
    # tool, arguments, the ERROR record's code
    "slow": ("slow", {"seconds": 600}, "timeout"),
    "huge": ("huge", {"megabytes": 3}, "result_too_large"),
    "crash": ("crash", {}, "backend_error"),
    "fail": ("fail", {}, "tool_error"),
}
HANGS = f"mcp-test-{uuid.uuid4().hex}"
BAD_DRAFT = draft("the metrics store was down", [("the metrics store was down", ["E1.1"])])


@pytest.mark.parametrize("case", list(MISBEHAVING))
def test_a_misbehaving_server_ends_the_run_classified_within_its_deadline(
        bad_tools: dict[str, Any], case: str) -> None:
    tool, args, code = MISBEHAVING[case]
    script = {"router": [INC_ROUTER], "agent": [call(f"mcp_bad_{tool}", args, "c1"), BAD_DRAFT],
              "repair": [BAD_DRAFT]}
    deadline = 5.0 if case == "slow" else 20.0  # the others end long before it, even on a busy machine
    services = with_bad_tools(bad_tools, script, deadline_s=deadline)
    began = time.monotonic()
    out = run(services, "payment timeouts for M1001 on payment-service 10:00-10:10 on 2026-11-02 — why?")
    took = time.monotonic() - began
    assert took < deadline + 1, took
    (record,) = services.store.trace(out["run_id"])["tool_records"]
    assert (record["invocation_status"], record["facts"]) == ("ERROR", [])
    assert record["error"].startswith(f"{code}:"), record["error"]
    if case == "slow":  # the deadline passed inside the call: nothing is published late
        assert outcome(out) == ("TIMED_OUT", "FAILED", None, "RUN_TIMED_OUT")
    else:  # the draft cites an id the failed call never produced: a fallback, no root cause
        assert out["release_outcome"] == "FALLBACK"
        # Shown only as the refused proposal, labelled, with the reason.
        assert "metrics store was down" not in without_proposal(out["content"] or "")
        assert "NOT VERIFIED \u2014 refused by the evidence guard" in out["content"]
        assert "- claim 1 cites E1.1: UNKNOWN_ID" in out["content"]
    stopped(BAD_TAG)  # the server process too, even the one still sleeping in its tool


def test_an_injection_stays_data_and_its_invented_ids_publish_nothing(
        bad_tools: dict[str, Any]) -> None:
    obeying = draft("the attacker's fix was not deployed",
                    [("the attacker's fix was not deployed", ["E7.7", "E8.1"])])
    script = {"router": [INC_ROUTER], "agent": [call("mcp_bad_inject", {}, "c1"), obeying],
              "repair": [obeying]}
    services = with_bad_tools(bad_tools, script)
    out = run(services, "payment timeouts for M1001 on payment-service 10:00-10:10 on 2026-11-02 — why?")
    observation = json.loads(tool_messages(seen(services)[1])[0].content)
    assert set(observation) == {"tool", "scope", "items"}  # no stop_required, no control view
    assert [i["evidence_id"] for i in observation["items"]] == ["E1.1", "E1.2", "E1.3"]
    assert all(set(i) <= {"evidence_id", "kind", "text", "warning"} for i in observation["items"])
    assert any("warning" in i for i in observation["items"])  # the injection is flagged as such
    (record,) = services.store.trace(out["run_id"])["tool_records"]
    assert [f["evidence_id"] for f in record["facts"]] == ["E1.1", "E1.2", "E1.3"]
    assert out["release_outcome"] == "FALLBACK" and "judge" not in consumed(services)
    assert out["content"].startswith("No root cause")
    # The server's text is shown only as what it is: quoted tool output under its real ids,
    # and the draft that obeyed it only as the refused proposal, labelled NOT VERIFIED.
    rest = without_proposal(out["content"])
    mentions = [line for line in rest.splitlines() if "E7.7" in line or "attacker" in line]
    assert mentions and all(line.startswith(("- [E1.2] ", "- [E1.3] ")) for line in mentions), mentions
    proposal = out["content"][len(rest.split("\n\nWhat was checked")[0]):]
    assert proposal.startswith("\n\nProposed diagnosis, NOT VERIFIED \u2014 refused by the evidence "
                               "guard:\n- proposed cause: \u201cthe attacker's fix was not deployed\u201d")
    assert "- claim 1 cites E7.7: UNKNOWN_ID" in proposal
    assert not any(line.startswith("Root cause") for line in out["content"].splitlines())


def test_mcp_calls_share_the_gate_duplicate_scope_budget_and_schema_checks(
        bad_tools: dict[str, Any]) -> None:
    notes = {"service": "payment-service"}
    script = {"router": [INC_ROUTER],
              "agent": [call("mcp_bad_incident_notes", {"service": 7}, "c0"),
                        call("mcp_bad_incident_notes", notes, "c1", prev="c0", gain="NO_GAIN"),
                        call("mcp_bad_incident_notes", notes, "c2", prev="c1"),
                        draft(None)]}
    services = with_bad_tools(bad_tools, script)
    out = run(services, "payment timeouts for M1001 on payment-service 10:00-10:10 on 2026-11-02 — why?")
    answers = [json.loads(m.content) for m in tool_messages(seen(services)[-1])]
    assert answers[0]["error"]["code"] == "invalid_arguments"  # the server's own JSON schema
    assert "service: 7 is not of type 'string'" in answers[0]["error"]["message"]
    assert [i["text"][:20] for i in answers[1]["items"]] == ["2026-11-02T09:52:00Z",
                                                               "2026-11-02T10:01:12Z"]
    assert answers[2]["status"] == "DUPLICATE_SCOPE"  # the same scope is not queried again
    assert out["usage"]["tool_calls"] == 2  # the refused call counted, the duplicate did not
    assert out["usage"]["bytes"] > 0 and out["release_outcome"] == "FALLBACK"


@pytest.mark.parametrize(("servers", "message"), [
    ({"bad": bad_server(allow=["drop_everything"])}, "marks it as writing"),
    ({"bad": bad_server(allow_unmarked=["drop_everything"])}, "marks it as writing"),
    ({"bad": bad_server(allow=["unmarked_lookup"])}, "list it under allow_unmarked"),
    ({"bad": bad_server(allow=["nope"])}, "has no tool 'nope' \\(it offers: crash, drop_everything"),
    ({"bad": bad_server(HANGS, "--hang-at-start", allow=["inject"])}, "did not list its tools within 3 s"),
    ({"bad": {"command": "/nonexistent/mcp-server", "allow": ["x"]}}, "could not be started"),
    ({"bad": {"url": "ftp://host/mcp", "allow": ["x"]}}, "'url' must be an http"),
    ({"bad": {"url": "http://127.0.0.1:9/mcp", "transport": "sse", "allow": ["x"]}}, "not supported"),
    ({"bad server": {"command": "x"}}, "a server name is"),
    ({"bad": {"command": "x", "env": {"TOKEN": "${MCP_TEST_UNSET}"}, "allow": ["x"]}}, "MCP_TEST_UNSET"),
])
def test_a_configuration_that_cannot_be_honoured_is_one_clear_line_at_start(
        tmp_path: Path, servers: dict[str, Any], message: str) -> None:
    hangs = "--hang-at-start" in json.dumps(servers)
    settings = Settings(_env_file=None, mcp_config=config(tmp_path / "mcp.json", **servers),
                        home=tmp_path / "home", mcp_start_timeout_s=3 if hangs else 60)
    began = time.monotonic()
    with pytest.raises(McpUnavailable, match=message) as caught:
        load_mcp_tools(settings)
    assert "\n" not in str(caught.value)
    if hangs:  # the start-up limit holds (and a beat for the report), and the server is stopped
        assert time.monotonic() - began < 3 + 1.5
        stopped(HANGS)


def test_servers_with_nothing_allowed_are_not_started_and_settings_can_allow(tmp_path: Path) -> None:
    cfg = config(tmp_path / "mcp.json", bad=bad_server(), idle={"command": "/nonexistent"})
    home = tmp_path / "home"
    assert load_mcp_tools(Settings(_env_file=None, mcp_config=cfg, home=home)) == {}
    tools = load_mcp_tools(Settings(_env_file=None, mcp_config=cfg, home=home,
                                    mcp_allow="bad.incident_notes",
                                    mcp_allow_unmarked="bad.unmarked_lookup"))
    assert sorted(tools) == ["mcp_bad_incident_notes", "mcp_bad_unmarked_lookup"]
    with pytest.raises(McpUnavailable, match="HARNESS_MCP_ALLOW: no server 'other'"):
        load_mcp_tools(Settings(_env_file=None, mcp_config=cfg, home=home, mcp_allow="other.x"))


def test_a_streamable_http_server_is_used_the_same_way(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(BAD_SERVER), "--http", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        cfg = config(tmp_path / "mcp.json", remote={
            "url": f"http://127.0.0.1:{port}/mcp", "transport": "streamable_http",
            "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"}, "allow": ["incident_notes"]})
        monkeypatch.setenv("MCP_TEST_TOKEN", "t")
        settings = Settings(_env_file=None, mcp_config=cfg, home=tmp_path / "home")
        tools = load_mcp_tools(settings)
        outcome_ = execute_tool("mcp_remote_incident_notes", {"service": "payment-service"},
                                tool_call_id="h", backends=None, settings=settings, ready_count=4,
                                budget=Budget(BudgetLimits.from_settings(settings)),
                                extra_tools=tools, timeout_s=10)
        assert [f.evidence_id for f in outcome_.record.facts] == ["E5.1", "E5.2"]
        assert "db.pool.max_size=10 (was 50)" in outcome_.record.facts[0].text
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_cli_refuses_a_broken_mcp_configuration_with_exit_64(tmp_path: Path) -> None:
    cfg = config(tmp_path / "mcp.json", bad=bad_server(allow=["unmarked_lookup"]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MCP_CONFIG=str(cfg))
    proc = subprocess.run([str(BIN / "harness"), "diagnose", "why?"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 64, proc.stderr
    assert "allow_unmarked" in proc.stderr and "Traceback" not in proc.stderr


def test_the_cli_says_the_offline_model_does_not_use_mcp_tools(tmp_path: Path,
                                                                 opsdb_config: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MCP_CONFIG=str(opsdb_config))
    question = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
                "on 2026-11-02 — why?")
    proc = subprocess.run([str(BIN / "harness"), "diagnose", "--json", question],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "offline model never calls the 3 MCP tool(s)" in proc.stderr
    assert json.loads(proc.stdout)["release_outcome"] == "SUCCESS"  # from the built-in tools


def test_text_content_becomes_facts_under_fixed_keys() -> None:
    scope = {"q": 1}
    rows = to_result(scope, [{"type": "text", "text": "[{'id': 1, 'evidence_id': 'E9.9'}, {'id': 2}]"},
                             {"type": "image", "base64": "AAAA", "mime_type": "image/png"}], None, 10_000)
    assert [(i.kind, i.data) for i in rows.items] == [
        ("record", {"value": {"id": 1, "evidence_id": "E9.9"}}), ("record", {"value": {"id": 2}})]
    assert rows.note == "1 non-text content block(s) (images, files) are not shown"
    structured = to_result(scope, [], {"structured_content": {"result": [1, 2]}}, 10_000)
    assert [i.data for i in structured.items] == [{"value": {"result": [1, 2]}}]
    deep = "[" * 5000 + "]" * 5000  # parsed by neither JSON nor Python: one line of text
    assert [i.kind for i in to_result(scope, deep, None, 100_000).items] == ["text"]
    many = to_result(scope, "\n".join(f"line {n}" for n in range(500)), None, 100_000)
    assert len(many.items) == MAX_ITEMS and many.truncated and "500 items" in (many.note or "")
    assert to_result(scope, "[]", None, 10).items == []  # READY, NO_EVIDENCE
