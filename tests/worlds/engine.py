"""The engine every incident world is written with: clocks, a seeded dataset, truth entries.

A world's generator (``scripts/generate_world_<name>.py``) is its spec: its services, their log
formats and chatter, its incidents. What every world does the same way lives here: writing a
time in a zone, drawing from one seeded random stream, laying out a dataset folder (``logs.jsonl``,
``tables/*.csv``, ``knowledge/*.md``, ``dataset.json``, ``truth.json``) and shaping a truth
entry and its evidence steps. The engine knows formats, nothing of how the harness investigates:
a world built with it is as blind to the investigator's rules as its spec.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from functools import partial
from pathlib import Path
from typing import Any

import yaml

Stamp = Callable[[datetime], str]
"""How a world writes a moment in its truth file (its zone, seconds)."""
LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
"""The log levels every world writes."""
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "worlds"
"""Where a generator run without an ``OUT_DIR`` writes its world (``tests/data/worlds``)."""
DATA = Path(__file__).resolve().parents[2] / "scripts" / "worlds_data"
"""A world's data files, ``DATA/<name>/`` beside the generators (its truth entries, ``truth.yaml``):
part of its spec, so ``tests/worlds`` hashes them into the world's cache key."""
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""Month abbreviations as programs write them, whatever the locale."""


# --- clocks -----------------------------------------------------------------------------------

class Clock:
    """A world's zone and first day: ``at(day, hh, mm)`` is a moment, ``iso``/``wall`` write one."""

    def __init__(self, zone: tzinfo, day0: datetime) -> None:
        self.zone = zone
        self.day0 = day0

    def days(self, n: int) -> tuple[datetime, datetime]:
        """The world's first moment and the end of its ``n`` days."""
        return self.day0, self.day0 + timedelta(days=n)

    def at(self, day: int, hh: int, mm: int = 0, ss: int = 0, ms: int = 0) -> datetime:
        """Local time on day ``day`` of the world (negative days are before it)."""
        return self.day0 + timedelta(days=day, hours=hh, minutes=mm, seconds=ss, milliseconds=ms)

    def loc(self, t: datetime) -> datetime:
        """The moment in the world's zone."""
        return t.astimezone(self.zone)

    def iso(self, t: datetime) -> str:
        """ISO 8601 in the world's zone, to the second, with its offset."""
        return t.astimezone(self.zone).isoformat(timespec="seconds")

    def wall(self, t: datetime) -> str:
        """``YYYY-MM-DD HH:MM:SS`` on the world's wall clock, no zone."""
        return t.astimezone(self.zone).strftime("%Y-%m-%d %H:%M:%S")

    def hour(self, t: datetime) -> float:
        """The hour of the day on the world's wall clock, with its minutes as a fraction."""
        return t.astimezone(self.zone).hour + t.astimezone(self.zone).minute / 60

    def minute(self, t: datetime) -> str:
        """``YYYY-MM-DD HH:MM`` on the world's wall clock: a metric export's bucket."""
        return t.astimezone(self.zone).strftime("%Y-%m-%d %H:%M")

    def clf(self, t: datetime, utc: bool = False, millis: bool = False) -> str:
        """Common log format time, ``14/Apr/2026:20:11:03 +0900``, in the world's zone (or UTC)."""
        lt = t.astimezone(UTC if utc else self.zone)
        frac = f".{ms3(lt)}" if millis else ""
        day = f"{lt.day:02d}/{MONTHS[lt.month - 1]}/{lt.year}"
        return f"{day}:{lt.strftime('%H:%M:%S')}{frac} {lt.strftime('%z')}"


def utc(t: datetime) -> datetime:
    """The moment in UTC."""
    return t.astimezone(UTC)


def ms3(t: datetime) -> str:
    """The milliseconds of a moment, three digits."""
    return f"{t.microsecond // 1000:03d}"


