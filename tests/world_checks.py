"""Checks the world tests (test_worlds, test_blind_worlds) make of a world's truth file, in one place."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")


def ts(text: str) -> datetime:
    """An ISO timestamp of the truth file or the logs (``Z`` or an offset)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def assert_evidence_step(step: dict[str, Any], events: Sequence[tuple[datetime, dict[str, Any]]],
                         ops_db: Path) -> None:
    """An evidence step of the truth finds what it claims: a ``query_logs`` scope holds an event
    saying ``contains``; a ``query_mysql`` query returns rows that do (read-only on ``ops_db``)."""
    args = step["args"]
    if step["tool"] == "query_logs":
        lo, hi = ts(args["start"]), ts(args["end"])
        floor = LEVELS.index(args.get("level", "DEBUG"))
        words = (args.get("pattern") or "").lower().split()
        hits = [e for t, e in events
                if lo <= t <= hi and e["service"].lower() == args["service"].lower()
                and LEVELS.index(e["level"]) >= floor
                and all(w in e["message"].lower() for w in words)]
        assert any(step["contains"] in e["message"] for e in hits), step
        return
    assert step["tool"] == "query_mysql"
    with sqlite3.connect(f"file:{ops_db}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute(args["sql"]).fetchall()]
    assert rows, step
    assert step["contains"] in json.dumps(rows), step
