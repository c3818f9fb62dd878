"""Locate rule: a client quoting a full server's reply is not where the failure began.

Needs: the root's failure rows (pattern and example) and the kind of server the root is named
after (``failures.kind_of``).
Concludes: abstain when the root quotes another kind of server saying it is full (``FULL_REPLIES``:
redis' "OOM command not allowed", postgres' "too many clients already", mysql's "too many
connections"): the client is not the cause, and what filled the server is not in the client's
words. Only the server's own rows may say it of itself (a redis logging that it reached
maxmemory is its own failure, and this rule lets it through).
Failure class: a dependency full (memory, connection slots) behind its clients' errors.
Canon cases: none (no canon client quotes a full server); it serves the worlds' clients of a
full cache or database.
"""

from __future__ import annotations

import re

from diagnosis_harness.providers.offline.failures import Failures, kind_of
from diagnosis_harness.providers.offline.localize import Abstain, Root

FULL_REPLIES = {
    "redis": re.compile(r"OOM command not allowed|used memory > 'maxmemory'", re.I),
    "postgres": re.compile(r"too many clients already|remaining connection slots are reserved",
                           re.I),
    "mysql": re.compile(r"too many connections", re.I),
}
"""A server's own reply that it is full, as its clients log it, by the server's kind."""


def decide(failures: Failures, service: str | None, root: Root | None) -> Abstain | None:
    """Abstain when the root quotes a full server of another kind."""
    if root is None:
        return None
    kind = kind_of(root.service)
    if any(k != kind and reply.search(f"{r.get('pattern', '')} {r.get('example', '')}")
           for r in failures.rows[root.service] for k, reply in FULL_REPLIES.items()):
        return Abstain("the failure quotes a full server's reply: what filled that server is the cause")
    return None
