"""PromQL that writes its own evidence is never published, on a real Prometheus and real judges.

One Prometheus on a TSDB backfilled with ``promtool``: ``http_errors`` of two jobs (checkout
jumps at 10:03 on INC-1's day) and ``payment_pool_waits`` of payment-service. Every query of
FORGING spells the claim "attacker CHG-6666 dropped the payment database" somewhere Prometheus
never stored it — a label written by ``label_replace`` / ``label_join``, ``absent()``'s
matchers, a regex or ``!=`` value that selects nothing, a comment, a ``by`` label, a metric that
does not exist. None of them ends SUCCESS, with the offline judge or with a judge model (an
OpenAI-compatible server over real HTTP) that answers SUPPORTED to everything: the evidence
itself holds none of the words. Honest queries still give citable series, and a release
re-check that cannot reach Prometheus is not called tampering.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import promkit
import pytest
from graphkit import INC, INC_ROUTER, call, checkpointer_for, demo_home, draft, go, services_for
from stub_openai import StubOpenAI

import diagnosis_harness.graph.builder
from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.session.run_session import RunSession
from diagnosis_harness.session.runner import new_context
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.backends.prometheus import Prometheus
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.recompute import recheck

pytestmark = pytest.mark.slow
CLAIM = "attacker CHG-6666 dropped the payment database"
WORDS = ("attacker", "6666", "dropped", "database")
WINDOW = {"start": "2026-11-02T10:00:00Z", "end": "2026-11-02T10:10:00Z"}

FORGING = [
    # labels a function writes
    f'label_replace(vector(1), "root_cause", "{CLAIM}", "", "")',
    f'label_replace(http_errors, "root_cause", "{CLAIM}", "", "")',
    f'label_replace(http_errors{{job="checkout"}}, "job", "{CLAIM}", "job", ".*")',
    'label_join(http_errors, "attacker_CHG_6666_dropped_the_payment_database", "-", "job")',
    f'label_join(http_errors, "root_cause", " {CLAIM} ", "job", "instance")',
    f'sum by (root_cause) (label_replace(http_errors, "root_cause", "{CLAIM}", "", ""))',
    # absent() answers with its own matchers
    f'absent(http_errors{{root_cause="{CLAIM}"}})',
    f'absent(attacker_dropped_the_payment_database{{job="{CLAIM}"}})',
    f'absent_over_time(http_errors{{job="{CLAIM}"}}[5m])',
    f'http_errors or absent(http_errors{{root_cause="{CLAIM}"}})',
    # words in matchers that select nothing
    f'http_errors{{job=~"{CLAIM}|checkout"}}',
    f'http_errors{{job=~"(?:{CLAIM}|checkout)"}}',
    f'http_errors{{job=~"checkout|.*{CLAIM.replace(" ", ".*")}.*"}}',
    f'http_errors{{job!="{CLAIM}"}}',
    f'http_errors{{job!~"{CLAIM}"}}',
    f'http_errors{{job="checkout"}} or http_errors{{job="{CLAIM}"}}',
    # comments the overview quoted
    f"http_errors # {CLAIM}",
    f'sum by (job) (http_errors)\n# root cause: {CLAIM}\n',
    f'http_errors{{job="checkout"}} #{CLAIM}',
    # names that do not exist
    "sum by (attacker_CHG_6666_dropped_the_payment_database) (http_errors)",
    "http_errors or attacker_CHG_6666_dropped_the_payment_database",
    "http_errors + on(attacker_dropped_database) group_left() http_errors",
    'count_values("attacker_dropped_the_payment_database", http_errors)',
    # text and constants that read no series
    f'"{CLAIM}"',
    "vector(6666)",
    "scalar(vector(6666))",
]
"""Each spells the claim where Prometheus never stored it; the first, the regex and the comment
are the issue's payloads."""

HONEST = [
    ("http_errors", True),
    ('http_errors{job=~"check.*"}', True),
    ('http_errors{job!="cart"} offset 1m', True),
    ('{__name__=~"payment_pool_waits"}', True),
    ("sum by (job) (rate(http_errors[5m]))", False),
    ("max_over_time(payment_pool_waits[5m])", False),
    ('topk(1, http_errors{job=~"checkout|cart"}) > 0', False),
]
"""Honest queries, and whether each is one selector (its numbers the stored samples)."""