def zulu(t: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ``: UTC to the second, as the loader stores table times."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def zulu_ms(t: datetime) -> str:
    """UTC to the millisecond, ``Z``."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + ms3(t) + "Z"


def epoch_ms(t: datetime) -> int:
    """Milliseconds since the epoch."""
    return int(t.timestamp() * 1000)


def inside(t: datetime, span: tuple[datetime, datetime]) -> bool:
    """Whether ``t`` is in the half-open span."""
    return span[0] <= t < span[1]


def every(span: tuple[datetime, datetime], step_s: float) -> Iterator[datetime]:
    """The moments of a span, ``step_s`` apart, from its start."""
    t = span[0]
    while t < span[1]:
        yield t
        t += timedelta(seconds=step_s)


# --- draws ----------------------------------------------------------------------------------

def weighted(r: Callable[[], float], pairs: Sequence[tuple[Any, float]]) -> Any:
    """One value of ``(value, weight)`` pairs, drawn in proportion to its weight with one ``r()``."""
    x = r() * sum(w for _, w in pairs)
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


def poisson(r: Callable[[], float], lam: float) -> int:
    """A Poisson count with mean ``lam`` (Knuth: multiply ``r()`` draws until below e^-lam)."""
    n, p, lim = 0, 1.0, math.exp(-lam)
    while True:
        p *= r()
        if p <= lim:
            return n
        n += 1


# --- a day's traffic --------------------------------------------------------------------------

def interpolated(points: Sequence[tuple[float, float]], h: float, outside: float) -> float:
    """A day's curve at hour ``h``: straight lines between ``(hour, value)`` points, ``outside``
    beyond them."""
    for (h0, v0), (h1, v1) in zip(points, points[1:], strict=False):
        if h0 <= h < h1:
            return v0 + (v1 - v0) * (h - h0) / (h1 - h0)
    return outside


def stepped(steps: Sequence[tuple[float, float]], h: float, last: float) -> float:
    """A day's curve at hour ``h`` in steps: the value of the first ``(until, value)`` with ``h``
    before ``until``, else ``last``."""
    for until, value in steps:
        if h < until:
            return value
    return last


# --- what runs where --------------------------------------------------------------------------

def deployed(base: str, deploys: Sequence[Sequence[Any]], service: str, t: datetime,
             scale: float = 1.0) -> str:
    """The version ``service`` runs at ``t``: ``base``, then that of each of its deploys (a spec's
    table: id, service, version, start, duration, …, in the order given) from ``scale`` × its
    duration seconds after its start (1 when done, 0.5 half-way through, 60 for minutes, 0 at once)."""
    version = base
    for _id, svc, ver, start, duration, *_ in deploys:
        if svc == service and start + timedelta(seconds=duration * scale) <= t:
            version = ver
    return version


# --- a metric's story ------------------------------------------------------------------------

Move = float | tuple[str, float, float]
"""How one value of a metric row moves: a number it is set to, ``("=", a, b)`` set to
``a + b·r()``, ``("+", a, b)`` raised by ``a + b·r()``, ``("*", f, 0)`` multiplied by ``f``."""
Spell = tuple[str, tuple[datetime, datetime], dict[str, Move]]
"""A service, a span, and how its metric row moves during it (the moves in order)."""


def spells(r: Callable[[], float], t: datetime, service: str, values: dict[str, float],
           table: Sequence[Spell]) -> None:
    """Move ``values`` (a service's metric row at ``t``) by each spell of ``table`` over it, in order:
    an incident's rise in errors or latency, a drop in traffic. Draws ``r()`` in the order written."""
    for svc, span, moves in table:
        if svc != service or not inside(t, span):
            continue
        for key, move in moves.items():
            if not isinstance(move, tuple):
                values[key] = move
                continue
            op, a, b = move
            if op == "*":
                values[key] *= a
            elif op == "+":
                values[key] += a + b * r()
            else:
                values[key] = a + b * r()


def spell_table(name: str, at: Callable[..., datetime], spans: Mapping[str, Any]) -> list[Spell]:
    """World ``name``'s spells (see :func:`spells`), kept as data in ``DATA/<name>/spells.txt``.

    A row a line, in the order the spells apply (a :func:`table` of three text cells): the
    service; the span, the name of one the spec defines in ``spans`` (``CERT``) or ``FROM .. TO``
    (each a ``DAY HH:MM[:SS]`` or a named moment, ``PREMIERE[0] .. 0 20:20``); the moves, in
    order, between ``;``: ``KEY = A B`` (set to A + B·r()), ``KEY + A B`` (raised by A + B·r()),
    ``KEY * F`` (multiplied by F) or ``KEY V`` (set to V). A number is an int when written as one.
    """
    path = DATA / name / "spells.txt"
    out: list[Spell] = []
    for service, span, moves in table(None, "sss", path.read_text(encoding="utf-8")):
        where = f"{path}: {service} | {span}"
        out.append((service, _span(span, at, spans, where), dict(_move(m, where) for m in moves.split(";"))))
    return out


def _span(text: str, at: Callable[..., datetime], spans: Mapping[str, Any],
          where: str) -> tuple[datetime, datetime]:
    if " .. " in text:
        start, end = text.split(" .. ")
        return _moment(start.strip(), at, spans, where), _moment(end.strip(), at, spans, where)
    value = spans.get(text)
    if not (isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, datetime) for v in value)):
        raise ValueError(f"{where}: {text!r} is neither a span the spec names nor FROM .. TO")
    return value


