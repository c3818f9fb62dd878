"""Not a rule: numbers of a change row as the limit rules read them (``50`` → ``5``, ``2`` → ``200m``).

A limit is lowered when its new value is below its old one, in the value's own units: bytes
(``4gb``, ``256Mi``), CPU (``200m`` is 0.2 of a core), rates (``50r/s``), durations
(``500ms``, ``3s``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_NEW = re.compile(r"^(new|new_value|to|to_value|value|after)$", re.I)
_OLD = re.compile(r"^(old|old_value|from|from_value|previous|before)$", re.I)
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)(?:/[a-z]+)?", re.I)
_SCALE = {"": 1.0, "k": 1e3, "kb": 1e3, "ki": 2.0**10, "kib": 2.0**10, "m": 1e6, "mb": 1e6,
          "mi": 2.0**20, "mib": 2.0**20, "g": 1e9, "gb": 1e9, "gi": 2.0**30, "gib": 2.0**30,
          "r": 1.0, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def amount(text: str, cpu: bool = False) -> float | None:
    """A value in its base unit (``512m`` → bytes, or 0.512 of a core with ``cpu``); else None."""
    m = _AMOUNT.fullmatch(text.strip())
    if m is None:
        return None
    unit = m.group(2).lower()
    if cpu and unit == "m":
        return float(m.group(1)) / 1000
    return float(m.group(1)) * _SCALE[unit] if unit in _SCALE else None


_KEY_COLUMN = re.compile(r"key|param|setting|flag|name", re.I)
_TOKEN = re.compile(r"[A-Za-z0-9][\w.:/-]{0,99}")
_SAID = re.compile(r"^([A-Za-z][\w.:/-]*)\s*[:=]\s*(\S+)\s*->\s*(\S+)$")
"""A change-log summary that states its setting: ``pool.max_size: 50 -> 5``."""


def setting(row: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(key, old, new) of a change row: its key and value columns, or a summary that says them."""
    new = next((str(v).strip() for k, v in row.items() if _NEW.match(str(k))), "")
    old = next((str(v).strip() for k, v in row.items() if _OLD.match(str(k))), "")
    key = next((str(v) for k, v in row.items() if _KEY_COLUMN.search(str(k))
                and _TOKEN.fullmatch(str(v))), None)
    if key and new and old:
        return key, old, new
    said = next((m for v in row.values() if (m := _SAID.match(str(v).strip()))), None)
    return (said.group(1), said.group(2), said.group(3)) if said else None


def lowered(row: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(key, old, new) of a change that lowered a number (``50`` → ``5``), else None."""
    found = setting(row)
    if found is None:
        return None
    key, old, new = found
    low, high = amount(new, "cpu" in key.lower()), amount(old, "cpu" in key.lower())
    return found if low is not None and high is not None and low < high else None


def quotes(text: str, value: str) -> bool:
    """Whether a failure's words quote the number a change set (``500ms`` as "500 ms")."""
    m = _AMOUNT.fullmatch(value.strip())
    return m is not None and re.search(rf"(?<![\d.]){re.escape(m.group(1))}\s*{m.group(2)}\b",
                                       text, re.I) is not None
