"""The scripted investigation both sides replay, and what one run reports.

N distinct evidence-finding steps (one tool call with its own arguments → one observation with
evidence, on the demo dataset), then a final answer. Every step below returns evidence on the
demo data (the harness side checks it: a step that found nothing does not count as done).
The first two steps are the ones the final answer cites (INC-1's config reload and change).
Tokens are estimated the same way on both sides from what the model was sent and answered, so
that a side that sends more (longer prompts, larger tool schemas, extra calls) pays for it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

QUESTION = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
            "on 2026-11-02 — why?")


def _logs(service: str, start: str, end: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return "query_logs", {"service": service, "start": start, "end": end, **extra}


def _sql(sql: str) -> tuple[str, dict[str, Any]]:
    return "query_mysql", {"sql": sql}


def _kb(query: str) -> tuple[str, dict[str, Any]]:
    return "lookup_knowledge", {"query": query}


STEPS: list[tuple[str, dict[str, Any]]] = [
    _logs("payment-service", "2026-11-02T09:50:00+00:00", "2026-11-02T10:10:00+00:00",
          pattern="config reloaded"),
    _sql("SELECT change_id, config_key, old_value, new_value, changed_at FROM config_changes "
         "WHERE service = 'payment-service' AND changed_at BETWEEN '2026-11-02T09:00:00Z' AND "
         "'2026-11-02T10:10:00Z'"),
    _kb("connection pool exhausted timeouts"),
    _sql("SELECT ts, active, max_size, waiting FROM pool_metrics WHERE ts BETWEEN "
         "'2026-11-02T10:00:00Z' AND '2026-11-02T10:10:00Z'"),
    _logs("payment-service", "2026-11-03T14:20:00+00:00", "2026-11-03T14:35:00+00:00",
          pattern="retrying immediately"),
    _kb("retry storm immediate retries"),
    _sql("SELECT deploy_id, service, version, started_at, summary FROM deploys WHERE started_at "
         "BETWEEN '2026-11-03T13:30:00Z' AND '2026-11-03T14:35:00Z'"),
    _logs("payment-service", "2026-11-03T14:00:00+00:00", "2026-11-03T14:35:00+00:00",
          pattern="starting"),
    _kb("acquirer timeout NorthBank"),
    _logs("acquirer-adapter", "2026-11-04T09:30:00+00:00", "2026-11-04T09:45:00+00:00",
          level="ERROR"),
    _sql("SELECT ts, acquirer, p95_ms, timeouts FROM acquirer_latency WHERE ts BETWEEN "
         "'2026-11-04T09:30:00Z' AND '2026-11-04T09:45:00Z' ORDER BY p95_ms DESC LIMIT 5"),
    _kb("tls certificate expired handshake"),
    _logs("acquirer-adapter", "2026-11-05T11:00:00+00:00", "2026-11-05T11:10:00+00:00",
          level="ERROR"),
    _sql("SELECT cert_id, subject, not_after FROM certificates WHERE not_after BETWEEN "
         "'2026-11-05T10:00:00Z' AND '2026-11-05T12:00:00Z'"),
    _kb("known noise warnings"),
    _logs("risk-service", "2026-11-06T14:55:00+00:00", "2026-11-06T15:15:00+00:00",
          pattern="rules reloaded"),
    _sql("SELECT change_id, config_key, old_value, new_value, changed_at FROM config_changes "
         "WHERE service = 'risk-service' AND changed_at BETWEEN '2026-11-06T14:00:00Z' AND "
         "'2026-11-06T15:15:00Z'"),
    _kb("payment incident triage"),
    _logs("ledger-service", "2026-11-04T16:00:00+00:00", "2026-11-04T16:10:00+00:00",
          level="ERROR"),
    _sql("SELECT job_id, name, started_at, finished_at, triggered_by FROM batch_jobs WHERE "
         "started_at BETWEEN '2026-11-04T15:00:00Z' AND '2026-11-04T16:10:00Z'"),
    _logs("ledger-service", "2026-11-04T15:50:00+00:00", "2026-11-04T16:10:00+00:00",
          pattern="reconciliation"),
    _sql("SELECT merchant_id, name, acquirer, status FROM merchants"),
    _sql("SELECT ts, service, metric, value FROM service_metrics WHERE ts BETWEEN "
         "'2026-11-02T09:30:00Z' AND '2026-11-02T10:30:00Z' LIMIT 20"),
    _sql("SELECT status, count(*) AS n FROM payments WHERE merchant_id = 'M1001' GROUP BY status"),
]
"""The evidence steps; a run of N steps replays the first N."""

FINAL_ANSWER = json.dumps({
    "conclusion": {
        "root_cause": "payment-db pool exhausted after CHG-2041 lowered db.pool.max_size to 10",
        "claims": [
            {"statement": "config reloaded with db.pool.max_size=10 (was 50)",
             "evidence_ids": ["E1.2"]},
            {"statement": "CHG-2041 changed db.pool.max_size from 50 to 10",
             "evidence_ids": ["E2.1"]},
        ],
    },
    "next_steps": ["restore db.pool.max_size to 50", "alert on pool waiting > 0"],
})
"""The final answer both models give (the harness parses and verifies it; the peer returns it)."""

STUBBORN_KINDS = ("repeat", "distinct")
"""A stubborn model never stops calling tools: the same call again and again (``repeat``, the
usual loop), or a new distinct evidence call every turn (``distinct``)."""


def stubborn_step(kind: str, k: int) -> tuple[str, dict[str, Any]]:
    """The stubborn model's k-th (0-based) tool call."""
    return STEPS[0] if kind == "repeat" else STEPS[k % len(STEPS)]


