"""Plain-text logs as records: syslog, access and error logs, logfmt, timestamped text, a pattern.

Lines that do not start an event (a Java stack trace's indented ``at …`` and ``Caused by: …`` lines, a
Python traceback) are joined to the event they follow, so a stack trace stays one event whose
message starts with the line that logged it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from diagnosis_harness.tools.dataset.json_logs import logfmt
from diagnosis_harness.tools.dataset.records import RecordError, level_in_text
from diagnosis_harness.tools.dataset.sniff import (
    ACCESS,
    APACHE_ERROR,
    CONTINUATION,
    LEADING_TS,
    NGINX_ERROR,
    SYSLOG_3164,
    SYSLOG_5424,
    SYSLOG_UNTAGGED,
)

Parsed = tuple[dict[str, Any], Any, str | None]
"""A record as :func:`diagnosis_harness.tools.dataset.records.build_event` takes it: fields, time, message."""
MAX_JOINED_LINES = 200
MAX_JOINED_CHARS = 1 << 20
"""Continuation lines joined to one event stop at 200 lines or a million characters: 200 lines
of the import's longest line would make one 200 MB message, and the loader reads lines whole."""
_NGINX_FIELDS = re.compile(r', (client|server|request|upstream|host|referrer): ("[^"]*"|[^,]*)')
_LOGGER_PREFIX = re.compile(r"(?:\d+ )?(?:--- )?\[([^\]]*)\]\s+([\w.$]+)\s+[:-]\s+(.*)", re.S)
FREE_FORM = ("text", "pattern", "nginx-error")
"""Formats in which any line that does not start an event continues the previous one (nginx
writes a backend's multi-line stderr, a PHP or Lua stack trace, inside one error event)."""
_ACCESS_PAIR = re.compile(r'([a-z_]\w*)=("(?:[^"\\]|\\.)*"|\S+)')
_IP_LIST = re.compile(r"[0-9A-Fa-f.:]+(?:, [0-9A-Fa-f.:]+)*\Z")
_INGRESS = re.compile(r"(\d+) ([\d.]+|-) \[([^\]]*)\] \[([^\]]*)\] (\S+(?:, \S+)*) (\S+(?:, \S+)*) "
                      r"(\S+(?:, \S+)*) (\S+(?:, \S+)*)(?: (\S+))?\Z")
_INGRESS_FIELDS = ("request_length", "request_time", "upstream_name", "upstream_alternative",
                   "upstream_addr", "upstream_response_length", "upstream_response_time",
                   "upstream_status", "request_id")
"""ingress-nginx's default access log format after the combined fields, by position."""


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A user's line pattern; it must name a ``ts`` group (``(?P<ts>…)``)."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"--pattern is not a valid regular expression: {exc}") from None
    if "ts" not in compiled.groupindex:
        raise ValueError("--pattern must capture the time as a named group (?P<ts>…); "
                         "(?P<level>…), (?P<service>…), (?P<message>…) and any other named "
                         "groups are used too")
    return compiled


def parse_line(fmt: str, line: str, pattern: re.Pattern[str] | None = None,
               leading: re.Pattern[str] | None = None) -> Parsed | None:
    """The record a line starts, or None if it does not start one in format ``fmt``.

    ``leading`` (the user's ``--time-format``) finds the time of a ``text`` line; ``plain`` is a
    line with no time of its own (``kubectl logs --timestamps`` gives it one).
    """
    if fmt == "plain":
        return None if CONTINUATION.match(line) else ({}, None, line)
    if fmt == "syslog":
        return _syslog(line)
    if fmt == "access":
        return _access(line)
    if fmt == "nginx-error":
        return _nginx_error(line)
    if fmt == "apache-error":
        return _apache_error(line)
    if fmt == "logfmt":
        pairs = logfmt(line)
        return (pairs, None, None) if len(pairs) >= 2 else None
    if fmt == "pattern":
        assert pattern is not None
        return _pattern(line, pattern)
    return _leading_timestamp(line, leading)


