"""Process limits: file descriptors."""

from ..spec import Burst, Case, Config, Deploy, Line, Metric
from ._world import edge, go, gokit, host

CASES = (
    Case(
        id="fd-limit-lowered", klass="resource-limit",
        title="gateway's LimitNOFILE 65536 -> 1024; accept fails with too many open files",
        day="2026-04-20", window=("12:00", "12:15"),
        question="gateway refusing connections, {day} 12:00-12:15 UTC — why?",
        services=(gokit("gateway", "request"), host("gw-1"), edge()),
        onset="11:56:10", cause_service="gateway",
        lines=(
            Line("11:55:02", "gw-1", "systemd[1]: Reloading gateway.service (drop-in "
                 "/etc/systemd/system/gateway.service.d/limits.conf)"),
            Burst("11:56:10", "12:40", "gateway",
                  "http: Accept error: accept tcp [::]:8443: accept4: too many open files; "
                  "retrying in 5ms", every_s=2),
        ),
        changes=(Config("11:55", "gateway", "systemd.LimitNOFILE", "65536", "1024",
                        by="ansible", ticket="HARDEN-9"),),
        metrics=(Metric("gateway", "open_fds", 3100, 1024, at="11:56", jitter=0.0),),
        runbooks=("file-descriptors",),
        expect="SUCCESS", key_terms=("LimitNOFILE", "1024"),
        root_cause="gateway's LimitNOFILE was lowered from 65536 to 1024 at 11:55 (HARDEN-9); "
                   "with ~3,000 connections it runs out of descriptors and accept fails with "
                   "'too many open files'",
        distractors=()),
    Case(
        id="fd-leak-after-deploy", klass="resource-limit",
        title="notifier 3.2.0 leaks a socket per webhook; hours later, too many open files",
        day="2026-04-21", window=("16:00", "16:20"),
        question="notifier webhooks failing, {date} 16:00 to 16:20 UTC. What is the root cause?",
        services=(go("notifier", "webhook"), edge("edge", "/v1/webhooks")),
        onset="15:47:10", cause_service="notifier",
        baseline_h=4,
        lines=(
            Line("12:02:11", "notifier", "notifier starting version=3.2.0 max_open_files=65536"),
            Burst("15:47:10", "16:45", "notifier",
                  "webhook delivery failed: dial tcp {ip}:443: socket: too many open files",
                  every_s=3),
        ),
        changes=(Deploy("12:00", "notifier", "3.2.0", "webhook client: per-tenant transports"),),
        metrics=(Metric("notifier", "open_fds", 900, 65536, at="12:02", ramp_min=225,
                        jitter=0.01),),
        runbooks=("file-descriptors", "deploy-regression"),
        expect="SUCCESS", key_terms=("3.2.0", "too many open files"),
        root_cause="notifier 3.2.0 (deployed 12:00) creates a transport per tenant and never "
                   "closes it; open descriptors grew steadily from 12:02 and hit the 65536 limit "
                   "at 15:47, after which every webhook fails with 'too many open files'",
        distractors=()),
)