def _move(text: str, where: str) -> tuple[str, Move]:
    match text.split():
        case [key, value]:
            return key, _number(value, where)
        case [key, "*", factor]:
            return key, ("*", _number(factor, where), 0)
        case [key, ("=" | "+") as op, a, b]:
            return key, (op, _number(a, where), _number(b, where))
    raise ValueError(f"{where}: {text.strip()!r} is not KEY = A B, KEY + A B, KEY * F or KEY V")


def _number(text: str, where: str) -> float:
    try:
        return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number") from None


# --- a dataset --------------------------------------------------------------------------------

class Dataset:
    """One seeded random stream and what a world writes: log events, tables, runbooks."""

    def __init__(self, seed: int, clock: Clock, end: datetime, services: Sequence[str] = ()) -> None:
        self.rng = random.Random(seed)
        self.clock = clock
        self.end = end
        self.services = services
        """The services a world's log may name (any, when empty)."""
        self.events: list[tuple[datetime, int, dict]] = []
        self.seq = 0
        self.tables: dict[str, tuple[list[str], list[list]]] = {}
        self.docs: dict[str, str] = {}

    always_attrs = False
    """Whether an event writes ``attrs`` even when it has none (``{}``), as some worlds' logs do."""

    def emit(self, t: datetime, service: str, level: str, message: str, **attrs: Any) -> None:
        """One log event with its attributes (see :meth:`event`)."""
        self.event(t, service, level, message, attrs if attrs or self.always_attrs else None)

    def event(self, t: datetime, service: str, level: str, message: str,
              attrs: dict[str, Any] | None = None) -> None:
        """One log event, its time in the world's zone; one outside the world's days is dropped."""
        assert level in LEVELS and (not self.services or service in self.services), (level, service)
        if not (self.clock.day0 <= t < self.end):
            return
        self.seq += 1
        event: dict[str, Any] = {"ts": t.astimezone(self.clock.zone).isoformat(timespec="milliseconds"),
                                 "service": service, "level": level, "message": message}
        if attrs is not None:
            event["attrs"] = attrs
        self.events.append((t, self.seq, event))

    def within(self, rows: Sequence[Sequence[Any]], at: int) -> list[Sequence[Any]]:
        """The rows whose moment (column ``at``) falls in the world's days."""
        return [row for row in rows if self.clock.day0 <= row[at] < self.end]

    def compose(self, tables: Callable[[Any], None], chatter: Sequence[Callable[[Any, datetime], None]],
                stories: Sequence[Callable[[Any], None]],
                deploys: tuple[Sequence[Sequence[Any]], Callable[[Any, datetime, str, str, int], None]] | None
                = None) -> None:
        """The order a world is written in: its change tables, its deploys rolled out (a table and
        its rollout, see :meth:`roll_out`), the everyday ``chatter`` each minute (:meth:`minutely`),
        then each of its ``stories`` (``story(world)``) in order — its incidents, metrics, job runs."""
        tables(self)
        if deploys is not None:
            self.roll_out(*deploys)
        self.minutely(*chatter)
        for story in stories:
            story(self)

    def roll_out(self, deploys: Sequence[Sequence[Any]],
                 rollout: Callable[[Any, datetime, str, str, int], None]) -> None:
        """Each deploy of a spec's table (id, service, version, start, seconds, …) that starts in the
        world's days, in table order: ``rollout(world, start, service, version, seconds)``."""
        for _id, service, version, start, seconds, *_ in self.within(deploys, 3):
            rollout(self, start, service, version, seconds)

    def jittered(self, span: tuple[datetime, datetime], step_s: float,
                 jit_s: float = 60.0) -> Iterator[datetime]:
        """Moments ``step_s`` apart over a span, each up to ``jit_s`` later: a line that repeats."""
        for t in every(span, step_s):
            yield self.jit(t, jit_s)

    def minutes(self) -> Iterator[datetime]:
        """Every minute of the world's days, from its first."""
        return every((self.clock.day0, self.end), 60)

    def minutely(self, *steps: Callable[[Any, datetime], None]) -> None:
        """Each of ``steps`` (``step(world, t)``), in order, for every minute of the world's days."""
        for t in self.minutes():
            for step in steps:
                step(self, t)

    def r(self) -> float:
        """A uniform draw in [0, 1)."""
        return self.rng.random()

    def ri(self, a: int, b: int) -> int:
        """An integer in [a, b]."""
        return self.rng.randint(a, b)

    def pick(self, seq: Sequence[Any]) -> Any:
        """One of ``seq``."""
        return self.rng.choice(seq)

    def count(self, lam: float) -> int:
        """How many of something with mean ``lam``: its whole part, plus one by its fraction."""
        n = int(lam)
        return n + (1 if self.r() < lam - n else 0)

    def jit(self, t: datetime, span_s: float = 60.0) -> datetime:
        """A moment up to ``span_s`` after ``t``, to the microsecond."""
        return t + timedelta(microseconds=int(self.r() * span_s * 1_000_000))

    def hexid(self, n: int) -> str:
        """Hex with at least one digit, so a log pattern masks it like any other id."""
        return self.code(n, "0123456789abcdef", "0123456789")

    def code(self, n: int, alphabet: str, digits: str) -> str:
        """``n`` characters of ``alphabet``, one of them (anywhere) one of ``digits``."""
        s = [self.pick(alphabet) for _ in range(n)]
        s[self.ri(0, n - 1)] = self.pick(digits)
        return "".join(s)

    def counter(self, name: str, lo: int, hi: int) -> int:
        """Attribute ``name`` moved on by ``lo`` to ``hi`` and returned: pids, order numbers."""
        value = getattr(self, name) + self.ri(lo, hi)
        setattr(self, name, value)
        return value

    def tagged(self, prefix: str, n: int, draw: str = "hexid") -> str:
        """An id: ``prefix`` and ``n`` characters of the world's ``draw`` (:meth:`hexid`, or its own)."""
        return prefix + getattr(self, draw)(n)

    def numbered(self, prefix: str, lo: int, hi: int) -> str:
        """An id: ``prefix`` and a number in [lo, hi] (flights, cases, accounts)."""
        return f"{prefix}{self.ri(lo, hi)}"

    def uuid(self) -> str:
        """A version-4-shaped UUID drawn with :meth:`hexid`."""
        a, b, c, v = self.hexid(8), self.hexid(4), self.hexid(3), self.pick("89ab")
        return f"{a}-{b}-4{c}-{v}{self.hexid(3)}-{self.hexid(12)}"

    def plain_hex(self, n: int) -> str:
        """Hex digits, any of them."""
        return "".join(self.pick("0123456789abcdef") for _ in range(n))

    def table(self, name: str, header: list[str], rows: list[list]) -> None:
        """A CSV table of the dataset (written under ``tables/``)."""
        self.tables[name] = (header, rows)

    def write(self, out: Path, manifest: dict, truth: dict) -> None:
        """The dataset folder: events in time order (ties in emission order), tables, runbooks."""
        write_dataset(out, self.events, self.tables, self.docs, manifest, truth)