def _chars(message: BaseMessage) -> int:
    content = message.content
    size = len(content) if isinstance(content, str) else len(json.dumps(content))
    if isinstance(message, AIMessage) and message.tool_calls:
        size += len(json.dumps([[c["name"], c["args"]] for c in message.tool_calls]))
    return size


def estimate_usage(messages: list[BaseMessage], tools: list[Any] | None,
                   reply: AIMessage) -> dict[str, int]:
    """Usage metadata for one call: ~4 characters a token, prompt = messages + tool schemas."""
    sent = sum(_chars(m) for m in messages) + (len(json.dumps(tools)) if tools else 0)
    tin, tout = math.ceil(sent / 4), math.ceil(_chars(reply) / 4)
    return {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}


@dataclass
class RunResult:
    """One timed run of one side."""

    side: str
    mode: str
    """Checkpointer: ``none``, ``memory`` (InMemorySaver) or ``sqlite`` (a fresh file)."""
    n: int
    """Evidence steps scripted."""
    ms: float
    """Wall time of the run (saver open, graph build, the run itself)."""
    steps: int
    """Evidence steps that ran and found evidence."""
    model_calls: int
    tokens: int
    outcome: str
    """How the run ended, in the side's own words."""
    checkpoint_bytes: int | None = None
    """Bytes stored in the checkpoint database (``sqlite`` mode only)."""
    detail: dict[str, Any] = field(default_factory=dict)


def sqlite_bytes(path: str) -> int:
    """Bytes of every value stored in a SQLite file's tables (checkpoints, writes, blobs…).

    Counted from the rows, not the file size: free pages and the WAL do not distort it, and it
    stays a fair measure whatever tables a checkpointer version uses.
    """
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        total = 0
        for table in tables:
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            if cols:
                expr = " + ".join(f'COALESCE(LENGTH(CAST("{c}" AS BLOB)), 0)' for c in cols)
                total += conn.execute(f'SELECT COALESCE(SUM({expr}), 0) FROM "{table}"').fetchone()[0]
        return int(total)
    finally:
        conn.close()
