"""Timestamps: strict ISO-8601 for tool arguments, lenient reading of data, one canonical UTC form.

Every timestamp the tools store or show is rendered by :func:`format_utc`, so string comparison
in SQL and scope equality (the tool gate's duplicate check) both work on one spelling.
Tool arguments must carry an offset (:func:`parse_ts`); data being loaded or imported may come
in any common form and is read by a :class:`TimeReader`, which records what it had to assume
(a zone for naive times, a year for syslog times, the day/month order of ``03/04/2026``), and
refuses what only the writer knows: where the year is in a two-digit-year date (``17/06/09``),
unless it is given the format (:class:`~diagnosis_harness.tools.time_format.TimeFormat`).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from email.utils import parsedate_to_datetime

from dateutil import parser as dateutil_parser

from diagnosis_harness.tools.time_format import TimeFormat, two_digit_year_readings


class TimestampError(ValueError):
    """A value is not a timestamp (or, for :func:`parse_ts`, not ISO-8601 with a UTC offset)."""


class AmbiguousTimeError(TimestampError):
    """A date with a two-digit year (``17/06/09``, ``081109``): where the year is, only its writer knows.

    ``formats`` are the readings it allows, each a format that reads it.
    """

    def __init__(self, text: str, formats: list[tuple[str, datetime]]) -> None:
        self.text = text
        self.formats = formats
        options = " or ".join(f"{moment:%Y-%m-%d} ({spec})" for spec, moment in formats)
        super().__init__(f"{text!r} has a two-digit year, so where the year is is unknown: it "
                         f"could be {options or 'no valid date'}")


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


# --- lenient reading of data ------------------------------------------------------------------

_EPOCH_UNITS = ((1e11, 1), (1e14, 1_000), (1e17, 1_000_000), (1e20, 1_000_000_000))
"""Magnitude → divisor to seconds: below 1e11 seconds (until year 5138), then ms, µs, ns; from
1e20 on (ns past year 5138) a number is no epoch time in any unit."""
_PLAUSIBLE_YEARS = (1990, 2100)
_NUMBER = re.compile(r"-?\d+(\.\d+)?\Z")
_TIME = r"(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([AaPp][Mm])?)?"
_ZONE = r"\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?"
_NUMERIC_DATE = re.compile(rf"(\d{{1,2}})([/.-])(\d{{1,2}})\2(\d{{4}}){_TIME}{_ZONE}\Z")
"""Day and month in either order, a four-digit year (two-digit years: AmbiguousTimeError)."""
_YEAR_FIRST = re.compile(rf"(\d{{4}})([/.])(\d{{1,2}})\2(\d{{1,2}}){_TIME}{_ZONE}\Z")
_CLF = re.compile(r"\d{1,2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2}(\.\d+)?( [+-]\d{4})?\Z")
_MONTH = re.compile(r"(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\b")
_YEAR = re.compile(r"\b\d{4}\b")
_DATEISH = re.compile(
    r"(?i:(mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?"
    r"(\d{4}-\d{1,2}-\d{1,2}|\d{1,4}[/.]\d{1,2}[/.]\d{2,4}|\d{1,2}/[A-Za-z]{3}/\d{4}"
    r"|(?i:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b)"
    r"|(?i:\d{1,2}\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b))"
)
_TIME_WORDS = re.compile(r"(?i)[a-z]+")
_ALLOWED_WORDS = re.compile(r"(?i:t|z|am|pm|utc|gmt)\Z|[A-Z]{2,5}\Z"
                            r"|(?i:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\Z")


def looks_like_time(text: str) -> bool:
    """True if ``text`` is a date or timestamp as a whole (whether it parses is another matter)."""
    value = text.strip()
    match = _DATEISH.match(value)
    if not match or len(value) > 48:
        return False
    rest = value[match.end():]
    return all(_ALLOWED_WORDS.match(w) for w in _TIME_WORDS.findall(rest))


def epoch_to_datetime(value: float | int | str) -> datetime:
    """An epoch number in seconds, ms, µs or ns (told apart by magnitude) as UTC."""
    try:
        magnitude = abs(float(value))
    except (OverflowError, ValueError):  # an int past float's range; text that is no number
        magnitude = math.inf
    if not magnitude < _EPOCH_UNITS[-1][0]:  # NaN and ±inf too: data, not an internal error
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise TimestampError(f"{shown} is not a plausible epoch time (not a finite number of "
                             "seconds, ms, µs or ns since 1970 before year 5138)")
    number = float(value) if isinstance(value, str) else value
    divisor = next(d for limit, d in _EPOCH_UNITS if magnitude < limit)
    if isinstance(value, str) and "." not in value or isinstance(value, int):
        whole = int(value)  # integer arithmetic keeps nanosecond inputs exact to the µs
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(
            microseconds=whole * 1_000_000 // divisor)
    else:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=number / divisor)
    if not _PLAUSIBLE_YEARS[0] <= moment.year <= _PLAUSIBLE_YEARS[1]:
        raise TimestampError(f"{value!r} is not a plausible epoch time (it reads as {moment:%Y})")
    return moment


class TimeReader:
    """Reads timestamps in any common form as UTC and counts what it had to assume.

    ``tz`` is the zone of times written without one; ``dayfirst`` the order of ``03/04/2026``
    (None: infer it from unambiguous values such as ``14/03/2026``). A value read month-first
    while the order was still unknown makes :attr:`needs_rerun` true if later values show the
    data is day-first, and :attr:`unresolved` true if nothing ever settles it: the caller then
    re-reads with ``dayfirst=True`` or fails, never keeps a guess.
    """

    def __init__(self, *, tz: tzinfo = UTC, dayfirst: bool | None = None,
                 year: int | None = None, time_format: TimeFormat | None = None) -> None:
        self.tz = tz
        self.time_format = time_format
        """The user's format: every text time is read with it, nothing else is tried."""
        self.dayfirst = dayfirst
        self.year = year
        self.inferred: bool | None = None
        """The day/month order shown by an unambiguous value (True: day-first)."""
        self.evidence = ""
        self.provisional = 0
        """Ambiguous values read month-first before the order was known."""
        self.first_ambiguous = ""
        self.assumed_zone = 0
        """Values that carried no zone and were read in ``tz``."""
        self.assumed_year = 0
        """Values that carried no year and were given ``year``."""

    @property
    def needs_rerun(self) -> bool:
        """Ambiguous values were read month-first but the data turned out day-first."""
        return self.dayfirst is None and self.inferred is True and self.provisional > 0

    @property
    def unresolved(self) -> bool:
        """Ambiguous day/month values were seen and nothing settled their order."""
        return self.dayfirst is None and self.inferred is None and self.provisional > 0

    def read(self, value: object) -> datetime:
        """The UTC moment of ``value`` (epoch number or text); TimestampError if unreadable."""
        if isinstance(value, bool) or value is None:
            raise TimestampError(f"expected a timestamp, got {value!r}")
        if isinstance(value, int | float):
            return epoch_to_datetime(value)
        if not isinstance(value, str) or not value.strip():
            raise TimestampError(f"expected a timestamp, got {value!r}")
        text = value.strip()
        if self.time_format is not None:
            moment = self._formatted(text)
        elif _NUMBER.match(text):
            return epoch_to_datetime(text)
        else:
            moment = self._parse(text)
        if moment.tzinfo is None or moment.utcoffset() is None:
            self.assumed_zone += 1
            moment = moment.replace(tzinfo=self.tz)
        if not _PLAUSIBLE_YEARS[0] <= moment.year <= _PLAUSIBLE_YEARS[1]:
            raise TimestampError(f"{text!r} is outside {_PLAUSIBLE_YEARS[0]}..{_PLAUSIBLE_YEARS[1]}")
        return moment.astimezone(UTC)

    def read_date(self, value: str) -> date:
        """A date-only value (``14/03/2026``, ``2026-03-14``, ``14 Mar 2026``) as a date."""
        before = self.assumed_zone
        moment = self._parse(value.strip())
        self.assumed_zone = before  # a calendar date has no zone to assume
        return moment.date()

    def _formatted(self, text: str) -> datetime:
        assert self.time_format is not None
        try:
            moment = self.time_format.read(text, self.year)
        except ValueError as exc:
            raise TimestampError(str(exc)) from None
        self.assumed_year += not self.time_format.has_year
        return moment

    def _parse(self, text: str) -> datetime:
        try:
            return datetime.fromisoformat(text.replace(" UTC", "Z").replace(" GMT", "Z"))
        except ValueError:
            pass
        readings = two_digit_year_readings(text)
        if readings is not None:
            raise AmbiguousTimeError(text, readings)
        match = _NUMERIC_DATE.match(text)
        if match:
            return self._numeric(text, match)
        match = _YEAR_FIRST.match(text)
        if match:
            return _assemble(int(match.group(1)), int(match.group(3)), int(match.group(4)),
                             match.groups()[4:], text)
        if _CLF.match(text):  # 14/Mar/2026:09:50:00 +0000 (access logs)
            fmt = "%d/%b/%Y:%H:%M:%S" + (".%f" if "." in text else "") + (" %z" if " " in text else "")
            try:
                return datetime.strptime(text, fmt)
            except ValueError as exc:
                raise TimestampError(f"cannot read {text!r} as a time: {exc}") from None
        if not _MONTH.search(text):
            raise TimestampError(f"cannot read {text!r} as a time")
        try:
            return parsedate_to_datetime(text)  # RFC 2822: Sat, 14 Mar 2026 09:50:00 +0000
        except (TypeError, ValueError, IndexError):
            pass
        default = datetime(self.year or 2000, 1, 1)
        if not _YEAR.search(text):
            if self.year is None:
                raise TimestampError(f"{text!r} has no year (pass the year it was written in)")
            self.assumed_year += 1
        try:
            return dateutil_parser.parse(text, default=default, dayfirst=bool(self.dayfirst))
        except (ValueError, OverflowError) as exc:
            raise TimestampError(f"cannot read {text!r} as a time: {exc}") from None

    def _numeric(self, text: str, match: re.Match[str]) -> datetime:
        a, sep, b = int(match.group(1)), match.group(2), int(match.group(3))
        shows = True if a > 12 >= b else False if b > 12 >= a else None
        if shows is not None:
            self._note_order(shows, text)
            dayfirst = shows
        elif self.dayfirst is not None:
            dayfirst = self.dayfirst
        elif self.inferred is not None:
            dayfirst = self.inferred
        elif sep == ".":
            dayfirst = True  # 14.03.2026: dotted dates are day-first wherever they are written
        else:
            self.provisional += 1
            self.first_ambiguous = self.first_ambiguous or text
            dayfirst = False
        day, month = (a, b) if dayfirst else (b, a)
        return _assemble(int(match.group(4)), month, day, match.groups()[4:], text)

    def _note_order(self, dayfirst: bool, text: str) -> None:
        order = "day-first" if dayfirst else "month-first"
        if self.dayfirst is not None and self.dayfirst != dayfirst:
            raise TimestampError(f"{text!r} can only be read {order}, but the dates were declared "
                                 f"{'day-first' if self.dayfirst else 'month-first'}")
        if self.inferred is not None and self.inferred != dayfirst:
            raise TimestampError(f"{text!r} is {order} but {self.evidence!r} is not: the dates "
                                 "mix day-first and month-first")
        if self.inferred is None:
            self.inferred, self.evidence = dayfirst, text


def _assemble(year: int, month: int, day: int, rest: tuple[str | None, ...], text: str) -> datetime:
    hh, mm, ss, frac, ampm, zone = rest
    hour = int(hh or 0)
    if ampm:
        hour = hour % 12 + (12 if ampm.lower() == "pm" else 0)
    micro = int((frac or "0")[:6].ljust(6, "0"))
    try:
        moment = datetime(year, month, day, hour, int(mm or 0), int(ss or 0), micro)
    except ValueError as exc:
        raise TimestampError(f"cannot read {text!r} as a time: {exc}") from None
    if zone:
        offset = "+00:00" if zone in ("Z", "UTC", "GMT") else zone
        moment = datetime.fromisoformat(moment.isoformat() + offset)
    return moment
