"""Read-only evidence tools over embedded SQLite backends, and the boundary that runs them.

The graph uses :func:`tools.boundary.execute_tool` (never the tool functions directly),
:data:`tools.registry.TOOL_ARG_MODELS` / :func:`tools.registry.tool_schemas` to bind them, and
:func:`tools.dataset.build.ensure_dataset` (build) then :meth:`tools.backends.Backends.open` (open
only) to reach the data.
"""
