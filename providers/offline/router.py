"""The offline router: intent, service, merchant and time window from a question."""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import Any

from diagnosis_harness.guards.incident import is_incident_question

_TIME = r"(\d{1,2})(?::|h(?=\d{2}))(\d{2})"
"""``14:30``, and ``14h30`` as Brazil and France write it."""
_MERIDIEM = r"(?:\s*([ap])\.?\s?m\b\.?)?"
"""``1:10pm``, ``2:30 PM``, ``6:50 a.m.``: a 12-hour clock's half of the day, as US teams write."""


def answer(values: Mapping[str, Any]) -> dict[str, Any]:
    """The router's answer from the router prompt's values (question, known services, now)."""
    try:
        now = datetime.fromisoformat(str(values.get("now", "")))
    except ValueError:
        now = datetime.now(UTC)
    known = [s.strip() for s in str(values.get("known_services", "")).split(",")
             if s.strip() and s.strip() != "(none)"]
    return route_question(str(values.get("question", "")), known, now)


def route_question(question: str, known_services: Sequence[str], now: datetime) -> dict[str, Any]:
    """Classify and extract service, merchant and window from a question (router role)."""
    q = question.lower()
    # Both sides alike: a service named ``apache_2k`` (from Apache_2k.log) is asked about as
    # "apache_2k" or "apache 2k", and neither may be lost to the question's spelling only.
    service = _asked_service(question, known_services)
    if _SYSTEM_WIDE.search(q):
        # "Everything is failing — starts, stops, billing, pushes": a service named among the
        # symptoms is not the scope; the question asks which component failed.
        service = None
    elif service is None:  # a service the logs never mention (it may be down, or quiet)
        named = re.search(r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|svc|api|gateway|worker))\b",
                          q)
        service = named.group(1) if named else None
    if service is None and not _SYSTEM_WIDE.search(q):  # "payment" for payment-service
        asked = set(re.findall(r"[a-z0-9-]+", q))  # once, not once per service
        service = next((s for s in known_services
                        if s.lower().endswith("-service")
                        and s.lower().removesuffix("-service") in asked), None)
    merchant_match = re.search(r"\bmerchant\s+([A-Za-z0-9_-]+)", question) or \
        re.search(r"\b(M\d{3,})\b", question)
    merchant = merchant_match.group(1) if merchant_match else None
    start, end = _window(question, now)
    diagnosis = service is not None or is_incident_question(question)
    if not diagnosis:
        return {"intent": "GENERAL", "service": None, "merchant": None, "start": None, "end": None}
    return {"intent": "DIAGNOSIS", "service": service, "merchant": merchant,
            "start": start.isoformat() if start else None,
            "end": end.isoformat() if end else None}


_SCOPED = re.compile(r"(?:\s+(?:service|svc))?[\s,:;(–—-]*"
                     r"(?:(?:between|from|entre|zwischen|desde|tra|van)\s+)?"
                     r"(?:\d{1,2}[:h]\d{2}|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2})")
"""A window right after a service's name: the question scopes by that service ("payments,
14:00 to 14:20", "email-worker between 20:10 and 20:30", "payment-gw, 2026-03-16T15:35")."""


_RUN = re.compile(r"[a-z0-9]+")
_Index = tuple[dict[str, tuple[tuple[str, list[str]], ...]], tuple[tuple[str, list[str]], ...]]


