"""A retry storm."""

from ..spec import Burst, Case, Config, Deploy, Line, Metric
from ._world import edge, go, gokit, java

CASES = (
    Case(
        id="retry-storm-no-backoff", klass="retry-storm",
        title="payments 6.1.0 retries ledger 8 times with no backoff; ledger drowns",
        day="2026-04-17", window=("14:20", "14:35"),
        question="payment failures on payments between 14:20 and 14:35 on {date} — why?",
        services=(go("payments", "payment"), gokit("ledger", "entry"),
                  edge("edge", "/v1/payments")),
        onset="14:17:40", cause_service="payments",
        lines=(
            Line("14:16:02", "payments", "starting payments version=6.1.0 ledger.retry="
                 "{attempts: 8, backoff: 0ms}"),
            Burst("14:17:40", "15:00", "payments",
                  "ledger post failed (attempt {n}/8), retrying immediately: 503 Service "
                  "Unavailable", level="WARN", every_s=1),
            Burst("14:17:45", "15:00", "ledger",
                  "rejecting request: too many concurrent requests (limit 200)", every_s=2),
        ),
        changes=(Deploy("14:15", "payments", "6.1.0", "ledger client refactor, new retry policy"),),
        metrics=(Metric("ledger", "requests_per_s", 110, 1300, at="14:17"),),
        runbooks=("retry-storm",),
        expect="SUCCESS", key_terms=("retry", "6.1.0"),
        root_cause="payments 6.1.0 (14:15) retries ledger up to 8 times with no backoff; a short "
                   "ledger slowdown turned into ~12x the request rate, ledger rejects requests "
                   "(too many concurrent requests) and payments fail",
        distractors=()),
    Case(
        id="retry-storm-client-timeout", klass="retry-storm",
        title="checkout-api's payments client: timeout 500 ms, retries 5; payments drowns",
        day="2026-04-20", window=("18:00", "18:20"),
        question="checkout-api: payments step failing, {short} 18:00-18:20 UTC. Why?",
        services=(java("checkout-api", "order"), go("payments", "payment"), edge()),
        onset="17:55:20", cause_service="checkout-api",
        lines=(
            Line("17:54:58", "checkout-api", "Refreshing keys for Environment: "
                 "[payments.client.retries, payments.client.timeout]"),
            Burst("17:55:20", "18:45", "checkout-api",
                  "payments call timed out after 500 ms (attempt {n}/5), retrying",
                  level="WARN", every_s=1),
            Burst("17:56:00", "18:45", "checkout-api",
                  "payment failed after 5 attempts: java.net.SocketTimeoutException: Read "
                  "timed out", every_s=5),
            Burst("17:55:30", "18:45", "payments",
                  "request queue saturated in_flight={n}0 p99_ms=2{n}", level="WARN",
                  every_s=6),
        ),
        changes=(Config("17:54", "checkout-api", "payments.client.retries", "1", "5", by="l.brandt",
                        ticket="CHK-412"),
                 Config("17:54", "checkout-api", "payments.client.timeout", "3000ms", "500ms",
                        by="l.brandt", ticket="CHK-412")),
        metrics=(Metric("payments", "requests_per_s", 90, 520, at="17:55"),),
        runbooks=("retry-storm", "known-noise"),
        expect="SUCCESS", key_terms=("payments.client.retries", "timeout"),
        root_cause="a config change at 17:54 (CHK-412) set checkout-api's payments client to a "
                   "500 ms timeout with 5 retries; payments' normal p99 exceeds 500 ms, so calls "
                   "time out and are retried, ~5x the load on payments, which saturates",
        distractors=()),
)
