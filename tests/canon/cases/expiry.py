"""An expired certificate or credential."""

from ..spec import Burst, Case, Deploy, Line
from ._world import edge, go, java, py

_CERTS = ("cert_id", "service", "subject", "issuer", "not_before", "not_after", "used_for")


def _cert(*values: str) -> dict[str, object]:
    return dict(zip(_CERTS, values, strict=True))


CASES = (
    Case(
        id="cert-client-expired", klass="expired-credential",
        title="payments' mTLS client certificate to the acquirer expired",
        day="2026-03-09", window=("11:00", "11:15"),
        question="payments: card authorisations failing 11:00–11:15 UTC on {date}, what broke?",
        services=(go("payments", "payment"), java("checkout-api", "order"),
                  edge("edge", "/v1/payments")),
        onset="11:00:04", cause_service="payments",
        lines=(
            Line("08:00:00", "payments", "client certificate CN=psp-client.acme.example expires "
                 "in 0 day(s) (not_after=2026-03-09T11:00:00Z)", level="WARN"),
            Burst("11:00:04", "11:55", "payments",
                  "authorize failed: Post \"https://api.northbank.example/v2/authorize\": "
                  "remote error: tls: expired certificate", every_s=4),
            Burst("11:00:05", "11:55", "checkout-api", "payment declined by payments: "
                  "ACQUIRER_UNAVAILABLE", level="WARN", every_s=6),
        ),
        changes=(Deploy("10:35", "checkout-api", "4.3.1", "checkout copy changes"),),
        tables={"certificates": (
            _cert("CERT-21", "payments", "CN=psp-client.acme.example", "NorthBank Partner CA",
                  "2025-03-09T11:00:00Z", "2026-03-09T11:00:00Z", "mTLS client cert to NorthBank"),
            _cert("CERT-22", "edge", "CN=shop.acme.example", "Let's Encrypt R11",
                  "2026-02-01T00:00:00Z", "2026-05-02T00:00:00Z", "public TLS"))},
        runbooks=("certificate", "known-noise"),
        expect="SUCCESS", key_terms=("certificate", "expired"),
        root_cause="payments' mTLS client certificate for NorthBank (CERT-21, "
                   "CN=psp-client.acme.example) expired at 11:00; the acquirer rejects the "
                   "handshake (tls: expired certificate) and every authorisation fails",
        distractors=("checkout-api deploy 4.3.1 at 10:35", "the daily 'expires in N days' warning")),
    Case(
        id="cert-server-expired", klass="expired-credential",
        title="ledger's server certificate expired; its Java callers fail PKIX validation",
        day="2026-03-10", window=("00:05", "00:25"),
        question="billing can't post invoices to ledger since midnight — {date} 00:05 to 00:25 UTC. Why?",
        services=(java("billing", "invoice"), go("ledger", "entry"), edge("edge", "/v1/invoices")),
        onset="00:00:02", cause_service="ledger",
        lines=(
            Burst("00:00:02", "00:50", "billing",
                  "POST https://ledger.internal:8443/v1/entries failed: javax.net.ssl."
                  "SSLHandshakeException: PKIX path validation failed: java.security.cert."
                  "CertPathValidatorException: validity check failed", every_s=5),
            Burst("00:00:03", "00:50", "ledger",
                  "http: TLS handshake error from {ip}:4431: remote error: tls: bad certificate",
                  level="WARN", every_s=5),
        ),
        tables={"certificates": (
            _cert("CERT-31", "ledger", "CN=ledger.internal", "acme internal CA G2",
                  "2025-03-10T00:00:00Z", "2026-03-10T00:00:00Z", "server TLS for ledger API"),
            _cert("CERT-32", "billing", "CN=billing.internal", "acme internal CA G2",
                  "2026-01-10T00:00:00Z", "2027-01-10T00:00:00Z", "server TLS for billing API"))},
        runbooks=("certificate",),
        expect="SUCCESS", key_terms=("certificate", "ledger"),
        root_cause="ledger's server certificate (CERT-31, CN=ledger.internal) expired at 00:00; "
                   "billing's TLS client rejects it (PKIX validity check failed) so no invoice "
                   "can be posted",
        distractors=("ledger's 'bad certificate' handshake warnings (the symptom seen from ledger)",)),
    Case(
        id="credential-api-key-expired", klass="expired-credential",
        title="the SMS provider's API key expired; notifications get 401",
        day="2026-03-11", window=("09:30", "09:50"),
        question="notifications: SMS not being delivered, {short} 09:30 to 09:50 UTC. Why?",
        services=(py("notifications", "message"), java("orders", "order"),
                  edge("edge", "/v1/orders")),
        onset="09:24:10", cause_service="notifications",
        lines=(
            Burst("09:24:10", "10:20", "notifications",
                  "sms send failed: provider returned 401 Unauthorized: {\"error\":"
                  "\"api_key_expired\",\"message\":\"API key sk_live_…4f2 expired on "
                  "2026-03-11T09:24:00Z\"}", every_s=6),
        ),
        tables={"secrets_inventory": (
            {"secret": "smsgw-api-key", "service": "notifications", "kind": "api_key",
             "created_at": "2025-09-11T09:24:00Z", "expires_at": "2026-03-11T09:24:00Z",
             "owner": "team-messaging"},
            {"secret": "orders-db-password", "service": "orders", "kind": "password",
             "created_at": "2026-01-02T10:00:00Z", "expires_at": "2026-07-01T10:00:00Z",
             "owner": "team-orders"})},
        runbooks=("certificate", "triage"),
        expect="SUCCESS", key_terms=("key", "expired"),
        root_cause="the SMS gateway API key of notifications (smsgw-api-key) expired at 09:24; "
                   "the provider answers 401 api_key_expired to every send",
        distractors=()),
)
