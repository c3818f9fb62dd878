"""A read-only client of one Prometheus server's HTTP API (``HARNESS_PROMETHEUS_URL``).

Read-only by construction (docs/security.md): the only requests it can make are to a fixed
list of read endpoints (:data:`ENDPOINTS`) under the configured base URL — the caller names an
endpoint by key, never a URL or a path, and the PromQL and times travel only in the
form-encoded body (queries) or in an encoded query string (listings), so no argument can change
the host, the path or the method. Redirects are not followed (a 3xx is an error: it could point
anywhere), proxies from the environment are not used, and every request has an explicit
timeout and no retry.

Bodies are read with a byte cap: a query's result is *streamed* (:meth:`Prometheus.series`),
series by series, and reading stops at the caller's series or byte limit
(:mod:`diagnosis_harness.tools.backends.prometheus_answers`).
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diagnosis_harness.tools.backends.prometheus_answers import (
    PrometheusError,
    Streamed,
    read_capped,
    stream_series,
)

if TYPE_CHECKING:
    from http.client import HTTPResponse

__all__ = ["ENDPOINTS", "HINT_TIMEOUT_S", "HINT_TTL_S", "MetricNames", "Prometheus",
           "PrometheusError", "Streamed", "base_url"]

ENDPOINTS: Mapping[str, tuple[str, str]] = {
    "query": ("POST", "api/v1/query"),
    "query_range": ("POST", "api/v1/query_range"),
    "metadata": ("GET", "api/v1/metadata"),
    "names": ("GET", "api/v1/label/__name__/values"),
    "series": ("GET", "api/v1/series"),
    "labels": ("GET", "api/v1/labels"),
    "label_values": ("GET", "api/v1/label/{name}/values"),
}
"""Every request this client can make: key → (method, path under the base URL). The one
``{name}`` is a label name, checked against the label-name grammar before it is put in."""

_MAX_ERROR_BYTES = 64 * 1024
_METRIC_NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]{0,199}\Z")
_LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}\Z")
Params = Mapping[str, str] | Sequence[tuple[str, str]]
"""Request parameters; pairs let a key repeat (``match[]``)."""
HINT_TTL_S = 300.0
"""How long the advertised metric list is reused (a failed read: a tenth of it)."""
HINT_TIMEOUT_S = 2.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is answered as the 3xx error it is


def base_url(url: str) -> str:
    """The configured base URL, checked: http(s), a host, no query or fragment; no trailing /."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"HARNESS_PROMETHEUS_URL must be an http(s) URL with a host, e.g. "
                         f"http://127.0.0.1:9090; got {url!r}")
    if parts.query or parts.fragment:
        raise ValueError("HARNESS_PROMETHEUS_URL must not have a query string or fragment")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


