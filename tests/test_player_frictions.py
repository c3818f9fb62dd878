"""What capable-model players stumbled on in the tools' results and the router (issue 40).

One small hospital, written in the real dataset format and built as a user's data is: four
services on 2027-02-10 (UTC), 06:00 to 07:00, a window 06:30 to 06:45 (its default baseline
06:15 to 06:29:59.999):

- ``ehr-web`` logs a slow-render WARN 14 times a quarter hour, 65 times in the window (x4.4);
- ``pacs-archive`` logs a volume ERROR every 20 s from 06:20 — inside the default baseline;
- ``lab-gateway`` fails TLS from 06:31:12 with a long Java message (its own clock, UTC+1,
  written in the message), and ``fhir-facade``, which calls it, answers 502 from 06:31:30;
- tables: ``service_calls`` (caller → callee: ehr-web calls fhir-facade and pacs-archive,
  fhir-facade calls lab-gateway) and ``ward_census`` from 06:00 on, every 5 minutes.

No merchant anywhere: the router must not ask for one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from diagnosis_harness import prompts, write_dataset
from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import Conclusion, InvocationStatus, ToolRecord
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.guards.semantic import judge_payload, wire_payload
from diagnosis_harness.nodes.route import router_values
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import execute_tool, render_observation
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.model_view import model_text

DAY = datetime(2027, 2, 10, tzinfo=UTC)
WINDOW = {"start": "2027-02-10T06:30:00Z", "end": "2027-02-10T06:45:00Z"}
SERVICES = ("ehr-web", "fhir-facade", "lab-gateway", "pacs-archive")
SETTINGS = Settings(_env_file=None)
PKIX = ("Failed to fetch lab results from https://lab-results.internal:8443/api/v2/results/batch"
        "?ward=7B&since=2027-02-10T06:00:00Z after 3 attempts (connect timeout 2000 ms, read "
        "timeout 5000 ms, pool lab-https-pool, client LabResultsClient v4.12.3, trace "
        "5f1c0a8e9b7d4c2a, request R-{n:05d}, tenant hospital-north, ward 7B, bed 12): "
        "javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
        "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid "
        "certification path to requested target")


def _at(hour: int, minute: int, second: float = 0) -> datetime:
    return DAY.replace(hour=hour, minute=minute) + timedelta(seconds=second)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k in range(120):  # healthy INFO every 30 s, everywhere
        for svc in SERVICES:
            out.append({"ts": _iso(_at(6, 0, 30 * k)), "service": svc, "level": "INFO",
                        "message": f"GET /health 200 in {3 + k % 4} ms"})
    slow = [_at(6, 0, 60 * k + 5) for k in range(14)] + [_at(6, 15, 60 * k + 5) for k in range(14)] \
        + [_at(6, 30, 13.8 * k + 1) for k in range(65)] + [_at(6, 45, 60 * k + 5) for k in range(14)]
    out += [{"ts": _iso(t), "service": "ehr-web", "level": "WARN",
             "message": f"slow render of chart view ({900 + n % 50} ms)"} for n, t in enumerate(slow)]
    out += [{"ts": _iso(_at(6, 20, 20 * k)), "service": "pacs-archive", "level": "ERROR",
             "message": f"archive volume /data/pacs at {91 + k % 3}% full"} for k in range(120)]
    for k in range(40):  # the service's own clock (UTC+1) opens its message
        t = _at(6, 31, 12 + 20 * k)
        local = (t + timedelta(hours=1)).strftime("%H:%M:%S,000")
        out.append({"ts": _iso(t), "service": "lab-gateway", "level": "ERROR",
                    "message": f"[{local}] " + PKIX.format(n=k)})
        out.append({"ts": _iso(t + timedelta(seconds=18)), "service": "fhir-facade",
                    "level": "ERROR", "message": "GET /Observation 502: upstream lab-gateway "
                                                 "returned 502"})
    return sorted(out, key=lambda e: e["ts"])


def _tables() -> dict[str, list[dict[str, Any]]]:
    return {
        "service_calls": [{"caller": "ehr-web", "callee": "fhir-facade"},
                          {"caller": "ehr-web", "callee": "pacs-archive"},
                          {"caller": "fhir-facade", "callee": "lab-gateway"}],
        "ward_census": [{"recorded_at": _iso(_at(6, 5 * k)).replace(".000", ""), "ward": "7B",
                         "patients": 20 + k % 3} for k in range(12)],
    }


@pytest.fixture(scope="module")
def hospital(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backends]:
    root = tmp_path_factory.mktemp("hospital")
    src = write_dataset(root / "src", logs=_logs(), tables=_tables(), name="hospital-north")
    with Backends.open(load_dataset(src, root / "built").dest) as backends:
        yield backends


def call(backends: Backends, name: str, **args: Any) -> tuple[ToolRecord, str]:
    """The tool's record and the text a model reads of it."""
    outcome = execute_tool(name, args, tool_call_id="c1", backends=backends,
                           budget=Budget(BudgetLimits.from_settings(SETTINGS)), settings=SETTINGS,
                           ready_count=0)
    assert outcome.record.invocation_status is InvocationStatus.READY, outcome.record.error
    return outcome.record, model_text(render_observation(outcome.observation), args)


