"""DNS resolution failures: NXDOMAIN after a record was removed or mistyped."""

from ..spec import Burst, Case, Config, Deploy
from ._world import edge, go, java

CASES = (
    Case(
        id="dns-record-deleted", klass="dns",
        title="ledger.internal's A record deleted in a zone clean-up; lookups fail NXDOMAIN",
        day="2026-03-18", window=("09:10", "09:30"),
        question="payments errors on {date} from 09:10 to 09:30 UTC — why?",
        services=(go("payments", "payment"), go("ledger", "entry"), edge("edge", "/v1/payments")),
        onset="09:07:05", cause_service="payments",
        lines=(
            Burst("09:07:05", "09:55", "payments",
                  "ledger post failed: dial tcp: lookup ledger.internal.acme.net on 10.96.0.10:53:"
                  " no such host", every_s=4),
        ),
        changes=(Deploy("08:40", "ledger", "2.4.0", "new entry index"),),
        tables={"dns_changes": (
            {"changed_at": "2026-03-16T10:00:00Z", "zone": "internal.acme.net",
             "record": "search.internal.acme.net", "type": "CNAME", "action": "UPSERT",
             "value": "search-lb.internal.acme.net", "changed_by": "terraform"},
            {"changed_at": "2026-03-18T09:06:40Z", "zone": "internal.acme.net",
             "record": "ledger.internal.acme.net", "type": "A", "action": "DELETE",
             "value": "10.0.4.21", "changed_by": "zone-cleanup.py"})},
        runbooks=("dns", "dependency"),
        expect="SUCCESS", key_terms=("ledger.internal", "delete"),
        root_cause="the A record ledger.internal.acme.net was deleted from the internal zone at "
                   "09:06 by a zone clean-up script; payments' lookups fail (no such host / "
                   "NXDOMAIN) so no entry can be posted to ledger",
        distractors=("ledger deploy 2.4.0 at 08:40",)),
    Case(
        id="dns-typo-config", klass="dns",
        title="inventory.base_url changed to a mistyped host; UnknownHostException",
        day="2026-03-19", window=("13:30", "13:45"),
        question="checkout-api can't reserve stock, {day}, 13:30 to 13:45 UTC. Why?",
        services=(java("checkout-api", "order"), go("inventory", "reservation"), edge()),
        onset="13:27:41", cause_service="checkout-api",
        lines=(
            Burst("13:27:41", "14:10", "checkout-api",
                  "stock reservation failed: I/O error on POST request for \"http://inventroy-api."
                  "prod.acme.io/v1/reservations\": inventroy-api.prod.acme.io: Name or service not "
                  "known; nested exception is java.net.UnknownHostException", every_s=5),
        ),
        changes=(Config("13:27", "checkout-api", "inventory.base_url",
                        "http://inventory-api.prod.acme.io", "http://inventroy-api.prod.acme.io",
                        by="s.park", ticket="OPS-2290"),
                 Config("12:10", "inventory", "reservation.ttl_s", "600", "900")),
        runbooks=("dns",),
        expect="SUCCESS", key_terms=("inventroy", "base_url"),
        root_cause="checkout-api's inventory.base_url was changed at 13:27 to the misspelled host "
                   "inventroy-api.prod.acme.io, which does not resolve (UnknownHostException); "
                   "every stock reservation fails",
        distractors=("inventory reservation.ttl_s change at 12:10",)),
)
