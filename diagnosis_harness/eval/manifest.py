"""What ``--resume`` reuses: the finished cases of an eval, one JSON line each in ``--out``.

Each finished case is appended to ``cases.jsonl`` (flushed and synced) with what it was run
with: the suite, the case's digest (an edited case runs again), its model spec and the code
version. A later ``harness eval … --resume`` reuses a line only when all four match; a line
cut short by ``kill -9`` is not JSON and is skipped, so its case runs again.

The code version is the package version plus a hash of the harness's Python sources and
prompts (the installed files, wherever the package maps them), so a changed prompt or node is
a new code version.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from diagnosis_harness.eval.scoring import CaseResult

MANIFEST_FILE = "cases.jsonl"
_SOURCE_PACKAGES = ("diagnosis_harness", "diagnosis_harness.graph", "diagnosis_harness.nodes",
                    "diagnosis_harness.tools", "diagnosis_harness.guards",
                    "diagnosis_harness.prompts", "diagnosis_harness.providers")
_SOURCE_SUFFIXES = (".py", ".txt")


class CaseKey(BaseModel):
    """What a finished case was run with; a reused case must match it whole."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: str
    case: str
    digest: str
    model: str
    code_version: str


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: CaseKey
    result: CaseResult


def code_version() -> str:
    """``<package version>+<12 hex of the sources' hash>``."""
    try:
        base = version("diagnosis-harness")
    except PackageNotFoundError:
        base = "0"
    digest = hashlib.sha256()
    seen: set[Path] = set()
    for name in _SOURCE_PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(folder).rglob("*")):
                if path.suffix in _SOURCE_SUFFIXES and "__pycache__" not in path.parts \
                        and path.resolve() not in seen:
                    seen.add(path.resolve())
                    digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
                    digest.update(path.read_bytes())
    return f"{base}+{digest.hexdigest()[:12]}"


def finished(out: Path) -> dict[CaseKey, CaseResult]:
    """The finished cases recorded in ``out`` (a line that is not whole is skipped)."""
    path = out / MANIFEST_FILE
    if not path.is_file():
        return {}
    found: dict[CaseKey, CaseResult] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = _Line.model_validate_json(line)
        except (ValidationError, ValueError):
            continue
        found[entry.key] = entry.result
    return found


def record(out: Path, key: CaseKey, result: CaseResult) -> None:
    """Append one finished case, durably (it is reused after a crash)."""
    out.mkdir(parents=True, exist_ok=True)
    line = _Line(key=key, result=result).model_dump_json() + "\n"
    with open(out / MANIFEST_FILE, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def start_fresh(out: Path) -> None:
    """Forget earlier finished cases (an eval without ``--resume``)."""
    (out / MANIFEST_FILE).unlink(missing_ok=True)


def as_json(value: object) -> str:
    """Canonical JSON (sorted keys), for files compared byte for byte."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
