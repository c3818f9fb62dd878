"""A queue backlog: consumers slowed or stopped."""

from ..spec import Burst, Case, Config, Metric
from ._world import gokit, java, py

CASES = (
    Case(
        id="queue-consumers-scaled-down", klass="queue-backlog",
        title="email-worker's replicas 6 -> 1 by a config change; the queue backs up",
        day="2026-04-02", window=("09:00", "09:30"),
        question="email-worker: order confirmation emails arriving 20+ minutes late, {day} "
                 "09:00-09:30 UTC. Why?",
        services=(py("email-worker", "email"), java("orders", "order"), gokit("rabbitmq-exporter",
                                                                             "scrape")),
        onset="08:41:00", cause_service="email-worker",
        lines=(
            Burst("08:41:00", "09:55", "email-worker",
                  "message waited {n}s in queue emails.confirmations before processing",
                  level="WARN", every_s=20),
        ),
        changes=(Config("08:40", "email-worker", "deployment.replicas", "6", "1", by="cost-bot",
                        ticket="FINOPS-40"),),
        metrics=(Metric("email-worker", "queue_depth", 20, 14000, at="08:41", ramp_min=49),
                 Metric("email-worker", "consumed_per_s", 48, 8, at="08:40")),
        runbooks=("queue-backlog",),
        expect="SUCCESS", key_terms=("replicas", "1"),
        root_cause="email-worker was scaled from 6 replicas to 1 at 08:40 (FINOPS-40); one consumer "
                   "handles ~8 msg/s against ~40 msg/s produced, so emails.confirmations backs up "
                   "and emails arrive late",
        distractors=()),
    Case(
        id="queue-poison-message", klass="queue-backlog",
        title="a message that cannot be decoded is retried forever; partition 3 stalls",
        day="2026-04-03", window=("17:00", "17:20"),
        question="invoices not being generated — invoice-consumer lag growing, {date} 17:00 to "
                 "17:20 UTC. Why?",
        services=(gokit("invoice-consumer", "invoice"), java("billing", "invoice")),
        onset="16:48:12", cause_service="invoice-consumer",
        lines=(
            Burst("16:48:12", "17:45", "invoice-consumer",
                  "failed to process message topic=invoices partition=3 offset=884213: json: "
                  "cannot unmarshal string into Go struct field Invoice.amount of type float64; "
                  "retrying", every_s=2),
        ),
        metrics=(Metric("invoice-consumer", "lag_partition_3", 3, 9000, at="16:48", ramp_min=50),),
        runbooks=("queue-backlog", "known-noise"),
        expect="SUCCESS", key_terms=("884213", "unmarshal"),
        root_cause="the message at invoices partition 3 offset 884213 has amount as a string; "
                   "invoice-consumer fails to unmarshal it and retries it forever, so partition 3 "
                   "stops advancing and its lag grows",
        distractors=()),
)
