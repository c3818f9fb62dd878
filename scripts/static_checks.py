"""Type-check and layer-check the package as it installs: ``python scripts/static_checks.py``.

The card's folders (``graph/``, ``nodes/``, ``tools/``, ``guards/``, ``prompts/``) and
``providers/`` live at the repository's top level and install as ``diagnosis_harness.graph`` and
so on, through setuptools' ``package-dir`` mapping in ``pyproject.toml``. mypy and import-linter
find packages on disk and cannot follow that mapping, so this script lays the installed tree out
as directory links under ``build/tree/`` (read from the same mapping) and runs both there, on
the repository's own files. Exit code: the first failing check's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def lay_out(tree: Path) -> Path:
    """The installed layout of ``diagnosis_harness`` as links into the repository."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    root = tree / "diagnosis_harness"
    root.mkdir()
    mapped = {name.split(".", 1)[1] for name in mapping if "." in name}
    for entry in (REPO / mapping["diagnosis_harness"]).iterdir():
        if entry.name not in mapped and entry.name != "__pycache__":
            (root / entry.name).symlink_to(entry)
    for name, folder in mapping.items():
        if "." in name:
            (root / name.split(".", 1)[1]).symlink_to(REPO / folder, target_is_directory=True)
    return tree


def main() -> int:
    tree = lay_out(REPO / "build" / "tree")
    bin_dir = Path(sys.executable).parent
    config = str(REPO / "pyproject.toml")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for command in (
        [str(bin_dir / "mypy"), "--config-file", config, "--cache-dir", str(REPO / ".mypy_cache")],
        [str(bin_dir / "lint-imports"), "--config", config],
    ):
        done = subprocess.run(command, cwd=tree, env=env, check=False)
        if done.returncode != 0:
            return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