def write_dataset(out: Path, events: list[tuple[datetime, int, dict]],
                  tables: dict[str, tuple[list[str], list[list]]], docs: dict[str, str],
                  manifest: dict, truth: dict, *, ascii_manifest: bool = False) -> None:
    """Write a dataset folder (docs/data.md) as bytes that do not depend on the platform."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    (out / "knowledge").mkdir(exist_ok=True)
    events.sort(key=lambda e: (e[0], e[1]))
    with (out / "logs.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for _t, _s, event in events:
            f.write(json.dumps(event, ensure_ascii=False) + "\n")
    for name, (header, rows) in sorted(tables.items()):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        (out / "tables" / f"{name}.csv").write_text(buf.getvalue(), encoding="utf-8", newline="\n")
    for name, text in sorted(docs.items()):
        (out / "knowledge" / f"{name}.md").write_text(text, encoding="utf-8", newline="\n")
    for name, doc, ascii_only in (("dataset", manifest, ascii_manifest), ("truth", truth, False)):
        (out / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=ascii_only) + "\n",
                                          encoding="utf-8", newline="\n")


# --- the truth file ---------------------------------------------------------------------------

def incident(stamp: Stamp, iid: str, kind: str, question: str, service: str | None,
             start: datetime, end: datetime, onset: datetime | None, cause_service: str | None,
             root_cause: str | None, key_terms: list[str], distractors: list[str],
             runbook: str | None, evidence: list[dict], outcome: str = "SUCCESS",
             **extra: Any) -> dict:
    """One truth entry (a suite case ``harness eval`` scores); ``extra`` fields follow, as given."""
    d = {
        "id": iid, "kind": kind, "question": question, "service": service,
        "start": stamp(start), "end": stamp(end), "onset": stamp(onset) if onset else None,
        "cause_service": cause_service, "root_cause": root_cause, "key_terms": key_terms,
        "distractors": distractors, "has_runbook": runbook is not None, "runbook": runbook,
        "expected_outcome": outcome,
        "fallback_type": None if outcome == "SUCCESS" else "INSUFFICIENT_EVIDENCE",
        "evidence": evidence,
    }
    d.update(extra)
    return d


CLASSED = ("kind", "class", "question", "service", "start", "end", "onset", "cause_service", "root_cause",
           "key_terms", "distractors", "runbook", "evidence", "note")
"""The fields of a :func:`classed_case` besides its id."""


def classed_case(stamp: Stamp, iid: str, **fields: Any) -> dict:
    """A truth entry in the layout edu and tele write: :func:`incident`'s, with the failure
    ``class`` after the kind, the outcome read from the kind (``cause`` is SUCCESS, any other
    FALLBACK), no fallback type and always a ``note``; its own moments in ISO 8601 in the zone
    they were made in (``stamp`` writes only its evidence steps, see :func:`truth`)."""
    if set(fields) != set(CLASSED):
        raise TypeError(f"a classed case has the fields {', '.join(CLASSED)}, not {', '.join(fields)}")
    f = fields
    return {"id": iid, "kind": f["kind"], "class": f["class"], "question": f["question"],
            "service": f["service"], "start": f["start"].isoformat(), "end": f["end"].isoformat(),
            "onset": f["onset"].isoformat() if f["onset"] else None, "cause_service": f["cause_service"],
            "root_cause": f["root_cause"], "key_terms": f["key_terms"], "distractors": f["distractors"],
            "has_runbook": f["runbook"] is not None, "runbook": f["runbook"],
            "expected_outcome": "SUCCESS" if f["kind"] == "cause" else "FALLBACK", "fallback_type": None,
            "evidence": f["evidence"], "note": f["note"]}


def given(**fields: Any) -> dict[str, Any]:
    """The fields that have a value (a truth entry leaves the others out)."""
    return {k: v for k, v in fields.items() if v}


def log_step(stamp: Stamp, service: str, start: datetime, end: datetime, contains: str,
             level: str | None = None, pattern: str | None = None) -> dict:
    """An evidence step: ``query_logs`` over a span finds ``contains``."""
    args = {"service": service, "start": stamp(start), "end": stamp(end)}
    if level:
        args["level"] = level
    if pattern:
        args["pattern"] = pattern
    return {"tool": "query_logs", "args": args, "contains": contains}


def logs_containing(stamp: Stamp, contains: str, service: str, start: datetime, end: datetime,
                    level: str | None = None, pattern: str | None = None) -> dict:
    """:func:`log_step` written the other way round: what the lines contain first."""
    return log_step(stamp, service, start, end, contains, level, pattern)


def outcome_first(stamp: Stamp, *fields: Any, decoy: str | None = None, runbook_query: str | None = None,
                  note: str | None = None) -> dict:
    """:func:`incident` for specs that give the outcome before the evidence (last), a decoy runbook
    and a runbook query by short names; the optional fields only when given."""
    *head, outcome, evidence = fields
    return incident(stamp, *head, evidence, outcome, **given(
        decoy_runbook=decoy, runbook_query=runbook_query, note=note))


def stamped(stamp: Stamp) -> tuple[Callable[..., dict], Callable[..., dict]]:
    """A log step and a truth entry that write their moments with the world's ``stamp``:
    :func:`log_step` and :func:`incident`, as most specs call them."""
    return partial(log_step, stamp), partial(incident, stamp)


def sql_step(query: str, contains: str) -> dict:
    """An evidence step: ``query_mysql`` (the tables) finds ``contains``."""
    return {"tool": "query_mysql", "args": {"sql": query}, "contains": contains}


def truth_file(name: str, offset: str, incidents: list[dict], description: str) -> dict:
    """A world's ``truth.json``: a suite over its own dataset, questions read at ``offset``."""
    return {"dataset": f"{name}-world", "timezone": offset, "description": description,
            "incidents": incidents}


