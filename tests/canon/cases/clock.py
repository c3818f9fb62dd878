"""Clock skew on one host."""

from ..spec import Burst, Case, Line
from ._world import go, gokit, host, py

CASES = (
    Case(
        id="clock-skew-ntp", klass="clock-skew",
        title="api-7 lost NTP and drifted 94 s; tokens it checks are 'issued in the future'",
        day="2026-04-10", window=("08:00", "08:20"),
        question="auth: some users get 401 right after logging in, {date} 08:00-08:20 UTC. Why?",
        services=(go("auth", "token"), host("api-7"), py("accounts", "profile")),
        onset="07:31:00", cause_service="api-7",
        lines=(
            Line("05:12:00", "api-7", "chronyd[611]: Can't synchronise: no selectable sources",
                 level="WARN"),
            Line("07:30:00", "api-7", "chronyd[611]: System clock wrong by 94.218 seconds",
                 level="WARN"),
            Burst("07:31:00", "08:45", "auth",
                  "token rejected host=api-7: token used before issued (iat {n} is 94s in the "
                  "future)", every_s=8),
        ),
        tables={"firewall_changes": (
            {"changed_at": "2026-04-10T05:10:00Z", "rule": "egress-deny-udp-123",
             "scope": "api-*", "action": "ADD", "changed_by": "sec-hardening"},)},
        runbooks=("clock-skew",),
        expect="SUCCESS", key_terms=("api-7", "clock"),
        root_cause="api-7's clock drifted 94 s after chronyd lost its NTP sources (an egress rule "
                   "denying UDP 123 was added at 05:10); tokens checked on api-7 look issued in the "
                   "future and are rejected",
        distractors=()),
    Case(
        id="clock-skew-s3", klass="clock-skew",
        title="worker-4 restored from a snapshot an hour behind, NTP off; S3 rejects its requests",
        day="2026-04-10", window=("15:00", "15:20"),
        question="exporter uploads failing since ~14:50, {date} 15:00–15:20 UTC. Cause?",
        services=(gokit("exporter", "export"), host("worker-4"), py("reports", "report")),
        onset="14:48:40", cause_service="worker-4",
        lines=(
            Line("14:47:55", "worker-4", "systemd[1]: Started Session 1 of user root."),
            Line("14:48:02", "worker-4", "chronyd[502]: chronyd exiting (NTP disabled by "
                 "timedatectl set-ntp false)", level="WARN"),
            Burst("14:48:40", "15:45", "exporter",
                  "upload failed key=exports/{id}.parquet: RequestTimeTooSkewed: The difference "
                  "between the request time and the current time is too large. request "
                  "time=13:48:{n}Z", every_s=10),
        ),
        tables={"host_events": (
            {"at": "2026-04-10T14:47:30Z", "host": "worker-4", "event": "restored from "
             "snapshot snap-0c1d (taken 2026-04-10T13:47:00Z)", "by": "dr-drill"},)},
        runbooks=("clock-skew", "known-noise"),
        expect="SUCCESS", key_terms=("worker-4", "clock"),
        root_cause="worker-4 was restored at 14:47 from a snapshot taken an hour earlier and its "
                   "NTP was off, so its clock runs ~1 h behind; S3 rejects the exporter's signed "
                   "requests as RequestTimeTooSkewed",
        distractors=()),
)