def facts(record: ToolRecord, kind: str) -> list[dict[str, Any]]:
    return [f.data for f in record.facts if f.kind == kind]


def judge_sees(record: ToolRecord, cited: list[str]) -> str:
    """The judge's wire text for one claim citing ``cited`` of ``record``."""
    conclusion = Conclusion.model_validate({"root_cause": "r", "claims": [
        {"statement": "s", "evidence_ids": cited}]})
    return wire_payload(judge_payload(conclusion, [record]))


def test_the_router_asks_for_no_merchant_where_the_data_has_none(hospital: Backends,
                                                                 tmp_path: Path) -> None:
    now = datetime(2027, 2, 10, 7, 0, tzinfo=UTC)
    text = prompts.render("router", **router_values("why is lab-gateway failing?",
                                                    hospital.info, now))
    assert "merchant " not in text.lower().replace('"merchant"', "")  # only the key's name
    assert "M1001" not in text
    example = re.search(r'Question: "why did (\S+) return.*\nAnswer: (\{.*\})', text)
    assert example is not None and example.group(1) in SERVICES  # of its own list
    assert json.loads(example.group(2))["merchant"] is None
    # Data that has merchants still gets one of its own as the id's example.
    with Backends.open(load_dataset(demo_dataset_dir(), tmp_path / "demo").dest) as demo:
        own = prompts.render("router", **router_values("q", demo.info, now))
    merchant = demo.info.examples["merchant"]
    assert f'(for example "{merchant}")' in own


def test_onset_rows_name_only_the_anomalous_neighbours_as_such(hospital: Backends) -> None:
    record, text = call(hospital, "onset_timeline", **WINDOW)
    rows = {r["service"]: r for r in facts(record, "onset")}
    assert "upstream" not in rows["fhir-facade"] and "downstream" not in rows["fhir-facade"]
    assert rows["fhir-facade"]["anomalous_upstream"] == ["lab-gateway"]
    assert rows["lab-gateway"]["anomalous_downstream"] == ["fhir-facade"]
    # ehr-web calls pacs-archive and fhir-facade, neither new nor risen in the window's view of
    # them (pacs-archive's errors began in the baseline): the list is not its dependency set.
    assert rows["ehr-web"]["anomalous_upstream"] == ["fhir-facade"]
    assert "anomalous_upstream=[lab-gateway]" in text


def test_a_long_message_is_cut_between_words_keeping_the_exception(hospital: Backends) -> None:
    record, text = call(hospital, "query_logs", service="lab-gateway", **WINDOW, limit=5,
                        level="ERROR")
    whole = {w for n in range(40) for w in re.findall(r"\S+", PKIX.format(n=n))}
    shown = [e["message"] for e in facts(record, "log_event")]
    assert shown and all(len(m) <= 500 for m in shown)
    onset, _ = call(hospital, "onset_timeline", **WINDOW)
    [example] = [r["example"] for r in facts(onset, "onset") if r["service"] == "lab-gateway"]
    assert len(example) <= 300
    for message in [*shown, example]:
        assert " … " in message
        words = [w for w in re.findall(r"\S+", message) if w != "…"]
        # Every word shown is a word of the line (none cut in two) …
        cut = [w for w in words[1:] if w not in whole]
        assert cut == [], message
        # … and the exception and its cause are there to read, whole.
        assert "sun.security.provider.certpath.SunCertPathBuilderException:" in words
        assert "SSLHandshakeException: PKIX path building failed: sun.security" in message
        assert message.endswith("requested target")
    assert "SunCertPathBuilderException" in text


