"""Locate rule: a root elsewhere must be tied to the service the question asks about.

Needs: a root found system-wide (``onset_root``) while the question names a service that does
not fail itself, and the rows of both: a row of one that names the other, or the dependency
table putting them on one edge (``anomalous_upstream``/``anomalous_downstream`` of a row).
Concludes: abstain when nothing in the data ties the root's failure to the asked service — a
failure elsewhere is another incident, not the answer to this question.
Failure class: a quiet asked service beside an unrelated failure (a noisy neighbour's errors).
Canon cases: trap-quiet-after-change (honest), oom-cgroup-limit (then ``lowered_limit``
concludes on the lowered limit behind the OOM-killed pod).
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.failures import Failures, names
from diagnosis_harness.providers.offline.localize import Abstain, Root


def decide(failures: Failures, service: str | None, root: Root | None) -> Abstain | None:
    """Abstain when the asked, quiet service and the root found elsewhere are not linked."""
    if root is None or not service or service in failures.failing:
        return None
    if not _linked(failures, root.service, service):
        return Abstain("a failure elsewhere that nothing ties to the service asked about")
    return None


def _linked(failures: Failures, root: str, service: str) -> bool:
    """Whether a row of one names the other, or the dependency table puts them on one edge."""
    for s, rows in failures.rows.items():
        for r in rows:
            edges = set(r.get("anomalous_upstream") or []) | set(r.get("anomalous_downstream") or [])
            if (s == root and (names(r, service) or service in edges)) \
                    or (s == service and (names(r, root) or root in edges)):
                return True
    return False
