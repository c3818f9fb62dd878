"""The one-way layers (docs/design.md §13) are checked by one tool: import-linter, run by CI.

``scripts/static_checks.py`` lays out the installed tree (the ``package-dir`` mapping of
pyproject.toml) and runs ``lint-imports`` on it with the contracts in pyproject.toml. These tests
run that same script on the real tree (it must be clean) and on copies with one deliberately bad
import each — upward, sideways, from a function body, under ``TYPE_CHECKING``, an import of the
public API from inside, a cycle — and show the checker reports each.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("diagnosis_harness", "graph", "nodes", "tools", "guards", "prompts", "providers", "scripts")


def _copy_with(tmp_path: Path, added: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    for folder in FOLDERS:
        shutil.copytree(REPO / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "demo_data"))
    for rel, text in added.items():
        path = root / rel
        path.write_text(path.read_text() + text if path.exists() else text)
    return root


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    code = ("import sys; sys.path.insert(0, 'scripts'); import static_checks as s; "
            "tree = s.lay_out(s.REPO / 'build' / 'tree'); import subprocess, os; "
            "raise SystemExit(subprocess.run([os.path.join(os.path.dirname(sys.executable), "
            "'lint-imports'), str(s.REPO / 'pyproject.toml')], cwd=tree, "
            "env={**os.environ, 'PYTHONPATH': str(tree)}).returncode)")
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_tree_keeps_every_contract(tmp_path: Path) -> None:
    done = _lint(_copy_with(tmp_path, {}))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


BAD = {
    "upward: a node imports the graph": (
        {"nodes/_bad.py": "from diagnosis_harness.graph import routing\n"},
        "diagnosis_harness.nodes._bad -> diagnosis_harness.graph.routing"),
    "upward from a function body: the bottom layer imports the run store": (
        {"diagnosis_harness/control/_bad.py":
         "def late():\n    from diagnosis_harness.runstore import store\n    return store\n"},
        "diagnosis_harness.control._bad -> diagnosis_harness.runstore.store"),
    "upward under TYPE_CHECKING: guards import the tools": (
        {"guards/_bad.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
         "    from diagnosis_harness.tools import registry\n"},
        "diagnosis_harness.guards._bad -> diagnosis_harness.tools.registry"),
    "sideways: tools import providers": (
        {"tools/_bad.py":
         "def seam():\n    from diagnosis_harness.providers import seam\n    return seam\n"},
        "diagnosis_harness.tools._bad -> diagnosis_harness.providers.seam"),
    "inside imports the public API": (
        {"nodes/_bad.py": "from diagnosis_harness._run import diagnose\n"},
        "diagnosis_harness.nodes._bad -> diagnosis_harness._run"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_deliberately_bad_import_is_caught(tmp_path: Path, case: str) -> None:
    added, expected = BAD[case]
    done = _lint(_copy_with(tmp_path, added))
    assert done.returncode != 0, done.stdout
    assert expected in done.stdout.replace("\n", " ") or expected.split(" -> ")[0] in done.stdout, done.stdout


def test_a_cycle_between_sibling_modules_is_caught(tmp_path: Path) -> None:
    added = {"tools/_bad_a.py":
             "def f():\n    from diagnosis_harness.tools import _bad_b\n    return _bad_b\n",
             "tools/_bad_b.py": "from diagnosis_harness.tools import _bad_a\n"}
    done = _lint(_copy_with(tmp_path, added))
    assert done.returncode != 0, done.stdout
    assert "no import cycles" in done.stdout and "BROKEN" in done.stdout
