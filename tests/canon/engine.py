"""Build canon cases into dataset folders: a clock, log files, tables, runbooks, a truth file.

One engine for every case. It knows the dataset format and the programs' log formats, nothing
of how the harness investigates. A case becomes a folder of exports (one log file per service in
its own format, CSV tables, Markdown runbooks), which ``harness data import`` turns into the
dataset through the importer that command calls, exactly as a team's own exports go; then the
case's ``truth.json`` is added. The whole canon is written into a cache folder named after a
hash of the engine and the specs, so an unchanged canon is never rebuilt and nothing generated
is committed.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import os
import random
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .formats import render
from .runbooks import RUNBOOKS
from .spec import Case, Config, Deploy, Flag, Job, Line, Metric, Svc

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SUITE_FILE = "canon.json"
DONE_MARK = ".complete"

_FILL = {
    "ms": lambda r: str(r.choice((r.randint(4, 60), r.randint(40, 250), r.randint(200, 900)))),
    "id": lambda r: f"{r.getrandbits(40):010x}",
    "n": lambda r: str(r.randint(1, 400)),
    "ip": lambda r: f"10.{r.randint(0, 3)}.{r.randint(0, 255)}.{r.randint(2, 254)}",
    "user": lambda r: f"u{r.randint(10000, 99999)}",
    "sku": lambda r: f"SKU-{r.randint(1000, 9999)}",
    "pct": lambda r: str(r.randint(1, 40)),
}


# --- the clock ------------------------------------------------------------------------------

def at(case: Case, clock: str) -> datetime:
    """``HH:MM[:SS]`` on the case's day, or ``YYYY-MM-DD HH:MM`` on another day; UTC."""
    if " " in clock:
        return datetime.fromisoformat(clock).replace(tzinfo=UTC)
    parts = [int(p) for p in clock.split(":")]
    hh, mm, ss = (parts + [0, 0])[:3]
    day = datetime.fromisoformat(case.day).replace(tzinfo=UTC)
    return day + timedelta(hours=hh, minutes=mm, seconds=ss)


def start_of(case: Case) -> datetime:
    """Where the case's logs start: ``baseline_h`` hours before its window."""
    return at(case, case.window[0]) - timedelta(hours=case.baseline_h)


def end_of(case: Case) -> datetime:
    """Where the case's logs stop: 45 minutes after its window."""
    return at(case, case.window[1]) + timedelta(minutes=45)


def iso(ts: datetime) -> str:
    """Canonical UTC text, as the dataset stores times."""
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _every(start: datetime, stop: datetime, mean_s: float, rng: random.Random) -> Iterator[datetime]:
    """Times from start to stop, gaps jittered around ``mean_s`` (never a metronome)."""
    t = start + timedelta(seconds=rng.uniform(0, mean_s))
    while t < stop:
        yield t.replace(microsecond=rng.randrange(0, 1000) * 1000)
        t += timedelta(seconds=rng.uniform(0.4 * mean_s, 1.6 * mean_s))


def fill(template: str, rng: random.Random) -> str:
    """A template with its ``{placeholders}`` drawn from ``rng``; other braces are kept."""
    out = template
    for key, draw in _FILL.items():
        while "{" + key + "}" in out:
            out = out.replace("{" + key + "}", draw(rng), 1)
    return out


# --- logs -----------------------------------------------------------------------------------

