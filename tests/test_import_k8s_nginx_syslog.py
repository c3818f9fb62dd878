"""``harness data import`` of formats that had to be converted by hand (issue 25, item 7):
``kubectl get events -o json``, ``kubectl logs --timestamps``, nginx access logs behind proxies,
nginx error logs with multi-line output, and syslog tags old sysklogd or postfix write. Each is
detected and imported directly; the samples are hand-written in those shapes."""

from __future__ import annotations

import json
from pathlib import Path

from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources

SHAPES = Path(__file__).resolve().parent / "data" / "import-shapes"


def imported(tmp_path: Path, name: str, text: str, **options):
    source = tmp_path / "src" / name
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text, encoding="utf-8")
    into = tmp_path / "dataset"
    report = import_sources([source], into, ImportOptions(**options))
    events = [json.loads(line) for line in (into / "logs.jsonl").open(encoding="utf-8")]
    return report.sources[0], events


def _event(name, kind, reason, message, ts, type_="Warning", count=1, **extra):
    return {"apiVersion": "v1", "kind": "Event", "count": count, "eventTime": None,
            "firstTimestamp": "2026-03-14T09:40:00Z", "lastTimestamp": ts,
            "involvedObject": {"apiVersion": "v1", "kind": kind, "name": name,
                               "namespace": "shop-prod", **extra.pop("about", {})},
            "message": message, "reason": reason, "type": type_,
            "metadata": {"name": f"{name}.17c9a", "namespace": "shop-prod", **extra},
            "source": {"component": "kubelet", "host": "ip-10-0-3-17"}}


def test_kubectl_get_events_json_list(tmp_path):
    events_list = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                   "items": [
        _event("checkout-api-7d9f8b6c5-x2kqp", "Pod", "BackOff",
               "Back-off restarting failed container checkout-api in pod "
               "checkout-api-7d9f8b6c5-x2kqp_shop-prod", "2026-03-14T09:51:40Z", count=7,
               about={"fieldPath": "spec.containers{checkout-api}"}),
        _event("checkout-api-7d9f8b6c5", "ReplicaSet", "SuccessfulCreate",
               "Created pod: checkout-api-7d9f8b6c5-x2kqp", "2026-03-14T09:49:02Z", "Normal"),
        _event("payments-0", "Pod", "Unhealthy", "Readiness probe failed: HTTP probe failed "
               "with statuscode: 503", "2026-03-14T09:52:10Z", labels={"app": "payments-api"}),
        {**_event("ip-10-0-3-17", "Node", "NodeHasDiskPressure", "Node ip-10-0-3-17 status is "
                  "now: NodeHasDiskPressure", None), "eventTime": "2026-03-14T09:50:01.532817Z"},
    ]}
    source, events = imported(tmp_path, "events.json", json.dumps(events_list, indent=4) + "\n")
    assert source.format == "k8s-events"
    backoff, created, probe, node = events
    assert backoff["ts"] == "2026-03-14T09:51:40Z"  # lastTimestamp, not firstTimestamp
    assert backoff["service"] == "checkout-api"  # the pod's hashes removed
    assert backoff["level"] == "WARN" and backoff["message"].startswith("BackOff: Back-off")
    assert backoff["attrs"].items() >= {"reason": "BackOff", "count": 7, "object_kind": "Pod",
                                     "object_name": "checkout-api-7d9f8b6c5-x2kqp",
                                     "pod": "checkout-api-7d9f8b6c5-x2kqp", "namespace": "shop-prod",
                                     "container": "checkout-api", "component": "kubelet"}.items()
    assert created["service"] == "checkout-api" and created["level"] == "INFO"
    assert created["attrs"]["level_original"] == "Normal"
    assert probe["service"] == "payments-api"  # the app label wins over the object's name
    assert node["ts"] == "2026-03-14T09:50:01.532Z" and node["attrs"]["node"] == "ip-10-0-3-17"
    assert "service from the event's app label" in "\n".join(source.notes)


def test_kubectl_get_events_one_json_object_per_line(tmp_path):
    line = _event("cart-svc-6b8d7f9c4d-q7z2m", "Pod", "OOMKilling", "Memory cgroup out of memory",
                  "2026-03-14T09:53:00Z")
    source, events = imported(tmp_path, "events.jsonl", json.dumps(line) + "\n")
    assert source.format == "k8s-events" and events[0]["service"] == "cart-svc"


def test_kubectl_logs_timestamps_of_json_lines_keep_their_level_and_message(tmp_path):
    text = "".join(
        f"2026-03-14T09:50:{s}Z " + json.dumps({"level": lvl, "ts": 1773481800.1, "msg": msg,
                                               "logger": "pool"}) + "\n"
        for s, lvl, msg in (("12.123456789", "info", "pool warmed"),
                            ("13.5", "error", "upstream payments-api:8443 refused connection")))
    source, events = imported(tmp_path, "checkout-api.log", text)
    assert source.format == "kubectl"
    assert [e["ts"] for e in events] == ["2026-03-14T09:50:12.123Z", "2026-03-14T09:50:13.500Z"]
    assert events[1]["level"] == "ERROR"
    assert events[1]["message"] == "upstream payments-api:8443 refused connection"
    assert events[1]["attrs"]["logger"] == "pool"
    assert any("kubectl --timestamps prefix" in n for n in source.notes)


