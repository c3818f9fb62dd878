"""Every canon case: one YAML file per failure class (traps in ``traps.yaml``), as data.

A file is a list of cases in the spec's vocabulary (``tests/canon/spec.py``): each field of
:class:`Case` by name (left out where it is the default); a service as its archetype from
``_world.py`` and that archetype's arguments (``["java", "pricing", "quote"]``, or
``["noisy", <service>, message, every_s]``); a log line, change or metric as its kind holding
its required fields in order, then its other fields by name::

    - burst: ["13:52:30", "14:45", "pricing", "slow request: POST /v1/quotes took {n}40 ms"]
      level: "WARN"

A file that does not read as cases is an error naming the file and the case, never a partial canon.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..spec import Burst, Case, Config, Deploy, Flag, Job, Line, Metric, Svc
from ._world import ARCHETYPES, noisy

HERE = Path(__file__).resolve().parent
ITEMS: dict[str, type] = {"line": Line, "burst": Burst, "deploy": Deploy, "config": Config,
                          "flag": Flag, "job": Job, "metric": Metric}
TUPLES = ("window", "key_terms", "runbooks", "distractors")


def all_cases() -> tuple[Case, ...]:
    """The cases of every file of this folder, file by file, in name order."""
    return tuple(case for path in sorted(HERE.glob("*.yaml")) for case in load(path))


def load(path: Path) -> tuple[Case, ...]:
    """The cases one file holds."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path.name}: not a list of canon cases")
    out = []
    for entry in data:
        name = entry.get("id", "?") if isinstance(entry, dict) else "?"
        try:
            out.append(_case(entry))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise ValueError(f"{path.name}: case {name}: {exc}") from exc
    return tuple(out)


def _case(entry: dict[str, Any]) -> Case:
    fields = dict(entry)
    for key in TUPLES:
        if key in fields:
            fields[key] = tuple(fields[key])
    fields["services"] = tuple(_service(s) for s in fields.get("services", ()))
    for key in ("lines", "changes", "metrics"):
        if key in fields:
            fields[key] = tuple(_item(i) for i in fields[key])
    if "tables" in fields:
        fields["tables"] = {name: tuple(rows) for name, rows in fields["tables"].items()}
    return Case(**fields)


def _service(spec: list[Any]) -> Svc:
    kind, *args = spec
    if kind == "noisy":
        return noisy(_service(args[0]), *args[1:])
    if kind not in ARCHETYPES:
        raise ValueError(f"no service archetype {kind!r} (one of {', '.join(sorted(ARCHETYPES))})")
    return ARCHETYPES[kind](*args)


def _item(spec: dict[str, Any]) -> Any:
    kinds = [k for k in spec if k in ITEMS]
    if len(kinds) != 1:
        raise ValueError(f"an item names one kind of {', '.join(ITEMS)}: {spec}")
    rest = dict(spec)
    return ITEMS[kinds[0]](*rest.pop(kinds[0]), **rest)
