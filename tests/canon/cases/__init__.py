"""Every canon case, one module per failure class (traps in ``traps``)."""

from __future__ import annotations

import importlib
import pkgutil

from ..spec import Case


def all_cases() -> tuple[Case, ...]:
    """The cases of every module of this package, module by module, in name order."""
    out: list[Case] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            out += importlib.import_module(f"{__name__}.{info.name}").CASES
    return tuple(out)