MOMENT = re.compile(r"(-?\d+) (\d{1,2}):(\d{2})(?::(\d{2}))?")
"""A moment written as data: ``DAY HH:MM[:SS]`` on the world's clock (what :func:`table` reads)."""
SPAN_REF = re.compile(r"([A-Za-z_]\w*)(?:\[(\d)\])?")
"""A moment the spec names: a constant (``T0``) or one end of a span (``CERT[0]``, ``skew[0]``)."""


def truth(name: str, at: Callable[..., datetime], stamp: Stamp, spans: Mapping[str, Any],
          make: Callable[..., dict] | None = None) -> dict:
    """World ``name``'s ``truth.json`` (:func:`truth_file`), kept as data in ``DATA/<name>/truth.yaml``.

    The file holds the ``offset`` questions are read at, the suite's ``description`` and its
    ``incidents``: each :func:`incident`'s fields (``id`` for ``iid``; ``outcome`` when not
    SUCCESS; other fields follow, as given), each evidence step ``logs:`` (:func:`log_step`'s
    fields), ``sql:`` (:func:`sql_step`'s) or ``step:`` (a step written out). A moment (``start``,
    ``end``, ``onset``, a log step's span) is ``DAY HH:MM[:SS]`` made with ``at``, or the name of
    one the spec defines in ``spans`` (its module constants: ``CERT[0]``, the span its story writes
    the incident's logs in), so the answer key and the story cannot drift apart. Times are written
    with ``stamp``; ``make`` (:func:`incident` unless given, :func:`classed_case`) shapes an entry.
    A malformed file is a ``ValueError`` that names the file and the entry.
    """
    path = DATA / name / "truth.yaml"
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not YAML ({exc})") from exc
    if not isinstance(doc, dict) or set(doc) != {"offset", "description", "incidents"}:
        raise ValueError(f"{path}: a truth file holds offset, description and incidents")
    entries = [_entry(entry, at, stamp, spans, make or incident, f"{path}: {entry.get('id')!r}")
               for entry in doc["incidents"]]
    return truth_file(name, doc["offset"], entries, doc["description"])


