"""``harness data import`` on realistic exports (tests/data/import): every format detected and
converted, levels mapped with the original kept, times in UTC with the assumption stated, and
unreadable input refused with its file and line."""

from __future__ import annotations

import gzip
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.importer import ImportOptions, import_sources

DATA = Path(__file__).resolve().parent / "data" / "import"
PATTERN_LOG = Path(__file__).resolve().parent / "data" / "import-pattern" / "billing-legacy.txt"


def imported(tmp_path: Path, *sources: Path, **options):
    into = tmp_path / "dataset"
    report = import_sources(list(sources), into, ImportOptions(**options))
    events = [json.loads(line) for line in (into / "logs.jsonl").open(encoding="utf-8")]
    return report, events


def notes_of(report) -> str:
    return "\n".join(n for s in report.sources for n in s.notes)


def test_ecs_export_keeps_kubernetes_attributes_and_maps_levels(tmp_path):
    report, events = imported(tmp_path, DATA / "checkout-api-ecs.ndjson")
    assert report.sources[0].format == "ecs"
    assert len(events) == sum(1 for _ in (DATA / "checkout-api-ecs.ndjson").open())
    assert {e["service"] for e in events} == {"checkout-api"}
    assert Counter(e["level"] for e in events) == {"INFO": 43, "ERROR": 20, "WARN": 2}
    error = next(e for e in events if e["level"] == "ERROR")
    assert error["ts"] == "2026-03-14T09:51:02Z"
    assert error["message"].startswith("upstream request to inventory-svc timed out after 3000 ms")
    attrs = error["attrs"]
    assert attrs["pod"].startswith("checkout-api-7d9f8b6c5-")
    assert attrs["namespace"] == "shop-prod"
    assert attrs["host"] == "ip-10-0-3-17" and len(attrs["trace_id"]) == 32
    assert attrs["error.type"] == "java.util.concurrent.TimeoutException"
    assert not any(k.startswith(("data_stream.", "agent.", "_")) for e in events for k in e["attrs"])


def test_loki_export_with_a_bom_reads_labels_and_logfmt_lines(tmp_path):
    assert (DATA / "loki-inventory.jsonl").read_bytes().startswith(b"\xef\xbb\xbf")
    report, events = imported(tmp_path, DATA / "loki-inventory.jsonl")
    assert report.sources[0].format == "loki"
    assert {e["service"] for e in events} == {"inventory-svc"}
    slow = next(e for e in events if e["level"] == "WARN")
    assert slow["message"] == "slow reservation query"
    assert slow["attrs"]["pod"] == "inventory-svc-5c7d9f-qz7lp"
    assert slow["attrs"]["table"] == "stock" and "duration_ms" in slow["attrs"]
    notice = next(e for e in events if e["attrs"].get("level_original") == "notice")
    assert notice["level"] == "INFO"  # an unknown-to-us level is mapped, never a rejection
    assert "level 'notice' → INFO in 1 event(s)" in notes_of(report)


def test_opentelemetry_collector_export(tmp_path):
    report, events = imported(tmp_path, DATA / "otel-payment.json")
    assert report.sources[0].format == "otel"
    assert len(events) == 39 and {e["service"] for e in events} == {"payment-svc"}
    warn = next(e for e in events if e["level"] == "WARN")
    assert warn["message"] == "acquirer responded slowly: 2210 ms"
    assert warn["attrs"]["pod"] == "payment-svc-6f7c8d-9tkpr"
    assert warn["attrs"]["merchant.id"] in {"M-204", "M-311", "M-550"}
    assert len(warn["attrs"]["trace_id"]) == 32 and "severityNumber" not in warn["attrs"]
    assert events[0]["ts"] == "2026-03-14T09:45:07Z"  # from timeUnixNano (nanoseconds)


def test_zap_with_epoch_times(tmp_path):
    report, events = imported(tmp_path, DATA / "cart-svc.log")
    assert report.sources[0].format == "json"
    first = json.loads((DATA / "cart-svc.log").open().readline())
    assert isinstance(first["ts"], float)
    assert events[0]["ts"] == "2026-03-14T09:42:11.250Z"
    assert {e["service"] for e in events} == {"cart-svc"}  # from the file name, and said so
    assert "name no service: 'cart-svc', from the file name" in notes_of(report)
    failed = next(e for e in events if e["level"] == "ERROR")
    assert "context deadline exceeded" in failed["attrs"]["error"]
    assert failed["attrs"]["stack_trace"].startswith("shop/cart/checkout.(*Client).Submit")
    assert next(e for e in events if e["attrs"].get("level_original") == "dpanic")["level"] == "FATAL"


