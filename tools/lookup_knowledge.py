"""``lookup_knowledge``: runbook passages ranked by BM25, graded by how much of the query they cover."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.results import Item, RelevanceLevel, ToolArgs, ToolInputError, ToolResult, clip
from diagnosis_harness.tools.text import fts_or_query, search_terms

MAX_PASSAGE_CHARS = 1200
# Relevance = IDF-weighted share of the query's indexed words a passage contains. BM25 scores
# are not comparable across corpora or queries; coverage is, so levels mean the same everywhere.
_LEVELS = ((0.7, RelevanceLevel.HIGH), (0.45, RelevanceLevel.MEDIUM), (0.25, RelevanceLevel.LOW))
_ORDER = {RelevanceLevel.HIGH: 3, RelevanceLevel.MEDIUM: 2, RelevanceLevel.LOW: 1}
_CANDIDATES_PER_RESULT = 4


class LookupKnowledgeArgs(ToolArgs):
    """Arguments of ``lookup_knowledge``."""

    query: str = Field(
        min_length=1, max_length=500,
        description="Plain words.",
    )
    top_k: int | None = Field(
        default=None, ge=1, le=10, description="Maximum passages (default 3)."
    )

    def scope(self, settings: Settings) -> dict[str, Any]:
        """The normalised scope: the query's search words and the effective top_k."""
        words = search_terms(self.query, drop_stopwords=True)
        query = " ".join(words) if words else " ".join(self.query.lower().split())
        return {"query": query, "top_k": self.top_k or settings.knowledge_top_k}


def level_for(coverage: float) -> str | None:
    """Relevance level for a coverage in [0, 1]; None below the lowest level."""
    return next((level for floor, level in _LEVELS if coverage >= floor), None)


def lookup_knowledge(
    backends: Backends, settings: Settings, *, query: str, top_k: int | None = None
) -> ToolResult:
    """Search the runbooks and return the best matching passages, best first.

    Each passage names its runbook, title and section. Passages that share too few of the
    query's words are left out, so an empty result means no runbook covers this query; it says
    nothing about what happened in the systems.
    """
    args = LookupKnowledgeArgs(query=query, top_k=top_k)
    scope = args.scope(settings)
    terms = [t for t in search_terms(args.query, drop_stopwords=True) if len(t) > 1]
    if not terms:
        raise ToolInputError("query has no searchable words; describe the symptom or component")
    k = scope["top_k"]
    with backends.lock:
        ranked = _candidates(backends, terms, k * _CANDIDATES_PER_RESULT)
        if not ranked:
            return ToolResult(scope=scope, note="no runbook passage matched this query")
        coverage = _coverage(backends, terms, [rowid for rowid, _ in ranked])
        graded = []
        for position, (rowid, _rank) in enumerate(ranked):
            level = level_for(coverage[rowid])
            if level is not None:
                graded.append((-coverage[rowid], position, rowid, level))
        graded.sort()
        chosen = graded[:k]
        rows = {r[0]: r[1:] for r in backends.knowledge.execute(
            "SELECT id, doc_id, title, section, body FROM passages WHERE id IN "
            f"({', '.join('?' * len(chosen))})", [c[2] for c in chosen],
        )} if chosen else {}
    if not chosen:
        return ToolResult(scope=scope, note="no runbook passage matched this query well enough")
    items, clipped = [], False
    for _neg, _pos, rowid, level in chosen:
        doc_id, title, section, body = rows[rowid]
        text, was_clipped = clip(body, MAX_PASSAGE_CHARS)
        clipped |= was_clipped
        heading = f"{title} / {section}" if section else title
        items.append(Item(
            kind="passage",
            text=f"[{doc_id}] {heading}: {text}",
            data={"doc_id": doc_id, "title": title, "section": section, "text": text,
                  "relevance": level},
        ))
    best = max((c[3] for c in chosen), key=_ORDER.__getitem__)
    return ToolResult(scope=scope, items=items, relevance=best, truncated=clipped)


def _candidates(backends: Backends, terms: list[str], n: int) -> list[tuple[int, float]]:
    return backends.knowledge.execute(
        "SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?",
        (fts_or_query(terms), n),
    ).fetchall()


def _coverage(backends: Backends, terms: list[str], rowids: list[int]) -> dict[int, float]:
    total = backends.knowledge.execute("SELECT count(*) FROM passages").fetchone()[0]
    marks = ", ".join("?" * len(rowids))
    weights: dict[int, float] = dict.fromkeys(rowids, 0.0)
    denominator = 0.0
    for term in terms:
        match = fts_or_query([term])
        df = backends.knowledge.execute(
            "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?", (match,)
        ).fetchone()[0]
        if df == 0 and any(c.isdigit() for c in term):
            continue  # ids (M1001, pay_123…) are never in runbooks; they must not dilute coverage
        idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
        denominator += idf
        for (rowid,) in backends.knowledge.execute(
            f"SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? AND rowid IN ({marks})",
            (match, *rowids),
        ):
            weights[rowid] += idf
    # A word no runbook contains still counts against coverage: a query about "velocity rule
    # threshold" is not answered by a passage that only shares "rejects".
    return {r: (w / denominator if denominator else 0.0) for r, w in weights.items()}
