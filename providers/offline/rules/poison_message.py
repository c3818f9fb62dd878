"""Rule: one message a consumer cannot read, retried forever, stalls its partition.

Needs: a failure at ERROR or worse of a consumer that names the message it failed on
(``lexicon.POSITION``: an offset, a message id) and either cannot read its payload
(``lexicon.UNDECODABLE``) or says the message comes back (``lexicon.REDELIVERED``: a receive
count, redelivered, retrying); and every one of its logged events (``query_logs``,
:data:`MIN_SAME` at least) naming that same message: not bad data in general, one message,
again and again.
Concludes: "<consumer>: <failure> from <onset> (offset=N, every time)", citing the failure and
its events.
Failure class: a queue backlog behind a poison message.
Canon cases: queue-poison-message, queue-kafka-deserialization, queue-redelivered-message
(queue-consumers-scaled-down is the lowered-limit rule's); traps it must leave open:
trap-generic-error, trap-noisy-service (errors on many messages).
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.failures import CAUSE_LEVELS, level_of
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import POSITION, REDELIVERED, UNDECODABLE

MIN_SAME = 5
"""Events of the failure that must name the same message for it to be one message retried."""


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one message a consumer keeps failing to read, when its every event names it."""
    for failure in evidence.failures(inv):
        example = str(failure.get("example", ""))
        where = POSITION.search(example)
        if level_of(failure) not in CAUSE_LEVELS or where is None \
                or not (UNDECODABLE.search(example) or REDELIVERED.search(example)):
            continue
        head = example[: where.start()]
        events = [e for e in inv.items("query_logs") if e.get("kind") == "log_event"
                  and str(e.get("message", "")).startswith(head)]
        said = {m.group(0) if (m := POSITION.search(str(e.get("message", "")))) else None
                for e in events}
        if len(events) >= MIN_SAME and said == {where.group(0)}:
            kind, value = [g for g in where.groups() if g]
            return draft.conclusion(
                failure, [], None, f"park the message at {where.group(0)} and fix its producer",
                detail=f"{kind}={value} every time",
                cited=[e["evidence_id"] for e in events[:3]])
    return None
