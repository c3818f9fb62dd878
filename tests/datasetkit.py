"""Write a small dataset folder, as ``harness dataset`` reads one, and open it built.

The folder: ``dataset.json`` (name, description), ``logs.jsonl`` (one event a line, in the
order given), ``tables/NAME.csv`` (rows, or the CSV text itself) and, when given,
``knowledge/FILE`` runbooks.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.dataset.build import load_dataset


def write_dataset(root: Path, name: str, description: str, logs: Iterable[dict[str, Any]], *,
                  tables: Mapping[str, Sequence[Sequence[Any]] | str],
                  knowledge: Mapping[str, str] | None = None) -> Path:
    """Write the dataset folder under ``root`` and return it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dataset.json").write_text(json.dumps({"name": name, "description": description}))
    with (root / "logs.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(event) + "\n" for event in logs)
    (root / "tables").mkdir(exist_ok=True)
    for table, rows in tables.items():
        path = root / "tables" / f"{table}.csv"
        if isinstance(rows, str):
            path.write_text(rows, encoding="utf-8")
            continue
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
    if knowledge is not None:
        (root / "knowledge").mkdir(exist_ok=True)
        for file, text in knowledge.items():
            (root / "knowledge" / file).write_text(text, encoding="utf-8")
    return root


def demo_indexed_home(folder: Path) -> Path:
    """A new harness home ``folder/home`` with the demo dataset indexed (each test copies it)."""
    from diagnosis_harness.control.settings import load_settings
    from diagnosis_harness.tools.dataset.build import ensure_dataset

    home = folder / "home"
    ensure_dataset(load_settings(home=home))
    return home


RUNBOOK = "# X\n\n## Symptoms\nErrors.\n"
"""A runbook that matches nothing in particular, for a dataset whose test reads no knowledge."""


@contextmanager
def built_backends(root: Path, name: str, logs: Iterable[dict[str, Any]], *,
                   tables: Mapping[str, Sequence[Sequence[Any]] | str],
                   knowledge: Mapping[str, str] | None = None) -> Iterator[Backends]:
    """The evidence backends of a dataset written to ``root/src`` and built into ``root/built``."""
    src = write_dataset(root / "src", name, "x", logs, tables=tables,
                        knowledge={"x.md": RUNBOOK} if knowledge is None else knowledge)
    with Backends.open(load_dataset(src, root / "built").dest) as opened:
        yield opened
