"""Runbooks as a platform team writes them: symptoms, usual causes, how to confirm, what to do.

A case lists the ones its world has (by key); a world without the runbook for its failure is a
variant too. ``known-noise`` lists the errors that are always there.
"""

from __future__ import annotations


def _rb(title: str, symptoms: str, causes: str, confirm: str, fix: str) -> str:
    return (f"# {title}\n\n## Symptoms\n\n{symptoms}\n\n## Usual causes\n\n{causes}\n\n"
            f"## How to confirm\n\n{confirm}\n\n## Mitigation\n\n{fix}\n")


RUNBOOKS: dict[str, str] = {
    "db-pool": _rb(
        "Database connection pool exhausted",
        "Requests time out with \"timeout acquiring DB connection from pool\" or \"Connection is "
        "not available, request timed out\"; the pool's active count sits at its maximum.",
        "Usual cause: pool max size lowered by a config change. Also a slow query holding "
        "connections, or a connection leak after a deploy.",
        "Compare the pool's active/max in the errors with the configured max size; look for a "
        "config reload or a config change of the service shortly before the first timeout.",
        "Restore the previous max size; check the database's max_connections first."),
    "deploy-regression": _rb(
        "Errors right after a release",
        "Error rate or latency jumps within minutes of a rollout; new exception types appear.",
        "A regression in the new version: a changed query, a new code path, a missing migration.",
        "Line up the first new error with the deploy's finish time and version; check whether "
        "only pods of the new version fail.",
        "Roll back to the previous version, then investigate."),
    "certificate": _rb(
        "TLS certificate or credential expired",
        "Handshakes fail with \"certificate has expired\", \"x509: certificate has expired or is "
        "not yet valid\" or 401/403 from a partner after a token or key expiry.",
        "A certificate, API key or client secret reached its not_after date; rotation was not "
        "automated or the automation failed silently.",
        "Check the certificate inventory for not_after near the first failure; look for earlier "
        "\"expires in N days\" warnings.",
        "Rotate the certificate or credential and reload the service."),
    "disk-full": _rb(
        "Disk full",
        "Writes fail with \"No space left on device\" (ENOSPC); databases refuse writes, logs "
        "stop, pods get evicted for ephemeral storage.",
        "Log volume grew (a log level set to DEBUG), a retention job stopped, a large dump or "
        "core file was written.",
        "Look at the volume's usage over time and what started writing more before it filled.",
        "Free space (rotate, delete), revert the change that made it grow."),
    "oom": _rb(
        "Out of memory kills",
        "Containers restart with OOMKilled or exit code 137; the JVM logs "
        "\"java.lang.OutOfMemoryError\"; the kernel logs \"Out of memory: Killed process\".",
        "A memory or heap limit lowered, a traffic or payload change, a leak in a new version.",
        "Compare the memory limit and the process's working set; look for limit or heap "
        "changes and deploys before the first kill.",
        "Restore the limit or roll back; then look for the leak."),
    "dns": _rb(
        "DNS resolution failures",
        "\"no such host\", NXDOMAIN, \"Temporary failure in name resolution\", "
        "UnknownHostException.",
        "A record deleted or renamed, a resolver change, a zone transfer or a CoreDNS outage.",
        "Check which name fails and whether it ever resolved; look for DNS record or resolver "
        "changes.",
        "Restore the record or the resolver configuration."),
    "dependency": _rb(
        "A dependency is down",
        "Calls to one upstream fail with 503, connection reset or timeouts while other calls "
        "succeed.",
        "The upstream itself is failing: a crash loop, a failed node, maintenance.",
        "Find the first failing component along the call chain; its own logs show its failure "
        "before its callers'.",
        "Fail over or degrade the feature; page the owning team."),
    "endpoint": _rb(
        "Connection refused",
        "\"connect: connection refused\" or ECONNREFUSED to an internal address.",
        "Nothing listens on that host and port: the service moved, its port changed, the caller's "
        "configuration points at an old address.",
        "Compare the address in the errors with the service's current address and with recent "
        "config changes of either side.",
        "Point the caller at the right address, or restore the old listener."),
    "rate-limit": _rb(
        "Throttled by a rate limit",
        "HTTP 429 Too Many Requests, \"rate limit exceeded\", \"ThrottlingException\".",
        "A limit lowered, or a client sending more than before (a new batch, a retry loop).",
        "Compare the limit in force with the request rate; look for limit changes and new "
        "callers.",
        "Raise the limit or slow the caller down."),
    "quota": _rb(
        "Quota exhausted",
        "\"quota exceeded\", \"RESOURCE_EXHAUSTED\", monthly or daily allowance used up.",
        "Usage grew past a provider or tenant quota; a quota reduced by a plan change.",
        "Look at usage against the quota over the day.",
        "Request a quota increase; shed non-critical usage."),
    "locks": _rb(
        "Lock contention",
        "\"Lock wait timeout exceeded\", \"deadlock detected\", queries waiting on a lock.",
        "A long transaction or a DDL statement (an ALTER or CREATE INDEX without CONCURRENTLY) "
        "holding a table lock.",
        "Find the blocking session and what started it: a migration, a manual job.",
        "Kill the blocking session; run DDL online."),
    "replica-lag": _rb(
        "Replica lag",
        "Reads return stale data; \"replica lag\" alerts; read-after-write checks fail.",
        "A large write on the primary (a backfill, a bulk update) that replicas replay slowly.",
        "Compare the replica lag series with the primary's write volume and with jobs started "
        "before the lag grew.",
        "Pause the bulk write; route reads to the primary."),
    "queue-backlog": _rb(
        "Queue backlog",
        "Consumer lag grows, messages are processed late; producers are fine.",
        "Consumers slowed down or stopped: fewer replicas, a slow downstream, a poison message.",
        "Compare consumer throughput before and after the lag started; check consumer changes.",
        "Scale consumers; park poison messages."),
    "cache": _rb(
        "Cache hit rate collapse",
        "Latency rises and the database takes far more reads; cache hit ratio drops.",
        "A TTL shortened, an eviction policy or cache size changed, a cache flush.",
        "Compare the hit ratio and evictions with cache configuration changes.",
        "Restore the TTL or the size; warm the cache."),
    "cpu": _rb(
        "CPU saturation",
        "Latency rises on every endpoint at once; CPU near 100 %, throttling.",
        "A noisy neighbour on the same node, a CPU limit lowered, a hot loop in new code.",
        "Look at CPU per container and per node; which process is using the CPU.",
        "Move the workload or restore the limit."),
    "clock-skew": _rb(
        "Clock skew",
        "Tokens rejected as \"not yet valid\" or \"expired\" right after issue; signatures fail "
        "on one host only.",
        "NTP stopped or was misconfigured on a host; its clock drifted.",
        "Compare the host's clock offset with the others (chrony/ntpd logs).",
        "Fix time sync, restart the affected services."),
    "feature-flag": _rb(
        "A feature flag turned on",
        "A new error appears for a share of users right after a rollout percentage changes.",
        "The code behind a flag was enabled before it was ready.",
        "Line up flag changes with the first error; check the error's code path.",
        "Turn the flag off."),
    "batch-job": _rb(
        "Batch job overloading the database",
        "Online queries slow down at the same time every night, or when a job is run by hand.",
        "A report, export or reconciliation job scanning large tables on the primary.",
        "Check job runs against the slowdown and the database's active sessions.",
        "Move the job to a replica or off-peak."),
    "network": _rb(
        "Network partition",
        "Timeouts between hosts in different zones, while each zone works on its own.",
        "A network change (security group, route table, firewall rule) or a link failure.",
        "Map which source and destination fail; look for network changes.",
        "Revert the network change; fail over to one zone."),
    "retry-storm": _rb(
        "Retry storm",
        "A small upstream problem becomes an outage: request volume to the upstream multiplies.",
        "Clients retrying immediately with no backoff or jitter, many attempts per request.",
        "Compare the upstream's request rate with the callers' retry configuration and deploys.",
        "Lower retries, add backoff and jitter."),
    "file-descriptors": _rb(
        "Too many open files",
        "\"too many open files\" (EMFILE) on accept or connect.",
        "The process's file limit lowered (LimitNOFILE, ulimit) or a descriptor leak.",
        "Compare open descriptors with the limit; look for limit changes.",
        "Restore the limit; find the leak."),
    "schema-migration": _rb(
        "Errors after a schema migration",
        "\"column does not exist\", \"Unknown column\", \"relation does not exist\".",
        "A migration applied before or after the code that needs it (expand/contract order "
        "broken).",
        "Compare the schema history with the deploys around the first error.",
        "Roll the migration or the code forward or back so both agree."),
    "stale-map": _rb(
        "Map shows stale vehicle positions",
        "Vehicle icons stop moving on the dispatch screen; fleet-map logs \"freshness check "
        "failed\" and serves cached tiles.",
        "A raised tile cache TTL makes the map stale: map.tile_cache.ttl_seconds raised by a "
        "config change keeps old tiles for that long.",
        "Compare the age of the newest position with map.tile_cache.ttl_seconds; look for a "
        "config change of fleet-map before the first freshness error.",
        "Restore the previous TTL and purge the tile cache."),
    "stale-prices": _rb(
        "Stale FX rates in quotes",
        "Quotes are marked indicative; price-api logs \"stale fx rate\" with the rate's age "
        "above its limit.",
        "Usual cause: the rate cache's max age raised by a config change, so old rates are "
        "served for longer.",
        "Compare the rate age in the errors with the cache's max age; look for a config reload "
        "of price-api shortly before.",
        "Restore the max age; force a refresh of the rate cache."),
    "stale-reports": _rb(
        "Reports show old numbers",
        "Sales reports show the previous day's figures; report-api logs \"served with stale "
        "data\".",
        "A raised results_cache_ttl keeps old report results: a reload of report-api's settings "
        "with a longer results_cache_ttl.",
        "Compare the report's age with results_cache_ttl; look for a settings reload of "
        "report-api before the first stale report.",
        "Restore results_cache_ttl and clear the results cache."),
    "stale-catalog": _rb(
        "Product pages show old prices or stock",
        "Customers see prices and stock that do not change; catalog-api logs product pages "
        "\"served stale\".",
        "Usual cause: the page cache TTL raised: catalog.page_cache.ttl_s raised by a config "
        "change keeps rendered pages for that long.",
        "Compare the age of the served page with catalog.page_cache.ttl_s; look for a config "
        "change of catalog-api before the first stale page.",
        "Restore the TTL and purge the page cache."),
    "stale-stock": _rb(
        "Stale stock levels on the storefront",
        "Customers see stock levels that do not move; storefront logs stock \"served from cache\" "
        "as stale.",
        "A raised stock cache TTL: storefront.stock_cache.ttl_s raised by a config change keeps "
        "old stock levels in the cache.",
        "Compare the age of the served stock with storefront.stock_cache.ttl_s; look for a "
        "config change of storefront before the first stale stock line.",
        "Restore the TTL and flush the stock cache."),
    "flat-graphs": _rb(
        "Host graphs flat-lined",
        "Graphs on ops-console stop moving; it logs \"no new points\" and serves cached series.",
        "A raised status cache TTL: console.status_cache.ttl_seconds raised by a config change "
        "serves cached series for that long.",
        "Compare how long the graphs have been flat with console.status_cache.ttl_seconds; look "
        "for a config change of ops-console before the first \"no new points\" line.",
        "Restore the TTL and purge the series cache."),
    "stale-tiles": _rb(
        "Map tiles show old vehicle positions",
        "Vehicles stop moving on the map; tile-server logs \"freshness check failed\" and "
        "serves cached tiles.",
        "A raised tile cache TTL makes the map stale: tiles.cache.ttl_seconds raised by a config "
        "change keeps old tiles for that long.",
        "Compare the age of the newest position with tiles.cache.ttl_seconds; look for a config "
        "change of tile-server before the first freshness error.",
        "Restore the previous TTL and purge the tile cache."),
    "stale-reco": _rb(
        "Recommendations not updating",
        "The home page shows the same recommendations; reco-api logs \"recommendation freshness "
        "check failed\".",
        "A raised cache TTL keeps old recommendations: reco.cache.ttl_seconds raised by a config "
        "change.",
        "Compare the age of the served features with reco.cache.ttl_seconds; look for a config "
        "change of reco-api before the first freshness error.",
        "Restore the TTL and invalidate the recommendation cache."),
    "stale-boards": _rb(
        "Leaderboards not updating",
        "Players see old scores; leaderboard logs \"score freshness check failed\" with boards "
        "served from cache.",
        "A raised cache TTL makes boards stale: leaderboard.cache.ttl_seconds raised by a config "
        "change.",
        "Compare how old the served boards are with the TTL; look for a config change of "
        "leaderboard before the first freshness error.",
        "Restore the TTL and invalidate the board cache."),
    "known-noise": (
        "# Known noise\n\nErrors that are always there and mean nothing on their own.\n\n"
        "## Always there\n\n- metrics exporter \"statsd: flush failed\" on every service\n"
        "- edge 404s from scanners\n- \"client disconnected before response\" warnings\n"),
    "triage": (
        "# Incident triage\n\n## First steps\n\nFind the first failing component and its first "
        "error; then what changed on it shortly before: deploys, config changes, flags, jobs, "
        "certificates.\n\n## Escalation\n\nPage the owning team when the cause is outside your "
        "service.\n"),
}
