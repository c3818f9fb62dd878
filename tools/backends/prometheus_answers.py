"""Reading one Prometheus answer within its caps: a listing whole, a query's series one by one.

A query's result is *streamed*: the body is read by chunks and decoded series by series, and
reading stops at the caller's series or byte limit (``truncated`` says which), so a query
matching 100 000 series costs the first few hundred kilobytes of the answer, never the whole
of it. Every read checks the request's deadline. The client that opens the answers is
:mod:`diagnosis_harness.tools.backends.prometheus`.
"""

from __future__ import annotations

import codecs
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, BinaryIO

_CHUNK = 64 * 1024
_MAX_SERIES_BYTES = 1024 * 1024
"""One series larger than this (labels and points) ends the reading (truncated)."""
_RESULT = re.compile(rb'"result"\s*:\s*\[')
_RESULT_TYPE = re.compile(rb'"resultType"\s*:\s*"([a-z]+)"')
_SUCCESS = re.compile(rb'"status"\s*:\s*"success"')


class PrometheusError(RuntimeError):
    """A request failed; ``code`` classifies it for the tool's error observation."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Streamed:
    """The series of one query as far as they were read."""

    result_type: str
    series: list[dict[str, Any]] = field(default_factory=list)
    scalar: object = None
    """The ``[time, "value"]`` of a scalar or string result."""
    truncated: str | None = None
    """Why reading stopped before the end: ``"series"`` or ``"bytes"``; None if complete."""
    warnings: list[str] = field(default_factory=list)


def read_capped(answer: BinaryIO, limit: int, deadline: float, url: str) -> bytes:
    """Up to ``limit`` bytes of ``answer``, by chunks, before ``deadline``."""
    out = bytearray()
    while len(out) < limit:
        if time.monotonic() > deadline:
            raise PrometheusError("timeout", f"Prometheus at {url}: the answer did not arrive "
                                  "in time")
        chunk = answer.read(min(_CHUNK, limit - len(out)))
        if not chunk:
            break
        out += chunk
    return bytes(out)


class _Body:
    """The answer's bytes, read on demand, never more than ``cap`` of them."""

    def __init__(self, answer: BinaryIO, cap: int, deadline: float, url: str) -> None:
        self.answer, self.cap, self.deadline, self.url = answer, cap, deadline, url
        self.buf = b""
        self.read_bytes = 0
        self.eof = False

    @property
    def capped(self) -> bool:
        """Reading stopped at the cap, not at the end of the body."""
        return not self.eof and self.read_bytes >= self.cap

    def chunk(self) -> bytes:
        """The next chunk (b"" at the end of the body or at the cap)."""
        if self.eof or self.read_bytes >= self.cap:
            return b""
        if time.monotonic() > self.deadline:
            raise PrometheusError("timeout", f"Prometheus at {self.url}: the answer did not "
                                  "arrive in time")
        try:
            chunk: bytes = self.answer.read(min(_CHUNK, self.cap - self.read_bytes))
        except TimeoutError:
            raise PrometheusError("timeout", f"Prometheus at {self.url}: reading the answer "
                                  "timed out") from None
        if not chunk:
            self.eof = True
        self.read_bytes += len(chunk)
        return chunk

    def more(self) -> bool:
        """Append the next chunk to ``buf``; False when there is none."""
        chunk = self.chunk()
        self.buf += chunk
        return bool(chunk)


def stream_series(answer: BinaryIO, max_series: int, max_bytes: int, deadline: float,
                  url: str) -> Streamed:
    """A query's series as far as ``max_series`` series and ``max_bytes`` bytes allow."""
    body = _Body(answer, max_bytes, deadline, url)
    while not (m := _RESULT.search(body.buf)):
        if not body.more():
            return _whole(body)
    head = body.buf[:m.start()]
    if not _SUCCESS.search(head):
        raise PrometheusError("bad_response", "the query's answer is not a success")
    kind = _RESULT_TYPE.search(head)
    out = Streamed(result_type=kind.group(1).decode() if kind else "")
    if out.result_type not in ("vector", "matrix"):
        return _whole(body)
    utf8 = codecs.getincrementaldecoder("utf-8")()
    decoder = json.JSONDecoder()
    text, at = utf8.decode(body.buf[m.end():]), 0
    body.buf = b""  # from here on the text is the buffer
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at < len(text) and text[at] == "]":
            return out
        if at < len(text) and len(out.series) >= max_series:
            out.truncated = "series"
            return out
        try:
            if at >= len(text):
                raise ValueError("need more")
            obj, end = decoder.raw_decode(text, at)
        except ValueError:  # incomplete (or broken): read on, within the caps
            chunk = body.chunk() if len(text) - at <= _MAX_SERIES_BYTES else b""
            if not chunk:
                if body.eof:
                    raise PrometheusError("bad_response", "the query's answer ends early or "
                                          "is not valid JSON") from None
                out.truncated = "bytes"
                return out
            text, at = text[at:] + utf8.decode(chunk), 0
            continue
        if isinstance(obj, dict):
            out.series.append(obj)
        at = end


def _whole(body: _Body) -> Streamed:
    while body.more():
        pass
    if not body.eof:
        raise PrometheusError("result_too_large", "the answer exceeds the byte limit")
    try:
        data = json.loads(body.buf)
    except ValueError:
        raise PrometheusError("bad_response", "the query's answer is not JSON") from None
    if not isinstance(data, dict) or data.get("status") != "success":
        raise PrometheusError("bad_response", "the query's answer is not a success")
    inner = data.get("data") or {}
    out = Streamed(result_type=str(inner.get("resultType", "")),
                   warnings=[str(w) for w in data.get("warnings") or []][:5])
    result = inner.get("result")
    if out.result_type in ("scalar", "string"):
        out.scalar = result
    elif isinstance(result, list):
        out.series = [s for s in result if isinstance(s, dict)]
    return out