@functools.lru_cache(maxsize=8)  # one dataset's services, asked about again and again
def _service_index(known_services: tuple[str, ...]) -> _Index:
    """Each service with its escaped words, keyed by its rarest ``[a-z0-9]`` run.

    A name's regex in :func:`_asked_service` matches only where each of its runs stands as a
    whole run of the question (the match starts after no letter or digit, ends before none,
    and its words meet at separators), so the question's runs find every name that can match.
    Names without such a run are tried always.
    """
    index: dict[str, list[tuple[str, list[str]]]] = {}
    anywhere: list[tuple[str, list[str]]] = []
    runs_of = {name: set(_RUN.findall(name.lower())) for name in known_services}
    names_with = Counter(run for runs in runs_of.values() for run in runs)
    for name, runs in runs_of.items():
        words = [re.escape(w) for w in re.split(r"[\s_-]+", name.lower()) if w]
        if not words:
            continue
        if not runs:
            anywhere.append((name, words))
        else:  # its rarest run: "00042" of pod-00042-svc, not the "pod" every name has
            index.setdefault(min(runs, key=lambda r: (names_with[r], -len(r), r)), []).append(
                (name, words))
    return {k: tuple(v) for k, v in index.items()}, tuple(anywhere)


def _asked_service(question: str, known_services: Sequence[str]) -> str | None:
    """The service a question asks about, of those it names (``_``, ``-`` and spaces alike).

    The one it is labelled with ("lobby: invites fail … telemetry is throwing errors again
    too"), else the one its window follows ("… at checkout since ~15:30. payment-gw,
    15:35 to 15:50"), else the one named first ("edge-gw returns 504s … ocpp-gateway has been
    spitting errors all morning"): the others are noise, a suspect the reporter guesses, or a
    page's name. Of two names at one place the longer (``payment-service``, not ``payment``).
    """
    q = question.lower()
    start = len(q) - len(q.lstrip(" \t\"'*-"))
    found = []
    index, anywhere = _service_index(tuple(known_services))
    # Only names whose rarest run is a run of the question can match (an index, not a scan:
    # 20,000 services, one per pod, are common on Kubernetes).
    candidates = [*anywhere, *(c for run in dict.fromkeys(_RUN.findall(q)) for c in index.get(run, ()))]
    for name, words in candidates:
        for m in re.finditer(r"(?<![a-z0-9])" + r"[\s_-]+".join(words) + r"(?![a-z0-9])", q):
            labelled = m.start() == start and q[m.end():m.end() + 1] == ":"
            scoped = _SCOPED.match(q, m.end()) is not None
            found.append((not labelled, not scoped, m.start(), -len(name), name))
    return min(found)[4] if found else None


_SYSTEM_WIDE = re.compile(r"\beverything\b|\ball (?:the )?(?:services|components|systems)\b"
                          r"|\bsystem-?wide\b|\bwhich services? (?:failed|broke|is "
                          r"(?:failing|broken|down|the (?:root )?cause)|caused)"
                          r"|\bwhich components?\b"
                          r"|(?<![\w])(?:qu[eé]|qual|quel|quale|welche[rs]?|welk)\s+(?:componente?|"
                          r"composant|komponente)\b")
"""Words that ask which component failed, whatever service the question also names ("¿qué
componente es la causa?", "qual componente", "welche Komponente")."""


_MONTH_WORDS = (
    # English, Portuguese, Spanish, French, German, Italian, Dutch: full names and the
    # abbreviations on-call teams write ("14 mai", "3 déc.", "12. März"). Not "out" or "set"
    # (Portuguese October, September): "10 out of 12" is no date.
    ("january jan janeiro enero ene janvier janv januar jän gennaio gen januari", 1),
    ("february feb fevereiro fev febrero février févr fevrier fevr februar febbraio febr "
     "februari", 2),
    ("march mar março marco marzo mars märz marz maart mrt", 3),
    ("april apr abril abr avril avr aprile", 4),
    ("may maio mayo mai maggio mei mag", 5),
    ("june jun junho junio juin juni giugno giu", 6),
    ("july jul julho julio juillet juil juli luglio lug", 7),
    ("august aug agosto ago août aout augustus", 8),
    ("september sep sept setembro septiembre septembre settembre", 9),
    ("october oct outubro octubre octobre oktober okt ottobre ott", 10),
    ("november nov novembro noviembre novembre", 11),
    ("december dec dezembro dez diciembre dic décembre déc decembre dezember dicembre", 12),
)
_MONTHS = {w: n for words, n in _MONTH_WORDS for w in words.split()}
_MONTH = ("(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?![a-zà-ÿ])\.?")
_DE = r"(?:\s+(?:de|del))?"
"""Portuguese and Spanish join day, month and year with "de" ("14 de maio de 2026")."""
_WORD_DATES = (
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th|º|°|\.)?(?:\s+(?:de\s+|del\s+)?|[-/.]){_MONTH}"
                rf"{_DE}(?:,?\s+|[-/.])(\d{{4}})\b", re.I), (0, 1, 2)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), (1, 0, 2)),
)
"""``16 March 2026``, ``7 Apr 2026``, ``11-Feb-2026``, ``March 16, 2026``: (day, month, year)
group positions."""
_ZONE = re.compile(r"\b(?:UTC|GMT)\s*(?:([+-])\s*(\d{1,2})(?::?(\d{2}))?)?(?![\w+-])"
                   r"|(?<![\d:])([+-])(\d{2}):(\d{2})\b")
