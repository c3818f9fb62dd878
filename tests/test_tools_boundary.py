"""The tool boundary: canonical records, evidence ids, budgets, byte caps and the two views."""

from __future__ import annotations

import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.boundary import CONTROL_KEYS, execute_tool, render_observation, scope_of
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.registry import TOOL_ARG_MODELS, TOOL_DESCRIPTIONS, tool_schemas

INC1 = {"service": "payment-service", "start": "2026-11-02T10:00:00+00:00",
        "end": "2026-11-02T10:10:00+00:00"}
NIGHT = {"service": "payment-service", "start": "2026-11-05T02:00:00Z",
         "end": "2026-11-05T02:10:00Z"}
FOUND = {
    "query_logs": INC1,
    "query_mysql": {"sql": "SELECT deploy_id, service, version FROM deploys ORDER BY deploy_id"},
    "lookup_knowledge": {"query": "connection pool exhausted"},
}
EMPTY = {
    "query_logs": NIGHT,
    "query_mysql": {"sql": "SELECT * FROM deploys WHERE service = 'no-such-service'"},
    "lookup_knowledge": {"query": "kubernetes node disk pressure"},
}
ERRORS = {
    "query_logs": ({**INC1, "end": "2026-11-02T09:00:00Z"}, "invalid_arguments", "after start"),
    "query_mysql": ({"sql": "DELETE FROM deploys"}, "rejected_sql", "only SELECT"),
    "lookup_knowledge": ({"query": "?!"}, "invalid_input", "no searchable words"),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


@pytest.fixture
def backends(built):
    with Backends.open(built) as opened:
        yield opened


def settings(**overrides) -> Settings:
    return Settings(_env_file=None, **overrides)


def run(backends, name, args, *, s=None, budget=None, ready_count=0, stop=None, call_id="c1"):
    s = s or settings()
    budget = budget or Budget(BudgetLimits.from_settings(s))
    return execute_tool(name, args, tool_call_id=call_id, backends=backends, budget=budget,
                        settings=s, ready_count=ready_count, stop_required=stop)


def all_keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(all_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(all_keys(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found_result_is_ready_with_numbered_facts(backends, name):
    outcome = run(backends, name, FOUND[name], ready_count=2)
    record = outcome.record
    assert record.invocation_status is InvocationStatus.READY
    assert record.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    assert record.ready_index == 3
    ids = [f.evidence_id for f in record.facts]
    assert ids == [f"E3.{i}" for i in range(1, len(ids) + 1)] and ids
    # The model sees exactly the facts the record holds, under the same ids.
    assert [item["evidence_id"] for item in outcome.observation["items"]] == ids
    assert record.returned_count == len(ids) == outcome.control["returned_count"]
    assert record.scope == scope_of(name, FOUND[name], settings())
    assert outcome.control["evidence_status"] == "EVIDENCE_FOUND"


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_scoped_empty_result_is_ready_no_evidence_not_an_error(backends, name):
    outcome = run(backends, name, EMPTY[name], ready_count=1)
    record = outcome.record
    assert record.invocation_status is InvocationStatus.READY
    assert record.evidence_status is EvidenceStatus.NO_EVIDENCE
    assert record.error is None and record.returned_count == 0
    assert record.ready_index == 2  # still the run's 2nd READY invocation
    # "checked, found nothing" is one citable fact: the scope that matched nothing.
    [fact] = record.facts
    assert (fact.evidence_id, fact.kind) == ("E2.1", "empty")
    assert fact.text.startswith(f"{name} found nothing for ")
    assert outcome.observation["items"] == [{"evidence_id": "E2.1", "kind": "empty"}]
    # The scope as the model sees it: without null filters (they cost every later turn).
    assert outcome.observation["scope"] == {k: v for k, v in record.scope.items() if v is not None}
    assert "error" not in outcome.observation


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_tool_errors_become_error_records_and_observations(backends, name):
    args, code, text = ERRORS[name]
    outcome = run(backends, name, args, ready_count=4)
    record = outcome.record
    assert record.invocation_status is InvocationStatus.ERROR
    assert record.evidence_status is EvidenceStatus.ERROR
    assert record.facts == [] and record.ready_index is None
    assert record.error.startswith(code) and text in record.error
    assert outcome.observation["error"]["code"] == code
    assert text in outcome.observation["error"]["message"]
    # Nothing in an error observation can be cited as evidence.
    assert "items" not in outcome.observation
    assert "evidence_id" not in all_keys(outcome.observation)
    assert outcome.control["error_code"] == code


def test_unknown_tool_and_malformed_args_are_error_observations(backends):
    unknown = run(backends, "shell_exec", {"cmd": "rm -rf /"})
    assert unknown.observation["error"]["code"] == "unknown_tool"
    assert "query_logs" in unknown.observation["error"]["message"]
    # The graph strips previous_observation; a leftover one is an argument error, not ignored.
    extra = run(backends, "query_logs", {**INC1, "previous_observation": {"gain": "GAINED"}})
    assert extra.observation["error"]["code"] == "invalid_arguments"
    assert "previous_observation" in extra.observation["error"]["message"]
    not_a_dict = run(backends, "query_mysql", ["SELECT 1"])  # type: ignore[arg-type]
    assert not_a_dict.record.invocation_status is InvocationStatus.ERROR


def test_each_call_reserves_one_tool_call_and_its_raw_bytes(backends):
    s = settings()
    budget = Budget(BudgetLimits.from_settings(s))
    first = run(backends, "query_logs", INC1, s=s, budget=budget)
    second = run(backends, "lookup_knowledge", FOUND["lookup_knowledge"], s=s, budget=budget)
    assert budget.usage.tool_calls == 2
    assert budget.usage.bytes == first.record.raw_bytes + second.record.raw_bytes > 0


def test_tool_call_budget_exhausted_is_an_error_observation(backends):
    s = settings(max_tool_calls=1)
    budget = Budget(BudgetLimits.from_settings(s))
    assert run(backends, "query_logs", INC1, s=s, budget=budget).record.ready_index == 1
    second = run(backends, "query_logs", NIGHT, s=s, budget=budget)
    assert second.record.invocation_status is InvocationStatus.ERROR
    assert second.observation["error"]["code"] == "budget_exhausted"
    assert budget.usage.tool_calls == 1


def test_byte_budget_exhausted_after_execution_is_an_error(backends):
    s = settings(max_run_bytes=500)
    budget = Budget(BudgetLimits.from_settings(s))
    outcome = run(backends, "query_logs", INC1, s=s, budget=budget)
    assert outcome.observation["error"]["code"] == "budget_exhausted"
    assert outcome.record.raw_bytes > 500 and outcome.record.facts == []
    assert budget.usage.bytes == 0


def test_raw_result_over_the_limit_is_an_error_record(backends):
    s = settings(max_tool_result_bytes=2000)
    logs = run(backends, "query_logs", {**INC1, "limit": 200}, s=s)
    assert logs.observation["error"]["code"] == "result_too_large"
    assert logs.record.raw_bytes > 2000
    rows = run(backends, "query_mysql", {"sql": "SELECT * FROM payments"}, s=s)
    assert rows.observation["error"]["code"] == "result_too_large"


def test_backend_failure_is_an_error_observation(built):
    backends = Backends.open(built)
    backends.close()  # every query now fails inside sqlite3
    outcome = run(backends, "query_logs", INC1)
    assert outcome.record.invocation_status is InvocationStatus.ERROR
    assert outcome.observation["error"]["code"] == "backend_error"
    assert "closed" in outcome.observation["error"]["message"]


def test_observation_is_capped_keeping_both_ends_of_the_events(backends):
    s = settings(max_observation_bytes=3000)
    outcome = run(backends, "query_logs", {**INC1, "limit": 200}, s=s)
    text = render_observation(outcome.observation)
    assert len(text.encode()) <= 3000
    assert outcome.record.shown_bytes == len(text.encode()) == outcome.control["shown_bytes"]
    assert outcome.record.truncated and outcome.control["truncated"]
    assert outcome.record.raw_bytes > 3000
    # What the record holds is exactly what the model saw, under the same ids.
    shown = [item["evidence_id"] for item in outcome.observation["items"]]
    assert shown == [f.evidence_id for f in outcome.record.facts]
    kinds = [item["kind"] for item in outcome.observation["items"]]
    assert kinds[0] == "log_summary" and kinds[-1] == "log_event"
    # Issue 40: a cut kept only the oldest events and dropped the latest (those just before an
    # alert). Now both ends of the window are kept, and the note says how to page to the rest.
    full = run(backends, "query_logs", {**INC1, "limit": 200},
               s=settings(max_observation_bytes=1_000_000))
    events = [f.evidence_id for f in full.record.facts if f.kind == "log_event"]
    kept = [f.evidence_id for f in outcome.record.facts if f.kind == "log_event"]
    head = (len(kept) + 1) // 2
    assert kept == events[:head] + events[len(events) - (len(kept) - head):]
    assert 2 < len(kept) < len(events)
    note = outcome.observation["note"]
    assert "truncated" in note and f"offset={head}" in note


def test_offset_pages_through_the_events_left_out(backends):
    full = run(backends, "query_logs", {**INC1, "limit": 200},
               s=settings(max_observation_bytes=1_000_000))
    events = [f.data["ts"] + f.data["message"] for f in full.record.facts if f.kind == "log_event"]
    assert len(events) > 20
    # Without offset, more events than limit: the window's first 10 and last 10.
    ends = run(backends, "query_logs", INC1, s=settings())
    shown = [f.data["ts"] + f.data["message"] for f in ends.record.facts if f.kind == "log_event"]
    assert shown == events[:10] + events[-10:]
    assert f"of {len(events)} matching" in ends.observation["note"]
    assert "offset=10" in ends.observation["note"]
    page = run(backends, "query_logs", {**INC1, "offset": 10}, s=settings(), ready_count=1)
    paged = [f.data["ts"] + f.data["message"] for f in page.record.facts if f.kind == "log_event"]
    assert paged == events[10:30]  # the next 20 in time order
    assert page.record.scope["offset"] == 10  # another scope: not a duplicate of the first
    assert "events 11-30 of" in page.observation["note"]


def test_observation_that_cannot_fit_is_a_projection_error(backends):
    outcome = run(backends, "query_logs", INC1, s=settings(max_observation_bytes=200))
    assert outcome.observation["error"]["code"] == "projection_failed"
    assert outcome.record.facts == []


def test_ids_and_records_are_identical_across_two_identical_runs(built):
    calls = [("query_logs", INC1), ("query_mysql", FOUND["query_mysql"]),
             ("query_logs", NIGHT), ("lookup_knowledge", FOUND["lookup_knowledge"])]

    def one_run():
        s = settings()
        budget = Budget(BudgetLimits.from_settings(s))
        out, ready = [], 0
        with Backends.open(built) as backends:
            for i, (name, args) in enumerate(calls):
                o = run(backends, name, args, s=s, budget=budget, ready_count=ready,
                        call_id=f"call-{i}")
                ready += o.record.invocation_status is InvocationStatus.READY
                out.append((o.record.model_dump(), render_observation(o.observation)))
        return out

    first, second = one_run(), one_run()
    assert first == second
    assert [r["ready_index"] for r, _ in first] == [1, 2, 3, 4]


def test_model_view_never_contains_control_fields(backends):
    s = settings(max_observation_bytes=3000)
    outcomes = [run(backends, n, a, s=s) for n, a in FOUND.items()]
    outcomes += [run(backends, n, a, s=s) for n, a in EMPTY.items()]
    outcomes += [run(backends, n, a, s=s) for n, (a, _c, _t) in ERRORS.items()]
    outcomes.append(run(backends, "query_logs", {**INC1, "limit": 200}, s=s, stop="saturated"))
    for outcome in outcomes:
        leaked = all_keys(outcome.observation) & CONTROL_KEYS
        assert not leaked, (outcome.record.tool, leaked)
        assert set(outcome.control) >= {"evidence_status", "relevance", "returned_count",
                                        "truncated", "raw_bytes", "shown_bytes"}
    knowledge = outcomes[2]
    assert knowledge.record.relevance == "HIGH" == knowledge.control["relevance"]
    assert all("relevance" in f.data for f in knowledge.record.facts)  # kept in the record


def test_stop_required_is_shown_with_its_reason(backends):
    ok = run(backends, "query_logs", INC1, stop="information saturated: write your draft")
    assert ok.observation["stop_required"] is True
    assert ok.observation["stop_reason"] == "information saturated: write your draft"
    failed = run(backends, "query_mysql", {"sql": "DROP TABLE deploys"}, stop="budget")
    assert failed.observation["stop_required"] is True
    assert "stop_required" not in run(backends, "query_logs", INC1).observation


def test_scope_is_normalised_so_the_gate_can_spot_duplicates(backends):
    s = settings()
    a = scope_of("query_logs", {"service": " Payment-Service", "start": "2026-11-02T12:00:00+02:00",
                                "end": "2026-11-02T10:10:00Z"}, s)
    assert a == scope_of("query_logs", INC1, s)
    assert a["start"] == "2026-11-02T10:00:00Z"
    assert scope_of("query_mysql", {"sql": "select  *\nfrom deploys"}, s) == scope_of(
        "query_mysql", {"sql": "SELECT * FROM deploys"}, s)
    assert scope_of("lookup_knowledge", {"query": "The connection POOL"}, s) == scope_of(
        "lookup_knowledge", {"query": "connection pool"}, s)
    assert scope_of("query_logs", {"service": "x"}, s) is None
    outcome = run(backends, "query_mysql", {"sql": "select  *\nfrom deploys"}, s=s)
    assert outcome.record.scope == scope_of("query_mysql", {"sql": "SELECT * FROM deploys"}, s)


def test_registry_exposes_bindable_schemas_without_infrastructure_args(backends):
    assert set(TOOL_ARG_MODELS) == set(TOOL_DESCRIPTIONS) == {
        "query_logs", "query_mysql", "lookup_knowledge", "compare_windows", "onset_timeline",
        "metric_shifts", "recent_changes"}
    specs = {s["function"]["name"]: s["function"] for s in tool_schemas(backends.ops_schema())}
    logs_params = specs["query_logs"]["parameters"]
    assert set(logs_params["properties"]) == {"service", "start", "end", "pattern", "level",
                                              "offset",
                                              "limit"}
    # service is optional: a system-wide question reads every service's events (§16.2)
    assert set(logs_params["required"]) == {"start", "end"}
    assert "backends" not in str(specs) and "settings" not in str(logs_params)
    assert "config_changes(change_id" in specs["query_mysql"]["description"]
    assert all(p.get("description") for p in logs_params["properties"].values())
