"""Shared fixtures: hermetic settings, a guard that forbids real network model calls, backends.

And the suite's tiers, assigned here in one table (:data:`TIERS`) by test file, so no test file
carries its own: ``unit`` (functions on hand-built values, seconds), ``graph`` (the compiled
graph on in-memory or SQLite stores, scripted models), ``integration`` (real servers and
processes: ``langgraph dev``, PostgreSQL, Prometheus, a browser, HTTP stubs, subprocesses) and
``worlds`` (the generated incident worlds, the README's fresh install: the slowest). A test of a
lower tier that asks for PostgreSQL is lifted to ``integration``. ``.ci/run`` runs ``-m unit``
first and stops on its failure, then the rest on three workers.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from pg import pg_server, pg_session_url, pg_url  # noqa: F401 — registers the PostgreSQL fixtures

TIERS: dict[str, frozenset[str]] = {
    "unit": frozenset({
        "backends", "causal_traps", "checkpoint_group_commit", "ci_schedule", "cli_startup", "dataset_demo",
        "dataset_extremes", "dataset_formats", "dataset_import", "dataset_loader", "docs",
        "graph_drawing", "guards_evidence", "guards_parsing", "import_dates", "incident_phrasings",
        "import_k8s_nginx_syslog", "import_real_shapes", "lifecycle_budget", "localize", "lock_holder",
        "metric_triage", "player_frictions", "prompts", "prompts_frictions", "retry",
        "router_windows", "routing_release", "serving_loops",
        "store_batches", "tiers", "timeutil", "tools_boundary", "tools_lookup_knowledge", "tools_query_logs",
        "tools_query_mysql", "tools_statistics", "tools_statistics_hours", "triage_digest",
        "window_readings",
    }),
    "graph": frozenset({
        "checkpoint_growth", "checkpoint_types", "computed_views", "continuations", "empty_evidence",
        "fuzz", "gate_order", "graph_seams", "guards_semantic", "input_limits", "judge_revision",
        "local_model", "nodes_unit", "offline_protocols", "offline_rules", "one_door",
        "public_langgraph", "record_index", "release_deadline", "report_golden", "report_verified",
        "revision_message",
        "resume", "routing_tolerant", "run_session", "sql_forging", "sql_safety", "state_records",
        "stubborn", "system_wide", "tools_statistics_release", "untrusted_text",
    }),
    "integration": frozenset({
        "agent_prompt", "alert_intake", "alert_poison", "alert_posts", "alerts_lost_worker",
        "alerts_served", "alerts_workers", "approval_record", "benchmark", "checkpoints",
        "cli_database", "cli_errors", "cli_imports", "context_budget", "dataset_links", "doc_examples",
        "eval",
        "eval_api", "eval_browser", "eval_docs", "eval_models", "eval_ranking", "eval_reports",
        "eval_resume", "final_turn", "graph_invariants", "graph_matrix", "home_disk", "hostile_limits",
        "import_limits", "json_protocol", "judge_model", "kill_durability", "knowledge_repeats",
        "layers", "turn_calls",
        "llm_transcripts", "many_workers", "mcp", "models", "offline", "ops_postgres", "promkit",
        "promql_forging", "public_api", "pytest_plugin", "query_metrics", "real_data",
        "resume_processes", "routing_scale", "run_views", "runstore_backends", "secrets",
        "serve_clean_start", "serve_kill", "serve_signals", "server_auth", "serving", "serving_import",
        "serving_postgres", "settings_bounds", "smoke_script", "state_edits", "store", "store_outage",
        "structured_output", "studio", "studio_approval", "terminal_output", "tools_statistics_scale",
        "wheel_install", "baseline_bounds", "baseline_onset", "metric_constant_baseline",
        "model_unreachable", "model_view", "offline_follow_ups", "recent_changes_running",
        "router_since", "served_degraded", "silent_baseline", "slack_posts", "suspect_ranking",
        "written_dates", "dependency_suspects", "offline_origin", "fallback_stopped_short",
    }),
    "worlds": frozenset({
        "blind_worlds", "canon", "canon_scores", "localize_worlds", "pattern_facts",
        "readme_quickstart", "world_cache", "worlds",
    }),
}
"""Each test file's tier, by its name without ``test_`` and ``.py``. A file not listed is
``integration`` (run, but not in the fast tier) until it is given a tier here. Timing assertions
stay out of ``unit``: the fast tier must not fail because the machine is busy."""

LONGEST_FIRST: tuple[str, ...] = (
    "state_edits", "resume_processes", "localize_worlds", "pattern_facts", "doc_examples", "eval",
    "alerts_served", "alerts_lost_worker", "canon_scores", "approval_record", "blind_worlds",
    "eval_docs", "checkpoints", "eval_browser", "studio", "mcp", "many_workers", "home_disk",
    "structured_output", "tools_statistics_scale", "cli_errors", "llm_transcripts", "eval_resume",
    "run_views", "offline_rules", "serving", "graph_invariants", "model_unreachable", "canon",
    "readme_quickstart", "server_auth", "fuzz", "store_outage", "graph_matrix", "eval_ranking",
    "studio_approval", "alert_posts", "alerts_workers", "wheel_install", "serve_signals",
    "serving_postgres", "benchmark", "import_limits", "serve_kill", "promkit",
)
"""The files of the second tier that take longest, longest first: each file's test durations
summed from a clean clone's ``.ci/run`` with ``--durations=0``, three workers on two cores; the
files of 14 s or more). ``canon_scores``, ``eval_ranking`` and ``llm_transcripts`` are placed by
estimate: the canon's build has since left the tier, and its two canon-wide runs became one.
Under ``-n 3 --dist loadfile`` they are handed out first and the short files fill in at the end.
xdist's own order is by number of tests, most first: the files of one to three tests that run a
minute each (``home_disk``, ``eval_browser``, ``readme_quickstart``, ``wheel_install``…) came
last and could leave one worker running alone at the end."""


_LIFTED_BY = frozenset({"pg_url", "pg_session_url", "pg_server"})
"""Fixtures of a real PostgreSQL: a test that uses one is an integration test."""


def tier_of(item: pytest.Item) -> str:
    """The tier of one collected test: its file's, lifted to ``integration`` by PostgreSQL."""
    name = item.path.name.removeprefix("test_").removesuffix(".py")
    tier = next((t for t, files in TIERS.items() if name in files), "integration")
    params = getattr(getattr(item, "callspec", None), "params", {})
    fixtures = set(getattr(item, "fixturenames", ()))
    # A fixture parametrized "sqlite"/"postgres" (the ``backend`` fixture, a module's own).
    if tier in ("unit", "graph") and (fixtures & _LIFTED_BY or "postgres" in params.values()):
        return "integration"
    return tier


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the files of :data:`LONGEST_FIRST` first, in its order; each file's tests
    keep their order, and the other files theirs (a stable sort: every worker gets the same)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def key(item: pytest.Item) -> int:
        return rank.get(item.path.name.removeprefix("test_").removesuffix(".py"), len(rank))

    return sorted(items, key=key)


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadfile":
        # The files go out in the order the workers collected them (longest_first), not by
        # their number of tests.
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(tier_of(item))
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the schedule's
        items[:] = longest_first(items)


_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"tests may not reach the network ({host}); use a local stub")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No developer .env, no HARNESS_/OPENAI_ variables, no traffic off this machine."""
    for key in list(os.environ):
        if key.startswith(("HARNESS_", "OPENAI_")):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Run the test once per backend: run store and checkpointer on SQLite, then on PostgreSQL.

    A module opts in with ``pytestmark = pytest.mark.usefixtures("backend")``; graphkit's
    ``go``/``run``/``services_for`` then use the backend's store and checkpointer.
    """
    import graphkit

    if request.param == "postgres":
        chosen = graphkit.Backend("postgres", request.getfixturevalue("pg_session_url"))
    else:
        chosen = graphkit.Backend("sqlite")
    graphkit.BACKEND = chosen
    try:
        yield chosen
    finally:
        graphkit.BACKEND = None
