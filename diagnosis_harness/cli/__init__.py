"""The ``harness`` command line: one module per command group (docs/design.md §12)."""
