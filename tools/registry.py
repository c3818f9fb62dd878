"""The evidence tools by name: argument models, model-facing descriptions, implementations.

The graph binds the tools from here (``tool_schemas()`` gives OpenAI-style function specs);
infrastructure arguments (backends, settings) are never part of a schema the model sees.
The specs are lean, because they are sent with every agent call: a short description per
tool, parameters without pydantic's titles, ``null`` alternatives and ``default: null`` (an
optional argument is simply not required), and the data's own hints (services, attributes,
tables) appended. The specs are built from static data, so they are built once per data: in
:func:`cached_specs`, the process's one cache of tool specs (the agent's, with their progress
envelope, are kept there too).
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.dataset.layout import DatasetInfo
from diagnosis_harness.tools.lookup_knowledge import LookupKnowledgeArgs, lookup_knowledge
from diagnosis_harness.tools.query_logs import QueryLogsArgs, query_logs
from diagnosis_harness.tools.query_metrics import MAX_SERIES as MAX_METRIC_SERIES
from diagnosis_harness.tools.query_metrics import QueryMetricsArgs, metrics_hint, query_metrics
from diagnosis_harness.tools.query_mysql import QueryMysqlArgs, query_mysql
from diagnosis_harness.tools.results import ToolResult, clip
from diagnosis_harness.tools.stats.changes import ChangeArgs, recent_changes
from diagnosis_harness.tools.stats.compare import WindowArgs, compare_windows
from diagnosis_harness.tools.stats.metrics import MetricArgs, metric_shifts
from diagnosis_harness.tools.stats.onset import OnsetArgs, onset_timeline

if TYPE_CHECKING:
    from diagnosis_harness.tools.backends import Backends

_MAX_LISTED = 25


@dataclass(frozen=True)
class ToolSpec:
    """One evidence tool."""

    name: str
    args_model: type[BaseModel]
    run: Callable[..., ToolResult]
    brief: str | None = None
    """What the model is told, when shorter than the implementation's docstring."""

    @property
    def description(self) -> str:
        """What the model is told: the brief, else the implementation's docstring."""
        return self.brief or inspect.getdoc(self.run) or self.name


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("query_logs", QueryLogsArgs, query_logs, brief=(
            "One service's logs in a window. Counts by level, the top warning/error patterns, "
            "then the matching events in time order. Empty: nothing matched this service, "
            "window and filter.")),
        ToolSpec("query_mysql", QueryMysqlArgs, query_mysql, brief=(
            "One read-only SELECT on the operational database. WITH and UNION allowed; no "
            "comments, writes, PRAGMA, ATTACH or schema tables. Timestamps are UTC text like "
            "'2026-11-03T10:00:00Z': compare them as strings, in single quotes (double quotes name "
            "columns). Aggregate or use WHERE / LIMIT.")),
        ToolSpec("lookup_knowledge", LookupKnowledgeArgs, lookup_knowledge, brief=(
            "Search the runbooks. The best matching passages first; empty: no runbook covers "
            "the query, not that nothing happened.")),
        # The statistics tools (docs/design.md §16.1): numbers computed from the store.
        ToolSpec("compare_windows", WindowArgs, compare_windows, brief=(
            "New and risen log patterns per service vs the time before. A pattern rose with "
            ">= 5 events and a smoothed rate ratio >= 3. For when the failing service is not "
            "known.")),
        ToolSpec("onset_timeline", OnsetArgs, onset_timeline, brief=(
            "Which service failed first. The earliest new or risen log pattern per service; "
            "with a dependency table, only the anomalous services it calls "
            "(anomalous_upstream) and that call it (anomalous_downstream).")),
        ToolSpec("metric_shifts", MetricArgs, metric_shifts, brief=(
            "Metrics that left their baseline. Per table with times and numbers, per "
            "entity/metric: medians, peak, robust z-score, first sample out; a baseline "
            "MAD of 0 gives z null, mad_zero true and its baseline_outliers counted.")),
        ToolSpec("recent_changes", ChangeArgs, recent_changes, brief=(
            "Changes before a time. Rows of any change-log table (deploys, config, flags, "
            "jobs, migrations…), most recent first; one still running then (not ended), "
            "however early it began.")),
    )
}
OPTIONAL_TOOLS: dict[str, ToolSpec] = {
    # Only where its server is configured (HARNESS_PROMETHEUS_URL): docs/design.md §17.
    "query_metrics": ToolSpec("query_metrics", QueryMetricsArgs, query_metrics, brief=(
        "Run one PromQL query on Prometheus (live metrics): a range query with start and end "
        "(its baseline, by default the window's length just before it, is read too: each "
        "series' first point out of it is its first change), or an instant query without "
        "them. Per series: labels, points, min/max/first/last and some values. At most "
        f"{MAX_METRIC_SERIES} series: aggregate (sum by, rate, topk) rather than list raw "
        "series.")),
}
"""Built-in tools a run has only when its backends enable them (:func:`enabled_tools`)."""
TOOL_ARG_MODELS: dict[str, type[BaseModel]] = {n: s.args_model for n, s in TOOLS.items()}
TOOL_DESCRIPTIONS: dict[str, str] = {n: s.description for n, s in TOOLS.items()}