def events(case: Case, rng: random.Random) -> list[tuple[datetime, Svc, str, str]]:
    """Every log event of the case, in time order: background traffic, then the incident."""
    services = {s.name: s for s in case.services}
    begin, stop = start_of(case), end_of(case)
    out: list[tuple[datetime, Svc, str, str]] = []
    for svc in case.services:
        if svc.chatter:
            out += [(t, svc, "INFO", fill(rng.choice(svc.chatter), rng))
                    for t in _every(begin, stop, svc.every_s, rng)]
        if svc.warns:
            out += [(t, svc, "WARN", fill(rng.choice(svc.warns), rng))
                    for t in _every(begin, stop, svc.warn_every_s, rng)]
        if svc.noise:
            out += [(t, svc, "ERROR", fill(svc.noise, rng))
                    for t in _every(begin, stop, svc.noise_every_s, rng)]
    for item in case.lines:
        if item.service not in services:
            raise ValueError(f"case {case.id}: a line names {item.service!r}, not a service of it")
        svc = services[item.service]
        if isinstance(item, Line):
            out.append((at(case, item.at), svc, item.level, fill(item.message, rng)))
        else:
            out += [(t, svc, item.level, fill(item.message, rng))
                    for t in _every(at(case, item.start), at(case, item.end), item.every_s, rng)]
    out.sort(key=lambda e: (e[0], e[1].name))
    return out


def write_logs(case: Case, folder: Path, rng: random.Random) -> None:
    """One ``<service>.log`` per service, each in the service's own format."""
    lines: dict[str, list[str]] = {s.name: [] for s in case.services}
    for ts, svc, level, message in events(case, rng):
        lines[svc.name].append(render(svc.fmt, svc.name, ts, level, message, rng))
    for name, rows in lines.items():
        if rows:
            (folder / f"{name}.log").write_text("\n".join(rows) + "\n", encoding="utf-8")


# --- tables ---------------------------------------------------------------------------------

_ROUTINE_CONFIG = (("log.sampling.ratio", "0.1", "0.05"), ("http.server.idle_timeout", "60s", "75s"),
                   ("metrics.push_interval", "15s", "10s"), ("feature.banner.text", "v1", "v2"))


def _routine_changes(case: Case, rng: random.Random) -> list[Deploy | Config]:
    """Everyday changes of the days before: what a change table always holds.

    A service's routine releases come before (and below) any version the case deploys.
    """
    names = [s.name for s in case.services if s.fmt not in ("syslog", "k8s", "postgres")
             and not s.name.endswith("-db")]
    later = {c.service: c.version for c in case.changes if isinstance(c, Deploy)}
    patch: dict[str, int] = {}
    out: list[Deploy | Config] = []
    for back in (3, 2, 1):
        day = (datetime.fromisoformat(case.day) - timedelta(days=back)).date().isoformat()
        name = rng.choice(names)
        if name not in patch:
            patch[name] = rng.randint(0, 4)
        patch[name] += 1
        out.append(Deploy(at=f"{day} {rng.randint(9, 16):02d}:{rng.randint(0, 59):02d}",
                          service=name, version=_before(later.get(name), patch[name], name),
                          summary=rng.choice(("dependency bumps", "copy changes", "new metrics labels",
                                              "refactor, no behaviour change", "logging tweaks"))))
    day = (datetime.fromisoformat(case.day) - timedelta(days=2)).date().isoformat()
    key, old, new = rng.choice(_ROUTINE_CONFIG)
    out.append(Config(at=f"{day} 11:{rng.randint(10, 50)}", service=rng.choice(names), key=key,
                      old=old, new=new, by="ops", ticket=f"OPS-{rng.randint(1000, 1999)}"))
    return out


def _before(version: str | None, patch: int, service: str) -> str:
    """A routine version of ``service``: a minor below ``version``, or the service's own line."""
    parts = (version or "").split(".")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        major, minor = int(parts[0]), int(parts[1])
        return f"{major}.{minor - 1}.{patch}" if minor > 0 else f"{major - 1}.9.{patch}"
    seeded = random.Random(f"{service}:line")
    return f"{seeded.randint(1, 6)}.{seeded.randint(2, 30)}.{patch}"


