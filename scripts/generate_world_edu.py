#!/usr/bin/env python3
"""Generate the "edu" incident world: a university exam and learning platform in exam week.

    python scripts/generate_world_edu.py OUT_DIR          # writes OUT_DIR/edu/
    python scripts/generate_world_edu.py OUT_DIR --check  # and checks the truth's evidence is in it

Two days (2027-01-25..26, US Eastern, EST = UTC-05:00) of logs from twelve components, each in its
own format and clock, ops tables (dependencies, deploys, config changes, certificates, job runs and
four metric exports) and runbooks, with eight questions in truth.json. Stdlib only, one seeded
generator: the same bytes on every run.
"""

from __future__ import annotations

import csv
import io
import json
import random
import sys
from datetime import UTC, datetime, timedelta, timezone
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)

NAME = "edu"
R = random.Random(20270125)
ri, ru, rc, rr = R.randint, R.uniform, R.choice, R.random
EST = timezone(timedelta(hours=-5))
DAY0 = datetime(2027, 1, 25, tzinfo=EST)
END = DAY0 + timedelta(days=2)


def at(day: int, h: int, m: int, s: float = 0.0) -> datetime:
    """An instant in Eastern wall time on day 0 (Jan 25) or day 1 (Jan 26)."""
    return DAY0 + timedelta(days=day, hours=h, minutes=m, seconds=s)


# Incident windows (Eastern). Everyday traffic reads them to fail the way the incident fails.
W = {
    "skew": (at(0, 8, 4, 31), at(0, 8, 53, 5)),  # sso clockSkew 180 -> 0, Northfield's IdP runs ahead
    "burst": (at(0, 10, 31), at(0, 11, 24)),  # pg-replica-1's gp2 volume out of burst credits
    "wal": (at(0, 14, 2, 37), at(0, 14, 15, 10)),  # pg-primary-1's disk full of WAL kept by a dead slot
    "cert": (at(1, 9, 0, 0), at(1, 9, 27, 20)),  # autosave's serving certificate expired
    "minio": (at(1, 10, 12, 48), at(1, 10, 41, 30)),  # minio-3's drives offline, write quorum lost
    "grader": (at(1, 13, 6, 0), at(1, 13, 51, 40)),  # grader 2.8.0 panics on matrix questions
    "vendor": (at(1, 14, 56), at(1, 15, 47)),  # external plagiarism API (SimCheck) 503s and timeouts
    "esclose": (at(1, 14, 48, 10), at(1, 14, 49, 40)),  # course-search index closed for a settings change
}


def sec(s: float) -> timedelta:
    return timedelta(seconds=s)


def inw(t: datetime, key: str, step_min: int = 0) -> bool:
    """Whether t (or the metric bucket [t, t + step)) falls in the incident window."""
    a, b = W[key]
    return t < b and (t + timedelta(minutes=step_min) > a if step_min else t >= a)


# ---------------------------------------------------------------------------------------------
# vocabulary
COURSES = ["CHEM-101", "BIO-110", "CS-201", "MATH-221", "PHYS-150", "ECON-101", "HIST-240", "PSY-100"]
EXAMS = {c: 8800 + i * 3 for i, c in enumerate(COURSES)}
IDPS = engine.table(None, "ssf", """
https://idp.northfield.edu/idp/shibboleth | northfield.edu | 0.28
https://login.eastonstate.edu/idp | eastonstate.edu | 0.34
https://sts.windows.net/5c1e0a2b-7d3f-4e8a-9b61-2f0c4d8e7a19/ | riverside.edu | 0.24
https://shib.bayview.edu/idp/shibboleth | bayview.edu | 0.14
""")
Q_TYPES = engine.table(None, "sf", """
mcq | 0.38
numeric | 0.2
matrix | 0.27
short_text | 0.15
""")
UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2",
    "Mozilla/5.0 (X11; Linux x86_64; rv:134.0) Gecko/20100101 Firefox/134.0",
    "Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
]
PODS = {"lms-web": ["lms-web-7f9c6d8b54-2xkqp", "lms-web-7f9c6d8b54-9tmwz", "lms-web-7f9c6d8b54-lq4vd"],
        "celery-worker": ["lms-worker-6b8d4f7c9-h2rzn", "lms-worker-6b8d4f7c9-pk7sx"],
        "proctor-ingest": ["proctor-ingest-5d7b9c6f4-x8wlt", "proctor-ingest-5d7b9c6f4-zq2nm"],
        "grader": ["grader-84c6f9d7b-4mfkp", "grader-84c6f9d7b-vb9rt"],
        "autosave": ["autosave-69d8b7c5f-c7xjd", "autosave-69d8b7c5f-rw5gh"]}
PG_PRIMARY, PG_REPLICA = "pg-primary-1", "pg-replica-1"
# Hourly load of exam week (Eastern hour -> share of the peak).
LOAD = [0.06, 0.04, 0.03, 0.03, 0.03, 0.05, 0.1, 0.3, 0.8, 1.0, 1.0, 1.0,
        0.7, 0.95, 1.0, 1.0, 0.9, 0.7, 0.55, 0.5, 0.45, 0.4, 0.3, 0.15]  # fmt: skip


def load(t: datetime) -> float:
    return LOAD[t.astimezone(EST).hour]


pick = partial(engine.weighted, rr)
"""One value of (value, weight) pairs, by weight."""
poisson = partial(engine.poisson, rr)


def hexid(n: int) -> str:
    return "".join(rc("0123456789abcdef") for _ in range(n))


