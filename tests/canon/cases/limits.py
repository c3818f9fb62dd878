"""Process limits: file descriptors."""

from ..spec import Burst, Case, Config, Line, Metric
from ._world import edge, gokit, host

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
)