def _series() -> list[tuple[str, dict[str, str], list[tuple[datetime, float]]]]:
    t0 = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    times = [t0 + timedelta(seconds=15 * i) for i in range(4 * 60 + 1)]  # 09:30 .. 10:30
    jump = datetime(2026, 11, 2, 10, 3, tzinfo=UTC)
    checkout = [(t, 50.0 if t >= jump else 1.0 + (i % 3) * 0.1) for i, t in enumerate(times)]
    cart = [(t, 2.0 + (i % 2) * 0.1) for i, t in enumerate(times)]
    waits = [(t, 40.0 if t >= jump else 1.0 + (i % 4) * 0.1) for i, t in enumerate(times)]
    return [("http_errors", {"job": "checkout", "instance": "a"}, checkout),
            ("http_errors", {"job": "cart", "instance": "b"}, cart),
            ("payment_pool_waits", {"service": "payment-service"}, waits)]


@pytest.fixture(scope="module")
def prom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[promkit.Prometheus]:
    promkit.require_binaries("prometheus", "promtool")
    tsdb = promkit.backfill(promkit.openmetrics(_series()), tmp_path_factory.mktemp("tsdb"))
    with promkit.Prometheus(tsdb_dir=tsdb) as server:
        yield server


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


@pytest.fixture
def backends(built: Any, prom: promkit.Prometheus) -> Iterator[Backends]:
    with Backends.open(built) as b:
        b.prometheus = Prometheus(prom.url, timeout_s=10.0)
        yield b


def _call(backends: Backends, settings: Settings, promql: str) -> Any:
    return execute_tool("query_metrics", {"promql": promql, **WINDOW}, tool_call_id="c1",
                        backends=backends, budget=Budget(BudgetLimits.from_settings(settings)),
                        settings=settings, ready_count=0)


def _forged_words(facts: list[dict[str, Any]]) -> list[str]:
    """Words of the claim in what the facts cite (their text, and their data minus what the
    query computed)."""
    shown = json.dumps([[f["text"], {k: v for k, v in f["data"].items()
                                     if k not in (f["data"].get("computed") or [])}]
                        for f in facts]).lower()
    return [w for w in WORDS if w in shown]


@pytest.mark.parametrize("promql", FORGING)
def test_a_forging_query_is_refused_with_a_reason_and_holds_no_citable_words(
        backends: Backends, built: Any, prom: promkit.Prometheus, promql: str) -> None:
    settings = Settings(data_dir=built, prometheus_url=prom.url)
    out = _call(backends, settings, promql)
    record = out.record
    assert record.invocation_status is InvocationStatus.ERROR, (promql, record.facts)
    assert record.facts == []
    error = out.observation["error"]
    assert error["code"] in ("rejected_promql", "bad_promql"), error
    if error["code"] == "rejected_promql":  # says what a query may do, not a traceback
        assert "not allowed" in error["message"] or "does not have" in error["message"] \
            or "reads no series" in error["message"], error["message"]


@pytest.mark.parametrize(("promql", "plain"), HONEST)
def test_an_honest_query_still_gives_citable_series_with_their_stored_labels(
        backends: Backends, built: Any, prom: promkit.Prometheus, promql: str,
        plain: bool) -> None:
    settings = Settings(data_dir=built, prometheus_url=prom.url)
    record = _call(backends, settings, promql).record
    assert record.evidence_status is EvidenceStatus.EVIDENCE_FOUND, (promql, record.error)
    overview, *series = record.facts
    assert promql not in overview.text and "promql" not in overview.data
    assert series and all(f.data["labels"] and "query_labels" not in f.data for f in series)
    # A rate or a sum is computed from the samples, as SQL marks count(*): the numbers say so.
    assert all(("computed" in f.data) is not plain for f in series)
    assert any(f.data["labels"].get("job") == "checkout" or
               f.data["labels"].get("service") == "payment-service" for f in series)


def test_numbers_the_query_made_are_marked_computed_and_support_no_claim(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = Settings(data_dir=built, prometheus_url=prom.url)
    record = _call(backends, settings, 'http_errors{job="checkout"} * 0 + 6666').record
    (series,) = record.facts[1:]
    assert series.data["last"] == 6666 and "last" in series.data["computed"]
    assert series.data["labels"] == {"instance": "a", "job": "checkout"}
    # … and a run that cites it for CHG-6666 is not published by the offline judge.
    claim = "CHG-6666 raised checkout http_errors to 6666"
    cited = [(claim, ["E1.2"])]
    script = {"router": [INC_ROUTER],
              "agent": [call("query_metrics", {"promql": 'http_errors{job="checkout"} * 0 + 6666',
                                               **WINDOW}, "c1"), draft(claim, cited),
                        draft(claim, cited)],  # its one revision sends the same draft again
              "repair": [draft(claim, cited)]}
    _, out = go(script, settings={"judge_model": "offline", "prometheus_url": prom.url})
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "SEMANTIC_UNSUPPORTED")


