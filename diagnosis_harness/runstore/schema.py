"""The run store's schema, declared once as SQLAlchemy tables, and its versioned migrations.

The ``schema_version`` table holds the version a database is at (one row). :func:`migrate` runs at
every open, in one transaction (serialised between processes: SQLite's write lock, a Postgres
advisory lock) and applies what is missing, in order. A database whose version is newer than
the last migration here was written by a newer harness: it is refused, never guessed at.

Migration 1 is the schema the store had before versioning (``CREATE … IF NOT EXISTS``), so a
file made by an earlier harness is adopted as version 1 unchanged. A later change to a table
is a new migration (``ALTER TABLE`` …) appended to :data:`MIGRATIONS` together with the change
to the table below; migration 1 stays as it is.

Portable by construction: TEXT timestamps (ISO-8601 UTC written by Python), JSON as TEXT,
BIGINT counters, and per-run ``seq`` columns computed by the INSERTs instead of SERIAL or
AUTOINCREMENT.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    func,
    insert,
    inspect,
    select,
    text,
)

metadata = MetaData()


def _run_child(name: str, *columns: Column) -> Table:
    # Child rows carry a per-run seq (assigned by the INSERT) for a portable recording order.
    return Table(
        name,
        metadata,
        Column("run_id", Text, primary_key=True),
        Column("seq", BigInteger, primary_key=True, autoincrement=False),
        *columns,
        Column("recorded_at", Text, nullable=False),
    )


runs = Table(
    "runs",
    metadata,
    Column("run_id", Text, primary_key=True),
    Column("thread_id", Text, nullable=False),
    # thread_seq orders a thread's turns; timestamps can tie, insertion order cannot.
    Column("thread_seq", BigInteger, nullable=False),
    Column("question", Text, nullable=False),
    Column("model_spec", Text, nullable=False),
    Column("started_at", Text, nullable=False),
    Column("finished_at", Text),
    Column("status", Text),
    Column("run_state", Text),
    Column("release_outcome", Text),
    Column("fallback_type", Text),
    Column("failure_code", Text),
    Column("stop_reason", Text),
    Column("intent", Text),
    Column("content", Text),
    Column("model_calls", BigInteger),
    Column("tool_calls", BigInteger),
    Column("input_tokens", BigInteger),
    Column("output_tokens", BigInteger),
    Column("bytes", BigInteger),
    # Migration 2: which worker runs it and until when its lease holds (docs/design.md §9).
    Column("lease_owner", Text),
    Column("lease_expires_ms", BigInteger),
)
Index("runs_by_thread", runs.c.thread_id, runs.c.thread_seq)

tool_records = _run_child(
    "tool_records",
    Column("tool_call_id", Text, nullable=False),
    Column("tool", Text, nullable=False),
    Column("invocation_status", Text, nullable=False),
    Column("evidence_status", Text, nullable=False),
    Column("record", Text, nullable=False),
    # Migration 2: the observation the model was shown, so a resumed run can reuse the call.
    Column("observation", Text),
)
model_calls = _run_child(
    "model_calls",
    Column("role", Text, nullable=False),
    Column("attempt", BigInteger, nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
    Column("duration_ms", BigInteger, nullable=False),
    Column("failure_class", Text),
)
receipts = _run_child("receipts", Column("receipt", Text, nullable=False))
verdicts = _run_child(
    "verdicts", Column("guard", Text, nullable=False), Column("verdict", Text, nullable=False)
)
events = _run_child("events", Column("event", Text, nullable=False))

# Migration 3 (docs/design.md §14): what makes a run's story longer than one stream — its
# lineage (parent run, fork point, what it inherited), its segments (start, continuations),
# the state edits it ran with, its approval — and the edits made to a thread's checkpoints.
run_lineage = Table(
    "run_lineage",
    metadata,
    Column("run_id", Text, primary_key=True),
    Column("thread_id", Text, nullable=False),
    Column("parent_run_id", Text),
    Column("fork_checkpoint_id", Text),
    Column("inherited", Text),
    Column("segments", Text, nullable=False),
    Column("edits", Text, nullable=False),
    Column("approval_state", Text),
    Column("approval", Text),
    Column("run_time_ms", BigInteger, nullable=False),
    Column("options", Text),
    Column("updated_at", Text, nullable=False),
)
Index("run_lineage_by_parent", run_lineage.c.parent_run_id)

state_edits = Table(
    "state_edits",
    metadata,
    Column("thread_id", Text, primary_key=True),
    Column("checkpoint_id", Text, primary_key=True),
    Column("parent_checkpoint_id", Text),
    Column("as_node", Text),
    Column("edit_keys", Text, nullable=False),
    Column("edited_by", Text),
    Column("edited_at", Text, nullable=False),
)

# Migration 4 (docs/design.md §17): alert intake and the notification outbox. One row per alert
# group: the group key is the unique key that makes "one investigation per group" hold across
# workers (a conditional UPDATE of this row, not a process lock). One outbox row per (run,
# target): the primary key is the idempotency key, so a run is never queued twice for a target.
alert_groups = Table(
    "alert_groups",
    metadata,
    Column("group_key", Text, primary_key=True),
    Column("thread_id", Text, nullable=False),
    Column("state", Text, nullable=False),  # ACTIVE | DONE | RESOLVED
    Column("firing", Text),  # the sorted fingerprints of the firing alerts last investigated
    Column("claim_id", Text),  # who won the last start (a uuid), until its run id is known
    Column("run_id", Text),
    Column("notifications", BigInteger, nullable=False),  # how many notifications arrived
    Column("updated_at", Text, nullable=False),
)

outbox = Table(
    "outbox",
    metadata,
    Column("run_id", Text, primary_key=True),
    Column("target", Text, primary_key=True),  # kind:url-or-repo, the idempotency key's half
    Column("kind", Text, nullable=False),  # json | slack | github
    Column("context", Text, nullable=False),  # JSON: the alert facts the post is made from
    Column("state", Text, nullable=False),  # WAITING | SENT | SKIPPED
    Column("attempts", BigInteger, nullable=False),
    Column("next_attempt_ms", BigInteger, nullable=False),
    Column("lease_owner", Text),
    Column("lease_expires_ms", BigInteger),
    Column("last_error", Text),
    Column("sent_at", Text),
    Column("created_at", Text, nullable=False),
)

schema_version = Table(
    "schema_version",
    MetaData(),  # not part of `metadata`: it exists before any migration runs
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("applied_at", Text, nullable=False),
)

USAGE_KEYS = ("model_calls", "tool_calls", "input_tokens", "output_tokens", "bytes")
"""The usage columns of a run row (NULL until the run is finished)."""

LEASE_KEYS = ("lease_owner", "lease_expires_ms")
"""The lease columns of a run row: not part of the row's wire format (docs/design.md §10)."""