class Prometheus:
    """The HTTP API of one Prometheus server, read-only; one per :class:`Backends`."""

    def __init__(self, url: str, *, timeout_s: float = 10.0) -> None:
        parts = urllib.parse.urlsplit(base_url(url))
        self._auth: str | None = None
        if parts.username is not None:
            pair = f"{urllib.parse.unquote(parts.username)}:" \
                f"{urllib.parse.unquote(parts.password or '')}"
            self._auth = "Basic " + base64.b64encode(pair.encode()).decode()
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
        self._scheme, self._netloc, self._path = parts.scheme, netloc, parts.path
        self.timeout_s = timeout_s
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
        self._hint_lock = threading.Lock()
        self._hint: tuple[float, MetricNames] | None = None

    @property
    def url(self) -> str:
        """The base URL without credentials (for messages and docs)."""
        return urllib.parse.urlunsplit((self._scheme, self._netloc, self._path, "", ""))

    def endpoint_url(self, key: str, params: Params | None = None, name: str = "") -> str:
        """The full URL of endpoint ``key``; only a GET carries ``params`` (encoded)."""
        method, path = ENDPOINTS[key]
        if "{name}" in path:
            if not _LABEL_NAME.match(name):
                raise PrometheusError("bad_promql", f"{name[:60]!r} is not a label name")
            path = path.replace("{name}", name)
        query = urllib.parse.urlencode(params or {}) if method == "GET" else ""
        return urllib.parse.urlunsplit((self._scheme, self._netloc, f"{self._path}/{path}",
                                        query, ""))

    def _open(self, key: str, params: Params, timeout_s: float, name: str = "") -> HTTPResponse:
        method, _ = ENDPOINTS[key]
        body = urllib.parse.urlencode(params).encode() if method == "POST" else None
        request = urllib.request.Request(self.endpoint_url(key, params, name), data=body,
                                         method=method)
        request.add_header("Accept", "application/json")
        if body is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        if self._auth:
            request.add_header("Authorization", self._auth)
        try:
            return self._opener.open(request, timeout=max(timeout_s, 0.001))
        except urllib.error.HTTPError as exc:
            raise _http_error(exc) from None
        except TimeoutError:
            raise PrometheusError("timeout", f"Prometheus at {self.url} did not answer within "
                                  f"{timeout_s:.3g} s") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise PrometheusError("timeout", f"Prometheus at {self.url} did not answer "
                                      f"within {timeout_s:.3g} s") from None
            raise PrometheusError("prometheus_unreachable",
                                  f"Prometheus at {self.url} is unreachable: {reason}") from None

    def get_json(self, key: str, params: Params, *, timeout_s: float, max_bytes: int,
                 name: str = "") -> Any:  # Any: the answer's JSON data, read by its caller
        """The ``data`` of a small answer (a listing), read up to ``max_bytes``."""
        deadline = time.monotonic() + timeout_s
        with self._open(key, params, timeout_s, name) as answer:
            raw = read_capped(answer, max_bytes + 1, deadline, self.url)
        if len(raw) > max_bytes:
            raise PrometheusError("result_too_large", f"the answer of {key} exceeds "
                                  f"{max_bytes} bytes")
        try:
            body = json.loads(raw)
        except ValueError:
            raise PrometheusError("bad_response", f"{key}: the answer is not JSON") from None
        if not isinstance(body, dict) or body.get("status") != "success":
            raise PrometheusError("bad_response", f"{key}: the answer is not a success")
        return body.get("data")

    def series(self, key: str, params: Mapping[str, str], *, timeout_s: float,
               max_series: int, max_bytes: int) -> Streamed:
        """The result of a query (``query`` / ``query_range``), read series by series.

        Stops after ``max_series`` series or ``max_bytes`` bytes of the body, whichever comes
        first (``truncated`` says which), and closes the connection: the rest is never read.
        """
        deadline = time.monotonic() + timeout_s
        with self._open(key, params, timeout_s) as answer:
            return stream_series(answer, max_series, max_bytes, deadline, self.url)

    def metric_names(self, limit: int) -> MetricNames:
        """Up to ``limit`` metric names with their type, cached (``error`` if unreadable).

        Read from ``/api/v1/label/__name__/values`` and ``/api/v1/metadata``, each with a short
        timeout and a byte cap, at most once per :data:`HINT_TTL_S` (per client, so per
        Backends: nothing is shared across processes' data or tests).
        """
        with self._hint_lock:
            now = time.monotonic()
            if self._hint is not None and now < self._hint[0]:
                return self._hint[1]
            try:
                names = self.get_json("names", {}, timeout_s=HINT_TIMEOUT_S,
                                      max_bytes=1024 * 1024)
                kinds = self.get_json("metadata", {"limit": "2000"}, timeout_s=HINT_TIMEOUT_S,
                                      max_bytes=2 * 1024 * 1024)
            except PrometheusError as exc:
                failed = MetricNames([], 0, str(exc))
                self._hint = (now + HINT_TTL_S / 10, failed)
                return failed
            listed = [n for n in (names or []) if isinstance(n, str) and _METRIC_NAME.match(n)]
            out = []
            for name in listed[:limit]:
                meta = kinds.get(name) if isinstance(kinds, dict) else None
                kind = meta[0].get("type", "") if isinstance(meta, list) and meta \
                    and isinstance(meta[0], dict) else ""
                out.append((name, kind if isinstance(kind, str) and kind.isalpha() else ""))
            found = MetricNames(out, len(listed))
            self._hint = (now + HINT_TTL_S, found)
            return found


@dataclass(frozen=True)
class MetricNames:
    """What :meth:`Prometheus.metric_names` read: (name, type) pairs, of ``total`` names."""

    names: list[tuple[str, str]]
    total: int
    error: str | None = None
    """Why the list could not be read (then ``names`` is empty)."""


def _http_error(exc: urllib.error.HTTPError) -> PrometheusError:
    try:
        raw = exc.read(_MAX_ERROR_BYTES)
        body = json.loads(raw)
        detail = f"{body.get('errorType', '')}: {body.get('error', '')}".strip(": ")
    except Exception:  # noqa: BLE001 — any body: the status says enough
        detail = exc.reason if isinstance(exc.reason, str) else ""
    finally:
        exc.close()
    if 300 <= exc.code < 400:
        return PrometheusError("prometheus_redirect", f"Prometheus answered {exc.code} (a "
                               "redirect, not followed: set HARNESS_PROMETHEUS_URL to the "
                               "server's own address)")
    if exc.code == 400 or exc.code == 422:
        return PrometheusError("bad_promql", f"Prometheus rejected the query ({exc.code}): "
                               f"{detail[:500]}")
    if exc.code == 503 and "timeout" in detail.lower():
        return PrometheusError("timeout", f"Prometheus timed out evaluating the query: "
                               f"{detail[:300]}")
    return PrometheusError("prometheus_error", f"Prometheus answered {exc.code}: {detail[:300]}")