"""A zone the question writes its times in: ``UTC``, ``UTC+8``, ``GMT-05:00``, ``+01:00``."""
_WORD_CONNECTORS = frozenset({"to", "until", "till", "through", "and", "e", "y", "a", "às",
                              "as", "até", "ate", "hasta", "à", "et", "und", "bis", "tot"})
"""A window's ends joined by a word, in the languages the month names are read in ("entre
19:10 e 19:40", "de 14h30 a 15h", "11:45 às 12:15")."""
_CONNECTOR = "|".join([*sorted(_WORD_CONNECTORS, key=lambda w: (-len(w), w)), "-", "–", "—"])
_PAIR = re.compile(rf"\b{_TIME}{_MERIDIEM}(?=(\s*(?:{_CONNECTOR})\s*){_TIME}{_MERIDIEM}"
                   r"(?![\w:]))", re.I)
"""A time followed by a connector and another time (a lookahead: pairs may overlap, as in
"from about 19:00 — 19:05 to 19:35")."""


def _pair_rank(connector: str) -> int:
    """How surely a connector joins a window's two ends.

    A word first, then a tight dash ("10:05–10:35"), then a spaced hyphen or en dash; a spaced
    em dash is a sentence's dash ("about 19:00 — 19:05 to 19:35": the window is the second pair).
    """
    word = connector.strip().lower()
    if word in _WORD_CONNECTORS:
        return 3
    if connector == word:
        return 2
    return 0 if word == "—" else 1


def _best_pair(question: str) -> tuple[int, int, int, int] | None:
    """The two ends of the question's window, joined by the surest connector (first if tied)."""
    best: tuple[int, tuple[int, int, int, int]] | None = None
    for match in _PAIR.finditer(question):
        h1, m1, half1, connector, h2, m2, half2 = match.groups()
        rank = _pair_rank(connector)
        if best is None or rank > best[0]:
            start, end = _twelve_hour(int(h1), half1, int(h2), half2)
            best = (rank, (start, int(m1), end, int(m2)))
    return best[1] if best else None


def _hour(hour: int, half: str | None) -> int:
    """A 12-hour clock's hour on the 24-hour clock (``12am`` is 0, ``12pm`` is 12)."""
    if half is None or not 1 <= hour <= 12:
        return hour
    return hour % 12 + (12 if half.lower() == "p" else 0)


def _twelve_hour(h1: int, half1: str | None, h2: int, half2: str | None) -> tuple[int, int]:
    """A pair's hours; an end's am/pm also holds for a start that writes none.

    "2:00-2:30 PM" is 14:00–14:30, and "11:30-1:00pm" 11:30–13:00: the start takes the end's
    half of the day unless that would put it after the end.
    """
    end = _hour(h2, half2)
    if half1 is None and half2 is not None and 1 <= h1 <= 12:
        same = _hour(h1, half2)
        return (same if same <= end else _hour(h1, "a")), end
    return _hour(h1, half1), end


