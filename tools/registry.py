"""The evidence tools by name: argument models, model-facing descriptions, implementations.

The graph binds the tools from here (``tool_schemas()`` gives OpenAI-style function specs);
infrastructure arguments (backends, settings) are never part of a schema the model sees.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from harness.settings import Settings
from tools.dataset.layout import DatasetInfo
from tools.lookup_knowledge import LookupKnowledgeArgs, lookup_knowledge
from tools.query_logs import QueryLogsArgs, query_logs
from tools.query_mysql import QueryMysqlArgs, query_mysql
from tools.results import ToolResult, clip

_MAX_LISTED = 25


@dataclass(frozen=True)
class ToolSpec:
    """One evidence tool."""

    name: str
    args_model: type[BaseModel]
    run: Callable[..., ToolResult]

    @property
    def description(self) -> str:
        """The implementation's docstring: exactly what the model is told."""
        return inspect.getdoc(self.run) or self.name


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("query_logs", QueryLogsArgs, query_logs),
        ToolSpec("query_mysql", QueryMysqlArgs, query_mysql),
        ToolSpec("lookup_knowledge", LookupKnowledgeArgs, lookup_knowledge),
    )
}
TOOL_ARG_MODELS: dict[str, type[BaseModel]] = {n: s.args_model for n, s in TOOLS.items()}
TOOL_DESCRIPTIONS: dict[str, str] = {n: s.description for n, s in TOOLS.items()}


def find_tool(name: str, extra: Mapping[str, ToolSpec] | None = None) -> ToolSpec | None:
    """The built-in tool ``name``, else the extra one (MCP tools of the run), else None."""
    return TOOLS.get(name) or (extra or {}).get(name)


def call_settings(settings: Settings, timeout_s: float | None) -> Settings:
    """``settings`` with every per-call time limit of the tools capped at ``timeout_s``.

    The caller's time (the run's remaining deadline) bounds the SQL statement timeout and an
    MCP call as much as their own settings do.
    """
    if timeout_s is None:
        return settings
    limit = max(timeout_s, 0.001)
    return settings.model_copy(update={
        "sql_timeout_s": min(settings.sql_timeout_s, limit),
        "mcp_call_timeout_s": min(settings.mcp_call_timeout_s, limit)})


def tool_schemas(schema_hint: dict[str, list[str]] | None = None,
                 dataset: DatasetInfo | None = None,
                 extra: Mapping[str, ToolSpec] | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function specs for binding (``model.bind_tools(tool_schemas())``).

    ``schema_hint`` (``Backends.ops_schema()``) appends the allowed tables and their columns
    to ``query_mysql``'s description, so the model does not have to guess them. ``dataset``
    (the run context's dataset info) adds what this data has: the services, the log attributes
    ``query_logs`` can filter on (its ``attrs`` argument is offered only when there are some),
    and the original headers of renamed columns. ``extra`` (the run's MCP tools) follow the
    built-in ones, each with its server's description and input schema.
    """
    out = []
    extras = [(n, s) for n, s in (extra or {}).items() if n not in TOOLS]
    for name, spec in [*TOOLS.items(), *extras]:
        description = spec.description
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
        params = spec.args_model.model_json_schema()
        params.pop("title", None)
        params.pop("description", None)
        if name == "query_logs" and not (dataset is not None and dataset.attributes):
            params["properties"].pop("attrs", None)  # nothing to filter on: do not offer it
        out.append({"type": "function",
                    "function": {"name": name, "description": description, "parameters": params}})
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
