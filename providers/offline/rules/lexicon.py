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
MISSING_OBJECT = re.compile(r"column \"?(?:\w+\.)?(\w+)\"? does not exist|Unknown column '(?:\w+\.)?(\w+)'"
                            r"|no such column: (?:\w+\.)?(\w+)|relation \"?(\w+)\"? does not exist"
                            r"|no such table: (\w+)|Table '(?:\w+\.)?(\w+)' doesn't exist", _I)
"""A failure saying a column or table its code uses does not exist (the name captured)."""
EXHAUSTED = re.compile(r"out ?of ?memory|OutOfMemoryError|too many open files|\bEMFILE\b", _I)
"""A failure saying a process ran out of memory or file descriptors: what it holds grew."""
UNREACHABLE = re.compile(r"time[ds]? ?out|i/o timeout|unreachable|no route to host|connection refused"
                         r"|ECONNREFUSED|EHOSTUNREACH|network is unreachable", _I)
"""A failure to reach an endpoint: a connect timing out or refused, no route."""
NETWORK = re.compile(r"network|firewall|security|polic|\bacl|route|k8s|kube", _I)
"""A table of changes of what may talk to what (``network_changes``, ``k8s_changes``)."""
CUTS = re.compile(r"security group|NetworkPolicy|firewall|iptables|\bingress\b|\begress\b"
                  r"|\bacl\b|route table|\bdeny\b|\brevoke", _I)
"""A change's own words for closing a path: a security group, an egress policy, a deny rule."""
RETRIES = re.compile(r"\bretry|\bretrying|\battempt \S+/\S+", _I)
"""A failure its client retries."""
SHEDS = re.compile(r"too many|rejecting|shedding|saturated|queue (?:is )?full|overload", _I)
"""A callee turning requests away: saturated by what it is sent."""
RATE = re.compile(r"request|rps|qps|calls|throughput", _I)
"""A metric of the requests a component receives."""
LOCK_TIMEOUT = re.compile(r"lock (?:wait )?time[ds]? ?out|could not obtain lock|lock not available",
                          _I)
"""A statement that gave up waiting for a lock."""
DDL = re.compile(r"\b(?:ALTER TABLE|CREATE (?:UNIQUE )?INDEX|DROP (?:TABLE|INDEX)|VACUUM FULL"
                 r"|REINDEX|LOCK TABLE|TRUNCATE)\b", _I)
"""A statement that takes a table's strongest lock while it runs."""
CRASHED = re.compile(r"in recovery mode|crash recovery|terminated by signal|starting up"
                     r"|shutting down|loading the dataset", _I)
"""A server's reply that it crashed and is restarting: what its clients then quote."""
KILLED = re.compile(r"Killed process \S*\s*\(([\w.-]+)\)|([\w.-]+?)(?:\.service)?: Main process exited,"
                    r" code=(?:killed|dumped)|([\w.-]+)\[\d+\]: segfault", _I)
"""A host's line saying a process was killed or crashed, naming the process."""
LISTENS = re.compile(r"listening on (?:\S*?):(\d{2,5})\b", _I)
"""A server's startup line saying the port it listens on."""
SLOW_STATEMENT = re.compile(r"duration: \S+ ms\s+statement:|slow query|Query_time", _I)
"""A database's slow-statement log line."""
UNDECODABLE = re.compile(r"cannot unmarshal|failed to (?:decode|deserializ|parse)|malformed"
                         r"|invalid (?:json|payload|message)|SerializationException"
                         r"|JsonParseException|unexpected token", _I)
"""A consumer that cannot read a message's payload."""
POSITION = re.compile(r"\b(offset|message_id|msg_id|delivery_tag|sequence|seq)[=: ](\w+)"
                      r"|\b(message|msg) ((?=[\w-]*\d)[0-9a-f][\w-]{5,})", _I)
"""Where a message sits in its queue or partition, or which message it is, as its consumer logs
it (``offset=884213``, ``message 6f1e2c0a-93d4``)."""
REDELIVERED = re.compile(r"redeliver|receive ?count|delivery ?count|retrying|requeu|\bnack", _I)
"""A consumer saying the message it failed on comes back: redelivered, requeued, retried."""
SKEWED = re.compile(r"in the future|clock skew|TooSkewed|not yet valid|not valid yet|time difference"
                    r"|skew", _I)
"""A failure saying two clocks disagree (a token issued "in the future", a signed request)."""
CLOCK = re.compile(r"clock (?:wrong|skew|drift|unsynchroni[sz]ed|step)|no selectable sources"
                   r"|\bNTP\b|chronyd|ntpd|timesyncd", _I)
"""A host's line about its clock or its time synchronisation."""
HOST = re.compile(r"\b(?:host|node|server|instance)[=:]\s*([A-Za-z][\w.-]*\d[\w.-]*)", _I)
"""The host a failure names (``host=api-7``)."""