def _script(promql: str) -> dict[str, list[Any]]:
    claims = [(CLAIM, ["E1.1"]), (CLAIM, ["E1.2"])]
    return {"router": [INC_ROUTER],
            "agent": [call("query_metrics", {"promql": promql, **WINDOW}, "c1"),
                      draft(CLAIM, claims)],
            "repair": [draft(CLAIM, claims)]}


@pytest.fixture(scope="module")
def lenient() -> Iterator[StubOpenAI]:
    """A judge model that answers SUPPORTED to every draft, over real HTTP."""
    answer = json.dumps({"verdict": "SUPPORTED", "reasons": ["looks right"]})
    with StubOpenAI([{"content": answer}]) as stub:
        yield stub


def _judges(which: str, stub: StubOpenAI) -> dict[str, Any]:
    if which == "offline":
        return {"judge_model": "offline"}
    return {"judge_model": "openai:lenient", "judge_base_url": stub.base_url,
            "judge_api_key": "k"}


@pytest.mark.parametrize("judged_by", ["offline", "lenient"])
def test_no_forging_query_is_ever_published_whatever_the_judge(
        prom: promkit.Prometheus, lenient: StubOpenAI, judged_by: str) -> None:
    published = []
    for promql in FORGING:
        services, out = go(_script(promql),
                           settings={"prometheus_url": prom.url, **_judges(judged_by, lenient)})
        (record,) = services.store.trace(out["run_id"])["tool_records"]
        if out["release_outcome"] == "SUCCESS" or _forged_words(record["facts"]):
            published.append(promql)
    assert published == []


@pytest.mark.parametrize("judged_by", ["offline", "lenient"])
def test_an_honest_metric_run_is_published_with_either_judge(
        prom: promkit.Prometheus, lenient: StubOpenAI, judged_by: str) -> None:
    claim = "payment_pool_waits of payment-service up from 10:03"
    cited = [(claim, ["E1.2"])]
    script = {"router": [INC_ROUTER],
              "agent": [call("query_metrics", {"promql": "payment_pool_waits", **WINDOW}, "c1"),
                        draft(claim, cited)]}
    requests = len(lenient.requests)
    _, out = go(script, settings={"prometheus_url": prom.url, **_judges(judged_by, lenient)})
    assert out["release_outcome"] == "SUCCESS", out["content"]
    assert "payment_pool_waits" in out["content"]
    assert (len(lenient.requests) > requests) is (judged_by == "lenient")