def test_syslog_nginx_and_a_java_stack_trace(tmp_path):
    report, events = imported(tmp_path, DATA / "syslog", DATA / "nginx", DATA / "checkout-worker.log",
                              year=2026)
    formats = {s.path.name: s.format for s in report.sources}
    assert formats == {"syslog": "syslog", "access.log": "access", "error.log": "nginx-error",
                       "checkout-worker.log": "text"}
    by_service = Counter(e["service"] for e in events)
    assert by_service["kubelet"] == 3 and by_service["nginx"] == 14
    containerd = [e for e in events if e["service"] == "containerd"]
    assert [e["level"] for e in containerd] == ["INFO", "ERROR"]  # <29> notice, <27> err
    assert containerd[1]["attrs"]["level_original"] == "err"
    assert "8 time(s) without a year read as 2026" in notes_of(report)
    gateway = [e for e in events if e["service"] == "nginx" and "status" in e["attrs"]]
    assert Counter(e["level"] for e in gateway) == {"ERROR": 4, "INFO": 4, "WARN": 1}
    assert gateway[2]["message"] == "POST /api/checkout HTTP/1.1 502 157 3.004"
    assert gateway[2]["attrs"]["client"] == "10.0.1.23"
    upstream = next(e for e in events if "upstream timed out" in e["message"])
    assert upstream["attrs"]["upstream"] == "http://10.0.7.41:8080/api/checkout"
    worker = [e for e in events if e["service"] == "checkout-worker"]
    assert len(worker) == 6  # 20 lines, the stack traces joined to the line that logged them
    failed = next(e for e in worker if e["level"] == "ERROR")
    lines = failed["message"].splitlines()
    assert lines[0] == "Finalizing order o-99121 failed"
    assert lines[1] == "java.lang.IllegalStateException: http client pool exhausted (max_connections=4)"
    assert any(ln.startswith("Caused by: java.util.concurrent.TimeoutException") for ln in lines)
    assert failed["attrs"] == {"thread": "nio-8080-exec-7",
                               "logger": "c.s.checkout.worker.OrderFinalizer"}
    assert "continuation line(s) (stack traces) joined" in notes_of(report)


def test_gzip_reads_exactly_like_the_plain_file(tmp_path):
    packed = tmp_path / "src" / "checkout-api-ecs.ndjson.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress((DATA / "checkout-api-ecs.ndjson").read_bytes()))
    _, plain = imported(tmp_path / "a", DATA / "checkout-api-ecs.ndjson")
    report, unpacked = imported(tmp_path / "b", packed)
    assert report.sources[0].format == "ecs"
    assert unpacked == plain


def test_a_user_pattern_with_day_first_dates(tmp_path):
    pattern = (r"(?P<ts>\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}) \| (?P<level>\w+) \| "
               r"(?P<service>[\w-]+) \| (?P<message>.*)")
    report, events = imported(tmp_path, PATTERN_LOG, pattern=pattern, timezone="Europe/Berlin")
    assert [(e["ts"], e["level"], e["service"]) for e in events] == [
        ("2026-03-14T08:45:00Z", "INFO", "billing-legacy"),
        ("2026-03-14T08:51:12Z", "WARN", "billing-legacy"),
        ("2026-03-14T08:59:40Z", "ERROR", "billing-legacy")]
    assert events[2]["message"] == "invoice export batch B-3312 timed out after 600 s"
    notes = notes_of(report)
    assert "3 time(s) without a zone read as Europe/Berlin" in notes and "day-first" in notes


