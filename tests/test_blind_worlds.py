"""The held-out worlds (scripts/generate_world_fleet.py, scripts/generate_world_ledger.py,
scripts/generate_world_grid.py, scripts/generate_world_aero.py, scripts/generate_world_vod.py,
scripts/generate_world_mkt.py,
scripts/generate_world_hosp.py, scripts/generate_world_game.py,
scripts/generate_world_docs.py, scripts/generate_world_depot.py,
scripts/generate_world_iot.py, scripts/generate_world_rides.py) are what their truth says.

Each regenerates byte for byte, loads through the harness's dataset loader, its truth file is a
suite ``harness eval`` accepts, every kind of incident is there, each window has events with the
cause's onset inside or shortly before it, quiet windows hold only the usual noise, and every
evidence step finds what it claims in the logs or tables it names. Whether an investigator gets
the incidents right is measured elsewhere: these worlds are held out.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import worlds
from world_checks import assert_evidence_step, ts

from diagnosis_harness.eval.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
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


@dataclass(frozen=True)
class World:
    name: str
    onset_lead: timedelta
    """How long before a window's start its cause may begin ("just before")."""
    events: tuple[int, int]
    services: tuple[int, int]
    max_bytes: int
    offset: str
    """The UTC offset every log time is written with (the world's zone, standard time)."""
    zone: str
    first_day: str
    month: tuple[str, str]
    """The month's abbreviation and full name, as an on-call engineer there writes a date."""
    local_dates: tuple[str, ...] = ()
    """More ways the engineers there write a date: formats over ``y``, ``m`` and ``d`` (``{m}/{d}``)."""
    kinds: frozenset[str] = frozenset(KINDS)
    """The kinds of incident the world holds (all of them unless it is a smaller world)."""
    incidents: tuple[int, int] = (12, 14)
    """How many incidents its truth file holds, at least and at most."""

    @property
    def dir(self) -> Path:
        return worlds.folder(self.name)

    @property
    def truth(self) -> dict:
        return json.loads((self.dir / "truth.json").read_text(encoding="utf-8"))

    def generator(self):
        path = ROOT / "scripts" / f"generate_world_{self.name}.py"
        spec = importlib.util.spec_from_file_location(f"generate_world_{self.name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def dates(self, start: datetime) -> list[str]:
        """The ways an on-call engineer writes the window's date (in the world's zone)."""
        local = start.astimezone(ts(f"2026-01-01T00:00:00{self.offset}").tzinfo)
        day, (abbr, full) = local.day, self.month
        return [
            local.strftime("%Y-%m-%d"),
            f"{abbr} {day}",
            f"{day} {abbr}",
            f"{day} {full}",
            f"{day:02d}-{abbr}",
            f"{day}.{local.month:02d}.",
            f"{day:02d}/{local.month:02d}/{local.year}",
            *(f.format(y=local.year, m=local.month, d=day) for f in self.local_dates),
        ]


WORLDS = {
    "fleet": World(
        "fleet",
        timedelta(minutes=30),
        (5000, 12000),
        (10, 14),
        3_300_000,
        "-06:00",
        "America/Chicago",
        "2026-02-10",
        ("Feb", "February"),
    ),
    "ledger": World(
        "ledger",
        timedelta(minutes=45),
        (15000, 60000),
        (12, 15),
        25_000_000,
        "+11:00",
        "Australia/Sydney",
        "2026-03-10",
        ("Mar", "March"),
    ),
    "grid": World(
        "grid",
        timedelta(minutes=45),
        (8000, 40000),
        (12, 14),
        15_000_000,
        "+05:30",
        "Asia/Kolkata",
        "2026-01-20",
        ("Jan", "January"),
    ),
    "aero": World(
        "aero",
        timedelta(minutes=45),
        (8000, 40000),
        (12, 14),
        15_000_000,
        "+01:00",
        "Europe/Berlin",
        "2026-02-17",
        ("Feb", "February"),
    ),
    "vod": World(
        "vod",
        timedelta(minutes=45),
        (8000, 40000),
        (12, 14),
        15_000_000,
        "+09:00",
        "Asia/Tokyo",
        "2026-04-14",
        ("Apr", "April"),
        ("{y}/{m:02d}/{d:02d}", "{m}/{d}"),
    ),
    "mkt": World(
        "mkt",
        timedelta(minutes=45),
        (8000, 40000),
        (12, 14),
        15_000_000,
        "-03:00",
        "America/Sao_Paulo",
        "2026-05-11",
        ("mai", "maio"),
        ("{d:02d}/{m:02d}", "{d} de maio", "{d}/{m}"),
    ),
    "hosp": World(
        "hosp",
        timedelta(minutes=45),
        (8000, 30000),
        (12, 14),
        12_500_000,
        "+01:00",
        "Europe/Berlin",
        "2026-11-10",
        ("Nov", "November"),
        ("{d:02d}.{m:02d}.{y}", "{d}. Nov"),
    ),
    "game": World(
        "game",
        timedelta(minutes=45),
        (8000, 30000),
        (12, 14),
        12_000_000,
        "-08:00",
        "America/Los_Angeles",
        "2026-12-01",
        ("Dec", "December"),
        ("{m}/{d}", "{m}/{d}/{y}"),
    ),
    "docs": World(
        "docs",
        timedelta(minutes=45),
        (8000, 25000),
        (12, 14),
        10_000_000,
        "+00:00",
        "Europe/London",
        "2026-11-17",
        ("Nov", "November"),
        ("{d}/{m}", "{d}/{m}/{y}", "{d}th"),
    ),
    "depot": World(
        "depot",
        timedelta(minutes=45),
        (6000, 15000),
        (12, 14),
        6_000_000,
        "+01:00",
        "Europe/Berlin",
        "2026-12-08",
        ("Dec", "December"),
        ("{d:02d}.{m:02d}.{y}", "{d}. Dez", "{d:02d}.{m:02d}."),
        frozenset(KINDS - {"trap_noisy_service", "trap_runbook_words"}),
        (10, 10),
    ),
    "iot": World(
        "iot",
        timedelta(minutes=45),
        (12000, 25000),
        (12, 14),
        10_000_000,
        "+10:00",
        "Australia/Brisbane",
        "2026-12-14",
        ("Dec", "December"),
        ("{d}/{m}", "{d:02d}/{m:02d}", "{d}/{m}/{y}", "{d} déc"),
        frozenset(KINDS),
        (12, 12),
    ),
    "rides": World(
        "rides",
        timedelta(minutes=45),
        (12000, 22000),
        (13, 14),
        8_000_000,
        "-03:00",
        "America/Sao_Paulo",
        "2026-08-18",
        ("ago", "agosto"),
        ("{d:02d}/{m:02d}", "{d} de agosto", "{d}/{m}", "Aug {d}", "{d} Aug"),
        frozenset(KINDS),
        (10, 10),
    ),
}
CASES = [(w, i) for w in WORLDS.values() for i in w.truth["incidents"]]
CASE_IDS = [f"{w.name}-{i['id']}" for w, i in CASES]


def _shape(event: dict) -> tuple[str, str]:
    """A log line's pattern: service and message with numbers and ids (any word with a digit) masked."""
    return event["service"], re.sub(r"\S*\d\S*|\b[A-Z-]*[A-Z]{8,}\b", "#", event["message"])[:48]


_EVENTS: dict[str, list] = {}


def _events(world: World) -> list[tuple[datetime, dict]]:
    if world.name not in _EVENTS:
        with (world.dir / "logs.jsonl").open(encoding="utf-8") as f:
            _EVENTS[world.name] = [(ts(e["ts"]), e) for e in map(json.loads, f)]
    return _EVENTS[world.name]


@pytest.fixture(scope="module")
def built():
    made: dict[str, object] = {}

    def build(world: World):
        if world.name not in made:
            made[world.name] = worlds.loaded(world.dir)
        return made[world.name]

    return build


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_regenerating_gives_the_committed_files(world, tmp_path):
    world.generator().main(tmp_path)
    out = tmp_path / world.name
    produced = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(world.dir) for p in world.dir.rglob("*") if p.is_file())
    assert produced == committed
    for rel in produced:
        assert (out / rel).read_bytes() == (world.dir / rel).read_bytes(), rel


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_the_world_loads_through_the_harness_loader_and_stays_modest(world, built):
    info = built(world).info
    assert info.name == f"{world.name}-world"
    assert info.events == len(_events(world))
    assert world.events[0] <= info.events <= world.events[1]
    assert world.services[0] <= len(info.services) <= world.services[1]
    assert {"dependencies", "deploys", "config_changes", "schema_migrations"} <= set(info.tables)
    assert info.passages > 0
    # The only notes: table times (exported in local wall time) stored as UTC.
    assert all("stored as UTC timestamps" in note for note in info.notes), info.notes
    size = sum(p.stat().st_size for p in world.dir.rglob("*") if p.is_file())
    assert size <= world.max_bytes, size


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_log_times_are_in_the_world_zone_and_span_three_days(world):
    events = _events(world)
    assert all(e["ts"].endswith(world.offset) for _t, e in events)
    first, last = events[0][0], events[-1][0]
    day0 = ts(f"{world.first_day}T00:00:00{world.offset}")
    assert first >= day0 and last < day0 + timedelta(days=3)
    assert last - first > timedelta(days=2, hours=23)
    assert json.loads((world.dir / "dataset.json").read_text())["timezone"] == world.zone
    assert world.truth["timezone"] == world.offset


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_the_truth_file_is_a_suite_harness_eval_accepts(world):
    incidents = world.truth["incidents"]
    suite = load_suite(world.dir / "truth.json")
    assert [c.id for c in suite.cases] == [i["id"] for i in incidents]
    by_id = {c.id: c for c in suite.cases}
    for incident in incidents:
        case = by_id[incident["id"]]
        assert case.question == incident["question"]
        assert case.expect.outcome.startswith(incident["expected_outcome"])


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_every_kind_appears_with_enough_incidents(world):
    incidents = world.truth["incidents"]
    kinds = Counter(i["kind"] for i in incidents)
    assert set(kinds) == world.kinds
    assert world.incidents[0] <= len(incidents) <= world.incidents[1]
    assert len({i["id"] for i in incidents}) == len(incidents)
    assert {i["expected_outcome"] for i in incidents} == {"SUCCESS", "FALLBACK"}


