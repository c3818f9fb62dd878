"""The localized draft: claims citing the statistics rows, a cause built from their values.

``localize`` names the earliest unambiguous failure; this module adds what explains it — a
change on that service in the look-back before the onset that passes the causal test
(``causal.change_problem``) — and writes the draft. Every claim cites the rows it is built from
(the onset row, the consistent downstream rows, the change row), so the evidence guard, the
judge and release's re-computation of the statistics verify them.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.providers.offline.causal import Symptom, change_problem, names_key
from diagnosis_harness.providers.offline.conclusion import NEXT_STEPS, describe_row
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Localized, localize, sentence

MAX_DOWNSTREAM = 3
"""Consistent downstream failures quoted as corroboration."""


def localized(inv: Investigation) -> Localized | None:
    """The timeline's localized failure, if the investigation read one."""
    return localize(inv.items("onset_timeline"), inv.scope.service or None)


def _symptom(found: Localized) -> Symptom:
    return Symptom(services=frozenset({found.service.lower()}), onset=found.onset,
                   text=f"{found.row.get('pattern', '')} {found.row.get('example', '')}")


def explaining_change(inv: Investigation, found: Localized) -> dict[str, Any] | None:
    """The most recent change of the look-back that explains the failure by the causal test.

    From logs alone a shared word is too little ("query logging verbosity" is no cause of
    "query failed: no space left"): the failure's own text must name the change's key.
    """
    symptom = _symptom(found)
    links = [f"{found.service} {found.row.get('pattern', '')}"]
    for item in inv.items("recent_changes"):
        row = item.get("row")
        if item.get("kind") != "change" or not isinstance(row, dict) or "warning" in item:
            continue
        row = {**row, "service": item.get("service") or row.get("service")}
        if describe_row(row) and names_key(row, symptom.text) \
                and change_problem(row, symptom, [], links) is None:
            return item
    return None


def localized_draft(inv: Investigation) -> dict[str, Any] | None:
    """The draft concluding on the localized failure, or None when the timeline is ambiguous."""
    found = localized(inv)
    if found is None:
        return None
    row = found.row
    change = explaining_change(inv, found)
    if found.warning_only and change is None:
        return None  # warnings only, and no change that explains them: no cause to publish
    if found.service == inv.scope.service and found.dependency is None and change is None:
        return None  # the asked service's own failure, naming nothing else: the symptom again
    if change is None and any(item.get("kind") == "change" and item.get("service") == found.service
                              for item in inv.items("recent_changes")):
        # Something changed on the failing component just before it failed (a deploy, a job)
        # and its logs do not say whether that is why: from logs alone the cause is open.
        return None
    claims = [{"statement": f"{found.service} logged {row['window_count']} {row['level']} "
                            f"events '{row['pattern']}' from {row['onset']}",
               "evidence_ids": [row["evidence_id"]]}]
    if found.first is not None:
        first = found.first
        claims.append({"statement": f"{found.service} logged {first['window_count']} "
                                    f"{first['level']} events '{first['pattern']}' from "
                                    f"{first['onset']} before that",
                       "evidence_ids": [first["evidence_id"]]})
    for other in found.consistent[:MAX_DOWNSTREAM]:
        claims.append({"statement": f"then {other['service']} {other['level']} from "
                                    f"{other['onset']}: '{other['pattern']}'",
                       "evidence_ids": [other["evidence_id"]]})
    if change is not None:
        claims.append({"statement": f"row {describe_row(change['row'])}",
                       "evidence_ids": [change["evidence_id"]]})
    return {"conclusion": {"root_cause": sentence(found, change), "claims": claims},
            "next_steps": [f"check {found.dependency or found.service} first", *NEXT_STEPS[:1]]}
