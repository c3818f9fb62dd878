"""Evidence tools from MCP servers (``HARNESS_MCP_CONFIG``), behind the same boundary as the others.

Loaded once per process (:func:`load_mcp_tools`, called by ``diagnosis_harness.session.services``): every
configured
server with allow-listed tools is started once to list its tools (``langchain-mcp-adapters``
converts them, annotations included); the ones that may be offered (:mod:`diagnosis_harness.tools.mcp_config`)
become :class:`~diagnosis_harness.tools.registry.ToolSpec` entries named ``mcp_<server>_<tool>``. The run
context
carries them: the model sees them among the evidence tools, the tool gate knows them, and
:func:`diagnosis_harness.tools.boundary.execute_tool` runs them on the one path every tool takes — budget,
argument
check (the server's own JSON schema here), duplicate scope, byte caps, ``E<k>.<i>`` facts, model
and control views — so the guards verify MCP evidence exactly like built-in evidence.

Each call opens its own session (a stdio server is started for the call and stopped after it) on
a private event loop, bounded by ``HARNESS_MCP_CALL_TIMEOUT_S`` and the run's remaining deadline
(:func:`diagnosis_harness.tools.mcp_results.run_bounded`). A stdio server's stderr goes to
``$HARNESS_HOME/mcp/<server>.log`` (the latest session's), never to the terminal.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from langchain_core.tools import ToolException
from pydantic import BaseModel, ConfigDict, model_validator

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.mcp_config import McpServer, McpUnavailable, read_config
from diagnosis_harness.tools.mcp_results import one_line, run_bounded, to_result
from diagnosis_harness.tools.registry import TOOLS, ToolSpec
from diagnosis_harness.tools.results import ToolInputError, ToolResult, clip

if TYPE_CHECKING:
    from langchain_core.messages import ToolMessage

    from diagnosis_harness.tools.backends import Backends

__all__ = ["McpArgs", "McpCall", "McpToolError", "McpUnavailable", "load_mcp_tools"]

ENVELOPE = "previous_observation"
"""The progress envelope's argument name, which an MCP tool may not use for its own."""
MAX_ARGS_BYTES = 8 * 1024
MAX_DESCRIPTION_CHARS = 1500
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
"""What model APIs accept as a function name."""


class McpToolError(ToolInputError):
    """The MCP server answered the call with an error result (``isError``)."""

    code = "tool_error"


def load_mcp_tools(settings: Settings) -> dict[str, ToolSpec]:
    """The evidence tools of the configured MCP servers, by harness name ({} without a config).

    Raises :class:`McpUnavailable` (one line, naming the server) when the config is malformed, a
    server cannot be started or listed in time, or an allow-listed tool is missing or may not be
    offered. A server with nothing allowed is never started.
    """
    if settings.mcp_config is None:
        return {}
    servers = [s for s in read_config(settings.mcp_config, allow=settings.mcp_allow,
                                      allow_unmarked=settings.mcp_allow_unmarked) if s.wanted]
    if not servers:
        return {}
    if any(importlib.util.find_spec(m) is None for m in ("mcp", "langchain_mcp_adapters")):
        raise McpUnavailable("HARNESS_MCP_CONFIG needs the mcp extra: "
                             "pip install -e '.[mcp]' in the harness's repository")
    logs = Path(settings.home) / "mcp"
    logs.mkdir(parents=True, exist_ok=True)
    timeout = settings.mcp_start_timeout_s
    listed: dict[str, list[Any]] = {}
    try:  # each server has `timeout` of its own; the caller learns no later than a second after
        run_bounded(lambda: _list_all(servers, logs, timeout, listed), timeout + 1.0,
                    "starting the MCP servers", cancel=False)
    except TimeoutError:  # a server is still being stopped: after its listing, or after a timeout
        late = [s for s in servers if s.name not in listed]
        if late:
            raise McpUnavailable(_late(late[0], logs, timeout)) from None
    specs: dict[str, ToolSpec] = {}
    for server in servers:
        for spec in _offered(server, listed[server.name], logs):
            if spec.name in specs or spec.name in TOOLS:
                raise McpUnavailable(f"MCP tool name {spec.name!r} comes twice; rename a server")
            specs[spec.name] = spec
    return specs


