"""Users' own data end to end: exports imported with ``harness data import``, then diagnosed by
the offline investigator through the whole graph; the silent-CSV regression; attribute filters
and hints taken from the loaded data; a bad ops database URL refused at start."""

from __future__ import annotations

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

from diagnosis_harness.cli.main import main as cli_main
from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn
from diagnosis_harness.tools.backends import Backends, BackendUnavailable
from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources
from diagnosis_harness.tools.query_logs import query_logs
from diagnosis_harness.tools.registry import tool_schemas
from diagnosis_harness.tools.results import ToolInputError

DATA = Path(__file__).resolve().parent / "data" / "import"
QUESTION = "checkout errors on checkout-api between 09:50 and 10:05 on 2026-03-14 — why?"
WINDOW = {"start": "2026-03-14T09:50:00Z", "end": "2026-03-14T10:05:00Z"}
RUNBOOK = DATA / "runbooks" / "Checkout HTTP client pool.md"


def services_for(data_dir: Path, home: Path) -> Services:
    return Services.from_settings(load_settings(model="offline", home=home, data_dir=data_dir))


def diagnose(services: Services, question: str) -> dict[str, Any]:
    return asyncio.run(run_turn(services, question, checkpointer=InMemorySaver()))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Services:
    root = tmp_path_factory.mktemp("real")
    import_sources([DATA], root / "data", ImportOptions(year=2026))
    return services_for(root / "data", root / "home")


def test_an_incident_planted_in_imported_exports_is_diagnosed(imported: Services) -> None:
    out = diagnose(imported, QUESTION)
    assert out["release_outcome"] == "SUCCESS", out["content"]
    root_cause = out["content"].splitlines()[0]
    # The offline investigator names the cause by ids and the matching runbook, never by free text
    # from the data (an injection could ride on it); the cited evidence carries the details.
    assert "DEP-311" in root_cause and "checkout-http-client-pool" in root_cause  # setext runbook
    assert "max_connections" in out["content"]
    records = imported.store.trace(out["run_id"])["tool_records"]
    found = {f["evidence_id"] for r in records if r["evidence_status"] == "EVIDENCE_FOUND"
             for f in r["facts"]}
    cited = set(re.findall(r"E\d+\.\d+", out["content"]))
    assert cited and cited <= found


def test_a_window_without_a_cause_in_the_data_is_not_given_one(imported: Services) -> None:
    out = diagnose(imported, "payment-svc slow between 09:50 and 10:05 on 2026-03-14 — why?")
    assert out["release_outcome"] == "FALLBACK"
    assert out["fallback_type"] == "INSUFFICIENT_EVIDENCE"


def test_hints_come_from_the_loaded_data_never_the_demo(imported: Services) -> None:
    # No service and no window: nothing to scope by (with a window it is a system-wide
    # investigation of that window, docs/design.md §16.2).
    out = diagnose(imported, "why were there so many errors?")
    assert out["fallback_type"] == "MISSING_REQUIRED_CONTEXT"
    assert "which service is affected (e.g. checkout-api)" in out["content"]
    assert "payment-service" not in out["content"]


def test_query_logs_filters_on_the_attributes_the_data_has(imported: Services) -> None:
    backends, settings = imported.backends, imported.settings
    args = {"service": "checkout-api", **WINDOW, "level": "ERROR", "limit": 200}
    every = query_logs(backends, settings, **args)
    events = [i.data for i in every.items if i.kind == "log_event"]
    pod = events[0]["attrs"]["pod"]
    on_pod = query_logs(backends, settings, **args, attrs={"POD": pod})  # key case is forgiven
    shown = [i.data for i in on_pod.items if i.kind == "log_event"]
    assert 0 < len(shown) < len(events) and {e["attrs"]["pod"] for e in shown} == {pod}
    assert on_pod.scope["attrs"] == {"POD": pod}
    trace = events[3]["attrs"]["trace_id"]
    one = query_logs(backends, settings, **args, attrs={"trace_id": trace, "namespace": "shop-prod"})
    assert [i.data["message"] for i in one.items if i.kind == "log_event"] == [events[3]["message"]]
    with pytest.raises(ToolInputError, match=r"no log attribute 'colour'.*pod.*trace_id"):
        query_logs(backends, settings, **args, attrs={"colour": "red"})
    assert "attrs" not in query_logs(backends, settings, **args).scope  # old scopes unchanged


