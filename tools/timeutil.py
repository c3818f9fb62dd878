"""Timestamps: strict ISO-8601 parsing (an offset is required) and one canonical UTC form.

Every timestamp the tools store or show is rendered by :func:`format_utc`, so string comparison
in SQL and scope equality (the tool gate's duplicate check) both work on one spelling.
"""

from __future__ import annotations

from datetime import UTC, datetime


class TimestampError(ValueError):
    """A value is not an ISO-8601 timestamp with a UTC offset."""


def parse_ts(value: object) -> datetime:
    """Parse an ISO-8601 timestamp that carries an offset (``Z`` or ``+HH:MM``) into UTC."""
    if not isinstance(value, str) or not value.strip():
        raise TimestampError(f"expected an ISO-8601 timestamp string, got {value!r}")
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise TimestampError(
            f"not an ISO-8601 timestamp: {text!r} (expected e.g. 2026-11-03T10:00:00+00:00)"
        ) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        # A naive time is ambiguous across the services' time zones: refuse rather than guess.
        raise TimestampError(f"timestamp {text!r} has no UTC offset; add one, e.g. +00:00 or Z")
    try:
        moment = parsed.astimezone(UTC)
        moment.timestamp()  # the log store indexes epoch milliseconds: it must be representable
    except (OverflowError, ValueError, OSError):
        # 0001-01-01T00:00:00+01:00 is year 0 in UTC; 9999-12-31T23:00:00-05:00 is year 10000.
        raise TimestampError(f"timestamp {text!r} is out of range in UTC (years 1 to 9999)") \
            from None
    return moment


def to_epoch_ms(moment: datetime) -> int:
    """Milliseconds since the epoch (the log store's indexed time column)."""
    return int(round(moment.timestamp() * 1000))


def from_epoch_ms(ms: int) -> datetime:
    """Inverse of :func:`to_epoch_ms`, in UTC."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def format_utc(moment: datetime) -> str:
    """The canonical spelling: ``2026-11-03T10:00:00Z`` (milliseconds only when non-zero)."""
    moment = moment.astimezone(UTC)
    spec = "milliseconds" if moment.microsecond else "seconds"
    return moment.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def format_epoch_ms(ms: int) -> str:
    """Canonical spelling of an epoch-milliseconds value."""
    return format_utc(from_epoch_ms(ms))