async def _list_all(servers: list[McpServer], logs: Path, timeout: float,
                    listed: dict[str, list[Any]]) -> None:
    """Fill ``listed`` with each server's tools as soon as it has listed them."""
    from langchain_mcp_adapters.tools import load_mcp_tools as adapter_tools

    async def one(server: McpServer) -> None:
        try:
            async with asyncio.timeout(timeout), open_session(server, logs) as session:
                # Kept at once: what follows is only the server's clean-up.
                listed[server.name] = await adapter_tools(session, server_name=server.name,
                                                          handle_tool_errors=False)
        except TimeoutError:
            if server.name not in listed:  # (listed, then slow to stop, is fine)
                raise McpUnavailable(_late(server, logs, timeout)) from None
        except Exception as exc:  # noqa: BLE001 — any start-up failure is this one line
            raise McpUnavailable(f"MCP server {server.name!r} could not be started: "
                                 f"{one_line(exc)}{_stderr(server, logs)}") from None

    await asyncio.gather(*(one(s) for s in servers))


def _late(server: McpServer, logs: Path, timeout: float) -> str:
    return (f"MCP server {server.name!r} did not list its tools within {timeout:g} s"
            f"{_stderr(server, logs)}")


def _stderr(server: McpServer, logs: Path) -> str:
    return f" (its stderr: {logs / server.name}.log)" if server.transport == "stdio" else ""


@asynccontextmanager
async def open_session(server: McpServer, logs: Path) -> AsyncIterator[Any]:
    """An initialised MCP client session with ``server`` (stdio: the server runs until exit)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if server.transport == "stdio":
        params = StdioServerParameters(command=server.command, args=list(server.args),
                                       env=server.env, cwd=server.cwd)
        with open(logs / f"{server.name}.log", "w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                yield session
        return
    from langchain_mcp_adapters.sessions import create_session

    async with create_session(server.connection()) as session:  # type: ignore[arg-type]
        await session.initialize()
        yield session


def _offered(server: McpServer, tools: list[Any], logs: Path) -> list[ToolSpec]:
    """The allow-listed tools of ``server`` as tool specs; McpUnavailable if one may not be."""
    available = {t.name: t for t in tools}
    missing = sorted(server.wanted - available.keys())
    if missing:
        raise McpUnavailable(f"MCP server {server.name!r} has no tool {', '.join(map(repr, missing))} "
                             f"(it offers: {', '.join(sorted(available)) or 'nothing'})")
    specs = []
    for name in sorted(server.wanted):
        tool = available[name]
        where = f"MCP server {server.name!r}, tool {name!r}"
        hints = tool.metadata or {}
        read_only, destructive = hints.get("readOnlyHint"), hints.get("destructiveHint")
        if read_only is False or (read_only is not True and destructive is True):
            raise McpUnavailable(f"{where}: its server marks it as writing, so it is never "
                                 "offered; remove it from the allow lists")
        if read_only is not True and name not in server.allow_unmarked:
            raise McpUnavailable(f"{where}: its server does not mark it read-only; list it "
                                 "under allow_unmarked if you know it only reads")
        specs.append(_spec(server, name, tool.description or "", tool.args_schema, logs, where))
    return specs


def _spec(server: McpServer, tool: str, description: str, schema: object, logs: Path,
          where: str) -> ToolSpec:
    name = f"mcp_{server.name}_{re.sub(r'[^A-Za-z0-9_-]', '_', tool)}"
    if not _TOOL_NAME.match(name):
        raise McpUnavailable(f"{where}: {name!r} is over 64 characters; use a shorter server name")
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise McpUnavailable(f"{where}: its input schema does not describe a JSON object")
    if ENVELOPE in (schema.get("properties") or {}):
        raise McpUnavailable(f"{where}: it has an argument {ENVELOPE!r}, which the harness reserves")
    schema = {"type": "object", "properties": {}, **copy.deepcopy(schema)}
    return ToolSpec(name, _args_model(name, schema, where),
                    McpCall(server, tool, description, schema, logs))


class McpArgs(BaseModel):
    """Arguments of one MCP tool, checked against its server's JSON schema (a subclass per tool)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    input_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    validator: ClassVar[Any] = None
    """A ``jsonschema`` validator of ``input_schema``."""

    @model_validator(mode="before")
    @classmethod
    def _matches_schema(cls, data: object) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise ValueError("arguments must be a JSON object")
        try:
            size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        except (TypeError, ValueError):
            raise ValueError("arguments must be JSON values") from None
        if size > MAX_ARGS_BYTES:
            raise ValueError(f"arguments take {size} bytes; at most {MAX_ARGS_BYTES} are accepted")
        if cls.validator is None:
            return data
        try:
            problems = sorted(
                (".".join(str(p) for p in e.absolute_path) + ": " if e.absolute_path else "")
                + clip(e.message, 200)[0] for e in cls.validator.iter_errors(data))
        except Exception as exc:  # noqa: BLE001 — e.g. a $ref the schema cannot resolve
            raise ValueError(f"the tool's schema cannot check them ({one_line(exc)})") from None
        if problems:
            raise ValueError("; ".join(problems[:5]))
        return data

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope: the arguments as JSON, keys sorted."""
        return json.loads(json.dumps(self.model_dump(), sort_keys=True, ensure_ascii=False))

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The server's input schema: exactly what the model is offered."""
        return copy.deepcopy(cls.input_schema)


