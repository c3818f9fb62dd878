"""The embedded backends' on-disk layout: file names, schemas and the build manifest.

Three separate SQLite files, so ``query_mysql`` (which opens only ``ops.sqlite``) can never see
the log store or the runbook index, whatever SQL it is given.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.dataset.format import Problems, read_manifest

SCHEMA_VERSION = 6
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
    source_line INTEGER NOT NULL,
    pattern_id INTEGER NOT NULL  -- patterns.id: the message with its variable parts masked
);
CREATE TABLE patterns (          -- computed once at build (tools/dataset/patterns.py)
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE events_fts USING fts5(
    message, content='events', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
"""
LOGS_INDEXES = """
CREATE INDEX events_service_ts ON events(service, ts_ms);
CREATE INDEX events_ts ON events(ts_ms);
"""
_PATTERN_COUNTS = """service TEXT NOT NULL,
    pattern_id INTEGER NOT NULL,
    level TEXT NOT NULL,
    n INTEGER NOT NULL,
    first_ms INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,
    first_id INTEGER NOT NULL,"""
"""The columns pattern_minutes and pattern_hours share: one is the other rolled up (§16.1)."""
PATTERN_MINUTES = f"""
CREATE TABLE pattern_minutes (   -- events per minute, service, pattern and level (§16.1)
    minute INTEGER NOT NULL,     -- floor(ts_ms / 60000)
    {_PATTERN_COUNTS}
    PRIMARY KEY (minute, service, pattern_id, level)
) WITHOUT ROWID;
INSERT INTO pattern_minutes
SELECT (ts_ms - ((ts_ms % 60000) + 60000) % 60000) / 60000, service, pattern_id, level,
       count(*), min(ts_ms), max(ts_ms), min(id)
FROM events GROUP BY 1, 2, 3, 4;
CREATE INDEX pattern_minutes_service ON pattern_minutes(service, minute);
"""
"""The summary the statistics tools read whole minutes of a window from (built after events)."""
PATTERN_HOURS = f"""
CREATE TABLE pattern_hours (     -- pattern_minutes rolled up per hour (§16.1)
    hour INTEGER NOT NULL,       -- floor(ts_ms / 3600000) = floor(minute / 60)
    {_PATTERN_COUNTS}
    peak INTEGER NOT NULL,       -- the most events of one of its minutes (onset's take-off)
    PRIMARY KEY (hour, service, pattern_id, level)
) WITHOUT ROWID;
INSERT INTO pattern_hours
SELECT (minute - ((minute % 60) + 60) % 60) / 60, service, pattern_id, level,
       sum(n), min(first_ms), max(last_ms), min(first_id), max(n)
FROM pattern_minutes GROUP BY 1, 2, 3, 4;
CREATE INDEX pattern_hours_service ON pattern_hours(service, hour);
"""
"""The summary the statistics tools read whole hours of a window from (built after
:data:`PATTERN_MINUTES`, from it). A layout without it is an older :data:`SCHEMA_VERSION`:
rebuilt by the load, refused by :func:`dataset_info`."""

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
    attributes: tuple[str, ...] = ()
    """Log ``attrs`` keys with plain values, most frequent first: what query_logs can filter on."""
    attribute_examples: dict[str, str] = field(default_factory=dict)
    """One value seen for each of :attr:`attributes` (shown to the model as an example)."""
    examples: dict[str, str] = field(default_factory=dict)
    """Examples from this data for hints (``service``, ``merchant``, ``date``), never the demo's."""
    column_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    """Original headers of table columns whose names were made safe: table → column → header."""
    notes: tuple[str, ...] = ()
    """What the load assumed or mapped (zones, day/month order, level spellings…)."""

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (the build manifest stores it with the schema version)."""
        data = asdict(self)
        for key in ("services", "tables", "attributes", "notes"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> DatasetInfo:
        """Inverse of :meth:`to_json` (ignores the manifest's extra keys)."""
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for key in ("services", "tables", "attributes", "notes"):
            if key in fields:
                fields[key] = tuple(fields[key])  # type: ignore[arg-type]
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


def demo_dataset_dir() -> Path:
    """The built-in demo dataset shipped inside the package."""
    return Path(__file__).resolve().parent.parent / "demo_data"


def source_dir(settings: Settings) -> Path:
    """The dataset folder ``settings`` names (``HARNESS_DATA_DIR``), or the built-in demo."""
    return Path(settings.data_dir) if settings.data_dir is not None else demo_dataset_dir()


def dataset_dir(settings: Settings) -> Path:
    """Where the build of the dataset ``settings`` names lives (built or not)."""
    src = source_dir(settings)
    name = read_manifest(src, Problems(src)).get("name") or src.name
    return build_dir(Path(settings.home), src, name)


def build_dir(home: Path, src: Path, name: str) -> Path:
    """Where the build of dataset folder ``src`` lives: ``home/datasets/<name>-<path hash>``.

    The hash of the folder's absolute path keeps two folders with the same name apart.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "dataset"
    digest = hashlib.sha256(str(src.resolve()).encode()).hexdigest()[:10]
    return home / "datasets" / f"{slug}-{digest}"
