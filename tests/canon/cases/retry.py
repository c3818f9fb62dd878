"""A retry storm."""

from ..spec import Burst, Case, Deploy, Line, Metric
from ._world import edge, go, gokit

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
)
