"""A second incident dataset, shaped unlike the demo, for testing the offline investigator.

An online shop (storefront, checkout-api, search-api, inventory-svc) logging in +02:00, with
its own table and column names (``flag_flips.flipped_at``, ``rollouts.started``,
``cache_samples.sampled_at``…) and runbooks written its own way. Four cases:

- CART: checkout-api slow after the flag ``cart_cache_enabled`` was switched off → SUCCESS;
- SEARCH: search-api errors from a full disk, no runbook → FALLBACK;
- QUIET: inventory-svc window with no events → FALLBACK;
- TRAP: the same cart symptom, but the only matching flag flip came *after* the errors began
  (someone's mitigation, not the cause) → must not publish a cause: FALLBACK.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from datasetkit import write_dataset

TZ = timezone(timedelta(hours=2))

CASES: list[dict[str, Any]] = [
    {"id": "CART", "service": "checkout-api",
     "question": "checkout is slow on checkout-api between 13:00 and 13:15 on 2026-10-20, why?",
     "expected": "SUCCESS", "key_terms": ["cart_cache_enabled"]},
    {"id": "SEARCH", "service": "search-api",
     "question": "search-api errors between 09:00 and 09:10 on 2026-10-21 — what happened?",
     "expected": "FALLBACK"},
    {"id": "QUIET", "service": "inventory-svc",
     "question": "inventory-svc failures between 03:00 and 03:10 on 2026-10-22?",
     "expected": "FALLBACK"},
    {"id": "TRAP", "service": "checkout-api",
     "question": "checkout-api latency between 16:00 and 16:10 on 2026-10-23 — why?",
     "expected": "FALLBACK"},
]


def _t(day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(2026, 10, day, hour, minute, second, tzinfo=TZ)


def _logs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for day in (20, 21, 22, 23):  # background: healthy traffic every 2 minutes, all services
        for minute in range(0, 24 * 60, 2):
            ts = _t(day, 0, 0) + timedelta(minutes=minute)
            if day == 22 and ts.hour == 3 and ts.minute < 15:
                continue  # the quiet window has nothing at all
            for svc in ("storefront", "checkout-api", "search-api"):
                out.append({"ts": ts.isoformat(), "service": svc, "level": "INFO",
                            "message": f"GET /healthz 200 in {5 + minute % 7} ms"})
    for i in range(60):  # CART: cache misses fall through to the primary store
        ts = _t(20, 13, 0, 20) + timedelta(seconds=15 * i)
        out.append({"ts": ts.isoformat(), "service": "checkout-api", "level": "WARN",
                    "message": f"cart cache miss storm: fetching cart c{9000 + i} from primary "
                               f"store took {1800 + i * 7} ms",
                    "attrs": {"cart": f"c{9000 + i}"}})
    out.append({"ts": _t(20, 12, 50).isoformat(), "service": "storefront", "level": "INFO",
                "message": "rollout r-310 finished: footer links refreshed"})
    for i in range(25):  # SEARCH: a shard node ran out of disk; no runbook covers it
        ts = _t(21, 9, 0, 30) + timedelta(seconds=20 * i)
        out.append({"ts": ts.isoformat(), "service": "search-api", "level": "ERROR",
                    "message": f"query q{i} failed: shard 3 unavailable (node search-3: no space "
                               "left on device)"})
    for i in range(40):  # TRAP: the same symptom, cause not in the data
        ts = _t(23, 16, 0, 10) + timedelta(seconds=15 * i)
        out.append({"ts": ts.isoformat(), "service": "checkout-api", "level": "WARN",
                    "message": f"cart cache miss storm: fetching cart c{7000 + i} from primary "
                               f"store took {1500 + i * 5} ms"})
    out.sort(key=lambda e: e["ts"])
    return out


TABLES: dict[str, list[list[str]]] = {
    "flag_flips": [
        ["flip_id", "flag_name", "component", "enabled", "flipped_at", "actor"],
        ["F-88", "new_search_ranking", "search-api", "true", "2026-10-19T10:00:00+02:00", "ana"],
        ["F-91", "cart_cache_enabled", "checkout-api", "false", "2026-10-20T12:55:00+02:00", "bo"],
        ["F-92", "cart_cache_enabled", "checkout-api", "true", "2026-10-20T14:10:00+02:00", "bo"],
        # TRAP: flipped off *after* the storm began at 16:00:10 — a mitigation attempt
        ["F-97", "cart_cache_enabled", "checkout-api", "false", "2026-10-23T16:04:00+02:00", "cy"],
    ],
    "rollouts": [
        ["rollout_id", "component", "build", "started", "finished", "notes"],
        ["r-310", "storefront", "b-5521", "2026-10-20T12:45:00+02:00", "2026-10-20T12:50:00+02:00",
         "footer links refreshed"],
        ["r-311", "search-api", "b-5530", "2026-10-21T08:40:00+02:00", "2026-10-21T08:44:00+02:00",
         "query logging verbosity"],
    ],
    "cache_samples": [
        ["sampled_at", "node", "hit_ratio", "evictions_per_s"],
        *[[(_t(20, 12, 0) + timedelta(minutes=10 * k)).isoformat(), "cart-cache-1",
           "0.97" if k < 6 else "0.02", "3"] for k in range(15)],
    ],
}

KNOWLEDGE = {
    "cart-cache.md": """# Cart cache disabled or cold

## Symptoms
Checkout slows down and logs "cart cache miss storm" while every cart is fetched from the
primary store; the cache hit ratio of cart-cache nodes drops to near zero.

## How to confirm
Look in flag_flips for the flag cart_cache_enabled switched to false on checkout-api shortly
before the first miss storm line.

## Mitigation
Switch cart_cache_enabled back on and watch the hit ratio recover.
""",
    "checkout-errors.md": """# Checkout error triage

## First steps
Check recent rollouts of checkout-api and the error rate per endpoint before paging.
""",
}


def write_shop_dataset(root: Path) -> Path:
    """Write the dataset folder under ``root`` and return it."""
    return write_dataset(root, "shop-test", "test shop", _logs(), tables=TABLES, knowledge=KNOWLEDGE)
