"""Read-only evidence tools over the dataset's backends (SQLite, or a real ops database), and the boundary.

The graph uses :func:`~diagnosis_harness.tools.boundary.execute_tool` (never the tool functions
directly), :data:`~diagnosis_harness.tools.registry.TOOL_ARG_MODELS` /
:func:`~diagnosis_harness.tools.registry.tool_schemas` to bind them, and
:func:`~diagnosis_harness.tools.dataset.build.ensure_dataset` (build) then
:meth:`~diagnosis_harness.tools.backends.Backends.open` (open only) to reach the data.
"""
