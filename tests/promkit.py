"""Real Prometheus and Alertmanager for the tests, and the tiny HTTP servers around them.

Dependency-free (stdlib and subprocess): the binaries come from Debian's ``prometheus``
(``prometheus``, ``promtool``) and ``prometheus-alertmanager`` packages, installed by
``scripts/ci-os-packages.sh``; a test that needs them calls :func:`require_binaries` first and is
skipped, naming the missing binary and the script, where they are not installed.

- :func:`free_port` — a free TCP port on 127.0.0.1;
- :func:`openmetrics` / :func:`backfill` — build OpenMetrics text and turn it into TSDB blocks
  with ``promtool tsdb create-blocks-from openmetrics`` (before Prometheus starts on the folder);
- :class:`Prometheus` — a server on 127.0.0.1 with a temporary config (scrape targets, rule
  groups, an Alertmanager), on a temporary or backfilled TSDB kept 100 years;
- :class:`Alertmanager` — routes every alert to one webhook URL (optionally with a bearer token
  or basic auth), clustering off so it binds only its web port;
- :class:`Exporter` — serves ``/metrics`` with values the test changes while it runs;
- :class:`Receiver` — records every POST (path, headers, JSON body); can fail (HTTP 500) or
  hang on the first N requests.

Everything listens on 127.0.0.1 only, on ports from :func:`free_port`. Each server is a context
manager; a process is stopped by its own PID (SIGTERM, then SIGKILL after a timeout) and its
temporary folder removed. The configs are written as JSON, which both YAML parsers read.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

INSTALL_HINT = "scripts/ci-os-packages.sh"
HOST = "127.0.0.1"

# Proxies must not see loopback traffic: not ours (urllib honours *_proxy), not the servers'.
_PROXY_VARS = {"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"}
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# --------------------------------------------------------------------------------------------
# helpers


def require_binaries(*names: str) -> None:
    """Skip the calling test unless every named binary is on PATH."""
    import pytest

    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: run {INSTALL_HINT} "
                    "(Debian packages prometheus, prometheus-alertmanager, chromium)")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the caller binds it soon after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARS}


def http(method: str, url: str, body: Any = None, *, headers: Mapping[str, str] | None = None,
         timeout: float = 10.0) -> tuple[int, bytes]:
    """One request without any proxy; returns (status, body) also for 4xx/5xx answers."""
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with _opener.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def get_json(url: str, params: Mapping[str, Any] | None = None, timeout: float = 10.0) -> Any:
    if params:
        url = f"{url}?{urllib.parse.urlencode(params)}"
    status, body = http("GET", url, timeout=timeout)
    if status != 200:
        raise RuntimeError(f"GET {url}: HTTP {status}: {body[:500]!r}")
    return json.loads(body)


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    """Poll ``predicate`` until it returns something truthy; that value, or TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def _timestamp(value: datetime | float | int | str) -> float:
    """Unix seconds from a datetime (naive = UTC), a number, or an RFC 3339 string."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.timestamp()
    return float(value)


def _labels(labels: Mapping[str, str] | None) -> str:
    if not labels:
        return ""
    def esc(v: str) -> str:
        return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    return "{" + ",".join(f'{k}="{esc(v)}"' for k, v in sorted(labels.items())) + "}"


def _number(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


# --------------------------------------------------------------------------------------------
# backfill


Points = Iterable[tuple[datetime | float | int | str, float]]


def openmetrics(series: Iterable[tuple[str, Mapping[str, str] | None, Points]], *,
                metric_type: str = "gauge") -> str:
    """OpenMetrics text (ending in ``# EOF``) for ``(name, labels, [(time, value), ...])``.

    Samples of one metric name are kept together (OpenMetrics requires it) and sorted by time.
    """
    by_name: dict[str, list[tuple[Mapping[str, str] | None, Points]]] = {}
    for name, labels, points in series:
        by_name.setdefault(name, []).append((labels, points))
    lines: list[str] = []
    for name, members in by_name.items():
        lines.append(f"# TYPE {name} {metric_type}")
        for labels, points in members:
            for ts, value in sorted(((_timestamp(t), v) for t, v in points), key=lambda p: p[0]):
                lines.append(f"{name}{_labels(labels)} {_number(value)} {_number(ts)}")
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def backfill(openmetrics_text: str, tsdb_dir: str | Path) -> Path:
    """Write ``openmetrics_text`` to a file and make TSDB blocks of it in ``tsdb_dir``.

    Runs ``promtool tsdb create-blocks-from openmetrics FILE DIR``; ``# EOF`` is added when
    missing. Do it before :class:`Prometheus` starts on the folder (a running server picks new
    blocks up only at its next reload). Returns ``tsdb_dir``.
    """
    tsdb = Path(tsdb_dir)
    tsdb.mkdir(parents=True, exist_ok=True)
    text = openmetrics_text if openmetrics_text.endswith("\n") else openmetrics_text + "\n"
    if not text.rstrip().endswith("# EOF"):
        text += "# EOF\n"
    with tempfile.TemporaryDirectory(prefix="promkit-backfill-") as tmp:
        source = Path(tmp) / "series.om.txt"
        source.write_text(text)
        done = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", "-q",
                               str(source), str(tsdb)], capture_output=True, text=True,
                              timeout=120, env=_env())
    if done.returncode != 0:
        raise RuntimeError(f"promtool create-blocks-from failed ({done.returncode}): "
                           f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return tsdb


# --------------------------------------------------------------------------------------------
# processes


class _Started:
    """``with kit:`` starts it, and stops it on the way out, whatever happened inside."""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Server(_Started):
    """A server process on 127.0.0.1:port, started with a temporary folder, stopped by PID."""

    name = "server"
    ready_path = "/-/ready"

    def __init__(self, ready_timeout: float, stop_timeout: float) -> None:
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmp: Path | None = None
        self.log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _argv(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prepare(self) -> None:
        """Write the config into ``self.tmp`` (called once per start)."""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path and self.log_path.exists() else ""

    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"promkit-{self.name}-"))
        self.log_path = self.tmp / f"{self.name}.log"
        try:
            self._prepare()
            for attempt in range(3):  # the port may be taken between free_port() and the bind
                self.port = free_port()
                with open(self.log_path, "ab") as log:
                    self.proc = subprocess.Popen(self._argv(), stdin=subprocess.DEVNULL, stdout=log,
                                                 stderr=subprocess.STDOUT, cwd=self.tmp, env=_env())
                if self._wait_ready():
                    return
                in_use = "address already in use" in self.log()
                self._stop_process()
                if not in_use or attempt == 2:
                    raise RuntimeError(f"{self.name} did not become ready on {self.url}; "
                                       f"log:\n{self.log()[-3000:]}")
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> bool:
        assert self.proc is not None
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                status, _ = http("GET", self.url + self.ready_path, timeout=2)
                if status == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def _stop_process(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop the process (its own PID) and remove the temporary folder."""
        self._stop_process()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


def _write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


class Prometheus(_Server):
    """``prometheus`` on 127.0.0.1:PORT with a temporary config.

    - ``tsdb_dir``: the storage folder (e.g. made by :func:`backfill`; left in place on exit);
      by default a temporary one. Retention is ``retention`` (100y: otherwise blocks at fixed
      past dates older than 15 days are deleted as soon as the server starts).
    - ``scrape_targets``: ``host:port`` strings (or :class:`Exporter`s) scraped as job
      ``scrape_job`` every ``scrape_interval``.
    - ``rules``: rule groups as dicts (``{"name": ..., "rules": [...]}``) or YAML texts, written
      to temporary rule files; ``rule_files``: existing rule files.
    - ``alertmanager``: an :class:`Alertmanager`, a URL or ``host:port`` to send alerts to.
    - ``wait_discovered``: on start, also wait until the scrape targets and the Alertmanager are
      known to the server. Prometheus hands discovered targets over only every 5 s, so they are
      first scraped ~5 s after the start whatever ``scrape_interval`` says, and an alert that
      fires before the Alertmanager is known is dropped and sent again only after
      ``--rules.alert.resend-delay`` (1 min).
    """

    name = "prometheus"

    def __init__(self, *, tsdb_dir: str | Path | None = None,
                 scrape_targets: Sequence[str | Exporter] = (), scrape_job: str = "test",
                 scrape_interval: str = "1s", evaluation_interval: str = "1s",
                 rules: Sequence[Mapping[str, Any] | str] = (),
                 rule_files: Sequence[str | Path] = (),
                 alertmanager: Alertmanager | str | None = None,
                 retention: str = "100y", external_labels: Mapping[str, str] | None = None,
                 extra_args: Sequence[str] = (), wait_discovered: bool = True,
                 ready_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        super().__init__(ready_timeout, stop_timeout)
        self.wait_discovered = wait_discovered
        self.tsdb_dir = Path(tsdb_dir) if tsdb_dir is not None else None
        self.scrape_targets = [t.target if isinstance(t, Exporter) else t for t in scrape_targets]
        self.scrape_job = scrape_job
        self.scrape_interval = scrape_interval
        self.evaluation_interval = evaluation_interval
        self.rules = list(rules)
        self.rule_files = [str(p) for p in rule_files]
        self.alertmanager = alertmanager
        self.retention = retention
        self.external_labels = dict(external_labels or {})
        self.extra_args = list(extra_args)

    def _alertmanager_target(self) -> str | None:
        am = self.alertmanager
        if am is None:
            return None
        if isinstance(am, Alertmanager):
            return f"{HOST}:{am.port}"
        return urllib.parse.urlsplit(am).netloc if "://" in am else am

    def _prepare(self) -> None:
        assert self.tmp is not None
        files = list(self.rule_files)
        for i, group in enumerate(self.rules):
            path = self.tmp / f"rules-{i}.yml"
            if isinstance(group, str):
                path.write_text(group)
            else:
                _write_json(path, {"groups": [group]})
            files.append(str(path))
        config: dict[str, Any] = {
            "global": {"scrape_interval": self.scrape_interval, "scrape_timeout": self.scrape_interval,
                       "evaluation_interval": self.evaluation_interval},
            "rule_files": files,
            "scrape_configs": [],
        }
        if self.external_labels:
            config["global"]["external_labels"] = self.external_labels
        if self.scrape_targets:
            config["scrape_configs"].append({"job_name": self.scrape_job,
                                             "static_configs": [{"targets": self.scrape_targets}]})
        target = self._alertmanager_target()
        if target:
            config["alerting"] = {"alertmanagers": [{"api_version": "v2",
                                                     "static_configs": [{"targets": [target]}]}]}
        _write_json(self.tmp / "prometheus.yml", config)

    def _argv(self) -> list[str]:
        assert self.tmp is not None
        tsdb = self.tsdb_dir if self.tsdb_dir is not None else self.tmp / "tsdb"
        return ["prometheus", f"--config.file={self.tmp / 'prometheus.yml'}",
                f"--storage.tsdb.path={tsdb}", f"--storage.tsdb.retention.time={self.retention}",
                f"--web.listen-address={HOST}:{self.port}", *self.extra_args]

    def start(self) -> None:
        super().start()
        if not self.wait_discovered:
            return
        try:
            if self.scrape_targets:
                wanted = len(set(self.scrape_targets))
                wait_until(lambda: len(self.api("targets", state="active")["activeTargets"]) >= wanted,
                           self.ready_timeout, f"{self.name} to discover its scrape targets")
            if self._alertmanager_target():
                wait_until(lambda: self.api("alertmanagers")["activeAlertmanagers"],
                           self.ready_timeout, f"{self.name} to discover its Alertmanager")
        except BaseException:
            self.stop()
            raise

    # HTTP API --------------------------------------------------------------------------------

    def api(self, path: str, **params: Any) -> Any:
        """GET ``/api/v1/<path>``; the ``data`` of a success answer, else RuntimeError."""
        answer = get_json(f"{self.url}/api/v1/{path.lstrip('/')}", params)
        if answer.get("status") != "success":
            raise RuntimeError(f"Prometheus {path}: {answer}")
        return answer["data"]

    def query(self, expr: str, at: datetime | float | str | None = None) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"query": expr}
        if at is not None:
            params["time"] = _timestamp(at)
        return list(self.api("query", **params)["result"])

    def query_range(self, expr: str, start: datetime | float | str, end: datetime | float | str,
                    step: str | float = "60s") -> list[dict[str, Any]]:
        """The ``result`` matrix: ``[{"metric": {...}, "values": [[ts, "value"], ...]}]``."""
        return list(self.api("query_range", query=expr, start=_timestamp(start),
                             end=_timestamp(end), step=step)["result"])

    def alerts(self) -> list[dict[str, Any]]:
        return list(self.api("alerts")["alerts"])

    def targets_up(self) -> bool:
        active = self.api("targets", state="active")["activeTargets"]
        return bool(active) and all(t.get("health") == "up" for t in active)


class Alertmanager(_Server):
    """``prometheus-alertmanager`` routing every alert to one webhook receiver.

    ``webhook_url`` gets version-4 webhook payloads; ``bearer_token`` (``authorization:
    {type: Bearer, credentials: ...}``) or ``basic_auth=(user, password)`` set its
    ``http_config``. ``group_wait``/``group_interval``/``repeat_interval``/``resolve_timeout``
    are short by default so a test sees firing and resolved notifications within seconds.
    Clustering is off (``--cluster.listen-address=``): only the web port is bound.
    """

    name = "alertmanager"

    def __init__(self, webhook_url: str, *, bearer_token: str | None = None,
                 basic_auth: tuple[str, str] | None = None, group_by: Sequence[str] = ("alertname",),
                 group_wait: str = "1s", group_interval: str = "1s", repeat_interval: str = "1h",
                 resolve_timeout: str = "5m", send_resolved: bool = True, max_alerts: int = 0,
                 receiver_name: str = "webhook", extra_args: Sequence[str] = (),
                 ready_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        super().__init__(ready_timeout, stop_timeout)
        if bearer_token is not None and basic_auth is not None:
            raise ValueError("one of bearer_token or basic_auth, not both")
        self.webhook_url = webhook_url
        self.bearer_token = bearer_token
        self.basic_auth = basic_auth
        self.group_by = list(group_by)
        self.group_wait = group_wait
        self.group_interval = group_interval
        self.repeat_interval = repeat_interval
        self.resolve_timeout = resolve_timeout
        self.send_resolved = send_resolved
        self.max_alerts = max_alerts
        self.receiver_name = receiver_name
        self.extra_args = list(extra_args)

    def config(self) -> dict[str, Any]:
        webhook: dict[str, Any] = {"url": self.webhook_url, "send_resolved": self.send_resolved,
                                   "max_alerts": self.max_alerts}
        if self.bearer_token is not None:
            webhook["http_config"] = {"authorization": {"type": "Bearer",
                                                        "credentials": self.bearer_token}}
        elif self.basic_auth is not None:
            user, password = self.basic_auth
            webhook["http_config"] = {"basic_auth": {"username": user, "password": password}}
        return {
            "global": {"resolve_timeout": self.resolve_timeout},
            "route": {"receiver": self.receiver_name, "group_by": self.group_by,
                      "group_wait": self.group_wait, "group_interval": self.group_interval,
                      "repeat_interval": self.repeat_interval},
            "receivers": [{"name": self.receiver_name, "webhook_configs": [webhook]}],
        }

    def _prepare(self) -> None:
        assert self.tmp is not None
        _write_json(self.tmp / "alertmanager.yml", self.config())
        (self.tmp / "data").mkdir()

    def _argv(self) -> list[str]:
        assert self.tmp is not None
        return ["prometheus-alertmanager", f"--config.file={self.tmp / 'alertmanager.yml'}",
                f"--storage.path={self.tmp / 'data'}", f"--web.listen-address={HOST}:{self.port}",
                "--cluster.listen-address=", *self.extra_args]

    def alerts(self) -> list[dict[str, Any]]:
        """``GET /api/v2/alerts``."""
        return list(get_json(f"{self.url}/api/v2/alerts"))

    def post_alerts(self, alerts: Sequence[Mapping[str, Any]]) -> None:
        """``POST /api/v2/alerts`` (``[{"labels": {...}, "annotations": {...}, "startsAt": ...}]``):
        an alert straight into Alertmanager, without a Prometheus."""
        status, body = http("POST", f"{self.url}/api/v2/alerts", list(alerts))
        if status != 200:
            raise RuntimeError(f"Alertmanager POST /api/v2/alerts: HTTP {status}: {body[:500]!r}")


# --------------------------------------------------------------------------------------------
# in-process HTTP servers


class _Http(_Started):
    """A ThreadingHTTPServer on 127.0.0.1 in a daemon thread; a context manager."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._handler = handler
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def target(self) -> str:
        """``host:port`` (a Prometheus scrape target)."""
        return f"{HOST}:{self.port}"

    def start(self) -> None:
        server = ThreadingHTTPServer((HOST, 0), self._handler)
        server.daemon_threads = True
        server.kit = self  # type: ignore[attr-defined]
        self._server = server
        self.port = int(server.server_address[1])
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"{type(self).__name__}:{self.port}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        pass

    def _send(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _ExporterHandler(_Quiet):
    def do_GET(self) -> None:  # noqa: N802 - stdlib's name
        kit: Exporter = self.server.kit  # type: ignore[attr-defined]
        if urllib.parse.urlsplit(self.path).path != kit.path:
            self._send(404, b"not found\n")
            return
        body = kit.render().encode()
        with kit._lock:
            kit.scrapes += 1
        self._send(200, body, "text/plain; version=0.0.4; charset=utf-8")


class Exporter(_Http):
    """Serves Prometheus text at ``/metrics``; :meth:`set` changes a value at run time."""

    def __init__(self, path: str = "/metrics") -> None:
        super().__init__(_ExporterHandler)
        self.path = path
        self.scrapes = 0
        self._lock = threading.Lock()
        self._types: dict[str, str] = {}
        self._values: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}

    @property
    def url(self) -> str:
        return self.base_url + self.path

    def set(self, name: str, value: float, labels: Mapping[str, str] | None = None,
            metric_type: str = "gauge") -> None:
        """Set one series (``name`` with ``labels``) to ``value``."""
        key = tuple(sorted((labels or {}).items()))
        with self._lock:
            self._types.setdefault(name, metric_type)
            self._values.setdefault(name, {})[key] = float(value)

    def remove(self, name: str, labels: Mapping[str, str] | None = None) -> None:
        """Stop serving a series (or, without labels, every series of ``name``)."""
        with self._lock:
            if labels is None:
                self._values.pop(name, None)
                self._types.pop(name, None)
            else:
                self._values.get(name, {}).pop(tuple(sorted(labels.items())), None)

    def render(self) -> str:
        with self._lock:
            lines = []
            for name, series in self._values.items():
                lines.append(f"# TYPE {name} {self._types[name]}")
                for key, value in series.items():
                    lines.append(f"{name}{_labels(dict(key))} {_number(value)}")
        return "\n".join(lines) + "\n"

    def wait_scraped(self, count: int = 1, timeout: float = 15.0) -> None:
        """Wait until ``/metrics`` has been served ``count`` more times than now."""
        with self._lock:
            goal = self.scrapes + count
        wait_until(lambda: self.scrapes >= goal, timeout, f"{count} scrape(s) of {self.url}")


@dataclass
class Request:
    """One POST the :class:`Receiver` got."""

    path: str
    headers: dict[str, str]
    body: bytes
    json: Any
    status: int  # what the receiver answered (0: hung until the client gave up or the stop)
    at: float = field(default_factory=time.time)

    def header(self, name: str) -> str | None:
        """A header by case-insensitive name."""
        lowered = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lowered), None)


class _ReceiverHandler(_Quiet):
    def do_POST(self) -> None:  # noqa: N802 - stdlib's name
        kit: Receiver = self.server.kit  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        with kit._cond:
            kit._seen += 1
            n = kit._seen
        if n <= kit.hang_first:
            status = 0
        elif n <= kit.hang_first + kit.fail_first:
            status = kit.fail_status
        else:
            status = 200
        request = Request(urllib.parse.urlsplit(self.path).path, dict(self.headers.items()), body,
                          parsed, status)
        with kit._cond:
            kit.requests.append(request)
            kit._cond.notify_all()
        if status == 0:
            kit._stopping.wait(kit.hang_seconds)
            self.close_connection = True
            return
        self._send(status, b'{"status":"ok"}\n' if status == 200 else b'{"error":"told to fail"}\n',
                   "application/json")


class Receiver(_Http):
    """Records every POST (path, headers, JSON body) and answers 200.

    ``hang_first`` requests get no answer for ``hang_seconds`` (or until the stop), then the
    next ``fail_first`` get ``fail_status`` (500); every request is recorded in order, with the
    status it got (0 for a hung one). ``url`` is the base URL plus ``path``.
    """

    def __init__(self, path: str = "/webhook", *, fail_first: int = 0, fail_status: int = 500,
                 hang_first: int = 0, hang_seconds: float = 30.0) -> None:
        super().__init__(_ReceiverHandler)
        self.path = path
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.hang_first = hang_first
        self.hang_seconds = hang_seconds
        self.requests: list[Request] = []
        self._seen = 0
        self._cond = threading.Condition()
        self._stopping = threading.Event()

    @property
    def url(self) -> str:
        return self.base_url + self.path

    def stop(self) -> None:
        self._stopping.set()  # releases hung handlers
        super().stop()

    def wait_for(self, predicate: Callable[[Request], bool] = lambda r: True, timeout: float = 30.0,
                 what: str = "a matching POST") -> Request:
        """The first recorded request (answered or not) matching ``predicate``; waits for it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for request in self.requests:
                    if predicate(request):
                        return request
                left = deadline - time.monotonic()
                if left <= 0:
                    got = [(r.path, r.status, (r.json or {}).get("status") if isinstance(r.json, dict)
                            else None) for r in self.requests]
                    raise TimeoutError(f"timed out after {timeout}s waiting for {what}; got {got}")
                self._cond.wait(left)


def basic_auth_header(user: str, password: str) -> str:
    """The ``Authorization`` value a basic-auth client sends (to compare with a Request's)."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