def _entry(entry: dict, at: Callable[..., datetime], stamp: Stamp, spans: Mapping[str, Any],
           make: Callable[..., dict], where: str) -> dict:
    fields = dict(entry)

    def moment(text: str | None) -> datetime | None:
        return None if text is None else _moment(text, at, spans, where)

    try:
        for key in ("start", "end", "onset"):
            fields[key] = moment(fields[key])
        fields["evidence"] = [_step(step, stamp, moment, where) for step in fields["evidence"]]
        return make(stamp, fields.pop("id"), **fields)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{where}: not a truth entry ({type(exc).__name__}: {exc})") from exc


def _moment(text: str, at: Callable[..., datetime], spans: Mapping[str, Any], where: str) -> datetime:
    if m := MOMENT.fullmatch(text):
        return at(*(int(g) for g in m.groups() if g is not None))
    m = SPAN_REF.fullmatch(text)
    value = spans.get(m[1]) if m else None
    if m and m[2] is not None and isinstance(value, tuple) and int(m[2]) < len(value):
        value = value[int(m[2])]
    if not isinstance(value, datetime):
        raise ValueError(f"{where}: {text!r} is neither DAY HH:MM[:SS] nor a moment the spec names")
    return value


def _step(step: dict, stamp: Stamp, moment: Callable[[str | None], datetime | None], where: str) -> dict:
    if not isinstance(step, dict) or len(step) != 1:
        raise ValueError(f"{where}: an evidence step is one of logs:, sql: or step:, not {step!r}")
    (kind, fields), = step.items()
    if kind == "logs":
        return log_step(stamp, **{**fields, "start": moment(fields["start"]), "end": moment(fields["end"])})
    if kind == "sql":
        return sql_step(**fields)
    if kind == "step":
        return dict(fields)
    raise ValueError(f"{where}: an evidence step is logs:, sql: or step:, not {kind!r}")


