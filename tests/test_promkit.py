"""The test kits for real Prometheus, Alertmanager and a headless Chromium (promkit, browserkit).

Skipped, naming ``scripts/ci-os-packages.sh``, where the Debian packages are not installed.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta

import browserkit
import promkit
import pytest

T0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


def test_exporter_serves_values_the_test_changes_and_receiver_fails_or_hangs_as_told() -> None:
    with promkit.Exporter() as exporter:
        exporter.set("queue_depth", 3, {"queue": 'a"b'})
        status, body = promkit.http("GET", exporter.url)
        assert (status, body.decode()) == (200, '# TYPE queue_depth gauge\nqueue_depth{queue="a\\"b"} 3\n')
        exporter.set("queue_depth", 0.5, {"queue": 'a"b'})
        assert promkit.http("GET", exporter.url)[1].decode().endswith("} 0.5\n")
        assert exporter.scrapes == 2

    with promkit.Receiver(hang_first=1, hang_seconds=5, fail_first=1) as receiver:
        with pytest.raises(OSError):  # hung: no answer within the client's timeout
            promkit.http("POST", receiver.url, {"n": 1}, timeout=0.3)
        assert promkit.http("POST", receiver.url, {"n": 2})[0] == 500
        assert promkit.http("POST", receiver.base_url + "/other", {"n": 3},
                            headers={"X-Token": "t"})[0] == 200
        assert [(r.path, r.status, r.json) for r in receiver.requests] == [
            ("/webhook", 0, {"n": 1}), ("/webhook", 500, {"n": 2}), ("/other", 200, {"n": 3})]
        assert receiver.requests[2].header("x-token") == "t"


@pytest.mark.slow
def test_backfilled_series_at_fixed_past_dates_come_back_from_query_range(tmp_path) -> None:
    promkit.require_binaries("prometheus", "promtool")
    points = [(T0 + timedelta(minutes=m), float(m * 2)) for m in range(31)]  # 10:00..10:30
    text = promkit.openmetrics([
        ("checkout_errors", {"service": "checkout", "region": "eu"}, points),
        ("checkout_errors", {"service": "checkout", "region": "us"}, [(t, 7.0) for t, _ in points]),
    ])
    promkit.backfill(text, tmp_path / "tsdb")

    with promkit.Prometheus(tsdb_dir=tmp_path / "tsdb") as prom:
        result = prom.query_range('checkout_errors{region="eu"}', T0, T0 + timedelta(minutes=30), "60s")
        assert len(result) == 1
        assert result[0]["metric"] == {"__name__": "checkout_errors", "service": "checkout",
                                       "region": "eu"}
        values = result[0]["values"]
        assert [ts for ts, _ in values] == [T0.timestamp() + 60 * m for m in range(31)]
        assert [float(v) for _, v in values] == [float(m * 2) for m in range(31)]

        at_1015 = prom.query("sum(checkout_errors)", at=T0 + timedelta(minutes=15))
        assert float(at_1015[0]["value"][1]) == 30.0 + 7.0


@pytest.mark.slow
def test_alert_fires_and_resolves_through_alertmanager_to_the_webhook(tmp_path) -> None:
    promkit.require_binaries("prometheus", "prometheus-alertmanager")
    rule = {"name": "test", "rules": [{
        "alert": "CheckoutErrors", "expr": "checkout_errors > 0", "for": "0s",
        "labels": {"severity": "page"},
        "annotations": {"summary": "checkout errors at {{ $value }}"},
    }]}
    with promkit.Exporter() as exporter, promkit.Receiver("/alerts") as receiver, \
         promkit.Alertmanager(receiver.url, bearer_token="s3cret", resolve_timeout="10s") as am, \
         promkit.Prometheus(scrape_targets=[exporter], rules=[rule], alertmanager=am) as prom:
        exporter.set("checkout_errors", 0, {"service": "checkout"})
        promkit.wait_until(prom.targets_up, 15, "the exporter scraped up")
        assert receiver.requests == []

        exporter.set("checkout_errors", 5, {"service": "checkout"})
        firing = receiver.wait_for(lambda r: r.json.get("status") == "firing", 30, "a firing webhook")
        body = firing.json
        assert firing.path == "/alerts"
        assert firing.header("Authorization") == "Bearer s3cret"
        assert body["version"] == "4"
        assert body["groupKey"] == '{}:{alertname="CheckoutErrors"}'
        assert body["receiver"] == "webhook"
        alert = body["alerts"][0]
        assert alert["status"] == "firing"
        assert alert["labels"] == {"alertname": "CheckoutErrors", "severity": "page",
                                   "service": "checkout", "job": "test",
                                   "instance": exporter.target}
        assert alert["annotations"] == {"summary": "checkout errors at 5"}
        assert datetime.fromisoformat(alert["startsAt"].replace("Z", "+00:00")) > T0
        assert alert["endsAt"].startswith("0001-01-01")
        assert len(alert["fingerprint"]) == 16

        exporter.set("checkout_errors", 0, {"service": "checkout"})
        resolved = receiver.wait_for(lambda r: r.json.get("status") == "resolved", 30,
                                     "a resolved webhook")
        assert resolved.header("Authorization") == "Bearer s3cret"
        assert resolved.json["groupKey"] == body["groupKey"]
        assert resolved.json["alerts"][0]["fingerprint"] == alert["fingerprint"]
        assert resolved.json["alerts"][0]["status"] == "resolved"
        assert not resolved.json["alerts"][0]["endsAt"].startswith("0001-01-01")


@pytest.mark.slow
def test_alertmanager_retries_a_failing_receiver_with_basic_auth() -> None:
    promkit.require_binaries("prometheus-alertmanager")
    with promkit.Receiver(fail_first=1) as receiver, \
         promkit.Alertmanager(receiver.url, basic_auth=("am", "pw")) as am:
        am.post_alerts([{"labels": {"alertname": "Direct", "service": "cart"},
                         "annotations": {"summary": "posted straight to Alertmanager"}}])
        ok = receiver.wait_for(lambda r: r.status == 200, 30, "a delivered webhook after a 500")
        assert receiver.requests[0].status == 500
        assert ok.header("Authorization") == promkit.basic_auth_header("am", "pw")
        assert ok.json["alerts"][0]["labels"] == {"alertname": "Direct", "service": "cart"}
        assert [a["labels"]["alertname"] for a in am.alerts()] == ["Direct"]


@pytest.mark.slow
def test_chromium_screenshots_and_dumps_a_local_page(tmp_path) -> None:
    browserkit.require_chromium()
    page = tmp_path / "report.html"
    page.write_text("<!doctype html><html><head><meta charset='utf-8'><title>Report</title></head>"
                    "<body><h1>Incident report</h1><p id='cause'></p>"
                    "<script>document.getElementById('cause').textContent = 'root cause: disk full'"
                    "</script></body></html>")

    png = browserkit.screenshot(page, tmp_path / "report.png", 640, 480)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (640, 480)

    dom = browserkit.dump_dom(page)
    assert "<h1>Incident report</h1>" in dom
    assert "root cause: disk full</p>" in dom  # written by the page's script