def find_tool(name: str, extra: Mapping[str, ToolSpec] | None = None) -> ToolSpec | None:
    """The built-in tool ``name`` (optional ones too), else the extra one (MCP), else None.

    Whether an optional tool is enabled for a run is :func:`enabled_tools`' question.
    """
    return TOOLS.get(name) or OPTIONAL_TOOLS.get(name) or (extra or {}).get(name)


def enabled_tools(backends: Backends | None) -> frozenset[str]:
    """The built-in tools a run with ``backends`` has: every one, ``query_metrics`` if set up."""
    optional = {"query_metrics"} if getattr(backends, "prometheus", None) is not None else set()
    return frozenset(TOOLS) | optional


def metrics_description(backends: Backends | None) -> str | None:
    """The metrics ``query_metrics`` advertises (from the server, cached per client); None: off."""
    client = getattr(backends, "prometheus", None)
    return None if client is None else metrics_hint(client)


def call_settings(settings: Settings, timeout_s: float | None) -> Settings:
    """``settings`` with every per-call time limit of the tools capped at ``timeout_s``.

    The caller's time (the run's remaining deadline) bounds the SQL statement timeout, an MCP
    call and a Prometheus request as much as their own settings do.
    """
    if timeout_s is None:
        return settings
    limit = max(timeout_s, 0.001)
    return settings.model_copy(update={
        "sql_timeout_s": min(settings.sql_timeout_s, limit),
        "mcp_call_timeout_s": min(settings.mcp_call_timeout_s, limit),
        "prometheus_timeout_s": min(settings.prometheus_timeout_s, limit)})


_CACHE_SIZE = 64
_built: dict[tuple[str, str], str] = {}
"""The one cache of tool specs: JSON text by kind and :func:`specs_key` (a few per process)."""


