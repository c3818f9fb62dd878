"""Posting a run's outcome back where its alert came from, once (docs/design.md §17)."""
