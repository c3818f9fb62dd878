"""Build the embedded SQLite backends from a dataset folder: validated, idempotent, atomic.

``load_dataset`` builds into a temporary sibling directory and swaps it into place only when the
whole folder loaded cleanly, so readers see either the previous good build or the new one. An
unchanged folder (same content fingerprint) is not rebuilt.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.dataset.entries import unsafe_entries
from diagnosis_harness.tools.dataset.examples import describe_logs
from diagnosis_harness.tools.dataset.format import (
    DatasetError,
    Problems,
    iter_log_events,
    read_manifest,
    source_files,
)
from diagnosis_harness.tools.dataset.layout import (
    BACKEND_FILES,
    BUILD_MANIFEST,
    KNOWLEDGE_DB,
    KNOWLEDGE_SCHEMA,
    LOGS_DB,
    LOGS_INDEXES,
    LOGS_SCHEMA,
    OPS_DB,
    PATTERN_HOURS,
    PATTERN_MINUTES,
    SCHEMA_VERSION,
    DatasetInfo,
    dataset_dir,
    demo_dataset_dir,
    read_build_manifest,
    source_dir,
)
from diagnosis_harness.tools.dataset.patterns import pattern_of
from diagnosis_harness.tools.dataset.runbooks import Passage, read_knowledge
from diagnosis_harness.tools.dataset.swap import swap_into_place
from diagnosis_harness.tools.dataset.tables import Table, TableOptions, read_tables

_BATCH = 20_000
_MAX_NOTES = 100
__all__ = ["DatasetError", "LoadReport", "demo_dataset_dir", "ensure_dataset", "load_dataset"]
_BM25_WEIGHTS = "bm25(4.0, 2.0, 1.0)"  # title, section, body: a title hit says most


@dataclass(frozen=True)
class LoadReport:
    """The result of :func:`load_dataset`."""

    dest: Path
    rebuilt: bool
    """False when the folder was unchanged and the existing build was kept."""
    info: DatasetInfo

    @property
    def notes(self) -> tuple[str, ...]:
        """What the load assumed or mapped (from the build that is in place)."""
        return self.info.notes


def ensure_dataset(settings: Settings) -> Path:
    """Return the built backend dir for ``settings.data_dir`` (None: the demo), building it if needed.

    Call it before :meth:`diagnosis_harness.tools.backends.Backends.open`: opening never builds. Where builds
    live
    is :func:`diagnosis_harness.tools.dataset.layout.dataset_dir`.
    """
    src = source_dir(settings)
    if not src.is_dir():
        raise DatasetError(src, [f"{src}: dataset directory not found (check HARNESS_DATA_DIR)"])
    dest = dataset_dir(settings)
    load_dataset(src, dest)
    return dest


def load_dataset(src: Path, dest_dir: Path) -> LoadReport:
    """Index the dataset folder ``src`` into SQLite backends in ``dest_dir``.

    Raises :class:`DatasetError` listing every ``path:line: problem``; on error the previous
    build in ``dest_dir`` (if any) is left untouched.
    """
    src, dest_dir = Path(src), Path(dest_dir)
    if not src.is_dir():
        raise DatasetError(src, [f"{src}: not a directory"])
    if unsafe := unsafe_entries(src):  # before anything is opened, hashed or stat'ed
        raise DatasetError(src, unsafe)
    _refuse_foreign_dir(dest_dir)
    dest_dir.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(dest_dir):
        current = read_build_manifest(dest_dir)
        stat_sig = _stat_signature(src)
        if _is_current(dest_dir, current, stat_sig=stat_sig):
            return LoadReport(dest_dir, False, DatasetInfo.from_json(current or {}))
        fingerprint = _fingerprint(src)
        if _is_current(dest_dir, current, fingerprint=fingerprint):
            return LoadReport(dest_dir, False, DatasetInfo.from_json(current or {}))
        build = Path(tempfile.mkdtemp(prefix=f".{dest_dir.name}.build-", dir=dest_dir.parent))
        try:
            info = _build(src, build, fingerprint)
            manifest = {**info.to_json(), "schema_version": SCHEMA_VERSION,
                        "source": str(src.resolve()), "stat_signature": stat_sig}
            (build / BUILD_MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
            swap_into_place(build, dest_dir)
        finally:
            shutil.rmtree(build, ignore_errors=True)  # still there only if the build failed
    return LoadReport(dest_dir, True, info)


def _is_current(
    dest: Path,
    manifest: dict[str, object] | None,
    *,
    stat_sig: str | None = None,
    fingerprint: str | None = None,
) -> bool:
    if not manifest or manifest.get("schema_version") != SCHEMA_VERSION:
        return False
    if not all((dest / f).is_file() for f in BACKEND_FILES):
        return False
    if stat_sig is not None:
        return manifest.get("stat_signature") == stat_sig
    return manifest.get("fingerprint") == fingerprint


def _refuse_foreign_dir(dest: Path) -> None:
    # The swap renames dest away: never do that to a directory we did not build.
    if dest.exists() and (not dest.is_dir() or (
        any(dest.iterdir()) and not (dest / BUILD_MANIFEST).is_file()
    )):
        raise DatasetError(dest, [f"{dest}: exists and is not a backend directory; not replacing"])


@contextmanager
def _exclusive(dest: Path) -> Iterator[None]:
    # Two processes loading the same dataset must not interleave their swaps.
    lock_path = dest.parent / f".{dest.name}.lock"
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _stat_signature(src: Path) -> str:
    """Cheap change detector (names, sizes, mtimes) so unchanged big folders skip hashing."""
    h = hashlib.sha256()
    for f in source_files(src):
        st = f.stat()
        h.update(f"{f.relative_to(src).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _fingerprint(src: Path) -> str:
    h = hashlib.sha256(f"schema={SCHEMA_VERSION}\n".encode())
    for f in source_files(src):
        h.update(f.relative_to(src).as_posix().encode() + b"\0")
        with f.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def _build(src: Path, out: Path, fingerprint: str) -> DatasetInfo:
    problems = Problems(src)
    meta = read_manifest(src, problems)
    log_stats = _build_logs(src, out, problems)
    options = TableOptions(timezone=meta.get("timezone", "UTC"), dayfirst=meta.get("dayfirst"))
    tables = read_tables(src, problems, options)
    passages = read_knowledge(src, problems)
    if problems.items:
        raise DatasetError(src, problems.items)
    _build_ops(out / OPS_DB, tables)
    _build_knowledge(out / KNOWLEDGE_DB, passages)
    for name in (LOGS_DB, OPS_DB, KNOWLEDGE_DB):
        os.chmod(out / name, 0o444)  # the tools only read; make the files say so too
    notes = problems.notes[:_MAX_NOTES]
    if len(problems.notes) > _MAX_NOTES:
        notes.append(f"… and {len(problems.notes) - _MAX_NOTES} more note(s)")
    return DatasetInfo(
        name=meta.get("name") or src.name,
        description=meta.get("description", ""),
        fingerprint=fingerprint,
        tables=tuple(t.name for t in tables),
        documents=len({p.doc_id for p in passages}),
        passages=len(passages),
        column_labels={t.name: t.labels for t in tables if t.labels},
        notes=tuple(notes),
        **log_stats,
    )


def _connect_for_build(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    # No journal: the build directory is thrown away on any failure, atomicity comes from the swap.
    conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;")
    return conn


def _build_logs(src: Path, out: Path, problems: Problems) -> dict[str, Any]:
    staging = out / "staging.sqlite"
    with closing(_connect_for_build(out / LOGS_DB)) as conn:
        conn.executescript(LOGS_SCHEMA)
        conn.execute("ATTACH DATABASE ? AS staging", (str(staging),))
        conn.execute("PRAGMA staging.journal_mode=OFF")
        conn.execute("CREATE TABLE staging.raw(ts_ms, service, level, message, attrs, line, "
                     "pattern_id)")
        events = iter_log_events(src, problems)
        ids: dict[str, int] = {}  # pattern text → id, in first-seen order
        while batch := list(itertools.islice(events, _BATCH)):
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT INTO staging.raw VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(e.ts_ms, e.service, e.level, e.message, e.attrs, e.line,
                  ids.setdefault(pattern_of(e.message), len(ids) + 1)) for e in batch],
            )
            conn.execute("COMMIT")
        if problems.items:
            return {}  # the caller raises; no point indexing a rejected dataset
        conn.execute("BEGIN")
        # Sorted copy: ids ascend with time, so a time window is also a rowid range for FTS.
        conn.execute(
            "INSERT INTO events(ts_ms, service, level, message, attrs, source_line, pattern_id) "
            "SELECT ts_ms, service, level, message, attrs, line, pattern_id FROM staging.raw "
            "ORDER BY ts_ms, line"
        )
        conn.executemany("INSERT INTO patterns(id, text) VALUES (?, ?)",
                         [(i, text) for text, i in ids.items()])
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE staging")
        staging.unlink()
        conn.executescript(LOGS_INDEXES)
        conn.executescript(PATTERN_MINUTES)
        conn.executescript(PATTERN_HOURS)
        conn.execute("INSERT INTO events_fts(rowid, message) SELECT id, message FROM events")
        conn.execute("INSERT INTO events_fts(events_fts) VALUES('optimize')")
        conn.execute("ANALYZE")
        return describe_logs(conn)


def _build_ops(path: Path, tables: list[Table]) -> None:
    with closing(_connect_for_build(path)) as conn:
        conn.execute("BEGIN")
        for t in tables:
            cols = ", ".join(f'"{c}" {ty}' for c, ty in zip(t.columns, t.types, strict=True))
            conn.execute(f'CREATE TABLE "{t.name}" ({cols})')
            marks = ", ".join("?" for _ in t.columns)
            conn.executemany(f'INSERT INTO "{t.name}" VALUES ({marks})', t.rows)
        conn.execute("COMMIT")


def _build_knowledge(path: Path, passages: list[Passage]) -> None:
    with closing(_connect_for_build(path)) as conn:
        conn.executescript(KNOWLEDGE_SCHEMA)
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO passages(doc_id, title, section, body, line) VALUES (?, ?, ?, ?, ?)",
            [(p.doc_id, p.title, p.section, p.body, p.line) for p in passages],
        )
        conn.execute("COMMIT")
        conn.execute("INSERT INTO passages_fts(passages_fts) VALUES('rebuild')")
        conn.execute(
            "INSERT INTO passages_fts(passages_fts, rank) VALUES('rank', ?)", (_BM25_WEIGHTS,)
        )
        conn.execute("INSERT INTO passages_fts(passages_fts) VALUES('optimize')")
