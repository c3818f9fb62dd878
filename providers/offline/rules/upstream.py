"""Not a rule: whether a dependency the asked service reads from failed before its symptom.

A service serving stale data while the component it reads from stopped writing is that
component's story, whatever its own TTL says. The dependencies are those the service calls or
reads from (the dependency table's direction): the timelines' ``anomalous_upstream`` and the
table's rows for the service, where the run asked for them. One *fails first* by a failure of
its own (an ERROR or worse pattern of ``MIN_EVENTS`` events not naming the asked service: a
failure about its caller's requests is no story of its own, and a warning is no cause — a
long look-back finds a dependency's everyday warnings new) or by a metric leaving its baseline
(``evidence.shifts``), ``SAME_MOMENT`` or more before the symptom's own onset.

A store the service reads (a warehouse, a search index) is written by its other clients: a
*writer* (another caller of one of the service's dependencies, by the table's rows) fails first
by any failure-level pattern of its own — a warning too, as a consumer group in a rebalance
loop logs it — that began within ``WRITER_LEAD`` before the symptom: the data stopped coming.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from diagnosis_harness.providers.offline.failures import (
    CAUSE_LEVELS,
    MIN_EVENTS,
    SAME_MOMENT,
    Failures,
    level_of,
    moment,
    names,
)
from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.rules.evidence import shifts
from diagnosis_harness.providers.offline.text import terms

WRITER_LEAD = timedelta(minutes=30)
"""How long before the symptom a writer's failure may begin to count: a warning found new over
the long look-back is a writer's everyday noise, not what stopped the data."""
TOKEN = re.compile(r"[A-Za-z0-9_.:-]{1,64}")  # a service quoted in a query: no quote
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")  # a table or column, written unquoted
_EDGES = re.compile(r"depend|topolog|call_?graph|service_?(?:graph|map)|edges", re.I)
_CALLER = re.compile(r"(caller|source|src|from|client|service|consumer|dependent)(_service|_name)?")
_CALLEE = re.compile(r"(callee|target|dst|to|server|depends_on|dependency|upstream|provider|"
                     r"backend|reads_from)(_service|_name)?")


def table(inv: Investigation) -> dict[str, str] | None:
    """The dependency table (name, caller and callee columns), if any.

    The one the onset timeline read, else one named and shaped as one: a table that also lists
    components logging nothing (a broker, a cache) is no table of services to the timeline, but
    still says who calls whom.
    """
    found = next((i.get("dependency_table") for i in inv.items("onset_timeline")
                  if i.get("kind") == "onset_overview" and i.get("dependency_table")), None)
    for name, columns in sorted(inv.tables.items()) if not isinstance(found, dict) else ():
        caller = next((c for c in columns if _CALLER.fullmatch(c.lower())), None)
        callee = next((c for c in columns if _CALLEE.fullmatch(c.lower()) and c != caller), None)
        if _EDGES.search(name) and caller and callee:
            found = {"table": name, "caller": caller, "callee": callee}
            break
    return found if isinstance(found, dict) and all(
        _NAME.fullmatch(str(found.get(k, ""))) for k in ("table", "caller", "callee")) else None


def _edges(inv: Investigation) -> list[tuple[str, str, str]]:
    """The table's rows this run read: (caller, callee) lower-case, and the callee as written."""
    if (edges := table(inv)) is None:
        return []
    rows = [i.get("row") for i in inv.items("query_mysql")]
    return [(str(r.get(edges["caller"], "")).lower(), str(r[edges["callee"]]).lower(),
             str(r[edges["callee"]])) for r in rows if isinstance(r, dict) and r.get(edges["callee"])]


def dependencies(inv: Investigation, service: str) -> set[str]:
    """The services ``service`` calls or reads from, as far as this run has seen."""
    own = service.lower()
    out = {str(u).lower() for i in inv.items("onset_timeline") if i.get("kind") == "onset"
           and str(i.get("service", "")).lower() == own for u in i.get("anomalous_upstream") or []}
    out |= {callee for caller, callee, _ in _edges(inv) if caller == own}
    return out - {own}