def _args_model(name: str, schema: dict[str, Any], where: str) -> type[McpArgs]:
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import SchemaError

    checker = validators.validator_for(schema, default=Draft202012Validator)
    try:
        checker.check_schema(schema)
    except SchemaError as exc:
        raise McpUnavailable(f"{where}: its input schema is invalid: {clip(exc.message, 200)[0]}") from None
    return type(f"McpArgs_{name}", (McpArgs,),
                {"input_schema": schema, "validator": checker(schema), "__module__": __name__})


class McpCall:
    """Calls one allow-listed MCP tool: the ``run`` of its ToolSpec, documented by its server."""

    def __init__(self, server: McpServer, tool: str, description: str, schema: dict[str, Any],
                 logs: Path) -> None:
        self.server, self.tool, self.schema, self.logs = server, tool, schema, logs
        self.description = description
        told = clip(description.strip(), MAX_DESCRIPTION_CHARS)[0] or f"The {tool} tool."
        # What the model is told (ToolSpec.description reads the docstring), with its origin.
        self.__doc__ = f"{told}\n\n(Tool {tool!r} of MCP server {server.name!r}.)"

    def __call__(self, _backends: Backends | None, settings: Settings, /, **arguments: object) -> ToolResult:
        """Call the tool once, within ``settings.mcp_call_timeout_s`` (already deadline-capped)."""
        scope = json.loads(json.dumps(arguments, sort_keys=True, ensure_ascii=False))
        what = f"MCP tool {self.tool!r} of server {self.server.name!r}"
        try:
            message = run_bounded(lambda: self._call(arguments), settings.mcp_call_timeout_s, what)
        except TimeoutError:
            raise
        except ToolException as exc:  # the server's isError result
            raise McpToolError(f"{what} answered with an error: {clip(str(exc), 500)[0]}") from None
        except Exception as exc:  # noqa: BLE001 — a crash, a refused start, a broken stream
            raise RuntimeError(f"{what} failed: {one_line(exc)}") from None
        return to_result(scope, message.content, getattr(message, "artifact", None),
                         settings.max_tool_result_bytes)

    async def _call(self, arguments: dict[str, Any]) -> ToolMessage:
        from langchain_mcp_adapters.tools import convert_mcp_tool_to_langchain_tool
        from mcp.types import Tool

        definition = Tool(name=self.tool, description=self.description, inputSchema=self.schema)
        answer: ToolMessage | None = None
        failure: BaseException | None = None
        async with open_session(self.server, self.logs) as session:
            tool = convert_mcp_tool_to_langchain_tool(session, definition, handle_tool_errors=False,
                                                      server_name=self.server.name)
            try:
                answer = await tool.ainvoke({"type": "tool_call", "name": self.tool,
                                             "args": arguments, "id": "harness"})
            except Exception as exc:  # noqa: BLE001 — raised after the session closed
                failure = exc  # (a closing session may swallow an error raised inside it)
        if failure is not None:
            raise failure
        if answer is None:
            raise RuntimeError("the session ended without an answer")
        return answer
