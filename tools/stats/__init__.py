"""Evidence tools that do the statistics (docs/design.md §16.1).

``compare_windows`` and ``onset_timeline`` read the log store (one SQL aggregation over the
build's per-event patterns); ``metric_shifts`` and ``recent_changes`` read the operational
database, whose tables they recognise from its schema and a sample of rows (:mod:`.schema`).
Every number a row shows is computed from the store by the tool, deterministically, so release
can compute it again and refuse a record whose numbers do not come out the same
(``diagnosis_harness.tools.recompute``).
"""