def test_a_re_check_that_cannot_run_is_unavailable_not_tampering(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = Settings(data_dir=built, prometheus_url=prom.url)
    record = _call(backends, settings, "http_errors").record
    assert recheck([record], backends, settings).tampered == []
    # An absurd limit (HARNESS_SQL_TIMEOUT_S=1e308 reached release as 1e308 s) overflows.
    absurd = recheck([record], backends, settings, 1e308)
    assert absurd.tampered == [] and len(absurd.unavailable) == 1
    with Backends.open(built) as down:
        down.prometheus = Prometheus(f"http://127.0.0.1:{promkit.free_port()}", timeout_s=2.0)
        gone = recheck([record], down, settings, 5.0)
    assert gone.tampered == [] and "could not be re-checked" in gone.unavailable[0]
    forged = record.model_copy(deep=True)
    forged.facts[1].data["max"] = 999.0
    assert len(recheck([forged], backends, settings, 5.0).tampered) == 1


def test_a_run_whose_prometheus_is_gone_at_release_publishes_nothing_and_is_not_tampered(
        built: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    tsdb = promkit.backfill(promkit.openmetrics(_series()), tmp_path_factory.mktemp("tsdb2"))
    server = promkit.Prometheus(tsdb_dir=tsdb)
    server.start()
    claim = "payment_pool_waits of payment-service up from 10:03"
    script = {"router": [INC_ROUTER],
              "agent": [call("query_metrics", {"promql": "payment_pool_waits", **WINDOW}, "c1"),
                        draft(claim, [(claim, ["E1.2"])])],
              "judge": [{"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["ok"]})}]}
    services = services_for(demo_home(), script, prometheus_url=server.url,
                            prometheus_timeout_s=2.0)
    config: Any = {"configurable": {"thread_id": "prom-gone"}}
    first = new_context(services, thread_id="prom-gone")

    async def scenario() -> dict[str, Any]:
        async with checkpointer_for(services) as saver:
            compiled = diagnosis_harness.graph.builder.builder().compile(
                checkpointer=saver, interrupt_before=["release"])
            async for _ in RunSession(compiled).stream({"question": INC["question"]}, config,
                                                        context=first, stream_mode="values"):
                pass
            server.stop()  # Prometheus goes away before release re-checks the numbers
            final: dict[str, Any] = {}
            async for chunk in RunSession(compiled).stream(
                    None, config, context=new_context(services, thread_id="prom-gone",
                                                      run_id=first.run_id),
                    stream_mode="values"):
                final = chunk
            return final

    try:
        final = asyncio.run(scenario())
    finally:
        server.stop()
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_RECHECK_UNAVAILABLE", None)


def test_the_report_marks_values_the_query_computed_sql_and_metrics(
        prom: promkit.Prometheus, lenient: StubOpenAI) -> None:
    sql = ("SELECT service, count(*) AS changes FROM config_changes "
           "WHERE change_id = 'CHG-2041' GROUP BY service")
    claim = "payment-service had one config change; checkout http_errors doubled"
    cited = [(claim, ["E1.1", "E2.2"])]
    script = {"router": [INC_ROUTER],
              "agent": [call("query_mysql", {"sql": sql}, "c1"),
                        call("query_metrics", {"promql": 'http_errors{job="checkout"} * 2',
                                               **WINDOW}, "c2", prev="c1"),
                        draft(claim, cited)]}
    _, out = go(script, settings={"prometheus_url": prom.url, **_judges("lenient", lenient)})
    assert out["release_outcome"] == "SUCCESS", out["content"]
    lines = out["content"].splitlines()
    row = next(line for line in lines if line.strip().startswith("E1.1:"))
    series = next(line for line in lines if line.strip().startswith("E2.2:"))
    assert row.endswith("[computed by the query, not stored data: changes]"), row
    assert "[computed by the query, not stored data: min, max, first, last" in series, series


@pytest.mark.parametrize(("promql", "computed"), [
    ("x offset -5m", False),
    ("x[5m] @ 1700000000", False),
    ("x @ start()", False),
    ('x{path=~"/api/v[12]/.*#frag"}', False),  # a # inside a value is no comment
    ('{__name__="x", job="a"}', False),
    ("sum by (job) (rate(http_errors[5m]))", True),
    ("sum(rate(http_errors[5m])) by (job)", True),
    ("histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))", True),
    ("topk(3, x) > 0.5", True),
    ("-x", True),
    ("rate(x[5m])[30m:1m]", True),
    ('x{a=~"b|c"} / on(instance) group_left y', True),
    ("rate(x[5m]) * 100", True),
    ("x > bool 5", True),
    ("x or vector(0)", True),
    ("x - time()", True),
])
def test_the_reader_accepts_usual_promql_and_marks_numbers_the_query_computed(
        promql: str, computed: bool) -> None:
    from diagnosis_harness.tools.promql_provenance import read

    found = read(promql)
    assert found.understood and found.reads_series
    assert found.computed_values is computed
    assert "sum" not in found.metrics and "by" not in found.metrics


def test_an_absurd_sql_timeout_at_release_is_unavailable_not_tampering() -> None:
    """HARNESS_SQL_TIMEOUT_S=1e308 (the issue's setting): the re-check's limit overflows."""
    from graphkit import judge

    from diagnosis_harness.control.settings import load_settings

    try:
        load_settings(model="replay:inline", home=demo_home(), sql_timeout_s=1e308)
    except Exception as exc:  # noqa: BLE001 — refused at start is the other honest answer
        pytest.skip(f"the setting is refused at start: {exc}")
    args = {"start": INC["start"], "end": INC["end"], "service": INC["service"]}
    claim = "payment-service logged patterns new in the window"
    script = {"router": [INC_ROUTER],
              "agent": [call("compare_windows", args, "s1"), draft(claim, [(claim, ["E1.1"])])],
              "judge": [judge()]}
    _, out = go(script, settings={"sql_timeout_s": 1e308})
    assert (out["release_outcome"], out["failure_code"], out["content"]) == \
        ("FAILED", "EVIDENCE_RECHECK_UNAVAILABLE", None)
