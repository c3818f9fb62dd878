"""A finished folder replaces the one it was built for: the build's last step and the import's.

Two renames: a reader opening files in between gets "not there" (a build: "not built", and it
retries), never a mix of old and new files. A crash in between leaves the destination absent,
so the next load rebuilds it (an import is run again).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path


def swap_into_place(new: Path, dest: Path) -> None:
    """Rename folder ``new`` to ``dest``, removing the folder that was there (if any) after."""
    if dest.exists():
        old = dest.with_name(f".{dest.name}.old-{uuid.uuid4().hex[:8]}")
        os.rename(dest, old)
        os.rename(new, dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(new, dest)
