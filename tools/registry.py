"""The evidence tools by name: argument models, model-facing descriptions, implementations.

The graph binds the tools from here (``tool_schemas()`` gives OpenAI-style function specs);
infrastructure arguments (backends, settings) are never part of a schema the model sees.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tools.lookup_knowledge import LookupKnowledgeArgs, lookup_knowledge
from tools.query_logs import QueryLogsArgs, query_logs
from tools.query_mysql import QueryMysqlArgs, query_mysql
from tools.results import ToolResult


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


def tool_schemas(schema_hint: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function specs for binding (``model.bind_tools(tool_schemas())``).

    ``schema_hint`` (``Backends.ops_schema()``) appends the allowed tables and their columns
    to ``query_mysql``'s description, so the model does not have to guess them.
    """
    out = []
    for name, spec in TOOLS.items():
        description = spec.description
        if name == "query_mysql" and schema_hint:
            tables = "; ".join(f"{t}({', '.join(cols)})" for t, cols in sorted(schema_hint.items()))
            description += f"\n\nTables: {tables}"
        params = spec.args_model.model_json_schema()
        params.pop("title", None)
        params.pop("description", None)
        out.append({"type": "function",
                    "function": {"name": name, "description": description, "parameters": params}})
    return out
