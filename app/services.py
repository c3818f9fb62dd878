"""What the runs of one process share: settings, model seam, tool backends, dataset, run store.

Built once per process by whoever runs the graph: the CLI for its one turn, the serving adapter
for all the runs of the server, tests for theirs; the MCP servers' tools are listed then too. A
run's own pieces (lifecycle, event emitter) are made per run by :func:`app.runner.new_context`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import prompts
from harness.runstore import RunStore, SqliteRunStore
from harness.settings import Settings
from providers.seam import ModelSeam

RUN_STORE_FILE = "runs.sqlite"
"""The run store's file under the settings' home."""


@dataclass
class Services:
    """What runs share within one process: settings, models, backends, dataset, store."""

    settings: Settings
    seam: ModelSeam
    backends: Any
    dataset: Any
    store: RunStore
    mcp_tools: dict[str, Any] = field(default_factory=dict)
    """Evidence tools from MCP servers by harness name (``tools.registry.ToolSpec``)."""

    @classmethod
    def from_settings(cls, settings: Settings, *, seam: ModelSeam | None = None,
                      store: RunStore | None = None) -> Services:
        """Open everything a run needs; errors are the classified ones of each piece."""
        from tools.backends import Backends
        from tools.dataset.build import ensure_dataset
        from tools.mcp import load_mcp_tools

        seam = seam or ModelSeam(settings, prompt_renderer=prompts.render)
        ensure_dataset(settings)  # build (or reuse) first: opening backends never builds
        backends = Backends.from_settings(settings)  # honours ops_db_url / ops_tables
        Path(settings.home).mkdir(parents=True, exist_ok=True)
        try:
            mcp_tools = load_mcp_tools(settings)  # HARNESS_MCP_CONFIG; {} without one
        except BaseException:
            backends.close()
            raise
        return cls(settings=settings, seam=seam, backends=backends, dataset=backends.info,
                   store=store or SqliteRunStore(Path(settings.home) / RUN_STORE_FILE),
                   mcp_tools=mcp_tools)