_ABBREVIATIONS = {"SGT": 8, "HKT": 8, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12,
                  "NZDT": 13, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "WET": 0, "WEST": 1,
                  "PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CDT": -5, "EDT": -4,
                  "BRT": -3, "ART": -3, "MEZ": 1, "MESZ": 2}
"""Zone abbreviations that name one offset. Ambiguous ones — CST (US Central or China), IST
(India, Israel, Ireland), BST, EST (US or Australia), ``CT``/``ET`` (standard or daylight) —
are not read: the window is then read in HARNESS_TIMEZONE."""
_ABBREVIATION = re.compile(rf"\b({'|'.join(_ABBREVIATIONS)})\b")


def _question_zone(question: str, default: tzinfo) -> tzinfo:
    """The zone named in the question, or ``default`` (HARNESS_TIMEZONE)."""
    match = _ZONE.search(question)
    if match is None:
        named = _ABBREVIATION.search(question)
        return timezone(timedelta(hours=_ABBREVIATIONS[named.group(1)])) if named else default
    sign, hours, minutes = (match.group(1), match.group(2), match.group(3)) if match.group(4) is None \
        else (match.group(4), match.group(5), match.group(6))
    if hours is None:
        return UTC
    offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
    if offset > timedelta(hours=14):
        return default  # not a zone: the window is read in the configured one
    return timezone(-offset if sign == "-" else offset)


def _question_day(question: str, now: datetime) -> tuple[date, bool]:
    """The day the question names (ISO, or with a month name), and whether it names one."""
    iso = re.search(r"(\d{4}-\d{2}-\d{2})", question)
    if iso:
        return datetime.fromisoformat(iso.group(1)).date(), True
    year_first = _YEAR_FIRST.search(question)  # 2026/04/14, 2026.04.14: East Asia's ISO order
    if year_first:
        try:
            return date(*(int(g) for g in year_first.group(1, 3, 4))), True
        except ValueError:
            pass
    for pattern, (d, m, y) in _WORD_DATES:
        match = pattern.search(question)
        if match:
            groups = match.groups()
            try:
                return date(int(groups[y]), _MONTHS[groups[m].lower().rstrip('.')], int(groups[d])), True
            except ValueError:
                continue
    numeric = _NUMERIC_DAY.search(question)
    if numeric:
        first, sep, second, year = numeric.groups()
        a, b = int(first), int(second)
        month_first = _pair_month_first(question, now, a, b, int(year),
                                        sep == "/" and _month_first(question, now))
        try:
            return date(int(year), a if month_first else b, b if month_first else a), True
        except ValueError:
            pass
    return _yearless_day(question, now)


_YEAR_FIRST = re.compile(r"(?<![\d./:-])(\d{4})([./])(\d{1,2})\2(\d{1,2})(?![\d./:-]?\d)")
_YEARLESS_WORD = (
    (re.compile(rf"(?<![\d:.])\b(\d{{1,2}})(?:st|nd|rd|th|º|°|\.)?(?:{_DE}\s+|-){_MONTH}"
                rf"(?!,?{_DE}\s*\d{{4}}|-\d)", re.I), (0, 1)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d)(?!,?\s+\d{{4}})", re.I),
     (1, 0)),
)
"""``14 Apr``, ``18-Feb``, ``Apr 14``, ``April 14th``: a day of the month, the year left out."""
_YEARLESS_NUMERIC = re.compile(r"(?<![\d./:-])(\d{1,2})/(\d{1,2})(?![\d/:-]|[.,]\d|\s*(?:%|of\b))")
"""``4/14``, ``14/4``: a slashed day and month with the year left out (not ``1/2 of``)."""
_YEARLESS_DOTTED = re.compile(r"(?<![\w.:/-])(\d{1,2})\.(\d{1,2})\.(?![\w.])")
"""``am 10.11.``: day and month with their dots, the year left out, as German and much of
Europe write it (not ``5.2.0``, and not ``10.11`` without its closing dot, a version)."""