def cached_specs(kind: str, key: str, build: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The specs ``build`` makes for ``key`` (:func:`specs_key`), built once; a fresh copy each call.

    ``kind`` tells apart specs built differently from the same data: ``"tools"``
    (:func:`tool_schemas`), ``"agent"`` (the agent's, each with its progress envelope).
    """
    text = _built.get((kind, key))
    if text is None:
        text = json.dumps(build(), ensure_ascii=False)
        if len(_built) >= _CACHE_SIZE:
            _built.clear()  # many distinct datasets in one process (tests): start over
        _built[(kind, key)] = text
    specs: list[dict[str, Any]] = json.loads(text)
    return specs


def specs_key(schema_hint: dict[str, list[str]] | None = None,
              dataset: DatasetInfo | None = None, metrics: str | None = None,
              settings: Settings | None = None) -> str:
    """Everything :func:`tool_schemas` builds its specs from, as one string (a cache key)."""
    data = None if dataset is None else [dataset.services, dataset.attributes,
                                         dataset.attribute_examples, dataset.column_labels]
    return json.dumps([schema_hint or {}, data, metrics, _limits(settings)], sort_keys=True,
                      default=list)


def _limits(settings: Settings | None) -> dict[str, int] | None:
    if settings is None:
        return None
    return {"window": settings.max_log_window_minutes, "rows": settings.max_sql_rows,
            "events": settings.log_events_default_limit}


_WINDOWED = ("query_logs", "compare_windows", "onset_timeline", "metric_shifts", "query_metrics")
"""The tools whose window is at most ``HARNESS_MAX_LOG_WINDOW_MINUTES`` long."""


def limits_text(name: str, limits: Mapping[str, int]) -> str:
    """The real limits of tool ``name`` under these settings, as its spec states them."""
    parts = []
    if name in _WINDOWED:
        parts.append(f"Window: at most {limits['window']} minutes.")
    if name == "query_logs":
        parts.append(f"Events: {limits['events']} by default; when more match, both ends of the "
                     "window; page with offset.")
    if name == "query_mysql":
        parts.append(f"At most {limits['rows']} rows. Result columns: columns, aggregates of "
                     "one, arithmetic, comparisons, date/time functions of a column, CASE with "
                     "one-word labels; no text built from literals or several values (||, "
                     "printf, replace, substr, group_concat…).")
    return (" " + " ".join(parts)) if parts else ""


def tool_list(names: Iterable[str], extra: Mapping[str, ToolSpec] | None = None) -> str:
    """One line per offered tool, for the agent's system prompt: its name and first sentence.

    Rendered from the registry (never written by hand), in the order the specs are bound, so
    the prompt names exactly the tools the model is offered; their full specs travel with the
    call.
    """
    offered = set(names)
    order = [*TOOLS, *OPTIONAL_TOOLS, *(extra or {})]
    lines = []
    for name in dict.fromkeys(n for n in order if n in offered):
        spec = find_tool(name, extra)
        if spec is None:
            continue
        lines.append(f"- {name}: {_first_sentence(spec.description)}")
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    head, dot, _ = flat.partition(". ")
    return clip(head + ("." if dot or not head.endswith(".") else ""), 200)[0]


def tool_schemas(schema_hint: dict[str, list[str]] | None = None,
                 dataset: DatasetInfo | None = None,
                 extra: Mapping[str, ToolSpec] | None = None,
                 metrics: str | None = None,
                 settings: Settings | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function specs for binding (``model.bind_tools(tool_schemas())``).

    ``schema_hint`` (``Backends.ops_schema()``) appends the allowed tables and their columns
    to ``query_mysql``'s description, so the model does not have to guess them. ``dataset``
    (the run context's dataset info) adds what this data has: the services, the log attributes
    ``query_logs`` can filter on (its ``attrs`` argument is offered only when there are some),
    and the original headers of renamed columns. The built-in specs are built once per
    distinct data; every call gets its own copy. ``extra`` (the run's MCP tools) follow the
    built-in ones (:func:`extra_schemas`). ``metrics`` (:func:`metrics_description`, not None
    only where Prometheus is configured) adds ``query_metrics``, its description ending with the
    server's metrics. ``settings`` adds each tool's real limits under them (window length, rows,
    events, result columns: :func:`limits_text`).
    """
    built = cached_specs("tools", specs_key(schema_hint, dataset, metrics, settings),
                         lambda: _build(schema_hint, dataset, metrics, _limits(settings)))
    return [*built, *extra_schemas(extra)]


def extra_schemas(extra: Mapping[str, ToolSpec] | None) -> list[dict[str, Any]]:
    """The specs of extra tools (a run's MCP tools), after the built-in ones.

    Each has its server's description and input schema as given (a server's schema is its
    own contract: not made lean); an extra tool never shadows a built-in name.
    """
    out = []
    for name, spec in (extra or {}).items():
        if name in TOOLS or name in OPTIONAL_TOOLS:
            continue
        params = spec.args_model.model_json_schema()
        params.pop("title", None)
        params.pop("description", None)
        out.append({"type": "function",
                    "function": {"name": name, "description": spec.description,
                                 "parameters": params}})
    return out


def _build(schema_hint: dict[str, list[str]] | None, dataset: DatasetInfo | None,
           metrics: str | None, limits: Mapping[str, int] | None) -> list[dict[str, Any]]:
    out = []
    optional = [OPTIONAL_TOOLS["query_metrics"]] if metrics is not None else []
    for spec in [*TOOLS.values(), *optional]:
        name = spec.name
        description = spec.description
        if limits is not None:
            description += limits_text(name, limits)
        if name == "query_metrics" and metrics:
            description += metrics
        if name == "query_logs" and dataset is not None:
            description += _log_hint(dataset)
        if name == "query_mysql" and dataset is not None and dataset.column_labels:
            # Before "Tables:", which stays the description's last paragraph.
            labels = "; ".join(f"{t}.{c} = {h!r}" for t, cols in sorted(dataset.column_labels.items())
                               for c, h in cols.items())
            description += f"\n\nColumns renamed from the original headers: {clip(labels, 1500)[0]}"
        if name == "query_mysql" and schema_hint:
            tables = "; ".join(f"{t}({', '.join(cols)})" for t, cols in sorted(schema_hint.items()))
            description += f"\n\nTables: {tables}"
        params = lean_schema(spec.args_model.model_json_schema())
        params.pop("description", None)
        if name == "query_logs" and not (dataset is not None and dataset.attributes):
            params["properties"].pop("attrs", None)  # nothing to filter on: do not offer it
        out.append({"type": "function",
                    "function": {"name": name, "description": description, "parameters": params}})
    return out


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic JSON schema as a model needs it, without what tells it nothing.

    No titles, no ``additionalProperties: false`` and no string length bounds (the arguments are
    validated anyway: a value out of bounds is an error observation the model can react to),
    and an optional field as its plain type (``anyOf [X, null]`` with ``default: null`` says no
    more than "not required").
    """
    out = copy.deepcopy(schema)
    out.pop("title", None)
    if out.get("additionalProperties") is False:
        del out["additionalProperties"]
    for prop in out.get("properties", {}).values():
        options = prop.get("anyOf")
        if isinstance(options, list) and {"type": "null"} in options and prop.get("default", 0) is None:
            rest = [o for o in options if o != {"type": "null"}]
            if len(rest) == 1:
                del prop["anyOf"], prop["default"]
                prop.update(rest[0])
        for noise in ("title", "minLength", "maxLength"):  # after unwrapping: X's bounds too
            prop.pop(noise, None)
    return out


def _log_hint(dataset: DatasetInfo) -> str:
    parts = []
    if dataset.services:
        shown = ", ".join(dataset.services[:_MAX_LISTED])
        extra = len(dataset.services) - _MAX_LISTED
        more = f" (+{extra} more)" if extra > 0 else ""
        parts.append(f"Services in these logs: {shown}{more}.")
    if dataset.attributes:
        examples = dataset.attribute_examples
        listed = ", ".join(f"{k} (e.g. {clip(examples[k], 40)[0]!r})" if k in examples else k
                           for k in dataset.attributes[:_MAX_LISTED])
        parts.append(f"Attributes you can filter on with attrs: {listed}.")
    return ("\n\n" + "\n".join(parts)) if parts else ""
