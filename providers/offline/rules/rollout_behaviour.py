"""Rule: a rollout changed how a component behaves, and its own new line says how.

Needs: a rollout (class look-back, ``evidence.changes``: a deploys or releases row) of a
component S at most :data:`LEAD` before a failure at ERROR or worse, and one new line after
the rollout that says what changed, of one of two shapes:
- S's startup line says it listens on a port (``lexicon.LISTENS``) other than the one the
  failure's refused connections to S name (``payments:8080`` refused, S on ``:9090``);
- a database's new slow-statement line (``lexicon.SLOW_STATEMENT``) beginning after the
  rollout and before S's own timeouts, with the database's CPU up (the new query S sends).
Concludes: "<failing service>: <failure> from <onset>, after <table> row <rollout>, after
<line>", citing the failure, the rollout and the line.
Failure classes: connection refused after a port change, a bad deploy's slow query.
Canon cases: refused-callee-port, deploy-slow-query; traps it must leave open:
trap-noisy-service-after-deploy, trap-unrelated-deploy-shared-words.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import flagged, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import LISTENS, SLOW_STATEMENT, UNREACHABLE

LEAD = timedelta(minutes=10)
"""How long before the failure a rollout is its trigger."""
_ROLLOUT = re.compile(r"deploy|release|rollout", re.I)
_CPU = re.compile(r"cpu", re.I)


def _line(item: dict[str, Any], detail: str = "") -> dict[str, Any]:
    return {"evidence_id": item["evidence_id"], "table": "log", "service": item["service"],
            "pattern": item["pattern"], "time": item["onset"], "row": {}, "detail": detail}


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The rollout whose own new line explains the failure that follows it."""
    new = [i for i in inv.items("onset_timeline") if i.get("kind") == "onset"
           and i.get("level") == "INFO" and i.get("change") == "new" and not flagged(i)]
    for failure in evidence.causes(inv):
        onset, text = moment(failure["onset"]), evidence.text(failure)
        for rollout in evidence.changes(inv):
            s, at = str(rollout.get("service") or ""), evidence.began(rollout)
            if not _ROLLOUT.search(str(rollout["table"])) or not at <= onset <= at + LEAD:
                continue
            refused = re.findall(rf"(?<![\w-]){re.escape(s)}:(\d{{2,5}})\b", text)
            for line in (i for i in new if at <= moment(i.get("onset")) <= onset):
                listens = LISTENS.search(str(line.get("example", "")))
                if refused and UNREACHABLE.search(text) and line["service"] == s and listens \
                        and listens.group(1) not in refused:
                    port = f"listening on :{listens.group(1)}"
                    return draft.conclusion(failure, [rollout, _line(line, port)], None,
                                               f"point callers at {s}:{listens.group(1)} "
                                               "or roll back")
                if failure["service"] == s and SLOW_STATEMENT.search(str(line["pattern"])) \
                        and evidence.shifted(inv, line["service"], _CPU, at, onset):
                    return draft.conclusion(failure, [rollout, _line(line)], None,
                                               f"roll {s} back; its new query is slow")
    return None