def test_a_query_outside_a_tables_data_says_where_its_data_is(hospital: Backends) -> None:
    record, text = call(hospital, "query_mysql", sql=(
        "SELECT recorded_at, patients FROM ward_census WHERE recorded_at >= "
        "'2027-02-09T00:00:00Z' AND recorded_at < '2027-02-10T00:00:00Z'"))
    assert [f.kind for f in record.facts] == ["empty"]
    assert "ward_census.recorded_at holds data from 2027-02-10T06:00:00Z to " \
           "2027-02-10T06:55:00Z only" in text
    # A query within the data is told nothing more.
    _, inside = call(hospital, "query_mysql", sql=(
        "SELECT recorded_at, patients FROM ward_census WHERE recorded_at BETWEEN "
        "'2027-02-10T06:10:00Z' AND '2027-02-10T06:20:00Z'"))
    assert "note:" not in inside
    # Rows of Feb 10 for a window reaching back into Feb 9: said too.
    _, reaching = call(hospital, "query_mysql", sql=(
        "SELECT count(*) AS n FROM ward_census WHERE recorded_at >= '2027-02-09T12:00:00Z'"))
    assert "holds data from 2027-02-10T06:00:00Z" in reaching


def test_a_baseline_holding_the_trouble_offers_a_quiet_one_that_works(hospital: Backends) -> None:
    record, text = call(hospital, "compare_windows", **WINDOW)
    pacs = [r for r in facts(record, "window_pattern") if r["service"] == "pacs-archive"]
    assert pacs == []  # its errors began in the default baseline: nothing changed here
    note = text.splitlines()[-1]
    offered = re.search(r"baseline_start=(\S+), baseline_end=(\S+?)(?:;|$)", note)
    assert offered is not None, text
    assert offered.groups() == ("2027-02-10T06:05:00Z", "2027-02-10T06:19:59.999Z")
    # The next call, with the baseline offered, shows the trouble first time.
    again, _ = call(hospital, "compare_windows", **WINDOW, baseline_start=offered.group(1),
                    baseline_end=offered.group(2))
    assert [r["change"] for r in facts(again, "window_pattern")
            if r["service"] == "pacs-archive"] == ["new"]


def test_a_ratio_shows_how_it_was_computed_to_the_model_and_the_judge(hospital: Backends) -> None:
    record, text = call(hospital, "compare_windows", **WINDOW)
    [row] = [f for f in record.facts if f.kind == "window_pattern"
             and f.data["service"] == "ehr-web"]
    assert (row.data["window_count"], row.data["baseline_count"], row.data["ratio"]) == (65, 14, 4.4)
    assert row.data["ratio_from"] == "(65+1)/(14+1)"
    assert "ratio=4.4, ratio_from=(65+1)/(14+1)" in text
    judged = judge_sees(record, [row.evidence_id])
    assert "rose x4.4 = (65+1)/(14+1)" in judged and '"ratio_from":"(65+1)/(14+1)"' in judged


def test_the_judge_sees_the_onset_ranks_a_claim_on_the_overview_names(hospital: Backends) -> None:
    record, _ = call(hospital, "onset_timeline", **WINDOW)
    [overview] = [f for f in record.facts if f.kind == "onset_overview"]
    ranks = {r["service"]: r["rank"] for r in facts(record, "onset")[::-1]}  # each its first
    listed = overview.data["services_in_onset_order"]
    assert [s.get("rank") for s in listed] == [ranks[s["service"]] for s in listed]
    judged = judge_sees(record, [overview.evidence_id])
    for service, rank in ranks.items():
        assert f"#{rank} {service}" in judged
