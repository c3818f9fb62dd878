"""The approval gate follows the run's record, not the approver's shell (issue 37, docs/design.md §14).

A run is paused for approval by a process with ``HARNESS_APPROVAL=before_publish``; the approver
is another person in another shell — here a subprocess whose environment holds nothing but the
home. Whatever that shell lacks, the run's own record decides whether it awaits a decision, and a
decision is applied exactly once or refused with one line.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from datasetkit import demo_indexed_home
from graphkit import FULL_RUN, INC

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tools" / "demo_data"


def _bare_env(home: Path, **extra: str) -> dict[str, str]:
    """A shell with no harness setting at all: only the home (and the interpreter's path)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO),
            "HARNESS_HOME": str(home), **extra}


def harness(home: Path, cwd: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=_bare_env(home, **extra), cwd=cwd, timeout=180)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the demo dataset indexed once (copied per test)."""
    return demo_indexed_home(tmp_path_factory.mktemp("indexed"))


def paused_run(indexed: Path, tmp_path: Path, *, data: Path | None = None) -> tuple[Path, str]:
    """A fresh home whose one run awaits approval; (home, run id)."""
    home = tmp_path / "home"
    shutil.copytree(indexed, home)
    extra = ["--data", str(data)] if data is not None else []
    proc = harness(home, tmp_path, "diagnose", INC["question"], "--json", *extra,
                   HARNESS_APPROVAL="before_publish")
    assert proc.returncode == 3, proc.stderr  # paused: the verified report awaits approval
    return home, json.loads(proc.stdout)["run_id"]


def row_of(home: Path, run_id: str) -> dict[str, object]:
    with sqlite3.connect(home / "runs.sqlite") as conn:
        conn.row_factory = sqlite3.Row
        row = dict(conn.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone())
        row["content_events"] = conn.execute(
            "SELECT count(*) FROM events WHERE run_id = ? AND event LIKE '%\"content\"%'",
            (run_id,)).fetchone()[0]
        (approval,) = conn.execute("SELECT approval FROM run_lineage WHERE run_id = ?",
                                   (run_id,)).fetchone()
    conn.close()
    row["approval"] = json.loads(approval)
    return row


def shown(home: Path, cwd: Path, run_id: str) -> str:
    proc = harness(home, cwd, "runs", "show", run_id)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def one_refusal(proc: subprocess.CompletedProcess[str], words: str) -> None:
    assert proc.returncode == 64, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_reject_from_a_bare_shell_ends_the_run_rejected(indexed: Path, tmp_path: Path) -> None:
    home, run_id = paused_run(indexed, tmp_path)
    proc = harness(home, tmp_path, "runs", "approve", run_id, "--reject", "--note", "wrong change")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"[FALLBACK / APPROVAL_REJECTED] run {run_id}\n"), proc.stdout
    assert "Root cause:" not in proc.stdout and "wrong change" in proc.stdout
    row = row_of(home, run_id)
    assert (row["release_outcome"], row["fallback_type"]) == ("FALLBACK", "APPROVAL_REJECTED")
    assert row["approval"]["state"] == "REJECTED" and row["approval"]["note"] == "wrong change"
    story = shown(home, tmp_path, run_id)
    assert "approval: REJECTED by cli:" in story and "PENDING" not in story

    # A second decision is refused with one line; nothing is published again.
    again = harness(home, tmp_path, "runs", "approve", run_id, "--note", "changed my mind")
    one_refusal(again, "already decided")
    after = row_of(home, run_id)
    assert (after["release_outcome"], after["content"], after["content_events"]) == \
        (row["release_outcome"], row["content"], 1)
    assert after["approval"] == row["approval"]


def test_an_approve_from_a_bare_shell_publishes_once(indexed: Path, tmp_path: Path) -> None:
    home, run_id = paused_run(indexed, tmp_path)
    proc = harness(home, tmp_path, "runs", "approve", run_id, "--note", "ok", "--json")
    assert proc.returncode == 0, proc.stderr
    done = json.loads(proc.stdout)
    assert (done["run_id"], done["release_outcome"]) == (run_id, "SUCCESS")
    assert done["content"].startswith("Root cause:")
    row = row_of(home, run_id)
    assert (row["release_outcome"], row["content_events"]) == ("SUCCESS", 1)
    assert row["approval"]["state"] == "APPROVED"
    assert "approval: APPROVED by cli:" in shown(home, tmp_path, run_id)
    for second in (["--reject"], []):
        one_refusal(harness(home, tmp_path, "runs", "approve", run_id, *second), "already decided")
    assert row_of(home, run_id) == row


def test_two_approvers_at_once_one_decision_applied(indexed: Path, tmp_path: Path) -> None:
    home, run_id = paused_run(indexed, tmp_path)
    argv = [sys.executable, "-m", "diagnosis_harness", "runs", "approve", run_id]
    procs = [subprocess.Popen([*argv, *flag], env=_bare_env(home), cwd=tmp_path, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for flag in (["--reject"], ["--note", "fine"])]
    outs = [(p.wait(timeout=180), *p.communicate()) for p in procs]
    won = [out for out in outs if out[0] == 0]
    lost = [out for out in outs if out[0] != 0]
    assert len(won) == 1 and len(lost) == 1, outs
    assert lost[0][0] == 64 and lost[0][2].count("\n") == 1 and "Traceback" not in lost[0][2]
    row = row_of(home, run_id)
    assert row["content_events"] == 1
    expected = ("FALLBACK", "REJECTED") if "APPROVAL_REJECTED" in won[0][1] else ("SUCCESS", "APPROVED")
    assert (row["release_outcome"], row["approval"]["state"]) == expected


def test_decisions_on_runs_that_do_not_await_one_are_refused(indexed: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(indexed, home)
    done = harness(home, tmp_path, "diagnose", INC["question"], "--json")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    one_refusal(harness(home, tmp_path, "runs", "approve", run_id), "a decision is final")
    one_refusal(harness(home, tmp_path, "runs", "approve", "no-such-run", "--reject"),
                "no run no-such-run")
    assert row_of_plain(home, run_id) == "SUCCESS"


def row_of_plain(home: Path, run_id: str) -> str:
    with sqlite3.connect(home / "runs.sqlite") as conn:
        (outcome,) = conn.execute("SELECT release_outcome FROM runs WHERE run_id = ?",
                                  (run_id,)).fetchone()
    conn.close()
    return str(outcome)


def test_an_approver_on_other_data_is_refused_before_anything_runs(
        indexed: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DEMO, data)
    with (data / "logs.jsonl").open("a") as logs:  # other content: another fingerprint
        logs.write(json.dumps({"ts": "2026-11-06T18:00:00Z", "service": "gateway", "level": "INFO",
                               "message": "one more line", "attrs": {}}) + "\n")
    home, run_id = paused_run(indexed, tmp_path, data=data)
    one_refusal(harness(home, tmp_path, "runs", "approve", run_id, "--data", str(DEMO)),
                "verified on other data")
    row = row_of(home, run_id)
    assert row["finished_at"] is None and row["approval"]["state"] == "PENDING"
    # Without --data the approver gets the run's own dataset, from its record.
    proc = harness(home, REPO, "runs", "approve", run_id)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"[SUCCESS] run {run_id}\n")


def test_a_run_that_ends_otherwise_while_its_approval_is_pending_settles_it(tmp_path: Path) -> None:
    """Release that cannot publish (here: the run's records were removed from the store) ends
    the run FAILED and the approval CANCELLED — never a finished run still PENDING."""
    import asyncio
    from uuid import uuid4

    from graphkit import services_for
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from diagnosis_harness.session.hooked import session_graph
    from diagnosis_harness.session.starts import RunResolver, ServicesByOptions

    script = FULL_RUN
    services = services_for(tmp_path / "home", script, approval="before_publish", database_url=None)
    graph = session_graph(InMemorySaver(), edit_log=services.store,
                          resolve_context=RunResolver(ServicesByOptions(services), services, actor="t"))

    async def drive(value: object) -> dict[str, object]:
        final: dict[str, object] = {}
        async for _mode, chunk in graph.astream(value, {"configurable": {"thread_id": "t-settle"},
                                                       "metadata": {"run_id": uuid4().hex}},
                                               stream_mode=["values"]):
            final = chunk
        return final

    paused = asyncio.run(drive({"question": INC["question"]}))
    run_id = str(paused["run_id"])
    assert services.store.lineage(run_id)["approval"]["state"] == "PENDING"
    with sqlite3.connect(tmp_path / "home" / "runs.sqlite") as conn:
        conn.execute("DELETE FROM tool_records WHERE run_id = ?", (run_id,))
    conn.close()
    done = asyncio.run(drive(Command(resume={"approve": True, "note": "ok"})))
    assert (done["release_outcome"], done["failure_code"]) == ("FAILED", "EVIDENCE_TAMPERED")
    approval = services.store.lineage(run_id)["approval"]
    assert (approval["state"], approval["decided_by"]) == ("CANCELLED", "release")
    assert "ended FAILED before a decision" in approval["note"]


def test_a_fork_of_a_run_paused_for_approval_is_gated_where_the_setting_is_off(
        tmp_path: Path) -> None:
    """Re-running a gated run from an earlier checkpoint on a server without HARNESS_APPROVAL
    must not publish the fork unreviewed: the parent's record gates it."""
    import asyncio
    from uuid import uuid4

    from graphkit import CLAIMS, COLLECT, INC_ROUTER, ROOT_CAUSE, draft, judge, services_for
    from langgraph.checkpoint.memory import InMemorySaver

    from diagnosis_harness.session.hooked import session_graph
    from diagnosis_harness.session.starts import RunResolver, ServicesByOptions

    script = {"router": [INC_ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
              "judge": [judge(), judge()]}
    saver = InMemorySaver()

    def graph_of(**settings: str) -> object:
        services = services_for(tmp_path / "home", script, database_url=None, **settings)
        return services, session_graph(saver, edit_log=services.store, resolve_context=RunResolver(
            ServicesByOptions(services), services, actor="t"))

    gated_services, gated_graph = graph_of(approval="before_publish")
    _, open_graph = graph_of()
    config = {"configurable": {"thread_id": "t-fork"}}

    async def drive(graph: object, value: object, **configurable: str) -> dict[str, object]:
        final: dict[str, object] = {}
        run_config = {"configurable": {"thread_id": "t-fork", **configurable},
                      "metadata": {"run_id": uuid4().hex}}
        async for _mode, chunk in graph.astream(value, run_config,  # type: ignore[attr-defined]
                                                stream_mode=["values"]):
            final = chunk
        return final

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        paused = await drive(gated_graph, {"question": INC["question"]})
        history = [h async for h in open_graph.aget_state_history(config)]  # type: ignore[attr-defined]
        earlier = next(h for h in history if h.next == ("semantic_guard",))
        forked = await drive(open_graph, None,
                             checkpoint_id=earlier.config["configurable"]["checkpoint_id"])
        return paused, forked

    paused, forked = asyncio.run(scenario())
    rows = gated_services.store.runs_for_thread("t-fork")
    [fork_id] = [r["run_id"] for r in rows if r["run_id"] != paused["run_id"]]
    assert gated_services.store.lineage(fork_id)["parent_run_id"] == paused["run_id"]
    assert forked.get("release_outcome") is None and forked.get("content") is None  # paused
    assert gated_services.store.lineage(fork_id)["approval"]["state"] == "PENDING"
    assert gated_services.store.get_run(fork_id)["finished_at"] is None