def rows(table: str) -> list[tuple[str, ...]]:
    """The rows of a table written as text, one a line, cells between ``|`` (blank lines skipped)."""
    return [tuple(cell.strip() for cell in line.split("|")) for line in table.splitlines() if line.strip()]


def table(at: Callable[..., datetime] | None, kinds: str, text: str) -> list[tuple[Any, ...]]:
    """A spec's table written as text: one row a line, cells between ``|``; a line that starts
    with a space continues the row above (joined with one space); blank and ``#`` lines skipped.

    ``kinds`` has a letter a column: ``s`` text, ``-`` text or ``None`` when empty, ``i`` an int,
    ``f`` a float, ``t`` a moment ``"DAY HH:MM[:SS]"`` made with ``at`` (the world's clock).
    """
    lines: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] == " " and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    out = []
    for line in lines:
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != len(kinds):
            raise ValueError(f"{len(cells)} cells where {len(kinds)} ({kinds}) are due: {line!r}")
        out.append(tuple(_cell(cell, kind, at) for cell, kind in zip(cells, kinds, strict=True)))
    return out


def data_table(name: str, file: str, at: Callable[..., datetime] | None, kinds: str) -> list[tuple[Any, ...]]:
    """A spec's table kept as a data file, ``DATA/<name>/<file>``, read as :func:`table` reads text."""
    return table(at, kinds, (DATA / name / file).read_text(encoding="utf-8"))


def _cell(cell: str, kind: str, at: Callable[..., datetime] | None) -> Any:
    if kind == "t" and at:
        day, hhmm = cell.split()
        return at(int(day), *map(int, hhmm.split(":")))
    if kind == "-":
        return cell or None
    return {"s": str, "i": int, "f": float}[kind](cell)


