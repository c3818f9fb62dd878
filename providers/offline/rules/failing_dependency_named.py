"""Locate rule: a root that names another component with failures of its own is no root.

Needs: the root's failure rows and every other service with failure rows, failing or not
(``Failures.named_by``: by name, by the kind of server a client speaks to, by a failed name
lookup; or a failing server spoken of by its kind, "database unavailable"; not a name said
only as feedback in a loop that time breaks).
Concludes: abstain — the cause may be that other component, and its failure is not shown
well enough to conclude on it (too few events to fail, or not the first).
Failure class: a dependency failing behind its caller (the caller is its symptom).
Canon cases: none (the canon's roots name no other failing component); it serves the
worlds' callers of a dependency that fails too few times to be the root itself.
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.failures import Failures
from diagnosis_harness.providers.offline.localize import Abstain, Root


def decide(failures: Failures, service: str | None, root: Root | None) -> Abstain | None:
    """Abstain when the root names a component that fails too."""
    if root is not None and failures.named_by(root.service):
        return Abstain("the failure names a component that fails too: the cause may be there, unshown")
    return None
