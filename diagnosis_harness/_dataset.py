"""Incident datasets written from Python: log rows, tables and runbooks → a dataset folder.

The folder is in the format ``harness data load`` reads (docs/design.md §11) and is checked by
the same loader, so a bad row fails here, naming its file and line, not in the middle of a run.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from diagnosis_harness._run import ConfigurationError
from diagnosis_harness.tools.dataset.build import load_dataset
from diagnosis_harness.tools.dataset.format import DatasetError

LogRow = Mapping[str, Any]
"""One log event: ``ts`` (ISO-8601 with an offset), ``service``, ``level``, ``message`` and
optional ``attrs`` (an object)."""


def write_dataset(directory: str | Path, *, logs: Iterable[LogRow] = (),
                  tables: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                  runbooks: Mapping[str, str] | None = None, name: str | None = None,
                  description: str | None = None) -> Path:
    """Write a dataset folder and check it loads; returns the folder.

    ``tables``: table name → rows (dicts; the columns are the keys of the rows, in first-seen
    order; None becomes an empty cell). ``runbooks``: document id → Markdown (a ``# Title``,
    then ``## `` sections). Raises :class:`ConfigurationError` listing every problem.
    """
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(dict(row), ensure_ascii=False) for row in logs]
    (root / "logs.jsonl").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    if tables:
        (root / "tables").mkdir(exist_ok=True)
        for table, rows in tables.items():
            (root / "tables" / f"{table}.csv").write_text(_csv(rows), encoding="utf-8")
    if runbooks:
        (root / "knowledge").mkdir(exist_ok=True)
        for doc_id, text in runbooks.items():
            (root / "knowledge" / f"{doc_id}.md").write_text(text, encoding="utf-8")
    manifest = {k: v for k, v in (("name", name), ("description", description)) if v is not None}
    if manifest:
        (root / "dataset.json").write_text(json.dumps(manifest), encoding="utf-8")
    return check_dataset(root)


def check_dataset(directory: str | Path) -> Path:
    """Check that a dataset folder loads (as ``harness data load`` does); returns it."""
    root = Path(directory)
    with tempfile.TemporaryDirectory(prefix="harness-dataset-check-") as scratch:
        try:
            load_dataset(root, Path(scratch) / "build")
        except DatasetError as exc:
            raise ConfigurationError(str(exc)) from exc
    return root


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else row[c] for c in columns])
    return buffer.getvalue()
