"""Not a rule: the failure classes' words, in one place (docs/design.md §16, the index).

Each rule reads its class's lexicon here: what a failure line says when a resource ran out,
what a change's key limits, which metric shows it. A lexicon names mechanisms an SRE would
list, never a world's or a case's own words.
"""

from __future__ import annotations

import re

_I = re.I
LIMITED: tuple[tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]], ...] = (
    # (the key limits …, the failure says it ran out …, a metric that shows it)
    (re.compile(r"pool|conns|connections", _I),
     re.compile(r"\bpool\b|connection is not available|acquir\w* (?:a |db )*connection", _I),
     re.compile(r"pool|conn", _I)),
    (re.compile(r"heap|memory|xmx", _I),
     re.compile(r"out of memory|OutOfMemory|OOMKilled|\bevict", _I),
     re.compile(r"evict|oom", _I)),
    (re.compile(r"cpu", _I), re.compile(r"throttl", _I), re.compile(r"cpu_throttl", _I)),
    (re.compile(r"replicas|consumers|concurrency|workers", _I),
     re.compile(r"in queue|backlog|consumer lag", _I), re.compile(r"queue_depth|lag", _I)),
    (re.compile(r"rate|limit_req|rps|qps", _I),
     re.compile(r"\b429\b|too many requests|rate.?limit", _I), re.compile(r"429|throttl", _I)),
    (re.compile(r"ttl|cache", _I), re.compile(r"cache.?miss", _I),
     re.compile(r"hit_ratio|miss", _I)),
)
TIMEOUT_KEY = re.compile(r"timeout", _I)
"""A key that sets a client's timeout: its failure quotes the value set ("after 500 ms")."""
WAITS = re.compile(r"\block\b|lock wait|\blag\b|replica|\bslow\b|took \d|timed? ?out|deadline", _I)
"""A failure that waits on a store: a lock, a replica's lag, slowness, a timeout."""
LOAD = re.compile(r"cpu|io_?wait|disk|lock|lag|sessions|connections|wal|load", _I)
"""A metric of a store's load: what a job running against it drives up."""
TLS = re.compile(r"certificate|PKIX|x509|\btls\b|\bssl|handshake|expired|unauthori[sz]ed|\b401\b",
                 _I)
SAYS_EXPIRED = re.compile(r"(?:api[_ ]?key|credential|certificate|password|secret|licen[cs]e)"
                          r"\w*\W{1,3}(?:\w+\W{1,3}){0,2}?expired|(?:key|credential)_expired", _I)
"""A failure of TLS or of a credential; and one that says the credential expired."""
FLAG = re.compile(r"flag|feature|toggle|experiment|rollout_pct", _I)
"""A change that switches a code path: a feature flag's table, or a change log's kind."""
QUOTA = re.compile(r"quota exceeded|exceeded (?:your |the )?quota|RESOURCE_EXHAUSTED|over quota"
                   r"|quota (?:\w+ )?(?:exhausted|used up)", _I)
"""A failure saying a quota is used up (a daily allowance, a namespace's ResourceQuota)."""
NAMED_QUOTA = re.compile(r"quota:? ([a-z][\w.-]*-quota|[a-z][\w.-]*_quota)\b", _I)
"""The quota's own name in the failure (``exceeded quota: team-media-quota``)."""
FULL_DISK = re.compile(r"no space left on device|\bENOSPC\b|disk (?:is )?full|filesystem (?:is )?full",
                       _I)
"""A failure saying its disk is full."""
FILLS = re.compile(r"log|debug|verbose|trace|archive|retention|wal|rotat|dump|backup|audit", _I)
"""A change of what a component writes to its disk, or of what frees it: log levels and
statement logging, archiving, retention, rotation, dumps."""
