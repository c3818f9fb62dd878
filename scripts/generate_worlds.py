"""Generate incident worlds for measuring the harness away from its demo.

Deterministic and stdlib only: ``python scripts/generate_worlds.py [OUT_DIR]`` (default
``tests/data/worlds``) writes, byte for byte the same on every run, one dataset folder per world
in the harness's dataset format (docs/design.md §11) plus a ``truth.json`` next to it:

- ``shop/``: a Kubernetes-style web shop (frontend, auth, catalog, cart, checkout, payment-gw,
  inventory, shipping, email-worker, recommendations, redis, postgres, coredns), logs in UTC,
  2026-03-16 00:00 to 2026-03-19 00:00.
- ``pipeline/``: a streaming and batch data platform (ingest-api, a kafka-style broker with its
  coordinator ensemble, schema-registry, stream-enricher, dfs-sink, an hdfs-like dfs-namenode
  and dfs-datanode, scheduler, jobrunner, metastore, warehouse-loader, warehouse), logs in
  Singapore time (+08:00), 2026-04-07 00:00 to 2026-04-10 00:00 SGT.

Every service logs steady background traffic for the whole span, with a diurnal curve, ids,
durations and the host:port of its dependencies; each world has a service that is always noisy
with a harmless error. Incidents are simulated on top: the background keeps running and the
incident's hooks change what the affected calls log, so a failure shows up where the real
dependency chain would show it, at the rate traffic reaches it. Metrics tables are sampled from
the same timeline. Truth entries (id, question, window, root cause, key terms, kind, cause
service, onset, evidence…) are written from the same definitions that drive the simulation.

Only the pure-arithmetic parts of ``random`` are used (``random``, ``randrange``, ``choice``),
never ``hash()`` of strings or set iteration, so the output does not depend on the platform's
libm or on PYTHONHASHSEED.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from worlds import engine  # noqa: E402  (the engine every world is written with)
from worlds.engine import sql_step as sql_ev  # noqa: E402
from worlds.engine import zulu

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "worlds"

SGT = timezone(timedelta(hours=8))

KINDS = ("logs_only", "metrics_deps", "change", "system_wide", "trap_unrelated_change",
         "trap_noisy_service", "trap_late_symptom", "no_incident", "trap_runbook_words")


# --- engine ---------------------------------------------------------------------------------

def ms(n: float) -> timedelta:
    """A duration in milliseconds."""
    return timedelta(milliseconds=n)


def minutes(start: datetime, end: datetime, step: int) -> Iterator[datetime]:
    """Every ``step`` minutes from start (inclusive) to end (exclusive)."""
    t = start
    while t < end:
        yield t
        t += timedelta(minutes=step)


def stable_token(text: str, n: int, alphabet: str = "bcdfghjklmnpqrstvwxz2456789") -> str:
    """A token derived from ``text`` only (md5), for names that must not depend on draw order."""
    digest = hashlib.md5(text.encode("utf-8")).digest()
    value = int.from_bytes(digest, "big")
    out = []
    for _ in range(n):
        value, r = divmod(value, len(alphabet))
        out.append(alphabet[r])
    return "".join(out)


Hook = Callable[..., Any]


class World:
    """One simulated system: a seeded random source, its log lines, hooks and table rows."""

    def __init__(self, name: str, seed: int, zone: timezone, start: datetime, days: int,
                 curve: list[float]) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.zone = zone
        self.start = start
        self.end = start + timedelta(days=days)
        self.curve = curve + curve[:1]
        self.logs: list[tuple[datetime, int, dict[str, Any]]] = []
        self._seq = 0
        self.hooks: list[tuple[str, datetime, datetime, Hook, float]] = []
        self.bends: list[tuple[str, str, str, datetime, datetime, Callable[[datetime, float], float]]] = []
        self.tables: dict[str, tuple[list[str], list[list[Any]]]] = {}
        self.runbooks: dict[str, str] = {}
        self.incidents: list[dict[str, Any]] = []
        self.versions: dict[str, list[tuple[datetime, str]]] = {}
        self.switch: dict[str, datetime] = {}
        self.info_keep = 1.0
        """Share of INFO lines kept while a sampled request flow runs (warnings and errors are all kept)."""

    # time ----------------------------------------------------------------------------------
    def at(self, day: int, hhmm: str, sec: float = 0.0) -> datetime:
        """A moment on the world's ``day``-th day (1-based) in its home zone."""
        h, m = map(int, hhmm.split(":"))
        base = self.start + timedelta(days=day - 1)
        return base.replace(hour=h, minute=m) + timedelta(seconds=sec)

    def stamp(self, t: datetime) -> str:
        """Timestamp as the logs carry it (home zone, milliseconds, explicit offset)."""
        text = t.astimezone(self.zone).isoformat(timespec="milliseconds")
        return text.replace("+00:00", "Z")

    def diurnal(self, t: datetime) -> float:
        """Traffic factor (0..1] for the hour of day in the home zone, linearly interpolated."""
        local = t.astimezone(self.zone)
        h = local.hour + local.minute / 60
        i = int(h)
        f = h - i
        return self.curve[i] * (1 - f) + self.curve[i + 1] * f

    # randomness ----------------------------------------------------------------------------
    def r(self) -> float:
        return self.rng.random()

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: list[Any] | tuple[Any, ...]) -> Any:
        return items[self.rng.randrange(len(items))]

    def weighted(self, items: list[tuple[Any, float]]) -> Any:
        total = sum(w for _, w in items)
        x = self.rng.random() * total
        for item, w in items:
            x -= w
            if x < 0:
                return item
        return items[-1][0]

    def between(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return lo + self.rng.randrange(hi - lo + 1)

    def lat(self, lo: float, hi: float, tail: float = 0.03) -> int:
        """A latency skewed toward ``lo`` with an occasional slow tail (3x)."""
        x = self.rng.random()
        v = lo + (hi - lo) * x * x
        if self.rng.random() < tail:
            v *= 2 + 2 * self.rng.random()
        return max(1, int(v))

    def hexid(self, n: int = 16) -> str:
        return "".join("0123456789abcdef"[self.rng.randrange(16)] for _ in range(n))

    def token(self, n: int, alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") -> str:
        return "".join(alphabet[self.rng.randrange(len(alphabet))] for _ in range(n))

    def count(self, rate: float) -> int:
        """How many events in one minute for an average ``rate`` per minute (low variance)."""
        rate *= 0.7 + 0.6 * self.rng.random()
        n = int(rate)
        return n + (1 if self.rng.random() < rate - n else 0)

    def spread(self, minute: datetime, rate: float) -> list[datetime]:
        """Moments within the minute starting at ``minute`` for an average ``rate``."""
        return sorted(minute + ms(self.rng.randrange(60000)) for _ in range(self.count(rate)))

    def traffic(self, flows: list[tuple[Callable[..., None], float, float]]
                ) -> Iterator[tuple[datetime, float]]:
        """Each minute of the span: the request flows run (INFO kept at each flow's share), then the
        minute and its diurnal load are handed to the caller for the world's own periodic lines."""
        for minute in minutes(self.start, self.end, 1):
            d = self.diurnal(minute)
            for flow, rate, keep in flows:
                self.info_keep = keep
                for t in self.spread(minute, rate * d):
                    flow(self, t)
            self.info_keep = 1.0
            yield minute, d

    def install(self, service: str, version: str, day: int, hhmm: str,
                minutes: int) -> tuple[datetime, datetime, datetime]:
        """A deploy: its start, its end and the moment (halfway) the new version starts serving."""
        started = self.at(day, hhmm)
        finished = started + timedelta(minutes=minutes, seconds=self.between(5, 50))
        switch = started + (finished - started) / 2
        self.versions.setdefault(service, []).append((switch, version))
        return started, finished, switch

    # logs ----------------------------------------------------------------------------------

    def log(self, t: datetime, service: str, level: str, message: str, **attrs: Any) -> None:
        """Add one log line (lines outside the world's span are dropped)."""
        if not self.start <= t < self.end:
            return
        if level == "INFO" and self.info_keep < 1.0 and self.rng.random() >= self.info_keep:
            return
        line: dict[str, Any] = {"ts": self.stamp(t), "service": service, "level": level,
                                "message": message}
        clean = {k: v for k, v in attrs.items() if v is not None}
        if clean:
            line["attrs"] = clean
        self._seq += 1
        self.logs.append((t, self._seq, line))

    def every(self, start: datetime, end: datetime, lo: float, hi: float) -> Iterator[datetime]:
        """Moments from start to end, ``lo``..``hi`` seconds apart."""
        t = start + timedelta(seconds=lo * self.rng.random())
        while t < end:
            yield t
            t += timedelta(seconds=lo + (hi - lo) * self.rng.random())

    # incident machinery --------------------------------------------------------------------
    def on(self, tag: str, start: datetime, end: datetime, fn: Hook, share: float = 1.0) -> None:
        """While ``start <= t < end``, calls through ``tag`` are handled by ``fn`` (a share of them)."""
        self.hooks.append((tag, start, end, fn, share))

    def hook(self, tag: str, t: datetime) -> Hook | None:
        for tg, s, e, fn, share in self.hooks:
            if tg == tag and s <= t < e:
                if share >= 1.0 or self.rng.random() < (share(t) if callable(share) else share):
                    return fn
        return None

    def fails(self, tag: str, t: datetime, c: dict[str, Any], **kw: Any) -> bool:
        """Run the hook for ``tag`` at ``t``, if any; True if the call failed (abort the flow)."""
        fn = self.hook(tag, t)
        if fn is None:
            return False
        return fn(self, t, c, **kw) is not False

    def bend(self, table: str, entity: str, column: str, start: datetime, end: datetime,
             fn: Callable[[datetime, float], float]) -> None:
        """Rewrite a metric of ``entity`` in ``table`` between start and end: value = fn(t, value)."""
        self.bends.append((table, entity, column, start, end, fn))

    def bent(self, table: str, entity: str, column: str, t: datetime, value: float) -> float:
        for tb, en, col, s, e, fn in self.bends:
            if tb == table and en == entity and col == column and s <= t < e:
                value = fn(t, value)
        return value

    def version(self, service: str, t: datetime, default: str) -> str:
        current = default
        for when, v in self.versions.get(service, []):
            if when <= t:
                current = v
        return current

    # output --------------------------------------------------------------------------------
    def write(self, out: Path, manifest: dict[str, Any], truth: dict[str, Any]) -> None:
        engine.write_dataset(out, self.logs, self.tables, self.runbooks, manifest, truth, ascii_manifest=True)


def iso(t: datetime) -> str:
    """A truth-file time: ISO-8601 with the offset of the moment as given."""
    return t.isoformat(timespec="seconds")


def incident(w: World, *, id: str, kind: str, question: str, service: str | None,
             start: datetime, end: datetime, onset: datetime | None, cause_service: str | None,
             root_cause: str | None, key_terms: list[str], distractors: list[str],
             evidence: list[dict[str, Any]], runbook: str | None = None,
             decoy_runbook: str | None = None, runbook_query: str | None = None,
             expected: str = "SUCCESS", note: str | None = None) -> None:
    """Record one truth entry (the simulation is done by the caller)."""
    assert kind in KINDS, kind
    w.incidents.append(engine.incident(
        iso, id, kind, question, service, start, end, onset, cause_service, root_cause, key_terms,
        distractors, runbook, evidence, expected,
        **engine.given(decoy_runbook=decoy_runbook, runbook_query=runbook_query, note=note)))


logs_ev = partial(engine.log_step, iso)


# --- shop -----------------------------------------------------------------------------------

SHOP_CURVE = [0.30, 0.22, 0.17, 0.14, 0.14, 0.17, 0.27, 0.43, 0.60, 0.72, 0.80, 0.86,
              0.90, 0.88, 0.86, 0.88, 0.94, 1.00, 1.00, 0.96, 0.86, 0.70, 0.52, 0.40]

SHOP_PODS = {  # service -> (replicas, nodes)
    "frontend": (3, ("node-a1", "node-a2", "node-a3")), "auth": (2, ("node-a2", "node-a3")),
    "catalog": (3, ("node-a1", "node-a2", "node-a3")), "cart": (3, ("node-a3", "node-a1", "node-a2")),
    "checkout": (2, ("node-a1", "node-a2")), "payment-gw": (2, ("node-a2", "node-a3")),
    "inventory": (2, ("node-a3", "node-a1")), "shipping": (2, ("node-a1", "node-a3")),
    "email-worker": (1, ("node-a2",)), "recommendations": (3, ("node-a2", "node-a3", "node-a1")),
    "coredns": (2, ("infra-node-1", "infra-node-1")),
}

SHOP_INITIAL = {"frontend": "9.39.2", "auth": "2.7.0", "catalog": "1.18.2", "cart": "2.4.0",
                "checkout": "3.7.4", "payment-gw": "5.2.6", "inventory": "2.21.3",
                "shipping": "1.9.3", "email-worker": "1.5.8", "recommendations": "4.11.7",
                "coredns": "1.11.1"}

SKUS = [f"SKU-{10000 + i}" for i in range(1, 401)]
SEARCH_TERMS = ["running shoes", "rain jacket", "yoga mat", "usb-c cable", "espresso beans",
                "desk lamp", "backpack", "wool socks", "headphones", "water bottle", "tent",
                "kids rain boots", "phone case", "air fryer", "notebook a5"]
CATEGORIES = ["shoes", "outdoor", "kitchen", "electronics", "home", "kids", "sport", "office"]
MAIL_DOMAINS = ["gmail.com", "outlook.com", "web.de", "icloud.com", "yahoo.com", "gmx.net"]
CARD_BRANDS = engine.table(None, "si", """
visa | 5
mastercard | 4
amex | 1
maestro | 1
""")


class Shop(World):
    """The shop's services, their pods and request flows."""

    def __init__(self) -> None:
        super().__init__("shop", 20260316, UTC, datetime(2026, 3, 16, tzinfo=UTC), 3, SHOP_CURVE)
        self.deploys: list[list[Any]] = []
        self.changes: list[list[Any]] = []

    def pod(self, service: str, t: datetime) -> str:
        if service == "redis":
            return "redis-cart-0"
        if service == "postgres":
            return "pg-main-0"
        replicas, _nodes = SHOP_PODS[service]
        version = self.version(service, t, SHOP_INITIAL[service])
        rs = stable_token(f"{service}:{version}", 9)
        i = self.rng.randrange(replicas)
        return f"{service}-{rs}-{stable_token(f'{service}:{version}:{i}', 5)}"

    def emit(self, t: datetime, service: str, level: str, message: str, **attrs: Any) -> None:
        """A line of a shop service, with its pod and running version."""
        if service in SHOP_PODS:
            attrs = {"pod": self.pod(service, t),
                     "version": self.version(service, t, SHOP_INITIAL[service]), **attrs}
        else:
            attrs = {"pod": self.pod(service, t), **attrs}
        self.log(t, service, level, message, **attrs)

    def ctx(self) -> dict[str, Any]:
        sku = SKUS[min(int(len(SKUS) * self.r() ** 2.2), len(SKUS) - 1)]
        return {"rid": self.hexid(16), "user": f"u-{self.between(100000, 999999)}",
                "session": "s-" + self.token(12, "abcdefghijklmnopqrstuvwxyz0123456789"),
                "cart": "c-" + self.hexid(10), "sku": sku,
                "host": "www.shop.example" if self.chance(0.7) else "m.shop.example"}


def shop_access(w: Shop, t: datetime, c: dict[str, Any], method: str, path: str, status: int,
                took: int, upstream: str, extra: str = "") -> None:
    """One frontend access line (level from the status)."""
    level = "ERROR" if status >= 500 else ("WARN" if status >= 400 else "INFO")
    tail = f" {extra}" if extra else ""
    w.emit(t, "frontend", level, f"{method} {path} {status} {took}ms upstream={upstream}{tail} "
           f"rid={c['rid']}")


def dns_fail(w: Shop, t: datetime, c: dict[str, Any], caller: str, callee: str, method: str = "",
             path: str = "") -> None:
    """Hook body for the DNS outage: the caller cannot resolve its upstream."""
    port = 6379 if callee == "redis-cart" else (5432 if callee == "pg-main" else 8080)
    ip = f"10.244.{w.between(0, 3)}.{w.between(2, 250)}"
    err = (f"dial tcp: lookup {callee}.shop-prod.svc.cluster.local on 10.96.0.10:53: read udp "
           f"{ip}:{w.between(32768, 60999)}->10.96.0.10:53: i/o timeout")
    if caller == "frontend":
        shop_access(w, t + ms(5000), c, method, path, 502, 5003, f"{callee}:{port}", f"err=\"{err}\"")
    else:
        w.emit(t + ms(5000), caller, "ERROR", f"call to {callee}:{port} failed: {err}")


def shop_dns(w: Shop, t: datetime, c: dict[str, Any], caller: str, callee: str, method: str,
             path: str) -> bool:
    fn = w.hook("dns", t)
    if fn is None:
        return False
    fn(w, t, c, caller=caller, callee=callee, method=method, path=path)
    return True


def flow_home(w: Shop, t: datetime) -> None:
    c = w.ctx()
    if shop_dns(w, t, c, "frontend", "recommendations", "GET", "/"):
        return
    rec = w.lat(14, 70)
    if w.chance(0.3):
        model = "v12" if w.version("recommendations", t, "") >= "4.12" else "v11"
        w.emit(t + ms(rec - 1), "recommendations", "INFO",
               f"recs for {c['user']} model=two-tower-{model} items=12 ({rec}ms)")
    took = rec + w.lat(18, 80)
    shop_access(w, t + ms(took), c, "GET", "/", 200, took, "recommendations:8080")


def flow_product(w: Shop, t: datetime) -> None:
    c = w.ctx()
    if shop_dns(w, t, c, "frontend", "catalog", "GET", f"/product/{c['sku']}"):
        return
    miss = w.chance(0.3)
    db = 0
    if miss:
        slow = w.hook("catalog->postgres", t)
        db = slow(w, t, c) if slow else w.lat(3, 14)
        if db < 0:  # the database refused: catalog answers 503
            shop_access(w, t + ms(40), c, "GET", f"/product/{c['sku']}", 503, 38, "catalog:8080")
            return
    took = (db if miss else 0) + w.lat(2, 12)
    if w.chance(0.5 if miss else 0.15):
        w.emit(t + ms(took), "catalog", "INFO",
               f"GET /v1/products/{c['sku']} 200 {took}ms cache={'miss' if miss else 'hit'}")
    total = took + w.lat(15, 70)
    shop_access(w, t + ms(total), c, "GET", f"/product/{c['sku']}", 200, total, "catalog:8080")


def flow_search(w: Shop, t: datetime) -> None:
    c = w.ctx()
    category = w.chance(0.4)
    if category:
        cat = w.pick(CATEGORIES)
        path = f"/c/{cat}?page={w.between(1, 4)}"
    else:
        term = w.pick(SEARCH_TERMS)
        path = "/search?q=" + term.replace(" ", "+")
    if shop_dns(w, t, c, "frontend", "catalog", "GET", path):
        return
    c["query"] = cat if category else term
    c["path"] = path
    if w.fails("catalog->opensearch", t, c):
        return
    took = w.lat(18, 90)
    if category:
        w.emit(t + ms(took), "catalog", "INFO", f"category {cat}: {w.between(24, 96)} products via "
               f"opensearch-catalog:9200 ({took}ms)")
    else:
        w.emit(t + ms(took), "catalog", "INFO", f"search q=\"{term}\" hits={w.between(3, 480)} "
               f"took={took}ms (opensearch-catalog:9200)")
    total = took + w.lat(15, 60)
    shop_access(w, t + ms(total), c, "GET", path, 200, total, "catalog:8080")


def shop_session(w: Shop, t: datetime, c: dict[str, Any], path: str) -> bool:
    """The BFF checks the session with auth (sampled in auth's log); True if it failed."""
    if w.fails("session-cookie", t, c, path=path):
        pass  # a new session was issued; the request goes on with an empty cart
    if w.fails("auth->postgres", t, c, path=path):
        return True
    if w.chance(0.25):
        w.emit(t + ms(2), "auth", "INFO", f"session {c['session']} valid user={c['user']} "
               f"({w.lat(1, 6)}ms)")
    return False


def flow_cart_view(w: Shop, t: datetime) -> None:
    c = w.ctx()
    if shop_dns(w, t, c, "frontend", "cart", "GET", "/cart"):
        return
    if shop_session(w, t, c, "/cart"):
        return
    if w.fails("cart->redis", t, c, op="read", path="/cart"):
        return
    took = w.lat(1, 6)
    items = 0 if c.get("fresh") else w.between(1, 6)
    w.emit(t + ms(took + 3), "cart", "INFO", f"cart {c['cart']} loaded: {items} items (redis {took}ms)")
    total = took + w.lat(12, 45)
    shop_access(w, t + ms(total), c, "GET", "/cart", 200, total, "cart:8080")


def flow_add(w: Shop, t: datetime) -> None:
    c = w.ctx()
    if shop_dns(w, t, c, "frontend", "cart", "POST", "/cart/items"):
        return
    if shop_session(w, t, c, "/cart/items"):
        return
    if w.fails("cart->redis", t, c, op="write", path="/cart/items"):
        return
    took = w.lat(1, 7)
    qty = w.weighted([(1, 8), (2, 2), (3, 1)])
    w.emit(t + ms(took + 3), "cart", "INFO", f"cart {c['cart']} add {c['sku']} qty={qty} -> "
           f"{w.between(1, 7)} items (redis {took}ms)")
    total = took + w.lat(14, 50)
    shop_access(w, t + ms(total), c, "POST", "/cart/items", 201, total, "cart:8080")


def flow_login(w: Shop, t: datetime) -> None:
    c = w.ctx()
    if shop_dns(w, t, c, "frontend", "auth", "POST", "/login"):
        return
    if w.fails("auth->postgres", t, c, path="/login"):
        return
    took = w.lat(25, 110)
    if w.chance(0.08):
        w.emit(t + ms(took), "auth", "WARN", f"login failed user={c['user']}: bad password "
               f"(attempt {w.between(1, 4)})")
        shop_access(w, t + ms(took + 9), c, "POST", "/login", 401, took + 9, "auth:8080")
        return
    w.emit(t + ms(took), "auth", "INFO",
           f"login ok user={c['user']} mfa={'true' if w.chance(0.3) else 'false'} "
           f"({took}ms)")
    shop_access(w, t + ms(took + 11), c, "POST", "/login", 200, took + 11, "auth:8080")


def flow_order(w: Shop, t: datetime) -> None:
    """Shipping options, then place order (cart, inventory, payment, order row), then the email."""
    c = w.ctx()
    c["order"] = "ord-" + w.token(8)
    c["host"] = "checkout.shop.example"
    c["items"] = w.between(1, 5)
    c["total"] = f"{w.between(6, 240)}.{w.between(0, 99):02d}"
    if shop_dns(w, t, c, "frontend", "checkout", "POST", "/checkout/shipping-options"):
        return
    if shop_session(w, t, c, "/checkout/shipping-options"):
        return
    if w.fails("checkout-empty-cart", t, c):
        return
    if w.fails("checkout->cart", t, c, path="/checkout/shipping-options"):
        return
    cart_ms = w.lat(2, 8)
    if w.chance(0.5):
        w.emit(t + ms(cart_ms), "cart", "INFO", f"cart {c['cart']} loaded: {c['items']} items (redis "
               f"{max(1, cart_ms - 2)}ms)")
    if w.fails("shipping->carrier", t + ms(cart_ms), c):
        return
    carrier = w.lat(90, 320)
    t1 = t + ms(cart_ms + carrier)
    if w.chance(0.6):
        w.emit(t1, "shipping", "INFO", f"quote for {c['cart']}: shipco/standard 4.90 EUR eta=2d, "
               f"shipco/express 9.90 EUR eta=1d (rates.shipco.example:443 {carrier}ms)")
    took = cart_ms + carrier + w.lat(10, 40)
    w.emit(t + ms(took), "checkout", "INFO", f"shipping options for cart {c['cart']}: 2 quotes in "
           f"{took}ms")
    shop_access(w, t + ms(took + 8), c, "POST", "/checkout/shipping-options", 200, took + 8,
                "checkout:8080")

    # place order, 20-90 s later
    t2 = t + timedelta(seconds=w.between(20, 90))
    c["rid"] = w.hexid(16)
    if shop_dns(w, t2, c, "checkout", "inventory", "POST", "/checkout/place"):
        shop_access(w, t2 + ms(5012), c, "POST", "/checkout/place", 502, 5012, "checkout:8080")
        return
    if w.fails("checkout->inventory", t2, c):
        return
    inv = c.pop("inv_ms", None) or w.lat(20, 190, tail=0.06)
    rsv = "rsv-" + w.token(6, "abcdefghjkmnpqrstuvwxyz23456789")
    c["rsv"] = rsv
    w.emit(t2 + ms(inv), "inventory", "INFO", f"reserved {c['sku']} x{min(c['items'], 3)} for "
           f"{c['order']} {rsv} ({inv}ms)")
    t3 = t2 + ms(inv + 5)
    brand = w.weighted(CARD_BRANDS)
    c["brand"] = brand
    if w.fails("payment-gw->psp", t3, c):
        return
    psp = w.lat(180, 650)
    charge = "ch_" + w.token(14, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    if w.chance(0.04):  # ordinary issuer declines
        reason = w.weighted([("insufficient_funds", 4), ("do_not_honor", 3), ("expired_card", 1),
                             ("incorrect_cvc", 2)])
        shop_decline(w, t3, c, psp, reason)
        return
    w.emit(t3 + ms(psp), "payment-gw", "INFO", f"charge {charge} authorized: {c['order']} "
           f"{c['total']} EUR card={brand} psp=paylane (psp-api.paylane.example:443 {psp}ms)")
    t4 = t3 + ms(psp + 10)
    slow = w.hook("checkout->postgres", t4)
    db = slow(w, t4, c) if slow else w.lat(3, 18)
    total = inv + psp + db + w.lat(20, 60)
    w.emit(t2 + ms(total), "checkout", "INFO", f"order {c['order']} placed: {c['items']} items "
           f"total={c['total']} EUR user={c['user']} ({total}ms)")
    if not w.fails("cart->redis", t2 + ms(total), c, op="clear") and w.chance(0.3):
        w.emit(t2 + ms(total + 3), "cart", "INFO", f"cart {c['cart']} cleared after {c['order']}")
    shop_access(w, t2 + ms(total + 9), c, "POST", "/checkout/place", 200, total + 9, "checkout:8080")

    t5 = t2 + ms(total) + timedelta(seconds=w.between(2, 25))
    if w.fails("email-worker->smtp", t5, c):
        return
    send = w.lat(60, 420)
    local = w.token(1, "abcdefghijklmnopqrstuvwxyz")
    w.emit(t5, "email-worker", "INFO", f"sent order_confirmation for {c['order']} to {local}***@"
           f"{w.pick(MAIL_DOMAINS)} via smtp-relay.mail.svc:587 ({send}ms) "
           f"msgid=<{w.hexid(12)}@shop.example>")


def shop_decline(w: Shop, t: datetime, c: dict[str, Any], psp: int, reason: str) -> None:
    detail = ""
    if w.version("payment-gw-verbose", t, "off") == "on":
        detail = (f" psp_response={{\"code\":\"card_declined\",\"decline_code\":\"{reason}\","
                  f"\"network_status\":\"declined_by_network\",\"bin\":\"{w.between(400000, 559999)}\"}}")
    w.emit(t + ms(psp), "payment-gw", "INFO", f"charge for {c['order']} declined: {reason} "
           f"card={c['brand']} psp=paylane (psp-api.paylane.example:443 {psp}ms){detail}")
    w.emit(t + ms(psp + 12), "checkout", "WARN", f"payment declined for {c['order']}: {reason}")
    w.emit(t + ms(psp + 20), "inventory", "INFO", f"released {c['rsv']} for {c['order']}: payment "
           "declined")
    shop_access(w, t + ms(psp + 25), c, "POST", "/checkout/place", 402, psp + 25, "checkout:8080")


SHOP_FLOWS: list[tuple[Callable[[Shop, datetime], None], float, float]] = [
    # flow, requests per minute at the daily peak, share of its INFO lines the logs keep
    (flow_home, 2.0, 0.03), (flow_product, 3.0, 0.04), (flow_search, 1.2, 0.06),
    (flow_cart_view, 1.0, 0.07), (flow_add, 1.0, 0.07), (flow_order, 1.2, 0.09), (flow_login, 0.4, 0.07),
]


def shop_background(w: Shop) -> None:
    """Traffic and the periodic, harmless lines of every service over the whole span."""
    for minute, d in w.traffic(SHOP_FLOWS):
        # The always-noisy one: recommendations' feature-store lookups time out all day.
        for t in w.spread(minute, 0.14 + 0.28 * d):
            w.emit(t, "recommendations", "ERROR", f"featurestore lookup failed for "
                   f"u-{w.between(100000, 999999)}: rpc error: code = DeadlineExceeded desc = context "
                   "deadline exceeded (featurestore.ml.svc:9090); serving popular-items fallback")
        for t in w.spread(minute, 0.03 * d):
            w.emit(t, "frontend", "WARN", f"client aborted GET /product/{w.pick(SKUS)} after "
                   f"{w.lat(800, 4000)}ms (499) rid={w.hexid(16)}")
        for t in w.spread(minute, 0.012 * d):
            w.emit(t, "checkout", "WARN", "deprecated field 'gift_wrap' in request ignored "
                   f"(client=ios/{w.pick(['5.11.2', '5.12.0', '5.12.1'])})")
        for t in w.spread(minute, 0.015 * d):
            w.emit(t, "cart", "WARN",
                   f"cart not found for session s-{w.token(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}; "
                   f"created empty cart c-{w.hexid(10)}")
        for t in w.spread(minute, 0.02 * d):
            w.emit(t, "postgres", "ERROR", "duplicate key value violates unique constraint "
                   "\"orders_idempotency_key_key\" (user=app_checkout db=shop)",
                   detail=f"Key (idempotency_key)=(idk-{w.hexid(12)}) already exists.")
        for t in w.spread(minute, 0.012):
            w.emit(t, "postgres", "INFO", f"duration: {w.between(1000, 1900)}.{w.between(100, 999)} ms  "
                   "statement: SELECT date_trunc('hour', created_at), count(*) FROM orders WHERE "
                   "created_at > now() - interval '7 days' GROUP BY 1 (user=metabase db=shop)")
        for t in w.spread(minute, 0.03 * d):
            name = w.pick(["inventory", "cart", "catalog", "auth", "checkout", "payment-gw",
                           "redis-cart", "pg-main"])
            w.emit(t, "coredns", "INFO", f"[INFO] 10.244.{w.between(0, 3)}.{w.between(2, 250)}:"
                   f"{w.between(32768, 60999)} - {w.between(1000, 65000)} \"A IN {name}.shop-prod.svc."
                   f"cluster.local. udp {w.between(60, 90)} false 1232\" NOERROR qr,aa,rd "
                   f"{w.between(100, 140)} {w.between(80, 400) / 1e6:.6f}s")
        m = minute.minute
        if m % 30 == 7:  # postgres checkpoints
            t = minute + ms(w.between(0, 20000))
            w.emit(t, "postgres", "INFO", "checkpoint starting: time")
            buffers = w.between(300, 2400)
            dur = w.between(2600, 2700) / 10
            w.emit(t + timedelta(seconds=dur), "postgres", "INFO", f"checkpoint complete: wrote "
                   f"{buffers} buffers ({buffers / 163.84:.1f}%); 0 WAL file(s) added, 0 removed, "
                   f"{w.between(0, 2)} recycled; write={dur - 0.1:.3f} s, sync=0.00{w.between(2, 9)} s, "
                   f"total={dur:.3f} s")
        if m % 30 == 11:  # redis RDB saves
            t = minute + ms(w.between(0, 30000))
            pid = w.between(2000, 9000)
            w.emit(t, "redis", "INFO", f"{w.between(100, 4000)} changes in 1800 seconds. Saving...")
            w.emit(t + ms(2), "redis", "INFO", f"Background saving started by pid {pid}")
            w.emit(t + ms(w.between(2700, 2900)), "redis", "INFO", "Background saving terminated "
                   "with success")
        if m % 15 == 3:  # inventory's reservation expiry sweep
            t = minute + ms(w.between(0, 2000))
            if not w.fails("inventory-sweep", t, {}):
                w.emit(t, "inventory", "INFO", f"expiry sweep: released {w.between(0, int(4 + 20 * d))} "
                       f"expired reservations in {w.lat(12, 60)}ms")
        if m == 17:
            w.emit(minute + ms(w.between(0, 9000)), "inventory", "INFO", f"stock sync from "
                   f"wms.warehouse.svc:7443: {w.between(120, 480)} SKUs updated in "
                   f"{w.between(9, 30) / 10:.1f}s")
        if m % 30 == 4:
            w.emit(minute + ms(w.between(0, 9000)), "catalog", "INFO", f"price cache refreshed: "
                   f"{w.between(18200, 18400)} items in {w.between(8, 19) / 10:.1f}s")
        if m % 15 == 6:
            t = minute + ms(w.between(0, 5000))
            if not w.fails("shipping-refresh", t, {}):
                w.emit(t, "shipping", "INFO", f"carrier rate cache refreshed: shipco {w.between(400, 420)} "
                       f"lanes (rates.shipco.example:443 {w.lat(250, 600)}ms)")
        if m % 20 == 8:
            t = minute + ms(w.between(0, 5000))
            if not w.fails("email-outbox", t, {}):
                w.emit(t, "email-worker", "INFO",
                       f"outbox depth={w.between(0, 3)} oldest={w.between(0, 20)}s")
        if m % 30 == 2:
            w.emit(minute + ms(w.between(0, 8000)), "payment-gw", "INFO", "psp health: paylane ok "
                   f"(psp-api.paylane.example:443 p95={w.between(380, 560)}ms)")
        if m == 32:  # auth renews its vault-issued database credentials every hour
            t = minute + ms(w.between(0, 3000))
            if not w.fails("auth-lease", t, {}):
                w.emit(t, "auth", "INFO", "renewed database credentials lease database/creds/auth-role/"
                       f"{w.version('auth-lease', t, '8f2k1')} ttl=3600s (vault.security.svc:8200)")
        if m == 0 and minute.hour % 6 == 0:
            w.emit(minute + ms(w.between(0, 4000)), "recommendations", "WARN",
                   f"model cache stale by {w.between(35, 55)}m, refreshing from s3://ml-models/two-tower")


# --- shop: changes ----------------------------------------------------------------------------

SHOP_DEPLOYS = [  # deploy_id, service, version, started (day, hh:mm), minutes, triggered_by, summary
    ("DEP-2281", "recommendations", "4.12.0", (1, "07:58"), 5, "argo-ci",
     "two-tower model v12, batched feature fetch"),
    ("DEP-2282", "email-worker", "1.6.0", (1, "09:40"), 1, "argo-ci",
     "mjml templates for order_confirmation"),
    ("DEP-2283", "catalog", "1.18.3", (1, "10:44"), 3, "argo-ci", "image CDN URL rewrite"),
    ("DEP-2284", "frontend", "9.40.0", (1, "13:05"), 5, "argo-ci", "PDP layout v2 behind flag pdp_v2"),
    ("DEP-2285", "auth", "2.7.1", (1, "15:30"), 2, "argo-ci", "bump jwt library to 5.2.1"),
    ("DEP-2286", "frontend", "9.40.1", (1, "21:30"), 4, "argo-ci", "checkout page: address autocomplete"),
    ("DEP-2287", "recommendations", "4.12.1", (2, "08:40"), 4, "argo-ci", "fix empty carousel on cold start"),
    ("DEP-2288", "catalog", "1.19.0", (2, "10:02"), 4, "argo-ci", "category facets from opensearch"),
    ("DEP-2289", "checkout", "3.8.0", (2, "10:18"), 3, "argo-ci",
     "inventory client rewrite: per-call timeouts, retries off"),
    ("DEP-2290", "checkout", "3.7.4", (2, "10:47"), 2, "oncall (m.keller)", "rollback of 3.8.0"),
    ("DEP-2291", "payment-gw", "5.3.0", (2, "12:00"), 3, "argo-ci", "3DS2 challenge flow for amex"),
    ("DEP-2292", "checkout", "3.8.1", (2, "15:10"), 3, "argo-ci", "inventory client: timeout 2s, one retry"),
    ("DEP-2293", "checkout", "3.8.2", (2, "20:03"), 2, "argo-ci",
     "order confirmation page: stricter email field validation"),
    ("DEP-2294", "recommendations", "4.13.0", (3, "08:20"), 5, "argo-ci",
     "candidate generation from session events"),
    ("DEP-2295", "frontend", "9.41.0", (3, "11:15"), 4, "argo-ci", "search page: autosuggest v2"),
    ("DEP-2296", "inventory", "2.22.0", (3, "13:55"), 3, "argo-ci",
     "reservation sweep: release expired reservations in one transaction per run"),
    ("DEP-2297", "inventory", "2.21.3", (3, "14:41"), 2, "oncall (a.becker)", "rollback of 2.22.0"),
    ("DEP-2298", "cart", "2.4.1", (3, "16:55"), 3, "argo-ci", "go-redis v9.5 upgrade"),
    ("DEP-2299", "payment-gw", "5.3.1", (3, "19:40"), 2, "argo-ci", "retry PSP 5xx once"),
]

CHECKOUT_CLIENT = {"3.7.4": "timeout=2000ms retries=1 hedging=on",
                   "3.8.0": "timeout=250ms retries=0 hedging=off",
                   "3.8.1": "timeout=2000ms retries=1 hedging=off",
                   "3.8.2": "timeout=2000ms retries=1 hedging=off"}

SHOP_CHANGES = [  # change_id, service, key, old, new, by, when (day, hh:mm, sec) or ISO, ticket
    ("CHG-5102", "cart", "cart.ttl_days", "30", "90", "a.novak", "2026-03-12T10:14:00Z", "SHOP-1422"),
    ("CHG-5110", "recommendations", "hpa.min_replicas", "3", "5", "platform-bot", (1, "07:30", 0), "OPS-881"),
    ("CHG-5111", "frontend", "feature.pdp_v2", "false", "true", "l.moreau", (1, "13:30", 0), "WEB-760"),
    ("CHG-5112", "checkout", "feature.express_pay", "false", "true", "j.schmidt", (1, "14:20", 0), "PAY-410"),
    ("CHG-5113", "payment-gw", "psp.api_key_secret", "psp-live-key@v6", "psp-live-key@v7",
     "secrets-rotator", (1, "14:31", 10), "SEC-902"),
    ("CHG-5114", "payment-gw", "psp.api_key_secret", "psp-live-key@v7", "psp-live-key@v6",
     "oncall (r.silva)", (1, "14:53", 0), "INC-4471"),
    ("CHG-5115", "inventory", "reservation.ttl_minutes", "15", "20", "ops-bot", (2, "09:00", 0), "SHOP-1430"),
    ("CHG-5116", "auth", "session.idle_timeout", "30m", "45m", "k.ito", (2, "13:25", 0), "SEC-915"),
    ("CHG-5117", "redis", "maxmemory", "4gb", "6gb", "oncall (m.keller)", (2, "17:21", 0), "INC-4476"),
    ("CHG-5118", "coredns", "Corefile forward", ". 10.0.0.2", ". /etc/resolv.conf",
     "platform-team", (3, "09:05", 20), "PLAT-1190"),
    ("CHG-5119", "coredns", "Corefile forward", ". /etc/resolv.conf", ". 10.0.0.2",
     "oncall (j.berg)", (3, "09:31", 0), "INC-4480"),
    ("CHG-5120", "catalog", "search.timeout_ms", "800", "1200", "d.weber", (3, "09:50", 0), "SHOP-1441"),
    ("CHG-5121", "frontend", "session.cookie_domain", ".shop.example", "www.shop.example",
     "web-platform", (3, "17:18", 30), "WEB-771"),
    ("CHG-5122", "frontend", "session.cookie_domain", "www.shop.example", ".shop.example",
     "oncall (a.becker)", (3, "17:52", 0), "INC-4483"),
    ("CHG-5123", "payment-gw", "logging.decline_detail", "false", "true",
     "payments-team", (3, "20:26", 0), "PAY-431"),
]


def shop_changes(w: Shop) -> None:
    """The deploys and config changes tables, the versions they install and their log lines."""
    for dep, svc, ver, (day, hhmm), dur, by, summary in SHOP_DEPLOYS:
        started, finished, switch = w.install(svc, ver, day, hhmm, dur)
        image = f"registry.shop.example/{svc}:{ver}"
        w.deploys.append([dep, svc, ver, image, zulu(started), zulu(finished), "SUCCEEDED", by, summary])
        w.switch[dep] = switch
        for i in range(SHOP_PODS[svc][0]):
            t = switch + timedelta(seconds=i * 25 + w.between(0, 9))
            w.emit(t, svc, "INFO", f"starting {svc} {ver} (commit {w.hexid(7)}) on :8080")
            if svc == "checkout":
                w.emit(t + ms(w.between(30, 90)), svc, "INFO", "inventory client: base_url="
                       f"http://inventory:8080 {CHECKOUT_CLIENT[ver]}")
    for cid, svc, key, old, new, by, when, ticket in SHOP_CHANGES:
        t = datetime.fromisoformat(when.replace("Z", "+00:00")) if isinstance(when, str) else w.at(*when)
        w.changes.append([cid, svc, key, old, new, by, zulu(t), ticket])
        if svc in SHOP_PODS and not key.startswith(("hpa.", "Corefile")):
            w.emit(t + ms(w.between(1500, 4000)), svc, "INFO",
                   f"config reloaded: {key}={new} (was {old}) change={cid}")
    w.versions["payment-gw-verbose"] = [(w.at(3, "20:26", 2), "on")]


# --- shop: incidents --------------------------------------------------------------------------

REDIS_IP = "10.0.7.21"


def shop_fail_order(w: Shop, t: datetime, c: dict[str, Any], step: str, status: int, took: int) -> None:
    path = "/checkout/shipping-options" if step == "ship" else "/checkout/place"
    shop_access(w, t + ms(took), c, "POST", path, status, took, "checkout:8080")


def s01_redis_down(w: Shop) -> None:
    t0, t1 = w.at(1, "08:12", 40.3), w.at(1, "08:24", 12.6)
    refused = f"dial tcp {REDIS_IP}:6379: connect: connection refused (redis-cart:6379)"

    def cart_redis(w: Shop, t: datetime, c: dict[str, Any], op: str, path: str = "") -> bool:
        verb = {"read": "HGETALL", "write": "HSET", "clear": "DEL"}[op]
        w.emit(t + ms(2), "cart", "ERROR", f"cart {c['cart']}: redis {verb} cart:{c['cart']}: {refused}")
        if op == "clear":
            w.emit(t + ms(6), "checkout", "WARN", f"order {c['order']} placed but clearing cart "
                   f"{c['cart']} failed: cart:8080 returned 503")
            return True
        shop_access(w, t + ms(9), c, "GET" if op == "read" else "POST", path, 503, 9, "cart:8080")
        return True

    def checkout_cart(w: Shop, t: datetime, c: dict[str, Any], path: str) -> bool:
        w.emit(t + ms(2), "cart", "ERROR", f"cart {c['cart']}: redis HGETALL cart:{c['cart']}: {refused}")
        w.emit(t + ms(8), "checkout", "ERROR", f"load cart {c['cart']} failed: GET "
               f"http://cart:8080/v1/carts/{c['cart']}: 503 Service Unavailable")
        shop_fail_order(w, t, c, "ship", 502, 14)
        return True

    w.on("cart->redis", t0, t1, cart_redis)
    w.on("checkout->cart", t0, t1, checkout_cart)
    for i in range(3):  # each cart pod's readiness probe
        for t in w.every(t0 + timedelta(seconds=3 + i * 7), t1, 30, 30):
            w.log(t, "cart", "WARN", f"readiness probe failed: redis PING: {refused}",
                  pod=f"cart-{stable_token('cart:2.4.0', 9)}-{stable_token(f'cart:2.4.0:{i}', 5)}",
                  version="2.4.0")
    boot = [("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo", 0),
            ("Redis version=7.2.4, bits=64, commit=00000000, modified=0, pid=1, just started", 1),
            ("Server initialized", 40), ("Loading RDB produced by version 7.2.4", 42),
            ("RDB age 813 seconds", 43), ("DB loaded from disk: 1.842 seconds", 1890),
            ("Ready to accept connections tcp", 1893)]
    for text, off in boot:
        w.emit(t1 - ms(1900) + ms(off), "redis", "INFO", text)
    w.emit(t1 + ms(800), "cart", "INFO", "redis connection restored (redis-cart:6379) after 692s; pool "
           "size=80")
    for svc, val in (("cart", 90.0), ("frontend", 7.5), ("checkout", 55.0)):
        w.bend("service_metrics", svc, "error_pct", t0 - timedelta(minutes=3), t1,
               lambda t, v, val=val: val + 4 * (v % 1))
    for col in ("connected_clients", "ops_per_s"):
        w.bend("redis_metrics", "redis-cart", col, t0 - timedelta(minutes=2), t1, lambda t, v: 0)
    q0, q1 = w.at(1, "08:15"), w.at(1, "08:30")
    incident(
        w, id="SHOP-01", kind="logs_only", service="frontend", start=q0, end=q1, onset=t0,
        question="frontend is throwing errors on the cart page — can you check what happened "
                 "between 08:15 and 08:30 UTC on 2026-03-16?",
        cause_service="redis",
        root_cause="redis-cart (redis:6379 on redis-cart-0) stopped accepting connections at 08:12:40: "
                   "cart's redis calls failed with 'connection refused', so the frontend's cart pages "
                   "returned 503 and checkout could not load carts, until redis restarted at 08:24",
        key_terms=["redis", "connection refused"],
        distractors=["recommendations deploy DEP-2281 (4.12.0) at 07:58",
                     "recommendations featurestore DeadlineExceeded errors (always there)"],
        evidence=[logs_ev("cart", q0, q1, "connection refused", level="ERROR"),
                  logs_ev("redis", w.at(1, "08:00"), q1, "Redis is starting", pattern="starting")],
    )


def s02_shipping_tls(w: Shop) -> None:
    t0, t1 = w.at(1, "21:41", 7.2), w.at(1, "22:26", 41.0)
    tls = "tls: failed to verify certificate: x509: certificate signed by unknown authority"

    def carrier(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t + ms(35), "shipping", "ERROR", f"quote for {c['cart']} failed: Post "
               f"\"https://rates.shipco.example:443/v2/quotes\": {tls}")
        w.emit(t + ms(41), "checkout", "ERROR", f"shipping options for cart {c['cart']} failed: "
               "shipping:8080 returned 502 CARRIER_UNAVAILABLE")
        shop_fail_order(w, t, c, "ship", 502, 48)
        return True

    def refresh(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "shipping", "ERROR", "carrier rate cache refresh failed: shipco: Get "
               f"\"https://rates.shipco.example:443/v2/lanes\": {tls}")
        return True

    w.on("shipping->carrier", t0, t1, carrier)
    w.on("shipping-refresh", t0, t1, refresh)
    refresh(w, t0, {})
    w.emit(t0 + ms(3), "shipping", "WARN", "peer certificate chain for rates.shipco.example changed: "
           "issuer=\"CN=ShipCo Issuing CA 2026,O=ShipCo Ltd\" is not in trust bundle "
           "/etc/ssl/carriers/shipco.pem")
    w.emit(t1, "shipping", "INFO", "trust bundle reloaded: /etc/ssl/carriers/shipco.pem (3 certificates)")
    w.bend("service_metrics", "shipping", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 88 + v)
    w.bend("service_metrics", "checkout", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 41 + v)
    q0, q1 = w.at(1, "21:45"), w.at(1, "22:05")
    incident(
        w, id="SHOP-02", kind="logs_only", service="checkout", start=q0, end=q1, onset=t0,
        question="Checkout is showing 'no shipping options available' for a lot of customers. Checkout "
                 "service, 21:45–22:05 UTC, 16 March 2026. What's broken?",
        cause_service="shipping",
        root_cause="shipping could not verify the TLS certificate of the carrier API "
                   "rates.shipco.example:443 (x509: certificate signed by unknown authority — the "
                   "carrier's new issuing CA was not in shipping's trust bundle), so every quote failed "
                   "and checkout got 502 CARRIER_UNAVAILABLE",
        key_terms=["shipping", "certificate"],
        distractors=["frontend deploy DEP-2286 (9.40.1, checkout page address autocomplete) at 21:30"],
        evidence=[logs_ev("shipping", q0, q1, "certificate signed by unknown authority", level="ERROR"),
                  logs_ev("checkout", q0, q1, "CARRIER_UNAVAILABLE", level="ERROR")],
    )


def s03_redis_maxmemory(w: Shop) -> None:
    t0, t1 = w.at(2, "16:52", 31.0), w.at(2, "17:21", 4.0)
    oom = "OOM command not allowed when used memory > 'maxmemory'."

    def writes(w: Shop, t: datetime, c: dict[str, Any], op: str, path: str = "") -> bool:
        if op == "read":
            return False
        verb = "HSET" if op == "write" else "DEL"
        w.emit(t + ms(2), "cart", "ERROR", f"cart {c['cart']}: redis {verb} cart:{c['cart']}: {oom}")
        if op == "clear":
            w.emit(t + ms(6), "checkout", "WARN", f"order {c['order']} placed but clearing cart "
                   f"{c['cart']} failed: cart:8080 returned 500")
            return True
        shop_access(w, t + ms(11), c, "POST", path, 500, 11, "cart:8080")
        return True

    w.on("cart->redis", t0, t1, writes)
    w.bend("service_metrics", "cart", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: 38 + v)
    w.bend("service_metrics", "frontend", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: 4 + v)
    q0, q1 = w.at(2, "16:55"), w.at(2, "17:10")
    incident(
        w, id="SHOP-03", kind="metrics_deps", service="cart", start=q0, end=q1, onset=t0,
        question="Add to cart is broken for a lot of users — cart service, 16:55 to 17:10 UTC on "
                 "17 March 2026. Root cause?",
        cause_service="redis",
        root_cause="redis-cart reached its maxmemory (4096 MB, policy noeviction) at 16:52: every write "
                   "(HSET/DEL) was rejected with 'OOM command not allowed when used memory > maxmemory', "
                   "so adding to cart failed; memory had been climbing since cart TTLs were raised to 90 "
                   "days (CHG-5102), and CHG-5117 raised maxmemory to 6gb at 17:21",
        key_terms=["redis", "memory"],
        distractors=["checkout deploy DEP-2292 (3.8.1) at 15:10",
                     "auth config change CHG-5116 at 13:25"],
        runbook="redis-cart-memory", runbook_query="redis OOM command not allowed maxmemory cart writes",
        evidence=[logs_ev("cart", q0, q1, "OOM command not allowed", level="ERROR"),
                  sql_ev("SELECT ts, used_memory_mb, maxmemory_mb, evicted_keys FROM redis_metrics WHERE "
                         f"ts BETWEEN '{zulu(q0)}' AND '{zulu(q1)}'", "4096")],
    )


def s04_db_disk(w: Shop) -> None:
    t0, t1 = w.at(1, "11:02", 0.0), w.at(1, "11:41", 30.0)

    def slow_db() -> int:
        return w.between(900, 6200)

    def inventory(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        took = slow_db()
        if took > 3000:
            w.emit(t + ms(3000), "inventory", "ERROR", f"reserve {c['sku']} for {c['order']} failed: "
                   "pq: canceling statement due to statement timeout (pg-main:5432, 3000ms)")
            w.emit(t + ms(5000), "checkout", "ERROR", f"reserve stock for {c['order']} failed: POST "
                   "http://inventory:8080/v1/reservations: context deadline exceeded (Client.Timeout "
                   "exceeded while awaiting headers, 5s)")
            shop_fail_order(w, t, c, "place", 504, 5009)
            return True
        w.emit(t + ms(took), "inventory", "WARN", f"slow reservation {c['sku']} for {c['order']}: "
               f"UPDATE stock_levels took {took}ms (pg-main:5432)")
        c["inv_ms"] = took + w.between(2, 9)
        return False

    def catalog(w: Shop, t: datetime, c: dict[str, Any]) -> int:
        took = w.between(300, 2400)
        if took > 1000:
            w.emit(t + ms(took), "catalog", "WARN", f"slow query products_by_sku({c['sku']}) {took}ms "
                   "(pg-main:5432)")
        return took

    def orders(w: Shop, t: datetime, c: dict[str, Any]) -> int:
        return w.between(400, 2500)

    w.on("checkout->inventory", t0, t1, inventory)
    w.on("catalog->postgres", t0, t1, catalog)
    w.on("checkout->postgres", t0, t1, orders)
    for t in w.every(t0 + timedelta(seconds=20), t1, 6, 30):
        table, stmt = w.pick([("stock_levels",
                               "UPDATE stock_levels SET reserved = reserved + $1 WHERE sku = $2"),
                              ("orders",
                               "INSERT INTO orders (id, user_id, total, idempotency_key) VALUES ($1, $2, "
                               "$3, $4)"),
                              ("reservations",
                               "INSERT INTO reservations (id, sku, qty, expires_at) VALUES ($1, $2, $3, $4)"),
                              ("products", "SELECT * FROM products WHERE sku = $1")])
        w.emit(t, "postgres", "INFO", f"duration: {w.between(1100, 6800)}.{w.between(100, 999)} ms  "
               f"statement: {stmt} (db=shop)")
    w.emit(w.at(1, "11:22", 12), "postgres", "INFO", "checkpoint complete: wrote 2211 buffers (13.5%); "
           "0 WAL file(s) added, 0 removed, 1 recycled; write=269.912 s, sync=48.337 s, total=318.401 s")
    w.emit(w.at(1, "11:36", 50), "postgres", "WARN", "checkpoints are occurring too frequently (214 "
           "seconds apart)", hint="Consider increasing the configuration parameter \"max_wal_size\".")
    w.bend("node_metrics", "db-node-1", "disk_await_ms", t0 - timedelta(minutes=2), t1,
           lambda t, v: 180 + 14 * v)
    w.bend("node_metrics", "db-node-1", "cpu_pct", t0 - timedelta(minutes=2), t1, lambda t, v: v + 22)
    w.bend("service_metrics", "inventory", "p99_ms", t0 - timedelta(minutes=2), t1, lambda t, v: 3000 + v)
    w.bend("service_metrics", "checkout", "p99_ms", t0 - timedelta(minutes=2), t1, lambda t, v: 5000 + v)
    w.bend("service_metrics", "checkout", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: 33 + v)
    w.bend("service_metrics", "catalog", "p99_ms", t0 - timedelta(minutes=2), t1, lambda t, v: 1800 + v)
    q0, q1 = w.at(1, "11:10"), w.at(1, "11:30")
    incident(
        w, id="SHOP-04", kind="metrics_deps", service="checkout", start=q0, end=q1, onset=t0,
        question="checkout timeouts spiking 11:10–11:30 UTC, 2026-03-16 — root cause?",
        cause_service="postgres",
        root_cause="the data volume of db-node-1 (pg-main, postgres) slowed down at 11:02 (disk await "
                   "from ~3 ms to 200+ ms): postgres statements took seconds, inventory's reservations "
                   "hit the 3 s statement timeout and checkout timed out calling inventory",
        key_terms=["postgres", "disk"],
        distractors=["catalog deploy DEP-2283 (1.18.3) at 10:44",
                     "recommendations featurestore errors (always there)"],
        runbook="checkout-latency", runbook_query="checkout timeouts inventory slow database disk latency",
        evidence=[logs_ev("checkout", q0, q1, "context deadline exceeded", level="ERROR"),
                  logs_ev("inventory", q0, q1, "statement timeout", level="ERROR"),
                  sql_ev("SELECT ts, node, disk_await_ms FROM node_metrics WHERE node = 'db-node-1' AND ts "
                         f"BETWEEN '{zulu(w.at(1, '10:30'))}' AND '{zulu(q1)}' ORDER BY ts", "db-node-1"),
                  sql_ev("SELECT caller, callee FROM dependencies WHERE caller = 'inventory'", "postgres")],
    )


def s05_checkout_timeout(w: Shop) -> None:
    t0, t1 = w.switch["DEP-2289"], w.switch["DEP-2290"]

    def inventory(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        if w.chance(0.55):
            return False
        real = w.between(251, 700)
        rsv = "rsv-" + w.token(6, "abcdefghjkmnpqrstuvwxyz23456789")
        w.emit(t + ms(250), "checkout", "ERROR", f"reserve stock for {c['order']} failed: POST "
               "http://inventory:8080/v1/reservations: context deadline exceeded (timeout=250ms)")
        w.emit(t + ms(real), "inventory", "INFO", f"reserved {c['sku']} x1 for {c['order']} {rsv} ({real}ms)")
        w.emit(t + ms(real + 40), "inventory", "WARN", f"client gone before response for {c['order']}; "
               f"{rsv} will expire in 20m")
        shop_fail_order(w, t, c, "place", 502, 262)
        return True

    w.on("checkout->inventory", t0, t1, inventory)
    w.bend("service_metrics", "checkout", "error_pct", t0 - timedelta(minutes=2), t1, lambda t, v: 47 + v)
    q0, q1 = w.at(2, "10:25"), w.at(2, "10:45")
    incident(
        w, id="SHOP-05", kind="change", service="checkout", start=q0, end=q1, onset=t0,
        question="Checkout error rate jumped this morning — 2026-03-17 between 10:25 and 10:45 UTC. Why?",
        cause_service="checkout",
        root_cause="deploy DEP-2289 of checkout 3.8.0 (10:18-10:21) set the inventory client's timeout to "
                   "250ms with no retries; inventory itself was healthy but a large share of reservations "
                   "take longer, so checkout gave up with 'context deadline exceeded (timeout=250ms)' "
                   "until the rollback DEP-2290 at 10:47",
        key_terms=["checkout", "3.8.0", "timeout"],
        distractors=["catalog deploy DEP-2288 (1.19.0) at 10:02",
                     "the error text names inventory, which was healthy"],
        evidence=[logs_ev("checkout", q0, q1, "timeout=250ms", level="ERROR"),
                  sql_ev("SELECT deploy_id, service, version, started_at, summary FROM deploys WHERE "
                         f"started_at BETWEEN '{zulu(w.at(2, '09:30'))}' AND '{zulu(q1)}'", "DEP-2289")],
    )


def s06_psp_key(w: Shop) -> None:
    t0, t1 = w.at(1, "14:31", 14.1), w.at(1, "14:53", 3.0)

    def psp(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        took = w.lat(60, 140)
        w.emit(t + ms(took), "payment-gw", "ERROR", f"charge for {c['order']} failed: psp paylane "
               "responded 401 {\"error\":\"invalid_api_key\"} (psp-api.paylane.example:443)")
        w.emit(t + ms(took + 9), "checkout", "ERROR", f"payment for {c['order']} failed: payment-gw "
               "returned 502 PSP_AUTH_ERROR")
        w.emit(t + ms(took + 15), "inventory", "INFO",
               f"released {c['rsv']} for {c['order']}: payment failed")
        shop_fail_order(w, t, c, "place", 502, took + 20)
        return True

    w.on("payment-gw->psp", t0, t1, psp)
    w.emit(t0 - ms(2100), "payment-gw", "INFO", "secret reloaded: psp.api_key_secret version=7 (was 6) "
           "source=vault:kv/payments/psp-live-key")
    w.emit(t1 + ms(2100), "payment-gw", "INFO", "secret reloaded: psp.api_key_secret version=6 (was 7) "
           "source=vault:kv/payments/psp-live-key")
    w.bend("service_metrics", "payment-gw", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 97.0)
    w.bend("psp_metrics", "paylane", "error_ratio", t0 - timedelta(minutes=1), t1, lambda t, v: 0.97)
    w.bend("service_metrics", "checkout", "error_pct", t0 - timedelta(minutes=1), t1, lambda t, v: 61 + v)
    q0, q1 = w.at(1, "14:35"), w.at(1, "14:50")
    incident(
        w, id="SHOP-06", kind="change", service="payment-gw", start=q0, end=q1, onset=t0,
        question="Card payments failing at checkout since ~15:30 CET. payment-gw, "
                 "2026-03-16T15:35+01:00 to 2026-03-16T15:50+01:00 — what happened?",
        cause_service="payment-gw",
        root_cause="config change CHG-5113 (secrets-rotator, 14:31) switched payment-gw's "
                   "psp.api_key_secret to psp-live-key@v7, a key the PSP does not accept: every charge "
                   "got 401 invalid_api_key from psp-api.paylane.example until CHG-5114 rolled it back "
                   "at 14:53",
        key_terms=["payment-gw", "chg-5113", "key"],
        distractors=["checkout config change CHG-5112 (feature.express_pay) at 14:20"],
        runbook="psp-credentials", runbook_query="PSP 401 invalid_api_key after API key rotation",
        evidence=[logs_ev("payment-gw", q0, q1, "invalid_api_key", level="ERROR"),
                  sql_ev("SELECT change_id, service, config_key, old_value, new_value, changed_at FROM "
                         f"config_changes WHERE changed_at BETWEEN '{zulu(w.at(1, '14:00'))}' AND "
                         f"'{zulu(q1)}'", "CHG-5113")],
    )


def s07_auth_vault(w: Shop) -> None:
    t0, t_exp, t1 = w.at(2, "13:32", 14.0), w.at(2, "13:42", 5.0), w.at(2, "14:09", 40.0)
    user = "v-auth-role-8f2k1"
    denied = ("Error making API request. URL: PUT https://vault.security.svc:8200/v1/sys/leases/renew "
              "Code: 403. Errors: * permission denied")

    def lease(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        return True  # renewals are logged below, as the incident has them

    def db(w: Shop, t: datetime, c: dict[str, Any], path: str = "") -> bool:
        w.emit(t + ms(4), "postgres", "FATAL", f"password authentication failed for user \"{user}\"",
               detail=f"Connection matched pg_hba.conf line 12: \"host shop {user} 10.244.0.0/16 "
                      "scram-sha-256\"")
        w.emit(t + ms(6), "auth", "ERROR", f"session lookup failed for {c['session']}: pq: password "
               f"authentication failed for user \"{user}\" (pg-main:5432)")
        if path.startswith("/checkout"):
            w.emit(t + ms(9), "checkout", "ERROR", f"session check for {c['session']} failed: auth:8080 "
                   "returned 503")
        shop_access(w, t + ms(12), c, "POST" if path != "/cart" else "GET", path, 503, 12, "auth:8080")
        return True

    w.on("auth-lease", t0 - timedelta(minutes=1), t1, lease)
    w.versions["auth-lease"] = [(t1, "b71qz")]
    w.on("auth->postgres", t_exp, t1, db)
    w.emit(t0, "auth", "WARN", f"lease renewal for database/creds/auth-role/8f2k1 failed: {denied}; "
           "retrying in 120s (lease expires 13:42:05Z)")
    t = t0
    while True:
        t += timedelta(seconds=120 + w.between(0, 2))
        if t >= t_exp:
            break
        w.emit(t, "auth", "WARN", f"lease renewal for database/creds/auth-role/8f2k1 failed: {denied}; "
               "retrying in 120s")
    w.emit(t_exp, "auth", "ERROR", "database credentials expired (lease database/creds/auth-role/8f2k1); "
           "requesting new credentials failed: Code: 403. Errors: * permission denied "
           "(vault.security.svc:8200)")
    for t in w.every(t_exp + timedelta(seconds=30), t1, 60, 60):
        w.emit(t, "auth", "ERROR", "requesting new database credentials from vault.security.svc:8200 "
               "failed: Code: 403. Errors: * permission denied")
    w.emit(t1, "auth", "INFO", "obtained database credentials lease database/creds/auth-role/b71qz "
           "ttl=3600s (vault.security.svc:8200)")
    for svc, val in (("auth", 71.0), ("frontend", 22.0), ("cart", 0.0), ("checkout", 58.0)):
        if val:
            w.bend("service_metrics", svc, "error_pct", t_exp - timedelta(minutes=2), t1,
                   lambda t, v, val=val: val + v)
    q0, q1 = w.at(2, "13:45"), w.at(2, "14:05")
    incident(
        w, id="SHOP-07", kind="system_wide", service=None, start=q0, end=q1, onset=t0,
        question="Something broke in the shop between 13:45 and 14:05 UTC on 2026-03-17 — what is the "
                 "root cause?",
        cause_service="auth",
        root_cause="auth's vault-issued postgres credentials (lease database/creds/auth-role/8f2k1) could "
                   "not be renewed — vault.security.svc:8200 answered 403 permission denied from 13:32 — "
                   "and expired at 13:42; auth then failed every session lookup (password authentication "
                   "failed for user v-auth-role-8f2k1), so logins, carts and checkout failed across the "
                   "shop until new credentials were issued at 14:09",
        key_terms=["auth", "vault"],
        distractors=["auth config change CHG-5116 (session.idle_timeout) at 13:25",
                     "postgres FATAL password authentication errors (a symptom, not the cause)"],
        evidence=[logs_ev("auth", w.at(2, "13:30"), q1, "permission denied", pattern="vault"),
                  logs_ev("postgres", q0, q1, "password authentication failed", level="ERROR")],
    )


def s08_coredns_loop(w: Shop) -> None:
    t_change, t0, t1 = w.at(3, "09:05", 20.0), w.at(3, "09:05", 38.0), w.at(3, "09:31", 20.0)

    w.on("dns", t0 + timedelta(seconds=3), t1, dns_fail, share=0.55)
    sha = stable_token("corefile-resolv", 32, "0123456789abcdef")
    for i in range(2):
        pod = f"coredns-{stable_token('coredns:1.11.1', 9)}-{stable_token(f'coredns:1.11.1:{i}', 5)}"
        w.log(t0 + ms(i * 900), "coredns", "INFO", "[INFO] Reloading", pod=pod, version="1.11.1")
        w.log(t0 + ms(i * 900 + 40), "coredns", "INFO", f"[INFO] plugin/reload: Running configuration "
              f"SHA512 = {sha}", pod=pod, version="1.11.1")
        t = t0 + ms(i * 900 + 300)
        backoff = 10
        while t < t1:
            port = w.between(40000, 60000)
            q = f"{w.between(10**18, 10**19 - 1)}.{w.between(10**18, 10**19 - 1)}."
            w.log(t, "coredns", "FATAL", f"[FATAL] plugin/loop: Loop (127.0.0.1:{port} -> :53) detected "
                  "for zone \".\", see https://coredns.io/plugins/loop#troubleshooting. Query: \"HINFO "
                  f"{q}\"",
                  pod=pod, version="1.11.1")
            t += timedelta(seconds=backoff + w.between(1, 4))
            w.log(t, "coredns", "INFO", ".:53", pod=pod, version="1.11.1")
            w.log(t + ms(3), "coredns", "INFO", "CoreDNS-1.11.1", pod=pod, version="1.11.1")
            w.log(t + ms(5), "coredns", "INFO", "linux/amd64, go1.20.7, ae2bbc2", pod=pod, version="1.11.1")
            t += ms(w.between(200, 900))
            backoff = min(backoff * 2, 300)
    for i in range(2):
        pod = f"coredns-{stable_token('coredns:1.11.1', 9)}-{stable_token(f'coredns:1.11.1:{i}', 5)}"
        w.log(t1 + ms(2000 + i * 700), "coredns", "INFO", f"[INFO] plugin/reload: Running configuration "
              f"SHA512 = {stable_token('corefile-upstream', 32, '0123456789abcdef')}", pod=pod,
              version="1.11.1")
    for svc in ("frontend", "checkout", "cart", "catalog", "auth", "inventory"):
        w.bend("service_metrics", svc, "error_pct", t0 - timedelta(minutes=1), t1,
               lambda t, v: 30 + 5 * v)
    w.bend("node_metrics", "infra-node-1", "cpu_pct", t0 - timedelta(minutes=5), t1, lambda t, v: v + 30)
    q0, q1 = w.at(3, "09:10"), w.at(3, "09:30")
    incident(
        w, id="SHOP-08", kind="system_wide", service=None, start=q0, end=q1, onset=t_change,
        question="Which component failed? Lots of alerts firing across the shop 2026-03-18 09:10–09:30 UTC.",
        cause_service="coredns",
        root_cause="config change CHG-5118 (09:05) made coredns forward to /etc/resolv.conf, which points "
                   "back at itself: coredns' loop plugin detected a forwarding loop and the coredns pods "
                   "crash-looped, so cluster DNS lookups (10.96.0.10:53) timed out for every service until "
                   "CHG-5119 reverted it at 09:31",
        key_terms=["coredns", "loop"],
        distractors=["catalog config change CHG-5120 at 09:50 (after the onset)",
                     "recommendations deploy DEP-2294 at 08:20"],
        evidence=[logs_ev("coredns", q0, q1, "Loop", level="FATAL"),
                  logs_ev("checkout", q0, q1, "10.96.0.10:53", level="ERROR"),
                  sql_ev("SELECT change_id, service, config_key, new_value, changed_at FROM config_changes "
                         f"WHERE changed_at BETWEEN '{zulu(w.at(3, '08:30'))}' AND '{zulu(q1)}'",
                         "CHG-5118")],
    )


def s09_smtp(w: Shop) -> None:
    t0, t1 = w.at(2, "20:08", 20.0), w.at(2, "20:47", 10.0)
    backlog = {"n": 0}

    def smtp(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        backlog["n"] += 1
        w.emit(t + ms(10000), "email-worker", "ERROR", f"send order_confirmation for {c['order']} failed: "
               "dial tcp 10.12.0.25:587: i/o timeout (smtp-relay.mail.svc:587); requeued attempt=1")
        return True

    def outbox(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        return True

    w.on("email-worker->smtp", t0, t1, smtp)
    w.on("email-outbox", t0, t1, outbox)
    depth = 4
    for t in w.every(t0 + timedelta(seconds=40), t1, 60, 61):
        depth += w.between(2, 9)
        w.emit(t, "email-worker", "WARN", f"outbox backlog {depth} messages, oldest "
               f"{int((t - t0).total_seconds() // 60) + 1}m; smtp-relay.mail.svc:587 unreachable")
        w.emit(t + ms(10500), "email-worker", "ERROR", "retry batch failed: dial tcp 10.12.0.25:587: i/o "
               f"timeout (smtp-relay.mail.svc:587); {w.between(3, 12)} messages requeued")
    w.emit(t1, "email-worker", "INFO",
           f"smtp-relay.mail.svc:587 reachable again; draining outbox ({depth} messages)")
    w.bend("service_metrics", "email-worker", "error_pct", t0 - timedelta(minutes=3), t1, lambda t, v: 100.0)
    q0, q1 = w.at(2, "20:10"), w.at(2, "20:30")
    incident(
        w, id="SHOP-09", kind="trap_unrelated_change", service="email-worker", start=q0, end=q1, onset=t0,
        question="Order confirmation emails stopped going out right after tonight's checkout release — "
                 "email-worker between 20:10 and 20:30 UTC on 2026-03-17. Is the release to blame?",
        cause_service="email-worker",
        root_cause="email-worker could not connect to the SMTP relay smtp-relay.mail.svc:587 (dial tcp "
                   "10.12.0.25:587: i/o timeout) from 20:08; the checkout release was unrelated — orders "
                   "were placed normally and only the email sends failed",
        key_terms=["email-worker", "smtp"],
        distractors=["checkout deploy DEP-2293 (3.8.2, 'order confirmation page: stricter email field "
                     "validation') at 20:03"],
        evidence=[logs_ev("email-worker", q0, q1, "smtp-relay.mail.svc:587", level="ERROR"),
                  sql_ev("SELECT ts, service, error_pct FROM service_metrics WHERE service IN ('checkout', "
                         f"'email-worker') AND ts BETWEEN '{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts",
                         "email-worker")],
    )


def s10_reindex(w: Shop) -> None:
    t0, t1 = w.at(3, "11:27", 5.0), w.at(3, "11:49", 9.0)
    t_err = t0 + timedelta(seconds=52)

    def rejected(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        if w.chance(0.25):
            return False
        took = w.lat(3, 15)
        w.emit(t + ms(took), "catalog", "ERROR", f"search q=\"{c['query']}\" failed: "
               "opensearch-catalog:9200 returned 429 Too Many Requests: es_rejected_execution_exception "
               "(search thread pool queue full, queue_size=1000)")
        shop_access(w, t + ms(took + 5), c, "GET", c["path"], 502, took + 5, "catalog:8080")
        return True

    w.on("catalog->opensearch", t_err, t1, rejected)
    w.emit(t0, "catalog", "INFO", "reindex job products-full started: 48211 documents, bulk_size=5000, "
           "refresh_interval=-1, target=products-v43 (opensearch-catalog:9200)")
    done = 0
    for t in w.every(t0 + timedelta(seconds=30), t1, 29, 33):
        done = min(48211, done + w.between(900, 1300))
        w.emit(t, "catalog", "INFO", f"reindex products-full: {done}/48211 documents, bulk p99 "
               f"{w.between(2800, 9000)}ms")
    w.emit(t1, "catalog", "INFO", "reindex products-full finished in 22m04s; alias products -> products-v43")
    w.bend("service_metrics", "catalog", "error_pct", t_err - timedelta(minutes=3), t1, lambda t, v: 24 + v)
    w.bend("service_metrics", "catalog", "p99_ms", t0 - timedelta(minutes=3), t1, lambda t, v: v + 900)
    w.bend("service_metrics", "frontend", "error_pct", t_err - timedelta(minutes=3), t1, lambda t, v: 9 + v)
    q0, q1 = w.at(3, "11:30"), w.at(3, "11:50")
    incident(
        w, id="SHOP-10", kind="trap_noisy_service", service="frontend", start=q0, end=q1, onset=t0,
        question="frontend throwing 5xx on search and category pages 11:30-11:50 UTC on 2026-03-18. "
                 "recommendations has been spewing errors all morning — is that it?",
        cause_service="catalog",
        root_cause="catalog's full reindex job (products-full, started 11:27, bulk_size=5000) saturated "
                   "opensearch-catalog:9200: search requests were rejected with 429 "
                   "es_rejected_execution_exception (search queue full), so search and category pages "
                   "failed; the recommendations featurestore errors are the usual noise",
        key_terms=["opensearch", "reindex"],
        distractors=["recommendations featurestore DeadlineExceeded errors (always there)",
                     "frontend deploy DEP-2295 (9.41.0, search page autosuggest v2) at 11:15",
                     "catalog config change CHG-5120 (search.timeout_ms) at 09:50"],
        evidence=[logs_ev("catalog", q0, q1, "es_rejected_execution_exception", level="ERROR"),
                  logs_ev("catalog", w.at(3, "11:20"), q1, "reindex job products-full started",
                          pattern="reindex")],
    )


def s11_sweep_deadlock(w: Shop) -> None:
    t0, t_sym, t1 = w.at(3, "14:02", 0.4), w.at(3, "14:11", 40.0), w.at(3, "14:42", 30.0)
    stuck = {"n": 0}

    def sweep(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        return True

    def reserve(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        share = min(0.85, 0.2 + (t - t_sym).total_seconds() / 900)
        if t < t_sym or not w.chance(share):
            return False
        took = w.lat(6, 30)
        reserved = 60 + stuck["n"] // 3
        w.emit(t + ms(took), "inventory", "INFO", f"reservation rejected {c['sku']} for {c['order']}: "
               f"requested=1 available=0 reserved={reserved}")
        w.emit(t + ms(took + 6), "checkout", "ERROR", f"place order {c['order']} failed: inventory "
               f"rejected reservation: 409 INSUFFICIENT_STOCK sku={c['sku']} available=0")
        shop_fail_order(w, t, c, "place", 409, took + 12)
        return True

    w.on("inventory-sweep", t0 - timedelta(seconds=30), t1, sweep)
    w.on("checkout->inventory", t_sym, t1, reserve)
    t = t0
    while t < t1:
        stuck["n"] += w.between(40, 70)
        w.emit(t, "postgres", "ERROR", "deadlock detected (user=app_inventory db=shop)",
               detail=f"Process {w.between(20000, 30000)} waits for ShareLock on transaction "
                      f"{w.between(9000000, 9900000)}; blocked by process {w.between(20000, 30000)}.",
               statement="UPDATE stock_levels SET reserved = reserved - r.qty FROM reservations r WHERE ...")
        w.emit(t + ms(1200), "inventory", "WARN", f"expiry sweep failed after 1.2s: pq: deadlock detected "
               f"(released 0 of {stuck['n']} expired reservations); next run in 120s")
        t += timedelta(seconds=120 + w.between(0, 2))
    w.emit(t1 + timedelta(seconds=30), "inventory", "INFO", f"expiry sweep: released {stuck['n']} expired "
           "reservations in 3412ms")
    w.bend("service_metrics", "checkout", "error_pct", t_sym - timedelta(minutes=2), t1,
           lambda t, v: v + min(70, (t - t_sym).total_seconds() / 18))
    q0, q1 = w.at(3, "14:15"), w.at(3, "14:35")
    incident(
        w, id="SHOP-11", kind="trap_late_symptom", service="checkout", start=q0, end=q1, onset=t0,
        question="Lots of orders failing with out-of-stock at checkout 14:15–14:35 UTC on 2026-03-18, but "
                 "the warehouse says the items are on the shelf. Why?",
        cause_service="inventory",
        root_cause="inventory 2.22.0 (deploy DEP-2296, 13:55) changed the reservation-expiry sweep to one "
                   "big transaction; from 14:02 every sweep failed with 'deadlock detected', expired "
                   "reservations were never released and stock read as 0 available, so from ~14:12 "
                   "checkout's reservations were rejected with 409 INSUFFICIENT_STOCK",
        key_terms=["inventory", "deadlock"],
        distractors=["recommendations deploy DEP-2294 at 08:20",
                     "the loud 409 INSUFFICIENT_STOCK errors in checkout (a symptom that starts ~10 "
                     "minutes after the cause)"],
        evidence=[logs_ev("inventory", w.at(3, "14:00"), q1, "deadlock detected", level="WARN"),
                  logs_ev("checkout", q0, q1, "INSUFFICIENT_STOCK", level="ERROR"),
                  sql_ev("SELECT deploy_id, service, version, started_at FROM deploys WHERE service = "
                         f"'inventory' AND started_at BETWEEN '{zulu(w.at(3, '13:00'))}' AND '{zulu(q1)}'",
                         "DEP-2296")],
    )


def s12_quiet(w: Shop) -> None:
    q0, q1 = w.at(3, "03:00"), w.at(3, "03:20")
    incident(
        w, id="SHOP-12", kind="no_incident", service="checkout", start=q0, end=q1, onset=None,
        question="Got paged for checkout p99 at 03:05 UTC on 2026-03-18 — can you check 03:00–03:20 and "
                 "tell me if something is actually wrong?",
        cause_service=None, root_cause=None, key_terms=[],
        distractors=["recommendations featurestore errors (always there)",
                     "postgres duplicate key errors on orders_idempotency_key (client retries)"],
        evidence=[], expected="FALLBACK",
        note="normal night traffic only: no errors beyond the usual noise, metrics at baseline, no changes",
    )


def s13_cookie_domain(w: Shop) -> None:
    t0, t1 = w.at(3, "17:18", 32.0), w.at(3, "17:52", 3.0)

    def cookie(w: Shop, t: datetime, c: dict[str, Any], path: str) -> bool:
        if c["host"] == "www.shop.example":
            return False
        c["fresh"] = True
        old = c["session"]
        c["session"] = "s-" + w.token(12, "abcdefghijklmnopqrstuvwxyz0123456789")
        w.emit(t, "frontend", "INFO", f"new session {c['session']} issued: no session cookie on request "
               f"host={c['host']} path={path}")
        if w.chance(0.6):
            w.emit(t + ms(4), "cart", "WARN", f"cart not found for session {c['session']}; created empty "
                   f"cart c-{w.hexid(10)}")
        c["old_session"] = old
        return False

    def empty(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        if not c.get("fresh"):
            return False
        w.emit(t + ms(8), "checkout", "WARN", f"checkout started with empty cart for session "
               f"{c['session']} (host={c['host']}); redirecting to /cart")
        shop_access(w, t + ms(12), c, "POST", "/checkout/shipping-options", 409, 12, "checkout:8080")
        return True

    w.on("session-cookie", t0, t1, cookie)
    w.on("checkout-empty-cart", t0, t1, empty)
    w.bend("service_metrics", "checkout", "error_pct", t0 - timedelta(minutes=3), t1, lambda t, v: v + 12)
    q0, q1 = w.at(3, "17:25"), w.at(3, "17:45")
    incident(
        w, id="SHOP-13", kind="trap_runbook_words", service="cart", start=q0, end=q1, onset=t0,
        question="Customers say their carts are emptying when they go to checkout — cart service, 17:25 "
                 "to 17:45 UTC, 2026-03-18. Root cause please.",
        cause_service="frontend",
        root_cause="config change CHG-5121 (17:18) set frontend's session.cookie_domain to "
                   "www.shop.example (was .shop.example): requests to checkout.shop.example and "
                   "m.shop.example no longer carried the session cookie, so they got new sessions with "
                   "empty carts; redis was healthy (no evictions)",
        key_terms=["cookie", "domain"],
        distractors=["runbook cart-contents-lost (redis evictions) matches the symptom's words",
                     "cart deploy DEP-2298 (2.4.1, go-redis upgrade) at 16:55"],
        decoy_runbook="cart-contents-lost", runbook_query="customers losing carts cart not found empty cart",
        evidence=[logs_ev("frontend", w.at(3, "17:10"), q1, "session.cookie_domain=www.shop.example",
                          pattern="cookie_domain"),
                  logs_ev("cart", q0, q1, "cart not found", level="WARN"),
                  sql_ev("SELECT instance, max(evicted_keys) AS max_evicted, max(used_memory_mb) AS "
                         f"max_used_mb FROM redis_metrics WHERE ts BETWEEN '{zulu(q0)}' AND '{zulu(q1)}' "
                         "GROUP BY instance", "redis-cart")],
    )


def s14_declines(w: Shop) -> None:
    t0, t1 = w.at(3, "20:30", 10.0), w.at(3, "20:58", 0.0)

    def declines(w: Shop, t: datetime, c: dict[str, Any]) -> bool:
        if not w.chance(0.16):
            return False
        psp = w.lat(200, 700)
        shop_decline(w, t, c, psp, w.weighted([("do_not_honor", 6), ("generic_decline", 3),
                                                ("insufficient_funds", 1)]))
        return True

    w.on("payment-gw->psp", t0, t1, declines)
    w.bend("psp_metrics", "paylane", "decline_ratio", t0 - timedelta(minutes=1), t1,
           lambda t, v: v + 0.15)
    q0, q1 = w.at(3, "20:30"), w.at(3, "20:50")
    incident(
        w, id="SHOP-14", kind="trap_unrelated_change", service="payment-gw", start=q0, end=q1, onset=t0,
        question="Decline rate on payment-gw jumped from ~4% to almost 20% right after 20:30 UTC on "
                 "2026-03-18 — what's causing it? Window 20:30–20:50.",
        cause_service="paylane (external PSP)",
        root_cause="not determinable from this data: the PSP returned ordinary issuer declines "
                   "(mostly do_not_honor) spread over every card brand and BIN; nothing in our services "
                   "changed how charges are made — CHG-5123 (logging.decline_detail, 20:26) only adds the "
                   "PSP's payload to decline log lines",
        key_terms=[],
        distractors=["payment-gw config change CHG-5123 (logging.decline_detail) at 20:26",
                     "payment-gw deploy DEP-2299 (5.3.1, retry PSP 5xx once) at 19:40"],
        evidence=[logs_ev("checkout", q0, q1, "payment declined", level="WARN"),
                  sql_ev("SELECT ts, charges, declines FROM psp_metrics WHERE ts BETWEEN "
                         f"'{zulu(w.at(3, '20:00'))}' AND '{zulu(q1)}' ORDER BY ts", "declines")],
        expected="FALLBACK",
        note="the right answer is a FALLBACK (or the issuer side); blaming CHG-5123 or DEP-2299 is wrong",
    )


SHOP_INCIDENTS = [s01_redis_down, s02_shipping_tls, s03_redis_maxmemory, s04_db_disk,
                  s05_checkout_timeout, s06_psp_key, s07_auth_vault, s08_coredns_loop, s09_smtp,
                  s10_reindex, s11_sweep_deadlock, s12_quiet, s13_cookie_domain, s14_declines]


# --- shop: tables and runbooks ----------------------------------------------------------------

SHOP_BASE = {  # rps, p50_ms, p99_ms, error_pct, cpu_pct at peak
    "frontend": (140, 48, 420, 0.25, 38), "auth": (95, 3, 24, 0.05, 18),
    "catalog": (110, 11, 150, 0.08, 33), "cart": (42, 3, 19, 0.06, 14),
    "checkout": (7.5, 340, 1450, 0.3, 22), "payment-gw": (6.2, 410, 1650, 0.2, 9),
    "inventory": (14, 24, 430, 0.1, 19), "shipping": (7.1, 170, 690, 0.15, 8),
    "email-worker": (1.9, 190, 880, 0.1, 4), "recommendations": (55, 31, 2300, 4.8, 52),
}

SHOP_NODES = {  # cpu, mem, disk used, disk await
    "node-a1": (34, 63, 41.0, 1.8), "node-a2": (37, 66, 44.0, 1.7), "node-a3": (32, 61, 39.5, 1.9),
    "infra-node-1": (14, 38, 28.0, 1.2), "db-node-1": (26, 79, 61.0, 3.4), "redis-node-1": (11, 0, 22.0, 0.9),
}

SHOP_DEPENDENCIES = engine.rows("""
    frontend        | auth               | http     | auth:8080
    frontend        | catalog            | http     | catalog:8080
    frontend        | cart               | http     | cart:8080
    frontend        | checkout           | http     | checkout:8080
    frontend        | recommendations    | http     | recommendations:8080
    auth            | postgres           | postgres | pg-main:5432
    auth            | vault              | https    | vault.security.svc:8200
    catalog         | postgres           | postgres | pg-main:5432
    catalog         | opensearch-catalog | http     | opensearch-catalog:9200
    cart            | redis              | redis    | redis-cart:6379
    checkout        | cart               | http     | cart:8080
    checkout        | inventory          | http     | inventory:8080
    checkout        | payment-gw         | grpc     | payment-gw:9090
    checkout        | shipping           | http     | shipping:8080
    checkout        | postgres           | postgres | pg-main:5432
    email-worker    | postgres           | postgres | pg-main:5432
    email-worker    | smtp-relay         | smtp     | smtp-relay.mail.svc:587
    inventory       | postgres           | postgres | pg-main:5432
    inventory       | wms                | https    | wms.warehouse.svc:7443
    payment-gw      | paylane            | https    | psp-api.paylane.example:443
    payment-gw      | vault              | https    | vault.security.svc:8200
    shipping        | shipco             | https    | rates.shipco.example:443
    recommendations | featurestore       | grpc     | featurestore.ml.svc:9090
""")


def shop_tables(w: Shop) -> None:
    z = zulu
    rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        for svc, (rps, p50, p99, err, cpu) in SHOP_BASE.items():
            vals = {"rps": round(rps * d * (0.92 + 0.16 * w.r()), 1),
                    "p50_ms": round(p50 * (0.9 + 0.2 * w.r()) * (0.95 + 0.1 * d)),
                    "p99_ms": round(p99 * (0.85 + 0.3 * w.r()) * (0.9 + 0.2 * d)),
                    "error_pct": round(err * (0.5 + w.r()), 2),
                    "cpu_pct": round(cpu * (0.45 + 0.55 * d) * (0.9 + 0.2 * w.r()), 1)}
            out = [z(t), svc]
            for col in ("rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct"):
                v = w.bent("service_metrics", svc, col, t, vals[col])
                v = min(100.0, round(v,
                                     2)) if col == "error_pct" else (round(v) if col.endswith("_ms") else v)
                out.append(v)
            rows.append(out)
    w.tables["service_metrics"] = (["ts", "service", "rps", "p50_ms", "p99_ms", "error_pct", "cpu_pct"], rows)

    onset = w.at(2, "16:52", 31.0)
    raised = w.at(2, "17:21")
    start_mb, growth = 3318.0, (4096.0 - 3318.0) / (onset - w.start).total_seconds()
    redis_rows: list[list[Any]] = []
    used_by_time: dict[datetime, float] = {}
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        if t < onset:
            used = min(4095.0, start_mb + growth * (t - w.start).total_seconds() + 3 * w.r())
        elif t < raised:
            used = 4096.0
        else:
            used = 4096.0 + growth * (t - raised).total_seconds() * 1.1 + 3 * w.r()
        used_by_time[t] = used
        row = [z(t), "redis-cart", round(used), 4096 if t < raised else 6144,
               round(w.bent("redis_metrics", "redis-cart", "connected_clients", t, 78 + w.between(0, 8))),
               round(w.bent("redis_metrics", "redis-cart", "ops_per_s", t, 2600 * d * (0.9 + 0.2 * w.r()))),
               0,
               int(1_210_000 + 190_000 * (t - w.start).total_seconds() / (w.end - w.start).total_seconds())]
        redis_rows.append(row)
    w.tables["redis_metrics"] = (["ts", "instance", "used_memory_mb", "maxmemory_mb", "connected_clients",
                                  "ops_per_s", "evicted_keys", "keys"], redis_rows)

    node_rows: list[list[Any]] = []
    span = (w.end - w.start).total_seconds()
    for t in minutes(w.start, w.end, 10):
        d = w.diurnal(t)
        for node, (cpu, mem, disk, wait) in SHOP_NODES.items():
            if node == "redis-node-1":
                mem_v = 8 + used_by_time[t.replace(minute=t.minute - t.minute % 5)] / 8192 * 80
            else:
                mem_v = mem * (0.97 + 0.06 * w.r())
            vals = {"cpu_pct": cpu * (0.5 + 0.6 * d) * (0.9 + 0.2 * w.r()), "mem_pct": mem_v,
                    "disk_used_pct": disk + 1.6 * (t - w.start).total_seconds() / span + 0.05 * w.r(),
                    "disk_await_ms": wait * (0.7 + 0.6 * w.r()) * (0.9 + 0.2 * d)}
            out = [z(t), node]
            for col in ("cpu_pct", "mem_pct", "disk_used_pct", "disk_await_ms"):
                out.append(round(min(100.0, w.bent("node_metrics", node, col, t, vals[col])), 1))
            node_rows.append(out)
    w.tables["node_metrics"] = (["ts", "node", "cpu_pct", "mem_pct", "disk_used_pct", "disk_await_ms"],
                                node_rows)

    psp_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        charges = max(1, round(6.2 * 300 * d * (0.9 + 0.2 * w.r())))
        decl = w.bent("psp_metrics", "paylane", "decline_ratio", t, 0.04 * (0.8 + 0.4 * w.r()))
        errs = w.bent("psp_metrics", "paylane", "error_ratio", t, 0.0008 * w.r())
        psp_rows.append([z(t), "paylane", charges, round(charges * decl), round(charges * errs),
                         w.between(420, 560)])
    w.tables["psp_metrics"] = (["ts", "psp", "charges", "declines", "errors", "p95_ms"], psp_rows)

    w.tables["dependencies"] = (engine.columns("DEPENDENCIES"),
                                [list(r) for r in SHOP_DEPENDENCIES])
    placement = [["postgres", "pg-main-0", "db-node-1"], ["redis", "redis-cart-0", "redis-node-1"],
                 ["coredns", "coredns (2 replicas)", "infra-node-1"]]
    for svc, (replicas, nodes) in SHOP_PODS.items():
        if svc != "coredns":
            placement.append([svc, f"{svc} ({replicas} replicas)", " ".join(sorted(set(nodes)))])
    w.tables["placement"] = (["service", "instance", "nodes"], placement)
    w.tables["deploys"] = (engine.columns("DEPLOYS_ROLLOUT"), w.deploys)
    w.tables["config_changes"] = (engine.columns("CONFIG_AUDIT"), sorted(w.changes, key=lambda r: r[6]))


SHOP_RUNBOOKS = {
    "known-noise": """# Known noise in the shop's logs

Owner: SRE. These messages show up every day and do not mean customers are affected. Compare
with the same hour yesterday before acting on them.

## recommendations: featurestore DeadlineExceeded

- recommendations logs "featurestore lookup failed ... code = DeadlineExceeded ...
  (featurestore.ml.svc:9090); serving popular-items fallback" many times an hour, all day. The
  ML team's feature store is best-effort; the fallback list is served instead. Ticket ML-212.
- Only a total outage of recommendations (the home page failing) matters here.

## postgres: duplicate key on orders_idempotency_key

- Mobile clients retry POST /checkout/place with the same idempotency key; the second insert
  fails with "duplicate key value violates unique constraint orders_idempotency_key_key" and
  checkout returns the first order. Expected.

## frontend: 499 client aborted

- Shoppers closing the tab before a product page loads. Only a spike across many paths is
  interesting.
""",
    "checkout-latency": """# Checkout slow or timing out

Owner: checkout team. Use when checkout p99 or its timeout errors rise.

## Follow the calls

- checkout calls cart, inventory, payment-gw and shipping, and writes orders to postgres
  (pg-main). The `dependencies` table lists every edge with its address.
- Read checkout's ERROR lines: the address in "context deadline exceeded" or "returned 5xx"
  names the dependency that was slow. Then check that dependency's own log and p99 in
  `service_metrics`.

## When inventory is slow

- inventory is a thin layer over postgres (stock_levels, reservations). If inventory logs
  "statement timeout" or slow reservations, the database is slow: look at postgres' "duration:"
  lines and at `node_metrics` for db-node-1 (disk_await_ms is normally below 6 ms; cpu_pct).
- A jump in disk_await_ms on db-node-1 with slow statements everywhere is a storage problem, not
  a query problem: page the platform team to move pg-main to its standby.

## When inventory is fast

- If inventory's own latency is normal but checkout still times out calling it, look at
  checkout's client settings (timeouts, retries) and at recent checkout deploys.
""",
    "redis-cart-memory": """# redis-cart memory

Owner: cart team. redis-cart holds every cart (hash per cart, TTL `cart.ttl_days`).

## Symptoms

- cart logs "OOM command not allowed when used memory > 'maxmemory'" on writes (HSET, DEL):
  adding to cart and clearing carts fail, reading carts still works.
- `redis_metrics.used_memory_mb` equals `maxmemory_mb`. The policy is noeviction on purpose, so
  `evicted_keys` stays 0: redis refuses writes instead of dropping carts.

## Causes

- Cart TTL raised (longer-lived carts) or a traffic peak of new carts; memory grows day by day.

## Mitigation

- Raise maxmemory (the node has 16 GB; 6gb is safe) with a config change, then lower the TTL or
  clean up expired carts. Do not switch to an eviction policy: that silently empties carts.
""",
    "psp-credentials": """# PSP credentials (paylane)

Owner: payments. payment-gw authenticates to psp-api.paylane.example with an API key stored in
vault (kv/payments/psp-live-key); `psp.api_key_secret` names the version in use.

## Symptoms of a bad key

- payment-gw: "psp paylane responded 401 {"error":"invalid_api_key"}" on every charge;
  checkout: "payment-gw returned 502 PSP_AUTH_ERROR". All card brands fail at once.
- payment-gw logs "secret reloaded: psp.api_key_secret version=N" right before the first 401.

## Cause

- Keys are rotated by secrets-rotator; a new key must be activated in the paylane dashboard
  before payment-gw switches to it. Switching first gives 401s for every charge.

## Mitigation

- Roll back `psp.api_key_secret` to the previous version (a config change), confirm the reload
  line, then activate the new key at paylane and rotate again.
""",
    "cart-contents-lost": """# Customers losing their carts

Owner: cart team. Customers report that items they added are gone, or checkout says the cart
is empty.

## Usual cause: redis evictions

- If redis-cart runs out of memory with an eviction policy, redis drops keys and carts vanish.
  Check `redis_metrics.evicted_keys` and `used_memory_mb` against `maxmemory_mb`.
- cart then logs "cart not found for session ...; created empty cart".

## Mitigation

- Raise maxmemory, restore the noeviction policy, and ask the cart team to review TTLs.
""",
}


def build_shop() -> Shop:
    w = Shop()
    shop_changes(w)
    for simulate in SHOP_INCIDENTS:
        simulate(w)
    shop_background(w)
    shop_tables(w)
    w.runbooks.update(SHOP_RUNBOOKS)
    return w


# --- pipeline -----------------------------------------------------------------------------

PIPE_CURVE = [0.35, 0.25, 0.18, 0.14, 0.13, 0.15, 0.25, 0.45, 0.62, 0.72, 0.78, 0.82,
              0.86, 0.84, 0.80, 0.80, 0.84, 0.90, 0.95, 1.00, 1.00, 0.92, 0.75, 0.52]

PIPE_HOSTS = {  # service -> hosts it runs on
    "ingest-api": ("ing-1", "ing-2"), "broker": ("broker-1", "broker-2", "broker-3"),
    "coordinator": ("coord-1", "coord-2", "coord-3"), "schema-registry": ("sr-1",),
    "stream-enricher": ("str-1", "str-2"), "dfs-sink": ("sink-1",), "dfs-namenode": ("nn-1",),
    "dfs-datanode": ("dn-1", "dn-2", "dn-3", "dn-4"), "scheduler": ("sched-1",),
    "jobrunner": ("etl-1", "etl-2"), "metastore": ("meta-1",), "warehouse-loader": ("etl-1",),
    "warehouse": ("wh-1",),
}
PIPE_INITIAL = {"ingest-api": "3.13.2", "stream-enricher": "5.1.3", "dfs-sink": "1.11.1",
                "scheduler": "2.8.3", "jobrunner": "3.5.1-r3", "warehouse-loader": "2.2.3",
                "schema-registry": "7.4.1"}
BROKER_IP = {1: "10.20.1.11", 2: "10.20.1.12", 3: "10.20.1.13"}
CLIENTS = [("android-app/7.4.1", 35, (60_000, 420_000)), ("ios-app/5.12.0", 30, (50_000, 380_000)),
           ("web-sdk/2.1.0", 35, (2_000, 24_000))]


def leader(p: int) -> int:
    """The broker leading events-raw partition ``p`` (replication factor 3)."""
    return p % 3 + 1


class Pipeline(World):
    """The data platform: services on hosts, hourly batch jobs, a streaming path."""

    def __init__(self) -> None:
        super().__init__("pipeline", 20260407, SGT, datetime(2026, 4, 7, tzinfo=SGT), 3, PIPE_CURVE)
        self.releases: list[list[Any]] = []
        self.audits: list[list[Any]] = []
        self.jobs: list[list[Any]] = []
        self.moves: list[tuple[datetime, datetime, int, int]] = []
        """Leadership moved off a broker: (start, end, from broker, to broker)."""

    def leader_at(self, p: int, t: datetime) -> int:
        """The broker leading events-raw partition ``p`` at ``t``."""
        b = leader(p)
        for start, end, frm, to in self.moves:
            if start <= t < end and b == frm:
                return to
        return b

    def emit(self, t: datetime, service: str, level: str, message: str, host: str | None = None,
             **attrs: Any) -> None:
        host = host or self.pick(PIPE_HOSTS[service])
        extra: dict[str, Any] = {"host": host}
        if service in PIPE_INITIAL:
            extra["version"] = self.version(service, t, PIPE_INITIAL[service])
        self.log(t, service, level, message, **extra, **attrs)


def pday(t: datetime) -> str:
    return t.astimezone(SGT).strftime("%Y-%m-%d")


def part_path(t: datetime, root: str = "/data/events_enriched") -> str:
    local = t.astimezone(SGT)
    return f"hdfs://nn-1:8020{root}/dt={local:%Y-%m-%d}/hr={local:%H}"


def flow_ingest(w: Pipeline, t: datetime) -> None:
    client = w.weighted([(c, wt) for c, wt, _ in CLIENTS])
    lo, hi = next(r for c, _, r in CLIENTS if c == client)
    size = w.between(lo, hi)
    events = max(1, size // w.between(180, 260))
    p = w.rng.randrange(12)
    c = {"client": client, "bytes": size, "events": events, "p": p}
    if w.fails("ingest-size", t, c):
        return
    if w.fails("ingest->broker", t, c):
        return
    took = w.lat(4, 22)
    w.emit(t + ms(took), "ingest-api", "INFO", f"accepted batch client={client} events={events} "
           f"bytes={size} -> events-raw-{p} (broker-{w.leader_at(p, t)}:9092) in {took}ms")


PIPE_FLOWS: list[tuple[Callable[[Pipeline, datetime], None], float, float]] = [(flow_ingest, 20.0, 0.02)]


def pipe_background(w: Pipeline) -> None:
    """Streaming traffic, periodic lines and the noisy enricher over the whole span."""
    for minute, d in w.traffic(PIPE_FLOWS):
        # Always noisy: the enricher's geoip database misses many mobile carrier ranges.
        for t in w.spread(minute, 0.13 + 0.3 * d):
            ip = f"{w.between(1, 223)}.{w.between(0, 255)}.{w.between(0, 255)}.{w.between(1, 254)}"
            w.emit(t, "stream-enricher", "ERROR", f"geoip lookup failed for ip={ip}: address not found "
                   "in GeoLite2-City database; country=ZZ")
        for t in w.spread(minute, 0.03 * d):
            w.emit(t, "ingest-api", "WARN", f"rejected event from client=web-sdk/2.1.0: schema validation "
                   f"failed: field 'event_ts' missing (event_id={w.hexid(12)})")
        for t in w.spread(minute, 0.015):
            w.emit(t, "stream-enricher", "WARN", f"slow profile lookup {w.between(150, 480)}ms for "
                   f"u-{w.between(100000, 999999)} (profile-kv:7000)")
        for t in w.spread(minute, 0.04):
            w.emit(t, "dfs-datanode", "WARN",
                   f"Slow BlockReceiver write data to disk cost:{w.between(301, 900)}ms "
                   f"(threshold=300ms), volume=/data/{w.between(1, 6)}/dfs/dn")
        for t in w.spread(minute, 0.08 * d):
            dn = w.between(1, 4)
            w.emit(t, "dfs-datanode", "INFO",
                   f"Receiving BP-1187342231-10.20.3.5:blk_{1073950000 + w.between(0, 99999)}"
                   f"_{w.between(200000, 299999)} src: "
                   f"/10.20.4.{w.between(10, 40)}:{w.between(40000, 60000)} "
                   f"dest: /10.20.3.1{dn}:9866", host=f"dn-{dn}")
        for t in w.spread(minute, 0.07 * d):
            if not w.hook("dfs-write", t):
                w.emit(t, "dfs-namenode", "INFO", f"BLOCK* allocate blk_{1073950000 + w.between(0, 99999)}_"
                       f"{w.between(200000, 299999)}, replicas=10.20.3.1{w.between(1, 2)}:9866, "
                       f"10.20.3.1{w.between(3, 4)}:9866 for {part_path(t)[len('hdfs://nn-1:8020'):]}/part-"
                       f"{w.between(0, 3):05d}-{w.between(10000, 99999)}.parquet")
        for t in w.spread(minute, 0.12 * d):
            task = w.between(0, 3)
            cc = {"task": task}
            if w.fails("sink-commit", t, cc):
                continue
            recs = w.between(20000, 60000)
            w.emit(t, "dfs-sink", "INFO", f"task dfs-sink-{task} committed {part_path(t)}/part-{task:05d}-"
                   f"{w.between(10000, 99999)}.parquet ({recs} records, {recs * 440 / 1e6:.1f} MB) in "
                   f"{w.lat(180, 700)}ms")
        for t in w.spread(minute, 0.05):
            w.emit(t, "schema-registry", "INFO", w.pick([
                "GET /subjects/app-events-value/versions/latest 200 2ms", "GET /schemas/ids/1187 200 1ms",
                "GET /subjects/events-enriched-value/versions/latest 200 2ms"]))
        for t in w.spread(minute, 0.15 * d):
            took = w.lat(300, 4000)
            w.info_keep = 0.5
            slow = w.hook("wh-slow", t)
            if slow:
                took = slow(w, t, {})
            if took < 0:
                w.info_keep = 1.0
                continue
            q = f"q-{w.between(70000, 99999)}"
            if took > 30000:
                w.emit(t + ms(took), "warehouse", "WARN", f"slow query {q} user=dash_ro {took / 1000:.1f}s "
                       "(> 30s), scanned " f"{w.between(1, 40) / 10:.1f} GB")
            else:
                w.emit(t + ms(took), "warehouse", "INFO", f"query {q} user=dash_ro finished in "
                       f"{took / 1000:.1f}s, scanned {w.between(1, 40) / 10:.1f} GB, rows "
                       f"{w.between(1, 400)}")
            w.info_keep = 1.0
        m = minute.minute
        local = minute.astimezone(SGT)
        if m % 5 == 4 and local.minute % 10 == 4:  # the enricher's throughput summary
            t = minute + ms(w.between(0, 5000))
            if not w.fails("enricher-progress", t, {"d": d}):
                rate = int(4800 * d * (0.9 + 0.2 * w.r())) + 150
                w.emit(t, "stream-enricher", "INFO", f"processed {rate * 600} records in 600s ({rate} rec/s) "
                       f"from events-raw[0-11], enrich p99 {w.between(2, 6)}ms, lag {w.between(200, 3000)}")
        if m % 10 == 7:
            t = minute + ms(w.between(0, 5000))
            if not w.fails("ingest-stats", t, {"d": d}):
                w.emit(t, "ingest-api", "INFO", f"producer stats: {int(4800 * d)} events/s in, batch avg "
                       f"{w.between(170, 210)} events, produce p99 {w.between(9, 19)}ms, errors 0")
        if m % 10 == 1:
            b = w.between(1, 3)
            w.emit(minute + ms(w.between(0, 50000)), "broker", "INFO", f"[Log partition=events-raw-"
                   f"{w.pick([p for p in range(12) if leader(p) == b])}, dir=/data/kafka] Rolled new log "
                   "segment "
                   f"at offset {88_000_000 + int((minute - w.start).total_seconds() * 9)} in "
                   f"{w.between(1, 6)} ms.",
                   host=f"broker-{b}")
        if m == 43:
            b = w.between(1, 3)
            w.emit(minute + ms(w.between(0, 50000)), "broker", "INFO", f"[LocalLog partition=events-raw-"
                   f"{w.between(0, 11)}, dir=/data/kafka] Deleting segment files (retention "
                   f"{72 if minute < w.at(1, '11:00') else 96}h): 1 segment(s), 1073741{w.between(100, 999)} "
                   "bytes",
                   host=f"broker-{b}")
        if m == 17 and local.hour % 3 == 0:
            b = w.between(1, 3)
            w.emit(minute + ms(w.between(0, 50000)), "broker", "INFO",
                   f"[GroupCoordinator {b}]: Stabilized group "
                   f"{w.pick(['stream-enricher', 'dfs-sink', 'audit-mirror'])} generation "
                   f"{w.between(300, 500)} "
                   f"(__consumer_offsets-{w.between(0, 49)}) with 4 members", host=f"broker-{b}")
        if m == 29:
            for i in (1, 2, 3):
                if not w.hook(f"coord-{i}-down", minute):
                    zx = f"0x1a000{w.between(10000, 99999):x}"
                    w.emit(minute + ms(w.between(0, 40000)), "coordinator", "INFO", f"Snapshotting: {zx} to "
                           f"/data/coord/version-2/snapshot.{zx}", host=f"coord-{i}")
        if m % 20 == 5:
            w.emit(minute + ms(w.between(0, 9000)), "scheduler", "INFO",
                   f"scheduler heartbeat: 14 DAGs parsed "
                   f"in {w.between(15, 32) / 10:.1f}s, {w.between(0, 4)} running task(s)")
        if m % 40 == 13:
            w.emit(minute + ms(w.between(0, 9000)), "scheduler", "WARN", "DAG file legacy_export.py took "
                   f"{w.between(301, 340) / 10:.1f}s to import (> 30.0s); consider splitting it")
        if m == 0 and local.hour % 6 == 3:
            w.emit(minute + ms(w.between(0, 9000)), "dfs-namenode", "WARN",
                   "checkpoint overdue: last checkpoint "
                   "from standby nn-2 at 2026-04-06T22:10+08:00 "
                   f"({int((minute - datetime(2026, 4, 6, 22, 10, tzinfo=SGT)).total_seconds() // 3600)}h "
                   "ago), "
                   f"{int((minute - w.start).total_seconds() * 23) + 410000} uncheckpointed transactions")
        if m == 2:
            w.emit(minute + ms(w.between(0, 9000)), "dfs-namenode", "INFO", "Roll Edit Log from 10.20.3.6 "
                   f"(nn-2); edit log segment size {w.between(40, 90)} MB")
        if m % 30 == 11:
            w.emit(minute + ms(w.between(0, 9000)), "warehouse", "INFO", f"checkpoint complete: wrote "
                   f"{w.between(8000, 40000)} buffers; write={w.between(200, 280)}.{w.between(0, 999):03d} s")
        for t in w.spread(minute, 0.008):
            w.emit(t, "metastore", "INFO", f"JvmPauseMonitor: Detected pause in JVM or host machine (eg GC): "
                   f"pause of approximately {w.between(200, 700)}ms")
        if m == 1:  # the sink closes the previous hour
            t = minute + ms(w.between(2000, 20000))
            hour = t - timedelta(hours=1)
            if not w.fails("sink-close", t, {"hour": hour}):
                w.emit(t, "dfs-sink", "INFO",
                       f"closed hour {part_path(hour)}: 4 of 4 tasks committed, wrote _SUCCESS")


def pipe_job(w: Pipeline, dag: str, task: str, part: str, start: datetime, end: datetime | None,
             state: str, tries: int, host: str, rows: int | None) -> None:
    w.jobs.append([f"{dag}__{part}__{tries}", dag, task, part,
                   start.astimezone(SGT).isoformat(timespec="seconds"),
                   end.astimezone(SGT).isoformat(timespec="seconds") if end else "", state, tries, host,
                   "" if rows is None else rows])


def run_sessionize(w: Pipeline, hour: datetime) -> None:
    """sessionize_hourly for ``hour`` (runs at the next hour's :05, three tries, 6 min apart)."""
    local = hour.astimezone(SGT)
    part = f"dt={local:%Y-%m-%d}/hr={local:%H}"
    t = hour + timedelta(hours=1, minutes=5, seconds=w.between(2, 20))
    w.emit(t - ms(900), "scheduler", "INFO",
           f"DAG run sessionize_hourly @ {hour.astimezone(SGT).isoformat(timespec='minutes')} queued")
    for attempt in (1, 2, 3):
        host = w.pick(PIPE_HOSTS["jobrunner"])
        app = f"app-{t.astimezone(SGT):%Y%m%d%H%M%S}-{w.between(1, 9999):04d}"
        c = {"hour": hour, "part": part, "attempt": attempt, "host": host, "app": app}
        w.emit(t, "jobrunner", "INFO", f"starting sessionize_hourly {app} executors=8 input="
               f"{part_path(hour)}", host=host)
        w.emit(t + ms(1800), "jobrunner", "WARN", "Unable to load native-hadoop library for your platform... "
               "using builtin-java classes where applicable", host=host)
        fn = w.hook("sessionize", t)
        failed_after = fn(w, t, c) if fn else None
        if failed_after is None:
            took = w.between(330, 470)
            rows = int(41000 * w.diurnal(hour) * (0.9 + 0.2 * w.r())) + 800
            w.emit(t + timedelta(seconds=took * 0.45), "jobrunner", "INFO", f"stage 2 (scan + sessionize) "
                   f"{w.between(380, 460)} tasks finished in {int(took * 0.4)}s", host=host)
            w.emit(t + timedelta(seconds=took - 20), "jobrunner", "INFO", f"wrote {rows} sessions to "
                   f"{part_path(hour, '/warehouse/sessions')}", host=host)
            w.emit(t + timedelta(seconds=took - 12), "metastore", "INFO", f"add_partition analytics.sessions "
                   f"({local:%Y-%m-%d}, {local:%H}) {w.between(8, 25)}ms from {host}")
            w.emit(t + timedelta(seconds=took - 11), "jobrunner", "INFO", f"registered partition "
                   f"analytics.sessions({part.replace('/', ',')}) via thrift://metastore:9083", host=host)
            end = t + timedelta(seconds=took)
            w.emit(end, "jobrunner", "INFO", f"finished sessionize_hourly {app} in {took}s", host=host)
            w.emit(end + ms(1500), "scheduler", "INFO",
                   f"Task sessionize_hourly.run {part} (try {attempt}/3) "
                   f"succeeded in {took}s")
            pipe_job(w, "sessionize_hourly", "run", part, t, end, "success", attempt, host, rows)
            w.versions.setdefault("sessions-ready", []).append((end, part))
            return
        end = t + timedelta(seconds=failed_after)
        w.emit(end, "jobrunner", "ERROR", f"job sessionize_hourly {app} failed after {failed_after}s "
               f"(exit code 1)", host=host)
        if attempt < 3:
            w.emit(end + ms(1500), "scheduler", "ERROR",
                   f"Task sessionize_hourly.run {part} (try {attempt}/3) "
                   "failed; retrying in 300s")
        else:
            w.emit(end + ms(1500), "scheduler", "ERROR", f"Task sessionize_hourly.run {part} failed after 3 "
                   "tries; marked failed, downstream load_warehouse.fact_sessions skipped")
        pipe_job(w, "sessionize_hourly", "run", part, t, end, "failed", attempt, host, None)
        t = end + timedelta(seconds=300 + w.between(0, 5))


def run_load(w: Pipeline, table: str, t: datetime, part: str) -> None:
    """load_warehouse.<table>: COPY a partition into the warehouse (two tries, 2 minutes apart)."""
    for attempt in (1, 2):
        c = {"table": table, "part": part, "attempt": attempt}
        src = "warehouse/sessions" if table == "fact_sessions" else "data/events_enriched"
        w.emit(t, "warehouse-loader", "INFO", f"loading analytics.{table} {part} from "
               f"hdfs://nn-1:8020/{src}/{part}")
        fn = w.hook("load", t)
        failed_after = fn(w, t, c) if fn else None
        if failed_after is None:
            took = w.between(120, 480) / 10
            rows = w.between(20000, 60000) * (8 if table == "fact_events" else 1)
            end = t + timedelta(seconds=took)
            w.emit(end, "warehouse-loader", "INFO",
                   f"COPY INTO analytics.{table} {part}: {rows} rows in {took:.1f}s "
                   "(wh-1:5439)")
            w.emit(end - ms(200), "warehouse", "INFO", f"COPY q-{w.between(70000, 99999)} user=loader "
                   f"analytics.{table} {rows} rows in {took:.1f}s")
            pipe_job(w, "load_warehouse", table, part, t, end, "success", attempt, "etl-1", rows)
            return
        if failed_after < 0:  # skipped: nothing to load
            pipe_job(w, "load_warehouse", table, part, t, t + ms(400), "skipped", attempt, "etl-1", None)
            return
        end = t + timedelta(seconds=failed_after)
        w.emit(end + ms(900), "scheduler", "ERROR",
               f"Task load_warehouse.{table} {part} (try {attempt}/2) failed"
               + ("; retrying in 120s" if attempt == 1 else ""))
        pipe_job(w, "load_warehouse", table, part, t, end, "failed", attempt, "etl-1", None)
        t = end + timedelta(seconds=120)


def pipe_batches(w: Pipeline) -> None:
    """The hourly and daily batch jobs over the span."""
    for hour in minutes(w.start - timedelta(hours=1), w.end, 60):
        if hour + timedelta(hours=1, minutes=5) < w.end:
            run_sessionize(w, hour)
    for t in minutes(w.start, w.end, 15):
        local = t.astimezone(SGT)
        start = t + timedelta(minutes=2, seconds=w.between(0, 20))
        prev = t - timedelta(minutes=15)
        run_load(w, "fact_events", start, f"dt={prev.astimezone(SGT):%Y-%m-%d}/hr={prev.astimezone(SGT):%H}"
                 f"/q={prev.astimezone(SGT).minute // 15}")
        if local.minute == 15:
            hour = t - timedelta(hours=1, minutes=15)
            hl = hour.astimezone(SGT)
            part = f"dt={hl:%Y-%m-%d}/hr={hl:%H}"
            at = t + timedelta(minutes=5, seconds=w.between(0, 20))
            ready = [p for when, p in w.versions.get("sessions-ready", []) if when <= at]
            if part in ready:
                w.emit(at - ms(300), "metastore", "INFO",
                       f"get_partition analytics.sessions ({hl:%Y-%m-%d}, {hl:%H}) "
                       f"{w.between(5, 20)}ms from etl-1")
                run_load(w, "fact_sessions", at, part)
            else:
                w.emit(at, "warehouse-loader", "WARN",
                       f"no partition analytics.sessions {part} yet; fact_sessions "
                       f"not loaded (lag {int((at - hour).total_seconds() // 60)}m, SLA 180m)")
        if local.minute == 30:
            w.emit(t + ms(w.between(0, 9000)), "warehouse-loader", "INFO", f"freshness: fact_events lag "
                   f"{w.between(14, 29)}m (SLA 60m), fact_sessions lag {w.between(70, 95)}m (SLA 180m)")
    for day in (1, 2, 3):
        for dag, hhmm, dur, rows in (("revenue_rollup_daily", "02:00", 2300, 18211),
                                     ("compaction_daily", "03:30", 1900, None)):
            t = w.at(day, hhmm, w.between(3, 30))
            part = f"dt={pday(t - timedelta(days=1))}"
            host = w.pick(PIPE_HOSTS["jobrunner"])
            w.emit(t, "jobrunner", "INFO",
                   f"starting {dag} app-{t.astimezone(SGT):%Y%m%d%H%M%S}-{w.between(1, 9999):04d} "
                   f"executors=16 input={part}", host=host)
            took = dur + w.between(-200, 300)
            end = t + timedelta(seconds=took)
            w.emit(end, "jobrunner", "INFO", f"finished {dag} in {took}s", host=host)
            w.emit(end + ms(1200), "scheduler", "INFO",
                   f"Task {dag}.run {part} (try 1/1) succeeded in {took}s")
            pipe_job(w, dag, "run", part, t, end, "success", 1, host, rows)


# --- pipeline: changes ------------------------------------------------------------------------

PIPE_RELEASES = [  # release_id, component, version, (day, hh:mm SGT), deployed_by, notes
    ("REL-410", "dfs-sink", "1.11.2", (1, "08:00"), "ci", "parquet writer: zstd level 3"),
    ("REL-411", "jobrunner", "3.5.1-r4", (1, "09:20"), "ci", "base image security patch (openssl)"),
    ("REL-412", "ingest-api", "3.14.0", (1, "13:55"), "ci",
     "gzip request bodies; client quotas in soft mode"),
    ("REL-413", "warehouse-loader", "2.2.4", (1, "17:30"), "ci", "retry COPY on serialization failure"),
    ("REL-414", "warehouse-loader", "2.3.0", (2, "10:30"), "ci", "sessions loader: merge mode"),
    ("REL-415", "stream-enricher", "5.2.0", (2, "10:48"), "ci", "events-enriched schema v9 (field cleanup)"),
    ("REL-416", "stream-enricher", "5.1.3", (2, "11:52"), "oncall (w.ng)", "rollback of 5.2.0"),
    ("REL-417", "schema-registry", "7.4.2", (2, "20:30"), "ci", "security patch"),
    ("REL-418", "stream-enricher", "5.2.1", (3, "07:30"), "ci", "schema v9 keeps session_id"),
    ("REL-419", "scheduler", "2.9.0", (3, "14:22"), "ci",
     "warehouse connection pool: new timeout defaults (connect_timeout 10s -> 5s)"),
    ("REL-420", "ingest-api", "3.14.1", (3, "18:40"), "ci", "quota metrics labels"),
]

PIPE_AUDITS = [  # audit_id, component, setting, before, after, actor, (day, hh:mm, sec), reason
    ("AUD-7712", "broker", "topic.events-raw.retention.hours", "72", "96",
     "s.lim", (1, "11:00", 0), "DATA-118 longer replay window"),
    ("AUD-7715", "warehouse", "wlm.adhoc_queue_slots", "4", "6", "dba-bot", (1, "16:10", 0), "DBA-77"),
    ("AUD-7718", "scheduler", "core.parallelism", "32", "48", "k.tan", (2, "01:55", 0), "OPS-2219"),
    ("AUD-7720", "stream-enricher", "geoip.db", "GeoLite2-City-2026-03", "GeoLite2-City-2026-04",
     "ops-bot", (2, "09:00", 0), "monthly refresh"),
    ("AUD-7729", "dfs-sink", "flush.size", "50000", "100000",
     "r.goh", (2, "15:05", 0), "DATA-131 fewer small files"),
    ("AUD-7731", "ingest-api", "http.max_request_bytes", "1048576", "65536",
     "k.tan", (2, "15:12", 5), "OPS-2231 harden against oversized payloads"),
    ("AUD-7732", "ingest-api", "http.max_request_bytes", "65536", "1048576",
     "oncall (w.ng)", (2, "15:47", 10), "INC-902"),
    ("AUD-7750", "stream-enricher", "consumer.max.poll.records", "500", "1000",
     "r.goh", (3, "18:50", 0), "DATA-140"),
    ("AUD-7752", "ingest-api", "quota.mode", "soft", "enforce",
     "oncall (j.tay)", (3, "20:05", 30), "INC-907"),
]


def pipe_changes(w: Pipeline) -> None:
    for rel, comp, ver, (day, hhmm), by, notes in PIPE_RELEASES:
        t = w.at(day, hhmm)
        w.releases.append([rel, comp, ver, zulu(t), by, notes])
        switch = t + timedelta(seconds=w.between(60, 150))
        w.switch[rel] = switch
        w.versions.setdefault(comp, []).append((switch, ver))
        for i, host in enumerate(PIPE_HOSTS[comp]):
            w.emit(switch + timedelta(seconds=20 * i), comp, "INFO",
                   f"starting {comp} {ver} on {host}", host=host)
    for aud, comp, key, before, after, actor, when, reason in PIPE_AUDITS:
        t = w.at(*when)
        w.audits.append([aud, comp, key, before, after, actor, t.isoformat(timespec="seconds"), reason])
        if comp in ("ingest-api", "stream-enricher", "dfs-sink", "scheduler"):
            w.emit(t + ms(w.between(1500, 4000)), comp, "INFO",
                   f"config reloaded: {key}={after} (was {before}) "
                   f"audit={aud}")


# --- pipeline: incidents ----------------------------------------------------------------------

def p01_metastore_oom(w: Pipeline) -> None:
    t0, t_oom, t1 = w.at(1, "09:41", 20.0), w.at(1, "09:48", 3.0), w.at(1, "10:38", 20.0)
    w.emit(w.at(1, "09:38", 51.0), "metastore", "WARN",
           "get_partitions_by_filter analytics.clickstream_archive returned 398112 partitions in 61.2s "
           "(client=jupyter-7f 10.20.8.31)")
    t = t0
    pause = 4200
    while t < t_oom:
        w.emit(t, "metastore", "WARN",
               f"JvmPauseMonitor: Detected pause in JVM or host machine (eg GC): pause of "
               f"approximately {pause}ms; GC pool 'G1 Old Generation' had collection(s): count=1 "
               f"time={pause + 90}ms")
        t += timedelta(seconds=w.between(50, 90))
        pause = min(30000, int(pause * 1.6))
    w.emit(t_oom, "metastore", "ERROR",
           "Error occurred during processing of message: java.lang.OutOfMemoryError: Java heap space "
           "(TThreadPoolServer, thrift://0.0.0.0:9083)")
    w.emit(t_oom + ms(40), "metastore", "ERROR", "java.lang.OutOfMemoryError: Java heap space")
    for t in w.every(t_oom + timedelta(seconds=20), t1, 45, 80):
        w.emit(t, "metastore", "WARN",
               f"JvmPauseMonitor: Detected pause in JVM or host machine (eg GC): pause of "
               f"approximately {w.between(18000, 29000)}ms; heap 8187 of 8192 MB used after full GC")
    w.emit(t1, "metastore", "INFO", "Starting metastore (heap 8192m) on thrift://0.0.0.0:9083")
    w.emit(t1 + timedelta(seconds=24), "metastore", "INFO", "metastore ready: 4 thrift worker threads, "
           "backing db mysql://meta-db:3306/metastore")

    def job(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        took = w.between(120, 190)
        w.emit(t + timedelta(seconds=took - 2), "jobrunner", "ERROR",
               "MetaException: could not connect to metastore using any of the URIs provided; most recent "
               "failure: java.net.SocketTimeoutException: Read timed out "
               "(thrift://metastore:9083)", host=c["host"])
        return took

    def load(w: Pipeline, t: datetime, c: dict[str, Any]) -> int | None:
        if c["table"] != "fact_sessions":
            return None
        w.emit(t + timedelta(seconds=60), "warehouse-loader", "ERROR", f"partition lookup analytics.sessions "
               f"{c['part']} failed: Read timed out (thrift://metastore:9083); skipping load")
        return -1

    w.on("sessionize", t_oom, t1, job)
    w.on("load", t_oom, t1, load)
    q0, q1 = w.at(1, "10:00"), w.at(1, "10:30")
    incident(
        w, id="PIPE-01", kind="logs_only", service="jobrunner", start=q0, end=q1, onset=t0,
        question="jobrunner: sessionize_hourly failed for the 09:00 partition today (2026-04-07) — can you "
                 "check "
                 "10:00–10:30 UTC+8 and tell me why?",
        cause_service="metastore",
        root_cause="the metastore ran out of Java heap (OutOfMemoryError at 09:48 after ever longer GC "
                   "pauses "
                   "from 09:41, following a notebook's listing of ~398k partitions); its thrift port "
                   "metastore:9083 stopped answering, so sessionize_hourly's metastore calls timed out and "
                   "the "
                   "loader skipped fact_sessions until the metastore was restarted at 10:38",
        key_terms=["metastore", "memory"],
        distractors=["jobrunner release REL-411 (base image 3.5.1-r4) at 09:20",
                     "stream-enricher geoip lookup errors (always there)"],
        evidence=[logs_ev("jobrunner", q0, q1, "thrift://metastore:9083", level="ERROR"),
                  logs_ev("metastore", w.at(1, "09:30"), q1, "OutOfMemoryError", level="ERROR")],
    )


def p03_broker_disk(w: Pipeline) -> None:
    t0, t1, t_back = w.at(1, "14:20", 0.0), w.at(1, "15:05", 12.0), w.at(1, "16:30", 0.0)

    def produce(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        if leader(c["p"]) != 2 or w.chance(0.3):
            return False
        p = c["p"]
        w.emit(t + timedelta(seconds=30), "ingest-api", "ERROR",
               f"produce to events-raw-{p} failed: Expiring "
               f"{c['events']} record(s) for events-raw-{p}: 30011 ms has passed since batch creation "
               "(leader broker-2:9092)")
        w.emit(t + timedelta(seconds=30, milliseconds=5), "ingest-api", "WARN", f"returned 503 to client="
               f"{c['client']}: broker unavailable for events-raw-{p}, retry-after=5s")
        return True

    w.on("ingest->broker", t0 + timedelta(seconds=40), t1, produce)
    for t in w.every(t0 + timedelta(seconds=5), t1, 25, 70):
        p = w.pick([1, 4, 7, 10])
        w.emit(t, "broker", "WARN", f"[Log partition=events-raw-{p}, dir=/data/kafka] log flush took "
               f"{w.between(2600, 9800)} ms (device nvme1n1, await {w.between(250, 600)} ms)",
               host="broker-2")
    shrunk: list[int] = []
    for t in w.every(t0 + timedelta(seconds=50), t0 + timedelta(minutes=12), 40, 90):
        choices = [p for p in range(12) if leader(p) != 2 and p not in shrunk]
        if not choices:
            break
        p = w.pick(choices)
        shrunk.append(p)
        b = leader(p)
        other = 3 if b == 1 else 1
        w.emit(t, "broker", "INFO",
               f"[Partition events-raw-{p} broker={b}] Shrinking ISR from {b},2,{other} to "
               f"{b},{other}. Leader: (highWatermark: {88_400_000 + w.between(0, 90000)}). Out of sync "
               "replicas: "
               "(brokerId: 2)", host=f"broker-{b}")
    w.emit(t1, "broker", "INFO", "[KafkaServer id=2] shutting down (controlled shutdown requested by oncall)",
           host="broker-2")
    w.emit(t1 + timedelta(seconds=9), "broker", "INFO", "[Controller id=1] moved leadership of events-raw-1, "
           "events-raw-4, events-raw-7, events-raw-10 off broker 2", host="broker-1")
    w.moves.append((t1 + timedelta(seconds=9), t_back + timedelta(minutes=6), 2, 1))
    w.emit(t_back + timedelta(minutes=6), "broker", "INFO", "[Controller id=1] preferred leader election: "
           "moved events-raw-1, events-raw-4, events-raw-7, events-raw-10 back to broker 2", host="broker-1")
    w.emit(t_back, "broker", "INFO",
           "[KafkaServer id=2] started (log dirs /data/kafka; replaced device nvme1n1)",
           host="broker-2")
    w.bend("host_metrics", "broker-2",
           "disk_await_ms", t0 - timedelta(minutes=5), t1, lambda t, v: 300 + 40 * v)
    w.bend("broker_metrics", "broker-2", "produce_p99_ms", t0 - timedelta(minutes=2), t1,
           lambda t, v: 8000 + 100 * v)
    for b in (1, 3):
        w.bend("broker_metrics", f"broker-{b}", "under_replicated", t0, t_back,
               lambda t, v: 4 if t < t1 else 8)
        w.bend("broker_metrics", f"broker-{b}",
               "isr_shrinks", t0, t0 + timedelta(minutes=15), lambda t, v: v + 2)
    w.bend("broker_metrics", "broker-2", "down", t1, t_back, lambda t, v: 1)

    def stats(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "ingest-api", "WARN",
               f"producer stats: {int(4800 * c['d'])} events/s in, produce p99 30004ms, "
               f"errors {w.between(800, 1500)}/min (events-raw-1, -4, -7, -10)")
        return True

    w.on("ingest-stats", t0 + timedelta(seconds=40), t1, stats)
    q0, q1 = w.at(1, "14:30"), w.at(1, "14:50")
    incident(
        w, id="PIPE-03", kind="metrics_deps", service="ingest-api", start=q0, end=q1, onset=t0,
        question="ingest-api is returning 503s to clients, 14:30–14:50 (UTC+8) on 7 Apr 2026. What's the "
                 "root "
                 "cause?",
        cause_service="broker",
        root_cause="the data disk of broker-2 (nvme1n1) degraded at 14:20: disk await jumped to several "
                   "hundred ms, "
                   "log flushes took seconds and produce requests to the partitions broker-2 leads "
                   "(events-raw-1/4/7/10) expired after 30 s, so ingest-api answered 503; followers on "
                   "broker-2 "
                   "fell out of the ISR until broker-2 was shut down at 15:05",
        key_terms=["broker-2", "disk"],
        distractors=["ingest-api release REL-412 (3.14.0) at 13:55",
                     "stream-enricher geoip lookup errors (always there)"],
        runbook="broker-slow-disk",
             runbook_query="produce timeouts one broker slow disk under-replicated partitions",
        evidence=[logs_ev("ingest-api", q0, q1, "leader broker-2:9092", level="ERROR"),
                  sql_ev("SELECT ts, host, disk_await_ms FROM host_metrics WHERE host LIKE 'broker-%' AND ts "
                         "BETWEEN "
                         f"'{zulu(w.at(1, '14:00'))}' AND '{zulu(q1)}' ORDER BY disk_await_ms DESC LIMIT 5",
                         "broker-2"),
                  sql_ev("SELECT caller, callee FROM dependencies WHERE caller = 'ingest-api'", "broker")],
    )


def p05_schema_v9(w: Pipeline) -> None:
    t0 = w.switch["REL-415"]
    t1 = w.switch["REL-416"]
    for i, host in enumerate(PIPE_HOSTS["stream-enricher"]):
        w.emit(t0 + timedelta(seconds=20 * i, milliseconds=400), "stream-enricher", "INFO", "output "
               "events-enriched-value schema v9 (id 1204): event_id, user_id, sess_key, ts, geo, device",
               host=host)
    w.emit(t0 + ms(200), "schema-registry", "INFO",
           "registered subject events-enriched-value version 9 (id 1204); compatibility NONE for this "
           "subject, check skipped")

    def job(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        took = w.between(40, 70)
        w.emit(t + timedelta(seconds=took - 1), "jobrunner", "ERROR",
               "AnalysisException: [UNRESOLVED_COLUMN] "
               "A column with name `session_id` cannot be resolved. Did you mean `sess_key`? (schema "
               "inferred "
               f"from {part_path(c['hour'])}/part-00002-{w.between(10000, 99999)}.parquet)", host=c["host"])
        return took

    w.on("sessionize", t0 + timedelta(minutes=5), t1 + timedelta(minutes=70), job)
    q0, q1 = w.at(2, "11:00"), w.at(2, "11:30")
    incident(
        w, id="PIPE-05", kind="change", service="jobrunner", start=q0, end=q1, onset=t0,
        question="The sessions job started failing at 11:05 SGT today (2026-04-08) with a column error. "
                 "jobrunner, "
                 "window 11:00–11:30 UTC+8. What changed?",
        cause_service="stream-enricher",
        root_cause="release REL-415 of stream-enricher 5.2.0 (10:48) switched its output to schema v9, which "
                   "renamed "
                   "session_id to sess_key; sessionize_hourly reads events-enriched and failed with "
                   "UNRESOLVED_COLUMN `session_id` from 11:05 (all three tries) until the rollback REL-416 "
                   "at 11:52",
        key_terms=["stream-enricher", "5.2.0", "session"],
        distractors=["warehouse-loader release REL-414 (2.3.0, sessions loader merge mode) at 10:30",
                     "stream-enricher geoip errors (always there)"],
        evidence=[logs_ev("jobrunner", q0, q1, "session_id", level="ERROR"),
                  sql_ev("SELECT release_id, component, version, deployed_at, notes FROM releases WHERE "
                         "deployed_at "
                         f"BETWEEN '{zulu(w.at(2, '10:00'))}' AND '{zulu(q1)}'", "REL-415")],
    )


def p06_max_request(w: Pipeline) -> None:
    t0, t1 = w.at(2, "15:12", 5.0), w.at(2, "15:47", 10.0)

    def size(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        if c["bytes"] <= 65536:
            return False
        if w.chance(0.3):  # ingest-api rate-limits this warning
            w.emit(t + ms(2), "ingest-api", "WARN",
                   f"rejected batch from client={c['client']}: body {c['bytes'] // 1024} KB "
               "exceeds http.max_request_bytes=65536 (413); similar messages suppressed for 10s")
        return True

    def stats(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "ingest-api", "INFO", f"producer stats: {int(1700 * c['d'])} events/s in, batch avg "
               f"{w.between(20, 40)} events, produce p99 {w.between(9, 19)}ms, errors 0, rejected 413: "
               f"{w.between(700, 1100)}/min")
        return True

    w.on("ingest-size", t0 + ms(3000), t1 + ms(3000), size)
    w.on("ingest-stats", t0, t1, stats)
    for b in (1, 2, 3):
        w.bend("broker_metrics", f"broker-{b}", "bytes_in_mb_s", t0 - timedelta(minutes=2), t1,
               lambda t, v: v * 0.36)
    q0, q1 = w.at(2, "15:15"), w.at(2, "15:35")
    incident(
        w, id="PIPE-06", kind="change", service="ingest-api", start=q0, end=q1, onset=t0,
        question="Mobile analytics events dropping since ~15:15 SGT. ingest-api, 2026-04-08T15:15+08:00 to "
                 "2026-04-08T15:35+08:00 — why?",
        cause_service="ingest-api",
        root_cause="config change AUD-7731 (15:12) lowered ingest-api's http.max_request_bytes from 1048576 "
                   "to 65536: "
                   "the mobile apps' batches (50-400 KB) were rejected with 413, only small web batches got "
                   "through, "
                   "until AUD-7732 reverted it at 15:47",
        key_terms=["ingest-api", "aud-7731", "request"],
        distractors=["dfs-sink config change AUD-7729 (flush.size) at 15:05"],
        evidence=[logs_ev("ingest-api", q0, q1, "http.max_request_bytes=65536", level="WARN"),
                  sql_ev("SELECT audit_id, component, setting, before, after, applied_at FROM config_audit "
                         "WHERE "
                         f"applied_at BETWEEN '{zulu(w.at(2, '14:30'))}' AND '{zulu(q1)}'", "AUD-7731")],
    )


def p07_quorum(w: Pipeline) -> None:
    t_c3, t0 = w.at(2, "02:03", 10.0), w.at(2, "02:14", 31.0)
    t_back, t1 = w.at(2, "02:38", 50.0), w.at(2, "02:39", 6.0)
    t_c1 = w.at(2, "02:52", 0.0)
    lease = t0 + timedelta(seconds=20)
    w.emit(t_c3, "coordinator", "INFO",
           "Received SIGTERM, shutting down (systemd: unattended-upgrades reboot)",
           host="coord-3")
    for i in (1, 2):
        w.emit(t_c3 + ms(300 + 100 * i), "coordinator", "WARN",
               f"Connection broken for id 3, my id = {i}: EOF; "
               "peer coord-3:3888 unreachable", host=f"coord-{i}")
    w.emit(t0, "coordinator", "INFO", "Received SIGTERM, shutting down (systemd: unattended-upgrades reboot)",
           host="coord-1")
    w.emit(t0 + ms(2100), "coordinator", "WARN",
           "leader coord-2: only 1 of 3 servers synced, quorum is 2; giving up leadership", host="coord-2")
    w.emit(t0 + ms(2200), "coordinator", "ERROR",
           "lost quorum: shutting down leader services; serving no client requests", host="coord-2")
    for t in w.every(t0 + timedelta(seconds=30), t_back, 30, 31):
        w.emit(t, "coordinator", "WARN", "state LOOKING: no quorum (coord-1:3888, coord-3:3888 unreachable); "
               "notification timeout 60000 ms", host="coord-2")
    w.emit(t_back, "coordinator", "INFO", "starting coordinator myid=3 (data /data/coord)", host="coord-3")
    w.emit(t1, "coordinator", "INFO", "coord-2 LEADING epoch 0x1a with followers [3] (election took 212 ms)",
           host="coord-2")
    w.emit(t_c1, "coordinator", "INFO", "starting coordinator myid=1 (data /data/coord)", host="coord-1")
    for b in (1, 2, 3):
        w.emit(t0 + ms(6000 + 200 * b), "broker", "WARN", f"[CoordinatorClient broker={b}] session "
               f"0x1000a2f3c00{b}2 expired; reconnecting to coord-2:2181", host=f"broker-{b}")
        w.emit(lease + ms(100 * b), "broker", "ERROR", f"[broker={b}] leader lease for 4 partitions expired "
               "(coordinator unavailable); rejecting produce and fetch with NOT_LEADER_OR_FOLLOWER",
               host=f"broker-{b}")
        w.emit(t1 + ms(4000 + 300 * b), "broker", "INFO", f"[broker={b}] coordinator session re-established; "
               "leader lease renewed for 4 partitions", host=f"broker-{b}")
        for t in w.every(lease + timedelta(seconds=60), t1, 90, 150):
            w.emit(t, "broker", "ERROR",
                   f"[CoordinatorClient broker={b}] connect to coord-{w.between(1, 3)}:2181 "
                   "failed: no quorum (server not serving requests)", host=f"broker-{b}")

    def produce(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        p = c["p"]
        w.emit(t + ms(w.between(20, 200)), "ingest-api", "ERROR", f"produce to events-raw-{p} failed: "
               f"NOT_LEADER_OR_FOLLOWER (broker-{leader(p)}:9092); metadata refresh: LEADER_NOT_AVAILABLE")
        return True

    w.on("ingest->broker", lease, t1 + timedelta(seconds=5), produce, share=0.35)

    def quiet(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        return True

    w.on("coord-1-down", t0, t_c1, quiet)
    w.on("coord-3-down", t_c3, t_back, quiet)
    w.on("enricher-progress", lease, t1, quiet)
    w.on("sink-commit", lease, t1, quiet)
    for t in w.every(lease + timedelta(seconds=10), t1, 50, 80):
        w.emit(t, "stream-enricher", "ERROR", "consumer group stream-enricher: group coordinator broker-"
               f"{w.between(1, 3)}:9092 unavailable (COORDINATOR_NOT_AVAILABLE); fetch paused")
        w.emit(t + ms(w.between(100, 9000)), "dfs-sink", "ERROR",
               f"task dfs-sink-{w.between(0, 3)}: fetch from "
               "events-enriched failed: NOT_LEADER_OR_FOLLOWER; retrying")
    for t in w.every(lease + timedelta(seconds=30), t1, 120, 180):
        w.emit(t, "schema-registry", "WARN",
               "cannot read _schemas topic: NOT_LEADER_OR_FOLLOWER (broker-1:9092); serving subjects from "
               "local cache")
    for b in (1, 2, 3):
        w.bend("broker_metrics", f"broker-{b}", "produce_p99_ms", lease - timedelta(minutes=4), t1,
               lambda t, v: 30000.0)
        w.bend("broker_metrics", f"broker-{b}", "bytes_in_mb_s", lease - timedelta(minutes=4), t1,
               lambda t, v: v * 0.05)
    q0, q1 = w.at(2, "02:15"), w.at(2, "02:40")
    incident(
        w, id="PIPE-07", kind="system_wide", service=None, start=q0, end=q1, onset=t0,
        question="Something broke in the data pipeline between 02:15 and 02:40 SGT on 2026-04-08 — what is "
                 "the "
                 "root cause?",
        cause_service="coordinator",
        root_cause="the coordinator ensemble lost quorum at 02:14: coord-3 had been rebooted for OS patching "
                   "at 02:03 "
                   "and coord-1 was rebooted at 02:14, leaving coord-2 alone; brokers' coordinator sessions "
                   "and leader "
                   "leases expired, so produce and fetch failed with NOT_LEADER_OR_FOLLOWER across "
                   "ingest-api, "
                   "stream-enricher and dfs-sink until coord-3 rejoined at 02:39",
        key_terms=["coordinator", "quorum"],
        distractors=["scheduler config change AUD-7718 (core.parallelism) at 01:55",
                     "revenue_rollup_daily running since 02:00"],
        evidence=[logs_ev("coordinator", q0 - timedelta(minutes=15), q1, "lost quorum", level="ERROR"),
                  logs_ev("broker", w.at(2, "02:10"), q1, "coordinator unavailable", level="ERROR")],
    )


def p10_poison(w: Pipeline) -> None:
    t_in, t0, t1 = w.at(2, "16:41", 5.0), w.at(2, "16:41", 12.0), w.at(2, "17:32", 40.0)
    w.emit(t_in, "ingest-api", "INFO",
           "accepted batch client=partner-feed/1.0 events=1 bytes=1019874 -> events-raw-5 (broker-3:9092) "
           "in 41ms")
    t, backoff, attempt = t0, 1.0, 1
    while t < t1:
        w.emit(t, "stream-enricher", "ERROR",
               "publish to events-enriched failed for events-raw-5@88412331: record too "
               f"large (1348712 bytes > max.request.size=1048576); retrying (attempt {attempt})",
               host="str-2")
        t += timedelta(seconds=backoff + w.r())
        backoff = min(120.0, backoff * 2)
        attempt += 1
    for t in w.every(t0 + timedelta(seconds=300), t1, 300, 301):
        w.emit(t, "stream-enricher", "WARN", "partition events-raw-5 stalled at offset 88412331 for "
               f"{int((t - t0).total_seconds())}s; other partitions progressing", host="str-2")
    w.emit(t1, "stream-enricher", "INFO",
           "skipped record events-raw-5@88412331 (1348712 bytes) to events-raw-dlq on operator request "
           "(w.ng)", host="str-2")
    w.bend("consumer_lag", "stream-enricher", "lag", t0, t1 + timedelta(minutes=10),
           lambda t, v: v + max(0.0, min((t - t0).total_seconds(), (t1 - t0).total_seconds()) * 400
                                - max(0.0, (t - t1).total_seconds()) * 2000))
    q0, q1 = w.at(2, "16:45"), w.at(2, "17:05")
    incident(
        w, id="PIPE-10", kind="trap_noisy_service", service="stream-enricher", start=q0, end=q1, onset=t0,
        question="stream-enricher is full of errors and its lag on events-raw keeps climbing, 16:45–17:05 "
                 "SGT on "
                 "2026-04-08 — what's going on?",
        cause_service="stream-enricher",
        root_cause="a single ~1 MB event from partner-feed on events-raw-5 grew past the 1 MB producer limit "
                   "after "
                   "enrichment: stream-enricher's publish failed with 'record too large' and it retried the "
                   "same "
                   "record forever, stalling partition events-raw-5 and growing the lag; the geoip lookup "
                   "errors are "
                   "the enricher's everyday noise",
        key_terms=["stream-enricher", "too large"],
        distractors=["stream-enricher geoip lookup errors (always there, the most frequent ERROR)"],
        evidence=[logs_ev("stream-enricher", q0, q1, "record too large", level="ERROR"),
                  sql_ev("SELECT ts, group_id, lag FROM consumer_lag WHERE group_id = 'stream-enricher' AND "
                         "ts BETWEEN "
                         f"'{zulu(q0)}' AND '{zulu(q1)}' ORDER BY ts", "stream-enricher")],
    )


def p04_runaway_query(w: Pipeline) -> None:
    t0, t1 = w.at(2, "21:06", 40.0), w.at(2, "21:58", 10.0)
    w.emit(t0, "warehouse", "INFO",
           "query q-88213 user=bi_adhoc (app=jupyter, 10.20.8.31) started: SELECT e.*, s.* FROM "
           "analytics.fact_events e JOIN analytics.fact_sessions s ON e.user_id = s.user_id WHERE e.dt >= "
           "'2026-01-01'")
    spill = 0
    for t in w.every(t0 + timedelta(seconds=300), t1, 300, 301):
        spill += w.between(60, 110)
        w.emit(t, "warehouse", "WARN",
               f"query q-88213 (user=bi_adhoc) running {int((t - t0).total_seconds())}s: "
               f"scanned {spill / 60:.1f} TB, hash join spilled {spill} GB to disk, 64 of 64 slices busy")
    w.emit(t1, "warehouse", "INFO", "query q-88213 cancelled by admin (user=dba_oncall) after 3090s")

    def load(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        w.emit(t + timedelta(seconds=600), "warehouse-loader", "ERROR",
               f"COPY INTO analytics.{c['table']} {c['part']} "
               "failed after 600.0s: canceling statement due to statement timeout (wh-1:5439)")
        return 600

    def dash(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        return w.between(25000, 95000)

    w.on("load", t0 + timedelta(minutes=4), t1 - timedelta(minutes=8), load)
    w.on("wh-slow", t0 + timedelta(minutes=2), t1, dash)
    for h in ("wh-1", "wh-2"):
        w.bend("host_metrics", h, "cpu_pct", t0 - timedelta(minutes=5), t1, lambda t, v: 99.0)
        w.bend("host_metrics", h, "disk_await_ms", t0, t1, lambda t, v: v + 45)
    q0, q1 = w.at(2, "21:20"), w.at(2, "21:45")
    incident(
        w, id="PIPE-04", kind="metrics_deps", service="warehouse-loader", start=q0, end=q1, onset=t0,
        question="warehouse-loader loads timing out tonight — 21:20–21:45 UTC+8, 2026-04-08. Why?",
        cause_service="warehouse",
        root_cause="an ad-hoc query q-88213 from bi_adhoc (a notebook, started 21:06) joined fact_events and "
                   "fact_sessions without a partition filter and saturated the warehouse (CPU 99% on wh-1 "
                   "and wh-2, "
                   "hundreds of GB spilled); the loader's COPY statements hit the 600 s statement timeout "
                   "until the "
                   "query was cancelled at 21:58",
        key_terms=["warehouse", "q-88213"],
        distractors=["warehouse config change AUD-7715 (wlm.adhoc_queue_slots) the day before",
                     "schema-registry release REL-417 at 20:30"],
        evidence=[logs_ev("warehouse-loader", q0, q1, "statement timeout", level="ERROR"),
                  logs_ev("warehouse", w.at(2, "21:00"), q1, "q-88213", pattern="q-88213"),
                  sql_ev("SELECT ts, host, cpu_pct FROM host_metrics WHERE host LIKE 'wh-%' AND ts BETWEEN "
                         f"'{zulu(q0)}' AND '{zulu(q1)}'", "wh-1")],
    )


def p08_safe_mode(w: Pipeline) -> None:
    t0, t_safe, t1 = w.at(3, "08:41", 10.0), w.at(3, "08:58", 10.0), w.at(3, "09:52", 0.0)
    w.emit(t0, "dfs-namenode", "WARN",
           "resource check: volume /data/nn has 212 MB free (warning threshold 500 MB)")
    w.emit(w.at(3, "08:50", 10.0), "dfs-namenode", "WARN",
           "resource check: volume /data/nn has 96 MB free (warning threshold 500 MB)")
    w.emit(t_safe, "dfs-namenode", "ERROR",
           "resource check: volume /data/nn has 48 MB free (below 100 MB); entering safe mode")
    w.emit(t_safe + ms(20), "dfs-namenode", "WARN",
           "Safe mode is ON. Resources are low on the NameNode; the namespace is read-only until space is "
           "freed and safe mode is left manually")
    for t in w.every(t_safe + timedelta(minutes=5), t1, 300, 301):
        w.emit(t, "dfs-namenode", "WARN", "Safe mode is ON (resources low on /data/nn); refused "
               f"{w.between(40, 120)} create/mkdirs calls in the last 300s")
    w.emit(t1, "dfs-namenode", "INFO",
           "Safe mode is OFF (left manually by hdfs-admin); /data/nn has 2.31 GB free after purging edit "
           "logs older than the last checkpoint")

    def sink(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "dfs-sink", "ERROR", f"task dfs-sink-{c['task']} commit failed for {part_path(t)}/part-"
               f"{c['task']:05d}-{w.between(10000, 99999)}.parquet: SafeModeException: Cannot create file. "
               "Name node "
               "is in safe mode (nn-1:8020)")
        return True

    def close(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "dfs-sink", "ERROR",
               f"closing hour {part_path(c['hour'])} failed: SafeModeException: Cannot "
               "create file _SUCCESS. Name node is in safe mode (nn-1:8020)")
        return True

    def job(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        took = w.between(200, 300)
        w.emit(t + timedelta(seconds=took - 1), "jobrunner", "ERROR",
               "SafeModeException: Cannot create directory "
               f"/warehouse/sessions/{c['part']}/_temporary. Name node is in safe mode (nn-1:8020)",
               host=c["host"])
        return took

    def quiet(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        return True

    for task in range(4):  # each sink task retries its pending file
        for t in w.every(t_safe + timedelta(seconds=20 + 9 * task), t1, 120, 180):
            sink(w, t, {"task": task})
    w.on("sink-commit", t_safe, t1, sink, share=0.8)
    w.on("sink-close", t_safe, t1, close)
    w.on("dfs-write", t_safe, t1, quiet)
    w.on("sessionize", t_safe, t1, job)
    w.bend("consumer_lag", "dfs-sink", "lag", t_safe, t1 + timedelta(minutes=15),
           lambda t, v: v + max(0.0, min((t - t_safe).total_seconds(), (t1 - t_safe).total_seconds()) * 3000
                                - max(0.0, (t - t1).total_seconds()) * 12000))
    q0, q1 = w.at(3, "09:00"), w.at(3, "09:30")
    incident(
        w, id="PIPE-08", kind="system_wide", service=None, start=q0, end=q1, onset=t0,
        question="Which component failed? Dashboards are stale and several pipeline jobs are red since "
                 "~09:00 on "
                 "2026-04-09 (SGT). Window 09:00–09:30 UTC+8.",
        cause_service="dfs-namenode",
        root_cause="the dfs-namenode's metadata volume /data/nn filled up (edit logs kept growing because "
                   "checkpoints "
                   "from the standby had stopped days earlier) and at 08:58 the namenode entered safe mode: "
                   "every "
                   "write (dfs-sink commits, sessionize_hourly output) failed with SafeModeException until "
                   "safe mode "
                   "was left at 09:52",
        key_terms=["namenode", "safe mode"],
        distractors=["stream-enricher release REL-418 (5.2.1) at 07:30",
                     "dfs-datanode slow BlockReceiver warnings (always there)"],
        runbook="namenode-safe-mode", runbook_query="name node is in safe mode resources low writes refused",
        evidence=[logs_ev("dfs-namenode", w.at(3, "08:30"), q1, "entering safe mode", level="ERROR"),
                  logs_ev("dfs-sink", q0, q1, "SafeModeException", level="ERROR"),
                  sql_ev("SELECT ts, host, disk_used_pct FROM host_metrics WHERE host = 'nn-1' AND ts "
                         "BETWEEN "
                         f"'{zulu(w.at(3, '08:00'))}' AND '{zulu(q1)}' ORDER BY ts", "nn-1")],
    )


def p02_profile_kv(w: Pipeline) -> None:
    t0, t1 = w.at(3, "11:20", 14.0), w.at(3, "12:02", 30.0)
    timeout = "dial tcp 10.20.5.14:7000: i/o timeout (profile-kv:7000)"
    for t in w.every(t0, t1, 5, 12):
        w.emit(t, "stream-enricher", "ERROR",
               f"profile lookup failed for u-{w.between(100000, 999999)}: {timeout}")
    for t in w.every(t0 + timedelta(seconds=50), t1, 60, 61):
        w.emit(t, "stream-enricher", "WARN",
               f"enrichment throughput {w.between(5, 30)} rec/s (normal ~4800); "
               f"{w.between(900, 1800)} lookups pending on profile-kv:7000")
    for t in w.every(t0 + timedelta(seconds=300), t1, 120, 121):
        w.emit(t, "dfs-sink", "WARN",
               "no records from events-enriched for 300s on 4 of 4 tasks (partitions 0-11); last commit "
               "11:20:41")
    w.emit(t1, "stream-enricher", "INFO",
           "profile-kv:7000 lookups recovered (p99 4ms); catching up on events-raw")

    def quiet(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        return True

    w.on("enricher-progress", t0, t1, quiet)
    w.on("sink-commit", t0 + timedelta(seconds=30), t1 + timedelta(seconds=60), quiet)

    def close(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "dfs-sink", "WARN", f"closed hour {part_path(c['hour'])}: 4 of 4 tasks committed, only "
               f"{w.between(200000, 400000)} records (expected ~9M); wrote _SUCCESS")
        return True

    w.on("sink-close", t0, t1 + timedelta(minutes=5), close)
    w.bend("consumer_lag", "stream-enricher", "lag", t0, t1 + timedelta(minutes=25),
           lambda t, v: v + max(0.0, min((t - t0).total_seconds(), (t1 - t0).total_seconds()) * 4700
                                - max(0.0, (t - t1).total_seconds()) * 9000))
    w.bend("host_metrics", "str-1", "cpu_pct", t0, t1, lambda t, v: 6.0)
    q0, q1 = w.at(3, "11:25"), w.at(3, "11:45")
    incident(
        w, id="PIPE-02", kind="logs_only", service="dfs-sink", start=q0, end=q1, onset=t0,
        question="dfs-sink stopped writing new files around 11:25 SGT on 2026-04-09 — can you check "
                 "11:25–11:45 UTC+8 "
                 "and find out why?",
        cause_service="profile-kv",
        root_cause="stream-enricher's profile lookups to profile-kv:7000 (10.20.5.14) started timing out at "
                   "11:20 "
                   "(dial tcp i/o timeout): enrichment throughput fell to a few records per second, so "
                   "nothing reached "
                   "events-enriched and dfs-sink had no records to write, until profile-kv recovered at "
                   "12:02",
        key_terms=["profile-kv", "timeout"],
        distractors=["stream-enricher geoip lookup errors (always there)",
                     "stream-enricher release REL-418 (5.2.1) at 07:30"],
        evidence=[logs_ev("stream-enricher", q0, q1, "profile-kv:7000", level="ERROR"),
                  logs_ev("dfs-sink", q0, q1, "no records from events-enriched", level="WARN")],
    )


def p09_warehouse_killed(w: Pipeline) -> None:
    t_mem, t0, t1 = w.at(3, "14:28", 40.0), w.at(3, "14:31", 2.0), w.at(3, "14:43", 30.0)
    sw = w.switch["REL-419"]
    w.emit(sw + ms(300), "scheduler", "INFO", "warehouse connection pool: host=wh-1:5439 connect_timeout=5s "
           "(was 10s) pool_size=8")
    w.emit(t_mem, "warehouse", "WARN", "memory: 97% of 256 GB in use; 12 queries waiting for workload memory")
    w.emit(t0, "warehouse", "ERROR", "server process (PID 28114) was terminated by signal 9: Killed",
           detail="Failed process was running: SELECT user_id, count(*) FROM analytics.fact_events WHERE dt "
                  ">= "
                  "'2026-03-01' GROUP BY 1 (user=dash_ro)")
    w.emit(t0 + ms(5), "warehouse", "INFO", "terminating any other active server processes")
    w.emit(t0 + ms(900), "warehouse", "INFO", "all server processes terminated; reinitializing")
    w.emit(t0 + ms(3100), "warehouse", "INFO",
           "database system was interrupted; last known up at 2026-04-09 14:25:40 +08")
    w.emit(t0 + ms(3300), "warehouse", "INFO",
           "database system was not properly shut down; automatic recovery in progress")
    w.emit(t0 + ms(3500), "warehouse", "INFO", "redo starts at 1F/8A21C0D8")
    w.emit(t1 - ms(2000), "warehouse", "INFO", "redo done at 1F/9C10E2A0")
    w.emit(t1, "warehouse", "INFO", "database system is ready to accept connections")

    def load(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        if t < t0:
            secs = int((t0 - t).total_seconds()) + 1
            w.emit(t + timedelta(seconds=secs), "warehouse-loader", "ERROR",
                   f"COPY INTO analytics.{c['table']} "
                   f"{c['part']} failed: server closed the connection unexpectedly (wh-1:5439)")
            return secs
        w.emit(t + ms(300), "warehouse-loader", "ERROR",
               f"COPY INTO analytics.{c['table']} {c['part']} failed: "
               "FATAL: the database system is in recovery mode (wh-1:5439)")
        return 1

    def dash(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        return -1

    w.on("load", w.at(3, "14:19"), t1, load)
    w.on("wh-slow", t0, t1, dash)
    w.bend("host_metrics", "wh-1", "mem_pct", w.at(3, "14:10"), t0, lambda t, v: 96.0 + v / 50)
    w.bend("host_metrics", "wh-1", "mem_pct", t0, t1 + timedelta(minutes=20), lambda t, v: 31.0)
    q0, q1 = w.at(3, "14:30"), w.at(3, "14:50")
    incident(
        w, id="PIPE-09", kind="trap_unrelated_change", service="warehouse-loader", start=q0, end=q1,
             onset=t_mem,
        question="warehouse-loader failing with connection errors right after the scheduler 2.9.0 release, "
                 "14:30–14:50 "
                 "SGT 2026-04-09 — was it the release?",
        cause_service="warehouse",
        root_cause="not the release: the warehouse ran out of memory (97% of 256 GB in use, wh-1) and a "
                   "server "
                   "process was killed by signal 9 at 14:31, so the warehouse restarted and ran crash "
                   "recovery "
                   "until 14:43; the loader's COPYs failed with 'server closed the connection' and 'in "
                   "recovery "
                   "mode'. scheduler 2.9.0 (REL-419, 14:22) only changed the scheduler's own connect timeout",
        key_terms=["warehouse", "killed"],
        distractors=["scheduler release REL-419 (2.9.0, 'warehouse connection pool: new timeout defaults') "
                     "at 14:22"],
        evidence=[logs_ev("warehouse", q0, q1, "terminated by signal 9", level="ERROR"),
                  logs_ev("warehouse-loader", q0, q1, "recovery mode", level="ERROR")],
    )


def p11_sink_task(w: Pipeline) -> None:
    t0, t1 = w.at(3, "16:42", 30.0), w.at(3, "17:40", 0.0)
    w.emit(t0, "dfs-sink", "ERROR",
           "task dfs-sink-3 failed and will not be restarted automatically: java.io.IOException: "
           "Filesystem closed (writer for events-enriched-9, -10, -11)")
    for t in w.every(t0 + timedelta(seconds=600), t1, 600, 601):
        w.emit(t, "dfs-sink", "WARN", "connector dfs-sink: 3 of 4 tasks RUNNING, 1 FAILED (dfs-sink-3)")
    w.emit(t1, "dfs-sink", "INFO",
           "task dfs-sink-3 restarted by operator (w.ng); resuming events-enriched-9..11")

    def commit(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        return c["task"] == 3

    def close(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "dfs-sink", "WARN",
               f"closing hour {part_path(c['hour'])}: 3 of 4 tasks committed; _SUCCESS not "
               "written (dfs-sink-3 FAILED)")
        return True

    def job(w: Pipeline, t: datetime, c: dict[str, Any]) -> int:
        took = w.between(20, 40)
        w.emit(t + timedelta(seconds=took - 1), "jobrunner", "ERROR",
               f"completeness check failed for {c['part']}: "
               "_SUCCESS marker missing; partitions events-enriched-9..11 have no files after 16:42",
               host=c["host"])
        return took

    w.on("sink-commit", t0, t1, commit)
    w.on("sink-close", t0, t1, close)
    w.on("sessionize", t0, t1, job)
    w.bend("consumer_lag", "dfs-sink", "lag", t0, t1 + timedelta(minutes=15),
           lambda t, v: v + max(0.0, min((t - t0).total_seconds(), (t1 - t0).total_seconds()) * 1100
                                - max(0.0, (t - t1).total_seconds()) * 5000))
    q0, q1 = w.at(3, "17:00"), w.at(3, "17:25")
    incident(
        w, id="PIPE-11", kind="trap_late_symptom", service="jobrunner", start=q0, end=q1, onset=t0,
        question="sessionize_hourly red again — 17:00–17:25 SGT on 2026-04-09, jobrunner. Root cause?",
        cause_service="dfs-sink",
        root_cause="dfs-sink's task dfs-sink-3 failed at 16:42 with java.io.IOException: Filesystem closed "
                   "and was not "
                   "restarted: partitions events-enriched-9..11 got no files and the hour 16 partition never "
                   "got its "
                   "_SUCCESS marker, so sessionize_hourly failed its completeness check from 17:05",
        key_terms=["dfs-sink", "filesystem closed"],
        distractors=["the loud sessionize_hourly and scheduler failures from 17:05 (a symptom that starts "
                     "~20 "
                     "minutes after the cause)", "stream-enricher geoip errors (always there)"],
        evidence=[logs_ev("dfs-sink", w.at(3, "16:30"), q1, "Filesystem closed", level="ERROR"),
                  logs_ev("jobrunner", q0, q1, "completeness check failed", level="ERROR")],
    )


def p12_quiet(w: Pipeline) -> None:
    q0, q1 = w.at(1, "20:00"), w.at(1, "20:20")
    incident(
        w, id="PIPE-12", kind="no_incident", service=None, start=q0, end=q1, onset=None,
        question="Was there an incident in the data pipeline between 20:00 and 20:20 SGT on 2026-04-07? A "
                 "freshness "
                 "alert fired and auto-resolved.",
        cause_service=None, root_cause=None, key_terms=[],
        distractors=["stream-enricher geoip lookup errors (always there)",
                     "dfs-datanode slow BlockReceiver warnings (always there)"],
        evidence=[], expected="FALLBACK",
        note="normal evening traffic, jobs succeeded, metrics at baseline, no changes in the hour before",
    )


def p13_backfill(w: Pipeline) -> None:
    t0, t1 = w.at(3, "19:08", 0.0), w.at(3, "20:05", 30.0)
    w.emit(t0, "ingest-api", "INFO",
           "new client backfill-replay-q1 (token data-eng-backfill) from 10.20.8.44: first batch "
           "events=5000 bytes=1011212")
    for t in w.every(t0 + timedelta(seconds=30), t1, 20, 40):
        p = w.rng.randrange(12)
        w.emit(t, "ingest-api", "INFO", f"accepted batch client=backfill-replay-q1 events=5000 bytes="
               f"{w.between(990000, 1040000)} -> events-raw-{p} (broker-{leader(p)}:9092) in "
               f"{w.lat(8, 40)}ms")
    for t in w.every(t0 + timedelta(seconds=60), t1, 60, 61):
        w.emit(t, "ingest-api", "WARN",
               f"client backfill-replay-q1 exceeds soft quota: {w.between(38000, 44000)} "
               "events/s (quota 5000/s); quota.mode=soft, accepting")

    def stats(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        w.emit(t, "ingest-api", "INFO",
               f"producer stats: {int(4800 * c['d']) + 41000} events/s in, batch avg "
               f"{w.between(1400, 1900)} events, produce p99 {w.between(25, 60)}ms, errors 0")
        return True

    def progress(w: Pipeline, t: datetime, c: dict[str, Any]) -> bool:
        lag = int((t - t0).total_seconds() * 27000)
        w.emit(t, "stream-enricher", "INFO",
               f"processed {18400 * 600} records in 600s (18400 rec/s, max for 4 "
               f"workers) from events-raw[0-11], enrich p99 {w.between(3, 8)}ms, lag {lag}")
        return True

    w.on("ingest-stats", t0, t1, stats)
    w.on("enricher-progress", t0, t1 + timedelta(minutes=40), progress)
    w.emit(t1 + ms(3000), "ingest-api", "WARN", "client backfill-replay-q1 throttled to quota 5000 events/s "
           "(quota.mode=enforce)")
    for b in (1, 2, 3):
        w.bend("broker_metrics", f"broker-{b}",
               "bytes_in_mb_s", t0 - timedelta(minutes=2), t1, lambda t, v: v * 8.5)
    w.bend("consumer_lag", "stream-enricher", "lag", t0, t1 + timedelta(minutes=90),
           lambda t, v: v + max(0.0, min((t - t0).total_seconds(), (t1 - t0).total_seconds()) * 27000
                                - max(0.0, (t - t1).total_seconds()) * 17000))
    w.bend("consumer_lag", "audit-mirror", "lag", t0, t1 + timedelta(minutes=60),
           lambda t, v: v + max(0.0, min((t - t0).total_seconds(), (t1 - t0).total_seconds()) * 6000
                                - max(0.0, (t - t1).total_seconds()) * 6000))
    q0, q1 = w.at(3, "19:15"), w.at(3, "19:35")
    incident(
        w, id="PIPE-13", kind="trap_runbook_words", service="stream-enricher", start=q0, end=q1, onset=t0,
        question="stream-enricher consumer lag alert firing — 11:15 to 11:35 UTC on 2026-04-09. Need the "
                 "root cause.",
        cause_service="ingest-api",
        root_cause="a backfill client (backfill-replay-q1, token data-eng-backfill) started replaying Q1 "
                   "events "
                   "through ingest-api at 19:08 at ~41k events/s, eight times its quota (ingest-api quotas "
                   "were in soft "
                   "mode), so events-raw traffic jumped ~8x; stream-enricher was healthy and at its maximum "
                   "throughput, it simply could not keep up — not a rebalance",
        key_terms=["backfill", "ingest-api"],
        distractors=["runbook enricher-consumer-lag (rebalance storms after deploys) matches the alert's "
                     "words", "stream-enricher config change AUD-7750 (max.poll.records) at 18:50",
                     "ingest-api release REL-420 (3.14.1) at 18:40"],
        decoy_runbook="enricher-consumer-lag", runbook_query="stream-enricher consumer lag growing",
        evidence=[logs_ev("ingest-api", q0, q1, "backfill-replay-q1", level="WARN"),
                  sql_ev("SELECT ts, broker, bytes_in_mb_s FROM broker_metrics WHERE ts BETWEEN "
                         f"'{zulu(w.at(3, '18:50'))}' AND '{zulu(q1)}' ORDER BY ts", "broker-1")],
    )


PIPE_INCIDENTS = [p01_metastore_oom, p02_profile_kv, p03_broker_disk, p04_runaway_query, p05_schema_v9,
                  p06_max_request, p07_quorum, p08_safe_mode, p09_warehouse_killed, p10_poison, p11_sink_task,
                  p12_quiet, p13_backfill]


# --- pipeline: tables and runbooks ------------------------------------------------------------

PIPE_HOST_BASE = {  # cpu, mem, disk used, disk await
    "ing-1": (31, 48, 35.0, 1.1), "broker-1": (38, 71, 62.0, 2.1), "broker-2": (37, 70, 61.0, 2.2),
    "broker-3": (39, 72, 63.0, 2.0), "str-1": (58, 64, 21.0, 0.9), "sink-1": (27, 52, 18.0, 1.0),
    "nn-1": (22, 68, 86.0, 1.4), "dn-1": (34, 55, 71.0, 4.1), "dn-2": (33, 54, 70.0, 4.3),
    "dn-3": (35, 56, 72.0, 3.9), "dn-4": (32, 55, 69.0, 4.2), "etl-1": (41, 63, 44.0, 2.6),
    "meta-1": (17, 81, 30.0, 0.8), "wh-1": (44, 61, 58.0, 3.1), "wh-2": (42, 60, 57.0, 3.0),
}

PIPE_DEPENDENCIES = engine.rows("""
    ingest-api       | broker           | broker-1..3:9092
    ingest-api       | schema-registry  | sr-1:8081
    schema-registry  | broker           | broker-1..3:9092
    broker           | coordinator      | coord-1..3:2181
    stream-enricher  | broker           | broker-1..3:9092
    stream-enricher  | profile-kv       | profile-kv:7000
    stream-enricher  | schema-registry  | sr-1:8081
    dfs-sink         | broker           | broker-1..3:9092
    dfs-sink         | dfs-namenode     | nn-1:8020
    dfs-sink         | dfs-datanode     | dn-1..4:9866
    jobrunner        | dfs-namenode     | nn-1:8020
    jobrunner        | dfs-datanode     | dn-1..4:9866
    jobrunner        | metastore        | metastore:9083
    scheduler        | jobrunner        | etl-1..2
    scheduler        | warehouse-loader | etl-1
    warehouse-loader | warehouse        | wh-1:5439
    warehouse-loader | metastore        | metastore:9083
    warehouse-loader | dfs-namenode     | nn-1:8020
    dashboards       | warehouse        | wh-1:5439
""")


def local_text(t: datetime) -> str:
    """Metric exports' timestamps: Singapore wall time without an offset (dataset.json says the zone)."""
    return t.astimezone(SGT).strftime("%Y-%m-%d %H:%M:%S")


def pipe_tables(w: Pipeline) -> None:
    rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        for b in (1, 2, 3):
            ent = f"broker-{b}"
            if w.bent("broker_metrics", ent, "down", t, 0) >= 1:
                rows.append([local_text(t), ent, 0, "", "", "", round(61 + b + 0.4 * w.r(), 1)])
                continue
            vals = [round(w.bent("broker_metrics", ent, "bytes_in_mb_s", t, 14 * d * (0.9 + 0.2 * w.r())), 1),
                    round(w.bent("broker_metrics", ent, "produce_p99_ms", t, 8 + 9 * w.r())),
                    round(w.bent("broker_metrics", ent, "under_replicated", t, 0)),
                    round(w.bent("broker_metrics", ent, "isr_shrinks", t, 0)),
                    round(60.5 + b + 1.2 * (t - w.start).total_seconds() / (w.end - w.start).total_seconds()
                          + 0.3 * w.r(), 1)]
            rows.append([local_text(t), ent, *vals])
    w.tables["broker_metrics"] = (["ts", "broker", "bytes_in_mb_s", "produce_p99_ms", "under_replicated",
                                   "isr_shrinks", "disk_used_pct"], rows)

    lag_rows: list[list[Any]] = []
    for t in minutes(w.start, w.end, 5):
        d = w.diurnal(t)
        for group, topic, base in (("stream-enricher", "events-raw", 1500),
                                   ("dfs-sink", "events-enriched", 2500),
                                   ("audit-mirror", "events-raw", 4000)):
            v = base * d * (0.3 + 1.4 * w.r())
            lag = max(0, round(w.bent("consumer_lag", group, "lag", t, v)))
            lag_rows.append([local_text(t), group, topic, lag])
    w.tables["consumer_lag"] = (["ts", "group_id", "topic", "lag"], lag_rows)

    host_rows: list[list[Any]] = []
    span = (w.end - w.start).total_seconds()
    full, freed = w.at(3, "08:58", 10.0), w.at(3, "09:52")
    for t in minutes(w.start, w.end, 10):
        d = w.diurnal(t)
        for host, (cpu, mem, disk, wait) in PIPE_HOST_BASE.items():
            busy = d if host not in ("nn-1", "meta-1") else 0.5
            if host == "nn-1":
                if t < full:
                    used = 86.0 + 13.9 * (t - w.start).total_seconds() / (full - w.start).total_seconds()
                elif t < freed:
                    used = 99.9
                else:
                    used = 97.4 + 0.2 * (t - freed).total_seconds() / 3600
            else:
                used = disk + 1.5 * (t - w.start).total_seconds() / span + 0.05 * w.r()
            vals = {"cpu_pct": cpu * (0.5 + 0.6 * busy) * (0.9 + 0.2 * w.r()),
                    "mem_pct": mem * (0.97 + 0.06 * w.r()),
                    "disk_used_pct": used, "disk_await_ms": wait * (0.7 + 0.6 * w.r()) * (0.9 + 0.2 * busy)}
            out: list[Any] = [local_text(t), host]
            for col in ("cpu_pct", "mem_pct", "disk_used_pct", "disk_await_ms"):
                out.append(round(min(100.0, w.bent("host_metrics", host, col, t, vals[col])), 1))
            host_rows.append(out)
    w.tables["host_metrics"] = (["ts", "host", "cpu_pct", "mem_pct", "disk_used_pct",
                                 "disk_await_ms"], host_rows)

    w.tables["dependencies"] = (["caller", "callee", "address"], [list(r) for r in PIPE_DEPENDENCIES])
    parts = []
    for topic in ("events-raw", "events-enriched"):
        for p in range(12):
            b = leader(p)
            parts.append([topic, p, f"broker-{b}",
                          ",".join(f"broker-{x}" for x in (b, b % 3 + 1, (b + 1) % 3 + 1))])
    w.tables["topic_partitions"] = (["topic", "partition", "leader", "replicas"], parts)
    w.tables["releases"] = (["release_id", "component", "version", "deployed_at", "deployed_by",
                             "notes"], w.releases)
    w.tables["config_audit"] = (["audit_id", "component", "setting", "before", "after", "actor", "applied_at",
                                 "reason"], w.audits)
    w.tables["job_runs"] = (["run_id", "dag", "task", "partition", "started_at", "finished_at", "state",
                             "try_number",
                             "host", "rows_out"], sorted(w.jobs, key=lambda r: (r[4], r[0])))


PIPE_RUNBOOKS = {
    "pipeline-overview": """# Data platform on-call overview

Owner: data-platform. Times in Singapore time (SGT, UTC+8) unless a tool says otherwise.

## Flow

- Apps send event batches to ingest-api, which produces them to the broker topic events-raw (12
  partitions, replication 3, leaders spread over broker-1..3; see `topic_partitions`). The
  brokers keep their leases and metadata in the coordinator ensemble (coord-1..3, quorum 2).
- stream-enricher consumes events-raw, adds profile (profile-kv:7000) and geo data, and
  produces events-enriched; dfs-sink writes events-enriched as parquet files to the dfs
  (dfs-namenode nn-1:8020, dfs-datanode dn-1..4) and writes a _SUCCESS marker when an hour closes.
- scheduler runs sessionize_hourly at :05 on jobrunner (reads the closed hour, writes
  /warehouse/sessions, registers the partition in the metastore), load_warehouse.fact_sessions at
  :20 and load_warehouse.fact_events every 15 minutes (warehouse-loader -> warehouse wh-1:5439).

## Where to look

- `job_runs` for batch outcomes, `consumer_lag` for the streaming path, `broker_metrics` and
  `host_metrics` for the machines, `releases` and `config_audit` for changes.
""",
    "broker-slow-disk": """# One broker with a slow disk

Owner: data-platform. A failing or throttled disk on one broker slows every partition it
leads and every partition it follows.

## Symptoms

- Producers (ingest-api) time out only for partitions led by one broker: "Expiring N record(s)
  for events-raw-P ... since batch creation (leader broker-N:9092)" and 503s to clients.
- The other brokers log "Shrinking ISR ... Out of sync replicas: (brokerId: N)" and
  `broker_metrics.under_replicated` rises on them.
- The slow broker logs long log flushes; `host_metrics.disk_await_ms` for it jumps from a few ms
  to hundreds.

## Mitigation

- Controlled shutdown of the broker (leaders move to the others), then replace the device and
  let it catch up. Do not restart ingest-api: it is only the messenger.
""",
    "namenode-safe-mode": """# dfs-namenode in safe mode

Owner: data-platform storage.

## Symptoms

- Writers fail with "SafeModeException: ... Name node is in safe mode": dfs-sink commits,
  sessionize_hourly output, compaction. Reads still work.
- dfs-namenode logs "entering safe mode" after its resource check.

## Causes

- The namenode's own metadata volume /data/nn is nearly full (resource check below 100 MB).
  Edit logs grow when checkpoints from the standby stop; watch the "checkpoint overdue"
  warnings and `host_metrics.disk_used_pct` for nn-1.

## Mitigation

- Free space on /data/nn (purge edit logs older than the last checkpoint, or grow the volume),
  then leave safe mode manually; the namenode does not leave it by itself. Fix the standby's
  checkpointing afterwards.
""",
    "enricher-consumer-lag": """# stream-enricher consumer lag

Owner: streaming team. Alert: lag of group stream-enricher on events-raw above 1M for 10 min.

## Usual cause: rebalance storm after a deploy

- After a stream-enricher release or a change to its consumer settings (max.poll.records,
  session timeouts) workers can be kicked out of the group repeatedly; the group spends its
  time rebalancing instead of consuming and lag grows.
- The broker logs many "Stabilized group stream-enricher generation N" lines in a short time.

## Mitigation

- Roll back the last stream-enricher release or consumer setting change, then watch
  `consumer_lag` fall.
""",
}


def build_pipeline() -> Pipeline:
    w = Pipeline()
    pipe_changes(w)
    for simulate in PIPE_INCIDENTS:
        simulate(w)
    pipe_background(w)
    pipe_batches(w)
    pipe_tables(w)
    w.runbooks.update(PIPE_RUNBOOKS)
    return w

# --- main -----------------------------------------------------------------------------------

def truth_of(w: World, dataset: str, zone: str, description: str) -> dict[str, Any]:
    return {"dataset": dataset, "timezone": zone, "description": description,
            "incidents": sorted(w.incidents, key=lambda i: i["id"])}


WORLDS: dict[str, Callable[[], tuple[World, dict[str, Any], dict[str, Any]]]] = {}


def shop_world() -> tuple[World, dict[str, Any], dict[str, Any]]:
    w = build_shop()
    manifest = {"name": "shop-world",
                "description": "A Kubernetes web shop (13 services) over three days, 2026-03-16..18 UTC, "
                               "request logs sampled; 14 incidents and traps (see truth.json)."}
    truth = truth_of(w, "shop-world", "UTC", "Questions are asked in UTC unless they say otherwise.")
    return w, manifest, truth


def pipeline_world() -> tuple[World, dict[str, Any], dict[str, Any]]:
    w = build_pipeline()
    manifest = {"name": "pipeline-world",
                "description": "A streaming and batch data platform (13 services) over three days, "
                               "2026-04-07..09 "
                               "Singapore time; ingest logs sampled; 13 incidents and traps (see "
                               "truth.json).",
                "timezone": "Asia/Singapore"}
    truth = truth_of(w, "pipeline-world", "+08:00",
                     "Questions are asked in Singapore time (UTC+8, SGT) unless they say otherwise; metric "
                     "tables are exported in Singapore wall time.")
    return w, manifest, truth


WORLDS["shop"] = shop_world
WORLDS["pipeline"] = pipeline_world


def main(out_dir: Path = DEFAULT_OUT, names: list[str] | None = None) -> None:
    """Write every world (or those named) into ``out_dir/<name>/``."""
    for name in names or list(WORLDS):
        w, manifest, truth = WORLDS[name]()
        w.write(Path(out_dir) / name, manifest, truth)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