def test_the_tool_descriptions_advertise_what_the_loaded_data_has(imported: Services) -> None:
    specs = {s["function"]["name"]: s["function"]["description"]
             for s in tool_schemas(imported.backends.ops_schema(), imported.dataset)}
    logs = specs["query_logs"]
    assert "Services in these logs:" in logs and "checkout-api" in logs and "nginx" in logs
    assert re.search(r"Attributes you can filter on with attrs: .*pod \(e\.g\. '[^']+'\)", logs)
    assert "trace_id" in logs and "namespace" in logs
    mysql = specs["query_mysql"]
    assert "deploy_history.deploy_id = 'Deploy ID'" in mysql
    assert mysql.rindex("Tables:") > mysql.index("Columns renamed")  # Tables: stays last
    params = next(s["function"]["parameters"] for s in tool_schemas(
        imported.backends.ops_schema(), imported.dataset) if s["function"]["name"] == "query_logs")
    assert "attrs" in params["properties"] and "attrs" not in params["required"]
    assert tool_schemas(imported.backends.ops_schema()) == tool_schemas(
        imported.backends.ops_schema(), None)  # callers that pass no dataset see no change
    bare = next(s["function"]["parameters"] for s in tool_schemas(imported.backends.ops_schema())
                if s["function"]["name"] == "query_logs")
    assert "attrs" not in bare["properties"]


DEPLOYS = ("Deploy ID;Service;Version;Started At;Summary\n"
           "DEP-307;search-api;7.3.0;{early};search ranking weights tuned\n"
           "DEP-311;checkout-api;4.2.0;{cause};http client pool max_connections lowered to 4\n")


@pytest.mark.parametrize(("early", "cause"), [
    ("2026-03-14 09:20:00", "2026-03-14 09:49:00"),  # ISO without a zone
    ("14/03/2026 09:20", "14/03/2026 09:49"),        # day-first
    ("1773480000", "1773481740"),                    # epoch seconds
    ("2026-03-14T09:20:00Z", "2026-03-14T09:49:00Z"),  # what worked before
], ids=["naive-iso", "day-first", "epoch", "iso-utc"])
def test_silent_csv_regression_the_deploy_is_found_whatever_its_time_format(
        tmp_path: Path, early: str, cause: str) -> None:
    table = tmp_path / "deploys.csv"
    table.write_text(DEPLOYS.format(early=early, cause=cause))
    import_sources([DATA / "checkout-api-ecs.ndjson", RUNBOOK, table], tmp_path / "data",
                   ImportOptions())
    out = diagnose(services_for(tmp_path / "data", tmp_path / "home"), QUESTION)
    assert out["release_outcome"] == "SUCCESS", out["content"]
    computed = out["content"].splitlines()[1]  # the failure as the cited facts compute it
    assert computed.startswith("Computed from the evidence: ")
    assert "DEP-311" in computed and "at 2026-03-14T09:49:00Z" in computed  # a sentence, no raw row


def test_silent_csv_regression_an_unreadable_deploy_time_fails_the_load_loudly(tmp_path: Path) -> None:
    table = tmp_path / "deploys.csv"
    table.write_text(DEPLOYS.format(early="14/03/2026 09:20", cause="right after lunch"))
    import_sources([DATA / "checkout-api-ecs.ndjson", table], tmp_path / "data", ImportOptions())
    with pytest.raises(DatasetError) as caught:
        services_for(tmp_path / "data", tmp_path / "home")
    assert caught.value.problems == [
        "tables/deploys.csv:3: column 'Started At': cannot read 'right after lunch' as a time; "
        "every value of a time column must be a time (or empty)"]


def test_opening_backends_never_builds(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home", data_dir=tmp_path / "nothing-built")
    with pytest.raises(BackendUnavailable, match="harness data load"):
        Backends.from_settings(settings)
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize(("url", "says"), [
    ("not a url", "HARNESS_OPS_DB_URL is not a database URL"),
    ("sqlite:///{tmp}/missing.db", "does not exist (it is never created"),
    ("postgresql://ops:s3cret-pw@127.0.0.1:1/ops", "ops_db_url: cannot open the database"),
])
def test_a_bad_ops_database_url_is_one_line_and_exit_64_at_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        url: str, says: str) -> None:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HARNESS_OPS_DB_URL", url.format(tmp=tmp_path))
    with pytest.raises(SystemExit) as caught:
        cli_main(["diagnose", QUESTION])
    assert caught.value.code == 64
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert "s3cret-pw" not in err
    assert not (tmp_path / "missing.db").exists()  # never silently created


@pytest.mark.slow
def test_cli_import_then_diagnose(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env["HARNESS_HOME"] = str(tmp_path / "home")
    harness = Path(sys.executable).with_name("harness")
    into = tmp_path / "shop"
    proc = subprocess.run([str(harness), "data", "import", str(DATA), "--into", str(into),
                           "--year", "2026"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "imported 199 log events from 8 log file(s)" in proc.stdout
    assert "checkout-api-ecs.ndjson: ecs logs, 65 events" in proc.stdout
    assert "loaded shop: 199 log events from 11 services, 2 tables" in proc.stdout
    assert "time column started_at stored as UTC timestamps" in proc.stdout
    proc = subprocess.run([str(harness), "diagnose", "--data", str(into), QUESTION, "--json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["release_outcome"] == "SUCCESS"
    again = subprocess.run([str(harness), "data", "import", str(DATA), "--into", str(into)],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 64 and "--replace" in again.stderr
    assert "Traceback" not in again.stderr