def _yearless_day(question: str, now: datetime) -> tuple[date, bool]:
    """A day the question names without its year: the latest such day up to "now" (the data's).

    Read as the year of "now", or the year before when that day would lie after it (a question
    of 2 January about "30 Dec"). A slashed pair is month first when the second number cannot
    be a month (``4/14``), day first when the first cannot (``14/4``), and otherwise month first
    where the question's zone is in the Americas or East Asia (UTC+08:00, +09:00: ``4/5`` is
    April 5 in New York, Beijing and Tokyo), day first elsewhere.
    """
    found: tuple[int, int] | None = None
    for pattern, (d, m) in _YEARLESS_WORD:
        match = pattern.search(question)
        if match:
            found = (_MONTHS[match.groups()[m].lower().rstrip('.')], int(match.groups()[d]))
            break
    if found is None and (dotted := _YEARLESS_DOTTED.search(question)) is not None:
        found = (int(dotted.group(2)), int(dotted.group(1)))  # day first: 10.11. is 10 November
    if found is None and (numeric := _YEARLESS_NUMERIC.search(question)) is not None:
        a, b = int(numeric.group(1)), int(numeric.group(2))
        month_first = _pair_month_first(question, now, a, b, None,
                                        _yearless_month_first(question, now))
        found = (a, b) if month_first else (b, a)
    if found is not None:
        try:
            return date(_year_up_to(now, *found), *found), True
        except ValueError:
            pass
    return now.date(), False


def _pair_month_first(question: str, now: datetime, a: int, b: int, year: int | None,
                      custom: bool) -> bool:
    """Whether a numeric pair ``a``/``b`` is month then day.

    Forced where one number cannot be a month; in a zone of the Americas, a pair both ways
    readable is the reading of the month up to "now" (:func:`_recent_reading`); otherwise the
    zone's ``custom``. ``year`` is the date's own, or None (each reading's latest year).
    """
    if b > 12 or a > 12:
        return b > 12
    if a != b and _month_first(question, now):
        return _recent_reading(now, [(year or _year_up_to(now, b, a), b, a),
                                     (year or _year_up_to(now, a, b), a, b)], custom)
    return custom


RECENT = timedelta(days=31)
"""How far before the data's "now" a date that can be read both ways may lie to be read so."""


def _recent_reading(now: datetime, readings: list[tuple[int, int, int]], default: bool) -> bool:
    """Whether a date both readings allow is month first: ``(day first, month first)`` readings.

    Asked only in a zone of the Americas, where the offset does not say the custom (São Paulo
    and Mexico City write day first, New York month first, at the same offsets): where exactly
    one reading lies in the month up to the data's "now" (a day after it, at most), that one —
    ``03/04/2026`` at -03:00 in data ending 5 April 2026 is 3 April. Otherwise month first
    (``default``).
    """
    recent = []
    for year, month, day in readings:
        try:
            when = date(year, month, day)
        except ValueError:
            recent.append(False)
            continue
        recent.append(now.date() - RECENT <= when <= now.date() + timedelta(days=1))
    return recent[1] if recent.count(True) == 1 else default


def _year_up_to(now: datetime, month: int, day: int) -> int:
    """The year of the latest ``month``/``day`` up to a day after "now"."""
    try:
        return now.year if date(now.year, month, day) <= now.date() + timedelta(days=1) \
            else now.year - 1
    except ValueError:
        return now.year


def _yearless_month_first(question: str, now: datetime) -> bool:
    offset = _offset(question, now)
    return offset is not None and (offset <= timedelta(hours=-3)
                                   or timedelta(hours=8) <= offset <= timedelta(hours=9))