class SchemaTooNew(Exception):
    """The database was migrated by a newer harness than this one."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"its schema version is {found}, newer than the {known} this harness knows; "
            "upgrade the harness (or point it at another database)"
        )
        self.found = found
        self.known = known


def _v1_initial(conn: Connection) -> None:
    tables = [runs, tool_records, model_calls, receipts, verdicts, events]
    metadata.create_all(conn, tables=tables, checkfirst=True)


_V2_COLUMNS = ((runs, ("lease_owner", "lease_expires_ms")), (tool_records, ("observation",)))


def _v2_leases_and_observations(conn: Connection) -> None:
    """Run leases (owner, expiry) and the stored observation of a tool call.

    Migration 1 creates tables from the declarations above, which already have these columns,
    so only a database made before them gets the ``ALTER TABLE``.
    """
    for table, names in _V2_COLUMNS:
        have = {c["name"] for c in inspect(conn).get_columns(table.name)}
        for name in names:
            if name not in have:
                column = table.c[name]
                kind = column.type.compile(dialect=conn.dialect)
                conn.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {name} {kind}"))


def _v3_lineage(conn: Connection) -> None:
    metadata.create_all(conn, tables=[run_lineage, state_edits], checkfirst=True)


def _v4_alerts_and_outbox(conn: Connection) -> None:
    metadata.create_all(conn, tables=[alert_groups, outbox], checkfirst=True)


MIGRATIONS: tuple[tuple[int, Callable[[Connection], None]], ...] = (
    (1, _v1_initial), (2, _v2_leases_and_observations), (3, _v3_lineage),
    (4, _v4_alerts_and_outbox))
"""(version, step) in order; a step gets a connection inside the migration transaction."""

SCHEMA_VERSION = MIGRATIONS[-1][0]
"""The version this harness writes and reads."""

_PG_MIGRATION_LOCK = 0x48524E53  # any constant shared by every harness process ("HRNS")


def current_version(conn: Connection) -> int:
    """The highest applied migration (0 for an empty database)."""
    found = conn.execute(select(func.max(schema_version.c.version))).scalar()
    return int(found or 0)


def migrate(conn: Connection) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` inside the caller's transaction.

    Returns the version found before migrating. Raises :class:`SchemaTooNew` when the
    database is ahead of this harness.
    """
    if conn.dialect.name == "postgresql":
        # Concurrent first opens would race on CREATE TABLE; the lock ends with the transaction.
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    schema_version.create(conn, checkfirst=True)
    found = current_version(conn)
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(found, SCHEMA_VERSION)
    for version, step in MIGRATIONS:
        if version > found:
            step(conn)
            # A database without a version gets every step (its tables may predate versioning,
            # or not exist: then the steps create today's tables) and one row, the version now;
            # a versioned one keeps a row per step it was migrated through.
            if found or version == SCHEMA_VERSION:
                conn.execute(insert(schema_version).values(
                    version=version, applied_at=datetime.now(UTC).isoformat()))
    return found