def test_ambiguous_dates_are_refused_unless_the_order_is_given(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("03/04/2026 10:00:01 ERROR disk full\n05/04/2026 10:00:02 INFO recovered\n")
    with pytest.raises(DatasetError, match="could be day-first or month-first"):
        imported(tmp_path / "a", log)
    _, events = imported(tmp_path / "b", log, dayfirst=True)
    assert [e["ts"] for e in events] == ["2026-04-03T10:00:01Z", "2026-04-05T10:00:02Z"]
    # A later unambiguous date settles the order for the whole file, earlier lines included.
    log.write_text(log.read_text() + "14/04/2026 10:00:03 INFO later\n")
    _, events = imported(tmp_path / "c", log)
    assert events[0]["ts"] == "2026-04-03T10:00:01Z"


def test_unreadable_lines_fail_with_file_and_line_unless_skipped(tmp_path):
    src = tmp_path / "zap.log"
    good = (DATA / "cart-svc.log").read_text().splitlines()
    src.write_text("\n".join([good[0], '{"level": "info", "msg": "no time at all"}', good[1],
                              "{broken json", good[2]]) + "\n")
    with pytest.raises(DatasetError) as caught:
        imported(tmp_path / "a", src)
    message = str(caught.value)
    assert "zap.log:2: no time field" in message and "zap.log:4: not a json JSON record" in message
    assert "--skip-bad" in message
    assert not (tmp_path / "a" / "dataset").exists()  # nothing half-written
    report, events = imported(tmp_path / "b", src, skip_bad=True)
    assert len(events) == 3
    assert "2 unreadable line(s) skipped (--skip-bad)" in notes_of(report)


def test_format_override_and_undetectable_input(tmp_path):
    odd = tmp_path / "odd.log"
    odd.write_text("hello\nworld\n")
    with pytest.raises(DatasetError, match="cannot tell the log format"):
        imported(tmp_path / "a", odd)
    forced = tmp_path / "plain.txt"
    forced.write_text('{"@timestamp": "2026-03-14T09:00:00Z", "message": "m", "service": "s"}\n')
    report, events = imported(tmp_path / "b", forced, format="json")
    assert report.sources[0].format == "json" and events[0]["message"] == "m"
    assert "1 event(s) without a level: INFO assumed" in notes_of(report)


def test_tables_and_runbooks_are_copied_under_safe_names_and_the_target_is_protected(tmp_path):
    report, _ = imported(tmp_path, DATA / "tables", DATA / "runbooks")
    into = tmp_path / "dataset"
    assert sorted(p.name for p in (into / "tables").iterdir()) == ["deploy_history.csv",
                                                                  "feature_flags.csv"]
    assert (into / "tables" / "deploy_history.csv").read_bytes() == \
        (DATA / "tables" / "Deploy History.csv").read_bytes()
    assert sorted(p.name for p in (into / "knowledge").iterdir()) == [
        "Checkout HTTP client pool.md", "on-call notes.md"]
    manifest = json.loads((into / "dataset.json").read_text())
    assert manifest["name"] == "dataset" and manifest["timezone"] == "UTC"
    with pytest.raises(DatasetError, match="not empty"):
        import_sources([DATA / "syslog"], into, ImportOptions(year=2026))
    import_sources([DATA / "syslog"], into, ImportOptions(year=2026, replace=True))
    assert not (into / "tables").exists() or not any((into / "tables").iterdir())
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep")
    with pytest.raises(DatasetError, match="not empty"):
        import_sources([DATA / "syslog"], precious, ImportOptions(year=2026, replace=True))
    assert (precious / "notes.txt").read_text() == "keep"
    shutil.rmtree(precious)


def test_apache_error_logs_logfmt_and_bunyan_numbers(tmp_path):
    apache = tmp_path / "httpd" / "error_log"
    apache.parent.mkdir()
    apache.write_text(
        "[Sat Mar 14 09:51:05.123456 2026] [proxy_http:error] [pid 4411:tid 1399] (70007)The "
        "timeout specified has expired: [client 10.0.1.23:51812] AH01102: error reading status "
        "line from remote server 10.0.7.41:8080\n"
        "[Sat Mar 14 09:52:00.000001 2026] [core:notice] [pid 1] AH00094: Command line: 'httpd'\n")
    logfmt = tmp_path / "billing.log"
    logfmt.write_text('ts=2026-03-14T09:51:00Z level=error msg="invoice push failed" code=503 '
                      'trace_id=abc123\nts=2026-03-14T09:52:00Z level=info msg="retry ok" code=200\n')
    bunyan = tmp_path / "notify.log"
    bunyan.write_text(json.dumps({"name": "notify", "hostname": "h1", "pid": 7, "level": 50,
                                  "msg": "smtp refused", "time": "2026-03-14T09:51:30.000Z",
                                  "v": 0}) + "\n")
    report, events = imported(tmp_path / "out", apache, logfmt, bunyan, timezone="Europe/Berlin")
    assert [s.format for s in report.sources] == ["apache-error", "logfmt", "json"]
    proxy = events[0]
    assert (proxy["service"], proxy["level"], proxy["ts"]) == ("httpd", "ERROR",
                                                                "2026-03-14T08:51:05.123Z")
    assert proxy["attrs"]["module"] == "proxy_http" and proxy["attrs"]["client"].startswith("10.0.1")
    assert events[1]["attrs"]["level_original"] == "notice"
    failed = events[2]
    assert (failed["service"], failed["level"], failed["message"]) == (
        "billing", "ERROR", "invoice push failed")
    assert failed["attrs"]["trace_id"] == "abc123" and failed["attrs"]["code"] == "503"
    smtp = events[-1]
    assert (smtp["service"], smtp["level"], smtp["attrs"]["host"]) == ("notify", "ERROR", "h1")


def test_progress_reaches_the_total_and_counts_every_source(tmp_path):
    seen: list[tuple[int, int]] = []
    import_sources([DATA / "cart-svc.log", DATA / "tables"], tmp_path / "out",
                   ImportOptions(), progress=lambda done, total: seen.append((done, total)))
    total = sum(p.stat().st_size for p in [DATA / "cart-svc.log", *(DATA / "tables").iterdir()])
    assert seen and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
