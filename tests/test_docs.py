"""The design document stands on its own and stays true: its graph, its section references.

Code, tests and README cite ``docs/design.md §n``; each cited section must exist, and nothing may
point at a design file outside the repository, which a user who clones it does not have.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
SNAPSHOT = ROOT / "tests" / "data" / "graph.mmd"
"""The compiled graph's drawing, pinned by tests/test_graph_drawing.py."""

_SKIP_DIRS = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
              ".import_linter_cache", ".harness", ".langgraph_api", "build", "dist", "demo_data"}
_TEXT = {".py", ".md", ".toml", ".json", ".txt", ".sh", ".cfg"}


def _repo_texts() -> dict[Path, str]:
    texts = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder) / name
            if path.suffix in _TEXT or path == ROOT / ".ci" / "run":
                texts[path] = path.read_text(encoding="utf-8")
    return texts


def _sections() -> set[int]:
    return {int(n) for n in re.findall(r"^## (\d+)\. ", DESIGN.read_text(encoding="utf-8"), re.M)}


def test_sections_are_numbered_one_after_another() -> None:
    numbers = re.findall(r"^## (\d+)\. ", DESIGN.read_text(encoding="utf-8"), re.M)
    assert [int(n) for n in numbers] == list(range(1, len(numbers) + 1))


def test_every_cited_section_exists() -> None:
    cited: dict[str, set[int]] = {}
    for path, text in _repo_texts().items():
        for refs in re.findall(r"docs/design\.md((?:[ ,–-]*(?:and )?§\d+)+)", text):
            cited.setdefault(path.relative_to(ROOT).as_posix(), set()).update(
                int(n) for n in re.findall(r"§(\d+)", refs))
    assert len(cited) > 20  # the code does cite the document
    missing = {f: sorted(ns - _sections()) for f, ns in cited.items() if ns - _sections()}
    assert missing == {}


def test_nothing_points_outside_the_repository() -> None:
    outside = re.compile(r"\.\./shared|DESIGN\.md|DESIGN §")
    offenders = [f"{p.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
                 for p, text in _repo_texts().items() if p != Path(__file__).resolve()
                 for m in outside.finditer(text)]
    assert offenders == []


def test_the_graph_drawn_in_the_design_is_the_compiled_graph() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("\n## 2. ", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```mermaid\n(.*?)```", section, re.S)
    assert match is not None, "docs/design.md §2 needs a ```mermaid block"
    assert match.group(1) == SNAPSHOT.read_text(encoding="utf-8"), (
        "docs/design.md §2 is stale: copy tests/data/graph.mmd into its ```mermaid block")
