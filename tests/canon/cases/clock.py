"""Clock skew on one host."""

from ..spec import Burst, Case, Line
from ._world import go, host, py

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
)