_NUMERIC_DAY = re.compile(r"(?<![\d.:/-])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?![\d.:/-]?\d)")
"""``21.01.2026``, ``22/01/2026``, ``03-04-2026``: day first, as most of the world writes it;
month first where the second number cannot be a month (``01/21/2026``), or where a slashed
date could be either and the question's zone is in the Americas (``03/04/2026`` at -05:00)."""


def _offset(question: str, now: datetime) -> timedelta | None:
    """The UTC offset the question's times are written in."""
    return _question_zone(question, now.tzinfo or UTC).utcoffset(now)


def _month_first(question: str, now: datetime) -> bool:
    offset = _offset(question, now)
    return offset is not None and offset <= timedelta(hours=-3)


SINCE_REACH = timedelta(days=1)
"""How far back a "since" may start and still run up to the data's latest event."""
_SINCE = frozenset({"since", "desde", "depuis", "seit"})
_MOMENT = re.compile(rf"\b{_TIME}{_MERIDIEM}(?![\w:])", re.I)
_WIDE_CONNECTOR = re.compile(r"\s(?:to|until|till|through|and|bis|und|et|e|y|a|às|até|hasta)\s"
                             r"|\s[-–]\s", re.I)
_NEAR = 32
"""How far (characters) a day may stand from the time it dates: "from Nov 10 20:00", "02:00 on
2008-11-11", "02:00 on November 11, 2008"."""


def _dated_pair(question: str, now: datetime, day: date, tz: tzinfo
                ) -> tuple[datetime, datetime] | None:
    """Two times each with its own day: "between 20:00 on 2008-11-10 and 02:00 on 2008-11-11".

    The two times are joined by a connector with at most a day in between; each end is read on
    the day written next to it, the start else on the question's day, the end else on the
    start's (the next day when it would not come after the start: across midnight).
    """
    moments = list(_MOMENT.finditer(question))
    for first, second in itertools.pairwise(moments):
        between = question[first.end():second.start()]
        link = _WIDE_CONNECTOR.search(between)
        if link is None or len(between) > 2 * _NEAR:
            continue
        h1, h2 = _hour(int(first.group(1)), first.group(3)), _hour(int(second.group(1)), second.group(3))
        m1, m2 = int(first.group(2)), int(second.group(2))
        if max(h1, h2) >= 24 or max(m1, m2) >= 60:
            continue
        before = question[max(0, first.start() - _NEAR):first.end() + link.start()]
        after = question[first.end() + link.end():second.end() + _NEAR]
        start_day, named = _question_day(before, now)
        start_day = start_day if named else day
        end_day, named = _question_day(after, now)
        end_day = end_day if named else start_day
        start = datetime(start_day.year, start_day.month, start_day.day, h1, m1, tzinfo=tz)
        end = datetime(end_day.year, end_day.month, end_day.day, h2, m2, tzinfo=tz)
        if end <= start and end_day == start_day:
            end += timedelta(days=1)
        return (start, end) if end > start else None
    return None


