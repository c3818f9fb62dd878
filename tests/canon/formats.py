"""Log lines as the real programs write them; ``harness data import`` reads them back.

Each renderer takes a UTC time, a level and a message and returns one line in its format. The
engine writes one file per service (``<service>.log``), so formats that name no service get it
from the file name, as an import of a team's own exports would.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime

_PG_TAG = {"DEBUG": "DEBUG1", "INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}
_SYSLOG_PRI = {"DEBUG": 7, "INFO": 6, "WARN": 4, "ERROR": 3, "FATAL": 2}
_AGENTS = ("okhttp/4.12.0", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)",
           "python-requests/2.31.0", "Go-http-client/1.1")
_LOGGERS = ("c.acme.api.RequestLogger", "c.acme.core.Service", "c.acme.db.Repository",
            "o.s.web.servlet.DispatcherServlet")
_EVENT = re.compile(r"^(?P<kind>\w+) (?P<ns>[\w-]+)/(?P<name>[\w.-]+) (?P<reason>\w+): (?P<msg>.*)$",
                    re.S)
_PG_SESSION = re.compile(r"^(?:\[(?P<pid>\d+)\] )?(?:(?P<who>[\w.-]+@[\w.-]+) )?"
                         r"(?:(?P<tag>DETAIL|HINT|CONTEXT|STATEMENT):\s+)?(?P<msg>.*)$", re.S)
_ACCESS = re.compile(r"^(?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3})(?: rt=(?P<rt>[\d.]+))?$")


def render(fmt: str, service: str, ts: datetime, level: str, message: str,
           rng: random.Random) -> str:
    """One line of ``service``'s log in ``fmt``."""
    if fmt == "text":
        thread = f"http-nio-8080-exec-{rng.randint(1, 24)}"
        stamp = ts.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts.microsecond // 1000:03d}"
        return f"{stamp} {level:<5} [{thread}] {rng.choice(_LOGGERS)} - {message}"
    if fmt == "json":
        return json.dumps({"ts": _iso(ts), "level": level.lower().replace("warn", "warning"),
                           "logger": f"{service}.app", "msg": message}, ensure_ascii=False)
    if fmt == "logfmt":
        quoted = message.replace("\\", "\\\\").replace('"', '\\"')
        return (f"ts={_iso(ts)} level={level.lower()} caller=main.go:{rng.randint(40, 400)} "
                f'msg="{quoted}"')
    if fmt == "access":
        return _access(ts, message, rng)
    if fmt == "syslog":
        stamp = f"{ts.strftime('%b')} {ts.day:>2} {ts.strftime('%H:%M:%S')}"
        return f"<{_SYSLOG_PRI[level]}>{stamp} {service} {message}"
    if fmt == "k8s":
        return _event(ts, level, message, rng)
    if fmt == "postgres":
        return _postgres(ts, level, message, rng)
    raise ValueError(f"unknown log format {fmt!r}")


def _postgres(ts: datetime, level: str, message: str, rng: random.Random) -> str:
    """``log_line_prefix = '%m [%p] %q%u@%d '``: a session's line names its user and database.

    A message may start with ``[PID] `` (the backend's process id, so a lock wait's "Process
    holding the lock" can name a session's line), then ``user@db `` (a session's line; a
    background process writes none, as ``%q`` does), then ``DETAIL:`` / ``HINT:`` /
    ``CONTEXT:`` / ``STATEMENT:`` for PostgreSQL's continuation lines in place of the level's tag.
    """
    match = _PG_SESSION.match(message)
    assert match is not None  # every part is optional
    pid = match["pid"] or str(rng.randint(1200, 48000))
    who = f"{match['who']} " if match["who"] else ""
    stamp = ts.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts.microsecond // 1000:03d}"
    return f"{stamp} UTC [{pid}] {who}{match['tag'] or _PG_TAG[level]}:  {match['msg']}"


def _access(ts: datetime, message: str, rng: random.Random) -> str:
    match = _ACCESS.match(message)
    if match is None:
        raise ValueError(f"an access-log line is 'METHOD PATH STATUS [rt=S]', not {message!r}")
    status = int(match["status"])
    rt = match["rt"] or f"{rng.uniform(0.008, 0.25):.3f}"
    size = 0 if status >= 500 else rng.randint(120, 4800)
    client = f"10.{rng.randint(0, 3)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
    stamp = ts.strftime("%d/%b/%Y:%H:%M:%S +0000")
    return (f'{client} - - [{stamp}] "{match["method"]} {match["path"]} HTTP/1.1" {status} {size} '
            f'"-" "{rng.choice(_AGENTS)}" rt={rt}')


def _event(ts: datetime, level: str, message: str, rng: random.Random) -> str:
    match = _EVENT.match(message)
    if match is None:
        raise ValueError(f"a k8s event is 'Kind namespace/name Reason: message', not {message!r}")
    stamp = ts.strftime("%Y-%m-%dT%H:%M:%SZ")
    obj = {"kind": match["kind"], "name": match["name"], "namespace": match["ns"]}
    return json.dumps({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"{match['name']}.{rng.getrandbits(48):012x}", "namespace": match["ns"]},
        "involvedObject": obj, "reason": match["reason"], "message": match["msg"],
        "type": "Warning" if level in ("WARN", "ERROR", "FATAL") else "Normal", "count": 1,
        "firstTimestamp": stamp, "lastTimestamp": stamp,
        "source": {"component": "replicaset-controller" if match["kind"] == "ReplicaSet"
                   else "kubelet"}})


def _iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"