# --- table shapes: the columns of the exports the worlds' tools write ------------------------

SHAPES = {name: tuple(cols.split()) for name, cols in rows("""
DEPLOYS_ROLLOUT   | deploy_id service version image started_at finished_at status triggered_by summary
FLYWAY            | installed_rank version description script installed_by installed_on execution_time success
DEPENDENCIES      | caller callee protocol address
DEPENDENCIES_VIA  | caller callee via address
DEPENDENCIES_PURPOSE | caller callee protocol address purpose
CONFIG_AUDIT      | change_id service config_key old_value new_value changed_by changed_at ticket
DEPLOYS_AUTHORED  | deploy_id service version started_at finished_at status author description
CONFIG_APPLIED    | change_id service key old_value new_value applied_at author ticket
MIGRATIONS_APPLIED | service version description applied_at duration_s status
CONSUMER_LAG      | bucket_start consumer_group topic partitions lag_msgs
CONFIG_SUMMARY    | change_id service key old_value new_value author applied_at ticket summary
BATCH_RUNS        | job_name runs_on started finished status items detail
CRON_RUNS         | job_name cronjob namespace schedule started_at completed_at status detail
DEPLOYS_TRIGGERED | deploy_id service version started_at finished_at status triggered_by description
CONFIG_COMPONENT  | change_id component key old_value new_value applied_at applied_by ticket
SERVICE_BUCKETS   | bucket_start service req_per_min p95_ms error_pct cpu_pct
""")}
"""Export shapes a spec names instead of spelling out (a deploy tool's, Flyway's, a config
store's audit log, …): ``columns("FLYWAY")``."""
SHAPES["FLYWAY_SCHEMA"] = (*SHAPES["FLYWAY"], "schema")


def columns(shape: str) -> list[str]:
    """The columns of a named export shape (a new list: a spec may extend it)."""
    return list(SHAPES[shape])


def manifest(name: str, zone: str, what: str, days: str, incidents: int,
             components: int | str | Sequence[str], logs: str = "access", **extra: Any) -> dict:
    """A world's ``dataset.json``: its name, a line on what it holds, the zone it is read in.

    ``components`` is how many there are (``13`` writes "13 components"), their names (listed),
    or the words to write; ``extra`` fields (``dayfirst``) follow, as given.
    """
    if isinstance(components, int):
        parts = f"{components} components"
    elif isinstance(components, str):
        parts = components
    else:
        parts = f"{len(components)} components: {', '.join(components)}"
    about = (f"{what} ({parts}) over three days, {days}; {logs} logs sampled; {incidents} incidents and "
             "traps (see truth.json).")
    return {"name": f"{name}-world", "description": about, "timezone": zone, **extra}


World = Callable[[], tuple[Any, dict, dict]]
"""A world's spec, run: its dataset, ``dataset.json`` and ``truth.json``."""


def write_world(out_dir: Path, name: str, world: World, docs: dict[str, str] | None = None) -> None:
    """Build a world (its data, ``dataset.json`` and ``truth.json``) into ``out_dir/<name>/``.

    ``docs`` are the world's runbooks (``knowledge/<name>.md``), added to any its spec wrote.
    """
    data, about, truth = world()
    if docs:
        data.docs.update(docs)
    data.write(Path(out_dir) / name, about, truth)


def main(name: str, world: World, module: str, docs: dict[str, str] | None = None) -> Callable[..., None]:
    """A generator's ``main(out_dir)``; when ``module`` is ``"__main__"`` it also runs it at once.

    On the command line (``python scripts/generate_world_<name>.py [OUT_DIR]``) the world is written
    into ``OUT_DIR/<name>/``, by default into :data:`DEFAULT_OUT`.
    """
    def write(out_dir: Path = DEFAULT_OUT) -> None:
        write_world(out_dir, name, world, docs)

    if module == "__main__":
        write(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
    return write
