"""The package uses LangGraph, its savers and aiosqlite through their public API only.

A private attribute or module (``conn._execute``, ``conn._conn``, ``langgraph._internal``, a
``_Name`` imported from a langgraph module, Pregel's ``__pregel_*`` config keys or
``CONFIG_KEY_*`` constants, a compiled graph's ``__dict__``) can change in any minor release
without notice: the harness would break silently, or be pinned to one minor line. The one site
that remains is named below with why (docs/design.md §14); the test fails when another appears
and when that one goes, so the record stays true.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("diagnosis_harness", "graph", "nodes", "tools", "guards", "prompts", "providers")

PRIVATE = {
    "aiosqlite's private connection API": re.compile(
        r"(?<!self)\.(_execute|_conn|_connection|_tx)\b"),  # of another object, not one's own
    "a private LangGraph module": re.compile(r"\blanggraph[\w.]*\._\w+"),
    "a private name imported from LangGraph": re.compile(
        r"from\s+langgraph[\w.]*\s+import\s+\(?[^)\n]*\b_[A-Za-z]\w*"),
    "Pregel's internal config keys": re.compile(r"__pregel_\w+|\bCONFIG_KEY_\w+"),
    "a graph's attributes as a dict": re.compile(r"\b(compiled|plain|graph\w*)\.__dict__"),
}

KNOWN = {
    ("diagnosis_harness/session/hooked.py", "a graph's attributes as a dict"):
        "SessionGraph is re-made from the compiled graph's attributes as Pregel.copy does: the "
        "hook the dev server's API and the public build_graph need (holds the langgraph<1.3 pin)",
}
"""Sites that still use something private, and why; each must still be there."""

DOCUMENTED = {"__pregel_tasks"}
"""Names that appear only in prose (a docstring explaining which channels LangGraph writes)."""


def _sources() -> list[Path]:
    return sorted(p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py"))


def _hits() -> dict[tuple[str, str], list[str]]:
    hits: dict[tuple[str, str], list[str]] = {}
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in PRIVATE.items():
                found = {m.group(0) for m in pattern.finditer(line)} - DOCUMENTED
                if found:
                    hits.setdefault((rel, what), []).append(f"{rel}:{number}: {line.strip()}")
    return hits


def test_the_package_reaches_into_nothing_private_of_langgraph_its_savers_or_aiosqlite() -> None:
    hits = _hits()
    unknown = {key: lines for key, lines in hits.items() if key not in KNOWN}
    assert not unknown, "private API used:\n" + "\n".join(
        f"{what}: {line}" for (_, what), lines in unknown.items() for line in lines)
    gone = sorted(set(KNOWN) - set(hits))
    assert not gone, f"no longer used, drop from KNOWN (and the pin's reason): {gone}"


def test_the_grep_finds_what_it_looks_for(tmp_path: Path) -> None:
    """Each pattern matches the forms it exists to catch (else the test above cannot fail)."""
    samples = {
        "aiosqlite's private connection API": "await self.conn._execute(lambda: f(self.conn._conn))",
        "a private LangGraph module": "from langgraph._internal._constants import CONF",
        "a private name imported from LangGraph":
            "from langgraph.checkpoint.serde.types import _DeltaSnapshot",
        "Pregel's internal config keys": 'config["configurable"]["__pregel_checkpointer"]',
        "a graph's attributes as a dict": "attrs = dict(compiled.__dict__)",
    }
    for what, sample in samples.items():
        assert PRIVATE[what].search(sample), what
    for fine in ("from langgraph.graph import END, START, StateGraph", "self._conn.execute(sql)"):
        assert not any(p.search(fine) for p in PRIVATE.values()), fine
    assert len(_sources()) > 100  # the package dirs are where they are
