"""Rule: a column or table dropped (or renamed) by a schema change the running code still uses.

Needs: a failure at ERROR or worse saying a column or table does not exist, naming it
(``lexicon.MISSING_OBJECT``); and the one change at most :data:`LEAD` before the failure
whose own values name that column or table (``products.legacy_sku`` for ``legacy_sku``): a
row of the class look-back (``evidence.changes``: a migration's row, a deploy of a migrations
service) or, where no table holds it, another component's new INFO line (the onset timeline:
a migration tool saying what it applied, ``OK 20260513_rename_promo_code.sql``).
Concludes: "<service>: <failure> from <onset>, after <table> row <migration>" (or "after
<component> INFO '<line>'"), citing both.
Failure class: a schema migration out of step with the code (a column dropped under running
code; code deployed ahead of its migration is the localized rule's, a rollout just before).
Canon cases: schema-column-dropped, schema-table-renamed (a Django migrations table),
schema-column-renamed-log-only (the tool's line only); schema-code-before-migration concludes
by the localized rule first. Traps it must leave open: trap-unrelated-change-shared-words.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import CAUSE_LEVELS, flagged, level_of, moment
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules import draft, evidence
from diagnosis_harness.providers.offline.rules.lexicon import MISSING_OBJECT

LEAD = timedelta(minutes=60)
"""How long before the failure a schema change is its cause: code fails on its next query."""


def _names(row: dict[str, Any], name: str) -> bool:
    """Whether a row's values name ``name`` as an identifier (``products.legacy_sku``)."""
    said = " ".join(str(v) for v in row.values())
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", said, re.I) is not None


def _token(line: str, name: str) -> str:
    """The word of a line that names ``name`` (a migration's file, which its pattern masks)."""
    found = re.search(rf"[\w.-]*(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])[\w.-]*", line, re.I)
    return found.group(0) if found else name


def conclude(inv: Investigation, symptom: dict[str, Any] | None,
             runbook: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The schema change that removed what the failing code asks for, if one row says so."""
    for failure in evidence.failures(inv):
        found = MISSING_OBJECT.search(evidence.text(failure))
        if level_of(failure) not in CAUSE_LEVELS or found is None:
            continue
        name = next(g for g in found.groups() if g)
        onset = moment(failure["onset"])
        rows = [c for c in evidence.changes(inv) if c["table"] != "log"
                and onset - LEAD <= moment(c.get("time")) <= onset and _names(c["row"], name)]
        rows += [{"evidence_id": i["evidence_id"], "table": "log", "service": i["service"],
                  "pattern": i.get("pattern"), "time": i.get("onset"), "row": {},
                  "detail": _token(str(i.get("example")), name)}
                 for i in inv.items("onset_timeline") if i.get("kind") == "onset"
                 and i.get("level") == "INFO" and i.get("change") == "new" and not flagged(i)
                 and i.get("service") != failure["service"]
                 and onset - LEAD <= moment(i.get("onset")) <= onset
                 and _names({"line": i.get("example")}, name)]
        if len(rows) == 1:
            return draft.conclusion(failure, rows, None,
                                       f"roll the code forward or restore {name}")
        return None  # the first such failure decides: none or two changes name it
    return None