def change_tables(case: Case, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """The change tables in the case's shape (split, single or none)."""
    if case.change_shape == "none":
        return {}
    changes = sorted([*_routine_changes(case, rng), *case.changes],
                     key=lambda c: at(case, c.start if isinstance(c, Job) else c.at))
    split: dict[str, list[dict[str, Any]]] = {"deploys": [], "config_changes": []}
    single: list[dict[str, Any]] = []
    seq = zlib.crc32(case.id.encode()) % 9000 + 1000
    for n, c in enumerate(changes):
        ref = seq + n
        if isinstance(c, Deploy):
            t = at(case, c.at)
            split["deploys"].append({
                "deploy_id": f"DEP-{ref}", "service": c.service, "version": c.version,
                "started_at": iso(t), "finished_at": iso(t + timedelta(minutes=c.minutes)),
                "status": c.status, "deployed_by": c.by, "summary": c.summary})
            single.append({"changed_at": iso(t), "service": c.service, "kind": "deploy",
                           "summary": f"deploy {c.version}: {c.summary}".rstrip(": "),
                           "author": c.by, "ref": f"DEP-{ref}"})
        elif isinstance(c, Config):
            t = at(case, c.at)
            split["config_changes"].append({
                "change_id": f"CHG-{ref}", "service": c.service, "config_key": c.key,
                "old_value": c.old, "new_value": c.new, "changed_by": c.by, "changed_at": iso(t),
                "ticket": c.ticket})
            single.append({"changed_at": iso(t), "service": c.service, "kind": "config",
                           "summary": f"{c.key}: {c.old} -> {c.new}", "author": c.by,
                           "ref": f"CHG-{ref}"})
        elif isinstance(c, Flag):
            t = at(case, c.at)
            split.setdefault("feature_flags", []).append({
                "flag": c.flag, "service": c.service, "old_state": c.old, "new_state": c.new,
                "changed_by": c.by, "changed_at": iso(t)})
            single.append({"changed_at": iso(t), "service": c.service, "kind": "feature_flag",
                           "summary": f"{c.flag}: {c.old} -> {c.new}", "author": c.by,
                           "ref": f"FF-{ref}"})
        else:
            t = at(case, c.start)
            split.setdefault("job_runs", []).append({
                "run_id": f"RUN-{ref}", "job": c.job, "service": c.service, "target": c.target,
                "started_at": iso(t), "finished_at": iso(at(case, c.end)), "status": c.status,
                "triggered_by": c.by, "rows_processed": c.rows})
            single.append({"changed_at": iso(t), "service": c.service, "kind": "job",
                           "summary": f"{c.job} on {c.target} ({c.status})", "author": c.by,
                           "ref": f"RUN-{ref}"})
    return {"change_log": single} if case.change_shape == "single" else split


def metric_rows(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """``service_metrics``: per-minute traffic of every service, plus the case's series."""
    begin, stop = start_of(case), end_of(case)
    traffic = [Metric(s.name, "requests_per_s", round(rng.uniform(20, 300)), jitter=0.08)
               for s in case.services if s.fmt != "syslog" and not s.name.endswith("-db")]
    rows: list[dict[str, Any]] = []
    t = begin
    while t < stop:
        for m in (*traffic, *case.metrics):
            value = _value(case, m, t) * (1 + rng.uniform(-m.jitter, m.jitter))
            rows.append({"ts": iso(t), "service": m.service, "metric": m.name,
                         "value": round(value, 3 if abs(value) < 10 else 1)})
        t += timedelta(minutes=1)
    return rows


def _value(case: Case, m: Metric, t: datetime) -> float:
    if m.after is None or m.at is None or t < at(case, m.at):
        return m.base
    if m.until is not None and t >= at(case, m.until):
        return m.base
    if m.ramp_min <= 0:
        return m.after
    share = min(1.0, (t - at(case, m.at)).total_seconds() / (60 * m.ramp_min))
    return m.base + (m.after - m.base) * share


def _csv(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV: every column any row has, in first-seen order; a missing or None cell is empty."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, list(dict.fromkeys(c for row in rows for c in row)),
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


# --- the truth ------------------------------------------------------------------------------

def question(case: Case) -> str:
    """The case's question with its date placeholders filled."""
    day = datetime.fromisoformat(case.day)
    return case.question.format(date=case.day, day=f"{day.day} {day:%B %Y}",
                                short=f"{day:%b} {day.day}")


def truth_item(case: Case) -> dict[str, Any]:
    """The case in the shape of a truth file's incident (docs/eval.md)."""
    outcome, _, fallback = case.expect.partition("/")
    return {
        "id": case.id, "class": case.klass, "title": case.title,
        "kind": "trap" if case.klass.startswith("trap-") else "cause",
        "question": question(case), "service": case.service,
        "start": iso(at(case, case.window[0])), "end": iso(at(case, case.window[1])),
        "onset": iso(at(case, case.onset)) if case.onset else None,
        "cause_service": case.cause_service, "root_cause": case.root_cause,
        "key_terms": list(case.key_terms), "distractors": list(case.distractors),
        "has_runbook": any(r != "known-noise" for r in case.runbooks),
        "runbook": next((r for r in case.runbooks if r != "known-noise"), None),
        "expected_outcome": outcome, "fallback_type": fallback or None,
    }


def check(case: Case) -> None:
    """What a spec must hold before it is built (a broken spec fails by name)."""
    problems = []
    if case.expect == "SUCCESS" and not (case.key_terms and case.cause_service and case.onset):
        problems.append("a SUCCESS needs key_terms, cause_service and onset")
    if case.expect != "SUCCESS" and case.key_terms:
        problems.append("only a SUCCESS has key_terms")
    if at(case, case.window[0]) >= at(case, case.window[1]):
        problems.append("the window ends before it starts")
    unknown = [r for r in case.runbooks if r not in RUNBOOKS]
    if unknown:
        problems.append(f"unknown runbooks {unknown}")
    if problems:
        raise ValueError(f"case {case.id}: " + "; ".join(problems))


# --- building -------------------------------------------------------------------------------

def build_case(case: Case, into: Path) -> Path:
    """Write the case's exports, import them into ``into``, add ``truth.json``."""
    check(case)
    rng = random.Random(f"canon:{case.id}")
    with tempfile.TemporaryDirectory(prefix=f"canon-{case.id}-") as scratch:
        exports = Path(scratch) / "exports"
        exports.mkdir()
        write_logs(case, exports, rng)
        tables = {**change_tables(case, rng), "service_metrics": metric_rows(case, rng),
                  **{k: list(v) for k, v in case.tables.items()}}
        for name, rows in tables.items():
            if rows:
                (exports / f"{name}.csv").write_text(_csv(rows), encoding="utf-8")
        for doc in case.runbooks:
            (exports / f"{doc}.md").write_text(RUNBOOKS[doc], encoding="utf-8")
        _import(exports, into, year=start_of(case).year, name=f"canon-{case.id}")
    manifest = {"name": f"canon-{case.id}", "timezone": "UTC",
                "description": f"canon case {case.id} ({case.klass}): {case.title}"}
    (into / "dataset.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    truth = {"dataset": f"canon-{case.id}", "timezone": "UTC", "incidents": [truth_item(case)]}
    (into / "truth.json").write_text(json.dumps(truth, indent=2, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    return into


def _import(exports: Path, into: Path, *, year: int, name: str) -> None:
    """``harness data import --year Y --name N --no-load`` on the exports, in this process.

    The command's own importer with the command's default limits: a process per case spent
    ~0.6 s importing the harness for ~0.05 s of work (84 cases: ~54 s of a ~64 s build). A
    source the importer leaves out fails the build, as the command's exit 64 did.
    """
    from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources

    report = import_sources([exports], into, ImportOptions(year=year, name=name))
    if report.left_out:
        raise RuntimeError(f"harness data import of {name} left out: " + "; ".join(report.left_out))


def suite(cases: Iterable[Case]) -> dict[str, Any]:
    """The whole canon as one ``harness eval`` suite: each case on its own dataset folder.

    The tags carry what a suite case has no field for: the class, cause or trap, and the cause's
    component (``cause:<service>``), so a scorecard can be read per class.
    """
    out = []
    for case in cases:
        item = truth_item(case)
        expect: dict[str, Any] = {"outcome": case.expect}
        if case.expect == "SUCCESS":
            expect["root_cause"] = {"all": list(case.key_terms)}
        tags = ["canon", f"class:{case.klass}", item["kind"], f"service:{case.service}"]
        if case.cause_service:
            tags.append(f"cause:{case.cause_service}")
        out.append({"id": case.id, "question": item["question"], "dataset": case.id,
                    "expect": expect, "tags": tags})
    return {"name": "canon", "description": "textbook incidents, one small world each "
            "(tests/canon; docs/eval.md, The canon)", "cases": out}


def spec_hash(cases: Sequence[Case]) -> str:
    """A hash of the engine's and the specs' sources and of the cases themselves."""
    digest = hashlib.sha256()
    for path in sorted(HERE.rglob("*.py")):
        digest.update(path.relative_to(HERE).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(repr(cases).encode())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """``$HARNESS_WORLD_CACHE``, else ``.cache/worlds`` in the repository (git-ignored)."""
    return Path(os.environ.get("HARNESS_WORLD_CACHE") or REPO / ".cache" / "worlds")


def build(cases: Sequence[Case], out: Path | None = None) -> Path:
    """Build the canon (or reuse its cached build); returns the suite file ``canon.json``.

    Without ``out`` the canon goes to ``cache_root()/canon-<hash>``. Written aside and moved into
    place when complete, so a build cut short is never mistaken for a canon.
    """
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise ValueError("two canon cases share an id")
    digest = spec_hash(cases)
    target = out if out is not None else cache_root() / f"canon-{digest}"
    if _complete(target, digest):
        return target / SUITE_FILE
    if target.exists() and any(target.iterdir()) and not (target / DONE_MARK).is_file():
        raise FileExistsError(f"{target}: exists, is not empty and holds no canon; choose a new "
                              "folder (a canon build replaces only an earlier canon build)")
    target.parent.mkdir(parents=True, exist_ok=True)
    if out is not None:
        return _build(cases, target, digest, pruned=False)
    # One build in the cache at a time: test workers that want it wait for the first one's.
    with open(target.parent / ".lock-canon", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _build(cases, target, digest, pruned=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build(cases: Sequence[Case], target: Path, digest: str, *, pruned: bool) -> Path:
    if _complete(target, digest):  # built by another process while this one waited
        return target / SUITE_FILE
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.build-", dir=target.parent))
    try:
        for case in cases:
            build_case(case, work / case.id)
        (work / SUITE_FILE).write_text(json.dumps(suite(cases), indent=2, ensure_ascii=False)
                                       + "\n", encoding="utf-8")
        (work / DONE_MARK).write_text(digest + "\n", encoding="utf-8")
        if _complete(target, digest):  # another process built the same canon meanwhile
            return target / SUITE_FILE
        if target.exists():
            shutil.rmtree(target)
        try:
            os.rename(work, target)
        except OSError:
            if not _complete(target, digest):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if pruned:
        _prune(target)
    return target / SUITE_FILE


def _complete(target: Path, digest: str) -> bool:
    mark = target / DONE_MARK
    return mark.is_file() and mark.read_text(encoding="utf-8").strip() == digest


def _prune(keep: Path) -> None:
    """Remove the cache's earlier canon builds (complete ones only: another build may be running)."""
    for old in keep.parent.glob("canon-*"):
        if old != keep and (old / DONE_MARK).is_file():
            shutil.rmtree(old, ignore_errors=True)