def join_events(lines: Iterator[tuple[int, str]], fmt: str,
                pattern: re.Pattern[str] | None = None, leading: re.Pattern[str] | None = None
                ) -> Iterator[tuple[int, Parsed | RecordError, int]]:
    """``(first line number, record or error, lines joined)`` for every event of a text source."""
    current: tuple[int, Parsed] | None = None
    extra: list[str] = []
    joined = dropped = 0  # characters of extra; continuation lines past the limits
    for lineno, line in lines:
        if not line.strip():
            continue
        parsed = parse_line(fmt, line, pattern, leading)
        if parsed is None and current is None and fmt == "plain":
            parsed = ({}, None, line)
        if parsed is None and current is not None and (fmt in FREE_FORM or CONTINUATION.match(line)):
            if len(extra) < MAX_JOINED_LINES and joined + len(line) <= MAX_JOINED_CHARS:
                extra.append(line.rstrip())
                joined += len(line)
            else:
                dropped += 1
            continue
        if current is not None:
            yield current[0], _with_lines(current[1], _said(extra, dropped), fmt), len(extra)
            current, extra, joined, dropped = None, [], 0, 0
        if parsed is None:
            what = ("does not start with a time in the --time-format" if leading is not None
                    and fmt == "text" else f"not a {fmt} line")
            yield lineno, RecordError(f"{what}: {line[:80]!r}"), 0
        else:
            current = (lineno, parsed)
    if current is not None:
        yield current[0], _with_lines(current[1], _said(extra, dropped), fmt), len(extra)


def _said(extra: list[str], dropped: int) -> list[str]:
    """The joined lines, and a last one saying how many were not kept (never a silent cut)."""
    if not dropped:
        return extra
    return [*extra, f"… {dropped} more line(s) not kept (an event joins at most "
                    f"{MAX_JOINED_LINES} lines and {MAX_JOINED_CHARS:,} characters)"]


def _with_lines(parsed: Parsed, extra: list[str], fmt: str) -> Parsed:
    if not extra:
        return parsed
    fields, ts, message = parsed
    if fmt == "nginx-error":  # ", client: …, request: …" follow the backend's last line
        fields = {**fields, **{k: v.strip('"') for k, v in
                               _NGINX_FIELDS.findall("\n".join([message or "", *extra]))}}
    if message is None:  # logfmt: the message is a field
        key = next((k for k in ("msg", "message") if k in fields), "msg")
        fields = {**fields, key: "\n".join([str(fields.get(key, "")), *extra])}
        return fields, ts, None
    return fields, ts, "\n".join([message, *extra])


def _syslog(line: str) -> Parsed | None:
    match = SYSLOG_5424.match(line)
    if match:
        pri, ts, host, app, procid, msgid, data, message = match.groups()
        fields: dict[str, Any] = {"PRIORITY": int(pri) % 8, "host": host, "service": app,
                                  "pid": procid, "msgid": msgid, "structured_data": data}
        fields = {k: v for k, v in fields.items() if v not in (None, "-")}
        return fields, ts, message.removeprefix("\ufeff")
    match = SYSLOG_3164.match(line)
    if not match:
        untagged = SYSLOG_UNTAGGED.match(line)
        if not untagged:
            return None
        pri, ts, host, message = untagged.groups()
        fields = {"host": host}
        if pri is not None:
            fields["PRIORITY"] = int(pri) % 8
        return fields, ts, message
    pri, ts, host, app, version, pid, message = match.groups()
    fields = {"host": host, "service": app}
    if version:
        fields["version"] = version
    if pid:
        fields["pid"] = int(pid)
    if pri is not None:
        fields["PRIORITY"] = int(pri) % 8
    return fields, ts, message


def _access(line: str) -> Parsed | None:
    match = ACCESS.match(line)
    if not match:
        return None
    client, _ident, user, ts, request, status, size, referer, agent, rest = match.groups()
    code = int(status)
    fields: dict[str, Any] = {"status": code, **_access_extensions(rest or "")}
    if ", " in client:  # logged $http_x_forwarded_for first: the original client, then proxies
        fields["forwarded_for"] = client
        client = client.split(", ")[0]
    fields.update({"client": client,
                   "level": "ERROR" if code >= 500 else "WARN" if code >= 400 else "INFO"})
    parts = request.split()
    if len(parts) == 3:
        fields.update(method=parts[0], path=parts[1], protocol=parts[2])
    if user != "-":
        fields["user"] = user
    if size != "-":
        fields["bytes"] = int(size)
    if referer not in (None, "-"):
        fields["referer"] = referer
    if agent not in (None, "-"):
        fields["user_agent"] = agent
    message = f"{request} {status} {size}" + (f" {rest.strip()}" if rest and rest.strip() else "")
    return fields, ts, message


