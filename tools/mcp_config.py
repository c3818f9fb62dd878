"""The MCP servers the harness may use: ``HARNESS_MCP_CONFIG`` read, checked and allow-listed.

The file has the shape MCP clients share (Claude Desktop, Cursor, LangChain's adapters)::

    {"mcpServers": {
        "opsdb": {"command": "uvx", "args": ["mcp-server-sqlite", "--db-path", "/srv/ops.db"],
                  "env": {"TOKEN": "${OPS_TOKEN}"}, "allow_unmarked": ["read_query"]},
        "metrics": {"url": "http://127.0.0.1:8000/mcp", "transport": "streamable_http",
                    "headers": {"Authorization": "Bearer ${METRICS_TOKEN}"}, "allow": ["query"]}}}

Nothing is offered unless named: ``allow`` lists tools accepted when their server marks them
read-only (``annotations.readOnlyHint``); ``allow_unmarked`` lists tools accepted although the
server does not say (the user vouches that they only read). A tool its server marks as writing
(``readOnlyHint: false`` or ``destructiveHint: true``) is never offered. ``HARNESS_MCP_ALLOW`` and
``HARNESS_MCP_ALLOW_UNMARKED`` (``server.tool,…``) add to those lists, so a config written for
another client works unchanged. ``${VAR}`` in ``env`` and ``headers`` values is read from the
environment, so secrets stay out of the file. Other keys of other clients are ignored.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from diagnosis_harness.tools.backends import BackendUnavailable

logger = logging.getLogger(__name__)

SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
"""Server names become part of tool names (``mcp_<server>_<tool>``), so they stay short and plain."""
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HTTP = {"streamable_http", "streamable-http", "http"}
_OWN_KEYS = {"command", "args", "env", "cwd", "url", "headers", "transport", "type", "allow",
             "allow_unmarked", "disabled"}


class McpUnavailable(BackendUnavailable):
    """The MCP configuration or a configured server cannot be used; the message says which."""


@dataclass(frozen=True)
class McpServer:
    """One configured server: how to reach it and which of its tools may be offered."""

    name: str
    transport: str
    """``stdio`` or ``streamable_http``."""
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] | None = None
    allow: frozenset[str] = frozenset()
    """Tools accepted when their server marks them read-only."""
    allow_unmarked: frozenset[str] = frozenset()
    """Tools accepted although their server does not mark them read-only."""

    @property
    def wanted(self) -> frozenset[str]:
        """Every tool name the user accepts from this server."""
        return self.allow | self.allow_unmarked

    def connection(self) -> dict[str, Any]:
        """The streamable-HTTP connection in ``langchain-mcp-adapters``' shape."""
        conn: dict[str, Any] = {"transport": "streamable_http", "url": self.url}
        if self.headers:
            conn["headers"] = dict(self.headers)
        return conn


def read_config(path: Path, *, allow: str | None = None,
                allow_unmarked: str | None = None) -> list[McpServer]:
    """The servers of the file at ``path`` with the settings' allow entries added.

    Raises :class:`McpUnavailable` naming the setting, the server and what to change.
    """
    where = f"HARNESS_MCP_CONFIG {path}"
    try:
        body = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise McpUnavailable(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise McpUnavailable(f"{where}: not JSON ({exc})") from None
    entries = body.get("mcpServers") if isinstance(body, dict) else None
    if not isinstance(entries, dict):
        raise McpUnavailable(f'{where}: expected {{"mcpServers": {{"name": {{…}}}}}}')
    extra = _setting_entries("HARNESS_MCP_ALLOW", allow, entries)
    extra_unmarked = _setting_entries("HARNESS_MCP_ALLOW_UNMARKED", allow_unmarked, entries)
    servers = []
    for name, entry in entries.items():
        if not isinstance(entry, dict):
            raise McpUnavailable(f"{where}: server {name!r} must be an object")
        if entry.get("disabled") is True:
            continue
        server = _server(f"{where}: server {name!r}", name, entry)
        servers.append(replace(
            server, allow=server.allow | extra.get(name, frozenset()),
            allow_unmarked=server.allow_unmarked | extra_unmarked.get(name, frozenset())))
    return servers


def _setting_entries(setting: str, value: str | None,
                     entries: dict[str, Any]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for part in (p.strip() for p in (value or "").split(",")):
        if not part:
            continue
        server, dot, tool = part.partition(".")
        if not dot or not server or not tool:
            raise McpUnavailable(f"{setting}: {part!r} must be server.tool")
        if server not in entries:
            raise McpUnavailable(f"{setting}: no server {server!r} in HARNESS_MCP_CONFIG "
                                 f"(servers: {', '.join(entries) or 'none'})")
        out.setdefault(server, set()).add(tool)
    return {k: frozenset(v) for k, v in out.items()}


def _server(where: str, name: str, entry: dict[str, Any]) -> McpServer:
    if not SERVER_NAME.match(name):
        raise McpUnavailable(f"{where}: a server name is 1-32 letters, digits, '_' or '-'")
    ignored = sorted(set(entry) - _OWN_KEYS)
    if ignored:
        logger.info("%s: ignoring %s", where, ", ".join(ignored))
    allow = _names(where, entry, "allow")
    allow_unmarked = _names(where, entry, "allow_unmarked")
    transport = str(entry.get("transport") or entry.get("type")
                    or ("stdio" if "command" in entry else "streamable_http"))
    if transport == "stdio":
        command = entry.get("command")
        args = entry.get("args", [])
        if not isinstance(command, str) or not command.strip():
            raise McpUnavailable(f"{where}: 'command' must name the program to start")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise McpUnavailable(f"{where}: 'args' must be a list of strings")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise McpUnavailable(f"{where}: 'cwd' must be a folder path")
        return McpServer(name, "stdio", command=command, args=tuple(args), cwd=cwd,
                         env=_strings(where, entry, "env"), allow=allow,
                         allow_unmarked=allow_unmarked)
    if transport in _HTTP:
        url = entry.get("url")
        if not isinstance(url, str) or not re.match(r"https?://", url):
            raise McpUnavailable(f"{where}: 'url' must be an http:// or https:// URL")
        return McpServer(name, "streamable_http", url=url, headers=_strings(where, entry, "headers"),
                         allow=allow, allow_unmarked=allow_unmarked)
    raise McpUnavailable(f"{where}: transport {transport!r} is not supported "
                         "(stdio with 'command', or streamable_http with 'url')")


def _names(where: str, entry: dict[str, Any], key: str) -> frozenset[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise McpUnavailable(f"{where}: '{key}' must be a list of tool names")
    return frozenset(value)


def _strings(where: str, entry: dict[str, Any], key: str) -> dict[str, str] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpUnavailable(f"{where}: '{key}' must be an object of strings")

    def expand(match: re.Match[str]) -> str:
        var = match.group(1)
        if var not in os.environ:
            raise McpUnavailable(f"{where}: {key} uses ${{{var}}}, which is not set")
        return os.environ[var]

    return {str(k): _VAR.sub(expand, v) for k, v in value.items()}