def _window(question: str, now: datetime) -> tuple[datetime | None, datetime | None]:
    stamps = re.findall(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?",
                        question)
    tz = _question_zone(question, now.tzinfo or UTC)
    if len(stamps) >= 2:
        a, b = (datetime.fromisoformat(s.replace(" ", "T").replace("Z", "+00:00")) for s in stamps[:2])
        return (a if a.tzinfo else a.replace(tzinfo=tz)), (b if b.tzinfo else b.replace(tzinfo=tz))
    last = re.search(r"last\s+(\d+)\s*(minute|min|hour|h)\w*", question, re.I)
    if last:
        n = int(last.group(1))
        delta = timedelta(hours=n) if last.group(2).lower().startswith("h") else timedelta(minutes=n)
        return now - delta, now
    day, named_day = _question_day(question, now)
    pair = _best_pair(question)
    if pair is None and (dated := _dated_pair(question, now, day, tz)) is not None:
        return dated
    if pair:
        h1, m1, h2, m2 = pair
        if max(h1, h2) < 24 and max(m1, m2) < 60:
            start = datetime(day.year, day.month, day.day, h1, m1, tzinfo=tz)
            end = datetime(day.year, day.month, day.day, h2, m2, tzinfo=tz)
            return start, end if end > start else end + timedelta(days=1)
    # "at 10:05", "since ~09:00", "around 14:20": a start (route.py adds the look-back length).
    single = re.search(rf"\b(?:at|since|around|from|desde|às|as|depuis|seit)\s+(?:~\s*)?{_TIME}"
                       rf"{_MERIDIEM}(?![\w:])", question, re.I)
    if single:
        h, m = _hour(int(single.group(1)), single.group(3)), int(single.group(2))
        if h < 24 and m < 60:
            start = datetime(day.year, day.month, day.day, h, m, tzinfo=tz)
            # "since 14:00" runs up to now (the data's latest event), not a look-back's length;
            # a "since" further back than SINCE_REACH names the incident's start, not a window.
            since = (single.group(0).split()[0].lower() in _SINCE
                     and start < now <= start + SINCE_REACH)
            return start, (now if since else None)
    if named_day:
        start = datetime(day.year, day.month, day.day, tzinfo=tz)
        return start, start + timedelta(days=1)
    return None, None


_YEAR = re.compile(r"(?<![\d:.])(?:19|20)\d\d(?![\d:])")


def unwritten_readings(question: str, start: datetime | None, end: datetime | None,
                       now: datetime) -> list[str]:
    """What a window read from ``question`` assumed that the question did not write.

    Whoever read the window (the offline router or a model), a person checks the scope note:
    a time without a day put on the data's last day, a day without a year, an end read on the
    next day, "since" read up to the data's latest event (``now``).
    """
    if start is None or not _MOMENT.search(question) and not _question_day(question, now)[1]:
        return []
    notes = []
    stamped = re.search(r"\d{4}-\d{2}-\d{2}", question) is not None
    named = stamped or _question_day(question, now)[1]
    # dd.mm.yyyy writes its year too, though _YEAR skips a number after a dot (a version's).
    dotted_year = re.search(r"(?<![\w.])\d{1,2}\.\d{1,2}\.(?:19|20)\d\d(?![\d:]|\.\d)", question)
    if not named and _MOMENT.search(question):
        last = " the data's last day" if start.date() == now.date() else ""
        notes.append(f"No date given: read as {start.date().isoformat()},{last}.".replace(",.", "."))
    elif named and not stamped and not _YEAR.search(question) and not dotted_year:
        notes.append(f"No year given: read as {start.year}.")
    if end is not None and end.date() > start.date() and not _names_day(question, end.date(), now):
        notes.append(f"The end ({end.strftime('%H:%M')}) is not after the start on one day: read "
                     f"as the next day, {end.date().isoformat()}.")
    # A model's router writes the "now" its prompt gave: on a live source the wall clock has
    # moved on by the time the scope is read, by the call's length at most (5 minutes here).
    # A question that writes its own end ("since 17:30 until 17:55") was not read up to now.
    upto_now = end is not None and (end == now or timedelta(0) <= now - end <= timedelta(
        minutes=5) and len(_MOMENT.findall(question)) == 1)
    if upto_now and end is not None and re.search(r"\b(?:since|desde|depuis|seit)\b", question, re.I):
        notes.append(f"\"Since\" read up to the data's latest event ({end.isoformat()}).")
    return notes


def _names_day(question: str, day: date, now: datetime) -> bool:
    """Whether ``question`` writes ``day`` (ISO, or next to one of its times)."""
    if day.isoformat() in question:
        return True
    moments = list(_MOMENT.finditer(question))
    return any(_question_day(question[m.start():m.end() + _NEAR], now) == (day, True)
               or _question_day(question[before.end():m.start()], now) == (day, True)
               for before, m in itertools.pairwise(moments))