def test_kubectl_logs_timestamps_of_a_java_log_join_its_stack_trace(tmp_path):
    text = """\
2026-03-14T09:52:01.004512337Z 2026-03-14 09:52:01,004 ERROR [pool-3] c.s.Checkout - charge failed
2026-03-14T09:52:01.004598112Z java.net.ConnectException: Connection refused
2026-03-14T09:52:01.004601876Z \tat java.base/sun.nio.ch.Net.connect0(Native Method)
2026-03-14T09:52:02.250000000Z 2026-03-14 09:52:02,250 INFO  [main] c.s.Checkout - request served
"""
    source, events = imported(tmp_path, "checkout-api.log", text)
    assert source.format == "kubectl" and len(events) == 2
    first = events[0]
    assert first["ts"] == "2026-03-14T09:52:01.004Z" and first["level"] == "ERROR"
    assert first["message"].startswith("charge failed\njava.net.ConnectException")
    assert "Net.connect0" in first["message"] and first["attrs"]["logger"] == "c.s.Checkout"
    assert first["attrs"]["logged_at"] == "2026-03-14 09:52:01,004"


def test_kubectl_logs_of_plain_lines_with_the_format_named(tmp_path):
    text = ("2026-03-14T09:50:12.1Z Listening on :8080\n"
            "2026-03-14T09:50:14.000000001Z WARN cache miss ratio 0.82\n")
    source, events = imported(tmp_path, "cart-svc.log", text, format="kubectl")
    assert source.format == "kubectl"
    assert [(e["ts"], e["level"]) for e in events] == [("2026-03-14T09:50:12.100Z", "INFO"),
                                                       ("2026-03-14T09:50:14Z", "WARN")]


def test_nginx_access_logs_behind_proxies(tmp_path):
    text = (SHAPES / "nginx-proxy-access.log").read_text(encoding="utf-8")
    source, events = imported(tmp_path, "access.log", text)
    assert source.format == "access" and source.stats.bad_lines == 0 and len(events) == 4
    xff, timed, first_field, ingress = (e["attrs"] for e in events)
    assert xff["forwarded_for"] == "203.0.113.7, 10.0.0.2" and xff["client"] == "10.0.0.2"
    assert timed["forwarded_for"] == "198.51.100.23"
    assert (timed["rt"], timed["urt"], timed["uct"]) == ("0.532", "0.531", "0.000")
    assert first_field["forwarded_for"] == "203.0.113.9, 10.0.0.3"
    assert first_field["client"] == "203.0.113.9"
    assert ingress["upstream_name"] == "shop-prod-checkout-api-8080"
    assert ingress["request_time"] == "5.001"
    assert ingress["upstream_addr"] == "10.0.3.17:8080, 10.0.3.18:8080"
    assert ingress["upstream_response_time"] == "5.000, 0.001"
    assert ingress["upstream_status"] == "504, 504" and events[3]["level"] == "ERROR"


def test_nginx_error_log_with_multi_line_backend_output(tmp_path):
    text = (SHAPES / "nginx-php-error.log").read_text(encoding="utf-8")
    source, events = imported(tmp_path, "error.log", text)
    assert source.format == "nginx-error" and len(events) == 3
    php = events[1]
    assert php["message"].startswith('FastCGI sent in stderr: "PHP message: PHP Fatal error:')
    assert php["attrs"]["connection"] == 4522
    assert "#1 {main}" in php["message"] and "thrown in" in php["message"]
    assert php["attrs"]["client"] == "10.0.0.4" and php["attrs"]["request"] == "POST /checkout HTTP/1.1"
    assert events[0]["attrs"]["upstream"] == "http://10.0.3.17:8080/api/cart"
    assert source.stats.joined_lines == 4


def test_syslog_tags_with_a_version_a_slash_or_dots_and_untagged_lines(tmp_path):
    text = """\
Mar 14 09:50:12 web-01 syslogd 1.4.1: restart.
Mar 14 09:50:13 web-01 postfix/smtpd[2231]: connect from unknown[203.0.113.9]
Mar 14 09:50:14 web-01 org.gnome.Shell.desktop[1877]: Window manager warning: stack overflow
Mar 14 09:50:15 web-01 kernel: Out of memory: Killed process 4412 (java)
Mar 14 09:50:16 web-01 last message repeated 3 times
Mar 14 10:10:12 web-01 -- MARK --
"""
    source, events = imported(tmp_path, "messages", text, service="web-01", year=2026)
    assert source.format == "syslog" and source.stats.bad_lines == 0 and len(events) == 6
    assert [e["service"] for e in events] == ["syslogd", "postfix/smtpd", "org.gnome.shell.desktop",
                                              "kernel", "web-01", "web-01"]
    assert events[0]["message"] == "restart." and events[0]["attrs"]["version"] == "1.4.1"
    assert events[1]["attrs"]["pid"] == 2231
    assert events[4]["message"] == "last message repeated 3 times"
    assert "2 event(s) name no service: 'web-01', from --service" in "\n".join(source.notes)