def _access_extensions(rest: str) -> dict[str, Any]:
    """Named fields of what follows the combined format in an access log line.

    A quoted X-Forwarded-For list, ``key=value`` timings (``rt=0.532 urt="0.531"``) or
    ingress-nginx's positional fields; what has no name stays in the message (and ``extra``).
    """
    text = rest.strip()
    fields: dict[str, Any] = {}
    quoted = re.match(r'"((?:[^"\\]|\\.)*)"\s*', text)
    if quoted and _IP_LIST.match(quoted.group(1)):
        fields["forwarded_for"] = quoted.group(1)
        text = text[quoted.end():]
    ingress = _INGRESS.match(text)
    if ingress:
        fields.update({k: v for k, v in zip(_INGRESS_FIELDS, ingress.groups(), strict=True)
                       if v not in (None, "", "-")})
        return fields
    pairs = _ACCESS_PAIR.findall(text)
    for key, value in pairs:
        fields[key] = value.strip('"')
    leftover = _ACCESS_PAIR.sub("", text).strip()
    if leftover and leftover != '"-"':
        fields["extra"] = leftover
    return fields


def _nginx_error(line: str) -> Parsed | None:
    match = NGINX_ERROR.match(line)
    if not match:
        return None
    ts, level, pid, tid, connection, message = match.groups()
    fields: dict[str, Any] = {"level": level, "pid": int(pid), "tid": int(tid)}
    if connection:
        fields["connection"] = int(connection)
    for key, value in _NGINX_FIELDS.findall(message):
        fields[key] = value.strip('"')
    return fields, ts, message


def _apache_error(line: str) -> Parsed | None:
    match = APACHE_ERROR.match(line)
    if not match:
        return None
    ts, module, level, pid, tid, client, message = match.groups()
    if client is None:  # after an APR error code the client comes later in the line
        later = re.search(r"\[client ([^\]]+)\]", message)
        client = later.group(1) if later else None
    fields: dict[str, Any] = {"level": level}
    for key, value in (("module", module), ("pid", pid), ("tid", tid), ("client", client)):
        if value:
            fields[key] = value
    return fields, ts, message


def _leading_timestamp(line: str, leading: re.Pattern[str] | None) -> Parsed | None:
    match = (leading or LEADING_TS).match(line)
    if not match:
        return None
    rest = line[match.end():].strip(" \t|-:,;")
    fields: dict[str, Any] = {}
    found = level_in_text(rest)
    if found is not None:
        token = re.search(rf"\[?{re.escape(found[1])}\]?|level={re.escape(found[1])}", rest)
        if token is not None and token.start() < 120:
            fields["level"] = found[1]
            rest = (rest[:token.start()] + rest[token.end():]).strip(" \t|-:,;")
    spring = _LOGGER_PREFIX.match(rest)  # "1 --- [main] c.s.Foo : text" / "[main] c.s.Foo - text"
    if spring:
        fields.update(thread=spring.group(1).strip(), logger=spring.group(2))
        rest = spring.group(3)
    elif "level" in fields:  # the level token left its separators behind: "a - - b" → "a - b"
        rest = re.sub(r"\s*([-|])(?:\s*\1)+\s*", r" \1 ", rest)
        rest = re.sub(r"[ \t]{2,}", " ", rest)
    return fields, match.group(1), rest or "(empty message)"


def _pattern(line: str, pattern: re.Pattern[str]) -> Parsed | None:
    match = pattern.match(line)
    if not match:
        return None
    groups = {k: v for k, v in match.groupdict().items() if v is not None}
    ts = groups.pop("ts")
    message = groups.pop("message", None) or groups.pop("msg", None) or line[match.end():].strip()
    return groups, ts, message or line
