"""Explain rule: a failure line naming its own mechanism concludes; a generic one is a suspect.

Needs: the localized failure's cause row and first row (pattern and example), with nothing
else behind it (no change, no metric: the rules before this one did not decide).
Concludes: the failure alone, "<service>: <failure> from <onset>", when a row names the
mechanism of the failing component itself (``mechanism.MECHANISM``: expired, no space left,
out of memory, NXDOMAIN, connection refused to a named endpoint, a crash of its own code, a
missing column…) — else abstain: "giving up after retries", an edge's 5xx or "internal error"
say *that* it failed, not how, and a restated generic error is a suspect, not a root cause.
Failure class: DNS failure, connection refused to a moved endpoint, a crash, a missing column
or table — whatever names its mechanism in its own words.
Canon cases: refused-caller-port (concludes); retry-storm-no-backoff (abstains, then
``retry_storm`` concludes on the client's deploy), trap-edge-502-nothing-behind (abstains).
"""

from __future__ import annotations

from diagnosis_harness.providers.offline.investigation import Investigation
from diagnosis_harness.providers.offline.localize import Abstain, Explained, Localized
from diagnosis_harness.providers.offline.mechanism import names_mechanism


def decide(inv: Investigation, found: Localized) -> Explained | Abstain:
    """The failure alone when it names its mechanism; abstain on a generic failure line."""
    if names_mechanism([found.row, found.first]):
        return Explained()
    return Abstain("a generic failure line restated is a suspect, not a root cause")
