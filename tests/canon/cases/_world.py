"""The everyday services of a small web platform, in the log formats their programs really use.

Cases pick a few and add their own. Chatter is what a healthy service says all day; the WARNs are
the routine ones every team has learned to ignore.
"""

from __future__ import annotations

from dataclasses import replace

from ..spec import Svc


def edge(name: str = "edge", *paths: str) -> Svc:
    """An nginx edge: a combined access log."""
    paths = paths or ("/v1/orders", "/v1/catalog", "/v1/cart")
    return Svc(name, "access", every_s=15,
               chatter=tuple(f"GET {p} 200" for p in paths) + ("POST /v1/orders 201",
                                                                "GET /healthz 200"),
               warns=("GET /wp-login.php 404", "GET /.env 404"), warn_every_s=700)


def java(name: str, thing: str) -> Svc:
    """A Spring service: logback text lines."""
    return Svc(name, "text", every_s=30,
               chatter=(f"{thing} {{id}} created for {{user}} in {{ms}} ms",
                        f"GET /v1/{thing}s/{{id}} 200 in {{ms}} ms",
                        f"{thing} {{id}} updated (status=CONFIRMED)"),
               warns=("HikariPool-1 - Thread starvation or clock leap detected (housekeeper "
                      "delta=1m2s).", f"slow request: POST /v1/{thing}s took {{ms}}3 ms"))


def go(name: str, thing: str) -> Svc:
    """A Go service logging zap-style JSON lines."""
    return Svc(name, "json", every_s=35,
               chatter=(f"{thing} handled id={{id}} duration_ms={{ms}}",
                        f"{thing} lookup ok id={{id}} cache=hit"),
               warns=("client disconnected before response path=/v1/status",))


def gokit(name: str, thing: str) -> Svc:
    """A Go service logging logfmt."""
    return Svc(name, "logfmt", every_s=40,
               chatter=(f"{thing} processed id={{id}} took={{ms}}ms",
                        f"{thing} batch flushed size={{n}}"),
               warns=("statsd: flush failed: buffer full, dropping 12 metrics",))


def py(name: str, thing: str) -> Svc:
    """A Python (gunicorn) service logging JSON lines."""
    return Svc(name, "json", every_s=35,
               chatter=(f"{thing} scored id={{id}} in {{ms}}ms", "GET /health 200"),
               warns=("slow model inference took {ms}9ms",))


def host(name: str) -> Svc:
    """A VM or node: syslog (the tag of each line becomes the event's service)."""
    return Svc(name, "syslog", every_s=300,
               chatter=("systemd[1]: Started Session {n} of user ubuntu.",
                        "CRON[{n}]: (root) CMD (/usr/lib/sysstat/sa1 1 1)",
                        "kubelet[812]: I0000 pod_workers.go:1298] \"SyncLoop (PLEG): relisted\""),
               warns=("kernel: [UFW BLOCK] IN=eth0 OUT= SRC={ip} DST=10.0.1.7 PROTO=TCP DPT=22",),
               warn_every_s=2400)


def events(name: str = "k8s-events") -> Svc:
    """The cluster's event stream (``kubectl get events -o json``), rarely more than scheduling."""
    return Svc(name, "k8s", every_s=600,
               chatter=("Pod default/cron-cleanup-7d9f8b6c5-x2kqp Scheduled: Successfully assigned "
                        "default/cron-cleanup-7d9f8b6c5-x2kqp to node-2",
                        "Pod default/cron-cleanup-7d9f8b6c5-x2kqp Pulled: Container image "
                        "\"registry.acme.io/cleanup:1.4\" already present on machine"))


def postgres(name: str) -> Svc:
    """PostgreSQL's own log (``log_line_prefix = '%m [%p] '``)."""
    return Svc(name, "postgres", every_s=240,
               chatter=("checkpoint starting: time",
                        "checkpoint complete: wrote {n} buffers (0.4%); write=26.9 s",
                        "automatic vacuum of table \"shop.public.sessions\": index scans: 1"),
               warns=("there is no transaction in progress",), warn_every_s=3600)


def noisy(svc: Svc, message: str, every_s: int = 180) -> Svc:
    """The same service, with an error it logs all day long."""
    return replace(svc, noise=message, noise_every_s=every_s)


ARCHETYPES = {"edge": edge, "java": java, "go": go, "gokit": gokit, "py": py, "host": host,
              "events": events, "postgres": postgres}
"""The services a case file names by archetype (``noisy`` wraps one of them)."""
