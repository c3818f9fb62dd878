"""Connection refused after a host or port change."""

from ..spec import Burst, Case, Config, Deploy, Line
from ._world import edge, go, java

CASES = (
    Case(
        id="refused-caller-port", klass="connection-refused",
        title="checkout-api's payments.url changed to port 8081, where nothing listens",
        day="2026-03-23", window=("15:40", "16:00"),
        question="checkout-api payment step failing between 15:40 and 16:00 UTC on {date} — why?",
        services=(java("checkout-api", "order"), go("payments", "payment"), edge()),
        onset="15:36:22", cause_service="checkout-api",
        lines=(
            Line("15:36:20", "checkout-api", "Refreshing keys for Environment: [payments.url]"),
            Burst("15:36:22", "16:25", "checkout-api",
                  "payment call failed: I/O error on POST request for \"http://payments:8081/v1/"
                  "charges\": Connect to payments:8081 [payments/10.0.4.12] failed: Connection "
                  "refused", every_s=4),
        ),
        changes=(Config("15:36", "checkout-api", "payments.url", "http://payments:8080",
                        "http://payments:8081", by="a.ng", ticket="OPS-2302"),
                 Deploy("15:20", "payments", "7.4.0", "statement descriptors")),
        runbooks=("endpoint", "known-noise"),
        expect="SUCCESS", key_terms=("8081", "payments.url"),
        root_cause="checkout-api's payments.url was changed at 15:36 from payments:8080 to "
                   "payments:8081, where nothing listens; every payment call is refused",
        distractors=("payments deploy 7.4.0 at 15:20",)),
    Case(
        id="refused-callee-port", klass="connection-refused",
        title="payments 5.0.0 listens on 9090; callers still dial 8080",
        day="2026-03-24", window=("10:05", "10:20"),
        question="Why are payments calls refused, {day} 10:05-10:20 UTC (checkout-api errors)?",
        services=(java("checkout-api", "order"), go("payments", "payment"), edge()),
        onset="10:02:31", cause_service="payments",
        lines=(
            Line("10:02:30", "payments", "payments 5.0.0 listening on :9090 (metrics on :9091)"),
            Burst("10:02:31", "10:45", "checkout-api",
                  "payment call failed: Connect to payments:8080 [payments/10.0.4.12] failed: "
                  "Connection refused", every_s=4),
        ),
        changes=(Deploy("10:00", "payments", "5.0.0", "move to the shared HTTP server chassis"),),
        runbooks=("endpoint", "deploy-regression"),
        expect="SUCCESS", key_terms=("5.0.0", "9090"),
        root_cause="payments 5.0.0 (deployed 10:00) listens on :9090 instead of :8080; "
                   "checkout-api still dials payments:8080, so its connections are refused",
        distractors=()),
)
