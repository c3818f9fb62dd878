"""Runbooks of a dataset: ``knowledge/*.md`` in any Markdown, split into searchable passages.

Any file name works (the document id is a slug of it). Headings may be ATX (``## Fix``, with or
without closing hashes) or setext (a line underlined with ``===`` or ``---``); lines inside code
fences and YAML front matter are never headings. The first heading is the title; every later
heading starts a passage whose section keeps the path of headings above it
(``Mitigation > Rollback``), so a passage found alone still says where it came from. A document
without any heading is one passage titled after its file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from diagnosis_harness.tools.dataset.format import KNOWLEDGE_DIR, RUNBOOK_SUFFIXES, Problems

_DOC_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\Z")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*\Z")
_FENCE = re.compile(r" {0,3}(```|~~~)")
_BLOCK_START = re.compile(r" {0,3}([-*+] |\d+[.)] |>|#|```|~~~|\|)")


@dataclass(frozen=True)
class Passage:
    """One runbook passage: the intro or one section of a knowledge document."""

    doc_id: str
    title: str
    section: str
    body: str
    line: int


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str
    line: int
    """0-based index of the heading's (first) line."""
    end: int
    """0-based index of the heading's last line (the underline of a setext heading)."""


def runbook_files(src: Path) -> list[Path]:
    """The runbook files of a dataset folder, in a stable order."""
    folder = src / KNOWLEDGE_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix.lower() in RUNBOOK_SUFFIXES)


def doc_id_for(path: Path) -> str:
    """The document id of a runbook file: its name if already plain, else a slug of it."""
    if _DOC_ID.match(path.stem):
        return path.stem
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    return slug or "runbook"


def read_knowledge(src: Path, problems: Problems) -> list[Passage]:
    """Every runbook split into passages (see the module docstring)."""
    passages: list[Passage] = []
    seen: dict[str, Path] = {}
    for path in runbook_files(src):
        doc_id = doc_id_for(path)
        if doc_id in seen:
            problems.add(path, 1, f"document id {doc_id!r} is already used by {seen[doc_id].name}")
            continue
        seen[doc_id] = path
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            problems.add(path, 1, "not valid UTF-8")
            continue
        passages.extend(split_markdown(path, doc_id, text, problems))
    return passages


def split_markdown(path: Path, doc_id: str, text: str, problems: Problems) -> list[Passage]:
    """The passages of one document; problems name the file and line."""
    lines = text.splitlines()
    start = _after_front_matter(lines)
    headings = _headings(lines, start)
    if not headings:
        body = "\n".join(lines[start:]).strip()
        if not body:
            problems.add(path, 1, "empty document")
            return []
        named = re.sub(r"[-_]+", " ", path.stem).strip() or doc_id
        problems.note(path, f"no heading: titled {named!r} after the file name")
        return [Passage(doc_id, named, "", body, start + 1)]
    title = headings[0]
    before = next((i for i in range(start, title.line) if lines[i].strip()), None)
    if before is not None or not title.text:
        problems.add(path, (before if before is not None else title.line) + 1,
                     "no title: the document must start with a heading (its title), "
                     "not with text")
        return []
    out: list[Passage] = []
    stack: list[_Heading] = []
    for n, heading in enumerate(headings):
        if n:
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
        section = " > ".join(h.text for h in stack if h.text)
        stop = headings[n + 1].line if n + 1 < len(headings) else len(lines)
        body = "\n".join(lines[heading.end + 1:stop]).strip()
        if body:
            out.append(Passage(doc_id, title.text, section, body,
                               heading.end + 2 if n == 0 else heading.line + 1))
    if not out:
        problems.add(path, title.line + 1, "document has a title but no text")
    return out


def _after_front_matter(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


def _headings(lines: list[str], start: int) -> list[_Heading]:
    out: list[_Heading] = []
    fenced: str | None = None
    for i in range(start, len(lines)):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            fenced = None if fenced == fence.group(1) else fenced or fence.group(1)
            continue
        if fenced:
            continue
        atx = _ATX.match(line)
        if atx:
            out.append(_Heading(len(atx.group(1)), (atx.group(2) or "").strip(), i, i))
            continue
        setext = _SETEXT.match(line)
        if setext and i > start and _paragraph_line(lines, i - 1, start, out):
            level = 1 if setext.group(1).startswith("=") else 2
            out.append(_Heading(level, lines[i - 1].strip(), i - 1, i))
    return out


def _paragraph_line(lines: list[str], i: int, start: int, found: list[_Heading]) -> bool:
    """``lines[i]`` is a one-line paragraph (so the line under it makes it a setext heading)."""
    line = lines[i]
    if not line.strip() or _BLOCK_START.match(line) or _SETEXT.match(line):
        return False
    if found and found[-1].end >= i:
        return False
    return i == start or not lines[i - 1].strip() or (bool(found) and found[-1].end == i - 1)