def uuid4() -> str:
    h = hexid(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


course, attempt, port = partial(rc, COURSES), partial(ri, 410000, 499999), partial(ri, 32768, 60999)


def ip_pod() -> str:
    return f"10.42.{ri(1, 6)}.{ri(2, 250)}"


def ip_client() -> str:
    net = rc(["129.21", "140.247", "24.61", "73.152", "98.116"])
    return f"{net}.{ri(1, 254)}.{ri(1, 254)}"


def ms(t: datetime, sep: str = ".") -> str:
    return f"{sep}{t.microsecond // 1000:03d}"


# ---------------------------------------------------------------------------------------------
# events and the formats each component writes
EVENTS: list[tuple[datetime, str, str, str, dict]] = []
# how each component's event time was stamped by the collector: its own clock
TS_ZONE = {
    "ingress": UTC, "lms-web": EST, "celery-worker": UTC, "redis": UTC, "minio": UTC, "proctor-ingest": UTC,
    "grader": EST, "autosave": UTC, "sso": EST, "postgres": UTC, "elasticsearch": UTC, "notify": EST,
}  # fmt: skip


def emit(t: datetime, svc: str, level: str, msg: str, **attrs) -> None:
    if t.microsecond == 0:  # anchors given to the second get a real clock's milliseconds
        t += timedelta(microseconds=ri(1000, 999000))
    EVENTS.append((t, svc, level, msg, {k: v for k, v in attrs.items() if v is not None}))


def utc(t: datetime) -> datetime:
    return t.astimezone(UTC)


def est(t: datetime) -> datetime:
    return t.astimezone(EST)


UPSTREAMS = {"lms-web": ("lms-lms-web-8000", 8000), "sso": ("lms-sso-8080", 8080),
             "proctor-ingest": ("proctor-proctor-ingest-3000", 3000)}  # fmt: skip


def access(t, method, path, status, upstream, rt, size=None, req_len=None, referer="-"):
    """ingress: ingress-nginx's default log format (UTC)."""
    size = size if size is not None else ri(300, 18000)
    req_len = req_len if req_len is not None else ri(350, 1400)
    name, uport = UPSTREAMS[upstream]
    rid = hexid(32)
    ustatus, urt = ("-", "-") if status == 499 else (str(status), f"{max(rt - 0.001, 0.0):.3f}")
    stamp = utc(t).strftime("%d/%b/%Y:%H:%M:%S +0000")
    msg = (f'{ip_client()} - - [{stamp}] "{method} {path} HTTP/2.0" {status} {size} "{referer}" '
           f'"{rc(UAS)}" {req_len} {rt:.3f} [{name}] [] {ip_pod()}:{uport} {size} {urt} {ustatus} {rid}')
    level = "ERROR" if status >= 500 else "WARN" if status >= 400 else "INFO"
    emit(t, "ingress", level, msg, upstream=name, status=status, request_id=rid,
         pod="ingress-nginx-controller-6f8b9c7d5-mz4kq")


def django(t, level, logger, text):
    """lms-web: Django's logging as configured there (Eastern, with the offset)."""
    lt = est(t)
    stamp = lt.strftime("%Y-%m-%d %H:%M:%S") + ms(lt, ",") + " -0500"
    name = {"WARN": "WARNING"}.get(level, level)
    emit(t, "lms-web", level, f"[{stamp}] {name} [{logger}] {text}", pod=rc(PODS["lms-web"]),
         logger=logger)


def gunicorn(t, level, text, pod=None):
    name = {"WARN": "WARNING", "FATAL": "CRITICAL"}.get(level, level)
    emit(t, "lms-web", level, est(t).strftime("[%Y-%m-%d %H:%M:%S -0500]") + f" [1] [{name}] {text}",
         pod=pod or rc(PODS["lms-web"]), logger="gunicorn.error")


def celery(t, level, proc, text):
    """celery-worker: Celery's worker log (UTC, no zone written)."""
    u = utc(t)
    name = {"WARN": "WARNING"}.get(level, level)
    emit(t, "celery-worker", level, f"[{u:%Y-%m-%d %H:%M:%S}{ms(u, ',')}: {name}/{proc}] {text}",
         pod=rc(PODS["celery-worker"]))


def redis(t, sym, text, level="INFO"):
    u = utc(t)
    emit(t, "redis", level, f"1:M {u:%d %b %Y %H:%M:%S}{ms(u)} {sym} {text}", host="redis-0")


def minio(t, level, message, node="minio-1", **extra):
    doc = {"level": level, "errKind": "ALL" if level == "ERROR" else "",
           "time": utc(t).isoformat(timespec="microseconds").replace("+00:00", "Z"), "message": message}
    emit(t, "minio", "WARN" if level == "WARNING" else level,
         json.dumps(doc | extra, separators=(",", ":")),
         host=node)


def pino(t, level, msg, pod=None, **fields):
    """proctor-ingest: pino JSON lines (epoch milliseconds)."""
    num = {"INFO": 30, "WARN": 40, "ERROR": 50}[level]
    pod = pod or rc(PODS["proctor-ingest"])
    doc = {"level": num, "time": int(utc(t).timestamp() * 1000), "pid": 1, "hostname": pod, **fields}
    doc["msg"] = msg
    emit(t, "proctor-ingest", level, json.dumps(doc, separators=(",", ":")), pod=pod)


def lf(v) -> str:
    s = str(v)
    return f'"{s}"' if (" " in s or "=" in s or '"' in s or not s) else s


def grader(t, level, msg, pod=None, **fields):
    """grader: Go logfmt (Eastern, with the offset)."""
    lt = est(t)
    kv = "".join(f" {k}={lf(v)}" for k, v in fields.items())
    line = f"time={lt:%Y-%m-%dT%H:%M:%S}{ms(lt)}-05:00 level={level.lower()} msg={lf(msg)}{kv}"
    emit(t, "grader", level, line, pod=pod or rc(PODS["grader"]))


def zap(t, level, caller, msg, pod=None, **fields):
    """autosave: zap's production JSON (epoch seconds)."""
    doc = {"level": level.lower(), "ts": round(utc(t).timestamp(), 6), "caller": caller, "msg": msg,
           **fields}
    emit(t, "autosave", level, json.dumps(doc, separators=(",", ":")), pod=pod or rc(PODS["autosave"]))


def shib(t, level, category, text, thread=None):
    """sso: shibd's log (Eastern wall time, no zone)."""
    thread = thread if thread is not None else ri(3, 40)
    emit(t, "sso", level, f"{est(t):%Y-%m-%d %H:%M:%S} {level} {category} [{thread}] [default]: {text}",
         pod="sso-sp-0")


def pglog(t, host, level, text, pid=None):
    """postgres: the server's stderr log (UTC); the host says primary or replica."""
    u = utc(t)
    word = {"INFO": "LOG", "WARN": "WARNING"}.get(level, level)
    if text.startswith("PANIC:  "):
        word, text = "PANIC", text[8:]
    emit(t, "postgres", level,
         f"{u:%Y-%m-%d %H:%M:%S}{ms(u)} UTC [{pid or ri(2000, 60000)}] {word}:  {text}",
         host=host)


def eslog(t, level, component, node, message):
    u = utc(t)
    doc = {"type": "server", "timestamp": f"{u:%Y-%m-%dT%H:%M:%S}{ms(u, ',')}Z", "level": level,
           "component": component, "cluster.name": "lms-search", "node.name": node, "message": message}
    emit(t, "elasticsearch", level, json.dumps(doc, separators=(",", ":")), host=node)


def syslog(t, pri, text):
    """notify: RFC 3164 syslog through the node's rsyslog (Eastern wall time)."""
    lt = est(t)
    level = {3: "ERROR", 4: "WARN", 6: "INFO"}[pri % 8]
    pod = "notify-5f7c8d9b6-tt2kd"
    emit(t, "notify", level, f"<{pri}>{lt:%b} {lt.day:2d} {lt:%H:%M:%S} {pod} notify[1]: {text}", pod=pod)


# ---------------------------------------------------------------------------------------------
# everyday traffic, one function per component, called per event with its time; the incidents
# call the same functions with the kind of event forced
PG_DOWN = [
    'connection to server at "pg-primary.db.svc" (10.20.0.11), port 5432 failed: FATAL:  the database '
    "system is in recovery mode",
    "server closed the connection unexpectedly\n\tThis probably means the server terminated "
    "abnormally\n\tbefore or while processing the request.",
    'connection to server at "pg-primary.db.svc" (10.20.0.11), port 5432 failed: Connection refused',
]
RECOVERY = "FATAL: the database system is in recovery mode (SQLSTATE 57P03)"
EXPIRED = ("SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
           "failed: certificate has expired (_ssl.c:1006)')) url=https://autosave.lms.svc.cluster.local:8443/v1/drafts")
SIMCHECK = [
    "HTTPError('503 Server Error: Service Unavailable for url: "
    "https://api.simcheck.example/v3/submissions')",
    "HTTPError('503 Server Error: Service Unavailable for url: https://api.simcheck.example/v3/reports')",
    "ReadTimeout(ReadTimeoutError(\"HTTPSConnectionPool(host='api.simcheck.example', port=443): Read timed "
    'out. (read timeout=30)"))',
]
SLOWDOWN = "ServiceUnavailable: Please reduce your request rate."


def idp():
    return pick([((e, d), w) for e, d, w in IDPS])


def bg_ingress(t, kind=None):
    kind = kind or pick([("page", 45), ("answers", 25), ("sso", 10), ("chunk", 18), ("junk", 2)])
    c = course()
    e = EXAMS[c]
    if kind == "chunk":
        st, rt = (503, ru(4.0, 9.5)) if inw(t, "minio") and t >= at(1, 10, 24) else (201, ru(0.15, 0.9))
        path = f"/proctor/v1/sessions/ps-{hexid(10)}/chunks/{ri(1, 240)}"
        return access(t, "PUT", path, st, "proctor-ingest", rt, size=64, req_len=ri(2_100_000, 4_600_000))
    if kind in ("sso", "northfield"):
        ent, dom = IDPS[0][:2] if kind == "northfield" else idp()
        st = 500 if inw(t, "skew") and dom == "northfield.edu" else 302
        return access(t, "POST", "/Shibboleth.sso/SAML2/POST", st, "sso", ru(0.02, 0.12),
                      referer=f"https://{ent.split('/')[2]}/")
    if kind == "junk":
        path = rc(["/wp-login.php", "/.env", "/cgi-bin/luci", "/admin/config.php"])
        return access(t, "GET", path, 404, "lms-web", ru(0.004, 0.02), size=179)
    if kind == "answers":
        meth, path, st, rt = "POST", f"/api/exams/{e}/answers", 200, ru(0.03, 0.12)
        if inw(t, "cert"):
            st, rt = 502, ru(0.01, 0.05)
    else:
        path = rc([f"/courses/{c}/", f"/courses/{c}/gradebook/", f"/exam/{e}/question/{ri(1, 40)}",
                   "/dashboard/", f"/courses/{c}/search/?q=lecture+{ri(1, 24)}", f"/exam/{e}/review/"])
        meth, st, rt = "GET", 200, ru(0.04, 0.6)
        if inw(t, "burst") and ("gradebook" in path or path.endswith(f"/{c}/") or "review" in path):
            rt = ru(4.5, 14.0)
        if rr() < 0.01:
            st, rt = 499, ru(5, 30)
    if inw(t, "wal"):
        st, rt = rc([(500, ru(0.02, 0.3)), (502, ru(25, 30)), (500, ru(0.02, 0.2))])
    access(t, meth, path, st, "lms-web", rt, referer=f"https://lms.northeast-exams.edu/courses/{c}/")


def bg_lms(t, kind=None):
    c = course()
    e, a = EXAMS[c], attempt()
    if inw(t, "wal") and rr() < 0.8:
        path = rc([f"/exam/{e}/start/", f"/api/exams/{e}/submit", f"/courses/{c}/", "/dashboard/"])
        return django(t, "ERROR", "django.request",
                      f"Internal Server Error: {path}\nTraceback (most recent "
                      'call last):\n  File "/app/.venv/lib/python3.12/site-packages/django/db/backends/base/'
                      'base.py", line 279, in ensure_connection\n    self.connect()\n'
                      "django.db.utils.OperationalError: " + rc(PG_DOWN))
    kind = kind or pick([("start", 8), ("save", 30), ("submit", 4), ("gradebook", 12), ("course", 16),
                         ("search", 8), ("login", 8), ("slow", 2), ("disallowed", 3), ("notfound", 4)])
    if kind == "save" and inw(t, "cert"):
        django(t, "ERROR", "lms.exams.autosave", f"autosave proxy failed exam={e} attempt={a}: {EXPIRED}")
    elif kind == "save":
        django(t, "INFO", "lms.exams.autosave", f"draft forwarded exam={e} attempt={a} q={ri(1, 40)} "
               f"status=200 latency_ms={ri(9, 60)}")
    elif kind == "start":
        django(t, "INFO", "lms.exams.views", f"exam attempt started exam={e} attempt={a} "
               f"user=u{ri(10000, 99999)} course={c}")
    elif kind == "submit":
        django(t, "INFO", "lms.exams.views", f"attempt submitted exam={e} attempt={a} answers={ri(12, 40)}")
    elif kind in ("gradebook", "course", "review") and inw(t, "burst"):
        took = ru(4.5, 13.5)
        page = {"gradebook": f"/courses/{c}/gradebook/", "course": f"/courses/{c}/",
                "review": f"/exam/{e}/review/"}
        django(t, "WARN", "lms.middleware.timing", f"slow request: GET {page[kind]} took {took:.2f}s "
               f"(db_time={took * 0.93:.2f}s queries={ri(18, 64)})")
    elif kind in ("gradebook", "course", "review"):
        what = f"gradebook rendered course={c} rows={ri(40, 900)}" if kind == "gradebook" else "course page"
        what += "" if kind == "gradebook" else f" course={c}"
        django(t, "INFO", "lms.courses.views", f"{what} took={ru(0.12, 0.9):.3f}s queries={ri(8, 40)}")
    elif kind == "search" and inw(t, "esclose"):
        django(t, "ERROR", "lms.search", f"course search failed course={c}: TransportError(400, "
               "'index_closed_exception', 'closed') index=course-search-2027.01")
    elif kind == "search":
        django(t, "INFO", "lms.search", f"course search course={c} hits={ri(0, 60)} took_ms={ri(8, 90)}")
    elif kind == "login":
        _, dom = idp()
        if inw(t, "skew") and dom == "northfield.edu":
            django(t, "WARN", "lms.auth.saml", f"SAML login did not complete, redirecting to "
                   f"/login/error/?idp={dom}")
        else:
            django(t, "INFO", "lms.auth.saml", f"login via SAML user=u{ri(10000, 99999)} idp={dom}")
    elif kind == "slow":
        took = ru(2.0, 3.4)
        django(t, "WARN", "lms.middleware.timing",
               f"slow request: GET /courses/{c}/files/ took {took:.2f}s "
               f"(db_time={took * 0.3:.2f}s queries=12)")
    elif kind == "disallowed":
        host = ".".join(str(ri(1, 254)) for _ in range(4))
        django(t, "ERROR", "django.security.DisallowedHost",
               f"Invalid HTTP_HOST header: '{host}'. You may need to add '{host}' to ALLOWED_HOSTS.")
    else:
        django(t, "WARN", "django.request", f"Not Found: {rc(['/favicon.ico', '/wp-login.php', '/.env'])}")


TASKS = engine.table(None, "si", """
lms.tasks.send_submission_receipt | 30
plagiarism.submit_for_check | 14
plagiarism.fetch_report | 14
search.tasks.reindex_course | 6
lms.tasks.sync_roster | 4
proctoring.tasks.finalize_session | 16
lms.tasks.release_scores | 10
""")


def bg_celery(t, name=None):
    name = name or pick(TASKS)
    task, proc = f"Task {name}[{uuid4()}]", f"ForkPoolWorker-{ri(1, 8)}"
    if name.startswith("plagiarism") and inw(t, "vendor"):
        err = rc(SIMCHECK)
        if rr() < 0.15:
            return celery(t, "ERROR", proc, f"{task} raised unexpected: MaxRetriesExceededError(): {err}")
        return celery(t, "INFO", proc, f"{task} retry: Retry in {rc([120, 240, 480])}s: {err}")
    if inw(t, "wal") and rr() < 0.7:
        return celery(t, "ERROR", proc, f"{task} raised unexpected: OperationalError('{PG_DOWN[0]}')")
    if name.startswith("plagiarism") and rr() < 0.025:  # the vendor times out now and then
        return celery(t, "INFO", proc, f"{task} retry: Retry in 60s: {SIMCHECK[2]}")
    if rr() < 0.015:
        return celery(t, "WARN", "MainProcess", f"Substantial drift from celery@lms-worker-{ri(1, 3)} may "
                      f"mean clocks are out of sync.  Current drift is {ri(31, 95)} seconds.  "
                      f"[orig: {hexid(6)}]")
    extra = ""
    if name == "plagiarism.fetch_report":
        extra = f" similarity={ri(0, 38)}% course={rc(['CS-201', 'HIST-240', 'PSY-100', 'ECON-101'])}"
    celery(t, "INFO", proc, f"{task} succeeded in {ru(0.02, 3.5):.4f}s: None{extra}")


def bg_proctor(t, kind=None):
    ps, seq = f"ps-{hexid(10)}", ri(1, 240)
    if inw(t, "minio"):
        n = ri(1, 3)
        if n < 3:
            return pino(t, "WARN", "retrying chunk upload", session=ps, seq=seq, attempt=n, err=SLOWDOWN)
        return pino(t, "ERROR", "chunk upload failed", session=ps, seq=seq, attempt=3, status=503,
                    code="SlowDown", bucket="proctoring", err=SLOWDOWN, spooled=t < at(1, 10, 24))
    kind = kind or pick([("stored", 80), ("final", 6), ("ooo", 3), ("reconn", 3), ("meta", 2)])
    if kind == "stored":
        pino(t, "INFO", "chunk stored", session=ps, seq=seq, bytes=ri(2_100_000, 4_600_000),
             dur_ms=ri(90, 700), bucket="proctoring")
    elif kind == "final":
        pino(t, "INFO", "session finalized", session=ps, chunks=ri(60, 240), exam=EXAMS[course()])
    elif kind == "ooo":
        pino(t, "WARN", "chunk arrived out of order, buffering", session=ps, expected=ri(2, 90))
    elif kind == "reconn":
        pino(t, "WARN", "client reconnected after network drop", session=ps, gap_s=ri(3, 70))
    elif inw(t, "wal"):
        pino(t, "ERROR", "session metadata update failed, will retry", session=ps, err=RECOVERY)
    else:
        pino(t, "INFO", "session metadata updated", session=ps)


def bg_grader(t, qt=None):
    qt = qt or pick(Q_TYPES)
    job = f"g-{ri(3_000_000, 3_999_999)}"
    if inw(t, "wal") and rr() < 0.7:
        grader(t, "ERROR", "failed to persist score", job=job, err="dial tcp 10.20.0.11:5432: connect: "
               "connection refused", retry_in="15s")
    elif inw(t, "grader") and qt == "matrix":
        grader(t, "ERROR", "grading job failed", job=job, q_type="matrix", attempt=ri(1, 3),
               err="panic recovered: runtime error: index out of range [4] with length 4",
               stack="github.com/northeast-exams/grader/rubric.(*MatrixScorer).Score(matrix.go:142)")
    elif rr() < 0.03:
        grader(t, "WARN", "numeric answer parse fallback", job=job, value=rc(["1,5", "3 1/2", "2.0e"]),
               locale="en_US")
    elif rr() < 0.02:
        grader(t, "WARN", "job exceeded soft time limit", job=job, q_type="short_text",
               dur_ms=ri(5100, 9000))
    else:
        grader(t, "INFO", "graded submission", job=job, q_type=qt, score=round(rr(), 2), dur_ms=ri(3, 220))


def bg_autosave(t, kind=None):
    if kind is None and inw(t, "cert") and rr() < 0.85:
        kind = "badcert"
    kind = kind or pick([("saved", 80), ("flush", 8), ("probe", 3), ("trunc", 1)])
    if inw(t, "wal") and kind in ("flush", "saved") and rr() < 0.5:
        kind = "flushfail"
    if kind == "badcert":  # Go's http.Server error log, which zap takes at INFO
        zap(t, "INFO", "log/stdlog.go:45", f"http: TLS handshake error from {ip_pod()}:{port()}: remote "
            "error: tls: bad certificate")
    elif kind == "flushfail":
        zap(t, "ERROR", "store/flush.go:117", "flush to postgres failed, keeping drafts in redis",
            drafts=ri(200, 6000), error=RECOVERY)
    elif kind == "saved":
        zap(t, "INFO", "server/drafts.go:88", "draft saved", attempt_id=attempt(), question=ri(1, 40),
            bytes=ri(40, 9000), latency_ms=ri(2, 25))
    elif kind == "flush":
        zap(t, "INFO", "store/flush.go:96", "flushed drafts to postgres", drafts=ri(50, 900),
            latency_ms=ri(20, 240))
    elif kind == "probe":
        zap(t, "INFO", "log/stdlog.go:45", f"http: TLS handshake error from 10.42.0.1:{port()}: EOF")
    else:
        zap(t, "WARN", "server/drafts.go:61", "draft payload truncated", attempt_id=attempt(), bytes=65536,
            limit=65536)


def bg_sso(t, northfield=False):
    ent, dom = IDPS[0][:2] if northfield else idp()
    if inw(t, "skew") and dom == "northfield.edu":
        shib(t, "ERROR", "OpenSAML.SAML2.AssertionValidator", "assertion is not yet valid")
        shib(t + sec(0.002), "WARN", "Shibboleth.SSO.SAML2", f"error processing incoming assertion "
             f"from ({ent}): Unable to establish security of incoming assertion.")
    elif rr() < 0.04:
        shib(t, "INFO", "Shibboleth.SessionCache", f"cleaning up expired sessions (removed {ri(40, 400)})")
    else:
        shib(t, "INFO", "Shibboleth-TRANSACTION", f"New session (ID: _{hexid(32)}) with (applicationId: "
             f"default) for principal from (IdP: {ent}) at (ClientAddress: {ip_client()}) with "
             f"(NameIdentifier: {hexid(24)}@{dom}) using (Protocol: urn:oasis:names:tc:SAML:2.0:protocol) "
             f"from (AssertionID: _{hexid(24)})")


def bg_postgres(t):
    if inw(t, "wal"):
        return
    host = PG_PRIMARY if rr() < 0.7 else PG_REPLICA
    kind = pick([("dup", 35), ("slowq", 20), ("vac", 20), ("disc", 25)])
    if host == PG_REPLICA and kind in ("dup", "vac"):
        kind = "disc"
    if kind == "dup":
        pglog(t, host, "ERROR", "duplicate key value violates unique constraint "
              f'"exam_answer_attempt_id_question_id_key"\n\tDETAIL:  Key (attempt_id, question_id)='
              f"({attempt()}, {ri(1, 40)}) already exists.\n\tSTATEMENT:  INSERT INTO exam_answer "
              "(attempt_id, question_id, body, saved_at) VALUES ($1, $2, $3, $4)")
    elif kind == "slowq":
        pglog(t, host, "INFO", f"duration: {ru(1000, 2600):.3f} ms  statement: SELECT ... FROM "
              f"gradebook_entry ge JOIN enrollment en ON ... WHERE en.course_id = {ri(100, 180)}")
    elif kind == "vac":
        tbl = rc(["exam_answer", "exam_attempt", "django_session", "grading_job"])
        pglog(t, host, "INFO", f'automatic vacuum of table "lms.public.{tbl}": index scans: 1\n\tpages: 0 '
              f"removed, {ri(2000, 90000)} remain\n\telapsed: {ru(0.4, 9):.2f} s")
    else:
        pglog(t, host, "INFO", f"disconnection: session time: 0:{ri(0, 59):02d}:{ri(0, 59):02d}."
              f"{ri(0, 999):03d} user=lms database=lms host={ip_pod()} port={port()}")


def bg_notify(t):
    dom = rc(["northfield.edu", "eastonstate.edu", "riverside.edu", "bayview.edu", "gmail.com"])
    to, mid, relay = f"{rc('abcdefghjkmnprstw')}***@{dom}", hexid(12), "smtp-relay.it.northeast-exams.edu:587"
    if rr() < 0.22:
        code = rc([f"550 5.1.1 <{to}>: Recipient address rejected: User unknown",
                   "550 5.7.1 Message rejected as spam by Content Filtering", "552 5.2.2 Mailbox full"])
        syslog(t, 11, f'ERROR delivery failed msg_id={mid} to={to} relay={relay} smtp="{code}"')
    elif rr() < 0.05:
        syslog(t, 12, f'WARNING deferred msg_id={mid} to={to} smtp="451 4.7.1 Greylisted, try again later"')
    else:
        tpl = rc(["submission_receipt", "submission_receipt", "grade_released", "exam_reminder"])
        syslog(t, 14, f"INFO sent msg_id={mid} template={tpl} to={to} relay={relay} dur_ms={ri(40, 400)}")


def bg_minio(t):
    kind, node = pick([("lifecycle", 2), ("disconn", 6), ("scan", 2)]), f"minio-{ri(1, 4)}"
    if kind == "lifecycle":
        minio(t, "INFO", f"lifecycle: expired {ri(20, 900)} objects in bucket proctoring (rule "
              "expire-raw-chunks-30d)", node=node)
    elif kind == "scan":
        minio(t, "INFO", f"data scanner: cycle {ri(3000, 3999)} completed, {ru(1, 9):.1f}M objects "
              "scanned", node=node)
    else:
        minio(t, "WARNING", "Client disconnected before the request completed (io: read/write on closed "
              "pipe)", node=node, api={"name": "PutObject", "args": {"bucket": "proctoring"}},
              remotehost=ip_pod(), requestID=hexid(16).upper())


def bg_es(t):
    node, kind = f"es-{ri(1, 3)}", pick([("gc", 5), ("mapping", 2), ("slow", 2)])
    if kind == "gc":
        eslog(t, "INFO", "o.e.m.j.JvmGcMonitorService", node, f"[gc][{ri(100000, 999999)}] overhead, "
              f"spent [{ri(250, 480)}ms] collecting in the last [1s]")
    elif kind == "mapping":
        eslog(t, "INFO", "o.e.c.m.MetadataMappingService", node, f"[course-search-2027.01/{hexid(8)}] "
              "update_mapping [_doc]")
    else:
        eslog(t, "WARN", "i.s.s.query", node, f"[course-search-2027.01][{ri(0, 4)}] took[{ru(1, 3.9):.1f}"
              "s], took_millis[...], total_hits[... hits], search_type[QUERY_THEN_FETCH], total_shards[5]")


BACKGROUND = [  # (function, events per minute at the peak, events per minute at the night floor)
    (bg_ingress, 2.0, 0.05), (bg_lms, 1.7, 0.08), (bg_celery, 0.8, 0.05), (bg_proctor, 0.9, 0.0),
    (bg_grader, 0.7, 0.02), (bg_autosave, 1.1, 0.03), (bg_sso, 0.9, 0.02), (bg_postgres, 0.18, 0.05),
    (bg_notify, 0.35, 0.04), (bg_minio, 0.07, 0.04), (bg_es, 0.04, 0.02),
]


def background() -> None:
    t = DAY0
    while t < END:
        for fn, peak, floor in BACKGROUND:
            for _ in range(poisson(max(peak * load(t), floor))):
                fn(t + sec(ru(0, 60)))
        t += timedelta(minutes=1)


def scheduled() -> None:
    """Periodic lines: checkpoints, bgsave, watermark warnings, metadata refreshes, certificate status."""
    for i in range(2 * 24 * 60):
        t = DAY0 + timedelta(minutes=i, seconds=ru(0, 20))
        if i % 15 == 0 and not inw(t, "wal"):
            for host, word in ((PG_PRIMARY, "checkpoint"), (PG_REPLICA, "restartpoint")):
                pglog(t, host, "INFO", f"{word} starting: time", pid=118)
                pglog(t + sec(ru(60, 200)), host, "INFO", f"{word} complete: wrote "
                      f"{ri(800, 9000)} buffers ({ru(0.5, 6):.1f}%); 0 WAL file(s) added, 0 removed, "
                      f"{ri(0, 12)} recycled; write={ru(50, 200):.3f} s, sync={ru(0.002, 0.09):.3f}"
                      f" s, total={ru(50, 200):.3f} s", pid=118)
        if i % 20 == 7:
            redis(t, "*", "10000 changes in 60 seconds. Saving...")
            redis(t + sec(0.01), "*", f"Background saving started by pid {ri(9000, 60000)}")
            redis(t + sec(ru(2, 9)), "*", "Background saving terminated with success")
        if i % 30 == 11:
            free = f"free: {ru(13.1, 14.9):.1f}gb[{ru(13.5, 14.9):.1f}%]"
            eslog(t, "WARN", "o.e.c.r.a.DiskThresholdMonitor", "es-1",
                  "low disk watermark [85%] exceeded on "
                  f"[Xq3r9sT2Qk-4Xc0bNs7lVg][es-3][/usr/share/elasticsearch/data] {free}, replicas will not "
                  "be assigned to this node")
        if i % 60 == 23:
            for ent, _, _ in IDPS:
                shib(t, "INFO", "OpenSAML.MetadataProvider.XML", f"resolved metadata for {ent} (refresh in "
                     "3600s)", thread=2)
            days = (datetime(2027, 2, 6, tzinfo=EST) - t).days
            shib(t + sec(1), "WARN", "OpenSAML.MetadataProvider.XML", "signing certificate for https://idp."
                 f"northfield.edu/idp/shibboleth expires in {days} day(s) (notAfter=2027-02-06T17:00:00Z)",
                 thread=2)
        if i % 60 == 41:
            new = t >= W["cert"][1]
            end = datetime(2027, 4, 26, 14, 26, 40, tzinfo=UTC) if new else at(1, 9, 0)
            left = max(end - t, timedelta(0))
            hours, mins = left.days * 24 + left.seconds // 3600, left.seconds % 3600 // 60
            zap(t, "INFO" if left else "WARN", "server/tls.go:52", "serving certificate status",
                not_after=iso(end), remaining=f"{hours}h{mins}m")


# ---------------------------------------------------------------------------------------------
# the incidents' own lines and the changes around them
def spread(a: datetime, b: datetime, n: int):
    return sorted(a + sec(ru(0, (b - a).total_seconds())) for _ in range(n))


def inc_skew():
    conf = "reloading configuration (/etc/shibboleth/shibboleth2.xml): SecurityPolicy default clockSkew="
    shib(at(0, 8, 4, 31), "INFO", "Shibboleth.Config", conf + "0", thread=1)
    shib(at(0, 8, 4, 32), "INFO", "Shibboleth.Application", "application 'default' reloaded, 4 IdP(s) in "
         "metadata", thread=1)
    for t in spread(at(0, 8, 5), W["skew"][1], 50):  # Northfield students retrying before the 09:00 exams
        bg_sso(t, northfield=True)
        if rr() < 0.6:
            bg_ingress(t + sec(0.005), "northfield")
    shib(at(0, 8, 53, 5), "INFO", "Shibboleth.Config", conf + "180", thread=1)


def inc_burst():
    # Nothing in postgres' own log: the replica keeps applying WAL, only slower; the symptom is lms-web's.
    for t in spread(*W["burst"], 90):
        bg_lms(t, rc(["gradebook", "course", "review"]))
    for t in spread(at(0, 10, 44), at(0, 11, 15), 7):
        gunicorn(t, "FATAL", f"WORKER TIMEOUT (pid:{ri(300, 999)})")
        gunicorn(t + sec(0.4), "INFO", f"Booting worker with pid: {ri(300, 999)}")


def inc_wal():
    a, b = W["wal"]
    for k, t in enumerate([a, at(0, 14, 4, 58), at(0, 14, 7, 21), at(0, 14, 9, 50), at(0, 14, 12, 14)]):
        pid = ri(30000, 60000)
        pglog(t, PG_PRIMARY, "FATAL", f'PANIC:  could not write to file "pg_wal/xlogtemp.{pid}": No space '
              "left on device", pid=pid)
        for dt, text in ((0.4, f"server process (PID {pid}) was terminated by signal 6: Aborted"),
                         (0.5, "terminating any other active server processes"),
                         (1.2, "all server processes terminated; reinitializing")):
            pglog(t + sec(dt), PG_PRIMARY, "INFO", text, pid=1)
        pglog(t + sec(1.6), PG_PRIMARY, "INFO", "database system was not properly shut down; "
              "automatic recovery in progress", pid=ri(100, 999))
        up = t + sec(ru(14, 40))
        for s in spread(t + sec(2), up, 6):
            pglog(s, PG_PRIMARY, "FATAL", "the database system is in recovery mode")
        pglog(up, PG_PRIMARY, "INFO", "database system is ready to accept connections", pid=1)
        if k == 0:
            pglog(t + sec(0.45), PG_REPLICA, "FATAL", "could not receive data from WAL stream: "
                  "server closed the connection unexpectedly")
    pglog(at(0, 14, 13, 40), PG_PRIMARY, "INFO", "statement: SELECT slot_name, active, pg_size_pretty("
          "pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) FROM pg_replication_slots;", pid=48812)
    pglog(at(0, 14, 14, 5), PG_PRIMARY, "INFO", "statement: SELECT "
          "pg_drop_replication_slot('cdc_analytics');", pid=48812)
    pglog(at(0, 14, 15, 2), PG_PRIMARY, "INFO", "checkpoint starting: immediate force wait", pid=118)
    pglog(b, PG_PRIMARY, "INFO",
          "checkpoint complete: wrote 21344 buffers (8.1%); 0 WAL file(s) added, 1893 "
          "removed, 0 recycled; write=0.611 s, sync=0.094 s, total=7.902 s", pid=118)
    pglog(at(0, 14, 15, 30), PG_REPLICA, "INFO", "started streaming WAL from primary at 3A/9C000000 on "
          "timeline 1")
    for t in spread(a, b, 40):
        bg_autosave(t, "flushfail")
    for t in spread(a + sec(5), b, 12):
        gunicorn(t, "FATAL", f"WORKER TIMEOUT (pid:{ri(300, 999)})")


def inc_cert():
    # cert-manager kept failing to renew autosave-tls; the old certificate expires at 14:00 UTC
    for t in spread(at(1, 9, 0, 1), W["cert"][1], 80):
        bg_autosave(t, "badcert")
    for t in spread(at(1, 9, 0, 2), W["cert"][1], 60):
        bg_lms(t, "save")
    for pod in PODS["autosave"]:
        zap(W["cert"][1] + sec(ru(0, 20)), "INFO", "cmd/autosave/main.go:41", "autosave "
            "starting", pod=pod, version="1.9.3", listen=":8443", tls_cert="/etc/tls/tls.crt")


def inc_minio():
    a, b = W["minio"]
    for k in range(1, 5):
        minio(a + sec(k * 0.8), "ERROR", f"Drive https://minio-3.storage.svc:9000/data{k} is offline:"
              " drive not found", error={"message": "drive not found",
                                         "source": ["cmd/xl-storage-disk-id-check.go:1024"]})
    minio(a + sec(4), "ERROR", "erasure set 2 (pool 1): 4/8 drives online, write quorum 5 not met")
    for t in spread(a + sec(5), b, 85):
        obj = f"2027/01/26/ps-{hexid(10)}/chunk-{ri(1, 240):05d}.webm"
        minio(t, "ERROR", "Write quorum could not be met (*errors.errorString)", node=f"minio-{ri(1, 4)}",
              api={"name": "PutObject",
                   "args": {"bucket": "proctoring", "object": obj}}, remotehost=ip_pod(),
              requestID=hexid(16).upper(), userAgent="aws-sdk-js/3.726.0",
              error={"message": "Write quorum could not be met", "source": ["cmd/erasure-object.go:1187"]})
    for t in spread(a + sec(6), b, 70):
        bg_proctor(t)
    for t in spread(at(1, 10, 18), b, 6):
        pino(t, "WARN", "local spool above threshold, new sessions will be refused",
             spool_bytes=ri(7_000_000_000, 9_900_000_000), limit_bytes=10_000_000_000)
    for k in range(1, 5):
        minio(b + sec(k * 0.6), "INFO", f"Drive https://minio-3.storage.svc:9000/data{k} is online")
    minio(b + sec(8), "INFO", "Healing drive 'https://minio-3.storage.svc:9000/data1' - 'mc admin "
          "heal' started", node="minio-3")


def inc_grader():
    a, b = W["grader"]
    for pod in PODS["grader"]:
        for t, ver, commit, rubric in ((at(1, 13, 4, 50), "2.8.0", "9e41c07", "v3"),
                                       (at(1, 13, 51, 10), "2.7.4", "3b8a1d2", "v2")):
            t += sec(ru(0, 30))
            grader(t, "INFO", "shutting down, draining jobs", pod=pod, signal="SIGTERM")
            grader(t + sec(8), "INFO", "grader starting", pod=pod, version=ver, commit=commit,
                   rubric_engine=rubric, queues="grading")
    for t in spread(a, b, 110):
        bg_grader(t, "matrix")
    for t in spread(a + timedelta(minutes=4), b, 30):
        grader(t, "WARN", "job moved to dead-letter queue after 3 attempts",
               job=f"g-{ri(3_000_000, 3_999_999)}", q_type="matrix", dlq="grading.dead")
    redis(at(1, 13, 12, 9), "#",
          "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF "
          "buffer without waiting for fsync to complete, this may slow down Redis.", level="WARN")


def inc_vendor():
    for t in spread(*W["vendor"], 70):
        bg_celery(t, rc(["plagiarism.submit_for_check", "plagiarism.fetch_report"]))
    idx = "course-search-2027.01"
    for t, comp, text in ((W["esclose"][0], "MetadataIndexStateService", f"closing indices [{idx}/Hh2kq0]"),
                          (at(1, 14, 49, 2), "MetadataUpdateSettingsService", "updating index settings "
                           f"[[{idx}/Hh2kq0]]: index.similarity.default.type -> LMDirichlet"),
                          (W["esclose"][1], "MetadataIndexStateService", f"opening indices [[{idx}]]")):
        eslog(t, "INFO", f"o.e.c.m.{comp}", "es-2", text)
    for t in spread(*W["esclose"], 3):
        bg_lms(t, "search")


def changes_in_logs():
    """Start-up and reload lines of the deploys and changes in the tables (versions show only here)."""
    for t, ver in ((at(0, 7, 46), "4.18.0"), (at(0, 13, 42), "4.18.2")):
        for pod in PODS["lms-web"]:
            s = t + sec(ru(0, 90))
            gunicorn(s, "INFO", "Starting gunicorn 23.0.0", pod=pod)
            gunicorn(s + sec(1), "INFO", f"Listening at: http://0.0.0.0:8000 (1) release={ver}", pod=pod)
    for t, ver in ((at(0, 7, 47), "4.18.0"), (at(0, 10, 25), "4.18.1")):
        celery(t, "INFO", "MainProcess", f"celery@lms-worker-1 ready. (lms {ver}, queues: celery, "
               "plagiarism, email)")
    for pod in PODS["autosave"]:
        zap(at(1, 12, 55, ru(20, 60)), "INFO", "cmd/autosave/main.go:41", "autosave starting", pod=pod,
            version="1.9.4", listen=":8443", tls_cert="/etc/tls/tls.crt")
    syslog(at(0, 16, 11), 14, "INFO notify 2.3.2 starting, relay=smtp-relay.it.northeast-exams.edu:587 "
           "workers=4")
    pino(at(1, 9, 50, 30), "INFO", "config reloaded", upload_concurrency=16, bucket="proctoring",
         endpoint="https://minio.storage.svc:9000")
    django(at(1, 8, 40, 20), "INFO", "lms.conf", "settings reloaded: AUTOSAVE_TIMEOUT_MS=1500 (was 3000)")
    pglog(at(0, 14, 31, 5), PG_PRIMARY, "INFO", 'parameter "max_slot_wal_keep_size" changed to "50GB"',
          pid=1)
    for day in (0, 1):
        pglog(at(day, 2, 0, 4), PG_REPLICA, "INFO",
              "statement: SELECT pg_backup_start('nightly-basebackup', "
              "true)", pid=7711)
        eslog(at(day, 3, 0, 9), "INFO", "o.e.x.s.SnapshotLifecycleTask", "es-1",
              "snapshot lifecycle policy "
              f"[nightly-snapshots] issuing create snapshot [nightly-{at(day, 3, 0):%Y.%m.%d}-{hexid(6)}]")


# ---------------------------------------------------------------------------------------------
# tables
def iso(t: datetime) -> str:
    return utc(t).strftime("%Y-%m-%dT%H:%M:%SZ")


DEPENDENCIES = [  # service, depends_on, protocol, purpose, criticality
    ("ingress", "lms-web", "http", "all LMS pages and /api/* (exam player, answers)", "critical"),
    ("ingress", "sso", "http", "/Shibboleth.sso/* (SAML ACS, logout)", "critical"),
    ("ingress", "proctor-ingest", "http", "/proctor/v1/* webcam and screen chunks", "critical"),
    ("lms-web", "postgres", "postgresql", "writes, exam start/submit on pg-primary-1", "critical"),
    ("lms-web", "postgres", "postgresql", "read-only queries on pg-replica-1: gradebook, course pages, "
     "attempt review (DATABASE_REPLICA_URL)", "high"),
    ("lms-web", "redis", "redis", "sessions and cache", "critical"),
    ("lms-web", "autosave", "https", "exam player answer saves, proxied to :8443 (internal CA)",
     "critical"),
    ("lms-web", "elasticsearch", "http", "course search", "low"),
    ("lms-web", "minio", "s3", "presigned URLs for course files", "medium"),
    ("sso", "university-idps", "saml", "Northfield, Easton State, Riverside, Bayview (external)",
     "critical"),
    ("celery-worker", "redis", "redis", "celery broker (queues celery, plagiarism, email)", "critical"),
    ("celery-worker", "postgres", "postgresql", "task state and results on pg-primary-1", "high"),
    ("celery-worker", "plagiarism-api", "https", "SimCheck api.simcheck.example (external)", "medium"),
    ("celery-worker", "notify", "http", "receipts and grade-release mails", "medium"),
    ("celery-worker", "elasticsearch", "http", "course reindexing", "low"),
    ("autosave", "redis", "redis", "draft buffer (drafts:* keys, flushed every 5 s)", "critical"),
    ("autosave", "postgres", "postgresql", "draft flush into exam_answer on pg-primary-1", "high"),
    ("grader", "redis", "redis", "grading queue (list grading, DLQ grading.dead)", "critical"),
    ("grader", "postgres", "postgresql", "scores on pg-primary-1", "high"),
    ("proctor-ingest", "minio", "s3", "PutObject, bucket proctoring (4 nodes x 4 drives, EC)", "critical"),
    ("proctor-ingest", "postgres", "postgresql", "proctoring session metadata on pg-primary-1", "medium"),
    ("postgres", "postgres", "replication", "pg-primary-1 streams WAL to pg-replica-1", "high"),
    ("postgres", "analytics-cdc", "replication", "logical slot cdc_analytics (analytics' Debezium)", "low"),
    ("notify", "smtp-relay", "smtp", "campus relay smtp-relay.it.northeast-exams.edu (external)", "medium"),
]
DEPLOYS = [  # id, service, version, start (Eastern), minutes, by, summary
    ("DEP-3288", "proctor-ingest", "3.3.2", datetime(2027, 1, 21, 15, 10, tzinfo=EST), 4, "ci-bot",
     "webm chunk validation"),
    ("DEP-3295", "grader", "2.7.4", datetime(2027, 1, 22, 11, 2, tzinfo=EST), 3, "ci-bot",
     "numeric tolerance for scientific notation"),
    ("DEP-3301", "lms-web", "4.18.0", at(0, 7, 45), 3, "ci-bot", "exam lobby: accommodations banner"),
    ("DEP-3302", "celery-worker", "4.18.0", at(0, 7, 46), 2, "ci-bot", "same release as lms-web 4.18.0"),
    ("DEP-3307", "celery-worker", "4.18.1", at(0, 10, 24), 2, "k.osei",
     "plagiarism: report polling backoff"),
    ("DEP-3310", "lms-web", "4.18.2", at(0, 13, 41), 3, "ci-bot", "exam timer drift fix"),
    ("DEP-3314", "notify", "2.3.2", at(0, 16, 10), 2, "ci-bot", "grade_released template copy"),
    ("DEP-3321", "autosave", "1.9.4", at(1, 12, 55), 2, "ci-bot", "quieter flush logging"),
    ("DEP-3322", "grader", "2.8.0", at(1, 13, 4), 2, "ci-bot",
     "rubric engine v3: partial credit for matrix "
     "questions"),
    ("DEP-3324", "grader", "2.7.4", at(1, 13, 50), 2, "m.chen", "rollback to 2.7.4"),
    ("DEP-3327", "proctor-ingest", "3.4.0", at(1, 17, 30), 4, "ci-bot", "resumable sessions"),
]
CONFIG_CHANGES = [  # id, service, key, old, new, by, when (Eastern), ticket, comment
    ("CHG-5118", "ingress", "nginx.ingress.kubernetes.io/proxy-read-timeout", "60", "120", "d.fischer",
     at(0, 7, 30), "OPS-7702", "exam week: long gradebook exports"),
    ("CHG-5120", "sso", "shibboleth2.xml SecurityPolicy clockSkew", "180", "0", "r.alvarez", at(0, 8, 4),
     "SEC-2291", "audit finding: tighten assertion replay window"),
    ("CHG-5124", "sso", "shibboleth2.xml SecurityPolicy clockSkew", "0", "180", "r.alvarez", at(0, 8, 52),
     "SEC-2291", "revert CHG-5120"),
    ("CHG-5126", "postgres", "pg-replica-1 data volume type", "gp2", "gp3 (12000 IOPS)", "p.nair",
     at(0, 11, 19), "OPS-7708", "replica reads slow, see #exam-week"),
    ("CHG-5127", "postgres", "max_slot_wal_keep_size", "-1", "50GB", "p.nair", at(0, 14, 31), "OPS-7710",
     "follow-up of the 14:02 outage"),
    ("CHG-5131", "lms-web", "AUTOSAVE_TIMEOUT_MS", "3000", "1500", "k.osei", at(1, 8, 40), "LMS-4471",
     "fail faster to the offline queue in the exam player"),
    ("CHG-5133", "proctor-ingest", "UPLOAD_CONCURRENCY", "8", "16", "j.park", at(1, 9, 50), "PRC-318",
     "more parallel chunk uploads per pod for the 10:00 exams"),
    ("CHG-5136", "redis", "maxmemory", "6gb", "8gb", "d.fischer", at(1, 11, 30), "OPS-7721", "headroom"),
    ("CHG-5140", "elasticsearch", "course-search index.similarity.default.type", "BM25", "LMDirichlet",
     "s.ward", at(1, 14, 48), "SRCH-88", "similarity tuning for course search ranking"),
    ("CHG-5142", "notify", "SMTP_POOL_SIZE", "4", "6", "j.park", at(1, 16, 20), "NTF-52", ""),
]
CERTS = [  # id, secret, service, issuer, serial, not_before, not_after, status, note
    ("CRT-2201", "lms-tls", "ingress", "letsencrypt-prod", "04:1f:9a:7c", "2026-12-02T08:11:00Z",
     "2027-03-02T08:11:00Z", "active", "renewed by cert-manager"),
    ("CRT-2204", "sso-signing", "sso", "self-signed", "5e:22:01:b7", "2025-08-01T00:00:00Z",
     "2028-08-01T00:00:00Z", "active", "SAML SP signing/encryption key"),
    ("CRT-2207", "autosave-tls", "autosave", "vault-pki-internal", "3c:8d:e4:10", "2026-10-28T14:00:00Z",
     "2027-01-26T14:00:00Z", "superseded", "renewal failing since 2027-01-25T14:00Z: vault role autosave-svc "
     "does not allow SAN autosave.lms.svc.cluster.local"),
    ("CRT-2231", "autosave-tls", "autosave", "vault-pki-internal", "6a:19:f0:3e", "2027-01-26T14:26:40Z",
     "2027-04-26T14:26:40Z", "active", "issued manually (OPS-7725)"),
    ("CRT-2209", "grader-tls", "grader", "vault-pki-internal", "71:b2:0c:9d", "2026-12-20T10:00:00Z",
     "2027-03-20T10:00:00Z", "active", "renewed by cert-manager"),
    ("CRT-2215", "northfield-idp-signing", "sso", "https://idp.northfield.edu/idp/shibboleth",
     "0b:7e:55:a2",
     "2024-02-06T17:00:00Z", "2027-02-06T17:00:00Z", "active", "IdP metadata signing key, rolled on Feb 1"),
]
JOBS = [  # job, service, host, start hour:minute (Eastern, both days), minutes
    ("nightly-basebackup", "postgres", PG_REPLICA, (2, 0), 48),
    ("es-nightly-snapshot", "elasticsearch", "es-1", (3, 0), 9),
    ("proctoring-retention-sweep", "minio", "minio-1", (4, 30), 21),
    ("roster-sync", "celery-worker", "lms-worker-2", (5, 0), 6),
    ("gradebook-export", "celery-worker", "lms-worker-1", (6, 0), 14),
]


def noise(x: float, rel: float = 0.08) -> float:
    return x * (1 + ru(-rel, rel))


def series(step_min: int):
    return (DAY0 + timedelta(minutes=i) for i in range(0, 2 * 24 * 60, step_min))


def db_rows():
    """pg hosts every 5 min: the replica's gp2 volume spends its burst credits, the primary's WAL grows."""
    rows, burst, wal_gb = [], 100.0, 38.0
    gp3 = at(0, 11, 24)  # CHG-5126 moved pg-replica-1 to gp3 (no burst credits) at 11:19, done by 11:24
    for t in series(5):
        ld = load(t)
        burst = max(0.0, min(100.0, burst - (3.5 * ld if ld > 0.5 else -2.0)))
        cap = burst < 1.0 and t < gp3
        rows.append([iso(t), PG_REPLICA, "replica", round(ru(18, 26) if cap else noise(22 + 35 * ld), 1),
                     round(ru(48, 66) if cap else noise(2 + 3 * ld, 0.3), 1),
                     int(ru(2950, 3000) if cap else noise(700 + 2600 * ld)), int(noise(300 + 200 * ld)),
                     round(ru(38, 61) if cap else noise(1.3 + ld * 0.6, 0.2), 2),
                     round(burst, 1) if t < gp3 else "", 62.4, "",
                     round(ru(6, 14) if cap else ru(0, 0.4), 1), int(noise(40 + 90 * ld))])
        # primary: the inactive logical slot cdc_analytics keeps every WAL segment; exam writes speed it up
        if t >= at(0, 14, 15):
            wal_gb = 4.2 + (t - at(0, 14, 15)).total_seconds() / 3600 * 0.02
        else:
            wal_gb += 0.165 + 1.98 * ld
        rows.append([iso(t), PG_PRIMARY, "primary", round(noise(30 + 45 * ld), 1),
                     round(noise(3 + 4 * ld, 0.3), 1), int(noise(400 + 900 * ld)),
                     int(noise(600 + 2400 * ld)), round(noise(0.9 + 0.3 * ld, 0.2), 2),
                     "", round(min(100.0, (286.5 + wal_gb) / 5), 1), round(wal_gb, 1), "",
                     0 if inw(t, "wal") else int(noise(80 + 160 * ld))])
    return (["ts", "host", "role", "cpu_pct", "iowait_pct", "read_iops", "write_iops", "read_latency_ms",
             "ebs_burst_balance_pct", "disk_used_pct", "pg_wal_size_gb", "replication_lag_s", "connections"],
            rows)


def ingress_rows():
    rows = []
    for t in series(1):
        for ups, base, p95 in (("lms-web", 900, 180), ("sso", 90, 60), ("proctor-ingest", 600, 650)):
            req = int(noise(base * load(t) + 5, 0.12))
            s5, s4, lat = int(req * ru(0, 0.002)), int(req * ru(0.005, 0.02)), noise(p95, 0.15)
            s3 = int(req * (0.7 if ups == "sso" else 0.05))
            if ups == "sso" and inw(t, "skew", 1):
                s5 = int(req * ru(0.22, 0.32))
            if ups == "lms-web" and inw(t, "burst", 1):
                lat, s5 = ru(5200, 11800), s5 + int(req * ru(0.002, 0.01))
            if ups == "lms-web" and inw(t, "wal", 1):
                s5 = int(req * ru(0.55, 0.85))
            if ups == "lms-web" and inw(t, "cert", 1):
                s5 = int(req * ru(0.2, 0.3))
            if ups == "proctor-ingest" and inw(t, "minio", 1) and t >= at(1, 10, 24):
                s5, lat = int(req * ru(0.4, 0.7)), ru(6000, 9800)
            rows.append([iso(t), ups, req, req - s5 - s4 - s3, s3, s4, s5, int(lat)])
    head = ["ts", "upstream", "requests", "status_2xx", "status_3xx", "status_4xx", "status_5xx", "p95_ms"]
    return head, rows


SERVICE_ERRORS = [  # (services, incident, error_pct range) seen in the 5-min service export
    (("sso",), "skew", (22, 32)), (("lms-web", "autosave", "grader", "celery-worker"), "wal", (40, 80)),
    (("lms-web",), "cert", (18, 30)), (("proctor-ingest",), "minio", (35, 70)),
    (("grader",), "grader", (24, 31)), (("celery-worker",), "vendor", (9, 16)),
]


def service_rows():
    rows = []
    specs = {"lms-web": (55, 220), "autosave": (70, 18), "grader": (14, 60), "proctor-ingest": (40, 420),
             "sso": (4, 45), "celery-worker": (9, 900), "notify": (2, 250)}
    for t in series(5):
        ld = load(t)
        for svc, (rps, p95) in specs.items():
            err = ru(14, 26) if svc == "notify" else ru(0.05, 0.4)  # notify: bounces, all day
            lat = noise(p95, 0.15)
            for svcs, key, (lo, hi) in SERVICE_ERRORS:
                if svc in svcs and inw(t, key, 5):
                    err = ru(lo, hi)
            if svc == "lms-web" and inw(t, "burst", 5):
                lat = ru(6000, 12000)
            if svc == "proctor-ingest" and inw(t, "minio", 5):
                lat = ru(5000, 9000)
            rows.append([iso(t), svc, round(noise(rps * ld + 0.3, 0.1), 1), round(err, 2), int(lat),
                         round(noise(18 + 50 * ld, 0.1), 1)])
    return (["ts", "service", "rps", "error_pct", "p95_ms", "cpu_pct"], rows)


def queue_rows():
    rows, grading, plag = [], 0.0, 0.0
    for t in series(5):
        grading = grading + ru(140, 210) if inw(t, "grader", 5) else max(0.0, grading * 0.35 - 20)
        plag = plag + ru(35, 60) if inw(t, "vendor", 5) else max(0.0, plag * 0.5 - 10)
        for q, base, cons in (("celery", 25, 16), ("plagiarism", 8, 4), ("email", 12, 4),
                              ("grading", 20, 8)):
            depth, age = noise(base * load(t) + 1, 0.4), ru(0.5, 6)
            if q == "grading":
                depth, age = depth + grading, age + grading / 6
            if q == "plagiarism":
                depth, age = depth + plag, age + plag * 2
            if inw(t, "wal", 5) and q in ("celery", "grading"):
                depth, age = depth * 4, age + 300
            rows.append([iso(t), "redis-0", q, int(depth), cons, round(age, 1)])
    return (["ts", "broker", "queue", "depth", "consumers", "oldest_msg_age_s"], rows)


def tables() -> dict[str, tuple[list[str], list[list]]]:
    deploys = [[i, s, v, iso(a), iso(a + timedelta(minutes=m)), "SUCCEEDED", by, sm]
               for i, s, v, a, m, by, sm in DEPLOYS]
    # the change calendar's export writes Eastern wall time without a zone (dataset.json names the zone)
    changes = [[i, s, k, o, n, by, f"{est(w):%Y-%m-%d %H:%M:%S}", tk, cm] for i, s, k, o, n, by, w, tk,
               cm in
               CONFIG_CHANGES]
    runs = [[f"RUN-{900 + 5 * d + i}", j, s, h, iso(at(d, *hm)), iso(at(d, *hm) + timedelta(minutes=m + d)),
             "SUCCEEDED"] for d in (0, 1) for i, (j, s, h, hm, m) in enumerate(JOBS)]
    return {
        "dependencies": (["service", "depends_on", "protocol", "purpose", "criticality"], DEPENDENCIES),
        "deploys": (["deploy_id", "service", "version", "started_at", "finished_at", "status",
                     "deployed_by",
                     "summary"], deploys),
        "config_changes": (["change_id", "service", "config_key", "old_value", "new_value", "changed_by",
                            "changed_at", "ticket", "comment"], changes),
        "certificates": (["cert_id", "secret", "service", "issuer", "serial", "not_before", "not_after",
                          "status", "note"], CERTS),
        "job_runs": (["run_id", "job", "service", "host", "started_at", "finished_at", "status"], runs),
        "db_host_metrics": db_rows(), "ingress_upstreams": ingress_rows(),
        "service_metrics": service_rows(), "queue_metrics": queue_rows(),
    }


# ---------------------------------------------------------------------------------------------
# runbooks and notes, as the platform team keeps them
KNOWLEDGE = {
    "exam-week-triage.md": """# Exam week on-call triage

Exam week is Jan 25-29; exams start on the hour from 08:00 to 17:00 ET.

## First five minutes

1. `ingress_upstreams` (1-min): which upstream fails, lms-web, sso or proctor-ingest.
2. `service_metrics` (5-min): error rate and p95 of each service behind it.
3. `dependencies`: what each service calls. Most lms-web pages read from pg-replica-1; writes and
   exam start/submit go to pg-primary-1.
4. Recent `deploys` and `config_changes` (the change calendar is exported in ET).

## Where the time goes

- A spike at :00 is students starting exams; the platform is sized for it.
- Answer saves: browser -> ingress -> lms-web -> autosave (:8443, internal CA) -> redis, flushed
  to postgres every 5 s. Without postgres autosave keeps drafts in redis; students only notice
  when lms-web cannot reach autosave.
- Grading: lms-web pushes jobs on the redis list `grading`; grader pods consume it. A growing
  `grading` depth in `queue_metrics` means the grader is slow or failing jobs.

Escalation: #dba (p.nair), #storage (MinIO), #iam (r.alvarez) for SSO and IdP federation.
""",
    "postgres-disk-and-wal.md": """# Postgres primary: disk full and WAL growth

## Symptoms

postgres logs `PANIC: could not write to file "pg_wal/xlogtemp.NNN": No space left on device`
and restarts; clients get `the database system is in recovery mode` (SQLSTATE 57P03) in a loop.
Everything that writes fails at once: lms-web 500s, autosave flushes, grader scores, celery tasks.

## Check

- `db_host_metrics`: `disk_used_pct` and `pg_wal_size_gb` of pg-primary-1. WAL stays under
  10 GB; a steady climb means something holds it.
- `SELECT slot_name, active, restart_lsn FROM pg_replication_slots;` an inactive slot keeps every
  WAL segment since its restart_lsn. `cdc_analytics` is the analytics team's Debezium connector.

## Fix

Drop the inactive slot (`SELECT pg_drop_replication_slot('...')`) after telling its owner, then
`CHECKPOINT`. Set `max_slot_wal_keep_size` so a dead consumer cannot fill the disk again.
""",
    "proctoring-upload-failures.md": """# Proctoring: chunk uploads failing

The proctoring extension uploads a 2-5 MB webm chunk every 15 s per student; proctor-ingest
stores it in the MinIO bucket `proctoring`. When uploads fail it spools to local disk (10 GB per
pod) and retries.

## 413 Request Entity Too Large at the ingress

The chunk is bigger than `proxy-body-size` on the proctor ingress (4K screens make 8 MB chunks).

## 503 "Please reduce your request rate" (SlowDown)

MinIO is throttling us: too many concurrent PUTs for `MINIO_API_REQUESTS_MAX`. It happened in
the fall midterms when the pods' `UPLOAD_CONCURRENCY` was raised. Check recent `config_changes`
for proctor-ingest and lower the concurrency back; the spool drains by itself.

## Spool full

"local spool above threshold": new sessions are refused and students cannot start a proctored
exam. Tell the exam office.
""",
    "saml-sso-login-failures.md": """# SSO (SAML) login failures

The SP is shibd (`sso`), federated with four university IdPs (Northfield, Easton State, Riverside
via Entra ID, Bayview). Config: `/etc/shibboleth/shibboleth2.xml`, reloaded on change.

## "assertion is not yet valid" / "assertion is no longer valid"

The assertion's NotBefore/NotOnOrAfter does not fit our clock within `clockSkew` (seconds,
default 180 in the SecurityPolicy). Either a clock is off (chrony on sso-sp-0, or the IdP's) or
the allowed skew is too small for an IdP whose clock runs ahead; Northfield's has run 30-40 s
ahead for years.

## "Unable to establish security of incoming assertion"

Follows any rejected assertion. On its own (no validity error before it) it usually means the
IdP signed with a key not in its metadata: a signing key rollover. Check the metadata refresh
lines and the `certificates` table.

## One IdP or all?

The IdP's entityID is in the line. All IdPs failing points at our side (SP key, clock, config);
one IdP at theirs or at a setting that only bites that IdP.
""",
    "known-noise.md": """# Known noise

- notify: `ERROR delivery failed ... 550 5.1.1 ... User unknown` (and 552 mailbox full) all day;
  students' forwarding addresses bounce. A 15-25 % error rate on notify is normal (NTF-40).
- lms-web: `django.security.DisallowedHost` "Invalid HTTP_HOST header" ERRORs from scanners.
- autosave: `http: TLS handshake error from 10.42.0.1:NNNNN: EOF`, the node's TCP health check.
- sso warns hourly that Northfield's metadata signing certificate expires on 2027-02-06; they
  roll it on Feb 1 (IAM-233).
- elasticsearch: low disk watermark on es-3 every 30 minutes (OPS-7650, disks ordered).
- celery: "Substantial drift from celery@lms-worker-N": heartbeat timestamps, not clocks.
""",
    "plagiarism-simcheck.md": """# Plagiarism checks (SimCheck)

Essays go to SimCheck (`api.simcheck.example`, an external vendor) through the celery tasks
`plagiarism.submit_for_check` and `plagiarism.fetch_report` (queue `plagiarism`); the similarity
report shows in the instructor's view once fetch_report succeeds.

- Tasks retry with backoff (60 s up to 960 s, 8 attempts): a vendor outage under an hour needs
  nothing from us, the `plagiarism` queue drains afterwards.
- 5xx and read timeouts are theirs: https://status.simcheck.example, support contract SC-1182.
  We have no telemetry on their side. A 401 means our API key was rotated (vault).
""",
}


# the questions are data: worlds_data/edu/truth.yaml (written by write() with engine.truth)


# ---------------------------------------------------------------------------------------------
# output and the self-check
def write(out: Path) -> int:
    background()
    scheduled()
    for inc in (inc_skew, inc_burst, inc_wal, inc_cert, inc_minio, inc_grader, inc_vendor, changes_in_logs):
        inc()
    d = out / NAME
    (d / "tables").mkdir(parents=True, exist_ok=True)
    (d / "knowledge").mkdir(exist_ok=True)
    desc = ("An online exam and learning platform used by universities, two days of exam week "
            "(2027-01-25..26, US Eastern): nginx ingress, Django LMS, celery on redis, proctoring uploads "
            "to MinIO, Go grader, autosave, SAML SSO, postgres primary and replica, elasticsearch, "
            "notifications.")
    meta = {"name": f"{NAME}-world", "description": desc, "timezone": "America/New_York"}
    (d / "dataset.json").write_text(json.dumps(meta, indent=2) + "\n")
    with open(d / "logs.jsonl", "w", encoding="utf-8") as f:
        for t, svc, level, msg, attrs in sorted(EVENTS, key=lambda e: (e[0], e[1], e[3])):
            ts = t.astimezone(TS_ZONE[svc]).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            row = {"ts": ts, "service": svc, "level": level, "message": msg, "attrs": attrs}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    for name, (head, rows) in tables().items():
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(head)
        w.writerows(rows)
        (d / "tables" / f"{name}.csv").write_text(buf.getvalue())
    for name, text in KNOWLEDGE.items():
        (d / "knowledge" / name).write_text(text)
    suite = engine.truth(NAME, at, datetime.isoformat, W, engine.classed_case)  # worlds_data/edu/truth.yaml
    (d / "truth.json").write_text(json.dumps(suite, indent=2, ensure_ascii=False) + "\n")
    return len(EVENTS)


def check(d: Path) -> list[str]:
    """Every evidence item's text is in the data it names (its service and window, or its table)."""
    events = [json.loads(line) for line in open(d / "logs.jsonl", encoding="utf-8")]
    for e in events:
        e["at"] = datetime.fromisoformat(e["ts"])
    problems = []
    for inc in json.loads((d / "truth.json").read_text())["incidents"]:
        for ev in inc["evidence"]:
            a, want = ev["args"], ev["contains"]
            if ev["tool"] == "query_logs":
                lo, hi = datetime.fromisoformat(a["start"]), datetime.fromisoformat(a["end"])
                found = any(e["service"] == a["service"] and lo <= e["at"] <= hi and want in e["message"]
                            and e["level"] == a.get("level", e["level"])
                            and a.get("pattern", "") in e["message"] for e in events)
            else:
                table = a["sql"].split(" FROM ")[1].split()[0]
                lines = (d / "tables" / f"{table}.csv").read_text().splitlines()
                found = any(want in x for x in lines)
            if not found:
                problems.append(f"{inc['id']}: {want!r} not found by {ev['tool']} {a}")
        if inc["kind"] == "quiet":  # only the known-noise services may log errors there
            lo, hi = datetime.fromisoformat(inc["start"]), datetime.fromisoformat(inc["end"])
            problems += [f"{inc['id']}: quiet window has {e['service']}: {e['message'][:80]}" for e in events
                         if lo <= e["at"] <= hi and e["level"] in ("ERROR", "FATAL")
                         and e["service"] not in ("notify", "lms-web")]
    return problems


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 64
    out = Path(args[0])
    n = write(out)
    size = sum(p.stat().st_size for p in (out / NAME).rglob("*") if p.is_file())
    print(f"wrote {out / NAME}: {n} events, {size / 1e6:.1f} MB")
    if "--check" in argv:
        problems = check(out / NAME)
        for p in problems:
            print("CHECK:", p, file=sys.stderr)
        if problems:
            return 1
        print("check: every evidence item found")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
