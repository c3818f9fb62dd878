"""The demo dataset tells the truth it documents: each incident's cause is findable with the
tools, runbooks exist exactly where truth.json says, and the quiet window is really empty."""

from __future__ import annotations

import importlib.util
import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool, render_observation
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset

S = Settings(_env_file=None, max_tool_calls=1000)
DEMO = demo_dataset_dir()
TRUTH = json.loads((DEMO / "truth.json").read_text(encoding="utf-8"))
INCIDENTS = TRUTH["incidents"]
QUIET = TRUTH["no_evidence"][0]


@pytest.fixture(scope="module")
def backends(tmp_path_factory):
    built = load_dataset(DEMO, tmp_path_factory.mktemp("demo") / "b").dest
    with Backends.open(built) as opened:
        yield opened


def call(backends, tool, args):
    return execute_tool(tool, args, tool_call_id="t", backends=backends, settings=S,
                        budget=Budget(BudgetLimits.from_settings(S)), ready_count=0)


def test_truth_describes_at_least_five_distinct_incidents():
    assert len(INCIDENTS) >= 5
    assert len({i["root_cause"] for i in INCIDENTS}) == len(INCIDENTS)
    windows = sorted((datetime.fromisoformat(i["start"]), datetime.fromisoformat(i["end"]))
                     for i in INCIDENTS + [QUIET])
    for (_s1, e1), (s2, _e2) in zip(windows, windows[1:], strict=False):
        assert e1 <= s2, "incident windows overlap"
    for incident in INCIDENTS + [QUIET]:
        date = incident["start"][:10]
        assert date in incident["question"]
        assert incident["merchant"] in incident["question"]
        assert incident["service"] in incident["question"]
        assert (incident["fallback_type"] is None) == (incident["expected_outcome"] == "SUCCESS")


def test_runbooks_cover_most_but_not_all_causes():
    docs = {p.stem for p in (DEMO / "knowledge").glob("*.md")}
    with_runbook = [i for i in INCIDENTS if i["has_runbook"]]
    assert 0 < len(with_runbook) < len(INCIDENTS)
    for incident in INCIDENTS:
        assert (incident["runbook"] in docs) == incident["has_runbook"]
        expected = "SUCCESS" if incident["has_runbook"] else "FALLBACK"
        assert incident["expected_outcome"] == expected


@pytest.mark.parametrize("incident", INCIDENTS, ids=[i["id"] for i in INCIDENTS])
def test_each_cause_is_findable_with_the_tools(backends, incident):
    symptoms = call(backends, "query_logs", {"service": incident["service"],
                                             "start": incident["start"], "end": incident["end"]})
    assert symptoms.record.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    assert any(f.kind == "error_pattern" for f in symptoms.record.facts)
    merchant = call(backends, "query_logs", {"service": incident["service"],
                                             "start": incident["start"], "end": incident["end"],
                                             "pattern": incident["merchant"], "level": "WARN"})
    assert merchant.record.evidence_status is EvidenceStatus.EVIDENCE_FOUND  # the named merchant
    assert incident["evidence"], "truth must say how the cause is found"
    for step in incident["evidence"]:
        outcome = call(backends, step["tool"], step["args"])
        assert outcome.record.evidence_status is EvidenceStatus.EVIDENCE_FOUND, step
        assert step["contains"] in render_observation(outcome.observation), step


@pytest.mark.parametrize("incident", INCIDENTS, ids=[i["id"] for i in INCIDENTS])
def test_runbook_lookup_matches_has_runbook(backends, incident):
    outcome = call(backends, "lookup_knowledge", {"query": incident["runbook_query"]})
    if incident["has_runbook"]:
        assert outcome.record.facts[0].data["doc_id"] == incident["runbook"]
    else:
        assert outcome.record.evidence_status is EvidenceStatus.NO_EVIDENCE


def test_quiet_window_has_no_evidence_anywhere(backends):
    for service in backends.info.services:
        outcome = call(backends, "query_logs", {"service": service, "start": QUIET["start"],
                                                "end": QUIET["end"]})
        assert outcome.record.evidence_status is EvidenceStatus.NO_EVIDENCE, service
    start, end = (QUIET[k][:19] + "Z" for k in ("start", "end"))
    timestamp = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
    checked = 0
    for table, columns in backends.ops_schema().items():
        sample = call(backends, "query_mysql", {"sql": f"SELECT * FROM {table} LIMIT 1"})
        row = sample.record.facts[0].data["row"]
        for column in columns:
            if isinstance(row[column], str) and timestamp.fullmatch(row[column]):
                outcome = call(backends, "query_mysql", {
                    "sql": f"SELECT * FROM {table} WHERE {column} BETWEEN '{start}' AND '{end}'"})
                assert outcome.record.evidence_status is EvidenceStatus.NO_EVIDENCE, table
                checked += 1
    assert checked >= 8


def _generator_module():
    path = Path(__file__).resolve().parent.parent / "scripts" / "generate_demo_data.py"
    spec = importlib.util.spec_from_file_location("generate_demo_data", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generator():
    return _generator_module().main


def test_committed_files_are_what_the_generator_writes(tmp_path):
    generate = _generator()
    generate(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert produced
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (DEMO / rel).read_bytes(), rel
    lines = (DEMO / "logs.jsonl").read_text(encoding="utf-8").count("\n")
    assert 1000 < lines < 5000  # small enough to read, big enough to hide the signal in


def test_truth_agrees_with_the_generated_data(tmp_path):
    """truth.json is hand-written: every incident in it is simulated, inside a traffic window,
    and the ids, service, merchant and quiet window it names are what the generated data holds."""
    module = _generator_module()
    module.main(tmp_path)
    world = json.loads(module.WORLD_FILE.read_text(encoding="utf-8"))
    assert [i["id"] for i in INCIDENTS] == list(module.SIMULATIONS)
    assert json.loads((tmp_path / "dataset.json").read_text())["name"] == TRUTH["dataset"]
    events = [json.loads(line) for line in (tmp_path / "logs.jsonl").open(encoding="utf-8")]
    tables = "\n".join(p.read_text() for p in (tmp_path / "tables").glob("*.csv"))
    everything = tables + "\n".join(e["message"] for e in events)
    traffic = [tuple(datetime.fromisoformat(t) for t in pair)
               for pair in world["incident_traffic_windows"]]

    def window_events(incident):
        lo, hi = (datetime.fromisoformat(incident[k]) for k in ("start", "end"))
        return [e for e in events if lo <= datetime.fromisoformat(e["ts"]) <= hi]

    for incident in INCIDENTS:
        start, end = (datetime.fromisoformat(incident[k]) for k in ("start", "end"))
        assert any(lo <= start and end <= hi for lo, hi in traffic), incident["id"]
        named = re.findall(r"\b(?!INC-)[A-Z]+-\d+\b", " ".join(
            [incident["root_cause"], *incident.get("distractors", [])]))
        assert named, incident["id"]
        for ident in named:
            assert ident in everything, (incident["id"], ident)
        severe = [e for e in window_events(incident) if e["service"] == incident["service"]
                  and e["level"] in ("WARN", "ERROR", "FATAL")]
        assert severe, incident["id"]
        assert any(incident["merchant"] in e["message"] for e in window_events(incident))
    assert window_events(QUIET) == []
