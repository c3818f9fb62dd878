"""The embedded backends' on-disk layout: file names, schemas and the build manifest.

Three separate SQLite files, so ``query_mysql`` (which opens only ``ops.sqlite``) can never see
the log store or the runbook index, whatever SQL it is given.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

SCHEMA_VERSION = 1
"""Bumped whenever the layout below changes, so existing builds are rebuilt, not misread."""

LOGS_DB = "logs.sqlite"
OPS_DB = "ops.sqlite"
KNOWLEDGE_DB = "knowledge.sqlite"
BUILD_MANIFEST = "manifest.json"
BACKEND_FILES = (LOGS_DB, OPS_DB, KNOWLEDGE_DB, BUILD_MANIFEST)

LOGS_SCHEMA = """
CREATE TABLE events (
    id INTEGER PRIMARY KEY,      -- ascending in (ts_ms, source line): a window maps to an id range
    ts_ms INTEGER NOT NULL,
    service TEXT NOT NULL,
    level TEXT NOT NULL,
    message TEXT NOT NULL,
    attrs TEXT,
    source_line INTEGER NOT NULL
);
CREATE VIRTUAL TABLE events_fts USING fts5(
    message, content='events', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
"""
LOGS_INDEXES = """
CREATE INDEX events_service_ts ON events(service, ts_ms);
CREATE INDEX events_ts ON events(ts_ms);
"""

KNOWLEDGE_SCHEMA = """
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL,
    title TEXT NOT NULL,
    section TEXT NOT NULL,
    body TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    title, section, body, content='passages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
"""


@dataclass(frozen=True)
class DatasetInfo:
    """What the router and the offline model need to know about a loaded dataset."""

    name: str
    description: str
    fingerprint: str
    events: int
    services: tuple[str, ...]
    first_ts: str | None
    """Earliest event, canonical UTC (``2026-11-02T08:00:00Z``); None for an empty log."""
    latest_ts: str | None
    """Latest event: "now" for a file dataset (docs/design.md §11)."""
    tables: tuple[str, ...]
    documents: int
    passages: int

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (the build manifest stores it with the schema version)."""
        data = asdict(self)
        data["services"] = list(self.services)
        data["tables"] = list(self.tables)
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> DatasetInfo:
        """Inverse of :meth:`to_json` (ignores the manifest's extra keys)."""
        fields = {k: data[k] for k in cls.__dataclass_fields__}
        fields["services"] = tuple(fields["services"])  # type: ignore[arg-type]
        fields["tables"] = tuple(fields["tables"])  # type: ignore[arg-type]
        return cls(**fields)  # type: ignore[arg-type]


def read_build_manifest(directory: Path) -> dict[str, object] | None:
    """The manifest of a built backend dir, or None if absent or unreadable."""
    try:
        data = json.loads((directory / BUILD_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def dataset_info(directory: Path) -> DatasetInfo:
    """Describe the dataset built in ``directory`` (services, latest event, tables…)."""
    manifest = read_build_manifest(directory)
    if manifest is None or manifest.get("schema_version") != SCHEMA_VERSION:
        raise FileNotFoundError(
            f"no loaded dataset in {directory}: run `harness data load DIR` to build one"
        )
    return DatasetInfo.from_json(manifest)
