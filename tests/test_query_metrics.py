"""query_metrics on a real Prometheus: citable series, bounds, read-only, classified errors, re-check.

One Prometheus for the module, on a TSDB backfilled with ``promtool`` (the admin API enabled, so
a query that could reach it would show): ``http_errors`` of two jobs, one of which jumps at
10:40; 1000 ``bulk`` series whose combination with ``time()`` makes a 110 000-series answer.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
import tracemalloc
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import promkit
import pytest

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import EvidenceStatus, InvocationStatus, ToolRecord
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.tools.backends import Backends
from diagnosis_harness.tools.backends.prometheus import Prometheus
from diagnosis_harness.tools.boundary import execute_tool
from diagnosis_harness.tools.dataset.build import demo_dataset_dir, load_dataset
from diagnosis_harness.tools.recompute import recompute_problems
from diagnosis_harness.tools.registry import enabled_tools, metrics_description, tool_schemas

pytestmark = pytest.mark.slow
T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
WINDOW = {"start": "2026-11-03T10:30:00Z", "end": "2026-11-03T11:00:00Z"}
BULK = 1000


def _series() -> list[tuple[str, dict[str, str], list[tuple[datetime, float]]]]:
    times = [T0 + timedelta(seconds=15 * i) for i in range(4 * 60 + 1)]  # 10:00 .. 11:00
    checkout = [(t, 50.0 if t >= T0 + timedelta(minutes=40) else 1.0 + (i % 3) * 0.1)
                for i, t in enumerate(times)]
    cart = [(t, 2.0 + (i % 2) * 0.1) for i, t in enumerate(times)]
    bulk_times = [T0 + timedelta(minutes=m) for m in range(0, 61, 5)]
    bulk = [("bulk", {"i": str(i)}, [(t, i / BULK) for t in bulk_times]) for i in range(BULK)]
    # INC-1 of the demo (payment-service, 2026-11-02 10:00-10:10): its errors jump at 10:03.
    inc = datetime(2026, 11, 2, 9, 50, tzinfo=UTC)
    payment = [(inc + timedelta(seconds=15 * i),
                40.0 if i >= 4 * 13 else 1.0 + (i % 4) * 0.1) for i in range(4 * 20 + 1)]
    return [("http_errors", {"job": "checkout", "instance": "a"}, checkout),
            ("http_errors", {"job": "cart", "instance": "b"}, cart),
            ("payment_pool_waits", {"service": "payment-service"}, payment), *bulk]


@pytest.fixture(scope="module")
def prom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[promkit.Prometheus]:
    promkit.require_binaries("prometheus", "promtool")
    tsdb = promkit.backfill(promkit.openmetrics(_series()), tmp_path_factory.mktemp("tsdb"))
    with promkit.Prometheus(tsdb_dir=tsdb, extra_args=["--web.enable-admin-api"]) as server:
        yield server


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load_dataset(demo_dataset_dir(), tmp_path_factory.mktemp("demo") / "b").dest


def _settings(built: Any, url: str | None, **extra: Any) -> Settings:
    return Settings(data_dir=built, prometheus_url=url, **extra)


def _open(built: Any, url: str | None) -> Backends:
    """The built demo data, with the client HARNESS_PROMETHEUS_URL makes (as from_settings)."""
    b = Backends.open(built)
    if url:
        b.prometheus = Prometheus(url, timeout_s=_settings(built, url).prometheus_timeout_s)
    return b


@pytest.fixture
def backends(built: Any, prom: promkit.Prometheus) -> Iterator[Backends]:
    with _open(built, prom.url) as b:
        yield b


def _call(backends: Backends, settings: Settings, args: dict[str, Any],
          timeout_s: float | None = None) -> Any:
    return execute_tool("query_metrics", args, tool_call_id="c1", backends=backends,
                        budget=Budget(BudgetLimits.from_settings(settings)), settings=settings, ready_count=0,
                        timeout_s=timeout_s)


def test_a_range_query_gives_each_series_with_its_numbers_and_first_change(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = _settings(built, prom.url)
    out = _call(backends, settings, {"promql": "http_errors", **WINDOW})
    record = out.record
    assert record.evidence_status is EvidenceStatus.EVIDENCE_FOUND, out.observation
    overview, *series = record.facts
    assert overview.evidence_id == "E1.1" and overview.data["series"] == 2
    assert record.scope["baseline_start"] == "2026-11-03T10:00:00Z"
    by_job = {f.data["labels"]["job"]: f.data for f in series}
    checkout, cart = by_job["checkout"], by_job["cart"]
    # The jump at 10:40 is the first point out of the 10:00-10:30 baseline, found by the same
    # robust z-score rule as metric_shifts; the flat job has no change.
    assert checkout["first_out"] == "2026-11-03T10:40:00Z"
    assert checkout["shift"]["direction"] == "up" and checkout["max"] == 50.0
    assert checkout["first_at"] == "2026-11-03T10:30:00Z" and checkout["last"] == 50.0
    assert cart["first_out"] is None and cart["shift"] is None
    assert 1.9 < cart["min"] <= cart["max"] < 2.2
    assert checkout["series"] == 'http_errors{instance="a",job="checkout"}'
    assert len(checkout["values"]) <= 12 and checkout["values"][-1] == ["2026-11-03T11:00:00Z", 50.0]
    assert "10:40:00Z" in series[[f.data["labels"]["job"] for f in series].index("checkout")].text
    # The numbers re-compute from the live server (the release check) …
    assert recompute_problems([record], backends, settings) == []
    # … and a number edited into the record does not.
    forged = record.model_copy(deep=True)
    forged.facts[1].data["max"] = 5.0
    assert recompute_problems([forged], backends, settings)


def test_an_instant_query_and_a_query_that_matches_nothing(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = _settings(built, prom.url)
    out = _call(backends, settings, {"promql": 'http_errors{job="cart"} * 10',
                                     "time": "2026-11-03T10:45:00Z"})
    assert out.record.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    (series,) = out.record.facts[1:]
    assert series.data["points"] == 1 and 20 <= series.data["last"] <= 21
    assert out.record.scope["time"] == "2026-11-03T10:45:00Z"
    empty = _call(backends, settings, {"promql": 'http_errors{job="nope"}', **WINDOW})
    assert empty.record.invocation_status is InvocationStatus.READY
    assert empty.record.evidence_status is EvidenceStatus.NO_EVIDENCE


def test_a_110k_series_answer_comes_back_bounded_and_marked_truncated(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    # 1000 bulk series + time(): 1000 distinct values per step; 110 steps of 1 s → 110 000
    # series of one point each.
    expr = 'count_values("i", bulk + on() group_left() vector(time()))'
    span = {"start": "2026-11-03T10:30:00Z", "end": "2026-11-03T10:31:49Z", "step": "1s",
            "baseline_start": "2026-11-03T10:20:00Z", "baseline_end": "2026-11-03T10:20:01Z"}
    whole = urllib.request.urlopen(urllib.request.Request(
        f"{prom.url}/api/v1/query_range", method="POST", data=urllib.parse.urlencode({
            "query": expr, "start": datetime(2026, 11, 3, 10, 30, tzinfo=UTC).timestamp(),
            "end": datetime(2026, 11, 3, 10, 31, 49, tzinfo=UTC).timestamp(),
            "step": "1"}).encode()), timeout=60).read()
    assert len(json.loads(whole)["data"]["result"]) >= 100_000  # the query really is that big
    settings = _settings(built, prom.url)
    tracemalloc.start()
    began = time.monotonic()
    out = _call(backends, settings, {"promql": expr, **span})
    took = time.monotonic() - began
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    record = out.record
    assert record.evidence_status is EvidenceStatus.EVIDENCE_FOUND, out.observation
    assert record.truncated and record.facts[0].data["complete"] is False
    assert record.facts[0].data["stopped_at"] == "series"
    assert len(record.facts) <= 51
    assert "more than 50 series" in out.observation["note"]
    print(f"110k: answer {len(whole)} bytes, tool peak {peak} bytes, {took:.2f} s")
    assert peak < len(whole) / 4, (peak, len(whole))  # read the head of the answer, not all of it
    assert took < 10


def test_promql_cannot_reach_another_path_host_or_write(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = _settings(built, prom.url)
    before = prom.query("count(bulk)")
    hostile = ["up@evil.example.org:80/api/v1/admin/tsdb/delete_series?match[]=bulk",
               "bulk\r\nHost: 10.1.2.3\r\n\r\nPOST /api/v1/admin/tsdb/delete_series",
               "//10.1.2.3/api/v1/admin/tsdb/delete_series?match[]={__name__=~\".+\"}",
               "../admin/tsdb/delete_series?match[]=bulk#"]
    with _Recorder() as rec:
        rec_backends = _open(built, rec.url)
        try:
            for expr in hostile:
                _call(rec_backends, settings, {"promql": expr, **WINDOW})
                _call(rec_backends, settings, {"promql": expr})
        finally:
            rec_backends.close()
        for expr in hostile:  # and on the real server, whose admin API is on
            out = _call(backends, settings, {"promql": expr, **WINDOW})
            assert out.record.invocation_status is InvocationStatus.ERROR
            assert out.record.error.startswith("bad_promql")
    assert {(r["method"], r["path"]) for r in rec.requests} <= {
        ("POST", "/api/v1/query_range"), ("POST", "/api/v1/query")}
    assert len(rec.requests) == 2 * len(hostile)
    assert {r["host"] for r in rec.requests} == {rec.url.split("//")[1]}
    # The PromQL is the form body's "query", exactly as given: never part of the URL.
    assert sorted(r["form"]["query"][0] for r in rec.requests) == sorted(hostile * 2)
    assert prom.query("count(bulk)") == before  # nothing was deleted


def test_a_redirect_is_not_followed(built: Any) -> None:
    settings = _settings(built, None)
    with _Recorder() as elsewhere, _Recorder(redirect_to=None) as rec:
        rec.redirect_to = elsewhere.url
        with _open(built, rec.url) as b:
            out = _call(b, settings, {"promql": "up", **WINDOW})
    assert out.record.error.startswith("prometheus_redirect")
    assert elsewhere.requests == []


def test_errors_are_classified_records_never_tracebacks(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    settings = _settings(built, prom.url)
    bad = _call(backends, settings, {"promql": "sum(rate(http_errors[5m]", **WINDOW})
    assert bad.record.invocation_status is InvocationStatus.ERROR
    assert bad.observation["error"]["code"] == "bad_promql"
    assert "parse error" in bad.observation["error"]["message"]
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with _open(built, f"http://127.0.0.1:{port}") as b:
        down = _call(b, settings, {"promql": "up", **WINDOW})
    assert down.observation["error"]["code"] == "prometheus_unreachable"
    with _Recorder(hang=True) as hung, _open(built, hung.url) as b:
        began = time.monotonic()
        slow = _call(b, settings, {"promql": "up", **WINDOW}, timeout_s=0.5)
        assert time.monotonic() - began < 3  # the run's remaining time bounds the request
    assert slow.observation["error"]["code"] == "timeout"
    assert _call(backends, settings, {"promql": "up", "start": WINDOW["start"]}) \
        .observation["error"]["code"] == "invalid_input"


def test_the_tool_exists_only_where_prometheus_is_configured(
        built: Any, backends: Backends) -> None:
    with _open(built, None) as plain:
        assert "query_metrics" not in enabled_tools(plain)
        assert metrics_description(plain) is None
        off = _call(plain, _settings(built, None), {"promql": "up", **WINDOW})
        assert off.observation["error"]["code"] == "unknown_tool"
    names = [s["function"]["name"] for s in tool_schemas()]
    assert "query_metrics" not in names
    hint = metrics_description(backends)
    # Backfilled (never scraped): the names, without types.
    assert hint == "\n\nMetrics on this Prometheus: bulk, http_errors, payment_pool_waits."
    spec = next(s["function"] for s in tool_schemas(metrics=hint)
                if s["function"]["name"] == "query_metrics")
    assert spec["description"].endswith(hint) and "query_metrics" in enabled_tools(backends)
    assert set(spec["parameters"]["required"]) == {"promql"}


def test_a_bad_url_is_a_settings_error(built: Any) -> None:
    with pytest.raises(ValueError, match="HARNESS_PROMETHEUS_URL"):
        _settings(built, "file:///etc/passwd")
    with pytest.raises(ValueError, match="HARNESS_PROMETHEUS_URL"):
        _settings(built, "http://127.0.0.1:9090/?x=1")


def test_the_offline_investigator_reads_the_services_metrics_and_release_re_checks_them(
        prom: promkit.Prometheus, monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    from graphkit import INC

    from diagnosis_harness.cli.main import main
    from diagnosis_harness.runstore.store import RunStore

    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HARNESS_PROMETHEUS_URL", prom.url)
    with pytest.raises(SystemExit) as exit_:
        main(["diagnose", INC["question"], "--json"])
    out = json.loads(capsys.readouterr().out)
    assert (exit_.value.code, out["release_outcome"]) == (0, "SUCCESS")
    trace = RunStore(tmp_path / "home" / "runs.sqlite").trace(out["run_id"])
    metrics = [ToolRecord.model_validate(r) for r in trace["tool_records"]
               if r["tool"] == "query_metrics"]
    assert len(metrics) == 1 and metrics[0].evidence_status is EvidenceStatus.EVIDENCE_FOUND
    assert metrics[0].args["promql"] == '{__name__=~"payment_pool_waits"}'
    (series,) = metrics[0].facts[1:]
    assert series.data["labels"]["service"] == "payment-service"
    assert series.data["first_out"] == "2026-11-02T10:03:00Z"  # the jump, found by its baseline
    # The conclusion is the one the logs and the config change support (no rule rests on a
    # metric alone); the metric read did not change it.
    assert "pool" in out["root_cause"].lower()


class _Recorder:
    """A local HTTP server that records requests; can redirect or hang instead of answering."""

    def __init__(self, *, redirect_to: str | None = None, hang: bool = False) -> None:
        self.requests: list[dict[str, Any]] = []
        self.redirect_to = redirect_to
        self.hang = hang
        self._release = threading.Event()
        kit = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                parts = urllib.parse.urlsplit(self.path)
                kit.requests.append({"method": self.command, "path": parts.path,
                                     "host": self.headers.get("Host"),
                                     "auth": self.headers.get("Authorization"),
                                     "form": urllib.parse.parse_qs(body)})
                if kit.hang:
                    kit._release.wait(10)
                    return
                if kit.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", kit.redirect_to + "/api/v1/query_range")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                                 "result": []}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _any  # noqa: N815 — stdlib's names

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> _Recorder:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()


def test_harness_config_shows_the_url_with_its_password_masked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from diagnosis_harness.cli.main import main

    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HARNESS_PROMETHEUS_URL", "http://reader:pr0m-s3cret-pw@127.0.0.1:9090/")
    monkeypatch.setenv("HARNESS_PROMETHEUS_TIMEOUT_S", "3")
    with pytest.raises(SystemExit) as exit_:
        main(["config"])
    out = capsys.readouterr().out
    assert exit_.value.code in (0, None)
    shown = json.loads(out)
    assert shown["prometheus_url"] == "http://reader:***@127.0.0.1:9090"
    assert shown["prometheus_timeout_s"] == 3.0 and "pr0m-s3cret-pw" not in out


def test_credentials_in_the_url_are_sent_as_basic_auth_never_in_the_request_line(
        built: Any) -> None:
    with _Recorder() as rec:
        url = rec.url.replace("http://", "http://reader:pw%40x@")
        with _open(built, url) as b:
            out = _call(b, _settings(built, url), {"promql": "up", **WINDOW})
            assert "pw" not in b.prometheus.url  # type: ignore[union-attr]
    assert out.record.invocation_status is InvocationStatus.READY
    (request,) = rec.requests
    assert request["auth"] == "Basic " + base64.b64encode(b"reader:pw@x").decode()


def test_the_advertised_list_is_bounded_and_says_when_it_cannot_be_read(
        built: Any, prom: promkit.Prometheus) -> None:
    from diagnosis_harness.providers.offline.investigation import metric_names
    from diagnosis_harness.tools.query_metrics import metrics_hint

    hint = metrics_hint(Prometheus(prom.url), limit=1)
    assert hint == "\n\nMetrics on this Prometheus: bulk (+2 more)."
    spec = {"function": {"name": "query_metrics", "description": "Run PromQL." + hint}}
    assert metric_names([spec]) == ["bulk"]  # what the offline investigator reads back
    assert metric_names([]) is None  # no such tool: no metrics step
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with _open(built, f"http://127.0.0.1:{port}") as b:
        down = metrics_description(b)
    assert down is not None and "could not be read" in down and "unreachable" in down


def test_a_baseline_ending_at_the_window_start_is_accepted_as_the_default_one(
        backends: Backends, built: Any, prom: promkit.Prometheus) -> None:
    # Issue 40: it was refused ("must be a window that ends before start"), the call still spent.
    settings = _settings(built, prom.url)
    touching = _call(backends, settings, {"promql": "http_errors", **WINDOW,
                                          "baseline_start": "2026-11-03T10:00:00Z",
                                          "baseline_end": WINDOW["start"]}).record
    assert touching.invocation_status is InvocationStatus.READY, touching.error
    assert touching.scope["baseline_end"] == "2026-11-03T10:29:59.999Z"
    default = _call(backends, settings, {"promql": "http_errors", **WINDOW}).record
    assert [f.data for f in touching.facts] == [f.data for f in default.facts]