@pytest.mark.parametrize(("world", "incident"), CASES, ids=CASE_IDS)
def test_truth_entry_is_well_formed(world, incident):
    docs = {p.stem for p in (world.dir / "knowledge").glob("*.md")}
    start, end = ts(incident["start"]), ts(incident["end"])
    assert start < end <= start + timedelta(hours=1)
    question = incident["question"]
    assert "yesterday" not in question.lower() and "today" not in question.lower()
    assert "Z" in question or any(d in question for d in world.dates(start)), question
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


@pytest.mark.parametrize(("world", "incident"), CASES, ids=CASE_IDS)
def test_window_has_events_and_the_onset_leads_it(world, incident):
    events = _events(world)
    start, end = ts(incident["start"]), ts(incident["end"])
    assert any(start <= t < end for t, _e in events), "the window must contain events"
    if incident["kind"] != "no_incident":
        onset = ts(incident["onset"])
        assert start - world.onset_lead <= onset < end
    if incident["expected_outcome"] == "SUCCESS":  # the words of the cause are in the data
        text = "\n".join(e["message"] for _t, e in events).lower()
        tables = "\n".join(
            p.read_text(encoding="utf-8") for p in (world.dir / "tables").glob("*.csv")
        ).lower()
        for term in incident["key_terms"]:
            assert term in text or term in tables, term


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_incident_windows_do_not_overlap(world):
    spans = sorted((ts(i["start"]), ts(i["end"]), i["id"]) for i in world.truth["incidents"])
    for (_s0, e0, a), (s1, _e1, b) in zip(spans, spans[1:], strict=False):
        assert e0 <= s1, (a, b)


@pytest.mark.parametrize("world", WORLDS.values(), ids=list(WORLDS))
def test_quiet_windows_show_only_the_usual_noise(world):
    events = _events(world)
    day_patterns = Counter(_shape(e) for _t, e in events if e["level"] in ("WARN", "ERROR", "FATAL"))
    for incident in world.truth["incidents"]:
        if incident["kind"] != "no_incident":
            continue
        start, end = ts(incident["start"]), ts(incident["end"])
        for t, e in events:
            if start <= t < end and e["level"] in ("WARN", "ERROR", "FATAL"):
                assert day_patterns[_shape(e)] >= 20, e  # a pattern seen all along


@pytest.mark.parametrize(("world", "incident"), CASES, ids=CASE_IDS)
def test_evidence_steps_find_what_they_claim(world, incident, built):
    for step in incident["evidence"]:
        assert_evidence_step(step, _events(world), built(world).dest / "ops.sqlite")
