"""A user's ``--time-format`` (strptime-style): a regex that finds such a time and a reader for it.

Two-digit-year dates (``17/06/09``, HDFS's ``081109 203615``) do not say where the year is, so the
import refuses them unless the user says; the format the user gives is used both to find the
time at the start of a text line and to read it. Our own reader rather than ``strptime``: it
reads nanoseconds (``%f`` up to 9 digits) and ``Z`` for ``%z``, and its regex is the one the
line finder uses, so what is found is exactly what is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DIRECTIVES = {
    "Y": r"(?P<Y>\d{4})", "y": r"(?P<y>\d{2})", "m": r"(?P<m>\d{1,2})", "d": r"(?P<d>\d{1,2})",
    "H": r"(?P<H>\d{1,2})", "I": r"(?P<I>\d{1,2})", "M": r"(?P<M>\d{1,2})",
    "S": r"(?P<S>\d{1,2})", "f": r"(?P<f>\d{1,9})", "j": r"(?P<j>\d{1,3})",
    "b": r"(?P<b>[A-Za-z]{3})", "h": r"(?P<b>[A-Za-z]{3})", "B": r"(?P<B>[A-Za-z]{3,9})",
    "a": r"[A-Za-z]{3}", "A": r"[A-Za-z]{6,9}", "p": r"(?P<p>[AaPp][Mm])",
    "z": r"(?P<z>Z|[+-]\d{2}:?\d{2})", "Z": r"(?P<Z>UTC|GMT|Z)", "%": "%",
}
"""strptime directives understood, each as the regex that finds it (``%a``/``%A`` only matched)."""


class TimeFormatError(ValueError):
    """A ``--time-format`` this reader cannot use (unknown directive, no date or hour)."""


@dataclass(frozen=True)
class TimeFormat:
    """One ``--time-format``: ``regex`` finds it (group 1 is the whole time), :meth:`read` reads it."""

    spec: str
    regex: re.Pattern[str] = field(compare=False)
    has_year: bool = False
    has_zone: bool = False

    @classmethod
    def parse(cls, spec: str) -> TimeFormat:
        """The format of ``spec``; TimeFormatError naming what is wrong with it."""
        parts: list[str] = []
        seen: set[str] = set()
        i = 0
        while i < len(spec):
            char = spec[i]
            if char == "%":
                code = spec[i + 1] if i + 1 < len(spec) else ""
                if code not in _DIRECTIVES:
                    raise TimeFormatError(
                        f"--time-format {spec!r}: %{code} is not supported (use "
                        + " ".join(f"%{c}" for c in _DIRECTIVES) + ")")
                if code in seen and code != "%":
                    raise TimeFormatError(f"--time-format {spec!r}: %{code} appears twice")
                seen.add(code)
                parts.append(_DIRECTIVES[code])
                i += 2
            elif char.isspace():
                parts.append(r"\s+")
                while i < len(spec) and spec[i].isspace():
                    i += 1
            else:
                parts.append(re.escape(char))
                i += 1
        if not seen & {"d", "j"} or not seen & {"H", "I"}:
            raise TimeFormatError(f"--time-format {spec!r} must give the day (%d or %j) and the "
                                  "hour (%H or %I)")
        if "d" in seen and not seen & {"m", "b", "h", "B"}:
            raise TimeFormatError(f"--time-format {spec!r} gives a day (%d) but no month "
                                  "(%m, %b or %B)")
        if "I" in seen and "p" not in seen:
            raise TimeFormatError(f"--time-format {spec!r}: %I (12-hour clock) needs %p (AM/PM)")
        regex = re.compile("(" + "".join(parts) + r")(?!\d)")
        return cls(spec=spec, regex=regex, has_year=bool(seen & {"Y", "y"}),
                   has_zone=bool(seen & {"z", "Z"}))

    def read(self, text: str, default_year: int | None) -> datetime:
        """The time ``text`` (all of it) stands for; naive unless the format has a zone."""
        match = self.regex.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"{text.strip()!r} does not match --time-format {self.spec!r}")
        g = {k: v for k, v in match.groupdict().items() if v is not None}
        if "Y" in g:
            year = int(g["Y"])
        elif "y" in g:
            year = int(g["y"]) + (1900 if int(g["y"]) >= 69 else 2000)  # as POSIX strptime does
        elif default_year is not None:
            year = default_year
        else:
            raise ValueError(f"{text.strip()!r} has no year (pass the year it was written in)")
        hour = int(g.get("H") or g.get("I") or 0)
        if "p" in g:
            if not 1 <= hour <= 12:
                raise ValueError(f"{text.strip()!r}: hour {hour} on a 12-hour clock")
            hour = hour % 12 + (12 if g["p"].lower() == "pm" else 0)
        micro = int(g.get("f", "0")[:6].ljust(6, "0"))
        try:
            if "j" in g:
                day_one = datetime(year, 1, 1, hour, int(g.get("M", 0)), int(g.get("S", 0)), micro)
                moment = day_one + timedelta(days=int(g["j"]) - 1)
                if not 1 <= int(g["j"]) <= 366 or moment.year != year:
                    raise ValueError(f"day of year {g['j']} does not exist in {year}")
            else:
                moment = datetime(year, _month(g), int(g["d"]), hour, int(g.get("M", 0)),
                                  int(g.get("S", 0)), micro)
        except ValueError as exc:
            raise ValueError(f"{text.strip()!r} is no time in --time-format {self.spec!r}: {exc}") \
                from None
        zone = g.get("z") or g.get("Z")
        if zone:
            moment = moment.replace(tzinfo=_zone(zone))
        return moment


def _month(g: dict[str, str]) -> int:
    if "m" in g:
        return int(g["m"])
    name = (g.get("b") or g.get("B") or "").lower()
    for number, short in enumerate(_MONTHS, start=1):
        if name[:3] == short and ("B" not in g or _full_month(number).startswith(name)):
            return number
    raise ValueError(f"{name!r} is no month name")


def _full_month(number: int) -> str:
    return ("january", "february", "march", "april", "may", "june", "july", "august",
            "september", "october", "november", "december")[number - 1]


def _zone(text: str) -> timezone:
    if text in ("Z", "UTC", "GMT"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


_SHORT_DATE = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{2})(?!\d)(.*)\Z")
_COMPACT_DATE = re.compile(r"(\d{6})([ T-]?)(\d{6})((?:[.,]\d{1,9})?)\Z")
_CLOCK = re.compile(r"([ T,]+)\d{1,2}:\d{2}(:\d{2}([.,])?(\d{1,9})?)?(\s*)([AaPp][Mm])?(\s*)"
                    r"(Z|UTC|GMT|[+-]\d{2}:?\d{2})?\Z")


def two_digit_year_readings(text: str) -> list[tuple[str, datetime]] | None:
    """The formats a two-digit-year date could be in, with what each reads it as.

    None if ``text`` is no such date. Each format is checked by reading ``text`` with it.
    """
    value = text.strip()
    short = _SHORT_DATE.match(value)
    if short:
        sep, rest = short.group(2), short.group(5)
        clock = _CLOCK.match(rest) if rest else None
        if rest and clock is None:
            return None
        tail = _clock_format(clock) if clock else ""
        orders = [f"%y{sep}%m{sep}%d", f"%d{sep}%m{sep}%y", f"%m{sep}%d{sep}%y"]
    else:
        compact = _COMPACT_DATE.match(value)
        if compact is None:
            return None
        frac = compact.group(4)
        tail = compact.group(2) + "%H%M%S" + (f"{frac[0]}%f" if frac else "")
        orders = ["%y%m%d", "%d%m%y", "%m%d%y"]
    readings: list[tuple[str, datetime]] = []
    for order in orders:
        spec = order + tail
        try:
            moment = TimeFormat.parse(spec).read(value, None)
        except ValueError:
            continue
        if all(moment != seen for _, seen in readings):
            readings.append((spec, moment))
    return readings


def _clock_format(clock: re.Match[str]) -> str:
    seconds, frac_sep, frac, gap, ampm, gap2, zone = clock.groups()[1:]
    out = clock.group(1) + ("%I" if ampm else "%H") + ":%M"
    if seconds:
        out += ":%S" + (f"{frac_sep}%f" if frac else "")
    if ampm:
        out += gap + "%p"
    if zone:
        out += gap2 + ("%Z" if zone in ("UTC", "GMT") else "%z")
    return out