def rows_query(inv: Investigation, service: str) -> str | None:
    """The table's rows this check lacks, in one query: the service's own and its dependencies'.

    Every row of a dependency the service shares with another client: who else writes what it
    reads.
    """
    if (edges := table(inv)) is None or not TOKEN.fullmatch(service):
        return None
    name, caller, callee = edges["table"], edges["caller"], edges["callee"]
    sql = (f"SELECT * FROM {name} WHERE {caller} = '{service}' OR {callee} IN "
           f"(SELECT {callee} FROM {name} WHERE {caller} = '{service}') LIMIT 50")
    return None if inv.called("query_mysql", sql=sql) else sql


def writers(inv: Investigation, service: str) -> dict[str, str]:
    """The other clients of what ``service`` reads from, each with the dependency they share."""
    deps, out = dependencies(inv, service), dict[str, str]()
    for caller, callee, written in _edges(inv):
        if callee in deps:
            out.setdefault(caller, written)
    return {k: v for k, v in out.items() if k and k not in deps and k != service.lower()}


def failed_first(inv: Investigation, service: str, symptom: dict[str, Any]) -> str | None:
    """Why a change of ``service`` is no cause: a dependency failed before its symptom, or None."""
    failures = Failures.of(inv.items("onset_timeline"))
    onset = _onset(failures, service, symptom)
    for dep in sorted(dependencies(inv, service)):
        rows = [r for r in failures.rows.get(dep, []) if not names(r, service)
                and level_of(r) in CAUSE_LEVELS and int(r.get("window_count") or 0) >= MIN_EVENTS]
        if rows and moment(rows[0]["onset"]) <= onset - SAME_MOMENT:
            return f"{dep}, which {service} reads from, failed first ({rows[0]['onset']})"
        moved = [s for s in shifts(inv) if moment(s.get("first_out")) <= onset - SAME_MOMENT
                 and re.fullmatch(rf"{re.escape(dep)}(?:-\w+)?", str(s.get("entity", "")).lower())]
        if moved:
            return (f"{dep}, which {service} reads from, left its baseline first "
                    f"({moved[0].get('metric')} from {moved[0].get('first_out')})")
    for writer, shared in sorted(writers(inv, service).items()):
        rows = [r for r in failures.rows.get(writer, []) if not names(r, service)
                and int(r.get("window_count") or 0) >= MIN_EVENTS
                and onset - WRITER_LEAD <= moment(r["onset"]) <= onset - SAME_MOMENT]
        if rows:
            return (f"{writer}, which also uses {shared} that {service} reads from, failed "
                    f"first ({rows[0]['onset']})")
    return None


def others_failed_first(inv: Investigation, service: str, symptom: dict[str, Any]) -> bool:
    """Whether any other service's failure began before the symptom.

    Then who the service reads from matters: the table's rows must have been read to say it was
    none of them.
    """
    failures = Failures.of(inv.items("onset_timeline"))
    onset = _onset(failures, service, symptom)
    return any(moment(r["onset"]) <= onset - SAME_MOMENT and int(r.get("window_count") or 0)
               >= MIN_EVENTS for name, rows in failures.rows.items()
               if name.lower() != service.lower() for r in rows)


def _onset(failures: Failures, service: str, symptom: dict[str, Any]) -> datetime:
    """When the symptom began: its own pattern's first row, else the service's first failure.

    Not an everyday warning of the service that a long look-back finds new.
    """
    said = terms(str(symptom.get("template", "")))
    rows = sorted(failures.rows.get(service, []), key=lambda r: (
        -len(terms(str(r.get("pattern", ""))) & said), moment(r.get("onset"))))
    if rows and len(terms(str(rows[0].get("pattern", ""))) & said) >= 2:
        return moment(rows[0]["onset"])
    return failures.first(service) if rows else moment(symptom.get("first_seen"))
