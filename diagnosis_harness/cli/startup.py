"""Start-up of a CLI command with Python's cyclic garbage collector paused.

A ``harness diagnose`` process spends most of its CPU importing LangGraph, LangChain,
SQLAlchemy and the harness: tens of thousands of module, class and function objects, none of
them garbage. The collector, run every 700 new objects, walks them again and again while they
are being made — about 0.15 CPU-s of a demo diagnose (measured: ``benchmarks/startup.py``).
So a command's imports and set-up run inside :func:`gc_paused`; when the outermost one ends,
what exists then is moved to the collector's permanent generation (``gc.freeze``: it is the
process's code and services, alive until exit, never worth walking again) and collection resumes
as before for everything the run makes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (nested blocks: until the outermost ends)."""
    global _depth
    resume = _depth == 0 and gc.isenabled()
    if _depth == 0:
        gc.disable()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.freeze()
            if resume:
                gc.enable()
