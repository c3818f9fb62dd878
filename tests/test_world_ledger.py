"""The held-out ledger world (scripts/generate_world_ledger.py) is what its truth says.

It regenerates byte for byte, loads through the harness's dataset loader, its truth file is a
suite ``harness eval`` accepts, every kind of incident is there, each window has events with
the cause's onset inside or shortly before it, quiet windows hold only the usual noise, and
every evidence step finds what it claims in the logs or tables it names. Whether an
investigator gets the incidents right is measured elsewhere: this world is held out.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sqlite3
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from diagnosis_harness.tools.dataset.build import load_dataset

from diagnosis_harness.eval.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "tests" / "data" / "worlds" / "ledger"
GENERATOR = ROOT / "scripts" / "generate_world_ledger.py"
ONSET_LEAD = timedelta(minutes=45)
"""How long before a window's start its cause may begin ("just before")."""
LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
KINDS = {
    "logs_only",
    "metrics_deps",
    "change",
    "system_wide",
    "trap_unrelated_change",
    "trap_noisy_service",
    "trap_late_symptom",
    "no_incident",
    "trap_runbook_words",
}


def _generator():
    spec = importlib.util.spec_from_file_location("generate_world_ledger", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TRUTH = json.loads((WORLD / "truth.json").read_text(encoding="utf-8"))
INCIDENTS = TRUTH["incidents"]


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _shape(event: dict) -> tuple[str, str]:
    """A log line's pattern: service and message with numbers and ids (any word with a digit) masked."""
    return event["service"], re.sub(r"\S*\d\S*|\b[A-Z-]*[A-Z]{8,}\b", "#", event["message"])[:48]


def _dates(start: datetime) -> list[str]:
    """The ways an on-call engineer in Sydney writes the window's date (in the world's zone)."""
    local = start.astimezone(_ts(TRUTH["incidents"][0]["start"]).tzinfo)
    day = local.day
    return [
        local.strftime("%Y-%m-%d"),
        f"Mar {day}",
        f"{day} Mar",
        f"{day} March",
        f"{day:02d}/{local.month:02d}/{local.year}",
    ]


@pytest.fixture(scope="module")
def events():
    with (WORLD / "logs.jsonl").open(encoding="utf-8") as f:
        return [(_ts(e["ts"]), e) for e in map(json.loads, f)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(WORLD, tmp_path_factory.mktemp("ledger") / "ledger")


def test_regenerating_gives_the_committed_files(tmp_path):
    _generator().main(tmp_path)
    out = tmp_path / "ledger"
    produced = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(WORLD) for p in WORLD.rglob("*") if p.is_file())
    assert produced == committed
    for rel in produced:
        assert (out / rel).read_bytes() == (WORLD / rel).read_bytes(), rel


def test_the_world_loads_through_the_harness_loader_and_stays_modest(built, events):
    info = built.info
    assert info.name == "ledger-world"
    assert info.events == len(events)
    assert 15000 <= info.events <= 60000
    assert 12 <= len(info.services) <= 15
    assert {"dependencies", "deploys", "config_changes", "schema_migrations"} <= set(info.tables)
    assert info.passages > 0
    # The only notes: table times (most exported in Sydney wall time) stored as UTC.
    assert all("stored as UTC timestamps" in note for note in info.notes), info.notes
    size = sum(p.stat().st_size for p in WORLD.rglob("*") if p.is_file())
    assert size <= 25_000_000, size


def test_log_times_are_in_sydney_time_and_span_three_days(events):
    assert all(e["ts"].endswith("+11:00") for _t, e in events)
    first, last = events[0][0], events[-1][0]
    assert first >= _ts("2026-03-10T00:00:00+11:00") and last < _ts("2026-03-13T00:00:00+11:00")
    assert last - first > timedelta(days=2, hours=23)
    assert json.loads((WORLD / "dataset.json").read_text())["timezone"] == "Australia/Sydney"
    assert TRUTH["timezone"] == "+11:00"


def test_the_truth_file_is_a_suite_harness_eval_accepts():
    suite = load_suite(WORLD / "truth.json")
    assert [c.id for c in suite.cases] == [i["id"] for i in INCIDENTS]
    by_id = {c.id: c for c in suite.cases}
    for incident in INCIDENTS:
        case = by_id[incident["id"]]
        assert case.question == incident["question"]
        assert case.expect.outcome.startswith(incident["expected_outcome"])


def test_every_kind_appears_with_enough_incidents():
    kinds = Counter(i["kind"] for i in INCIDENTS)
    assert set(kinds) == KINDS
    assert 12 <= len(INCIDENTS) <= 14
    assert len({i["id"] for i in INCIDENTS}) == len(INCIDENTS)
    assert {i["expected_outcome"] for i in INCIDENTS} == {"SUCCESS", "FALLBACK"}


@pytest.mark.parametrize("incident", INCIDENTS, ids=[i["id"] for i in INCIDENTS])
def test_truth_entry_is_well_formed(incident):
    docs = {p.stem for p in (WORLD / "knowledge").glob("*.md")}
    start, end = _ts(incident["start"]), _ts(incident["end"])
    assert start < end <= start + timedelta(hours=1)
    question = incident["question"]
    assert "yesterday" not in question.lower() and "today" not in question.lower()
    assert "Z" in question or any(d in question for d in _dates(start)), question
    if incident["service"]:
        assert incident["service"] in question.lower()
    if incident["kind"] == "system_wide":
        assert incident["service"] is None
    assert (incident["runbook"] in docs) == incident["has_runbook"]
    if "decoy_runbook" in incident:
        assert incident["decoy_runbook"] in docs and not incident["has_runbook"]
    assert (incident["fallback_type"] is None) == (incident["expected_outcome"] == "SUCCESS")
    if incident["kind"] == "no_incident":
        assert incident["expected_outcome"] == "FALLBACK"
        assert incident["root_cause"] is None and incident["onset"] is None and not incident["evidence"]
    else:
        assert incident["root_cause"] and incident["cause_service"] and incident["onset"]
        assert incident["distractors"]
    if incident["expected_outcome"] == "SUCCESS":
        terms = incident["key_terms"]
        assert 2 <= len(terms) <= 3 and all(t == t.lower() for t in terms)
        assert all(t in incident["root_cause"].lower() for t in terms), terms
        assert incident["evidence"]


@pytest.mark.parametrize("incident", INCIDENTS, ids=[i["id"] for i in INCIDENTS])
def test_window_has_events_and_the_onset_leads_it(incident, events):
    start, end = _ts(incident["start"]), _ts(incident["end"])
    assert any(start <= t < end for t, _e in events), "the window must contain events"
    if incident["kind"] != "no_incident":
        onset = _ts(incident["onset"])
        assert start - ONSET_LEAD <= onset < end
    if incident["expected_outcome"] == "SUCCESS":  # the words of the cause are in the data
        text = "\n".join(e["message"] for _t, e in events).lower()
        tables = "\n".join(p.read_text(encoding="utf-8") for p in (WORLD / "tables").glob("*.csv")).lower()
        for term in incident["key_terms"]:
            assert term in text or term in tables, term


def test_incident_windows_do_not_overlap():
    spans = sorted((_ts(i["start"]), _ts(i["end"]), i["id"]) for i in INCIDENTS)
    for (_s0, e0, a), (s1, _e1, b) in zip(spans, spans[1:], strict=False):
        assert e0 <= s1, (a, b)


def test_quiet_windows_show_only_the_usual_noise(events):
    day_patterns = Counter(_shape(e) for _t, e in events if e["level"] in ("WARN", "ERROR", "FATAL"))
    for incident in INCIDENTS:
        if incident["kind"] != "no_incident":
            continue
        start, end = _ts(incident["start"]), _ts(incident["end"])
        for t, e in events:
            if start <= t < end and e["level"] in ("WARN", "ERROR", "FATAL"):
                assert day_patterns[_shape(e)] >= 20, e  # a pattern seen all along


@pytest.mark.parametrize("incident", INCIDENTS, ids=[i["id"] for i in INCIDENTS])
def test_evidence_steps_find_what_they_claim(incident, events, built):
    for step in incident["evidence"]:
        args = step["args"]
        if step["tool"] == "query_logs":
            lo, hi = _ts(args["start"]), _ts(args["end"])
            floor = LEVELS.index(args.get("level", "DEBUG"))
            words = (args.get("pattern") or "").lower().split()
            hits = [
                e
                for t, e in events
                if lo <= t <= hi
                and e["service"].lower() == args["service"].lower()
                and LEVELS.index(e["level"]) >= floor
                and all(w in e["message"].lower() for w in words)
            ]
            assert any(step["contains"] in e["message"] for e in hits), step
        else:
            assert step["tool"] == "query_mysql"
            with sqlite3.connect(f"file:{built.dest / 'ops.sqlite'}?mode=ro", uri=True) as db:
                db.row_factory = sqlite3.Row
                rows = [dict(r) for r in db.execute(args["sql"]).fetchall()]
            assert rows, step
            assert step["contains"] in json.dumps(rows), step
