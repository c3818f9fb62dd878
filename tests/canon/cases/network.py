"""A network partition between zones."""

from ..spec import Burst, Case
from ._world import edge, go, java, postgres

CASES = (
    Case(
        id="network-sg-zone-b", klass="network-partition",
        title="a security group change drops 5432 from zone b; only zone b's pods time out",
        day="2026-04-16", window=("09:40", "10:00"),
        question="orders errors on about a third of requests, {date} 09:40–10:00 UTC. Why?",
        services=(java("orders", "order"), postgres("orders-db"), edge("edge", "/v1/orders")),
        onset="09:35:20", cause_service="orders",
        lines=(
            Burst("09:35:20", "10:25", "orders",
                  "pod=orders-5c8d-zb{n} zone=eu-west-1b: org.postgresql.util.PSQLException: The "
                  "connection attempt failed. java.net.SocketTimeoutException: connect timed out "
                  "(10.0.1.15:5432)", every_s=5),
        ),
        tables={"network_changes": (
            {"changed_at": "2026-04-16T09:35:00Z", "resource": "security group sg-0a1b2c3d (orders-db)",
             "change": "revoke ingress tcp/5432 from 10.0.64.0/18 (eu-west-1b)",
             "changed_by": "terraform (PR 1432: tidy db security groups)"},
            {"changed_at": "2026-04-15T16:00:00Z", "resource": "rtb-77aa (private-a)",
             "change": "add route 10.20.0.0/16 via tgw", "changed_by": "terraform"})},
        runbooks=("network", "dependency"),
        expect="SUCCESS", key_terms=("security group", "5432"),
        root_cause="a security group change at 09:35 (sg-0a1b2c3d, terraform PR 1432) revoked "
                   "tcp/5432 from eu-west-1b's subnet; orders pods in zone b can no longer reach "
                   "orders-db and time out, zone a and c work",
        distractors=()),
    Case(
        id="network-policy-egress", klass="network-partition",
        title="a default-deny egress NetworkPolicy in payments' namespace cuts it off from ledger",
        day="2026-04-17", window=("10:20", "10:40"),
        question="payments timing out on {date} between 10:20 and 10:40 UTC — why?",
        services=(go("payments", "payment"), go("ledger", "entry"), edge("edge", "/v1/payments")),
        onset="10:16:30", cause_service="payments",
        lines=(
            Burst("10:16:30", "11:05", "payments",
                  "ledger post failed: dial tcp 10.0.4.21:8080: i/o timeout", every_s=4),
        ),
        tables={"k8s_changes": (
            {"applied_at": "2026-04-17T10:16:00Z", "namespace": "payments",
             "kind": "NetworkPolicy", "name": "default-deny-egress",
             "summary": "deny all egress except kube-dns", "applied_by": "argocd (policy-repo "
             "PR 88)"},
            {"applied_at": "2026-04-16T15:02:00Z", "namespace": "ledger", "kind": "ConfigMap",
             "name": "ledger-config", "summary": "log format json", "applied_by": "argocd"})},
        runbooks=("network",),
        expect="SUCCESS", key_terms=("default-deny-egress", "egress"),
        root_cause="the NetworkPolicy default-deny-egress applied to the payments namespace at "
                   "10:16 blocks all egress but DNS; payments' connections to ledger "
                   "(10.0.4.21:8080) time out",
        distractors=()),
)
