"""The vocabulary a canon case is written in: services, log lines, changes, metrics, the truth.

A case is a small incident world seen from outside, as an SRE would write it down: which
services log what (and in which format), what went wrong when, what changed, what the graphs
showed, which runbooks exist, and what a correct answer must say. It says nothing about how an
investigator should find it. Times are ``HH:MM`` or ``HH:MM:SS`` on the case's ``day``, or
``YYYY-MM-DD HH:MM`` on another day (all UTC).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Format = Literal["text", "json", "logfmt", "access", "syslog", "postgres", "k8s"]
"""How a service writes its log: logback-style text, zap/logrus-style JSON lines, logfmt, an
nginx combined access log (a line is ``METHOD PATH STATUS`` plus optional ``rt=…``), or RFC 3164
syslog (a line is ``tag: message``; the tag becomes the service), or PostgreSQL's own log
(``%m [%p] %q%u@%d `` then ``LOG:``, ``WARNING:``, ``ERROR:`` or ``FATAL:`` from the level; a
line may be ``[PID] user@db DETAIL: …``: its process, its session, a continuation's tag), or
``kubectl get events -o json`` events (a line is ``Kind namespace/name Reason: message``; the
object's name without its hash becomes the service)."""

Level = Literal["DEBUG", "INFO", "WARN", "ERROR", "FATAL"]


@dataclass(frozen=True)
class Svc:
    """One component and its everyday log traffic.

    ``chatter`` are INFO templates logged about every ``every_s`` seconds; ``warns`` routine WARN
    templates about every ``warn_every_s``; ``noise`` an ERROR it logs all day, at about
    ``noise_every_s`` (the known-noise service every real system has). Templates may use
    ``{ms} {id} {n} {ip} {user} {sku} {pct}``, filled from the case's seeded random stream.
    """

    name: str
    fmt: Format = "text"
    chatter: tuple[str, ...] = ()
    warns: tuple[str, ...] = ()
    every_s: int = 45
    warn_every_s: int = 1500
    noise: str | None = None
    noise_every_s: int = 240


@dataclass(frozen=True)
class Line:
    """One log line at ``at`` (``service`` must be a :class:`Svc` of the case)."""

    at: str
    service: str
    message: str
    level: Level = "INFO"


@dataclass(frozen=True)
class Burst:
    """The same line repeated from ``start`` to ``end``, about every ``every_s`` seconds."""

    start: str
    end: str
    service: str
    message: str
    level: Level = "ERROR"
    every_s: float = 8.0


@dataclass(frozen=True)
class Deploy:
    """A row of the ``deploys`` table."""

    at: str
    service: str
    version: str
    summary: str = ""
    minutes: int = 3
    status: str = "SUCCEEDED"
    by: str = "ci-bot"


@dataclass(frozen=True)
class Config:
    """A row of the ``config_changes`` table."""

    at: str
    service: str
    key: str
    old: str
    new: str
    by: str = "ops"
    ticket: str = ""


@dataclass(frozen=True)
class Flag:
    """A row of the ``feature_flags`` audit table."""

    at: str
    flag: str
    service: str
    old: str
    new: str
    by: str = "product"


@dataclass(frozen=True)
class Job:
    """A row of the ``job_runs`` table."""

    start: str
    end: str
    job: str
    service: str
    target: str
    status: str = "SUCCEEDED"
    by: str = "scheduler"
    rows: int = 0


@dataclass(frozen=True)
class Metric:
    """A per-minute series in ``service_metrics`` (long form: ts, service, metric, value).

    ``base`` until ``at``, then moving to ``after`` over ``ramp_min`` minutes, and back to
    ``base`` at ``until`` if given; ``jitter`` is the relative noise.
    """

    service: str
    name: str
    base: float
    after: float | None = None
    at: str | None = None
    ramp_min: int = 0
    until: str | None = None
    jitter: float = 0.05


Outcome = Literal["SUCCESS", "FALLBACK", "FALLBACK/INSUFFICIENT_EVIDENCE"]
Change = Deploy | Config | Flag | Job
ChangeShape = Literal["split", "single", "none"]
"""How changes are tabled: ``split`` (``deploys``, ``config_changes``, ``feature_flags``,
``job_runs``), ``single`` (one ``change_log`` table, as a CMDB export looks) or ``none`` (no
change table at all: what changed is only in the logs)."""


@dataclass(frozen=True)
class Case:
    """One canon incident: its world and its truth.

    ``klass`` is the failure class (a trap's class starts with ``trap-``); ``question`` may use
    ``{date}`` (2026-03-04), ``{day}`` (4 March 2026) and ``{short}`` (Mar 4). The window is the
    question's; ``onset`` when the first failing component first failed (None for a trap with
    nothing to find). ``tables`` are extra tables (name → rows) in their own shapes.
    """

    id: str
    klass: str
    title: str
    day: str
    question: str
    window: tuple[str, str]
    services: tuple[Svc, ...]
    expect: Outcome
    root_cause: str | None = None
    key_terms: tuple[str, ...] = ()
    cause_service: str | None = None
    onset: str | None = None
    lines: tuple[Line | Burst, ...] = ()
    changes: tuple[Change, ...] = ()
    change_shape: ChangeShape = "split"
    metrics: tuple[Metric, ...] = ()
    tables: dict[str, tuple[dict[str, object], ...]] = field(default_factory=dict)
    runbooks: tuple[str, ...] = ()
    distractors: tuple[str, ...] = ()
    note: str | None = None
    """Why a cause the offline default does not publish is left open (a recorded miss): what the
    data lacks for an honest conclusion. Read by people and ``tests/test_canon_scores.py``; the
    build writes nothing of it."""
    baseline_h: int = 3
    """Hours of logs before the window (the baseline a comparison reads)."""

    @property
    def service(self) -> str:
        """The service the question names (the first one the case lists)."""
        return self.services[0].name
